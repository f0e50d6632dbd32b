"""A folder and a zip per participating group, ready to mail (issue 47, item 1).

:func:`export_groups` reads a finished report (its ``<stem>_files/appendix.tsv``, written
with ``--groups``) and writes into ``folder``, for every group ``G``:

* ``folder/<G>/index.html`` — a self-contained page: the campaign, the group's runs
  (rank, primary mean, link to each run's page) and the campaign-wide tables;
* ``folder/<G>/runs/`` — the appendix page of each of the group's runs, with its TSV and
  bar chart, the page's link back to the report pointing to ``../index.html``;
* the campaign-wide tables every participant gets: ``leaderboard.tsv`` (``.md``,
  ``.tex``), ``per_topic_summary.tsv`` (per topic its best, median and worst),
  ``best_per_group.tsv``, ``inputs.tsv`` and ``parameters.tsv`` (what produced the
  numbers);
* ``folder/<G>.zip`` — the same folder zipped (byte-reproducible: names sorted, one
  timestamp).

Nothing of another group's runs is copied: no other run's page, per-topic TSV or bar
chart, and not ``per_topic_runs.tsv`` (every run's per-topic values). The leaderboard
names every run, as the published results do. ``<G>`` is the group name with
characters outside ``[A-Za-z0-9_.-]`` replaced by ``_``, at most 80 characters, made
distinct ignoring case (:func:`safe_names`). The whole folder is built aside and swapped
in at once (:class:`irmeta.io.output.StagedFolder`): a second export replaces the first,
a failed one leaves it as it was.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from irmeta.errors import ParameterError

__all__ = ["CAMPAIGN_TABLES", "GroupExport", "export_groups", "safe_names"]

#: the campaign-wide files of a report every group's folder gets (when the report has them)
CAMPAIGN_TABLES = ("leaderboard.tsv", "leaderboard.md", "leaderboard.tex",
                   "per_topic_summary.tsv", "best_per_group.tsv", "inputs.tsv",
                   "parameters.tsv")


@dataclass(frozen=True)
class GroupExport:
    """What :func:`export_groups` wrote: ``folder``, and per group (in the order of the
    report's appendix) ``(group, its folder, its zip, its runs)``."""

    folder: Path
    groups: tuple[tuple[str, Path, Path, tuple[str, ...]], ...]


def safe_names(names) -> dict[str, str]:
    """A file-system name per name: characters outside ``[A-Za-z0-9_.-]`` replaced by
    ``_``, at most 80 characters (:func:`irmeta.io.output.bounded_file_name`), never
    ``.`` or ``..``, a number appended where two would collide ignoring case."""
    from irmeta.io.output import bounded_file_name
    out: dict[str, str] = {}
    taken: set[str] = set()
    for k, name in enumerate(names):
        base = re.sub(r"[^A-Za-z0-9_.-]", "_", str(name)) or "_"
        base = bounded_file_name("_" + base if set(base) <= {"."} else base)
        safe, n = base, k
        while safe.lower() in taken:
            safe, n = bounded_file_name(f"{base}-{n}"), n + 1
        taken.add(safe.lower())
        out[str(name)] = safe
    return out


def _report_paths(report) -> tuple[Path, Path]:
    path = Path(getattr(report, "path", report))
    return path, path.parent / f"{path.stem}_files"


def export_groups(report, folder) -> GroupExport:
    """Write a folder and a zip per group of the finished ``report`` (a
    :class:`~irmeta.report.assemble.CampaignReport` or the path of its HTML page) into
    ``folder`` (see the module doc). The report must have been written with groups and
    its appendix (not ``--skip appendix``): a :class:`~irmeta.errors.ParameterError`
    otherwise."""
    import pandas as pd

    from irmeta.io.output import StagedFolder, write_errors
    page, assets = _report_paths(report)
    out = Path(folder)
    if out.resolve() == assets.resolve() or assets.resolve() in out.resolve().parents:
        raise ParameterError(f"export_groups: {out} is inside the report's own folder "
                             f"{assets}, which the next report replaces")
    table_path = assets / "appendix.tsv"
    if not table_path.is_file():
        raise ParameterError(f"export_groups: {page} has no appendix ({table_path} is "
                             "missing): write the report without skipping the appendix")
    table = pd.read_csv(table_path, sep="\t", dtype=str, keep_default_na=False)
    if "group" not in table.columns:
        raise ParameterError(f"export_groups: {page} was written without groups: give "
                             "--groups (groups=) to the report to export per group")
    groups = list(dict.fromkeys(table["group"]))
    names = safe_names(groups)
    stage = StagedFolder(out)
    try:
        written = []
        for group in groups:
            rows = table[table["group"] == group]
            target = stage.path / names[group]
            with write_errors(target):
                _write_group(group, rows, page, assets, target)
            archive = stage.path / f"{names[group]}.zip"
            with write_errors(archive):
                _zip(target, archive)
            written.append((group, out / names[group], out / archive.name,
                            tuple(rows["run"])))
        stage.publish()
    except BaseException:
        stage.discard()
        raise
    return GroupExport(out, tuple(written))


def _write_group(group: str, rows, page: Path, assets: Path, target: Path) -> None:
    """One group's folder (module doc)."""
    import shutil

    from irmeta import __version__
    from irmeta.report.blocks import file_href
    from irmeta.report.html import environment
    runs_dir = target / "runs"
    runs_dir.mkdir(parents=True)
    back = f'href="{file_href("../../" + page.name)}"'
    for name in rows["page"]:
        stem = name.removesuffix(".html")
        html = (assets / "runs" / name).read_text(encoding="utf-8")
        (runs_dir / name).write_text(html.replace(back, 'href="./../index.html"'),
                                     encoding="utf-8", newline="\n")
        for extra in (f"{stem}.tsv", f"{stem}_vs_median.png"):
            if (assets / "runs" / extra).is_file():
                shutil.copyfile(assets / "runs" / extra, runs_dir / extra)
    tables = [t for t in CAMPAIGN_TABLES if (assets / t).is_file()]
    for t in tables:
        shutil.copyfile(assets / t, target / t)
    title = _report_title(page)
    primary = [c for c in rows.columns if c not in ("#", "run", "group", "page")]
    html = environment().get_template("export_index.html.j2").render(
        title=title, group=group, version=__version__, primary=primary[0] if primary else "",
        runs=[(r["#"], r["run"], _three(r[primary[0]]) if primary else "",
               file_href("runs/" + r["page"])) for _, r in rows.iterrows()],
        tables=[(t, file_href(t)) for t in tables])
    (target / "index.html").write_text(html, encoding="utf-8", newline="\n")


def _three(text: str) -> str:
    """A mean of ``appendix.tsv`` (6 significant digits) with 3 decimals, as the report
    shows it; an empty cell (NaN) stays empty."""
    try:
        return f"{float(text):.3f}" if text else ""
    except ValueError:
        return text


def _report_title(page: Path) -> str:
    """The report page's ``<title>`` (unescaped), or its file name."""
    import html
    text = page.read_text(encoding="utf-8") if page.is_file() else ""
    found = re.search(r"<title>(.*?)</title>", text, flags=re.S)
    return html.unescape(found.group(1)) if found else page.stem


def _zip(folder: Path, target: Path) -> None:
    """``target``: every file of ``folder`` under ``<folder name>/...``, byte-reproducible
    (names sorted; :func:`irmeta.report.html.write_zip`)."""
    from irmeta.report.html import write_zip
    write_zip(sorted(p for p in folder.rglob("*") if p.is_file()), folder.parent, target)
