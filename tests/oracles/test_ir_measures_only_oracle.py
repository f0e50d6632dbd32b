"""The ir_measures-only measures (Judged, ERR, nERR, SDCG, INST, INSQ, Compat) equal slow
references written from their definitions on random campaigns (ties, unjudged documents,
missing topics, graded and negative grades), and ir_measures' own providers (judged,
gdeval, cwl_eval, compat) on random campaigns and on DL21.

ir_measures' providers break score ties differently from trec_eval (judged, compat,
pyndeval: document id ascending; cwl_eval: file order), so the provider comparisons hand
them the rankings in irmeta's order with strictly decreasing positive scores: what is
compared is the measure, not the tie-breaking (docs/measures-ir_measures.md)."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import irmeta
from irmeta.errors import MeasureError
from tests.oracles import ir_measures_reference as ref
from tests.oracles.classic_reference import trec_order
from tests.oracles.test_classic_oracle import random_campaign
from tests.quick import sampled


def _reference(name: str, ranking, judged, cutoff):
    return {
        "Judged": lambda: ref.judged_at(ranking, judged, cutoff),
        "ERR": lambda: ref.err(ranking, judged, cutoff),
        "ERR(max_rel=5)": lambda: ref.err(ranking, judged, cutoff, max_rel=5),
        "nERR": lambda: ref.nerr(ranking, judged, cutoff),
        "SDCG": lambda: ref.sdcg(ranking, judged, cutoff or 10),
        "SDCG(min_rel=1,max_rel=2)": lambda: ref.sdcg(ranking, judged, cutoff or 10, 1, 2),
        "INST": lambda: ref.inst(ranking, judged),
        "INST(T=2.5)": lambda: ref.inst(ranking, judged, T=2.5),
        "INSQ(T=0.5,max_rel=2)": lambda: ref.insq(ranking, judged, T=0.5, max_rel=2),
        "Compat": lambda: ref.compat(ranking, judged),
        "Compat(p=0.7,normalize=false)": lambda: ref.compat(ranking, judged, 0.7, False),
    }[name]()


CUTOFF = ["Judged", "ERR", "ERR(max_rel=5)", "nERR", "SDCG", "SDCG(min_rel=1,max_rel=2)"]
WHOLE = ["INST", "INST(T=2.5)", "INSQ(T=0.5,max_rel=2)", "Compat",
         "Compat(p=0.7,normalize=false)"]


@pytest.mark.parametrize("seed", sampled(range(6)))
@pytest.mark.parametrize("cutoff", [None, 1, 5, 30])
def test_kernels_match_the_slow_reference(seed, cutoff):
    qrels, runs = random_campaign(seed)
    names = [n + (f"@{cutoff}" if cutoff else "") for n in CUTOFF
             if cutoff or not n.startswith("SDCG")]
    names += [n for n in WHOLE if cutoff is None]
    if cutoff is None:
        names += ["SDCG@10", "SDCG(min_rel=1,max_rel=2)@10"]
    res = irmeta.evaluate(qrels, runs, names, complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            for j, name in enumerate(names):
                base = name.split("@")[0]
                want = _reference(base, ranking, qrels[topic], cutoff)
                assert res.values[r, j, t] == pytest.approx(want, abs=1e-12), (run, topic, name)


def _provider_values(qrels: dict, campaign, r: int, measure: str) -> dict[str, float]:
    """ir_measures' per-topic values of one run, given irmeta's order as scores."""
    ir_measures = pytest.importorskip("ir_measures")
    logging.getLogger("ir_measures.cwl_eval").disabled = True
    run = {topic: {d: float(5000 - i) for i, d in enumerate(campaign.ranking(r, t))}
           for t, topic in enumerate(campaign.topics) if campaign.length[r, t]}
    parsed = ir_measures.parse_measure(measure)
    return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrels, run)}


#: (irmeta name, ir_measures name, tolerance): gdeval prints 5 decimals
PROVIDER = [("Judged@10", "Judged@10", 0), ("Judged", "Judged", 0),
            ("ERR@20", "ERR@20", 5.1e-6), ("ERR@5", "ERR@5", 5.1e-6),
            ("INST(T=3)", "INST(T=3.0,max_rel=3)", 1e-12),
            ("INSQ(T=2,min_rel=1)", "INSQ(T=2.0,min_rel=1,max_rel=3)", 1e-12),
            ("SDCG@10", "SDCG(max_rel=3)@10", 1e-12),
            ("Compat", "Compat", 1e-12), ("Compat(p=0.8,normalize=False)",
                                          "Compat(p=0.8,normalize=False)", 1e-12)]


def _numeric_topics(qrels, runs):
    """gdeval reads numeric topic ids only."""
    ids = {t: str(100 + i) for i, t in enumerate(sorted(qrels))}
    return ({ids[t]: v for t, v in qrels.items()},
            {name: {ids[t]: v for t, v in run.items()} for name, run in runs.items()})


@pytest.mark.parametrize("seed", sampled(range(4), keep=1))
def test_equal_to_ir_measures_providers(seed):
    qrels, runs = _numeric_topics(*random_campaign(seed))
    campaign = irmeta.load_campaign(qrels, runs)
    res = irmeta.evaluate(campaign, measures=[m for m, _, _ in PROVIDER], complete=True)
    compared = 0
    for r in range(campaign.num_runs):
        for j, (_, theirs, tol) in enumerate(PROVIDER):
            got = _provider_values(qrels, campaign, r, theirs)
            for t, topic in enumerate(campaign.topics):
                if campaign.length[r, t] == 0:
                    continue
                assert res.values[r, j, t] == pytest.approx(got[topic], abs=tol), \
                    (campaign.runs[r], topic, theirs)
                compared += 1
    assert compared > 100


@pytest.mark.slow
def test_equal_to_ir_measures_on_dl21(dl21, dl21_campaign):
    """Every DL21 run, per topic (Compat, whose provider is quadratic in the depth, on
    the first 8 runs)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {}
    for q in ir_measures.read_trec_qrels(str(dl21[0])):
        qrels.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    campaign = dl21_campaign
    res = irmeta.evaluate(campaign, measures=[m for m, _, _ in PROVIDER])
    for r in range(campaign.num_runs):
        for j, (_, theirs, tol) in enumerate(PROVIDER):
            if theirs.startswith("Compat") and r >= 8:
                continue
            got = _provider_values(qrels, campaign, r, theirs)
            for t, topic in enumerate(campaign.topics):
                if res.evaluated[r, t]:
                    assert res.values[r, j, t] == pytest.approx(got[topic], abs=tol), \
                        (campaign.runs[r], topic, theirs)


