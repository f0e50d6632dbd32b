"""The report's risk part (issue 34): GeoRisk of the primary measure in the leaderboard,
the ``risk`` section against ``--baseline`` (wins, losses, ties, URisk, TRisk) and against
every run (ZRisk, GeoRisk), read from the analysis objects. Oracles: the spec's formulas
written out here with NumPy/SciPy on the primary measure's matrix (``irmeta.evaluate``),
not irmeta's risk code; the sharded analysis and the forked child give the same objects."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import ParameterError
from irmeta.report import ReportOptions, analyse_campaign, campaign_report
from irmeta.report.sections.risk import RiskSection, common_topics
from tests.report import tiny
from tests.shards.test_report_explain import assert_same
from tests.stats.test_risk import spec_risk

SMALL = dict(progress=False, discpower_trials=20, stability_trials=10, ci_trials=50,
             background=0, rare_cutoff=10, alphas=(0.0, 0.5, 1.0))
#: the sections the risk tests do not read (faster)
OTHERS = frozenset({"innovation", "nrg", "effort", "topics", "trust", "appendix"})


@pytest.fixture(scope="module")
def campaign():
    return tiny.campaign()


@pytest.fixture(scope="module")
def analysis(campaign):
    return analyse_campaign(campaign, ReportOptions(**SMALL, skip=OTHERS, baseline="r1"))


def _primary_matrix(campaign) -> pd.DataFrame:
    res = irmeta.evaluate(campaign, measures=["nDCG@10"], complete=True)
    return res.matrix(0)


def test_the_section_equals_the_definitions(analysis, campaign):
    sec = analysis.risk
    assert isinstance(sec, RiskSection)
    assert (sec.measure, sec.alpha, sec.baseline, sec.topics, sec.dropped) == (
        "nDCG@10", 1.0, "r1", 7, 0)
    M = _primary_matrix(campaign)
    want = spec_risk(M.to_numpy(), list(M.index).index("r1"), 1.0)
    t = sec.table.set_index("run").loc[list(M.index)]
    for name, values in want.items():
        np.testing.assert_allclose(t[name].to_numpy(dtype=float), values, rtol=1e-12,
                                   atol=1e-15, equal_nan=True, err_msg=name)
    assert (t["wins"] + t["losses"] + t["ties"] == 7).all()
    # the baseline's own row: no win or loss, URisk 0, TRisk undefined
    assert (t.loc["r1", "URisk"], t.loc["r1", "ties"]) == (0.0, 7)
    assert np.isnan(t.loc["r1", "TRisk"])
    # the leaderboard's order; the ranks are competition ranks
    assert list(sec.table["run"]) == list(analysis.leaderboard.table["run"])
    assert list(sec.table["rank mean"]) == list(
        sec.table["mean"].rank(ascending=False, method="min"))
    assert list(sec.against["run"]) == [r for r in sec.table["run"] if r != "r1"]


def test_the_leaderboard_has_georisk_of_the_primary_measure(analysis, campaign):
    lb = analysis.leaderboard
    M = _primary_matrix(campaign)
    want = pd.Series(spec_risk(M.to_numpy(), None, 1.0)["GeoRisk"], index=M.index)
    np.testing.assert_allclose(lb.georisk.loc[M.index].to_numpy(), want.to_numpy(),
                               rtol=1e-12)
    t = lb.table
    np.testing.assert_allclose(t["GeoRisk"].to_numpy(), want.loc[t.index].to_numpy(),
                               rtol=1e-12)
    assert list(t["rank GeoRisk"]) == list(want.loc[t.index].rank(ascending=False,
                                                                   method="min"))
    cols = list(t.columns)            # right after the primary measure's columns
    assert cols.index("GeoRisk") == cols.index("tied_with_best") + 1
    # the same numbers as the risk section (one implementation)
    sec = analysis.risk.table.set_index("run")
    assert (sec.loc[t.index, "GeoRisk"].to_numpy() == t["GeoRisk"].to_numpy()).all()


def test_without_a_baseline_only_the_campaign_wide_table(campaign):
    a = analyse_campaign(campaign, ReportOptions(**SMALL, skip=OTHERS))
    sec = a.risk
    assert sec.baseline is None and sec.against.empty
    assert list(sec.table.columns) == ["run", "mean", "ZRisk", "GeoRisk", "rank mean",
                                       "rank GeoRisk"]
    from irmeta.report import render
    view = render.risk(sec)
    assert [b.name for b in view.blocks] == ["risk"]           # no figure without baseline


def test_skip_risk_leaves_the_leaderboards_georisk(campaign):
    a = analyse_campaign(campaign, ReportOptions(**SMALL, skip=OTHERS | {"risk"},
                                                 baseline="r2"))
    assert a.risk is None and a.leaderboard.georisk is not None


def test_an_unknown_baseline_is_refused_before_any_work(campaign, monkeypatch):
    import irmeta.evaluation

    def no_work(*args, **kwargs):
        raise AssertionError("evaluated before checking the baseline")
    monkeypatch.setattr(irmeta.evaluation, "evaluate", no_work)
    with pytest.raises(ParameterError, match=r"analyse_campaign: baseline \(--baseline\) "
                                             r"names unknown run 'nope' \(runs: ideal, r1"):
        analyse_campaign(campaign, ReportOptions(**SMALL, baseline="nope"))
    with pytest.raises(ParameterError, match="baseline must be the name of a run"):
        ReportOptions(baseline=3).validate()


def test_cli_unknown_baseline_is_exit_2(tmp_path, capsys):
    out = tmp_path / "r.html"
    assert main(["report", "--demo", "--baseline", "nope", "-o", str(out)]) == 2
    assert "baseline (--baseline) names unknown run 'nope'" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "r_files").exists()


def test_undefined_or_negative_values_leave_risk_out():
    m = pd.DataFrame([[0.5, np.nan, 0.1], [0.2, 0.3, 0.0]], index=["a", "b"])
    complete, reason = common_topics(m)
    assert list(complete.columns) == [0, 2] and reason is None
    assert common_topics(m[[1]])[1] == "no analysed topic where every run has a value"
    assert "negative" in common_topics(-m[[0]])[1]


def test_the_page_and_the_tsv(campaign, tmp_path):
    rep = campaign_report(campaign, tmp_path / "r.html",
                          options=ReportOptions(**SMALL, skip=OTHERS, baseline="r1"))
    files = tmp_path / "r_files"
    tsv = pd.read_csv(files / "risk.tsv", sep="\t")
    sec = rep.analysis.risk.table
    assert list(tsv.columns) == ["run", "mean", "wins", "losses", "ties", "URisk", "TRisk",
                                 "TRisk_p", "ZRisk", "GeoRisk", "rank_mean", "rank_GeoRisk"]
    assert list(tsv["run"]) == list(sec["run"])
    np.testing.assert_allclose(tsv["URisk"], sec["URisk"], rtol=1e-5)
    assert (files / "risk_wins_losses.png").is_file() and (files / "risk_wins_losses.svg").is_file()
    board = pd.read_csv(files / "leaderboard.tsv", sep="\t")
    np.testing.assert_allclose(board["GeoRisk_nDCG@10"], rep.analysis.leaderboard.table[
        "GeoRisk"], rtol=1e-5)
    page = rep.path.read_text(encoding="utf-8")
    assert '<section id="risk">' in page and "Against the baseline <strong>r1</strong>" in page


@pytest.mark.slow
def test_sharded_and_forked_give_the_same_section(tmp_path):
    """The section in a forked child and shard by shard equals the one in process."""
    from tests.shards.conftest import write_campaign
    qrels, runs = write_campaign(tmp_path, 31, n_runs=5, n_topics=12, n_docs=30)
    opts = dict(SMALL, skip=OTHERS, baseline="run2")
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    expected = analyse_campaign(whole, ReportOptions(**opts))
    forked = analyse_campaign(whole, ReportOptions(**{**opts, "background": 2}))
    assert_same(expected.risk, forked.risk)
    with irmeta.open_shards(qrels, runs, shard_topics=5) as sharded:
        got = analyse_campaign(sharded, ReportOptions(**opts))
    assert_same(expected.risk, got.risk)
    assert_same(expected.leaderboard.georisk, got.leaderboard.georisk)
    assert expected.risk.table["wins"].sum() > 0
