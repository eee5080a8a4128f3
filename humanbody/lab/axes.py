"""Lab axes -> ground axes (X forward, Y left, Z up, right-handed).

Capture labs record markers in their own axes (OpenSim TRC files: Y up,
X forward, Z to the subject's right; many Vicon labs: Z up).  The library
works in the ground frame N of docs/conventions.md.  A mapping is a proper
signed permutation matrix M with ``ground = M @ lab``, written as a spec
naming, for ground X, Y, Z in turn, the signed lab axis it equals:
``"x,-z,y"`` means X = lab x, Y = -(lab z), Z = lab y.

:func:`parse_axes` reads a spec, :func:`detect_axes` infers one from the
markers (vertical from the body's extent, forward from progression or from
the stance foot on a treadmill) and :func:`to_ground` rotates a marker
table.  Every :class:`AxesMapping` says how it was decided
(:meth:`AxesMapping.describe`); callers print it, so the choice is never
silent.  docs/conditioning.md states the detection rules.
"""

from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pandas as pd

from .._kernels.marker_layout import permute_axes
from ..errors import InputError
from ..signal.nan import nanmedian
from .layout import plain_layout, table_markers, table_positions, table_rate, with_positions
from .vocabulary import read_name, vocabulary

NAMED_AXES = {
    "opensim": "x,-z,y",   # OpenSim TRC/MOT: X forward, Y up, Z right
    "identity": "x,y,z",
    "ground": "x,y,z",
}
PROGRESSION_M = 0.5      # centroid travel (m) above which the trial counts as overground
STANCE_SPEED_M_S = 0.1   # median stance-foot speed (m/s) below which a treadmill is not recognised

_HEAD = ("head", "temple", "fhd", "bhd", "forehead", "vertex", "tragus", "glabella", "crown")
_FOOT = ("heel", "hee", "toe", "mt1", "mt2", "mt5", "mth", "metatars", "calc", "foot", "midfoot",
         "hallux", "ank", "malleol", "lmal", "mmal")
_TOKEN = re.compile(r"^([+-]?)([xyz])$")


# --------------------------------------------------------------------------- specs
def _spec(M: np.ndarray) -> str:
    """Spec string of a signed permutation matrix (rows = ground X, Y, Z)."""
    out = []
    for row in np.asarray(M):
        k = int(np.argmax(np.abs(row)))
        out.append(("-" if row[k] < 0 else "") + "xyz"[k])
    return ",".join(out)


def _check_matrix(M: np.ndarray, text: str) -> np.ndarray:
    M = np.asarray(M, dtype=float)
    if M.shape != (3, 3) or not np.allclose(np.abs(M).sum(axis=0), 1) or not np.allclose(np.abs(M).sum(axis=1), 1) \
            or not np.all(np.isin(M, (-1.0, 0.0, 1.0))):
        raise InputError(f"axes mapping {text!r} is not a signed permutation of the lab axes x, y, z")
    if np.linalg.det(M) < 0:
        raise InputError(f"axes mapping {text!r} is left-handed (a mirror image); "
                         "flip the sign of one axis, e.g. 'x,-z,y' for Y-up labs")
    return M


