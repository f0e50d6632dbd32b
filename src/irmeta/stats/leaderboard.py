"""The results table of a campaign: runs ranked by one measure, with uncertainty.

:func:`leaderboard` ranks the runs of a systems x topics matrix by their mean and adds,
for every run:

* a **confidence interval of the mean** over topics: SciPy's bootstrap
  (:func:`scipy.stats.bootstrap`, percentile method by default, ``trials`` resamples of the
  topics, seeded). All runs are resampled with the *same* topic draws (SciPy applies one
  index draw to every row), so the intervals of two runs describe the same pseudo-topic
  sets;
* a **test against the best run** (the run ranked first) and a **test against the next
  run** in the ranking, with a paired test of :mod:`irmeta.stats.significance` (default
  the paired t-test) and a multiple-comparison correction (default Holm) applied within
  each of the two families of ``R - 1`` comparisons;
* ``tied_with_best``: the run is the best, or not significantly worse than it — the set a
  TREC overview marks as "statistically indistinguishable from the top run".

Decision: no compact letter display. With 60-100 runs the letter groups of all pairs are
unreadable and depend on the order the algorithm absorbs them; "against the best" and
"against the next" answer the two questions an organiser's results page is read for
(who is at the top, and is each step down real). All pairs remain available from
:func:`irmeta.stats.pairwise_test`.

A run whose values are all equal has the degenerate interval ``[value, value]`` (SciPy
would return NaN with a warning; every resample has that mean). A pair whose differences
are all zero gets the p-value irmeta's paired tests give it (1: no evidence of a
difference).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta.constraints import PROBABILITY, SEED, TRIALS, Choice, validated
from irmeta.errors import ParameterError
from irmeta.stats._common import score_matrix
from irmeta.stats.significance import CORRECTIONS, pairwise_test

__all__ = ["ABOVE_NEXT", "BELOW_BEST", "CI_METHODS", "CORRECTION_WORDS", "LEADERBOARD_TESTS",
           "Leaderboard", "TEST_WORDS", "leaderboard", "legend", "markers", "mean_intervals",
           "procedure_words", "to_latex", "to_markdown", "vs_best_and_next"]

#: the paired tests a leaderboard may use (Tukey-style tests control all pairs at once)
LEADERBOARD_TESTS = ("paired_t", "wilcoxon", "randomisation", "bootstrap")
CI_METHODS = ("percentile", "basic", "BCa")
#: most float64 values one bootstrap batch may hold (runs x batch x topics)
_BATCH_CELLS = 1 << 24


@dataclass(frozen=True)
class Leaderboard:
    """Runs ranked by their mean of one measure, with intervals and tests.

    ``table`` (index ``run``, best first): ``rank`` (1 = best; ties share the smaller
    rank), ``mean``, ``ci_low``, ``ci_high``, ``topics``, ``p_vs_best`` and
    ``significant_vs_best`` (against the run ranked first; NaN / False for it),
    ``p_vs_next`` and ``significant_vs_next`` (against the run ranked just below; NaN /
    False for the last), ``tied_with_best``. p-values are the corrected ones when a
    correction is used.
    """

    table: pd.DataFrame
    test: str
    correction: str | None
    level: float
    ci_level: float
    ci_method: str
    trials: int
    seed: int

    @property
    def best(self) -> str:
        """The run ranked first."""
        return str(self.table.index[0])

    def describe(self) -> str:
        """One sentence naming the procedure (for a results page's caption)."""
        corr = f", {self.correction}-corrected" if self.correction else ""
        return (f"{round(self.ci_level * 100)}% {self.ci_method} bootstrap intervals of the "
                f"mean over topics ({self.trials} resamples, seed {self.seed}); "
                f"{self.test} tests at level {self.level}{corr} within each family "
                f"(against the best run; against the next run)")

    def __repr__(self) -> str:
        from irmeta.data.display import tables_repr
        return tables_repr("Leaderboard", f"{len(self.table)} runs, best {self.best}, "
                           f"{self.test}", {"table": self.table})

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"table": self.table})


def cast_method(method: str) -> Any:
    """``method`` (checked against :data:`CI_METHODS`) as SciPy's stubs type it (a Literal)."""
    return method


