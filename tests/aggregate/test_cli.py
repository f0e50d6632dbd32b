"""``irmeta aggregate`` on matrix files and on a campaign."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from irmeta.aggregate import gawm, hits
from irmeta.cli.main import main


@pytest.fixture
def matrix_file(tmp_path):
    rng = np.random.default_rng(4)
    P = np.round(np.clip(np.outer(rng.random(6), rng.random(5)) + 0.1 * rng.random((6, 5)), 0, 1),
                 4)
    frame = pd.DataFrame(P, index=[f"r{i}" for i in range(6)], columns=[f"0{j}" for j in range(5)])
    path = tmp_path / "m.tsv"
    long = frame.stack().rename("value").reset_index()
    long.columns = ["run", "topic", "value"]
    long.to_csv(path, sep="\t", index=False)
    return path, frame


def test_leaderboard_from_a_matrix_file(matrix_file, capsys):
    path, frame = matrix_file
    assert main(["aggregate", "--matrix", str(path), "-a", "gawm(axioms=B)", "-a", "hits",
                 "-a", "mean", "--format", "tsv"]) == 0
    captured = capsys.readouterr()
    assert "gawm(axioms=B): converged after" in captured.err
    table = pd.read_csv(io.StringIO(captured.out), sep="\t", index_col=0)
    assert list(table.columns) == ["rank", "gawm(axioms=B)", "hits", "mean"]
    want = gawm(frame, "B").E_s.sort_values(ascending=False, kind="stable")
    assert list(table.index) == list(want.index)
    np.testing.assert_allclose(table["gawm(axioms=B)"], want.to_numpy(), rtol=1e-15)
    np.testing.assert_allclose(table.loc[frame.index, "hits"], hits(frame).authority_s)
    assert table["rank"].iloc[0] == 1


@pytest.mark.slow
def test_analyses_and_plots(matrix_file, capsys, tmp_path):
    path, _ = matrix_file
    assert main(["aggregate", "--matrix", str(path), "--analysis", "correlations",
                 "--analysis", "grid", "--format", "markdown",
                 "--plots", str(tmp_path / "figs")]) == 0
    out = capsys.readouterr()
    assert "## Table 2 (axioms A)" in out.out and "## Figure 4 ranking grid" in out.out
    assert "| max / max | S5T5 |" in out.out
    for name in ("heatmap", "grid", "confidence", "loto"):
        for suffix in (".png", ".svg"):
            assert (tmp_path / "figs" / f"gawm_{name}{suffix}").stat().st_size > 1000


def test_errors_exit_2(matrix_file, capsys, tmp_path):
    path, _ = matrix_file
    assert main(["aggregate", "--matrix", str(path), "-a", "gawm(ms=median)"]) == 2
    assert "aggregator 'gawm(ms=median)'" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("run,topic,value\na,1,0.5\na,1,0.2\n")
    assert main(["aggregate", "--matrix", str(bad)]) == 2
    assert "bad.csv:3" in capsys.readouterr().err


def test_campaign_input(tmp_path, capsys):
    (tmp_path / "qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n2 0 d4 1\n")
    runs = []
    for name, lines in {"a": ["1 Q0 d1 1 3 a", "1 Q0 d2 2 2 a", "2 Q0 d3 1 1 a"],
                        "b": ["1 Q0 d2 1 3 b", "1 Q0 d1 2 2 b", "2 Q0 d4 1 1 b", "2 Q0 d3 2 0 b"],
                        "c": ["1 Q0 d9 1 1 c", "2 Q0 d4 1 1 c"]}.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n")
        runs.append(str(tmp_path / name))
    assert main(["aggregate", str(tmp_path / "qrels"), *runs, "-m", "AP", "-a", "mean",
                 "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col=0)
    assert table.loc["a", "mean"] == pytest.approx((1 + 0.5) / 2)
    assert table.loc["b", "mean"] == pytest.approx((0.5 + 1) / 2)
    assert table.loc["c", "mean"] == pytest.approx(0.5 / 2)
