"""Gait events of a C3D file's ``EVENT`` group.

Vicon Nexus (and Qualisys, Motion Analysis, humanbody's ``--export c3d``)
save the events labelled in a trial in the ``EVENT`` group: ``USED`` (how
many), ``LABELS`` ("Foot Strike", "Foot Off", ...), ``CONTEXTS`` ("Right",
"Left", "General") and ``TIMES`` (2, n), row 0 minutes and row 1 seconds
from the start of the capture, frame 1 at 0 s:

    t = 60 * minutes + seconds

which is the clock :func:`humanbody.io.c3d.read_c3d` gives the frames
(``(first_frame - 1) / rate + i / rate``).

Some programs store an event as a code instead of a label and a context:
Motion Analysis's Cortex writes ``RHS``, ``LTO``, ... into ``CONTEXTS``
(its ``EVENT_CONTEXT`` group lists them) with empty ``LABELS``; Qualisys
writes them into ``LABELS`` and no ``CONTEXTS``.  A code is a side
(``L``/``R``, ``Left``/``Right``) followed by an event: ``HS``, ``FS``,
``IC``, ``HC`` (a foot strike) or ``TO``, ``FO`` (a foot off), or a label
such as ``Foot Strike``.  ``ICON_IDS`` are not read: Vicon Workstation
numbers them by side where Nexus numbers them by event.  :func:`parse_events` turns the
group into the columns of an events table (:data:`humanbody.gait.EVENT_COLUMNS`,
``source = "file"``); :func:`events_table` makes the DataFrame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from ..errors import IGNORED, Note

__all__ = ["parse_events", "events_table", "event_name", "event_side", "event_code", "decode_event", "FILE_SOURCE"]

#: ``source`` of the events read from a file.
FILE_SOURCE = "file"

#: Labels (lower case, letters only) of the two gait events, as the capture programs spell them.
_EVENT_NAMES = {
    "footstrike": "foot_strike", "heelstrike": "foot_strike", "initialcontact": "foot_strike",
    "footcontact": "foot_strike", "heelcontact": "foot_strike",
    "footoff": "foot_off", "toeoff": "foot_off", "footlift": "foot_off", "terminalcontact": "foot_off",
}
_SIDES = {"right": "right", "r": "right", "left": "left", "l": "left"}
#: Event codes after the side letter (lower case, letters only): heel strike, foot strike, initial contact,
#: heel contact; toe off, foot off.
_CODES = {"hs": "foot_strike", "fs": "foot_strike", "ic": "foot_strike", "hc": "foot_strike",
          "to": "foot_off", "fo": "foot_off"}


def event_name(label) -> str | None:
    """``"foot_strike"``, ``"foot_off"`` or None for an EVENT label ("Foot Strike", "Foot_Off", "FootStrike", ...).

    Parameters
    ----------
    label : str
        An EVENT label (any object is taken as its ``str``).

    Returns
    -------
    str or None
        The event, or None for a label of neither.
    """
    key = "".join(ch for ch in str(label).lower() if ch.isalpha())
    return _EVENT_NAMES.get(key)


def event_side(context) -> str | None:
    """``"right"``, ``"left"`` or None (``"General"``, empty) for an EVENT context.

    Parameters
    ----------
    context : str
        An EVENT context (any object is taken as its ``str``).

    Returns
    -------
    str or None
        The side, or None.
    """
    return _SIDES.get(str(context).strip().lower())


def event_code(text) -> tuple[str | None, str | None]:
    """``(event, side)`` of an event code ("RHS", "LTO", "L_FS", "Left Foot Off"), ``(None, None)`` for anything else.

    The side comes first (``L``, ``R``, ``Left``, ``Right``), then the event: a code of :data:`_CODES` or a
    label :func:`event_name` knows.

    Parameters
    ----------
    text : str
        A label or context (any object is taken as its ``str``).

    Returns
    -------
    event : str or None
        ``"foot_strike"`` or ``"foot_off"``.
    side : str or None
        ``"right"`` or ``"left"``.
    """
    key = "".join(ch for ch in str(text).lower() if ch.isalpha())
    for prefix in ("right", "left", "r", "l"):
        if key.startswith(prefix):
            rest = key[len(prefix):]
            kind = _CODES.get(rest) or _EVENT_NAMES.get(rest)
            if kind is not None:
                return kind, _SIDES[prefix]
    return None, None


def decode_event(label, context) -> tuple[str | None, str | None]:
    """``(event, side)`` of an EVENT entry: its label and context ("Foot Strike", "Right"), else a code in its
    label or its context ("RHS" with an empty or "General" context, or an empty label); ``(None, None)`` when
    neither tells, or when a code's side contradicts the context's.

    Parameters
    ----------
    label : str
        The entry's ``EVENT:LABELS`` text.
    context : str
        The entry's ``EVENT:CONTEXTS`` text (empty when the file has none).

    Returns
    -------
    event : str or None
        ``"foot_strike"`` or ``"foot_off"``.
    side : str or None
        ``"right"`` or ``"left"``.
    """
    kind, side = event_name(label), event_side(context)
    if kind is not None and side is not None:
        return kind, side
    for text in (label, context):
        code_kind, code_side = event_code(text)
        if code_kind is None:
            continue
        if (side is not None and code_side != side) or (kind is not None and code_kind != kind):
            return None, None  # the code contradicts the other field
        return code_kind, code_side
    return None, None


def _values(group: dict, name: str):
    try:
        return group[name]["value"]
    except (KeyError, TypeError):
        return None


def parse_events(group, frame_times, rate_hz: float) -> tuple[dict | None, list[str]]:
    """The foot strikes and foot offs of an ``EVENT`` group (as ezc3d gives it) within a trial.

    Parameters
    ----------
    group : dict or None
        ``c["parameters"]["EVENT"]`` of ezc3d (each parameter a dict with ``"value"``).
    frame_times : array (F,)
        Time of each frame of the trial, s, on the capture's clock.
    rate_hz : float
        Frame rate, Hz: an event more than half a frame before the first frame or after the last one
        is outside the trial.

    Returns
    -------
    columns : dict or None
        ``{"time": [...], "frame": [...], "side": [...], "event": [...], "source": [...]}`` sorted by
        time (``frame``: the nearest frame, 0-based from the trial's first); None when the file has no
        events or its group cannot be read.
    notes : list of str
        One line for each thing left out (other labels and contexts, events outside the trial, a
        malformed group).  Never raises: the markers stay usable whatever the group holds.
    """
    seconds, labels, contexts, notes = _group_events(group)
    if seconds is None:
        return None, notes
    frame_times = np.asarray(frame_times, dtype=float)
    rows, notes = _foot_events(labels, contexts, seconds, frame_times, rate_hz)
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    ev_t = np.array([r[0] for r in rows], dtype=float)
    frames = _nearest_frames(frame_times, ev_t)
    return {"time": ev_t.tolist(), "frame": [int(f) for f in frames], "side": [r[1] for r in rows],
            "event": [r[2] for r in rows], "source": [FILE_SOURCE] * len(rows)}, notes


_BAD_GROUP = "EVENT group not read ({}); the trial's events are found from the markers or force plates"


def _bad_group(why: str) -> Note:
    """The note on an EVENT group that cannot be read (``why``), left to the log file before most notes."""
    return Note(_BAD_GROUP.format(why), IGNORED)


def _group_events(group) -> tuple[np.ndarray | None, list[str], list[str], list[str]]:
    """``(seconds, labels, contexts, notes)`` of the group's ``USED`` events, times ``60 * minutes +
    seconds``; ``seconds`` None (and a note why, when the group is malformed) when there are none."""
    if not group:
        return None, [], [], []
    used = _values(group, "USED")
    times = _values(group, "TIMES")
    labels = _values(group, "LABELS")
    contexts = _values(group, "CONTEXTS")
    try:
        n = int(np.ravel(np.asarray(used, dtype=float))[0]) if used is not None and np.size(used) else None
    except (TypeError, ValueError):
        n = None
    if n == 0 or (n is None and times is None and not labels):
        return None, [], [], []
    if times is None:
        return None, [], [], [_bad_group("no TIMES")]
    try:
        t = np.asarray(times, dtype=float)
    except (TypeError, ValueError):
        return None, [], [], [_bad_group("TIMES is not numeric")]
    if t.ndim == 1 and t.size % 2 == 0:  # (minutes, seconds) pairs, as the file stores them
        t = t.reshape(-1, 2).T
    if t.ndim != 2 or t.shape[0] != 2:
        return None, [], [], [_bad_group(f"TIMES has shape {tuple(t.shape)}, not (2, events)")]
    labels = [str(x).strip() for x in (labels if labels is not None else [])]
    n = t.shape[1] if n is None else n
    # no CONTEXTS at all (Qualisys: the side is in the label's code): every context empty
    contexts = [str(x).strip() for x in contexts] if contexts is not None else [""] * max(n, 0)
    if n < 0 or t.shape[1] < n or len(labels) < n or len(contexts) < n:
        return None, [], [], [_bad_group(f"USED {n}, {t.shape[1]} TIMES, {len(labels)} LABELS and "
                                                f"{len(contexts)} CONTEXTS disagree")]
    seconds = 60.0 * t[0, :n] + t[1, :n]
    if not np.isfinite(seconds).all():
        return None, [], [], [_bad_group(f"{int((~np.isfinite(seconds)).sum())} time(s) not finite")]
    return seconds, labels[:n], contexts[:n], []


def _foot_events(labels: list[str], contexts: list[str], seconds: np.ndarray, frame_times: np.ndarray,
                 rate_hz: float) -> tuple[list[tuple[float, str, str]], list[str]]:
    """``(time, side, event)`` of the right and left foot strikes and foot offs within the trial (half a
    frame beyond its first and last frames), and one note each for the other events and those outside."""
    rows = []
    other: dict[str, int] = {}
    outside = 0
    half = 0.5 / float(rate_hz) if rate_hz else 0.0
    lo, hi = frame_times[0] - half - 1e-9, frame_times[-1] + half + 1e-9
    for label, context, when in zip(labels, contexts, seconds, strict=True):
        kind, side = decode_event(label, context)
        if kind is None or side is None:
            key = f"{label or '(no label)'}/{context or '(no context)'}"
            other[key] = other.get(key, 0) + 1
            continue
        if not lo <= when <= hi:
            outside += 1
            continue
        rows.append((float(when), side, kind))
    notes: list[str] = []
    if other:
        notes.append(Note(f"EVENT group: {sum(other.values())} event(s) other than right/left foot strikes and foot "
                          "offs ignored (" + ", ".join(f"{k} x{v}" for k, v in sorted(other.items())) + ")", IGNORED))
    if outside:
        notes.append(Note(f"EVENT group: {outside} event(s) outside the trial's time range "
                          f"({frame_times[0]:.3f}-{frame_times[-1]:.3f} s) dropped", IGNORED))
    return rows, notes


def _nearest_frames(frame_times: np.ndarray, ev_t: np.ndarray) -> np.ndarray:
    """The frame (0-based) nearest each event time (the earlier on a tie)."""
    if len(frame_times) > 1 and len(ev_t):
        i = np.clip(np.searchsorted(frame_times, ev_t), 1, len(frame_times) - 1)
        return np.where(np.abs(ev_t - frame_times[i - 1]) <= np.abs(frame_times[i] - ev_t), i - 1, i)
    return np.zeros(len(ev_t), dtype=int)


def events_table(columns: dict | None) -> pd.DataFrame | None:
    """The events table (:data:`humanbody.gait.EVENT_COLUMNS`) of :func:`parse_events`' columns; None for None.

    Parameters
    ----------
    columns : dict or None
        ``time`` (s), ``frame`` (0-based), ``side``, ``event`` and ``source`` lists, as :func:`parse_events` gives.

    Returns
    -------
    pandas.DataFrame or None
        One row per event, the columns in that order; None when ``columns`` is None.
    """
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    if columns is None:
        return None
    df = pd.DataFrame({
        "time": np.asarray(columns["time"], dtype=float),
        "frame": np.asarray(columns["frame"], dtype=int),
        "side": pd.Series(columns["side"], dtype=object),
        "event": pd.Series(columns["event"], dtype=object),
        "source": pd.Series(columns["source"], dtype=object),
    })
    return df.reset_index(drop=True)
