"""The drafted marker set while it is being built, and the rules' shared steps.

:class:`Drafting` collects what the rules of :mod:`humanbody.tools.draft_lower`
and :mod:`humanbody.tools.draft_upper` choose (points, segment tables,
parameters, required markers, CHECK lines); :class:`LandmarkMarkers` finds the used
markers by landmark role, side and modifier.  A joint with no marker is placed
from its parent joint by the default model's joint offset scaled to the
subject's height (:func:`estimate_joint`), and a segment with too few markers moves
rigidly with another (:func:`move_rigidly`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model.anthropometry import DEFAULT_MASS
from ..model.body import BodyModel
from ..model.segments import PARENTS, SEGMENT_NAMES

__all__ = ["DEFAULT_WIDTHS", "ORIGIN"]

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
class Drafting:
    points: dict = field(default_factory=dict)      # name -> (rule or list of rules, comment lines)
    segments: dict = field(default_factory=dict)    # name -> (table, comment lines)
    params: dict = field(default_factory=dict)      # name -> (value, comment)
    required: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    rules: list = field(default_factory=list)
    estimated: list = field(default_factory=list)   # joint points with no marker
    rigid: list = field(default_factory=list)       # segments moving with another

    def point(self, name, rule, *comment):
        """Add (or replace) point ``name`` with its rule(s) and comment lines.

        Parameters
        ----------
        name : str
            The point's name (a marker or a landmark).
        rule : dict, list of dict or None
            The point's rule(s) (docs/markersets.md); None: not placed yet.
        *comment : str
            Comment lines written above it (empty ones dropped).
        """
        self.points[name] = (rule, [c for c in comment if c])

    def segment(self, name, table, *comment):
        """Add (or replace) segment ``name``'s table with its comment lines.

        Parameters
        ----------
        name : str
            A segment name (e.g. "right_thigh").
        table : dict
            The ``[segments.<name>]`` table.
        *comment : str
            Comment lines written above it (empty ones dropped).
        """
        self.segments[name] = (table, [c for c in comment if c])

    def need(self, *names):
        """Add markers to the set's required list (each once, in order).

        Parameters
        ----------
        *names : str
            Marker names.
        """
        for n in names:
            if n not in self.required:
                self.required.append(n)

    def check(self, text):
        """Add a CHECK item (once) and give its comment line.

        Parameters
        ----------
        text : str
            What the user should confirm.

        Returns
        -------
        str
            ``"CHECK: text"``, for a comment.
        """
        if text not in self.checks:
            self.checks.append(text)
        return f"CHECK: {text}"


class LandmarkMarkers:
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
        """Markers guessed onto a segment from their position (tracking only).

        Parameters
        ----------
        segment : str
            A segment name.

        Returns
        -------
        list of str
            The markers' names, in the trial's order.
        """
        return [m.name for m in self.g if m.how == "position" and m.segment == segment]


def reference_offsets(height: float) -> np.ndarray:
    """Joint offsets of the default model scaled to ``height``, reference pose (frames parallel).

    Parameters
    ----------
    height : float
        m.

    Returns
    -------
    (17, 3) ndarray
        xi_k, m, in each parent's frame.
    """
    return np.asarray(BodyModel.default(mass=DEFAULT_MASS, height=height).joint_offset, dtype=float)


def estimate_joint(out: Drafting, seg: str, xi: np.ndarray, frame: str) -> None:
    """Origin of ``seg`` placed from its parent's origin by the default model's joint offset.

    Parameters
    ----------
    out : Drafting
        The drafting record the segment's origin point (and its CHECK line) is added to.
    seg : str
        A segment whose origin has no marker.
    xi : (17, 3) ndarray
        :func:`reference_offsets`.
    frame : str
        The segment whose frame the offset is written in.
    """
    k = SEGMENT_NAMES.index(seg)
    parent = SEGMENT_NAMES[PARENTS[k] - 1]
    off = [round(float(v), 4) for v in xi[k]]
    out.estimated.append(ORIGIN[seg])
    out.point(ORIGIN[seg], {"from": ORIGIN[parent], "offset": off, "frame": frame},
              f"CHECK: no marker: {off} m from {ORIGIN[parent]} (default model scaled to the subject's height).")


def move_rigidly(out: Drafting, seg: str, to: str, why: str, **extra) -> None:
    """A segment with too few markers moves with ``to`` (static relative pose).

    Parameters
    ----------
    out : Drafting
        The drafting record the segment's rigid rule (and its CHECK line) is added to.
    seg, to : str
        The segment and the one it moves with.
    why : str
        The CHECK line's reason.
    **extra
        More keys of the segment's table.
    """
    out.rigid.append(seg)
    out.segment(seg, {"rule": "rigid", "to": to, "origin": ORIGIN[seg], **extra}, f"CHECK: {why}: moves with {to}.")
