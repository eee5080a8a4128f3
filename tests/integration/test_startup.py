"""First runs say they compile; the kernel cache check follows numba's index files."""

import os
import time

import pytest

import humanbody._kernels.cache as jit
from humanbody.cli import main


def test_cache_check_follows_index_files(tmp_path, monkeypatch):
    src = tmp_path / "_kernels.py"
    src.write_text("# kernels\n")
    monkeypatch.setattr(jit, "_MODULES", (src,))
    assert not jit.kernels_cached()  # no cache at all
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    index = cache / "_kernels.tree_kinematics-40.py311.nbi"
    index.write_bytes(b"x")
    old = time.time() - 100
    os.utime(index, (old, old))
    assert not jit.kernels_cached()  # cache older than the source: numba recompiles
    os.utime(index, None)
    assert jit.kernels_cached()


def test_compiling_notice_only_when_a_kernel_compiles(tmp_path, monkeypatch, capsys):
    """The notice follows numba's compile event: a run whose kernels load (from the cache or this process)
    prints nothing even when some module has no cache yet; a kernel that compiles prints it, once."""
    import io

    import numba

    monkeypatch.setattr(jit, "kernels_cached", lambda: False)  # a module never compiled on this machine
    data = __import__("pathlib").Path(__file__).resolve().parents[2] / "data"
    assert main(["analyze", str(data / "sample_walk.csv"), "--out", str(tmp_path)]) == 0
    capsys.readouterr()  # (this process may compile a signature the on-disk cache lacks)
    assert main(["analyze", str(data / "sample_walk.csv"), "--out", str(tmp_path)]) == 0
    assert "compiling the numerical kernels" not in capsys.readouterr().err
    out = io.StringIO()
    scope = {"__name__": "humanbody._notice_test"}
    exec("def f(x):\n    return x + 1\n\ndef g(x):\n    return x * 2\n\ndef h(x):\n    return x - 2\n", scope)
    f, g, h = numba.njit(scope["f"]), numba.njit(scope["g"]), numba.njit(scope["h"])
    with jit.announce_compilation("compiling now", out):
        assert f(1) == 2 and out.getvalue() == "compiling now\n"
        assert g(2) == 4 and f(1.5) == 2.5 and out.getvalue() == "compiling now\n"  # once per command
    assert h(3) == 1 and out.getvalue() == "compiling now\n"  # the listener ends with the command
    other = io.StringIO()
    with jit.announce_compilation("not ours", other):
        numba.njit(lambda x: x - 1)(3)  # a kernel outside humanbody says nothing
    assert other.getvalue() == ""
    closed = io.StringIO()
    closed.close()
    with jit.announce_compilation("to a closed stream", closed):  # a stale stream costs the notice, not the run
        assert numba.njit(scope["g"])(1.0) == 2.0


def test_cache_check_reads_numbas_content_stamp(tmp_path, monkeypatch):
    """numba stamps an index with the source's SHA-256: a touched file is still cached, an edited one is not."""
    import hashlib
    import pickle

    src = tmp_path / "_kernels.py"
    src.write_text("# kernels\n")
    monkeypatch.setattr(jit, "_MODULES", (src,))
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    index = cache / "_kernels.tree_kinematics-40.py311.nbi"
    with open(index, "wb") as f:
        pickle.dump("0.68", f)
        f.write(pickle.dumps((hashlib.sha256(src.read_bytes()).digest(), {})))
    old = time.time() - 100
    os.utime(index, (old, old))  # older than the source, but written for its content
    assert jit.kernels_cached()
    src.write_text("# kernels, edited\n")
    os.utime(index, None)  # newer than the source, but written for other content
    assert not jit.kernels_cached()


