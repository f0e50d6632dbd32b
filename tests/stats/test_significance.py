"""Significance tests against SciPy / statsmodels and slow reference loops."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import stats

from irmeta.errors import ParameterError
from irmeta.stats import significance as sg
from irmeta.stats._tukey import ptukey_isf, ptukey_sf
from tests.quick import examples

ALL_TESTS = ["paired_t", "wilcoxon", "randomisation", "bootstrap", "tukey_hsd",
             "randomised_tukey_hsd", "pairwise_tukey"]


def pairs_of(S):
    return list(itertools.combinations(range(S), 2))


def test_paired_t_matches_scipy_per_pair(scores):
    r = sg.paired_t(scores, level=0.05)
    for k, (a, b) in enumerate(pairs_of(len(scores))):
        ref = stats.ttest_rel(scores[a], scores[b])
        row = r.table.iloc[k]
        assert row["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
        assert row["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        ci = ref.confidence_interval(0.95)
        assert row["ci_low"] == pytest.approx(ci.low, abs=1e-12)
        assert row["ci_high"] == pytest.approx(ci.high, abs=1e-12)
        d = scores[a] - scores[b]
        assert row["effect"] == pytest.approx(d.mean() / d.std(ddof=1))
        assert (row["wins"], row["ties"], row["losses"]) == ((d > 0).sum(), (d == 0).sum(),
                                                             (d < 0).sum())


def test_wilcoxon_matches_scipy_per_pair(scores):
    r = sg.wilcoxon(scores)
    for k, (a, b) in enumerate(pairs_of(len(scores))):
        ref = stats.wilcoxon(scores[a], scores[b], zero_method="wilcox")
        assert r.table["p_value"].iloc[k] == pytest.approx(ref.pvalue, rel=1e-10)


def test_randomisation_matches_slow_loop(scores):
    B, seed = 300, 7
    r = sg.randomisation(scores, trials=B, seed=seed)
    signs = np.random.default_rng(seed).integers(0, 2, size=(B, scores.shape[1]),
                                                 dtype=np.int8).astype(float) * 2 - 1
    for k, (a, b) in enumerate(pairs_of(len(scores))):
        d = scores[a] - scores[b]
        obs = abs(d.mean())
        count = sum(abs((signs[i] * d).mean()) >= obs - 1e-12 for i in range(B))
        assert r.table["p_value"].iloc[k] == count / B


def test_randomisation_approaches_exact_permutation_p():
    rng = np.random.default_rng(3)
    X = rng.random((2, 10))
    X[0] += 0.15
    d = X[0] - X[1]
    exact = np.mean([abs((np.array(s) * d).mean()) >= abs(d.mean()) - 1e-12
                     for s in itertools.product([-1, 1], repeat=10)])
    r = sg.randomisation(X, trials=40000, seed=1)
    assert r.table["p_value"].iloc[0] == pytest.approx(exact, abs=0.01)


def test_bootstrap_matches_slow_loop(scores):
    B, seed, level = 200, 11, 0.05
    r = sg.bootstrap(scores, trials=B, seed=seed, level=level)
    n = scores.shape[1]
    draws = np.random.default_rng(seed).integers(0, n, size=(B, n))
    for k, (a, b) in enumerate(pairs_of(len(scores))):
        d = scores[a] - scores[b]
        t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(n))
        w = d - d.mean()
        ts, ms = [], []
        for i in range(B):
            x = w[draws[i]]
            ms.append(x.mean())
            sd = x.std(ddof=1)
            ts.append(x.mean() / (sd / np.sqrt(n)) if sd > 0 else 0.0)
        asl = np.mean(np.abs(ts) >= abs(t_obs) * (1 - 1e-12))
        row = r.table.iloc[k]
        assert row["p_value"] == asl
        assert row["statistic"] == pytest.approx(t_obs)
        kth = int(np.ceil(B * level))
        assert row["delta"] == pytest.approx(np.sort(np.abs(ms))[::-1][kth - 1])
        lo, hi = np.quantile(d.mean() + np.array(ms), [0.025, 0.975])
        assert row["ci_low"] == pytest.approx(lo) and row["ci_high"] == pytest.approx(hi)
    assert r.delta == pytest.approx(r.table["delta"].max())


@pytest.mark.slow  # statsmodels / ptukey oracles: seconds each
def test_ptukey_matches_scipy():
    warnings.simplefilter("ignore")
    q = np.array([0.8, 3.9])
    for k, df in [(3, 4), (20, 500), (2, 12)]:
        assert np.allclose(ptukey_sf(q, k, df), stats.studentized_range.sf(q, k, df), atol=1e-9)
    assert ptukey_isf(0.05, 4, 20) == pytest.approx(stats.studentized_range.ppf(0.95, 4, 20),
                                                    abs=1e-8)


@pytest.mark.slow  # statsmodels / ptukey oracles: seconds each
def test_tukey_hsd_two_way_anova(scores):
    statsmodels = pytest.importorskip("statsmodels.formula.api")
    S, n = scores.shape
    long = pd.DataFrame({"y": scores.ravel(), "system": np.repeat(np.arange(S), n).astype(str),
                         "topic": np.tile(np.arange(n), S).astype(str)})
    fit = statsmodels.ols("y ~ C(system) + C(topic)", data=long).fit()
    r = sg.tukey_hsd(scores)
    assert r.mse == pytest.approx(fit.mse_resid, rel=1e-10)
    assert r.df == fit.df_resid
    means = scores.mean(axis=1)
    for k, (a, b) in enumerate(pairs_of(S)[:3]):
        q = abs(means[a] - means[b]) / np.sqrt(fit.mse_resid / n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = stats.studentized_range.sf(q, S, fit.df_resid)
        assert r.table["statistic"].iloc[k] == pytest.approx(q)
        assert r.table["p_value"].iloc[k] == pytest.approx(p, abs=1e-9)


def test_randomised_tukey_matches_slow_loop(scores):
    B, seed = 150, 5
    r = sg.randomised_tukey_hsd(scores, trials=B, seed=seed)
    rng = np.random.default_rng(seed)
    batch = np.broadcast_to(scores, (B,) + scores.shape).copy()
    rng.permuted(batch, axis=1, out=batch)
    ranges = []
    for i in range(B):
        m = [batch[i, s].mean() for s in range(scores.shape[0])]
        ranges.append(max(m) - min(m))
    means = scores.mean(axis=1)
    for k, (a, b) in enumerate(pairs_of(len(scores))):
        d = abs(means[a] - means[b])
        assert r.table["p_value"].iloc[k] == np.mean(np.array(ranges) >= d - 1e-12)


@pytest.mark.slow  # statsmodels / ptukey oracles: seconds each
def test_pairwise_tukey_matches_statsmodels(scores):
    mc = pytest.importorskip("statsmodels.stats.multicomp")
    r = sg.pairwise_tukey(scores, level=0.05)
    for k, (a, b) in list(enumerate(pairs_of(len(scores))))[::5]:
        endog = np.r_[scores[a], scores[b]]
        groups = np.repeat(["a", "b"], scores.shape[1])
        ref = mc.pairwise_tukeyhsd(endog, groups, alpha=0.05)
        row = r.table.iloc[k]
        assert row["p_value"] == pytest.approx(ref.pvalues[0], abs=2e-3)
        if abs(row["p_value"] - 0.05) > 5e-3:
            assert bool(row["significant"]) == bool(ref.reject[0])
        # equivalent to the pooled-variance two-sample t-test
        assert row["p_value"] == pytest.approx(stats.ttest_ind(scores[a], scores[b]).pvalue)
        assert row["ci_low"] == pytest.approx(-ref.confint[0][1], abs=1e-6)


@pytest.mark.slow  # imports statsmodels
@pytest.mark.parametrize("method", ["bonferroni", "holm", "fdr_bh"])
def test_corrections_match_statsmodels(method):
    mt = pytest.importorskip("statsmodels.stats.multitest")
    p = np.random.default_rng(0).random(40) ** 3
    p[5] = p[6]
    assert np.allclose(sg.adjust_pvalues(p, method), mt.multipletests(p, method=method)[1])
    r = sg.paired_t(np.random.default_rng(1).random((5, 10)), correction=method)
    assert np.allclose(r.table["p_adjusted"],
                       mt.multipletests(r.table["p_value"], method=method)[1])


@pytest.mark.parametrize("test", ALL_TESTS)
def test_identical_systems_never_significant(test):
    X = np.random.default_rng(0).random((4, 20))
    X[1] = X[0]
    r = sg.pairwise_test(X, test, **sg.options_for(test, seed=0, trials=200))
    row = r.table[(r.table["a"] == "s0") & (r.table["b"] == "s1")].iloc[0]
    assert row["p_value"] == 1.0 and not row["significant"]


@pytest.mark.parametrize("test", ALL_TESTS)
def test_dominating_system_always_significant(test):
    rng = np.random.default_rng(1)
    X = rng.random((4, 25)) * 0.3
    X[3] = X[:3].max(axis=0) + 0.5 + rng.random(25) * 0.01
    r = sg.pairwise_test(X, test, **sg.options_for(test, seed=0, trials=500), level=0.01)
    rows = r.table[r.table["b"] == "s3"]
    assert len(rows) == 3 and rows["significant"].all()
    assert (rows["diff"] < 0).all()
    ct = r.compare_table()
    assert ct.iloc[0]["system"] == "s3" and ct.iloc[0]["sig_wins"] == 3


@pytest.mark.parametrize("test", ["randomisation", "bootstrap", "randomised_tukey_hsd"])
def test_seeds_reproduce(test, scores):
    a = sg.pairwise_test(scores, test, **sg.options_for(test, seed=9, trials=300)).table
    b = sg.pairwise_test(scores, test, **sg.options_for(test, seed=9, trials=300)).table
    c = sg.pairwise_test(scores, test, **sg.options_for(test, seed=10, trials=300)).table
    pd.testing.assert_frame_equal(a, b)
    assert not a["p_value"].equals(c["p_value"])


def test_result_objects(scores):
    r = sg.bootstrap(scores, trials=200, seed=0)
    pm = r.pvalue_matrix()
    assert pm.shape == (7, 7) and np.allclose(pm, pm.T, equal_nan=True)
    assert r.num_significant(0.5) >= r.num_significant(0.01)
    assert "bootstrap" in str(r)
    frame = pd.DataFrame(scores, index=[f"sys{i}" for i in range(7)])
    assert sg.paired_t(frame).systems[0] == "sys0"


def test_nan_topics_are_dropped_with_warning(scores):
    X = scores.copy()
    X[0, 3] = np.nan
    with pytest.warns(UserWarning, match="dropping 1 topic"):
        r = sg.paired_t(X)
    assert r.n_topics == scores.shape[1] - 1


@pytest.mark.parametrize("kwargs, match", [
    ({"level": 1.5}, "level"), ({"correction": "sidak"}, "correction"),
])
def test_parameter_errors(scores, kwargs, match):
    with pytest.raises(ParameterError, match=match):
        sg.paired_t(scores, **kwargs)


def test_parameter_errors_random(scores):
    with pytest.raises(ParameterError, match="seed"):
        sg.bootstrap(scores, seed=-1)
    with pytest.raises(ParameterError, match="trials"):
        sg.bootstrap(scores, trials=0)
    with pytest.raises(ParameterError, match="unknown test"):
        sg.pairwise_test(scores, "ttest2")
    with pytest.raises(ParameterError, match="systems x topics"):
        sg.paired_t(np.zeros(5))


def test_pairs_subset_by_name(scores):
    frame = pd.DataFrame(scores, index=[f"r{i}" for i in range(7)])
    r = sg.bootstrap(frame, pairs=[("r0", "r6"), ("r2", "r3")], trials=200, seed=0)
    assert list(zip(r.table["a"], r.table["b"])) == [("r0", "r6"), ("r2", "r3")]
    full = sg.paired_t(frame)
    sub = sg.paired_t(frame, pairs=[("r2", "r3")])
    assert (sub.table["p_value"].iloc[0]
            == full.table.query("a == 'r2' and b == 'r3'")["p_value"].iloc[0])
    with pytest.raises(ParameterError, match="unknown system"):
        sg.paired_t(frame, pairs=[("r0", "zz")])



@settings(max_examples=examples(25), deadline=None)
@given(arrays(np.float64, (4, 6), elements=st.sampled_from([0.0, 0.1, 0.25, 0.5, 1.0])))
def test_pvalues_are_probabilities(X):
    for test in ["paired_t", "wilcoxon", "randomisation", "bootstrap", "pairwise_tukey"]:
        r = sg.pairwise_test(X, test, **sg.options_for(test, seed=0, trials=50))
        p = r.table["p_value"].to_numpy()
        assert np.all((p >= 0) & (p <= 1)), test
        allzero = [not np.any(X[a] != X[b]) for a, b in pairs_of(4)]
        assert np.all(p[allzero] == 1.0)


@settings(max_examples=examples(50), deadline=None)
@given(arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1)))
def test_adjusted_pvalues_bounds(p):
    for method in sg.CORRECTIONS:
        adj = sg.adjust_pvalues(p, method)
        assert np.all(adj >= p - 1e-15) and np.all(adj <= 1)
        order = np.argsort(p, kind="stable")
        assert np.all(np.diff(adj[order]) >= -1e-15)


def test_tukey_refuses_correction(scores):
    with pytest.raises(ParameterError, match="family-wise"):
        sg.pairwise_test(scores, "tukey_hsd", correction="holm")
    assert sg.pairwise_test(scores, "tukey_hsd", correction=None).num_pairs == 21


def test_paired_t_on_differences_equal_up_to_rounding_warns_nothing():
    """A run ahead by 0.1 on every topic: the differences are equal only up to rounding,
    on which SciPy warns of precision loss (an error under this suite); paired_t gives the
    limit of the exact answer (p about 0) without a warning, and the other pairs as SciPy."""
    from scipy import stats as sps
    X = np.array([[0.5, 0.6, 0.7, 0.1], [0.4, 0.5, 0.6, 0.0], [0.3, 0.2, 0.9, 0.4]])
    table = sg.paired_t(X).table
    assert table.loc[0, "p_value"] < 1e-12 and table.loc[0, "statistic"] > 1e6
    for row, (a, b) in ((1, (0, 2)), (2, (1, 2))):
        assert table.loc[row, "p_value"] == sps.ttest_rel(X[a], X[b]).pvalue
