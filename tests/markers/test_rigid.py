"""The one rigid fit (Horn's quaternion method): closed form in the kernels, numpy.linalg.eigh where flagged.

References: the SVD (Kabsch / Söderkvist & Wedin) solution with the
determinant correction, computed here independently, and the optimum value
max_R trace(R H) = largest eigenvalue of Horn's matrix.
"""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from humanbody._kernels.marker_fit import horn_rotations as horn_kernel
from humanbody.markers import fit_rigid
from humanbody.markers.gaps import _rigid_transform
from humanbody.markers.rigid import horn_matrices, horn_quaternions, horn_rotations
from humanbody.rotations import quaternion_to_matrix


def kabsch(H):
    """Proper rotation maximising trace(R H) for H = sum a b^T: R = V diag(1, 1, d) U^T, H = U S V^T."""
    U, _, Vt = np.linalg.svd(H)
    V = np.swapaxes(Vt, -1, -2).copy()
    d = np.sign(np.linalg.det(V @ np.swapaxes(U, -1, -2)))
    V[..., :, 2] *= d[..., None]
    return V @ np.swapaxes(U, -1, -2)


def clusters(rng, F, m, noise, thin=None):
    """Centred local points a (F, m, 3), true rotations, centred measured points b = R a + noise."""
    a = rng.normal(0, 0.1, (F, m, 3))
    if thin is not None:
        a[..., 1:] *= thin
    a -= a.mean(axis=1, keepdims=True)
    Rt = Rotation.random(F, random_state=int(rng.integers(1 << 30))).as_matrix()
    b = np.einsum("fij,fmj->fmi", Rt, a) + rng.normal(0, noise, (F, m, 3))
    b -= b.mean(axis=1, keepdims=True)
    return a, b, Rt


def test_closed_form_equals_kabsch_and_exact_rotations():
    rng = np.random.default_rng(4)
    a, b, Rt = clusters(rng, 20000, 4, 0.0)
    a[:50, :, 2] *= 1e-3  # nearly planar clusters
    b[:50] = np.einsum("fij,fmj->fmi", Rt[:50], a[:50])
    np.testing.assert_allclose(horn_rotations(np.einsum("fmi,fmj->fij", a, b)), Rt, atol=1e-12)
    a, b, _ = clusters(rng, 20000, 4, 0.02)
    H = np.einsum("fmi,fmj->fij", a, b)
    R = horn_rotations(H)
    np.testing.assert_allclose(R, kabsch(H), atol=1e-11)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-13)
    H[7, 1, 2] = np.nan
    R = horn_rotations(H)
    assert np.isnan(R[7]).all() and np.isfinite(R[8]).all()


@pytest.mark.parametrize("case", ["noisy", "planar", "reflected", "thin"])
def test_eigh_solution_equals_kabsch(case):
    """horn_quaternions (the solver of the flagged frames) on every frame against the SVD solution."""
    rng = np.random.default_rng(["noisy", "planar", "reflected", "thin"].index(case))
    a, b, _ = clusters(rng, 3000, 5, 0.01, thin=0.02 if case == "thin" else None)
    if case == "planar":
        a[..., 2] = 0.0
        b = np.einsum("fij,fmj->fmi", Rotation.random(len(a), random_state=5).as_matrix(), a)
    if case == "reflected":  # the measured cluster is the mirror image: the best proper rotation still exists
        b = b * np.array([1.0, 1.0, -1.0])
    H = np.einsum("fmi,fmj->fij", a, b)
    R = quaternion_to_matrix(horn_quaternions(H))
    ref = kabsch(H)
    best = np.einsum("fij,fji->f", ref, H)  # the optimum value trace(R H)
    np.testing.assert_allclose(np.einsum("fij,fji->f", R, H), best, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(np.linalg.eigvalsh(horn_matrices(H))[:, -1], best, rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-13)
    if case != "reflected":  # a unique optimum: the same rotation
        np.testing.assert_allclose(R, ref, atol=1e-9)


def test_flagged_frames_are_solved_by_eigh():
    """Frames whose two largest Horn eigenvalues nearly coincide: flagged by the kernel, optimal after eigh."""
    rng = np.random.default_rng(9)
    a, b, Rt = clusters(rng, 400, 4, 0.0, thin=0.004)  # long thin clusters: a small eigenvalue gap
    a[:100, 2:] = a[:100, :2]  # two distinct points: any turn about their line fits (a double eigenvalue)
    b = np.einsum("fij,fmj->fmi", Rt, a)
    H = np.einsum("fmi,fmj->fij", a, b)
    R = np.empty_like(H)
    flagged = np.empty(len(H), dtype=bool)
    horn_kernel(H, R, flagged)
    assert flagged[:100].all() and flagged.sum() > 150
    R = horn_rotations(H)
    np.testing.assert_allclose(np.einsum("fij,fji->f", R, H), np.einsum("fij,fji->f", Rt, H), rtol=1e-12)
    np.testing.assert_allclose(R[100:], Rt[100:], atol=1e-8)  # unique optimum where the points span a plane
    np.testing.assert_allclose(np.einsum("fij,fmj->fmi", R[:100], a[:100]), b[:100], atol=1e-12)


def test_zero_covariance_gives_the_identity():
    q = horn_quaternions(np.zeros((2, 3, 3)))
    np.testing.assert_array_equal(q, [[0.0, 0.0, 0.0, 1.0]] * 2)
    np.testing.assert_array_equal(horn_rotations(np.zeros((1, 3, 3)))[0], np.eye(3))


def test_fused_fit_of_flagged_frames_has_origin_and_residual():
    """The one-pass kernel leaves flagged frames to eigh, then finish_fits gives their origin and residual."""
    rng = np.random.default_rng(2)
    F, m = 300, 5
    p = rng.normal(0, 0.1, (m, 3))
    p[:, 0] *= 10.0  # 1 m long, 1 cm thick: well spread (> 2 mm) yet flagged
    p[:, 1:] *= 0.1
    Rt = Rotation.random(F, random_state=3).as_matrix()
    o = rng.normal(0, 1, (F, 3))
    q = np.einsum("fij,mj->fmi", Rt, p) + o[:, None]
    R, origin, rms, count, ok = fit_rigid(p, q)
    assert ok.all()
    np.testing.assert_allclose(R, Rt, atol=1e-9)
    np.testing.assert_allclose(origin, o, atol=1e-9)
    assert np.all(rms < 1e-9)
    general = fit_rigid(p, q, weights=np.ones((F, m)))
    for x, y in zip((R, origin), general[:2], strict=True):
        np.testing.assert_allclose(x, y, atol=1e-9)
    pc = p - p.mean(axis=0)
    H = np.einsum("mi,fmj->fij", pc, q - q.mean(axis=1, keepdims=True))
    flagged = np.empty(F, dtype=bool)
    horn_kernel(H, np.empty_like(H), flagged)
    assert flagged.mean() > 0.5  # the eigh path was taken


def test_gap_filling_rigid_motion_is_horns():
    rng = np.random.default_rng(8)
    A = rng.normal(0, 0.1, (4, 3))
    R0 = Rotation.random(random_state=1).as_matrix()
    B = A @ R0.T + np.array([0.1, -0.2, 0.3])
    R, d = _rigid_transform(A, B)
    np.testing.assert_allclose(R, R0, atol=1e-13)
    np.testing.assert_allclose(A @ R.T + d, B, atol=1e-13)
