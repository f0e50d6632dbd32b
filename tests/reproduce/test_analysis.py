"""The numbers of the four reproductions, read from their analysis objects (no page, no
TSV): each checked against the paper where our data is the paper's (NRG Table 1, the
Twist worked example), against the library call that computes it, or against a slow
reference (tests/context/reference.py, tests/twist/reference.py).

The quick loop keeps the fast tests on the papers' own examples (NRG Table 1, the Twist
worked example, GAWM on a 7 x 9 matrix; see also test_analysis_quick.py); the slow ones,
marked one by one, recompute on the demo campaign, run a page, or start a fresh
interpreter."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.demo import demo_paths
from irmeta.io.load import read_groups
from irmeta.reproduce import gawm, innovation, nrg, twist
from tests.context import reference as context_reference
from tests.context.test_nrg_table1 import QRELS as NRG_QRELS
from tests.context.test_nrg_table1 import RUNS as NRG_RUNS
from tests.context.test_nrg_table1 import TABLE as NRG_TABLE1
from tests.fresh import python_output
from tests.twist import example
from tests.twist import reference as twist_reference
from tests.twist.test_example import EXPECTED as TWIST_EXPECTED

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo():
    p = demo_paths()
    campaign = irmeta.load_campaign(p.qrels, [str(r) for r in p.runs])
    return campaign, read_groups(p.groups, campaign.runs)


@pytest.fixture(scope="module")
def small(demo):
    """Nine runs of the demo campaign, its groups restricted to them."""
    campaign, groups = demo
    sub = campaign.select_runs(list(range(0, 27, 3)))
    return sub, {r: groups[r] for r in sub.runs}


# ------------------------------------------------------------------ NRG
@pytest.fixture(scope="module")
def nrg_table1():
    """The NRG paper's Table 1 campaign (one topic, R1 R2 R3 in that order), groups
    R1, R2 -> a and R3 -> b."""
    campaign = irmeta.load_campaign(NRG_QRELS, list(NRG_RUNS.values()), names=list(NRG_RUNS))
    return nrg.analyse(campaign, groups={"R1": "a", "R2": "a", "R3": "b"}, progress=False)


def test_nrg_table1_from_the_analysis(nrg_table1):
    """Every column of the paper's Table 1 that a prior set of the reproduction covers,
    to the printed 4 decimals: nDCG@10, NRG with the two others as the prior, with the
    earlier runs (R2 after R1; R3 after both), with the best run of the other group."""
    v = nrg_table1.values.round(4)
    assert list(v.index) == ["R1", "R2", "R3"]
    assert (v["nDCG@10"] == 0.7933).all()
    assert v["NRG others@10"].to_dict() == {r: NRG_TABLE1[r]["others"] for r in NRG_TABLE1}
    assert v["NRG earlier@10"].to_dict() == {"R1": 0.7933, "R2": NRG_TABLE1["R2"]["R1"],
                                             "R3": NRG_TABLE1["R3"]["others"]}
    # group a's best is a tie R1 = R2 -> R1 (campaign order); full depth = @10 here
    assert v["NRG best_per_group"].to_dict() == {"R1": NRG_TABLE1["R1"]["R3"],
                                                 "R2": NRG_TABLE1["R2"]["R3"],
                                                 "R3": NRG_TABLE1["R3"]["R1"]}
    assert nrg_table1.figure2.y.equals(nrg_table1.values["NRG best_per_group"])
    assert nrg_table1.figure1b.y.name == "NRG others@10"
    assert nrg_table1.groups_given and nrg_table1.num_groups == 2
    # Figure 5: TaSC@10 with the best run of the other group as the prior:
    # (1 - nDCG@10 of that run) * nDCG@10, and every run has the same nDCG@10 here
    ndcg = nrg_table1.values["nDCG@10"].iloc[0]
    np.testing.assert_allclose(nrg_table1.figure5.y, (1 - ndcg) * ndcg, rtol=1e-12)
    assert nrg_table1.figure5.y.name == "TaSC best_per_group@10"


@pytest.mark.slow
def test_nrg_against_slow_reference(small):
    """Every NRG column equals the slow loop of tests/context/reference.py."""
    campaign, groups = small
    a = nrg.analyse(campaign, groups=groups, progress=False)
    qrels, rankings = _plain(campaign)
    topics = [t for t, keep in zip(campaign.topics, campaign.topic_set(1)) if keep]
    for label, kind, base, k in (("NRG earlier@10", "earlier", "nDCG", 10),
                                 ("NRG others@10", "others", "nDCG", 10),
                                 ("NRG best_per_group", "best_per_group", "nDCG", None)):
        ref = context_reference.nrg_all(rankings, qrels, topics, kind=kind, base=base, k=k,
                                        groups=groups, topic_set=set(topics))
        np.testing.assert_allclose(a.values[label], [np.mean(ref[r]) for r in campaign.runs],
                                   rtol=1e-12, atol=1e-15, err_msg=label)


@pytest.mark.slow
def test_nrg_correlations_and_unique(small):
    from scipy.stats import kendalltau

    from irmeta.explain import unique_contributions
    campaign, groups = small
    a = nrg.analyse(campaign, groups=groups, params=nrg.NRGParams(cutoff=5, pool_depth=20),
                    progress=False)
    corr = a.correlations.set_index("measure")
    for label in ("NRG others@5", "P_rare@5"):
        tau = kendalltau(a.values["nDCG@5"], a.values[label]).statistic
        assert corr.loc[label, "Kendall τ with nDCG@5"] == pytest.approx(tau, abs=1e-12)
        assert a.tau_with_base(label) == corr.loc[label, "Kendall τ with nDCG@5"]
    uc = unique_contributions(campaign, 20)
    assert a.unique_contributions.set_index("run")["unique"].to_dict() == uc["unique"].to_dict()
    assert a.unique_contributions["unique"].is_monotonic_decreasing
    top = a.top_runs(a.figure2, 3)
    assert list(top["value"]) == sorted(a.values["NRG best_per_group"], reverse=True)[:3]
    ranks = a.values["nDCG@5"].rank(ascending=False, method="min")
    assert list(top["base_rank"]) == [int(ranks[r]) for r in top["run"]]


@pytest.mark.slow
def test_nrg_without_groups(small):
    campaign, _ = small
    a = nrg.analyse(campaign, progress=False)
    assert not a.groups_given and a.num_groups == campaign.num_runs
    np.testing.assert_allclose(a.values["NRG best_per_group"],
                               irmeta.evaluate(campaign, measures=["NRG(base=nDCG)"])
                               .matrix(0).mean(axis=1), rtol=1e-12)


def _plain(campaign):
    """qrels {topic: {doc: grade}} and rankings {run: {topic: [doc, ...]}} of a campaign."""
    from irmeta.data.tables import decode_ids
    j = campaign.judged
    qrels = {}
    for t, tid in enumerate(campaign.topics):
        lo, hi = int(j.ptr[t]), int(j.ptr[t + 1])
        qrels[tid] = dict(zip(decode_ids(j.docids.slice(lo, hi - lo)), j.grades[lo:hi].tolist()))
    rankings = {name: {tid: campaign.ranking(r, t) for t, tid in enumerate(campaign.topics)
                       if campaign.ranking(r, t)}
                for r, name in enumerate(campaign.runs)}
    return qrels, rankings


# ------------------------------------------------------------------ Twist
@pytest.fixture(scope="module")
def twist_example():
    """The paper's worked example (ideal, worst, fs, a, b on one topic, RB = 7, N = 15),
    its topic given twice so that the significance tests have two topics."""
    qrels, runs = example.qrels_and_runs()
    qrels = {"t1": qrels["t1"], "t2": dict(qrels["t1"])}
    runs = {name: {"t1": r["t1"], "t2": dict(r["t1"])} for name, r in runs.items()}
    campaign = irmeta.load_campaign(qrels, list(runs.values()), names=list(runs))
    params = twist.TwistParams(depth=15, discpower_trials=40, levels=(50,), gains=("AP", "nDCG"))
    return campaign, twist.analyse(campaign, params, progress=False)


def test_twist_worked_example_from_the_analysis(twist_example):
    """Table 2's archetypes and the Twist means of a and b are the paper's example."""
    campaign, a = twist_example
    curves = a.table2_curves[a.table2_curves["topic"] == "t1"].set_index("run")
    assert curves["archetype"].to_dict() == {"ideal": "ideal", "worst": "worst",
                                             "fs": "full_scale", "a": "typical_B",
                                             "b": "typical_A"}
    row = a.table2.loc["this campaign"]
    assert row["total"] == 10
    for archetype in ("ideal", "worst", "full_scale", "typical_A", "typical_B"):
        assert row[archetype] == pytest.approx(20.0)
    # the worst run (AP = 0) is the one left out of the best 75% by MAP
    assert a.kept_runs == ("ideal", "fs", "a", "b")
    for name in ("a", "b"):
        rho, sigma, value = TWIST_EXPECTED[("matters", name)]
        assert a.means.loc[name, "Twist@15"] == pytest.approx(value, abs=5e-5)
        ref = twist_reference.twist(example.grades_of(name), list(campaign.judged.grades[:27]),
                                    15)
        assert a.means.loc[name, "Twist@15"] == pytest.approx(ref["twist"], abs=1e-12)
        assert curves.loc[name, "twist"] == pytest.approx(ref["twist"], abs=1e-12)
        assert curves.loc[name, "rho"] == pytest.approx(rho, abs=1e-12)


def test_twist_tables_match_the_library(twist_example):
    from irmeta import effort
    from irmeta.stats import (
        bootstrap_power,
        correlation_matrix,
        filter_top_runs,
        matrices,
        pool_downsampling,
        system_means,
    )
    campaign, a = twist_example
    top = filter_top_runs(campaign, 0.75)
    ms = ["AP", "nDCG", "Twist@15"]
    pd.testing.assert_frame_equal(a.tables3_4, correlation_matrix(system_means(top, ms)))
    down = pool_downsampling(top, ms, levels=(50,), seed=0)
    pd.testing.assert_frame_equal(a.figure13, down)
    assert list(a.figure13_tau.columns) == ["100%", "50%"]
    summary, curves = bootstrap_power(matrices(top, ms), trials=40, seed=0)
    assert list(a.figure14["significant"]) == list(summary["significant"])
    np.testing.assert_array_equal(a.figure14["dp_percent"], 100 * summary["dp"])
    for m in ms:
        np.testing.assert_array_equal(a.figure14_curves[m], curves[m])
        np.testing.assert_array_equal(a.figure14_asl[m].dropna(), curves[m])
    summ, grids = effort.effort_gain_summary(campaign, ["AP", "nDCG"], 15)
    pd.testing.assert_frame_equal(a.effort_gain, summ)
    pd.testing.assert_frame_equal(a.grid_tables["AP"], grids["AP"].table())
    # Figure 11: the most telling pairs and their panels, Twist from the components
    pairs = effort.most_telling(grids["nDCG"], k=2)
    pd.testing.assert_frame_equal(a.figure11_pairs, pairs)
    assert [(p.run, p.topic) for p in a.figure11] == list(zip(pairs["run"], pairs["topic"]))
    assert all(p.rb == 7 for p in a.figure11)


@pytest.mark.slow
def test_twist_without_ndcg_has_no_figure11(small):
    campaign, _ = small
    a = twist.analyse(campaign, twist.TwistParams(gains=("AP",), discpower_trials=20, levels=(50,)),
                      progress=False)
    assert a.figure11 is None and a.figure11_pairs is None
    assert set(a.grids) == {"AP"} and a.twist == "Twist@1000"


# ------------------------------------------------------------------ GAWM
@pytest.fixture(scope="module")
def gawm_matrix():
    rng = np.random.default_rng(11)
    base = rng.random((7, 1)) * 0.5
    return pd.DataFrame(np.clip(base + 0.5 * rng.random((7, 9)), 0, 1),
                        index=[f"s{i}" for i in range(7)], columns=[f"t{j}" for j in range(9)])


def test_gawm_tables_match_the_library(gawm_matrix):
    from irmeta.aggregate import analyses as an
    from irmeta.aggregate import gawm as gawm_fn
    from irmeta.aggregate import hits
    m = gawm_matrix
    a = gawm.analyse(m, name="toy", progress=False)
    pd.testing.assert_frame_equal(a.table2, an.correlation_table({"toy": m}, "A"))
    pd.testing.assert_frame_equal(a.table3, an.mean_function_table({"toy": m}, "A"))
    pd.testing.assert_frame_equal(a.figure4.drop(columns="kendall_p"), an.ranking_grid(m, "A"))
    pd.testing.assert_frame_equal(a.figure4_scores, an.grid_scores(m, "A"))
    pd.testing.assert_frame_equal(a.figure5, an.winner_confidence(m, "A"))
    pd.testing.assert_frame_equal(a.figure6, an.leave_one_topic_out(m, "B"))
    g, h = gawm_fn(m, "A"), hits(m)
    ws = a.weights_systems.set_index("system")
    np.testing.assert_array_equal(ws.loc[m.index, "E_s"], g.E_s)
    np.testing.assert_array_equal(ws.loc[m.index, "A(s)"], h.authority_s)
    np.testing.assert_array_equal(ws.loc[m.index, "MAP"], m.mean(axis=1))
    assert list(ws["MAP"]) == sorted(ws["MAP"], reverse=True)
    bars = dict((label, v) for label, v, _ in a.figure3.system_bars)
    np.testing.assert_array_equal(bars["E_s ari"], g.E_s)
    assert a.map_leader_kept == int((a.figure4["map_leader_rank"] == 1).sum()) - 1
    assert a.score_range == (m.to_numpy().min(), m.to_numpy().max())
    assert a.heatmap_not_converged == []


def test_gawm_checks_the_matrix(gawm_matrix):
    from irmeta.errors import ParameterError
    with pytest.raises(ParameterError, match="at least 2 systems and 2 topics, got 1 x 9"):
        gawm.analyse(gawm_matrix.iloc[:1], progress=False)
    bad = gawm_matrix.copy()
    bad.iloc[2, 3] = np.nan
    with pytest.raises(ParameterError, match="first at system 's2', topic 't3'"):
        gawm.analyse(bad, progress=False)
    with pytest.raises(ParameterError, match="systems x topics DataFrame"):
        gawm.analyse(gawm_matrix.to_numpy(), progress=False)


# ------------------------------------------------------------------ innovation
@pytest.fixture(scope="module")
def innovation_small(small):
    campaign, _ = small
    params = innovation.InnovationParams(alphas=(0.0, 0.5, 1.0), stability_trials=30,
                                         systems_trials=4,
                                         sizes=(2, 4, 16), figure1_points=4, seed=5)
    return campaign, innovation.analyse(campaign, params, progress=False)


@pytest.mark.slow
def test_innovation_tables_match_the_library(innovation_small):
    from irmeta.stats import (
        alpha_sweep,
        fuzziness_stability,
        matrices,
        pairwise_tukey,
        system_dependence,
        tukey_hsd,
    )
    campaign, a = innovation_small
    ref = alpha_sweep(campaign, {"P@100": "P_rare(alpha={alpha})@100",
                                 "AP@100": "AP_rare(alpha={alpha})@100"},
                      alphas=[0, 0.5, 1], methods=("kendall", "tau_ap"), pvalues=True)
    pd.testing.assert_frame_equal(a.figure2, ref)
    assert list(a.figure2_wide["alpha"]) == [0.0, 0.5, 1.0]
    assert a.measures == ["P@100", "P_rare(alpha=0.5)@100", "P_rare(alpha=1)@100", "AP@100",
                          "AP_rare(alpha=0.5)@100", "AP_rare(alpha=1)@100"]
    mats = matrices(campaign, a.measures)
    t1 = a.table1.set_index("measure")
    for m in a.measures:
        assert t1.loc[m, "per-pair Tukey 95%"] == \
            pairwise_tukey(mats[m]).num_significant(0.05)
        assert t1.loc[m, "two-way Tukey HSD 99%"] == \
            tukey_hsd(mats[m], level=0.05).num_significant(0.01)
    assert t1.loc["AP_rare(alpha=0.5)@100", "alpha"] == 0.5
    assert a.pairs == 36
    best, count = a.most_discriminative()
    assert count == t1["per-pair Tukey 95%"].max() and t1.loc[best].iloc[1] == count
    t2 = a.table2.set_index("measure")
    st = fuzziness_stability(mats["AP_rare(alpha=1)@100"], trials=30, fuzziness=0.05, seed=5)
    assert t2.loc["AP_rare(alpha=1)@100", "stability"] == st.value
    assert t2.loc["P@100", "paper (DLT20)"] == 0.071
    sd = system_dependence(campaign, ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100"],
                           sizes=(2, 4, 16), trials=4, seed=5)
    pd.testing.assert_frame_equal(a.table3, sd)
    assert a.table3_skipped == [16] and list(a.table3_wide.columns) == ["measure", "N=2", "N=4"]


@pytest.mark.slow
def test_innovation_figure1_against_slow_reference(innovation_small):
    """The hypothetical system's P_rare on its topic, recomputed with the slow rarity
    loop of tests/context/reference.py on the campaign it joined."""
    campaign, a = innovation_small
    f1 = a.figure1
    assert a.figure1_topic == f1.attrs["topic"]
    assert a.figure1_topic == campaign.topics[innovation.figure1_topic(campaign, 100, 1)]
    qrels, rankings = _plain(campaign)
    tid = a.figure1_topic
    real = {r: {tid: docs[tid][:100]} for r, docs in rankings.items() if tid in docs}
    relevant = {d for d, g in qrels[tid].items() if g >= 1}
    counts = {}
    for docs in real.values():
        for d in docs[tid]:
            if d in relevant:
                counts[d] = counts.get(d, 0) + 1
    common = sorted(counts, key=lambda d: (-counts[d], d))
    for row in f1[f1.system == "S_common"].itertuples():
        runs = {**real, "S_hyp": {tid: common[:row.D]}}
        want = context_reference.p_rare(runs, qrels, "S_hyp", tid, 100, row.alpha)
        assert row.score == pytest.approx(want, abs=1e-12)
        others = [context_reference.p_rare(runs, qrels, r, tid, 100, row.alpha) for r in real]
        assert row.rank == 1 + sum(v > want + 1e-12 for v in others)
    S = len(real) + 1
    for row in f1[f1.system == "S_rare"].itertuples():    # retrieved by S_rare alone
        assert row.score == pytest.approx(row.D * (1 + row.alpha * (1 - 1 / S)) / 100)
    first = a.first_rank1()
    for alpha, d in first.items():
        sub = f1[(f1.system == "S_rare") & (f1.alpha == alpha)]
        assert sub[sub["rank"] == 1]["D"].min() == d
    assert list(a.figure1_ranks["D"]) == sorted(set(f1["D"]))


@pytest.mark.slow
def test_innovation_without_figure1(small):
    campaign, _ = small
    params = innovation.InnovationParams(alphas=(0.0, 1.0), stability_trials=5,
                                         systems_trials=2, sizes=(2,))
    a = innovation.analyse(campaign, params, figure1=False, progress=False)
    assert a.figure1 is None and a.figure1_topic is None and a.first_rank1() == {}
    assert "figure 1 (synthetic insertion)" not in a.timings


# ------------------------------------------------------------------ all four
def test_analyses_are_frozen_and_timed(nrg_table1, gawm_matrix):
    a = gawm.analyse(gawm_matrix, progress=False)
    for analysis in (nrg_table1, a):
        with pytest.raises(dataclasses.FrozenInstanceError):
            analysis.params = None
        assert all(w >= 0 and c >= 0 for w, c in analysis.timings.values())
    assert tuple(a.timings) == gawm.analysis.STEPS


@pytest.mark.slow
def test_reproduce_returns_its_analysis(tmp_path, gawm_matrix):
    """``reproduce`` is ``render(analyse(...))``: the page's tables are the analysis'."""
    r = gawm.reproduce(gawm_matrix, tmp_path / "g", name="toy", progress=False,
                       formats=("png",), dpi=30)
    assert isinstance(r.analysis, gawm.GAWMAnalysis)
    assert r.tables["table2"] is r.analysis.table2
    again = gawm.render(r.analysis, tmp_path / "h", progress=False, formats=("png",), dpi=30)
    for name in ("table2.tsv", "figure6.tsv", "figure4_scores.tsv", "parameters.tsv"):
        assert (tmp_path / "g" / "index_files" / name).read_bytes() == \
            (tmp_path / "h" / "index_files" / name).read_bytes()
    assert set(again.timings) >= set(gawm.analysis.STEPS) | {"render"}


@pytest.mark.slow
def test_analyse_writes_nothing_and_draws_nothing(tmp_path):
    """In a fresh interpreter, the four analyses import no matplotlib and leave the
    working folder empty."""
    code = """
