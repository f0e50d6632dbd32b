"""The campaign report's content, checked against the public APIs and slow loops."""

from __future__ import annotations

import functools
import re

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.errors import ParameterError
from irmeta.report import SECTIONS, ReportOptions, analyse_campaign, campaign_report

# whole report generation (quick loop: pytest -m "not slow", docs/development.md)
pytestmark = pytest.mark.slow


def _tsv(rep, name):
    return pd.read_csv(rep.path.parent / f"{rep.path.stem}_files" / f"{name}.tsv", sep="\t",
                       keep_default_na=True, dtype={"topic": str})


def test_every_section_and_self_contained(demo_report):
    rep, _ = demo_report
    page = rep.path.read_text(encoding="utf-8")
    for sec in ("inputs", *SECTIONS):
        assert f'<section id="{sec}">' in page
        assert f'href="#{sec}"' in page                      # table of contents
    # offline: no external resources, every image embedded
    assert not re.search(r'(src|href)="(https?:)?//', page)
    imgs = re.findall(r'<img [^>]*src="([^"]+)"', page)
    # 11: the demo has groups, so the trust section shows the reusability figure (issue 26),
    # and the topics needed against D (issue 46)
    assert len(imgs) == 11 and all(s.startswith("data:image/png;base64,") for s in imgs)
    assert "<script>" in page and "<style>" in page
    # inputs, parameters, version and the command are stated
    assert "irmeta report --demo --discpower-trials 100 --stability-trials 100" in page
    assert f"irmeta {irmeta.__version__}" in page
    assert "qrels.txt" in page and "7,458" in page            # judged documents
    for f in rep.files:
        assert f.is_file() and f.stat().st_size > 0
    names = {f.name for f in rep.files}
    for n in ("leaderboard.tsv", "unique_documents.tsv", "trust_kendall_tau.tsv",
              "effort_gain.png", "effort_gain.svg", "topics_heatmap.svg"):
        assert n in names


def test_leaderboard_matches_evaluate(demo_report, demo_campaign):
    rep, opts = demo_report
    lb = _tsv(rep, "leaderboard").set_index("run")
    res = irmeta.evaluate(demo_campaign, measures=["AP", "nDCG@10", "Twist@100",
                                                   "P_rare(alpha=0.5)@100"], complete=True)
    # TSV headers are the measure strings; values rounded to 6 significant digits
    close = functools.partial(np.testing.assert_allclose, rtol=1e-5)
    close(lb["AP"], res.matrix("AP").mean(axis=1).reindex(lb.index))
    close(lb["nDCG@10"], res.matrix(1).mean(axis=1).reindex(lb.index))
    close(lb["Twist@100"], res.matrix(2).mean(axis=1, skipna=True).reindex(lb.index))
    close(lb["P_rare(alpha=0.5)@100"], res.matrix(3).mean(axis=1).reindex(lb.index))
    # ranks: 1 + number of runs strictly better; delta = rank under the primary
    # measure (nDCG@10 on the demo) - rank under m
    nrg = "NRG(prior=best_per_group)@10"
    for col in ("AP", nrg, "Twist@100"):
        v = lb[col].to_numpy()
        slow = [1 + int(np.sum(v > x)) for x in v]
        assert lb[f"rank_{col}"].tolist() == slow              # integers in the file
    assert (lb[f"delta_{nrg}"] == lb["rank_nDCG@10"] - lb[f"rank_{nrg}"]).all()
    # sorted by the primary measure, best first
    assert lb["nDCG@10"].is_monotonic_decreasing
    assert rep.leaderboard.index.tolist() == lb.index.tolist()
    # the page shows the analysis the report returns
    assert rep.leaderboard is rep.analysis.leaderboard.table
    close(lb["AP"], rep.analysis.leaderboard.table["AP"])
    assert lb["rank_AP"].dtype == np.int64 and lb.columns.map(str.isascii).all()


