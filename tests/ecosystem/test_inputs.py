"""Qrels and runs from the ecosystem (issue 25, item 1): every form gives the campaign the
files give, bad rows are named by position, and missing libraries name their extra."""

from __future__ import annotations

import shutil
import sys
from collections import namedtuple

import numpy as np
import pytest

import irmeta
from irmeta.errors import InputError, ParameterError
from tests.ecosystem.conftest import QRELS, RUNS, irds_home, pt_frames, register_local

MEASURES = ["AP", "nDCG@10", "P(rel=2)@5", "RR", "NRG@10", "P_rare(alpha=1)@100"]


def _same(a, b):
    assert a.runs == b.runs and a.topics == b.topics
    assert np.array_equal(a.values, b.values, equal_nan=True)
    assert np.array_equal(a.evaluated, b.evaluated)


def test_pyterrier_frames_equal_files(files):
    qrels, runs = files
    want = irmeta.evaluate(qrels, runs, MEASURES)
    pt_qrels, pt_runs = pt_frames()
    _same(irmeta.evaluate(pt_qrels, pt_runs, MEASURES), want)
    # a list of frames is named run1.. unless names are given
    got = irmeta.evaluate(pt_qrels, list(pt_runs.values()), MEASURES, names=list(RUNS))
    _same(got, want)


def test_rank_column_is_ignored(files):
    """Rankings are ordered by score (ties by docid), as trec_eval and pt.Experiment."""
    qrels, runs = files
    pt_qrels, pt_runs = pt_frames()
    shuffled = {n: f.assign(rank=f["rank"].to_numpy()[::-1]) for n, f in pt_runs.items()}
    _same(irmeta.evaluate(pt_qrels, shuffled, MEASURES), irmeta.evaluate(qrels, runs, MEASURES))


def test_bad_pyterrier_row_is_named():
    pt_qrels, pt_runs = pt_frames()
    bad = pt_runs["bm25"].copy()
    bad.loc[3, "score"] = float("nan")
    with pytest.raises(InputError, match=r"row 3") as err:
        irmeta.evaluate(pt_qrels, {"bm25": bad}, "AP")
    assert "topic 'q2'" in str(err.value)
    assert "score nan is not" in str(err.value)  # not np.float64(nan)
    labels = pt_qrels.copy()
    labels["label"] = labels["label"].astype(object)
    labels.loc[4, "label"] = "high"
    with pytest.raises(InputError, match=r"relevance 'high' is not an integer.*row 4"):
        irmeta.load_campaign(labels, pt_runs)


def test_namedtuple_rows_equal_files(files):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, runs = files
    want = irmeta.evaluate(qrels, runs, MEASURES)
    rows = [ir_measures.Qrel(q, d, g) for q, d, g in QRELS]
    scored = {n: (ir_measures.ScoredDoc(q, d, s) for q, d, s in r) for n, r in RUNS.items()}
    _same(irmeta.evaluate(iter(rows), scored, MEASURES), want)
    # a list of rows is one run, not a list of runs
    one = irmeta.evaluate(rows, [ir_measures.ScoredDoc(q, d, s) for q, d, s in RUNS["bm25"]],
                          "AP")
    assert one.runs == ("run1",)   # as an unnamed frame


def test_bad_row_is_named_by_position():
    ScoredDoc = namedtuple("ScoredDoc", "query_id doc_id score")
    Qrel = namedtuple("Qrel", "query_id doc_id relevance")
    qrels = [Qrel(q, d, g) for q, d, g in QRELS]
    rows = [ScoredDoc("q1", "d1", 1.0), ScoredDoc("q1", "d2", 0.5), ScoredDoc("q1", None, 0.2)]
    with pytest.raises(InputError, match=r"doc_id is missing.*row 2"):
        irmeta.evaluate(qrels, iter(rows), "AP")
    with pytest.raises(InputError, match=r"row 1 is tuple, not a namedtuple"):
        irmeta.evaluate(qrels, iter([rows[0], ("q1", "d2", 1.0)]), "AP")
    with pytest.raises(InputError, match=r"qrels: no rows"):
        irmeta.evaluate(iter([]), {"a": {"q1": {"d1": 1.0}}}, "AP")


