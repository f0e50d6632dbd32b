"""``irmeta eval``'s wide table and aggregator labels, and the summarising reprs of
Campaign and Results (issue 14, "Consistent CLI")."""

from __future__ import annotations

import io
import json
import shutil
import subprocess

import pandas as pd
import pytest
from click.testing import CliRunner

import irmeta
from irmeta.cli.main import cli
from irmeta.demo import load_demo_campaign


@pytest.fixture(scope="module")
def demo():
    return load_demo_campaign()


def _eval(*args):
    res = CliRunner().invoke(cli, ["eval", "--demo", *args])
    assert res.exit_code == 0, res.output
    return res.stdout


def test_wide_table_has_one_row_per_run_and_one_column_per_measure(demo):
    out = _eval("-m", "AP", "-m", "P@10", "--wide", "--format", "tsv")
    table = pd.read_csv(io.StringIO(out), sep="\t").set_index("run")
    expected = irmeta.evaluate(demo, measures=["AP", "P@10"]).aggregate()
    assert list(table.columns) == ["AP", "P@10"] and len(table) == demo.num_runs
    assert (table.loc[list(expected.index)].to_numpy() == expected.to_numpy()).all()


def test_wide_text_and_markdown_are_tables():
    text = _eval("-m", "AP", "--format", "text")          # text implies --wide
    assert text.split("\n")[0].split() == ["run", "AP"]
    md = _eval("-m", "AP", "--wide", "--format", "markdown", "--digits", "2")
    assert md.startswith("| run | AP |") and md.count("\n") == 30 + 2


def test_wide_per_topic_rows_then_the_aggregates():
    out = _eval("-m", "AP", "-q", "--wide", "--format", "csv")
    table = pd.read_csv(io.StringIO(out), dtype={"topic": str})
    assert list(table.columns) == ["run", "topic", "AP"]
    assert (table["topic"] == "all").sum() == 30 and len(table) == 30 * 50 + 30


def test_a_non_mean_aggregator_labels_its_values(demo):
    wide = _eval("-m", "AP", "--aggregator", "gawm", "--wide", "--format", "tsv")
    assert wide.split("\n")[0] == "run\tAP [gawm]"
    records = json.loads(_eval("-m", "AP", "--aggregator", "gawm", "--format", "json"))
    assert {r["topic"] for r in records} == {"gawm"}
    records = json.loads(_eval("-m", "AP", "--format", "json"))
    assert {r["topic"] for r in records} == {"all"}         # the mean keeps trec_eval's label
    trec = [line.split("\t") for line in _eval("-m", "AP", "--aggregator", "gawm").splitlines()]
    assert {f[2] for f in trec if f[1].strip() == "AP"} == {"gawm"}
    assert {f[2] for f in trec if f[1].strip() == "runid"} == {"all"}


def _help_examples():
    from tests.unit.test_cli_options import COMMANDS
    out = []
    for path, _ in COMMANDS + [(["meta"], None), (["twist"], None), (["reproduce"], None)]:
        text = CliRunner().invoke(cli, [*path, "--help"]).output.split("\nOptions:")[0]
        lines, joined = [], ""
        for line in text.splitlines():
            line = line.strip()
            if joined or line.startswith("irmeta "):
                joined += line.rstrip("\\").strip() + " "
                if not line.endswith("\\"):
                    lines.append(joined.strip())
                    joined = ""
        out += [(" ".join(path), line) for line in lines]
    return out


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_help_examples_parse_in_bash():
    examples = _help_examples()
    assert len(examples) > 30
    assert any("after irmeta convert" in line for _, line in examples)
    for where, line in examples:
        res = subprocess.run(["bash", "-n", "-c", line], capture_output=True, text=True)
        assert res.returncode == 0, f"irmeta {where} --help: {line!r}: {res.stderr}"


def test_campaign_and_results_reprs_summarise(demo):
    text = repr(demo)
    assert text.startswith("Campaign(30 runs [") and "50 topics" in text and "array" not in text
    assert "depth 100" in text and "graded 0-3" in text and len(text) < 300
    res = irmeta.evaluate(demo, measures=["AP", "P@10"], rel_level=2)
    text = repr(res)
    assert text.startswith("Results(30 runs [") and "2 measures [AP, P@10]" in text
    assert "50 topics" in text and "rel_level=2" in text and "in memory" in text
    assert "array" not in text and len(text) < 300