def test_unique_documents_slow_loop(demo_report, demo_campaign):
    """Every listed document is relevant, in the run's top 100, and in no other run's
    top 100; the counts equal irmeta.explain.unique_contributions."""
    from irmeta.explain import unique_contributions
    rep, _ = demo_report
    c = demo_campaign
    docs = _tsv(rep, "unique_documents")
    lb = _tsv(rep, "leaderboard").set_index("run")
    uc = unique_contributions(c, 100)
    assert lb["NRG(base=unique,prior=others)@100"].to_dict() == \
        uc["unique"].astype(int).to_dict()
    assert len(docs) == int(uc["unique"].sum())
    tops = {(r, t): set(c.ranking(c.run_index(r), c.topic_index(t))[:100])
            for r in c.runs for t in c.topics}
    for row in docs.head(40).itertuples():
        t = str(row.topic)
        assert c.ranking(c.run_index(row.run), c.topic_index(t))[row.rank - 1] == row.docid
        assert row.grade >= 1
        assert not any(row.docid in tops[(o, t)] for o in c.runs if o != row.run)
    table = _tsv(rep, "innovation_unique").set_index("run")
    assert table["unique"].to_dict() == uc["unique"].to_dict()


def test_innovation_sweep_is_alpha_sweep(demo_report, demo_campaign):
    from irmeta.stats import alpha_sweep
    rep, opts = demo_report
    got = _tsv(rep, "innovation_tau_alpha")
    want = alpha_sweep(demo_campaign, alphas=opts.alphas, complete=True)
    np.testing.assert_allclose(got["kendall"], want["kendall"], rtol=1e-5)   # 6 digits
    assert got["alpha"].tolist() == [0.0, 0.5, 1.0, 0.0, 0.5, 1.0]
    assert np.allclose(got.loc[got["alpha"] == 0, "kendall"], 1.0)


def test_effort_and_topics_tables(demo_report, demo_campaign):
    rep, _ = demo_report
    shares = _tsv(rep, "effort_gain_shares")
    assert shares.select_dtypes("number").to_numpy().sum() == pytest.approx(100.0)
    arche = _tsv(rep, "effort_archetypes").set_index("run")
    assert arche.loc["all runs", "total"] == 30 * 50
    assert arche.drop(index="all runs")["total"].sum() == 30 * 50
    systems = _tsv(rep, "topics_systems")
    from irmeta.aggregate import gawm
    # the matrix of the primary measure (nDCG@10 on the demo; --matrix-measure unset)
    m = irmeta.evaluate(demo_campaign, measures=["nDCG@10"], complete=True).matrix(0)
    g = gawm(m)
    np.testing.assert_allclose(systems.set_index("run")["GAWM_E_s"].reindex(m.index), g.E_s,
                               rtol=1e-5)
    weights = _tsv(rep, "topics_weights")
    assert weights["weight_W_t"].sum() == pytest.approx(1.0, rel=1e-5)


def test_trust_tables(demo_report):
    rep, opts = demo_report
    t = _tsv(rep, "trust_measures")
    assert len(t) == 13 and (t["pairs"] == 30 * 29 // 2).all()
    assert t["disc._power"].between(0, 1).all() and t["stability"].between(0, 1).all()
    tau = _tsv(rep, "trust_kendall_tau").set_index("measure")
    assert np.allclose(np.diag(tau.to_numpy()), 1.0)
    # Judged@10 is constant on a fully judged top 10: its tau is NaN
    assert np.allclose(tau.to_numpy(), tau.to_numpy().T, equal_nan=True)


def test_rendering_is_deterministic_and_skips_say_so(tmp_path):
    """The render-determinism test: one analysis written twice gives byte-identical pages,
    files and archives. With the analysis-identity tests (the same seed:
    test_analysis_quick.py; shards and Parquet: tests/shards/test_report_explain.py) it
    replaces the three-report seed test and the sharded TSV identity test, since a page is
    a function of its analysis. Skipped sections say so and write no file."""
    from irmeta.report.assemble import write_report
    from irmeta.report.html import ReportWriter
    from tests.report import tiny
    from tests.report.test_analysis_quick import SMALL
    analysis = analyse_campaign(tiny.campaign(),
                                ReportOptions(**SMALL, skip=frozenset({"effort"})))
    pages = []
    for name in ("a", "b"):
        w = ReportWriter(tmp_path / name / "r.html", "Campaign report", tidy_tsv=True,
                         archive=True)
        try:
            pages.append(write_report(analysis, w, "irmeta report (test)"))
        finally:
            w.discard()
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file())
    assert len(files) > 40 and {"r.html", "r.zip"} <= {str(f) for f in files}
    assert files == sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*")
                           if p.is_file())
    for f in files:
        assert (tmp_path / "b" / f).read_bytes() == (tmp_path / "a" / f).read_bytes(), f
    page = pages[0].read_text(encoding="utf-8")
    assert "Skipped (--skip effort)." in page and 'id="effort_gain"' not in page
    assert not any("effort" in str(f) for f in files)
    # no groups given: every run its own group, NRG prior = others
    assert "NRG(prior=others)@10" in page


