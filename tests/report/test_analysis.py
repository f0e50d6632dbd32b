"""The campaign report's numbers, read from the analysis objects
(:func:`irmeta.report.analyse_campaign`) and checked against the library functions and
slow reference loops — no HTML or TSV parsed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from markupsafe import Markup

import irmeta
from irmeta.errors import ParameterError
from irmeta.report import CampaignAnalysis, ReportOptions, analyse_campaign
from irmeta.report.analysis import (
    EffortSection,
    InnovationSection,
    LeaderboardSection,
    NRGSection,
    TopicsSection,
    TrustSection,
    rank_shift,
)
from tests.fresh import python_output
from tests.report.conftest import SMALL

#: analyses of whole campaigns cost seconds each: the full suite runs them, not the quick loop
pytestmark = pytest.mark.slow

K = 100


@pytest.fixture(scope="module")
def analysis(demo_campaign) -> CampaignAnalysis:
    from irmeta.demo import demo_groups, demo_paths
    paths = demo_paths()
    return analyse_campaign(demo_campaign, ReportOptions(progress=False, **SMALL),
                            groups=demo_groups(),
                            inputs={"qrels": paths.qrels, "runs": paths.runs,
                                    "groups": paths.groups})


@pytest.fixture(scope="module")
def grades() -> dict[tuple[str, str], int]:
    """(topic, docid) -> grade, read from the demo qrels file without irmeta."""
    from irmeta.demo import demo_paths
    out = {}
    with open(demo_paths().qrels, encoding="utf-8") as lines:
        for line in lines:
            topic, _, docid, grade = line.split()
            out[(topic, docid)] = int(grade)
    return out


def _slow_ranks(values) -> list[float]:
    """Competition ranks by definition: 1 + the number of strictly larger values."""
    v = np.asarray(values, dtype=float)
    return [np.nan if np.isnan(x) else 1.0 + float(np.sum(v > x)) for x in v]


def test_sections_are_frozen_data_only(analysis):
    """Every section is a frozen dataclass of frames, library results and numbers: no
    HTML, no matplotlib figure."""
    sections = [getattr(analysis, name) for name in (
        "inputs", "leaderboard", "highlights", "innovation", "nrg", "effort", "topics",
        "trust")]
    for sec in [*sections, analysis.effort.findings, analysis.topics.aggregation]:
        name = type(sec).__name__
        assert dataclasses.is_dataclass(sec) and sec.__dataclass_params__.frozen, name
        for f in dataclasses.fields(sec):
            value = getattr(sec, f.name)
            assert not isinstance(value, Markup), (name, f.name)
            assert not hasattr(value, "savefig"), (name, f.name)
            if isinstance(value, str):
                assert "<" not in value, (name, f.name)
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.leaderboard.rare_cutoff = 5


def test_leaderboard_means_are_evaluate(analysis, demo_campaign):
    lb: LeaderboardSection = analysis.leaderboard
    measures = [c.measure for c in lb.columns]
    from irmeta.demo import demo_groups
    res = irmeta.evaluate(demo_campaign, measures=measures, complete=True,
                          groups=demo_groups())
    want = res.aggregate().set_axis([c.label for c in lb.columns], axis=1)
    means = [c.label for c in lb.columns if c.kind == "mean"]
    assert len(means) == 13          # Judged@10 among them
    pd.testing.assert_frame_equal(lb.means[means], want.reindex(lb.means.index)[means],
                                  check_names=False, check_exact=False, rtol=1e-12)
    # the unique column is a count: a sum over topics, as explain.unique_contributions
    np.testing.assert_allclose(lb.means[f"unique@{K}"],
                               res.matrix([c.label for c in lb.columns].index(f"unique@{K}"))
                               .sum(axis=1))
    from irmeta.explain import unique_contributions
    uc = unique_contributions(demo_campaign, K)["unique"]
    assert lb.means[f"unique@{K}"].astype(int).to_dict() == uc.astype(int).to_dict()


def test_leaderboard_ranks_and_order(analysis):
    lb = analysis.leaderboard
    t, P = lb.table, lb.primary
    # the demo: graded qrels, runs of 100 documents -> nDCG@10 (docs/report.md)
    assert P == "nDCG@10" == lb.columns[0].label == analysis.defaults.primary
    for label in lb.means.columns:
        assert t[f"rank {label}"].tolist() == pytest.approx(_slow_ranks(t[label]), nan_ok=True)
        if label != P and label not in lb.saturated:     # tie-aware (test_headlines.py)
            shift = rank_shift(lb.means[P], lb.means[label]).reindex(t.index)
            assert (t[f"delta {label}"] == shift).all()
    assert t[P].is_monotonic_decreasing
    assert t.index.tolist() == t["run"].tolist()
    assert "group" in t                                     # groups were given
    assert analysis.highlights.best_run == t.index[0]
    assert analysis.highlights.best_value == pytest.approx(t[P].iloc[0])


def test_highlights_largest_rank_change(analysis):
    h, t = analysis.highlights, analysis.leaderboard.table
    left_out = {c for c, _ in h.left_out}
    deltas = t[[c for c in t.columns if c.startswith("delta ")
                and c[6:] not in left_out]].abs()
    assert h.moved and all(abs(c.shift) == deltas.to_numpy().max() for c in h.moved)
    P = h.primary
    for c in h.moved:
        assert c.primary_ranks[0] == t.loc[c.run, f"rank {P}"]
        assert c.measure_ranks[0] == t.loc[c.run, f"rank {c.measure}"]
    nrg = analysis.leaderboard.means["NRG@10"]
    assert h.most_new is not None
    assert h.most_new.runs == tuple(t.index[t["NRG@10"] == nrg.max()])


def test_innovation_sweep_is_alpha_sweep(analysis, demo_campaign):
    from irmeta.stats import alpha_sweep
    sec: InnovationSection = analysis.innovation
    want = alpha_sweep(demo_campaign, alphas=SMALL["alphas"], complete=True)
    pd.testing.assert_frame_equal(sec.sweep, want)
    assert sec.lowest_tau.to_dict() == want.groupby("baseline")["kendall"].min().to_dict()


def test_unique_documents_slow_count(analysis, demo_campaign, grades):
    """Per run: relevant documents in its top K that no other run has in its top K,
    counted by a plain loop over the rankings."""
    c, sec = demo_campaign, analysis.innovation
    tops = {(r, t): c.ranking(c.run_index(r), c.topic_index(t))[:K]
            for r in c.runs for t in c.topics}
    count = dict.fromkeys(c.runs, 0)
    found = dict.fromkeys(c.runs, 0)
    docs = set()
    for (run, topic), ranking in tops.items():
        others = set().union(*(tops[(o, topic)] for o in c.runs if o != run))
        for rank, doc in enumerate(ranking, 1):
            if grades.get((topic, doc), 0) >= 1:
                found[run] += 1
                if doc not in others:
                    count[run] += 1
                    docs.add((run, topic, doc, rank))
    table = sec.unique.set_index("run")
    assert table["unique"].to_dict() == count
    share = pd.Series({r: count[r] / found[r] if found[r] else np.nan for r in c.runs})
    np.testing.assert_allclose(table["share"].reindex(share.index), share)
    assert sec.runs_with_unique == sum(v > 0 for v in count.values())
    got = {(d.run, str(d.topic), d.docid, int(d.rank))
           for d in sec.documents.itertuples()}
    assert got == docs
    assert table["unique"].is_monotonic_decreasing


def test_nrg_section(analysis):
    sec: NRGSection = analysis.nrg
    m = analysis.leaderboard.means
    assert sec.prior == "best_per_group" and not sec.own_groups
    t = sec.table.set_index("run")
    np.testing.assert_allclose(t["NRG@10"], m["NRG@10"].reindex(t.index))
    ratio = m["NRG@10"] / m["nDCG@10"].where(m["nDCG@10"] > 0)
    np.testing.assert_allclose(t["NRG / nDCG"], ratio.reindex(t.index))
    assert t["rank NRG@10"].tolist() == _slow_ranks(m["NRG@10"].reindex(t.index))
    assert t["NRG@10"].is_monotonic_decreasing


def test_effort_section(analysis, demo_campaign):
    from irmeta import effort
    sec: EffortSection = analysis.effort
    # the gain measure follows the primary measure (nDCG@10 on the demo) unless given
    assert sec.gain == analysis.leaderboard.primary == "nDCG@10" and sec.findings is not None
    assert sec.gain_rule.startswith("the primary measure")
    f = sec.findings
    # Twist's depth follows the runs' depth (100) unless given
    assert sec.depth == demo_campaign.depth == 100
    want = effort.effort_gain(demo_campaign, "nDCG@10", depth=100)
    pd.testing.assert_frame_equal(f.grid.counts, want.counts)
    assert f.shares.to_numpy().sum() == pytest.approx(100.0)
    arche = effort.archetypes(demo_campaign, 100)
    assert f.archetypes.loc["all runs", "total"] == len(arche) == 30 * 50
    per_run = f.archetypes.drop(index="all runs")
    assert per_run["total"].to_dict() == arche.groupby("run").size().to_dict()
    assert np.allclose(per_run[list(effort.ARCHETYPES)].sum(axis=1), 100.0)
    pairs = list(zip(f.telling["run"], f.telling["topic"]))
    assert [(p.run, p.topic) for p in f.panels] == pairs
    for p, q in zip(f.panels, effort.crp_dcg_panels(demo_campaign, pairs, depth=100)):
        assert (p.twist, p.rb, p.crossing) == (q.twist, q.rb, q.crossing)


def test_topics_section(analysis, demo_campaign):
    from irmeta.aggregate import gawm
    from irmeta.stats import kendall_tau
    sec: TopicsSection = analysis.topics
    a = sec.aggregation
    assert sec.measure == "nDCG@10" and a is not None       # the primary measure
    m = irmeta.evaluate(demo_campaign, measures=["nDCG@10"], complete=True).matrix(0)
    pd.testing.assert_frame_equal(a.matrix, m.dropna(axis=1), check_names=False)
    g = gawm(m)
    s = a.systems.set_index("run")
    np.testing.assert_allclose(s["GAWM E_s"].reindex(m.index), g.E_s)
    np.testing.assert_allclose(s["MAP"].reindex(m.index), m.mean(axis=1))
    assert a.topics["weight W_t"].sum() == pytest.approx(1.0)
    assert a.moved == int((s["rank MAP"] != s["rank GAWM"]).sum())
    assert a.tau == pytest.approx(kendall_tau(m.mean(axis=1), g.E_s))
    assert a.bars.system_bars[0][0] == "MAP" and a.gawm.converged


def test_trust_section(analysis):
    from irmeta import stats
    sec: TrustSection = analysis.trust
    lb = analysis.leaderboard
    pd.testing.assert_frame_equal(sec.tau, stats.correlation_matrix(lb.means))
    assert sec.tested and sec.pairs == 30 * 29 // 2 and len(sec.measures) == 13
    assert sec.measures["disc. power"].between(0, 1).all()
    assert sec.measures["disc. power"].is_monotonic_decreasing
    a, b, v = sec.most_different
    assert v == pytest.approx(sec.tau.loc[a, b]) and v == pytest.approx(np.nanmin(sec.tau))
    assert (sec.discpower_trials, sec.stability_trials) == (SMALL["discpower_trials"],
                                                     SMALL["stability_trials"])


def test_trust_tests_are_the_stats_functions(demo_campaign):
    """The trust numbers equal bootstrap_power / stability_table on the leaderboard's
    matrices (a smaller campaign, few samples)."""
    from irmeta import stats
    from irmeta.report.analysis import trust_matrices
    from irmeta.report.columns import leaderboard_columns
    sub = demo_campaign.select_runs(list(range(0, 30, 6)))
    opts = ReportOptions(progress=False, discpower_trials=30, stability_trials=20, background=0,
                         skip=frozenset({"innovation", "nrg", "effort", "topics"}))
    sec = analyse_campaign(sub, opts).trust
    cols = leaderboard_columns(opts.validate(), "others", depth=sub.depth, primary="nDCG@10")
    res = irmeta.evaluate(sub, measures=[c.measure for c in cols], complete=True)
    mats = trust_matrices(res, cols)
    dp, _ = stats.bootstrap_power(mats, trials=30, seed=0, progress=False)
    stab = stats.stability_table(mats, trials=20, seed=0, progress=False)
    got = sec.measures.set_index("measure")
    np.testing.assert_allclose(got["disc. power"], dp.set_index("measure")["dp"].reindex(got.index))
    np.testing.assert_allclose(got["stability"],
                               stab.set_index("measure")["stability"].reindex(got.index))


def test_inputs_section(analysis, demo_campaign):
    sec = analysis.inputs
    c = demo_campaign
    assert (sec.runs, sec.qrels_topics, sec.judged) == (30, c.num_topics, 7458)
    assert sec.groups == 9 and sec.nrg_prior == "best_per_group"
    assert sec.analysed_topics == int(c.topic_set(1).sum())
    assert sec.relevant == int(c.num_rel(1).sum())
    assert dict(sec.files)["qrels file"] == "qrels.txt"
    assert dict(sec.parameters)["discpower_trials"] == str(SMALL["discpower_trials"])


def test_skipped_sections_are_none(demo_campaign):
    sub = demo_campaign.select_runs([0, 1, 2])
    a = analyse_campaign(sub, ReportOptions(skip=frozenset({"innovation", "effort", "topics",
                                                            "trust"})))
    assert a.innovation is a.effort is a.topics is a.trust is None
    assert a.leaderboard is not None and a.nrg is not None
    assert a.nrg.prior == "others" and a.nrg.own_groups and "group" not in a.nrg.table


def test_analyse_campaign_checks_its_inputs(demo_campaign):
    with pytest.raises(ParameterError, match="analyse_campaign: campaign must be a Campaign"):
        analyse_campaign("qrels.txt")
    with pytest.raises(ParameterError, match="analyse_campaign: .*at least 2 runs"):
        analyse_campaign(demo_campaign.select_runs([0]))
    with pytest.raises(ParameterError, match="no group for run"):
        analyse_campaign(demo_campaign, groups={"lexA-bm25": "a"})
    with pytest.raises(ParameterError, match="discpower_trials must be an integer in"):
        analyse_campaign(demo_campaign, ReportOptions(discpower_trials=0))


def test_leaderboard_intervals_from_the_child_equal_in_process(demo_campaign):
    """The intervals and tests computed in a forked child (background) are the ones
    computed in this process, also when the trust section is skipped."""
    sub = demo_campaign.select_runs(list(range(0, 30, 3)))
    skip = frozenset({"innovation", "nrg", "effort", "topics", "trust"})
    forked = analyse_campaign(sub, ReportOptions(progress=False, background=2, skip=skip,
                                                 ci_trials=500)).leaderboard
    here = analyse_campaign(sub, ReportOptions(progress=False, background=0, skip=skip,
                                               ci_trials=500)).leaderboard
    assert forked.uncertainty is not None and "ci_low" in forked.table
    pd.testing.assert_frame_equal(forked.table, here.table)
    pd.testing.assert_frame_equal(forked.uncertainty.table, here.uncertainty.table)


def test_report_process_does_not_import_scipy_stats():
    """scipy.stats (about a second to import) is imported by the children that compute
    the leaderboard's intervals and the trust tests, not by the process writing the page:
    checked in a fresh interpreter, structurally (no timing)."""
    code = ("import sys\n"
            "import irmeta.report, irmeta.stats\n"
            "print('scipy.stats' in sys.modules)\n"
            "from irmeta.demo import load_demo_campaign\n"
            "c = load_demo_campaign().select_runs([0, 5, 10, 15])\n"
            "a = irmeta.report.analyse_campaign(c, irmeta.report.ReportOptions(\n"
            "    progress=False, background=2, discpower_trials=20, stability_trials=20,\n"
            "    ci_trials=100,\n"
            "    skip=frozenset({'innovation', 'effort', 'topics'})))\n"
            "print(a.leaderboard.uncertainty is not None, 'scipy.stats' in sys.modules)\n")
    out = python_output(code).stdout.split()
    assert out == ["False", "True", "False"]
