"""Compare systems and publish the table: runs x measures with significance (issue 24).

:func:`compare` evaluates runs (or takes ``{measure: systems x topics matrix}`` or
:class:`~irmeta.Results`) and tests, for every measure, every pair of runs — or every run
against a ``baseline`` — with one of the tests of :mod:`irmeta.stats.significance`
(the same functions, names and values as ``irmeta meta significance``). It returns a
:class:`Comparison`: frozen, numbers only (DataFrames), rendered afterwards as text,
Markdown, HTML (``_repr_html_`` for notebooks), LaTeX (:mod:`irmeta.io.latex`: a float
with caption and label that compiles as it is) or JSON; :meth:`Comparison.to_frame` is
one row per (measure, run A, run B).

Decisions (docs/compare.md):

* **Default test: paired t with Holm's correction within each measure.** ranx's
  ``compare`` uses Student's paired t without correction; with 63 runs that is 1,953
  tests per measure, about 98 "significant" pairs expected at level 0.05 when no run
  differs at all. Holm controls the family-wise error under any dependence between the
  tests and is uniformly more powerful than Bonferroni; ``fdr_bh`` (Benjamini-Hochberg,
  false discovery rate) and ``none`` remain available. The Tukey procedures control the
  family-wise error themselves: their correction is none (another is refused).
* **One family per measure.** The correction runs over the pairs of one measure (all
  pairs, or the ``R - 1`` comparisons with the baseline), never across measures: a table
  with three measures answers three questions.
* **Markers that scale.** Runs are numbered by their mean of the first measure (``#``,
  best first; ties keep the given order). A run's marker under a measure lists the
  numbers of the runs it is significantly better than, as ranges (``2-5,7``): 63 runs
  need no alphabet, and a run that beats everyone below it prints one range. With a
  baseline the marker is ``↑`` (significantly better than the baseline) or ``↓`` (worse).
* **Best value in bold** per measure: every run whose mean equals the largest exactly
  (ties all bold); all measures here are "higher is better".
* ``p_adjusted`` equals ``p_value`` when no correction is used (the column is always
  the p-value that decides).
* Random tests (``randomisation``, ``bootstrap``, ``randomised_tukey_hsd``) use the same
  ``seed`` for every measure; the result reproduces bit for bit.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError
from irmeta.io.latex import Cell, escape, label_key
from irmeta.stats._common import score_matrix
from irmeta.stats.significance import CORRECTIONS, TESTS, options_for

__all__ = ["COMPARE_TESTS", "LATEX_LAYOUTS", "PAIR_COLUMNS", "Comparison", "TexBlock",
           "TexColumn", "compare", "compare_matrices", "fitted_latex", "key_ranges",
           "latex_text", "run_column", "text_width"]

#: the tests :func:`compare` runs (``pairwise_tukey`` is for reproducing a paper only)
COMPARE_TESTS = ("paired_t", "wilcoxon", "randomisation", "bootstrap", "tukey_hsd",
                 "randomised_tukey_hsd")
#: tests that control the family-wise error of all pairs themselves (no correction)
FAMILYWISE = ("tukey_hsd", "randomised_tukey_hsd")
#: the columns of :meth:`Comparison.to_frame`, in order (the first eight are the TSV's
#: promised columns; the rest follow)
PAIR_COLUMNS = ("measure", "run_a", "run_b", "mean_a", "mean_b", "p_value", "p_adjusted",
                "significant", "diff", "effect", "statistic", "ci_low", "ci_high", "wins",
                "ties", "losses")
#: longest marker written as a superscript in LaTeX; longer ones get their own column
SUPERSCRIPT_CHARS = 12
#: markers of the comparisons with a baseline
BETTER, WORSE = "↑", "↓"

_TEST_NAMES = {"paired_t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
               "randomisation": "Fisher randomisation test",
               "bootstrap": "paired bootstrap test (Sakai)", "tukey_hsd": "Tukey HSD",
               "randomised_tukey_hsd": "randomised Tukey HSD"}
_CORRECTION_NAMES = {"bonferroni": "Bonferroni", "holm": "Holm",
                     "fdr_bh": "Benjamini-Hochberg"}


def key_ranges(keys: Sequence[int], dash: str = "-") -> str:
    """Sorted run numbers as ranges: ``[2, 3, 4, 5, 7]`` -> ``"2-5,7"``.

    Examples
    --------
    >>> key_ranges([7, 2, 3, 4, 5, 9, 10])
    '2-5,7,9-10'
    >>> key_ranges([])
    ''
    """
    out: list[str] = []
    ks = sorted(set(int(k) for k in keys))
    i = 0
    while i < len(ks):
        j = i
        while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
            j += 1
        out.append(str(ks[i]) if j == i else f"{ks[i]}{dash}{ks[j]}")
        i = j + 1
    return ",".join(out)


def _definition(measure: str) -> str | None:
    """A short definition of a measure string for a caption (None if it does not parse)."""
    from irmeta.errors import IrmetaError
    from irmeta.measures.parse import parse_measure
    try:
        parsed = parse_measure(measure)
    except IrmetaError:
        return None
    if len(parsed) != 1:
        return None
    m = parsed[0]
    text = re.split(r" \(|;", m.definition.description)[0].strip()
    if m.cutoff is not None:
        text, n = re.subn(r"\b[kK]\b", str(m.cutoff), text)
        if not n:
            text += f" at cut-off {m.cutoff}"
    return text


# ---------------------------------------------------------------------- LaTeX that fits
#: ``layout=`` of :meth:`Comparison.to_latex` and :func:`irmeta.stats.leaderboard.to_latex`
#: (docs/compare.md, "Tables that fit the page"): ``auto`` picks one of the others
LATEX_LAYOUTS = ("auto", "float", "wide", "long", "landscape")
#: the narrowest width (pt) each layout is planned for: ``float`` one column of a
#: two-column 10-pt class (article: 229.5pt; ACM's 241pt), ``wide`` (``table*``) and
#: ``long`` the text block of a one-column 10-pt article (345pt; two-column classes are
#: wider: article 469pt, ACM 506pt), ``landscape`` the text height (article: 550pt)
LAYOUT_WIDTH = {"float": 229.0, "wide": 345.0, "long": 345.0, "landscape": 550.0}
#: the space on each side of a column (pt) in these tables (LaTeX's default is 6pt)
TABLE_COLSEP = 3.0
#: the narrowest column of wrapped markers (pt): holds ``100--199,`` in ``\scriptsize``
MARKS_MIN = 34.0
#: widest run-name column (pt) before names wrap (after ``- _ .``) inside it
RUN_MAX = 96.0
#: the packages a layout needs (written as the table's leading ``% \usepackage`` lines)
LAYOUT_PACKAGES = {"float": ("booktabs",), "wide": ("booktabs",),
                   "long": ("booktabs", "longtable"),
                   "landscape": ("booktabs", "longtable", "pdflscape")}

#: code points pdfLaTeX's default set-up (UTF-8 input, OT1 fonts) prints as they are;
#: measured with pdflatex (TeX Live 2022): the rest of Latin-1 and Latin Extended-A
#: needs ``\usepackage[T1]{fontenc}`` (``ð þ ą ę đ ŋ``) and is written without its accent
PDFLATEX_SAFE = ((0x00A0, 0x00AA), (0x00AC, 0x00BA), (0x00BC, 0x00CF), (0x00D1, 0x00DD),
                 (0x00DF, 0x00EF), (0x00F1, 0x00FD), (0x00FF, 0x0103), (0x0106, 0x010F),
                 (0x0112, 0x0117), (0x011A, 0x0125), (0x0128, 0x012D), (0x0130, 0x0137),
                 (0x0139, 0x013E), (0x0141, 0x0148), (0x014C, 0x0165), (0x0168, 0x0171),
                 (0x0174, 0x017E), (0x2013, 0x2014), (0x2018, 0x2019), (0x201C, 0x201D),
                 (0x2020, 0x2022), (0x2026, 0x2026), (0x20AC, 0x20AC))
_GREEK = dict(zip("αβγδεζηθικλμνξπρσςτυφχψω",
                  r"\alpha \beta \gamma \delta \epsilon \zeta \eta \theta \iota \kappa "
                  r"\lambda \mu \nu \xi \pi \rho \sigma \varsigma \tau \upsilon \phi \chi "
                  r"\psi \omega".split()))
_GREEK.update(zip("ΓΔΘΛΞΠΣΥΦΨΩ", r"\Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Upsilon "
                  r"\Phi \Psi \Omega".split()))
_GREEK_LATIN = dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΧο", "ABEZHIKMNOPTXo"))
_INVISIBLE = {0x200D, *range(0xFE00, 0xFE10)}      # joiner, variation selectors


def _pdflatex_safe(code: int) -> bool:
    return any(lo <= code <= hi for lo, hi in PDFLATEX_SAFE)


def latex_text(text: object) -> str:
    """``text`` as LaTeX source that pdfLaTeX compiles with no package (run names,
    measures): ASCII escaped as :func:`irmeta.io.latex.escape` does; accented Latin
    letters pdfLaTeX prints (:data:`PDFLATEX_SAFE`) as they are, others without their
    accent; Greek letters as math letters (``$\\alpha$``; Alpha as ``A``); any other
    character (CJK, emoji, Cyrillic, ...) as its code point ``[U+4E2D]``, since
    pdfLaTeX has no glyph for it (the TSV, Markdown and HTML keep the names as they are).

    Examples
    --------
    >>> print(latex_text("bm25_α-中"))
    bm25\\_\\ensuremath{\\alpha}-[U+4E2D]
    """
    import unicodedata
    out = []
    for ch in unicodedata.normalize("NFC", str(text)):
        code = ord(ch)
        if code < 128:
            out.append(escape(ch))
        elif _pdflatex_safe(code):
            out.append(ch)
        elif code in _INVISIBLE:
            continue
        else:
            base = unicodedata.normalize("NFD", ch)[0]
            if base in _GREEK:
                out.append(f"\\ensuremath{{{_GREEK[base]}}}")
            elif base in _GREEK_LATIN:
                out.append(_GREEK_LATIN[base])
            elif base != ch and (ord(base) < 128 or _pdflatex_safe(ord(base))):
                out.append(escape(base))
            else:
                out.append(f"[U+{code:04X}]")
    return "".join(out)


def _printed(text: str) -> str:
    """Roughly what :func:`latex_text` prints (for width estimates)."""
    src = re.sub(r"\\ensuremath\{\\[A-Za-z]+\}", "a", latex_text(text))
    return re.sub(r"\\([_&%$#{}])", r"\1", re.sub(r"\\[A-Za-z]+\{\}", "x", src))


def text_width(text: str, bold: bool = False) -> float:
    """An upper estimate (pt) of ``text`` in ``\\footnotesize`` of a 10-pt class (8-pt
    Computer Modern): wide letters 7.5-8.6pt, other letters 4.5-6.4pt, digits 4.25pt,
    punctuation 2.8pt; bold 12% wider, and 6% to spare."""
    total = 0.0
    for ch in _printed(text):
        if ch in "mw":
            total += 6.6
        elif ch in "MW":
            total += 8.6
        elif ch.isdigit():
            total += 4.25
        elif ch.islower():
            total += 4.5
        elif ch.isupper():
            total += 6.4
        elif ch in ".,:;'!|":
            total += 2.4
        elif ch in "-()[]/":
            total += 3.2
        else:
            total += 5.5
    return total * (1.12 if bold else 1.0) * 1.06


def sup_width(text: str) -> float:
    """An upper estimate (pt) of a superscript ``text`` (6-pt figures)."""
    return 3.6 * len(text) + 1.0


@dataclass(frozen=True)
class TexColumn:
    """One column of a fitted table: its alignment letter, LaTeX cells (one per row;
    ``{FLEX}`` in a cell stands for the width a flexible column gets) and its estimated
    content width in pt (a flexible column: its least width)."""

    align: str
    cells: tuple[str, ...]
    width: float
    flex: bool = False


@dataclass(frozen=True)
class TexBlock:
    """Columns that stay together (a measure's value and its markers) and their header
    (LaTeX source spanning them, ``&`` between cells); ``name`` (plain) names the block in
    a continued caption."""

    head: str
    columns: tuple[TexColumn, ...]
    name: str = ""

    @property
    def width(self) -> float:
        return sum(c.width + 2 * TABLE_COLSEP for c in self.columns)


#: one unit of :func:`latex_text`'s output: a command (with its argument), an escaped
#: character, a code point ``[U+4E2D]`` or a character
_UNIT = re.compile(r"\\[A-Za-z]+(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)?\})?|\\.|\[U\+[0-9A-F]+\]|.")


def _breakable(src: str, width: float) -> str:
    """``src`` (from :func:`latex_text`) with ``\\allowbreak`` after ``- _ .`` and code
    points, and inside any stretch longer than ``width`` pt (8.6pt a character at most),
    so that a wrapped run name never sticks out of its box."""
    most = max(1, int(width // 8.6))
    out, since = [], 0
    for unit in _UNIT.findall(src):
        out.append(unit)
        since += 1
        if unit in ("-", "\\_", ".") or unit.startswith("[U+") or since >= most:
            out.append("\\allowbreak{}")
            since = 0
    return "".join(out)


def run_column(names: Sequence[str], wrap_at: float = RUN_MAX) -> TexColumn:
    """The run-name column: names as :func:`latex_text`; past ``wrap_at`` pt a name
    wraps after its ``- _ .`` inside a ``\\parbox`` of that width."""
    widths = [text_width(n) for n in names]
    width = min(max(widths, default=0.0), wrap_at)
    cells = []
    for n, w in zip(names, widths):
        src = latex_text(n)
        if w > width:
            src = f"\\parbox[t]{{{width:.1f}pt}}{{\\raggedright {_breakable(src, width)}}}"
        cells.append(src)
    return TexColumn("l", tuple(cells), width)


def _with_header(col: TexColumn, header: str) -> TexColumn:
    """``col`` at least as wide as its header."""
    return TexColumn(col.align, col.cells, max(col.width, text_width(header)), col.flex)


def _parts(key: TexBlock, blocks: Sequence[TexBlock], budget: float) -> list[list[TexBlock]]:
    """The blocks in consecutive groups, each as many as fit ``budget`` pt beside the key
    columns (at least one)."""
    parts: list[list[TexBlock]] = []
    used = budget
    for b in blocks:
        if parts and used + b.width <= budget:
            parts[-1].append(b)
            used += b.width
        else:
            parts.append([b])
            used = key.width + b.width
    return parts or [[]]


def _tabular_body(key: TexBlock, part: Sequence[TexBlock], n_rows: int) -> tuple[str, str,
                                                                                   list[str]]:
    """Alignment, header and row lines of one part; flexible columns share the width the
    others leave (``\\dimexpr`` of ``\\linewidth``)."""
    cols = [c for b in (key, *part) for c in b.columns]
    flex = [c for c in cols if c.flex]
    fixed = sum(c.width for c in cols if not c.flex) + (2 * TABLE_COLSEP + 0.5) * len(cols) + 1.0
    share = (f"\\dimexpr(\\linewidth-{fixed:.1f}pt)/{len(flex)}\\relax" if flex else "")
    head = " & ".join(b.head for b in (key, *part)) + r" \\"
    rows = [" & ".join(c.cells[i].replace("{FLEX}", share) for c in cols) + r" \\"
            for i in range(n_rows)]
    return "".join(c.align for c in cols), head, rows


def fitted_latex(key: TexBlock, blocks: Sequence[TexBlock], n_rows: int, *, caption: str,
                 label: str, layout: str = "auto", long_after: int = 40,
                 wide: bool | None = None) -> str:
    """A table that fits the text block (docs/compare.md, "Tables that fit the page"):
    ``key`` columns (``#``, run) repeated in every part, ``blocks`` (measures) split
    into as many tables as the width of ``layout`` needs (:data:`LAYOUT_WIDTH`), in
    ``\\footnotesize`` with 3pt column gaps. ``auto``: ``long`` past ``long_after`` rows,
    else ``float`` when it fits one part in a column, else ``wide`` (``wide``: force
    ``table*`` / ``table``). ``long`` and ``landscape`` switch a two-column document to one
    column for the table and back (``\\onecolumn`` ... ``\\twocolumn``). The first lines
    name the packages (``% \\usepackage{booktabs}``)."""
    if layout not in LATEX_LAYOUTS:
        raise ParameterError(f"to_latex: layout={layout!r} is not one of "
                             + ", ".join(LATEX_LAYOUTS))
    from irmeta.io.latex import check_label
    check_label(label)
    if layout == "auto":
        if n_rows > long_after:
            layout = "long"
        elif wide is not None:
            layout = "wide" if wide else "float"
        else:
            fits = len(_parts(key, blocks, LAYOUT_WIDTH["float"])) == 1
            layout = "float" if fits else "wide"
    parts = _parts(key, blocks, LAYOUT_WIDTH[layout])
    out = [f"% \\usepackage{{{p}}}" for p in LAYOUT_PACKAGES[layout]]
    size = ["\\footnotesize", f"\\setlength{{\\tabcolsep}}{{{TABLE_COLSEP:g}pt}}"]

    def more(part: Sequence[TexBlock]) -> str:
        names = ", ".join(latex_text(b.name) for b in part if b.name)
        return f"continued{': ' + names if names else ''}"

    if layout in ("float", "wide"):
        env = "table*" if layout == "wide" else "table"
        for i, part in enumerate(parts):
            align, head, rows = _tabular_body(key, part, n_rows)
            cap = caption if i == 0 else f"Table~\\ref{{{label}}}, {more(part)}."
            lab = label if i == 0 else f"{label}-{i + 1}"
            out += [f"\\begin{{{env}}}[tbp]", r"\centering", *size, f"\\caption{{{cap}}}",
                    f"\\label{{{lab}}}", f"\\begin{{tabular}}{{{align}}}", r"\toprule", head,
                    r"\midrule", *rows, r"\bottomrule", r"\end{tabular}", f"\\end{{{env}}}"]
        return "\n".join(out) + "\n"
    out.append("\\expandafter\\ifx\\csname if@twocolumn\\endcsname\\iftrue\\onecolumn"
               "\\def\\irmetarestore{\\twocolumn}\\else\\let\\irmetarestore\\relax\\fi")
    if layout == "landscape":
        out.append(r"\begin{landscape}")
    for i, part in enumerate(parts):
        align, head, rows = _tabular_body(key, part, n_rows)
        n = len(align)
        first = (f"\\caption{{{caption}}}\\label{{{label}}}\\\\" if i == 0
                 else f"\\caption*{{Table~\\thetable, {more(part)}}}\\\\")
        out += ["{" + size[0], size[1], f"\\begin{{longtable}}{{{align}}}", first,
                r"\toprule", head, r"\midrule", r"\endfirsthead",
                f"\\multicolumn{{{n}}}{{l}}{{\\emph{{Table~\\thetable, continued}}}}\\\\",
                r"\toprule", head, r"\midrule", r"\endhead", r"\midrule",
                f"\\multicolumn{{{n}}}{{r}}{{\\emph{{continued on the next page}}}}\\\\",
                r"\endfoot", r"\bottomrule", r"\endlastfoot", *rows, r"\end{longtable}", "}"]
    if layout == "landscape":
        out.append(r"\end{landscape}")
    out.append(r"\irmetarestore")
    return "\n".join(out) + "\n"


#: the style of :meth:`Comparison.to_html_page`: readable contrast, the table scrolls
#: inside its region (never the page), numbers in tabular figures
_PAGE_CSS = (
    "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:1rem;"
    "color:#1a1a1a;background:#fff;line-height:1.4}"
    "main{max-width:70rem}h1{font-size:1.25rem}"
    ".table-region{overflow-x:auto;max-width:100%}"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums}"
    "th,td{padding:.25rem .6rem;border-bottom:1px solid #ccc;white-space:nowrap}"
    "th{text-align:left;background:#f2f2f2}"
    "caption{padding-top:.5rem;white-space:normal;color:#333;max-width:60rem}")


@dataclass(frozen=True)
class Comparison:
    """Runs x measures with significance between runs, per measure (see module doc).

    ``means``: runs x measures (index ``run``, best of the first measure first), the
    mean over the topics each measure's tests used. ``keys``: the run numbers (``#``,
    1 = first row). ``pairs``: one row per (measure, run A, run B) with
    :data:`PAIR_COLUMNS` — ``diff = mean_a - mean_b``, ``effect`` the test's standardised
    effect size (Cohen's ``d_z`` for the paired tests, ``diff / sqrt(MSE)`` for Tukey),
    ``wins, ties, losses`` the topics where run A is above, equal to, below run B. All
    pairs have ``run_a`` before ``run_b`` in the table; with a ``baseline``, ``run_b`` is
    the baseline. ``topics``: topics used per measure (topics undefined for some run are
    dropped, with a warning). ``correction`` is None for none. ``rel_level``: the binary
    relevance level of the evaluation (None when matrices were given).
    """

    means: pd.DataFrame
    keys: pd.Series
    pairs: pd.DataFrame
    test: str
    correction: str | None
    level: float
    baseline: str | None
    trials: int | None
    seed: int
    topics: Mapping[str, int] = field(default_factory=dict)
    rel_level: int | None = None

    # ------------------------------------------------------------------ numbers
    @property
    def runs(self) -> list[str]:
        """Run names in table order."""
        return [str(r) for r in self.means.index]

    @property
    def measures(self) -> list[str]:
        """Measure strings in column order."""
        return [str(m) for m in self.means.columns]

    def best(self) -> pd.DataFrame:
        """runs x measures booleans: the run's mean is the largest of the measure (ties
        all True)."""
        return self.means.eq(self.means.max(axis=0), axis=1)

    def better_than(self) -> pd.DataFrame:
        """runs x measures: the sorted run numbers each run is significantly better
        than under each measure (tuples; all-pairs and baseline comparisons alike)."""
        out: dict[str, dict[str, list[int]]] = {m: {r: [] for r in self.runs}
                                              for m in self.measures}
        sig = self.pairs[self.pairs["significant"].to_numpy(dtype=bool)]
        for m, a, b, d in zip(sig["measure"], sig["run_a"], sig["run_b"], sig["diff"]):
            win, lose = (a, b) if d > 0 else (b, a)
            if d != 0:
                out[m][win].append(int(self.keys[lose]))
        return pd.DataFrame({m: [tuple(sorted(v[r])) for r in self.runs]
                             for m, v in out.items()}, index=self.means.index)

    def versus_baseline(self) -> pd.DataFrame:
        """runs x measures of ``+1`` (significantly better than the baseline), ``-1``
        (worse), ``0`` (no significant difference, and the baseline itself); a
        ParameterError without a baseline."""
        self._need_baseline("versus_baseline")
        out = pd.DataFrame(0, index=self.means.index, columns=self.means.columns)
        p = self.pairs
        for m, a, d, s in zip(p["measure"], p["run_a"], p["diff"], p["significant"]):
            if s and d != 0:
                out.loc[a, m] = 1 if d > 0 else -1
        return out

    def win_tie_loss(self) -> pd.DataFrame:
        """runs x measures of ``(wins, ties, losses)``: topics where the run is above,
        equal to, below the baseline (the baseline's own row: empty tuples)."""
        self._need_baseline("win_tie_loss")
        out = pd.DataFrame([[() for _ in self.measures] for _ in self.runs],
                           index=self.means.index, columns=self.means.columns, dtype=object)
        p = self.pairs
        for m, a, w, t, l_ in zip(p["measure"], p["run_a"], p["wins"], p["ties"],
                                  p["losses"]):
            out.loc[a, m] = (int(w), int(t), int(l_))
        return out

    def _need_baseline(self, func: str) -> None:
        if self.baseline is None:
            raise ParameterError(f"Comparison.{func}: this comparison has no baseline "
                                 "(compare(..., baseline=RUN))")

    def markers(self, dash: str = "-") -> pd.DataFrame:
        """runs x measures marker strings: the ranges of run numbers each run is
        significantly better than (``2-5,7``), or with a baseline ``↑`` / ``↓``."""
        if self.baseline is not None:
            v = self.versus_baseline()
            return v.apply(lambda col: col.map({1: BETTER, -1: WORSE, 0: ""}))
        return self.better_than().apply(lambda col: col.map(lambda k: key_ranges(k, dash)))

    def to_frame(self) -> pd.DataFrame:
        """One row per (measure, run A, run B): :data:`PAIR_COLUMNS` (a copy)."""
        return self.pairs.copy()

    # ------------------------------------------------------------------ words
    def describe(self) -> str:
        """The procedure in one sentence (plain text)."""
        test = _TEST_NAMES[self.test]
        if self.trials is not None:
            test += f" ({self.trials} trials, seed {self.seed})"
        n = len(self.pairs) // max(1, len(self.measures))
        s = "" if n == 1 else "s"
        fam = (f"{n} comparison{s} with the baseline {self.baseline}" if self.baseline
               else f"{n} pair{s}")
        corr = (f"{_CORRECTION_NAMES[self.correction]} correction" if self.correction
                else ("family-wise error controlled by the test" if self.test in FAMILYWISE
                      else "no correction"))
        topics = sorted(set(self.topics.values()))
        over = (f"{topics[0]} topics" if len(topics) == 1
                else "topics: " + ", ".join(f"{m} {n}" for m, n in self.topics.items()))
        return (f"{test}, {corr} within each measure ({fam}), level {self.level:g}; "
                f"{len(self.runs)} runs, {over}")

    def legend(self) -> str:
        """What the markers mean (plain text)."""
        if self.baseline is not None:
            return (f"{BETTER} / {WORSE}: significantly better / worse than the baseline "
                    f"{self.baseline}; W/T/L: topics won, tied, lost against it.")
        return ("Markers: the runs (by #) this run is significantly better than under the "
                "measure.")

    def definitions(self) -> dict[str, str]:
        """``{measure: short definition}`` for the measures the registry knows."""
        out = {}
        for m in self.measures:
            d = _definition(m)
            if d:
                out[m] = d
        return out

    # ------------------------------------------------------------------ renderers
    def _value(self, run: str, measure: str, digits: int) -> str:
        v = float(self.means.at[run, measure])  # type: ignore[arg-type]
        return "" if math.isnan(v) else f"{v:.{digits}f}"

    def _wtl(self) -> pd.DataFrame:
        return self.win_tie_loss().apply(
            lambda col: col.map(lambda t: "/".join(map(str, t)) if t else "base"))

    def to_text(self, digits: int = 4) -> str:
        """An aligned plain-text table: ``#``, run, and per measure its value (``*`` on
        the best), the markers (and W/T/L against a baseline); then the procedure and
        the legend."""
        best, marks = self.best(), self.markers()
        header = ["#", "run"]
        for m in self.measures:
            header += [m, "vs base", "W/T/L"] if self.baseline else [m, "better than"]
        rows = []
        wtl = self._wtl() if self.baseline else None
        for r in self.runs:
            row = [str(self.keys[r]), r + (" (baseline)" if r == self.baseline else "")]
            for m in self.measures:
                row += [self._value(r, m, digits) + ("*" if best.loc[r, m] else " "),
                        str(marks.loc[r, m])]
                if wtl is not None:
                    row.append(str(wtl.loc[r, m]))
            rows.append(row)
        right = [True, False] + [i % (3 if self.baseline else 2) == 0
                                 for i in range(len(header) - 2)]
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]

        def line(cells: list[str]) -> str:
            return "  ".join(c.rjust(w) if rt else c.ljust(w)
                             for c, w, rt in zip(cells, widths, right)).rstrip()
        out = [line(header)] + [line(r) for r in rows]
        return ("\n".join(out) + f"\n\n{self.describe()}.\n* best value of the measure "
                f"(ties: all). {self.legend()}\n")

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        """A summary, not the frames: ``Comparison(5 runs [a, b, c, ...] x 3 measures
        [nDCG@10, AP, RR], paired_t, holm, level 0.05, 30 of 30 pairs significant)``."""
        runs = ", ".join(self.runs[:3]) + (", ..." if len(self.runs) > 3 else "")
        base = f", baseline {self.baseline}" if self.baseline else ""
        return (f"Comparison({len(self.runs)} runs [{runs}] x {len(self.measures)} measures "
                f"[{', '.join(self.measures)}], {self.test}, {self.correction or 'no correction'}"
                f", level {self.level:g}{base}, {int(self.pairs['significant'].sum())} of "
                f"{len(self.pairs)} pairs significant)")

    def to_markdown(self, digits: int = 3) -> str:
        """A GitHub Markdown table (best in bold, markers as ``<sup>``), then the
        procedure and the legend."""
        def esc(text: str) -> str:
            return (text.replace("\\", "\\\\").replace("|", r"\|").replace("*", r"\*")
                    .replace("_", r"\_").replace("<", r"\<"))
        best, marks = self.best(), self.markers(dash="–")
        cols = ["#", "run"]
        for m in self.measures:
            cols += [esc(m), "W/T/L"] if self.baseline else [esc(m)]
        lines = ["| " + " | ".join(cols) + " |",
                 "| " + " | ".join(["---:", "---"] + ["---:"] * (len(cols) - 2)) + " |"]
        wtl = self._wtl() if self.baseline else None
        for r in self.runs:
            cells = [str(self.keys[r]), esc(r) + (" (baseline)" if r == self.baseline else "")]
            for m in self.measures:
                v = self._value(r, m, digits)
                v = f"**{v}**" if best.loc[r, m] else v
                mk = str(marks.loc[r, m])
                cells.append(v + (f"<sup>{mk}</sup>" if mk else ""))
                if wtl is not None:
                    cells.append(str(wtl.loc[r, m]))
            lines.append("| " + " | ".join(cells) + " |")
        return ("\n".join(lines) + f"\n\n{esc(self.describe())}. Bold: the best value of "
                f"each measure (ties: all). {esc(self.legend())}\n")

    def to_html(self, digits: int = 3) -> str:
        """A compact HTML table (best in ``<b>``, markers in ``<sup>``) with the
        procedure and the legend as its caption."""
        e = html.escape
        best, marks = self.best(), self.markers(dash="–")
        head = ["#", "run"]
        for m in self.measures:
            head += [m, "W/T/L"] if self.baseline else [m]
        wtl = self._wtl() if self.baseline else None
        rows = []
        for r in self.runs:
            cells = [f'<td style="text-align:right">{self.keys[r]}</td>',
                     f"<td>{e(r)}{' (baseline)' if r == self.baseline else ''}</td>"]
            for m in self.measures:
                v = e(self._value(r, m, digits))
                v = f"<b>{v}</b>" if best.loc[r, m] else v
                mk = str(marks.loc[r, m])
                v += f"<sup>{e(mk)}</sup>" if mk else ""
                cells.append(f'<td style="text-align:right">{v}</td>')
                if wtl is not None:
                    cells.append(f'<td style="text-align:right">{e(str(wtl.loc[r, m]))}</td>')
            rows.append("<tr>" + "".join(cells) + "</tr>")
        caption = e(f"{self.describe()}. Bold: the best value of each measure (ties: all). "
                    f"{self.legend()}")
        return ('<table class="irmeta-compare">'
                f'<caption style="caption-side:bottom;text-align:left">{caption}</caption>'
                "<thead><tr>" + "".join(f"<th>{e(h)}</th>" for h in head) + "</tr></thead>"
                "<tbody>" + "".join(rows) + "</tbody></table>")

    def to_html_page(self, digits: int = 3, title: str | None = None) -> str:
        """:meth:`to_html` as a whole page: doctype, ``lang``, UTF-8, a viewport, and the
        table in a focusable region that scrolls sideways by itself, so that a narrow
        screen (390 px) never scrolls the page sideways. ``title``: the page title
        (default: the measures compared)."""
        e = html.escape
        title = title or f"Comparison of {len(self.runs)} runs: {', '.join(self.measures)}"
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{e(title)}</title>\n<style>{_PAGE_CSS}</style>\n</head>\n<body>\n"
            f"<main>\n<h1>{e(title)}</h1>\n"
            f'<div class="table-region" role="region" aria-label="{e(title)}" tabindex="0">'
            f"{self.to_html(digits)}</div>\n</main>\n</body>\n</html>\n")

    def _repr_html_(self) -> str:
        return self.to_html()

    def caption(self, columns: bool = False) -> str:
        """The LaTeX caption: measures and their definitions, relevance level, test,
        correction, level, what the superscripts (or, with ``columns``, the small numbers
        after each value) and the bold mean."""
        defs = self.definitions()
        names = [latex_text(m) for m in self.measures]
        listed = (names[0] if len(names) == 1
                  else ", ".join(names[:-1]) + " and " + names[-1])
        parts = [f"Mean {listed} of {len(self.runs)} runs"]
        if defs:
            parts.append(" (" + "; ".join(f"{latex_text(m)}: {escape(d)}" for m, d in defs.items())
                         + (f"; binary measures count grades $\\geq {self.rel_level}$ as "
                            "relevant" if self.rel_level is not None else "") + ")")
        parts.append(f". Tests: {latex_text(self.describe())}. ")
        if self.baseline is not None:
            parts.append(f"$^{{\\uparrow}}$/$^{{\\downarrow}}$: significantly better/worse "
                         f"than the baseline {latex_text(self.baseline)}; W/T/L: topics won, "
                         "tied, lost against it. ")
        else:
            parts.append(("Small numbers after a value" if columns else "Superscripts")
                         + ": the runs (by \\#) that the run is significantly better than. ")
        parts.append("Bold: the best value of each measure (ties: all).")
        return "".join(parts)

    def to_latex(self, digits: int = 3, *, label: str | None = None,
                 caption: str | None = None, wide: bool | None = None,
                 long_after: int | None = None, layout: str = "auto") -> str:
        """The table as LaTeX that compiles as it is and fits the text block
        (:func:`fitted_latex`; docs/compare.md): :meth:`caption` and ``label`` (default
        ``tab:compare-<measures>``), booktabs, the best value per measure in bold, the
        markers as superscripts, names as :func:`latex_text`. ``layout``
        (:data:`LATEX_LAYOUTS`): ``auto`` (default) is a ``longtable`` past ``long_after``
        rows (default :data:`irmeta.io.latex.LONG_AFTER`), else a ``table`` float when
        one fits a column of a two-column page, else ``table*`` (``wide`` forces
        ``table*`` / ``table``); ``float``, ``wide``, ``long`` or ``landscape`` (a
        ``longtable`` on landscape pages, pdflscape) choose. Measures that do not fit
        the layout's width go on into further tables ("continued"), ``#`` and run
        repeated. When a marker is longer than :data:`SUPERSCRIPT_CHARS` characters
        (many runs), every measure gets a column of markers after its values instead,
        wrapped after the commas, as wide as the page leaves. The leading ``%
        \\usepackage{...}`` lines name the packages the table needs."""
        from irmeta.io.latex import LONG_AFTER, wrapped
        layout = validate.choice(layout, "layout", "Comparison.to_latex", LATEX_LAYOUTS)
        best, marks = self.best(), self.markers(dash="--")
        column = (self.baseline is None
                  and max((len(str(v)) for v in marks.to_numpy().ravel()), default=0)
                  > SUPERSCRIPT_CHARS)
        names = [r + (" (baseline)" if r == self.baseline else "") for r in self.runs]
        keys = [str(self.keys[r]) for r in self.runs]
        key = TexBlock(r"\# & run", (
            TexColumn("r", tuple(keys), max(text_width(k) for k in [*keys, "#"])),
            _with_header(run_column(names), "run")))
        wtl = self._wtl() if self.baseline else None
        blocks = []
        for m in self.measures:
            cells, widths = [], []
            for r in self.runs:
                mk = str(marks.loc[r, m])
                if self.baseline:
                    sup = {BETTER: "$^{\\uparrow}$", WORSE: "$^{\\downarrow}$"}.get(mk, "")
                    sw = 5.0 if sup else 0.0
                elif column or not mk:
                    sup, sw = "", 0.0
                else:
                    sup, sw = f"\\textsuperscript{{{mk}}}", sup_width(mk)
                bold = bool(best.loc[r, m])
                value = self._value(r, m, digits)
                cells.append(Cell(value, bold, sup).latex())
                widths.append(text_width(value, bold) + sw)
            head = latex_text(m)
            head_w = text_width(m)
            values = TexColumn("r", tuple(cells), max(widths + [0.0 if column else head_w]))
            if wtl is not None:
                w = [str(wtl.loc[r, m]) for r in self.runs]
                blocks.append(TexBlock(f"{head} & W/T/L", (values, TexColumn(
                    "c", tuple(escape(x) for x in w), max(text_width(x) for x in [*w, "W/T/L"]))),
                    name=m))
            elif column:
                flex = TexColumn("l", tuple(wrapped(str(marks.loc[r, m]), "{FLEX}").latex()
                                            for r in self.runs),
                                 max(MARKS_MIN, head_w - values.width - 2 * TABLE_COLSEP),
                                 flex=True)
                blocks.append(TexBlock(f"\\multicolumn{{2}}{{c}}{{{head}}}", (values, flex),
                                       name=m))
            else:
                blocks.append(TexBlock(head, (values,), name=m))
        label = label or "tab:compare-" + "-".join(label_key(m) for m in self.measures)
        return fitted_latex(key, blocks, len(self.runs),
                            caption=caption or self.caption(column), label=label,
                            layout=layout, wide=wide,
                            long_after=LONG_AFTER if long_after is None else long_after)

    def to_json(self) -> str:
        """Everything as JSON: the procedure, ``runs`` (number, name, means, markers,
        best) and ``pairs`` (records of :meth:`to_frame`); floats at full precision
        (``repr``), NaN as null."""
        def num(v: Any) -> Any:
            if isinstance(v, (np.bool_, bool)):
                return bool(v)
            if isinstance(v, (np.integer, int)):
                return int(v)
            if isinstance(v, (np.floating, float)):
                return None if math.isnan(v) else float(v)
            return v if v is None or isinstance(v, str) else str(v)
        best, marks = self.best(), self.markers()
        runs = [{"key": int(self.keys[r]), "run": r,
                 "means": {m: num(self.means.loc[r, m]) for m in self.measures},
                 "best": {m: bool(best.loc[r, m]) for m in self.measures},
                 "markers": {m: str(marks.loc[r, m]) for m in self.measures}} for r in self.runs]
        pairs = [{k: num(v) for k, v in row.items()}
                 for row in self.pairs.to_dict(orient="records")]
        doc = {"test": self.test, "correction": self.correction, "level": self.level,
               "baseline": self.baseline, "trials": self.trials, "seed": self.seed,
               "rel_level": self.rel_level, "topics": {k: int(v) for k, v in self.topics.items()},
               "description": self.describe(), "runs": runs, "pairs": pairs}
        return json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


