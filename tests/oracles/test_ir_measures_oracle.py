"""The ir_measures names of the trec family equal ir_measures' values (its pytrec_eval
provider for most, as ir_measures picks it) per topic on random campaigns: ties, unjudged
and negative-grade documents, missing topics, graded qrels."""

from __future__ import annotations

import math

import pytest

import irmeta
from tests.oracles.test_classic_oracle import random_campaign

ir_measures = pytest.importorskip("ir_measures")

NAMES = [
    "AP", "AP@10", "MRR", "P@5", "Precision@10", "R@10", "Recall@100",
    "nDCG@10", "nDCG", "NumQ", "NumRel", "NumRet", "NumRelRet", "NumRet(rel=2)",
    "SetP", "SetR", "SetF", "SetF(beta=0.5)", "SetAP", "SetRelP", "SetP(relative=True)",
    "infAP", "IPrec@0.0", "IPrec@1.0", "Rprec", "Success@5", "Bpref", "P(rel=2)@10",
    "P(judged_only=True)@10", "nDCG(judged_only=True)@10", "AP(judged_only=True)",
    "SetP(judged_only=True)", "nDCG(gains={0:0,1:1,2:5,3:2})@20",
]
#: irmeta spelling where it differs from ir_measures'
IRMETA = {"Bpref": "bpref", "SetP(relative=True)": "SetP(relative=true)",
          "P(judged_only=True)@10": "P(judged_only=true)@10",
          "nDCG(judged_only=True)@10": "nDCG(judged_only=true)@10",
          "AP(judged_only=True)": "AP(judged_only=true)",
          "SetP(judged_only=True)": "SetP(judged_only=true)"}


def _oracle(qrels, run, names):
    parsed = [ir_measures.parse_measure(n) for n in names]
    out = {}
    # pytrec_eval's provider named explicitly: ir_measures' default pipeline picks the
    # first provider that can compute a measure, and which one it picks for the counts
    # changed once another test of the session had used other providers (NumRet differed)
    for metric in ir_measures.pytrec_eval.iter_calc(parsed, qrels, run):
        out[(str(metric.measure), metric.query_id)] = metric.value
    return parsed, out


@pytest.mark.parametrize("seed", range(5))
def test_values_equal_ir_measures(seed):
    qrels, runs = random_campaign(seed, n_runs=1)
    run = runs["run0"]
    res = irmeta.evaluate(qrels, run, [IRMETA.get(n, n) for n in NAMES])
    parsed, expected = _oracle(qrels, run, NAMES)
    compared = 0
    for j, m in enumerate(parsed):
        for t, topic in enumerate(res.topics):
            if not res.evaluated[0, t] or (str(m), topic) not in expected:
                continue
            want = expected[(str(m), topic)]
            got = res.values[0, j, t]
            compared += 1
            assert (math.isnan(want) and math.isnan(got)) or got == pytest.approx(
                want, abs=1e-9), (NAMES[j], topic, got, want)
    assert compared > 100


@pytest.mark.parametrize("names,complete", [
    (["MAP", "P@5", "nDCG@10", "SetF", "infAP"], True),  # means: over every qrels topic
    (["NumRel", "NumRet", "NumRelRet"], False)])         # sums: over the run's topics
def test_ir_measures_aggregates(names, complete):
    """ir_measures averages over every qrels topic (a topic missing from the run counts
    0, as ``complete=True`` / trec_eval -c); its sums cover the run's topics."""
    qrels, runs = random_campaign(9, n_runs=1)
    res = irmeta.evaluate(qrels, runs["run0"], names, complete=complete)
    want = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels,
                                      runs["run0"])
    for j, name in enumerate(names):
        assert res.means[0, j] == pytest.approx(want[ir_measures.parse_measure(name)], abs=1e-9)


@pytest.mark.parametrize("alias,name", [("MAP", "AP"), ("MRR", "RR"), ("Precision@10", "P@10"),
                                        ("Recall@10", "R@10"), ("NumQ", "num_q"),
                                        ("NumRel", "num_rel"), ("NumRelRet", "num_rel_ret"),
                                        ("NumRet", "num_ret")])
def test_aliases_are_the_same_measure(alias, name):
    assert irmeta.parse_measure(alias) == irmeta.parse_measure(name)


def test_ir_measures_objects_are_accepted():
    from ir_measures import AP, IPrec, P, SetF, SetRelP, nDCG
    qrels, runs = random_campaign(3, n_runs=1)
    objects = [AP, P(judged_only=True) @ 10, SetF(beta=0.5), IPrec @ 0.5, SetRelP,
               nDCG(dcg="exp-log2") @ 10, nDCG(gains={0: 0, 1: 1, 2: 3}) @ 5]
    strings = ["AP", "P(judged_only=true)@10", "SetF(beta=0.5)", "IPrec@0.5", "SetRelP",
               "nDCG(dcg=exp-log2)@10", "nDCG(gains={0:0,1:1,2:3})@5"]
    a = irmeta.evaluate(qrels, runs["run0"], objects)
    b = irmeta.evaluate(qrels, runs["run0"], strings)
    assert (a.values == b.values).all()  # ir_measures' SetRelP is SetP(relative=True)
    assert irmeta.evaluate(qrels, runs["run0"], AP).names == ["AP"]
