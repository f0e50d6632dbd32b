"""The vectorised classic kernels equal slow reference implementations on random
campaigns: ties in scores, short and missing rankings, graded and negative grades,
unjudged documents, topics without relevant documents."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from tests.oracles.classic_reference import measures as reference
from tests.oracles.classic_reference import trec_order
from tests.quick import sampled

FAMILIES = ["P", "R", "AP", "RR", "Success", "Rprec", "bpref", "nDCG", "RBP", "num_ret",
            "num_rel_ret", "num_rel"]
NO_CUTOFF = {"Rprec", "bpref", "num_rel", "num_ret"}


def _docid(j: int) -> str:
    return {0: f"d{j}", 1: f"doc-{j:06d}-" + "x" * (j % 17), 2: f"é{j}"}[j % 3]


def random_campaign(seed: int, n_runs=4, n_topics=6, n_docs=40):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {}
    for t in range(n_topics):
        topic = f"t{t:02d}"
        # ids of mixed lengths (1 to 30 bytes, some non-ASCII): identity must not depend
        # on the other ids read alongside
        docs = [_docid(j) for j in rng.permutation(n_docs)]
        judged = docs[: rng.integers(0, n_docs)]
        qrels[topic] = {d: int(rng.choice([-1, 0, 0, 1, 2, 3])) for d in judged}
        if not qrels[topic]:
            qrels[topic] = {docs[0]: 0}
        for r in range(n_runs):
            if rng.random() < 0.15:
                continue  # topic missing from this run
            length = int(rng.integers(1, n_docs))
            chosen = rng.choice(docs, size=length, replace=False)
            scores = rng.integers(0, 6, size=length).astype(float)  # many ties
            runs.setdefault(f"run{r}", {})[topic] = {str(d): float(s)
                                                     for d, s in zip(chosen, scores)}
    return qrels, runs


@pytest.mark.parametrize("seed", sampled(range(6)))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("cutoff", [None, 1, 5, 30])
def test_kernels_match_reference(seed, level, cutoff):
    qrels, runs = random_campaign(seed)
    gains = {1: 1.0, 2: 3.0, 3: 7.0}
    names = []
    for fam in FAMILIES:
        if fam in NO_CUTOFF and cutoff is not None:
            continue
        if fam == "Success" and cutoff is None:
            continue
        name = fam + (f"@{cutoff}" if cutoff else "")
        # bare "P" is trec_eval's P_5 ... P_1000 (docs/conventions.md); set precision is P()
        names.append("P()" if name == "P" else name)
    names.append("nDCG(gains={1:1,2:3,3:7})" + (f"@{cutoff}" if cutoff else ""))
    res = irmeta.evaluate(qrels, runs, names, rel_level=level, complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            ref = reference(ranking, qrels[topic], level, cutoff)
            ref_gains = reference(ranking, qrels[topic], level, cutoff, gains=gains)
            for j, name in enumerate(names):
                fam = name.split("@")[0].split("(")[0]
                expected = ref_gains["nDCG"] if "gains" in name else ref[fam]
                assert res.values[r, j, t] == pytest.approx(expected, abs=1e-12), (run, topic, name)


def test_ordering_is_score_then_docid_descending():
    qrels = {"q": {"a": 1, "b": 0, "c": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 2.0}}  # c first; then tie a/b -> b before a
    campaign = irmeta.load_campaign(qrels, run)
    assert campaign.ranking(0, 0) == ["c", "b", "a"]
    res = irmeta.evaluate(campaign, measures=["RR"])
    assert res.values[0, 0, 0] == pytest.approx(1 / 3)


def test_rank_column_is_ignored(tmp_path):
    path = tmp_path / "run"
    path.write_text("q Q0 a 1 1.0 t\nq Q0 b 2 3.0 t\n")  # ranks say a first; scores say b
    campaign = irmeta.load_campaign({"q": {"a": 1}}, path)
    assert campaign.ranking(0, 0) == ["b", "a"]


def test_ids_stay_strings():
    qrels = {"001": {"7": 1}, "1": {"07": 1}}
    run = {"001": {"7": 1.0}, "1": {"7": 1.0}}
    res = irmeta.evaluate(qrels, run, ["P@1"])
    values = dict(zip(res.topics, res.values[0, 0]))
    assert values == {"001": 1.0, "1": 0.0}


def test_topics_only_in_run_are_ignored_with_a_warning():
    with pytest.warns(UserWarning, match="not in the qrels"):
        res = irmeta.evaluate({"a": {"d": 1}}, {"a": {"d": 1.0}, "zzz": {"d": 1.0}}, ["AP"])
    assert res.topics == ("a",)


def test_complete_scores_missing_topics_as_empty():
    qrels = {"a": {"d": 1}, "b": {"e": 1}}
    run = {"a": {"d": 1.0}}
    plain = irmeta.evaluate(qrels, run, ["AP", "num_q"])
    full = irmeta.evaluate(qrels, run, ["AP", "num_q"], complete=True)
    assert plain.means[0].tolist() == [1.0, 1.0]
    assert full.means[0].tolist() == [0.5, 2.0]


def test_topic_without_relevant_documents_scores_zero():
    res = irmeta.evaluate({"a": {"d": 0}}, {"a": {"d": 1.0}}, ["AP", "nDCG", "P@1", "R@1"])
    assert res.values[0, :, 0].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_dataframe_and_dict_inputs_agree(tmp_path):
    import pandas as pd
    qrels, runs = random_campaign(3, n_runs=1)
    qdf = pd.DataFrame([(t, d, g) for t, ds in qrels.items() for d, g in ds.items()],
                       columns=["query_id", "doc_id", "relevance"])
    rdf = pd.DataFrame([(t, d, s) for t, ds in runs["run0"].items() for d, s in ds.items()],
                       columns=["query_id", "doc_id", "score"])
    lines = [f"{t} Q0 {d} 0 {s} run0" for t, ds in runs["run0"].items() for d, s in ds.items()]
    (tmp_path / "run").write_text("\n".join(lines) + "\n")
    (tmp_path / "qrels").write_text("\n".join(f"{t} 0 {d} {g}" for t, ds in qrels.items()
                                               for d, g in ds.items()) + "\n")
    ms = ["AP", "nDCG@10", "bpref"]
    a = irmeta.evaluate(qrels, runs["run0"], ms).means
    b = irmeta.evaluate(qdf, rdf, ms).means
    c = irmeta.evaluate(tmp_path / "qrels", tmp_path / "run", ms).means
    assert np.array_equal(a, b) and np.array_equal(a, c)


@pytest.mark.parametrize("seed", sampled(range(4), keep=1))
@pytest.mark.parametrize("cutoff", [None, 5, 20])
def test_ndcg_jk10_discount_matches_reference(seed, cutoff):
    """nDCG(discount=jk10): DCG = sum_i gain_i / max(1, log10(i)) over the run and over
    the ideal ranking of the judged documents (Twist paper's nDCG), written as a loop."""
    import math
    qrels, runs = random_campaign(seed)
    name = "nDCG(discount=jk10)" + (f"@{cutoff}" if cutoff else "")
    res = irmeta.evaluate(qrels, runs, measures=[name], complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            judged = qrels[topic]
            ranking = trec_order(runs[run].get(topic, {}))
            k = len(ranking) if cutoff is None else cutoff

            def dcg(gains):
                return sum(g / max(1.0, math.log10(i)) for i, g in enumerate(gains, start=1))
            got = dcg([max(judged.get(d, 0), 0) for d in ranking[:k]])
            ideal = sorted((max(g, 0) for g in judged.values()), reverse=True)
            best = dcg(ideal if cutoff is None else ideal[:cutoff])
            want = got / best if best > 0 else 0.0
            assert res.values[r, 0, t] == pytest.approx(want, abs=1e-12), (run, topic)
