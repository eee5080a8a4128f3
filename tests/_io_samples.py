"""Small trial files for the reader tests, written from known numbers.

Every builder writes a file of a documented layout (docs/formats.md) from an
array of marker positions the test knows, so a reader can be checked against
the numbers it should give back.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "gait2392_walk"


def positions(frames: int = 5, markers: int = 3, seed: int = 0) -> np.ndarray:
    """Marker positions in mm, shape (frames, markers, 3), typical of a person in a lab."""
    rng = np.random.default_rng(seed)
    base = rng.uniform([-500, 50, -300], [500, 1700, 300], size=(markers, 3))
    drift = np.linspace(0, 1, frames)[:, None, None] * np.array([100.0, 5.0, 2.0])
    return np.round(base[None] + drift + rng.normal(0, 1, (frames, markers, 3)), 3)


def _fmt(x: float) -> str:
    return "" if np.isnan(x) else f"{x:.3f}"


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
