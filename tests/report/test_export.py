"""Per-participant export (issue 47, item 1): ``report --export-groups DIR`` and
:func:`irmeta.report.export_groups` write one folder and one zip per group holding its
runs' appendix pages and the campaign-wide tables, and nothing of another group's runs;
``best_per_group.tsv`` equals a recomputation from the leaderboard."""

from __future__ import annotations

import re
import zipfile

import pandas as pd
import pytest

from irmeta.cli.main import main
from irmeta.errors import ParameterError
from irmeta.report.export import CAMPAIGN_TABLES, export_groups, safe_names

#: a whole demo report (session fixture) and reports of the tiny campaign
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def exported(demo_report, tmp_path_factory):
    rep, _ = demo_report
    return rep, export_groups(rep, tmp_path_factory.mktemp("mail") / "groups")


def test_a_folder_and_a_zip_per_group_with_only_its_runs(exported):
    from irmeta.demo import demo_groups
    rep, done = exported
    groups = demo_groups()
    assert sorted(g for g, *_ in done.groups) == sorted(set(groups.values()))
    assert sorted(p.name for p in done.folder.iterdir()) == sorted(
        [g for g, *_ in done.groups] + [f"{g}.zip" for g, *_ in done.groups])
    every_run = set(groups)
    for group, folder, archive, runs in done.groups:
        assert set(runs) == {r for r, g in groups.items() if g == group}
        pages = sorted(p.name for p in (folder / "runs").glob("*.html"))
        assert len(pages) == len(runs)
        others = every_run - set(runs)
        for p in (folder / "runs").iterdir():             # nothing of another group's runs
            text = p.read_text(encoding="utf-8", errors="replace") if p.suffix != ".png" \
                else ""
            assert not any(f"Appendix: {o}<" in text for o in others), (group, p.name)
        for p in (folder / "runs").glob("*.tsv"):
            assert set(pd.read_csv(p, sep="\t")["run"]) <= set(runs)
        assert not (folder / "per_topic_runs.tsv").exists()
        assert {p.name for p in folder.iterdir()} == {"index.html", "runs",
                                                      *CAMPAIGN_TABLES}
        index = (folder / "index.html").read_text(encoding="utf-8")
        links = set(re.findall(r'href="\./runs/([^"]+\.html)"', index))
        assert links == set(pages)
        for name in pages:                                 # back to the group's index
            html = (folder / "runs" / name).read_text(encoding="utf-8")
            assert 'href="./../index.html"' in html and "report.html" not in html
        with zipfile.ZipFile(archive) as z:
            names = sorted(z.namelist())
        assert names == sorted(f"{folder.name}/{p.relative_to(folder).as_posix()}"
                               for p in folder.rglob("*") if p.is_file())


def test_the_copied_pages_are_the_reports(exported):
    rep, done = exported
    assets = rep.path.parent / "report_files" / "runs"
    group, folder, _, runs = done.groups[0]
    for p in (folder / "runs").iterdir():
        original = (assets / p.name).read_bytes()
        if p.suffix == ".html":
            original = original.replace(b'href="./../../report.html"',
                                        b'href="./../index.html"')
        assert p.read_bytes() == original, p.name


def test_best_per_group_equals_a_recomputation(demo_report):
    """``best_per_group.tsv``: per group its best run by the primary measure (the first
    in campaign order on a tie), its value, its competition rank among all runs (1 + the
    runs with a larger mean), the group's rank among the groups' best, its run count."""
    from irmeta.demo import demo_groups, demo_paths
    rep, _ = demo_report
    folder = rep.path.parent / "report_files"
    best = pd.read_csv(folder / "best_per_group.tsv", sep="\t")
    board = pd.read_csv(folder / "leaderboard.tsv", sep="\t")
    primary = rep.analysis.leaderboard.primary
    means = dict(zip(board["run"], board[primary]))
    campaign_order = [p.name.removesuffix(".txt.gz") for p in demo_paths().runs]
    groups = demo_groups()
    want = {}
    for g in set(groups.values()):
        runs = [r for r in campaign_order if groups[r] == g]
        top = max(means[r] for r in runs)
        want[g] = next(r for r in runs if means[r] == top)
    assert dict(zip(best["group"], best["best_run"])) == want
    for row in best.itertuples():
        assert row.rank_of_all_runs == 1 + sum(v > means[row.best_run]
                                               for v in means.values())
        assert row.runs_of_the_group == sum(g == row.group for g in groups.values())
        assert getattr(row, "_4") == pytest.approx(means[row.best_run], abs=1e-6)
    by_value = sorted(want.values(), key=lambda r: -means[r])
    assert list(best.sort_values("group_rank")["best_run"]) == by_value