def test_openmp_workers_sleep_unless_the_user_chose_a_policy():
    """The command line sets OMP_WAIT_POLICY=PASSIVE before numpy or numba load (idle OpenMP workers
    would spin and take the core of the CSV writer); a policy the user set is kept.  Importing the
    library changes nothing in the host process."""
    code = ("import os, sys; import humanbody, humanbody.cli; before = os.environ.get('OMP_WAIT_POLICY'); "
            "loaded = 'numpy' in sys.modules; humanbody.cli.main = lambda argv=None: 0; humanbody.cli.console([]); "
            "print(before, loaded, os.environ['OMP_WAIT_POLICY'], os.environ['OPENBLAS_THREAD_TIMEOUT'])")
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT")}
    assert _python(code, env).strip() == "None False PASSIVE 4"  # OpenBLAS's idle threads sleep after the shortest wait
    env["OMP_WAIT_POLICY"] = "ACTIVE"
    env["OPENBLAS_THREAD_TIMEOUT"] = "28"
    assert _python(code, env).strip() == "ACTIVE False ACTIVE 28"


def test_using_the_library_leaves_the_process_settings_alone():
    """A program that imports humanbody and runs a trial through it keeps its own process settings:
    no OpenMP, OpenBLAS, MKL or numba variable is set or changed, numba's threading layer and thread
    count stay numba's defaults, and the garbage collector stays on with nothing frozen (only the
    command line, :func:`humanbody.cli.console`, sets these for its own process)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    code = (
        "import gc, os\n"
        "def settings():\n"
        "    return {k: v for k, v in os.environ.items() if any(s in k for s in ('OMP', 'OPENBLAS', 'MKL', 'NUMBA'))}\n"
        "before, thresholds = settings(), gc.get_threshold()\n"
        "import humanbody as hb\n"
        f"coords = hb.read_trial({str(root / 'data' / 'sample_walk.csv')!r})\n"
        "res = hb.compute(hb.BodyModel.default(mass=75.0, height=1.75), coords)\n"
        "import humanbody.analysis.run, humanbody.markers, humanbody.mechanics.clinical\n"
        "import numba\n"
        "print(settings() == before, numba.config.THREADING_LAYER, numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS,\n"
        "      gc.isenabled(), gc.get_freeze_count(), gc.get_threshold() == thresholds, res.omega.shape)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT",
                                                            "NUMBA_THREADING_LAYER", "NUMBA_NUM_THREADS")}
    assert _python(code, env).split() == ["True", "default", "True", "True", "0", "True", "(441,", "17,", "3)"]


def _python(code: str, env: dict | None = None) -> str:
    """Standard output of ``python -c code`` in a fresh process importing this checkout's humanbody."""
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ if env is None else env, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout


def test_filters_import_no_scipy_signal_and_change_nothing_of_scipy():
    """humanbody's filters are scipy.signal's, imported when a filter first runs: importing the modules
    loads neither scipy.signal nor scipy.stats and leaves sys.modules and SciPy's internals as they were;
    a later ``import scipy.signal`` is SciPy's own."""
    out = _python(
        "import sys, numpy as np\n"
        "import humanbody.signal.filters, humanbody.signal.differentiate, humanbody.gait.events, "
        "humanbody.markers.conditioning, humanbody.mechanics.loads\n"
        "print('loaded:', 'scipy.signal' in sys.modules, 'scipy.stats' in sys.modules)\n"
        "import scipy._lib._array_api as api; doc = api.FunctionDoc\n"
        "from scipy import signal\n"
        "print(api.FunctionDoc is doc, type(sys.modules['scipy.stats']).__name__)\n"
        "print(signal.sosfiltfilt.__doc__.split(chr(10))[0].strip())\n"
    )
    lines = out.splitlines()
    assert lines[0] == "loaded: False False"
    assert lines[1] == "True module"
    assert lines[2] == "A forward-backward digital filter using cascaded second-order sections."


def test_gc_paused_restores_the_collector_and_freezes_only_for_the_command_line(monkeypatch):
    import gc

    from humanbody import _gc

    monkeypatch.setattr(_gc, "freeze_after", False)
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    with _gc.gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() == frozen  # a library user's objects stay collectable
    gc.disable()
    try:
        with _gc.gc_paused():
            pass
        assert not gc.isenabled()  # a program that turned it off keeps it off
    finally:
        gc.enable()
    with pytest.raises(ValueError):
        with _gc.gc_paused():
            raise ValueError("inside")
    assert gc.isenabled()


