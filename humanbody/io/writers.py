"""Writing tables: CSV (default) or Parquet, always atomically, or as bytes; the one table writer.

:func:`write_table` (a DataFrame into a file), :func:`write_blocks` (a long
numeric table streamed block by block into a file: the results of a trial),
:func:`table_bytes` and :func:`blocks_bytes` (the same files' bytes, in
memory: the batch report's).

CSV numbers are printed by numba kernels (:mod:`humanbody._kernels.csv_print`) with a
fixed number of significant digits, ``digits`` (default
:data:`CSV_DIGITS` = 8), in the layout of C's ``%.8g``: the printed
decimal is the value rounded to 8 significant digits, a relative change
of at most 5e-8 (half a unit in the eighth digit), far below the noise of
any motion-capture input (about 1e-4 of a segment's size), and time keeps
1 ms steps up to 27 hours.
Missing values (NaN) are empty fields, infinities ``inf`` and ``-inf``.
The text is byte for byte C's ``printf("%.{digits}g")`` for every double
and every ``digits`` from 1 to 15; fewer digits print faster (one digit
word up to 8 digits, two above).  Blocks of rows are printed in parallel
into a byte buffer, :data:`_CHUNK_ROWS` rows at a time; :class:`CsvWriter`
hands each chunk to a second thread that writes it (``os.writev`` on the
raw descriptor, no copy) while the next chunk is printed
(``benchmarks/bench_io.py``; docs/formats.md, "CSV numbers").

``digits=None`` keeps every float64 exactly: the table is written by Arrow
(:func:`pyarrow.csv.write_csv`), which prints the shortest decimal that
reads back to the same bits, at the old, slower speed.

:class:`CsvWriter` streams a long table block by block (open, header,
``write`` each block, close) into a temporary file that is renamed onto the
target only when it closes without an error, so a reader never sees a
partial file.
"""

from __future__ import annotations

import io
import math
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .._kernels import csv_print as _csvprint
from .._kernels.csv_join import join_rows
from .._kernels.csv_print import MAX_DIGITS
from ..atomic import atomic_path, open_temp
from ..errors import InputError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

FORMATS = ("csv", "parquet")

#: Significant digits of the numbers in a CSV file written by this module:
#: 8 fit the printer's one-word fast path (up to 8 digits print ~1.5x faster
#: than 9-15) and are more than any measured quantity carries; ``--digits``
#: of ``humanbody analyze`` asks for up to 15, ``--format parquet`` keeps
#: every bit.
CSV_DIGITS = 8

#: Significant digits of the report's tables (per-stride values, summaries, curves): 10, enough that
#: a value read back and averaged again agrees with the report's own to the digits it prints.
REPORT_CSV_DIGITS = 10

#: Rows printed per block by the kernel: each thread takes whole blocks.
_BLOCK_ROWS = 128
#: Below this many values the kernel runs on the calling thread.
PARALLEL_MIN_VALUES = 100_000
#: Rows printed into one buffer at a time by CsvWriter (bounds its two
#: buffers at about ``rows * columns * (digits + 8)`` bytes each) and of a
#: DataFrame converted at a time by write_table.
_CHUNK_ROWS = 2048
#: From this many bytes on, CsvWriter writes a chunk on a second thread
#: while the next chunk is printed.
_THREAD_MIN_BYTES = 1 << 20


@lru_cache(maxsize=1)
def _constants():
    return _csvprint.pow10_tables(), _csvprint.powers_of_ten(), _csvprint.exponent_words()


def check_digits(digits) -> int:
    """``digits`` as an int from 1 to :data:`MAX_DIGITS` (ValueError otherwise).

    Parameters
    ----------
    digits : int
        The requested number of significant digits.

    Returns
    -------
    int
        The same number, checked.
    """
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
        ASCII lines ending in ``\\n``; NaN as an empty field; each number
        as C's ``%.{digits}g`` prints it.
    """
    return b"".join(bytes(m) for m in format_chunks(values, check_digits(digits), sep))


def _printf_rows(values, digits: int, sep: str) -> bytes:
    """Rows printed by Python's ``%`` operator (C's printf): the kernels' rare fallback."""
    f = f"%.{digits}g"
    return "".join(sep.join("" if x != x else f % x for x in row.tolist()) + "\n" for row in values).encode()


