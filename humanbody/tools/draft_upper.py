"""Trunk, head and arm rules of a drafted marker set.

* trunk: Plug-in Gait's thorax with C7, T10, clavicle and sternum markers,
  else the acromion line; lumbar and thoracic joints at de Leva's (1996)
  fractions 0.274 and 0.679 of mid-hip -> lower neck; the middle torso
  halfway (slerp) between pelvis and thorax;
* head: top-of-head marker and a left/right pair (gait2392's frame), else
  front and back markers level in the standing trial (Plug-in Gait's); the
  neck halfway between thorax and head;
* shoulders: 17 % of the bi-acromial distance below the acromion (Rab et
  al. 2002); elbows at the midpoint of the epicondyle markers, or at a lone
  elbow marker; wrists at the middle of the wrist markers;
* with Plug-in Gait's legs and thorax (:func:`plug_in_gait_upper`): the
  built-in ``plug_in_gait`` set's thorax tracking, head (four head markers)
  and arms (acromion, one elbow marker, the WRA/WRB wrist bar): chord-function
  shoulder, elbow, wrist and hand centres, humerus, radius and hand frames.

Segments with too few markers move rigidly with their parent, and joints with
no marker are placed from their parent joint
(:mod:`humanbody.tools.draft_plan`).
"""

from __future__ import annotations

from typing import Any

from ..markers.height_landmarks import FRACTIONS
from .draft_plan import Drafting, estimate_joint, move_rigidly


def draft_trunk(mk, out: Drafting, xi) -> None:
    """The middle and upper torso and the neck: the lower neck from the C7 and clavicle (or acromion)
    markers, the lumbar and thoracic joints between it and the hips, the thorax cluster; joints without
    markers placed by the default model's offsets.

    Parameters
    ----------
    mk : LandmarkMarkers
        The used markers by landmark role, side and modifier.
    out : Drafting
        The set being drafted (points, segments, parameters, checks added here).
    xi : (17, 3) ndarray
        Reference joint offsets (m).
    """
    st, cl, c7, t10 = mk("sternum"), mk("clavicle"), mk("c7"), mk("t10")
    ra, la = mk("acromion", "right"), mk("acromion", "left")
    thorax = st + cl + c7 + t10 + mk("back") + mk.on("upper_torso")
    if ra and la:
        out.point("mid_acromion", {"mean": [ra[0], la[0]]})
    if c7 and cl:
        out.point("lower_neck", {"mean": [c7[0], cl[0]]}, "Between C7 and the clavicle (jugular notch) markers.")
    elif ra and la:
        out.point("lower_neck", {"mean": ["mid_acromion"]}, "Mid-acromion.")
    elif c7 or cl:
        out.point("lower_neck", {"mean": (c7 or cl)[:1]}, out.check("lower neck taken at one thorax marker"))
    else:
        out.point("lower_neck", None)
    if out.points["lower_neck"][0] is None:
        for seg in ("middle_torso", "upper_torso", "neck"):
            estimate_joint(out, seg, xi, "lower_torso")
    else:
        for p, f in (("lumbar", 0.274), ("thoracic", 0.679)):
            out.point(p, {"between": ["mid_hip", "lower_neck"], "fraction": f},
                      f"de Leva (1996) boundary at {f} of mid-hip -> lower neck.")
    primary: dict[str, Any]
    secondary: dict[str, Any]
    if c7 and t10 and cl and st:
        out.point("thorax_low", {"mean": [t10[0], st[0]]})
        out.point("thorax_back", {"mean": [c7[0], t10[0]]})
        out.point("thorax_front", {"mean": [cl[0], st[0]]})
        primary = {"axis": "z", "from": "thorax_low", "to": "lower_neck"}
        secondary = {"axis": "x", "from": "thorax_back", "to": "thorax_front"}
        how, cluster = "Plug-in Gait thorax (C7, T10, clavicle, sternum)", thorax
    elif ra and la:
        primary = {"axis": "z", "from": "thoracic", "to": "lower_neck"}
        secondary = {"axis": "y", "from": ra[0], "to": la[0]}
        how, cluster = "thorax z up the trunk, y along the acromion line", thorax + ra[:1] + la[:1]
    else:
        primary = {"axis": "z", "ground": [0.0, 0.0, 1.0]}
        secondary = {"axis": "x", "ground": [1.0, 0.0, 0.0]}
        how, cluster = "thorax axes = ground axes in the standing trial", thorax + ra[:1] + la[:1]
    if len(cluster) >= 3:
        if "ground" in secondary:
            out.check("thorax frame taken parallel to the lab's ground axes in the standing trial (subject facing +x)")
        # clavicle markers are often on the standing trial only: required only when the thorax needs them
        core = [m for m in cluster if m not in cl]
        out.need(*(core if len(core) >= 3 else cluster))
        out.segment("upper_torso", {"markers": cluster, "origin": "thoracic", "primary": primary,
                                    "secondary": secondary, "distal": "lower_neck"}, how + ".")
        out.rules.append(f"trunk: {how}")
    else:
        move_rigidly(out, "middle_torso", "lower_torso", "fewer than three thorax markers", distal="thoracic")
        move_rigidly(out, "upper_torso", "middle_torso", "fewer than three thorax markers", distal="lower_neck")
        out.rules.append("trunk: too few thorax markers, trunk rigid with the pelvis")
        return
    out.segment("middle_torso", {"rule": "slerp", "between": ["lower_torso", "upper_torso"], "fraction": 0.5,
                                 "origin": "lumbar", "distal": "thoracic"})


