"""The tables organizers publish (issue 33, item 5): the best run of each group, the
significance markers on every averaged column, and a caption in words. Checked against
recomputations from ``irmeta.evaluate`` matrices with SciPy and statsmodels."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import irmeta
from irmeta.report import ReportOptions, analyse_campaign
from irmeta.report import render as R
from irmeta.report.sections.leaderboard import columns_with_markers

QUICK = dict(progress=False, background=0, ci_trials=200, discpower_trials=20,
             stability_trials=10, alphas=(0.0, 1.0),
             skip=frozenset({"innovation", "nrg", "effort", "topics", "trust"}))


@pytest.fixture(scope="module")
def analysis(demo_campaign):
    from irmeta.demo import demo_groups
    return analyse_campaign(demo_campaign, ReportOptions(**QUICK), groups=demo_groups())


def test_best_run_of_each_group(analysis):
    from irmeta.demo import demo_groups
    lb = analysis.leaderboard
    groups = demo_groups()
    t = lb.table
    values = t[lb.primary]
    want = {}
    for run in t.index:                      # table order: best first, campaign order on ties
        g = groups[run]
        if g not in want or values[run] > values[want[g]]:
            want[g] = run
    best = lb.best_per_group
    assert dict(zip(best["group"], best["run"])) == want
    assert len(best) == len(set(groups.values())) == 9
    assert best["value"].is_monotonic_decreasing
    assert (best["rank"].to_numpy() == t.loc[best["run"], f"rank {lb.primary}"].to_numpy()).all()
    assert best["runs"].sum() == len(t) and best["group rank"].iloc[0] == 1
    view = R.leaderboard(lb)
    table = next(b for b in view.blocks if isinstance(b, R.TableView)
                 and b.name == "best_per_group")
    assert list(table.frame["best run"]) == list(best["run"])


def test_no_best_per_group_without_groups(demo_campaign):
    a = analyse_campaign(demo_campaign, ReportOptions(**QUICK))
    assert a.leaderboard.best_per_group is None
    assert not [b for b in R.leaderboard(a.leaderboard).blocks
                if getattr(b, "name", "") == "best_per_group"]


def _holm(p):
    return multipletests(p, method="holm")[1]


def test_every_averaged_column_is_tested(analysis, demo_campaign):
    lb = analysis.leaderboard
    cols = list(lb.columns)
    tested = [cols[i].label for i in columns_with_markers(cols)]
    assert set(lb.column_tests) == set(tested) and "AP" in tested
    assert not any(c.startswith("unique@") or c.startswith("Judged") for c in tested)
    from irmeta.demo import demo_groups
    res = irmeta.evaluate(demo_campaign, measures=[c.measure for c in cols], complete=True,
                          groups=demo_groups())
    for i in columns_with_markers(cols):
        label = cols[i].label
        m = res.matrix(i).dropna(axis=1, how="any")
        order = m.mean(axis=1).sort_values(ascending=False, kind="stable").index
        X = m.loc[order].to_numpy()
        p_best = _holm([stats.ttest_rel(X[0], X[j]).pvalue for j in range(1, len(X))])
        p_next = _holm([stats.ttest_rel(X[j], X[j + 1]).pvalue for j in range(len(X) - 1)])
        got = lb.column_tests[label].reindex(order)
        np.testing.assert_allclose(got["p_vs_best"].to_numpy()[1:], p_best, rtol=1e-9)
        np.testing.assert_allclose(got["p_vs_next"].to_numpy()[:-1], p_next, rtol=1e-9)
        assert (got["significant_vs_best"].to_numpy()[1:] == (p_best <= 0.05)).all()
        t = lb.table
        assert (t[f"significant_vs_best {label}"] ==
                got["significant_vs_best"].reindex(t.index)).all()


def test_markers_and_caption_in_words(analysis):
    lb = analysis.leaderboard
    view = R.leaderboard(lb)
    table = next(b for b in view.blocks if isinstance(b, R.TableView)
                 and b.name == "leaderboard")
    notes = table.options["notes"]["AP"]
    t = lb.table
    for note, below, above in zip(notes, t["significant_vs_best AP"],
                                  t["significant_vs_next AP"]):
        assert ("*" in note) == bool(below) and ("†" in note) == bool(above)
    import html
    caption = html.unescape(str(table.options["caption"]))
    assert "paired t-test, Holm's correction within each family of comparisons" in caption
    assert "paired_t" not in caption and "holm" not in caption
    assert "The same markers under AP" in caption
    tsv = table.options["tsv"]
    assert "significant_vs_best_AP" in tsv.columns and "p_vs_next_AP" in tsv.columns


def test_tsv_has_the_column_tests(tmp_path, demo_campaign):
    from irmeta.demo import demo_groups
    from irmeta.report import campaign_report
    rep = campaign_report(demo_campaign, tmp_path / "r.html", groups=demo_groups(),
                          options=ReportOptions(**QUICK))
    board = pd.read_csv(tmp_path / "r_files" / "leaderboard.tsv", sep="\t")
    assert {"p_vs_best_AP", "significant_vs_next_P@10"} <= set(board.columns)
    best = pd.read_csv(tmp_path / "r_files" / "best_per_group.tsv", sep="\t")
    assert list(best["best_run"]) == list(rep.analysis.leaderboard.best_per_group["run"])