import json, sys
import irmeta
from irmeta.demo import demo_paths
from irmeta.io.load import read_groups
from irmeta.reproduce import gawm, innovation, nrg, twist
p = demo_paths()
c = irmeta.load_campaign(p.qrels, [str(r) for r in p.runs]).select_runs(list(range(6)))
nrg.analyse(c, groups=read_groups(p.groups, c.runs), progress=False)
twist.analyse(c, twist.TwistParams(depth=100, discpower_trials=5, levels=(50,)), progress=False)
innovation.analyse(c, innovation.InnovationParams(alphas=(0.0, 1.0), stability_trials=5,
                   systems_trials=2,
                   sizes=(2,), figure1_points=2), progress=False)
gawm.analyse(irmeta.evaluate(c, measures=["AP"]).matrix(0), progress=False)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] == "matplotlib")))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])}
    out = python_output(code, cwd=tmp_path, env=env)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    assert list(tmp_path.iterdir()) == []



@pytest.mark.parametrize("paper, module, params, min_runs",
                         [("nrg", nrg, "NRGParams", 2), ("innovation", innovation,
                                                         "InnovationParams", 3),
                          ("twist", twist, "TwistParams", 3)])
def test_campaign_reproductions_check_their_campaign(paper, module, params, min_runs):
    """The checks the campaign reproductions share (``_common.checked_campaign``): a
    non-campaign, too few runs, and an empty campaign topic set are refused, each with the
    paper's name, before any work."""
    from irmeta.demo import toy_inputs
    from irmeta.errors import CampaignError, ParameterError
    from irmeta.reproduce import params as declared
    qrels, runs = toy_inputs()                      # two runs
    with pytest.raises(ParameterError, match=f"^reproduce {paper}: campaign must be a Campaign"):
        module.analyse({"not": "a campaign"}, progress=False)
    few = irmeta.load_campaign(qrels, dict(list(runs.items())[:min_runs - 1]))
    with pytest.raises(ParameterError, match=f"^reproduce {paper}: needs at least {min_runs} "
                                             f"runs, got {min_runs - 1}$"):
        module.analyse(few, progress=False)
    enough = irmeta.load_campaign(qrels, {f"R{i}": runs["A"] for i in range(min_runs)})
    with pytest.raises(CampaignError, match=f"^reproduce {paper}: "):
        module.analyse(enough, getattr(declared, params)(rel_level=3), progress=False)
