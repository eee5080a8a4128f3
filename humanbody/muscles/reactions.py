"""Joint reaction loads as OpenSim's JointReaction reports them: what each joint transmits.

The recursive Newton-Euler pass (:func:`humanbody.core.joint_loads`) with the
muscles' forces applied on the bodies their paths cross (and the external
loads) gives, for every body, the force ``f`` and the moment ``n`` (about the
body's origin, ground components) it receives from its parent through its
joint.  OpenSim's JointReaction reports that load at the joint centre (the
joint's frame on the child), on the child or, opposite, on the parent, in
the ground's, the child's or the parent's axes:

    on child:   F = f,  M = n - (p - o) x f         (p the joint centre, o the child's origin)
    on parent:  F = -f, M = -(n - (p - o) x f)
    in frame A: R_A^T F, R_A^T M, and the joint centre R_A^T (p - o_A)

Columns are OpenSim's: ``<joint>_on_<body>_in_<frame>_fx .. _mz, _px .. _pz``.
A joint's coordinate actuators (reserves, residuals) act through it, so the
load includes them, as OpenSim's does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import core
from ..core.data import Data

SUFFIXES = ("fx", "fy", "fz", "mx", "my", "mz", "px", "py", "pz")


def reaction_columns(model: core.Model, data: Data, force: np.ndarray, moment: np.ndarray,
                     joints: Sequence[tuple[str, int]], on: str = "child", frame: str = "child"
                     ) -> tuple[list[str], np.ndarray]:
    """The reactions of the chosen joints as OpenSim names and expresses them.

    Parameters
    ----------
    model : humanbody.core.Model
        The core model of the OpenSim model.
    data : humanbody.core.Data
        Its kinematics over the trial's F frames.
    force, moment : numpy.ndarray
        (F, B, 3) what each body receives from its parent (N, N m; :func:`humanbody.core.joint_loads`).
    joints : sequence of (str, int)
        (joint name, child body index) pairs.
    on : str
        The body the reaction acts on: ``child`` or ``parent``.
    frame : str
        The frame its components are in: ``child``, ``parent`` or ``ground``.

    Returns
    -------
    names : list of str
        The columns (OpenSim's names: force, moment and point of each joint).
    values : numpy.ndarray
        (F, 9 x joints) forces (N), moments (N m) and points (m).
    """
    cols, out = [], []
    for name, b in joints:
        p = int(model.parents[b])
        R, o = data.R[:, b], data.origin[:, b]
        centre = o + np.einsum("fij,j->fi", R, model.child_offset[b])
        f = force[:, b]
        m = moment[:, b] - np.cross(centre - o, f)
        if on == "parent":
            f, m = -f, -m
        body = model.names[b] if on == "child" or p < 0 else model.names[p]
        if on == "parent" and p < 0:
            body = "ground"
        which = b if frame == "child" else p
        if frame == "ground" or which < 0:
            Rf, of, label = np.broadcast_to(np.eye(3), R.shape), np.zeros_like(o), "ground"
        else:
            Rf, of, label = data.R[:, which], data.origin[:, which], model.names[which]
        vals = [np.einsum("fji,fj->fi", Rf, v) for v in (f, m, centre - of)]
        out.append(np.concatenate(vals, axis=1))
        cols += [f"{name}_on_{body}_in_{label}_{s}" for s in SUFFIXES]
    return cols, np.concatenate(out, axis=1) if out else np.zeros((data.frames, 0))
