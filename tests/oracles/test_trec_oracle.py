"""The vectorised kernels of the trec_eval measures irmeta added equal slow reference
implementations (tests/oracles/trec_reference.py) on random campaigns: ties, unjudged
and pool-unjudged documents, missing topics, graded qrels, relevance levels, gains."""

from __future__ import annotations

import math

import pytest

import irmeta
from tests.oracles.classic_reference import trec_order
from tests.oracles.test_classic_oracle import random_campaign
from tests.oracles.trec_reference import measures as reference
from tests.quick import sampled

GAINS = {1: 1.0, 2: 5.0, 3: 2.0}

#: (irmeta measure string, reference key, reference keyword arguments)
CASES = [
    ("SetP", "SetP", {}), ("SetRelP", "SetRelP", {}), ("SetP(relative=true)", "SetRelP", {}),
    ("SetR", "SetR", {}), ("SetAP", "SetAP", {}), ("SetF", "SetF", {}),
    ("SetF(beta=0.5)", "SetF", {"beta": 0.5}), ("utility", "utility", {}),
    ("utility(coefficients=[2,-1,3,0.5],collection_size=500)", "utility",
     {"coefficients": (2, -1, 3, 0.5), "size": 500}),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret", {}),
    ("relative_P@5", "relative_P", {"cutoff": 5}), ("relative_P@30", "relative_P", {"cutoff": 30}),
    ("Rprec_mult@0.2", "Rprec_mult", {"mult": 0.2}), ("Rprec_mult@2", "Rprec_mult", {"mult": 2.0}),
    ("11pt_avg", "11pt_avg", {}), ("11pt_avg(levels=[0.25,0.5,0.75])", "11pt_avg",
                                   {"levels": [0.25, 0.5, 0.75]}),
    ("unj@5", "unj", {"cutoff": 5}), ("unj@50", "unj", {"cutoff": 50}),
    ("rbp_resid", "rbp_resid", {}), ("rbp_resid(p=0.5)", "rbp_resid", {"p": 0.5}),
    ("infAP", "infAP", {}), ("binG", "binG", {}),
    ("G", "G", {}), ("G(gains={1:1,2:5,3:2})", "G", {"gains": GAINS}),
    ("dcg", "dcg", {}), ("ideal_dcg(gains={1:1,2:5,3:2})", "ideal_dcg", {"gains": GAINS}),
    ("ndcg_rel", "ndcg_rel", {}), ("ndcg_rel(gains={1:1,2:5,3:2})", "ndcg_rel", {"gains": GAINS}),
    ("Rndcg", "Rndcg", {}), ("Rndcg(gains={1:1,2:5,3:2})", "Rndcg", {"gains": GAINS}),
    ("rbp", "rbp", {"top_gain": 3.0}),
    ("RBP(p=0.6,graded=true)", "rbp", {"p": 0.6, "top_gain": 3.0}),
]


@pytest.mark.parametrize("seed", sampled(range(6)))
@pytest.mark.parametrize("level", [1, 2])
def test_kernels_match_reference(seed, level):
    qrels, runs = random_campaign(seed)
    names = [c[0] for c in CASES]
    res = irmeta.evaluate(qrels, runs, names, rel_level=level, complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            for j, (name, key, kwargs) in enumerate(CASES):
                expected = reference(ranking, qrels[topic], level, **kwargs)[key]
                got = res.values[r, j, t]
                if math.isnan(expected):
                    assert math.isnan(got), (run, topic, name)
                else:
                    assert got == pytest.approx(expected, abs=1e-12), (run, topic, name)


@pytest.mark.parametrize("seed", sampled(range(3), keep=1))
def test_relstring_matches_reference(seed):
    qrels, runs = random_campaign(seed)
    res = irmeta.evaluate(qrels, runs, ["relstring", "relstring.25"], complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            for j, length in enumerate((10, 25)):
                expected = reference(ranking, qrels[topic], 1, length=length)["relstring"]
                assert res.text(j)[r][t] == expected
