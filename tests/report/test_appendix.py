"""The per-run appendix (issue "Appendix"): a page per run next to the report, linked
from it, whose numbers are recomputed here from their definitions.

* ``per_topic_runs.tsv`` (long form: run, topic, measure, value, best, median, worst,
  vs_median) holds every leaderboard measure's per-topic values, equal to
  :func:`irmeta.evaluate`'s (what ``irmeta eval -q`` prints), and best / median / worst /
  vs_median recomputed with NumPy over the runs;
* each page's TSV is its run's rows of that file; each page's pool contribution equals
  a count over the raw run and qrels files by plain Python;
* run names that are paths, markup, very long or differ only in case give distinct
  pages inside ``<stem>_files/runs/``, each linked from the report under its own name.
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

#: a whole demo report (session fixture) and a report per hostile campaign
pytestmark = pytest.mark.slow


def _files(rep) -> Path:
    return rep.path.parent / f"{rep.path.stem}_files"


def test_a_page_per_run_linked_from_the_report(demo_report):
    rep, _ = demo_report
    sec = rep.analysis.appendix
    runs = _files(rep) / "runs"
    pages = sorted(p.name for p in runs.glob("*.html"))
    assert len(pages) == len(sec.runs) == 30
    page = rep.path.read_text(encoding="utf-8")
    links = set(re.findall(r'href="\./report_files/runs/([^"]+\.html)"', page))
    assert links == set(pages)
    table = pd.read_csv(_files(rep) / "appendix.tsv", sep="\t")
    assert sorted(table["page"]) == pages
    assert list(table["run"]) == list(sec.runs)                 # best first
    for name in pages:                                          # self-contained pages
        html = (runs / name).read_text(encoding="utf-8")
        assert "<style" in html and 'src="data:image/png;base64,' in html
        assert 'href="./../../report.html"' in html              # back to the report


def test_per_topic_runs_equal_evaluate_and_the_recomputed_summary(demo_report,
                                                                   demo_campaign):
    import irmeta
    from irmeta.demo import demo_groups
    rep, opts = demo_report
    long = pd.read_csv(_files(rep) / "per_topic_runs.tsv", sep="\t", dtype={"topic": str})
    measures = list(dict.fromkeys(long["measure"]))
    columns = [c.measure for c in rep.analysis.leaderboard.columns]
    assert sorted(measures) == sorted(columns)                  # every leaderboard measure
    res = irmeta.evaluate(demo_campaign, measures=measures, groups=demo_groups(),
                          rel_level=opts.rel_level, complete=True)
    for k, measure in enumerate(measures):
        part = long[long["measure"] == measure]
        got = part.pivot(index="run", columns="topic", values="value")
        want = res.matrix(k)
        want.columns = [str(t) for t in want.columns]
        got = got.reindex(index=want.index, columns=want.columns)
        np.testing.assert_allclose(got.to_numpy(float), want.to_numpy(float), rtol=1e-5,
                                   atol=1e-6, equal_nan=True, err_msg=measure)
        X = want.to_numpy(float)                                # runs x topics
        with np.errstate(all="ignore"):
            summary = {"best": np.nanmax(X, axis=0), "median": np.nanmedian(X, axis=0),
                       "worst": np.nanmin(X, axis=0)}
        for column, values in summary.items():
            by_topic = part.groupby("topic", sort=False)[column].first()
            np.testing.assert_allclose(by_topic.reindex(want.columns).to_numpy(float),
                                       values, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{measure} {column}")
        np.testing.assert_allclose(part["vs_median"].to_numpy(float),
                                   (part["value"] - part["median"]).to_numpy(float),
                                   atol=2e-6, err_msg=measure)


def test_each_page_tsv_is_its_runs_rows(demo_report):
    rep, _ = demo_report
    long = pd.read_csv(_files(rep) / "per_topic_runs.tsv", sep="\t", dtype={"topic": str})
    table = pd.read_csv(_files(rep) / "appendix.tsv", sep="\t")
    for run, page in zip(table["run"], table["page"]):
        mine = pd.read_csv(_files(rep) / "runs" / page.replace(".html", ".tsv"), sep="\t",
                           dtype={"topic": str})
        want = long[long["run"] == run].reset_index(drop=True)
        pd.testing.assert_frame_equal(mine, want, obj=str(run))


def _read_trec(path: Path) -> dict[str, list[tuple[str, float]]]:
    opener = gzip.open if path.suffix == ".gz" else open
    out: dict[str, list[tuple[str, float]]] = {}
    with opener(path, "rt") as f:
        for line in f:
            topic, _, doc, _, score, _ = line.split()
            out.setdefault(topic, []).append((doc, float(score)))
    return out


def test_pool_contribution_counts_the_raw_files(demo_report):
    """``judged`` / ``relevant`` of each run among its first ``pool_depth`` documents on
    the analysed topics (those with a relevant document), by plain Python over the
    files: trec_eval's order (score descending, then document id descending)."""
    from irmeta.demo import demo_paths
    rep, opts = demo_report
    sec = rep.analysis.appendix
    paths = demo_paths()
    qrels: dict[str, dict[str, int]] = {}
    for line in paths.qrels.read_text().splitlines():
        topic, _, doc, grade = line.split()
        qrels.setdefault(topic, {})[doc] = int(grade)
    analysed = {t for t, docs in qrels.items() if max(docs.values()) >= opts.rel_level}
    for path in paths.runs:
        run = path.name.removesuffix(".txt.gz")
        judged = relevant = 0
        for topic, docs in _read_trec(path).items():
            if topic not in analysed:
                continue
            ranked = sorted(docs, key=lambda d: (d[1], d[0]), reverse=True)
            for doc, _ in ranked[:sec.pool_depth]:
                grade = qrels[topic].get(doc)
                judged += grade is not None
                relevant += grade is not None and grade >= opts.rel_level
        assert (sec.pool.loc[run, "judged"], sec.pool.loc[run, "relevant"]) == \
            (judged, relevant), run
    assert sec.pool["only its group"].notna().all()             # the demo has groups


