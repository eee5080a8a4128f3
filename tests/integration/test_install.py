"""A script beside the clone: the clone's folder is named ``humanbody`` and the script runs from its parent.

Python puts the script's folder first on ``sys.path``, so ``import humanbody`` meets the clone's folder (no
``__init__.py``: a namespace package) before anything else.  A path-based editable install (dev.py:
``editable_mode=compat``, a ``.pth`` line naming the clone) puts the clone on ``sys.path`` too, and a regular
package found on any entry wins over a namespace folder: the script gets the package, its API and its data
files.  The install is reproduced here with the same ``.pth`` line in a site folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import humanbody as hb
from humanbody.model.body import BodyModel
model = hb.BodyModel.default(mass=70, height=1.7)
print(type(model).__name__, round(model.total_mass, 3), hb.__file__)
from importlib.resources import files
print(sorted(p.name for p in files("humanbody").joinpath("data").iterdir())[:1])
"""


def test_dev_py_installs_path_based():
    text = (ROOT / "dev.py").read_text()
    assert '"--config-settings", "editable_mode=compat"' in text


def test_script_beside_a_clone_named_humanbody_imports_the_package(tmp_path):
    parent = tmp_path / "work"
    parent.mkdir()
    os.symlink(ROOT, parent / "humanbody", target_is_directory=True)  # the clone, named as the package
    (parent / "use_it.py").write_text(SCRIPT)
    site = tmp_path / "site"
    site.mkdir()
    (site / "humanbody.pth").write_text(str(parent / "humanbody") + "\n")  # what the compat install writes
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = ("import site, sys, runpy; site.addsitedir(sys.argv[1]); sys.path[0] = sys.argv[2]; "
           "runpy.run_path(sys.argv[3], run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", run, str(site), str(parent), "use_it.py"], cwd=parent, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()[:2]
    assert first.startswith("BodyModel 70.0 ") and first.endswith(str(Path("humanbody", "__init__.py")))
    assert second.startswith("[")
    # without the install the same script gets the clone's folder as a namespace package: the trap itself
    bare = subprocess.run([sys.executable, "use_it.py"], cwd=parent, env=env, capture_output=True, text=True,
                          timeout=300)
    if bare.returncode != 0:  # (unless humanbody is installed in this interpreter some other way)
        assert "AttributeError" in bare.stderr or "ModuleNotFoundError" in bare.stderr


def _extras_packages(extras) -> set[str]:
    """The distribution names the ``extras`` of pyproject.toml require (``all`` unfolded)."""
    import re
    import tomllib

    optional = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names: set[str] = set()
    for extra in extras:
        for req in optional[extra]:
            inner = re.fullmatch(r"humanbody\[(.*)\]", req)
            names |= _extras_packages(inner.group(1).split(",")) if inner else {re.split(r"[<>=\[ ;]", req)[0]}
    return names


def test_the_quick_start_installs_the_main_job_and_the_test_command_the_references():
    """``dev.py demo`` (the README's first command) installs no viewer, cluster or test reference; ``dev.py test``
    installs them all (the tests compare with Pinocchio, OpenSim and spm1d and draw with VTK)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("dev", ROOT / "dev.py")
    dev = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dev)
    heavy = {"pin", "opensim", "spm1d", "pyvista", "imageio-ffmpeg", "dask", "distributed"}
    assert not _extras_packages(dev.EXTRAS["demo"]) & heavy
    assert _extras_packages(dev.EXTRAS["test"]) >= heavy
