"""Marker names read as landmarks: the spellings labs use for the same places.

:func:`read_name` splits a marker name into words (separators ``. _ -``
and spaces, a change from lower to upper case, a ``Subject:`` prefix
dropped), finds the side (``R``/``L``/``Right``/``Left``/``RT``/``LT`` as the
first or last word, or glued to the front of the first word as in ``RKNE``
or to the end of the last as in ``KNEER``), the
landmark (from the words of ``humanbody/data/marker_vocabulary.toml``) and
the modifiers (lateral/medial, front/back, top...).  It reads the name only;
:mod:`humanbody.tools.draft` then checks every reading against where the
marker is in a standing trial.  ``R.Knee.Lat``, ``RKNE``, ``Right_Knee_Lateral``,
``knee_lat_r`` and ``RightKneeLateral`` all read as (knee, right, {lateral});
``LKNEM``/``L_KNM`` as (knee, left, {medial}); ``r_femur_1`` as (thigh, right);
``V.Sacral`` as (sacrum, None).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["Landmark", "NameReading", "vocabulary", "read_name"]

_FILE = Path(__file__).resolve().parents[1] / "data" / "marker_vocabulary.toml"
_SIDES = {"r": "right", "l": "left", "right": "right", "left": "left", "rt": "right", "lt": "left",
          "rgt": "right", "lft": "left", "droite": "right", "droit": "right", "gauche": "left"}
_GLUED_SIDES = (("right", "right"), ("left", "left"), ("rt", "right"), ("lt", "left"), ("r", "right"),
                ("l", "left"))
#: Sides glued to the end of a name only: French G (gauche, left) and D (droite, right), as Biogesta writes them.
_GLUED_END_SIDES = (("g", "left"), ("d", "right"))
#: Landmarks whose markers come as a lateral/medial pair.
PAIRED = ("knee", "ankle", "elbow", "epicondyle", "wrist")


@dataclass(frozen=True)
class Landmark:
    """One ``[landmarks.<role>]`` table of the vocabulary file."""

    role: str
    segment: str
    sided: bool
    band: tuple
    words: frozenset
    stems: tuple


@dataclass(frozen=True)
class NameReading:
    """What a marker name says.

    Attributes
    ----------
    name : str
        The name as in the trial.
    role : str or None
        Landmark role (a key of the vocabulary), None when no word matched.
    side : {"right", "left", None}
        Side the name gives.
    modifiers : frozenset of str
        ``lateral``, ``medial``, ``front``, ``back``, ``top``, ``lower``, ``upper``.
    word : str
        The word that gave the role.
    """

    name: str
    role: str | None
    side: str | None
    modifiers: frozenset
    word: str = ""


@lru_cache(maxsize=1)
def vocabulary() -> tuple[dict, dict]:
    """The landmark tables and modifier words of ``humanbody/data/marker_vocabulary.toml``.

    Returns
    -------
    (dict of str -> Landmark, dict of str -> str)
        Landmarks by role, and modifier word -> modifier.
    """
    data = tomllib.loads(_FILE.read_text(encoding="utf-8"))
    marks = {}
    for role, t in data["landmarks"].items():
        marks[role] = Landmark(role, t["segment"], bool(t["sided"]), tuple(float(b) for b in t["band"]),
                               frozenset(w.lower() for w in t["words"]), tuple(s.lower() for s in t["stems"]))
    mods: dict[str, str] = {}
    for mod, words in data["modifiers"].items():
        for w in words:
            mods.setdefault(w.lower(), mod)
    return marks, mods


def _words(name: str) -> list[str]:
    """Words of a name, lower-cased: split at separators and at lower -> upper case changes.

    Digits join the word before them (``MT 1``, ``TH1`` -> ``mt1``, ``th1``).
    """
    text = str(name).rsplit(":", 1)[-1]
    out: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", text):
        for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", part):
            if w.isdigit() and out and not out[-1][-1:].isdigit():
                out[-1] += w
            else:
                out.append(w.lower())
    return out


def _role_of(word: str, stems: bool = True) -> tuple[str | None, str]:
    """Role of one word (exact spelling, then without trailing digits, then a stem if ``stems``)."""
    marks, _ = vocabulary()
    for w in (word, word.rstrip("0123456789")):
        if not w:
            continue
        for role, lm in marks.items():
            if w in lm.words:
                return role, w
    if stems:
        for role, lm in marks.items():
            if any(word.startswith(s) for s in lm.stems):
                return role, word
    return None, ""


def _glued_modifier(word: str) -> tuple[str | None, str | None]:
    """``knem``/``mkne``/``kneemed`` -> (knee, medial); ``lkne`` is left to the side rule."""
    for mod, tail in (("medial", "med"), ("lateral", "lat"), ("medial", "m"), ("lateral", "l")):
        if word.endswith(tail) and len(word) > len(tail) + 1:
            role, _ = _role_of(word[: -len(tail)])
            if role in PAIRED:
                return role, mod
    if word[:1] == "m" and len(word) > 2:
        role, _ = _role_of(word[1:])
        if role in PAIRED:
            return role, "medial"
    return None, None


def read_name(name: str) -> NameReading:
    """Read a marker name: landmark role, side and modifiers (``RKNE``, ``knee_lat_r``: knee, right, {lateral}).

    Parameters
    ----------
    name : str
        A marker name as a lab spells it (a ``Subject:`` prefix dropped).

    Returns
    -------
    NameReading
        Role (None: no word of the vocabulary), side (``"right"``, ``"left"`` or None), modifiers.
    """
    marks, mods = vocabulary()
    words = _words(name)
    side = None
    if len(words) > 1 and words[0] in _SIDES:
        side, words = _SIDES[words[0]], words[1:]
    elif len(words) > 1 and words[-1] in _SIDES:
        side, words = _SIDES[words[-1]], words[:-1]
    elif len(words) > 1 and words[-1] in dict(_GLUED_END_SIDES):  # MT1G, CondyleIntD: Biogesta's G and D
        side, words = dict(_GLUED_END_SIDES)[words[-1]], words[:-1]
    role, hit, found = None, "", set()
    for i, w in enumerate(words):
        r, h = _role_of(w, stems=False)
        if r is None and w in mods:
            found.add(mods[w])
            continue
        if r is None:
            r, mod = _glued_modifier(w)
            if r is not None:
                found.add(mod)
                h = w
        if r is None and side is None and i == 0:  # side glued to the first word: RKNE, LeftKnee, rasis
            for prefix, s in _GLUED_SIDES:
                rest = w[len(prefix):]
                if w.startswith(prefix) and len(rest) >= 2:
                    r, h = _role_of(rest)
                    if r is None:
                        r, mod = _glued_modifier(rest)
                        if r is not None:
                            found.add(mod)
                            h = rest
                    if r is not None:
                        side = s
                        break
        if r is None and side is None and i == len(words) - 1:  # glued at the end: KNEER, asisl
            for suffix, s in _GLUED_SIDES + _GLUED_END_SIDES:
                stem = w[: -len(suffix)]
                if w.endswith(suffix) and len(stem) >= 2:
                    r, h = _role_of(stem)
                    if r is not None:
                        side = s
                        break
        if r is None:
            r, h = _role_of(w)  # a longer form of a known word: malleolar, epicondylus
        if r is None:
            continue
        if w in mods and role is not None:  # "front" of head when a role is already known
            found.add(mods[w])
            continue
        if h in mods:  # a word that is both (fhd, vertex): its modifier too
            found.add(mods[h])
        if role is None:
            role, hit = r, h
    if role == "shank" and hit in ("leg",) and "upper" in found:
        role = "thigh"
    if role == "upper_arm" and hit in ("arm", "ua") and "lower" in found:
        role = "forearm"
    if role == "wrist":  # Plug-in Gait: WRA on the thumb (radial, lateral) side, WRB on the little-finger side
        if hit in ("wra", "rs", "rsp"):
            found.add("lateral")
        elif hit in ("wrb", "us", "usp"):
            found.add("medial")
    if role in ("knee", "ankle", "elbow", "epicondyle") and hit in ("fme", "tam", "mmal", "mma", "hme", "cdi", "mfc",
                                                                   "me", "mm"):
        found.add("medial")
    if role in ("knee", "ankle", "elbow", "epicondyle") and hit in ("fle", "fal", "lmal", "hle", "cde", "lfc",
                                                                   "le", "lm"):
        found.add("lateral")
    return NameReading(str(name), role, side, frozenset(found), hit)
