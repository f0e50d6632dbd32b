"""The campaign report, end to end: :func:`campaign_report` analyses a campaign
(:func:`irmeta.report.analysis.analyse_campaign`: every number, no HTML), renders each
section (:mod:`irmeta.report.render`: tables, figures, prose from the templates) and
writes the page with its TSV, PNG and SVG files through
:class:`irmeta.report.html.ReportWriter`, into a staging folder that replaces an earlier
report at the same path as a whole.

Every random step uses ``seed``, so the report is reproduced exactly (same bytes) by the
command printed at its end.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping, cast

import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.report import render
from irmeta.report.analysis import CampaignAnalysis, analyse, check_inputs
from irmeta.report.html import ReportWriter, Row, Section, StepClock, Text
from irmeta.report.options import SECTIONS, ReportOptions

__all__ = ["CampaignReport", "campaign_report"]


@dataclass
class CampaignReport:
    """What :func:`campaign_report` wrote: the HTML ``path``, every file written next to
    it (``files``), the leaderboard frame, wall/CPU seconds per step (``timings``), the
    analysis the page shows (``analysis``) and ``zip``, the archive of the page with all
    its files (``<stem>.zip`` next to it)."""

    path: Path
    files: list[Path]
    leaderboard: pd.DataFrame
    timings: dict[str, tuple[float, float]]
    analysis: CampaignAnalysis | None = None
    zip: Path | None = None


def campaign_report(campaign: Campaign, output="report.html", *,
                    groups: Mapping[str, str] | None = None,
                    options: ReportOptions | None = None,
                    reference: Campaign | None = None, prior_runs=None,
                    inputs: Mapping[str, object] | None = None,
                    command: str | None = None, title: str | None = None,
                    run_info=None) -> CampaignReport:
    """Evaluate ``campaign`` and write the HTML report ``output`` with its TSV tables,
    matrices (TSV, Parquet) and PNG/SVG figures in ``<output stem>_files/``, and the
    whole as ``<output stem>.zip``.

    ``campaign``: a :class:`Campaign`, or a campaign open shard by shard
    (:func:`irmeta.open_shards`; the same page, ``docs/scaling.md``).
    ``groups``: run -> group (NRG prior ``best_per_group``, colours); without it every
    run is its own group. ``reference``: rarity reference runs of P_rare / AP_rare
    (:func:`irmeta.evaluate`'s ``reference``); ``prior_runs``: an explicit NRG prior set
    (used when ``options.nrg_prior`` is ``auto``). ``inputs``: what to print as the
    inputs (e.g. ``{"qrels": path, "runs": [paths], "groups": path}``). ``command``: the
    command line that reproduces the report (printed at its end). ``run_info``: run
    attributes (a TSV path or a DataFrame indexed by run: leaderboard columns, filters,
    colours), replacing ``options.run_info`` when given. Returns a
    :class:`CampaignReport`.
    """
    opts = options or ReportOptions()
    if run_info is not None:
        opts = replace(opts, run_info=run_info)
    opts = opts.validate()
    groups, own_groups, prior, prior_runs = check_inputs(
        campaign, opts, groups, reference, prior_runs, "campaign_report")
    active = [s for s in SECTIONS if s not in opts.skip]
    bar = _progress(3 + len(active), opts.progress)
    clock = StepClock(bar)
    background = opts.background or 0                     # validate() set it
    w = ReportWriter(output, title or "Campaign report", background=background, tidy_tsv=True,
                     archive=True)
    try:
        with _one_blas_thread(background):
            analysis = analyse(campaign, opts, groups=groups, own_groups=own_groups,
                               prior=prior, reference=reference, prior_runs=prior_runs,
                               inputs=inputs, clock=clock)
            with clock.step("render"):
                path = write_report(analysis, w, command)
                archive = zip_path(path)
    finally:
        bar.close()
        with contextlib.suppress(Exception):
            w.wait()                                       # no zombie children on errors
        w.discard()                   # after an error: no partial report, the old one kept
    return CampaignReport(path, list(w.files), analysis.leaderboard.table, clock.timings,
                          analysis, archive)


def zip_path(page: Path) -> Path:
    """Where the archive of a page goes: ``<stem>.zip`` next to it."""
    return page.with_suffix(".zip")


def write_report(analysis: CampaignAnalysis, w: ReportWriter, command: str | None) -> Path:
    """Render every section of ``analysis`` into ``w`` (skipped ones say so; the inputs
    come last) and write the page; returns its path."""
    from irmeta import __version__

    for name in SECTIONS:
        if name in analysis.options.skip:
            view = render.skipped(name)
        elif name == "leaderboard":
            view = render.leaderboard(analysis.leaderboard, analysis.per_topic,
                                      analysis.defaults)
        else:
            view = _BUILDERS[name](getattr(analysis, name))
        w.sections.append(write_section(view, w))
    w.sections.append(write_section(render.inputs(analysis.inputs), w))
    return w.render(subtitle=render.subtitle(analysis.inputs),
                    summary=render.summary(analysis.highlights, analysis.inputs.renamed),
                    version=__version__,
                    command=command or "irmeta report (API: irmeta.report.campaign_report)")


def write_section(view: render.SectionView, w: ReportWriter) -> Section:
    """The page section of a rendered view, its tables and figures written by ``w``."""
    section = Section(view.id, view.title, view.intro, skipped=view.skipped)
    section.add(*(_write_block(block, w) for block in view.blocks))
    return section


def _write_block(view, w: ReportWriter):
    if isinstance(view, render.TableView):
        return w.table(view.name, view.frame, **view.options)
    if isinstance(view, render.FigureView):
        block = w.figure(view.name, view.figure, caption=view.caption, alt=view.alt,
                         width=view.width)
        if view.data is not None:
            block.files.append(w._rel(w.write_tsv(view.name, view.data, index=view.data_index)))
        return block
    if isinstance(view, render.DataView):
        w.write_tsv(view.name, view.frame, index=view.index)
        return None
    if isinstance(view, Row):
        return Row([_write_block(b, w) for b in view.blocks])
    if isinstance(view, render.RunDetails):
        return RunBlock(view.anchor, view.run, _write_block(view.table, w), note=view.note)
    if isinstance(view, render.Downloads):
        return write_matrices(view.matrices, w)
    if isinstance(view, render.PaperTables):
        return write_paper_tables(view.files, w)
    return view                                            # Text


@dataclass
class RunBlock:
    """A run's per-topic table, collapsed under its name (``<details id=anchor>``)."""

    anchor: str
    run: str
    table: Any
    kind: str = "details"
    note: str = ""            # the line under the run's name (render.RunDetails.note)


@dataclass
class MatrixFiles:
    """Links to every measure's runs x topics matrix: ``files`` = (measure, TSV path)
    pairs, ``parquet`` = the path of the file holding them all."""

    files: list
    parquet: str
    kind: str = "downloads"


def write_paper_tables(files: Mapping[str, str], w: ReportWriter) -> Text:
    """Write the leaderboard's LaTeX and Markdown files next to the page and a line
    linking them (:class:`irmeta.report.render.PaperTables`)."""
    from irmeta.report.render import prose
    links = []
    for name, text in files.items():
        path = w.assets / name
        path.write_text(text, encoding="utf-8")
        w.files.append(path)
        links.append((name.rsplit(".", 1)[-1], w._rel(path)))
    return Text(prose("paper_tables", links=links))


def matrix_file_name(measure: str) -> str:
    """``matrix_<measure>`` with the characters a URL or a shell would trip on
    (anything but letters, digits, ``_ . @ = -``) replaced by ``_``; the measure
    string itself is the file's first column header."""
    import re
    return "matrix_" + re.sub(r"[^A-Za-z0-9_.@=-]", "_", measure)


def write_matrices(matrices: Mapping[str, pd.DataFrame], w: ReportWriter) -> MatrixFiles:
    """One TSV per measure (runs x topics, rounded like every TSV; the header's first
    cell is the measure string) and ``matrices.parquet``: every value at full
    precision, long format ``measure, run, topic, value``."""
    files, parts, used = [], [], set()
    for measure, m in matrices.items():
        name = matrix_file_name(measure)
        while name in used:
            name += "_"
        used.add(name)
        frame = m.copy()
        frame.index.name = measure
        frame.columns = [str(t) for t in frame.columns]
        files.append((measure, w._rel(w.write_tsv(name, frame, index=True))))
        long = cast(pd.Series, m.stack(future_stack=True)).rename("value").reset_index()
        long.columns = ["run", "topic", "value"]
        long.insert(0, "measure", measure)
        parts.append(long.astype({"run": str, "topic": str}))
    path = w.assets / "matrices.parquet"
    pd.concat(parts, ignore_index=True).to_parquet(path, index=False, compression="zstd")
    w.files.append(path)
    return MatrixFiles(files, w._rel(path))


#: section id -> its renderer (called with the section's analysis)
_BUILDERS: dict[str, Callable[[Any], render.SectionView]] = {
    "leaderboard": render.leaderboard, "innovation": render.innovation, "nrg": render.nrg,
    "effort": render.effort, "topics": render.topics, "trust": render.trust}


def _progress(total: int, enabled: bool | None):
    from tqdm.auto import tqdm
    if enabled is None:
        enabled = sys.stderr.isatty() and not os.environ.get("IRMETA_NO_PROGRESS")
    return tqdm(total=total, desc="irmeta report", disable=not enabled, file=sys.stderr,
                leave=False, dynamic_ncols=True, unit="step")


def _one_blas_thread(background: int):
    """With figures drawn in child processes, the BLAS of this process runs on one
    thread: the report's matrix products are small, and BLAS worker threads spinning
    while they wait take the cores the figure processes need (measured: 2 CPU-s of the
    demo report on 2 cores). Without background figures, nothing changes."""
    if not background:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
    return threadpool_limits(limits=1, user_api="blas")
