"""Joint-centre and frame rules for a drafted marker set, and its TOML text.

:func:`plan` takes the checked markers of :mod:`humanbody.markers.draft`
and chooses, from the landmarks present, the rules the marker-set format
supports (docs/markersets.md):

* hips: Harrington et al. (2007) from both ASIS and the sacral marker or
  the PSIS pair (``humanbody/markers/joint_centres.py``);
* knees, ankles: midpoint of the epicondyle / malleolus pair; from a lone
  lateral (or medial) marker, half the joint width plus the marker radius
  along the pelvis's medio-lateral axis (Plug-in Gait's rule);
* trunk: Plug-in Gait's thorax with C7, T10, clavicle and sternum markers,
  else the acromion line; lumbar and thoracic joints at de Leva's (1996)
  fractions 0.274 and 0.679 of mid-hip -> lower neck;
* shoulders: 17 % of the bi-acromial distance below the acromion (Rab et
  al. 2002); elbows at the midpoint of the epicondyle markers, or at a lone
  elbow marker (the arms may be held out in the standing trial, so there is
  no fixed medial direction); wrists at the middle of the wrist markers;
* head: top-of-head marker and a left/right pair (gait2392's frame), else
  front and back markers level in the standing trial (Plug-in Gait's);
* a joint with no marker at all: placed from its parent joint by the joint
  offset of the default model scaled to the subject's height (arms hanging,
  as in the reference pose), and its segment moves rigidly with its parent.

Frames follow docs/conventions.md: x forward, y left, z up along the long
axis; thigh and shank y along the knee epicondyle line when both are
present, else from the lateral marker towards the joint centre (right) or
back (left); feet flat in the standing trial.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..segments import PARENTS, SEGMENT_NAMES

__all__ = ["Plan", "plan", "DEFAULT_WIDTHS"]

#: Joint widths (m) of an average adult, used when not measured (as ``plugin_gait``).
DEFAULT_WIDTHS = {"knee": 0.105, "ankle": 0.075}
#: Origin point of each segment (its proximal joint centre).
ORIGIN = {"lower_torso": "mid_hip", "middle_torso": "lumbar", "upper_torso": "thoracic", "neck": "lower_neck",
          "head": "upper_neck"}
for _s in ("right", "left"):
    ORIGIN.update({f"{_s}_upper_leg": f"{_s}_hip", f"{_s}_lower_leg": f"{_s}_knee", f"{_s}_foot": f"{_s}_ankle",
                   f"{_s}_upper_arm": f"{_s}_shoulder", f"{_s}_lower_arm": f"{_s}_elbow",
                   f"{_s}_hand": f"{_s}_wrist"})


@dataclass
class Plan:
    """The drafted set: TOML text, the CHECK list and one line per chosen rule."""

    text: str
    checks: list
    rules: list
    height_rule: bool


@dataclass
class _Out:
    points: dict = field(default_factory=dict)      # name -> (rule or list of rules, comment lines)
    segments: dict = field(default_factory=dict)    # name -> (table, comment lines)
    params: dict = field(default_factory=dict)      # name -> (value, comment)
    required: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    rules: list = field(default_factory=list)
    estimated: list = field(default_factory=list)   # joint points with no marker
    rigid: list = field(default_factory=list)       # segments moving with another

    def point(self, name, rule, *comment):
        self.points[name] = (rule, [c for c in comment if c])

    def segment(self, name, table, *comment):
        self.segments[name] = (table, [c for c in comment if c])

    def need(self, *names):
        for n in names:
            if n not in self.required:
                self.required.append(n)

    def check(self, text):
        if text not in self.checks:
            self.checks.append(text)
        return f"CHECK: {text}"


class _Marks:
    """The used markers by landmark role, side and modifier (trial order)."""

    def __init__(self, guesses):
        self.g = [m for m in guesses if m.used]

    def __call__(self, role, side=None, mod=None, segment=None):
        out = []
        for m in self.g:
            if m.role != role or (side is not None and m.side != side):
                continue
            if mod is not None and mod not in m.modifiers:
                continue
            if segment is not None and m.segment != segment:
                continue
            out.append(m.name)
        return out

    def on(self, segment):
        """Markers guessed onto a segment from their position (tracking only)."""
        return [m.name for m in self.g if m.how == "position" and m.segment == segment]


def _reference_offsets(height: float) -> np.ndarray:
    """Joint offsets xi_k (m) of the default model scaled to ``height``, reference pose (frames parallel)."""
    from ..model import BodyModel

    return np.asarray(BodyModel.default(mass=75.0, height=height).joint_offset, dtype=float)


def _estimate(out: _Out, seg: str, xi: np.ndarray, frame: str) -> None:
    """Origin of ``seg`` placed from its parent's origin by the default model's joint offset."""
    k = SEGMENT_NAMES.index(seg)
    parent = SEGMENT_NAMES[PARENTS[k] - 1]
    off = [round(float(v), 4) for v in xi[k]]
    out.estimated.append(ORIGIN[seg])
    out.point(ORIGIN[seg], {"from": ORIGIN[parent], "offset": off, "frame": frame},
              f"CHECK: no marker: {off} m from {ORIGIN[parent]} (default model scaled to the subject's height).")


def _rigid(out: _Out, seg: str, to: str, why: str, **extra) -> None:
    """A segment with too few markers moves with ``to`` (static relative pose)."""
    out.rigid.append(seg)
    out.segment(seg, {"rule": "rigid", "to": to, "origin": ORIGIN[seg], **extra}, f"CHECK: {why}: moves with {to}.")


def plan(guesses, height: float, midline: float, name: str, source: str, widths=None,
         marker_radius: float = 0.007) -> Plan:
    """Choose points and segment rules for the checked markers and write the TOML text.

    Parameters
    ----------
    guesses : list of MarkerGuess
        :func:`humanbody.markers.draft.classify` output.
    height : float
        Standing height (m): scales the default model for joints with no marker.
    midline : float
        Lateral position of the body midline (m, ground y).
    name, source : str
        Name of the set and the standing trial it is drafted from.
    widths : dict, optional
        ``knee`` and ``ankle`` widths (m) or None (average adult).
    marker_radius : float
        Marker radius (m) added to half a joint width.

    Returns
    -------
    Plan

    Raises
    ------
    InputError
        Too few markers for the pelvis or for either leg (the message says which).
    """
    mk = _Marks(guesses)
    out = _Out()
    xi = _reference_offsets(height)
    widths = {k: (v if v is not None else None) for k, v in (widths or {}).items()}
    _pelvis(mk, out)
    for side in ("right", "left"):
        _leg(mk, out, side, widths, marker_radius)
    _pelvis_with_hips(mk, out)
    _trunk(mk, out, xi)
    has_top = _head(mk, out, xi)
    for side in ("right", "left"):
        _arm(mk, out, side, xi, widths, marker_radius)
    floor = [m for r in ("heel", "toe", "mt1", "mt5", "midfoot") for m in mk(r)]
    out.params["height_floor"] = (floor, "lowest of these is the floor for the height estimate")
    first = []
    if not has_top:
        first.append("no head markers: the subject's height cannot be estimated; give --height when analysing")
    if out.estimated:
        first.append(f"joints with no marker, placed from their parent joint by the default model scaled to "
                     f"{height:.2f} m: {', '.join(out.estimated)}")
    if out.rigid:
        first.append(f"segments with too few markers, moving rigidly with their parent: {', '.join(out.rigid)}")
    out.checks[:0] = first
    from .draft_text import rename_points, toml_text

    rename_points(out, [g.name for g in guesses])
    text = toml_text(out, guesses, name, source)
    return Plan(text=text, checks=out.checks, rules=out.rules, height_rule=has_top)


# ------------------------------------------------------------------ pelvis and legs
def _pelvis(mk, out: _Out) -> None:
    ra, la = mk("asis", "right"), mk("asis", "left")
    rp, lp, sac = mk("psis", "right"), mk("psis", "left"), mk("sacrum")
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
    for side in ("right", "left"):
        out.point(f"{side}_hip", {"regression": "harrington2007", "side": side, "asis": [ra, la], "sacrum": sacral},
                  "Harrington et al. (2007) J Biomech 40:595, from pelvis width and depth.")
    markers = [ra, la] + [m for m in mk("asis") + mk("psis") + mk("sacrum") if m not in (ra, la)] + mk.on("lower_torso")
    out.segment("lower_torso", {"markers": list(dict.fromkeys(markers)), "origin": "mid_hip",
                                "primary": {"axis": "y", "from": ra, "to": la},
                                "secondary": {"axis": "x", "from": back, "to": "mid_asis"}, "distal": "lumbar"})
    out.rules.append(f"hips: Harrington et al. 2007 from {ra}, {la} and {' + '.join(sacral)}")


def _pelvis_with_hips(mk, out: _Out) -> None:
    """Three pelvis markers (one sacral): the hip centres the thigh clusters see join the pelvis fit.

    As in the built-in gait2392 set (``child_joints``, docs/markersets.md):
    each thigh needs three markers of its own, besides joint markers that
    may be static-only.
    """
    table, comment = out.segments["lower_torso"]
    thighs = [f"{s}_upper_leg" for s in ("right", "left") if len(mk("thigh", s) + mk("trochanter", s)) >= 3]
    if len(table["markers"]) == 3 and len(thighs) == 2:
        table["child_joints"] = thighs
        out.segments["lower_torso"] = (table, comment + [
            "Three pelvis markers, one of them sacral: the hip centres the thigh clusters see join the "
            "pelvis fit (child_joints, docs/markersets.md)."])
        out.rules.append("pelvis: fitted with the hip centres its thigh clusters see (three pelvis markers)")


def _joint_width_param(out: _Out, joint: str, widths: dict, radius: float) -> str:
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


def _leg(mk, out: _Out, side: str, widths, radius) -> None:
    s = side
    knee_all, ankle_all = mk("knee", s), mk("ankle", s)
    if not knee_all:
        raise InputError(f"has no {s} knee marker (epicondyle or lateral knee marker, e.g. "
                         f"{'RKNE' if s == 'right' else 'LKNE'}): cannot place the {s} knee centre")
    if not ankle_all:
        raise InputError(f"has no {s} ankle marker (malleolus, e.g. {'RANK' if s == 'right' else 'LANK'}): "
                         f"cannot place the {s} ankle centre")
    klat, kmed, kind = _centre(mk, out, s, "knee", "knee", "lower_torso", widths, radius)
    alat, amed, akind = _centre(mk, out, s, "ankle", "ankle", "lower_torso", widths, radius)
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
    out.segment(f"{s}_upper_leg", {"markers": cluster, "use_joint": True, "origin": f"{s}_hip",
                                   "primary": {"axis": "z", "from": f"{s}_knee", "to": f"{s}_hip"},
                                   "secondary": y, "distal": f"{s}_knee"})

    shank = mk("shank", s)
    cluster = shank + ankle_all + mk.on(f"{s}_lower_leg")
    use_joint = len(shank) < 3
    if len(cluster) + use_joint < 3:
        raise InputError(f"has too few {s} shank markers: a shank needs two markers besides the knee centre "
                         f"(found {', '.join(cluster) or 'none'})")
    out.need(*shank)
    if len(shank) + use_joint < 3:
        out.need(*(alat + amed)[: 3 - len(shank) - use_joint])
    y = _leg_y(s, klat, kmed, f"{s}_knee") if klat and kmed else _leg_y(s, alat, amed, f"{s}_ankle")
    out.segment(f"{s}_lower_leg", {"markers": cluster, "use_joint": use_joint, "origin": f"{s}_knee",
                                   "primary": {"axis": "z", "from": f"{s}_ankle", "to": f"{s}_knee"},
                                   "secondary": y, "distal": f"{s}_ankle"})
    _foot(mk, out, s)


def _how(kind: str, what: str) -> str:
    return {"pair": f"midpoint of the {what} pair", "lateral": "lateral marker + half the joint width",
            "medial": "medial marker + half the joint width (CHECK)"}[kind]


def _leg_y(side, lat, med, centre):
    """y axis (left) of a right/left leg segment from the lateral/medial markers or a marker and the centre."""
    if lat and med:
        a, b = (lat[0], med[0]) if side == "right" else (med[0], lat[0])
    elif lat:
        a, b = (lat[0], centre) if side == "right" else (centre, lat[0])
    else:
        a, b = (centre, med[0]) if side == "right" else (med[0], centre)
    return {"axis": "y", "from": a, "to": b}


def _foot(mk, out: _Out, s: str) -> None:
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


# ------------------------------------------------------------------ trunk, head, arms
def _trunk(mk, out: _Out, xi) -> None:
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
            _estimate(out, seg, xi, "lower_torso")
    else:
        for p, f in (("lumbar", 0.274), ("thoracic", 0.679)):
            out.point(p, {"between": ["mid_hip", "lower_neck"], "fraction": f},
                      f"de Leva (1996) boundary at {f} of mid-hip -> lower neck.")
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
        out.need(*cluster)
        out.segment("upper_torso", {"markers": cluster, "origin": "thoracic", "primary": primary,
                                    "secondary": secondary, "distal": "lower_neck"}, how + ".")
        out.rules.append(f"trunk: {how}")
    else:
        _rigid(out, "middle_torso", "lower_torso", "fewer than three thorax markers", distal="thoracic")
        _rigid(out, "upper_torso", "middle_torso", "fewer than three thorax markers", distal="lower_neck")
        out.rules.append("trunk: too few thorax markers, trunk rigid with the pelvis")
        return
    out.segment("middle_torso", {"rule": "slerp", "between": ["lower_torso", "upper_torso"], "fraction": 0.5,
                                 "origin": "lumbar", "distal": "thoracic"})


def _head(mk, out: _Out, xi) -> bool:
    """Head and neck; True when a top-of-head point gives the height."""
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
        _estimate(out, "head", xi, "lower_torso")
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
        _rigid(out, "neck", "upper_torso", "fewer than three head markers", distal="upper_neck")
        _rigid(out, "head", "neck", "fewer than three head markers")
        out.rules.append("head: too few head markers, head and neck rigid with the thorax")
    if top:
        out.params["height_top"] = (top[0], "height = top-of-head marker - lowest foot marker")
        out.params["height_offset"] = (0.0, "m")
    elif hm:
        out.params["height_top"] = ("head_centre", "head markers sit about 0.12 m below the vertex")
        out.params["height_offset"] = (0.12, out.check("height offset of the head markers below the vertex "
                                                       "(0.12 m) is an estimate"))
    return bool(hm)


def _arm(mk, out: _Out, s: str, xi, widths, radius) -> None:
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
        _estimate(out, f"{s}_upper_arm", xi, "upper_torso")
    if len(elbows) >= 2:
        out.point(el, {"mean": elbows[:2]}, "Midpoint of the two elbow (epicondyle) markers.")
        how.append("elbow midpoint of the epicondyles")
    elif elbows:  # arms are often held out in the standing trial: no fixed medial direction to offset along
        out.check("a lone elbow marker is taken as the elbow centre (off by about half the elbow width along "
                  "the flexion axis); a medial elbow marker in the standing trial gives a better centre")
        out.point(el, {"mean": elbows[:1]}, f"CHECK: the lone {s} elbow marker taken as the elbow centre.")
        how.append("elbow at its one marker")
    else:
        _estimate(out, f"{s}_lower_arm", xi, "upper_torso")
    if wrists:
        out.point(wr, {"mean": wrists[:2]}, "Middle of the wrist markers." if len(wrists) > 1 else "")
    else:
        _estimate(out, f"{s}_hand", xi, "upper_torso")
    upper = ua + elbows + mk.on(f"{s}_upper_arm")
    if len(upper) >= 2:
        out.segment(f"{s}_upper_arm", {"markers": upper, "use_joint": True, "origin": sh,
                                       "primary": {"axis": "z", "from": el, "to": sh},
                                       "secondary": {"axis": "x", "like": "upper_torso:x"}, "distal": el})
    else:
        _rigid(out, f"{s}_upper_arm", "upper_torso", "fewer than two upper-arm markers", distal=el)
    lower = fa + wrists + mk.on(f"{s}_lower_arm")
    if len(lower) >= 2:
        out.segment(f"{s}_lower_arm", {"markers": lower, "use_joint": True, "origin": el,
                                       "primary": {"axis": "z", "from": wr, "to": el},
                                       "secondary": {"axis": "y", "like": f"{s}_upper_arm:y"}, "distal": wr})
    else:
        _rigid(out, f"{s}_lower_arm", f"{s}_upper_arm", "fewer than two forearm markers", distal=wr)
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
