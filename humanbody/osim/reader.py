"""Read an OpenSim ``.osim`` model (format 3.x or 4.x) into :class:`~humanbody.osim.model.OsimModel`.

OpenSim 4 files attach joints to frames through sockets (``socket_parent_frame``
naming a ``PhysicalOffsetFrame`` of the joint or a body path such as
``/bodyset/femur_r``); OpenSim 3 files nest each joint in its child body with
``parent_body``, ``location_in_parent``, ``orientation_in_parent``,
``location``, ``orientation``.  Both give the same :class:`~humanbody.osim.model.OsimJoint`.

What the file holds that the model layout does not carry (other forces,
constraints, contact geometry, controllers, ...) is named in
``OsimModel.notes``, one line per kind; a file that is not XML, or a joint or
function type that cannot be computed, raises :class:`~humanbody.errors.InputError`.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import Counter

from ..core import functions as fn
from ..errors import InputError
from .model import (
    Body,
    Coordinate,
    Frame,
    Muscle,
    OsimCoupler,
    OsimJoint,
    OsimMarker,
    OsimModel,
    OsimTransformAxis,
    PathPoint,
    PathWrap,
    WrapObject,
)

JOINT_KINDS = {
    "CustomJoint": "custom", "PinJoint": "pin", "UniversalJoint": "universal", "BallJoint": "ball",
    "FreeJoint": "free", "GimbalJoint": "gimbal", "SliderJoint": "slider", "PlanarJoint": "planar",
    "WeldJoint": "weld",
}
FUNCTION_TAGS = {
    "Constant": "constant", "LinearFunction": "linear", "PolynomialFunction": "polynomial",
    "PiecewiseLinearFunction": "piecewise_linear", "SimmSpline": "spline", "NaturalCubicSpline": "natural_spline",
    "MultiplierFunction": "multiplier",
}
UNSUPPORTED_FUNCTIONS = ("GCVSpline", "PiecewiseConstantFunction", "StepFunction", "Sine",
                         "LinearFunctionSpring", "FunctionAdapter", "ExpressionBasedFunction")
WRAP_KINDS = {"WrapCylinder": "cylinder", "WrapSphere": "sphere", "WrapEllipsoid": "ellipsoid",
              "WrapTorus": "torus"}
MUSCLE_KINDS = ("Thelen2003Muscle", "Millard2012EquilibriumMuscle", "DeGrooteFregly2016Muscle")
_ROT = ("rotation1", "rotation2", "rotation3")
_TRANS = ("translation1", "translation2", "translation3")


class _Ctx:
    """What one reading collects: the file (for messages) and the unsupported items per kind."""

    def __init__(self, path: str):
        self.path = path
        self.skipped: Counter = Counter()

    def error(self, message: str) -> InputError:
        return InputError(message, path=self.path)


def _text(el, tag: str, default: str = "") -> str:
    child = el.find(tag)
    return default if child is None or child.text is None else child.text.strip()


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(v) for v in text.split())


def _vec(el, tag: str, default=(0.0, 0.0, 0.0)) -> tuple[float, float, float]:
    text = _text(el, tag)
    if not text:
        return default
    v = _floats(text)
    return (v[0], v[1], v[2])


def _num(el, tag: str, default: float) -> float:
    text = _text(el, tag)
    return float(text) if text else default


def _flag(el, tag: str, default: bool = False) -> bool:
    text = _text(el, tag).lower()
    return default if not text else text == "true"


def _last(path: str) -> str:
    """The name a socket path ends with (``/bodyset/femur_r`` → ``femur_r``)."""
    return path.rstrip("/").split("/")[-1]


def _function(el, ctx: _Ctx, where: str) -> fn.Function:
    """The function element ``el`` (one of :data:`FUNCTION_TAGS`) as the core's function.

    A piecewise function of a single point is the constant of its value (its slope 0).
    """
    tag = el.tag
    kind = FUNCTION_TAGS.get(tag)
    if kind is None:
        raise ctx.error(f"function type {tag} ({where}) is not supported; supported: {', '.join(FUNCTION_TAGS)}")
    if kind == "constant":
        return fn.Constant(_num(el, "value", 0.0))
    if kind == "linear":
        coef = _floats(_text(el, "coefficients", "1 0"))
        if len(coef) < 2:
            raise ctx.error(f"{tag} ({where}) has {len(coef)} coefficients; a line has two")
        return fn.Linear(coef[0], coef[1])
    if kind == "polynomial":
        coef = _floats(_text(el, "coefficients", "0"))
        if not coef:
            raise ctx.error(f"{tag} ({where}) has no coefficients")
        return fn.Polynomial(coef)
    if kind in ("piecewise_linear", "spline", "natural_spline"):
        x, y = _floats(_text(el, "x")), _floats(_text(el, "y"))
        if len(x) != len(y) or len(x) < 1:
            raise ctx.error(f"{tag} ({where}) has {len(x)} x and {len(y)} y values")
        if any(b <= a for a, b in zip(x, x[1:], strict=False)):
            raise ctx.error(f"{tag} ({where}) has x values that do not increase")
        if len(x) == 1:
            return fn.Constant(y[0])
        pieces = {"piecewise_linear": fn.PiecewiseLinear, "spline": fn.SimmSpline,
                  "natural_spline": fn.NaturalCubicSpline}[kind]
        try:
            return pieces(x, y)
        except InputError as e:
            raise ctx.error(f"{tag} ({where}): {e}") from None
    inner = _child_function(el.find("function"), ctx, where)
    return fn.Multiplier(inner, _num(el, "scale", 1.0))


def _child_function(el, ctx: _Ctx, where: str) -> fn.Function:
    """The one function under ``el`` (directly, or wrapped in ``<function>`` as OpenSim 3 writes it)."""
    if el is None:
        raise ctx.error(f"{where} has no function")
    for child in el:
        if child.tag in FUNCTION_TAGS or child.tag in UNSUPPORTED_FUNCTIONS:
            return _function(child, ctx, where)
        if child.tag == "function":
            return _child_function(child, ctx, where)
    if el.tag in FUNCTION_TAGS or el.tag in UNSUPPORTED_FUNCTIONS:
        return _function(el, ctx, where)
    raise ctx.error(f"{where} has no function of a supported type ({', '.join(FUNCTION_TAGS)})")


def _transform(el, ctx: _Ctx, joint: str) -> tuple[OsimTransformAxis, ...]:
    """A CustomJoint's SpatialTransform: six axes, rotation1..3 then translation1..3."""
    st = el.find("SpatialTransform")
    if st is None:
        raise ctx.error(f"CustomJoint {joint} has no SpatialTransform")
    by_name = {ax.get("name"): ax for ax in st.iter("TransformAxis")}
    axes = []
    for name in _ROT + _TRANS:
        ax = by_name.get(name)
        if ax is None:
            axes.append(OsimTransformAxis((), (1.0, 0.0, 0.0), fn.Constant(0.0)))
            continue
        coords = tuple(_text(ax, "coordinates").split())
        has_function = any(c.tag in FUNCTION_TAGS or c.tag in UNSUPPORTED_FUNCTIONS or c.tag == "function"
                           for c in ax)
        if has_function:
            function = _child_function(ax, ctx, f"joint {joint} {name}")
        else:
            function = fn.Linear(1.0, 0.0) if coords else fn.Constant(0.0)
        axes.append(OsimTransformAxis(coords, _vec(ax, "axis", (1.0, 0.0, 0.0)), function))
    return tuple(axes)


