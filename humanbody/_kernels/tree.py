"""Numba kernels over plain arrays: the recursion over the tree, for runs of frames side by side.

Nothing here knows about pandas, names or files.  Every kernel takes
C-contiguous float64 arrays and writes into output arrays the caller
allocated, so callers can process a long trial in chunks and reuse buffers.
Kernels are compiled once and cached on disk (``cache=True``).
"""

from __future__ import annotations

from contextlib import contextmanager

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from .cache import drop_stale_kernels
from .rot import axis_quaternion, bryant, canonical_quaternion, mul33, mv33, quaternion_product, tmv33
from .vec3 import add, cross, scale

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True
_PARALLEL_MIN_FRAMES = 2048
_STREAM_MIN_FRAMES = 8192  # outputs of 40 MB and more (more than the caches hold) bypass the cache


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
    return add(o, r), add(vo, wxr), add(add(ao, cross(alpha, r)), cross(w, wxr))


# The recursion runs over a block's frames side by side: each body's loop over
# _SUB frames is the innermost loop, so LLVM computes several frames in one
# vector register.  A block's scratch is one 1-D array of slabs, one per body
# (and three more: ground, the root's parent, the mass-centre sums), each slab
# _NS components of _SUB frames (structure of arrays); its offsets are
# constants, so the vectoriser needs no more than a few overlap checks.
# Every frame sees the same operations in the same order as one frame alone.
_SUB = 32
_R, _WREL, _W, _A, _O, _G, _GV, _GA, _F, _T = 0, 9, 12, 15, 18, 21, 24, 27, 30, 33  # the 36 outputs
_VO, _AO = 36, 39           # velocity and acceleration of the joint point
_S, _WL, _WDL = 42, 51, 54  # S_k, hat omega_k and its rate (parent components)
_NS = 57
_SLAB = _NS * _SUB


@nb.njit(cache=_CACHE, inline="always")
def ld3(a, o, j):
    """Components ``o``, ``o + _SUB``, ``o + 2 _SUB`` of frame ``j`` in a block scratch.

    Parameters
    ----------
    a : numpy.ndarray
        (m,) the scratch.
    o : int
        The first component's offset.
    j : int
        The frame in the block.

    Returns
    -------
    tuple of 3 float
        The three components (a 3-vector of frame ``j``).
    """
    return a[o + j], a[o + _SUB + j], a[o + 2 * _SUB + j]


@nb.njit(cache=_CACHE, inline="always")
def ld9(a, o, j):
    """Nine components of frame ``j`` from offset ``o`` (a 3x3 matrix row by row), as :func:`ld3`.

    Parameters
    ----------
    a : numpy.ndarray
        (m,) the scratch.
    o : int
        The first component's offset.
    j : int
        The frame in the block.

    Returns
    -------
    tuple of 9 float
        The nine components, row by row.
    """
    return (a[o + j], a[o + _SUB + j], a[o + 2 * _SUB + j], a[o + 3 * _SUB + j], a[o + 4 * _SUB + j],
            a[o + 5 * _SUB + j], a[o + 6 * _SUB + j], a[o + 7 * _SUB + j], a[o + 8 * _SUB + j])


@nb.njit(cache=_CACHE, inline="always")
def put3(a, o, j, v):
    """Write a 3-tuple as components ``o``, ``o + _SUB``, ``o + 2 _SUB`` of frame ``j`` (as :func:`ld3`).

    Parameters
    ----------
    a : numpy.ndarray
        (m,) the scratch, written.
    o, j : int
        The first component's offset; the frame in the block.
    v : tuple of 3 float
        The three components to write.
    """
    a[o + j] = v[0]
    a[o + _SUB + j] = v[1]
    a[o + 2 * _SUB + j] = v[2]


@nb.njit(cache=_CACHE, inline="always")
def put9(a, o, j, m):
    """Write a 9-tuple from offset ``o`` for frame ``j`` (as :func:`ld9`).

    Parameters
    ----------
    a : numpy.ndarray
        (m,) the scratch, written.
    o, j : int
        The first component's offset; the frame in the block.
    m : tuple of 9 float
        The nine components to write (a 3x3 matrix row by row).
    """
    for i in range(9):
        a[o + i * _SUB + j] = m[i]


