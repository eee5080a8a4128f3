"""The flat public API: every exported name resolves, on first use."""

import subprocess
import sys

import pytest

import humanbody


@pytest.mark.parametrize("name", [n for n in humanbody.__all__ if n != "__version__"])
def test_exported_names_resolve(name):
    assert getattr(humanbody, name) is not None
    assert name in dir(humanbody)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        humanbody.nonsense  # noqa: B018


def test_import_is_light_and_the_main_job_is_in_the_flat_api():
    code = ("import sys, humanbody; light = 'numpy' not in sys.modules; "
            "from humanbody import analyze_trial, write_results, read_trial, compute; print(light)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"
