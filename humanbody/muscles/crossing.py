"""Which coordinates each muscle of an OpenSim model crosses.

A muscle touches bodies: those of its path points and of the surfaces it wraps over.
It crosses every joint on the tree paths between those bodies (the joints of the
smallest subtree that holds them all), and so the coordinates those joints' transforms
use; a conditional or moving point adds the coordinate it depends on.  A coupled
(dependent) coordinate is replaced by the coordinates it follows: a moment arm is taken
about the coordinates one drives, with the coupled ones moving along, as OpenSim's
moment-arm solver does.
"""

from __future__ import annotations

from ..osim.model import OsimJoint, OsimModel


def _joint_coordinates(joint: OsimJoint) -> set[str]:
    names = set(joint.coordinates)
    for ax in joint.transform:
        names.update(ax.coordinates)
    return names


def _parents(model: OsimModel) -> dict[str, OsimJoint]:
    """Each body's joint to its parent (the tree the joints make, ground at the root)."""
    return {j.child: j for j in model.joints}


def _path_to_root(body: str, parent_joint: dict[str, OsimJoint]) -> list[OsimJoint]:
    out = []
    seen = set()
    while body in parent_joint and body not in seen:
        seen.add(body)
        j = parent_joint[body]
        out.append(j)
        body = j.parent
    return out


def crossed_joints(model: OsimModel, bodies: set[str]) -> list[OsimJoint]:
    """The joints of the smallest subtree holding ``bodies``, in the model's joint order.

    Parameters
    ----------
    model : OsimModel
        The model whose joints make the tree.
    bodies : set of str
        Names of the bodies a muscle touches.

    Returns
    -------
    list of OsimJoint
        The joints on the tree paths between those bodies (empty when ``bodies`` is).
    """
    parent_joint = _parents(model)
    paths = [_path_to_root(b, parent_joint) for b in bodies]
    if not paths:
        return []
    common = set.intersection(*(set(j.name for j in p) for p in paths))
    names = {j.name for p in paths for j in p} - common
    return [j for j in model.joints if j.name in names]


def crossed_coordinates(model: OsimModel) -> dict[str, tuple[str, ...]]:
    """For each muscle, the coordinates it crosses (model order; coupled ones replaced by their drivers).

    Parameters
    ----------
    model : OsimModel
        The model, with its muscles, wrap objects and couplers.

    Returns
    -------
    dict of str to tuple of str
        Muscle name -> names of the coordinates it crosses, in ``model.coordinate_names`` order.
    """
    wraps = {w.name: w.body for w in model.wrap_objects}
    dependent = {c.dependent: c.independent for c in model.couplers}
    order = {n: i for i, n in enumerate(model.coordinate_names)}
    out = {}
    for m in model.muscles:
        bodies = {p.body for p in m.points} | {wraps[w.wrap_object] for w in m.wraps if w.wrap_object in wraps}
        names: set[str] = set()
        for j in crossed_joints(model, bodies):
            names |= _joint_coordinates(j)
        for p in m.points:
            names |= {c for c in (p.coordinate, *p.moving_coordinates) if c}
        for _ in range(len(dependent) + 1):
            follow = {d for d in names if d in dependent}
            if not follow:
                break
            names = (names - follow) | {i for d in follow for i in dependent[d]}
        out[m.name] = tuple(sorted((n for n in names if n in order), key=order.__getitem__))
    return out