def test_small_campaign_edge_cases(tmp_path):
    """Three runs, a topic without relevant documents, a topic missing from a run and a
    run that finds nothing: every section still renders."""
    qrels = {"1": {"a": 2, "b": 1, "c": 0}, "2": {"d": 1, "e": 0}, "3": {"f": 0}}
    runs = [{"1": {"a": 3.0, "c": 2.0, "x": 1.0}, "2": {"d": 1.0}},
            {"1": {"b": 3.0, "a": 2.0}, "2": {"e": 2.0, "d": 1.0}},
            {"1": {"y": 1.0}, "2": {"z": 1.0}, "3": {"f": 1.0}}]
    c = irmeta.load_campaign(qrels, runs, names=["r1", "r2", "r3"])
    rep = campaign_report(c, tmp_path / "small.html", groups={"r1": "g", "r2": "g", "r3": "h"},
                          options=ReportOptions(progress=False, discpower_trials=20,
                                                stability_trials=10))
    page = rep.path.read_text(encoding="utf-8")
    assert all(f'<section id="{s}">' in page for s in SECTIONS)
    lb = _tsv(rep, "leaderboard").set_index("run")
    assert lb.loc["r3", "AP"] == 0.0 and lb.loc["r1", "NRG(base=unique,prior=others)@100"] == 0


@pytest.mark.parametrize("kw, msg", [
    ({"discpower_trials": 0}, "discpower_trials must be an integer in"),
    ({"seed": -1}, "seed must be an integer >= 0"),
    ({"level": 1.5}, "level must be a finite number in"),
    ({"nrg_prior": "best"}, "nrg_prior must be one of"),
    ({"skip": frozenset({"nope"})}, "skip names unknown section"),
    ({"alphas": (0.5,)}, "alphas must hold at least 2 values"),
])
def test_options_validated(kw, msg):
    with pytest.raises(ParameterError, match=msg):
        ReportOptions(**kw).validate()


def test_needs_two_runs_and_a_campaign(tmp_path, demo_campaign):
    with pytest.raises(ParameterError, match="campaign must be a Campaign"):
        campaign_report("qrels.txt", tmp_path / "x.html")
    with pytest.raises(ParameterError, match="at least 2 runs"):
        campaign_report(demo_campaign.select_runs([0]), tmp_path / "x.html")
    with pytest.raises(ParameterError, match="no group for run"):
        campaign_report(demo_campaign, tmp_path / "x.html", groups={"lexA-bm25": "a"})


def test_background_figures_same_files(tmp_path, demo_campaign):
    """Figures saved by forked children, and the trust tests computed in a forked
    child, are byte-identical to in-process ones."""
    sub = demo_campaign.select_runs(list(range(0, 30, 5)))
    pages = []
    for bg in (0, 2):
        opts = ReportOptions(progress=False, background=bg, discpower_trials=50,
                             stability_trials=50,
                             skip=frozenset({"innovation", "effort", "topics"}))
        rep = campaign_report(sub, tmp_path / f"bg{bg}" / "r.html", options=opts)
        pages.append(rep)
    a, b = pages
    def relative(rep):
        return sorted(str(f.relative_to(rep.path.parent)) for f in rep.files)
    assert relative(a) == relative(b)
    assert any("/runs/" in name for name in relative(a))   # the appendix pages too
    for f in a.files:
        name = f.relative_to(a.path.parent)
        assert f.read_bytes() == (b.path.parent / name).read_bytes(), name
    assert a.path.read_bytes() == b.path.read_bytes()


def test_background_default_follows_the_cpus(monkeypatch):
    import irmeta.report.options as opt
    monkeypatch.setattr(opt.os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    opts = ReportOptions()
    assert opts.validate().background == 4 and opts.background is None   # not modified
    monkeypatch.setattr(opt.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert ReportOptions().validate().background == 1
    assert ReportOptions(background=0).validate().background == 0
    with pytest.raises(ParameterError, match="background"):
        ReportOptions(background=-1).validate()
