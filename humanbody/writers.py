"""Writing result tables: CSV (default) or Parquet, always atomically.

CSV numbers are printed by numba kernels (:mod:`humanbody._format`) with a
fixed number of significant digits, ``digits`` (default
:data:`CSV_DIGITS` = 10), in the layout of C's ``%.10g``: the printed
decimal is the value rounded to 10 significant digits, a relative change
of at most 5e-10 (half a unit in the tenth digit; 5e-11 for values whose
leading digit is 9), far below the noise of any motion-capture input.
Missing values (NaN) are empty fields, infinities ``inf`` and ``-inf``.
Blocks of rows are printed in parallel into one byte buffer that is
written with one call per block, several times faster than Arrow's CSV
writer (``benchmarks/bench_io.py``; docs/formats.md, "CSV numbers").

``digits=None`` keeps every float64 exactly: the table is written by Arrow
(:func:`pyarrow.csv.write_csv`), which prints the shortest decimal that
reads back to the same bits, at the old, slower speed.

:class:`CsvWriter` streams a long table block by block (open, header,
``write`` each block, close) into a temporary file that is renamed onto the
target only when it closes without an error, so a reader never sees a
partial file.
"""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np
import pandas as pd

from ._atomic import atomic_path
from .errors import InputError

FORMATS = ("csv", "parquet")

#: Significant digits of the numbers in a CSV file written by this module.
CSV_DIGITS = 10

#: Rows printed per block by the kernel: bounds the scratch buffer
#: (``rows * columns * (digits + 8)`` bytes) and gives the threads work.
_BLOCK_ROWS = 256
#: Below this many values the kernel runs on the calling thread.
_PARALLEL_MIN_VALUES = 200_000
#: Rows of a DataFrame converted and printed at a time by write_table.
_CHUNK_ROWS = 16384


@lru_cache(maxsize=1)
def _constants():
    from . import _format

    return _format.pow10_tables(), _format.powers_of_ten(), _format.digit_pairs()


def _check_digits(digits) -> int:
    from ._format import MAX_DIGITS

    if isinstance(digits, (bool, np.bool_)) or not isinstance(digits, (int, np.integer)) or not (
            1 <= digits <= MAX_DIGITS):
        raise ValueError(f"digits must be an integer from 1 to {MAX_DIGITS}, not {digits!r}")
    return int(digits)


def format_csv_rows(values, digits: int = CSV_DIGITS, sep: str = ",") -> bytes:
    """CSV text of a float matrix: one line per row, ``digits`` significant digits.

    Parameters
    ----------
    values : array_like, shape (rows, cols)
        Numbers (converted to float64).
    digits : int
        Significant digits, 1 to 15.
    sep : str
        One-character field separator.

    Returns
    -------
    bytes
        ASCII lines ending in ``\\n``; NaN as an empty field.
    """
    return b"".join(bytes(m) for m in _format_chunks(values, _check_digits(digits), sep))


