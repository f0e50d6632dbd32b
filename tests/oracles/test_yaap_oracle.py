"""yaap (trec_eval 10, outside all_trec): the kernel equals the one-document-at-a-time
definition (tests/oracles/trec_reference.py) bit for bit on random campaigns, and a
hand-worked example."""

from __future__ import annotations

import math

import pytest

import irmeta
from tests.oracles.classic_reference import trec_order
from tests.oracles.test_classic_oracle import random_campaign
from tests.oracles.trec_reference import yaap as reference
from tests.quick import sampled


@pytest.mark.parametrize("seed", sampled(range(6)))
@pytest.mark.parametrize("level", [1, 2])
def test_yaap_matches_reference(seed, level):
    qrels, runs = random_campaign(seed)
    res = irmeta.evaluate(qrels, runs, ["yaap", "yaap(rel=3)"], rel_level=level,
                          complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            assert res.values[r, 0, t] == reference(ranking, qrels[topic], level), (run, topic)
            assert res.values[r, 1, t] == reference(ranking, qrels[topic], 3), (run, topic)


def test_yaap_hand_worked():
    """Relevant at ranks 1 and 3 of 3 retrieved, N_R = 3 (one relevant not retrieved):
    S = 1/1 + 2/3 = 5/3, yaap = log((1 + 5/3) / (1 + 3 - 5/3)) = log(8/7); a topic without
    relevant documents scores log(1/1) = 0; the mean is arithmetic."""
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "z": 1}, "2": {"a": 0}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"a": 1.0}}
    res = irmeta.evaluate(qrels, run, ["yaap", "map"])
    assert res.values[0, 0, 0] == pytest.approx(math.log(8 / 7), abs=1e-15)
    assert res.values[0, 0, 1] == 0.0
    assert res.aggregate("mean").iloc[0, 0] == pytest.approx(math.log(8 / 7) / 2, abs=1e-15)
    # monotonic with AP on one topic: S = AP * N_R
    ap = res.values[0, 1, 0]
    assert ap == pytest.approx(5 / 9)
    assert irmeta.parse_measure("yaap")[0].display == "yaap"
    # -c: a qrels topic missing from the run scores log(1 / (1 + N_R)), as trec_eval 10's
    # placeholder ranking (one non-relevant document) does
    full = irmeta.evaluate({**qrels, "3": {"q": 1, "r": 2}}, run, ["yaap"], complete=True)
    assert full.values[0, 0, 2] == math.log(1 / 3)
    assert "yaap" not in [m.display for m in irmeta.parse_measure("all_trec")]
