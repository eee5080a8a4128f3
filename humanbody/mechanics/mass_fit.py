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

    min_{s, d}  (1 / T) sum_t w_t (|f_1 / F_pk|^2 + |m_1 / (h F_pk)|^2) / sigma_r^2
                + sum_j ((s_j - 1) / sigma_s)^2 + |d / sigma_d|^2,
    0.7 <= s_j <= 1.3,  |d_i| <= 0.1 m

over the T frames whose contacts are all measured (w_t = 1), with F_pk the
peak external force and h the mass centre's height (the Hicks et al.
normalisation).  ``sigma_r`` is the RMS of the normalised residual the
previous round left (empirical Bayes, three rounds from the table's values):
with noisy accelerations it is large and the priors (sigma_s = 0.15, sigma_d
= 5 cm) keep what the data cannot tell at the anthropometric table's values;
with exact data it falls towards zero and the data decide alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from scipy.optimize import least_squares

from ..rotations import skew

if TYPE_CHECKING:
    from ..model.body import BodyModel

__all__ = ["MassFit", "fit_mass_distribution", "TRUNK", "fitted_model", "FitData", "fit_data", "parameter_residual",
           "parameter_jacobian"]

#: The trunk segments whose mass centre moves by the fitted offset (the trunk above the pelvis).
TRUNK = ("middle_torso", "upper_torso")

#: Prior standard deviations: mass scale, trunk offset (m); the residual's (a fraction of the Hicks
#: normalisation) is the RMS level the previous round left, at least SIGMA_FLOOR.
SIGMA_FLOOR = 1e-6
#: Most rounds of the fit, each with the residual level the last one left as its noise (empirical Bayes); the
#: rounds stop when that level no longer halves.
NOISE_ROUNDS = 8
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
    """The frames of ``mask`` (at most :data:`MAX_FIT_FRAMES`, evenly spaced) ready for :func:`parameter_residual`.

    Parameters
    ----------
    model : BodyModel
        The body model (its masses, inertias and mass-centre offsets are the fit's starting point).
    results : Results
        The trial's kinematics and inertia forces.
    ext : ExternalLoads
        The summed measured loads on the same frames.
    mask : ndarray of bool, shape (F,)
        The frames the fit may use.
    scale_force, scale_moment : float
        F_pk (N) and h F_pk (N m): the rows' normalisation.

    Returns
    -------
    FitData
        The selected frames' kinematics and loads with their normalisation.
    """
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
    """Residual force (F, 3) and moment about O_1 (F, 3) of the fit's frames for mass scales and trunk offset.

    Parameters
    ----------
    model : BodyModel
        The body model (its masses, inertias and mass-centre offsets are the fit's starting point).
    data : FitData
        The fit's frames (fit_data).
    scale : ndarray, shape (n,)
        Mass scale of every segment.
    offset : ndarray, shape (3,), m
        Shift of the trunk segments' mass centres (segment axes).

    Returns
    -------
    f1 : ndarray, shape (F, 3), N
        Residual force per fit frame, ground axes.
    m1 : ndarray, shape (F, 3), N m
        Residual moment about the root's origin O_1 per fit frame, ground axes.
    """
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


def parameter_jacobian(model, data: FitData, scale, offset) -> np.ndarray:
    """Derivatives of :func:`parameter_residual`'s (f_1, m_1) rows, (F, 6, n + 3): per mass scale, per offset axis.

    ``d f_1 / d s_j = m0_j (a_Gj - g)``, ``d m_1 / d s_j = (G_j - O_1) x m0_j (a_Gj - g) + I_j alpha_j + omega_j x
    I_j omega_j``; for the offset, with ``K_j = ([alpha_j]x + [omega_j]x^2) R_j`` (d a_Gj / d d),
    ``d f_1 / d d = sum_trunk s_j m0_j K_j`` and ``d m_1 / d d = sum_trunk (-[w_j]x R_j + [G_j - O_1]x s_j m0_j K_j)``,
    ``w_j = s_j m0_j (a_Gj - g)``.

    Parameters
    ----------
    model : BodyModel
        The body model (its masses, inertias and mass-centre offsets are the fit's starting point).
    data : FitData
        The fit's frames (fit_data).
    scale : ndarray, shape (n,)
        Mass scale of every segment.
    offset : ndarray, shape (3,), m
        Shift of the trunk segments' mass centres (segment axes).

    Returns
    -------
    ndarray, shape (F, 6, n + 3)
        Rows f_1 (N) then m_1 (N m); columns the n scales then the three offset axes (per m).
    """
    trunk = _trunk(model)
    r = np.array(model.com_offset, dtype=float)
    r[trunk] += offset
    c = np.einsum("fkij,kj->fki", data.R, r)
    aG = data.a_O + np.cross(data.alpha, c) + np.cross(data.omega, np.cross(data.omega, c))
    m0 = np.asarray(model.mass, dtype=float)
    s = np.asarray(scale, dtype=float)
    u = m0[None, :, None] * (aG - model.gravity)  # d w_j / d s_j
    arm = data.O + c - data.O[:, :1]
    F, n = u.shape[:2]
    J = np.zeros((F, 6, n + 3))
    J[:, :3, :n] = np.transpose(u, (0, 2, 1))
    J[:, 3:, :n] = np.transpose(np.cross(arm, u) + data.spin, (0, 2, 1))
    for j in trunk:
        Wa, Wo = skew(data.alpha[:, j]), skew(data.omega[:, j])
        K = (Wa + Wo @ Wo) @ data.R[:, j]
        sm = s[j] * m0[j]
        J[:, :3, n:] += sm * K
        J[:, 3:, n:] += -skew(s[j] * u[:, j]) @ data.R[:, j] + skew(arm[:, j]) @ (sm * K)
    return J


@dataclass(eq=False)
class MassFit:
    """Fitted mass scales (n,), trunk offset (3,) m, and the model they give."""

    scale: np.ndarray
    offset: np.ndarray
    model: BodyModel
    rms_before: float   # RMS of the normalised residual rows before the fit
    rms_after: float    # and after
    trials: int = 1     # trials fitted together


def fitted_model(model, scale, offset):
    """``model`` with masses and inertias scaled by ``scale`` and the trunk's mass centres moved by ``offset``.

    Parameters
    ----------
    model : BodyModel
        The model to change (left as it is).
    scale : ndarray, shape (n,)
        Mass (and inertia) scale of every segment.
    offset : ndarray, shape (3,), m
        Added to the trunk segments' ``com_offset``.

    Returns
    -------
    BodyModel
        A new model.
    """
    r = np.array(model.com_offset, dtype=float)
    r[_trunk(model)] += offset
    s = np.asarray(scale, dtype=float)
    return model.replace(mass=model.mass * s, inertia=model.inertia * s[:, None, None], com_offset=r)


def fit_mass_distribution(model, datasets: list) -> MassFit:
    """Bounded least squares over the mass scales and the trunk offset (module docstring), over one or more trials.

    ``datasets`` are :func:`fit_data` of each trial of one subject (one
    model): the parameters are fitted once over all of them.

    Parameters
    ----------
    model : BodyModel
        The body model (its masses, inertias and mass-centre offsets are the fit's starting point).
    datasets : list of FitData
        One per trial of the subject (fit_data).

    Returns
    -------
    MassFit
        The scales, the trunk offset, the fitted model and the RMS of the normalised residual rows before
        and after.
    """
    n = model.n_bodies
    has_trunk = _trunk(model).size > 0

    def data_rows(p):
        s, d = p[:n], (p[n:] if has_trunk else np.zeros(3))
        out = []
        for data in datasets:
            f1, m1 = parameter_residual(model, data, s, d)
            out += [(f1 / data.scale_force).ravel(), (m1 / data.scale_moment).ravel()]
        return np.concatenate(out)

    def prior_rows(p):
        return np.concatenate([(p[:n] - 1.0) / SIGMA_SCALE] + ([p[n:] / SIGMA_OFFSET] if has_trunk else []))

    p = np.concatenate([np.ones(n), np.zeros(3 if has_trunk else 0)])
    lo = np.concatenate([np.full(n, SCALE_BOUNDS[0]), np.full(3 if has_trunk else 0, -OFFSET_BOUND)])
    hi = np.concatenate([np.full(n, SCALE_BOUNDS[1]), np.full(3 if has_trunk else 0, OFFSET_BOUND)])
    prior_scale = np.concatenate([np.full(n, 1 / SIGMA_SCALE), np.full(3 if has_trunk else 0, 1 / SIGMA_OFFSET)])
    r0 = data_rows(p)
    before = float(np.sqrt(np.mean(r0 ** 2)))
    last = np.inf
    for _ in range(NOISE_ROUNDS):
        # the residual's own level left by the last fit is its noise: sigma_r (a floor keeps exact data finite)
        sigma = max(float(np.sqrt(np.mean(data_rows(p) ** 2))), SIGMA_FLOOR)
        if sigma > 0.5 * last:
            break
        last = sigma
        weight = 1.0 / (sigma * np.sqrt(data_rows(p).size / 6.0))

        def rows(x, weight=weight):
            return np.concatenate([data_rows(x) * weight, prior_rows(x)])

        def jac(x, weight=weight):
            parts = []
            for data in datasets:
                J = parameter_jacobian(model, data, x[:n], x[n:] if has_trunk else np.zeros(3))
                J[:, :3] /= data.scale_force
                J[:, 3:] /= data.scale_moment
                # rows in the order of data_rows: every frame's force, then every frame's moment
                parts += [J[:, :3].reshape(-1, n + 3), J[:, 3:].reshape(-1, n + 3)]
            D = np.concatenate(parts)[:, : x.size] * weight
            return np.vstack([D, np.diag(prior_scale)])

        p = least_squares(rows, p, jac=jac, bounds=(lo, hi), method="trf", x_scale="jac", xtol=1e-12, ftol=1e-12,
                          tr_solver="lsmr",
                          gtol=1e-12).x
    scale = p[:n]
    offset = p[n:] if has_trunk else np.zeros(3)
    after = float(np.sqrt(np.mean(data_rows(p) ** 2)))
    return MassFit(scale, offset, fitted_model(model, scale, offset), before, after)