# ---------------------------------------------------------------------- computing
def _correction(correction: Any, test: str, func: str) -> str | None:
    """The correction to apply: ``"default"`` is Holm for the pairwise tests and none
    for the Tukey procedures; ``None`` / ``"none"``: none."""
    if correction == "default":
        return None if test in FAMILYWISE else "holm"
    if correction is None or correction == "none":
        return None
    validate.choice(correction, "correction", func, CORRECTIONS + ("none",))
    if test in FAMILYWISE:
        raise ParameterError(f"{func}: {test} controls the family-wise error itself; "
                             f"correction={correction!r} is only for the pairwise tests "
                             "(give correction=None)")
    return str(correction)


def compare_matrices(matrices: Mapping[str, Any], *, baseline: str | None = None,
                     test: str = "paired_t", correction: str | None = "default",
                     level: float = 0.05, trials: int | None = None, seed: int = 0,
                     rel_level: int | None = None) -> Comparison:
    """:func:`compare` on ``{measure: systems x topics matrix}`` (every matrix over the
    same runs; ``Results.matrix(measure)``). Arguments as :func:`compare`."""
    fn = "compare"
    if not isinstance(matrices, Mapping) or not matrices:
        raise ParameterError(f"{fn}: expected a non-empty {{measure: systems x topics "
                             f"matrix}} mapping, got {type(matrices).__name__}")
    test = validate.choice(test, "test", fn, COMPARE_TESTS)
    corr = _correction(correction, test, fn)
    level = validate.probability(level, "level", fn)
    seed = validate.seed(seed, fn)
    if trials is not None:
        trials = validate.trials(trials, fn)
    random = "trials" in options_for(test, trials=1)
    frames = {str(m): score_matrix(mat, fn) for m, mat in matrices.items()}
    first = next(iter(frames.values()))
    names = list(first.index)
    for m, f in frames.items():
        if set(f.index) != set(names):
            raise ParameterError(f"{fn}: the matrix of {m} has other runs than the first "
                                 "matrix (every measure needs the same runs)")
    order = first.mean(axis=1).sort_values(ascending=False, kind="stable").index
    runs = [str(r) for r in order]
    if baseline is not None and str(baseline) not in runs:
        shown = ", ".join(runs[:20]) + (", ..." if len(runs) > 20 else "")
        raise ParameterError(f"{fn}: unknown baseline run {baseline!r} (runs: {shown})")
    base = None if baseline is None else str(baseline)
    pairs = None if base is None else [(r, base) for r in runs if r != base]
    options = options_for(test, trials=trials, seed=seed if random else None,
                          progress=False)
    parts, means, topics = [], {}, {}
    used_trials = None
    for m, f in frames.items():
        f = f.loc[order]
        f.index = runs
        res = TESTS[test](f, level=level, pairs=pairs, **options,
                          **({} if test in FAMILYWISE else {"correction": corr}))
        t = res.table
        if random:
            used_trials = res.parameters.trials
        p_adj = t["p_adjusted"].to_numpy() if corr else t["p_value"].to_numpy()
        parts.append(pd.DataFrame({
            "measure": m, "run_a": t["a"].astype(str).to_numpy(),
            "run_b": t["b"].astype(str).to_numpy(), "mean_a": t["mean_a"].to_numpy(),
            "mean_b": t["mean_b"].to_numpy(), "p_value": t["p_value"].to_numpy(),
            "p_adjusted": p_adj, "significant": t["significant"].to_numpy(dtype=bool),
            "diff": t["diff"].to_numpy(), "effect": t["effect"].to_numpy(),
            "statistic": t["statistic"].to_numpy(), "ci_low": t["ci_low"].to_numpy(),
            "ci_high": t["ci_high"].to_numpy(), "wins": t["wins"].to_numpy(),
            "ties": t["ties"].to_numpy(), "losses": t["losses"].to_numpy()}))
        means[m] = res.means.to_numpy()
        topics[m] = res.n_topics
    table = pd.DataFrame(means, index=pd.Index(runs, name="run"))
    keys = pd.Series(np.arange(1, len(runs) + 1), index=table.index, name="#")
    return Comparison(table, keys, pd.concat(parts, ignore_index=True), test, corr, level,
                      base, used_trials, seed, topics, rel_level)