@nb.njit(cache=_CACHE)
def columns_of(a, f0, nb_, out):
    """Rows ``f0 : f0 + nb_`` of a 2-D array, column by column: column c at ``out[c _SUB : c _SUB + nb_]``.

    Parameters
    ----------
    a : numpy.ndarray
        (F, C) any memory layout (read in its own order).
    f0, nb_ : int
        The first row and the number of rows (at most ``_SUB``).
    out : numpy.ndarray
        (C _SUB,) written; entries past ``nb_`` in each column are left as they are.
    """
    rows = a[f0:f0 + nb_]
    if a.strides[0] <= a.strides[1]:  # column-major (as pandas hands columns over)
        for c in range(a.shape[1]):
            for j in range(nb_):
                out[c * _SUB + j] = rows[j, c]
    else:
        for j in range(nb_):
            for c in range(a.shape[1]):
                out[c * _SUB + j] = rows[j, c]


@nb.njit(cache=_CACHE, fastmath={"contract"})
def block_rows(q, qd, qdd, f0, nb_, inp):
    """A run's inputs, structure of arrays: rows ``f0 : f0 + nb_`` of q, qd, qdd, and sin q, cos q.

    Parameters
    ----------
    q, qd, qdd : numpy.ndarray
        (F, C) coordinates and their rates.
    f0, nb_ : int
        The run's first frame and its number of frames (at most ``_SUB``).
    inp : numpy.ndarray
        (5 C _SUB,) written: column c of q at ``c _SUB``, of qd at ``(C + c) _SUB``, of qdd at
        ``(2 C + c) _SUB``, then the sines and cosines of q; frames past ``nb_`` are zero.
    """
    m = q.shape[1] * _SUB
    if nb_ < _SUB:
        inp[:] = 0.0
    columns_of(q, f0, nb_, inp[:m])
    columns_of(qd, f0, nb_, inp[m:2 * m])
    columns_of(qdd, f0, nb_, inp[2 * m:3 * m])
    sincos(inp[:m], inp[3 * m:4 * m], inp[4 * m:])


@nb.njit(cache=_CACHE, inline="always")
def axis_rows(axis, t):
    """Rows of the palette (:func:`body_sequence`) that hold the entries of ``elementary(axis, s_t, c_t)``.

    The palette's rows: 0 zeros, 1 ones, then for each angle t (0, 1, 2) of
    the body's sequence ``2 + 3 t`` its cosine, ``3 + 3 t`` its sine and
    ``4 + 3 t`` minus its sine.  An entry read from row ``r`` at ``r _SUB +
    j`` is the same number for every axis, so the loops over frames have no
    branch on the sequence.

    Parameters
    ----------
    axis : int
        0, 1 or 2 (:func:`humanbody._kernels.rot.elementary`).
    t : int
        The angle's place in the sequence (0, 1, 2).

    Returns
    -------
    tuple of 9 int
        Palette rows of the matrix's entries, row by row.
    """
    c, s, ns = 2 + 3 * t, 3 + 3 * t, 4 + 3 * t
    if axis == 0:
        return (1, 0, 0, 0, c, ns, 0, s, c)
    if axis == 1:
        return (c, 0, s, 0, 1, 0, ns, 0, c)
    return (c, ns, 0, s, c, 0, 0, 0, 1)


