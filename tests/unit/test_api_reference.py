"""docs/api.md is generated from the docstrings (scripts/api_reference.py) and must be
up to date with them (issue 15, item 4)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import _generated  # noqa: E402  (scripts/ is no package)


@pytest.fixture(scope="module")
def api_reference():
    return _generated.load("api_reference")


def test_api_page_is_up_to_date(api_reference):
    assert _generated.stale(api_reference) is None, _generated.stale(api_reference)


def test_a_docstring_change_makes_the_page_stale(api_reference, monkeypatch):
    from irmeta import evaluation
    before = api_reference.render()
    monkeypatch.setattr(evaluation.evaluate, "__doc__", "Changed.")
    assert api_reference.render() != before


def test_every_public_name_has_an_entry_and_a_docstring(api_reference):
    page = api_reference.render()
    for module_name, _ in api_reference.SECTIONS:
        for name in api_reference.public_names(module_name):
            assert f"`{module_name}.{name}`" in page
    assert "*(no docstring)*" not in page


def test_examples_are_pycon_blocks(api_reference):
    page = api_reference.render()
    assert "```pycon\n>>> import irmeta" in page
    assert "**Parameters**\n\n```text\n" in page
