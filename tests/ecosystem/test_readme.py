"""The README's "From PyTerrier / ir_datasets / ranx" examples run as doctests (ranx's
first use compiles for about 30 s: slow)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
TITLE = "### From PyTerrier / ir_datasets / ranx"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(TITLE)
    end = text.index("\n### ", start + len(TITLE))
    return text[start:end]


@pytest.mark.slow
def test_readme_examples_run():
    for lib in ("pyterrier", "ranx", "ir_measures"):
        pytest.importorskip(lib)
    parser = doctest.DocTestParser()
    test = parser.get_doctest(section(), {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    report: list[str] = []
    runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 8, "the README section lost its examples"
    assert result.failed == 0, "".join(report)