def test_console_entry_freezes_the_imported_modules():
    out = _python("import gc, sys\n"
                  "from humanbody.cli import console\n"
                  "before = gc.get_freeze_count()\n"
                  "sys.argv = ['humanbody', 'model', 'show']\n"
                  "import contextlib, io\n"
                  "with contextlib.redirect_stdout(io.StringIO()) as text:\n"
                  "    status = console(['model', 'show'])\n"
                  "print(status, before, gc.get_freeze_count() > 1000, 'lower_torso' in text.getvalue())")
    assert out.split() == ["0", "0", "True", "True"]


def test_kinetics_do_not_load_the_viewer_libraries():
    """``analyze --forces`` reads and conditions the plates (humanbody.io.loads, humanbody.mechanics.loads) and
    the viewer resamples them (humanbody.viewer.timebase): importing those loads neither pyvista nor the
    viewer's window and scene modules (about 0.2 s of a short trial, and an extra that a kinetics user
    need not install); the viewer's names still import."""
    code = ("import sys; import humanbody.io.loads, humanbody.mechanics.loads, humanbody.viewer.timebase; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyvista', 'vtk', 'vtkmodules') "
            "or m in ('humanbody.viewer.app', 'humanbody.viewer.scene'))); "
            "from humanbody.viewer import load_scene, LAYERS; print(callable(load_scene), bool(LAYERS))")
    assert _python(code).splitlines() == ["[]", "True True"]


def test_muscles_command_runs_without_pandas_or_arrow(shared_data, tmp_path):
    """``humanbody muscles`` on the shared walk (its coordinates, ExternalLoads and model) reads the MOT files as
    arrays and writes its CSV results by the block writer: the whole command imports neither pandas nor pyarrow
    (about 0.5 CPU-s of its start-up), and writes its result tables."""
    walk = shared_data / "gait2392_walk"
    model = shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim"
    argv = ["muscles", str(walk / "reference" / "opensim_ik.mot"), "--model", str(model),
            "--forces", str(walk / "subject01_walk1_grf.xml"), "--start", "0.5", "--end", "0.6",
            "--out", str(tmp_path), "-q"]
    code = ("import sys, humanbody.cli; status = humanbody.cli.main(" + repr(argv) + "); "
            "print(status, sorted(m for m in sys.modules if m.split('.')[0] in ('pandas', 'pyarrow'))[:3])")
    assert _python(code).splitlines()[-1] == "0 []"
    assert {p.name for p in tmp_path.glob("*.csv")} >= {
        "opensim_activations.csv", "opensim_joint_reactions.csv", "opensim_muscle_forces.csv"}


def test_muscles_command_loads_cached_kernels_without_numbas_compiler(shared_data, tmp_path):
    """The command's own process (``console``) loads its cached kernels without numba's typing and lowering
    registries (``numba.np.arraymath``) or SciPy's linear algebra (about 0.2 CPU-s of its start-up), and writes
    the same files as a process that sets numba up in full (``main``, a library caller's); a later
    ``import scipy.linalg`` is SciPy's own, whole."""
    walk = shared_data / "gait2392_walk"
    model = shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim"
    argv = ["muscles", str(walk / "reference" / "opensim_ik.mot"), "--model", str(model),
            "--forces", str(walk / "subject01_walk1_grf.xml"), "--start", "0.5", "--end", "0.6", "-q"]
    full, direct = tmp_path / "full", tmp_path / "direct"
    _python("import humanbody.cli; humanbody.cli.main(" + repr(argv + ["--out", str(full)]) + ")")  # caches warm
    code = ("import sys, humanbody.cli; status = humanbody.cli.console(" + repr(argv + ["--out", str(direct)]) + "); "
            "print(status, 'numba.np.arraymath' in sys.modules, 'scipy.linalg' in sys.modules); "
            "import numpy as np, scipy.linalg; print(scipy.linalg.solve(np.eye(2), np.ones(2)).tolist())")
    assert _python(code).splitlines()[-2:] == ["0 False False", "[1.0, 1.0]"]
    names = sorted(p.name for p in full.glob("*.csv"))
    assert len(names) == 5 and names == sorted(p.name for p in direct.glob("*.csv"))
    assert all((full / n).read_bytes() == (direct / n).read_bytes() for n in names)


