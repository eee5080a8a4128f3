"""humanbody: mechanics of a 17-segment human body model from motion capture.

The public API is flat (docs/conventions.md, "Python API")::

    import humanbody
    model = humanbody.BodyModel.default(mass=75.0, height=1.75)
    coords = humanbody.read_trial("data/sample_walk.csv")
    res = humanbody.compute(model, coords)
    res.omega.shape        # (frames, 17, 3), rad/s, ground components

    analysis = humanbody.analyze_trial("walk.trc", static="static.trc", mass=72.6)
    humanbody.write_results(analysis, "out/")

    options = humanbody.AnalysisOptions(static="static.trc", mass=72.6, forces="walk_grf.mot")
    analysis = humanbody.analyze_trial("walk.trc", options)   # every option in one object

``humanbody.read_trial(path)``
returns the reader's DataFrame (``time`` column, lab axes); ``humanbody.Trial.read(path, forces=..., axes=...)``
(:func:`humanbody.trial.load_trial`) returns a :class:`~humanbody.trial.Trial`,
markers and force plates in ground axes under one mapping, whose
``to_frame()`` is that DataFrame.

Names are imported on first use, so ``import humanbody`` is quick and a
program pays only for the parts it touches.  Importing the package changes
nothing in the process (environment, garbage collector, threads); the
command line sets what its own process needs (:func:`humanbody.cli.console`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: Public name -> module that defines it.
_EXPORTS = {
    "BodyModel": ".model.body",
    "load_model": ".model.body",
    "lower_body_array": ".model.body",
    "Differentiation": ".signal.differentiate",
    "InputError": ".errors",
    "compute": ".mechanics.kinematics",
    "coordinate_columns": ".mechanics.kinematics",
    "Results": ".mechanics.results",
    "read_trial": ".io",
    "Trial": ".trial",
    "AnalysisOptions": ".options",
    "Analysis": ".analysis.values",
    "analyze_trial": ".analysis.run",
    "write_results": ".trial_output",
    "mass_matrix": ".mechanics.dynamics",
    "bias_forces": ".mechanics.dynamics",
    "inverse_dynamics": ".mechanics.dynamics",
    "forward_dynamics": ".mechanics.dynamics",
    "simulate": ".simulation.forward",
}

#: Modules reachable as attributes without an import of their own (``humanbody.trial.load_trial``).
_MODULES = ("trial", "options")

__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'humanbody' has no attribute {name!r}")
    from ._gc import gc_paused  # lazy: `import humanbody` loads this face only

    with gc_paused():  # big imports make no garbage cycles worth collecting
        value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))