def draft_head(mk, out: Drafting, xi) -> bool:
    """Head and neck; True when the set can estimate the height (head markers, else the acromia and hips).

    Parameters
    ----------
    mk, out, xi : LandmarkMarkers, Drafting and ndarray, shape (17, 3), m
        The trial's markers by landmark, the drafting record the head is added to, and the reference model's joint
        offsets.

    Returns
    -------
    bool
        True when the set can estimate the height.
    """
    hm = mk("head") + mk.on("head")
    role = {g.name: g for g in mk.g}
    top = [m for m in hm if "top" in role[m].modifiers]
    rest = [m for m in hm if m not in top]
    right = [m for m in rest if role[m].side == "right"]
    left = [m for m in rest if role[m].side == "left"]
    front = [m for m in rest if "front" in role[m].modifiers]
    back = [m for m in rest if "back" in role[m].modifiers]
    if hm:
        if not top:
            out.point("head_centre", {"mean": hm})
        end = top[0] if top else "head_centre"
        out.point("upper_neck", {"between": ["lower_neck", end], "fraction": 0.5},
                  f"Halfway from the lower neck to {'the top-of-head marker' if top else 'the head markers'}.")
    else:
        estimate_joint(out, "head", xi, "lower_torso")
    if len(hm) >= 3:
        if top and right and left:
            pr = {"axis": "z", "from": "upper_neck", "to": top[0]}
            se = {"axis": "y", "from": right[0], "to": left[0]}
            how = "z to the top-of-head marker, y along the left/right head markers"
        elif front and back:
            out.point("head_front", {"mean": front})
            out.point("head_back", {"mean": back})
            pr, se = {"axis": "z", "ground": [0.0, 0.0, 1.0]}, {"axis": "x", "from": "head_back", "to": "head_front"}
            how = "head level in the standing trial, x from back to front markers"
        elif right and left:
            out.point("head_right", {"mean": right})
            out.point("head_left", {"mean": left})
            pr, se = {"axis": "z", "ground": [0.0, 0.0, 1.0]}, {"axis": "y", "from": "head_right", "to": "head_left"}
            how = "head level in the standing trial, y along the left/right head markers"
        else:
            pr, se = {"axis": "z", "ground": [0.0, 0.0, 1.0]}, {"axis": "x", "ground": [1.0, 0.0, 0.0]}
            how = "head axes = ground axes in the standing trial"
            out.check("head frame taken parallel to the lab's ground axes in the standing trial")
        table = {"markers": hm, "origin": "upper_neck", "primary": pr, "secondary": se}
        if top:
            table["length"] = ["upper_neck", top[0]]
        out.segment("head", table, how[0].upper() + how[1:] + ".")
        out.segment("neck", {"rule": "slerp", "between": ["upper_torso", "head"], "fraction": 0.5,
                             "origin": "lower_neck", "distal": "upper_neck"})
        out.rules.append(f"head: {how}")
    else:
        move_rigidly(out, "neck", "upper_torso", "fewer than three head markers", distal="upper_neck")
        move_rigidly(out, "head", "neck", "fewer than three head markers")
        out.rules.append("head: too few head markers, head and neck rigid with the thorax")
    if top:
        out.params["height_top"] = (top[0], "height = top-of-head marker - lowest foot marker")
        out.params["height_offset"] = (0.0, "m")
    elif hm:
        out.params["height_top"] = ("head_centre", "head markers sit about 0.12 m below the vertex")
        out.params["height_offset"] = (0.12, out.check("height offset of the head markers below the vertex "
                                                       "(0.12 m) is an estimate"))
    else:
        # no head markers: the acromia and the hip centres (from the ASIS, the pelvis's own rule) stand at 0.818
        # and 0.530 of the standing height (Drillis and Contini 1966, in Winter 2009, Biomechanics and Motor
        # Control of Human Movement, Fig. 4.1): humanbody.markers.height_landmarks
        landmarks = {}
        if mk("acromion", "right") + mk("acromion", "left"):
            out.point("mid_acromion", {"mean": mk("acromion", "right") + mk("acromion", "left")},
                      "Mid-point of the acromion markers: a height landmark without head markers.")
            landmarks["mid_acromion"] = FRACTIONS["acromion"]
        if "mid_hip" in out.points:
            landmarks["mid_hip"] = FRACTIONS["hip"]
        if landmarks:
            out.params["height_landmarks"] = (landmarks, out.check(
                "no head markers: height from these landmarks' fractions of it (Drillis and Contini), their "
                "mean; each within about 5 per cent"))
    return "height_top" in out.params or "height_landmarks" in out.params


