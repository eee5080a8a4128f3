"""Small trial files for the reader tests, written from known numbers.

Every builder writes a file of a documented layout (docs/formats.md) from an
array of marker positions the test knows, so a reader can be checked against
the numbers it should give back.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from _shared import WALK, require_shared


def shared_walk():
    """The shared OpenSim walk (``subject01_walk1.trc``) as read_trial gives it; the test is skipped without it."""
    from humanbody.io import read_trial

    require_shared()
    return read_trial(WALK / "subject01_walk1.trc")


def positions(frames: int = 5, markers: int = 3, seed: int = 0) -> np.ndarray:
    """Marker positions in mm, shape (frames, markers, 3), typical of a person in a lab."""
    rng = np.random.default_rng(seed)
    base = rng.uniform([-500, 50, -300], [500, 1700, 300], size=(markers, 3))
    drift = np.linspace(0, 1, frames)[:, None, None] * np.array([100.0, 5.0, 2.0])
    return np.round(base[None] + drift + rng.normal(0, 1, (frames, markers, 3)), 3)


def _fmt(x: float) -> str:
    return "" if np.isnan(x) else f"{x:.6f}"


def replace_field(path, line: int, column: int, text: str, sep: str = ",") -> Path:
    """Put ``text`` in field ``column`` (1-based) of line ``line`` (1-based) of a text file."""
    path = Path(path)
    lines = path.read_text().splitlines()
    fields = lines[line - 1].split(sep)
    fields[column - 1] = text
    lines[line - 1] = sep.join(fields)
    path.write_text("\n".join(lines) + "\n")
    return path


def write_trc(path, xyz, names, rate=100.0, units="mm", *, num_frames=None, num_markers=None,
              times=None, blank_line=True, trailing_tab=True) -> Path:
    """OpenSim TRC file (5-line header, tab-separated) of ``xyz`` (frames, markers, 3)."""
    path = Path(path)
    n, m, _ = xyz.shape
    t = np.arange(n) / rate if times is None else np.asarray(times)
    lines = [
        f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
        f"{rate:.2f}\t{rate:.2f}\t{n if num_frames is None else num_frames}\t"
        f"{m if num_markers is None else num_markers}\t{units}\t{rate:.2f}\t1\t{n}",
        "Frame#\tTime\t" + "\t".join(f"{nm}\t\t" for nm in names),
        "\t\t" + "\t".join(f"X{k + 1}\tY{k + 1}\tZ{k + 1}" for k in range(m)),
    ]
    if blank_line:
        lines.append("")
    tail = "\t" if trailing_tab else ""
    for i in range(n):
        vals = "\t".join(_fmt(x) for x in xyz[i].ravel())
        lines.append(f"{i + 1}\t{t[i]:.3f}\t{vals}{tail}")
    path.write_text("\n".join(lines) + "\n")
    return path


def write_plain_csv(path, xyz, names, rate=100.0, *, style="{m}_{A}", unit_hint=None,
                    time=True, sep=",", units_row=None) -> Path:
    """Plain wide marker table; ``style`` names a column from marker {m} and axis {A} or {a}."""
    path = Path(path)
    n, m, _ = xyz.shape
    cols = ["time" if time else "Frame"]
    for nm in names:
        for a in "XYZ":
            col = style.format(m=nm, A=a, a=a.lower())
            cols.append(f"{col} ({unit_hint})" if unit_hint else col)
    lines = [sep.join(cols)]
    if units_row:
        lines.append(sep.join(["s"] + [units_row] * (3 * m)))
    for i in range(n):
        first = f"{i / rate:.4f}" if time else str(i + 1)
        lines.append(sep.join([first] + [_fmt(x) for x in xyz[i].ravel()]))
    path.write_text("\n".join(lines) + "\n")
    return path


def write_vicon_csv(path, xyz, names, rate=100.0, subject="Sub", first_frame=1,
                    with_devices=True) -> Path:
    """Vicon Nexus CSV export with an optional Devices section before Trajectories."""
    path = Path(path)
    n, m, _ = xyz.shape
    lines = []
    if with_devices:
        lines += ["Devices", f"{10 * rate:g}", ",,Force Plate 1,,", "Frame,Sub Frame,Fx,Fy,Fz",
                  ",,N,N,N"]
        lines += [f"{first_frame + i // 10},{i % 10},1.0,2.0,3.0" for i in range(10 * n)]
        lines.append("")
    lines += ["Trajectories", f"{rate:g}",
              ",," + ",".join(f"{subject}:{nm},," for nm in names),
              "Frame,Sub Frame," + ",".join("X,Y,Z" for _ in names),
              ",," + ",".join("mm,mm,mm" for _ in names)]
    for i in range(n):
        lines.append(f"{first_frame + i},0," + ",".join(_fmt(x) for x in xyz[i].ravel()))
    lines += ["", "Model Outputs", f"{rate:g}", ",,Sub:LKneeAngles,,", "Frame,Sub Frame,X,Y,Z",
              ",,deg,deg,deg", f"{first_frame},0,1,2,3"]
    path.write_text("\n".join(lines) + "\n")
    return path


def write_motive_csv(path, xyz, names, rate=120.0, units="Millimeters", prefix="Skel:") -> Path:
    """OptiTrack Motive 1.2x CSV export: a rigid body, then labelled markers."""
    path = Path(path)
    n, m, _ = xyz.shape
    meta = (f"Format Version,1.23,Take Name,Take 1,Capture Frame Rate,{rate:.6f},"
            f"Export Frame Rate,{rate:.6f},Total Exported Frames,{n},Rotation Type,Quaternion,"
            f"Length Units,{units},Coordinate Space,Global")
    types = ",Type," + ",".join(["Rigid Body"] * 7) + "," + ",".join(["Marker"] * (3 * m))
    names_row = ",Name," + ",".join(["RB1"] * 7) + "," + ",".join(
        f"{prefix}{nm}" for nm in names for _ in range(3))
    ids = ",ID," + ",".join(["1"] * 7) + "," + ",".join(str(k + 2) for k in range(m) for _ in range(3))
    comp = ",," + ",".join(["Rotation"] * 4 + ["Position"] * 3) + "," + ",".join(["Position"] * (3 * m))
    axes = "Frame,Time (Seconds),X,Y,Z,W,X,Y,Z," + ",".join("X,Y,Z" for _ in range(m))
    lines = [meta, "", types, names_row, ids, comp, axes]
    for i in range(n):
        lines.append(f"{i},{i / rate:.6f},0,0,0,1,5,5,5," + ",".join(_fmt(x) for x in xyz[i].ravel()))
    path.write_text("\n".join(lines) + "\n")
    return path


def write_qualisys_tsv(path, xyz, names, rate=100.0, frame_time_row=True) -> Path:
    """Qualisys Track Manager 3-D TSV export (mm)."""
    path = Path(path)
    n, m, _ = xyz.shape
    lines = [f"NO_OF_FRAMES\t{n}", "NO_OF_CAMERAS\t8", f"NO_OF_MARKERS\t{m}", f"FREQUENCY\t{rate:g}",
             "NO_OF_ANALOG\t0", "ANALOG_FREQUENCY\t0", "DESCRIPTION\t--",
             "TIME_STAMP\t2020-01-01, 10:00:00.000\t0.0", "DATA_INCLUDED\t3D",
             "MARKER_NAMES\t" + "\t".join(names),
             "TRAJECTORY_TYPES\t" + "\t".join(["Measured"] * m)]
    if frame_time_row:
        lines.append("Frame\tTime\t" + "\t".join(f"{nm} {a}" for nm in names for a in "XYZ"))
    for i in range(n):
        lead = f"{i + 1}\t{i / rate:.5f}\t"
        lines.append(lead + "\t".join(f"{x:.3f}" if np.isfinite(x) else "0.000" for x in xyz[i].ravel()))
    path.write_text("\n".join(lines) + "\n")
    return path


def write_c3d(path, xyz, names, rate=100.0, units="mm", extra_points=None, first_frame=1) -> Path:
    """C3D file written with ezc3d; ``extra_points`` {label: (frames, 3)} listed as ANGLES."""
    import ezc3d

    n, m, _ = xyz.shape
    labels = list(names)
    data = [xyz]
    angles = []
    for label, val in (extra_points or {}).items():
        labels.append(label)
        angles.append(label)
        data.append(np.asarray(val)[:, None, :])
    allp = np.concatenate(data, axis=1)
    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [float(rate)]
    c["parameters"]["POINT"]["LABELS"]["value"] = tuple(labels)
    pts = np.ones((4, allp.shape[1], n))
    pts[:3] = np.transpose(allp, (2, 1, 0))
    c["data"]["points"] = pts
    c.add_parameter("POINT", "UNITS", units)
    if angles:
        c.add_parameter("POINT", "ANGLES", angles)
    if first_frame != 1:
        c["header"]["points"]["first_frame"] = first_frame - 1
    c.write(str(path))
    return Path(path)
