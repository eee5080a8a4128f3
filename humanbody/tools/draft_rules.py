"""Joint-centre and frame rules for a drafted marker set, and its TOML text.

:func:`plan` takes the checked markers of :mod:`humanbody.tools.draft`
and chooses, from the landmarks present, the rules the marker-set format
supports (docs/markersets.md):

* hips: Harrington et al. (2007) from both ASIS and the sacral marker or
  the PSIS pair (``humanbody/markers/joint_centres.py``);
* Plug-in Gait's leg markers (one thigh and one tibia wand, lateral knee
  and ankle, heel, toe): the built-in ``plug_in_gait_lower`` set's pelvis
  and legs (:func:`humanbody.tools.draft_lower.plug_in_gait_legs`) and its
  clinical angle sequences; with its thorax markers also its thorax
  tracking, head and arms (:func:`humanbody.tools.draft_upper.plug_in_gait_upper`);
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

The rules live in :mod:`humanbody.tools.draft_lower` (pelvis and legs)
and :mod:`humanbody.tools.draft_upper` (trunk, head and arms); the set
they build, in :mod:`humanbody.tools.draft_plan`; its text, in
:mod:`humanbody.tools.draft_text`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .draft_lower import draft_leg, draft_pelvis, draft_pelvis_with_hips, plug_in_gait_legs
from .draft_plan import DEFAULT_WIDTHS, Drafting, LandmarkMarkers, reference_offsets
from .draft_text import rename_points, toml_text
from .draft_upper import draft_arm, draft_head, draft_trunk, plug_in_gait_upper

__all__ = ["Plan", "plan", "DEFAULT_WIDTHS"]


@dataclass
class Plan:
    """The drafted set: TOML text, the CHECK list and one line per chosen rule."""

    text: str
    checks: list
    rules: list
    height_rule: bool


def plan(guesses, height: float, midline: float, name: str, source: str, widths=None,
         marker_radius: float = 0.007) -> Plan:
    """Choose points and segment rules for the checked markers and write the TOML text.

    Parameters
    ----------
    guesses : list of MarkerGuess
        :func:`humanbody.tools.draft.classify` output.
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
        The TOML text, the CHECK list, one line per chosen rule, and whether the set can estimate the height.

    Raises
    ------
    InputError
        Too few markers for the pelvis or for either leg (the message says which).
    """
    mk = LandmarkMarkers(guesses)
    out = Drafting()
    xi = reference_offsets(height)
    widths = {k: (v if v is not None else None) for k, v in (widths or {}).items()}
    pig = plug_in_gait_legs(mk)
    draft_pelvis(mk, out, davis=pig)
    for side in ("right", "left"):
        draft_leg(mk, out, side, widths, marker_radius, pig=pig)
    if pig:  # Plug-in Gait's angle conventions for its pelvis, ankles and foot progression
        out.params["clinical_sequences"] = ({"ankle": "yzx", "pelvis": "yxz", "foot_progression": "yzx"},
                                            "Plug-in Gait's (docs/joint_angles.md)")
        out.params["clinical_reference_twists"] = (
            {"ankle": {"right": "right_tibial_torsion", "left": "-left_tibial_torsion"}},
            "ankle angles from the ankle axis (Vicon's tibial torsion, mirrored on the left)")
        out.params["progression_frame"] = ("lab_axis", "Plug-in Gait's progression: one lab axis per trial")
        out.params["moment_frame"] = ("distal", "Plug-in Gait's moments: in the distal segment's frame")
        out.params["marker_cutoff_hz"] = (0.0, "no marker filter: Plug-in Gait computes from the markers as stored")
        out.params["foot_offsets_from_subject"] = (True, "a subject file's StaticPlantFlex, StaticRotOff win")
        out.params["rates"] = ("gradient", "Plug-in Gait's rates: central differences of the frames")
        out.params["load_resampling"] = ("frame_mean", "Plug-in Gait's loads: each frame the mean of its samples")
        out.params["foot_rate_frames"] = (2, "Plug-in Gait's ankle power: the feet's angular velocity over 2 frames")
        out.params["segment_inertia"] = ({"upper_leg": [0.100, 0.433, 0.540], "lower_leg": [0.0465, 0.433, 0.528],
                                          "foot": [0.0145, 0.5, 0.475]},
                                         "Plug-in Gait's leg masses, mass centres and radii (Dempster's, as Vicon's)")
    draft_pelvis_with_hips(mk, out)
    draft_trunk(mk, out, xi)
    has_top = draft_head(mk, out, xi)
    for side in ("right", "left"):
        draft_arm(mk, out, side, xi, widths, marker_radius)
    if pig and "thorax_low" in out.points:  # Plug-in Gait's thorax (C7, T10, CLAV, STRN), head and arms
        seq, _ = out.params["clinical_sequences"]
        seq.update(thorax="zxy", neck="zxy")
        out.params["clinical_progression"] = (["thorax", "head"], "relative to the direction of progression")
        out.params["head_offset_from_subject"] = (True, "a subject file's HeadOffset wins over the level static head")
        if plug_in_gait_upper(mk, out, marker_radius) == ["right", "left"]:
            seq["shoulder"] = "xyz"
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

    rename_points(out, [g.name for g in guesses])
    text = toml_text(out, guesses, name, source)
    return Plan(text=text, checks=out.checks, rules=out.rules, height_rule=has_top)