def parse_axes(spec) -> np.ndarray:
    """Matrix M (3, 3) with ``ground = M @ lab`` from an axes spec.

    Parameters
    ----------
    spec : str, AxesMapping or array (3, 3)
        ``"x,-z,y"``: ground X, Y, Z are, in order, the signed lab axes
        listed; ``"X=x,Y=-z,Z=y"`` names them in any order; ``"opensim"``
        is OpenSim's TRC convention (Y up, X forward, Z right) = ``"x,-z,y"``;
        ``"identity"``/``"ground"`` = ``"x,y,z"``.  Case and spaces are
        ignored in lab axis letters.

    Returns
    -------
    ndarray (3, 3)
        Proper signed permutation matrix (det +1), float64; row i is ground
        axis i in lab components.

    Raises
    ------
    InputError
        Malformed spec, an axis used twice, or a left-handed mapping.
    """
    if isinstance(spec, AxesMapping):
        return spec.matrix.copy()
    if not isinstance(spec, str):
        return _check_matrix(spec, str(spec))
    text = spec.strip()
    key = text.lower()
    if key in NAMED_AXES:
        text = NAMED_AXES[key]
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3:
        raise InputError(f"axes spec {spec!r} must list three signed lab axes like 'x,-z,y' "
                         f"or name one of {', '.join(sorted(NAMED_AXES))}")
    if any("=" in p for p in parts):
        given: dict[str, str] = {}
        for p in parts:
            lhs, eq, rhs = p.partition("=")
            g = lhs.strip().upper()
            if not eq or g not in ("X", "Y", "Z") or g in given:
                raise InputError(f"axes spec {spec!r} must assign each of X, Y, Z once, like 'X=x,Y=-z,Z=y'")
            given[g] = rhs
        tokens = [given[g] for g in "XYZ"]  # three parts, each a different one of X, Y, Z
    else:
        tokens = parts
    M = np.zeros((3, 3))
    for i, tok in enumerate(tokens):
        m = _TOKEN.match(tok.replace(" ", "").lower())
        if not m:
            raise InputError(f"axes spec {spec!r}: {tok!r} is not a lab axis (x, y, z with an optional sign)")
        k = "xyz".index(m.group(2))
        if np.any(M[:, k]):
            raise InputError(f"axes spec {spec!r} uses lab axis {m.group(2)} twice")
        M[i, k] = -1.0 if m.group(1) == "-" else 1.0
    return _check_matrix(M, spec)


