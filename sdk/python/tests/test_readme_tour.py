"""The README's five-minute tour, run as written against the live service."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from conftest import DATA, SDK_DIR


def tour_code() -> str:
    readme = (SDK_DIR / "README.md").read_text()
    section = readme.split("## Five-minute tour", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's tour has no python code block"
    return match.group(1)


def test_the_readme_tour_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(DATA)  # the tour uploads ./photo.jpg
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(tour_code(), "README.md tour", "exec"), {"__name__": "__tour__"})
    printed = out.getvalue()
    assert "then: tea now: coffee" in printed
    # "alice" is the tour's owner: a second run against the same service counts her documents twice
    assert re.search(r"stars: 5 documents: [1-9]", printed) and re.search(r"stars: 3 documents: [1-9]", printed)
    assert "superseded" in printed and "active" in printed