def _coordinates(el, joint: str) -> list[tuple]:
    """The joint's coordinates as (name, default, range, locked, clamped, motion type or "")."""
    out = []
    for c in el.iter("Coordinate"):
        rng = _floats(_text(c, "range", "-1e9 1e9"))
        out.append((c.get("name"), _num(c, "default_value", 0.0), (rng[0], rng[1]), _flag(c, "locked"),
                    _flag(c, "clamped"), _text(c, "motion_type").lower()))
    return out


def _motion_types(kind: str, coords: list[tuple], transform: tuple[OsimTransformAxis, ...]) -> list[str]:
    """Each coordinate's motion type: the file's (OpenSim 3), else from where the joint uses it."""
    out = []
    for i, c in enumerate(coords):
        if c[5] in ("rotational", "translational", "coupled"):
            out.append(c[5])
        elif kind == "custom":
            out.append(_custom_motion(c[0], transform))
        elif kind == "free":
            out.append("rotational" if i < 3 else "translational")
        elif kind == "slider" or (kind == "planar" and i > 0):
            out.append("translational")
        else:
            out.append("rotational")
    return out


def _custom_motion(name: str, transform: tuple[OsimTransformAxis, ...]) -> str:
    """OpenSim's motion type of a CustomJoint coordinate: the first axis that uses it decides,
    rotational or translational when its function is a plain LinearFunction, coupled otherwise."""
    for i, ax in enumerate(transform):
        if name in ax.coordinates:
            if not isinstance(ax.function, fn.Linear):
                return "coupled"
            return "rotational" if i < 3 else "translational"
    return "rotational"