@nb.njit(cache=_CACHE, fastmath={"contract"})
def body_sequence(sq, cq, i0, i1, i2, pal, smat):
    """``S = R_i0(alpha) R_i1(beta) R_i2(gamma)`` of one body (eqs. 8.64-8.74), a block's frames side by side.

    The product of the three simple rotations, or Bryant's closed form
    (eq. 8.74) for "xyz", as :func:`humanbody._kernels.rot.sequence_matrix`.

    Parameters
    ----------
    sq, cq : numpy.ndarray
        (3 _SUB,) sines and cosines of the body's three angles, each ``_SUB`` frames contiguous.
    i0, i1, i2 : int
        The body's sequence axes.
    pal : numpy.ndarray
        (11 _SUB,) the palette (:func:`axis_rows`); rows 0 and 1 hold zeros and ones, rows 2-10 are written.
    smat : numpy.ndarray
        (9 _SUB,) written: S, row by row.
    """
    for j in range(_SUB):
        for t in range(3):
            pal[(2 + 3 * t) * _SUB + j] = cq[t * _SUB + j]
            pal[(3 + 3 * t) * _SUB + j] = sq[t * _SUB + j]
            pal[(4 + 3 * t) * _SUB + j] = -sq[t * _SUB + j]
    if i0 == 0 and i1 == 1 and i2 == 2:
        for j in range(_SUB):
            sa, sb, sg = ld3(sq, 0, j)
            ca, cb, cg = ld3(cq, 0, j)
            put9(smat, 0, j, bryant(sa, ca, sb, cb, sg, cg))
        return
    a, b, c = axis_rows(i0, 0), axis_rows(i1, 1), axis_rows(i2, 2)
    for j in range(_SUB):
        A = (pal[a[0] * _SUB + j], pal[a[1] * _SUB + j], pal[a[2] * _SUB + j], pal[a[3] * _SUB + j],
             pal[a[4] * _SUB + j], pal[a[5] * _SUB + j], pal[a[6] * _SUB + j], pal[a[7] * _SUB + j],
             pal[a[8] * _SUB + j])
        B = (pal[b[0] * _SUB + j], pal[b[1] * _SUB + j], pal[b[2] * _SUB + j], pal[b[3] * _SUB + j],
             pal[b[4] * _SUB + j], pal[b[5] * _SUB + j], pal[b[6] * _SUB + j], pal[b[7] * _SUB + j],
             pal[b[8] * _SUB + j])
        C = (pal[c[0] * _SUB + j], pal[c[1] * _SUB + j], pal[c[2] * _SUB + j], pal[c[3] * _SUB + j],
             pal[c[4] * _SUB + j], pal[c[5] * _SUB + j], pal[c[6] * _SUB + j], pal[c[7] * _SUB + j],
             pal[c[8] * _SUB + j])
        put9(smat, 0, j, mul33(mul33(A, B), C))


@nb.njit(cache=_CACHE, fastmath={"contract"})
def body_rates(smat, pal, qd, qdd, i0, i1, i2, local_rates, sk):
    """The relative angular velocity and its rate of one body, a block's frames side by side.

    From angle rates, ``hat omega = alpha' u1 + beta' u2 + gamma' u3`` (eq.
    8.95) with ``u1 = e_i0``, ``u2 = R_i0(alpha) e_i1``, ``u3 = S e_i2``,
    and its derivative ``alpha'' u1 + beta'' u2 + gamma'' u3 + alpha' beta'
    (u1 x u2) + gamma' (alpha' u1 + beta' u2) x u3``; with ``local_rates``
    the rates columns hold hat omega and its derivative themselves.

    Parameters
    ----------
    smat, pal : numpy.ndarray
        S and the palette of :func:`body_sequence`.
    qd, qdd : numpy.ndarray
        (3 _SUB,) the rates of the body's three angles (or hat omega and its rate), ``_SUB`` frames contiguous.
    i0, i1, i2 : int
        The body's sequence axes.
    local_rates : bool
        As :func:`tree_kinematics`.
    sk : numpy.ndarray
        (_NS _SUB,) the body's slab of the block scratch; components ``_S`` (S), ``_WL``, ``_WDL`` written.
    """
    if local_rates:
        for j in range(_SUB):
            put9(sk, _S * _SUB, j, ld9(smat, 0, j))
            put3(sk, _WL * _SUB, j, ld3(qd, 0, j))
            put3(sk, _WDL * _SUB, j, ld3(qdd, 0, j))
        return
    u10 = 1.0 if i0 == 0 else 0.0
    u11 = 1.0 if i0 == 1 else 0.0
    u12 = 1.0 if i0 == 2 else 0.0
    a = axis_rows(i0, 0)
    r0, r1, r2 = a[i1] * _SUB, a[3 + i1] * _SUB, a[6 + i1] * _SUB  # u2: column i1 of R_i0(alpha)
    for j in range(_SUB):
        put9(sk, _S * _SUB, j, ld9(smat, 0, j))
        ad, bd, gd = ld3(qd, 0, j)
        add, bdd, gdd = ld3(qdd, 0, j)
        u2 = u20, u21, u22 = pal[r0 + j], pal[r1 + j], pal[r2 + j]
        u30, u31, u32 = smat[i2 * _SUB + j], smat[(3 + i2) * _SUB + j], smat[(6 + i2) * _SUB + j]
        put3(sk, _WL * _SUB, j,
             (ad * u10 + bd * u20 + gd * u30, ad * u11 + bd * u21 + gd * u31, ad * u12 + bd * u22 + gd * u32))
        x0, x1, x2 = cross((u10, u11, u12), u2)
        y0, y1, y2 = cross((ad * u10 + bd * u20, ad * u11 + bd * u21, ad * u12 + bd * u22), (u30, u31, u32))
        ab = ad * bd
        put3(sk, _WDL * _SUB, j, (add * u10 + bdd * u20 + gdd * u30 + ab * x0 + gd * y0,
                                  add * u11 + bdd * u21 + gdd * u31 + ab * x1 + gd * y1,
                                  add * u12 + bdd * u22 + gdd * u32 + ab * x2 + gd * y2))


