"""Pelvis and leg rules of a drafted marker set: hips, knees, ankles, thighs, shanks and feet.

* hips: Harrington et al. (2007) from both ASIS and the sacral marker or the
  PSIS pair; with three pelvis markers, the hip centres the thigh clusters see
  join the pelvis fit; with no pelvis marker but both greater trochanters and
  C7 (Biogesta's set), :data:`TROCHANTER_OFFSET` medial of the trochanters,
  the pelvis's y along them and its z towards C7 (its tilt is the trunk's);
* knees, ankles: midpoint of the epicondyle / malleolus pair; from a lone
  lateral (or medial) marker, half the joint width plus the marker radius
  along the pelvis's medio-lateral axis (Plug-in Gait's rule);
* thigh and shank y along the knee epicondyle line when both are present,
  else from the lateral marker towards the joint centre (right) or back
  (left); feet flat in the standing trial, x from heel to toe; without an
  ankle marker but with a heel marker, the ankle centre :data:`HEEL_TO_ANKLE`
  from the heel marker in the foot's frame, the shank tracked with the knee
  markers;
* Plug-in Gait's legs (:func:`plug_in_gait_legs`: one thigh wand, one tibia
  wand, a lateral knee and ankle marker, heel and toe on each side): the
  built-in ``plug_in_gait_lower`` set's rules, Davis et al. (1991) hips,
  chord-function knees and ankles in the wands' planes, frames rebuilt from
  each frame's markers, the shank turned by the tibial torsion and the foot
  from heel -> toe with the ankle's flexion axis.

Each function adds to the set under construction
(:class:`humanbody.tools.draft_plan.Drafting`).
"""

from __future__ import annotations

from ..errors import InputError
from .draft_plan import DEFAULT_WIDTHS, Drafting

#: m: the hip centre medial of a greater-trochanter marker (no pelvis marker).  An adult's bitrochanteric
#: breadth, 0.34-0.36 m over the skin (marker centres about 0.36 m apart), less the hip centres' 0.18 m
#: (Harrington et al. 2007: 0.33 PW + 7.3 mm from the midline, inter-ASIS width PW about 0.25 m), halved.
TROCHANTER_OFFSET = 0.09

#: m: the ankle centre from a heel marker in the foot's frame (x forward, z up), no ankle marker: an adult's
#: ankle centre 0.039 of the height above the floor (Winter 2009, about 0.068 m) less the heel marker's
#: 0.025 m, and a fifth of the 0.26 m foot length forward of the heel's back surface (0.05 m) plus the
#: marker radius.
HEEL_TO_ANKLE = (0.06, 0.045)


def plug_in_gait_legs(mk) -> bool:
    """Whether both legs carry Plug-in Gait's markers: one thigh wand, one tibia wand, lateral knee
    and ankle, heel and toe (under any names the vocabulary reads), so the legs are built as Plug-in Gait's.

    Parameters
    ----------
    mk : LandmarkMarkers
        The trial's markers by landmark.

    Returns
    -------
    bool
        True when both legs do.
    """
    for s in ("right", "left"):
        if len(mk("thigh", s)) != 1 or mk("trochanter", s) or len(mk("shank", s)) != 1:
            return False
        if not (mk("knee", s, "lateral") and mk("ankle", s, "lateral") and mk("heel", s)):
            return False
        if not [t for t in mk("toe", s) if not {"lateral", "medial"} & _mods(mk, t)]:
            return False
    return True


def _mods(mk, name):
    return next(g.modifiers for g in mk.g if g.name == name)


def read_onto(mk) -> str:
    """What the draft made of the markers, for a refusal: ``"the draft read 28 markers onto right/left
    foot, ..."`` (the segments in the model's order, a right/left pair named once).

    Parameters
    ----------
    mk : LandmarkMarkers
        The draft's used markers ``mk.g``, each with the segment it was read onto (or none).

    Returns
    -------
    str
        One clause naming the number of markers and the segments they went to.
    """
    segs = list(dict.fromkeys(g.segment for g in mk.g if g.segment))
    named, done = [], set()
    for seg in segs:
        bare = seg.removeprefix("right_").removeprefix("left_")
        if bare in done:
            continue
        done.add(bare)
        pair = bare != seg and {f"right_{bare}", f"left_{bare}"} <= set(segs)
        side = "right/left " if pair else (seg[: -len(bare)].replace("_", " ") if bare != seg else "")
        named.append(side + bare.replace("_", " "))
    return f"the draft read {len(mk.g)} markers onto " + ", ".join(named)


