"""The results page an organizer publishes (issue 14): the primary measure and the rule
that chose it, the leaderboard's intervals and tests, the per-topic drill-down, the
matrices as TSV and Parquet, the LaTeX/Markdown leaderboards — read from the analysis
objects and the files, checked against the library functions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.report import ReportOptions, analyse_campaign
from irmeta.report.analysis import choose_defaults
from tests.report.conftest import SMALL

#: analyses of the demo campaign's results page
#: cost seconds each: the full suite runs them (docs/development.md, the quick loop)
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def analysis(demo_campaign):
    from irmeta.demo import demo_groups
    return analyse_campaign(demo_campaign, ReportOptions(progress=False, ci_trials=500,
                                                         **SMALL),
                            groups=demo_groups())


def _campaign(grades: dict, depth: int):
    """Two runs of ``depth`` documents on two topics; ``grades``: docid -> grade."""
    qrels = {t: dict(grades) for t in ("1", "2")}
    docs = [f"d{i}" for i in range(depth)]
    runs = {name: {t: {d: float(depth - i) for i, d in enumerate(order)} for t in ("1", "2")}
            for name, order in (("a", docs), ("b", docs[::-1]))}
    return irmeta.load_campaign(qrels, runs)


def test_primary_rule():
    graded = {"d0": 2, "d1": 1, "d5": 0}
    d = choose_defaults(_campaign(graded, 100), ReportOptions())
    assert (d.primary, d.graded, d.depth, d.twist_depth) == ("nDCG@10", True, 100, 100)
    assert "graded" in d.primary_rule and "Deep Learning" in d.primary_rule
    d = choose_defaults(_campaign(graded, 101), ReportOptions())
    assert d.primary == "AP" and "deeper than 100" in d.primary_rule
    d = choose_defaults(_campaign({"d0": 1, "d3": 1}, 20), ReportOptions())
    assert d.primary == "AP" and "binary" in d.primary_rule
    assert d.twist_depth == 20 and d.twist_rule == "the runs' depth"
    d = choose_defaults(_campaign(graded, 20), ReportOptions(primary="P@5", twist_depth=50))
    assert (d.primary, d.primary_rule, d.twist_depth) == ("P@5", "given (--primary)", 50)


def test_primary_measure_orders_everything(demo_campaign):
    from irmeta.demo import demo_groups
    opts = ReportOptions(progress=False, primary="P@10", ci_trials=200, **SMALL,
                         skip=frozenset({"innovation", "nrg", "effort", "topics", "trust"}))
    a = analyse_campaign(demo_campaign, opts, groups=demo_groups())
    lb = a.leaderboard
    assert lb.primary == "P@10" == lb.columns[0].label
    assert [c.label for c in lb.columns].count("P@10") == 1        # moved, not added
    assert lb.table["P@10"].is_monotonic_decreasing
    assert "delta P@10" not in lb.table and "delta AP" in lb.table
    assert a.highlights.primary == "P@10" and a.highlights.best_run == lb.table.index[0]
    assert a.options.primary == "P@10" and ("primary", "P@10") in a.inputs.parameters
    # a measure outside the catalogue becomes the first column
    opts = ReportOptions(progress=False, primary="RBP(p=0.8)", ci_trials=200, **SMALL,
                         skip=frozenset({"innovation", "nrg", "effort", "topics", "trust"}))
    lb = analyse_campaign(demo_campaign, opts).leaderboard
    assert lb.columns[0].measure == "RBP(p=0.8)" and lb.table.iloc[:, 1].name == "RBP(p=0.8)"


def test_uncertainty_is_stats_leaderboard(analysis, demo_campaign):
    from irmeta.stats import leaderboard
    lb = analysis.leaderboard
    m = irmeta.evaluate(demo_campaign, measures=["nDCG@10"], complete=True).matrix(0)
    want = leaderboard(m, test="paired_t", correction="holm", level=0.05, trials=500, seed=0)
    got = lb.uncertainty
    pd.testing.assert_frame_equal(got.table, want.table)
    t = lb.table
    for col in ("ci_low", "ci_high", "p_vs_best", "p_vs_next"):
        np.testing.assert_allclose(t[col].to_numpy(dtype=float),
                                   want.table[col].reindex(t.index).to_numpy(dtype=float))
    assert t.index.tolist() == want.table.index.tolist()       # the same order
    assert (t["ci_low"] <= t["nDCG@10"]).all() and (t["nDCG@10"] <= t["ci_high"]).all()
    assert analysis.highlights.tied == int(want.table["tied_with_best"].sum())


def test_per_topic_is_aggregate_topics(analysis, demo_campaign):
    from irmeta.aggregate.topics import run_topics, topic_summary
    from irmeta.demo import demo_groups
    pt = analysis.per_topic
    res = irmeta.evaluate(demo_campaign, measures=[c.measure for c in
                                                   analysis.leaderboard.columns],
                          complete=True, groups=demo_groups())
    m = res.matrix(0)
    pd.testing.assert_frame_equal(pt.summary, topic_summary(m))
    run = analysis.leaderboard.table.index[3]
    pd.testing.assert_frame_equal(pt.runs[run], run_topics(m, run))
    assert set(pt.runs) == set(demo_campaign.runs)
    assert list(pt.matrices) == [c.measure for c in analysis.leaderboard.columns]
    for i, (measure, mat) in enumerate(pt.matrices.items()):
        pd.testing.assert_frame_equal(mat, res.matrix(i), check_names=False)


def test_latex_and_markdown(analysis):
    from irmeta.stats.leaderboard import legend, markers, to_latex, to_markdown
    u = analysis.leaderboard.uncertainty
    marks = markers(u)
    t = u.table
    assert (marks.str.contains(r"\*", regex=True) == t["significant_vs_best"]).all()
    assert (marks.str.contains("†") == t["significant_vs_next"]).all()
    tex = to_latex(u, measure="nDCG@10")
    md = to_markdown(u, measure="nDCG@10")
    assert tex.count(r"\\") == len(t) + 1 and r"\begin{tabular}" in tex
    assert md.count("\n| ") == len(t) + 1
    for run in t.index[:3]:
        assert f"| {run.replace('_', chr(92) + '_')} |" in md
    first = f"{t['mean'].iloc[2]:.3f}"
    assert first in tex and first in md
    if marks.iloc[2]:
        assert f"{first}$^{{" in tex and f"{first}<sup>" in md
    assert legend(u) in md.replace("\\*", "*").replace("\\_", "_")
    # names LaTeX would choke on are escaped
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.uniform(size=(3, 8)), index=["a_b&c", "d%e", "f#g"],
                         columns=[f"t{i}" for i in range(8)])
    from irmeta.stats import leaderboard
    tex = to_latex(leaderboard(frame, trials=50), measure="P@10")
    assert r"a\_b\&c" in tex and r"d\%e" in tex and r"f\#g" in tex


@pytest.mark.slow
def test_files_matrices_tsv_and_parquet(demo_report):
    rep, _ = demo_report
    a = rep.analysis
    folder = rep.path.parent / f"{rep.path.stem}_files"
    long = pd.read_parquet(folder / "matrices.parquet")
    assert list(long.columns) == ["measure", "run", "topic", "value"]
    assert list(dict.fromkeys(long["measure"])) == list(a.per_topic.matrices)
    for measure, m in a.per_topic.matrices.items():
        part = long[long["measure"] == measure].pivot(index="run", columns="topic",
                                                      values="value")
        want = m.copy()
        want.columns = [str(c) for c in want.columns]
        # full precision in Parquet
        np.testing.assert_array_equal(part.reindex(index=want.index, columns=want.columns)
                                      .to_numpy(), want.to_numpy())
    from irmeta.report.assemble import matrix_file_name
    tsv = pd.read_csv(folder / f"{matrix_file_name('nDCG@10')}.tsv", sep="\t", index_col=0)
    assert tsv.index.name == "nDCG@10" and len(tsv) == 30
    page = rep.path.read_text(encoding="utf-8")
    assert "matrices.parquet" in page and "rows shown)" not in page
    runs = pd.read_csv(folder / "per_topic_runs.tsv", sep="\t", dtype={"topic": str})
    assert len(runs) == 30 * len(a.per_topic.summary) * len(a.per_topic.matrices)
    assert list(runs.columns) == ["run", "topic", "measure", "value", "best", "median",
                                  "worst", "vs_median"]


@pytest.mark.slow
def test_trust_leads_with_the_primary_measure(demo_report):
    rep, _ = demo_report
    tr = rep.analysis.trust
    assert tr.primary == "nDCG@10" and tr.tested
    assert tr.measures["measure"].iloc[tr.primary_rank - 1] == "nDCG@10"
    page = rep.path.read_text(encoding="utf-8")
    assert "<strong>The primary measure, nDCG@10</strong>, tells apart" in page


@pytest.mark.slow
def test_leaderboard_downloads_for_a_paper(demo_report):
    """Issue 24, item 2: the report offers its leaderboard as LaTeX and Markdown, written
    by the writer of ``irmeta compare`` (stats.leaderboard.to_latex / to_markdown)."""
    from irmeta.stats.leaderboard import to_latex, to_markdown
    rep, _ = demo_report
    u = rep.analysis.leaderboard.uncertainty
    folder = rep.path.parent / f"{rep.path.stem}_files"
    assert (folder / "leaderboard.tex").read_text(encoding="utf-8") == \
        to_latex(u, measure="nDCG@10")
    assert (folder / "leaderboard.md").read_text(encoding="utf-8") == \
        to_markdown(u, measure="nDCG@10")
    page = rep.path.read_text(encoding="utf-8")
    assert f'href="./{folder.name}/leaderboard.tex">LaTeX</a>' in page
    assert f'href="./{folder.name}/leaderboard.md">Markdown</a>' in page
