"""Numba kernel that joins the cells of CSV rows from byte pools (arrays in, arrays out).

Used by :func:`humanbody.io.writers.table_csv_bytes` to put the printed
numbers and the text columns of a table side by side, row by row, without a
Python string per row.  Cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE)
def join_rows(pool, starts, lengths, sep, out):
    """Write the rows ``cell_0 sep cell_1 sep ... cell_{k-1} \\n`` into ``out``; return the bytes written.

    Parameters
    ----------
    pool : ndarray, shape (N,), uint8
        The bytes every cell is taken from (the printed cells of all k columns, concatenated).
    starts, lengths : ndarray, shape (k, R), int64
        Cell ``b`` of row ``r`` is ``pool[starts[b, r]: starts[b, r] + lengths[b, r]]`` (0-based byte
        offsets into ``pool`` and byte counts).
    sep : int
        The separator byte written between cells (e.g. ``ord(",")``); each row ends in ``\\n`` (10).
    out : ndarray, shape (M,), uint8
        Written from its start; at least ``lengths.sum() + k * R`` bytes (not checked).

    Returns
    -------
    int
        The number of bytes written, ``lengths.sum() + k * R``: the rows are ``out[:n]``.
    """
    k, R = starts.shape
    pos = 0
    for r in range(R):
        for b in range(k):
            s = starts[b, r]
            for i in range(lengths[b, r]):
                out[pos + i] = pool[s + i]
            pos += lengths[b, r]
            out[pos] = sep if b < k - 1 else 10
            pos += 1
    return pos
