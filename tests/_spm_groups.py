"""Synthetic report folders for the compare tests and benchmark: per-trial strides and cycles tables
as ``humanbody report`` writes them, with smooth subject-to-subject and stride-to-stride variation."""

from pathlib import Path

import numpy as np
import pandas as pd
from scipy import ndimage

PERCENT = np.linspace(0.0, 100.0, 101)
PHASE = PERCENT / 100.0 * 2 * np.pi

#: name -> mean curve over the stride (a few harmonics, degrees or per kg)
BASE = {
    "pelvis_tilt_deg": 10 + 2 * np.sin(2 * PHASE),
    "right_hip_flexion_deg": 15 + 22 * np.cos(PHASE),
    "right_knee_flexion_deg": 25 - 20 * np.cos(PHASE) - 10 * np.sin(2 * PHASE),
    "right_ankle_dorsiflexion_deg": 3 * np.sin(PHASE) + 8 * np.sin(2 * PHASE),
    "right_knee_flexion_moment_Nm_per_kg": 0.3 * np.sin(2 * PHASE),
    "right_knee_power_W_per_kg": 0.5 * np.sin(3 * PHASE),
    "left_hip_flexion_deg": 15 + 22 * np.cos(PHASE + 0.1),
    "left_knee_flexion_deg": 25 - 20 * np.cos(PHASE) - 10 * np.sin(2 * PHASE + 0.1),
}
UNITS = {"deg": "deg", "Nm_per_kg": "N m/kg", "W_per_kg": "W/kg"}


def _smooth(rng, shape, sigma=8.0):
    y = ndimage.gaussian_filter1d(rng.standard_normal(shape), sigma, axis=-1, mode="nearest")
    return y / y.std()


def strides_path(folder: Path, key: str) -> Path:
    """The trial's per-stride table (Parquet, as the report writes it, or CSV)."""
    d = Path(folder) / key
    return next(p for p in (d / f"{key}_strides.parquet", d / f"{key}_strides.csv") if p.is_file())


def read_strides(path) -> pd.DataFrame:
    path = Path(path)
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)


def write_strides(table: pd.DataFrame, path) -> None:
    path = Path(path)
    table.to_parquet(path, index=False) if path.suffix == ".parquet" else table.to_csv(path, index=False)


def write_trial(folder: Path, key: str, curves: dict, strides_per_side: int, rng, stride_sd: float = 1.0,
                fmt: str = "parquet"):
    """``folder/key/key_strides.<fmt>`` and ``..._cycles.csv`` for one trial whose mean curves are ``curves``."""
    names = list(curves)
    rows = []
    for side in ("right", "left"):
        for s in range(strides_per_side):
            block = {"side": side, "stride": s, "percent": PERCENT}
            for n in names:
                scale = max(np.ptp(curves[n]), 0.1) * 0.02 * stride_sd
                block[n] = curves[n] + scale * _smooth(rng, 101, 5.0)
            rows.append(pd.DataFrame(block))
    strides = pd.concat(rows, ignore_index=True)
    d = folder / key
    d.mkdir(parents=True, exist_ok=True)
    write_strides(strides, d / f"{key}_strides.{fmt}")
    cyc = []
    for side, part in strides.groupby("side", sort=False):
        for n in names:
            v = part[n].to_numpy().reshape(-1, 101)
            unit = next((u for k, u in UNITS.items() if n.endswith(k)), "")
            cyc.append(pd.DataFrame({"side": side, "variable": n, "unit": unit, "percent": PERCENT,
                                     "mean": v.mean(0), "sd": v.std(0, ddof=1), "n_strides": v.shape[0]}))
    pd.concat(cyc, ignore_index=True).to_csv(d / f"{key}_cycles.csv", index=False)


def write_group(folder, subjects: int, seed: int, effect=None, base=None, strides_per_side: int = 4,
                prefix: str = "s", fmt: str = "parquet"):
    """A report folder of ``subjects`` one-trial subjects; ``effect``: {name: curve added to the group}."""
    folder = Path(folder)
    rng = np.random.default_rng(seed)
    base = BASE if base is None else base
    for i in range(subjects):
        curves = {}
        for n, c in base.items():
            scale = max(np.ptp(c), 0.1) * 0.08
            curves[n] = c + scale * _smooth(rng, 101) + (effect or {}).get(n, 0.0)
        write_trial(folder, f"{prefix}{i:02d}", curves, strides_per_side, rng, fmt=fmt)
    return folder