@dataclass(frozen=True)
class AxesMapping:
    """A lab -> ground axes mapping and how it was chosen.

    Attributes
    ----------
    matrix : ndarray (3, 3)
        ``ground = matrix @ lab``; proper signed permutation.
    spec : str
        The same as a spec string ("x,-z,y").
    how : str
        How it was decided (the rules used, with the evidence).
    confidence : float
        1 for a given spec; for a detection, in [0, 1], the product of the
        vertical and forward confidences (how dominant the winning axis was).
    """

    matrix: np.ndarray
    spec: str
    how: str
    confidence: float

    @classmethod
    def from_spec(cls, spec, how: str = "given") -> AxesMapping:
        """A mapping given as a spec, with confidence 1.

        Parameters
        ----------
        spec : str or (3, 3) array_like
            A spec (``"x,-z,y"``), a named one (``"opensim"``, ``"identity"``) or a
            signed permutation matrix (:func:`parse_axes`).
        how : str
            How it was decided (printed by :meth:`describe`).

        Returns
        -------
        AxesMapping
            The mapping (ground = matrix @ lab), its spec and how it was chosen (confidence 1).
        """
        M = parse_axes(spec)
        return cls(M, _spec(M), how, 1.0)

    def describe(self) -> str:
        """One line for logs: the mapping, in words, and how it was decided.

        Returns
        -------
        str
            For example ``lab -> ground axes 'x,-z,y': X forward = +lab x, ... (given; confidence 1.00)``.
        """
        words = [f"{g} = {'-' if t.startswith('-') else '+'}lab {t[-1]}"
                 for g, t in zip(("X forward", "Y left", "Z up"), self.spec.split(","), strict=True)]
        return (f"lab -> ground axes {self.spec!r}: {', '.join(words)} "
                f"({self.how}; confidence {self.confidence:.2f})")

    def signed_permutation(self):
        """The mapping as a permutation and signs, when it only permutes and flips axes.

        Returns
        -------
        tuple of (3,) int64 and (3,) float64, or None
            ``(perm, sign)`` with ``ground[i] = sign[i] * lab[perm[i]]`` (every
            mapping a spec describes); None for any other matrix.
        """
        M = self.matrix
        if not (np.all(np.isin(M, (-1.0, 0.0, 1.0))) and np.all(np.count_nonzero(M, axis=1) == 1)):
            return None
        perm = np.array([int(np.flatnonzero(M[i])[0]) for i in range(3)], dtype=np.int64)
        return perm, np.array([M[i, perm[i]] for i in range(3)], dtype=np.float64)

    def apply(self, xyz: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Ground components of lab vectors.

        A mapping that only permutes and flips axes (every mapping a spec
        describes) copies each lab component with its sign, so a missing
        component stays where it is; any other matrix multiplies.

        Parameters
        ----------
        xyz : (..., 3) array_like
            Vectors in lab components (any unit).
        out : (..., 3) ndarray, optional
            Where to write them (may not be ``xyz``).

        Returns
        -------
        (..., 3) ndarray
            ``matrix @ xyz`` for each vector (``out`` when given).
        """
        xyz = np.asarray(xyz)
        M = self.matrix
        if out is None:
            out = np.empty(np.broadcast_shapes(xyz.shape[:-1] + (3,)))
        signed = self.signed_permutation()
        if signed is not None:
            for i, (j, s) in enumerate(zip(*signed, strict=True)):
                np.multiply(xyz[..., j], s, out=out[..., i])
            return out
        np.matmul(xyz, M.T, out=out)
        return out


# --------------------------------------------------------------------------- marker names
def _tokens(name: str) -> list[str]:
    toks = [t for t in re.split(r"[^a-z0-9]+", name.lower()) if t]
    out = list(toks)
    for t in toks:  # "LHEE", "RightToe": the token without its side prefix
        for side in ("left", "right", "l", "r"):
            if t.startswith(side) and len(t) > len(side) + 1:
                out.append(t[len(side):])
    return out


@lru_cache(maxsize=4096)  # a study's trials share their marker names
def _role(name: str) -> str | None:
    """"head", "foot" or None, from the words in a marker name."""
    toks = _tokens(name)
    if any(t.startswith(_HEAD) for t in toks):
        return "head"
    if any(t.startswith(_FOOT) for t in toks):
        return "foot"
    return None


def _side_pairs(names: list[str]) -> list[tuple[int, int]]:
    """(left, right) index pairs of markers whose names differ only by side.

    Recognises a leading or trailing side word: "L.ASIS"/"R.ASIS",
    "LASI"/"RASI", "LeftKnee"/"RightKnee", "knee_l"/"knee_r".
    """
    return list(_name_pairs(tuple(names)))


@lru_cache(maxsize=64)  # by the names: a study's trials share them
def _name_pairs(names: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """:func:`_side_pairs` of a tuple of names."""
    index = {n: i for i, n in enumerate(names)}
    pairs = []
    swaps = {"l": "r", "L": "R", "left": "right", "Left": "Right", "LEFT": "RIGHT"}
    for n, i in index.items():
        for lft, rgt in swaps.items():
            cands = []
            if n.startswith(lft):
                cands.append(rgt + n[len(lft):])
            if n.endswith(lft) and len(n) > len(lft) and not n[-len(lft) - 1].isalnum():
                cands.append(n[: -len(lft)] + rgt)
            for c in cands:
                if c in index and c != n and (i, index[c]) not in pairs:
                    pairs.append((i, index[c]))
    if not pairs:  # prefixed or unusual spellings ("Pat01:R.ASIS"): pair the landmark readings
        groups: dict = {}
        for i, r in enumerate(_readings(names)):
            if r.role is not None and r.side in ("left", "right"):
                groups.setdefault((r.role, r.modifiers), {}).setdefault(r.side, []).append(i)
        for sides in groups.values():
            if len(sides.get("left", ())) == 1 and len(sides.get("right", ())) == 1:
                pairs.append((sides["left"][0], sides["right"][0]))
    return tuple(pairs)


# --------------------------------------------------------------------------- detection
def _centroid(P: np.ndarray) -> np.ndarray:
    """Per-frame mean of the markers seen in every frame (else of all seen markers), (frames, 3)."""
    complete = ~np.isnan(P[..., 0]).any(axis=0)
    Q = P[:, complete] if complete.any() else P
    with _quiet():
        return np.nanmean(Q, axis=1)


def _quiet():
    """Silence numpy's all-NaN-slice RuntimeWarnings inside detection."""
    return warnings.catch_warnings(action="ignore", category=RuntimeWarning)


def _readings(names: Sequence[str]) -> list:
    """Each name's landmark reading (:func:`humanbody.lab.vocabulary.read_name`: role, side, modifiers),
    whatever its spelling (``R.ASIS``, ``Sub01:RASI``, ``r-asis``)."""
    return list(_name_readings(tuple(names)))


@lru_cache(maxsize=64)  # by the names: a study's trials share them
def _name_readings(names: tuple[str, ...]) -> tuple:
    """:func:`_readings` of a tuple of names."""
    return tuple(read_name(n) for n in names)


def _vertical_from_names(P: np.ndarray, names: list[str]):
    """Vertical from the landmarks' heights: the lab axis (and sign) along which the markers' positions
    rank as their landmarks' height bands do (heel and toe low, knee, ASIS, acromion, head high).

    Returns (axis, sign, confidence, reason) or None when fewer than five
    markers are read or no axis correlates at 0.8 or more.
    """
    marks, _ = vocabulary()
    idx, frac = [], []
    for i, r in enumerate(_readings(names)):
        if r.role in marks and r.role != "epicondyle":
            lo, hi = marks[r.role].band
            idx.append(i)
            frac.append(0.5 * (lo + hi))
    if len(idx) < 5 or np.ptp(frac) < 0.3:
        return None
    with _quiet():
        pos = nanmedian(P[:, idx], axis=0)  # (markers, 3)
    ok = np.isfinite(pos).all(axis=1)
    if ok.sum() < 5:
        return None
    f = np.asarray(frac)[ok]
    corr = np.array([np.corrcoef(pos[ok, k], f)[0, 1] if np.ptp(pos[ok, k]) > 0 else 0.0 for k in range(3)])
    k = int(np.nanargmax(np.abs(corr)))
    if not abs(corr[k]) >= 0.8:
        return None
    sign = 1.0 if corr[k] > 0 else -1.0
    return k, sign, float(abs(corr[k])), (
        f"vertical = {'+' if sign > 0 else '-'}{'xyz'[k]}: {int(ok.sum())} named landmarks rank along it as "
        f"their heights on the body (r = {abs(corr[k]):.2f})")


def _anatomical_forward(P: np.ndarray, names: list[str], horiz: list[int]):
    """Horizontal forward vector from the feet (heel -> toe) and the pelvis (sacrum/PSIS -> ASIS), or None."""
    reads = _readings(names)
    with _quiet():
        pos = nanmedian(P, axis=0)  # (markers, 3)

    def mean(roles, side=None):
        sel = [i for i, r in enumerate(reads) if r.role in roles and (side is None or r.side == side)
               and np.isfinite(pos[i]).all()]
        return pos[sel][:, horiz].mean(axis=0) if sel else None

    v = np.zeros(len(horiz))
    parts = []
    for side in ("right", "left"):
        heel, toe = mean(("heel",), side), mean(("toe",), side)
        if heel is not None and toe is not None:
            v += toe - heel
            parts.append(f"{side} heel -> toe")
    front, back = mean(("asis",)), mean(("psis", "sacrum"))
    if front is not None and back is not None:
        d = front - back
        v += d / max(np.linalg.norm(d), 1e-9) * 0.2  # as much weight as a foot
        parts.append("sacrum -> ASIS")
    if not parts or np.linalg.norm(v) < 0.03:
        return None
    return v, ", ".join(parts)


def _vertical(P: np.ndarray, names: list[str]) -> tuple[int, float, float, str]:
    """Lab axis index, sign (+1/-1), confidence and reason for the vertical."""
    with _quiet():
        spread = nanmedian(np.nanmax(P, axis=1) - np.nanmin(P, axis=1), axis=0)
    order = np.argsort(spread)[::-1]
    axis = int(order[0])
    conf = float(1.0 - spread[order[1]] / spread[order[0]])
    how = (f"vertical = lab {'xyz'[axis]}, the body's longest extent "
           f"(median spread {spread[axis]:.2f} m vs {spread[order[1]]:.2f} m)")
    heads = [i for i, n in enumerate(names) if _role(n) == "head"]
    feet = [i for i, n in enumerate(names) if _role(n) == "foot"]
    if heads and feet:
        with _quiet():
            v = nanmedian(np.nanmean(P[:, heads], axis=1) - np.nanmean(P[:, feet], axis=1), axis=0)
        if np.all(np.isfinite(v)) and np.linalg.norm(v) > 0:
            k = int(np.argmax(np.abs(v)))
            conf = float(abs(v[k]) / np.linalg.norm(v))
            if k != axis:
                how = (f"vertical = lab {'xyz'[k]} from head-above-feet markers; it disagrees with the longest "
                       f"extent (lab {'xyz'[axis]})")
                axis, conf = k, 0.5 * conf
            sign = 1.0 if v[axis] > 0 else -1.0
            return axis, sign, conf, (f"{how}; up = {'+' if sign > 0 else '-'}{'xyz'[axis]} because head markers "
                                      f"({names[heads[0]]}, ...) are {abs(v[axis]):.2f} m above foot markers "
                                      f"({names[feet[0]]}, ...)")
    named = _vertical_from_names(P, names)
    if named is not None:
        return named
    z = P[..., axis][~np.isnan(P[..., axis])]
    frac = float(np.mean(z > 0))
    if frac >= 0.95 or frac <= 0.05:
        sign = 1.0 if frac >= 0.95 else -1.0
        return axis, sign, conf * abs(2 * frac - 1), (
            f"{how}; up = {'+' if sign > 0 else '-'}{'xyz'[axis]} from the floor: "
            f"{100 * max(frac, 1 - frac):.0f} % of coordinates lie on that side of the lab origin")
    # Origin not on the floor: the feet are the end of the body that swings about the centroid.
    c = _centroid(P)
    others = [k for k in range(3) if k != axis]
    with _quiet():
        excursion = np.nansum(np.nanstd(P[..., others] - c[:, None, others], axis=0), axis=1)
        height = nanmedian(P[..., axis], axis=0)
    lo, hi = np.nanmin(height), np.nanmax(height)
    bottom = height <= lo + 0.25 * (hi - lo)
    top = height >= hi - 0.25 * (hi - lo)
    e_bot, e_top = float(np.nanmean(excursion[bottom])), float(np.nanmean(excursion[top]))
    if e_bot != e_top and max(e_bot, e_top) > 0:
        sign = 1.0 if e_bot > e_top else -1.0
        r = min(e_bot, e_top) / max(e_bot, e_top)
        return axis, sign, conf * (1 - r), (
            f"{how}; up = {'+' if sign > 0 else '-'}{'xyz'[axis]} because the markers at the "
            f"{'low' if sign > 0 else 'high'} lab end swing {max(e_bot, e_top):.2f} m about the centroid "
            f"(feet) and those at the other end {min(e_bot, e_top):.2f} m")
    return axis, 1.0 if frac >= 0.5 else -1.0, 0.0, f"{how}; up sign guessed from the majority of coordinates"


def _forward(P: np.ndarray, names: list[str], axis: int, up: float, rate: float
             ) -> tuple[int, float, float, str]:
    """Lab axis index, sign and confidence of the direction of progression."""
    horiz = [k for k in range(3) if k != axis]
    c = _centroid(P)
    ok = np.nonzero(~np.isnan(c[:, 0]))[0]
    if len(ok) < 2:
        raise InputError("cannot detect lab axes: no frame has any marker")
    d = c[ok[-1], horiz] - c[ok[0], horiz]
    dist = float(np.linalg.norm(d))
    if dist > PROGRESSION_M:
        k = int(np.argmax(np.abs(d)))
        sign = 1.0 if d[k] > 0 else -1.0
        return horiz[k], sign, float(abs(d[k]) / dist), (
            f"forward = {'+' if sign > 0 else '-'}{'xyz'[horiz[k]]}, the markers' centroid travelled "
            f"{dist:.2f} m (overground)")
    # Treadmill: feet in stance move backwards with the belt.
    feet = [i for i, n in enumerate(names) if _role(n) == "foot"]
    source = "foot markers"
    with _quiet():
        height = up * nanmedian(P[..., axis], axis=0)
    if not feet:
        lo, hi = np.nanmin(height), np.nanmax(height)
        feet = list(np.nonzero(height <= lo + 0.15 * (hi - lo))[0])
        source = "lowest markers"
    vel = []
    for i in feet:
        z = up * P[:, i, axis]
        if np.sum(~np.isnan(z)) < 3:
            continue
        v = np.gradient(P[:, i, horiz], 1.0 / rate, axis=0)
        zmin, zmax = np.nanmin(z), np.nanmax(z)
        stance = z <= zmin + 0.1 * (zmax - zmin) + 0.005
        vel.append(v[stance & ~np.isnan(v[:, 0])])
    stance_v = np.concatenate(vel) if vel else np.empty((0, len(horiz)))
    if len(stance_v):
        vs = np.median(stance_v, axis=0)
        speed = float(np.linalg.norm(vs))
        if speed > STANCE_SPEED_M_S:
            k = int(np.argmax(np.abs(vs)))
            sign = -1.0 if vs[k] > 0 else 1.0
            return horiz[k], sign, float(abs(vs[k]) / speed), (
                f"forward = {'+' if sign > 0 else '-'}{'xyz'[horiz[k]]}, opposite to the stance-phase velocity "
                f"of the {source} ({speed:.2f} m/s; treadmill, centroid travelled only {dist:.2f} m)")
    # Standing still: the feet and the pelvis point forward
    anat = _anatomical_forward(P, names, horiz)
    if anat is not None:
        v, how_v = anat
        k = int(np.argmax(np.abs(v)))
        sign = 1.0 if v[k] > 0 else -1.0
        return horiz[k], sign, 0.8 * float(abs(v[k]) / np.linalg.norm(v)), (
            f"no progression (centroid {dist:.2f} m, stance feet still): forward = {'+' if sign > 0 else '-'}"
            f"{'xyz'[horiz[k]]} from the standing subject's {how_v}")
    # or the left-right marker pairs give Y, and X = Y x Z.
    pairs = _side_pairs(names)
    if pairs:
        left = _left_vector(P, pairs, horiz)
        if left is not None:
            k = int(np.argmax(np.abs(left)))
            y = np.zeros(3)
            y[horiz[k]] = 1.0 if left[k] > 0 else -1.0
            zv = np.zeros(3)
            zv[axis] = up
            x = np.cross(y, zv)
            f = int(np.argmax(np.abs(x)))
            return f, float(np.sign(x[f])), 0.8 * float(abs(left[k]) / np.linalg.norm(left)), (
                f"no progression (centroid {dist:.2f} m, stance feet still): forward = Y x Z with "
                f"Y = {'+' if left[k] > 0 else '-'}{'xyz'[horiz[k]]} from {len(pairs)} left/right marker pairs")
    raise InputError("cannot detect the direction of progression (the markers neither travel nor walk on a "
                     "treadmill and no left/right marker pairs are named); give the lab axes with `axes`, "
                     "e.g. x,-z,y (the lab axes that are forward, left and up)")


def _left_vector(P: np.ndarray, pairs: list[tuple[int, int]], horiz: list[int]) -> np.ndarray | None:
    L = np.array([p[0] for p in pairs])
    R = np.array([p[1] for p in pairs])
    with _quiet():
        v = nanmedian(np.nanmean(P[:, L][..., horiz] - P[:, R][..., horiz], axis=1), axis=0)
    return v if np.all(np.isfinite(v)) and np.linalg.norm(v) > 0 else None


#: Frames :func:`detect_axes` looks at: the first ones of a longer trial
#: (100 s at 100 Hz, 10 s at 1 kHz).
DETECT_FRAMES = 10_000


def _screen_axis(text) -> tuple[int, float] | None:
    """Lab axis index and sign of a C3D screen axis (``"+X"``, ``"-Z"``, ``"Y"``), or None."""
    t = str(text or "").strip().upper()
    sign = -1.0 if t.startswith("-") else 1.0
    t = t.lstrip("+-")
    return ("XYZ".index(t), sign) if t in ("X", "Y", "Z") else None


def _screen_axes(screen, vertical: tuple[int, float] | None) -> tuple[np.ndarray, str] | None:
    """The lab -> ground mapping from a C3D's ``POINT:X_SCREEN``/``Y_SCREEN`` (the lab axes the capture program
    shows rightwards and upwards) for a trial whose motion gives no direction of progression: forward =
    X_SCREEN, up = the vertical the motion gave (``(axis, sign)``), else Y_SCREEN; None when the file names
    no screen axes or X_SCREEN is the vertical."""
    if not screen or len(screen) != 2:
        return None
    xs, ys = _screen_axis(screen[0]), _screen_axis(screen[1])
    if xs is None or ys is None or xs[0] == ys[0]:
        return None
    up = vertical if vertical is not None else ys
    if xs[0] == up[0]:
        return None
    M = np.zeros((3, 3))
    M[0, xs[0]] = xs[1]
    M[2, up[0]] = up[1]
    M[1] = np.cross(M[2], M[0])
    said = (f"up = {'+' if up[1] > 0 else '-'}{'xyz'[up[0]]} from the markers" if vertical is not None
            else f"up = Y_SCREEN {screen[1]}")
    how = (f"the motion gives no direction of progression (no travel, no treadmill, no left/right marker "
           f"pairs): forward = the file's POINT:X_SCREEN {screen[0]}, {said}")
    return M, how


def detect_axes(df: pd.DataFrame) -> AxesMapping:
    """Detect the lab -> ground mapping of a marker trial.

    Rules (docs/conditioning.md has the details):

    1. Vertical axis: the lab axis along which the body extends most (median
       over frames of the per-frame spread of all markers), unless head and
       foot markers are named, in which case their difference decides.  Up
       is where the head markers are; without them, the side of the lab
       origin where >= 95 % of the coordinates lie (labs put the origin on
       the floor); failing that, away from the end of the body whose markers
       swing most about the centroid (the feet).
    2. Forward: the horizontal lab axis of the centroid's travel when it
       exceeds 0.5 m (overground); otherwise opposite to the median
       horizontal velocity of the foot (or lowest) markers while they are
       near their lowest (stance on a treadmill belt); otherwise, for a
       standing subject, X = Y x Z with Y from left/right marker pairs.
    3. Left: Y = Z x X.

    A trial longer than :data:`DETECT_FRAMES` frames is judged on its first
    :data:`DETECT_FRAMES` frames.  Left/right marker pairs, when named, are checked
       against Y and a disagreement lowers the confidence and is reported.

    Parameters
    ----------
    df : DataFrame
        Marker table in lab axes (``<name>_x/_y/_z``, m).

    Returns
    -------
    AxesMapping
        The mapping (ground = matrix @ lab), its spec, how it was decided and its confidence in [0, 1].

    Raises
    ------
    InputError
        Fewer than three markers, or no rule can decide the forward axis.
    """
    names = table_markers(df)
    if len(names) < 3:
        raise InputError("cannot detect lab axes from fewer than 3 markers; give them with `axes`, e.g. x,-z,y",
                         df.attrs.get("source"))
    if len(df) > DETECT_FRAMES:  # a long trial: its beginning decides (medians settle long before)
        df = df.iloc[:DETECT_FRAMES]
    P = table_positions(df, names)
    axis, up = None, 1.0
    try:
        axis, up, c_up, how_up = _vertical(P, names)
        fwd, sign, c_fwd, how_fwd = _forward(P, names, axis, up, table_rate(df))
    except InputError as exc:
        screen = _screen_axes(df.attrs.get("screen_axes"), None if axis is None else (axis, up))
        if screen is not None:
            M, how = screen
            return AxesMapping(_check_matrix(M, _spec(M)), _spec(M), how, 0.5)
        if not df.attrs.get("source"):
            raise
        raise exc.with_path(df.attrs["source"]) from None
    M = np.zeros((3, 3))
    M[0, fwd] = sign
    M[2, axis] = up
    M[1] = np.cross(M[2], M[0])
    conf = c_up * c_fwd
    how = f"detected: {how_up}; {how_fwd}"
    pairs = _side_pairs(names)
    if pairs:
        horiz = [k for k in range(3) if k != axis]
        left = _left_vector(P, pairs, horiz)
        if left is not None:
            along = float(np.dot(M[1, horiz], left))
            if along < 0:
                conf *= 0.25
                how += f"; WARNING: left/right marker pairs point the other way along Y ({along:+.2f} m)"
            else:
                how += f"; left/right marker pairs agree with Y ({along:+.2f} m)"
    return AxesMapping(_check_matrix(M, _spec(M)), _spec(M), how, float(np.clip(conf, 0.0, 1.0)))


def to_ground(df: pd.DataFrame, axes="auto") -> tuple[pd.DataFrame, AxesMapping]:
    """Rotate every marker from lab axes to ground axes.

    Parameters
    ----------
    df : DataFrame
        Marker table in lab axes.
    axes : "auto", str, AxesMapping or array (3, 3)
        "auto" runs :func:`detect_axes`; anything else goes to
        :func:`parse_axes`.

    Returns
    -------
    ground : DataFrame
        Same columns; ``<name>_x/_y/_z`` now ground components
        (``ground = M @ lab``).  attrs kept, plus ``attrs["axes"]`` (spec),
        ``attrs["axes_description"]`` (:meth:`AxesMapping.describe`) and a
        line in ``attrs["conversions"]``.
    mapping : AxesMapping
        Print ``mapping.describe()``: the mapping must be reported.
    """
    if isinstance(axes, str) and axes.strip().lower() == "auto":
        mapping = detect_axes(df)
    else:
        try:
            mapping = axes if isinstance(axes, AxesMapping) else AxesMapping.from_spec(axes)
        except InputError as exc:
            if not df.attrs.get("source"):
                raise
            raise exc.with_path(df.attrs["source"]) from None
    names = table_markers(df)
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if plain_layout(df, cols):  # write the ground table in one pass
        values = df.to_numpy(copy=False)
        table = np.empty(values.shape)
        signed = mapping.signed_permutation()
        if signed is not None and values.dtype == np.float64:
            permute_axes(values, 1, signed[0], signed[1], table)  # markers/_kernels.py
        else:
            table[:, 0] = values[:, 0]
            mapping.apply(values[:, 1:].reshape(len(df), len(names), 3),
                          out=table[:, 1:].reshape(len(df), len(names), 3))
        out = pd.DataFrame(table, columns=df.columns, index=df.index, copy=False)
    else:
        lab = df[cols].to_numpy(dtype=float).reshape(len(df), len(names), 3)
        out = with_positions(df, names, mapping.apply(lab))
    out.attrs = copy.deepcopy(df.attrs)
    out.attrs["axes"] = mapping.spec
    out.attrs["axes_description"] = mapping.describe()
    out.attrs["conversions"] = list(out.attrs.get("conversions", [])) + [mapping.describe()]
    return out, mapping
