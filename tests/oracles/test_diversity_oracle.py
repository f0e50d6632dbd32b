"""Diversity kernels (irmeta.measures.diversity) equal a slow transcription of ndeval's
definitions on random campaigns (ties, unjudged documents, missing topics, graded and
negative grades, topics without relevant subtopics), and pyndeval (through ir_measures)
on campaigns without score ties."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.errors import InputError, MeasureError, ParameterError
from tests.oracles.classic_reference import trec_order
from tests.oracles.diversity_reference import measures as reference
from tests.quick import sampled

CUTOFF_FAMILIES = ["alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall"]
WHOLE_FAMILIES = ["NRBP", "nNRBP", "AP_IA"]


def random_diversity(seed: int, n_runs=3, n_topics=6, n_docs=30, n_sub=4, ties=True):
    """(subtopic qrels frame, runs dict, {topic: {doc: {subtopic: grade}}})."""
    rng = np.random.default_rng(seed)
    rows, runs, judgments = [], {}, {}
    for t in range(n_topics):
        topic = str(t + 1)
        docs = [f"d{j}" for j in rng.permutation(n_docs)]
        n_sub_t = int(rng.integers(1, n_sub + 1))
        judgments[topic] = {}
        for d in docs[: rng.integers(1, n_docs)]:
            for s in range(n_sub_t):
                if rng.random() < 0.6:
                    grade = int(rng.choice([-1, 0, 0, 1, 2]))
                    rows.append((topic, str(s + 1), d, grade))
                    judgments[topic].setdefault(d, {})[str(s + 1)] = grade
        if not judgments[topic]:
            rows.append((topic, "1", docs[0], 0))
            judgments[topic][docs[0]] = {"1": 0}
        for r in range(n_runs):
            if rng.random() < 0.15:
                continue
            length = int(rng.integers(1, n_docs))
            chosen = rng.choice(docs, size=length, replace=False)
            scores = (rng.integers(0, 5, size=length) if ties else rng.permutation(length)) + 1.0
            runs.setdefault(f"run{r}", {})[topic] = {str(d): float(x)
                                                     for d, x in zip(chosen, scores)}
    frame = pd.DataFrame(rows, columns=["query_id", "subtopic_id", "doc_id", "relevance"])
    return frame, runs, judgments


def _names(cutoff, extra=""):
    out = [f"{f}{extra}" + (f"@{cutoff}" if cutoff else "") for f in CUTOFF_FAMILIES]
    return out + ([f"{f}{extra}" for f in WHOLE_FAMILIES] if cutoff is None else [])


@pytest.mark.parametrize("seed", sampled(range(5), keep=1))
@pytest.mark.parametrize("cutoff", [None, 1, 3, 10, 40])
@pytest.mark.parametrize("params", [(1, 0.5, 0.5), (2, 0.3, 0.8)])
def test_kernels_match_the_slow_reference(seed, cutoff, params):
    level, alpha, beta = params
    frame, runs, judgments = random_diversity(seed)
    extra = "" if params == (1, 0.5, 0.5) else f"(rel={level})"
    names = _names(cutoff, extra)
    names = [n.replace(f"(rel={level})", f"(rel={level},alpha={alpha})")
             if n.startswith(("alpha_", "NRBP", "nNRBP")) and extra else n for n in names]
    names = [n.replace(f"alpha={alpha})", f"alpha={alpha},beta={beta})")
             if n.startswith(("NRBP", "nNRBP")) and extra else n for n in names]
    campaign = irmeta.load_campaign(None, runs, subtopic_qrels=frame)
    res = irmeta.evaluate(campaign, measures=names, complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            ref = reference(ranking, judgments[topic], level, alpha, beta, cutoff)
            for j, name in enumerate(names):
                family = name.split("@")[0].split("(")[0]
                got, want = res.values[r, j, t], ref[family]
                if math.isnan(want):
                    assert math.isnan(got), (run, topic, name)
                else:
                    assert got == pytest.approx(want, abs=1e-12), (run, topic, name)


def _pyndeval_values(frame, run, measure):
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    qrels = frame.rename(columns={"subtopic_id": "iteration"})
    parsed = ir_measures.parse_measure(measure)
    return {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrels, run)}


#: ndeval's cutoffs stop at 20; @1 is left out (ndeval does not normalise ERR-IA@1 and
#: alpha-DCG@1: test_ndeval_leaves_rank_one_unnormalised)
PARITY = ["alpha_nDCG@5", "alpha_nDCG@20", "alpha_DCG@10", "ERR_IA@2", "ERR_IA@20",
          "nERR_IA@1", "nERR_IA@10", "NRBP", "nNRBP", "AP_IA", "P_IA@1", "P_IA@10",
          "StRecall@5", "StRecall@20", "alpha_nDCG(alpha=0.3)@10",
          "NRBP(alpha=0.2,beta=0.8)", "nERR_IA(rel=2)@20", "AP_IA(rel=2)", "nNRBP(rel=2)"]


@pytest.mark.parametrize("seed", sampled(range(8)))
def test_equal_to_pyndeval_without_ties(seed):
    frame, runs, _ = random_diversity(seed, ties=False)
    campaign = irmeta.load_campaign(None, runs, subtopic_qrels=frame)
    res = irmeta.evaluate(campaign, measures=PARITY, complete=True)
    compared = 0
    for r, run in enumerate(res.runs):
        for j, name in enumerate(PARITY):
            # one measure per call: ir_measures' pyndeval provider reads the run once, so
            # a second parameter set in the same call sees an empty run (all zeros)
            got = _pyndeval_values(frame, runs[run], name)
            for t, topic in enumerate(res.topics):
                if topic not in runs[run]:
                    continue  # ir_measures' default for a missing topic, not ndeval's
                want, value = got[topic], res.values[r, j, t]
                if math.isnan(want):
                    assert math.isnan(value), (run, topic, name)
                else:
                    assert value == pytest.approx(want, abs=1e-9), (run, topic, name)
                compared += 1
    assert compared > 100


def test_ndeval_leaves_rank_one_unnormalised():
    """ndeval divides ERR-IA@k and alpha-DCG@k by the ideal-ideal sum from k = 2 on only:
    at k = 1 it prints the raw gain (2.0 for a document relevant to two subtopics);
    irmeta normalises at every k (docs/diversity.md)."""
    frame = pd.DataFrame([("1", "1", "a", 1), ("1", "2", "a", 1), ("1", "3", "b", 1)],
                         columns=["query_id", "subtopic_id", "doc_id", "relevance"])
    runs = {"r": {"1": {"a": 2.0, "b": 1.0}}}
    res = irmeta.evaluate(irmeta.load_campaign(None, runs, subtopic_qrels=frame),
                          measures=["ERR_IA@1", "alpha_DCG@1", "nERR_IA@1"])
    np.testing.assert_allclose(res.values[0, :, 0], [2 / 3, 2 / 3, 1.0])
    assert _pyndeval_values(frame, runs["r"], "ERR_IA@1")["1"] == 2.0


def test_measures_need_subtopic_qrels():
    qrels = {"1": {"a": 1}}
    with pytest.raises(MeasureError, match="subtopic qrels"):
        irmeta.evaluate(qrels, {"r": {"1": {"a": 1.0}}}, ["alpha_nDCG@10"])


def test_subtopic_file_reader_and_derived_qrels(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text("1 1 a 1\n1 2 a 2\n1 2 b 0\n# comment\n2 1 c 1\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n")
    campaign = irmeta.load_campaign(None, [run], subtopic_qrels=path)
    assert campaign.topics == ("1", "2")
    # derived ad hoc qrels: a document's highest grade over its subtopics
    assert campaign.grades[0, 0, :2].tolist() == [2, 0]
    res = irmeta.evaluate(campaign, measures=["StRecall@1", "AP", "P_IA@2"])
    np.testing.assert_allclose(res.values[0, :, 0], [1.0, 1.0, 2 / 4])
    np.testing.assert_allclose(res.values[0, :, 1], [1.0, 1.0, 1 / 2])


def test_a_subtopic_judged_twice_is_an_input_error(tmp_path):
    path = tmp_path / "div.qrels"
    path.write_text("1 1 a 1\n1 2 a 2\n1 1 a 0\n")
    with pytest.raises(InputError, match="judged twice for subtopic '1'") as err:
        irmeta.load_campaign(None, {"r": {"1": {"a": 1.0}}}, subtopic_qrels=path)
    assert "div.qrels:3" in str(err.value) and "also on line 1" in str(err.value)


def test_select_runs_keeps_the_subtopics():
    frame, runs, _ = random_diversity(3)
    campaign = irmeta.load_campaign(None, runs, subtopic_qrels=frame)
    whole = irmeta.evaluate(campaign, measures=["alpha_nDCG@10"], complete=True).values
    sub = campaign.select_runs([campaign.runs[-1]])
    part = irmeta.evaluate(sub, measures=["alpha_nDCG@10"], complete=True).values
    np.testing.assert_array_equal(part[0], whole[-1])


def test_cli_reads_subtopics(tmp_path, capsys):
    from irmeta.cli.main import main
    div = tmp_path / "div.qrels"
    div.write_text("1 1 a 1\n1 2 a 1\n1 2 b 1\n1 1 c 0\n")
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n1 Q0 b 3 1 r\n")
    code = main(["eval", "--subtopic-qrels", str(div), str(div), str(run),
                 "-m", "StRecall@1", "-m", "P_IA@3"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "StRecall@1            \tall\t1.0000" in out
    assert "P_IA@3                \tall\t0.5000" in out


def test_evaluate_accepts_ir_measures_objects():
    ir_measures = pytest.importorskip("ir_measures")
    frame, runs, _ = random_diversity(2)
    res = irmeta.evaluate(None, runs, [ir_measures.alpha_nDCG @ 10, ir_measures.ERR_IA @ 20],
                          subtopic_qrels=frame, complete=True)
    again = irmeta.evaluate(None, runs, ["alpha_nDCG@10", "ERR_IA@20"], subtopic_qrels=frame,
                            complete=True)
    assert res.names == ["alpha_nDCG@10", "ERR_IA@20"]
    np.testing.assert_array_equal(res.values, again.values)


def dl21_subtopics(qrels_path, seed: int = 0) -> pd.DataFrame:
    """DL21's judgments spread over 1-2 of 4 synthetic subtopics per document (seeded):
    real runs and grades, invented intents (no public subtopic qrels are in shared data)."""
    qrels = pd.read_csv(qrels_path, sep=r"\s+", header=None,
                        names=["query_id", "iteration", "doc_id", "relevance"],
                        dtype={"query_id": str, "doc_id": str})
    rng = np.random.default_rng(seed)
    rows = []
    for row in qrels.itertuples():
        for s in rng.choice(4, size=int(rng.integers(1, 3)), replace=False):
            rows.append((row.query_id, str(s + 1), row.doc_id, row.relevance))
    return pd.DataFrame(rows, columns=["query_id", "subtopic_id", "doc_id", "relevance"])


@pytest.mark.slow
def test_equal_to_pyndeval_on_dl21_runs(dl21):
    """Every DL21 run and topic, with synthetic subtopics, in irmeta's order."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("pyndeval")
    frame = dl21_subtopics(dl21[0])
    campaign = irmeta.load_campaign(None, dl21[1], subtopic_qrels=frame, warn_dropped=False)
    names = ["alpha_nDCG@20", "ERR_IA@20", "nERR_IA@10", "NRBP", "nNRBP", "AP_IA", "P_IA@10",
             "StRecall@20", "alpha_nDCG(rel=2)@10"]
    res = irmeta.evaluate(campaign, measures=names)
    qrels = frame.rename(columns={"subtopic_id": "iteration"})
    for r in range(campaign.num_runs):
        run = {topic: {d: float(5000 - i) for i, d in enumerate(campaign.ranking(r, t))}
               for t, topic in enumerate(campaign.topics) if campaign.length[r, t]}
        for j, name in enumerate(names):
            parsed = ir_measures.parse_measure(name)
            got = {m.query_id: m.value for m in ir_measures.iter_calc([parsed], qrels, run)}
            for t, topic in enumerate(campaign.topics):
                if res.evaluated[r, t]:
                    assert res.values[r, j, t] == pytest.approx(got[topic], abs=1e-9), \
                        (campaign.runs[r], topic, name)


@pytest.mark.parametrize("call,error,text", [
    (lambda r: irmeta.load_campaign(None, r, subtopic_qrels={"1": {}}), InputError,
     "cannot read subtopic qrels from dict"),
    (lambda r: irmeta.load_campaign(None, r), ParameterError, "qrels is required"),
    (lambda r: irmeta.evaluate(None, r, ["AP"]), ParameterError, "evaluate: qrels is required"),
    (lambda r: irmeta.evaluate(irmeta.load_campaign({"1": {"a": 1}}, r), measures=["AP"],
                               subtopic_qrels="x"), ParameterError, "already built"),
    (lambda r: irmeta.load_campaign(None, r, subtopic_qrels=pd.DataFrame(
        {"query_id": ["1"], "doc_id": ["a"], "relevance": [1]})), InputError,
     "no subtopic column"),
])
def test_bad_subtopic_input_is_a_typed_error(call, error, text):
    with pytest.raises(error, match=text):
        call({"r": {"1": {"a": 1.0}}})