def draft_pelvis(mk, out: Drafting, davis: bool = False) -> None:
    """The pelvis (lower torso): its origin midway between the hip centres (Harrington et al. 2007,
    or Davis et al. 1991 as Plug-in Gait's), its frame from the ASIS and the sacral (or mid-PSIS) markers.

    Parameters
    ----------
    mk : LandmarkMarkers
        The used markers by landmark role, side and modifier.
    out : Drafting
        The set being drafted (points, segments, parameters, checks added here).
    davis : bool
        Davis's hip regression and Plug-in Gait's frame in every frame, instead of Harrington's.

    Raises
    ------
    InputError
        Without any pelvis marker (the message names what the markers were read onto and ``--markerset``
        as the way on), without a right and a left ASIS marker, or without a sacral or PSIS marker.
    """
    ra, la = mk("asis", "right"), mk("asis", "left")
    rp, lp, sac = mk("psis", "right"), mk("psis", "left"), mk("sacrum")
    if not (ra or la or rp or lp or sac or mk.on("lower_torso")):
        if mk("trochanter", "right") and mk("trochanter", "left") and mk("c7") and not davis:
            _trochanter_pelvis(mk, out)
            return
        read = f"{read_onto(mk)}, none onto the pelvis" if mk.g else "none of its marker names reads as a landmark"
        raise InputError(f"has no pelvis marker (no ASIS, sacral or PSIS marker such as RASI, SACR, RPSI): "
                         f"{read}; define the pelvis from this lab's markers in a "
                         f"marker-set file (.toml, docs/markersets.md) and give its path with `markerset`")
    if not ra or not la:
        raise InputError("needs a right and a left ASIS marker to build the pelvis; found "
                         f"{len(ra)} right and {len(la)} left (names such as RASI, R.ASIS, asis_r)")
    sacral = sac[:1] if sac else (rp[:1] + lp[:1] if rp and lp else (rp or lp)[:1])
    if not sacral:
        raise InputError("needs a sacral marker or PSIS markers to build the pelvis "
                         "(names such as SACR, V.Sacral, S2, RPSI/LPSI)")
    ra, la = ra[0], la[0]
    out.need(ra, la, *sacral)
    out.point("mid_asis", {"mean": [ra, la]})
    back = sacral[0]
    if len(sacral) > 1:
        out.point("sacral", {"mean": sacral}, "Mid-PSIS.")
        back = "sacral"
    out.point("mid_hip", {"mean": ["right_hip", "left_hip"]})
    if davis:
        out.params["davis_theta"] = (0.500000178813934, "rad: Davis et al. (1991) 28.4 deg as Vicon's Plug-in Gait")
        out.params["davis_beta"] = (0.314000427722931, "rad: Davis et al. (1991) 18 deg as Vicon's Plug-in Gait")
    for side in ("right", "left"):
        if davis:  # leg length ASIS -> lateral knee -> lateral ankle, as plug_in_gait without a subject file
            asi = ra if side == "right" else la
            chain = [asi, mk("knee", side, "lateral")[0], mk("ankle", side, "lateral")[0]]
            out.point(f"{side}_hip", {"regression": "davis1991", "side": side, "asis": [ra, la], "sacrum": sacral,
                                      "leg_length": [chain]},
                      "Davis et al. (1991) Hum Mov Sci 10:575, Plug-in Gait's hip; leg length ASIS -> knee "
                      "-> ankle marker, or the subject file's right/left_leg_length.")
        else:
            out.point(f"{side}_hip", {"regression": "harrington2007", "side": side, "asis": [ra, la],
                                      "sacrum": sacral},
                      "Harrington et al. (2007) J Biomech 40:595, from pelvis width and depth.")
    markers = [ra, la] + [m for m in mk("asis") + mk("psis") + mk("sacrum") if m not in (ra, la)] + mk.on("lower_torso")
    table = {"markers": list(dict.fromkeys(markers)), "origin": "mid_hip",
             "primary": {"axis": "y", "from": ra, "to": la},
             "secondary": {"axis": "x", "from": back, "to": "mid_asis"}, "distal": "lumbar"}
    if davis:
        table["track"] = "rules"
    out.segment("lower_torso", table, *(["Plug-in Gait: the frame from its markers in every frame."] if davis else []))
    how = "Davis et al. 1991 (Plug-in Gait)" if davis else "Harrington et al. 2007"
    out.rules.append(f"hips: {how} from {ra}, {la} and {' + '.join(sacral)}")


