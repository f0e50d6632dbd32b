"""irmeta.stats.leaderboard: intervals equal SciPy's bootstrap run by run, tests equal
SciPy's paired tests with statsmodels' Holm correction, ranks and edge cases."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from irmeta.errors import ParameterError
from irmeta.stats.leaderboard import leaderboard, mean_intervals


def _matrix(seed: int, runs: int = 6, topics: int = 25) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    base = rng.random(topics)
    X = np.clip(base[None, :] + rng.normal(0, 0.15, (runs, topics)) + rng.normal(0, .1, (runs, 1)),
                0, 1)
    return pd.DataFrame(X, index=[f"r{i}" for i in range(runs)],
                        columns=[f"t{j}" for j in range(topics)])


@pytest.mark.parametrize("method", ["percentile", "basic", "BCa"])
def test_intervals_equal_scipy_one_run_at_a_time(method):
    m = _matrix(1)
    got = mean_intervals(m, trials=2000, seed=7, method=method)
    for run in m.index:
        ref = sps.bootstrap((m.loc[run].to_numpy(),), np.mean, n_resamples=2000,
                            method=method, rng=np.random.default_rng(7), vectorized=True)
        assert got.loc[run, "ci_low"] == pytest.approx(ref.confidence_interval.low, abs=1e-12)
        assert got.loc[run, "ci_high"] == pytest.approx(ref.confidence_interval.high, abs=1e-12)
        assert got.loc[run, "mean"] == pytest.approx(m.loc[run].mean(), abs=1e-15)


def test_intervals_reproduce_bit_for_bit_and_depend_on_the_seed():
    m = _matrix(2)
    a = mean_intervals(m, trials=500, seed=3)
    pd.testing.assert_frame_equal(a, mean_intervals(m, trials=500, seed=3))
    assert not a.equals(mean_intervals(m, trials=500, seed=4))


@pytest.mark.parametrize("method", ["percentile", "BCa"])
def test_constant_run_and_single_topic(method):
    m = _matrix(3)
    m.loc["r0"] = 0.25
    got = mean_intervals(m, trials=200, method=method)
    assert got.drop("r0")[["ci_low", "ci_high"]].notna().all().all()
    assert (got.loc["r0", "ci_low"], got.loc["r0", "ci_high"]) == (0.25, 0.25)
    with pytest.raises(ParameterError, match="at least 2 topics"):
        mean_intervals(m.iloc[:, :1], trials=200)


@pytest.mark.slow  # statsmodels takes seconds to import (the doctest of adjust_pvalues is quick)
@pytest.mark.parametrize("seed", range(4))
def test_tests_against_best_and_next_equal_scipy_with_holm(seed):
    from statsmodels.stats.multitest import multipletests
    m = _matrix(seed, runs=7)
    lb = leaderboard(m, trials=300, seed=0)
    order = list(lb.table.index)
    assert order == list(m.mean(axis=1).sort_values(ascending=False, kind="stable").index)
    best = m.loc[order[0]].to_numpy()
    raw = [sps.ttest_rel(best, m.loc[r].to_numpy()).pvalue for r in order[1:]]
    holm = multipletests(raw, alpha=0.05, method="holm")[1]
    np.testing.assert_allclose(lb.table["p_vs_best"].to_numpy()[1:], holm, rtol=1e-10)
    raw = [sps.ttest_rel(m.loc[a].to_numpy(), m.loc[b].to_numpy()).pvalue
           for a, b in zip(order[:-1], order[1:])]
    holm = multipletests(raw, alpha=0.05, method="holm")[1]
    np.testing.assert_allclose(lb.table["p_vs_next"].to_numpy()[:-1], holm, rtol=1e-10)
    t = lb.table
    assert np.isnan(t["p_vs_best"].iloc[0]) and np.isnan(t["p_vs_next"].iloc[-1])
    np.testing.assert_array_equal(t["significant_vs_best"], t["p_vs_best"].fillna(1) < 0.05)
    np.testing.assert_array_equal(t["tied_with_best"], ~t["significant_vs_best"])
    assert lb.best == order[0]


def test_ranks_share_the_smaller_number_on_equal_means():
    m = _matrix(5, runs=4)
    m.loc["r3"] = m.loc["r1"]
    ranks = leaderboard(m, trials=100).table["rank"]
    assert ranks["r1"] == ranks["r3"]
    assert sorted(ranks) == sorted(pd.Series(m.mean(axis=1)).rank(ascending=False,
                                                                    method="min").astype(int))


@pytest.mark.parametrize("kwargs, named", [({"test": "tukey_hsd"}, "test"),
                                           ({"ci_level": 1.0}, "ci_level"),
                                           ({"trials": 0}, "trials"),
                                           ({"ci_method": "normal"}, "method"),
                                           ({"correction": "none"}, "correction")])
def test_bad_arguments_are_named(kwargs, named):
    with pytest.raises(ParameterError, match=named):
        leaderboard(_matrix(0), **kwargs)
