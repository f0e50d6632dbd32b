"""ir_measures measure objects and result exports (issue 25, items 2 and 4)."""

from __future__ import annotations

import math

import pytest

import irmeta
from irmeta.errors import MeasureError, ParameterError
from irmeta.measures.parse import parse_measures

ir_measures = pytest.importorskip("ir_measures")

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}, "q3": {"d6": 0}}
RUNS = {"A<b>": {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}},
        "B": {"q1": {"d2": 3.0, "d3": 2.0}, "q2": {"d5": 1.0}, "q3": {"d6": 1.0}}}

#: ir_measures object -> the irmeta string naming the same measure
SAME = [
    ("nDCG@10", "nDCG@10"), ("AP(rel=2)", "AP(rel=2)"), ("P(rel=2)@10", "P(rel=2)@10"),
    ("RR@10", "RR@10"), ("AP", "map"), ("P@5", "P_5"), ("nDCG", "ndcg"), ("R@100", "recall_100"),
    ("Bpref", "bpref"), ("Rprec", "Rprec"), ("infAP", "infAP"), ("IPrec@0.5", "IPrec@0.5"),
    ("Success@10", "success_10"), ("SetF(beta=0.5)", "SetF(beta=0.5)"),
    ("NumRet(rel=1)", "NumRet(rel=1)"),
    ("NumQ", "num_q"), ("NumRel", "num_rel"), ("NumRelRet", "NumRet(rel=1)"),
    ("nDCG(dcg='exp-log2')@10", "nDCG(dcg=exp-log2)@10"),
    ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
    ("AP(judged_only=True)", "AP(judged_only=true)"), ("ERR@20", "ERR@20"),
    ("Judged@10", "Judged@10"), ("alpha_nDCG@10", "alpha_nDCG@10"), ("MAP", "AP"),
    ("MRR", "RR"), ("NDCG@10", "nDCG@10"), ("BPref", "bpref"),
]
#: ir_measures objects with no irmeta equivalent, and the reason given
REFUSED = [("NERR8@10", "unknown measure 'NERR8'"), ("Accuracy", "unknown measure 'Accuracy'"),
           ("BPM(T=100,min_rel=1)", "unknown measure 'BPM'")]


@pytest.mark.parametrize("name,irmeta_name", SAME)
def test_object_is_the_same_measure(name, irmeta_name):
    obj = ir_measures.parse_measure(name)
    assert parse_measures([obj]) == parse_measures([irmeta_name])


def test_object_values_equal_the_string():
    objs = [ir_measures.parse_measure(n) for n, _ in SAME[:12]]
    by_obj = irmeta.evaluate(QRELS, RUNS, objs)
    by_str = irmeta.evaluate(QRELS, RUNS, [s for _, s in SAME[:12]])
    assert by_obj.values.tobytes() == by_str.values.tobytes()
    assert by_obj.aggregate().loc["B", "nDCG@10"] == by_str.aggregate().loc["B", "nDCG@10"]


@pytest.mark.parametrize("name,reason", REFUSED)
def test_object_without_equivalent_is_refused(name, reason):
    obj = ir_measures.parse_measure(name)
    with pytest.raises(MeasureError, match="has no irmeta equivalent") as err:
        irmeta.evaluate(QRELS, RUNS, [obj])
    assert reason in str(err.value)


def test_runtime_measure_is_refused():
    obj = ir_measures.define(lambda qrels, run: [], name="Mine")
    with pytest.raises(MeasureError, match="defined at run time"):
        irmeta.evaluate(QRELS, RUNS, [obj])


def test_to_ir_measures_equals_ir_measures():
    """Per-topic rows and aggregates equal ir_measures' own (complete=True: ir_measures
    scores every qrels topic)."""
    measures = [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P(rel=2) @ 5]
    res = irmeta.evaluate(QRELS, RUNS, measures, complete=True)
    for run in res.runs:
        rows = res.to_ir_measures(run=run)
        want = {(m.query_id, m.measure): m.value
                for m in ir_measures.iter_calc(measures, QRELS, RUNS[run])}
        got = {(m.query_id, m.measure): m.value for m in rows}
        assert got.keys() == want.keys()
        assert all(math.isclose(got[k], want[k], abs_tol=1e-12) for k in want)
        agg = res.to_ir_measures(run=run, aggregate=True)
        ref = ir_measures.calc_aggregate(measures, QRELS, RUNS[run])
        assert all(math.isclose(agg[m], ref[m], abs_tol=1e-12) for m in measures)


