"""Risk against the other runs (issue 34, item 1): URisk / TRisk against a baseline,
ZRisk / GeoRisk against every run. Oracles: the worked example of docs/risk.md, written
out by hand; plain-Python loops over the papers' definitions; SciPy's ttest_1samp."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm, ttest_1samp

from irmeta.cli.main import main
from irmeta.stats.risk import COLUMNS, georisk, risk, risk_matrices, urisk, zrisk

# docs/risk.md, "A worked example": runs A and B on three topics, alpha = 1, B the baseline
A, B = [0.5, 0.1, 0.3], [0.3, 0.3, 0.3]


def test_worked_example_of_the_docs():
    X = np.array([A, B])
    u, t, p, wins, losses = urisk(X[0], X[1], 1.0)
    assert u == pytest.approx(-0.2 / 3) and (wins, losses) == (1, 1)
    assert t == pytest.approx(-0.3780, abs=1e-4)
    z = zrisk(X, 1.0)
    assert z[0] == pytest.approx(0.1 / math.sqrt(0.4) - 2 * 0.1 / math.sqrt(0.2))
    assert z[1] == pytest.approx(0.1 / math.sqrt(0.2) - 2 * 0.1 / math.sqrt(0.4))
    assert z == pytest.approx([-0.2891, -0.0926], abs=1e-4)
    assert georisk(X, 1.0) == pytest.approx([0.3721, 0.3825], abs=1e-4)


def _zrisk_loops(X, alpha):
    """ZRisk by the definition, one cell at a time (runs x topics in, [runs] out)."""
    runs, topics = len(X), len(X[0])
    N = sum(sum(row) for row in X)
    out = []
    for j in range(runs):
        S = sum(X[j])
        total = 0.0
        for i in range(topics):
            T = sum(X[r][i] for r in range(runs))
            e = T * S / N if N else 0.0
            z = (X[j][i] - e) / math.sqrt(e) if e > 0 else 0.0
            total += z if z >= 0 else (1 + alpha) * z
        out.append(total)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_kernels_equal_the_definitions(seed):
    rng = np.random.default_rng(seed)
    runs, topics = rng.integers(2, 9), rng.integers(2, 30)
    X = rng.random((runs, topics)) * (rng.random((runs, topics)) > 0.3)
    X[:, rng.integers(topics)] = 0.0           # a topic every run scores 0 on
    alpha = float(rng.choice([0.0, 1.0, 5.0, 2.5]))
    z = _zrisk_loops(X.tolist(), alpha)
    assert zrisk(X, alpha) == pytest.approx(z, rel=1e-12, abs=1e-12)
    c = topics
    geo = [math.sqrt(sum(X[j]) / c * norm.cdf(z[j] / c)) for j in range(runs)]
    assert georisk(X, alpha) == pytest.approx(geo, rel=1e-12)
    x, b = X[0], X[1]
    adj = [d if d >= 0 else (1 + alpha) * d for d in (x - b)]
    u, t, p, wins, losses = urisk(x, b, alpha)
    assert u == pytest.approx(sum(adj) / len(adj), abs=1e-15)
    ref = ttest_1samp(adj, 0.0)
    if np.ptp(adj) > 0:
        assert (t, p) == pytest.approx((ref.statistic, ref.pvalue), rel=1e-12)
    assert wins == int(sum(d > 0 for d in x - b)) and losses == int(sum(d < 0 for d in x - b))


def test_the_baseline_row_and_no_baseline():
    mats = {"AP": pd.DataFrame([A, B], index=["a", "b"], columns=["1", "2", "3"])}
    res = risk_matrices(mats, baseline="b", alpha=[1, 5])
    assert list(res.table.columns) == COLUMNS and len(res.table) == 4
    base = res.table[(res.table["run"] == "b")]
    assert (base["URisk"] == 0).all() and base["TRisk"].isna().all()
    none = risk_matrices(mats).table
    assert none[["URisk", "TRisk", "TRisk_p", "wins", "losses"]].isna().all().all()
    assert none["ZRisk"].notna().all()


@pytest.mark.parametrize("kwargs, phrase", [
    ({"baseline": "nope"}, "unknown baseline run 'nope'"),
    ({"alpha": -1}, "alpha must be"),
    ({"alpha": []}, "alpha must be"),
    ({"alpha": "1"}, "alpha must be"),
])
def test_bad_arguments_are_parameter_errors(kwargs, phrase):
    from irmeta.errors import ParameterError
    mats = {"AP": pd.DataFrame([A, B], index=["a", "b"])}
    with pytest.raises(ParameterError, match=phrase):
        risk_matrices(mats, **kwargs)


def test_undefined_scores_are_refused():
    from irmeta.errors import ParameterError
    mats = {"Twist": pd.DataFrame([[0.5, np.nan], [0.2, 0.1]], index=["a", "b"])}
    with pytest.raises(ParameterError, match="undefined"):
        risk_matrices(mats)


def test_api_equals_eval_means_on_the_demo():
    import irmeta
    from irmeta.demo import demo_paths
    p = demo_paths()
    res = risk(p.qrels, p.runs, ["nDCG@10"], baseline="lexA-bm25")
    ev = irmeta.evaluate(p.qrels, p.runs, ["nDCG@10"], complete=True)
    means = ev.aggregate("mean").iloc[:, 0]
    got = res.table.set_index("run")["mean"]
    assert got.to_numpy() == pytest.approx(means.loc[got.index].to_numpy(), abs=1e-12)
    assert res.topics == 50


def test_cli_json_columns_and_exit_codes(capsys):
    assert main(["risk", "--demo", "-m", "AP", "--baseline", "lexA-bm25", "--alpha", "1",
                 "--alpha", "5", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert list(rows[0]) == COLUMNS and len(rows) == 60
    assert main(["risk", "--demo", "-m", "AP", "--baseline", "nope"]) == 2
    assert "unknown baseline run 'nope'" in capsys.readouterr().err
    assert main(["risk", "--demo", "-m", "AP", "--alpha", "-1"]) == 2


def _partial_campaign(tmp_path):
    """Three runs on three topics; run b lacks topic 3 (it scores 0 there)."""
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n3 0 d4 2\n3 0 d1 1\n")
    (tmp_path / "a").write_text("1 Q0 d1 1 2 a\n1 Q0 d2 2 1 a\n2 Q0 d3 1 1 a\n3 Q0 d1 1 1 a\n")
    (tmp_path / "b").write_text("1 Q0 d2 1 2 b\n1 Q0 d1 2 1 b\n2 Q0 d9 1 1 b\n")
    (tmp_path / "c").write_text("1 Q0 d1 1 2 c\n3 Q0 d4 1 1 c\n2 Q0 d3 1 1 c\n")
    return str(tmp_path / "q"), [str(tmp_path / n) for n in "abc"]


@pytest.mark.parametrize("extra", [[], ["--shard-topics", "1"], ["-l", "2"]])
def test_cli_in_memory_and_sharded_equal_the_api(tmp_path, capsys, extra):
    import warnings
    q, runs = _partial_campaign(tmp_path)
    assert main(["risk", q, *runs, "-m", "AP", "-m", "P@2", "--baseline", "b", "--alpha",
                 "0", "--alpha", "5", "--format", "json", *extra]) == 0
    got = pd.DataFrame(json.loads(capsys.readouterr().out))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)   # the note that b lacks topic 3
        want = risk(q, runs, ["AP", "P@2"], baseline="b", alpha=[0, 5],
                    rel_level=2 if extra == ["-l", "2"] else 1).table
    assert got["run"].tolist() == want["run"].tolist()
    for col in COLUMNS[2:]:
        assert got[col].astype(float).to_numpy() == pytest.approx(
            want[col].astype(float).to_numpy(), nan_ok=True, rel=1e-12), col


def test_api_notes_a_run_lacking_topics(tmp_path):
    q, runs = _partial_campaign(tmp_path)
    with pytest.warns(UserWarning, match="run b retrieves nothing for 1 of the 3 topics"):
        risk(q, runs, ["AP"])


def test_cli_output_that_cannot_be_written_is_exit_2(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["risk", "--demo", "-m", "AP", "-o", str(blocker / "out.tsv")]) == 2
    assert "is a file" in capsys.readouterr().err
