"""The report and ``explain`` shard by shard give the numbers of the campaign in memory.

:func:`irmeta.report.analyse_campaign` on an open sharded campaign
(:func:`irmeta.open_shards`) is compared with the in-memory analysis object by object:
every DataFrame, Series and array exactly (no tolerance: the same kernels on the same
rows, gathered in topic order, and the same aggregation code). Then ``explain``'s three
functions, the CLI (``irmeta explain``'s output byte for byte; ``irmeta report``'s TSV
files byte for byte) and what a sharded report refuses.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import ParameterError
from irmeta.report import ReportOptions, analyse_campaign
from irmeta.shards.parquet import ranking_lengths
from tests.quick import sampled
from tests.shards.conftest import write_campaign

#: the report and explain on shards build whole analyses
#: cost seconds each: the full suite runs them (docs/development.md, the quick loop)
pytestmark = pytest.mark.slow

GROUPS = {"run0": "a", "run1": "a", "run2": "b", "run3": "c", "run4": "c"}
QUICK = dict(discpower_trials=20, stability_trials=10, ci_trials=50, background=0, rare_cutoff=10,
             alphas=(0.0, 0.5, 1.0))


def assert_same(a, b, path: str = "analysis") -> None:
    """``a`` and ``b`` equal all the way down: frames and arrays exactly (NaN == NaN)."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=path)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_exact=True, obj=path)
    elif isinstance(a, pd.Index):
        pd.testing.assert_index_equal(a, b, exact=True, obj=path)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=path)
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), path
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            assert_same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), path
    elif hasattr(a, "__dict__") and not isinstance(a, type):
        assert type(a) is type(b), path
        assert_same(vars(a), vars(b), path)
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


@pytest.fixture
def campaign(tmp_path):
    return write_campaign(tmp_path, 31, n_runs=5, n_topics=12, n_docs=30)


@pytest.mark.parametrize("size", sampled([5, 1, 100], keep=1))
def test_the_analysis_is_identical_in_shards(campaign, size):
    qrels, runs = campaign
    opts = ReportOptions(**QUICK, gain="RBP(p=0.8)", matrix_measure="P_rare(alpha=0.5)@10")
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    expected = analyse_campaign(whole, opts, groups=GROUPS)
    with irmeta.open_shards(qrels, runs, shard_topics=size) as sharded:
        got = analyse_campaign(sharded, opts, groups=GROUPS)
        assert len(sharded.shards) == -(-12 // size)
    assert_same(expected, got)
    assert got.effort is not None and got.effort.findings is not None   # sections computed
    assert len(got.innovation.documents) and got.topics.aggregation is not None


@pytest.mark.parametrize("options", sampled([
    {"nrg_prior": "earlier", "rel_level": 2, "twist_depth": 20},
    {"prior_runs": ("run1", "run3"), "reference": True},
    {"skip": frozenset({"innovation", "trust"}), "max_docs": 7, "dedupe": True},
], keep=1))
def test_options_give_an_identical_analysis(campaign, options):
    qrels, runs = campaign
    options = dict(options)
    read = {k: options.pop(k) for k in ("max_docs", "dedupe") if k in options}
    prior_runs = options.pop("prior_runs", None)
    reference = (irmeta.load_campaign(qrels, runs[3:], warn_dropped=False, **read)
                 if options.pop("reference", False) else None)
    opts = ReportOptions(**QUICK, **options)
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False, **read)
    expected = analyse_campaign(whole, opts, prior_runs=prior_runs, reference=reference)
    with irmeta.open_shards(qrels, runs, shard_topics=3, **read) as sharded:
        got = analyse_campaign(sharded, opts, prior_runs=prior_runs, reference=reference)
    assert_same(expected, got)


def test_best_per_group_priors_take_two_passes(campaign):
    qrels, runs = campaign
    opts = ReportOptions(**QUICK, nrg_prior="best_per_group",
                         primary="NRG(prior=best_per_group)@10")
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    expected = analyse_campaign(whole, opts, groups=GROUPS)
    with irmeta.open_shards(qrels, runs, shard_topics=4) as sharded:
        got = analyse_campaign(sharded, opts, groups=GROUPS)
        bad = ReportOptions(**QUICK, matrix_measure="NRG(prior=best_per_group)@5")
        with pytest.raises(ParameterError, match="matrix_measure.*best-per-group"):
            analyse_campaign(sharded, bad, groups=GROUPS)
    assert_same(expected, got)
    analyse_campaign(whole, bad, groups=GROUPS)          # in memory it is computed


def test_ranking_lengths_are_read_without_building_a_shard(tmp_path):
    qrels, runs = write_campaign(tmp_path, 32)
    path = Path(runs[1])                       # a repeated document, for --dedupe
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines + [next(x for x in lines if not x.startswith("zz"))]))
    for read in ({}, {"max_docs": 4}, {"dedupe": True}, {"dedupe": True, "max_docs": 9}):
        if not read.get("dedupe"):
            runs_used = [r for k, r in enumerate(runs) if k != 1]
        else:
            runs_used = runs
        whole = irmeta.load_campaign(qrels, runs_used, warn_dropped=False, **read)
        with irmeta.open_shards(qrels, runs_used, shard_topics=2, **read) as sharded:
            lengths = ranking_lengths(sharded.dataset, max_docs=read.get("max_docs"),
                                      dedupe=read.get("dedupe", False))
            assert sharded.summary().depth == whole.depth
        np.testing.assert_array_equal(lengths, whole.length)


