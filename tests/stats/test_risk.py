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


def spec_risk(X: np.ndarray, b: int | None, alpha: float) -> dict[str, np.ndarray]:
    """The definitions of ../shared/spec/risk.md written out with NumPy/SciPy (not
    irmeta's kernels) on a runs x topics matrix ``X``, the baseline at row ``b``: per run
    ``URisk``, ``TRisk``, ``TRisk_p``, ``wins``, ``losses`` (None without a baseline),
    ``ZRisk``, ``GeoRisk``."""
    from scipy import stats
    R, c = X.shape
    out: dict[str, np.ndarray] = {}
    if b is not None:
        delta = X - X[b]
        adj = np.where(delta >= 0, delta, (1.0 + alpha) * delta)
        u = adj.sum(axis=1) / c
        s = np.sqrt(((adj - u[:, None]) ** 2).sum(axis=1) / (c - 1))     # ddof = 1
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(s > 0, u / (s / math.sqrt(c)), np.nan)
        out.update(URisk=u, TRisk=t, TRisk_p=2.0 * stats.t.sf(np.abs(t), c - 1),
                   wins=(delta > 0).sum(axis=1), losses=(delta < 0).sum(axis=1))
    Xt = X.T                                                        # topics x runs
    T, S, N = Xt.sum(axis=1), Xt.sum(axis=0), Xt.sum()
    e = np.outer(T, S) / N
    z = np.divide(Xt - e, np.sqrt(e), out=np.zeros_like(e), where=e > 0)
    zr = z.clip(min=0).sum(axis=0) + (1.0 + alpha) * z.clip(max=0).sum(axis=0)
    out.update(ZRisk=zr, GeoRisk=np.sqrt(S / c * stats.norm.cdf(zr / c)))
    return out


def test_spec_oracle_gives_the_spec_worked_example():
    """The oracle below reproduces the four-topic example of the spec (its table)."""
    X = np.array([[0.5, 0.2, 0.0, 0.9], [0.3, 0.4, 0.0, 0.6], [0.0, 0.1, 0.0, 0.3]])
    got = spec_risk(X, 1, 1.0)
    assert got["URisk"] == pytest.approx([0.025, 0.0, -0.45])
    assert got["TRisk"][[0, 2]] == pytest.approx([0.161515, -3.0], abs=1e-6)
    assert got["TRisk_p"][[0, 2]] == pytest.approx([0.881953, 0.057669], abs=1e-6)
    assert np.isnan(got["TRisk"][1])
    assert list(got["wins"]) == [2, 0, 0] and list(got["losses"]) == [1, 0, 3]
    assert got["ZRisk"] == pytest.approx([-0.269322, -0.076484, -0.395621], abs=1e-6)
    assert got["GeoRisk"] == pytest.approx([0.435044, 0.400026, 0.214618], abs=1e-6)
    # and irmeta's kernels agree with it
    mats = {"m": pd.DataFrame(X, index=["A", "B", "C"])}
    t = risk_matrices(mats, baseline="B", alpha=1).table
    assert t["GeoRisk"].to_numpy() == pytest.approx(got["GeoRisk"], rel=1e-12)


#: docs/risk.md, "TREC DL 2021": the five best runs by GeoRisk of nDCG@10 (alpha 1, -l 2),
#: ties in campaign order
DL21_GEORISK_TOP5 = ["pash_f1", "pash_f2", "pash_f3", "NLE_P_v1", "pash_r2"]


@pytest.mark.slow
def test_dl21_every_risk_value_equals_the_definitions(dl21, dl21_campaign, capsys):
    """Issue 34's "done when": on TREC DL 2021 (-l 2; nDCG@10 and AP; alpha 1 and 5;
    baseline p_bm25) every URisk, TRisk, TRisk_p, ZRisk and GeoRisk of ``irmeta risk``
    equals :func:`spec_risk` on the per-topic values of ``irmeta.evaluate`` to 1e-9
    (TRisk_p to 1e-6 relative), wins and losses exactly. Real data, read in place."""
    import irmeta
    qrels, runs = dl21
    measures, alphas = ["nDCG@10", "AP"], [1.0, 5.0]
    assert main(["risk", str(qrels), *map(str, runs), "-l", "2", "-m", measures[0], "-m",
                 measures[1], "--baseline", "p_bm25", "--alpha", "1", "--alpha", "5",
                 "--format", "json"]) == 0
    got = pd.DataFrame(json.loads(capsys.readouterr().out))
    assert len(got) == 63 * 2 * 2
    res = irmeta.evaluate(dl21_campaign, measures=measures, rel_level=2, complete=True)
    for m in measures:
        M = res.matrix(m)
        assert M.shape == (63, 53) and not M.isna().to_numpy().any()
        X = M.to_numpy(dtype=np.float64)
        for a in alphas:
            want = spec_risk(X, list(M.index).index("p_bm25"), a)
            rows = got[(got["measure"] == m) & (got["alpha"] == a)].set_index("run")
            rows = rows.loc[[str(r) for r in M.index]]
            assert rows["mean"].to_numpy() == pytest.approx(X.mean(axis=1), abs=1e-12)
            for name in ("URisk", "TRisk", "ZRisk", "GeoRisk"):
                np.testing.assert_allclose(rows[name].astype(float).to_numpy(), want[name],
                                           rtol=0, atol=1e-9, equal_nan=True,
                                           err_msg=f"{m} alpha={a} {name}")
            np.testing.assert_allclose(rows["TRisk_p"].astype(float).to_numpy(),
                                       want["TRisk_p"], rtol=1e-6, atol=0, equal_nan=True,
                                       err_msg=f"{m} alpha={a} TRisk_p")
            assert rows["wins"].astype(int).tolist() == want["wins"].tolist()
            assert rows["losses"].astype(int).tolist() == want["losses"].tolist()
            assert np.isnan(rows.loc["p_bm25", "TRisk"]) and rows.loc["p_bm25", "URisk"] == 0
    # the table of docs/risk.md: GeoRisk's top 5 (nDCG@10, alpha 1) is the mean's top 5
    M = res.matrix("nDCG@10")
    geo = pd.Series(spec_risk(M.to_numpy(), None, 1.0)["GeoRisk"], index=M.index)
    top = geo.sort_values(ascending=False, kind="stable").index[:5].tolist()
    assert top == DL21_GEORISK_TOP5
    assert M.mean(axis=1).sort_values(ascending=False, kind="stable").index[:5].tolist() == top