def _trochanter_pelvis(mk, out: Drafting) -> None:
    """A pelvis without pelvis markers, from both greater-trochanter markers and C7 (Biogesta's set).

    Hip centres :data:`TROCHANTER_OFFSET` medial of the trochanter markers along the pelvis's y axis; the
    pelvis's y from the right to the left trochanter, its z towards C7, its origin midway between the hips,
    tracked by the three markers.  Its tilt is the trunk's: hip flexion is measured from the line to C7 (an
    anatomical pelvis tilts about 10 degrees further forward), and the trochanters turn a little with the thighs.
    """
    rt, lt, c7 = mk("trochanter", "right")[0], mk("trochanter", "left")[0], mk("c7")[0]
    out.need(rt, lt, c7)
    out.params["trochanter_offset"] = (TROCHANTER_OFFSET, "m: the hip centre medial of the trochanter marker")
    out.point("mid_trochanter", {"mean": [rt, lt]})
    out.point("mid_hip", {"mean": ["right_hip", "left_hip"]})
    for side, marker, sign in (("right", rt, ""), ("left", lt, "-")):
        out.point(f"{side}_hip", {"from": marker, "offset": [0.0, sign + "trochanter_offset", 0.0],
                                  "frame": "lower_torso"},
                  "No pelvis marker: the hip centre medial of the trochanter marker along the pelvis's y axis.")
    note = out.check("no pelvis marker: the pelvis from the trochanters and C7, its tilt the trunk's (hip flexion "
                     "from the trunk's line, about 10 deg less than from an anatomical pelvis), hip centres "
                     f"{TROCHANTER_OFFSET:.2f} m medial of the trochanter markers (trochanter_offset)")
    out.segment("lower_torso", {"markers": [rt, lt, c7], "origin": "mid_hip",
                                "primary": {"axis": "y", "from": rt, "to": lt},
                                "secondary": {"axis": "z", "from": "mid_trochanter", "to": c7},
                                "distal": "lumbar"}, note)
    out.rules.append(f"hips: {TROCHANTER_OFFSET:.2f} m medial of the trochanters {rt}, {lt} (no pelvis marker); "
                     f"pelvis y along them, z to {c7}")


def draft_pelvis_with_hips(mk, out: Drafting) -> None:
    """Three pelvis markers (one sacral): the hip centres the thigh clusters see join the pelvis fit.

    As in the built-in gait2392 set (``child_joints``, docs/markersets.md):
    each thigh needs three markers of its own, besides joint markers that
    may be static-only.

    Parameters
    ----------
    mk : LandmarkMarkers
        The used markers by landmark role, side and modifier.
    out : Drafting
        The set being drafted (points, segments, parameters, checks added here).
    """
    table, comment = out.segments["lower_torso"]
    if "mid_trochanter" in out.points:  # a pelvis of trochanters: its markers ride on the thighs already
        return
    thighs = [f"{s}_upper_leg" for s in ("right", "left") if len(mk("thigh", s) + mk("trochanter", s)) >= 3]
    if len(table["markers"]) == 3 and len(thighs) == 2:
        table["child_joints"] = thighs
        out.segments["lower_torso"] = (table, comment + [
            "Three pelvis markers, one of them sacral: the hip centres the thigh clusters see join the "
            "pelvis fit (child_joints, docs/markersets.md)."])
        out.rules.append("pelvis: fitted with the hip centres its thigh clusters see (three pelvis markers)")


