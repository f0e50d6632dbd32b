"""The measure tables of README.md and docs/measures.md are generated from the registry
(`irmeta measures --markdown [--short]`): the committed tables equal the generated ones."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from irmeta.cli.measures import BEGIN, END, measures_command
from irmeta.measures import registry
from tests.conftest import ROOT
from tests.fresh import python_output


def _block(text: str, begin: str) -> str:
    start = text.index(begin)
    return text[start:text.index(END, start) + len(END)]


@pytest.mark.parametrize("page,args", [("docs/measures.md", ["--markdown"]),
                                       ("README.md", ["--markdown", "--short"])])
def test_committed_table_is_the_generated_one(page, args):
    out = CliRunner().invoke(measures_command, args)
    assert out.exit_code == 0, out.output
    begin = BEGIN.format(" --short" if "--short" in args else "")
    committed = _block((ROOT / page).read_text(), begin)
    assert committed == out.output.strip(), (
        f"{page}'s measure table is stale: paste `irmeta measures {' '.join(args)}` in it")


def test_every_measure_is_in_the_table():
    text = (ROOT / "docs" / "measures.md").read_text()
    for d in registry.all_measures():
        assert f"| `{d.name}`" in text
        for t in d.trec:
            assert f"`{t.name}`" in text


def test_listing_shows_trec_eval_names():
    out = CliRunner().invoke(measures_command, []).output
    assert "trec_eval: P (P_5 … P_1000)" in out and "all_trec" in out


@pytest.mark.slow
def test_table_order_does_not_depend_on_import_order():
    code = ("import irmeta.measures.twist, irmeta.measures.nrg\n"
            "from irmeta.measures.registry import all_measures\n"
            "print(','.join(d.name for d in all_measures()))")
    out = python_output(code).stdout.strip()
    assert out == ",".join(d.name for d in registry.all_measures())
