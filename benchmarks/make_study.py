"""Write a synthetic study: N perturbed copies of a walking trial, its static trial and a manifest.

Each copy is the source trial (OpenSim TRC, lab axes with Y up) with

* a rigid motion about the vertical: a rotation of up to ``--max-turn``
  degrees about lab Y and a horizontal offset of up to ``--max-offset`` m
  (vertical offset up to 5 mm);
* Gaussian noise of ``--noise`` mm on every coordinate;
* 0 to 3 gaps of 2 to 5 frames in random markers (blank cells in the file;
  shorter than the report's default 0.1 s gap filling);
* time scaling by a factor in [1 - s, 1 + s] (``--time-scale``): the same
  samples at a different frame rate, i.e. a slower or faster walk.

The static trial is copied unchanged: calibration expresses markers in the
segment frames, which a rigid motion of the walk does not change.  With
force plates (the default; ``--no-forces`` leaves them out) each copy gets
the source's ground reactions (``subject01_walk1_grf.mot``) moved with it:
forces, centres of pressure and free torques turned by the same rotation,
the centres of pressure shifted by the same offset, the time scaled by the
same factor, so the report computes each copy's kinetics.  Written:
``DIR/walk_0001.trc ...`` (and ``walk_0001_grf.mot ...``),
``DIR/subject01_static.trc``, ``DIR/manifest.csv`` (trial, static, mass,
height, grf; for ``humanbody report --manifest``) and
``DIR/perturbations.csv`` (what was done to each copy).

    .venv/bin/python benchmarks/make_study.py /tmp/study --n 1000
"""

from __future__ import annotations

import argparse
import csv
import shutil
import sys
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gait2392_walk"


def _read_source(path: Path):
    """Time (s), marker names and positions (frames, markers, 3) in mm, lab axes, NaN when missing."""
    from humanbody.io import markers_array, read_trial

    df = read_trial(path)
    names, xyz = markers_array(df)
    return df["time"].to_numpy(dtype=float), list(names), xyz * 1000.0, float(df.attrs["rate_hz"])


def _rot_y(angle: float) -> np.ndarray:
    """Rotation about lab Y (the vertical of OpenSim TRC files) by ``angle`` rad."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def write_trc(path: Path, time: np.ndarray, names: list, xyz_mm: np.ndarray, rate: float) -> None:
    """Write an OpenSim TRC file (mm); NaN coordinates become blank cells."""
    n, m = xyz_mm.shape[:2]
    head = [
        f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
        f"{rate:.6f}\t{rate:.6f}\t{n}\t{m}\tmm\t{rate:.6f}\t1\t{n}",
        "Frame#\tTime\t" + "\t".join(f"{name}\t\t" for name in names),
        "\t\t" + "\t".join(f"X{i + 1}\tY{i + 1}\tZ{i + 1}" for i in range(m)),
        "",
    ]
    flat = xyz_mm.reshape(n, 3 * m)
    text = np.char.mod("%.5f", flat)
    text[np.isnan(flat)] = ""
    lines = [f"{i + 1}\t{time[i]:.6f}\t" + "\t".join(text[i]) for i in range(n)]
    path.write_text("\n".join(head + lines) + "\n", encoding="ascii")


def read_grf(path: Path):
    """An OpenSim GRF .mot: (header lines up to ``endheader``, column names, data array)."""
    import io

    lines = path.read_text().splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader")
    cols = lines[end + 1].strip().split("\t")
    data = np.loadtxt(io.StringIO("\n".join(lines[end + 2:])), ndmin=2)
    return lines[:end + 1], cols, data


def write_grf(path: Path, header: list, cols: list, data: np.ndarray, desc: dict) -> None:
    """The source's ground reactions moved like the markers of one copy (``desc`` from :func:`perturb`)."""
    rot = _rot_y(np.radians(desc["turn_deg"]))
    offset = np.array([desc["offset_x_mm"], desc["offset_y_mm"], desc["offset_z_mm"]]) / 1000.0
    out = data.copy()
    out[:, cols.index("time")] *= desc["time_scale"]
    for prefix in sorted({c[: c.index("ground_force_vx")] for c in cols if c.endswith("ground_force_vx")}):
        for kind, shift in (("ground_force_v", False), ("ground_force_p", True), ("ground_torque_", False)):
            idx = [cols.index(f"{prefix}{kind}{a}") for a in "xyz"]
            out[:, idx] = out[:, idx] @ rot.T + (offset if shift else 0.0)
    head = [f"{path.name}" if i == 0 else line.split("\t")[0] for i, line in enumerate(header)]
    head = [f"nRows={len(out)}" if h.startswith("nRows") else h for h in head]
    body = "\n".join("\t".join(f"{v:.8g}" for v in row) for row in out)
    path.write_text("\n".join(head) + "\n" + "\t".join(cols) + "\n" + body + "\n", encoding="ascii")


