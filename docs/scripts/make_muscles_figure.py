"""The muscles figure of docs/muscles.md: a trial's page of ``report --muscles``.

Runs the command docs/muscles.md shows (``humanbody report`` of the shared
gait2392 walk with its static trial, ground reactions, the scaled gait2392
model, ``--muscles`` and OpenSim's IK setup) into a temporary folder and
writes the page's muscles figure, the SVG exactly as the page inlines it, to
``docs/img/report_muscles.svg``.
Run: ``.venv/bin/python docs/scripts/make_muscles_figure.py``.
"""

import re
import sys
import tempfile
from pathlib import Path

from humanbody.cli import main as humanbody

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
WALK = SHARED / "gait2392_walk"
MODEL = SHARED / "opensim_models" / "gait2392"
IMG = ROOT / "docs" / "img"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        status = humanbody(["report", str(WALK / "subject01_walk1.trc"), "--static", str(WALK / "subject01_static.trc"),
                            "--forces", str(WALK / "subject01_walk1_grf.mot"),
                            "--model", str(MODEL / "subject01_simbody.osim"), "--muscles",
                            "--ik-setup", str(MODEL / "subject01_Setup_IK.xml"), "--out", tmp, "-q"])
        if status:
            return status
        page = (Path(tmp) / "subject01_walk1" / "subject01_walk1.html").read_text(encoding="utf-8")
    svg = next(m.group(0) for m in re.finditer(r'<svg class="fig" [^>]*aria-label="([^"]*)".*?</svg>', page, re.S)
               if "muscle activations" in m.group(1))
    path = IMG / "report_muscles.svg"
    path.write_text(svg.replace('<svg class="fig" ', "<svg ", 1) + "\n", encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