def _joint_width_param(out: Drafting, joint: str, widths: dict, radius: float) -> str:
    key = f"{joint}_offset"
    if key not in out.params:
        w = widths.get(joint)
        if w is None:
            w = DEFAULT_WIDTHS[joint]
            out.check(f"{joint} centres are offset from one marker by half an average adult {joint} width "
                      f"({w:.3f} m) plus the marker radius: measure the subject's {joint} width and set {key}")
        out.params["marker_radius"] = (radius, "m")
        out.params[key] = (round(w / 2 + radius, 5), f"m: {joint} width {w:.3f} m / 2 + marker radius")
    return key


def _centre(mk, out, side, joint, role, frame, widths, radius):
    """Centre of a knee or an ankle: pair midpoint, else one marker offset by the half width."""
    lat, med = mk(role, side, "lateral")[:1], mk(role, side, "medial")[:1]
    sign = "" if side == "right" else "-"  # medial is +y on the right, -y on the left
    pname = f"{side}_{joint}"
    if lat and med:
        out.point(pname, {"mean": [lat[0], med[0]]}, f"Midpoint of the lateral and medial {role} markers.")
        return lat, med, "pair"
    key = _joint_width_param(out, joint, widths, radius)
    if lat:
        out.point(pname, {"from": lat[0], "offset": [0.0, sign + key, 0.0], "frame": frame},
                  f"Lateral {role} marker moved medially by {key} along the {frame} y axis (Plug-in Gait).")
        return lat, med, "lateral"
    out.point(pname, {"from": med[0], "offset": [0.0, ("-" if not sign else "") + key, 0.0], "frame": frame},
              out.check(f"{pname}: only a medial {role} marker ({med[0]}): centre placed laterally of it"))
    return lat, med, "medial"


