"""Rendering machinery shared by every irmeta HTML report (campaign report, paper
reproductions): a :class:`ReportWriter` collects *blocks* — tables, figures, text —
grouped in :class:`Section` objects, writes each table as TSV and each figure as PNG +
SVG into ``<name>_files/`` next to the HTML file, and renders one self-contained HTML
page with Jinja2 (``templates/report.html.j2``): plots embedded as base64 PNG, CSS and a
small table sorter inline, no network access needed to view it. Everything is written to
a staging folder first and replaces an earlier report at the same path as a whole in
:meth:`ReportWriter.render` (:class:`irmeta.io.output.StagedFolder`).

Typical use::

    w = ReportWriter("report.html", title="My analysis")
    sec = w.section("results", "Results", intro="What this shows.")
    sec.add(w.table("scores", frame, caption="Mean scores.", digits=3))
    sec.add(w.figure("scatter", fig, caption="One point per run."))
    w.render(inputs=[("qrels", "q.txt")], parameters=[...], command="irmeta ...")

A report made of other sections (``irmeta reproduce``) reuses all of this: only the
sections differ. matplotlib is imported only when a figure is saved.
"""

from __future__ import annotations

import contextlib
import os
import re
from pathlib import Path
from typing import Callable, Iterable, Mapping

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from irmeta.errors import ParameterError
from irmeta.io.output import bounded_file_name
from irmeta.report.blocks import Cell as Cell
from irmeta.report.blocks import Figure, Section, Table, Text, fmt_number, table_block
from irmeta.report.blocks import Row as Row
from irmeta.report.blocks import file_href as file_href
from irmeta.report.blocks import markup as markup
from irmeta.report.figure_files import FigureFiles, _figure_files
from irmeta.report.figure_files import save_figure as save_figure

__all__ = ["Cell", "Figure", "ReportWriter", "Row", "Section", "Table", "Text", "fmt_number",
           "markup", "save_figure"]


