"""Write ``tests/kernels.txt``: every kernel signature a run of the test suite compiled, read from numba's
cache of a checkout where the suite ran with an empty cache (the list the test command compiles in two
processes before its workers start, ``tests/conftest.py``).

    python benchmarks/test_run_kernels.py [CHECKOUT]

``CHECKOUT`` (default: this one) is a clone whose ``humanbody/_kernels/__pycache__`` holds what the README's
test command compiled, e.g. the clone ``.ci/run`` ran in; give ``--before HH:MM:SS`` to leave out what a later
run (the slow tests) added.  Entries are in the order numba wrote them.  Signatures with a literal argument
are left out: those are helpers compiled with the kernel that calls them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import pickle
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX = re.compile(r"(\w+)\.(\w+)-\d+\.py\d+\.nbi$")


def kernels(cache: Path, before: dt.time | None) -> list[tuple[float, str, str]]:
    """The cached signatures of ``cache`` (a ``_kernels/__pycache__``) as ``(written, name, signature)``.

    Parameters
    ----------
    cache : Path
        The folder of numba's index (``*.nbi``) and data (``*.nbc``) files.
    before : datetime.time or None
        Keep only the signatures whose data file was written before this time of day (local time).

    Returns
    -------
    list of (float, str, str)
        Modification time of the data file (s since the epoch), ``module.function``, the argument types as
        numba prints them; sorted by time.
    """
    rows = []
    for path in cache.glob("*.nbi"):
        match = INDEX.match(path.name)
        if match is None:
            continue
        with open(path, "rb") as f:
            pickle.load(f)  # numba's version
            _, overloads = pickle.loads(f.read())
        for key, data in overloads.items():
            written = (cache / data).stat().st_mtime
            if before is not None and dt.datetime.fromtimestamp(written).time() >= before:
                continue
            sig = repr(tuple(key[0]))
            if "Literal[" not in sig:
                rows.append((written, f"{match.group(1)}.{match.group(2)}", sig))
    return sorted(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", nargs="?", type=Path, default=ROOT)
    parser.add_argument("--before", type=dt.time.fromisoformat, default=None)
    args = parser.parse_args()
    rows = kernels(args.checkout / "humanbody" / "_kernels" / "__pycache__", args.before)
    out = ROOT / "tests" / "kernels.txt"
    out.write_text("".join(f"{name}\t{sig}\n" for _, name, sig in rows))
    print(f"{len(rows)} kernel signatures -> {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
