"""Every all_trec measure pytrec_eval-terrier computes (trec_eval 9.x inside) equals
irmeta's per topic on random campaigns — relevance levels 1 and 2, with and without -J
(``judged_docs_only_flag``): ties, unjudged and negative-grade documents, missing topics,
graded qrels. Not compared: ``iprec_at_recall`` and ``11pt_avg`` (trec_eval 10 rounds their
recall levels differently from 9.x), ``relstring`` (text), ``gm_map``/``gm_bpref`` (9.x
reports log values per topic), ``runid``."""

from __future__ import annotations

import pytest

import irmeta
from irmeta.measures.parse import trec_nicknames
from tests.oracles.test_classic_oracle import random_campaign

pytrec_eval = pytest.importorskip("pytrec_eval")

SKIP = ("iprec_at_recall", "11pt_avg", "relstring", "gm_map", "gm_bpref", "runid")


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_all_trec_equals_pytrec_eval(seed, level, judged_only):
    qrels, runs = random_campaign(seed, n_runs=1)
    run = runs["run0"]
    names = [n for n in trec_nicknames()["all_trec"]
             if n in pytrec_eval.supported_measures and n not in SKIP]
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(names), relevance_level=level,
                                               judged_docs_only_flag=judged_only)
    expected = evaluator.evaluate(run)
    keys = sorted(next(iter(expected.values())))
    res = irmeta.evaluate(qrels, run, keys, rel_level=level, judged_only=judged_only)
    assert res.names == keys
    compared = 0
    for t, topic in enumerate(res.topics):
        if topic not in expected:
            continue
        for j, key in enumerate(keys):
            compared += 1
            assert res.values[0, j, t] == pytest.approx(expected[topic][key], abs=1e-12), (
                topic, key)
    assert compared > 300
