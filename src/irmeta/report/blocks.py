"""The blocks of an irmeta HTML page — :class:`Section`, :class:`Table` (of
:class:`Cell`), :class:`Figure`, :class:`Text`, :class:`Row` — and how a DataFrame
becomes a table's cells (:func:`table_block`, :func:`fmt_number`). Part of
:mod:`irmeta.report.html`, which re-exports these names (issue 33, item 0: the
``ReportWriter`` split into small parts; the layout: docs/report.md).
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd
from markupsafe import Markup


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


def table_block(name: str, frame: pd.DataFrame, href: str | None, *, caption="",
                digits: int | Mapping = 3, notes: Mapping[str, Iterable[str]] | None = None,
                classes: Mapping[str, Iterable[str]] | None = None,
                tips: Mapping[str, str] | None = None, labels: Mapping[str, str] | None = None,
                max_rows: int | None = None, sortable: bool = True, compact: bool = False,
                stacked: bool = False, links: Mapping[str, Iterable[str]] | None = None,
                lower: Iterable[str] = (),
                formats: Mapping[str, Callable[[float], str]] | None = None,
                header_notes: Mapping[str, str] | None = None) -> Table:
    """The :class:`Table` of ``frame`` (its cells formatted, sort keys, notes, links);
    ``href``: its TSV's link (None: none). The options are those of
    :meth:`irmeta.report.html.ReportWriter.table`, which writes the TSV and calls this."""
    note_of = {k: list(v) for k, v in (notes or {}).items()}
    link_of = {k: list(v) for k, v in (links or {}).items()}
    class_of = {k: list(v) for k, v in (classes or {}).items()}
    cols = list(frame.columns)
    shown = frame if max_rows is None else frame.head(max_rows)
    numeric = [pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c])
               for c in cols]
    columns = []              # the cells column by column (a float column at once)
    for j, (c, isnum) in enumerate(zip(cols, numeric)):
        d = digits.get(c, 3) if isinstance(digits, Mapping) else digits
        col = shown.iloc[:, j]
        n = len(col)
        notes_c, classes_c, links_c = (_padded(of.get(c), n)
                                       for of in (note_of, class_of, link_of))
        fmt = formats.get(c) if formats else None
        if isnum and isinstance(col.dtype, np.dtype) and col.dtype.kind == "f":
            texts, sorts = _float_cells(col.to_numpy().tolist(), d, fmt)
        else:
            texts, sorts = _cells(col, d, isnum, fmt)
        columns.append([Cell(t, k, note, cls, href) for t, k, note, cls, href
                        in zip(texts, sorts, notes_c, classes_c, links_c)])
    rows = [list(r) for r in zip(*columns)] if columns else [[] for _ in range(len(shown))]
    labels = labels or {}
    tips = tips or {}
    low = set(lower)
    return Table(name, [labels.get(c, str(c)) for c in cols], rows, caption,
                 [tips.get(c, "") for c in cols], numeric,
                 href, len(frame),
                 sortable, compact=compact, stacked=stacked,
                 lower=[c in low or str(c) in ("#", "rank")
                        or (str(c).startswith("rank ") and str(c) != "rank change")
                        for c in cols],
                 header_notes=[(header_notes or {}).get(c, "") for c in cols])


def _padded(values: list | None, n: int) -> list:
    """``values`` (notes, classes or links of a column) as ``n`` strings."""
    values = values or []
    return values + [""] * (n - len(values)) if len(values) < n else values


def _float_cells(values: list, d, fmt) -> tuple[list, list]:
    """Texts and sort keys of a float column's cells: :func:`fmt_number` of each value
    (with ``d`` digits), inlined (the tables of the 63 appendix pages have 75,000 cells)."""
    texts: list[str] = []
    sorts: list[Any] = []
    for v in values:
        if v != v:
            texts.append("–")
            sorts.append(None)
            continue
        if math.isinf(v):
            text = "∞" if v > 0 else "−∞"
        elif d == 0 and v == int(v) and abs(v) < 1e15:
            text = f"{int(v):,}"
        else:
            text = f"{v:.{d}f}"
        texts.append(fmt(v) if fmt is not None else text)
        sorts.append(v)
    return texts, sorts


def _cells(col: pd.Series, d, isnum: bool, fmt) -> tuple[list, list]:
    """Texts and sort keys of any other column's cells, value by value."""
    texts: list[str] = []
    sorts: list[Any] = []
    for v in col:
        sort: Any
        if isinstance(v, (float, np.floating)) and isnum:
            text = fmt_number(float(v), d)
            sort = None if math.isnan(float(v)) else float(v)
            if fmt is not None and sort is not None:
                text = fmt(float(v))
        elif isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            text, sort = fmt_number(int(v)), int(v)
        else:
            text = ("" if v is None or (isinstance(v, float) and math.isnan(v))
                    else fmt_number(v))
            sort = text
        texts.append(text)
        sorts.append(sort)
    return texts, sorts


def file_href(relative: str) -> str:
    """The ``href`` of a file the page writes, given its path relative to the page:
    URL-quoted (``%``, ``:``, ``#``, ``?``, spaces, newlines ... escaped; ``/`` kept) and
    prefixed with ``./``, so that no output name can make a link a scheme
    (``-o "javascript:alert(1)%0a.html"`` gave ``href="javascript:alert(1)%0a_files/..."``,
    which ran script), a host (``//``) or a fragment. Issue 22, item 9."""
    from urllib.parse import quote
    return "./" + quote(relative.replace(os.sep, "/"), safe="/")
