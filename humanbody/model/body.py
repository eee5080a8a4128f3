"""The body model: a tree of rigid segments and its constant properties.

A :class:`BodyModel` holds what never changes during a motion (Pinocchio's
``Model``): the parent array, joint offsets xi_k, mass-centre offsets r_k,
masses and inertia dyadics.  It is immutable; every array is read-only.
Any tree given as a parent array with ``parent[k] < k`` works; Huston's
17-segment body is the default instance (:meth:`BodyModel.default`).
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..atomic import atomic_write_text
from ..errors import InputError
from ..rotations.common import check_sequence as _check_seq
from ..rotations.common import sequence_axes
from .anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS, default_parameters
from .conventions import CONVENTION_KEYS, Conventions
from .segments import segment_index

if TYPE_CHECKING:
    from ..core.model import Model

__all__ = ["BodyModel", "coordinate_columns", "default_model", "load_model", "lower_body_array", "sequence_axes_array"]


def lower_body_array(parents: ArrayLike, p: int) -> np.ndarray:
    """Higher-order lower body array L^p (Huston Table 8.1).

    Parameters
    ----------
    parents : array_like of int, shape (n,)
        ``parents[k-1] = L(k)``, 0 for a body whose parent is ground.
    p : int
        Order, p >= 0.  ``L^0(k) = k``, ``L^p(k) = L(L^(p-1)(k))``, ``L(0) = 0``.

    Returns
    -------
    ndarray of int64, shape (n,)
        Entry k-1 holds L^p(k).
    """
    if p < 0:
        raise ValueError("order p of a lower body array must be >= 0")
    par = np.concatenate(([0], np.asarray(parents, dtype=np.int64)))  # L(0) = 0
    out = np.arange(1, len(par), dtype=np.int64)
    for _ in range(p):
        out = par[out]
    return out


def _as_array(value, shape, what: str, dtype=float) -> np.ndarray:
    arr = np.array(value, dtype=dtype, copy=True)
    if arr.shape != shape:
        raise InputError(f"{what} must have shape {shape}, got {arr.shape}")
    if dtype is float and not np.all(np.isfinite(arr)):
        raise InputError(f"{what} contains a non-finite value")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class BodyModel:
    """A tree of rigid bodies with constant inertial and geometric properties.

    Attributes
    ----------
    names : tuple of str, length n
        Segment names; body k is ``names[k-1]``.
    parents : ndarray of int64, shape (n,)
        Lower body array: ``parents[k-1] = L(k) < k`` (0 = ground).
    joint_offset : ndarray, shape (n, 3), m
        xi_k: joint point O_k relative to the parent's origin O_L(k), in
        parent-frame components (zero for bodies attached to ground).
    com_offset : ndarray, shape (n, 3), m
        r_k: mass centre G_k relative to O_k, body-frame components.
    mass : ndarray, shape (n,), kg
        Segment masses m_k.
    inertia : ndarray, shape (n, 3, 3), kg m^2
        Inertia dyadic about G_k in body-frame components.
    gravity : ndarray, shape (3,), m/s^2
        Gravitational acceleration in ground axes (default ``(0, 0, -9.81)``).
    name : str
        The model's name (kept in the model file).
    meta : dict
        Extra model-level information (sources, subject mass and height, the calibration);
        kept through save/load.
    segment_meta : tuple of dict
        Extra per-segment keys (segment length, source); kept through save/load.
    sequences : tuple of str, length n
        Rotation sequence of each body relative to its parent (one of
        :data:`humanbody.rotations.SEQUENCES`, body-fixed axes in the order of
        the angles alpha, beta, gamma).  Empty means ``"xyz"`` (Bryant angles)
        for every body.
    conventions : Conventions
        How the clinical angles and moments are expressed and the rates and
        loads taken (:class:`humanbody.model.conventions.Conventions`: a marker
        set's, ``--moment-frame``); kept through save/load as top-level keys.
    residual_reduction : dict or None
        The record of the residual reduction that made this model
        (:func:`humanbody.analysis.reduce`, docs/kinetics.md); None: not reduced.
    """

    names: tuple
    parents: np.ndarray
    joint_offset: np.ndarray
    com_offset: np.ndarray
    mass: np.ndarray
    inertia: np.ndarray
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    name: str = "model"
    meta: Mapping[str, Any] = field(default_factory=dict)
    segment_meta: tuple = ()
    sequences: tuple = ()
    conventions: Conventions = field(default_factory=Conventions)
    residual_reduction: Mapping[str, Any] | None = None

    #: meta keys written after the conventions in model.json: the findings of the analysis that wrote it
    #: (:mod:`humanbody.checks.outputs`, :mod:`humanbody.checks.edges`)
    FINDINGS = ("warnings", "edges")

    def __post_init__(self):
        names = tuple(str(n) for n in self.names)
        n = len(names)
        if n == 0:
            raise InputError("a body model needs at least one segment")
        if len(set(names)) != n:
            raise InputError("segment names must be unique")
        parents = _as_array(self.parents, (n,), "parents", dtype=np.int64)
        bad = [k for k in range(1, n + 1) if not 0 <= parents[k - 1] < k]
        if bad:
            raise InputError(
                f"parent array must satisfy 0 <= L(k) < k; violated for body {bad[0]}"
            )
        set_ = object.__setattr__
        set_(self, "names", names)
        set_(self, "parents", parents)
        set_(self, "joint_offset", _as_array(self.joint_offset, (n, 3), "joint offsets"))
        set_(self, "com_offset", _as_array(self.com_offset, (n, 3), "mass-centre offsets"))
        set_(self, "mass", _as_array(self.mass, (n,), "masses"))
        inertia = _as_array(self.inertia, (n, 3, 3), "inertia")
        set_(self, "inertia", inertia)
        set_(self, "gravity", _as_array(self.gravity, (3,), "gravity"))
        set_(self, "meta", dict(self.meta))
        typed = [k for k in (*CONVENTION_KEYS, "residual_reduction") if k in self.meta]
        if typed:
            raise TypeError(f"meta key {typed[0]!r} is a typed field of the model: give it in `conventions` "
                            "(or `residual_reduction`)")
        if not isinstance(self.conventions, Conventions):
            raise TypeError(f"conventions must be a Conventions, not {type(self.conventions).__name__}")
        seg_meta = tuple(dict(m) for m in self.segment_meta) or tuple({} for _ in names)
        if len(seg_meta) != n:
            raise InputError("segment_meta must have one entry per segment")
        set_(self, "segment_meta", seg_meta)
        seqs = tuple(self.sequences) or ("xyz",) * n
        if len(seqs) != n:
            raise InputError(f"sequences must have one entry per segment ({n}), got {len(seqs)}")

        checked = []
        for k, seq in enumerate(seqs):
            try:
                checked.append(_check_seq(seq))
            except InputError as err:
                raise InputError(f"segment {names[k]!r}: {err}") from None
        set_(self, "sequences", tuple(checked))
        if np.any(self.mass <= 0):
            k = int(np.argmax(self.mass <= 0))
            raise InputError(f"segment {names[k]!r} has a non-positive mass")
        for k in range(n):
            problem = _inertia_problem(inertia[k])
            if problem:
                raise InputError(f"inertia of segment {names[k]!r} {problem}")

    # ------------------------------------------------------------------ tree
    @property
    def n_bodies(self) -> int:
        """Number of bodies n (ground not counted)."""
        return len(self.names)

    @cached_property
    def core(self) -> Model:
        """The model as the core runs it (:class:`humanbody.core.Model`), built once on first use and kept.

        Body k is the core's body ``k - 1`` and its parent ``core.parents[k - 1] = L(k) - 1`` (-1 = ground:
        the one parent convention of :mod:`humanbody.core` and its kernels); the root has a ``Free`` joint,
        every other body a ``Cardan`` joint of its sequence at xi_k (:func:`humanbody.core.from_body_model`).
        The coordinates are :func:`coordinate_columns`, in that order.  Built on first use, so reading or
        writing a model file does not load the core's compiled kernels; pickled with the model once built.
        """
        from ..core.huston import from_body_model  # lazy: the core loads numba, not wanted for reading a model file

        return from_body_model(self)

    @property
    def total_mass(self) -> float:
        """Sum of the segment masses M (kg)."""
        return float(self.mass.sum())

    def segment(self, name: str) -> int:
        """Array index (0-based, k - 1) of the segment called ``name``: its row in ``joint_offset``, ``mass`` ...

        The same lookup as :meth:`humanbody.Results.segment`; KeyError for an
        unknown name.

        Parameters
        ----------
        name : str
            A segment name of :attr:`names`.

        Returns
        -------
        int
            Its row in the per-segment arrays, 0-based.
        """
        return segment_index(self.names, name)

    def index(self, name: str) -> int:
        """Body number k (1-based, Huston's numbering) of the segment called ``name``: ``segment(name) + 1``.

        Parameters
        ----------
        name : str
            A segment name of :attr:`names`.

        Returns
        -------
        int
            Its body number k, 1-based.
        """
        return self.segment(name) + 1

    def lower_body_array(self, p: int) -> np.ndarray:
        """L^p(k) for all bodies, shape (n,) (Huston Table 8.1).

        Parameters
        ----------
        p : int
            The power (0: the bodies themselves).

        Returns
        -------
        ndarray of int64, shape (n,)
            1-based body numbers, 0 once the chain has reached ground.
        """
        return lower_body_array(self.parents, p)

    def lower_body_table(self) -> np.ndarray:
        """Rows L^1 ... L^r of the lower body arrays until a row is all zero.

        Returns an int64 array of shape (r, n); the last row is all zero,
        as in Table 8.1 (rows L .. L^6 for the 17-segment model).

        Returns
        -------
        ndarray of int64, shape (r, n)
            L^1 ... L^r: row i holds each body's ancestor i generations up (0 = ground, 1-based bodies).
        """
        rows = []
        p = 1
        while True:
            row = self.lower_body_array(p)
            rows.append(row)
            if not row.any():
                return np.array(rows)
            p += 1

    def chain(self, k: int) -> list[int]:
        """Bodies k, L(k), L^2(k), ... down to the body attached to ground.

        These are the indices q = L^p(k), p = 0..r, of the addition theorem
        for angular velocity (Huston eq. 8.104).

        Parameters
        ----------
        k : int
            Body number, 1-based (Huston's numbering).

        Returns
        -------
        list of int
            1-based body numbers, k first.

        Raises
        ------
        IndexError
            When k is not in 1..n.
        """
        if not 1 <= k <= self.n_bodies:
            raise IndexError(f"body {k} is not in 1..{self.n_bodies}")
        out = []
        while k:
            out.append(k)
            k = int(self.parents[k - 1])
        return out

    def children(self, k: int) -> list[int]:
        """Bodies whose parent is k (k = 0 for ground).

        Parameters
        ----------
        k : int
            Body number, 1-based; 0 for ground.

        Returns
        -------
        list of int
            1-based body numbers, in order.
        """
        return [j + 1 for j, p in enumerate(self.parents) if p == k]

    def reordered(self, order: Sequence[int]) -> BodyModel:
        """The same tree with bodies renumbered.

        Parameters
        ----------
        order : sequence of int
            ``order[i]`` is the old number of the body that becomes body
            i + 1.  It must keep every parent before its children.

        Returns
        -------
        BodyModel
            The renumbered model (same bodies, parents remapped).
        """
        order = [int(o) for o in order]
        if sorted(order) != list(range(1, self.n_bodies + 1)):
            raise ValueError("order must be a permutation of 1..n")
        new_of_old = {old: new + 1 for new, old in enumerate(order)}
        new_of_old[0] = 0
        idx = np.array(order) - 1
        parents = [new_of_old[int(self.parents[o - 1])] for o in order]
        fields: dict[str, Any] = dict(  # array-likes, converted and checked by __post_init__
            names=[self.names[i] for i in idx],
            parents=parents,
            joint_offset=self.joint_offset[idx],
            com_offset=self.com_offset[idx],
            mass=self.mass[idx],
            inertia=self.inertia[idx],
            gravity=self.gravity,
            name=self.name,
            meta=self.meta,
            segment_meta=[self.segment_meta[i] for i in idx],
            sequences=[self.sequences[i] for i in idx],
            conventions=self.conventions,
            residual_reduction=self.residual_reduction,
        )
        return BodyModel(**fields)

    def replace(self, **changes) -> BodyModel:
        """A copy of the model with the given attributes changed (validated again).

        Parameters
        ----------
        **changes
            Field name -> new value.

        Returns
        -------
        BodyModel
            A new model with the changes; ``self`` is unchanged.
        """
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------- builders
    @classmethod
    def default(cls, mass: float = DEFAULT_MASS, height: float = DEFAULT_HEIGHT, **options) -> BodyModel:
        """Huston's 17-segment body scaled to a subject.

        Parameters
        ----------
        mass : float
            Body mass (kg).
        height : float
            Standing height (m).
        **options
            Passed to :func:`default_model` (for
            example ``sex="male"`` or ``"female"``).

        Returns
        -------
        BodyModel
            Segment masses, mass-centre locations and principal radii of
            gyration from published anthropometric tables scaled to the
            subject (:mod:`humanbody.model.anthropometry` names the sources).
        """
        return default_model(mass=mass, height=height, **options)

    # -------------------------------------------------------------- file io
    def to_dict(self) -> dict:
        """The model as the JSON layout of docs/conventions.md (SI units).

        Returns
        -------
        dict
            Plain JSON types: names, parents, sequences, offsets (m), masses (kg), inertias (kg m^2), gravity, conventions, meta.
        """
        segments = []
        for k in range(self.n_bodies):
            seg = dict(self.segment_meta[k])
            seg.update(
                index=k + 1,
                name=self.names[k],
                parent=int(self.parents[k]),
                joint=self.joint_offset[k].tolist(),  # the file keys of docs/conventions.md
                com=self.com_offset[k].tolist(),
                mass=float(self.mass[k]),
                inertia=self.inertia[k].tolist(),
                sequence=self.sequences[k],
            )
            segments.append(seg)
        out = {"name": self.name, "gravity": self.gravity.tolist()}
        out.update({k: v for k, v in self.meta.items() if k not in out and k not in self.FINDINGS})
        out.update(self.conventions.to_dict())
        if self.residual_reduction is not None:
            out["residual_reduction"] = self.residual_reduction
        out.update({k: self.meta[k] for k in self.FINDINGS if k in self.meta})
        out["segments"] = segments
        return out

    @classmethod
    def from_dict(cls, data: Mapping, source: str | None = None) -> BodyModel:
        """Build a model from the JSON layout; ``source`` names the file in errors.

        Parameters
        ----------
        data : Mapping
            The parsed JSON.
        source : str, optional
            The file's path, named in errors (None: errors name no file).

        Returns
        -------
        BodyModel
            The model the dictionary describes (checked).

        Raises
        ------
        InputError
            A missing or malformed field (naming ``source``).
        """
        try:
            if not isinstance(data, Mapping):
                raise InputError("model file must hold a JSON object")
            segs = data.get("segments")
            if not isinstance(segs, list) or not segs:
                raise InputError("model file has no 'segments' list")
            known = {"index", "name", "parent", "joint", "com", "mass", "inertia", "sequence"}
            for i, seg in enumerate(segs, start=1):
                if not isinstance(seg, Mapping):
                    raise InputError(f"segment entry {i} is not an object")
                missing = [key for key in ("name", "parent", "mass", "inertia") if key not in seg]
                if missing:
                    raise InputError(f"segment entry {i} lacks {', '.join(missing)}")
                if "index" in seg and int(seg["index"]) != i:
                    raise InputError(
                        f"segment entry {i} has index {seg['index']}; segments must be listed in order 1..n"
                    )
            typed = {*CONVENTION_KEYS, "residual_reduction"}
            meta = {k: v for k, v in data.items() if k not in ("name", "gravity", "segments") and k not in typed}
            fields: dict[str, Any] = dict(  # array-likes, converted and checked by __post_init__
                names=[s["name"] for s in segs],
                parents=[int(s["parent"]) for s in segs],
                joint_offset=[s.get("joint", [0.0, 0.0, 0.0]) for s in segs],
                com_offset=[s.get("com", [0.0, 0.0, 0.0]) for s in segs],
                mass=[float(s["mass"]) for s in segs],
                inertia=[s["inertia"] for s in segs],
                gravity=data.get("gravity", [0.0, 0.0, -9.81]),
                name=str(data.get("name", "model")),
                meta=meta,
                segment_meta=[{k: v for k, v in s.items() if k not in known} for s in segs],
                sequences=[s.get("sequence", "xyz") for s in segs],  # docs/conventions.md: absent = xyz
                conventions=Conventions.from_dict(data),
                residual_reduction=data.get("residual_reduction"),
            )
            return cls(**fields)
        except InputError as err:
            if not source:
                raise
            raise err.with_path(source) from None
        except (TypeError, ValueError, KeyError) as err:
            raise InputError(f"malformed model: {err}", source) from None

    def to_json(self) -> str:
        """The model file's text (JSON, docs/conventions.md layout, two-space indent, a final newline).

        Returns
        -------
        str
            The model as JSON text (:meth:`to_dict`).
        """
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def save(self, path) -> None:
        """Write the model file (:meth:`to_json`) atomically.

        Parameters
        ----------
        path : str or os.PathLike
            The model file to write (JSON); replaced whole or left as it was.
        """
        atomic_write_text(path, self.to_json())

    def __repr__(self) -> str:
        return (
            f"BodyModel(name={self.name!r}, n_bodies={self.n_bodies}, "
            f"total_mass={self.total_mass:.3f} kg)"
        )


def _inertia_problem(I: np.ndarray) -> str | None:
    """Why ``I`` is not a physical inertia dyadic, or None if it is."""
    scale = max(float(np.abs(I).max()), 1e-300)
    if np.abs(I - I.T).max() > 1e-9 * scale:
        return "is not symmetric"
    ev = np.linalg.eigvalsh(0.5 * (I + I.T))
    if ev[0] <= 0:
        return "is not positive definite"
    tol = 1e-9 * ev[-1]
    if ev[0] + ev[1] < ev[2] - tol:
        return "violates the triangle inequality of principal moments"
    return None


def default_model(mass: float = DEFAULT_MASS, height: float = DEFAULT_HEIGHT, sex: str = "male") -> BodyModel:
    """Huston's 17-segment body scaled to a subject (de Leva 1996): mass (kg), height (m), sex ("male"/"female").

    The parameters are :func:`humanbody.model.anthropometry.default_parameters`
    (segment lengths, masses, mass centres and principal inertias from de
    Leva's Table 4 scaled to the subject); ``meta`` holds the subject and
    the source.  Raises :class:`~humanbody.errors.InputError` for an
    implausible mass or height or an unknown sex.

    Parameters
    ----------
    mass : float
        Body mass (kg).
    height : float
        Standing height (m).
    sex : {"male", "female"}
        Which of de Leva's tables scales the segments.

    Returns
    -------
    BodyModel
        The 17-segment model scaled to the subject.
    """
    return BodyModel(**default_parameters(mass, height, sex))


def load_model(path: str | os.PathLike) -> BodyModel:
    """Read a model file (JSON, docs/conventions.md layout).

    Raises :class:`~humanbody.errors.InputError` naming the file when it
    cannot be read, is not UTF-8 text or does not describe a valid model.

    Parameters
    ----------
    path : str or os.PathLike
        The model file (``humanbody model export`` writes one).

    Returns
    -------
    BodyModel
        The model the file describes.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as err:
        raise InputError(f"cannot read model file ({err.strerror or err})", path) from None
    except UnicodeDecodeError:
        raise InputError("model file is not JSON text (not UTF-8)", path) from None
    if not text.strip():
        raise InputError("model file is empty", path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"model file is not valid JSON (line {err.lineno}: {err.msg})", path) from None
    return BodyModel.from_dict(data, source=path)


def coordinate_columns(model: BodyModel) -> list[str]:
    """Column names of the generalized-coordinates layout for ``model``.

    ``<body1>_x, _y, _z`` (origin of body 1 in ground, m) then
    ``<name>_alpha, _beta, _gamma`` (rad) for every body.

    Parameters
    ----------
    model : BodyModel
        Its segment names (the first is the root).

    Returns
    -------
    list of str
        3 + 3n names.
    """
    root = model.names[0]
    cols = [f"{root}_{a}" for a in ("x", "y", "z")]
    for name in model.names:
        cols += [f"{name}_{a}" for a in ("alpha", "beta", "gamma")]
    return cols


def sequence_axes_array(model: BodyModel) -> np.ndarray:
    """Each body's rotation-sequence axes as an (n, 3) int64 array (0 = x, 1 = y, 2 = z).

    Parameters
    ----------
    model : BodyModel
        Its ``sequences``.

    Returns
    -------
    ndarray of int64, shape (n, 3)
        Row k-1: the axes of body k's sequence in order.
    """
    return np.array([sequence_axes(s) for s in model.sequences], dtype=np.int64).reshape(-1, 3)
