"""The result of :func:`humanbody.compute`: arrays named as in docs/conventions.md.

Like Pinocchio's ``Data``, a :class:`Results` holds what one evaluation of a
motion produced; it knows its time base and segment names and turns itself
into the wide results table (``to_dataframe``) or a CSV file (``to_csv``).
It can also serve as the workspace of the next evaluation of the same size
(``compute(model, coords, out=results)``), so a long trial processed in
chunks writes into memory that is already mapped.

One output is derived from the others on first access, then kept:
``inertia`` (``R I R^T``, 9 values per segment and frame, 20 % of all result
bytes).  It is the same array whenever it is read; computing it lazily only
moves the work to the first access, so callers that never read it do not pay
for it.  ``force`` and ``torque`` are written by the kernel with the
kinematics (eager, plain arrays).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._kernels.pack import ground_inertia, pack_rows
from .._kernels.tree import threads_for
from ..core.huston import huston_kinematics, huston_shapes
from ..model.segments import AXES, INERTIA_COMPONENTS, VECTOR_QUANTITIES, segment_index
from ..signal.differentiate import Differentiation

if TYPE_CHECKING:
    from ..model.body import BodyModel

__all__ = ["Results", "result_columns"]


def result_columns(names, coordinate_names=()) -> list[str]:
    """Column names of the results table, in the order ``to_dataframe`` writes them.

    Parameters
    ----------
    names : sequence of str
        The segment names.
    coordinate_names : sequence of str
        The generalized coordinates' columns.

    Returns
    -------
    list of str
        ``time``, the coordinates, per segment its vector quantities and inertia components, then the
        whole body's mass centre, velocity and acceleration.
    """
    cols = ["time", *coordinate_names]
    for name in names:
        for q in VECTOR_QUANTITIES:
            cols += [f"{name}_{q}_{a}" for a in AXES]
        cols += [f"{name}_inertia_{c}" for c, _, _ in INERTIA_COMPONENTS]
    for q in ("body_com", "body_com_vel", "body_com_acc"):
        cols += [f"{q}_{a}" for a in AXES]
    return cols


class _Derived:
    """Dataclass field computed on first read by ``Results._derive_<name>``, then kept.

    A value given to the constructor (or ``dataclasses.replace``) is used as
    is; ``None`` means "derive it when asked".
    """

    def __set_name__(self, owner, name):
        self.name = name
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return None  # the dataclass default
        value = obj.__dict__.get(self.slot)
        if value is None:
            spare = obj.__dict__.get("_spare", {}).pop(self.name, None)
            value = getattr(obj, "_derive_" + self.name)(spare)
            obj.__dict__[self.slot] = value
        return value

    def __set__(self, obj, value):
        obj.__dict__[self.slot] = value


def _buffer(spare, shape) -> np.ndarray:
    return spare if spare is not None and spare.shape == shape else np.empty(shape)


@dataclass(eq=False)
class Results:
    """Per-frame mechanics of every segment, ground components, SI units.

    Attributes
    ----------
    time : (F,) s
    names : tuple of str, the n segment names (body k = names[k-1])
    R : (F, n, 3, 3)  absolute transformation matrices S_0k (ground = R . body)
    omega_rel : (F, n, 3) rad/s   angular velocity relative to the parent (hat omega)
    omega : (F, n, 3) rad/s       absolute angular velocity
    alpha : (F, n, 3) rad/s^2     absolute angular acceleration
    joint : (F, n, 3) m           position of the joint point O_k
    com, com_vel, com_acc : (F, n, 3)  mass centre position (m), velocity (m/s), acceleration (m/s^2)
    force : (F, n, 3) N           inertia force F*_k = -m_k a_Gk (eq. 10.1)
    torque : (F, n, 3) N m        inertia torque T*_k = -I_k alpha_k - omega_k x (I_k omega_k) (eq. 10.2)
    inertia : (F, n, 3, 3) kg m^2 inertia dyadic about G_k in ground components
        (computed from ``R`` and ``segment_inertia`` on first access, then kept)
    body_com, body_com_vel, body_com_acc : (F, 3)  whole-body mass centre (eq. 9.19) and its rates
    coordinates : (F, 3 + 3n)     the generalized coordinates the results came from
    coordinate_names : tuple of str
    mass : (n,) kg
    segment_inertia : (n, 3, 3) kg m^2  each segment's inertia about G_k in its own (body) axes
    rates : str                   how the rates were obtained
    """

    time: np.ndarray
    names: tuple
    R: np.ndarray
    omega_rel: np.ndarray
    omega: np.ndarray
    alpha: np.ndarray
    joint: np.ndarray
    com: np.ndarray
    com_vel: np.ndarray
    com_acc: np.ndarray
    force: np.ndarray
    torque: np.ndarray
    body_com: np.ndarray
    body_com_vel: np.ndarray
    body_com_acc: np.ndarray
    coordinates: np.ndarray
    coordinate_names: tuple = ()
    mass: np.ndarray = field(default_factory=lambda: np.empty(0))
    segment_inertia: np.ndarray = field(default_factory=lambda: np.empty((0, 3, 3)))
    rates: str = ""
    inertia: np.ndarray = _Derived()  # type: ignore[assignment]  # computed on first access

    def _derive_inertia(self, spare) -> np.ndarray:
        """``I_k = R_k I_k^body R_k^T``, (F, n, 3, 3), kg m^2 (20 % of all result bytes)."""
        out = _buffer(spare, self.R.shape)
        with threads_for(self.n_frames):
            ground_inertia(self.R, np.ascontiguousarray(self.segment_inertia), out)
        return out

    def materialize(self) -> Results:
        """Compute every derived array now (``inertia``); returns self.

        Returns
        -------
        Results
            ``self``.
        """
        for name in _DERIVED:
            getattr(self, name)
        return self

    def _forget_derived(self) -> None:
        """Mark derived arrays stale before the arrays are overwritten; keep their buffers for reuse."""
        spare = self.__dict__.setdefault("_spare", {})
        for name in _DERIVED:
            value = self.__dict__.get("_" + name)
            if value is not None:
                spare[name] = value
            self.__dict__["_" + name] = None

    @property
    def n_frames(self) -> int:
        return int(self.time.shape[0])

    def segment(self, name: str) -> int:
        """Array index (0-based, k - 1) of the segment called ``name``; the same lookup as :meth:`BodyModel.segment`.

        Parameters
        ----------
        name : str
            A segment name (e.g. "right_thigh").

        Returns
        -------
        int
            Its array index, 0-based.
        """
        return segment_index(self.names, name)

    # ------------------------------------------------------------ energy
    def kinetic_energy(self) -> np.ndarray:
        """Kinetic energy of the whole body per frame (J), shape (F,).

        ``KE = sum_k 1/2 m_k v_Gk . v_Gk + 1/2 omega_k . I_k omega_k``.

        Returns
        -------
        ndarray, shape (F,), J
            The kinetic energy per frame.
        """
        trans = 0.5 * np.einsum("k,fkc,fkc->f", self.mass, self.com_vel, self.com_vel)
        rot = 0.5 * np.einsum("fkc,fkcd,fkd->f", self.omega, self.inertia, self.omega)
        return trans + rot

    def inertia_power(self) -> np.ndarray:
        """Power of the inertia forces and torques, ``sum_k F*_k . v_Gk + T*_k . omega_k`` (W).

        Along any motion ``d(KE)/dt = -inertia_power()`` (power balance).

        Returns
        -------
        ndarray, shape (F,), W
            The power per frame.
        """
        return np.einsum("fkc,fkc->f", self.force, self.com_vel) + np.einsum(
            "fkc,fkc->f", self.torque, self.omega
        )

    # ------------------------------------------------------------ tables
    def relative(self, what: str, to: str = "ground", axes: str = "to", markers=None):
        """The motion of one frame of the trial relative to another (:mod:`humanbody.mechanics.relative`).

        Parameters
        ----------
        what, to : str
            Frames: ``"ground"``, a segment name (origin at its joint point,
            its axes), ``"<segment>.com"``, ``"body_com"``, or a marker of
            ``markers``.
        axes : {"to", "what"}
            Components of the vectors: the reference frame's axes (default) or
            the moving frame's own axes (the head's acceleration in head axes).
        markers : DataFrame, optional
            Marker trajectories (ground axes) for marker frames.

        Returns
        -------
        KinematicState
            Position (m), orientation, velocity (m/s), acceleration (m/s^2), omega (rad/s) and alpha (rad/s^2) of
            ``what`` relative to ``to``, each with a leading frames axis.
        """
        from .relative import express_in, frame_state, relative  # lazy: relative motion (~30 ms), on demand

        if axes not in ("to", "what"):
            raise ValueError("axes must be 'to' or 'what'")
        diff = Differentiation() if markers is not None else None  # marker velocities: the default method
        st = relative(frame_state(self, what, markers, diff), frame_state(self, to, markers, diff))
        return express_in(st, st.orientation) if axes == "what" else st

    def to_dataframe(self) -> pd.DataFrame:
        """The wide results table of docs/conventions.md, one row per frame.

        Columns: ``time``, the generalized coordinates, then per segment
        ``<name>_<quantity>_<axis>`` and ``<name>_inertia_<ij>``, then
        ``body_com_<axis>``, ``body_com_vel_<axis>``, ``body_com_acc_<axis>``.

        Returns
        -------
        pandas.DataFrame
            F rows, the columns of :func:`result_columns`.
        """
        return pd.DataFrame(self.to_matrix(), columns=result_columns(self.names, self.coordinate_names))

    def to_matrix(self, out: np.ndarray | None = None) -> np.ndarray:
        """The results table as one float64 array (F, columns), column order of ``to_dataframe``.

        Filled row by row in parallel (:func:`humanbody._kernels.pack.pack_rows`);
        the inertia columns are computed from ``R`` exactly as ``inertia`` is,
        so they equal it bit for bit without materialising it.  ``out`` (the
        right shape) is reused when given.

        Parameters
        ----------
        out : ndarray, shape (F, columns), float64, C-contiguous, optional
            An array to fill (reused when its shape, dtype and layout fit).

        Returns
        -------
        ndarray, shape (F, columns)
            ``out`` when it has the right shape, dtype and layout, else a new array.
        """
        F, n = self.n_frames, len(self.names)
        coords = np.ascontiguousarray(self.coordinates, dtype=float)
        shape = (F, 1 + coords.shape[1] + n * (3 * len(VECTOR_QUANTITIES) + len(INERTIA_COMPONENTS)) + 9)
        if out is None or out.shape != shape or out.dtype != np.float64 or not out.flags.c_contiguous:
            out = np.empty(shape)
        iu = np.array([(i, j) for _, i, j in INERTIA_COMPONENTS], dtype=np.int64).reshape(-1, 2)
        with threads_for(F):
            pack_rows(self.time, coords, *(getattr(self, q) for q in _PACKED), self.R,
                      np.ascontiguousarray(self.segment_inertia, dtype=float), np.ascontiguousarray(iu[:, 0]),
                      np.ascontiguousarray(iu[:, 1]), self.body_com, self.body_com_vel, self.body_com_acc, out)
        return out

    def __repr__(self) -> str:
        return f"Results({self.n_frames} frames, {len(self.names)} segments, rates: {self.rates})"


_DERIVED = ("inertia",)

#: The per-segment vector quantities in the order pack_rows writes them.
_PACKED = ("omega_rel", "omega", "alpha", "joint", "com", "com_vel", "com_acc", "force", "torque")
assert _PACKED == tuple(VECTOR_QUANTITIES), "pack_rows follows VECTOR_QUANTITIES"


def _workspace(out, model: BodyModel, F: int) -> dict | None:
    """The arrays of ``out`` when it is a Results of the right size (None: no workspace given)."""
    if out is None:
        return None
    shapes = huston_shapes(model.core, F)
    if not isinstance(out, Results):
        raise TypeError("out must be a Results returned by compute()")
    if tuple(out.names) != tuple(model.names) or out.R.shape != shapes["R"]:
        raise ValueError(
            f"out holds {out.R.shape[0]} frames of {len(out.names)} segments; "
            f"this call needs {F} frames of the model's {model.n_bodies} segments"
        )
    arrays = {name: getattr(out, name) for name in shapes}
    for name, arr in arrays.items():
        if arr.shape != shapes[name] or arr.dtype != np.float64 or not arr.flags.c_contiguous or not arr.flags.writeable:
            raise ValueError(f"out.{name} is not a writable C-contiguous float64 array of shape {shapes[name]}")
    return arrays


def run_tree(model: BodyModel, time, q, qd, qdd, local_rates, how, out=None, kernel=None) -> Results:
    """Huston's recursion on the model's core (:func:`humanbody.core.huston.huston_kinematics`) into a Results.

    Parameters
    ----------
    model : BodyModel
        The tree; its core model (``model.core``) is what runs.
    time : array_like, shape (F,), s
        The frames' times (kept in ``Results.time``).
    q, qd, qdd : ndarray, shape (F, 3 + 3n)
        Coordinates (m, rad) and their rates (as in :class:`~humanbody.mechanics.kinematics.Motion`).
    local_rates : bool
        ``qd``, ``qdd`` hold parent-frame angular velocities and their rates rather than angle rates.
    how : str
        How the rates were obtained (kept in ``Results.rates``).
    out : Results, optional
        A workspace with the same number of frames.
    kernel : callable, optional
        Runs instead of :func:`humanbody._kernels.tree.tree_kinematics`, with its arguments first
        (:func:`humanbody.core.huston.huston_kinematics`).

    Returns
    -------
    Results
        ``out`` when given, else a new one.
    """
    arrays = _workspace(out, model, q.shape[0])
    if out is not None:
        out._forget_derived()  # inertia describes the old motion
    outputs: dict[str, Any] = huston_kinematics(model.core, q, qd, qdd, local_rates, arrays, kernel)
    given = dict(
        time=np.array(time, dtype=float),
        coordinates=q,
        coordinate_names=model.core.coordinate_names,
        mass=np.array(model.mass, dtype=float),
        segment_inertia=np.array(model.inertia, dtype=float),
        rates=how,
    )
    if out is None:
        return Results(names=model.names, **given, **outputs)
    for name, value in given.items():
        setattr(out, name, value)
    return out