def _offset_frames(root) -> dict[str, tuple[str, Frame]]:
    """Every PhysicalOffsetFrame of an OpenSim 4 file: name → (parent path, frame)."""
    frames = {}
    for f in root.iter("PhysicalOffsetFrame"):
        parent = _last(_text(f, "socket_parent"))
        frames[f.get("name")] = (parent, Frame(parent, _vec(f, "translation"), _vec(f, "orientation")))
    return frames


def _resolve_frame(ref: str, local: dict, frames: dict, bodies: set, ctx: _Ctx, where: str) -> Frame:
    """The frame a socket names: an offset frame of the joint, of the model, or a body itself."""
    name = _last(ref)
    for table in (local, frames):
        if name in table:
            parent, frame = table[name]
            if parent not in bodies:
                raise ctx.error(f"{where}: frame {name} hangs on {parent}, which is not a body")
            return frame
    if name not in bodies:
        raise ctx.error(f"{where}: socket {ref!r} names no body or frame")
    return Frame(name)


def _joint4(el, frames: dict, bodies: set, ctx: _Ctx) -> tuple[OsimJoint, list[tuple]]:
    name = el.get("name")
    local = {}
    fr = el.find("frames")
    if fr is not None:
        for f in fr.findall("PhysicalOffsetFrame"):
            owner = _last(_text(f, "socket_parent"))
            local[f.get("name")] = (owner, Frame(owner, _vec(f, "translation"), _vec(f, "orientation")))
    parent = _resolve_frame(_text(el, "socket_parent_frame"), local, frames, bodies, ctx, f"joint {name}")
    child = _resolve_frame(_text(el, "socket_child_frame"), local, frames, bodies, ctx, f"joint {name}")
    kind = JOINT_KINDS[el.tag]
    coords_el = el.find("coordinates")
    coords = _coordinates(coords_el, name) if coords_el is not None else []
    transform = _transform(el, ctx, name) if kind == "custom" else ()
    return OsimJoint(name, kind, parent, child, tuple(c[0] for c in coords), transform), coords


def _joint3(el, child_body: str, ctx: _Ctx) -> tuple[OsimJoint, list[tuple]]:
    name = el.get("name")
    parent = Frame(_text(el, "parent_body"), _vec(el, "location_in_parent"), _vec(el, "orientation_in_parent"))
    child = Frame(child_body, _vec(el, "location"), _vec(el, "orientation"))
    if _flag(el, "reverse"):
        ctx.skipped[f"reversed joint {name} (read as forward)"] += 1
    kind = JOINT_KINDS[el.tag]
    cs = el.find("CoordinateSet")
    coords = _coordinates(cs, name) if cs is not None else []
    transform = _transform(el, ctx, name) if kind == "custom" else ()
    return OsimJoint(name, kind, parent, child, tuple(c[0] for c in coords), transform), coords


