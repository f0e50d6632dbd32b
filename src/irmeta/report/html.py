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

import base64
import contextlib
import math
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd
from markupsafe import Markup, escape

from irmeta.errors import ParameterError

__all__ = ["Cell", "Figure", "ReportWriter", "Row", "Section", "Table", "Text", "fmt_number",
           "markup", "save_figure"]


def markup(template: str, **values) -> Markup:
    """Trusted HTML ``template`` with ``{name}`` fields filled by escaped ``values``
    (``markup("run <b>{r}</b>", r=name)``)."""
    return Markup(template).format(**values)


def fmt_number(value, digits: int = 3) -> str:
    """Human formatting: integers as is (thousands separated), floats with ``digits``
    decimals, NaN/None as an en dash, booleans as yes/no."""
    if value is None:
        return "–"
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, numbers.Integral):
        return f"{int(value):,}"
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isnan(v):
            return "–"
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        if v == int(v) and abs(v) < 1e15 and digits == 0:
            return f"{int(v):,}"
        return f"{v:.{digits}f}"
    return str(value)


@dataclass
class Cell:
    """One table cell: ``text`` (escaped on output), an optional small ``note`` shown
    after it (e.g. a rank), the ``sort`` key used by the in-page sorter, a CSS class."""

    text: str
    sort: Any = None
    note: str = ""
    cls: str = ""
    href: str = ""


@dataclass
class Table:
    """A rendered table: ``columns`` (header labels), ``tips`` (header tooltips),
    ``rows`` of :class:`Cell`; ``tsv`` is the path of the full table written next to the
    HTML (relative to the HTML file), ``total_rows`` the rows in the TSV."""

    name: str
    columns: list[str]
    rows: list[list[Cell]]
    caption: Markup | str = ""
    tips: list[str] = field(default_factory=list)
    numeric: list[bool] = field(default_factory=list)
    tsv: str | None = None
    total_rows: int = 0
    sortable: bool = True
    kind: str = "table"
    compact: bool = False
    stacked: bool = False
    lower: list[bool] = field(default_factory=list)
    header_notes: list[str] = field(default_factory=list)


@dataclass
class Figure:
    """A figure block: base64 PNG ``data`` for embedding, ``files`` (relative paths of
    the PNG/SVG written next to the HTML), ``caption`` and ``alt`` text."""

    name: str
    data: str
    files: list[str]
    caption: Markup | str = ""
    alt: str = ""
    width: int | None = None
    kind: str = "figure"


@dataclass
class Text:
    """A paragraph (or any trusted HTML fragment, see :func:`html`)."""

    body: Markup | str
    kind: str = "text"


@dataclass
class Row:
    """Blocks shown side by side (wrapping on narrow screens)."""

    blocks: list
    kind: str = "row"