def draft_arm(mk, out: Drafting, s: str, xi, widths, radius) -> None:
    """One arm: shoulder, elbow and wrist centres and the upper arm, forearm and hand segments.

    Parameters
    ----------
    mk, out : LandmarkMarkers, Drafting
        The trial's markers by landmark, and the drafting record the arm is added to.
    s : {"right", "left"}
        The arm's side.
    xi : (17, 3) ndarray
        Reference joint offsets (m).
    widths : dict
        Joint widths (m).
    radius : float
        Marker radius (m).
    """
    acr, other = mk("acromion", s), mk("acromion", "left" if s == "right" else "right")
    ua, fa, hand = mk("upper_arm", s), mk("forearm", s), mk("hand", s)
    elbows, wrists = mk("elbow", s), mk("wrist", s)
    sh, el, wr = f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist"
    how = []
    if acr and other:
        pair = [acr[0], other[0]] if s == "right" else [other[0], acr[0]]
        out.point(sh, {"from": acr[0], "offset": [0.0, 0.0, -0.17], "scale": pair, "frame": "upper_torso"},
                  "Glenohumeral centre 17 % of the bi-acromial distance below the acromion (Rab et al. 2002).")
        how.append("shoulder 17 % of the bi-acromial distance below the acromion")
    else:
        estimate_joint(out, f"{s}_upper_arm", xi, "upper_torso")
    if len(elbows) >= 2:
        out.point(el, {"mean": elbows[:2]}, "Midpoint of the two elbow (epicondyle) markers.")
        how.append("elbow midpoint of the epicondyles")
    elif elbows:  # arms are often held out in the standing trial: no fixed medial direction to offset along
        out.check("a lone elbow marker is taken as the elbow centre (off by about half the elbow width along "
                  "the flexion axis); a medial elbow marker in the standing trial gives a better centre")
        out.point(el, {"mean": elbows[:1]}, f"CHECK: the lone {s} elbow marker taken as the elbow centre.")
        how.append("elbow at its one marker")
    else:
        estimate_joint(out, f"{s}_lower_arm", xi, "upper_torso")
    if wrists:
        out.point(wr, {"mean": wrists[:2]}, "Middle of the wrist markers." if len(wrists) > 1 else "")
    else:
        estimate_joint(out, f"{s}_hand", xi, "upper_torso")
    upper = ua + elbows + mk.on(f"{s}_upper_arm")
    if len(upper) >= 2:
        out.segment(f"{s}_upper_arm", {"markers": upper, "use_joint": True, "origin": sh,
                                       "primary": {"axis": "z", "from": el, "to": sh},
                                       "secondary": {"axis": "x", "like": "upper_torso:x"}, "distal": el})
    else:
        move_rigidly(out, f"{s}_upper_arm", "upper_torso", "fewer than two upper-arm markers", distal=el)
    lower = fa + wrists + mk.on(f"{s}_lower_arm")
    if len(lower) >= 2:
        out.segment(f"{s}_lower_arm", {"markers": lower, "use_joint": True, "origin": el,
                                       "primary": {"axis": "z", "from": wr, "to": el},
                                       "secondary": {"axis": "y", "like": f"{s}_upper_arm:y"}, "distal": wr})
    else:
        move_rigidly(out, f"{s}_lower_arm", f"{s}_upper_arm", "fewer than two forearm markers", distal=wr)
    hand = hand + mk.on(f"{s}_hand")
    if len(hand) >= 2:
        out.point(f"{s}_hand_centre", {"mean": hand})
        out.segment(f"{s}_hand", {"markers": hand, "use_joint": True, "origin": wr,
                                  "primary": {"axis": "z", "from": f"{s}_hand_centre", "to": wr},
                                  "secondary": {"axis": "y", "like": f"{s}_lower_arm:y"}})
    else:
        out.segment(f"{s}_hand", {"rule": "rigid", "to": f"{s}_lower_arm", "origin": wr},
                    "Fewer than two hand markers: the hand moves rigidly with the forearm (usual).")
    if how:
        out.rules.append(f"{s} arm: " + "; ".join(how))


