"""Functional joint centre: the point fixed in two segments that best fits their relative motion.

SCoRE, the symmetrical centre of rotation estimation (Ehrig R.M., Taylor
W.R., Duda G.N., Heller M.O. (2006) A survey of formal methods for
determining the centre of rotation of ball joints. J Biomech 39:2798-2809).
Given the poses of a proximal segment (``R_p``, ``d_p``) and a distal one
(``R_t``, ``d_t``) over frames, the joint centre is a point ``c_p`` fixed in
the proximal frame and ``c_t`` fixed in the distal frame that coincide in
ground at every frame::

    R_p(f) c_p + d_p(f) = R_t(f) c_t + d_t(f)

solved in least squares over the frames as the linear system
``[R_p, -R_t] [c_p; c_t] = d_t - d_p`` (3 F equations, 6 unknowns).  The
centre in ground at each frame is the mean of the two images.

The system is well posed only when the joint turns about more than one axis:
for motion about a single fixed axis every point of that axis fits, and the
component along the axis is undetermined.  :func:`score_centre` reports the
smallest singular value of the (centred) system, so a caller can refuse a
trial whose range of motion does not determine the centre.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
from scipy.spatial.transform import Rotation

from ..errors import InputError
from .joint_centres import pelvis_frame
from .markerset import load_markerset, match_markers
from .rigid import fit_rigid

__all__ = [
    "MIN_SECOND_RANGE_DEG",
    "FunctionalCentre",
    "functional_hip_centre",
    "functional_hips",
    "rotation_spread",
    "score_centre",
    "with_hip_centres",
]

#: Least RMS rotation (deg) about the second principal direction of the hip's relative motion for
#: :func:`functional_hip_centre`: walking gives 3-4 deg, which leaves the centre 2-3 cm off laterally
#: with 5 mm of marker error (tests/markers/test_functional_joint.py); a simulated calibration trial turning
#: +-34 deg in ab/adduction, +-20 in flexion and +-17 in rotation gives 14 deg.
MIN_SECOND_RANGE_DEG = 10.0


@dataclass(frozen=True)
class FunctionalCentre:
    """Result of :func:`score_centre`.

    Attributes
    ----------
    proximal, distal : ndarray, shape (3,)
        The centre in the proximal and in the distal segment frame (m).
    ground : ndarray, shape (F, 3)
        Its ground position per frame: the mean of the two images (m).
    rms : float
        RMS distance between the two images over the frames used (m).
    conditioning : float
        Smallest singular value of the centred system divided by
        ``sqrt(frames)`` (dimensionless, 0 to sqrt(2)); near 0 when the
        motion is about a single axis (the centre then undetermined along it).
    frames : int
        Frames used (both poses finite).
    """

    proximal: np.ndarray
    distal: np.ndarray
    ground: np.ndarray
    rms: float
    conditioning: float
    frames: int


def score_centre(R_p, d_p, R_t, d_t) -> FunctionalCentre:
    """SCoRE joint centre of two tracked segments (Ehrig et al. 2006).

    Parameters
    ----------
    R_p, R_t : array_like, shape (F, 3, 3)
        Rotation of the proximal and distal segment frames in ground
        (columns: the frame's unit axes); NaN frames are skipped.
    d_p, d_t : array_like, shape (F, 3)
        Origins of those frames in ground (m).

    Returns
    -------
    FunctionalCentre
        The centre in each segment's frame and in ground (m), its RMS misfit and the system's conditioning.

    Raises
    ------
    ValueError
        Fewer than two usable frames.

    Notes
    -----
    The unknowns ``x = [c_p; c_t]`` minimise
    ``sum_f |R_p(f) c_p - R_t(f) c_t - (d_t(f) - d_p(f))|^2``.  The system is
    centred on its frame means before the singular values are taken, which
    leaves the solution unchanged and makes ``conditioning`` measure the
    rotation range rather than the distance from the origins.
    """
    R_p, R_t = (np.asarray(a, dtype=float) for a in (R_p, R_t))
    d_p, d_t = (np.asarray(a, dtype=float) for a in (d_p, d_t))
    ok = (np.isfinite(R_p).all(axis=(1, 2)) & np.isfinite(R_t).all(axis=(1, 2))
          & np.isfinite(d_p).all(axis=1) & np.isfinite(d_t).all(axis=1))
    n = int(ok.sum())
    if n < 2:
        raise ValueError(f"a functional joint centre needs at least two frames with both segments tracked, got {n}")
    A = np.concatenate([R_p[ok], -R_t[ok]], axis=2)  # (n, 3, 6)
    b = d_t[ok] - d_p[ok]  # (n, 3)
    A_bar = A - A.mean(axis=0)  # centred: its singular values measure the rotation range
    x, *_ = np.linalg.lstsq(A.reshape(3 * n, 6), b.reshape(3 * n), rcond=None)
    sv = np.linalg.svd(A_bar.reshape(3 * n, 6), compute_uv=False)
    c_p, c_t = x[:3], x[3:]
    gp = np.einsum("fij,j->fi", R_p, c_p) + d_p
    gt = np.einsum("fij,j->fi", R_t, c_t) + d_t
    gap = np.linalg.norm(gp[ok] - gt[ok], axis=1)
    return FunctionalCentre(proximal=c_p, distal=c_t, ground=0.5 * (gp + gt),
                            rms=float(np.sqrt(np.mean(gap ** 2))),
                            conditioning=float(sv[-1] / np.sqrt(n)), frames=n)


def rotation_spread(R_p, R_t) -> np.ndarray:
    """RMS relative rotation about its three principal directions (deg), largest first.

    The rotation vectors of ``R_p^T R_t`` relative to their mean rotation,
    their principal RMS amplitudes (singular values / sqrt(frames)); NaN
    frames skipped.  A joint turned about one axis has one large value; a
    functional centre needs the second one large too.

    Parameters
    ----------
    R_p, R_t : ndarray, shape (F, 3, 3)
        The proximal and the distal segment's orientations.

    Returns
    -------
    ndarray, shape (3,), deg
        The three RMS amplitudes, largest first.
    """
    R_p, R_t = np.asarray(R_p, dtype=float), np.asarray(R_t, dtype=float)
    ok = np.isfinite(R_p).all(axis=(1, 2)) & np.isfinite(R_t).all(axis=(1, 2))
    rel = Rotation.from_matrix(np.matmul(R_p[ok].transpose(0, 2, 1), R_t[ok]))
    v = (rel.mean().inv() * rel).as_rotvec()
    return np.degrees(np.linalg.svd(v - v.mean(axis=0), compute_uv=False) / np.sqrt(len(v)))


def functional_hip_centre(markers, side: str, thigh, asis=("R.ASIS", "L.ASIS"), sacrum="V.Sacral",
                          min_second_range_deg: float = MIN_SECOND_RANGE_DEG):
    """SCoRE hip centre of one side from a marker trial, in the pelvis frame of its ASIS and sacral markers.

    The pelvis pose is the frame of :func:`humanbody.markers.joint_centres.pelvis_frame`
    (origin mid-ASIS, x forward, y left, z up), the thigh's the rigid fit of
    its cluster (``thigh``, three or more marker names) to its first complete
    frame; :func:`score_centre` of the two.  The offset returned is the one a
    marker-set hip point ``from = "mid_asis"``, ``offset = [...]``,
    ``frame = "lower_torso"`` takes (docs/markersets.md).

    Parameters
    ----------
    markers : DataFrame
        Marker trial (``<name>_x/_y/_z`` columns, m), e.g. from
        :func:`humanbody.io.trc.read_trc`.
    side : {"right", "left"}
        The hip's side.
    thigh : sequence of str
        The thigh's cluster: three or more marker names.
    asis : (str, str)
        The right and left ASIS marker names.
    sacrum : str
        The sacral marker's name (or a mid-PSIS column).
    min_second_range_deg : float
        Least RMS rotation about the second principal direction of the
        hip's motion (:func:`rotation_spread`).

    Returns
    -------
    offset : ndarray (3,)
        Hip centre from mid-ASIS in the pelvis frame (m).
    centre : FunctionalCentre
        The centre in each segment's frame and in ground (m), its RMS misfit and the system's conditioning.
    spread : ndarray (3,)
        :func:`rotation_spread` (deg).

    Raises
    ------
    InputError
        A marker missing, or the hip not turned enough in a second plane.
    """
    def xyz(name):
        cols = [f"{name}_{a}" for a in "xyz"]
        if not all(c in markers.columns for c in cols):
            raise InputError(f"functional hip centre: marker {name!r} not in the trial")
        return markers[cols].to_numpy(dtype=float)

    R, o, _, _ = pelvis_frame(xyz(asis[0]), xyz(asis[1]), xyz(sacrum))
    q = np.stack([xyz(n) for n in thigh], axis=1)
    full = np.isfinite(q).all(axis=(1, 2))
    if len(thigh) < 3 or not full.any():
        raise InputError(f"functional hip centre: the {side} thigh needs three markers seen together in one frame")
    Rt, ot, *_ = fit_rigid(q[np.argmax(full)], q)
    spread = rotation_spread(R, Rt)
    if spread[1] < min_second_range_deg:
        raise InputError(f"functional hip centre: the {side} hip turns {spread[1]:.1f} deg RMS outside its main "
                         f"plane, less than the {min_second_range_deg:g} deg a functional centre needs; "
                         "use a calibration trial with hip flexion, abduction and circumduction")
    centre = score_centre(R, o, Rt, ot)
    return centre.proximal, centre, spread


def with_hip_centres(markerset, offsets, pelvis: str = "lower_torso"):
    """A copy of ``markerset`` whose hip points are fixed offsets from mid-ASIS in the pelvis frame.

    Parameters
    ----------
    markerset : MarkerSet, str or path
        Any set :func:`humanbody.markers.markerset.load_markerset` accepts;
        it must define ``mid_asis`` and its pelvis segment frame must be that
        of :func:`humanbody.markers.joint_centres.pelvis_frame` (the
        ASIS-and-sacrum sets, e.g. ``gait2392``), which is where
        :func:`functional_hip_centre` expresses its offsets.
    offsets : mapping {"right": (3,), "left": (3,)}
        Hip centres from mid-ASIS (m), x forward, y left, z up.

    Returns
    -------
    MarkerSet
        The same set with each given hip point replaced by the rule
        ``from = "mid_asis"``, ``offset = [...]``, ``frame = pelvis``.
    """
    mset = load_markerset(markerset)
    if "mid_asis" not in mset.points:
        raise InputError(f"marker set {mset.name!r} defines no mid_asis point to place hip centres from")
    points = dict(mset.points)
    for side, off in offsets.items():
        off = np.asarray(off, dtype=float)
        if off.shape != (3,) or not np.isfinite(off).all():
            raise InputError(f"the {side} hip offset must be three finite numbers (m), got {off!r}")
        points[f"{side}_hip"] = ({"from": "mid_asis", "offset": [float(v) for v in off], "frame": pelvis},)
    return replace(mset, points=points, name=f"{mset.name} (functional hips)")


def _marker_or_mean(mset, found, markers, name):
    """Ground positions (F, 3) of a marker, or of a point that is the mean of markers (first rule that fits)."""
    def col(n):
        return markers[[f"{found[n]}_{a}" for a in "xyz"]].to_numpy(dtype=float)

    if name in found:
        return col(name)
    for rule in mset.points.get(name, ()):
        members = rule.get("mean")
        if members and all(m in found for m in members):
            return np.mean([col(m) for m in members], axis=0)
    raise InputError(f"functional hip centre: {name!r} is neither a marker of the hip trial nor a mean of its markers")


def functional_hips(markerset, markers) -> tuple:
    """``markerset`` with SCoRE hip centres from a hip calibration trial, where its range allows.

    For each side, the pelvis markers of the set's hip regression rule
    (``asis``, ``sacrum``) and the thigh's tracking cluster
    (``[segments.<side>_upper_leg] markers``) give :func:`functional_hip_centre`;
    a side whose hip does not turn enough outside its main plane keeps the
    set's regression.

    Parameters
    ----------
    markerset : MarkerSet, str or path
        The marker set (or its built-in name or TOML file).
    markers : DataFrame
        The hip calibration trial (``<name>_x/_y/_z``, m; any lab axes).

    Returns
    -------
    markerset : MarkerSet
        :func:`with_hip_centres` of the functional sides (the set itself when none).
    lines : list of str
        One line per side saying which hip centre it uses and why.
    """
    mset = load_markerset(markerset)
    pelvis = mset.segments.get("lower_torso")
    if (pelvis is None or (pelvis.primary or {}).get("axis") != "y"
            or (pelvis.secondary or {}).get("axis") != "x"):
        raise InputError(f"marker set {mset.name!r}: its pelvis frame is not the ASIS-and-sacrum frame "
                         "(y between the ASIS, x towards mid-ASIS) functional hip centres are expressed in")
    names = markers.attrs.get("markers") or [c[:-2] for c in markers.columns if c.endswith("_x")]
    found = match_markers(mset, names)
    offsets, lines = {}, []
    for side in ("right", "left"):
        rule = next((r for r in mset.points.get(f"{side}_hip", ()) if "asis" in r and "sacrum" in r), None)
        seg = mset.segments.get(f"{side}_upper_leg")
        if rule is None or seg is None or len(seg.markers) < 3:
            raise InputError(f"marker set {mset.name!r}: no ASIS-and-sacrum hip rule or thigh cluster for the "
                             f"{side} hip, so no functional hip centre")
        missing = [m for m in seg.markers if m not in found]
        if missing:
            raise InputError(f"hip trial lacks the {side} thigh marker(s) {', '.join(missing)}")
        cols = {"rasis": _marker_or_mean(mset, found, markers, rule["asis"][0]),
                "lasis": _marker_or_mean(mset, found, markers, rule["asis"][1]),
                "sacrum": np.mean([_marker_or_mean(mset, found, markers, s) for s in rule["sacrum"]], axis=0)}
        trial = {f"{k}_{a}": v[:, i] for k, v in cols.items() for i, a in enumerate("xyz")}
        for m in seg.markers:
            trial.update({f"{m}_{a}": markers[f"{found[m]}_{a}"].to_numpy(dtype=float) for a in "xyz"})
        off, centre, spread = functional_hip_centre(pd.DataFrame(trial), side, list(seg.markers),
                                                    asis=("rasis", "lasis"), sacrum="sacrum", min_second_range_deg=0.0)
        if spread[1] < MIN_SECOND_RANGE_DEG:
            lines.append(f"{side} hip centre: {rule.get('regression', 'marker set')} regression (the hip trial turns "
                         f"it {spread[1]:.1f} deg RMS outside its main plane, less than the {MIN_SECOND_RANGE_DEG:g} deg "
                         "a functional centre needs)")
            continue
        offsets[side] = off
        lines.append(f"{side} hip centre: functional (SCoRE, {centre.frames} frames, {1000 * centre.rms:.1f} mm RMS, "
                     f"{spread[1]:.0f} deg RMS outside the main plane): {1000 * off[0]:.0f}, {1000 * off[1]:.0f}, "
                     f"{1000 * off[2]:.0f} mm from mid-ASIS (forward, left, up)")
    return (with_hip_centres(mset, offsets) if offsets else mset), lines