class ReportWriter:
    """Collect sections, write tables (TSV) and figures (PNG + SVG) to
    ``<output stem>_files/`` and render the HTML page (see module doc).

    ``output``: path of the HTML file; ``title``: the page title; ``formats``: figure
    files written next to the HTML (the PNG is always written: it is what is embedded).
    ``background``: draw and save up to this many figures at once in forked child
    processes while the caller goes on computing (POSIX only; 0 = in this process). The
    files are the same either way; :meth:`render` (or :meth:`wait`) collects them.
    """

    def __init__(self, output, title: str = "irmeta report", *, formats=("png", "svg"),
                 dpi: int = 150, background: int = 0, tidy_tsv: bool = False,
                 archive: bool = False):
        self.output = Path(output)
        if self.output.suffix.lower() not in (".html", ".htm"):
            raise ParameterError(f"ReportWriter: output must end in .html, got {str(output)!r}")
        from irmeta.io.output import StagedFolder
        #: where the tables and figures end up; until :meth:`render` publishes them they
        #: are written to :attr:`assets`, a folder of the same name in a staging folder
        self.final_assets = self.output.parent / f"{self.output.stem}_files"
        self._stage = StagedFolder(self.final_assets)
        self.assets = self._stage.path
        self.title = title
        self.formats = tuple(dict.fromkeys(("png", *formats)))
        self.dpi = dpi
        self.background = int(background) if hasattr(os, "fork") else 0
        self.tidy_tsv = tidy_tsv
        #: also write ``<output stem>.zip`` (the page and its folder) when publishing
        self.archive = archive
        self._figures = FigureFiles(self)        # saved here or in children
        self.sections: list[Section] = []
        self.files: list[Path] = []

    # ------------------------------------------------------------------ blocks
    def _rel(self, path: Path) -> str:
        """Link (``href``) to an asset, relative to the HTML file (:func:`file_href`)."""
        return file_href(f"{self.assets.name}/{path.name}")

    def section(self, id: str, title: str, intro="") -> Section:
        """A new section appended to the report."""
        sec = Section(id, title, intro)
        self.sections.append(sec)
        return sec

    def write_tsv(self, name: str, frame: pd.DataFrame, index: bool = False) -> Path:
        """Write ``frame`` as ``<assets>/<name>.tsv`` (NaN empty): at full precision,
        or with ``tidy_tsv`` as :func:`tidy_frame` makes it (integers as integers,
        floats to 6 significant digits, ASCII column names)."""
        path = self.assets / f"{bounded_file_name(name)}.tsv"
        if self.tidy_tsv:
            frame = tidy_frame(frame.reset_index() if index else frame)
            index = False
            frame.to_csv(path, sep="\t", index=False, lineterminator="\n", na_rep="",
                         float_format="%.6g")
        else:
            frame.to_csv(path, sep="\t", index=index, lineterminator="\n", na_rep="")
        self.files.append(path)
        return path

    def table(self, name: str, frame: pd.DataFrame, *, caption="", digits: int | Mapping = 3,
              index: bool = False, notes: Mapping[str, Iterable[str]] | None = None,
              classes: Mapping[str, Iterable[str]] | None = None,
              tips: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
              max_rows: int | None = None, tsv: pd.DataFrame | None = None,
              sortable: bool = True, compact: bool = False, stacked: bool = False,
              links: Mapping[str, Iterable[str]] | None = None,
              lower: Iterable[str] = (), write: bool = True,
              formats: Mapping[str, Callable[[float], str]] | None = None,
              header_notes: Mapping[str, str] | None = None) -> Table:
        """A :class:`Table` from a DataFrame, its TSV written next to the HTML.

        ``digits``: decimals of float columns (one int, or ``{column: int}``);
        ``notes``/``classes``: per-column sequences of small annotations / CSS classes,
        one per row; ``tips``: header tooltips; ``labels``: header text;
        ``max_rows``: rows shown in the page (the TSV keeps all; the caption says how
        many are shown) — the campaign report shows every row, in a box that scrolls
        under a header that sticks; ``tsv``: a different frame to write as the TSV
        (default ``frame``); ``links``: per-column sequences of link targets (``""``:
        none); ``lower``: columns where lower is better (the first click sorts them
        ascending; so do ``#``, ``rank`` and ``rank <measure>``); ``write``:
        write the TSV (False: the rows are in another file, the table links none);
        ``formats``: per-column functions of a finite float giving its text (the sort
        key stays the number); ``header_notes``: small print under a header (e.g.
        the relevance level a measure counts).
        """
        frame = frame.reset_index() if index else frame
        path = self.write_tsv(name, frame if tsv is None else tsv) if write else None
        return table_block(name, frame, self._rel(path) if path is not None else None,
                           caption=caption, digits=digits, notes=notes, classes=classes,
                           tips=tips, labels=labels, max_rows=max_rows, sortable=sortable,
                           compact=compact, stacked=stacked, links=links, lower=lower,
                           formats=formats, header_notes=header_notes)

    def figure(self, name: str, fig, *, caption="", alt: str = "",
               width: int | None = None) -> Figure:
        """Save a matplotlib figure as PNG (+ SVG) next to the HTML and embed the PNG.

        With ``background``, the figure is saved by a forked child process and the
        returned block is completed by :meth:`wait` (called by :meth:`render`)."""
        return self._figures.figure(name, fig, caption, alt, width)

    def figure_from_files(self, name: str, paths: Iterable, *, caption="", alt: str = "",
                          width: int | None = None) -> Figure:
        """A :class:`Figure` from image files already written (the PNG is embedded)."""
        return self._figures.from_files(name, paths, caption=caption, alt=alt, width=width)

    def wait(self) -> None:
        """Wait for the figures saved in the background and embed them."""
        self._figures.wait()

    # ------------------------------------------------------------------ render
    def render(self, template: str = "report.html.j2", **context) -> Path:
        """Render the sections with ``template`` (a file in ``irmeta/report/templates``)
        into the HTML file; ``context`` is passed to the template (e.g. ``subtitle``,
        ``summary``, ``inputs``, ``parameters``, ``command``, ``version``)."""
        from irmeta import __version__
        self.wait()
        context = {"subtitle": "", "summary": [], "version": __version__,
                   "command": "", "figure_files": _figure_files(self.formats), **context}
        if self.archive:
            context["archive"] = self.output.with_suffix(".zip").name
            context["archive_href"] = file_href(context["archive"])
        env = environment()
        page = env.get_template(template).render(title=self.title, sections=self.sections,
                                                 assets=self.assets.name, **context)
        self.publish(page)
        return self.output

    def publish(self, page: str) -> None:
        """Write the HTML ``page`` (and the archive) and swap the staged companion folder
        in whole: no file of an earlier report at this path survives, and until this point
        the earlier report is untouched (see :mod:`irmeta.io.output`). The archive is
        built from the staged files, inside this writer's own staging folder, so a report
        written to the same path by another process at the same time can neither share
        its temporary name nor move its files away mid-read (issue 22, item 9)."""
        from irmeta.io.output import write_errors
        staged_page = self._stage.root / self.output.name
        sidecars = [staged_page]
        with write_errors(self.output):
            staged_page.write_text(page, encoding="utf-8", newline="\n")
        if self.archive:
            target = self._stage.root / self.output.with_suffix(".zip").name
            with write_errors(self.output.with_suffix(".zip")):
                sidecars.append(write_archive(staged_page, self.assets, target))
        self._stage.publish(sidecars=sidecars)
        self.files = [self.final_assets / p.relative_to(self.assets)
                      if p.is_relative_to(self.assets) else p for p in self.files]
        self.assets = self.final_assets

    def discard(self) -> None:
        """Delete what was written so far, unless published (a failed or interrupted
        report leaves the previous one as it was)."""
        self._stage.discard()