def plug_in_gait_upper(mk, out: Drafting, radius: float) -> list[str]:
    """The built-in ``plug_in_gait`` set's thorax tracking, head and arms where their markers are present.

    Called after :func:`draft_trunk`, :func:`draft_head` and :func:`draft_arm` when the legs are Plug-in
    Gait's and the thorax is (C7, T10, CLAV, STRN): the thorax is rebuilt from its markers in every frame;
    four head markers (left/right front and back) give Plug-in Gait's head (level in the standing trial,
    tracked x back -> front, y right -> left); an arm with an acromion marker, one elbow marker and the two
    wrist bar markers (WRA lateral, WRB medial; FIN optional) gets Plug-in Gait's chord-function shoulder,
    elbow, wrist and hand centres and its humerus, radius and hand frames.

    Parameters
    ----------
    mk : LandmarkMarkers
        The used markers by landmark role, side and modifier.
    out : Drafting
        The set being drafted (points, segments, parameters, checks added here).
    radius : float
        Marker radius (m).

    Returns
    -------
    list of str
        The sides whose arms are Plug-in Gait's.
    """
    table, comment = out.segments["upper_torso"]
    out.segments["upper_torso"] = (dict(table, track="rules"), comment)
    _pig_head(mk, out)
    cl = mk("clavicle")
    sides = []
    for s in ("right", "left"):
        sho, elb = mk("acromion", s), mk("elbow", s)
        wra, wrb = mk("wrist", s, "lateral"), mk("wrist", s, "medial")
        if not (cl and len(sho) == 1 and len(elb) == 1 and wra and wrb):
            continue
        _pig_arm(mk, out, s, sho[0], elb[0], wra[0], wrb[0], cl, radius)
        sides.append(s)
    return sides


def _pig_head(mk, out: Drafting) -> None:
    """Plug-in Gait's head from four head markers (left/right front and back): level in the standing trial,
    tracked x back -> front, y right -> left."""
    role = {g.name: g for g in mk.g}
    head = {(role[m].side, f): m for m in mk("head") for f in ("front", "back") if f in role[m].modifiers}
    if not (len(head) == 4 and "head" in out.segments and out.segments["head"][0].get("rule") is None):
        return
    rf, lf, rb, lb = head[("right", "front")], head[("left", "front")], head[("right", "back")], head[("left", "back")]
    out.point("head_front", {"mean": [lf, rf]})
    out.point("head_back", {"mean": [lb, rb]})
    out.point("head_left", {"mean": [lf, lb]})
    out.point("head_right", {"mean": [rf, rb]})
    out.segment("head", {"markers": [lf, rf, lb, rb], "origin": "upper_neck",
                         "primary": {"axis": "y", "from": "head_right", "to": "head_left"},
                         "secondary": {"axis": "z", "ground": [0.0, 0.0, 1.0]},
                         "track": {"primary": {"axis": "x", "from": "head_back", "to": "head_front"},
                                   "secondary": {"axis": "y", "from": "head_right", "to": "head_left"}}},
                "Plug-in Gait's head: level in the standing trial, tracked x back -> front, y right -> left, "
                "turned by that static offset.")
    out.rules = [r for r in out.rules if not r.startswith("head:")] + [
        "head: level in the standing trial, tracked back -> front, right -> left (Plug-in Gait)"]


