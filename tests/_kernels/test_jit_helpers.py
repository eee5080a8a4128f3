"""Cached kernels that inline shared helpers are dropped when the helpers change."""

from pathlib import Path

from humanbody._kernels import cache as _jit


def test_stale_dependent_caches_are_removed(tmp_path, monkeypatch):
    helpers = tmp_path / "_rot.py"
    dep = tmp_path / "pkg" / "_kernels.py"
    dep.parent.mkdir()
    helpers.write_text("def f(): return 1\n")
    dep.write_text("x = 1\n")
    cache = dep.parent / "__pycache__"
    cache.mkdir()
    monkeypatch.setattr(_jit, "_INLINED", {helpers: (dep,)})

    def kernel_files():
        for name in ("_kernels.tree-1.py311.nbi", "_kernels.tree-1.py311.1.nbc"):
            (cache / name).write_text("cached")
        (cache / "other.f-1.py311.nbi").write_text("cached")

    kernel_files()
    _jit.drop_stale_kernels()  # no stamp yet: the caches may predate the helpers, so they go
    assert sorted(p.name for p in cache.iterdir()) == ["other.f-1.py311.nbi"]
    kernel_files()
    _jit.drop_stale_kernels()  # helpers unchanged: caches kept
    assert len(list(cache.glob("_kernels.*"))) == 2
    helpers.write_text("def f(): return 2\n")
    _jit.drop_stale_kernels()  # helpers edited: dependent caches dropped, others kept
    assert not list(cache.glob("_kernels.*")) and (cache / "other.f-1.py311.nbi").exists()
    assert Path(tmp_path / "__pycache__" / "_rot.helpers").read_text()


def test_kernel_modules_and_their_inline_helpers_are_found_in_the_folder():
    """Every module of humanbody/_kernels with a cached (not only inlined) kernel is watched, and
    every module that inlines the rotation helpers, directly or through the tree kernels, depends on them."""
    here = Path(_jit.__file__).parent
    names = {p.name for p in _jit._MODULES}
    assert {"tree.py", "kinetics.py", "pack.py", "fir.py", "csv_print.py", "angles.py", "marker_fit.py",
            "marker_layout.py", "marker_table.py", "text_parse.py"} <= names
    assert "rot.py" not in names and "cache.py" not in names  # only inline helpers / no kernels
    rot = {p.name for p in _jit._INLINED[here / "rot.py"]}
    assert {"tree.py", "kinetics.py", "marker_fit.py", "angles.py"} <= rot
    assert {p.name for p in _jit._INLINED[here / "tree.py"]} == {"kinetics.py"}