def perturb(time, xyz_mm, rate, rng, max_turn_deg, max_offset_m, noise_mm, time_scale):
    """One perturbed copy: (time, xyz_mm, rate, description dict)."""
    turn = np.radians(rng.uniform(-max_turn_deg, max_turn_deg))
    offset = np.array([rng.uniform(-1, 1) * max_offset_m * 1000, rng.uniform(-5, 5),
                       rng.uniform(-1, 1) * max_offset_m * 1000])
    out = xyz_mm @ _rot_y(turn).T + offset
    out = out + rng.normal(0.0, noise_mm, size=out.shape)
    gaps = []
    n, m = out.shape[:2]
    for _ in range(int(rng.integers(0, 4))):
        k = int(rng.integers(0, m))
        length = int(rng.integers(2, 6))
        start = int(rng.integers(5, n - length - 5))
        out[start:start + length, k] = np.nan
        gaps.append(f"{k}:{start}+{length}")
    scale = float(rng.uniform(1 - time_scale, 1 + time_scale))
    desc = {"turn_deg": np.degrees(turn), "offset_x_mm": offset[0], "offset_y_mm": offset[1],
            "offset_z_mm": offset[2], "time_scale": scale, "gaps": " ".join(gaps)}
    return time * scale, out, rate / scale, desc


def make_study(folder, n: int, *, trial=None, static=None, seed: int = 0, max_turn_deg: float = 5.0,
               max_offset_m: float = 0.3, noise_mm: float = 0.5, time_scale: float = 0.1,
               mass: float = 72.6, height: float = 1.8, forces: bool = True, grf=None) -> Path:
    """Write ``n`` perturbed copies of ``trial`` (with its ground reactions) into ``folder``; return the manifest."""
    trial = Path(trial or DATA / "subject01_walk1.trc")
    grf_src = Path(grf or trial.with_name(trial.stem + "_grf.mot")) if forces else None
    grf_data = read_grf(grf_src) if grf_src is not None else None
    static = Path(static or DATA / "subject01_static.trc")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(static, folder / static.name)
    time, names, xyz, rate = _read_source(trial)
    rng = np.random.default_rng(seed)
    width = max(4, len(str(n)))
    manifest = folder / "manifest.csv"
    with open(manifest, "w", newline="") as mf, open(folder / "perturbations.csv", "w", newline="") as pf:
        mw = csv.writer(mf, lineterminator="\n")
        mw.writerow(["trial", "static", "mass", "height"] + (["grf"] if grf_data else []))
        pw = None
        for i in range(n):
            name = f"walk_{i + 1:0{width}d}.trc"
            t, p, r, desc = perturb(time, xyz, rate, rng, max_turn_deg, max_offset_m, noise_mm, time_scale)
            write_trc(folder / name, t, names, p, r)
            if grf_data:
                grf_name = name.replace(".trc", "_grf.mot")
                write_grf(folder / grf_name, *grf_data, desc)
            mw.writerow([name, static.name, mass, height] + ([grf_name] if grf_data else []))
            if pw is None:
                pw = csv.writer(pf, lineterminator="\n")
                pw.writerow(["trial", *desc])
            pw.writerow([name, *(f"{v:.6g}" if isinstance(v, float) else v for v in desc.values())])
    return manifest


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder")
    ap.add_argument("--n", type=int, default=1000, help="number of trials (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--trial", help="source walking trial (default: the shared subject01_walk1.trc)")
    ap.add_argument("--static", help="static trial (default: the shared subject01_static.trc)")
    ap.add_argument("--max-turn", type=float, default=5.0, help="largest rotation about the vertical (deg)")
    ap.add_argument("--max-offset", type=float, default=0.3, help="largest horizontal offset (m)")
    ap.add_argument("--noise", type=float, default=0.5, help="noise SD (mm)")
    ap.add_argument("--time-scale", type=float, default=0.1, help="time scaling within 1 +- this")
    ap.add_argument("--no-forces", action="store_true", help="no ground reaction files (no kinetics)")
    a = ap.parse_args(argv)
    if not (Path(a.trial) if a.trial else DATA / "subject01_walk1.trc").is_file():
        print(f"make_study: source trial not found ({a.trial or DATA})", file=sys.stderr)
        return 2
    manifest = make_study(a.folder, a.n, trial=a.trial, static=a.static, seed=a.seed, max_turn_deg=a.max_turn,
                          max_offset_m=a.max_offset, noise_mm=a.noise, time_scale=a.time_scale,
                          forces=not a.no_forces)
    print(manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
