"""OpenSim's own inverse kinematics and inverse dynamics of a trial: the references the IK and ID tests compare with.

``ik_reference(model, setup, trc)`` runs the ``opensim`` package's InverseKinematicsTool
(4.6, a test-only dependency) with the setup's tasks over the whole trial and returns the
path of the ``.mot`` it wrote.  Results are cached under the temporary folder, keyed by the
input files' hashes, so only the first run pays OpenSim's cost.  ``id_reference`` runs its InverseDynamicsTool.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

CACHE = Path(tempfile.gettempdir()) / "humanbody_osim_reference"
VERSION = "ik1"


def _key(*paths) -> str:
    h = hashlib.sha1(VERSION.encode())
    for p in paths:
        h.update(Path(p).read_bytes())
    return h.hexdigest()[:20]


def ik_reference(model_path, setup_path, trc_path) -> Path:
    """OpenSim's IK of ``trc_path`` on ``model_path`` with ``setup_path``'s tasks, every frame: the ``.mot`` path."""
    out = CACHE / f"ik_{_key(model_path, setup_path, trc_path)}.mot"
    if out.exists():
        return out
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part.mot")
    # OpenSim runs in a child process: its tool and numba's kernels do not share one process well
    subprocess.run([sys.executable, "-c", _SCRIPT, str(model_path), str(setup_path), str(trc_path), str(tmp),
                    str(CACHE)], check=True, capture_output=True)
    tmp.replace(out)
    return out


_SCRIPT = """
import sys
import numpy as np
import opensim as osim
model, setup, trc, out, folder = sys.argv[1:]
times = np.loadtxt(trc, skiprows=5, usecols=1, ndmin=1)
tool = osim.InverseKinematicsTool(setup)
model = osim.Model(model)  # kept alive: the tool does not own it
tool.setModel(model)
tool.setMarkerDataFileName(trc)
tool.setStartTime(float(times[0]))
tool.setEndTime(float(times[-1]))
tool.setOutputMotionFileName(out)
tool.setResultsDir(folder)
tool.run()
"""


def id_reference(model_path, coordinates_path, loads_path, start: float, end: float) -> Path:
    """OpenSim's InverseDynamicsTool (no coordinate filter, muscles excluded) over ``coordinates_path``
    from ``start`` to ``end`` s with the ExternalLoads ``loads_path``: the ``.sto`` path."""
    out = CACHE / f"id_{_key(model_path, coordinates_path, loads_path)}_{start:g}_{end:g}.sto"
    if out.exists():
        return out
    CACHE.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".part.sto")
    subprocess.run([sys.executable, "-c", _ID_SCRIPT, str(model_path), str(coordinates_path), str(loads_path),
                    str(start), str(end), str(CACHE), tmp.name], check=True, capture_output=True)
    tmp.replace(out)
    return out


_ID_SCRIPT = """
import sys
import opensim as osim
model, coords, loads, start, end, folder, name = sys.argv[1:]
tool = osim.InverseDynamicsTool()
model = osim.Model(model)  # kept alive: the tool does not own it
tool.setModel(model)
tool.setCoordinatesFileName(coords)
tool.setExternalLoadsFileName(loads)
tool.setStartTime(float(start))
tool.setEndTime(float(end))
tool.setLowpassCutoffFrequency(-1)
excluded = osim.ArrayStr()
excluded.append("Muscles")
tool.setExcludedForces(excluded)
tool.setResultsDir(folder)
tool.setOutputGenForceFileName(name)
tool.run()
"""
