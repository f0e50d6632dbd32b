"""Bounds and invariants of the context measures over random campaigns (hypothesis
draws the campaign's seed, size and the measure parameters)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from irmeta.errors import CampaignError, MeasureError
from tests.context import reference as ref
from tests.quick import examples

SETTINGS = settings(max_examples=examples(25), deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
EPS = 1e-12

campaigns = st.builds(lambda seed, runs, topics: irmeta.load_campaign(
    *ref.random_campaign(seed, n_runs=runs, n_topics=topics)),
    st.integers(0, 10_000), st.integers(1, 7), st.integers(1, 5))


@SETTINGS
@given(campaigns, st.floats(0, 3), st.integers(1, 30), st.one_of(st.none(), st.integers(1, 30)))
def test_standard_bounds(campaign, alpha, k, depth):
    S = campaign.num_runs
    d = f",depth={depth}" if depth else ""
    v = irmeta.evaluate(campaign, measures=[f"P_rare(alpha={alpha!r}{d})@{k}",
                                            f"AP_rare(alpha={alpha!r}{d})@{k}",
                                            f"P@{k}", f"AP@{k}"]).values
    upper = 1 + alpha * (S - 1) / S
    assert np.all(v[:, :2] >= -EPS) and np.all(v[:, :2] <= upper + EPS)
    # rarity only adds: the rare variants dominate their classic counterparts
    assert np.all(v[:, 0] >= v[:, 2] - EPS) and np.all(v[:, 1] >= v[:, 3] - EPS)


@SETTINGS
@given(campaigns, st.floats(0, 1), st.integers(1, 30))
def test_normalized_in_unit_interval(campaign, alpha, k):
    v = irmeta.evaluate(campaign, measures=[f"P_rare(alpha={alpha!r},variant=normalized)@{k}",
                                            f"AP_rare(alpha={alpha!r},variant=normalized)@{k}",
                                            f"P@{k}", f"AP@{k}"]).values
    assert np.all(v[:, :2] >= -EPS) and np.all(v[:, :2] <= 1 + EPS)
    # the normalized variant never exceeds the classic measure
    assert np.all(v[:, 0] <= v[:, 2] + EPS) and np.all(v[:, 1] <= v[:, 3] + EPS)


@SETTINGS
@given(campaigns, st.sampled_from(["others", "earlier", "list"]),
       st.one_of(st.none(), st.integers(1, 30)), st.floats(0.05, 0.95))
def test_nrg_bounds(campaign, prior, k, p):
    cut = f"@{k}" if k else ""
    names = [f"NRG(prior={prior}){cut}", f"NRG(base=P,prior={prior}){cut}",
             f"NRG(base=RBP,p={p!r},prior={prior}){cut}", f"NRG(base=unique,prior={prior}){cut}",
             f"P(){cut}", f"RBP(p={p!r}){cut}", f"num_rel_ret{cut}"]
    v = irmeta.evaluate(campaign, measures=names, prior_runs=campaign.runs[:1]).values
    assert np.all(v[:, :4] >= -EPS)
    assert np.all(v[:, 0] <= 1 + EPS) and np.all(v[:, 1] <= 1 + EPS)
    # residual gains never exceed gains: NRG <= base for bases with a fixed N
    assert np.all(v[:, 1] <= v[:, 4] + EPS)
    assert np.all(v[:, 2] <= v[:, 5] + EPS)
    assert np.all(v[:, 3] <= v[:, 6] + EPS)
    assert np.array_equal(v[:, 3], np.round(v[:, 3]))


@SETTINGS
@given(campaigns, st.one_of(st.none(), st.integers(1, 30)))
def test_empty_prior_is_base_metric(campaign, k):
    cut = f"@{k}" if k else ""
    v = irmeta.evaluate(campaign, measures=[f"NRG(prior=list){cut}", f"nDCG{cut}",
                                            f"NRG(base=P,prior=list){cut}", f"P(){cut}",
                                            f"NRG(base=RBP,prior=list){cut}", f"RBP{cut}"],
                        prior_runs=()).values
    assert np.array_equal(v[:, 0], v[:, 1])
    assert np.array_equal(v[:, 2], v[:, 3])
    assert np.array_equal(v[:, 4], v[:, 5])


def test_single_run_campaign_others_is_base():
    campaign = irmeta.load_campaign(*ref.random_campaign(3, n_runs=1))
    v = irmeta.evaluate(campaign, measures=["NRG@10", "nDCG@10", "P_rare(alpha=1)@10",
                                            "P_rare(alpha=1,variant=normalized)@10",
                                            "P@10"]).values
    assert np.array_equal(v[:, 0], v[:, 1])
    assert np.array_equal(v[:, 2], v[:, 4])      # S = 1: R(d) = 0
    assert np.array_equal(v[:, 3], v[:, 4])      # S = 1: R'(d) = 1


# ------------------------------------------------------------------ errors
@pytest.fixture(scope="module")
def small():
    return irmeta.load_campaign(*ref.random_campaign(1, n_runs=3))


def test_best_per_group_names_missing_runs(small):
    with pytest.raises(CampaignError, match="run2"):
        irmeta.evaluate(small, measures=["NRG(prior=best_per_group)"],
                        groups={"run0": "a", "run1": "b"})
    with pytest.raises(CampaignError, match="groups"):
        irmeta.evaluate(small, measures=["NRG(prior=best_per_group)"])


def test_list_prior_needs_runs(small):
    with pytest.raises(CampaignError, match="prior_runs"):
        irmeta.evaluate(small, measures=["NRG(prior=list)"])
    with pytest.raises(CampaignError, match="nope"):
        irmeta.evaluate(small, measures=["NRG(prior=list)"], prior_runs=["nope"])


@pytest.mark.parametrize("bad", ["P_rare(alpha=1.5,variant=normalized)@10", "P_rare@10",
                                 "P_rare(alpha=-1)@10",
                                 "P_rare", "AP_rare(alpha=1)", "P_rare(variant=x)@10",
                                 "P_rare(depth=0)@10", "NRG(base=RBP,p=1)", "NRG(base=MRR)",
                                 "NRG(base=P,gain=exp)", "NRG(prior=best)"])
def test_bad_measures(bad):
    with pytest.raises(MeasureError):
        irmeta.parse_measure(bad)
