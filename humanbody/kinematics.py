"""``compute``: from generalized coordinates to the mechanics of every segment.

The steps follow Huston's derivation (chapters 8-10): lower body arrays ->
relative angular velocities -> absolute angular velocities by the addition
theorem -> angular accelerations -> joint and mass-centre positions,
velocities, accelerations -> inertia dyadics in ground axes -> inertia forces
and torques.  The recursion over the tree is the numba kernel
:func:`humanbody._kernels.tree_kinematics`; this module prepares its inputs
(angle rates given by the user, or a smoothing differentiation) and wraps its
outputs in a :class:`~humanbody.results.Results`.
"""

from __future__ import annotations

import numba
import numpy as np
import pandas as pd

from . import _kernels
from .differentiate import Differentiation
from .errors import InputError
from .model import BodyModel
from .results import Results

__all__ = ["compute", "coordinate_columns", "local_rates_from_quaternions"]

_ANGLES = ("alpha", "beta", "gamma")
_TRANSLATION = ("x", "y", "z")


def coordinate_columns(model: BodyModel) -> list[str]:
    """Column names of the generalized-coordinates layout for ``model``.

    ``<body1>_x, _y, _z`` (origin of body 1 in ground, m) then
    ``<name>_alpha, _beta, _gamma`` (rad) for every body.
    """
    root = model.names[0]
    cols = [f"{root}_{a}" for a in _TRANSLATION]
    for name in model.names:
        cols += [f"{name}_{a}" for a in _ANGLES]
    return cols


def _column_block(frame: pd.DataFrame, columns: list[str], source) -> np.ndarray:
    try:
        block = frame[columns].to_numpy(dtype=float, copy=False)  # column-major from pandas
    except (ValueError, TypeError):
        bad = [c for c in columns if not pd.api.types.is_numeric_dtype(frame[c])]
        raise InputError(f"column {bad[0]!r} is not numeric", source) from None
    return block


def _quat_continuous(S: np.ndarray) -> np.ndarray:
    """Unit quaternions (vector part first, scalar last) of matrices, sign-continuous over axis 0."""
    from scipy.spatial.transform import Rotation

    F, n = S.shape[:2]
    q = Rotation.from_matrix(S.reshape(-1, 3, 3)).as_quat().reshape(F, n, 4)
    # choose signs so consecutive frames agree (q and -q are one orientation)
    dots = np.einsum("fkc,fkc->fk", q[1:], q[:-1])
    flips = np.cumprod(np.where(dots < 0, -1.0, 1.0), axis=0)
    q[1:] *= flips[..., None]
    return q


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
    w, wd : (..., 3) rad/s, rad/s^2.
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
) -> Results:
    """Kinematics, inertia dyadics and inertia forces of every segment, every frame.

    Parameters
    ----------
    model : BodyModel
        The tree and its constant properties.
    coords : pandas.DataFrame
        Generalized-coordinates layout (CONVENTIONS.md): ``time`` (s),
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

    Returns
    -------
    Results
        Arrays in ground components, shapes (F, n, 3) / (F, n, 3, 3) / (F, 3);
        see :class:`~humanbody.results.Results`.

    Notes
    -----
    Angle rates are differentiated through Euler parameters of each relative
    orientation (eqs. 8.190-8.192), not through the angles, so the Bryant
    singularity (cos beta = 0) never enters a division.
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
    time = _column_block(coords, ["time"], source)[:, 0]
    if not np.all(np.isfinite(time)):
        raise InputError("time column has missing values", source)
    if F > 1 and np.any(np.diff(time) <= 0):
        i = int(np.argmax(np.diff(time) <= 0))
        raise InputError(f"time is not strictly increasing at row {i + 2}", source)
    q = _column_block(coords, cols, source)
    n = model.n_bodies

    given = _rates_given(coords, cols)
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
        qd = _column_block(coords, [c + "_dot" for c in cols], source)
        qdd = _column_block(coords, [c + "_ddot" for c in cols], source)
        return _run_kernel(model, time, q, qd, qdd, False, "rates given in the trial")
    diff = differentiation
    if diff is None:
        diff = Differentiation()
    elif isinstance(diff, str):
        diff = Differentiation(method=diff)
    from .rotations import bryant_to_matrix

    try:
        _, root_vel, root_acc = diff(time, q[:, :3])
        quat = _quat_continuous(bryant_to_matrix(q[:, 3:].reshape(F, n, 3)))
        _, quat_d, quat_dd = diff(time, quat)
    except InputError as err:
        raise err.with_path(source) if source else err
    w, wd = local_rates_from_quaternions(quat, quat_d, quat_dd)
    qd = np.concatenate([root_vel, w.reshape(F, 3 * n)], axis=1)
    qdd = np.concatenate([root_acc, wd.reshape(F, 3 * n)], axis=1)
    rate = (F - 1) / (time[-1] - time[0]) if F > 1 else float("nan")
    return _run_kernel(model, time, q, qd, qdd, True, diff.describe(rate))


def _run_kernel(model, time, q, qd, qdd, local_rates, how) -> Results:
    F, n = q.shape[0], model.n_bodies
    v3 = lambda: np.empty((F, n, 3))  # noqa: E731
    out = dict(
        R=np.empty((F, n, 3, 3)),
        omega_rel=v3(), omega=v3(), alpha=v3(), joint=v3(), com=v3(),
        com_vel=v3(), com_acc=v3(), force=v3(), torque=v3(),
    )
    body = np.empty((F, 9))
    _kernels.tree_kinematics(
        q, qd, qdd, local_rates,
        model.parents, np.ascontiguousarray(model.joint), np.ascontiguousarray(model.com),
        np.ascontiguousarray(model.mass), np.ascontiguousarray(model.inertia),
        out["R"], out["omega_rel"], out["omega"], out["alpha"], out["joint"], out["com"],
        out["com_vel"], out["com_acc"], out["force"], out["torque"], body,
        256,
    )
    return Results(
        time=np.ascontiguousarray(time, dtype=float),
        names=model.names,
        coordinates=q,
        coordinate_names=tuple(coordinate_columns(model)),
        body_com=np.ascontiguousarray(body[:, 0:3]),
        body_com_vel=np.ascontiguousarray(body[:, 3:6]),
        body_com_acc=np.ascontiguousarray(body[:, 6:9]),
        mass=np.array(model.mass),
        body_inertia=np.array(model.inertia),
        rates=how,
        **out,
    )
