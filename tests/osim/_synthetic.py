"""Small synthetic OpenSim 4 models for the wrap-surface tests: ground, one body on a FreeJoint, wrap
surfaces on ground and muscles from ground to the body over them.

``model_xml(surfaces, muscles)`` writes the text of such a model.  ``surfaces`` are
``(tag, name, translation, rotation, quadrant, properties)`` with ``properties`` the surface's own
elements (``{"radius": 0.05}``); ``muscles`` are ``(name, ground_point, body_point, wraps)`` with
``wraps`` the names of the surfaces the path wraps over, in order (each over the whole path; a
``(name, method)`` pair sets the path wrap's method, ``hybrid`` otherwise).
The body's origin sits at (0.2, 0, 0) when its coordinates are 0; its translations range
over +-``reach`` m and its rotations over +-1 rad.
"""

from __future__ import annotations


def _vec(v) -> str:
    return " ".join(repr(float(x)) for x in v)


def _coordinate(name: str, lo: float, hi: float) -> str:
    return (f"<Coordinate name=\"{name}\"><default_value>0</default_value><range>{lo} {hi}</range>"
            "<clamped>false</clamped><locked>false</locked></Coordinate>")


def _surface(tag, name, translation, rotation, quadrant, props) -> str:
    own = "".join(f"<{k}>{_vec(v) if isinstance(v, tuple) else v}</{k}>" for k, v in props.items())
    return (f"<{tag} name=\"{name}\"><xyz_body_rotation>{_vec(rotation)}</xyz_body_rotation>"
            f"<translation>{_vec(translation)}</translation><quadrant>{quadrant}</quadrant>{own}</{tag}>")


def _muscle(name, ground_point, body_point, wraps) -> str:
    pairs = [(w, "hybrid") if isinstance(w, str) else w for w in wraps]
    pw = "".join(f"<PathWrap name=\"{name}_wrap{i}\"><wrap_object>{w}</wrap_object><method>{method}</method>"
                 "<range>-1 -1</range></PathWrap>" for i, (w, method) in enumerate(pairs))
    return (f"<Thelen2003Muscle name=\"{name}\"><GeometryPath name=\"path\"><PathPointSet><objects>"
            f"<PathPoint name=\"{name}_origin\"><socket_parent_frame>/ground</socket_parent_frame>"
            f"<location>{_vec(ground_point)}</location></PathPoint>"
            f"<PathPoint name=\"{name}_insertion\"><socket_parent_frame>/bodyset/arm</socket_parent_frame>"
            f"<location>{_vec(body_point)}</location></PathPoint></objects></PathPointSet>"
            f"<PathWrapSet><objects>{pw}</objects></PathWrapSet></GeometryPath>"
            "<max_isometric_force>1000</max_isometric_force><optimal_fiber_length>0.1</optimal_fiber_length>"
            "<tendon_slack_length>0.2</tendon_slack_length><pennation_angle_at_optimal>0</pennation_angle_at_optimal>"
            "</Thelen2003Muscle>")


def model_xml(surfaces, muscles, reach: float = 0.05) -> str:
    """The text of the model (see the module notes)."""
    coords = "".join(_coordinate(n, -1, 1) for n in ("rx", "ry", "rz"))
    coords += "".join(_coordinate(n, -reach, reach) for n in ("tx", "ty", "tz"))
    return f"""<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="40000">
<Model name="wraps">
<gravity>0 -9.80665 0</gravity>
<Ground name="ground"><WrapObjectSet><objects>{"".join(_surface(*s) for s in surfaces)}</objects></WrapObjectSet></Ground>
<BodySet><objects><Body name="arm"><mass>1</mass><mass_center>0 0 0</mass_center>
<inertia>0.01 0.01 0.01 0 0 0</inertia></Body></objects></BodySet>
<JointSet><objects><FreeJoint name="free">
<socket_parent_frame>ground_offset</socket_parent_frame><socket_child_frame>arm_offset</socket_child_frame>
<coordinates>{coords}</coordinates>
<frames>
<PhysicalOffsetFrame name="ground_offset"><socket_parent>/ground</socket_parent><translation>0.2 0 0</translation>
<orientation>0 0 0</orientation></PhysicalOffsetFrame>
<PhysicalOffsetFrame name="arm_offset"><socket_parent>/bodyset/arm</socket_parent><translation>0 0 0</translation>
<orientation>0 0 0</orientation></PhysicalOffsetFrame>
</frames></FreeJoint></objects></JointSet>
<ForceSet><objects>{"".join(_muscle(*m) for m in muscles)}</objects></ForceSet>
</Model>
</OpenSimDocument>
"""