def draft_leg(mk, out: Drafting, side: str, widths, radius, pig: bool = False) -> None:
    """One leg: knee and ankle centres (from the lateral and medial markers, else a joint width from
    the lateral one), the thigh, shank and foot segments and their marker clusters.

    Parameters
    ----------
    mk : LandmarkMarkers
        The used markers by landmark role, side and modifier.
    out : Drafting
        The set being drafted (points, segments, parameters, checks added here).
    side : {"right", "left"}
        The leg's side.
    widths : dict
        Joint widths (m) by joint, ``knee`` and ``ankle``.
    radius : float
        Marker radius (m).
    pig : bool
        Build the leg as Plug-in Gait's (wands, KJC and AJC by the chord function).
    """
    s = side
    if pig:
        _pig_leg(mk, out, s, widths, radius)
        return
    knee_all, ankle_all = mk("knee", s), mk("ankle", s)
    if not knee_all:
        raise InputError(f"has no {s} knee marker (epicondyle or lateral knee marker, e.g. "
                         f"{'RKNE' if s == 'right' else 'LKNE'}): cannot place the {s} knee centre")
    heel = mk("heel", s)
    if not ankle_all and not heel:
        raise InputError(f"has no {s} ankle marker (malleolus, e.g. {'RANK' if s == 'right' else 'LANK'}): "
                         f"cannot place the {s} ankle centre")
    klat, kmed, kind = _centre(mk, out, s, "knee", "knee", "lower_torso", widths, radius)
    if ankle_all:
        alat, amed, akind = _centre(mk, out, s, "ankle", "ankle", "lower_torso", widths, radius)
    else:  # the ankle centre from the heel marker in the foot's frame, whose axes need no ankle centre
        alat, amed, akind = [], [], "heel"
        for key, value in zip(("heel_to_ankle_x", "heel_to_ankle_z"), HEEL_TO_ANKLE, strict=True):
            out.params[key] = (value, "m: the ankle centre from the heel marker, foot frame (no ankle marker)")
        out.point(f"{s}_ankle", {"from": heel[0], "offset": ["heel_to_ankle_x", 0.0, "heel_to_ankle_z"],
                                 "frame": f"{s}_foot"},
                  out.check(f"no {s} ankle marker: the {s} ankle centre {HEEL_TO_ANKLE[0]:.3f} m forward of and "
                            f"{HEEL_TO_ANKLE[1]:.3f} m above the heel marker {heel[0]} (an average adult's)"))
    out.rules.append(f"{s} knee: {_how(kind, 'epicondyle')}; {s} ankle: {_how(akind, 'malleolus')}")

    thigh = mk("thigh", s) + mk("trochanter", s)
    cluster = thigh + knee_all + mk.on(f"{s}_upper_leg")
    if len(cluster) < 2:
        raise InputError(f"has too few {s} thigh markers: a thigh needs two markers besides the hip centre "
                         f"(found {', '.join(cluster) or 'none'})")
    out.need(*thigh)
    if len(thigh) < 2:
        out.need(*(klat + kmed)[: 2 - len(thigh)])
    y = _leg_y(s, klat, kmed, f"{s}_knee")
    # a pelvis of trochanters follows the trunk's tilt: a thigh with three markers of its own keeps its hip
    # centre out of its fit (the trochanter rides on it), so the knee and ankle are the thigh's own
    use_joint = "mid_trochanter" not in out.points or len(cluster) < 3
    out.segment(f"{s}_upper_leg", {"markers": cluster, "use_joint": use_joint, "origin": f"{s}_hip",
                                   "primary": {"axis": "z", "from": f"{s}_knee", "to": f"{s}_hip"},
                                   "secondary": y, "distal": f"{s}_knee"})

    shank = mk("shank", s)
    # without ankle markers the knee markers join the shank's cluster (as Plug-in Gait's KNE does)
    cluster = shank + (ankle_all or list(dict.fromkeys(klat + kmed))) + mk.on(f"{s}_lower_leg")
    use_joint = len(shank) < 3
    if len(cluster) + use_joint < 3:
        raise InputError(f"has too few {s} shank markers: a shank needs two markers besides the knee centre "
                         f"(found {', '.join(cluster) or 'none'})")
    out.need(*shank)
    if len(shank) + use_joint < 3:
        out.need(*(alat + amed)[: 3 - len(shank) - use_joint])
    by_knee = (klat and kmed) or not (alat or amed)  # no ankle marker: the knee's, one marker and its centre
    y = _leg_y(s, klat, kmed, f"{s}_knee") if by_knee else _leg_y(s, alat, amed, f"{s}_ankle")
    out.segment(f"{s}_lower_leg", {"markers": cluster, "use_joint": use_joint, "origin": f"{s}_knee",
                                   "primary": {"axis": "z", "from": f"{s}_ankle", "to": f"{s}_knee"},
                                   "secondary": y, "distal": f"{s}_ankle"})
    _foot(mk, out, s)


def _how(kind: str, what: str) -> str:
    return {"pair": f"midpoint of the {what} pair", "lateral": "lateral marker + half the joint width",
            "medial": "medial marker + half the joint width (CHECK)",
            "heel": "from the heel marker in the foot frame (CHECK)"}[kind]


def _leg_y(side, lat, med, centre):
    """y axis (left) of a right/left leg segment from the lateral/medial markers or a marker and the centre."""
    if lat and med:
        a, b = (lat[0], med[0]) if side == "right" else (med[0], lat[0])
    elif lat:
        a, b = (lat[0], centre) if side == "right" else (centre, lat[0])
    else:
        a, b = (centre, med[0]) if side == "right" else (med[0], centre)
    return {"axis": "y", "from": a, "to": b}