def test_irds_local_registration_equals_files(files):
    pytest.importorskip("ir_datasets")
    qrels, runs = files
    ident = register_local("irmeta-test/local", qrels=qrels, run=runs[0])
    want = irmeta.evaluate(qrels, runs, MEASURES)
    _same(irmeta.evaluate(f"irds:{ident}", runs, MEASURES), want)
    # scoreddocs as a run: one run named by the id
    got = irmeta.evaluate(f"irds:{ident}", f"irds:{ident}", "AP")
    assert got.runs == (ident,)
    assert got.values.tolist() == irmeta.evaluate(qrels, runs[0], "AP").values.tolist()
    # the qrels_iter() rows of the dataset
    import ir_datasets
    _same(irmeta.evaluate(ir_datasets.load(ident).qrels_iter(), runs, MEASURES), want)


def test_irds_sharded_equals_in_memory(files):
    pytest.importorskip("ir_datasets")
    qrels, runs = files
    ident = register_local("irmeta-test/local", qrels=qrels, run=runs[0])
    want = irmeta.evaluate(qrels, [str(r) for r in runs], ["AP", "nDCG@10"])
    got = irmeta.evaluate(f"irds:{ident}", [str(r) for r in runs], ["AP", "nDCG@10"],
                          shard_topics=1)
    assert np.array_equal(got.values, want.values)
    with irmeta.open_shards(f"irds:{ident}", [str(r) for r in runs], shard_topics=2) as c:
        assert len(irmeta.unique_contributions(c, 10)) == 3
    with pytest.raises(ParameterError, match=r"irds:irmeta-test/local \(an ir_datasets "
                                             r"scoreddocs run\) is read in memory only"):
        irmeta.evaluate(qrels, [f"irds:{ident}"], "AP", shard_topics=1)


def test_irds_builtin_id_served_from_home(files):
    """A built-in id reads the file placed where ir_datasets caches it (no hash check:
    this file is not the real DL19 qrels; DL21 is in test_dl21.py)."""
    pytest.importorskip("ir_datasets")
    qrels, runs = files
    target = irds_home() / "msmarco-passage" / "trec-dl-2019" / "qrels"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(qrels, target)
    got = irmeta.evaluate("irds:msmarco-passage/trec-dl-2019/judged", runs, MEASURES)
    _same(got, irmeta.evaluate(qrels, runs, MEASURES))


def test_irds_errors(files):
    pytest.importorskip("ir_datasets")
    qrels, runs = files
    with pytest.raises(InputError, match=r"irds:no/such: ir_datasets has no dataset 'no/such'"):
        irmeta.evaluate("irds:no/such", runs, "AP")
    ident = register_local("irmeta-test/runonly", run=runs[0])
    with pytest.raises(InputError, match=r"has no qrels"):
        irmeta.evaluate(f"irds:{ident}", runs, "AP")
    ident = register_local("irmeta-test/qrelsonly", qrels=qrels)
    with pytest.raises(InputError, match=r"has no scoreddocs"):
        irmeta.evaluate(qrels, f"irds:{ident}", "AP")
    missing = register_local("irmeta-test/missing", qrels=qrels.parent / "absent.txt")
    with pytest.raises(InputError, match=r"ir_datasets could not provide the data"):
        irmeta.evaluate(f"irds:{missing}", runs, "AP")


def test_cli_reads_irds(files, capsys):
    pytest.importorskip("ir_datasets")
    from click.testing import CliRunner

    from irmeta.cli.main import cli
    qrels, runs = files
    ident = register_local("irmeta-test/local", qrels=qrels, run=runs[0])
    out = CliRunner().invoke(cli, ["eval", f"irds:{ident}", *map(str, runs), "-m", "AP"])
    assert out.exit_code == 0, out.output
    want = CliRunner().invoke(cli, ["eval", str(qrels), *map(str, runs), "-m", "AP"])
    assert out.output == want.output

    from irmeta.cli.main import main
    assert main(["eval", "irds:no/such", str(runs[0]), "-m", "AP"]) == 2
    assert "irmeta: error: irds:no/such: ir_datasets has no dataset" in capsys.readouterr().err


@pytest.mark.parametrize("module,extra", [("ir_datasets", "ir_datasets")])
def test_missing_library_names_the_extra(monkeypatch, files, module, extra):
    qrels, runs = files
    monkeypatch.setitem(sys.modules, module, None)   # import ir_datasets -> ImportError
    with pytest.raises(ParameterError, match=rf"needs {module}, which is not installed: "
                                             rf"pip install 'irmeta\[{extra}\]'"):
        irmeta.evaluate("irds:anything", runs, "AP")


