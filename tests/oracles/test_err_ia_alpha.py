"""ERR_IA / nERR_IA take ndeval's alpha (its ``-alpha`` option changes ERR-IA and nERR-IA
as it changes alpha-nDCG): equal to the slow reference and to pyndeval called with alpha."""

from __future__ import annotations

import pytest

import irmeta
from irmeta.errors import MeasureError
from tests.oracles.classic_reference import trec_order
from tests.oracles.diversity_reference import measures as reference
from tests.oracles.test_diversity_oracle import random_diversity
from tests.quick import sampled

ALPHAS = [0.0, 0.3, 0.5, 0.9, 1.0]


@pytest.mark.parametrize("seed", sampled(range(4), keep=1))
@pytest.mark.parametrize("cutoff", [None, 3, 20])
def test_err_ia_alpha_matches_the_slow_reference(seed, cutoff):
    frame, runs, judgments = random_diversity(seed)
    at = f"@{cutoff}" if cutoff else ""
    names = [f"{f}(alpha={a}){at}" for a in ALPHAS for f in ("ERR_IA", "nERR_IA")]
    campaign = irmeta.load_campaign(None, runs, subtopic_qrels=frame)
    res = irmeta.evaluate(campaign, measures=names, complete=True)
    for r, run in enumerate(res.runs):
        for t, topic in enumerate(res.topics):
            ranking = trec_order(runs[run].get(topic, {}))
            for j, name in enumerate(names):
                alpha = ALPHAS[j // 2]
                want = reference(ranking, judgments[topic], 1, k=cutoff,
                                 err_alpha=alpha)[name.split("(")[0]]
                assert res.values[r, j, t] == pytest.approx(want, abs=1e-12), (run, topic, name)


@pytest.mark.parametrize("seed", sampled(range(4), keep=1))
def test_err_ia_alpha_equals_pyndeval(seed):
    pyndeval = pytest.importorskip("pyndeval")
    frame, runs, _ = random_diversity(seed, ties=False)
    qrels = [(q.query_id, q.subtopic_id, q.doc_id, int(q.relevance)) for q in frame.itertuples()]
    campaign = irmeta.load_campaign(None, runs, subtopic_qrels=frame)
    compared = 0
    for alpha in (0.3, 0.9):
        names = [f"ERR_IA(alpha={alpha})@10", f"nERR_IA(alpha={alpha})@20"]
        res = irmeta.evaluate(campaign, measures=names, complete=True)
        for j, (name, theirs) in enumerate(zip(names, ("ERR-IA@10", "nERR-IA@20"))):
            evaluator = pyndeval.RelevanceEvaluator(qrels, [theirs], alpha=alpha)
            for r, run in enumerate(res.runs):
                got = evaluator.evaluate([(q, d, s) for q, docs in runs[run].items()
                                          for d, s in docs.items()])
                for t, topic in enumerate(res.topics):
                    if topic not in got:
                        continue
                    assert res.values[r, j, t] == pytest.approx(got[topic][theirs], abs=1e-9)
                    compared += 1
    assert compared > 20
    # the default is ndeval's 0.5 (the same measure: one column), and alpha changes values
    res = irmeta.evaluate(campaign, measures=["ERR_IA@10", "ERR_IA(alpha=0.5)@10",
                                              "ERR_IA(alpha=0.9)@10"], complete=True)
    assert res.names == ["ERR_IA@10", "ERR_IA(alpha=0.9)@10"]
    assert (res.values[:, 0] != res.values[:, 1]).any()


@pytest.mark.parametrize("bad", ["ERR_IA(alpha=1.5)@10", "nERR_IA(alpha=-0.1)",
                                 "ERR_IA(alpha=nan)"])
def test_err_ia_alpha_out_of_range(bad):
    with pytest.raises(MeasureError, match="alpha"):
        irmeta.parse_measure(bad)