def _check_joint_tag(el, ctx: _Ctx) -> None:
    if el.tag not in JOINT_KINDS:
        raise ctx.error(f"joint type {el.tag} ({el.get('name')}) is not supported; supported: "
                        f"{', '.join(JOINT_KINDS)}")


def _body(el) -> Body:
    if el.find("inertia") is not None:
        inertia = _floats(_text(el, "inertia", "0 0 0 0 0 0"))
    else:
        inertia = tuple(_num(el, f"inertia_{k}", 0.0) for k in ("xx", "yy", "zz", "xy", "xz", "yz"))
    return Body(el.get("name"), _num(el, "mass", 0.0), _vec(el, "mass_center"),
                (inertia[0], inertia[1], inertia[2], inertia[3], inertia[4], inertia[5]))


def _bodies_and_joints(model_el, ctx: _Ctx):
    """Bodies (ground first), joints and coordinates of an OpenSim 3 or 4 model element."""
    bodyset = model_el.find("BodySet/objects")
    body_els = [] if bodyset is None else [b for b in bodyset if b.tag == "Body"]
    bodies = [Body("ground", 0.0, (0.0, 0.0, 0.0), (0.0,) * 6)]
    bodies += [_body(b) for b in body_els if b.get("name") != "ground"]
    names = {b.name for b in bodies}
    joints, coords = [], []
    jointset = model_el.find("JointSet/objects")
    if jointset is not None:   # OpenSim 4
        frames = _offset_frames(model_el)
        for el in jointset:
            _check_joint_tag(el, ctx)
            j, jc = _joint4(el, frames, names, ctx)
            joints.append(j)
            coords.append(jc)
    for b in body_els:         # OpenSim 3: the joint inside its child body
        holder = b.find("Joint")
        for el in [] if holder is None else list(holder):
            _check_joint_tag(el, ctx)
            j, jc = _joint3(el, b.get("name"), ctx)
            joints.append(j)
            coords.append(jc)
    coordinates = []
    for j, cs in zip(joints, coords, strict=True):
        for c, motion in zip(cs, _motion_types(j.kind, cs, j.transform), strict=True):
            coordinates.append(Coordinate(c[0], j.name, motion, c[1], c[2], c[3], c[4]))
    return tuple(bodies), tuple(joints), tuple(coordinates)


def _point_body(el) -> str:
    ref = _text(el, "socket_parent_frame") or _text(el, "body")
    return _last(ref)


def _path_point(el, ctx: _Ctx, muscle: str) -> PathPoint:
    name, body = el.get("name") or "", _point_body(el)
    location = _vec(el, "location")
    if el.tag == "ConditionalPathPoint":
        coord = _last(_text(el, "socket_coordinate") or _text(el, "coordinate"))
        rng = _floats(_text(el, "range", "0 0"))
        return PathPoint(name, body, location, "conditional", coord, (rng[0], rng[1]))
    if el.tag == "MovingPathPoint":
        coords: list[str] = []
        functions: list[fn.Function] = []
        for i, axis in enumerate("xyz"):
            coord = _last(_text(el, f"socket_{axis}_coordinate") or _text(el, f"{axis}_coordinate"))
            holder = el.find(f"{axis}_location")
            if holder is None or not coord:
                coords.append("")
                functions.append(fn.Constant(location[i]))
                continue
            coords.append(coord)
            functions.append(_child_function(holder, ctx, f"muscle {muscle} point {name} {axis}_location"))
        return PathPoint(name, body, location, "moving", moving_coordinates=(coords[0], coords[1], coords[2]),
                         functions=tuple(functions))
    return PathPoint(name, body, location)


