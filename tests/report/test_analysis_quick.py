"""Quick tests of :func:`irmeta.report.analyse_campaign` (issue 23, item 5): the largest
module of the package, analysed on the 5 x 8 campaign of ``tests/report/tiny.py`` whose
numbers are known by hand, in about a second. The demo-campaign tests of
``test_analysis.py`` (slow) check the same sections at scale and against the library.

Also the analysis-identity test that, with one render-determinism test
(``test_assemble.py``), replaces the three-report seed test: the same seed gives the same
analysis object, field by field; another seed changes the random parts only."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from irmeta.report import CampaignAnalysis, ReportOptions, analyse_campaign
from tests.report import tiny
from tests.shards.test_report_explain import assert_same

SMALL = dict(progress=False, discpower_trials=20, stability_trials=10, ci_trials=50,
             background=0, rare_cutoff=10, alphas=(0.0, 0.5, 1.0))
RANDOM = frozenset({"innovation", "nrg", "effort", "topics"})   # left: leaderboard, trust


@pytest.fixture(scope="module")
def campaign():
    return tiny.campaign()


@pytest.fixture(scope="module")
def analysis(campaign) -> CampaignAnalysis:
    return analyse_campaign(campaign, ReportOptions(**SMALL))


def test_inputs_and_defaults_are_the_campaigns(analysis):
    i, d = analysis.inputs, analysis.defaults
    assert (i.runs, i.qrels_topics, i.analysed_topics) == (5, 8, 7)   # t8: nothing relevant
    assert (i.judged, i.relevant, i.relevant_per_topic, i.depth) == (48, 21, 3.0, 6)
    # graded judgements, runs of at most 100 documents: nDCG@10; Twist at the runs' depth
    assert (d.primary, d.graded, d.twist_depth) == ("nDCG@10", True, 6)


def test_leaderboard_values_are_the_hand_computed_ones(analysis):
    lb = analysis.leaderboard
    t = lb.table
    assert lb.primary == "nDCG@10" and list(t.index) == list(t["run"])
    assert sorted(t.index) == sorted(tiny.RUNS) and t["nDCG@10"].is_monotonic_decreasing
    for run in tiny.RUNS:
        assert t.loc[run, "AP"] == pytest.approx(tiny.mean(tiny.ap, run), abs=1e-12)
        assert t.loc[run, "nDCG@10"] == pytest.approx(tiny.mean(tiny.ndcg10, run), abs=1e-12)
    assert t.loc["ideal", "AP"] == t.loc["ideal", "nDCG@10"] == 1.0
    # every run retrieves the six judged documents of every topic
    assert (t["P@10"] == 0.3).all() and (t["R@6"] == 1.0).all() and (t["Judged@10"] == 1).all()
    assert (t["unique@10"] == 0).all()
    # competition ranks by definition, and the tie-aware rank change against the primary
    # measure: the gap between the rank ranges (lo = 1 + better runs, hi = better or equal)
    p = t["nDCG@10"].to_numpy()
    for label in lb.means.columns:
        v = t[label].to_numpy()
        assert list(t[f"rank {label}"]) == [1.0 + np.sum(v > x) for x in v], label
        if label == "nDCG@10":
            continue
        if label in lb.saturated:                   # most runs share one value: no change
            assert t[f"delta {label}"].isna().all()
            continue
        want = [max(1 + np.sum(p > a) - np.sum(v >= b), 0)
                - max(1 + np.sum(v > b) - np.sum(p >= a), 0) for a, b in zip(p, v)]
        assert list(t[f"delta {label}"]) == want, label
    assert (t["rank P@10"] == 1).all()                          # a five-way tie
    # P@10, R@6, Judged@10 and unique@10 are constants: saturated, out of the headline
    assert {"P@10", "R@6", "Judged@10", "unique@10"} <= set(lb.saturated)
    assert {"P@10", "R@6", "Judged@10", "unique@10"} <= {c for c, _ in analysis.highlights.left_out}


def test_leaderboard_nan_rules(analysis):
    """The best run has no p-value against the best, the last none against the next; the
    intervals hold the mean, and the ideal run's is a point (it is 1 on every topic)."""
    t = analysis.leaderboard.table
    assert np.isnan(t["p_vs_best"].iloc[0]) and t["p_vs_best"].iloc[1:].notna().all()
    assert np.isnan(t["p_vs_next"].iloc[-1]) and t["p_vs_next"].iloc[:-1].notna().all()
    assert (t["ci_low"] <= t["nDCG@10"]).all() and (t["nDCG@10"] <= t["ci_high"]).all()
    assert t.loc["ideal", "ci_low"] == t.loc["ideal", "ci_high"] == 1.0
    h = analysis.highlights
    assert (h.best_run, h.best_value, h.most_unique) == ("ideal", 1.0, None)