def compare(source: Any, runs: Any = None, measures: Any = None, *,
            baseline: str | None = None, test: str = "paired_t",
            correction: str | None = "default", level: float = 0.05,
            trials: int | None = None, seed: int = 0, rel_level: int = 1,
            **evaluate_kwargs: Any) -> Comparison:
    """Compare runs on several measures with significance tests per measure.

    Parameters
    ----------
    source : qrels, Campaign, Results or mapping
        The qrels (path, DataFrame, dict; then ``runs`` and ``measures`` as for
        :func:`irmeta.evaluate`), a built :class:`~irmeta.Campaign` (with ``measures``),
        :class:`~irmeta.Results` (``measures`` default: all of its measures), or
        ``{measure: systems x topics matrix}``.
    runs : paths, DataFrame, dict, optional
        The runs, with qrels.
    measures : str or list of str
        Measure strings (``"nDCG@10"``, ``"AP"``, ``"RR"``); one string, one measure.
    baseline : str, optional
        Test every run against this run only (``R - 1`` comparisons per measure);
        default every pair.
    test : str
        ``paired_t`` (default), ``wilcoxon``, ``randomisation``, ``bootstrap``,
        ``tukey_hsd`` or ``randomised_tukey_hsd`` (:mod:`irmeta.stats.significance`).
    correction : str or None
        ``holm``, ``bonferroni``, ``fdr_bh`` or None / ``"none"``, applied within each
        measure; default Holm for the pairwise tests and none for the Tukey procedures.
    level : float
        Significance level.
    trials, seed : int
        Trials of the random tests (default: the test's own) and their seed.
    rel_level : int
        Binary relevance level of the evaluation (``-l``).
    **evaluate_kwargs
        Other arguments of :func:`irmeta.evaluate` (``complete``, ``max_docs``, ...).

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import irmeta
    >>> from irmeta.demo import demo_paths
    >>> p = demo_paths()
    >>> c = irmeta.compare(p.qrels, p.runs[:4], ["nDCG@10", "AP"])
    >>> c.pairs.columns[:8].tolist()
    ['measure', 'run_a', 'run_b', 'mean_a', 'mean_b', 'p_value', 'p_adjusted', 'significant']
    >>> len(c.pairs)                         # 2 measures x 6 pairs
    12
    """
    fn = "compare"
    from irmeta.evaluation import Results, evaluate
    if isinstance(source, Mapping) and not _is_qrels_dict(source):
        if runs is not None or measures is not None or evaluate_kwargs:
            raise ParameterError(f"{fn}: a {{measure: matrix}} mapping takes no runs, "
                                 "measures or evaluation arguments")
        mats = dict(source)
        rel = None
    else:
        if isinstance(source, Results):
            if runs is not None or evaluate_kwargs:
                raise ParameterError(f"{fn}: Results take no runs or evaluation arguments")
            res = source
            measures = [str(m) for m in res.measures] if measures is None else measures
            rel = res.rel_level
        else:
            if measures is None:
                raise ParameterError(f"{fn}: give measures= (e.g. ['nDCG@10', 'AP'])")
            res = evaluate(source, runs, measures, rel_level=rel_level, **evaluate_kwargs)
            rel = rel_level
        measures = validate.measure_list(measures, fn)
        if len(res.measures) != len(measures) and not isinstance(source, Results):
            raise ParameterError(f"{fn}: each measure string must name one measure: "
                                 f"{measures!r}")
        mats = {str(m): res.matrix(m if isinstance(source, Results) else i)
                for i, m in enumerate(measures)}
    return compare_matrices(mats, baseline=baseline, test=test, correction=correction,
                            level=level, trials=trials, seed=seed, rel_level=rel)


def _is_qrels_dict(source: Mapping) -> bool:
    """A ``{topic: {docid: grade}}`` dict (qrels) rather than ``{measure: matrix}``."""
    return any(isinstance(v, Mapping) for v in source.values())