def _muscle(el, ctx: _Ctx) -> Muscle:
    name = el.get("name")
    gp = el.find("GeometryPath")
    points_el = gp.find("PathPointSet/objects")
    points = []
    for p in [] if points_el is None else list(points_el):
        if p.tag in ("PathPoint", "ConditionalPathPoint", "MovingPathPoint"):
            points.append(_path_point(p, ctx, name))
        else:
            ctx.skipped[f"path point type {p.tag}"] += 1
    wraps = []
    wraps_el = gp.find("PathWrapSet/objects")
    for w in [] if wraps_el is None else wraps_el.findall("PathWrap"):
        rng = _floats(_text(w, "range", "-1 -1"))
        wraps.append(PathWrap(_text(w, "wrap_object"), _text(w, "method", "hybrid").lower() or "hybrid",
                              (int(rng[0]), int(rng[1]))))
    if len(points) < 2:
        raise ctx.error(f"muscle {name} has {len(points)} path points; a path needs two")
    return Muscle(name, el.tag, tuple(points), tuple(wraps),
                  max_isometric_force=_num(el, "max_isometric_force", float("nan")),
                  optimal_fiber_length=_num(el, "optimal_fiber_length", float("nan")),
                  tendon_slack_length=_num(el, "tendon_slack_length", float("nan")),
                  pennation_angle_at_optimal=_num(el, "pennation_angle_at_optimal", 0.0),
                  max_contraction_velocity=_num(el, "max_contraction_velocity", 10.0),
                  applies_force=_flag(el, "appliesForce", True) and not _flag(el, "isDisabled", False))


def _muscles(model_el, ctx: _Ctx) -> tuple[Muscle, ...]:
    forces = model_el.find("ForceSet/objects")
    out = []
    for el in [] if forces is None else list(forces):
        if el.find("GeometryPath") is not None and el.tag.endswith("Muscle"):
            if el.tag not in MUSCLE_KINDS:
                ctx.skipped[f"muscle type {el.tag} (read for its path and parameters only)"] += 1
            out.append(_muscle(el, ctx))
        else:
            ctx.skipped[f"force {el.tag}"] += 1
    return tuple(out)


def _wrap_objects(model_el, ctx: _Ctx) -> tuple[WrapObject, ...]:
    out = []
    holders = [model_el.find("Ground")] + list(model_el.findall("BodySet/objects/Body"))
    for body in holders:
        if body is None:
            continue
        for w in body.findall("WrapObjectSet/objects/*"):
            kind = WRAP_KINDS.get(w.tag)
            if kind is None:
                ctx.skipped[f"wrap object type {w.tag}"] += 1
                continue
            out.append(WrapObject(
                w.get("name"), body.get("name") or "ground", kind, _vec(w, "translation"),
                _vec(w, "xyz_body_rotation"), _text(w, "quadrant", "all").replace(" ", "").lower() or "all",
                radius=_num(w, "radius", 0.0), length=_num(w, "length", 0.0),
                dimensions=_vec(w, "dimensions"), inner_radius=_num(w, "inner_radius", 0.0),
                outer_radius=_num(w, "outer_radius", 0.0), active=_flag(w, "active", True)))
    return tuple(out)


def _markers(model_el) -> tuple[OsimMarker, ...]:
    return tuple(OsimMarker(m.get("name"), _point_body(m), _vec(m, "location"), _flag(m, "fixed"))
                 for m in model_el.findall("MarkerSet/objects/Marker"))


def _couplers(model_el, ctx: _Ctx) -> tuple[OsimCoupler, ...]:
    out = []
    cs = model_el.find("ConstraintSet/objects")
    for el in [] if cs is None else list(cs):
        if el.tag != "CoordinateCouplerConstraint":
            ctx.skipped[f"constraint {el.tag}"] += 1
            continue
        enforced = _flag(el, "isEnforced", True) and not _flag(el, "isDisabled", False)
        if not enforced:
            ctx.skipped["coordinate coupler not enforced"] += 1
            continue
        function = _child_function(el.find("coupled_coordinates_function"), ctx, f"coupler {el.get('name')}")
        out.append(OsimCoupler(el.get("name"), _text(el, "dependent_coordinate_name"),
                               tuple(_text(el, "independent_coordinate_names").split()), function,
                               _num(el, "scale_factor", 1.0)))
    return tuple(out)


