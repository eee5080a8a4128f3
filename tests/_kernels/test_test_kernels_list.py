"""The test suite's kernel list (``tests/kernels.txt``, compiled in two processes before pytest-xdist's workers
start, ``tests/conftest.py``) and the helpers that read the cache and compile what it lacks
(:func:`humanbody._kernels.warm.missing`, :func:`humanbody._kernels.warm.compile_in_processes`)."""

from __future__ import annotations

import importlib
from pathlib import Path

from numba.core.registry import CPUDispatcher

from humanbody._kernels import cache, warm

KERNELS = Path(__file__).resolve().parents[1] / "kernels.txt"


def test_every_listed_kernel_exists_and_its_signature_reads_back():
    """When a kernel is renamed or its arguments change, ``python benchmarks/test_run_kernels.py CLONE``
    writes the list anew from a clone where the quick suite ran with an empty cache."""
    entries = warm.entries(KERNELS)
    assert len(entries) > 100 and len(set(entries)) == len(entries)
    for name, sig in entries:
        module, _, function = name.rpartition(".")
        assert isinstance(getattr(importlib.import_module(f"humanbody._kernels.{module}"), function),
                          CPUDispatcher), name
        assert repr(warm.signature(sig)) == sig, name


def test_the_cache_index_says_what_is_cached(tmp_path):
    """A signature this process has compiled or loaded from the cache is in the index; one never compiled is
    missing; compiling the missing list skips an entry that no longer compiles and leaves nothing missing."""
    warm.compile_listed([e for e in warm.entries() if e[0] == "text_parse.last_line_feed"])
    cached = [e for e in warm.entries() if e[0] == "text_parse.last_line_feed"]
    assert cached and cached[0][1] in cache.cached_signatures()["text_parse.last_line_feed"]
    never = ("text_parse.last_line_feed", "(int64, int64)")  # no such kernel: an integer is not a buffer
    listed = tmp_path / "kernels.txt"
    listed.write_text("".join(f"{n}\t{s}\n" for n, s in [*cached, never]))
    assert warm.missing(warm.entries(listed)) == [never]
    assert warm.compile_in_processes(listed, processes=1) == 1  # tried, skipped, no error
    assert warm.compile_in_processes(listed) == 1  # the same in two processes of their own, which end
    assert warm.missing(warm.entries(listed)) == [never]
    listed.write_text("".join(f"{n}\t{s}\n" for n, s in cached))
    assert warm.compile_in_processes(listed) == 0  # nothing missing: nothing started
