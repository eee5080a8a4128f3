"""``compute``: from generalized coordinates to the mechanics of every segment.

The steps follow Huston's derivation (chapters 8-10): lower body arrays ->
relative angular velocities -> absolute angular velocities by the addition
theorem -> angular accelerations -> joint and mass-centre positions,
velocities, accelerations -> inertia dyadics in ground axes -> inertia forces
and torques.  This module prepares the motion (angle rates given by the user,
or a smoothing differentiation: :func:`prepare_motion`); the recursion over the
tree is the core's Huston path, :func:`humanbody.core.huston.huston_kinematics`
on the model's core model (``BodyModel.core``), whose outputs
:func:`humanbody.mechanics.results.run_tree` wraps in a
:class:`~humanbody.mechanics.results.Results`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._kernels import tree as _kernels
from ..errors import InputError
from ..model.body import BodyModel, coordinate_columns, sequence_axes_array
from ..signal.differentiate import Differentiation
from .results import Results, run_tree

__all__ = [
    "Motion",
    "compute",
    "compute_motion",
    "coordinate_columns",
    "local_rates_from_quaternions",
    "prepare_motion",
    "spaced_rates",
]

def _column_block(frame: pd.DataFrame, columns: list[str], source) -> np.ndarray:
    try:
        block = frame[columns].to_numpy(dtype=float, copy=False)  # column-major from pandas
    except (ValueError, TypeError):
        bad = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])]
        raise InputError(f"column {bad[0]!r} is not numeric", source) from None
    return block


def _column_blocks(frame: pd.DataFrame, groups: list[list[str]], source) -> list[np.ndarray]:
    """One (F, len(g)) float array per list of column names g.

    When every column of the frame is float64 and the wanted columns are
    most of them, the frame's values are viewed once (no copy for a frame
    pandas holds as one block) and each group is a strided slice of that
    view; one label look-up replaces pandas' per-group selection, which
    costs about a millisecond for the 162 columns of a 17-segment trial.
    Otherwise each group is selected by pandas.
    """
    names = [c for g in groups for c in g]
    if frame.columns.is_unique and 2 * len(names) >= frame.shape[1] and all(
        dt == np.float64 for dt in frame.dtypes
    ):
        values = frame.to_numpy(dtype=float, copy=False)
        pos = frame.columns.get_indexer(names)
        out, i = [], 0
        for g in groups:
            p = pos[i:i + len(g)]
            i += len(g)
            step = int(p[1] - p[0]) if len(p) > 1 else 1
            if step > 0 and np.all(np.diff(p) == step):
                out.append(values[:, p[0]:p[-1] + 1:step])
            else:
                out.append(values[:, p])
        return out
    return [_column_block(frame, g, source) for g in groups]


def local_rates_from_quaternions(q, qd, qdd):
    """Relative angular velocity and its derivative from Euler-parameter rates.

    Huston eqs. 8.190-8.192 in vector form, ``V = 2 (e4 e' - e4' e + e x e')``
    with e the vector part and e4 the scalar part; differentiating,
    ``V' = 2 (e4 e'' - e4'' e + e x e'')`` (the first-derivative products
    cancel).  Both are parent-frame components and have no singularity.
    The parameters are divided by ``|q|^2`` so a smoothed, slightly
    non-unit quaternion still gives the rate of a rotation.

    Parameters
    ----------
    q, qd, qdd : (..., 4)  Euler parameters (eps1, eps2, eps3, eps4) and their
        first and second time derivatives.

    Returns
    -------
    w, wd : (..., 3)
        The angular velocity (rad/s) and its rate (rad/s^2) in the body's own (local) axes.
    """
    e, e4 = q[..., :3], q[..., 3:]
    n2 = np.einsum("...c,...c->...", q, q)[..., None]
    w = 2.0 * (e4 * qd[..., :3] - qd[..., 3:] * e + np.cross(e, qd[..., :3])) / n2
    wd = 2.0 * (e4 * qdd[..., :3] - qdd[..., 3:] * e + np.cross(e, qdd[..., :3])) / n2
    return w, wd


def _rates_given(coords: pd.DataFrame, cols: list[str]) -> bool | None:
    """True if every coordinate has _dot and _ddot columns, False if none, None if partial."""
    have = [(f"{c}_dot" in coords.columns, f"{c}_ddot" in coords.columns) for c in cols]
    flat = [x for pair in have for x in pair]
    if all(flat):
        return True
    if not any(flat):
        return False
    return None


def compute(
    model: BodyModel,
    coords: pd.DataFrame,
    *,
    differentiation: Differentiation | str | None = None,
    rates: str = "auto",
    out: Results | None = None,
) -> Results:
    """Kinematics, inertia dyadics and inertia forces of every segment, every frame.

    Parameters
    ----------
    model : BodyModel
        The tree and its constant properties.
    coords : pandas.DataFrame
        Generalized-coordinates layout (docs/conventions.md): ``time`` (s),
        ``<body1>_x/_y/_z`` (m) and ``<name>_alpha/_beta/_gamma`` (rad) for
        every body; optionally the same names with ``_dot`` and ``_ddot``.
    differentiation : Differentiation or str, optional
        How rates are computed when the trial does not give them (default
        ``Differentiation()``: Savitzky-Golay, -3 dB at 6 Hz).  A string
        names the method with default settings.
    rates : {"auto", "given", "differentiate"}
        "auto" uses the ``_dot``/``_ddot`` columns when all are present
        (results exact to rounding), otherwise differentiates; "given"
        requires them; "differentiate" ignores them.
    out : Results, optional
        A result of an earlier call with the same model and number of frames,
        used as the workspace: its arrays are overwritten and it is returned
        (like NumPy's ``out=``; arrays taken from it earlier change too).
        Repeated or chunked evaluation then writes into memory that is already
        mapped, which is about twice as fast for large trials.

    Returns
    -------
    Results
        Arrays in ground components, shapes (F, n, 3) / (F, n, 3, 3) / (F, 3);
        see :class:`~humanbody.mechanics.results.Results`.

    Notes
    -----
    Angle rates are differentiated through Euler parameters of each relative
    orientation (eqs. 8.190-8.192), not through the angles, so the
    singular set of a body's sequence (cos beta = 0 for a Cardan sequence)
    never enters a division.

    ``force`` and ``torque`` are computed in the same pass as the
    kinematics; ``inertia`` (R I R^T, 9 values per segment) is derived from
    ``R`` on first access (then kept), so a caller that never reads it does
    not pay for it; its values do not depend on when it is read.
    """
    motion = prepare_motion(model, coords, differentiation=differentiation, rates=rates)
    return compute_motion(model, motion, out=out)


@dataclass(frozen=True, eq=False)
class Motion:
    """Coordinates and their rates, ready for the kernel (what :func:`prepare_motion` returns).

    Attributes
    ----------
    time : ndarray, shape (F,)
        The frames' times (s).
    q : ndarray, shape (F, 3 + 3n)
        The origin of body 1 (m) and the angles of every body in its sequence (rad).
    qd, qdd : ndarray, shape (F, 3 + 3n)
        The velocity and acceleration of the origin of body 1 (m/s, m/s^2), then per
        body either the angle rates (``local_rates`` False) or the parent-frame
        components of hat omega and of its time derivative (``local_rates`` True).
    local_rates : bool
        What the angular columns of ``qd`` and ``qdd`` hold (above).
    how : str
        How the rates were obtained (given in the trial, or the differentiation's description).
    """

    time: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    local_rates: bool
    how: str

    @property
    def n_frames(self) -> int:
        return int(self.time.shape[0])


def prepare_motion(
    model: BodyModel,
    coords: pd.DataFrame,
    *,
    differentiation: Differentiation | str | None = None,
    rates: str = "auto",
) -> Motion:
    """Check a coordinates table and obtain its rates (given, or differentiated over the whole trial).

    Parameters are those of :func:`compute`.  Differentiating the whole
    trial once and evaluating the kernel on frame ranges afterwards
    (:func:`compute_motion`) gives results identical to one call of
    :func:`compute`, whatever the ranges: this is how long trials are
    processed in bounded memory.

    Parameters
    ----------
    model : BodyModel
        The tree: its coordinate columns and rotation sequences.
    coords : pandas.DataFrame
        ``time`` (s), the model's coordinates (m, rad) and optionally their ``_dot``/``_ddot`` columns.
    differentiation : Differentiation or str, optional
        How rates are computed when not given (default ``Differentiation()``).
    rates : {"auto", "given", "differentiate"}
        As in :func:`compute`.

    Returns
    -------
    Motion
        Times, coordinates and rates (given, or differentiated), and how the rates were obtained.

    Raises
    ------
    InputError
        A missing column, no frames, a time that is missing or not increasing, or rates given for only
        some coordinates.
    """
    source = coords.attrs.get("source") if hasattr(coords, "attrs") else None
    if not isinstance(coords, pd.DataFrame):
        raise InputError("coordinates must be a pandas DataFrame")
    if "time" not in coords.columns:
        raise InputError("coordinates have no 'time' column", source)
    cols = coordinate_columns(model)
    missing = [c for c in cols if c not in coords.columns]
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        raise InputError(f"coordinates lack column {missing[0]!r}{more}", source)
    F = len(coords)
    if F == 0:
        raise InputError("coordinates have no frames", source)
    given = _rates_given(coords, cols)
    groups = [["time"], cols]
    if given and rates != "differentiate":
        groups += [[c + "_dot" for c in cols], [c + "_ddot" for c in cols]]
    blocks = _column_blocks(coords, groups, source)
    time = blocks[0][:, 0]
    if not np.all(np.isfinite(time)):
        raise InputError("time column has missing values", source)
    if F > 1 and np.any(np.diff(time) <= 0):
        i = int(np.argmax(np.diff(time) <= 0))
        raise InputError(f"time is not strictly increasing at row {i + 2}", source)
    q = blocks[1]

    if rates not in ("auto", "given", "differentiate"):
        raise ValueError("rates must be 'auto', 'given' or 'differentiate'")
    if rates == "given" and given is not True:
        raise InputError("coordinates do not give _dot and _ddot columns for every coordinate", source)
    if given is None and rates == "auto":
        raise InputError(
            "coordinates give _dot/_ddot columns for some coordinates but not all; "
            "give all of them or none", source,
        )
    if given and rates != "differentiate":
        qd, qdd = blocks[2], blocks[3]
        return Motion(time, q, qd, qdd, False, "rates given in the trial")
    diff = differentiation
    if diff is None:
        diff = Differentiation()
    elif isinstance(diff, str):
        diff = Differentiation(method=diff)
    try:
        qd, qdd = _differentiated_rates(diff, time, q, sequence_axes_array(model))
    except InputError as err:
        if not source:
            raise
        raise err.with_path(source) from None
    rate = (F - 1) / (time[-1] - time[0]) if F > 1 else float("nan")
    return Motion(time, q, qd, qdd, True, diff.describe(rate))


#: Frames differentiated at a time when the method is local (Savitzky-Golay,
#: central differences): each block is extended by the method's reach on
#: both sides, so the rates equal those of one pass over the whole trial.
RATE_CHUNK = 16384


def _differentiated_rates(diff: Differentiation, time, q, seq, chunk: int | None = None):
    """Root velocity/acceleration and parent-frame hat omega and its rate, (F, 3 + 3n) each.

    ``seq`` (n, 3) holds each body's sequence axes
    (:func:`sequence_axes_array`).  Rates of Euler parameters
    (sign-continuous, from each body's angles directly) by ``diff``, turned into angular velocities by eqs.
    8.190-8.192.  A long trial goes through in overlapping blocks of
    ``chunk`` frames (:meth:`Differentiation.reach`), which bounds the
    scratch memory and changes no value: the sign of a block's quaternions
    may differ from the one-pass signs, but the angular velocity is
    bilinear in the parameters and their rates, so it does not.
    """
    F = len(time)
    n = len(seq)
    chunk = RATE_CHUNK if chunk is None else int(chunk)
    h = diff.step(time)
    reach = diff.reach(1.0 / h)
    if reach is None or F <= chunk + 2 * reach:
        return _rates_block(diff, time, q, seq, h)
    starts = list(range(0, F, chunk))
    if F - starts[-1] < 2 * reach + 1:
        starts.pop()  # a short last block would shorten the filter window: merge it
    qd = np.empty((F, 3 + 3 * n))
    qdd = np.empty((F, 3 + 3 * n))
    for i, a in enumerate(starts):
        b = starts[i + 1] if i + 1 < len(starts) else F
        lo, hi = max(0, a - reach), min(F, b + reach)
        d1, d2 = _rates_block(diff, time[lo:hi], q[lo:hi], seq, h, edges=(lo == 0, hi == F))
        qd[a:b], qdd[a:b] = d1[a - lo:b - lo], d2[a - lo:b - lo]
    return qd, qdd


def _rates_block(diff: Differentiation, time, q, seq, h: float, edges=(True, True)):
    """Rates of frames ``time``; rows within reach of a False edge are NaN (the caller trims them)."""
    F, n = len(time), len(seq)
    _, root_vel, root_acc = diff(time, q[:, :3], smoothed=False, step=h, edges=edges)
    quat = np.empty((F, n, 4))
    _kernels.sequence_quaternions(np.ascontiguousarray(q[:, 3:]).reshape(F, n, 3), seq, quat)  # continuous signs
    _, quat_d, quat_dd = diff(time, quat, smoothed=False, step=h, edges=edges)
    qd = np.empty((F, 3 + 3 * n))
    qdd = np.empty((F, 3 + 3 * n))
    qd[:, :3], qdd[:, :3] = root_vel, root_acc
    _kernels.quaternion_omegas(quat, quat_d, quat_dd, qd, qdd, 3)  # local_rates_from_quaternions, in parallel
    return qd, qdd




def spaced_rates(model: BodyModel, motion: Motion, spacing: dict) -> Motion:
    """The motion with some bodies' angular velocities central differences over k frames on each side.

    For body b with ``spacing[b] = k``: its Euler parameters e (sign-continuous) are differenced
    ``e'(f) = (e(f + k) - e(f - k)) / (2 k h)`` and turned into its hat omega (parent-frame components,
    Huston eqs. 8.190-8.192, as :func:`prepare_motion`); the k frames at each end and every other body
    keep their rates, and the angular accelerations are unchanged.  Plug-in Gait's ankle power
    (``conventions.foot_rate_frames``, 2): Nexus's ``SAnklePower`` is the ankle moment times the foot's angular
    velocity relative to the tibia differenced over 2 frames each side (the shared Nexus trial's own moment
    and segment axes give it to 0.02 W/kg RMS so, 0.11 over 1 frame; its hip and knee powers over 1).

    Parameters
    ----------
    model : BodyModel
        The tree: its segment names and rotation sequences.
    motion : Motion
        With ``local_rates`` (differentiated); returned unchanged otherwise.
    spacing : dict
        Body name -> k (frames, >= 1); bodies the model lacks are skipped.

    Returns
    -------
    Motion
        The motion with those bodies' rates replaced (the others unchanged).
    """
    bodies = {model.names.index(b): int(k) for b, k in spacing.items() if b in model.names and int(k) > 1}
    if not motion.local_rates or not bodies:
        return motion
    F, seq = motion.n_frames, sequence_axes_array(model)
    h = float(np.median(np.diff(motion.time))) if F > 1 else 1.0
    qd = motion.qd.copy()
    for j, k in bodies.items():
        if F <= 2 * k:
            continue
        quat = np.empty((F, 1, 4))
        _kernels.sequence_quaternions(np.ascontiguousarray(motion.q[:, 3 + 3 * j:6 + 3 * j]).reshape(F, 1, 3),
                                      np.ascontiguousarray(seq[j:j + 1]), quat)
        quat_d = np.zeros_like(quat)
        quat_d[k:F - k] = (quat[2 * k:] - quat[:F - 2 * k]) / (2 * k * h)
        w, wd = np.empty((F, 3)), np.empty((F, 3))
        _kernels.quaternion_omegas(quat, quat_d, np.zeros_like(quat), w, wd, 0)
        qd[k:F - k, 3 + 3 * j:6 + 3 * j] = w[k:F - k]
    names = ", ".join(f"{model.names[j]} over {k} frames" for j, k in bodies.items())
    return Motion(motion.time, motion.q, qd, motion.qdd, True, f"{motion.how}; angular velocity of {names}")


def compute_motion(model: BodyModel, motion: Motion, start: int = 0, stop: int | None = None,
                   out: Results | None = None) -> Results:
    """Run the core's Huston path (:func:`humanbody.core.huston.huston_kinematics`) on frames ``start:stop``.

    Every frame is evaluated on its own, so the rows of a range are exactly
    the rows of the whole-trial result.  ``out`` is a workspace as in
    :func:`compute` (same number of frames as the range).

    Parameters
    ----------
    model : BodyModel
        The tree; its core model (``model.core``) runs.
    motion : Motion
        What :func:`prepare_motion` returned.
    start, stop : int
        The frame range (``stop`` None: to the end); it must not be empty.
    out : Results, optional
        The workspace.

    Returns
    -------
    Results
        Kinematics and inertia forces of the range's frames, ground components.
    """
    sl = slice(start, motion.n_frames if stop is None else stop)
    q, qd, qdd = motion.q[sl], motion.qd[sl], motion.qdd[sl]
    if q.shape[0] == 0:
        raise ValueError(f"frame range {start}:{stop} of a {motion.n_frames}-frame motion is empty")
    return run_tree(model, motion.time[sl], q, qd, qdd, motion.local_rates, motion.how, out)
