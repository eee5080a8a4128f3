"""docs/stats.md's worked example runs as written and prints what the page shows."""

import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "stats.md"


def test_worked_example_prints_what_the_page_shows():
    text = DOC.read_text()
    section = text[text.index("## Worked example"):text.index("## Agreement with spm1d")]
    code, shown = re.findall(r"```(?:python)?\n(.*?)```", section, flags=re.S)[:2]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(code, "stats.md", "exec"), {"__name__": "stats_md"})
    assert buf.getvalue() == shown