def _format_chunks(values, digits: int, sep: str = ",", scratch=None):
    """Memoryviews of the CSV bytes of ``values``, block by block (see format_csv_rows).

    ``scratch`` (a one-element list holding a uint8 array, or None) keeps the
    print buffer between calls, so a stream of blocks reuses mapped memory.
    The views are valid until the next call with the same scratch.
    """
    from . import _format

    v = np.ascontiguousarray(values, dtype=np.float64)
    if v.ndim != 2:
        raise ValueError(f"values must be a 2-D array, not {v.ndim}-D")
    rows, cols = v.shape
    if rows == 0:
        return []
    if cols == 0:
        return [memoryview(b"\n" * rows)]
    if len(sep) != 1 or ord(sep) > 127:
        raise ValueError("sep must be one ASCII character")
    tables, ipow10, dig2 = _constants()
    nblocks = -(-rows // _BLOCK_ROWS)
    row_bytes = cols * (_format.field_width(digits) + 1)
    need = rows * row_bytes
    if scratch is not None and scratch[0] is not None and scratch[0].size >= need:
        out = scratch[0]
    else:
        out = np.empty(need, dtype=np.uint8)
        if scratch is not None:
            scratch[0] = out
    lengths = np.zeros(nblocks, dtype=np.int64)
    kernel = _format.format_block if v.size >= _PARALLEL_MIN_VALUES else _format.format_block_serial
    kernel(v, v.view(np.int64), digits, ord(sep), tables, ipow10, dig2, _BLOCK_ROWS, out, lengths)
    buf = memoryview(out)
    step = _BLOCK_ROWS * row_bytes
    return [buf[b * step: b * step + int(lengths[b])] for b in range(nblocks)]


def _header_line(columns, sep: str = ",") -> bytes:
    """Column names as a CSV line, quoted only where needed (RFC 4180)."""
    cells = []
    for c in map(str, columns):
        if any(ch in c for ch in (sep, '"', "\r", "\n")):
            c = '"' + c.replace('"', '""') + '"'
        cells.append(c)
    return (sep.join(cells) + "\n").encode("utf-8")


class CsvWriter:
    """Stream a numeric table into a CSV file, block by block, atomically.

    The file is written to a temporary file beside ``path`` and renamed
    onto it by :meth:`close` (or on leaving a ``with`` block without an
    error); on an error inside the ``with`` block, or :meth:`abort`, the
    temporary file is removed and ``path`` is left as it was.

    Parameters
    ----------
    path : str or Path
        Target file.
    columns : sequence of str
        Column names, written as the header line.
    digits : int
        Significant digits of every number (1 to 15).

    Examples
    --------
    >>> with CsvWriter("out.csv", ["time", "x"]) as w:   # doctest: +SKIP
    ...     for block in blocks:
    ...         w.write(block)                          # (rows, 2) floats
    """

    def __init__(self, path, columns, digits: int = CSV_DIGITS):
        self.path = os.fspath(path)
        self.columns = [str(c) for c in columns]
        self.digits = _check_digits(digits)
        self.rows = 0
        self._scratch = [None]
        self._fh = None
        self._ctx = atomic_path(self.path)
        tmp = self._ctx.__enter__()
        try:
            self._fh = open(tmp, "wb")
            self._fh.write(_header_line(self.columns))
        except BaseException as err:
            self._ctx.__exit__(type(err), err, err.__traceback__)
            raise

    def write(self, values) -> None:
        """Append rows: ``values`` of shape (rows, len(columns)) (a DataFrame too)."""
        if self._fh is None:
            raise ValueError("the CsvWriter is closed")
        if isinstance(values, pd.DataFrame):
            values = values.to_numpy(dtype=np.float64)
        v = np.asarray(values, dtype=np.float64)
        if v.ndim == 1 and len(self.columns) == 1:
            v = v[:, None]
        if v.ndim != 2 or v.shape[1] != len(self.columns):
            raise ValueError(f"expected rows of {len(self.columns)} values, got shape {v.shape}")
        for chunk in _format_chunks(v, self.digits, scratch=self._scratch):
            self._fh.write(chunk)
        self.rows += v.shape[0]

    def close(self) -> None:
        """Finish the file: flush, close and rename it onto the target path."""
        if self._fh is None:
            return
        fh, self._fh = self._fh, None
        try:
            fh.close()
        except BaseException as err:
            self._ctx.__exit__(type(err), err, err.__traceback__)
            raise
        self._ctx.__exit__(None, None, None)

    def abort(self) -> None:
        """Discard everything written: remove the temporary file, keep the target as it was."""
        if self._fh is None:
            return
        fh, self._fh = self._fh, None
        fh.close()
        err = RuntimeError("CsvWriter aborted")
        try:
            self._ctx.__exit__(RuntimeError, err, None)
        except RuntimeError:
            pass

    @property
    def closed(self) -> bool:
        return self._fh is None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.abort()
        return False

    def __del__(self):  # never leave a temporary file behind
        try:
            self.abort()
        except Exception:
            pass


def _numeric_matrix(table: pd.DataFrame, digits: int):
    """The table as float64 when every column prints the same through the kernel.

    Float columns always qualify; integer columns when every value has at
    most ``digits`` digits (then ``%g`` prints the integer itself).  Returns
    None for other tables (text, booleans, dates, large integers).
    """
    for dt in table.dtypes:
        if not (pd.api.types.is_float_dtype(dt) or pd.api.types.is_integer_dtype(dt)):
            return None
        if isinstance(dt, pd.api.extensions.ExtensionDtype) and not isinstance(dt, np.dtype):
            return None  # nullable dtypes: pd.NA is printed by Arrow
    ints = [c for c, dt in zip(table.columns, table.dtypes) if pd.api.types.is_integer_dtype(dt)]
    if ints:
        top = max(int(np.abs(table[c].to_numpy()).max(initial=0)) for c in ints)
        if top >= 10**digits:
            return None
    return table


def write_table(table: pd.DataFrame, stem, fmt: str = "csv", digits: int | None = CSV_DIGITS) -> str:
    """Write ``table`` to ``<stem>.<fmt>`` atomically and return the path.

    Parameters
    ----------
    table : DataFrame
        Written without its index.
    stem : str or Path
        Output path without suffix.
    fmt : {"csv", "parquet"}
    digits : int or None
        CSV only: significant digits of every number (1 to 15, default
        :data:`CSV_DIGITS`).  None writes every float64 exactly (shortest
        round-trip decimal, by Arrow, several times slower).  Tables with
        non-numeric columns are always written by Arrow.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    path = f"{os.fspath(stem)}.{fmt}"
    if fmt == "csv" and digits is not None:
        digits = _check_digits(digits)
        if _numeric_matrix(table, digits) is not None:
            with CsvWriter(path, table.columns, digits=digits) as w:
                for r0 in range(0, len(table), _CHUNK_ROWS):
                    w.write(table.iloc[r0:r0 + _CHUNK_ROWS].to_numpy(dtype=np.float64))
            return path
    import pyarrow as pa

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            import pyarrow.csv as pcsv

            plain = not any(set(str(c)) & set(',"\r\n') for c in table.columns)
            options = pcsv.WriteOptions(quoting_style="needed", quoting_header="none" if plain else "needed")
            pcsv.write_csv(arrow, tmp, options)
        else:
            import pyarrow.parquet as pq

            pq.write_table(arrow, tmp)
    return path
