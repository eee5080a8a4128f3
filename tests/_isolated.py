"""Run a function in a fresh Python process.

OpenSim's and ezc3d's SWIG bindings share one table of C++ types: once a test
has made an OpenSim ``std::vector<int>`` (``opensim.StdVectorInt``), ezc3d's
``Parameter.set(VecInt)`` raises TypeError in the same process, so a test
worker that ran such a test could no longer write a C3D.  Tests that need
those OpenSim objects make them here, in a process of their own (spawned,
so nothing is inherited).  ``fn`` must be a module-level function.
"""

from __future__ import annotations

import multiprocessing


def run_isolated(fn, *args):
    """``fn(*args)`` computed in a spawned child process; its (picklable) result."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(fn, args)