def format_chunks(values, digits: int, sep: str = ",", scratch=None, margins=None):
    """The CSV bytes of ``values``, block by block (see format_csv_rows).

    Returns a list of memoryviews into the print buffer (and, for a block
    the kernel declined, the bytes Python printed).  ``scratch`` (a
    one-element list holding a uint8 array, or None) keeps the print
    buffer between calls, so a stream of blocks reuses mapped memory; the
    views are valid until the next call with the same scratch.
    ``margins`` = (fast, tie) overrides the kernel's tie margins (tests).

    Parameters
    ----------
    values : ndarray, shape (rows, columns)
        The numbers to print (float64).
    digits : int
        Significant digits of every number.
    sep : str
        The field separator.
    scratch : list, optional
        A one-element list holding the print buffer kept between calls.
    margins : tuple, optional
        (fast, tie): the kernel's tie margins, for tests.

    Returns
    -------
    list of memoryview or bytes
        The CSV text's bytes, block after block (rows ending in a line feed).
    """
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
    tables, ipow10, expw = _constants()
    if margins is None:
        margins = _csvprint.margins(digits)
    nblocks = -(-rows // _BLOCK_ROWS)
    block_bytes = _BLOCK_ROWS * cols * (_csvprint.field_width(digits) + 1) + _csvprint.SLACK
    need = nblocks * block_bytes
    if scratch is not None and scratch[0] is not None and scratch[0].size >= need:
        out = scratch[0]
    else:
        out = np.empty(need, dtype=np.uint8)
        if scratch is not None:
            scratch[0] = out
    lengths = np.zeros(nblocks, dtype=np.int64)
    kernel = _csvprint.format_block if v.size >= PARALLEL_MIN_VALUES else _csvprint.format_block_serial
    kernel(v, digits, ord(sep), tables, ipow10, expw, float(margins[0]), float(margins[1]), _BLOCK_ROWS,
           block_bytes, out, lengths)
    buf = memoryview(out)
    chunks = []
    for b in range(nblocks):
        if lengths[b] < 0:
            chunks.append(memoryview(_printf_rows(v[b * _BLOCK_ROWS:(b + 1) * _BLOCK_ROWS], digits, sep)))
        else:
            chunks.append(buf[b * block_bytes: b * block_bytes + int(lengths[b])])
    return chunks


def write_all(fd: int, chunks) -> None:
    """Write every buffer of ``chunks`` to the file descriptor, in order (os.writev, partial writes resumed).

    Parameters
    ----------
    fd : int
        An open file descriptor.
    chunks : iterable of bytes-like
        The buffers, in order.
    """
    chunks = [c for c in chunks if len(c)]
    while chunks:
        n = os.writev(fd, chunks[:1024])
        while chunks and n >= len(chunks[0]):
            n -= len(chunks[0])
            chunks.pop(0)
        if n:
            chunks[0] = chunks[0][n:]


def _header_line(columns, sep: str = ",") -> bytes:
    """Column names as a CSV line, quoted only where needed (RFC 4180)."""
    cells = []
    for c in map(str, columns.tolist() if hasattr(columns, "tolist") else columns):
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
        self.digits = check_digits(digits)
        self.rows = 0
        self._scratch = [[None], [None]]  # two print buffers: one printed while the other is written
        self._turn = 0
        self._pool: ThreadPoolExecutor | None = None  # the writing thread, started for the first large chunk
        self._pending: Future[None] | None = None  # future of the write in progress
        self._fh = None
        self._ctx = atomic_path(self.path)
        tmp = self._ctx.__enter__()
        try:
            self._fh = open_temp(tmp, buffering=0)  # raw file: writes go straight to the descriptor
            write_all(self._fh.fileno(), [_header_line(self.columns)])
        except BaseException as err:
            if self._fh is not None:
                self._fh.close()
                self._fh = None
            self._ctx.__exit__(type(err), err, err.__traceback__)
            raise

    def write(self, values) -> None:
        """Append rows: ``values`` of shape (rows, len(columns)) (a DataFrame too).

        Large inputs are printed :data:`_CHUNK_ROWS` rows at a time; each
        chunk is written by a second thread while the next one is printed.
        An error of that write (a full disk) is raised by a later
        :meth:`write` or by :meth:`close`.

        Parameters
        ----------
        values : ndarray or pandas.DataFrame, shape (rows, len(columns))
            The rows to append, in the writer's column order.
        """
        if self._fh is None:
            raise ValueError("the CsvWriter is closed")
        pd = sys.modules.get("pandas")  # a DataFrame exists only once pandas is imported
        if pd is not None and isinstance(values, pd.DataFrame):
            values = values.to_numpy(dtype=np.float64)
        v = np.asarray(values, dtype=np.float64)
        if v.ndim == 1 and len(self.columns) == 1:
            v = v[:, None]
        if v.ndim != 2 or v.shape[1] != len(self.columns):
            raise ValueError(f"expected rows of {len(self.columns)} values, got shape {v.shape}")
        fd = self._fh.fileno()
        for r0 in range(0, v.shape[0], _CHUNK_ROWS):
            part = v[r0:r0 + _CHUNK_ROWS]
            # the buffer of this turn is free: the write in flight (if any) uses the other one
            chunks = format_chunks(part, self.digits, scratch=self._scratch[self._turn])
            self._wait()
            if sum(len(c) for c in chunks) < _THREAD_MIN_BYTES:
                write_all(fd, chunks)
                continue
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="humanbody-csv")
            self._pending = self._pool.submit(write_all, fd, chunks)
            self._turn ^= 1
        self.rows += v.shape[0]

    def _wait(self) -> None:
        """Wait for the write in flight; raise its error."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def _stop(self) -> None:
        """Wait for the write in flight (ignoring its error) and end the writing thread."""
        try:
            self._wait()
        except Exception:
            pass
        finally:
            if self._pool is not None:
                self._pool.shutdown(wait=True)
                self._pool = None

    def close(self) -> None:
        """Finish the file: flush, close and rename it onto the target path."""
        if self._fh is None:
            return
        try:
            self._wait()
        except BaseException as err:
            self._stop()
            fh, self._fh = self._fh, None
            fh.close()
            self._ctx.__exit__(type(err), err, err.__traceback__)
            raise
        self._stop()
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
        self._stop()
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
    import pandas as pd  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    for dt in table.dtypes:
        if not (pd.api.types.is_float_dtype(dt) or pd.api.types.is_integer_dtype(dt)):
            return None
        if isinstance(dt, pd.api.extensions.ExtensionDtype) and not isinstance(dt, np.dtype):
            return None  # nullable dtypes: pd.NA is printed by Arrow
    ints = [c for c, dt in zip(table.columns, table.dtypes, strict=True) if pd.api.types.is_integer_dtype(dt)]
    if ints:
        top = max(int(np.abs(table[c].to_numpy()).max(initial=0)) for c in ints)
        if top >= 10**digits:
            return None
    return table


def _numeric_column(col: pd.Series, dt, digits: int) -> bool:
    """Whether the column ``col`` (of dtype ``dt``) prints the same through the kernel (:func:`_numeric_matrix`
    of that column alone)."""
    import pandas as pd  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    if not (pd.api.types.is_float_dtype(dt) or pd.api.types.is_integer_dtype(dt)):
        return False
    if isinstance(dt, pd.api.extensions.ExtensionDtype) and not isinstance(dt, np.dtype):
        return False  # nullable dtypes: pd.NA is printed by Arrow
    if pd.api.types.is_integer_dtype(dt):
        return int(np.abs(col.to_numpy()).max(initial=0)) < 10**digits
    return True


def _quoted(text: str, sep: str) -> str:
    if any(ch in text for ch in (sep, '"', "\r", "\n")):
        return '"' + text.replace('"', '""') + '"'
    return text


def _factorize(col: pd.Series):
    """(codes, uniques) of a text column, code -1 for a missing value (Arrow's dictionary
    encoding for Arrow-backed strings: several times faster than pandas' factorize)."""
    import pandas as pd  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    import pyarrow as pa  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    if isinstance(col.dtype, pd.StringDtype) and col.dtype.storage == "pyarrow":
        arr = pa.array(col.array)
        enc = (arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr).dictionary_encode()
        idx = enc.indices
        codes = np.asarray(idx.fill_null(-1) if idx.null_count else idx, dtype=np.int64)
        return codes, enc.dictionary.to_pylist()
    return pd.factorize(col, use_na_sentinel=True)


def _text_block(part: list[pd.Series], sep: str) -> tuple[list[str], np.ndarray]:
    """The text of adjacent text columns: the distinct row texts (cells quoted where needed, joined by
    ``sep``) and each row's index into them.

    Each distinct combination of values is quoted and joined once: a long
    table repeats a few labels (side, variable, unit) on every row.
    """
    codes, words = [], []
    for col in part:
        c, uniques = _factorize(col)
        w = [_quoted(str(u), sep) for u in uniques] + [""]  # code -1 (missing) picks the last, ""
        codes.append(np.where(c < 0, len(w) - 1, c).astype(np.int64))
        words.append(w)
    if len(codes) == 1:
        return words[0], codes[0]
    if math.prod(len(w) for w in words) >= 2**62:  # beyond one int64 key per row: row by row
        cols = [np.array(w, dtype=object)[c].tolist() for w, c in zip(words, codes, strict=True)]
        lines = list(map(sep.join, zip(*cols, strict=True)))
        return lines, np.arange(len(lines))
    key = codes[0]
    for w, c in zip(words[1:], codes[1:], strict=True):
        key = key * len(w) + c
    space = math.prod(len(w) for w in words)
    if space <= 4 * len(key) + 1024:  # few possible combinations: found by a table over them, without a sort
        first = np.full(space, -1, dtype=np.int64)
        first[key[::-1]] = np.arange(len(key) - 1, -1, -1)  # the last assignment wins: each key's first row
        present = np.flatnonzero(first >= 0)
        number = np.empty(space, dtype=np.int64)
        number[present] = np.arange(len(present))
        first, inverse = first[present], number[key]
    else:
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    lines = [sep.join(w[c[i]] for w, c in zip(words, codes, strict=True)) for i in first.tolist()]
    return lines, inverse.ravel().astype(np.int64)


def table_csv_bytes(table: pd.DataFrame, digits: int = CSV_DIGITS, sep: str = ",") -> bytes:
    """A table with numeric and text columns as CSV text, without its index.

    The text pandas writes with ``to_csv(index=False,
    float_format=f"%.{digits}g")`` (missing values as empty fields, text
    quoted only where needed), but the numbers are printed by this module's
    kernel in blocks of adjacent numeric columns, many times faster than
    pandas' per-value formatting, and the cells of each row are put together
    by a kernel too (:mod:`humanbody._kernels.csv_join`).  Columns that are
    neither numbers nor text (dates, booleans, large integers) send the
    whole table through pandas.

    Parameters
    ----------
    table : pandas.DataFrame
        The table (numeric and text columns).
    digits : int
        Significant digits.
    sep : str
        The field separator.

    Returns
    -------
    bytes
        The CSV text, UTF-8: a header line then one line per row.
    """
    import pandas as pd  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    digits = check_digits(digits)
    table = pd.DataFrame(table, copy=False)  # the same columns without the attrs (pandas copies them per column)
    blocks, kind = [], None
    columns = [col for _, col in table.items()]  # each column once (positional indexing costs more per call)
    for i, (dt, col) in enumerate(zip(table.dtypes.tolist(), columns, strict=True)):
        numeric = _numeric_column(col, dt, digits)
        text = (pd.api.types.is_string_dtype(dt) or pd.api.types.is_object_dtype(dt)) and not numeric
        if text and pd.api.types.is_object_dtype(dt):
            text = all(isinstance(v, str) or v is None or (isinstance(v, float) and v != v)
                       for v in col.tolist())
        if not (numeric or text):
            buf = io.StringIO()
            table.to_csv(buf, index=False, float_format=f"%.{digits}g", lineterminator="\n", sep=sep)
            return buf.getvalue().encode("utf-8")
        k = "num" if numeric else "text"
        if k == kind:
            blocks[-1][1].append(i)
        else:
            blocks.append((k, [i]))
            kind = k
    head = _header_line(table.columns, sep)
    rows = len(table)
    if not rows:
        return head
    if len(blocks) == 1 and blocks[0][0] == "num":
        return head + format_csv_rows(table.to_numpy(dtype=np.float64), digits, sep)
    pools, starts, lengths, base = [], [], [], 0
    for k, cols in blocks:
        if k == "num":
            values = np.column_stack([columns[i].to_numpy(dtype=np.float64) for i in cols])
            text = np.frombuffer(format_csv_rows(values, digits, sep), dtype=np.uint8)
            ends = np.flatnonzero(text == 10)  # every row's line ends with "\n"
            first = np.concatenate([[0], ends[:-1] + 1])
            pools.append(text)
            starts.append(first + base)
            lengths.append(ends - first)
        else:
            words, code = _text_block([columns[i] for i in cols], sep)
            encoded = [w.encode("utf-8") for w in words]
            size = np.array([len(w) for w in encoded], dtype=np.int64)
            offset = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int64)
            pool = np.frombuffer(b"".join(encoded), dtype=np.uint8)
            pools.append(pool)
            starts.append(offset[code] + base)
            lengths.append(size[code])
        base += len(pools[-1])
    length = np.stack(lengths).astype(np.int64)
    out = np.empty(len(head) + int(length.sum()) + len(blocks) * rows, dtype=np.uint8)
    out[:len(head)] = np.frombuffer(head, dtype=np.uint8)
    n = join_rows(np.concatenate(pools) if pools else np.empty(0, np.uint8), np.stack(starts).astype(np.int64),
                  length, ord(sep), out[len(head):])
    return out[:len(head) + n].tobytes()