def write_archive(page: Path, assets: Path, target: Path) -> Path:
    """``target``, a zip of ``page`` and every file of ``assets`` under their paths
    relative to the page's folder, so the page moves with its links intact.
    Byte-reproducible: names sorted, one fixed timestamp (1980-01-01), fixed
    permissions."""
    members = [page] + sorted(p for p in assets.rglob("*") if p.is_file())
    return write_zip(members, page.parent, target)


def write_zip(members, root: Path, target: Path) -> Path:
    """``target``, a zip of the files ``members`` under their paths relative to ``root``,
    in the given order; byte-reproducible: one fixed timestamp (1980-01-01), fixed
    permissions (the report's archive, the per-group export's zips)."""
    import zipfile
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for p in members:
            info = zipfile.ZipInfo(p.relative_to(root).as_posix(),
                                   date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, p.read_bytes())
    return target


#: non-ASCII characters of the report's column names and what a TSV header says instead
_ASCII = {"α": "alpha", "Δ": "delta", "τ": "tau", "ρ": "rho", "σ": "sigma", "≥": ">=",
          "≤": "<=", "–": "-", "—": "-", "×": "x", "·": "."}


def ascii_name(name) -> str:
    """A column name for a TSV header: Greek letters spelt out, spaces as ``_``, any
    other non-ASCII character dropped (measure strings are ASCII and stay as they are)."""
    text = "".join(_ASCII.get(ch, ch) for ch in str(name)).replace(" / ", "_per_")
    text = text.replace(" ", "_")
    return text.encode("ascii", "ignore").decode("ascii")


def tidy_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as a TSV reader wants it: ASCII column names (:func:`ascii_name`),
    float columns whose every defined value is a whole number as integers (ranks,
    counts; NaN stays empty). Floats are rounded when written (6 significant digits);
    full precision is in the Parquet file of the matrices."""
    out = frame.copy()
    out.columns = [ascii_name(c) for c in out.columns]
    for i in range(out.shape[1]):
        col = out.iloc[:, i]
        if pd.api.types.is_float_dtype(col.dtype):
            v = col.to_numpy(dtype=float)
            v = v[~np.isnan(v)]
            if len(v) and np.isfinite(v).all() and (v == np.round(v)).all() \
                    and np.abs(v).max() < 2 ** 53:
                out.isetitem(i, col.astype("Int64").array)
    return out


def environment():
    """The Jinja2 environment of the report templates (autoescaping on)."""
    import jinja2
    env = jinja2.Environment(loader=jinja2.PackageLoader("irmeta.report", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
                             trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["num"] = fmt_number
    env.filters["table_rows"] = table_rows
    return env


def table_rows(t: Table) -> Markup:
    """The ``<tr>`` lines of a table's body, exactly as the template's loop over the
    cells wrote them (one line per row, every value escaped as Jinja escapes it):
    written here because the loop in the template cost a Jinja call and a Markup object
    per cell (27,700 cells on the DL21 report)."""
    numeric = t.numeric
    lines = []
    for row in t.rows:
        parts = ["      <tr>"]
        for i, c in enumerate(row):
            num = numeric[i]
            parts.append("<td")
            if num or c.cls:
                parts.append(f' class="{"num " if num else ""}{_escape(c.cls)}"')
            if c.sort is not None:
                parts.append(f' data-sort="{_escape(c.sort)}"')
            parts.append(">")
            if c.href:
                parts.append(f'<a href="{_escape(c.href)}">{_escape(c.text)}</a>')
            else:
                parts.append(_escape(c.text))
            if c.note:
                parts.append(f' <span class="note">{_escape(c.note)}</span>')
            parts.append("</td>")
        parts.append("</tr>\n")
        lines.append("".join(parts))
    return Markup("".join(lines))


def _escape(value) -> str:
    """The text Jinja writes for ``{{ value }}``: :func:`markupsafe.escape` (trusted
    HTML as is, ``& < > ' "`` replaced in anything else). A plain string without those
    characters, and a float or an int, are their own text: returned without building a
    ``Markup`` (a tenth of the cost; the 63 appendix pages escape 220,000 cells)."""
    kind = type(value)
    if kind is str:
        if not _SPECIAL.search(value):
            return value
    elif kind is float or kind is int:
        return str(value)
    return str(escape(value))


#: the characters :func:`markupsafe.escape` replaces
_SPECIAL = re.compile("[&<>'\"]")


class StepClock:
    """Wall and CPU seconds of the steps of a long job (``timings``: ``{step: (wall s,
    CPU s)}``), advancing a tqdm progress bar by one per step. Shared by ``irmeta report``
    and ``irmeta reproduce``."""

    def __init__(self, bar):
        self.bar = bar
        self.timings: dict[str, tuple[float, float]] = {}

    @contextlib.contextmanager
    def step(self, name: str):
        import time
        self.bar.set_postfix_str(name)
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.timings[name] = (time.perf_counter() - w0, time.process_time() - c0)
            self.bar.update(1)