# --------------------------------------------------------------------- explain
@pytest.mark.parametrize("nrg", ["NRG", "NRG(prior=best_per_group)@10", None])
def test_explain_documents_is_identical_in_shards(campaign, nrg):
    qrels, runs = campaign
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    reference = irmeta.load_campaign(qrels, runs[2:], warn_dropped=False)
    kw = dict(k=10, nrg=nrg, groups=GROUPS)
    with irmeta.open_shards(qrels, runs, shard_topics=5) as sharded:
        for run, topic, more in [("run2", None, {}),
                                 ("run0", whole.topics[7], {"relevant_only": False}),
                                 ("run4", None, {"relevant_only": False, "depth": 20}),
                                 ("run1", None, {"reference": reference})]:
            expected = irmeta.explain_documents(whole, run, topic, **kw, **more)
            got = irmeta.explain_documents(sharded, run, topic, **kw, **more)
            pd.testing.assert_frame_equal(expected, got, check_exact=True)
            assert len(got)


def test_unique_contributions_and_documents_are_identical_in_shards(campaign):
    qrels, runs = campaign
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    with irmeta.open_shards(qrels, runs, shard_topics=2) as sharded:
        for per_topic in (False, True):
            pd.testing.assert_frame_equal(
                irmeta.unique_contributions(whole, 10, per_topic=per_topic),
                irmeta.unique_contributions(sharded, 10, per_topic=per_topic),
                check_exact=True)
        pd.testing.assert_frame_equal(irmeta.unique_documents(whole, 10, rel_level=2),
                                      irmeta.unique_documents(sharded, 10, rel_level=2),
                                      check_exact=True)
        with pytest.raises(ParameterError, match="k"):
            irmeta.unique_contributions(sharded, 0)
        with pytest.raises(irmeta.CampaignError, match="no topic 'nope'"):
            irmeta.explain_documents(sharded, "run0", "nope")
        with pytest.raises(irmeta.CampaignError, match="no run named 'nope'"):
            irmeta.explain_documents(sharded, "nope")


def test_explain_prints_the_same_table_in_shards(capsys, campaign, tmp_path):
    qrels, runs = campaign
    groups = tmp_path / "groups.txt"
    groups.write_text("".join(f"{r} {g}\n" for r, g in GROUPS.items()))
    for args in (["-k", "10"], ["-k", "10", "--per-topic", "--format", "tsv"],
                 ["--run", "run3", "-k", "10", "--groups", str(groups),
                  "--nrg", "NRG(prior=best_per_group)@10", "--format", "tsv"],
                 ["--run", "run3", "--topic", "t05", "-k", "10"]):
        assert main(["explain", qrels, *runs, *args]) == 0
        expected = capsys.readouterr().out
        assert main(["explain", qrels, *runs, *args, "--shard-topics", "4"]) == 0
        assert capsys.readouterr().out == expected
        assert expected.strip()


def test_the_analysis_is_identical_on_a_parquet_campaign(campaign, tmp_path):
    """A Parquet campaign (``irmeta convert``) read shard by shard: the same analysis.
    With :func:`test_the_analysis_is_identical_in_shards` and the render-determinism test
    (tests/report/test_assemble.py) this replaces the three-report TSV identity test: a
    page is a function of its analysis."""
    from irmeta.shards.partition import convert
    qrels, runs = campaign
    folder = tmp_path / "campaign.parquet"
    convert(qrels, runs, folder)
    opts = ReportOptions(**QUICK)
    expected = analyse_campaign(irmeta.load_campaign(qrels, runs, warn_dropped=False), opts)
    with irmeta.open_shards(str(folder), shard_topics=5) as sharded:
        got = analyse_campaign(sharded, opts)
    assert_same(expected, got)


def test_report_progress_option_reaches_the_bar_over_shards(campaign, tmp_path, capsys):
    """``--progress`` shows the bar over shards (tqdm, "shards"), ``--no-progress`` hides it;
    the leaderboard alone (the other sections add nothing to the option's path), on text
    files and on a Parquet campaign: the CLI's two sharded inputs end in a page."""
    qrels, runs = campaign
    folder = str(tmp_path / "campaign.parquet")
    assert main(["convert", qrels, *runs, "-o", folder]) == 0
    common = ["--discpower-trials", "20", "--rare-cutoff", "10", "--shard-topics", "5",
              "--skip", "innovation,nrg,effort,topics,trust"]
    capsys.readouterr()
    for inputs, flag, shown in (([qrels, *runs], "--progress", True),
                                ([folder], "--no-progress", False)):
        out = tmp_path / flag.strip("-") / "r.html"
        assert main(["report", *inputs, *common, flag, "-o", str(out)]) == 0
        assert ("shards:" in capsys.readouterr().err) is shown, flag
        assert (out.parent / "r_files" / "leaderboard.tsv").is_file()


@pytest.mark.slow
@pytest.mark.shared_data
def test_dl21_analysis_is_identical_in_shards(dl21):
    qrels, runs = dl21
    runs = [str(p) for p in runs]
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    groups = {name: f"g{k % 9}" for k, name in enumerate(whole.runs)}
    opts = ReportOptions(discpower_trials=50, stability_trials=20, ci_trials=100, background=0)
    expected = analyse_campaign(whole, opts, groups=groups)
    with irmeta.open_shards(qrels, runs, shard_topics=13) as sharded:
        got = analyse_campaign(sharded, opts, groups=groups)
        assert len(sharded.shards) == 5
    assert_same(expected, got)


def test_the_demo_with_a_shard_option_is_an_error(capsys):
    assert main(["explain", "--demo", "--shard-topics", "5"]) == 2
    assert "--demo is evaluated in memory" in capsys.readouterr().err
