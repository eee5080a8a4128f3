"""The path a trial takes: the package's modules entered while ``analyze_trial`` runs one trial.

Every call into a function of ``humanbody`` (not the numba kernels) made
while :func:`humanbody.analysis.analyze_trial` runs, down to ``DEPTH`` calls
below it, is recorded with the module it enters; consecutive calls within
one module are one visit.  Printed: the visits, how many modules (and how
many rooms, folders as rooms as in tests/_house.py) the walk enters, and
how often it returns to a module (room) it had left.

    python tests/_trial_path.py [DEPTH]     (run from the repository, PYTHONPATH at it)
"""

from __future__ import annotations

import sys

DEPTH = 3


def walk(depth: int = DEPTH, trial="data/sample_walk_markers.trc", **options) -> list:
    """The modules entered, in order (one entry per visit), analysing ``trial`` with ``options``."""
    from humanbody.analysis import analyze_trial

    visits: list = []
    stack: list = []

    def prof(frame, event, arg):
        name = frame.f_globals.get("__name__", "")
        inside = name.startswith("humanbody") and not name.startswith("humanbody._kernels")
        if event == "call":
            if stack and stack[-1] is None:
                stack.append(None)
                return
            if not stack:
                if frame.f_code.co_name == "analyze_trial" and name == "humanbody.analysis.run":
                    stack.append(name)
                return
            if len(stack) > depth or not inside:
                stack.append(None)  # below the depth or outside the package: not followed
                return
            stack.append(name)
            if not visits or visits[-1] != name:
                visits.append(name)
        elif event == "return" and stack:
            stack.pop()
            if stack and stack[-1] is not None and visits and visits[-1] != stack[-1]:
                visits.append(stack[-1])

    sys.setprofile(prof)  # this thread only: reader threads are not followed
    try:
        analyze_trial(trial, **options)
    finally:
        sys.setprofile(None)
    return visits


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] + "/" if len(parts) > 2 else parts[-1]


def counts(visits: list, key=lambda m: m) -> tuple[int, int]:
    """(entries, returns to something left before) of the visits under ``key``."""
    seq = [key(v) for v in visits]
    seq = [s for i, s in enumerate(seq) if i == 0 or s != seq[i - 1]]
    seen, returns = set(), 0
    for s in seq:
        returns += s in seen
        seen.add(s)
    return len(seq), returns


if __name__ == "__main__":
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else DEPTH
    v = walk(depth, static="data/sample_static.trc", mass=75.0, height=1.75)
    print(" -> ".join(v))
    n, r = counts(v)
    print(f"modules: {len(set(v))} distinct, {n} entries, {r} returns to a module left before")
    n, r = counts(v, room)
    print(f"rooms: {len({room(m) for m in v})} distinct, {n} entries, {r} returns to a room left before; "
          f"analysis/ entered {sum(1 for m in [room(x) for x in v] if m == 'analysis/')} times")