@validated(ci_level=PROBABILITY, trials=TRIALS, seed=SEED, method=Choice(CI_METHODS))
def mean_intervals(scores, *, ci_level: float = 0.95, trials: int = 10000, seed: int = 0,
                   method: str = "percentile") -> pd.DataFrame:
    """Bootstrap confidence intervals of each run's mean over topics.

    Parameters
    ----------
    scores : DataFrame
        systems x topics matrix (``Results.matrix(measure)``).
    ci_level : float
        Confidence level in (0, 1).
    trials : int
        Bootstrap resamples of the topics.
    seed : int
        Seed of the resampling (the same seed gives the same intervals, bit for bit).
    method : {"percentile", "basic", "BCa"}
        SciPy's interval method.

    Returns
    -------
    DataFrame indexed by run with ``mean, ci_low, ci_high``. A run whose values are all
    equal has the interval ``[value, value]``; fewer than 2 topics is a ParameterError.
    """
    frame = score_matrix(scores, "mean_intervals", min_systems=1)
    X = frame.to_numpy(dtype=np.float64)
    R, T = X.shape
    constant = np.ptp(X, axis=1) == 0       # every resample has the same mean
    low, high = X[:, 0].copy(), X[:, 0].copy()
    varied = X[~constant]
    if len(varied):
        from scipy import stats as sps  # here: importing scipy.stats costs a second
        batch = max(1, _BATCH_CELLS // max(1, len(varied) * T))
        res = sps.bootstrap((varied,), np.mean, n_resamples=trials, batch=batch,
                            vectorized=True, axis=-1, confidence_level=ci_level,
                            method=cast_method(method), rng=np.random.default_rng(seed))
        low[~constant] = res.confidence_interval.low
        high[~constant] = res.confidence_interval.high
    return pd.DataFrame({"mean": X.mean(axis=1), "ci_low": low, "ci_high": high},
                        index=frame.index)


def _tests(frame: pd.DataFrame, pairs: list[tuple[str, str]], test: str, options: dict,
           level: float, correction: str | None) -> tuple[np.ndarray, np.ndarray]:
    """p-values (corrected within the family) and significance of each pair, in order."""
    if not pairs:
        return np.zeros(0), np.zeros(0, dtype=bool)
    res = pairwise_test(frame, test, level=level, correction=correction, pairs=pairs, **options)
    table = res.table.set_index(["a", "b"])
    keys = pd.MultiIndex.from_tuples(pairs, names=["a", "b"])
    p = table.loc[keys, "p_adjusted" if correction else "p_value"].to_numpy(dtype=float)
    return p, table.loc[keys, "significant"].to_numpy(dtype=bool)


@validated(test=Choice(LEADERBOARD_TESTS), correction=Choice(tuple(CORRECTIONS), optional=True),
           level=PROBABILITY)
def leaderboard(scores, *, test: str = "paired_t", correction: str | None = "holm",
                level: float = 0.05, ci_level: float = 0.95, ci_method: str = "percentile",
                trials: int = 10000, seed: int = 0) -> Leaderboard:
    """Rank runs by their mean and add intervals and tests (see the module doc).

    Parameters
    ----------
    scores : DataFrame
        systems x topics matrix of one measure (``Results.matrix(measure)``).
    test : {"paired_t", "wilcoxon", "randomisation", "bootstrap"}
        Paired test against the best and the next run.
    correction : str or None
        Multiple-comparison correction within each family (:data:`CORRECTIONS`).
    level : float
        Significance level.
    ci_level, ci_method, trials, seed
        The bootstrap intervals (:func:`mean_intervals`); ``trials`` and ``seed`` also
        drive the random tests.

    Returns
    -------
    Leaderboard
    """
    fn = "leaderboard"
    frame = score_matrix(scores, fn, min_systems=1)
    ci = mean_intervals(frame, ci_level=ci_level, trials=trials, seed=seed, method=ci_method)
    order = ci["mean"].sort_values(ascending=False, kind="stable").index
    frame = frame.loc[order]
    ci = ci.loc[order]
    runs = [str(r) for r in order]
    if frame.shape[1] < 2 and len(runs) > 1:
        raise ParameterError(f"{fn}: tests need at least 2 topics, got {frame.shape[1]}")
    tests = vs_best_and_next(frame, test=test, correction=correction, level=level,
                             trials=trials, seed=seed)
    table = pd.DataFrame({
        "rank": ci["mean"].rank(ascending=False, method="min").astype(int).to_numpy(),
        "mean": ci["mean"].to_numpy(), "ci_low": ci["ci_low"].to_numpy(),
        "ci_high": ci["ci_high"].to_numpy(),
        "topics": np.full(len(runs), frame.shape[1])}, index=pd.Index(runs, name="run"))
    for name in ("p_vs_best", "significant_vs_best", "p_vs_next", "significant_vs_next"):
        table[name] = tests[name].to_numpy()
    table["tied_with_best"] = ~table["significant_vs_best"]
    return Leaderboard(table, test, correction, level, ci_level, ci_method, trials, seed)


# ---------------------------------------------------------------------- for papers
#: the significance markers of :func:`markers`, :func:`to_latex` and :func:`to_markdown`
BELOW_BEST, ABOVE_NEXT = "*", "†"


def markers(board: Leaderboard) -> pd.Series:
    """Significance markers per run (index ``run``, best first): ``*`` when the run is
    significantly below the best run, ``†`` when it is significantly above the next run
    (both with the board's test and correction); empty when neither."""
    t = board.table
    return pd.Series([(BELOW_BEST if b else "") + (ABOVE_NEXT if n else "")
                      for b, n in zip(t["significant_vs_best"], t["significant_vs_next"])],
                     index=t.index, name="markers")


#: how a caption names each test and correction (words, not option identifiers)
TEST_WORDS = {"paired_t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomisation": "paired randomisation test",
              "bootstrap": "paired bootstrap test"}
CORRECTION_WORDS = {"holm": "Holm's correction", "bonferroni": "Bonferroni correction",
                    "fdr_bh": "Benjamini-Hochberg false discovery rate"}


def procedure_words(test: str, correction: str | None, level: float) -> str:
    """``paired t-test, Holm's correction within each family of comparisons, level
    0.05``: a test and its correction in words, for a caption (not ``paired_t, holm``)."""
    corr = (f"{CORRECTION_WORDS.get(correction, correction)} within each family of "
            "comparisons" if correction else "no correction")
    return f"{TEST_WORDS.get(test, test)}, {corr}, level {level:g}"


@validated(test=Choice(LEADERBOARD_TESTS), correction=Choice(tuple(CORRECTIONS), optional=True),
           level=PROBABILITY, trials=TRIALS, seed=SEED)
def vs_best_and_next(scores, *, test: str = "paired_t", correction: str | None = "holm",
                     level: float = 0.05, trials: int = 10000, seed: int = 0
                     ) -> pd.DataFrame:
    """The tests of :func:`leaderboard` without its intervals: every run against the
    best run and against the run ranked just below it, on a systems x topics matrix
    (rows ordered by mean descending, campaign order on ties). Each of the two families
    (the R-1 comparisons with the best, the R-1 with the next run) is corrected on its
    own. Returns a frame indexed by run (that order): ``mean``, ``p_vs_best``,
    ``significant_vs_best``, ``p_vs_next``, ``significant_vs_next`` (NaN / False where
    there is no such comparison)."""
    fn = "vs_best_and_next"
    frame = score_matrix(scores, fn, min_systems=1)
    mean = frame.mean(axis=1)
    order = mean.sort_values(ascending=False, kind="stable").index
    frame = frame.loc[order]
    runs = [str(r) for r in order]
    options = {"trials": trials, "seed": seed} if test in ("randomisation", "bootstrap") else {}
    if frame.shape[1] < 2 and len(runs) > 1:
        raise ParameterError(f"{fn}: tests need at least 2 topics, got {frame.shape[1]}")
    p_best, s_best = _tests(frame, [(runs[0], r) for r in runs[1:]], test, options, level,
                            correction)
    p_next, s_next = _tests(frame, list(zip(runs[:-1], runs[1:])), test, options, level,
                            correction)
    return pd.DataFrame({"mean": mean.loc[order].to_numpy(),
                         "p_vs_best": np.r_[np.nan, p_best],
                         "significant_vs_best": np.r_[False, s_best],
                         "p_vs_next": np.r_[p_next, np.nan],
                         "significant_vs_next": np.r_[s_next, False]},
                        index=pd.Index(runs, name="run"))


def legend(board: Leaderboard) -> str:
    """The sentence explaining the markers and the intervals (a table's caption)."""
    words = procedure_words(board.test, board.correction, board.level)
    return (f"{BELOW_BEST}: significantly below the best run; {ABOVE_NEXT}: significantly "
            f"above the next run ({words}). CI: {round(board.ci_level * 100)}% "
            f"{board.ci_method} "
            f"bootstrap interval of the mean over {int(board.table['topics'].to_numpy()[0])} "
            f"topics ({board.trials} resamples, seed {board.seed}).")


def _rows(board: Leaderboard, digits: int) -> list[tuple[int, str, str, str, str]]:
    t, marks = board.table, markers(board)
    return [(int(rank), str(run), f"{mean:.{digits}f}", str(mark),
             f"[{low:.{digits}f}, {high:.{digits}f}]")
            for run, rank, mean, mark, low, high in zip(
                t.index, t["rank"].to_numpy(), t["mean"].to_numpy(), marks.to_numpy(),
                t["ci_low"].to_numpy(), t["ci_high"].to_numpy())]


def to_latex(board: Leaderboard, *, measure: str = "mean", digits: int = 3,
             label: str | None = None, long_after: int | None = None,
             layout: str = "auto") -> str:
    """The leaderboard as a LaTeX table that compiles as it is and fits the text block
    (:func:`irmeta.stats.comparison.fitted_latex`, the writer of ``irmeta compare``): a
    caption (the measure, the procedure, :func:`legend`) and a label, booktabs rules,
    the best run's value in bold (ties: all), significance superscripts, run names as
    :func:`irmeta.stats.comparison.latex_text`, ``\\footnotesize``.

    Parameters
    ----------
    board : Leaderboard
    measure : str
        Header of the value column (the measure string).
    digits : int
        Decimals of the means and intervals.
    label : str, optional
        The ``\\label``; default ``tab:leaderboard-<measure>``.
    long_after : int, optional
        Rows above which ``layout="auto"`` writes a ``longtable`` (default 40).
    layout : {"auto", "float", "wide", "long", "landscape"}
        ``auto``: a ``longtable`` past ``long_after`` rows (in a two-column document on
        one-column pages, ``\\onecolumn`` ... ``\\twocolumn``), else a ``table`` float that
        fits one column of a two-column page; the others as
        :meth:`irmeta.stats.comparison.Comparison.to_latex`.

    Returns
    -------
    str
        ``% \\usepackage{...}`` lines (the packages it needs), then ``rank & run &
        value$^{\\ast\\dagger}$ & [low, high] \\\\`` per run inside the table.
    """
    from irmeta.io.latex import LONG_AFTER, Cell, escape, label_key
    from irmeta.stats.comparison import (
        LATEX_LAYOUTS,
        TexBlock,
        TexColumn,
        fitted_latex,
        latex_text,
        run_column,
        sup_width,
        text_width,
    )
    from irmeta.validate import choice
    layout = choice(layout, "layout", "to_latex", LATEX_LAYOUTS)
    sup = {BELOW_BEST: r"\ast", ABOVE_NEXT: r"\dagger"}
    ranks, runs, values, cis, widths = [], [], [], [], []
    for rank, run, value, mark, ci in _rows(board, digits):
        marks = "".join(sup[m] for m in mark)
        ranks.append(str(rank))
        runs.append(run)
        values.append(Cell(value, rank == 1, f"$^{{{marks}}}$" if marks else "").latex())
        widths.append(text_width(value, rank == 1) + (sup_width("xx") if marks else 0.0))
        cis.append(ci)
    ci_head = f"{round(board.ci_level * 100)}% CI"
    names = run_column(runs)
    key = TexBlock(r"\# & run", (
        TexColumn("r", tuple(ranks), max(text_width(k) for k in [*ranks, "#"])),
        TexColumn(names.align, names.cells, max(names.width, text_width("run")))))
    block = TexBlock(f"{latex_text(measure)} & {escape(ci_head)}", (
        TexColumn("r", tuple(values), max([*widths, text_width(measure)])),
        TexColumn("c", tuple(cis), max(text_width(x) for x in [*cis, ci_head]))))
    caption = (f"{latex_text(measure)} of {len(ranks)} runs, best first. "
               + escape(legend(board)).replace(f"{BELOW_BEST}:", "$^{\\ast}$:", 1)
               .replace(f"{ABOVE_NEXT}:", "$^{\\dagger}$:", 1)
               + " Bold: the best run (ties: all).")
    return fitted_latex(key, [block], len(ranks), caption=caption,
                        label=label or f"tab:leaderboard-{label_key(measure)}", layout=layout,
                        long_after=LONG_AFTER if long_after is None else long_after)


def to_markdown(board: Leaderboard, *, measure: str = "mean", digits: int = 3) -> str:
    """The leaderboard as a Markdown (GitHub) table with significance superscripts
    (``<sup>*†</sup>``) and the legend (:func:`legend`) under it. Parameters as
    :func:`to_latex`."""
    def esc(text: str) -> str:
        return text.replace("|", r"\|").replace("*", r"\*").replace("_", r"\_")
    lines = [f"| # | run | {esc(measure)} | {round(board.ci_level * 100)}% CI |",
             "| ---: | --- | ---: | :---: |"]
    for rank, run, value, mark, ci in _rows(board, digits):
        value = f"{value}<sup>{esc(mark)}</sup>" if mark else value
        lines.append(f"| {rank} | {esc(run)} | {value} | {ci} |")
    return "\n".join(lines) + "\n\n" + esc(legend(board)) + "\n"