def write_table(table: pd.DataFrame, stem, fmt: str = "csv", digits: int | None = CSV_DIGITS) -> str:
    """Write ``table`` to ``<stem>.<fmt>`` atomically and return the path.

    Parameters
    ----------
    table : DataFrame
        Written without its index.
    stem : str or Path
        Output path without suffix.
    fmt : {"csv", "parquet"}
        The file format.
    digits : int or None
        CSV only: significant digits of every number (1 to 15, default
        :data:`CSV_DIGITS`).  None writes every float64 exactly (shortest
        round-trip decimal, by Arrow, several times slower).  Tables with
        non-numeric columns are always written by Arrow.

    Returns
    -------
    str
        The path written.
    """
    if fmt not in FORMATS:
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    path = f"{os.fspath(stem)}.{fmt}"
    if fmt == "csv" and digits is not None:
        digits = check_digits(digits)
        if _numeric_matrix(table, digits) is not None:
            return write_blocks(path, table.columns, (table.iloc[r0:r0 + _CHUNK_ROWS].to_numpy(dtype=np.float64)
                                                      for r0 in range(0, len(table), _CHUNK_ROWS)), "csv", digits)
    import pyarrow as pa  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    import pyarrow.csv as pcsv  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither

    arrow = pa.Table.from_pandas(table, preserve_index=False)
    with atomic_path(path) as tmp:
        if fmt == "csv":
            plain = not any(set(str(c)) & set(',"\r\n') for c in table.columns)
            options = pcsv.WriteOptions(quoting_style="needed", quoting_header="none" if plain else "needed")
            pcsv.write_csv(arrow, tmp, options)
        else:
            import pyarrow.parquet as pq  # lazy: importing it costs the CLI about 40 ms

            pq.write_table(arrow, tmp)
    return path


