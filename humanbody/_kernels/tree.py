"""Numba kernels over plain arrays: the recursion over the tree, per frame.

Nothing here knows about pandas, names or files.  Every kernel takes
C-contiguous float64 arrays and writes into output arrays the caller
allocated, so callers can process a long trial in chunks and reuse buffers.
Kernels are compiled once and cached on disk (``cache=True``).
"""

from __future__ import annotations

from contextlib import contextmanager

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .rot import (
    add3,
    axis_quaternion,
    canonical_quaternion,
    cross,
    mul33,
    mv33,
    quaternion_product,
    scale3,
    sequence_matrix,
    tmv33,
)

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True
_PARALLEL_MIN_FRAMES = 2048


@contextmanager
def threads_for(frames: int):
    """Run the parallel kernels called inside on one thread when ``frames`` is small.

    A parallel region waits for its slowest thread; on a busy machine a
    worker thread can wait a whole scheduler slice (~4-10 ms) for a core,
    which is more than a few thousand frames take on one thread.

    Parameters
    ----------
    frames : int
        Frames the kernels inside will process.

    Yields
    ------
    None
        Inside the block numba runs on one thread when ``frames`` < 2048; the thread count is restored after.
    """
    if frames >= _PARALLEL_MIN_FRAMES:
        yield
        return
    before = nb.get_num_threads()
    nb.set_num_threads(1)
    try:
        yield
    finally:
        nb.set_num_threads(before)


# sin and cos by a polynomial that LLVM vectorises across frames (numba's
# np.sin/np.cos call libm one value at a time: ~20 ns a pair, a third of the
# recursion's time).  Reduction x = n pi/2 + r, |r| <= pi/4, with pi/2 split in
# three parts (Cody and Waite; n pi/2 exact for |n| < 2^20), then the
# minimax polynomials of fdlibm's __kernel_sin/__kernel_cos (Sun Microsystems,
# also in musl and FreeBSD libm).  Error <= 1 ulp for |x| < 10, <= 2 ulp up to
# _SINCOS_MAX; larger or non-finite arguments go to libm.
_PIO2_1 = 1.57079632673412561417e00
_PIO2_2 = 6.07710050630396597660e-11
_PIO2_3 = 2.02226624879595063154e-21
_TWO_OVER_PI = 6.36619772367581382433e-01
_S1, _S2, _S3 = -1.66666666666666324348e-01, 8.33333333332248946124e-03, -1.98412698298579493134e-04
_S4, _S5, _S6 = 2.75573137070700676789e-06, -2.50507602534068634195e-08, 1.58969099521155010221e-10
_C1, _C2, _C3 = 4.16666666666666019037e-02, -1.38888888888741095749e-03, 2.48015872894767294178e-05
_C4, _C5, _C6 = -2.75573143513906633035e-07, 2.08757232129817482790e-09, -1.13596475577881948265e-11
_SINCOS_MAX = 1.0e5


@nb.njit(cache=_CACHE, fastmath={"contract"})
def sincos(x, s, c):
    """``s = sin(x)``, ``c = cos(x)`` elementwise over 1-D arrays (see the comment above).

    Parameters
    ----------
    x : numpy.ndarray
        (n,) angles (rad).
    s, c : numpy.ndarray
        (n,) written: their sines and cosines.
    """
    for i in range(x.shape[0]):
        xi = x[i]
        n = np.floor(xi * _TWO_OVER_PI + 0.5)
        r = ((xi - n * _PIO2_1) - n * _PIO2_2) - n * _PIO2_3
        z = r * r
        ps = r + r * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * _S6)))))
        hz = 0.5 * z
        w = 1.0 - hz
        pc = w + (((1.0 - w) - hz) + z * z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * _C6))))))
        quadrant = n - 4.0 * np.floor(n * 0.25)
        odd = (quadrant == 1.0) | (quadrant == 3.0)
        sv = pc if odd else ps
        cv = ps if odd else pc
        s[i] = -sv if quadrant >= 2.0 else sv
        c[i] = -cv if (quadrant == 1.0) | (quadrant == 2.0) else cv
    for i in range(x.shape[0]):
        if not abs(x[i]) <= _SINCOS_MAX:  # also NaN and inf
            s[i] = np.sin(x[i])
            c[i] = np.cos(x[i])


