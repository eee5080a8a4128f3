"""Mass distribution and trunk mass centre that minimise the root residual (the first half of residual reduction).

With the tracked kinematics fixed, the residual of each frame
(:mod:`humanbody.mechanics.residuals`) is a function of the segment masses
``m_j = s_j m0_j`` (inertia about the mass centre scaled with them: same radii
of gyration) and of an offset ``d`` of the trunk's mass centre (added to
r_k of the trunk segments above the pelvis, in each one's own axes)::

    c_j = R_j (r_j + d [j in trunk]),   a_Gj = a_Oj + alpha_j x c_j + omega_j x (omega_j x c_j)
    f_1(s, d) = sum_j s_j m0_j (a_Gj - g) - E
    m_1(s, d) = sum_j [(O_j + c_j - O_1) x s_j m0_j (a_Gj - g) + s_j (I_j alpha_j + omega_j x I_j omega_j)]
                - (M_O - O_1 x E)

where ``a_Oj`` is the acceleration of the joint point (from the kernel's
mass-centre acceleration and the original r_j).  :func:`fit_mass_distribution`
solves the bounded least squares

    min_{s, d}  sum_t w_t (|f_1 / F_pk|^2 + |m_1 / (h F_pk)|^2) / sigma_r^2
                + sum_j ((s_j - 1) / sigma_s)^2 + |d / sigma_d|^2,
    0.7 <= s_j <= 1.3,  |d_i| <= 0.1 m

over the frames whose contacts are all measured (w_t = 1), with F_pk the
peak external force and h the mass centre's height (the Hicks et al.
normalisation); the priors keep unobservable parameters at the
anthropometric table's values.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["MassFit", "fit_mass_distribution", "TRUNK", "fitted_model", "FitData", "fit_data", "parameter_residual"]

#: The trunk segments whose mass centre moves by the fitted offset (the trunk above the pelvis).
TRUNK = ("middle_torso", "upper_torso")

#: Prior standard deviations: residual (fraction of the Hicks normalisation), mass scale, trunk offset (m).
SIGMA_RESIDUAL = 0.02
SIGMA_SCALE = 0.15
SIGMA_OFFSET = 0.05
SCALE_BOUNDS = (0.7, 1.3)
OFFSET_BOUND = 0.1
#: Frames used at most (evenly spaced) by the fit of one trial: the parameters are few.
MAX_FIT_FRAMES = 1500


@dataclass(eq=False)
class FitData:
    """What the fit needs of one trial's frames (ground axes, SI units)."""

    R: np.ndarray          # (F, n, 3, 3)
    O: np.ndarray          # (F, n, 3) joint points
    omega: np.ndarray      # (F, n, 3)
    alpha: np.ndarray      # (F, n, 3)
    a_O: np.ndarray        # (F, n, 3) joint-point accelerations
    spin: np.ndarray       # (F, n, 3) I_j alpha_j + omega_j x I_j omega_j of the original masses
    force: np.ndarray      # (F, 3) summed external force
    moment_o: np.ndarray   # (F, 3) summed external moment about the origin
    scale_force: float     # F_pk (N)
    scale_moment: float    # h F_pk (N m)


def fit_data(model, results, ext, mask, scale_force: float, scale_moment: float) -> FitData:
    """The frames of ``mask`` (at most :data:`MAX_FIT_FRAMES`, evenly spaced) ready for :func:`parameter_residual`."""
    idx = np.flatnonzero(mask)
    if idx.size > MAX_FIT_FRAMES:
        idx = idx[np.linspace(0, idx.size - 1, MAX_FIT_FRAMES).round().astype(int)]
    R = results.R[idx]
    c = np.einsum("fkij,kj->fki", R, model.com_offset)
    om, al = results.omega[idx], results.alpha[idx]
    a_O = results.com_acc[idx] - np.cross(al, c) - np.cross(om, np.cross(om, c))
    return FitData(R, results.joint[idx], om, al, a_O, -np.asarray(results.torque[idx]), ext.force[idx],
                   ext.moment_o[idx], float(scale_force), float(scale_moment))


def _trunk(model) -> np.ndarray:
    return np.array([model.names.index(s) for s in TRUNK if s in model.names], dtype=np.int64)


def parameter_residual(model, data: FitData, scale, offset) -> tuple[np.ndarray, np.ndarray]:
    """Residual force (F, 3) and moment about O_1 (F, 3) of the fit's frames for mass scales and trunk offset."""
    r = np.array(model.com_offset, dtype=float)
    r[_trunk(model)] += offset
    c = np.einsum("fkij,kj->fki", data.R, r)
    aG = data.a_O + np.cross(data.alpha, c) + np.cross(data.omega, np.cross(data.omega, c))
    mass = np.asarray(scale) * model.mass
    w = mass[None, :, None] * (aG - model.gravity)
    f1 = w.sum(axis=1) - data.force
    O1 = data.O[:, 0]
    arm = data.O + c - O1[:, None]
    m1 = (np.cross(arm, w) + np.asarray(scale)[None, :, None] * data.spin).sum(axis=1)
    m1 -= data.moment_o - np.cross(O1, data.force)
    return f1, m1


@dataclass(eq=False)
class MassFit:
    """Fitted mass scales (n,), trunk offset (3,) m, and the model they give."""

    scale: np.ndarray
    offset: np.ndarray
    model: object
    cost_before: float
    cost_after: float


def fitted_model(model, scale, offset):
    """``model`` with masses and inertias scaled by ``scale`` and the trunk's mass centres moved by ``offset``."""
    r = np.array(model.com_offset, dtype=float)
    r[_trunk(model)] += offset
    s = np.asarray(scale, dtype=float)
    return model.replace(mass=model.mass * s, inertia=model.inertia * s[:, None, None], com_offset=r)


def fit_mass_distribution(model, datasets: list) -> MassFit:
    """Bounded least squares over the mass scales and the trunk offset (module docstring), over one or more trials.

    ``datasets`` are :func:`fit_data` of each trial of one subject (one
    model): the parameters are fitted once over all of them.
    """
    from scipy.optimize import least_squares

    n = model.n_bodies
    has_trunk = _trunk(model).size > 0
    frames = sum(d.force.shape[0] for d in datasets)

    def rows(p):
        s, d = p[:n], (p[n:] if has_trunk else np.zeros(3))
        out = []
        for data in datasets:
            f1, m1 = parameter_residual(model, data, s, d)
            out += [(f1 / data.scale_force).ravel(), (m1 / data.scale_moment).ravel()]
        res = np.concatenate(out) / SIGMA_RESIDUAL / np.sqrt(max(frames, 1))
        prior = [(s - 1.0) / SIGMA_SCALE] + ([d / SIGMA_OFFSET] if has_trunk else [])
        return np.concatenate([res, *prior])

    p0 = np.concatenate([np.ones(n), np.zeros(3 if has_trunk else 0)])
    lo = np.concatenate([np.full(n, SCALE_BOUNDS[0]), np.full(3 if has_trunk else 0, -OFFSET_BOUND)])
    hi = np.concatenate([np.full(n, SCALE_BOUNDS[1]), np.full(3 if has_trunk else 0, OFFSET_BOUND)])
    before = float(np.sum(rows(p0) ** 2))
    sol = least_squares(rows, p0, bounds=(lo, hi), method="trf", x_scale="jac", xtol=1e-10, ftol=1e-10)
    scale = sol.x[:n]
    offset = sol.x[n:] if has_trunk else np.zeros(3)
    return MassFit(scale, offset, fitted_model(model, scale, offset), before, float(2.0 * sol.cost))