def _pig_arm(mk, out: Drafting, s: str, sho: str, elb: str, wra: str, wrb: str, cl: list, radius: float) -> None:
    """Plug-in Gait's arm on side ``s`` from its acromion, elbow and wrist bar markers (WRA lateral, WRB medial;
    FIN optional): chord-function shoulder, elbow, wrist and hand centres, humerus, radius and hand frames."""
    fin, upa, fra = mk("hand", s)[:1], mk("upper_arm", s)[:1], mk("forearm", s)[:1]
    if "thorax_origin" not in out.points:
        out.params["marker_radius"] = (radius, "m (a subject file's MarkerDiameter / 2 replaces it)")
        out.point("thorax_origin", {"from": cl[0], "offset": ["-marker_radius", 0.0, 0.0], "frame": "upper_torso"},
                  f"Plug-in Gait's thorax origin: {cl[0]} moved back by the marker radius along the thorax x.")
        out.point("thorax_x_tip", {"from": "thorax_origin", "offset": [1.0, 0.0, 0.0], "frame": "upper_torso"})
    for key, value in (("shoulder_offset", 0.040), ("elbow_width", 0.070), ("wrist_width", 0.055),
                       ("hand_thickness", 0.030)):
        out.params[f"{s}_{key}"] = (value, "m, an average adult's (a subject file's replaces it)")
    out.check(f"{s} arm: Plug-in Gait's shoulder offset, elbow and wrist widths and hand thickness of an "
              f"average adult: give the subject's in a subject file")
    right = s == "right"
    sh, el, wr, mid, tip = f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist", f"{s}_wrist_mid", f"{s}_wrist_tip"
    cross = lambda a, b, c, right=right: [a, b, c] if right else [a, c, b]  # noqa: E731  (normal towards +y/-y)
    out.point(f"{s}_shoulder_wand", {"cross": cross("thorax_origin", sho, "thorax_x_tip")})
    out.point(sh, {"chord": [f"{s}_shoulder_wand", "thorax_origin", sho], "offset": f"{s}_shoulder_offset"},
              f"Plug-in Gait's shoulder centre: chord function from {sho} towards the thorax origin.")
    out.point(f"{s}_elbow_wand", {"cross": cross(elb, mid, sh)})
    out.point(el, {"chord": [f"{s}_elbow_wand", sh, elb], "width": f"{s}_elbow_width"},
              f"Plug-in Gait's elbow centre: chord function from {elb} towards the shoulder centre.")
    out.point(mid, {"mean": [wra, wrb]})
    out.point(tip, {"between": [wrb, wra], "fraction": 1.5})
    out.point(wr, {"cross": cross(mid, el, tip), "width": f"{s}_wrist_width"},
              "Plug-in Gait's wrist centre: wrist width / 2 + marker radius from the wrist bar's midpoint.")
    fallback = {"from": wr, "offset": [0.0, 0.0, -0.08], "frame": f"{s}_lower_arm"}
    out.point(f"{s}_hand_centre", [{"chord": [mid, wr, fin[0]], "width": f"{s}_hand_thickness"}, fallback]
              if fin else fallback, "Plug-in Gait's hand centre" + (f" from {fin[0]}." if fin else
                                                                 ": 8 cm down the forearm from the wrist."))
    out.need(sho, elb, wra, wrb)
    out.segment(f"{s}_upper_arm", {"markers": upa + [elb], "use_joint": True, "origin": sh,
                                   "primary": {"axis": "z", "from": el, "to": sh},
                                   "secondary": {"axis": "x", "from": el, "to": wr}, "distal": el,
                                   "track": "rules"}, "Plug-in Gait's humerus.")
    out.segment(f"{s}_lower_arm", {"markers": [wra, wrb] + fra, "use_joint": True, "origin": el,
                                   "primary": {"axis": "z", "from": wr, "to": el},
                                   "secondary": {"axis": "y", "like": f"{s}_upper_arm:y"}, "distal": wr,
                                   "track": "rules"}, "Plug-in Gait's radius.")
    out.segment(f"{s}_hand", {"markers": [wra, wrb] + fin, "use_joint": True, "origin": wr,
                              "primary": {"axis": "z", "from": f"{s}_hand_centre", "to": wr},
                              "secondary": {"axis": "y", "from": wra if right else wrb, "to": wrb if right else wra},
                              "track": "rules"}, "Plug-in Gait's hand.")
    out.rules = [r for r in out.rules if not r.startswith(f"{s} arm:")]
    out.rules.append(f"{s} arm: chord-function shoulder, elbow and wrist centres (Plug-in Gait)")