def _foot(mk, out: Drafting, s: str) -> None:
    heel = mk("heel", s)
    toes, m1, m5, mid = mk("toe", s), mk("mt1", s), mk("mt5", s), mk("midfoot", s)
    mods = {g.name: g.modifiers for g in mk.g}
    tips = [t for t in toes if not mods[t] & {"lateral", "medial"}]
    if tips:
        toe, toe_markers = tips[0], tips[:1]
    elif m1 and m5:
        toe, toe_markers = f"{s}_toe", [m1[0], m5[0]]
        out.point(toe, {"mean": toe_markers}, "Between the first and fifth metatarsal heads.")
    elif toes or m1 or m5:
        toe_markers = (toes + m1 + m5)
        toe = f"{s}_toe"
        out.point(toe, {"mean": toe_markers})
    elif mid:  # a lone "met" marker on the forefoot (the Davis set's metatarsal head as BTS names it)
        toe, toe_markers = mid[0], mid[:1]
        out.check(f"no {s} toe marker: the {s} foot's long axis runs to the forefoot marker {mid[0]}")
    else:
        raise InputError(f"has no {s} toe or metatarsal marker (e.g. {'RTOE' if s == 'right' else 'LTOE'}, "
                         f"{s[0]}_mt1): cannot build the {s} foot")
    cluster = list(dict.fromkeys(heel + toes + m1 + m5 + mid + mk.on(f"{s}_foot")))
    use_joint = len(cluster) < 3
    start = heel[0] if heel else f"{s}_ankle"
    note = "" if heel else out.check(f"no {s} heel marker: the {s} foot's long axis runs from the ankle centre")
    out.need(*(heel[:1] + toe_markers))
    table = {"markers": cluster, "use_joint": use_joint, "origin": f"{s}_ankle",
             "primary": {"axis": "z", "ground": [0.0, 0.0, 1.0]},
             "secondary": {"axis": "x", "from": start, "to": toe}, "length": [start, toe]}
    out.segment(f"{s}_foot", table, "Foot flat in the static trial: z = ground vertical, x = heel -> toe.", note)


def _pig_param(out: Drafting, key: str, value: float, comment: str) -> str:
    out.params.setdefault(key, (value, comment))
    return key