@nb.njit(cache=_CACHE, fastmath={"contract"})  # as tree_kinematics; LLVM inlines it
def rigid_point(o, vo, ao, w, alpha, r):
    """Position, velocity and acceleration of the point ``o + r`` of a body (Huston eqs. 8.126, 8.129).

    ``o``, ``vo``, ``ao``: a point of the body and its velocity and
    acceleration; ``w``, ``alpha``: the body's angular velocity and
    acceleration; ``r``: the offset in ground components (3-tuples).
    Returns ``(o + r, vo + w x r, ao + alpha x r + w x (w x r))``.

    Parameters
    ----------
    o, vo, ao : tuple of 3 float
        The body point's position (m), velocity (m/s) and acceleration (m/s^2), ground components.
    w, alpha : tuple of 3 float
        The body's angular velocity (rad/s) and acceleration (rad/s^2), ground components.
    r : tuple of 3 float
        The offset from ``o`` to the point (m), ground components.

    Returns
    -------
    position, velocity, acceleration : tuple of 3 float
        Of the point ``o + r`` (m, m/s, m/s^2).
    """
    wxr = cross(w, r)
    return add3(o, r), add3(vo, wxr), add3(add3(ao, cross(alpha, r)), cross(w, wxr))


@nb.njit(cache=_CACHE, fastmath={"contract"})
def block_inputs(q, qd, qdd, blk, block, n):
    """Block ``blk`` of ``block`` frames: its frame range, its inputs copied row-major, and scratch.

    The columns pandas hands over are strided (often column-major); a
    block's copy stays in L1/L2 cache while the recursion runs over its
    frames.  Returns ``f0, f1, qb, qdb, qddb, sinq, cosq, vO, aO``: rows
    ``f0:f1`` of ``q``, ``qd``, ``qdd`` and the sines and cosines of
    ``q``'s, each (f1 - f0, columns), and (n, 3) scratch for the velocity
    and acceleration of each joint point in one frame.

    Parameters
    ----------
    q, qd, qdd : numpy.ndarray
        (F, columns) coordinates and their rates.
    blk : int
        The block's number (0-based).
    block : int
        Frames per block.
    n : int
        Number of bodies (rows of the scratch).

    Returns
    -------
    tuple
        ``(f0, f1, qb, qdb, qddb, sinq, cosq, vO, aO)`` as above.
    """
    f0 = blk * block
    f1 = min(q.shape[0], f0 + block)
    ncol = q.shape[1]
    qb = np.empty((f1 - f0, ncol))
    qdb = np.empty((f1 - f0, ncol))
    qddb = np.empty((f1 - f0, ncol))
    for c in range(ncol):
        for j in range(f1 - f0):
            qb[j, c] = q[f0 + j, c]
            qdb[j, c] = qd[f0 + j, c]
            qddb[j, c] = qdd[f0 + j, c]
    sinq = np.empty((f1 - f0, ncol))
    cosq = np.empty((f1 - f0, ncol))
    sincos(qb.reshape(-1), sinq.reshape(-1), cosq.reshape(-1))
    return f0, f1, qb, qdb, qddb, sinq, cosq, np.empty((n, 3)), np.empty((n, 3))