@dataclass
class Section:
    """A numbered report section: ``id`` (anchor), ``title``, ``intro`` paragraph and
    an ordered list of blocks (:class:`Table`, :class:`Figure`, :class:`Text`)."""

    id: str
    title: str
    intro: Markup | str = ""
    blocks: list = field(default_factory=list)
    skipped: str = ""

    def add(self, *blocks) -> "Section":
        self.blocks.extend(b for b in blocks if b is not None)
        return self

    def text(self, body) -> "Section":
        return self.add(Text(body))


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
        self._pending: dict = {}                 # Job -> Figure block it completes
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
        path = self.assets / f"{name}.tsv"
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
        note_of = {k: list(v) for k, v in (notes or {}).items()}
        link_of = {k: list(v) for k, v in (links or {}).items()}
        class_of = {k: list(v) for k, v in (classes or {}).items()}
        cols = list(frame.columns)
        shown = frame if max_rows is None else frame.head(max_rows)
        numeric = [pd.api.types.is_numeric_dtype(frame[c])
                   and not pd.api.types.is_bool_dtype(frame[c])
                   for c in cols]
        rows = []
        for i, rec in enumerate(shown.itertuples(index=False, name=None)):
            row = []
            sort: Any
            for c, v, isnum in zip(cols, rec, numeric):
                d = digits.get(c, 3) if isinstance(digits, Mapping) else digits
                if isinstance(v, (float, np.floating)) and isnum:
                    text = fmt_number(float(v), d)
                    sort = None if math.isnan(float(v)) else float(v)
                    if formats and c in formats and sort is not None:
                        text = formats[c](float(v))
                elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
                    text, sort = fmt_number(int(v)), int(v)
                else:
                    text = ("" if v is None or (isinstance(v, float) and math.isnan(v))
                            else fmt_number(v))
                    sort = text
                row.append(Cell(text, sort, note_of[c][i] if c in note_of else "",
                                class_of[c][i] if c in class_of else "",
                                link_of[c][i] if c in link_of else ""))
            rows.append(row)
        labels = labels or {}
        tips = tips or {}
        low = set(lower)
        return Table(name, [labels.get(c, str(c)) for c in cols], rows, caption,
                     [tips.get(c, "") for c in cols], numeric,
                     self._rel(path) if path is not None else None, len(frame),
                     sortable, compact=compact, stacked=stacked,
                     lower=[c in low or str(c) in ("#", "rank")
                            or (str(c).startswith("rank ") and str(c) != "rank change")
                            for c in cols],
                     header_notes=[(header_notes or {}).get(c, "") for c in cols])

    def figure(self, name: str, fig, *, caption="", alt: str = "",
               width: int | None = None) -> Figure:
        """Save a matplotlib figure as PNG (+ SVG) next to the HTML and embed the PNG.

        With ``background``, the figure is saved by a forked child process and the
        returned block is completed by :meth:`wait` (called by :meth:`render`)."""
        if self.background > 0:
            return self._figure_in_child(name, fig, caption, alt, width)
        written = save_figure(fig, self.assets / name, self.formats, dpi=self.dpi)
        self.files.extend(written)
        return self.figure_from_files(name, written, caption=caption, alt=alt, width=width)

    def figure_from_files(self, name: str, paths: Iterable, *, caption="", alt: str = "",
                          width: int | None = None) -> Figure:
        """A :class:`Figure` from image files already written (the PNG is embedded)."""
        paths = [Path(p) for p in paths]
        png = next((p for p in paths if p.suffix.lower() == ".png"), None)
        if png is None:
            raise ParameterError(f"ReportWriter.figure_from_files: no PNG among {paths}")
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        rel = [self._rel(p) if p.parent == self.assets
               else file_href(os.path.relpath(p, self.output.parent)) for p in paths]
        return Figure(name, data, rel, caption, alt or name, width)

    def _figure_in_child(self, name, fig, caption, alt, width) -> Figure:
        from irmeta.plot import style
        from irmeta.report.jobs import Job
        if "svg" in self.formats:   # imported here once, not again in every child
            import matplotlib.backends.backend_svg  # noqa: F401
        while len(self._pending) >= self.background:
            self._reap(next(iter(self._pending)))
        stem = self.assets / name
        job = Job(save_figure, fig, stem, self.formats, dpi=self.dpi)
        style.pyplot().close(fig)
        targets = [stem.with_name(f"{stem.name}.{fmt}") for fmt in self.formats]
        block = Figure(name, "", [self._rel(p) for p in targets], caption, alt or name, width)
        self._pending[job] = block
        return block

    def _reap(self, job) -> None:
        block = self._pending.pop(job)
        targets = job.result()                  # the child's exception is raised here
        png = next(p for p in targets if p.suffix == ".png")
        block.data = base64.b64encode(png.read_bytes()).decode("ascii")
        self.files.extend(targets)

    def wait(self) -> None:
        """Wait for the figures saved in the background and embed them."""
        for job in list(self._pending):
            self._reap(job)

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


def file_href(relative: str) -> str:
    """The ``href`` of a file the page writes, given its path relative to the page:
    URL-quoted (``%``, ``:``, ``#``, ``?``, spaces, newlines ... escaped; ``/`` kept) and
    prefixed with ``./``, so that no output name can make a link a scheme
    (``-o "javascript:alert(1)%0a.html"`` gave ``href="javascript:alert(1)%0a_files/..."``,
    which ran script), a host (``//``) or a fragment. Issue 22, item 9."""
    from urllib.parse import quote
    return "./" + quote(relative.replace(os.sep, "/"), safe="/")


def write_archive(page: Path, assets: Path, target: Path) -> Path:
    """``target``, a zip of ``page`` and every file of ``assets`` under their paths
    relative to the page's folder, so the page moves with its links intact.
    Byte-reproducible: names sorted, one fixed timestamp (1980-01-01), fixed
    permissions."""
    import zipfile
    members = [page] + sorted(p for p in assets.rglob("*") if p.is_file())
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for p in members:
            info = zipfile.ZipInfo(p.relative_to(page.parent).as_posix(),
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


def _figure_files(formats) -> str:
    """How the figures are saved, for the page footer: 'a PNG file', 'a PNG and an SVG
    file', 'PNG, SVG and PDF files'."""
    names = [f.upper() for f in formats]
    if len(names) == 1:
        return f"a {names[0]} file"
    if len(names) == 2:
        return f"a {names[0]} and an {names[1]} file" if names[1][0] in "AEFHILMNORSX" \
            else f"a {names[0]} and a {names[1]} file"
    return f"{', '.join(names[:-1])} and {names[-1]} files"


def save_figure(fig, stem, formats=("png", "svg"), dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``stem.<fmt>`` for each format (PNG at ``dpi``) in the house style
    of :mod:`irmeta.plot.style` (one draw per format, layout computed once), then close
    it."""
    from irmeta.plot import style
    return style.save(fig, stem, formats, dpi=dpi)


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
    HTML as is, ``& < > ' "`` replaced in anything else)."""
    return str(escape(value))


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