def test_to_ir_measures_names_irmeta_only_measures():
    res = irmeta.evaluate(QRELS, RUNS, ["NRG@10", "map"])
    agg = res.to_ir_measures(run="B", aggregate=True)
    assert list(agg) == ["NRG@10", ir_measures.AP]
    with pytest.raises(ParameterError, match="hold 2 runs; name one with run="):
        res.to_ir_measures()
    with pytest.raises(ParameterError, match="no run 'C'"):
        res.to_ir_measures(run="C")


def test_to_dict_is_ranx_shaped():
    res = irmeta.evaluate(QRELS, RUNS, ["P@2", "AP"])
    d = res.to_dict()
    assert d == {r: {m: float(res.means[i, j]) for j, m in enumerate(res.names)}
                 for i, r in enumerate(res.runs)}
    per = res.to_dict(per_topic=True)
    assert set(per["A<b>"]["AP"]) == {"q1", "q2"}          # A's evaluated topics
    assert per["B"]["P@2"] == {"q1": 0.5, "q2": 0.0, "q3": 0.0}


def test_repr_html_escapes_and_shows_means():
    res = irmeta.evaluate(QRELS, RUNS, ["P@2", "P_rare(alpha=1)@100"])
    page = res._repr_html_()
    assert "<th>A&lt;b&gt;</th>" in page and "A<b>" not in page
    assert "<td>0.5000</td>" in page and page.count("<tr>") == 3
    many = irmeta.evaluate(QRELS, {f"r{i}": RUNS["B"] for i in range(70)}, "P@2")
    assert "10 more runs" in many._repr_html_()


def _registry_measures():
    """Every measure ir_measures registers (each alias once), with and without @10."""
    out = []
    for m in {m.NAME: m for m in ir_measures.measures.registry.values()}.values():
        out.append(m)
        if "cutoff" in m.SUPPORTED_PARAMS:
            out.append(m @ 10)
    return out


def test_every_registered_measure_is_mapped_or_refused():
    """Each ir_measures measure is either irmeta's identical measure (equal means, tie-free
    random campaign, complete=True as ir_measures) or refused with a reason; diversity
    measures (subtopic qrels) and those ir_measures cannot compute here are skipped (the
    diversity oracle covers the former)."""
    import subprocess
    import warnings

    import numpy as np
    rng = np.random.default_rng(0)
    qrels = {f"q{t}": {f"d{d}": int(rng.integers(0, 4)) for d in range(30)
                       if rng.random() < 0.5} for t in range(8)}
    run = {f"q{t}": {f"d{d}": float(s) for d, s in zip(rng.permutation(40)[:25],
                                                       rng.permutation(1000)[:25] / 7.0)}
           for t in range(8)}
    mapped, refused = [], []
    for m in _registry_measures():
        try:
            parse_measures([m])
        except MeasureError as exc:
            assert "has no irmeta equivalent" in str(exc) and ": " in str(exc)
            refused.append(str(m))
            continue
        try:
            got = irmeta.evaluate(qrels, run, [m], complete=True).means[0, 0]
        except MeasureError:
            continue   # a diversity measure: subtopic qrels needed
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = ir_measures.calc_aggregate([m], qrels, run)[m]
        except (AssertionError, ValueError, OSError, subprocess.CalledProcessError):
            continue   # ir_measures needs a parameter, or gdeval's perl cannot run here
        assert got == pytest.approx(want, abs=1e-9), str(m)
        mapped.append(str(m))
    assert len(mapped) >= 20 and {"nDCG@10", "AP", "Bpref", "Compat"} <= set(mapped)
    assert {"NERR8", "Accuracy", "BPM"} <= set(refused)