def test_safe_names_are_distinct_bounded_and_inside():
    names = safe_names(["..", ".", "a/b", "A/B", "x" * 200, "x" * 199 + "y", "", "ünï"])
    values = list(names.values())
    assert len({v.lower() for v in values}) == len(values)
    assert all(v not in (".", "..", "") and "/" not in v and len(v) <= 80 for v in values)


def test_export_needs_groups_and_the_appendix(tmp_path):
    from irmeta.report import ReportOptions, campaign_report
    from tests.report import tiny
    opts = ReportOptions(progress=False, background=0, ci_trials=50, rare_cutoff=10,
                         skip=frozenset({"innovation", "effort", "topics", "trust"}))
    rep = campaign_report(tiny.campaign(), tmp_path / "r.html", options=opts)
    with pytest.raises(ParameterError, match="written without groups"):
        export_groups(rep, tmp_path / "out")
    rep2 = campaign_report(tiny.campaign(), tmp_path / "s.html",
                           groups={r: "g" for r in tiny.RUNS},
                           options=ReportOptions(**{**opts.__dict__,
                                                    "skip": opts.skip | {"appendix"}}))
    with pytest.raises(ParameterError, match="has no appendix"):
        export_groups(rep2, tmp_path / "out")
    with pytest.raises(ParameterError, match="inside the report's own folder"):
        export_groups(rep, tmp_path / "r_files" / "mail")
    assert not (tmp_path / "out").exists()


def test_cli_refuses_before_any_work(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
    runs = []
    for name in ("a", "b"):
        p = tmp_path / f"{name}.txt"
        p.write_text(f"1 Q0 d1 1 2 {name}\n1 Q0 d2 2 1 {name}\n2 Q0 d1 1 1 {name}\n")
        runs.append(str(p))
    out = tmp_path / "r.html"
    assert main(["report", str(qrels), *runs, "-o", str(out), "--export-groups",
                 str(tmp_path / "mail")]) == 2
    assert "--export-groups needs --groups" in capsys.readouterr().err
    groups = tmp_path / "groups.txt"
    groups.write_text("a g1\nb g2\n")
    assert main(["report", str(qrels), *runs, "--groups", str(groups), "-o", str(out),
                 "--skip", "appendix", "--export-groups", str(tmp_path / "mail")]) == 2
    assert "does not apply with --skip appendix" in capsys.readouterr().err
    (tmp_path / "afile").write_text("x")
    assert main(["report", str(qrels), *runs, "--groups", str(groups), "-o", str(out),
                 "--export-groups", str(tmp_path / "afile" / "mail")]) == 2
    assert "cannot write" in capsys.readouterr().err
    assert not out.exists()                                 # nothing was evaluated


def test_cli_writes_the_folders_and_replaces_them_whole(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n2 0 d3 1\n")
    runs = []
    for name, order in (("a", "d1 d2 d3"), ("b", "d2 d1 d3"), ("c", "d3 d1 d2")):
        p = tmp_path / f"{name}.txt"
        p.write_text("".join(f"{t} Q0 {d} {k} {9 - k} {name}\n" for t in (1, 2)
                             for k, d in enumerate(order.split(), 1)))
        runs.append(str(p))
    groups = tmp_path / "groups.txt"
    groups.write_text("a g1\nb g1\nc g/2\n")
    mail = tmp_path / "mail"
    argv = ["report", str(qrels), *runs, "--groups", str(groups), "-o",
            str(tmp_path / "r.html"), "--skip", "innovation,effort,topics,trust",
            "--discpower-trials", "20", "--ci-trials", "50", "--no-progress",
            "--export-groups", str(mail)]
    assert main(argv) == 0
    assert sorted(p.name for p in mail.iterdir()) == ["g1", "g1.zip", "g_2", "g_2.zip"]
    assert len(list((mail / "g1" / "runs").glob("*.html"))) == 2
    (mail / "stale.txt").write_text("old")
    assert main(argv) == 0                                  # replaced as a whole
    assert not (mail / "stale.txt").exists()
    assert "2 group folders and zips" in capsys.readouterr().err
