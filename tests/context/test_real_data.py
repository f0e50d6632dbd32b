"""Context measures on the real campaigns (skipped when ../shared/data is absent):
alpha = 0 gives irmeta's own P@K and AP@K bit for bit; an empty prior set gives the base
metric; the explanation tables agree with the measures."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from irmeta.explain import explain_documents, unique_contributions

#: real data (DL21's 63 runs): the full suite's, not the quick loop's
pytestmark = [pytest.mark.shared_data, pytest.mark.slow]


def _values(campaign, measures, **kw):
    return irmeta.evaluate(campaign, measures=measures, **kw).values


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("k", [10, 100])
def test_alpha_zero_is_classic_dl21(dl21_campaign, level, k):
    v = _values(dl21_campaign, [f"P@{k}", f"P_rare(alpha=0)@{k}", f"AP@{k}",
                                f"AP_rare(alpha=0)@{k}",
                                f"P_rare(alpha=0,variant=normalized)@{k}",
                                f"AP_rare(alpha=0,variant=normalized,depth=5)@{k}"],
                rel_level=level)
    assert np.array_equal(v[:, 0], v[:, 1])
    assert np.array_equal(v[:, 2], v[:, 3])
    assert np.array_equal(v[:, 0], v[:, 4])
    assert np.array_equal(v[:, 2], v[:, 5])


@pytest.mark.parametrize("k", [10, 100, 1000])
def test_alpha_zero_is_classic_ehealth(ehealth_campaign, k):
    v = _values(ehealth_campaign, [f"P@{k}", f"P_rare(alpha=0)@{k}", f"AP@{k}",
                                   f"AP_rare(alpha=0)@{k}"])
    assert np.array_equal(v[:, 0], v[:, 1])
    assert np.array_equal(v[:, 2], v[:, 3])


def test_alpha_changes_dl21(dl21_campaign):
    """Not vacuous: rarity changes the scores, and more alpha rewards more."""
    v = _values(dl21_campaign, ["P_rare(alpha=0)@100", "P_rare(alpha=0.5)@100",
                                "P_rare(alpha=1)@100"])
    assert np.all(v[:, 1] >= v[:, 0]) and np.all(v[:, 2] >= v[:, 1])
    assert np.any(v[:, 2] > v[:, 0])


@pytest.mark.parametrize("campaign_name", ["dl21_campaign", "ehealth_campaign"])
@pytest.mark.parametrize("nrg,base", [("NRG(prior=list)@10", "nDCG@10"),
                                      ("NRG(prior=list)", "nDCG"),
                                      ("NRG(base=P,prior=list)@10", "P@10"),
                                      ("NRG(base=P,prior=list)", "P()"),  # P: trec_eval's
                                      ("NRG(base=RBP,p=0.8,prior=list)@20", "RBP(p=0.8)@20"),
                                      ("NRG(base=unique,prior=list)@10", "num_rel_ret@10")])
def test_empty_prior_is_base(request, campaign_name, nrg, base):
    campaign = request.getfixturevalue(campaign_name)
    v = _values(campaign, [nrg, base], prior_runs=())
    assert np.array_equal(v[:, 0], v[:, 1])


def test_first_run_earlier_is_base(dl21_campaign):
    v = _values(dl21_campaign, ["NRG(prior=earlier)@10", "nDCG@10"])
    assert np.array_equal(v[0, 0], v[0, 1])
    assert not np.array_equal(v[1:, 0], v[1:, 1])


def test_unique_contributions_match_nrg_unique(dl21_campaign):
    v = _values(dl21_campaign, ["NRG(base=unique)@10"], rel_level=2)[:, 0]
    table = unique_contributions(dl21_campaign, 10, rel_level=2)
    assert table["unique"].tolist() == v.sum(axis=1).astype(int).tolist()
    per_topic = unique_contributions(dl21_campaign, 10, rel_level=2, per_topic=True)
    assert per_topic["unique"].to_numpy().reshape(v.shape).tolist() == v.astype(int).tolist()
    assert table["unique"].sum() > 0


def test_explanation_adds_up_to_scores(dl21_campaign):
    """P_rare from the explanation's rarity column, NRG@10 (prior=others) from its
    residual gains: the same numbers evaluate prints."""
    run = "p_bm25"
    r = dl21_campaign.run_index(run)
    v = irmeta.evaluate(dl21_campaign, measures=["P_rare(alpha=0.5)@100", "NRG(base=P)@10"])
    docs = explain_documents(dl21_campaign, run, k=100, nrg="NRG(base=P)@10")
    for t, topic in enumerate(dl21_campaign.topics):
        rows = docs[docs["topic"] == topic]
        if not len(rows):
            continue
        p_rare = (1 + 0.5 * rows["rarity"]).sum() / 100
        assert p_rare == pytest.approx(v.values[r, 0, t], abs=1e-12)
        top10 = rows[rows["rank"] <= 10]
        assert top10["residual_gain"].sum() / 10 == pytest.approx(v.values[r, 1, t], abs=1e-12)
        assert (rows["retrieved_by"] >= 1).all() and (rows["retrieved_by"] <= 63).all()
