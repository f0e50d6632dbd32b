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
from typing import Any, Mapping, cast

import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.report import render
from irmeta.report.analysis import CampaignAnalysis, analyse, check_inputs
from irmeta.report.html import ReportWriter, Row, Section, StepClock, Text, file_href
from irmeta.report.options import SECTIONS, ReportOptions
from irmeta.report.registry import REGISTRY
from irmeta.report.views.appendix import AppendixPages, BarsView, Collapsed

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

    def __repr__(self) -> str:
        from irmeta.data.display import tables_repr
        return tables_repr("CampaignReport", f"{self.path}, {len(self.files)} files"
                           + (f", zip {self.zip.name}" if self.zip else ""),
                           {"leaderboard": self.leaderboard})

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"leaderboard": self.leaderboard})


def campaign_report(campaign: Campaign, output="report.html", *,
                    groups: Mapping[str, str] | str | os.PathLike[str] | None = None,
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
    ``groups``: run -> group (NRG prior ``best_per_group``, colours), or the path of a
    groups file (``run group`` lines, read as ``--groups``); without it every run is
    its own group. ``reference``: rarity reference runs of P_rare / AP_rare
    (:func:`irmeta.evaluate`'s ``reference``); ``prior_runs``: an explicit NRG prior set
    (used when ``options.nrg_prior`` is ``auto``). ``inputs``: what to print as the
    inputs (e.g. ``{"qrels": path, "runs": [paths], "groups": path}``). ``command``: the
    command line that reproduces the report (printed at its end). ``title``: the page
    title (default: the campaign information's title, else ``Campaign report``).
    ``run_info``: run
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
    info = opts.campaign_info
    title = title or (info.title if info is not None else None) or "Campaign report"
    w = ReportWriter(output, title, background=background, tidy_tsv=True,
                     archive=True)
    try:
        with _one_blas_thread(background):
            analysis = analyse(campaign, opts, groups=groups, own_groups=own_groups,
                               prior=prior, reference=reference, prior_runs=prior_runs,
                               inputs=inputs, clock=clock)
            with clock.step("render"), _located_write_errors(w):
                path = write_report(analysis, w, command)
                archive = zip_path(path)
    finally:
        bar.close()
        with contextlib.suppress(Exception):
            w.wait()                                       # no zombie children on errors
        w.discard()                   # after an error: no partial report, the old one kept
    return CampaignReport(path, list(w.files), analysis.leaderboard.table, clock.timings,
                          analysis, archive)


@contextlib.contextmanager
def _located_write_errors(w: ReportWriter):
    """An ``OSError`` of a write not already located (pandas' or Arrow's writers, a
    figure saved in a child job: a full disk, issue 32) becomes the located
    ``cannot write PATH: REASON`` (exit 2), naming the file where the report puts it
    (``<stem>_files/...``), not its hidden staging copy."""
    from irmeta.errors import OutputError
    from irmeta.io.output import output_error
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        where = Path(exc.filename) if isinstance(exc.filename, str) else w.final_assets
        try:
            where = w.final_assets / where.relative_to(w.assets)
        except ValueError:
            pass
        if exc.errno:       # the system's words, not Arrow's "Error writing bytes ..."
            exc = OSError(exc.errno, os.strerror(exc.errno))
        raise output_error(where, exc) from exc


def zip_path(page: Path) -> Path:
    """Where the archive of a page goes: ``<stem>.zip`` next to it."""
    return page.with_suffix(".zip")


def write_report(analysis: CampaignAnalysis, w: ReportWriter, command: str | None) -> Path:
    """Render every section of ``analysis`` into ``w`` (skipped ones say so; the inputs
    come last) and write the page; returns its path."""
    from irmeta import __version__

    for section in REGISTRY:
        if section.skip is not None and section.skip in analysis.options.skip:
            view = render.skipped(section.name)
        else:
            view = section.render(analysis)
        w.sections.append(write_section(view, w))
    return w.render(subtitle=render.subtitle(analysis.inputs),
                    campaign=analysis.inputs.campaign,
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
        return w.table(view.name, view.frame, **_with_assets(view.options, w))
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
    if isinstance(view, AppendixPages):
        write_appendix(view, w)
        return None
    return view                                            # Text


def _with_assets(options: dict, w: ReportWriter) -> dict:
    """``options`` with the :data:`~irmeta.report.views.common.ASSETS` placeholder of
    its links replaced by the link to the page's ``<stem>_files`` folder."""
    links = options.get("links")
    if not links:
        return options
    from irmeta.report.views.common import ASSETS
    folder = w._rel(w.assets / "x").rsplit("/", 1)[0]     # ./<stem>_files, URL-quoted
    return {**options, "links": {c: [h.replace(ASSETS, folder, 1) if h.startswith(ASSETS)
                                     else h for h in v] for c, v in links.items()}}


def write_appendix(pages: AppendixPages, w: ReportWriter) -> None:
    """Write every :class:`~irmeta.report.views.appendix.RunPage` as
    ``<stem>_files/runs/<anchor>.html`` (self-contained: CSS inline, the figure embedded
    as PNG), with ``<anchor>.tsv`` (the run's rows of ``per_topic_runs.tsv``) and
    ``<anchor>_vs_median.png`` beside it. The page links back to the report by a
    relative link, so the folder moves with the report."""
    from irmeta.plot.meta import VsMedianBars
    from irmeta.report.html import environment
    folder = w.assets / "runs"
    folder.mkdir(exist_ok=True)
    template = environment().get_template("appendix.html.j2")
    report = file_href(f"../../{w.output.name}")
    bars = VsMedianBars(pages.topics, pages.measure, pages.limit)
    try:
        for page in pages.pages:
            _write_page(page, folder, template, bars, report, pages, w)
    finally:
        bars.close()


def _write_page(page, folder: Path, template, bars, report: str, pages: AppendixPages,
                w: ReportWriter) -> None:
    """One appendix page with its TSV and figure (:func:`write_appendix`)."""
    from irmeta import __version__
    from irmeta.io.output import bounded_file_name
    from irmeta.report.html import tidy_frame
    stem = bounded_file_name(page.anchor)
    data = folder / f"{stem}.tsv"
    if page.data is not None:
        tidy_frame(page.data).to_csv(data, sep="\t", index=False, lineterminator="\n",
                                     na_rep="", float_format="%.6g")
        w.files.append(data)
    blocks = [_page_block(b, folder, stem, w, bars) for b in page.blocks]
    html = template.render(title=page.title, blocks=blocks, version=__version__,
                           campaign=pages.campaign, report_title=w.title,
                           report_href=report, data_href=file_href(data.name))
    target = folder / f"{stem}.html"
    target.write_text(html, encoding="utf-8", newline="\n")
    w.files.append(target)


def _page_block(view, folder: Path, stem: str, w: ReportWriter, bars):
    """A block of an appendix page: tables link no TSV of their own (the page's one TSV
    holds every row), the figure is saved as PNG beside the page and embedded."""
    import base64

    from irmeta.report.html import Figure, table_block
    if isinstance(view, render.TableView):
        options = {k: v for k, v in view.options.items() if k not in ("tsv", "write")}
        return table_block(view.name, view.frame, None, **options)
    if isinstance(view, BarsView):
        image = bars.png(view.values, view.run)       # the bars only: VsMedianBars
        png = folder / f"{stem}_vs_median.png"
        png.write_bytes(image)
        w.files.append(png)
        data = base64.b64encode(image).decode("ascii")
        return Figure("vs_median", data, [file_href(png.name)], view.caption, view.alt)
    if isinstance(view, Collapsed):
        return RunBlock(view.anchor, view.run,
                        _page_block(view.table, folder, stem, w, bars), note=view.note)
    return view


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
    string itself is the file's first column header. A long measure (a parameterised
    gain map) is cut to a readable prefix and a hash
    (:func:`irmeta.io.output.bounded_file_name`)."""
    import re

    from irmeta.io.output import bounded_file_name
    return bounded_file_name("matrix_" + re.sub(r"[^A-Za-z0-9_.@=-]", "_", measure))


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
    try:
        pd.concat(parts, ignore_index=True).to_parquet(path, index=False, compression="zstd")
    except OSError as exc:                      # Arrow's error names no file
        exc.filename = str(path)
        raise
    w.files.append(path)
    return MatrixFiles(files, w._rel(path))


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
