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
from irmeta.io.latex import Cell, Raw, escape, label_key, latex_table
from irmeta.stats._common import score_matrix
from irmeta.stats.significance import CORRECTIONS, TESTS, options_for

__all__ = ["COMPARE_TESTS", "PAIR_COLUMNS", "Comparison", "compare", "compare_matrices",
           "key_ranges"]

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
        names = [escape(m) for m in self.measures]
        listed = (names[0] if len(names) == 1
                  else ", ".join(names[:-1]) + " and " + names[-1])
        parts = [f"Mean {listed} of {len(self.runs)} runs"]
        if defs:
            parts.append(" (" + "; ".join(f"{escape(m)}: {escape(d)}" for m, d in defs.items())
                         + (f"; binary measures count grades $\\geq {self.rel_level}$ as "
                            "relevant" if self.rel_level is not None else "") + ")")
        parts.append(f". Tests: {escape(self.describe())}. ")
        if self.baseline is not None:
            parts.append(f"$^{{\\uparrow}}$/$^{{\\downarrow}}$: significantly better/worse "
                         f"than the baseline {escape(self.baseline)}; W/T/L: topics won, "
                         "tied, lost against it. ")
        else:
            parts.append(("Small numbers after a value" if columns else "Superscripts")
                         + ": the runs (by \\#) that the run is significantly better than. ")
        parts.append("Bold: the best value of each measure (ties: all).")
        return "".join(parts)

    def to_latex(self, digits: int = 3, *, label: str | None = None,
                 caption: str | None = None, wide: bool | None = None,
                 long_after: int | None = None) -> str:
        """The table as LaTeX that compiles as it is (:mod:`irmeta.io.latex`): a
        ``table`` float (``table*`` when ``wide``, default: more than three measures)
        with :meth:`caption` and ``label`` (default ``tab:compare-<measures>``), booktabs,
        the best value per measure in bold, the markers as superscripts, names
        escaped; a ``longtable`` past ``long_after`` rows (default
        :data:`irmeta.io.latex.LONG_AFTER`). When a marker is longer than
        :data:`SUPERSCRIPT_CHARS` characters (many runs), every measure gets a narrow
        column of markers after its values instead, wrapped after the commas, so that
        the table keeps to the page width. Needs ``\\usepackage{booktabs}`` (and
        ``longtable`` for long tables)."""
        from irmeta.io.latex import LONG_AFTER, wrapped
        best, marks = self.best(), self.markers(dash="--")
        n = len(self.measures)
        wide = n > 3 if wide is None else wide
        column = (self.baseline is None
                  and max((len(str(v)) for v in marks.to_numpy().ravel()), default=0)
                  > SUPERSCRIPT_CHARS)
        width = f"{min(4.0, (8.0 if wide else 4.0) / n):.2f}cm"
        header: list[str | Raw] = ["#", "run"]
        for m in self.measures:
            if self.baseline:
                header += [m, "W/T/L"]
            elif column:
                header.append(Raw(f"\\multicolumn{{2}}{{c}}{{{escape(m)}}}"))
            else:
                header.append(m)
        wtl = self._wtl() if self.baseline else None
        rows: list[list[Cell | Raw | str]] = []
        for r in self.runs:
            row: list[Cell | Raw | str] = [str(self.keys[r]),
                                           r + (" (baseline)" if r == self.baseline else "")]
            for m in self.measures:
                mk = str(marks.loc[r, m])
                if self.baseline:
                    sup = {BETTER: "$^{\\uparrow}$", WORSE: "$^{\\downarrow}$"}.get(mk, "")
                else:
                    sup = f"\\textsuperscript{{{mk}}}" if mk and not column else ""
                row.append(Cell(self._value(r, m, digits), bool(best.loc[r, m]), sup))
                if wtl is not None:
                    row.append(str(wtl.loc[r, m]))
                elif column:
                    row.append(wrapped(mk, width))
            rows.append(row)
        align = "rl" + ("rc" if self.baseline else ("rl" if column else "r")) * n
        label = label or "tab:compare-" + "-".join(label_key(m) for m in self.measures)
        return latex_table(header, rows, caption=caption or self.caption(column), label=label,
                           align=align, wide=wide,
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