def _other_parts(model_el, ctx: _Ctx) -> None:
    """Count what the model holds beyond bodies, joints, markers, muscles and couplers."""
    for tag in ("ContactGeometrySet", "ControllerSet", "ProbeSet"):
        for el in model_el.findall(f"{tag}/objects/*"):
            ctx.skipped[f"{tag[:-3].lower()} {el.tag}"] += 1
    for el in model_el.findall("components/*"):
        if el.tag != "PhysicalOffsetFrame":
            ctx.skipped[f"component {el.tag}"] += 1


def _notes(ctx: _Ctx) -> tuple[str, ...]:
    return tuple(f"not supported, left out: {n} {what}" for what, n in sorted(ctx.skipped.items()))


def read_osim(path: str | os.PathLike) -> OsimModel:
    """Read an OpenSim model file (format 3.x or 4.x).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.osim`` file.

    Returns
    -------
    OsimModel
        Bodies, joints, coordinates, couplers, markers, muscles and wrap surfaces;
        ``notes`` name what the file holds that is left out, one line per kind.

    Raises
    ------
    InputError
        The file is not XML or not an OpenSim model, or a joint or function type is not supported.
    """
    p = os.fspath(path)
    ctx = _Ctx(p)
    try:
        root = ET.parse(p).getroot()
    except ET.ParseError as exc:
        raise ctx.error(f"not an XML file ({exc})") from None
    except OSError as exc:
        raise ctx.error(f"cannot be read ({exc.strerror or exc})") from None
    model_el = root.find("Model") if root.tag == "OpenSimDocument" else root if root.tag == "Model" else None
    if model_el is None:
        raise ctx.error("is not an OpenSim model (no <Model> element)")
    version = int(root.get("Version", "30000")) if root.tag == "OpenSimDocument" else 30000
    bodies, joints, coordinates = _bodies_and_joints(model_el, ctx)
    if not joints:
        raise ctx.error("has no joints")
    model = OsimModel(
        name=model_el.get("name") or "", path=p, version=version,
        gravity=_vec(model_el, "gravity", (0.0, -9.80665, 0.0)), bodies=bodies, joints=joints,
        coordinates=coordinates, couplers=_couplers(model_el, ctx), markers=_markers(model_el),
        muscles=_muscles(model_el, ctx), wrap_objects=_wrap_objects(model_el, ctx))
    _check_references(model, ctx)
    _other_parts(model_el, ctx)
    return OsimModel(**{**model.__dict__, "notes": _notes(ctx)})


def _check_references(model: OsimModel, ctx: _Ctx) -> None:
    """Every body, coordinate and wrap object a part names exists."""
    bodies, coords = set(model.body_names), set(model.coordinate_names)
    wraps = {w.name for w in model.wrap_objects}
    for m in model.muscles:
        for p in m.points:
            if p.body not in bodies:
                raise ctx.error(f"muscle {m.name} point {p.name} is on {p.body!r}, which is not a body")
            for c in (p.coordinate,) + p.moving_coordinates:
                if c and c not in coords:
                    raise ctx.error(f"muscle {m.name} point {p.name} names coordinate {c!r}, which the model lacks")
        for w in m.wraps:
            if w.wrap_object not in wraps:
                ctx.skipped[f"path wrap over {w.wrap_object} (muscle {m.name}: no such supported wrap object)"] += 1
    for k in model.markers:
        if k.body not in bodies:
            raise ctx.error(f"marker {k.name} is on {k.body!r}, which is not a body")
    for cp in model.couplers:
        for name in (cp.dependent,) + cp.independent:
            if name not in coords:
                raise ctx.error(f"coupler {cp.name} names coordinate {name!r}, which the model lacks")
