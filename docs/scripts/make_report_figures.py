"""Figures of docs/report.md and the shared walk's Gait Profile Score.

Runs one trial of ``humanbody report`` (:func:`humanbody.report.process_trial`,
the default options: SVG figures, built-in Schwartz 2008 normative data, the
speed class chosen from the walking speed) on the shared gait2392 walk with
its static trial and force plates (72.6 kg, 1.80 m), and writes

* ``docs/img/report_angles.svg``, ``report_kinetics.svg``, ``report_gps.svg``:
  the SVG figures exactly as the trial's page inlines them;
* ``docs/img/report_angles.png``, ``report_gps.png``: the same SVG rendered
  by cairosvg when it is importable, else the matplotlib (``--plots png``)
  version of the same figures;

and prints the GPS, the side GPS and every Gait Variable Score (degrees), the
numbers quoted in docs/report.md.
Run: ``.venv/bin/python docs/scripts/make_report_figures.py``.
"""

import re
import sys
from pathlib import Path

from humanbody.report import ReportOptions, TrialTask, process_trial

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
IMG = ROOT / "docs" / "img"


def main() -> int:
    task = TrialTask(trial=str(DATA / "subject01_walk1.trc"), key="walk", static=str(DATA / "subject01_static.trc"),
                     grf=str(DATA / "subject01_walk1_grf.mot"), mass=72.6, height=1.8)
    out = process_trial(task, ReportOptions())
    if not out.ok:
        print(out.row["error"], file=sys.stderr)
        return 1
    page = out.files["walk/subject01_walk1.html"].decode()
    svgs = {m.group(1): m.group(0) for m in re.finditer(r'<svg class="fig" [^>]*aria-label="([^"]*)".*?</svg>',
                                                        page, re.S)}
    wanted = {"joint angles": "report_angles", "kinetics": "report_kinetics", "Movement Analysis": "report_gps"}
    written = {}
    for label, svg in svgs.items():
        for key, name in wanted.items():
            if key in label:
                path = IMG / f"{name}.svg"
                path.write_text(svg.replace('<svg class="fig" ', "<svg ", 1) + "\n", encoding="utf-8")
                written[name] = path
    try:
        import cairosvg

        for name in ("report_angles", "report_gps"):
            cairosvg.svg2png(url=str(written[name]), write_to=str(IMG / f"{name}.png"), output_width=1350)
        how = "cairosvg"
    except ImportError:
        how = "matplotlib (cairosvg not installed)"
        png = process_trial(task, ReportOptions(plots="png")).files
        for name, suffix in (("report_angles", "_angles.png"), ("report_gps", "_gps.png")):
            (IMG / f"{name}.png").write_bytes(png[f"walk/subject01_walk1{suffix}"])
    print(f"wrote {', '.join(p.name for p in written.values())} and PNGs by {how} in {IMG}")
    row = out.row
    print(f"normative: {row['normative']}; "
          + next(m for m in out.messages if m.startswith("normative data")))
    print(f"GPS {row['gait_profile_score_deg']:.2f} deg, right {row['right_gait_profile_score_deg']:.2f}, "
          f"left {row['left_gait_profile_score_deg']:.2f}")
    for key in [k for k in row if k.startswith("right_gvs_")]:
        v = key.removeprefix("right_gvs_")
        print(f"  GVS {v:28s} right {row[key]:6.2f}  left {row[f'left_gvs_{v}']:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