@nb.njit(cache=_CACHE, inline="always", fastmath={"contract"})
def frame_kinematics(
    f, r, qb, qdb, qddb, sinq, cosq, vO, aO, local_rates,
    parents, seq, xi, rcom, mass, inertia, total,
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
    body_com, body_vel, body_acc,
):
    """One frame of :func:`tree_kinematics`: the recursion over the bodies, root to tips.

    ``f`` is the frame's row in the outputs, ``r`` its row in the block
    buffers ``qb``, ``qdb``, ``qddb`` (coordinates and rates) and ``sinq``,
    ``cosq`` (their sines and cosines); ``vO``, ``aO`` (n, 3) are scratch
    for the joint points' velocities and accelerations; ``total`` is the
    whole body's mass (kg).  The other arguments are those of
    :func:`tree_kinematics`, whose docstring gives the equations.

    Parameters
    ----------
    f : int
        The frame's row in the outputs.
    r : int
        Its row in the block buffers.
    qb, qdb, qddb : numpy.ndarray
        (frames in the block, 3 + 3n) the block's coordinates and rates.
    sinq, cosq : numpy.ndarray
        (frames in the block, 3 + 3n) the sines and cosines of ``qb``.
    vO, aO : numpy.ndarray
        (n, 3) scratch: the joint points' velocities (m/s) and accelerations (m/s^2).
    local_rates : bool
        As :func:`tree_kinematics`.
    parents, seq, xi, rcom, mass, inertia : numpy.ndarray
        The model, as :func:`tree_kinematics` takes it.
    total : float
        The whole body's mass (kg).
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque : numpy.ndarray
        The per-body outputs of :func:`tree_kinematics`, row ``f`` written.
    body_com, body_vel, body_acc : numpy.ndarray
        The whole-body mass centre's outputs of :func:`tree_kinematics`, row ``f`` written.
    """
    n = parents.shape[0]
    bc = bv = ba = (0.0, 0.0, 0.0)  # sums of m_k G_k, m_k v_Gk, m_k a_Gk
    for k in range(n):
        # parent state (scalars, so LLVM keeps them in registers)
        p = parents[k]
        if p < 0:
            P = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
            wp = ap = (0.0, 0.0, 0.0)
            if k == 0:
                Op = (qb[r, 0], qb[r, 1], qb[r, 2])
                vp = (qdb[r, 0], qdb[r, 1], qdb[r, 2])
                cp = (qddb[r, 0], qddb[r, 1], qddb[r, 2])
            else:  # another body hinged to ground: pinned at xi_k
                Op = vp = cp = (0.0, 0.0, 0.0)
        else:
            P = (R[f, p, 0, 0], R[f, p, 0, 1], R[f, p, 0, 2], R[f, p, 1, 0], R[f, p, 1, 1], R[f, p, 1, 2],
                 R[f, p, 2, 0], R[f, p, 2, 1], R[f, p, 2, 2])
            wp = (omega[f, p, 0], omega[f, p, 1], omega[f, p, 2])
            ap = (alpha[f, p, 0], alpha[f, p, 1], alpha[f, p, 2])
            Op = (joint[f, p, 0], joint[f, p, 1], joint[f, p, 2])
            vp = (vO[p, 0], vO[p, 1], vO[p, 2])
            cp = (aO[p, 0], aO[p, 1], aO[p, 2])
        d = (0.0, 0.0, 0.0) if k == 0 else mv33(P, (xi[k, 0], xi[k, 1], xi[k, 2]))  # R_p xi_k
        O, vk, ak = rigid_point(Op, vp, cp, wp, ap, d)  # joint point O_k, carried by the parent
        joint[f, k, 0], joint[f, k, 1], joint[f, k, 2] = O
        vO[k, 0], vO[k, 1], vO[k, 2] = vk
        aO[k, 0], aO[k, 1], aO[k, 2] = ak
        # orientation R_k = R_p S_k, S_k the matrix of the body's sequence (eqs. 8.64-8.74)
        c = 3 + 3 * k
        sa, ca = sinq[r, c], cosq[r, c]
        sb, cb = sinq[r, c + 1], cosq[r, c + 1]
        sg, cg = sinq[r, c + 2], cosq[r, c + 2]
        i0, i1, i2 = seq[k, 0], seq[k, 1], seq[k, 2]
        S, u2 = sequence_matrix(i0, i1, i2, sa, ca, sb, cb, sg, cg)
        Rk = mul33(P, S)
        (R[f, k, 0, 0], R[f, k, 0, 1], R[f, k, 0, 2], R[f, k, 1, 0], R[f, k, 1, 1], R[f, k, 1, 2],
         R[f, k, 2, 0], R[f, k, 2, 1], R[f, k, 2, 2]) = Rk
        # hat omega_k and its derivative, parent-frame components (eq. 8.95 and its rate)
        if local_rates:
            wl = (qdb[r, c], qdb[r, c + 1], qdb[r, c + 2])
            wdl = (qddb[r, c], qddb[r, c + 1], qddb[r, c + 2])
        else:
            ad, bd, gd = qdb[r, c], qdb[r, c + 1], qdb[r, c + 2]
            add, bdd, gdd = qddb[r, c], qddb[r, c + 1], qddb[r, c + 2]
            # axes: u1 = e_i0, u2 = R_i0(alpha) e_i1, u3 = S e_i2
            u10 = 1.0 if i0 == 0 else 0.0
            u11 = 1.0 if i0 == 1 else 0.0
            u12 = 1.0 if i0 == 2 else 0.0
            u20, u21, u22 = u2
            u30, u31, u32 = S[i2], S[3 + i2], S[6 + i2]
            wl = (ad * u10 + bd * u20 + gd * u30, ad * u11 + bd * u21 + gd * u31, ad * u12 + bd * u22 + gd * u32)
            x0, x1, x2 = cross((u10, u11, u12), u2)
            y0, y1, y2 = cross((ad * u10 + bd * u20, ad * u11 + bd * u21, ad * u12 + bd * u22), (u30, u31, u32))
            ab = ad * bd
            wdl = (add * u10 + bdd * u20 + gdd * u30 + ab * x0 + gd * y0,
                   add * u11 + bdd * u21 + gdd * u31 + ab * x1 + gd * y1,
                   add * u12 + bdd * u22 + gdd * u32 + ab * x2 + gd * y2)
        # angular velocity (addition theorem, 8.104) and acceleration (8.115)
        wr = mv33(P, wl)
        w = add3(wp, wr)
        a = add3(add3(ap, mv33(P, wdl)), cross(wp, wr))
        omega_rel[f, k, 0], omega_rel[f, k, 1], omega_rel[f, k, 2] = wr
        omega[f, k, 0], omega[f, k, 1], omega[f, k, 2] = w
        alpha[f, k, 0], alpha[f, k, 1], alpha[f, k, 2] = a
        # mass centre G_k = O_k + R_k r_k
        g, v, acc = rigid_point(O, vk, ak, w, a, mv33(Rk, (rcom[k, 0], rcom[k, 1], rcom[k, 2])))
        com[f, k, 0], com[f, k, 1], com[f, k, 2] = g
        com_vel[f, k, 0], com_vel[f, k, 1], com_vel[f, k, 2] = v
        com_acc[f, k, 0], com_acc[f, k, 1], com_acc[f, k, 2] = acc
        m = mass[k]
        force[f, k, 0], force[f, k, 1], force[f, k, 2] = scale3(-m, acc)  # eq. 10.1
        # eq. 10.2 in body components: w = R^T omega, a = R^T alpha
        bw = tmv33(Rk, w)
        J = (inertia[k, 0, 0], inertia[k, 0, 1], inertia[k, 0, 2], inertia[k, 1, 0], inertia[k, 1, 1],
             inertia[k, 1, 2], inertia[k, 2, 0], inertia[k, 2, 1], inertia[k, 2, 2])
        t0, t1, t2 = mv33(Rk, add3(mv33(J, tmv33(Rk, a)), cross(bw, mv33(J, bw))))
        torque[f, k, 0] = -t0
        torque[f, k, 1] = -t1
        torque[f, k, 2] = -t2
        bc = add3(bc, scale3(m, g))
        bv = add3(bv, scale3(m, v))
        ba = add3(ba, scale3(m, acc))
    body_com[f, 0], body_com[f, 1], body_com[f, 2] = bc[0] / total, bc[1] / total, bc[2] / total
    body_vel[f, 0], body_vel[f, 1], body_vel[f, 2] = bv[0] / total, bv[1] / total, bv[2] / total
    body_acc[f, 0], body_acc[f, 1], body_acc[f, 2] = ba[0] / total, ba[1] / total, ba[2] / total


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def tree_kinematics(
    q, qd, qdd, local_rates,
    parents, seq, xi, rcom, mass, inertia,
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
    body_com, body_vel, body_acc, block,
):
    """Kinematics and inertia forces of every body of a tree and the whole-body mass centre, every frame.

    The recursion runs over bodies in numbering order (``parents[k] < k``)
    and in parallel over blocks of frames.  For body k with parent p = L(k):

    - ``R_k = R_p S_k``, S_k the product of the three simple rotations of
      body k's sequence (eqs. 8.64-8.74; eq. 8.74 for "xyz"), R_p the parent's
      absolute orientation (eq. 8.73)
    - ``omega_rel_k = R_p hat_omega_k``      (hat omega in ground, eq. 8.99)
    - ``omega_k = omega_p + omega_rel_k``    (addition theorem, eq. 8.104)
    - ``alpha_k = alpha_p + R_p d(hat_omega_k)/dt + omega_p x omega_rel_k`` (eq. 8.115)
    - ``O_k = O_p + R_p xi_k``; velocity and acceleration of O_k and of the
      mass centre ``G_k = O_k + R_k r_k`` from eqs. 8.126 and 8.129
    - inertia force ``F*_k = -m_k a_Gk`` (eq. 10.1) and inertia torque
      ``T*_k = -I_k alpha_k - omega_k x (I_k omega_k)`` (eq. 10.2), from the
      values still in registers.  The torque is evaluated in body components,
      where the inertia dyadic is constant: with ``w = R^T omega`` and
      ``a = R^T alpha``, ``T* = -R (I a + w x (I w))`` (the same vector as
      with ``I_g = R I R^T``, fewer operations, and nothing stored);
    - whole-body mass centre ``sum m_k G_k / M`` (eq. 9.19) and its rates.

    Parameters
    ----------
    q : (F, 3 + 3n)  generalized coordinates: origin of body 1 in ground (m),
        then the angles alpha, beta, gamma of body k relative to L(k) in its
        rotation sequence, in columns 3 + 3(k-1) .. 5 + 3(k-1) (rad).
    qd, qdd : (F, 3 + 3n)  velocity and acceleration of the origin of body 1
        (m/s, m/s^2) in columns 0-2, then per body either the angle rates
        (``local_rates`` False) or the parent-frame components of the
        relative angular velocity hat omega_k and their time derivatives
        (``local_rates`` True).  From angle rates, hat omega_k is
        ``alpha' u1 + beta' u2 + gamma' u3`` with u1, u2, u3 the sequence's
        rotation axes in parent components (eq. 8.95 for "xyz"), and its
        derivative ``alpha'' u1 + beta'' u2 + gamma'' u3 + alpha' beta'
        (u1 x u2) + gamma' (alpha' u1 + beta' u2) x u3``: no division, so
        the singular set needs no special case.
    local_rates : bool
    parents : (n,) int64  the parent of body k (0-based, -1 = ground: the core's convention,
        ``BodyModel.parent_index``), ``parents[k] < k``.
    seq : (n, 3) int64  axes (0 = x, 1 = y, 2 = z) of each body's rotation sequence.
    xi : (n, 3)  joint offsets in the parent frame (m).
    rcom : (n, 3)  mass-centre offsets in the body frame (m).
    mass : (n,)  kg.
    inertia : (n, 3, 3)  inertia about the mass centre, body components (kg m^2).

    Outputs (written): R (F, n, 3, 3); omega_rel, omega, alpha,
    joint, com, com_vel, com_acc, force (N), torque (N m) (F, n, 3);
    body_com, body_vel, body_acc
    (F, 3) = whole-body mass-centre position, velocity, acceleration.
    block : int  frames per block.  Threads take blocks of frames; each block
        first copies its rows of q, qd, qdd into a small row-major buffer
        (:func:`block_inputs`), then runs the recursion frame by frame
        (:func:`frame_kinematics`) with the buffer in L1/L2 cache.
    """
    F, n = q.shape[0], parents.shape[0]
    total = 0.0
    for k in range(n):
        total += mass[k]
    block = max(1, block)
    for blk in nb.prange((F + block - 1) // block):
        block_kinematics(np.int64(blk), block, total, q, qd, qdd, local_rates, parents, seq, xi, rcom, mass, inertia,
                         R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
                         body_com, body_vel, body_acc)


@nb.njit(cache=_CACHE, fastmath={"contract"}, error_model="numpy")  # numpy's, as numba's parallel loop bodies
def block_kinematics(
    blk, block, total, q, qd, qdd, local_rates,
    parents, seq, xi, rcom, mass, inertia,
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
    body_com, body_vel, body_acc,
):
    """Block ``blk`` of :func:`tree_kinematics` (``block`` frames; ``total`` the body's mass, kg).

    A function of its own, called from the parallel loop with an int64 block
    index (the loop's own index is typed otherwise, which would compile it a
    second time), not inlined into it: numba compiles the recursion once as
    serial code and its parallel passes see one call (over the inlined
    recursion they cost 7 CPU-s of a first run's compilation).

    Parameters
    ----------
    blk : int
        The block's index (frames ``blk * block`` to ``min((blk + 1) * block, F)``).
    block : int
        Frames per block.
    total : float
        The body's mass (kg).
    q, qd, qdd, local_rates, parents, seq, xi, rcom, mass, inertia
        :func:`tree_kinematics`'s inputs.
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque, body_com, body_vel, body_acc
        :func:`tree_kinematics`'s outputs, whose rows of this block are written in place.
    """
    n = parents.shape[0]
    f0, f1, qb, qdb, qddb, sinq, cosq, vO, aO = block_inputs(q, qd, qdd, blk, block, n)
    for f in range(f0, f1):
        frame_kinematics(f, f - f0, qb, qdb, qddb, sinq, cosq, vO, aO, local_rates,
                         parents, seq, xi, rcom, mass, inertia, total,
                         R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
                         body_com, body_vel, body_acc)


@nb.njit(cache=_CACHE, parallel=True)
def quaternion_omegas(q, qd, qdd, w, wd, first):
    """Relative angular velocity and its rate from Euler-parameter rates, every frame and body.

    ``V = 2 (e4 e' - e4' e + e x e') / |q|^2`` and
    ``V' = 2 (e4 e'' - e4'' e + e x e'') / |q|^2`` (Huston eqs. 8.190-8.192;
    :func:`humanbody.mechanics.kinematics.local_rates_from_quaternions` is the NumPy
    form), written into columns ``first + 3k .. first + 3k + 2`` of ``w``
    and ``wd`` for body k.

    Parameters
    ----------
    q, qd, qdd : (F, n, 4) float64   (eps1, eps2, eps3, eps4) and their rates
    w, wd : (F, first + 3n) float64  written from column ``first`` on
    first : int
    """
    F, n = q.shape[0], q.shape[1]
    for f in nb.prange(F):
        for k in range(n):
            e1, e2, e3, e4 = q[f, k, 0], q[f, k, 1], q[f, k, 2], q[f, k, 3]
            s = 2.0 / (e1 * e1 + e2 * e2 + e3 * e3 + e4 * e4)
            c = first + 3 * k
            d1, d2, d3, d4 = qd[f, k, 0], qd[f, k, 1], qd[f, k, 2], qd[f, k, 3]
            w[f, c] = (e4 * d1 - d4 * e1 + (e2 * d3 - e3 * d2)) * s
            w[f, c + 1] = (e4 * d2 - d4 * e2 + (e3 * d1 - e1 * d3)) * s
            w[f, c + 2] = (e4 * d3 - d4 * e3 + (e1 * d2 - e2 * d1)) * s
            d1, d2, d3, d4 = qdd[f, k, 0], qdd[f, k, 1], qdd[f, k, 2], qdd[f, k, 3]
            wd[f, c] = (e4 * d1 - d4 * e1 + (e2 * d3 - e3 * d2)) * s
            wd[f, c + 1] = (e4 * d2 - d4 * e2 + (e3 * d1 - e1 * d3)) * s
            wd[f, c + 2] = (e4 * d3 - d4 * e3 + (e1 * d2 - e2 * d1)) * s


@nb.njit(cache=_CACHE, parallel=True)
def sequence_quaternions(angles, seq, out):
    """Sign-continuous Euler parameters of every body's angles, every frame.

    The product of the three axis quaternions of the body's sequence, ``S =
    R_i0(alpha) R_i1(beta) R_i2(gamma)``
    (:func:`humanbody.rotations.sequence_to_quaternion`, whose
    ``continuous=True`` result this equals): each frame's quaternion has
    ``eps4 >= 0`` (ties broken by eps1, eps2, eps3), then along the frames
    of each body it is negated whenever its dot product with the previous
    frame's is negative.

    Parameters
    ----------
    angles : (F, n, 3) float64    alpha, beta, gamma (rad)
    seq : (n, 3) int64            axes of each body's sequence (0 = x, 1 = y, 2 = z)
    out : (F, n, 4) float64       written: eps1, eps2, eps3, eps4
    """
    for k in nb.prange(angles.shape[1]):
        body_quaternions(np.int64(k), angles, seq, out)


@nb.njit(cache=_CACHE, error_model="numpy")  # numpy's, as numba's parallel loop bodies
def body_quaternions(k, angles, seq, out):
    """Body ``k`` of :func:`sequence_quaternions` (a serial function of its own, as :func:`block_kinematics`).

    Parameters
    ----------
    k : int
        The body's index.
    angles : ndarray, shape (F, n, 3)
        Each body's three rotation angles (rad).
    seq : ndarray of int, shape (n, 3)
        Each body's rotation sequence (axis indices 0-2).
    out : ndarray, shape (F, n, 4)
        The unit quaternions, whose body ``k`` is written in place.
    """
    F = angles.shape[0]
    B = 512
    i0, i1, i2 = seq[k, 0], seq[k, 1], seq[k, 2]
    x = np.empty(3 * B)
    sn = np.empty(3 * B)
    cs = np.empty(3 * B)
    p1 = p2 = p3 = p4 = np.nan
    for lo in range(0, F, B):
        m = min(B, F - lo)
        for i in range(m):
            x[i] = 0.5 * angles[lo + i, k, 0]
            x[B + i] = 0.5 * angles[lo + i, k, 1]
            x[2 * B + i] = 0.5 * angles[lo + i, k, 2]
        sincos(x, sn, cs)  # vectorised; the tail beyond m holds stale values, unused
        for i in range(m):
            f = lo + i
            a1, a2, a3, a4 = axis_quaternion(i0, sn[i], cs[i])
            b1, b2, b3, b4 = axis_quaternion(i1, sn[B + i], cs[B + i])
            g1, g2, g3, g4 = axis_quaternion(i2, sn[2 * B + i], cs[2 * B + i])
            e1, e2, e3, e4 = quaternion_product(a1, a2, a3, a4, b1, b2, b3, b4)
            e1, e2, e3, e4 = quaternion_product(e1, e2, e3, e4, g1, g2, g3, g4)
            e1, e2, e3, e4 = canonical_quaternion(e1, e2, e3, e4)
            if f > 0 and e1 * p1 + e2 * p2 + e3 * p3 + e4 * p4 < 0.0:
                e1, e2, e3, e4 = -e1, -e2, -e3, -e4
            out[f, k, 0], out[f, k, 1], out[f, k, 2], out[f, k, 3] = e1, e2, e3, e4
            p1, p2, p3, p4 = e1, e2, e3, e4
