"""Typed significance results: fields per test, the legacy dicts built from them, and
``confidence_interval(level)`` (issue 15, item 4)."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.errors import ParameterError
from irmeta.stats import significance as sg


def test_each_test_returns_its_typed_result(scores):
    assert type(sg.paired_t(scores)) is sg.PairedTResult
    assert type(sg.wilcoxon(scores)) is sg.PairwiseResult
    assert type(sg.randomisation(scores, trials=50)) is sg.PairwiseResult
    assert type(sg.bootstrap(scores, trials=50)) is sg.BootstrapResult
    assert type(sg.tukey_hsd(scores)) is sg.TukeyHSDResult
    assert type(sg.randomised_tukey_hsd(scores, trials=50)) is sg.RandomisedTukeyResult
    assert type(sg.pairwise_tukey(scores)) is sg.PairwiseTukeyResult


def test_typed_fields_hold_the_test_values(scores):
    S, n = scores.shape
    t = sg.paired_t(scores)
    assert t.df == n - 1 and t.standard_error.shape == (t.num_pairs,)
    b = sg.bootstrap(scores, trials=200, seed=3)
    assert b.delta == b.table["delta"].max()
    assert b.parameters == sg.TestParameters(trials=200, seed=3)
    h = sg.tukey_hsd(scores)
    assert h.df == (S - 1) * (n - 1) and h.mse > 0 and h.q_crit > 0
    r = sg.randomised_tukey_hsd(scores, trials=100, seed=1)
    assert r.ranges.shape == (100,) and np.all(np.diff(r.ranges) >= 0)
    p = sg.pairwise_tukey(scores)
    assert p.df == 2 * n - 2
    assert sg.paired_t(scores).parameters == sg.TestParameters()


def test_results_have_only_the_typed_fields(scores):
    """Nothing was released, so the former ``params`` and ``extra`` dicts are gone: one
    name per value (``parameters.trials``, ``delta``, ``q_crit``, ...)."""
    results = [sg.paired_t(scores), sg.bootstrap(scores, trials=20, seed=2),
               sg.tukey_hsd(scores), sg.randomised_tukey_hsd(scores, trials=20),
               sg.pairwise_tukey(scores)]
    for r in results:
        assert not hasattr(r, "params") and not hasattr(r, "extra"), type(r).__name__


def test_default_interval_is_the_tables(scores):
    for r in (sg.paired_t(scores), sg.bootstrap(scores, trials=50), sg.tukey_hsd(scores)):
        low, high = r.confidence_interval()
        assert np.array_equal(low, r.table["ci_low"].to_numpy())
        assert np.array_equal(high, r.table["ci_high"].to_numpy())
        same = r.confidence_interval(1 - r.level)
        assert np.array_equal(same.low, low) and np.array_equal(same.high, high)


@pytest.mark.parametrize("run", [
    lambda s, lv: sg.paired_t(s, level=lv),
    lambda s, lv: sg.tukey_hsd(s, level=lv),
    lambda s, lv: sg.randomised_tukey_hsd(s, level=lv, trials=300, seed=4),
    lambda s, lv: sg.pairwise_tukey(s, level=lv),
], ids=["paired_t", "tukey_hsd", "randomised_tukey_hsd", "pairwise_tukey"])
def test_other_level_equals_a_rerun_at_that_level(scores, run):
    ci = run(scores, 0.05).confidence_interval(0.8)
    rerun = run(scores, 0.2)
    assert ci.low == pytest.approx(rerun.table["ci_low"].to_numpy(), rel=1e-9, abs=1e-12)
    assert ci.high == pytest.approx(rerun.table["ci_high"].to_numpy(), rel=1e-9, abs=1e-12)
    wider = run(scores, 0.05).confidence_interval(0.99)
    assert np.all(wider.high - wider.low > ci.high - ci.low)


def test_tests_without_an_interval_give_nan(scores):
    for r in (sg.wilcoxon(scores), sg.randomisation(scores, trials=20)):
        low, high = r.confidence_interval(0.9)
        assert np.isnan(low).all() and np.isnan(high).all()


def test_own_level_matches_despite_rounding(scores):
    r = sg.bootstrap(scores, trials=20, level=0.07)      # 1 - 0.07 is 0.9299999999999999
    assert np.array_equal(r.confidence_interval(0.93).low, r.table["ci_low"].to_numpy())


def test_bootstrap_at_another_level_asks_for_a_rerun(scores):
    with pytest.raises(ParameterError, match="rerun it with level=0.1"):
        sg.bootstrap(scores, trials=20).confidence_interval(0.9)


@pytest.mark.parametrize("bad", [0, 1, 1.5, float("nan"), "0.9", True])
def test_confidence_level_is_checked(scores, bad):
    with pytest.raises(ParameterError, match="confidence_level"):
        sg.paired_t(scores).confidence_interval(bad)
