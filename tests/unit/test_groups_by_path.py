"""The CLI's inputs in Python (issue 48, item 4).

Wherever the CLI takes ``--groups FILE``, the Python function takes the file's path
(``str`` or ``os.PathLike``) as well as a ``{run: group}`` mapping, with the same
results; ``irmeta.read_groups`` is public. ``run_info`` (the CLI's ``--run-info``)
takes a path or a DataFrame.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import irmeta
from irmeta.demo import demo_paths
from irmeta.errors import CampaignError, ParameterError

PATHS = demo_paths()
NRG = "NRG(prior=best_per_group)@10"


@pytest.fixture(scope="module")
def campaign():
    return irmeta.load_campaign(PATHS.qrels, PATHS.runs)


@pytest.fixture(scope="module")
def mapping():
    return irmeta.read_groups(PATHS.groups)


def _as_given(kind: str):
    return {"str": str(PATHS.groups), "path": Path(PATHS.groups)}[kind]


def test_read_groups_is_public():
    assert "read_groups" in irmeta.__all__
    groups = irmeta.read_groups(PATHS.groups)
    assert len(groups) == 30 and groups == dict(
        line.split() for line in PATHS.groups.read_text().splitlines() if line.strip())


@pytest.mark.parametrize("kind", ["str", "path"])
def test_evaluate(campaign, mapping, kind):
    by_path = irmeta.evaluate(campaign, measures=[NRG], groups=_as_given(kind))
    by_map = irmeta.evaluate(campaign, measures=[NRG], groups=mapping)
    pd.testing.assert_frame_equal(by_path.to_frame(), by_map.to_frame())


def test_evaluate_from_files(mapping):
    by_path = irmeta.evaluate(PATHS.qrels, PATHS.runs[:6], [NRG], groups=PATHS.groups)
    by_map = irmeta.evaluate(PATHS.qrels, PATHS.runs[:6], [NRG], groups=mapping)
    pd.testing.assert_frame_equal(by_path.to_frame(), by_map.to_frame())


def test_compare(mapping):
    runs = PATHS.runs[:5]
    by_path = irmeta.compare(PATHS.qrels, runs, [NRG, "AP"], groups=str(PATHS.groups))
    by_map = irmeta.compare(PATHS.qrels, runs, [NRG, "AP"], groups=mapping)
    pd.testing.assert_frame_equal(by_path.pairs, by_map.pairs)
    pd.testing.assert_frame_equal(by_path.means, by_map.means)


@pytest.mark.parametrize("kind", ["str", "path"])
def test_pool(mapping, kind):
    by_path = irmeta.pool(PATHS.runs, 10, strategy="group_depth", groups=_as_given(kind))
    by_map = irmeta.pool(PATHS.runs, 10, strategy="group_depth", groups=mapping)
    pd.testing.assert_frame_equal(by_path.table, by_map.table)


def test_pool_names_the_groups_file_when_a_run_has_no_group(tmp_path):
    partial = tmp_path / "groups.txt"
    partial.write_text("".join(line + "\n" for line in
                               PATHS.groups.read_text().splitlines()[1:]))
    with pytest.raises(CampaignError, match=r"groups\.txt: has no group for run"):
        irmeta.pool(PATHS.runs, 10, strategy="group_depth", groups=partial)


def test_meta_functions(campaign, mapping):
    from irmeta.stats import matrices, reusability
    from irmeta.stats.risk import risk
    a = matrices(campaign, [NRG], groups=PATHS.groups)
    b = matrices(campaign, [NRG], groups=mapping)
    pd.testing.assert_frame_equal(a[NRG], b[NRG])
    a = reusability(campaign, ["AP"], PATHS.groups, depth=20, rare=None)
    b = reusability(campaign, ["AP"], mapping, depth=20, rare=None)
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.groups, b.groups)
    a = risk(PATHS.qrels, PATHS.runs[:4], [NRG], groups=PATHS.groups)
    b = risk(PATHS.qrels, PATHS.runs[:4], [NRG], groups=mapping)
    pd.testing.assert_frame_equal(a.table, b.table)


def test_explain(campaign, mapping):
    from irmeta.explain import explain_documents
    nrg = "NRG(prior=best_per_group)"
    run, topic = campaign.runs[0], campaign.topics[0]
    a = explain_documents(campaign, run, topic, nrg=nrg, groups=PATHS.groups)
    b = explain_documents(campaign, run, topic, nrg=nrg, groups=mapping)
    pd.testing.assert_frame_equal(a, b)


def test_report_analysis(mapping, tmp_path):
    """campaign_report / analyse_campaign read a groups file as the CLI's --groups: the
    campaign's runs, each with a group; the file's other names ignored."""
    from irmeta.report import ReportOptions, analyse_campaign
    from irmeta.report.options import SECTIONS
    campaign = irmeta.load_campaign(PATHS.qrels, PATHS.runs[:6])
    opts = ReportOptions(skip=frozenset(SECTIONS) - {"leaderboard"}, progress=False)
    a = analyse_campaign(campaign, opts, groups=PATHS.groups)
    b = analyse_campaign(campaign, opts,
                         groups={r: mapping[r] for r in campaign.runs})
    assert not a.leaderboard.own_groups
    pd.testing.assert_frame_equal(a.leaderboard.table, b.leaderboard.table)
    pd.testing.assert_frame_equal(a.leaderboard.best_per_group, b.leaderboard.best_per_group)
    lacking = tmp_path / "groups.txt"
    lacking.write_text(f"{campaign.runs[0]} g\n")
    with pytest.raises(CampaignError, match=r"groups\.txt: no group for run"):
        analyse_campaign(campaign, opts, groups=lacking)


def test_run_info_by_path_or_frame(tmp_path):
    from irmeta.report import ReportOptions, analyse_campaign
    from irmeta.report.options import SECTIONS
    campaign = irmeta.load_campaign(PATHS.qrels, PATHS.runs[:4])
    info = pd.DataFrame({"model": ["bm25", "bm25", "dense", "dense"]},
                        index=pd.Index(list(campaign.runs), name="run"))
    path = tmp_path / "run_info.tsv"
    info.to_csv(path, sep="\t")
    opts = ReportOptions(skip=frozenset(SECTIONS) - {"leaderboard"}, progress=False)
    a = analyse_campaign(campaign, opts, run_info=path)
    b = analyse_campaign(campaign, opts, run_info=info)
    pd.testing.assert_frame_equal(a.leaderboard.table, b.leaderboard.table)
    assert "model" in a.leaderboard.table.columns


@pytest.mark.parametrize("bad", [3, ["a", "b"], 1.5])
def test_other_types_are_refused_naming_both_forms(bad):
    with pytest.raises(ParameterError, match="mapping or the path of a groups file"):
        irmeta.evaluate(PATHS.qrels, PATHS.runs[:2], ["AP"], groups=bad)


def test_a_missing_groups_file_is_an_input_error():
    with pytest.raises(irmeta.IrmetaError, match="no_such_groups.txt"):
        irmeta.evaluate(PATHS.qrels, PATHS.runs[:2], [NRG], groups="no_such_groups.txt")
