"""Table 1 of the NRG paper (Bigdeli et al. 2024): all nine NRG values to 4 decimals,
through the API and through `irmeta eval`."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from irmeta.cli.main import main

ITEMS = "ABCDEFGHIJ"
ORDERS = {"R1": "ABCDEFGHIJ", "R2": "EDCBAFGHIJ", "R3": "JIHGFEDCBA"}
QRELS = {"q1": {d: (4 if d in "AEFJ" else 0) for d in ITEMS}}
#: TABLE[run][prior] — prior "others" = the other two rankings
TABLE = {
    "R1": {"R2": 0.7361, "R3": 0.8277, "others": 0.8417},
    "R2": {"R1": 0.7361, "R3": 0.7988, "others": 0.8316},
    "R3": {"R1": 0.8277, "R2": 0.7988, "others": 0.8681},
}


def _run(order):
    return {"q1": {d: float(10 - i) for i, d in enumerate(order)}}


RUNS = {name: _run(order) for name, order in ORDERS.items()}


def test_ndcg_column():
    res = irmeta.evaluate(QRELS, RUNS, ["nDCG@10"])
    np.testing.assert_array_equal(np.round(res.means[:, 0], 4), [0.7933] * 3)


def test_other_two_column():
    res = irmeta.evaluate(QRELS, RUNS, ["NRG(base=nDCG)@10"])
    got = dict(zip(res.runs, np.round(res.means[:, 0], 4)))
    assert got == {r: TABLE[r]["others"] for r in TABLE}


@pytest.mark.parametrize("run,prior", [(r, p) for r in TABLE for p in TABLE[r] if p != "others"])
def test_single_prior_columns(run, prior):
    # two ways: a two-run campaign with prior=others, and the full campaign with a list
    pair = irmeta.evaluate(QRELS, {run: RUNS[run], prior: RUNS[prior]}, ["NRG@10"])
    assert round(pair.means[pair.runs.index(run), 0], 4) == TABLE[run][prior]
    listed = irmeta.evaluate(QRELS, RUNS, ["NRG(prior=list)@10"], prior_runs=[prior])
    assert round(listed.means[listed.runs.index(run), 0], 4) == TABLE[run][prior]


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"q1 0 {d} {g}\n" for d, g in QRELS["q1"].items()))
    paths = {}
    for name, order in ORDERS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"q1 Q0 {d} {i + 1} {10 - i} {name}\n"
                                for i, d in enumerate(order)))
        paths[name] = str(path)
    return str(qrels), paths


def _tsv(capsys):
    out = capsys.readouterr().out.splitlines()
    assert out[0].split("\t") == ["run", "measure", "topic", "value"]
    return {(r, m): float(v) for r, m, t, v in (line.split("\t") for line in out[1:]) if t == "all"}


def test_cli_three_runs_others(files, capsys):
    qrels, paths = files
    assert main(["eval", qrels, *paths.values(), "-m", "NRG(base=nDCG)@10", "--format", "tsv"]) == 0
    got = _tsv(capsys)
    for run in TABLE:
        assert round(got[(run, "NRG@10")], 4) == TABLE[run]["others"]


def test_cli_trec_format_prints_table_values(files, capsys):
    qrels, paths = files
    assert main(["eval", qrels, *paths.values(), "-m", "NRG@10"]) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    printed = {f[0]: f[3] for f in lines if f[1].strip() == "NRG@10"}
    assert printed == {r: f"{TABLE[r]['others']:.4f}" for r in TABLE}


@pytest.mark.parametrize("run,prior", [(r, p) for r in TABLE for p in TABLE[r] if p != "others"])
def test_cli_pairs_of_files(files, capsys, run, prior):
    qrels, paths = files
    assert main(["eval", qrels, paths[run], paths[prior], "-m", "NRG@10", "--format", "tsv"]) == 0
    assert round(_tsv(capsys)[(run, "NRG@10")], 4) == TABLE[run][prior]


def test_cli_prior_runs_option(files, capsys):
    qrels, paths = files
    assert main(["eval", qrels, *paths.values(), "-m", "NRG(prior=list)@10",
                 "--prior-runs", "R2", "--format", "tsv"]) == 0
    got = _tsv(capsys)
    assert round(got[("R1", "NRG(prior=list)@10")], 4) == TABLE["R1"]["R2"]
    assert round(got[("R3", "NRG(prior=list)@10")], 4) == TABLE["R3"]["R2"]
    # R2 is never its own prior: its prior set is empty, NRG = nDCG@10
    assert round(got[("R2", "NRG(prior=list)@10")], 4) == 0.7933


def test_cli_groups_file(files, capsys, tmp_path):
    qrels, paths = files
    groups = tmp_path / "groups.txt"
    groups.write_text("R1 a\nR2 a\nR3 b\n")
    assert main(["eval", qrels, *paths.values(), "-m", "NRG(prior=best_per_group)@10",
                 "--groups", str(groups), "--format", "tsv"]) == 0
    got = {r: round(v, 4) for (r, _), v in _tsv(capsys).items()}
    # group a's best by nDCG@10 is a tie R1 = R2 -> R1 (campaign order)
    assert got == {"R1": TABLE["R1"]["R3"], "R2": TABLE["R2"]["R3"], "R3": TABLE["R3"]["R1"]}