def write_blocks(path, columns, blocks, fmt: str = "csv", digits: int = CSV_DIGITS) -> str:
    """Stream a numeric table, given as blocks of rows, into ``path`` (CSV or Parquet) atomically.

    A long table (the results of a long trial) is never held whole: each
    block is printed (CSV, :class:`CsvWriter`) or converted (Parquet, one
    row group per block) and let go.

    Parameters
    ----------
    path : str or Path
        Target file.
    columns : sequence of str
        Column names.
    blocks : iterable of ndarray
        Blocks of rows, each (rows, len(columns)) float64.
    fmt : {"csv", "parquet"}
        The file format.
    digits : int
        CSV only: significant digits of every number (1 to 15).

    Returns
    -------
    str
        ``path``.
    """
    if fmt == "csv":
        with CsvWriter(path, columns, digits=digits) as writer:
            for block in blocks:
                writer.write(block)
    elif fmt == "parquet":
        with atomic_path(path) as tmp, open_temp(tmp) as fh:
            _parquet_blocks(fh, columns, blocks)
    else:
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    return os.fspath(path)


def blocks_bytes(columns, blocks, fmt: str = "csv", digits: int = CSV_DIGITS) -> bytes:
    """The bytes :func:`write_blocks` writes, in memory.

    Parameters
    ----------
    columns : sequence of str
        Column names.
    blocks : iterable of ndarray
        Blocks of rows, each (rows, len(columns)) float64.
    fmt : {"csv", "parquet"}
        The file format.
    digits : int
        CSV only: significant digits of every number (1 to 15).

    Returns
    -------
    bytes
        The file's content.
    """
    if fmt == "csv":
        digits = check_digits(digits)
        return _header_line(columns) + b"".join(format_csv_rows(block, digits) for block in blocks)
    if fmt != "parquet":
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    buf = io.BytesIO()
    _parquet_blocks(buf, columns, blocks)
    return buf.getvalue()