def test_missing_ir_measures_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_measures", None)
    res = irmeta.evaluate({"q1": {"d1": 1}}, {"a": {"q1": {"d1": 1.0}}}, "AP")
    with pytest.raises(ParameterError, match=r"pip install 'irmeta\[pyterrier\]'"):
        res.to_ir_measures()


def test_unknown_object_is_refused():
    with pytest.raises(InputError, match=r"cannot read qrels from object.*irds:<id>"):
        irmeta.load_campaign(object(), {"a": {"q1": {"d1": 1.0}}})
    with pytest.raises(ParameterError, match=r"ranx Run, ScoredDoc rows"):
        irmeta.evaluate({"q1": {"d1": 1}}, object(), "AP")


def test_libraries_are_imported_only_when_used():
    """``import irmeta`` and an evaluation of dicts, DataFrames and files load none of
    the ecosystem's libraries; an ``irds:`` id loads ir_datasets (and only it)."""
    from tests.fresh import python_output
    libs = ("ir_datasets", "pyterrier", "ranx", "ir_measures", "numba", "statsmodels")
    code = (
        "import sys, irmeta, pandas as pd\n"
        "r = irmeta.evaluate({'q': {'d': 1}}, pd.DataFrame({'qid': ['q'], 'docno': ['d'],"
        " 'score': [1.0]}), ['nDCG@10', 'NRG@10'])\n"
        "r._repr_html_(); r.to_dict()\n"
        f"print(sorted(m for m in {libs!r} if m in sys.modules))\n"
        "try:\n    irmeta.evaluate('irds:no/such', {'q': {'d': 1.0}})\n"
        "except irmeta.InputError:\n    pass\n"
        f"print(sorted(m for m in {libs!r} if m in sys.modules))\n")
    before, after = python_output(code).stdout.splitlines()
    assert before == "[]"
    assert after == "['ir_datasets']"


@pytest.mark.slow
def test_ranx_objects_equal_files(files):
    """ranx Qrels and Runs (slow: ranx's first use compiles numba kernels)."""
    ranx = pytest.importorskip("ranx")
    qrels, runs = files
    want = irmeta.evaluate(qrels, runs, MEASURES)
    rq = ranx.Qrels({q: {d: g for qq, d, g in QRELS if qq == q} for q, _, _ in QRELS})
    rr = [ranx.Run({q: {d: s for qq, d, s in rows if qq == q} for q, _, _ in rows}, name=n)
          for n, rows in RUNS.items()]
    _same(irmeta.evaluate(rq, rr, MEASURES), want)
    assert irmeta.evaluate(rq, rr[1], "AP").runs == ("dense",)          # its name is kept
    assert irmeta.evaluate(rq, {"mine": rr[1]}, "AP").runs == ("mine",)  # or the one given
    assert irmeta.evaluate(rq, ranx.Run({"q1": {"d1": 1.0}}), "AP").runs == ("run1",)


def test_missing_columns_name_both_spellings():
    import pandas as pd
    with pytest.raises(InputError, match=r"lacks column\(s\) query_id, doc_id, score \(expected "
                                         r"columns query_id, doc_id, score \(or PyTerrier's "
                                         r"qid, docno, score\)\)"):
        irmeta.evaluate({"q1": {"d1": 1}}, pd.DataFrame({"x": [1]}), "AP")
    with pytest.raises(InputError, match=r"lacks column\(s\) relevance .*qid, docno, label"):
        irmeta.evaluate(pd.DataFrame({"qid": ["q1"], "docno": ["d1"], "grade": [1]}),
                        {"a": {"q1": {"d1": 1.0}}}, "AP")


@pytest.mark.slow
def test_ranx_empty_topic_is_a_missing_topic():
    """A ranx Run (or dict) topic with no documents is a topic the run lacks, as in a TREC
    file: left out of the mean, scored on an empty ranking only with complete=True
    (docs/ecosystem.md)."""
    ranx = pytest.importorskip("ranx")
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}}
    absent = {"1": {"a": 2.0}}
    for complete in (False, True):
        want = irmeta.evaluate(qrels, absent, "AP", complete=complete)
        for run in (ranx.Run({"1": {"a": 2.0}, "2": {}}), {"1": {"a": 2.0}, "2": {}}):
            _same(irmeta.evaluate(qrels, run, "AP", complete=complete), want)
        assert want.aggregate("mean").iloc[0, 0] == (0.5 if complete else 1.0)
