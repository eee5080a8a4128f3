"""Memory-write bandwidth of this machine, the yardstick for ``compute``'s output.

Two figures, both a numba-parallel loop storing a constant into a float64 array
(all threads numba uses, as ``compute`` does):

- ``fresh``: into a just-allocated array, so every page is faulted in (mapped
  and zeroed by the kernel) on first touch, as for new result arrays;
- ``warm``: into the same array again, pages already mapped, as for
  ``compute(..., out=previous)``.

    python benchmarks/bench_bandwidth.py 1024      # MiB written

prints one JSON line: {"impl": "bandwidth", "mib", "fresh_gb_s", "warm_gb_s", ...}.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

import numba as nb
import numpy as np


@nb.njit(parallel=True, cache=True)
def _fill(a, value):
    for i in nb.prange(a.shape[0]):
        a[i] = value


def measure(mib: int, reps: int = 3) -> dict:
    n = mib * 2**20 // 8
    _fill(np.empty(16), 0.0)  # compile / load from cache
    fresh = warm = np.inf
    for _ in range(reps):
        t0 = time.perf_counter()
        a = np.empty(n)
        _fill(a, 1.0)
        fresh = min(fresh, time.perf_counter() - t0)
        t0 = time.perf_counter()
        _fill(a, 2.0)
        warm = min(warm, time.perf_counter() - t0)
        del a
    nbytes = n * 8
    return {"impl": "bandwidth", "mib": mib, "fresh_gb_s": nbytes / fresh / 1e9,
            "warm_gb_s": nbytes / warm / 1e9, "threads": nb.get_num_threads()}


def main(argv):
    mib = int(float(argv[0])) if argv else 1024
    load = os.getloadavg()[0]
    rec = measure(mib)
    rec.update(peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, load_before=load)
    print(json.dumps(rec))


if __name__ == "__main__":
    main(sys.argv[1:])