def _parquet_blocks(fh, columns, blocks) -> None:
    """Write float64 ``blocks`` of rows as a Parquet file into the open binary file ``fh``, a row group each."""
    import pyarrow as pa  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    import pyarrow.parquet as pq  # lazy: importing it costs the CLI about 40 ms

    schema = pa.schema([(str(c), pa.float64()) for c in columns])
    with pq.ParquetWriter(fh, schema) as writer:
        for block in blocks:
            writer.write_table(pa.Table.from_arrays([pa.array(block[:, j]) for j in range(block.shape[1])],
                                                    schema=schema))


def table_bytes(table: pd.DataFrame, fmt: str = "csv", digits: int = CSV_DIGITS) -> bytes:
    """A table (numbers and text) as the bytes of a CSV or Parquet file, without its index.

    CSV: :func:`table_csv_bytes` (``digits`` significant digits).  Parquet:
    the file of ``pyarrow.Table.from_pandas(table, preserve_index=False)``,
    every bit kept (:func:`_arrow_table`).

    Parameters
    ----------
    table : DataFrame
        The table (numeric and text columns).
    fmt : {"csv", "parquet"}
        The file format.
    digits : int
        CSV only: significant digits of every number (1 to 15).

    Returns
    -------
    bytes
        The file's content.
    """
    if fmt == "csv":
        return table_csv_bytes(table, digits)
    if fmt != "parquet":
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    import pyarrow.parquet as pq  # lazy: as above

    buf = io.BytesIO()
    pq.write_table(_arrow_table(table), buf)
    return buf.getvalue()


