"""A still window in an orientation (IMU) trial for the sensor-to-segment calibration.

Without a calibration trial (``--static``), the calibration posture is
taken from the trial itself: the first window of :data:`WINDOW_S` in which
every sensor is still, its angular rate (the angle of the relative rotation
between consecutive samples, over their time step) below
:data:`STILL_RATE_DEG_S` in at least 95 % of the window's samples.  Quiet
standing rotates the segments by a few degrees per second; walking by
100-400 deg/s.  A trial without such a window is refused: the posture then
has to come from a calibration trial.

The posture must also be the reference posture (standing upright, arms at
the sides): the sensors' mountings are unknown until calibrated, so
stillness is all the data can show; the log names the window used.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.spatial.transform import Rotation

from . import refusal

__all__ = ["STILL_RATE_DEG_S", "WINDOW_S", "angular_rates", "still_window", "check_still_window"]

#: Largest angular rate (deg/s) of a still sensor.
STILL_RATE_DEG_S = 15.0
#: Length (s) of the still window averaged for the calibration.
WINDOW_S = 0.5


def angular_rates(df, labels) -> np.ndarray:
    """(F-1,) largest angular rate (deg/s) over the sensors ``labels`` between consecutive samples.

    Parameters
    ----------
    df : pandas.DataFrame
        The IMU table: ``time`` (s) and ``<label>_q{x,y,z,w}`` orientations.
    labels : iterable of str
        The sensors' labels.

    Returns
    -------
    ndarray, shape (F - 1,), deg/s
        The largest rate over the sensors between samples i and i + 1.
    """
    t = df["time"].to_numpy(dtype=float)
    dt = np.diff(t)
    out = np.zeros(len(t) - 1)
    for label in labels:
        q = df[[f"{label}_q{c}" for c in "xyzw"]].to_numpy(dtype=float)  # scalar last for scipy
        ok = np.isfinite(q).all(axis=1) & (np.linalg.norm(q, axis=1) > 0)
        q = np.where(ok[:, None], q, [0.0, 0.0, 0.0, 1.0])
        r = Rotation.from_quat(q)
        step = (r[:-1].inv() * r[1:]).magnitude()
        out = np.maximum(out, np.degrees(step) / np.where(dt > 0, dt, np.nan))
    return out


def still_window(df, labels, window_s: float = WINDOW_S) -> tuple[int, int] | None:
    """``(first, stop)`` sample indices of the first still window of ``window_s``, or None.

    Parameters
    ----------
    df : pandas.DataFrame
        The IMU table: time (s) and each sensor's quaternion columns.
    labels : iterable of str
        The sensors judged.
    window_s : float, s
        The window's length.

    Returns
    -------
    tuple of (int, int) or None
        The window's first sample and one past its last, or None when no window is still.
    """
    t = df["time"].to_numpy(dtype=float)
    if len(t) < 3:
        return None
    rate = angular_rates(df, labels)
    n = max(2, int(round(window_s / float(np.median(np.diff(t))))))
    if len(rate) < n:
        return None

    still = sliding_window_view(np.nan_to_num(rate, nan=np.inf) <= STILL_RATE_DEG_S, n).mean(axis=1) >= 0.95
    if not still.any():
        return None
    i = int(np.argmax(still))
    return i, i + n


def check_still_window(df, labels, source: str, *, skip: bool = False, window_s: float = WINDOW_S):
    """The trial's still window as a DataFrame (the calibration posture) and one line naming it.

    Refused (``--static`` or ``--skip-check imu-still``) when none exists;
    skipped, the first ``window_s`` of the trial is used and said.

    Parameters
    ----------
    df : pandas.DataFrame
        The IMU table.
    labels : iterable of str
        The sensors judged.
    source : str
        The trial's file.
    skip : bool
        --skip-check imu-still: use the first window_s of the trial when none is still, and say so.
    window_s : float, s
        The window's length.

    Returns
    -------
    posture : pandas.DataFrame or None
        The window's rows; None when skipped without a still window.
    line : str
        The check's log line.

    Raises
    ------
    InputError
        When there is no still window (without ``skip``).
    """
    found = still_window(df, labels, window_s)
    t = df["time"].to_numpy(dtype=float)
    if found is None:
        peak = np.nanpercentile(angular_rates(df, labels), 50) if len(t) > 2 else float("nan")
        why = (f"no still window of {window_s:g} s in the trial (every sensor below {STILL_RATE_DEG_S:g} deg/s; "
               f"median of the fastest sensor's rate {peak:.0f} deg/s): it has no standing calibration posture")
        if not skip:
            raise refusal("imu-still", why, source, instead="give a calibration trial as `static`")
        return None, f"check imu-still: {why}; the first {window_s:g} s used (--skip-check imu-still)"
    a, b = found
    posture = df.iloc[a:b + 1].reset_index(drop=True)
    posture.attrs = dict(df.attrs)
    return posture, (f"check imu-still: calibration posture = the still window {t[a]:.2f}-{t[b]:.2f} s of the "
                     f"trial (every sensor below {STILL_RATE_DEG_S:g} deg/s; it must be the standing reference "
                     "posture)")