HOSTILE = ["../../evil", "a/b", "<script>alert(1)</script>", "ünï cödé", "x" * 200,
           "x" * 199 + "y", "Run", "run", "a_b"]


def test_hostile_run_names_give_distinct_pages_inside_the_folder(tmp_path):
    import irmeta
    from irmeta.report import ReportOptions, campaign_report
    from tests.report import tiny
    base = tiny.runs()
    names = [*HOSTILE, "ideal"]
    runs = [base[tiny.RUNS[k % len(tiny.RUNS)]] for k in range(len(names))]
    campaign = irmeta.load_campaign(tiny.qrels(), runs, names=names)
    opts = ReportOptions(progress=False, background=0, ci_trials=50, rare_cutoff=10,
                         skip=frozenset({"innovation", "effort", "topics", "trust"}))
    rep = campaign_report(campaign, tmp_path / "out" / "r.html", options=opts)
    runs_dir = _files(rep) / "runs"
    pages = sorted(runs_dir.glob("*.html"))
    assert len(pages) == len(names)                             # none overwrote another
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["r.html", "r.zip",
                                                                    "r_files"]
    assert all(p.parent == runs_dir and len(p.stem) <= 80 for p in pages)
    assert len({p.name.lower() for p in pages}) == len(names)   # case-insensitive too
    page = rep.path.read_text(encoding="utf-8")
    links = set(re.findall(r'href="\./r_files/runs/([^"]+\.html)"', page))
    assert links == {p.name for p in pages}                     # every link has its page
    assert "<script>alert(1)</script>" not in page
    for p in pages:
        html = p.read_text(encoding="utf-8")
        assert "<script>alert(1)</script>" not in html
    table = pd.read_csv(_files(rep) / "appendix.tsv", sep="\t", keep_default_na=False)
    assert sorted(table["run"]) == sorted(names)
    for run, name in zip(table["run"], table["page"]):          # each page is its run's
        text = (runs_dir / name.replace(".html", ".tsv")).read_text(encoding="utf-8")
        assert set(pd.read_csv(pd.io.common.StringIO(text), sep="\t",
                               keep_default_na=False)["run"]) == {run}


DL21_INFO = """\
title = "TREC 2021 Deep Learning, passage ranking"
track = "Deep Learning"
year = 2021
pool_depth = 10
judging = "NIST assessors, grades 0-3"
qrels_version = "2021 final"
"""


def test_dl21_report_states_its_data_and_has_a_page_per_run(dl21, tmp_path):
    """The issue's "done when": the DL21 report with ``--campaign-info`` shows the
    track and the qrels' SHA-256 and has an appendix page per run (63)."""
    import hashlib

    from irmeta.cli.main import main
    qrels, runs = dl21
    info = tmp_path / "dl21.toml"
    info.write_text(DL21_INFO, encoding="utf-8")
    out = tmp_path / "dl21.html"
    assert main(["report", str(qrels), *map(str, runs), "-l", "2", "--campaign-info",
                 str(info), "-o", str(out), "--no-progress", "--seed", "0",
                 "--skip", "innovation,nrg,effort,topics,trust"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<title>TREC 2021 Deep Learning, passage ranking</title>" in page
    assert re.search(r'class="campaign-facts">Deep Learning · 2021 · qrels 2021 final<', page)
    assert hashlib.sha256(qrels.read_bytes()).hexdigest() in page
    pages = list((tmp_path / "dl21_files" / "runs").glob("*.html"))
    assert len(pages) == len(runs) == 63
    appendix = pd.read_csv(tmp_path / "dl21_files" / "appendix.tsv", sep="\t")
    assert len(appendix) == 63 and appendix["#"].min() == 1
    one = (tmp_path / "dl21_files" / "runs" / appendix["page"].iloc[0]).read_text("utf-8")
    assert "judged documents in its first 10" in one        # the campaign's pool depth
