"""Quick tests of each reproduction's ``analyse`` (issue 23, item 5) on the 5 x 8 campaign
of ``tests/report/tiny.py``: every run retrieves the six judged documents of every topic
(so no document is rare or unique, P@10 is a constant) and ``ideal`` ranks them
perfectly. The values below follow from that by hand; ``test_analysis.py`` checks the
same analyses at scale against the library and slow references."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from irmeta.reproduce import gawm, innovation, nrg, twist
from tests.report import tiny


@pytest.fixture(scope="module")
def campaign():
    return tiny.campaign()


def test_nrg_analysis(campaign):
    a = nrg.analyse(campaign, progress=False)
    v = a.values
    assert list(v.index) == tiny.RUNS and not a.groups_given and a.num_groups == 5
    for run in tiny.RUNS:
        assert v.loc[run, "nDCG@10"] == pytest.approx(tiny.mean(tiny.ndcg10, run), abs=1e-12)
    # the first run has no earlier run: its NRG is its nDCG; the last run's earlier runs
    # are all the others
    assert v.loc["ideal", "NRG earlier@10"] == 1.0
    assert v.loc["r4", "NRG earlier@10"] == v.loc["r4", "NRG others@10"]
    # no relevant document is new to any run: nothing unique, no residual binary gain
    assert (v["unique to the pool@10 (sum)"] == 0).all()
    assert (v["unique best_per_group@10"] == 0).all() and (v["NRG(P) best_per_group@10"] == 0).all()
    # Kendall's tau and Pearson's r with a measure constant over the runs: NaN
    c = a.correlations.set_index("measure")
    for constant in ("NRG(P) best_per_group@10", "unique best_per_group@10", "P_rare@10"):
        assert c.loc[constant, ["Kendall τ with nDCG@10", "p (τ)", "Pearson r"]].isna().all()
    assert c["Kendall τ with nDCG@10"].drop(["NRG(P) best_per_group@10",
                                              "unique best_per_group@10",
                                              "P_rare@10"]).between(-1, 1).all()


def test_twist_analysis(campaign):
    params = twist.TwistParams(depth=6, discpower_trials=40, levels=(50,), gains=("AP", "nDCG"))
    a = twist.analyse(campaign, params, progress=False)
    row = a.table2.loc["this campaign"]
    assert row["total"] == 35                               # 5 runs x 7 topics
    assert row["ideal"] == pytest.approx(100 * 7 / 35)      # the ideal run's 7 curves
    curves = a.table2_curves.set_index("run")
    assert (curves.loc["ideal", "archetype"] == "ideal").all()
    # Tables 3-4 and Figures 13-14 keep the best 75 % by MAP: r1 (lowest MAP) is left out
    assert a.kept_runs == ("ideal", "r2", "r3", "r4")
    assert a.means.loc["ideal", "Twist@6"] == 1.0
    assert a.means["Twist@6"].between(0, 1).all()
    np.testing.assert_allclose(a.means.loc[list(a.kept_runs), "AP"],
                               [tiny.mean(tiny.ap, r) for r in a.kept_runs], atol=1e-12)
    assert set(a.grids) == {"AP", "nDCG"}


def test_gawm_analysis(campaign):
    matrix = irmeta.evaluate(campaign, measures=["AP"]).matrix(0)
    assert matrix.shape == (5, 7)
    a = gawm.analyse(matrix, name="tiny", progress=False)
    ws = a.weights_systems
    assert list(ws["system"])[0] == "ideal" and list(ws["MAP"]) == sorted(ws["MAP"],
                                                                          reverse=True)
    np.testing.assert_allclose(ws.set_index("system").loc[tiny.RUNS, "MAP"],
                               [tiny.mean(tiny.ap, r) for r in tiny.RUNS], atol=1e-12)
    t2 = a.table2.loc["tiny"]
    assert (t2["systems"], t2["topics"]) == (5, 7) and bool(t2["converged"])
    assert a.score_range == (matrix.to_numpy().min(), 1.0)
    assert a.heatmap_not_converged == []


def test_innovation_analysis(campaign):
    params = innovation.InnovationParams(cutoff=10, alphas=(0.0, 0.5, 1.0), stability_trials=10,
                                         systems_trials=4, sizes=(2, 4))
    a = innovation.analyse(campaign, params, figure1=False, progress=False)
    assert a.figure1 is None and a.first_rank1() == {}
    f2 = a.figure2.set_index("measure")
    # every relevant document is retrieved by every run: rarity weighs them all alike,
    # so AP_rare orders the runs as AP does; P@10 is constant, so its tau is NaN
    for alpha in ("0", "0.5", "1"):
        assert f2.loc[f"AP_rare(alpha={alpha})@10", "kendall"] == pytest.approx(1.0)
        assert np.isnan(f2.loc[f"P_rare(alpha={alpha})@10", "kendall"])
    t1 = a.table1.set_index("measure")
    assert (t1.loc["P@10"].drop("alpha") == 0).all()            # nothing to separate
    t3 = a.table3
    assert (t3[t3["measure"].str.startswith("P_rare")]["undefined"] == 4).all()
    assert np.allclose(t3[t3["measure"].str.startswith("AP_rare")]["tau"], 1.0)
