"""``reproduce innovation``'s Figure 1 from one campaign of every hypothetical run (issue
27) against the per-evaluation reference: each hypothetical run scored with the real
runs by ``evaluate`` on a campaign built from the dicts, as before."""

from __future__ import annotations

import pandas as pd
import pytest

from irmeta.demo import load_demo_campaign
from irmeta.reproduce.innovation import analysis
from tests.quick import sampled


def per_evaluation_scores(qrels, runs, hyps, measures, rel_level):
    """The slow, obviously correct reference: one ``evaluate`` of the dicts per run."""
    from irmeta.evaluation import evaluate
    out = []
    for hyp in hyps:
        name = "S_hypothetical"
        while name in runs:
            name += "_"
        res = evaluate(qrels, {**runs, name: hyp}, measures=measures, rel_level=rel_level)
        h = list(res.matrix(0).index).index(name)
        scores = []
        for m in range(len(measures)):
            v = res.matrix(m).iloc[:, 0].to_numpy(dtype=float)
            scores.append(pd.concat([pd.Series(v).drop(h), pd.Series(v[h:h + 1])]).to_numpy())
        out.append(scores)
    return out


def _both(monkeypatch, campaign, **kwargs):
    fast = analysis.synthetic_insertion(campaign, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(analysis, "_hypothetical_scores", per_evaluation_scores)
        slow = analysis.synthetic_insertion(campaign, **kwargs)
    return fast, slow


@pytest.mark.parametrize("kwargs", sampled([{"alphas": (0.0, 0.3, 2.0), "points": 9, "topic": 3},
                                            {}, {"rel_level": 2, "k": 10}], keep=1))
def test_synthetic_insertion_equals_per_evaluation(monkeypatch, kwargs):
    campaign = load_demo_campaign()
    if "topic" in kwargs:
        kwargs = {**kwargs, "topic": campaign.topics[kwargs["topic"]]}
    fast, slow = _both(monkeypatch, campaign, **kwargs)
    assert len(fast) > 10
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
    assert fast.attrs == slow.attrs


@pytest.mark.slow
def test_synthetic_insertion_dl21_equals_per_evaluation(monkeypatch, dl21_campaign):
    fast, slow = _both(monkeypatch, dl21_campaign, points=12)
    pd.testing.assert_frame_equal(fast, slow, check_exact=True)