def test_direct_loading_compiles_on_a_miss_and_loads_on_a_hit(tmp_path):
    """With :func:`load_cached_directly`, a kernel with no cache compiles as usual (numba's compiler sets itself
    up, its extensions' entry points read and SciPy's BLAS modules loaded alone first), and the next process
    loads it from the cache without the compiler's registries or ``importlib.metadata``, with the same result;
    a kernel without a cache compiles after the same set-up."""
    (tmp_path / "kernel_mod.py").write_text(
        "import numba as nb\nimport numpy as np\n\n\n@nb.njit(cache=True)\ndef f(x):\n"
        "    out = np.empty_like(x)\n    for i in range(x.shape[0]):\n        out[i] = np.sqrt(x[i]) + 1.0\n"
        "    return out\n")
    code = ("import sys; sys.path.insert(0, " + repr(str(tmp_path)) + ")\n"
            "from humanbody._kernels.cache import load_cached_directly\n"
            "print(load_cached_directly())\n"
            "import numpy as np, kernel_mod\n"
            "print(kernel_mod.f(np.arange(4.0)).tolist())\n"
            "print(sum(kernel_mod.f.stats.cache_misses.values()), sum(kernel_mod.f.stats.cache_hits.values()))\n"
            "print('numba.np.arraymath' in sys.modules, 'scipy.linalg.cython_blas' in sys.modules,"
            " 'scipy.linalg' in sys.modules, type(sys.modules['importlib.metadata']).__name__)\n"
            "import numba; assert numba.njit(lambda x: x + 1)(1) == 2  # a kernel without a cache compiles\n"
            "print(type(sys.modules['importlib.metadata']).__name__, 'scipy.linalg.cython_blas' in sys.modules)\n")
    first = _python(code).splitlines()
    assert first[0] == "True" and first[1].startswith("[1.0, 2.0, 2.414") and first[2] == "1 0"
    assert first[3] == "True True False module"  # compiled: registries and extensions set up, BLAS alone
    second = _python(code).splitlines()
    assert second[:3] == [first[0], first[1], "0 1"] and second[3] == "False False False _LazyModule"
    assert first[4] == second[4] == "module True"  # any compile, cached or not, gets numba's full set-up first


def test_the_command_line_imports_scipy_without_parsing_its_docstrings():
    """In the command's own process SciPy's array-API decorator appends its support table to each docstring as
    it stands (:mod:`humanbody.signal.scipy_import`): nothing of SciPy is imported to install it, the parser is
    replaced when ``scipy._lib._array_api`` loads, and the docstrings keep their text and SciPy's table."""
    code = ("import sys\n"
            "from humanbody.signal.scipy_import import PlainDoc, plain_docstring_notes\n"
            "print(plain_docstring_notes(), any(m.startswith('scipy') for m in sys.modules))\n"
            "from scipy import signal\n"
            "import scipy._lib._array_api as api\n"
            "doc = signal.sosfiltfilt.__doc__\n"
            "print(api.FunctionDoc is PlainDoc, plain_docstring_notes())\n"
            "print(doc.split(chr(10))[0].strip())\n"
            "print('**Array API Standard Support**' in doc, doc.count('Parameters'))\n")
    assert _python(code).splitlines() == [
        "True False", "True True", "A forward-backward digital filter using cascaded second-order sections.",
        "True 1"]


def test_plain_docstring_keeps_the_text_and_appends_the_notes():
    from humanbody.signal.scipy_import import PlainDoc

    def f():
        """First line.

        More.
        """

    doc = PlainDoc(f)
    doc["Notes"].append("A note.")
    with pytest.raises(KeyError):
        doc["Returns"]
    # SciPy's decorator drops the first line (numpydoc's signature) and the blank lines after it
    assert str(doc).split("\n", 1)[1].lstrip(" \n") == "First line.\n\n        More.\n\nA note."
    assert str(PlainDoc(len)).startswith("\nReturn the number of items")
