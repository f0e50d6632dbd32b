"""One ``--format`` for every command that prints a table (docs/cli.md, "Formats").

``text`` (the default: an aligned table, ``--digits`` decimals), ``markdown`` (a GitHub
table), ``tsv`` and ``csv`` (a header line, floats at full precision), ``json`` (records,
floats at full precision, NaN as null). ``irmeta eval`` adds ``trec`` (trec_eval's layout,
its default) and ``irmeta meta leaderboard`` adds ``latex``.

CSV is what a spreadsheet opens, and a spreadsheet runs a cell that begins with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return as a formula (CSV injection): a run
named ``=cmd|'/C calc'!A0`` would. In ``csv`` every *text* cell (and header) that begins
so gets a leading ``'`` (OWASP's advice: :func:`csv_safe`); numbers are written as they
are (``-0.5`` stays a number). ``tsv`` and ``json`` are exact.
"""

from __future__ import annotations

import math
from typing import Any

from irmeta.cli.options import constrained, constrained_choice
from irmeta.constraints import DIGITS, Choice

#: the layouts of every table
TABLE_FORMATS = ("text", "markdown", "tsv", "csv", "json")
# DIGITS (imported above, re-exported): decimals of text and markdown tables
# (``--digits``); tsv/csv/json are full precision


def format_option(extra: tuple[str, ...] = (), default: str = "text", help: str = ""):
    """The ``--format`` option: :data:`TABLE_FORMATS` (and ``extra``), default ``text``."""
    choices = Choice(TABLE_FORMATS + tuple(extra))
    return constrained_choice("--format", "fmt", constraint=choices, default=default,
                              show_default=True,
                              help=help or "Table layout: text (aligned), markdown, or "
                                           "tsv / csv / json at full precision.")


def digits_option(default: int = 4):
    """``--digits``: decimals in text and markdown tables."""
    return constrained("--digits", constraint=DIGITS, default=default, show_default=True,
                       help="Decimals in text and markdown tables (tsv, csv and json keep "
                            "full precision).")


def _cell(v: Any, digits: int) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def markdown(frame, digits: int = 4, index: bool = True) -> str:
    """A pandas frame as a GitHub Markdown table (floats with ``digits`` decimals;
    numbers right-aligned)."""
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]
    rule = ["---" if i == 0 and index else "---:" for i in range(len(cols))]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(rule) + "|"]
    for row in frame.itertuples(index=True, name=None):
        key, values = row[0], row[1:]
        key = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        cells = ([key] if index else []) + [_cell(v, digits) for v in values]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


#: the first characters a spreadsheet takes as the start of a formula (OWASP, "CSV Injection")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """``value`` made safe for a spreadsheet: a string that begins with one of
    :data:`FORMULA_START` gets a leading ``'``; anything else is returned as it is.

    >>> csv_cell("=SUM(1+1)"), csv_cell("bm25"), csv_cell(-0.5)
    ("'=SUM(1+1)", 'bm25', -0.5)
    """
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_safe(frame):
    """A copy of ``frame`` whose text cells, index labels and column names are
    :func:`csv_cell`; numeric columns are untouched."""
    from pandas.api.types import is_numeric_dtype
    out = frame.copy()
    for col in out.columns:
        if not is_numeric_dtype(out[col].dtype):
            out[col] = out[col].astype(object).map(csv_cell)
    out.columns = out.columns.map(csv_cell)
    out.index = out.index.map(csv_cell)
    return out


def write_table(frame, out, fmt: str, digits: int = 4, index: bool = True,
                title: str | None = None, empty: str | None = None) -> None:
    """Write ``frame`` to the open text stream ``out`` in the layout ``fmt``.

    ``index``: the frame's index is a column; ``title``: a heading (``# title`` in text
    and as a comment line in tsv/csv, ``## title`` in markdown; json has none);
    ``empty``: the text table of an empty frame (``(no documents)``).
    """
    from irmeta.cli.common import json_records

    if fmt == "json":
        out.write(json_records(frame.reset_index() if index else frame))
        return
    if title:
        out.write({"text": f"# {title}\n\n", "markdown": f"## {title}\n\n"}
                  .get(fmt, f"# {title}\n"))
    if fmt == "markdown":
        out.write(markdown(frame, digits, index) + ("\n" if title else ""))
    elif fmt == "text":
        if frame.empty and empty is not None:
            out.write(empty + "\n")
            return
        out.write(frame.to_string(index=index, float_format=lambda v: f"{v:.{digits}f}")
                  + ("\n\n" if title else "\n"))
    elif fmt == "csv":
        csv_safe(frame).to_csv(out, index=index, lineterminator="\n")
    else:
        frame.to_csv(out, sep="\t", index=index, lineterminator="\n")
