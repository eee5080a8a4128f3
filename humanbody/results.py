"""The result of :func:`humanbody.compute`: arrays named as in CONVENTIONS.md.

Like Pinocchio's ``Data``, a :class:`Results` holds what one evaluation of a
motion produced; it knows its time base and segment names and turns itself
into the wide results table (``to_dataframe``) or a CSV file (``to_csv``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .segments import AXES, INERTIA_COMPONENTS, VECTOR_QUANTITIES

__all__ = ["Results", "result_columns"]


def result_columns(names, coordinate_names=()) -> list[str]:
    """Column names of the results table, in the order ``to_dataframe`` writes them."""
    cols = ["time", *coordinate_names]
    for name in names:
        for q in VECTOR_QUANTITIES:
            cols += [f"{name}_{q}_{a}" for a in AXES]
        cols += [f"{name}_inertia_{c}" for c, _, _ in INERTIA_COMPONENTS]
    for q in ("body_com", "body_com_vel", "body_com_acc"):
        cols += [f"{q}_{a}" for a in AXES]
    return cols


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
    force : (F, n, 3) N           inertia force F*_k = -m_k a_Gk
    torque : (F, n, 3) N m        inertia torque T*_k = -I_k alpha_k - omega_k x (I_k omega_k)
    inertia : (F, n, 3, 3) kg m^2 inertia dyadic about G_k in ground components
        (computed from R and ``body_inertia`` on first access, then kept)
    body_com, body_com_vel, body_com_acc : (F, 3)  whole-body mass centre (eq. 9.19) and its rates
    coordinates : (F, 3 + 3n)     the generalized coordinates the results came from
    coordinate_names : tuple of str
    mass : (n,) kg
    body_inertia : (n, 3, 3) kg m^2  inertia about G_k in body components
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
    body_inertia: np.ndarray = field(default_factory=lambda: np.empty((0, 3, 3)))
    rates: str = ""
    _inertia: np.ndarray | None = field(default=None, repr=False)

    @property
    def inertia(self) -> np.ndarray:
        """Inertia dyadics about G_k in ground components, (F, n, 3, 3), kg m^2.

        ``I_k = R_k I_k^body R_k^T``, computed on first access (it is 40 % of
        the bytes of all results and not every user needs it), then kept.
        """
        if self._inertia is None:
            from ._kernels import ground_inertia

            out = np.empty(self.R.shape)
            ground_inertia(self.R, np.ascontiguousarray(self.body_inertia), out)
            self._inertia = out
        return self._inertia

    @property
    def n_frames(self) -> int:
        return int(self.time.shape[0])

    def segment(self, name: str) -> int:
        """Array index (k - 1) of the segment called ``name``."""
        return self.names.index(name)

    # ------------------------------------------------------------ energy
    def kinetic_energy(self) -> np.ndarray:
        """Kinetic energy of the whole body per frame (J), shape (F,).

        ``KE = sum_k 1/2 m_k v_Gk . v_Gk + 1/2 omega_k . I_k omega_k``.
        """
        trans = 0.5 * np.einsum("k,fkc,fkc->f", self.mass, self.com_vel, self.com_vel)
        rot = 0.5 * np.einsum("fkc,fkcd,fkd->f", self.omega, self.inertia, self.omega)
        return trans + rot

    def inertia_power(self) -> np.ndarray:
        """Power of the inertia forces and torques, ``sum_k F*_k . v_Gk + T*_k . omega_k`` (W).

        Along any motion ``d(KE)/dt = -inertia_power()`` (power balance).
        """
        return np.einsum("fkc,fkc->f", self.force, self.com_vel) + np.einsum(
            "fkc,fkc->f", self.torque, self.omega
        )

    # ------------------------------------------------------------ tables
    def to_dataframe(self) -> pd.DataFrame:
        """The wide results table of CONVENTIONS.md, one row per frame.

        Columns: ``time``, the generalized coordinates, then per segment
        ``<name>_<quantity>_<axis>`` and ``<name>_inertia_<ij>``, then
        ``body_com_<axis>``, ``body_com_vel_<axis>``, ``body_com_acc_<axis>``.
        """
        return pd.DataFrame(self.to_matrix(), columns=result_columns(self.names, self.coordinate_names))

    def to_matrix(self) -> np.ndarray:
        """The results table as one float64 array (F, columns), column order of ``to_dataframe``."""
        F, n = self.n_frames, len(self.names)
        parts = [self.time[:, None], self.coordinates]
        iu = [(i, j) for _, i, j in INERTIA_COMPONENTS]
        per_seg = np.concatenate(
            [getattr(self, q) for q in VECTOR_QUANTITIES]
            + [np.stack([self.inertia[..., i, j] for i, j in iu], axis=-1)],
            axis=-1,
        )  # (F, n, 3*len(VECTOR_QUANTITIES) + 6)
        parts.append(per_seg.reshape(F, -1))
        parts += [self.body_com, self.body_com_vel, self.body_com_acc]
        return np.concatenate(parts, axis=1)

    def __repr__(self) -> str:
        return f"Results({self.n_frames} frames, {len(self.names)} segments, rates: {self.rates})"