def test_per_topic_matrices_cover_the_campaign_topic_set(analysis, campaign):
    mats = analysis.per_topic.matrices
    assert "nDCG@10" in mats and "Twist@6" in mats
    for name, m in mats.items():
        assert m.shape == (5, 7) and "t8" not in list(m.columns), name
    np.testing.assert_allclose(mats["AP"].loc["r1"],
                               [tiny.ap("r1", t) for t in tiny.TOPICS[:7]], atol=1e-12)


def test_trust_tau_is_nan_for_a_constant_measure(analysis):
    """Kendall's tau with a measure that has one value for every run is undefined: NaN
    (not 0, not an error), except with itself."""
    tau = analysis.trust.tau
    assert list(tau.index) == list(tau.columns) and np.allclose(np.diag(tau), 1.0)
    for constant in ("P@10", "R@6", "Judged@10", "unique@10"):
        others = tau.loc[constant].drop(constant)
        assert others.isna().all(), constant
    assert tau.loc["AP", "bpref"] == pytest.approx(1.0)          # the same order here
    assert np.allclose(tau.to_numpy(), tau.to_numpy().T, equal_nan=True)
    assert analysis.trust.pairs == 10 and analysis.trust.analysed_topics == 7


def test_innovation_nrg_effort_topics_sections(analysis):
    inn = analysis.innovation
    assert inn.runs_with_unique == 0 and len(inn.documents) == 0 and inn.num_runs == 5
    assert (inn.unique["unique"] == 0).all()
    assert set(analysis.nrg.table["run"]) == set(tiny.RUNS)
    # the ideal ranking's CRP curve is the ideal archetype on every topic
    arche = analysis.effort.findings.archetypes
    assert arche.loc["ideal", "ideal"] == 100.0 and arche.loc["ideal", "total"] == 7
    assert arche.loc["all runs", "total"] == 35 and analysis.effort.undefined_topics == 0
    agg = analysis.topics.aggregation
    assert analysis.topics.measure == "nDCG@10" and agg.matrix.shape == (5, 7)   # primary
    np.testing.assert_allclose(agg.map.loc[tiny.RUNS],
                               [tiny.mean(tiny.ndcg10, r) for r in tiny.RUNS], atol=1e-12)


def test_skipped_sections_are_none(campaign):
    a = analyse_campaign(campaign, ReportOptions(**SMALL, skip=RANDOM | {"trust"}))
    assert all(getattr(a, s) is None for s in ("innovation", "nrg", "effort", "topics",
                                                "trust"))
    assert a.leaderboard.table.shape[0] == 5


def test_the_same_seed_gives_the_same_analysis(campaign):
    """The analysis-identity test: the same options give equal analyses, field by field
    (frames exactly, NaN == NaN); another seed changes the bootstrap and the trials."""
    opts = ReportOptions(**SMALL, skip=RANDOM, seed=3)
    a, b = (analyse_campaign(campaign, opts) for _ in range(2))
    assert_same(a, b)
    c = analyse_campaign(campaign, dataclasses.replace(opts, seed=4))
    pd.testing.assert_frame_equal(a.leaderboard.means, c.leaderboard.means)  # not random
    assert not a.leaderboard.table["ci_low"].equals(c.leaderboard.table["ci_low"])
    assert not a.trust.measures.equals(c.trust.measures)


