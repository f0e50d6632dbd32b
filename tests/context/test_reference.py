"""Fast kernels against the slow reference implementations (tests/context/reference.py)
on random campaigns with tied scores, short and missing rankings, unjudged documents and
negative grades."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import irmeta
from tests.context import reference as ref
from tests.quick import sampled

SEEDS = sampled(range(4), keep=1)
TOL = dict(rtol=1e-12, atol=1e-12)


@functools.cache
def _campaign(seed, **kw):
    """(qrels, campaign, rankings) of a random campaign, built once per seed (the tests
    only read them)."""
    qrels, runs = ref.random_campaign(seed, **kw)
    campaign = irmeta.load_campaign(qrels, runs)
    return qrels, campaign, ref.rankings_of(campaign)


def _matrix(campaign, fn):
    return np.array([[fn(run, topic) for topic in campaign.topics] for run in campaign.runs])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("measure,fn,kw", [
    ("P_rare(alpha=0.7)@10", ref.p_rare, dict(k=10, alpha=0.7)),
    ("P_rare(alpha=1,variant=normalized)@5", ref.p_rare,
     dict(k=5, alpha=1.0, variant="normalized")),
    ("P_rare(alpha=0.5,depth=3)@8", ref.p_rare, dict(k=8, alpha=0.5, depth=3)),
    ("P_rare(alpha=2,depth=40,rel=2)@6", ref.p_rare, dict(k=6, alpha=2.0, depth=40, level=2)),
    ("AP_rare(alpha=0.5)@10", ref.ap_rare, dict(k=10, alpha=0.5)),
    ("AP_rare(alpha=0.3,variant=normalized,depth=4)@12", ref.ap_rare,
     dict(k=12, alpha=0.3, variant="normalized", depth=4)),
    ("AP_rare(alpha=1)@100", ref.ap_rare, dict(k=100, alpha=1.0)),
])
def test_rareness_matches_reference(seed, measure, fn, kw):
    qrels, campaign, rankings = _campaign(seed)
    got = irmeta.evaluate(campaign, measures=[measure]).values[:, 0]
    want = _matrix(campaign, lambda r, t: fn(rankings, qrels, r, t, **kw))
    np.testing.assert_allclose(got, want, **TOL)


@pytest.mark.parametrize("seed", SEEDS)
def test_rareness_with_reference_set(seed):
    qrels, campaign, rankings = _campaign(seed)
    _, rruns = ref.random_campaign(seed + 100, n_runs=4)
    # same topics and document names: the reference runs are built against the same qrels
    reference = irmeta.load_campaign(qrels, rruns)
    ref_rankings = ref.rankings_of(reference)
    for measure, fn, kw in [("P_rare(alpha=0.8)@10", ref.p_rare, dict(k=10, alpha=0.8)),
                            ("AP_rare(alpha=1,variant=normalized,depth=5)@10", ref.ap_rare,
                             dict(k=10, alpha=1.0, variant="normalized", depth=5))]:
        got = irmeta.evaluate(campaign, measures=[measure], reference=reference).values[:, 0]
        want = _matrix(campaign, lambda r, t: fn(rankings, qrels, r, t,
                                                 reference=ref_rankings, **kw))
        np.testing.assert_allclose(got, want, **TOL)


NRG_CASES = [
    ("NRG@10", dict(k=10)),
    ("NRG", dict(k=None)),
    ("NRG(gain=exp)@5", dict(k=5, gain_kind="exp")),
    ("NRG(gain=binary,rel=2)@7", dict(k=7, gain_kind="binary", level=2)),
    ("NRG(base=P)@10", dict(base="P", k=10)),
    ("NRG(base=P)", dict(base="P", k=None)),
    ("NRG(base=RBP,p=0.6)@10", dict(base="RBP", k=10, p=0.6)),
    ("NRG(base=RBP,p=0.9)", dict(base="RBP", k=None, p=0.9)),
    ("NRG(base=unique)@5", dict(base="unique", k=5)),
    # bases declared as (gain, seen, normalisation) triples beyond the paper's four
    ("NRG(base=DCG)@10", dict(base="DCG", k=10)),
    ("NRG(base=DCG,gain=exp)", dict(base="DCG", k=None, gain_kind="exp")),
    ("NRG(base=RBP,gain=scaled,p=0.7)@10", dict(base="RBP", k=10, gain_kind="scaled", p=0.7)),
    ("NRG(base=RBP,gain=grade)", dict(base="RBP", k=None, gain_kind="grade")),
    ("NRG(gain=scaled)@5", dict(k=5, gain_kind="scaled")),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("prior", ["others", "earlier", "list", "best_per_group"])
@pytest.mark.parametrize("measure,kw", NRG_CASES)
def test_nrg_matches_reference(seed, prior, measure, kw):
    qrels, campaign, rankings = _campaign(seed)
    runs = list(campaign.runs)
    groups = {r: f"g{i % 2}" for i, r in enumerate(runs)}
    listed = runs[1::2] + runs[:1]
    name = (measure.replace("NRG(", f"NRG(prior={prior},", 1) if "(" in measure
            else measure.replace("NRG", f"NRG(prior={prior})", 1))
    got = irmeta.evaluate(campaign, measures=[name], groups=groups, prior_runs=listed).values[:, 0]
    level = kw.get("level", 1)
    topic_set = {t for t in campaign.topics if any(g >= level for g in qrels[t].values())}
    want = ref.nrg_all(rankings, qrels, campaign.topics, prior, groups=groups, listed=listed,
                       topic_set=topic_set, **kw)
    np.testing.assert_allclose(got, np.array([want[r] for r in runs]), **TOL)


def test_select_picks_each_groups_best_run_by_another_measure():
    """prior=best_per_group with select='P@3' equals prior=list with, for each run, the
    best run by P@3 of every other group (slow reference: means computed here)."""
    import numpy as np

    import irmeta
    qrels, runs = ref.random_campaign(4, n_runs=6)
    campaign = irmeta.load_campaign(qrels, runs)
    groups = {r: f"g{i % 3}" for i, r in enumerate(campaign.runs)}
    got = irmeta.evaluate(campaign, measures=["NRG(prior=best_per_group,select='P@3')@5"],
                          groups=groups).values[:, 0]
    p3 = irmeta.evaluate(campaign, measures=["P@3"], complete=True)
    keep = campaign.topic_set(1)
    means = p3.values[:, 0][:, keep].mean(axis=1)
    best = {}
    for r, run in enumerate(campaign.runs):
        if groups[run] not in best or means[r] > means[best[groups[run]]]:
            best[groups[run]] = r
    for r, run in enumerate(campaign.runs):
        priors = [campaign.runs[b] for g, b in best.items() if g != groups[run]]
        want = irmeta.evaluate(campaign, measures=["NRG(prior=list)@5"],
                               prior_runs=priors).values[r, 0]
        np.testing.assert_allclose(got[r], want, rtol=0, atol=1e-12)
    name = irmeta.evaluate(campaign, measures=["NRG(prior=best_per_group,select='P@3')"],
                           groups=groups).measures[0].name
    assert name == "NRG(prior=best_per_group,select='P@3')"      # parses back
