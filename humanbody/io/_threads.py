"""Threads for the readers' kernels: how many, and one call per row range.

The parsing and cleaning kernels release the GIL; the readers cut a table
into row ranges and run one kernel call per range on a thread.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba

__all__ = ["threads", "in_threads"]


def threads() -> int:
    """Threads for the reading kernels: numba's thread count (NUMBA_NUM_THREADS).

    ``numba.get_num_threads()`` (which follows ``numba.set_num_threads``)
    once numba's threading layer runs; its configured count otherwise,
    without starting the layer (tens of ms) just to ask.
    ``numba.threading_layer()`` tells which: it raises ValueError while no
    layer has been started.

    Returns
    -------
    int
        The number of threads (at least 1).
    """
    try:
        numba.threading_layer()
    except ValueError:
        return max(1, int(numba.config.NUMBA_NUM_THREADS))
    return max(1, numba.get_num_threads())


def in_threads(fn, n: int, k: int) -> list:
    """Call ``fn(i, r0, r1)`` for ``[0, n)`` cut into ``k`` ranges, one per thread.

    ``fn`` calls a kernel that releases the GIL.  Returns the results in
    range order; one call on this thread when ``k`` is 1.

    Parameters
    ----------
    fn : callable
        ``fn(i, r0, r1)`` for the i-th range ``[r0, r1)``.
    n : int
        The number of items.
    k : int
        Number of ranges (threads).

    Returns
    -------
    list
        fn's results, in range order.
    """
    cuts = [n * i // k for i in range(k + 1)]
    if k == 1:
        return [fn(0, 0, n)]
    with ThreadPoolExecutor(k) as pool:
        return list(pool.map(lambda i: fn(i, cuts[i], cuts[i + 1]), range(k)))