@nb.njit(cache=_CACHE, fastmath={"contract"})
def body_motion(sk, sp, ssum, x, rc, m, J):
    """One body's kinematics and inertia loads from its parent's, a block's frames side by side.

    The equations of :func:`tree_kinematics`; reads the parent's slab (R,
    omega, alpha, joint point and its velocity and acceleration) and the
    body's own S, hat omega and its rate (:func:`body_sequence`, :func:`body_rates`), writes the
    body's 36 outputs and joint-point rates, and adds ``m G``, ``m v_G``,
    ``m a_G`` to the sums.

    Parameters
    ----------
    sk, sp : numpy.ndarray
        (_NS _SUB,) the body's slab of the block scratch (written) and its parent's.
    ssum : numpy.ndarray
        (9 _SUB,) the sums of ``m G``, ``m v_G``, ``m a_G`` over the bodies so far, added to.
    x, rc : tuple of 3 float
        The joint offset in the parent frame and the mass-centre offset in the body frame (m).
    m : float
        The body's mass (kg).
    J : tuple of 9 float
        Its inertia about the mass centre, body components (kg m^2).
    """
    for j in range(_SUB):
        P = ld9(sp, _R * _SUB, j)
        wp, ap = ld3(sp, _W * _SUB, j), ld3(sp, _A * _SUB, j)
        O, vk, ak = rigid_point(ld3(sp, _O * _SUB, j), ld3(sp, _VO * _SUB, j),
                                ld3(sp, _AO * _SUB, j), wp, ap, mv33(P, x))  # joint point O_k
        put3(sk, _O * _SUB, j, O)
        put3(sk, _VO * _SUB, j, vk)
        put3(sk, _AO * _SUB, j, ak)
        Rk = mul33(P, ld9(sk, _S * _SUB, j))  # R_k = R_p S_k
        put9(sk, _R * _SUB, j, Rk)
        wr = mv33(P, ld3(sk, _WL * _SUB, j))  # eqs. 8.104, 8.115
        w = add(wp, wr)
        a = add(add(ap, mv33(P, ld3(sk, _WDL * _SUB, j))), cross(wp, wr))
        put3(sk, _WREL * _SUB, j, wr)
        put3(sk, _W * _SUB, j, w)
        put3(sk, _A * _SUB, j, a)
        g, v, acc = rigid_point(O, vk, ak, w, a, mv33(Rk, rc))  # mass centre G_k = O_k + R_k r_k
        put3(sk, _G * _SUB, j, g)
        put3(sk, _GV * _SUB, j, v)
        put3(sk, _GA * _SUB, j, acc)
        put3(sk, _F * _SUB, j, scale(acc, -m))  # eq. 10.1
        bw = tmv33(Rk, w)  # eq. 10.2 in body components: w = R^T omega, a = R^T alpha
        t0, t1, t2 = mv33(Rk, add(mv33(J, tmv33(Rk, a)), cross(bw, mv33(J, bw))))
        put3(sk, _T * _SUB, j, (-t0, -t1, -t2))
        put3(ssum, 0, j, add(ld3(ssum, 0, j), scale(g, m)))
        put3(ssum, 3 * _SUB, j, add(ld3(ssum, 3 * _SUB, j), scale(v, m)))
        put3(ssum, 6 * _SUB, j, add(ld3(ssum, 6 * _SUB, j), scale(acc, m)))


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
        What the angular columns of ``qd`` and ``qdd`` hold (above).
    parents : (n,) int64
        The parent of body k (0-based, -1 = ground: the core's convention,
        ``BodyModel.core.parents``), ``parents[k] < k``.
    seq : (n, 3) int64
        Axes (0 = x, 1 = y, 2 = z) of each body's rotation sequence.
    xi : (n, 3)
        Joint offsets in the parent frame (m); row 0 (the root's) is not read.
    rcom : (n, 3)
        Mass-centre offsets in the body frame (m).
    mass : (n,)
        Body masses (kg).
    inertia : (n, 3, 3)
        Inertias about the mass centres, body components (kg m^2).
    R : (F, n, 3, 3)
        Written: absolute orientations ``R_k``.
    omega_rel, omega, alpha : (F, n, 3)
        Written: relative and absolute angular velocities (rad/s), angular accelerations (rad/s^2).
    joint, com, com_vel, com_acc : (F, n, 3)
        Written: joint points O_k and mass centres G_k (m), and the mass centres' velocities (m/s) and
        accelerations (m/s^2).
    force, torque : (F, n, 3)
        Written: inertia forces (N) and torques (N m).
    body_com, body_vel, body_acc : (F, 3)
        Written: the whole body's mass centre (m), its velocity (m/s) and acceleration (m/s^2).
    block : int
        Frames per block.  Threads take blocks of frames
        (:func:`block_kinematics`); a block runs the recursion over runs of
        ``_SUB`` frames side by side (structure of arrays, one vector lane
        per frame): each frame sees the same operations in the same order.
    """
    F, n = q.shape[0], parents.shape[0]
    total = 0.0
    for k in range(n):
        total += mass[k]
    block = max(1, block)
    for blk in nb.prange((F + block - 1) // block):
        block_kinematics(np.int64(blk), block, total, q, qd, qdd, local_rates, parents, seq, xi, rcom, mass, inertia,
                         R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
                         body_com, body_vel, body_acc, F >= _STREAM_MIN_FRAMES)


@nb.njit(cache=_CACHE, fastmath={"contract"}, error_model="numpy")  # numpy's, as numba's parallel loop bodies
def block_kinematics(
    blk, block, total, q, qd, qdd, local_rates,
    parents, seq, xi, rcom, mass, inertia,
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
    body_com, body_vel, body_acc, stream,
):
    """Block ``blk`` of :func:`tree_kinematics` (``block`` frames; ``total`` the body's mass, kg).

    A function of its own, called from the parallel loop with an int64 block
    index (the loop's own index is typed otherwise, which would compile it a
    second time), not inlined into it: numba compiles the recursion once as
    serial code and its parallel passes see one call.  The block runs in
    runs of ``_SUB`` frames: their inputs (:func:`block_rows`), then body by
    body, root to tips, :func:`body_sequence`, :func:`body_rates` and :func:`body_motion` over
    the run's frames side by side, then :func:`store_rows`.

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
    stream : bool
        Write the per-body outputs with non-temporal stores (:func:`store_rows`): for callers that do not read
        them again right away.
    """
    n, ncol = parents.shape[0], q.shape[1]
    m = ncol * _SUB
    f0, f1 = blk * block, min(q.shape[0], (blk + 1) * block)
    inp = np.empty(5 * ncol * _SUB)
    st = np.empty((n + 3) * _SLAB)
    pal, smat = np.empty(11 * _SUB), np.empty(9 * _SUB)
    pal[:_SUB] = 0.0
    pal[_SUB:2 * _SUB] = 1.0
    ground, root, osum = n * _SLAB, (n + 1) * _SLAB, (n + 2) * _SLAB
    st[ground:] = 0.0
    for i in (0, 4, 8):  # R = identity for ground and the root's parent
        st[ground + i * _SUB:ground + (i + 1) * _SUB] = 1.0
        st[root + i * _SUB:root + (i + 1) * _SUB] = 1.0
    for s0 in range(f0, f1, _SUB):
        block_rows(q, qd, qdd, s0, min(_SUB, f1 - s0), inp)
        for i in range(3 * _SUB):  # the root's origin, its velocity and acceleration; the sums start at 0
            st[root + _O * _SUB + i] = inp[i]
            st[root + _VO * _SUB + i] = inp[ncol * _SUB + i]
            st[root + _AO * _SUB + i] = inp[2 * ncol * _SUB + i]
        st[osum:osum + 9 * _SUB] = 0.0
        for k in range(n):
            p = parents[k]
            op = p * _SLAB if p >= 0 else (root if k == 0 else ground)
            sk = st[k * _SLAB:(k + 1) * _SLAB]
            c = (3 + 3 * k) * _SUB
            i0, i1, i2 = seq[k, 0], seq[k, 1], seq[k, 2]
            body_sequence(inp[3 * m + c:3 * m + c + 3 * _SUB], inp[4 * m + c:4 * m + c + 3 * _SUB], i0, i1, i2,
                          pal, smat)
            body_rates(smat, pal, inp[m + c:m + c + 3 * _SUB], inp[2 * m + c:2 * m + c + 3 * _SUB], i0, i1, i2,
                       local_rates, sk)
            x = (0.0, 0.0, 0.0) if k == 0 else (xi[k, 0], xi[k, 1], xi[k, 2])
            J = (inertia[k, 0, 0], inertia[k, 0, 1], inertia[k, 0, 2], inertia[k, 1, 0], inertia[k, 1, 1],
                 inertia[k, 1, 2], inertia[k, 2, 0], inertia[k, 2, 1], inertia[k, 2, 2])
            body_motion(sk, st[op:op + _SLAB], st[osum:osum + 9 * _SUB], x, (rcom[k, 0], rcom[k, 1], rcom[k, 2]),
                        mass[k], J)
        store_rows(st, s0, min(_SUB, f1 - s0), n, total, R, omega_rel, omega, alpha, joint, com, com_vel,
                   com_acc, force, torque, body_com, body_vel, body_acc, stream)


@intrinsic
def _stream(typingctx, arr, idx, val):
    """``arr[idx] = val`` (1-D float64, 0 <= idx < len) as a non-temporal store: the line goes to memory without
    being read into the cache first (write-combining), as ``ndarray.fill`` writes large arrays.  Other threads
    see the values once the parallel loop has joined (its locked instructions order these stores on x86)."""
    sig = types.void(arr, types.int64, types.float64)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        store = builder.store(args[2], ptr)
        store.set_metadata("nontemporal", builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)]))
        return context.get_dummy_value()

    return sig, codegen


@nb.njit(cache=_CACHE, inline="always")
def put(flat, i, v, stream):
    """``flat[i] = v``, non-temporal when ``stream`` (:func:`_stream`).

    Parameters
    ----------
    flat : numpy.ndarray
        (m,) float64, written.
    i : int
        0 <= i < m.
    v : float
        The value written.
    stream : bool
        Bypass the cache (for outputs read again only much later).
    """
    if stream:
        _stream(flat, i, v)
    else:
        flat[i] = v


@nb.njit(cache=_CACHE)
def store_rows(st, f0, nb_, n, total, R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
               body_com, body_vel, body_acc, stream):
    """Copy a run's results from the block scratch (structure of arrays) into the outputs' rows ``f0 : f0 + nb_``.

    Frame by frame, so that each output row is written whole, in order.

    Parameters
    ----------
    st : numpy.ndarray
        The block scratch (:func:`block_kinematics`).
    f0, nb_, n : int
        The run's first frame, its frames and the bodies.
    total : float
        The body's mass (kg): the mass-centre sums are divided by it.
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque, body_com, body_vel, body_acc
        :func:`tree_kinematics`'s outputs, rows ``f0 : f0 + nb_`` written.
    stream : bool
        Write with non-temporal stores (:func:`put`).
    """
    flat = R.reshape(-1)
    for j in range(nb_):
        row = (f0 + j) * 9 * n
        for k in range(n):
            for c in range(9):
                put(flat, row + 9 * k + c, st[k * _SLAB + c * _SUB + j], stream)
    vectors = (omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque)
    for v in range(9):  # omega_rel ... torque: components _WREL + 3 v
        flat = vectors[v].reshape(-1)
        for j in range(nb_):
            row = (f0 + j) * 3 * n
            for k in range(n):
                for i in range(3):
                    put(flat, row + 3 * k + i, st[k * _SLAB + (_WREL + 3 * v + i) * _SUB + j], stream)
    sums = st[(n + 2) * _SLAB:(n + 2) * _SLAB + 9 * _SUB]
    for j in range(nb_):
        f = f0 + j
        for i in range(3):
            body_com[f, i] = sums[i * _SUB + j] / total
            body_vel[f, i] = sums[(3 + i) * _SUB + j] / total
            body_acc[f, i] = sums[(6 + i) * _SUB + j] / total


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
    q, qd, qdd : (F, n, 4) float64
        Euler parameters (eps1, eps2, eps3, eps4) of each body and their first and second
        time derivatives (1/s, 1/s^2).
    w, wd : (F, first + 3n) float64
        Written from column ``first`` on: hat omega (rad/s) and its rate (rad/s^2), parent components.
    first : int
        The first column written (3 after the root's position columns).
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
    angles : (F, n, 3) float64
        Each body's angles alpha, beta, gamma (rad).
    seq : (n, 3) int64
        Axes of each body's sequence (0 = x, 1 = y, 2 = z).
    out : (F, n, 4) float64
        Written: eps1, eps2, eps3, eps4.
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
