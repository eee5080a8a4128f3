"""The simulation spec: a small TOML file read into the arguments of :func:`humanbody.simulate`.

Layout (docs/dynamics.md, "The simulation spec"); lengths in m, angles in
degrees, torques in N m (N for the root's translations)::

    duration = 2.0                 # s, required
    rate_hz = 100                  # output frames per second
    gravity = true
    locked = ["lower_torso"]       # bodies whose joints do not move (the root: fixed in ground;
                                   # lower_torso_x/_y/_z/_rotation: one part of the root's motion)

    [model]                        # or file = "subject.json"
    mass = 75.0
    height = 1.75

    [initial]                      # coordinates; absent ones are 0
    lower_torso_z = 1.0
    right_upper_leg_alpha = 30.0

    [initial_rates]                # m/s, deg/s
    right_upper_leg_alpha = 100.0

    [springs]                      # every joint except the root's
    stiffness = 20.0               # N m/rad, a number or [k_x, k_y, k_z]
    damping = 1.0                  # N m s/rad
    neutral = "initial"            # or "reference" (all angles zero)
    [springs.right_lower_leg]      # one joint's own values
    stiffness = [5.0, 50.0, 5.0]

    [torques]                      # per coordinate: a number, or a table summing the forms below
    right_lower_leg_alpha = 5.0
    left_lower_leg_alpha = { offset = 1.0, sine = { amplitude = 10.0, frequency_hz = 1.0, phase_deg = 0.0 } }
    right_upper_leg_alpha = { step = { time = 0.5, before = 0.0, after = 10.0 } }

    [[contacts]]
    body = "right_foot"
    point = [0.15, 0.0, -0.07]     # m, body frame, from the joint point
    height = 0.0                   # m, the plane
    stiffness = 1.0e5              # N/m
    damping = 1.0e3                # N s/m
    tangential_stiffness = 0.0     # N/m
    tangential_damping = 0.0       # N s/m
    moving = false                 # moves with [base]

    [base]                         # vertical motion of the moving planes
    sine = { amplitude = 0.001, frequency_hz = 5.0 }

    [solver]                       # scipy.integrate.solve_ivp
    method = "BDF"
    rtol = 1e-8
    atol = 1e-9
"""

from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..model.body import BodyModel, coordinate_columns, load_model
from ..rotations.quaternions import sequence_to_quaternion
from .passive import Contacts, JointSprings

__all__ = ["SimulationSpec", "read_spec", "torque_function"]

_TOP = {"duration", "rate_hz", "gravity", "locked", "model", "initial", "initial_rates", "springs", "torques",
        "contacts", "base", "solver", "name"}
_CONTACT = {"body", "point", "height", "stiffness", "damping", "tangential_stiffness", "tangential_damping",
            "moving", "name"}
_FORMS = {"offset": set(), "sine": {"amplitude", "frequency_hz", "phase_deg"}, "step": {"time", "before", "after"}}


@dataclass
class SimulationSpec:
    """A read spec: the model and every argument of :func:`humanbody.simulate`."""

    model: BodyModel
    duration: float
    kwargs: dict = field(default_factory=dict)
    q0: np.ndarray | None = None
    qd0: np.ndarray | None = None
    name: str = "simulation"


