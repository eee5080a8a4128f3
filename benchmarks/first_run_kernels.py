"""Write ``humanbody/_kernels/first_run.txt``: the kernels a first ``analyze`` and ``report`` of the sample
trial compile, in the order they compile them (the list the first run's helper process compiles from its
end, :mod:`humanbody._kernels.warm`).

    NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/first_run_kernels.py

Run it with an empty numba cache (every kernel then compiles and is seen); it also prints the CPU
seconds each kernel took to compile (the figures of docs/performance.md's first run).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    if not os.environ.get("NUMBA_CACHE_DIR"):
        print("set NUMBA_CACHE_DIR to an empty folder: with kernels in the cache nothing compiles", file=sys.stderr)
        return 2
    from numba.core import event as ev

    from humanbody._kernels import warm
    from humanbody.cli import main as cli

    order: list[tuple[str, str]] = []
    seconds: list[float] = []
    stack: list[float] = []

    class _Top(ev.Listener):
        def on_start(self, event):
            stack.append(time.process_time())
            disp = (event.data or {}).get("dispatcher")
            module = getattr(getattr(disp, "py_func", None), "__module__", "") or ""
            if len(stack) == 1 and module.startswith("humanbody._kernels."):
                order.append((f"{module.rpartition('.')[2]}.{disp.py_func.__name__}",
                              repr(tuple(event.data["args"]))))

        def on_end(self, event):
            t = stack.pop()
            if not stack and len(seconds) < len(order):
                seconds.append(time.process_time() - t)

    ev.register("numba:compile", _Top())
    os.chdir(ROOT)
    subject = ["--static", "data/sample_static.trc", "--mass", "75", "--height", "1.75", "--quiet"]
    with tempfile.TemporaryDirectory() as out:
        for cmd in (["analyze", "data/sample_walk_markers.trc", *subject, "--out", f"{out}/a"],
                    ["report", "data/sample_walk_markers.trc", *subject, "--out", f"{out}/r", "--jobs", "1"]):
            if cli(cmd):
                return 1
    warm.LIST.write_text("".join(f"{n}\t{s}\n" for n, s in order))
    for (name, _), sec in zip(order, seconds, strict=True):
        print(f"{sec:6.1f} CPU-s  {name}")
    print(f"{sum(seconds):6.1f} CPU-s  {len(order)} kernels -> {warm.LIST.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
