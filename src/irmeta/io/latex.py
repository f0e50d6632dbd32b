"""LaTeX tables that compile into a paper as they are (issue 24, item 2).

:func:`latex_table` writes one table: a ``table`` (or ``table*``) float with a caption and
a label, booktabs rules (``\\toprule``, ``\\midrule``, ``\\bottomrule``), cells in bold
and with superscripts where asked, every piece of text escaped (:func:`escape`). Past
``long_after`` rows (default 40, about what fits on a page in ``\\small``) the table is a
``longtable`` instead: it breaks across pages, repeats its header on each page and keeps
its caption and label. A ``longtable`` is not a float and works in one-column layout only
(LaTeX stops with "longtable not in 1-column mode" in a two-column class): in a
two-column paper put it in a one-column appendix, or raise ``long_after`` and let the
float hold every row.

The preamble the tables need is :data:`PREAMBLE` (``booktabs``; ``longtable`` for long
tables). Only ``\\textbf``, ``$^{...}$``, ``\\small`` and the rules are used; the tests
compile them with pdfLaTeX (tests/stats/test_latex_fit.py). XeLaTeX and LuaLaTeX are not
tested, so not claimed (docs/compare.md, "Run names beyond ASCII").

This is a writer of text, below every layer that computes: the callers
(:mod:`irmeta.stats.comparison`, :mod:`irmeta.stats.leaderboard`) format their numbers
and give cells.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LABEL_FORBIDDEN", "LONG_AFTER", "PREAMBLE", "Cell", "Raw", "check_label", "escape",
           "label_key", "latex_table", "wrapped"]

#: the packages a table of :func:`latex_table` needs, as preamble lines
PREAMBLE = ("\\usepackage{booktabs}", "\\usepackage{longtable}")
#: rows above which :func:`latex_table` writes a ``longtable`` (one page of ``\small`` rows)
LONG_AFTER = 40
#: the space on each side of a column (LaTeX's default is 6pt); set inside the table only
COLSEP = "4pt"

_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
            "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
            "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
            "|": r"\textbar{}"}


def escape(text: object) -> str:
    """``text`` as LaTeX source that prints it: ``\\ & % $ # _ { } ~ ^`` (and ``< > |``,
    which the default font prints as other glyphs) are replaced by their commands.

    Examples
    --------
    >>> print(escape("run_1 & 50% #2 {x} ~a^b \\\\"))
    run\\_1 \\& 50\\% \\#2 \\{x\\} \\textasciitilde{}a\\textasciicircum{}b \\textbackslash{}
    """
    return "".join(_SPECIAL.get(ch, ch) for ch in str(text))


#: characters a ``\\label{...}`` cannot hold: ``%`` comments out the rest of the line,
#: ``#`` and ``\\`` are macro syntax, braces unbalance the argument
LABEL_FORBIDDEN = "%#\\{}"


def label_key(text: str) -> str:
    """A LaTeX label fragment from ``text``: letters, digits, ``-``, ``.`` and ``:`` kept,
    every other run of characters one ``-`` (``nDCG@10`` -> ``nDCG-10``)."""
    return re.sub(r"[^A-Za-z0-9.:-]+", "-", text).strip("-") or "x"


@dataclass(frozen=True)
class Cell:
    """One table cell: ``text`` (plain, escaped by the writer), shown in bold when
    ``bold``, followed by ``sup``: LaTeX source written as is after it, a superscript
    such as ``\\textsuperscript{2--5}`` or ``$^{\\ast}$`` (empty for none)."""

    text: str
    bold: bool = False
    sup: str = ""

    def latex(self) -> str:
        body = escape(self.text)
        if self.bold:
            body = f"\\textbf{{{body}}}"
        return body + self.sup


@dataclass(frozen=True)
class Raw:
    """A cell or header written as is (LaTeX source: ``\\multicolumn{2}{c}{AP}``)."""

    source: str

    def latex(self) -> str:
        return self.source


def wrapped(text: str, width: str) -> Raw:
    """``text`` (plain, escaped) in a ``\\parbox`` of ``width`` in ``\\scriptsize``,
    broken after its commas: a long list of run numbers takes several short lines
    instead of widening the table."""
    if not text:
        return Raw("")
    body = ",\\allowbreak ".join(escape(part) for part in text.split(","))
    return Raw(f"\\parbox[t]{{{width}}}{{\\raggedright\\scriptsize {body}}}")


def _row(cells: Sequence[Cell | Raw | str]) -> str:
    return " & ".join(c.latex() if isinstance(c, (Cell, Raw)) else escape(c)
                      for c in cells) + r" \\"


def check_label(label: str) -> None:
    """A ParameterError unless ``label`` can stand in ``\\label{...}`` (not empty, none of
    :data:`LABEL_FORBIDDEN`)."""
    bad = sorted(set(label) & set(LABEL_FORBIDDEN))
    if bad or not label.strip():
        from irmeta.errors import ParameterError
        raise ParameterError(
            f"LaTeX label {label!r}: " + (f"contains {' '.join(bad)}, which end or break a "
                                          "\\label{...}" if bad else "is empty")
            + " (expected letters, digits and - : . _, e.g. tab:compare-ap)")


def latex_table(header: Sequence[str | Raw], rows: Sequence[Sequence[Cell | Raw | str]], *,
                caption: str, label: str, align: str, wide: bool = False,
                long_after: int = LONG_AFTER) -> str:
    """One table as LaTeX source (see the module doc).

    Parameters
    ----------
    header : sequence of str or Raw
        Column titles (plain text, escaped; :class:`Raw` for a ``\\multicolumn``).
    rows : sequence of rows
        Each a sequence of :class:`Cell`, :class:`Raw` or plain strings, one per column.
    caption : str
        LaTeX source of the caption (the caller escapes its plain parts with :func:`escape`).
    label : str
        The ``\\label`` (``tab:...``); referenced with ``\\ref``.
    align : str
        The column specification (``rlrr``), one letter per column.
    wide : bool
        ``table*`` (across both columns of a two-column paper) instead of ``table``.
    long_after : int
        More rows than this give a ``longtable`` (header repeated on every page).

    Returns
    -------
    str
        The source, ending with a newline.
    """
    if any(len(r) != len(align) for r in rows):
        raise ValueError("latex_table: every row needs one entry per column of align")
    check_label(label)
    head = _row(header)
    body = [_row(r) for r in rows]
    if len(rows) > long_after:
        n = len(align)
        return "\n".join([
            "{\\small", f"\\setlength{{\\tabcolsep}}{{{COLSEP}}}",
            f"\\begin{{longtable}}{{{align}}}",
            f"\\caption{{{caption}}}\\label{{{label}}}\\\\", r"\toprule", head, r"\midrule",
            r"\endfirsthead",
            f"\\multicolumn{{{n}}}{{l}}{{\\emph{{Table~\\thetable, continued}}}}\\\\",
            r"\toprule", head, r"\midrule", r"\endhead",
            r"\midrule", f"\\multicolumn{{{n}}}{{r}}{{\\emph{{continued on the next page}}}}\\\\",
            r"\endfoot", r"\bottomrule", r"\endlastfoot",
            *body, r"\end{longtable}", "}", ""])
    env = "table*" if wide else "table"
    return "\n".join([
        f"\\begin{{{env}}}[tbp]", r"\centering", r"\small",
        f"\\setlength{{\\tabcolsep}}{{{COLSEP}}}",
        f"\\caption{{{caption}}}", f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{align}}}", r"\toprule", head, r"\midrule", *body,
        r"\bottomrule", r"\end{tabular}", f"\\end{{{env}}}", ""])
