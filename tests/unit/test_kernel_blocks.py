"""The kernel toolkit's one memory budget: topic blocking never changes a value.

Every registered measure is computed twice on a random campaign — once with the default
block budget, once with one topic per block — and must give bit-identical values. A new
measure that forgets to offset its topic slice, or keeps state across blocks, fails here.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import irmeta
from irmeta.measures import kernel, registry
from tests.oracles.test_classic_oracle import random_campaign
from tests.oracles.test_diversity_oracle import random_diversity

#: one parameterisation per family that needs more than its defaults
EXAMPLES = {
    "P_rare": "P_rare(alpha=0.5)@10", "AP_rare": "AP_rare(alpha=0.5)@10",
    "Success": "Success@5", "IPrec": "IPrec@0.5", "SDCG": "SDCG@10",
    "INST": "INST(T=2)", "Compat": "Compat(p=0.8)",
}


def _measure(name: str) -> str:
    if name in EXAMPLES:
        return EXAMPLES[name]
    definition = registry.get(name)
    return f"{name}@10" if definition.cutoff == "required" else name


def _every_measure() -> list[str]:
    return [_measure(d.name) for d in registry.all_measures()]


@functools.cache
def _campaign(diversity: bool) -> irmeta.Campaign:
    """One random campaign per kind, built once (a campaign is immutable)."""
    if diversity:
        frame, runs, _ = random_diversity(11, n_runs=4, n_topics=7, n_docs=30)
        return irmeta.load_campaign(None, runs, subtopic_qrels=frame)
    qrels, runs = random_campaign(11, n_runs=4, n_topics=7, n_docs=30)
    return irmeta.load_campaign(qrels, runs)


@pytest.mark.parametrize("measure", _every_measure())
def test_one_topic_per_block_gives_the_same_values(measure, monkeypatch):
    family = registry.get(measure.split("@")[0].split("(")[0]).family
    campaign = _campaign(family == "diversity")
    whole = irmeta.evaluate(campaign, measures=[measure], complete=True).values
    monkeypatch.setattr(kernel, "CELLS_PER_BLOCK", 1)
    blocked = irmeta.evaluate(campaign, measures=[measure], complete=True).values
    np.testing.assert_array_equal(whole, blocked)


def test_topic_blocks_cover_every_topic_once():
    blocks = list(kernel.topic_blocks(3, 10, 4, cells=25))
    assert blocks == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10)]
    assert list(kernel.topic_blocks(3, 2, 1000, cells=1)) == [(0, 1), (1, 2)]
    assert list(kernel.topic_blocks(3, 0, 4)) == []