def _number(value, what: str, positive: bool = False, nonneg: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{what} must be a number, not {value!r}")
    if positive and value <= 0:
        raise InputError(f"{what} must be positive, not {value!r}")
    if nonneg and value < 0:
        raise InputError(f"{what} must not be negative, not {value!r}")
    return float(value)


def _triple(value, what: str) -> np.ndarray:
    if isinstance(value, list):
        if len(value) != 3:
            raise InputError(f"{what} must be a number or a list of 3 numbers")
        return np.array([_number(v, what, nonneg=True) for v in value])
    return np.full(3, _number(value, what, nonneg=True))


def _table(value, what: str, keys: set | None = None) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a table")
    if keys is not None:
        extra = sorted(set(value) - keys)
        if extra:
            raise InputError(f"{what}: unknown key {extra[0]!r} (known: {', '.join(sorted(keys))})")
    return value


def torque_function(entry, what: str):
    """``t -> value`` of one torque (or base) entry: a number, or a table summing offset, sine and step.

    - ``offset = c``: ``c``
    - ``sine = {amplitude = A, frequency_hz = f, phase_deg = p}``: ``A sin(2 pi f t + p)``
    - ``step = {time = t0, before = a, after = b}``: ``a`` before ``t0``, ``b`` from it on

    Parameters
    ----------
    entry : float or dict
        A torque entry of the spec file: a constant (N m) or a table of its form
    what : str
        The entry's name in messages.

    Returns
    -------
    callable
        ``f(t)`` (t in s).
    """
    if not isinstance(entry, dict):
        c = _number(entry, what)
        return lambda t: c
    _table(entry, what, set(_FORMS))
    parts = []
    if "offset" in entry:
        c = _number(entry["offset"], f"{what}.offset")
        parts.append(lambda t: c)
    if "sine" in entry:
        s = _table(entry["sine"], f"{what}.sine", _FORMS["sine"])
        A = _number(s.get("amplitude", 0.0), f"{what}.sine.amplitude")
        w = 2 * np.pi * _number(s.get("frequency_hz", 0.0), f"{what}.sine.frequency_hz", nonneg=True)
        p = np.radians(_number(s.get("phase_deg", 0.0), f"{what}.sine.phase_deg"))
        parts.append(lambda t: A * np.sin(w * t + p))
    if "step" in entry:
        s = _table(entry["step"], f"{what}.step", _FORMS["step"])
        t0 = _number(s.get("time", 0.0), f"{what}.step.time")
        a, b = _number(s.get("before", 0.0), f"{what}.step.before"), _number(s.get("after", 0.0), f"{what}.step.after")
        parts.append(lambda t: a if t < t0 else b)
    return lambda t: sum(f(t) for f in parts)


def _base(entry):
    """Vertical base motion ``t -> (z, z')`` from ``[base] sine = {...}`` and ``offset``."""
    _table(entry, "[base]", {"sine", "offset"})
    z0 = _number(entry.get("offset", 0.0), "[base].offset")
    s = _table(entry.get("sine", {}), "[base].sine", _FORMS["sine"])
    A = _number(s.get("amplitude", 0.0), "[base].sine.amplitude")
    w = 2 * np.pi * _number(s.get("frequency_hz", 0.0), "[base].sine.frequency_hz", nonneg=True)
    p = np.radians(_number(s.get("phase_deg", 0.0), "[base].sine.phase_deg"))
    return lambda t: (z0 + A * np.sin(w * t + p), A * w * np.cos(w * t + p))


def _model(entry, folder: Path):
    _table(entry, "[model]", {"file", "mass", "height", "sex"})
    if "file" in entry:
        if len(entry) > 1:
            raise InputError("[model]: give either file or mass/height/sex, not both")
        path = Path(entry["file"])
        return load_model(path if path.is_absolute() else folder / path)
    sex = entry.get("sex", "male")
    if sex not in ("male", "female"):
        raise InputError(f"[model].sex must be 'male' or 'female', not {sex!r}")
    return BodyModel.default(mass=_number(entry.get("mass", DEFAULT_MASS), "[model].mass", positive=True),
                             height=_number(entry.get("height", DEFAULT_HEIGHT), "[model].height", positive=True),
                             sex=sex)


def _coordinates(entry, cols, what: str, root) -> np.ndarray:
    _table(entry, what)
    out = np.zeros(len(cols))
    for key, value in entry.items():
        if key not in cols:
            raise InputError(f"{what}: {key!r} is not a coordinate of the model (for example {cols[3]!r})")
        v = _number(value, f"{what}.{key}")
        out[cols.index(key)] = v if key.startswith(root + "_") and key[-2:] in ("_x", "_y", "_z") else np.radians(v)
    return out


def _springs(entry, model, q0):
    names = set(model.names[1:])
    _table(entry, "[springs]")
    N = model.n_bodies
    K, C = np.zeros((N, 3)), np.zeros((N, 3))
    base = {k: v for k, v in entry.items() if not isinstance(v, dict)}
    _table(base, "[springs]", {"stiffness", "damping", "neutral"})
    K[1:] = _triple(base.get("stiffness", 0.0), "[springs].stiffness")
    C[1:] = _triple(base.get("damping", 0.0), "[springs].damping")
    neutral = base.get("neutral", "initial")
    if neutral not in ("initial", "reference"):
        raise InputError(f"[springs].neutral must be 'initial' or 'reference', not {neutral!r}")
    for key, value in entry.items():
        if isinstance(value, dict):
            if key not in names:
                raise InputError(f"[springs.{key}]: not a joint of the model (the root {model.names[0]!r} has none)")
            _table(value, f"[springs.{key}]", {"stiffness", "damping"})
            k = model.names.index(key)
            if "stiffness" in value:
                K[k] = _triple(value["stiffness"], f"[springs.{key}].stiffness")
            if "damping" in value:
                C[k] = _triple(value["damping"], f"[springs.{key}].damping")
    angles = q0[3:].reshape(N, 3) if neutral == "initial" else np.zeros((N, 3))
    e = np.array([sequence_to_quaternion(a, s) for a, s in zip(angles, model.sequences, strict=True)])
    return JointSprings(K, C, e)


def _contacts(entries, model):
    if not isinstance(entries, list):
        raise InputError("contacts must be given as [[contacts]] tables")
    rows = []
    for i, c in enumerate(entries, start=1):
        what = f"[[contacts]] #{i}"
        _table(c, what, _CONTACT)
        if c.get("body") not in model.names:
            raise InputError(f"{what}: body must be a segment of the model, not {c.get('body')!r}")
        point = c.get("point", [0.0, 0.0, 0.0])
        if not isinstance(point, list) or len(point) != 3:
            raise InputError(f"{what}: point must be a list of 3 numbers (m)")
        moving = c.get("moving", False)
        if not isinstance(moving, bool):
            raise InputError(f"{what}: moving must be true or false")
        rows.append(dict(body=model.names.index(c["body"]), point=[_number(v, f"{what}.point") for v in point],
                         height=_number(c.get("height", 0.0), f"{what}.height"),
                         stiffness=_number(c.get("stiffness", 1e5), f"{what}.stiffness", nonneg=True),
                         damping=_number(c.get("damping", 0.0), f"{what}.damping", nonneg=True),
                         kt=_number(c.get("tangential_stiffness", 0.0), f"{what}.tangential_stiffness", nonneg=True),
                         ct=_number(c.get("tangential_damping", 0.0), f"{what}.tangential_damping", nonneg=True),
                         moving=moving, name=str(c.get("name", f"contact{i}"))))
    if not rows:
        return None
    col = lambda k: [r[k] for r in rows]  # noqa: E731
    return Contacts(body=col("body"), point=col("point"), height=col("height"), stiffness=col("stiffness"),
                    damping=col("damping"), tangential_stiffness=col("kt"), tangential_damping=col("ct"),
                    moving=col("moving"), names=col("name"))


def read_spec(path) -> SimulationSpec:
    """Read and check a simulation spec (TOML); every problem is one :class:`InputError` naming the file.

    Parameters
    ----------
    path : str or os.PathLike
        The simulation spec file (TOML)

    Returns
    -------
    SimulationSpec
        The checked spec: the model, the duration (s), the initial coordinates and rates and every other argument of :func:`humanbody.simulate`.
    """
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read the simulation spec ({err.strerror or err})", path) from None
    except UnicodeDecodeError:
        raise InputError("the simulation spec is not a text file", path) from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"the simulation spec is not valid TOML ({err})", path) from None
    try:
        return _parse(data, path)
    except InputError as err:
        raise err.with_path(path) from None