def test_assert_same_sees_a_changed_value(campaign, analysis):
    """The comparison above can fail: one cell changed deep inside is found."""
    other = analyse_campaign(campaign, ReportOptions(**SMALL))
    other.leaderboard.table.iloc[2, 1] += 1e-15
    with pytest.raises(AssertionError, match="leaderboard.table"):
        assert_same(analysis, other)


def test_one_measure_sections_follow_the_primary_measure(analysis, campaign):
    """Issue 24, defect 5: the effort grid's gain and the GAWM/HITS matrix use the primary
    measure unless --gain / --matrix-measure give another, and say which and why."""
    assert analysis.options.primary == "nDCG@10"
    assert analysis.effort.gain == analysis.topics.measure == "nDCG@10"
    assert analysis.effort.gain_rule.startswith("the primary measure")
    assert analysis.topics.measure_rule.startswith("the primary measure")
    other = analyse_campaign(campaign, ReportOptions(
        **{**SMALL, "skip": frozenset({"innovation", "nrg", "trust"})}, primary="AP",
        gain="RR"))
    assert other.topics.measure == "AP" and other.effort.gain == "RR"
    assert other.effort.gain_rule == "given (--gain); the primary measure is AP"


def test_topics_rank_change_counts_ties(analysis):
    """The MAP-vs-GAWM rank change is tie-aware like the leaderboard's (issue 24)."""
    from irmeta.report.analysis import rank_shift
    s = analysis.topics.aggregation.systems.set_index("run")
    want = rank_shift(s["MAP"], s["GAWM E_s"])
    assert s["rank change"].tolist() == want.tolist()
    assert analysis.topics.aggregation.moved == int((want != 0).sum())


def test_trust_topic_set_size_is_the_primary_measures_design(analysis, campaign):
    """Issue 46, item 2: the trust section's "topics for the next round" is
    :func:`irmeta.stats.topic_set_size` of the primary measure's matrix (topics every run
    has), paired t-test and ANOVA at the report's level, power 0.8."""
    import irmeta
    from irmeta.report.sections.trust import TOPIC_SET_DIFFS
    from irmeta.stats import topic_set_size
    t = analysis.trust.topic_set_size
    assert t is not None and list(dict.fromkeys(t["method"])) == ["ttest", "anova"]
    res = irmeta.evaluate(campaign, measures=["nDCG@10"])
    mat = res.matrix(0).dropna(axis=1, how="any")
    want = topic_set_size(mat, list(TOPIC_SET_DIFFS), alpha=0.05, power=0.8,
                          method=["ttest", "anova"]).table
    pd.testing.assert_series_equal(t["n_topics"], want["n_topics"])
    np.testing.assert_allclose(t["variance"], want["variance"], rtol=1e-12)
    assert (t["topics"] == 7).all() and (t["runs"] == 5).all()


def test_topics_figures_name_the_measure_they_plot(analysis):
    """Issue 47, item 5: the heat map of an nDCG@10 matrix said "MAP" (the paper's AP);
    every label of the topics figures names the measure of the matrix."""
    import matplotlib.pyplot as plt

    from irmeta.report.views.common import FigureView
    from irmeta.report.views.topics import topics
    view = topics(analysis.topics)
    figures = {b.name: b.figure for b in view.blocks if isinstance(b, FigureView)}
    assert set(figures) == {"topics_heatmap", "topics_rank_map_gawm"}
    text = []
    for fig in figures.values():
        for ax in fig.axes:
            text += [ax.get_xlabel(), ax.get_ylabel(), ax.get_title()]
            text += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
        plt.close(fig)
    words = " ".join(text)
    assert analysis.topics.measure == "nDCG@10"
    assert "MAP" not in words and "AAP" not in words
    assert "mean nDCG@10" in words
