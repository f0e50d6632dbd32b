"""`irmeta eval` output layouts (docs/conventions.md)."""

from __future__ import annotations

import json

import pytest

from irmeta.cli.main import main
from tests.conftest import shared_path


def test_default_output_is_byte_identical_to_trec_eval(capsys):
    base = shared_path("trec_eval_test", "v10.0_HEAD")
    assert main(["eval", str(base / "qrels.test"), str(base / "results.test")]) == 0
    assert capsys.readouterr().out == (base / "out.test").read_text()


def _small(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    (tmp_path / "r1").write_text("1 Q0 a 1 2 A\n1 Q0 b 2 1 A\n2 Q0 x 1 1 A\n")
    (tmp_path / "r2").write_text("1 Q0 b 1 2 B\n2 Q0 c 1 1 B\n")
    return [str(tmp_path / "q"), str(tmp_path / "r1"), str(tmp_path / "r2")]


def test_tsv_layout(tmp_path, capsys):
    assert main(["eval", *_small(tmp_path), "-m", "AP", "-m", "num_ret", "-q",
                 "--format", "tsv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "run\tmeasure\ttopic\tvalue"
    rows = {tuple(line.split("\t")[:3]): line.split("\t")[3] for line in lines[1:]}
    assert rows[("A", "AP", "1")] == "1.0" and rows[("A", "AP", "2")] == "0.0"
    assert rows[("B", "AP", "all")] == "0.5"  # topic 1: b non-relevant; topic 2: c found
    assert rows[("A", "num_ret", "all")] == "3.0"


def test_trec_layout_with_several_runs_has_a_run_column(tmp_path, capsys):
    assert main(["eval", *_small(tmp_path), "-m", "P@1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["A\trunid                 \tall\tA", "A\tP@1                   \tall\t0.5000",
                   "B\trunid                 \tall\tB", "B\tP@1                   \tall\t0.5000"]


def test_json_and_output_file(tmp_path):
    target = tmp_path / "out.json"
    assert main(["eval", *_small(tmp_path), "-m", "RR", "--format", "json", "-o", str(target)]) == 0
    records = json.loads(target.read_text())
    assert {"run": "B", "measure": "RR", "topic": "all", "value": 0.5} in records


@pytest.mark.parametrize("flag,value", [("-c", 0.5), (None, 1.0)])
def test_complete_flag(tmp_path, capsys, flag, value):
    (tmp_path / "q").write_text("1 0 a 1\n2 0 c 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 2 A\n")
    args = ["eval", str(tmp_path / "q"), str(tmp_path / "r"), "-m", "AP", "--format", "tsv"]
    assert main(args + ([flag] if flag else [])) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"A\tAP\tall\t{value!r}"