def _pig_leg(mk, out: Drafting, s: str, widths, radius) -> None:
    """One leg as the built-in ``plug_in_gait_lower`` set builds it (docs/markersets.md, "Plug-in Gait").

    Knee centre: the chord function in the plane (thigh wand, hip centre, lateral knee marker), half the knee
    width plus the marker radius from the marker, the marker-to-centre line perpendicular to the
    hip -> knee line; ankle centre likewise in the plane (tibia wand, knee centre, lateral ankle marker).
    Thigh: z knee -> hip, y along the knee marker -> centre line; shank: z ankle -> knee, y along the ankle
    marker -> centre line, turned by minus the tibial torsion about z; foot: x heel -> toe in the static
    trial, y the ankle's flexion axis, tracked as ankle centre -> toe turned by the static offsets.  Medial
    knee / ankle markers in the static trial give the wands' rotation offsets (the lateral marker mirrored
    through the medial one is on the epicondylar / malleolar axis), as the built-in set.
    """
    thi, tib = mk("thigh", s)[0], mk("shank", s)[0]
    kne, ank = mk("knee", s, "lateral")[0], mk("ankle", s, "lateral")[0]
    kmed, amed = mk("knee", s, "medial")[:1], mk("ankle", s, "medial")[:1]
    hee = mk("heel", s)[0]
    toe = [t for t in mk("toe", s) if not {"lateral", "medial"} & _mods(mk, t)][0]
    out.params["marker_radius"] = (radius, "m (a subject file's MarkerDiameter / 2 replaces it)")
    for joint in ("knee", "ankle"):
        w = widths.get(joint)
        if w is None:
            w = DEFAULT_WIDTHS[joint]
            out.check(f"{joint} centres are {joint} width / 2 + marker radius from the lateral marker, with an "
                      f"average adult's {joint} width ({w:.3f} m): give the subject's (--{joint}-width, or "
                      f"a subject file's right/left_{joint}_width when analysing)")
        _pig_param(out, f"{s}_{joint}_width", w, "m")
    torsion = _pig_param(out, f"{s}_tibial_torsion", 0.0, "rad (a subject file's replaces it)")
    thigh_turn = _pig_param(out, f"{s}_thigh_rotation", 0.0, "rad: thigh wand rotation offset")
    shank_turn = _pig_param(out, f"{s}_shank_rotation", 0.0, "rad: tibia wand rotation offset")
    out.check("tibial torsion is taken as 0: give the subject's (a subject file's right/left_tibial_torsion, rad) "
              "for Plug-in Gait's ankle axis")
    knee = {"chord": [thi, f"{s}_hip", kne], "width": f"{s}_knee_width", "turn": thigh_turn, "side": s}
    ankle = {"chord": [tib, f"{s}_knee", ank], "width": f"{s}_ankle_width", "turn": shank_turn, "side": s}
    if kmed:
        out.point(f"{s}_knee_medial_mirror", {"between": [kmed[0], kne], "fraction": 2.0},
                  f"{kne} mirrored through {kmed[0]}: on the epicondylar axis beyond the medial marker.")
        knee["calibrate_wand"] = [f"{s}_knee_medial_mirror"]
    if amed:
        out.point(f"{s}_ankle_medial_mirror", {"between": [amed[0], ank], "fraction": 2.0},
                  f"{ank} mirrored through {amed[0]}: on the malleolar axis beyond the medial marker.")
        ankle["calibrate_wand"] = [f"{s}_ankle_medial_mirror"]
    out.point(f"{s}_knee", knee, f"Chord function (Plug-in Gait): in the plane ({thi}, hip centre, {kne}), "
              f"{s}_knee_width / 2 + marker radius from {kne}" + (f"; the wand's offset from {kmed[0]}." if kmed else "."))
    out.point(f"{s}_ankle", ankle, f"Chord function (Plug-in Gait): in the plane ({tib}, knee centre, {ank}), "
              f"{s}_ankle_width / 2 + marker radius from {ank}" + (f"; the wand's offset from {amed[0]}." if amed else "."))
    out.need(thi, kne, tib, ank, hee, toe)
    right = s == "right"
    minus, plus = ("-", "") if right else ("", "-")  # Vicon's tibial torsion is mirrored: Rz(-s t) at the knee
    ky = {"axis": "y", "from": kne, "to": f"{s}_knee"} if right else {"axis": "y", "from": f"{s}_knee", "to": kne}
    ay = {"axis": "y", "from": ank, "to": f"{s}_ankle"} if right else {"axis": "y", "from": f"{s}_ankle", "to": ank}
    out.segment(f"{s}_upper_leg", {"markers": [thi, kne], "use_joint": True, "origin": f"{s}_hip",
                                   "primary": {"axis": "z", "from": f"{s}_knee", "to": f"{s}_hip"},
                                   "secondary": ky, "distal": f"{s}_knee", "track": "rules"},
                "Plug-in Gait's thigh, rebuilt from its markers in every frame.")
    out.segment(f"{s}_lower_leg", {"markers": [tib, ank], "use_joint": True, "origin": f"{s}_knee",
                                   "primary": {"axis": "z", "from": f"{s}_ankle", "to": f"{s}_knee"},
                                   "secondary": ay, "distal": f"{s}_ankle", "twist": minus + torsion,
                                   "track": "rules"},
                "Plug-in Gait's shank: the tibia wand's plane turned by minus the tibial torsion about z.")
    ankle_axis = {"axis": "y", "like": f"{s}_lower_leg:y", "twist": plus + torsion}
    out.segment(f"{s}_foot", {"markers": [hee, toe], "use_joint": True, "origin": f"{s}_ankle",
                              "primary": {"axis": "x", "from": hee, "to": toe}, "secondary": ankle_axis,
                              "length": [hee, toe],
                              "track": {"primary": {"axis": "x", "from": f"{s}_ankle", "to": toe},
                                        "secondary": {"axis": "y", "like": f"{s}_lower_leg:y"}}},
                "Plug-in Gait's foot: x heel -> toe in the static trial, y the ankle's flexion axis; tracked as "
                "ankle centre -> toe with the knee's shank y (the tibia with its torsion, as Nexus) turned by "
                "the static offsets.")
    how = f"chord function from {thi} and {kne}" + (f" (offset from {kmed[0]})" if kmed else "")
    ahow = f"chord function from {tib} and {ank}" + (f" (offset from {amed[0]})" if amed else "")
    out.rules.append(f"{s} knee: {how}; {s} ankle: {ahow} (Plug-in Gait)")