@pytest.mark.slow
def test_equal_to_ir_measures_on_ehealth(ehealth, ehealth_campaign):
    """Every CLEF eHealth 2016 run and topic (grades 0-2)."""
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {}
    for q in ir_measures.read_trec_qrels(str(ehealth[0])):
        qrels.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    measures = [("Judged@10", "Judged@10", 0), ("ERR@20", "ERR@20", 5.1e-6),
                ("INST(T=3)", "INST(T=3.0,max_rel=2)", 1e-12),
                ("INSQ(T=3)", "INSQ(T=3.0,max_rel=2)", 1e-12),
                ("SDCG@10", "SDCG(max_rel=2)@10", 1e-12), ("Compat", "Compat", 1e-12)]
    campaign = ehealth_campaign
    res = irmeta.evaluate(campaign, measures=[m for m, _, _ in measures])
    for r in range(campaign.num_runs):
        for j, (_, theirs, tol) in enumerate(measures):
            got = _provider_values(qrels, campaign, r, theirs)
            for t, topic in enumerate(campaign.topics):
                if res.evaluated[r, t]:
                    assert res.values[r, j, t] == pytest.approx(got[topic], abs=tol), \
                        (campaign.runs[r], topic, theirs)


def test_err_grade_above_max_rel_is_refused():
    qrels = {"1": {"a": 5, "b": 1}}
    run = {"r": {"1": {"a": 1.0}}}
    with pytest.raises(MeasureError, match="max_rel=5"):
        irmeta.evaluate(qrels, run, ["ERR@10"])
    value = irmeta.evaluate(qrels, run, ["ERR(max_rel=5)@10"]).values[0, 0, 0]
    assert value == pytest.approx(31 / 32)


def test_judged_on_an_empty_ranking_is_zero():
    qrels = {"1": {"a": 1}, "2": {"b": 0}}
    res = irmeta.evaluate(qrels, {"r": {"1": {"a": 1.0, "x": 0.5}}}, ["Judged@10"],
                          complete=True)
    np.testing.assert_array_equal(res.values[0, 0], [0.5, 0.0])


@pytest.mark.parametrize("bad", ["INST(T=0)", "INST(min_rel=2,max_rel=2)", "Compat(p=1)",
                                 "SDCG", "SDCG(dcg=ln)@10", "Judged(rel=1)"])
def test_bad_parameters_are_measure_errors(bad):
    with pytest.raises(MeasureError):
        irmeta.evaluate({"1": {"a": 1}}, {"r": {"1": {"a": 1.0}}}, [bad])


def test_evaluate_accepts_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, runs = random_campaign(1)
    objects = [ir_measures.ERR @ 20, ir_measures.Judged @ 10, ir_measures.AP(rel=2),
               ir_measures.INST(T=3, max_rel=3), ir_measures.Compat(p=0.8, normalize=False)]
    res = irmeta.evaluate(qrels, runs, objects)
    strings = irmeta.evaluate(qrels, runs, ["ERR@20", "Judged@10", "AP(rel=2)",
                                            "INST(T=3,max_rel=3)",
                                            "Compat(p=0.8,normalize=false)"])
    np.testing.assert_array_equal(res.values, strings.values)
    one = irmeta.evaluate(qrels, runs, ir_measures.Judged @ 10)
    assert one.names == ["Judged@10"]