def _parse(data: dict, path: Path) -> SimulationSpec:
    extra = sorted(set(data) - _TOP)
    if extra:
        raise InputError(f"unknown key {extra[0]!r} (known: {', '.join(sorted(_TOP))})")
    if "duration" not in data:
        raise InputError("no duration (s) given")
    duration = _number(data["duration"], "duration", positive=True)
    model = _model(data.get("model", {}), path.parent)
    cols = coordinate_columns(model)
    root = model.names[0]
    q0 = _coordinates(data.get("initial", {}), cols, "[initial]", root)
    qd0 = _coordinates(data.get("initial_rates", {}), cols, "[initial_rates]", root)
    kw: dict[str, Any] = {"rate_hz": _number(data.get("rate_hz", 100.0), "rate_hz", positive=True)}
    gravity = data.get("gravity", True)
    if not isinstance(gravity, bool):
        raise InputError("gravity must be true or false")
    kw["gravity"] = gravity
    locked = data.get("locked", [])
    lockable = set(model.names) | {f"{root}_{a}" for a in ("x", "y", "z", "rotation")}
    if not isinstance(locked, list) or any(name not in lockable for name in locked):
        bad = locked if not isinstance(locked, list) else next(n for n in locked if n not in lockable)
        raise InputError(f"locked must be a list of segment names (or {root}_x, _y, _z, _rotation); "
                         f"{bad!r} is not one")
    kw["locked"] = tuple(locked)
    if "springs" in data:
        kw["springs"] = _springs(data["springs"], model, q0)
    if "contacts" in data:
        kw["contacts"] = _contacts(data["contacts"], model)
    if "base" in data:
        kw["base"] = _base(data["base"])
    if "torques" in data:
        entries = _table(data["torques"], "[torques]")
        funcs = {}
        for key, value in entries.items():
            if key not in cols:
                raise InputError(f"[torques]: {key!r} is not a coordinate of the model (for example {cols[3]!r})")
            funcs[cols.index(key)] = torque_function(value, f"[torques].{key}")
        n = len(cols)

        def torques(t, q, qd):
            tau = np.zeros(n)
            for i, f in funcs.items():
                tau[i] = f(t)
            return tau

        kw["torques"] = torques
    solver = _table(data.get("solver", {}), "[solver]", {"method", "rtol", "atol", "max_step"})
    if "method" in solver:
        if solver["method"] not in ("RK45", "DOP853", "Radau", "BDF", "LSODA", "RK23"):
            raise InputError(f"[solver].method must be one of RK45, DOP853, Radau, BDF, LSODA, RK23, "
                             f"not {solver['method']!r}")
        kw["method"] = solver["method"]
    for key in ("rtol", "atol", "max_step"):
        if key in solver:
            kw[key] = _number(solver[key], f"[solver].{key}", positive=True)
    name = str(data.get("name", path.stem))
    return SimulationSpec(model=model, duration=duration, kwargs=kw, q0=q0, qd0=qd0, name=name)
