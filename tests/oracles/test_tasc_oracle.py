"""TaSC (irmeta.measures.tasc) equals the slow, script-shaped reference on random
campaigns (every prior set) and on the 63 DL21 runs with the paper's prior set."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import irmeta
from tests.context.reference import random_campaign, rankings_of
from tests.oracles import tasc_reference as ref
from tests.quick import sampled

ROOT = Path(__file__).resolve().parents[2]


def _check(campaign, qrels, k, kind, groups=None, listed=None):
    name = "TaSC" + (f"(prior={kind})" if kind != "others" else "") + (f"@{k}" if k else "")
    got = irmeta.evaluate(campaign, measures=[name], complete=True, groups=groups,
                          prior_runs=listed).values[:, 0]
    topic_set = [t for i, t in enumerate(campaign.topics) if campaign.topic_set(1)[i]]
    want = ref.tasc(rankings_of(campaign), qrels, k, kind, groups, listed, topic_set)
    expected = np.array([[want[r][t] for t in campaign.topics] for r in campaign.runs])
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    return got


@pytest.mark.parametrize("seed", sampled(range(6), keep=1))
@pytest.mark.parametrize("kind", ["others", "earlier", "list", "best_per_group"])
@pytest.mark.parametrize("k", [None, 5])
def test_tasc_matches_reference(seed, kind, k):
    qrels, runs = random_campaign(seed)
    campaign = irmeta.load_campaign(qrels, runs)
    groups = {r: f"g{i % 3}" for i, r in enumerate(campaign.runs)}
    listed = list(campaign.runs[::2])
    _check(campaign, qrels, k, kind, groups, listed)


def test_empty_prior_is_ndcg_and_a_perfect_prior_zeroes_it():
    qrels = {"q": {"a": 2, "b": 1}}
    runs = {"good": {"q": {"a": 2.0, "b": 1.0}}, "other": {"q": {"b": 2.0, "a": 1.0}}}
    campaign = irmeta.load_campaign(qrels, runs)
    res = irmeta.evaluate(campaign, measures=["TaSC(prior=earlier)@10", "nDCG@10", "TaSC@10"])
    values = res.values[:, :, 0]
    assert values[0, 0] == values[0, 1]            # the first run has no prior: nDCG
    assert values[1, 0] == 0.0                     # 'good' is ideal: nothing left to cover
    assert values[0, 2] == pytest.approx((1 - values[1, 1]) * values[0, 1])


@pytest.mark.slow
@pytest.mark.shared_data
def test_tasc_matches_reference_on_dl21(dl21, dl21_campaign):
    spec = importlib.util.spec_from_file_location("dl21_groups",
                                                  ROOT / "scripts" / "dl21_groups.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    groups = {r: module.group_of(r) for r in dl21_campaign.runs}
    qrels_path, _ = dl21
    qrels: dict[str, dict[str, int]] = {}
    for line in Path(qrels_path).read_text().splitlines():
        topic, _, doc, grade = line.split()
        qrels.setdefault(topic, {})[doc] = int(grade)
    got = _check(dl21_campaign, qrels, 10, "best_per_group", groups)
    assert got.shape == (63, dl21_campaign.num_topics) and np.any(got > 0)
