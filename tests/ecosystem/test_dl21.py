"""Issue 25's "done when" on TREC DL 2021 (63 runs, NIST qrels): the qrels by an
ir_datasets id, two runs as PyTerrier frames, ranx Runs or files give the same nDCG@10
to the last digit; irmeta.pyterrier.Experiment returns pt.Experiment's columns plus
NRG@10 and P_rare(alpha=1)@100; an ir_measures nDCG@10 object is the string nDCG@10."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import irmeta
from irmeta.pyterrier import Experiment, measure
from tests.ecosystem.conftest import irds_home

pytestmark = [pytest.mark.shared_data, pytest.mark.slow,
              # 424 of each run's 477 topics are not judged (as in every DL21 test)
              pytest.mark.filterwarnings("ignore:.*are not in the qrels and were ignored")]

IRDS = "irds:msmarco-passage-v2/trec-dl-2021/judged"
RUNS = ["NLE_P_v1", "TUW_DR_Base"]


@pytest.fixture(scope="module")
def dl21_irds(dl21):
    """The DL21 qrels placed where ir_datasets keeps msmarco-passage-v2's (no download,
    no hash check), and the two runs' paths."""
    pytest.importorskip("ir_datasets")
    qrels, runs = dl21
    target = irds_home() / "msmarco-passage-v2" / "trec-dl-2021" / "qrels"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(qrels, target)
    paths = [next(p for p in runs if p.name == f"input.{n}.txt.gz") for n in RUNS]
    return qrels, paths


def pt_frame(path):
    import pandas as pd
    f = pd.read_csv(path, sep=r"\s+", header=None, dtype={0: str, 2: str},
                    names=["qid", "Q0", "docno", "rank", "score", "tag"])
    return f[["qid", "docno", "score", "rank"]]


def test_same_ndcg_from_files_frames_and_ranx(dl21_irds):
    ir_measures = pytest.importorskip("ir_measures")
    ranx = pytest.importorskip("ranx")
    qrels, paths = dl21_irds
    files = irmeta.evaluate(qrels, paths, "nDCG@10")
    by_id = irmeta.evaluate(IRDS, paths, "nDCG@10")
    frames = {n: pt_frame(p) for n, p in zip(RUNS, paths)}
    by_frames = irmeta.evaluate(IRDS, frames, [ir_measures.nDCG @ 10])
    runs = [ranx.Run({q: dict(zip(g["docno"], g["score"])) for q, g in f.groupby("qid")},
                     name=n) for n, f in frames.items()]
    by_ranx = irmeta.evaluate(ranx.Qrels.from_file(str(qrels), kind="trec"), runs, "nDCG@10")
    for got in (by_id, by_frames, by_ranx):
        assert got.runs == tuple(RUNS)
        assert got.means.tobytes() == files.means.tobytes()        # to the last digit
        assert got.values.tobytes() == files.values.tobytes()
    print({n: float(v) for n, v in zip(RUNS, files.means[:, 0])})
    # the ir_measures object is the string
    assert by_frames.names == ["nDCG@10"]
    # and ranx's own nDCG@10 agrees (its ties are broken its own way: not bit for bit)
    ranx_value = ranx.evaluate(ranx.Qrels.from_file(str(qrels), kind="trec"), runs[0],
                               "ndcg@10", make_comparable=True)
    assert ranx_value == pytest.approx(files.means[0, 0], abs=5e-3)


def test_experiment_columns_plus_context_measures(dl21_irds, dl21):
    pt = pytest.importorskip("pyterrier")
    ir_measures = pytest.importorskip("ir_measures")
    qrels, paths = dl21_irds
    frames = [pt_frame(p) for p in paths]
    topics = frames[0][["qid"]].drop_duplicates().assign(query="x")
    import pandas as pd
    qrels_frame = pd.read_csv(qrels, sep=r"\s+", header=None, dtype={0: str, 2: str},
                              names=["qid", "iter", "docno", "label"])
    metrics = [ir_measures.nDCG @ 10, "map", ir_measures.P(rel=2) @ 10]
    want = pt.Experiment([pt.Transformer.from_df(f) for f in frames], topics, qrels_frame,
                         metrics, names=RUNS, baseline=0, correction="bonferroni")
    got = Experiment(frames, topics, IRDS, [*metrics, "NRG@10", "P_rare(alpha=1)@100"],
                     names=RUNS, baseline=0, correction="bonferroni")
    extra = [f"{m}{s}" for m in ("NRG@10", "P_rare(alpha=1)@100")
             for s in ("", " +", " -", " p-value", " reject", " p-value corrected")]
    assert sorted(got.columns) == sorted([*want.columns, *extra])
    for col in want.columns[1:]:
        np.testing.assert_allclose(got[col].to_numpy(dtype=float),
                                   want[col].to_numpy(dtype=float), rtol=1e-12,
                                   err_msg=col)
    print(got.round(4).to_string())
    # "how innovative is my system against TREC DL 2021's runs?" in pt.Experiment itself
    _, all_runs = dl21
    others = [p for p in all_runs if p not in paths][:10]
    nrg = measure("NRG@10", prior=[str(p) for p in others], name="NRG_vs_DL21@10")
    out = pt.Experiment([pt.Transformer.from_df(frames[0])], topics, qrels_frame,
                        [nrg, ir_measures.nDCG @ 10], names=RUNS[:1])
    campaign = irmeta.load_campaign(qrels, [*map(str, others), str(paths[0])])
    ref = irmeta.evaluate(campaign, measures="NRG@10", complete=True)
    assert out.loc[0, "NRG_vs_DL21@10"] == pytest.approx(ref.means[-1, 0], rel=1e-12)
    print(out.to_string())
