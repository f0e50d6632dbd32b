"""irmeta.pyterrier.Experiment against the real pt.Experiment, offline (result frames as
pt.Transformer.from_df; nothing Terrier-backed), and measure() inside pt.Experiment."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from irmeta.errors import ParameterError
from irmeta.pyterrier import Experiment, measure

pt = pytest.importorskip("pyterrier")
ir_measures = pytest.importorskip("ir_measures")
pd = pytest.importorskip("pandas")


def random_experiment(seed: int, systems: int = 4, topics: int = 12):
    rng = np.random.default_rng(seed)
    qids = [str(i) for i in range(topics)]
    qrels = pd.DataFrame([(q, f"d{d}", int(rng.integers(0, 3))) for q in qids
                          for d in range(15) if rng.random() < 0.5],
                         columns=["qid", "docno", "label"])
    frames = []
    for _ in range(systems):
        rows = [(q, f"d{d}", float(rng.integers(0, 6)))   # integer scores: ties
                for q in qids if rng.random() > 0.1
                for d in rng.choice(20, size=10, replace=False)]
        frames.append(pd.DataFrame(rows, columns=["qid", "docno", "score"]))
    return pd.DataFrame({"qid": qids, "query": "x"}), qrels, frames


METRICS = ["map", ir_measures.nDCG @ 10, "P_5", ir_measures.P(rel=2) @ 5, ir_measures.RR,
           "recall_10", ir_measures.Bpref]


@pytest.mark.parametrize("seed,options", [
    (0, {}),
    (1, {"baseline": 0}),
    # pt.Experiment's own corrected tests take ~3 s a case: in the full suite only
    pytest.param(2, {"baseline": 1, "correction": "holm"}, marks=pytest.mark.slow),
    pytest.param(3, {"baseline": 2, "test": "wilcoxon", "correction": "bonferroni"},
                 marks=pytest.mark.slow),
    (4, {"baseline": 0, "correction": "fdr_bh", "correction_alpha": 0.5}),
])
def test_table_equals_pt_experiment(seed, options):
    topics, qrels, frames = random_experiment(seed)
    names = ["A", "B", "C", "D"]
    # SciPy's wilcoxon on few topics with ties runs a permutation test (0.2 s a call)
    metrics = METRICS[:2] if options.get("test") == "wilcoxon" else METRICS
    want = pt.Experiment([pt.Transformer.from_df(f) for f in frames], topics, qrels, metrics,
                         names=names, **options)
    got = Experiment([pt.Transformer.from_df(f) for f in frames], topics, qrels, metrics,
                     names=names, **options)
    assert sorted(got.columns) == sorted(want.columns)
    assert list(got["name"]) == names
    for col in want.columns[1:]:
        a, b = want[col].to_numpy(), got[col].to_numpy()
        assert a.dtype == b.dtype, col
        if a.dtype == bool or col.endswith((" +", " -")):
            assert np.array_equal(a, b, equal_nan=True), col
        else:   # means and p-values: the same per-topic values summed in another order
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-15, err_msg=col)


def test_frames_and_options():
    topics, qrels, frames = random_experiment(5, systems=3)
    by_dict = Experiment(dict(zip("ABC", frames)), topics, qrels, ["map"], baseline="B",
                         round=3)
    assert list(by_dict["name"]) == ["A", "B", "C"]
    assert by_dict.loc[1, "map +"] != by_dict.loc[1, "map +"]    # NaN for the baseline
    assert by_dict["map"].tolist() == [round(v, 3) for v in by_dict["map"]]
    both = Experiment(frames, topics, qrels, ["map", "NRG@10"], names=list("ABC"),
                      perquery="both")
    means, per_query = both
    assert list(per_query.columns) == ["name", "qid", "measure", "value"]
    assert len(per_query) == 3 * 2 * qrels["qid"].nunique()
    want = pt.Experiment([pt.Transformer.from_df(f) for f in frames], topics, qrels, ["map"],
                         names=list("ABC"), perquery=True)
    mine = per_query[per_query["measure"] == "map"].reset_index(drop=True)
    np.testing.assert_allclose(mine["value"], want["value"], rtol=1e-12)
    assert mine["qid"].tolist() == want["qid"].tolist()
    as_dict = Experiment(frames, topics, qrels, ["map"], names=list("ABC"), dataframe=False)
    assert as_dict["A"]["map"] == means.loc[0, "map"]


def test_cross_run_measures_are_evaluated_as_one_campaign():
    topics, qrels, frames = random_experiment(6, systems=3)
    out = Experiment(frames, topics, qrels, ["nDCG@10", "NRG@10", "P_rare(alpha=1)@100",
                                             "TaSC@10", "Twist"], names=list("ABC"),
                     baseline=0)
    campaign = irmeta.load_campaign(qrels, dict(zip("ABC", frames)), warn_dropped=False)
    names = ["NRG@10", "P_rare(alpha=1)@100", "TaSC@10", "Twist"]
    want = irmeta.evaluate(campaign, measures=names, complete=True)
    for j, name in enumerate(names):
        np.testing.assert_allclose(out[name], want.means[:, j], rtol=1e-12, err_msg=name)
    # a system alone has NRG = nDCG: the others are what makes it differ
    assert not np.allclose(out["NRG@10"], out["nDCG@10"])
    assert {"NRG@10 +", "NRG@10 p-value", "TaSC@10 -"} <= set(out.columns)


def test_fixed_context_measure_in_pt_experiment():
    """measure("NRG@10", prior=...) inside pt.Experiment equals NRG@10 of the system in the
    campaign of the prior runs plus itself."""
    topics, qrels, frames = random_experiment(7, systems=4)
    prior = frames[:2]
    nrg = measure("NRG@10", prior=prior, name="NRG_prior@10")
    rare = measure("P_rare(alpha=1)@100", prior=prior)
    out = pt.Experiment([pt.Transformer.from_df(f) for f in frames[2:]], topics, qrels,
                        [nrg, rare, ir_measures.nDCG @ 10], names=["C", "D"])
    for i, frame in enumerate(frames[2:]):
        campaign = irmeta.load_campaign(qrels, {"p1": prior[0], "p2": prior[1], "me": frame},
                                        warn_dropped=False)
        want = irmeta.evaluate(campaign, measures=["NRG@10", "P_rare(alpha=1)@100"],
                               complete=True)
        assert out.loc[i, "NRG_prior@10"] == pytest.approx(want.means[2, 0], rel=1e-12)
        assert out.loc[i, "P_rare(alpha=1)@100"] == pytest.approx(want.means[2, 1], rel=1e-12)
    # the same objects work in irmeta's Experiment (computed per system, as pt does)
    mine = Experiment(frames[2:], topics, qrels, [nrg, ir_measures.nDCG @ 10],
                      names=["C", "D"])
    np.testing.assert_allclose(mine["NRG_prior@10"], out["NRG_prior@10"], rtol=1e-12)


def test_errors():
    topics, qrels, frames = random_experiment(8, systems=2)
    with pytest.raises(ParameterError, match="unknown baseline 'Z'"):
        Experiment(frames, topics, qrels, ["map"], names=["A", "B"], baseline="Z")
    with pytest.raises(ParameterError, match="a correction needs a baseline"):
        Experiment(frames, topics, qrels, ["map"], correction="holm")
    with pytest.raises(ParameterError, match="save_dir not supported"):
        Experiment(frames, topics, qrels, ["map"], save_dir="/tmp")
    with pytest.raises(ParameterError, match="unknown argument"):
        Experiment(frames, topics, qrels, ["map"], nonsense=1)
    with pytest.raises(ParameterError, match="3 names for 2 systems"):
        Experiment(frames, topics, qrels, ["map"], names=["A", "B", "C"])
    with pytest.raises(ParameterError, match="'map' is given twice"):
        Experiment(frames, topics, qrels, ["map", "map"])
    bad = frames[0].copy()
    bad.loc[2, "score"] = float("inf")
    with pytest.raises(irmeta.errors.InputError, match="row 2"):
        Experiment([bad, frames[1]], topics, qrels, ["map"])


@pytest.mark.parametrize("options", [{}, {"filter_by_qrels": True},
                                     {"filter_by_topics": False}])
def test_topic_filters_equal_pt_experiment(options):
    """Topics that are a subset of the qrels' (filter_by_topics restricts the qrels to
    them) and extra topics without judgments (filter_by_qrels drops them)."""
    topics, qrels, frames = random_experiment(9, systems=2)
    topics = pd.concat([topics.iloc[:8], pd.DataFrame({"qid": ["99"], "query": ["x"]})])
    systems = [pt.Transformer.from_df(f) for f in frames]
    want = pt.Experiment(systems, topics, qrels, ["map", "ndcg_cut_10"], names=["A", "B"],
                         **options)
    got = Experiment(systems, topics, qrels, ["map", "ndcg_cut_10"], names=["A", "B"],
                     **options)
    np.testing.assert_allclose(got[["map", "ndcg_cut_10"]], want[["map", "ndcg_cut_10"]],
                               rtol=1e-12)