#: Arrow schemas (with pandas' metadata) of the tables :func:`_arrow_table` converted, by column names and
#: dtypes (a batch's trials share a few layouts, and pandas' conversion takes most of the writing time).
_ARROW_SCHEMAS: dict = {}


def _arrow_table(table: pd.DataFrame) -> pa.Table:
    """``pyarrow.Table.from_pandas(table, preserve_index=False)``: the first table of a layout by pandas'
    route, the next ones of the same column names and dtypes column by column into the first one's schema
    (and pandas metadata)."""
    import pandas as pd  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    import pyarrow as pa  # lazy: pandas and Arrow cost 0.5 CPU-s at start-up; numeric writers need neither
    dtypes = table.dtypes.tolist()
    # a layout whose Arrow types the dtypes alone decide (not object columns: their values do)
    fixed = len(table) > 0 and isinstance(table.index, pd.RangeIndex) and all(
        dt.kind in "fiu" if isinstance(dt, np.dtype) else isinstance(dt, pd.StringDtype) for dt in dtypes)
    key = (tuple(map(str, table.columns.tolist())), tuple(map(str, dtypes)))
    schema = _ARROW_SCHEMAS.get(key) if fixed else None
    if schema is None:
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        if fixed and len(_ARROW_SCHEMAS) < 8:
            _ARROW_SCHEMAS[key] = arrow.schema
        return arrow
    columns = []
    floats = [i for i, dt in enumerate(dtypes) if isinstance(dt, np.dtype) and dt == np.float64]
    block = table.iloc[:, floats].to_numpy(dtype=np.float64).T if floats else np.empty((0, len(table)))  # one conversion
    rows = dict(zip(floats, range(len(floats)), strict=True))
    for i, fld in enumerate(schema):
        if i in rows:
            values = block[rows[i]]
        else:
            col = table.iloc[:, i]
            values = col.to_numpy() if isinstance(col.dtype, np.dtype) else col.array
        columns.append(pa.array(values, type=fld.type, from_pandas=True))  # NaN -> null, as pandas does
    return pa.Table.from_arrays(columns, schema=schema)
