"""Significance tests between the systems of a campaign, for every pair at once.

Input: a systems x topics score matrix (``irmeta.evaluate(...).matrix(measure)``, any
measure). For each pair ``(a, b)`` (``a`` before ``b`` in the matrix order) the per-topic
differences are ``d_t = x_a,t - x_b,t`` over the ``n`` topics.

Pairwise tests (each pair on its own; optional multiple-comparison ``correction``):

``paired_t``
    ``t = mean(d) / (sd(d) / sqrt(n))``, ``n - 1`` df, two-sided (``scipy.stats.ttest_rel``).
    CI: ``mean(d) +- t_{1-level/2, n-1} sd(d)/sqrt(n)``.
``wilcoxon``
    Wilcoxon signed-rank (``scipy.stats.wilcoxon``, zero differences dropped — Wilcox).
``randomisation``
    paired randomisation (Fisher; Smucker et al. 2007): under H0 the sign of each
    ``d_t`` is exchangeable; ``p = #{b : |mean(s_b * d)| >= |mean(d)|} / B`` over ``B``
    random sign vectors ``s_b`` (one ``B x n`` matrix shared by every pair).
``bootstrap``
    Sakai's (2006) paired bootstrap test: ``w = d - mean(d)`` (the null), ``B`` bootstrap
    resamples of the topics (one ``B x n`` matrix of topic draws shared by every pair),
    ``t(x) = mean(x) / (sd(x)/sqrt(n))``; ``ASL = #{b : |t(w*_b)| >= |t(d)|} / B``.
    CI: percentile interval of the resampled mean differences ``mean(d) + mean(w*_b)``.
    ``delta`` per pair: the ``(1-level)`` quantile of ``|mean(w*_b)|`` (the difference
    needed for significance, Sakai 2006); the result's ``delta`` is the largest.

All-pairs procedures (family-wise control built in; no correction allowed):

``tukey_hsd``
    Tukey HSD on the two-way ANOVA without replication (system + topic):
    ``MSE = sum_(s,t) (x_st - xbar_s. - xbar_.t + xbar..)^2 / ((S-1)(n-1))``,
    ``q = |mean_a - mean_b| / sqrt(MSE / n)``, ``p = P(Q_{S,(S-1)(n-1)} > q)``;
    CI: ``diff +- q_crit sqrt(MSE/n)``.
``randomised_tukey_hsd``
    Carterette (2012) / Sakai: ``B`` trials permuting each topic's scores across the
    systems; ``p = #{b : max_s mean* - min_s mean* >= |diff|} / B``.
``pairwise_tukey``
    **reproduction only** — the innovation paper's procedure (its code calls statsmodels'
    ``pairwise_tukeyhsd`` on each pair separately with two groups): a one-way, two-group,
    *unpaired* Tukey HSD, i.e. a pooled-variance two-sample test,
    ``q = |diff| / sqrt(((sd_a^2 + sd_b^2)/2) / n)``, ``p = P(Q_{2, 2n-2} > q)
    = 2 P(T_{2n-2} > q / sqrt 2)``; no correction across pairs. It ignores the pairing
    by topic and the multiplicity of pairs; use ``tukey_hsd`` for real analyses.

Conventions: a pair whose differences are all zero (identical systems) gets
``p = 1`` under every test. A pair is significant when ``p < level`` (the corrected p
when a correction is given). Effect sizes: paired tests report Cohen's ``d_z =
mean(d) / sd(d)``; the Tukey procedures ``diff / sqrt(MSE)`` (Sakai's ES_E2);
``pairwise_tukey`` ``diff / pooled sd``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError
from irmeta.stats._common import (
    all_pairs,
    chunk_size,
    one_blas_thread,
    progress_bar,
    rng_from,
    score_matrix,
)

CORRECTIONS = ("bonferroni", "holm", "fdr_bh")


# ----------------------------------------------------------------- corrections
def adjust_pvalues(pvalues, method: str) -> np.ndarray:
    """Adjusted p-values (statsmodels ``multipletests`` names), NaN kept as NaN.

    ``bonferroni``: ``min(1, m p)``. ``holm``: step-down, ``p_(i) (m - i + 1)`` with a
    running maximum. ``fdr_bh``: Benjamini-Hochberg step-up, ``p_(i) m / i`` with a
    running minimum from the largest. ``m`` = number of non-NaN p-values.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm")
    array([0.03, 0.06, 0.06])
    """
    validate.choice(method, "method", "adjust_pvalues", CORRECTIONS)
    try:
        p = np.asarray(pvalues, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"adjust_pvalues: pvalues must be numbers in [0, 1], "
                             f"got {type(pvalues).__name__}") from None
    if ((p < 0) | (p > 1)).any():
        raise ParameterError("adjust_pvalues: pvalues must be in [0, 1] (NaN allowed)")
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    v = p[ok]
    m = len(v)
    if m == 0:
        return out
    if method == "bonferroni":
        adj = np.minimum(1.0, v * m)
    else:
        order = np.argsort(v, kind="stable")
        ranked = v[order]
        i = np.arange(1, m + 1)
        if method == "holm":
            adj_sorted = np.minimum(1.0, np.maximum.accumulate(ranked * (m - i + 1)))
        else:
            adj_sorted = np.minimum(1.0, np.minimum.accumulate((ranked * m / i)[::-1])[::-1])
        adj = np.empty(m)
        adj[order] = adj_sorted
    out[ok] = adj
    return out


# ----------------------------------------------------------------- result
class ConfidenceInterval(NamedTuple):
    """Per-pair confidence interval of ``diff`` (``mean_a - mean_b``), in table order,
    as SciPy's result classes return one (``low``, ``high``)."""

    low: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class TestParameters:
    """The randomness of a test: ``trials`` (resamples / permutations) and ``seed``;
    both None for the deterministic tests."""

    __test__ = False  # not a pytest test class despite its name

    trials: int | None = None
    seed: int | np.random.Generator | None = None


@dataclass
class PairwiseResult:
    """Outcome of a test over pairs of systems.

    ``table``: one row per pair with ``a, b, mean_a, mean_b, diff`` (``mean_a - mean_b``),
    ``effect`` (standardised), ``statistic``, ``p_value``, ``p_adjusted`` (NaN without
    correction), ``ci_low, ci_high`` (of ``diff`` at confidence ``1 - level``; NaN where
    the test defines none), ``wins, ties, losses`` (topics where ``a`` beats, ties, loses
    to ``b``) and ``significant`` (``p < level``, corrected p when a correction is used).
    ``parameters``: the test's ``trials`` and ``seed`` (None for deterministic tests).
    Test-specific values are typed fields of the subclasses: :class:`PairedTResult`
    (``df``, ``standard_error``), :class:`BootstrapResult` (``delta``),
    :class:`TukeyHSDResult` (``mse``, ``df``, ``q_crit``), :class:`RandomisedTukeyResult`
    (``ranges``), :class:`PairwiseTukeyResult` (``df``, ``q_crit``, ``standard_error``).

    Examples
    --------
    >>> import pandas as pd
    >>> from irmeta.stats import paired_t
    >>> scores = pd.DataFrame([[0.5, 0.6, 0.7, 0.4], [0.3, 0.5, 0.4, 0.2]],
    ...                       index=["A", "B"])
    >>> r = paired_t(scores)
    >>> r.num_significant()
    1
    >>> r.df
    3
    >>> low, high = r.confidence_interval(0.99)
    >>> bool(low[0] < r.table["diff"][0] < high[0])
    True
    """

    test: str
    level: float
    correction: str | None
    means: pd.Series
    table: pd.DataFrame
    n_topics: int
    parameters: TestParameters = field(default_factory=TestParameters, kw_only=True)

    def __repr__(self) -> str:
        from irmeta.data.display import tables_repr
        corr = f", {self.correction}" if self.correction else ""
        return tables_repr(type(self).__name__,
                           f"{self.test}{corr}, level {self.level:g}, {len(self.means)} "
                           f"systems, {len(self.table):,} pairs, {self.n_topics} topics, "
                           f"{self.num_significant()} significant",
                           {"table": self.table, "means": self.means})

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"table": self.table})

    @property
    def systems(self) -> list[str]:
        """The system names, in the order of the score matrix."""
        return list(self.means.index)

    @property
    def pvalues(self) -> np.ndarray:
        """The p-values deciding significance (corrected when a correction is used)."""
        col = "p_adjusted" if self.correction else "p_value"
        pvalues: np.ndarray = self.table[col].to_numpy()
        return pvalues

    def confidence_interval(self, confidence_level: float | None = None) -> ConfidenceInterval:
        """Per-pair confidence interval of ``diff`` at ``confidence_level`` (default
        ``1 - level``, the table's ``ci_low, ci_high``).

        Parameters
        ----------
        confidence_level : float, optional
            In (0, 1). Levels other than ``1 - level`` are computed by the tests whose
            interval has a closed form in the result (``paired_t``, ``tukey_hsd``,
            ``randomised_tukey_hsd``, ``pairwise_tukey``).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)`` arrays in table order; NaN for tests without an interval
            (``wilcoxon``, ``randomisation``).

        Raises
        ------
        ParameterError
            for another level of the bootstrap (its resamples are not kept: run
            ``bootstrap(..., level=1 - confidence_level)``).
        """
        if confidence_level is not None:
            confidence_level = validate.probability(confidence_level, "confidence_level",
                                                    "confidence_interval")
        if confidence_level is None or abs(confidence_level - (1 - self.level)) < 1e-12:
            return ConfidenceInterval(self.table["ci_low"].to_numpy(),
                                      self.table["ci_high"].to_numpy())
        half = self._half_width(1 - confidence_level)
        diff = self.table["diff"].to_numpy()
        return ConfidenceInterval(diff - half, diff + half)

    def _half_width(self, alpha: float) -> np.ndarray:
        """Half-width of the interval at confidence ``1 - alpha`` (subclasses)."""
        if self.table["ci_low"].isna().all():
            return np.full(len(self.table), np.nan)
        raise ParameterError(f"confidence_interval: {self.test} keeps no resamples to "
                             f"compute another level; rerun it with level={alpha:g}")

    def num_significant(self, level: float | None = None) -> int:
        """Number of pairs with ``p < level`` (default: the result's level)."""
        lv = self.level if level is None else validate.probability(level, "level",
                                                                    "num_significant")
        return int(np.sum(self.pvalues < lv))

    @property
    def num_pairs(self) -> int:
        """Number of pairs tested (rows of ``table``)."""
        return len(self.table)

    def pvalue_matrix(self) -> pd.DataFrame:
        """Symmetric systems x systems matrix of the deciding p-values (diagonal NaN)."""
        names = self.systems
        idx = {s: i for i, s in enumerate(names)}
        mat = np.full((len(names), len(names)), np.nan)
        ia = self.table["a"].map(idx).to_numpy()
        ib = self.table["b"].map(idx).to_numpy()
        mat[ia, ib] = self.pvalues
        mat[ib, ia] = self.pvalues
        return pd.DataFrame(mat, index=names, columns=names)

    def compare_table(self) -> pd.DataFrame:
        """ranx-``compare``-like summary: one row per system (best mean first) with its
        mean, the systems it beats significantly (by rank number), and its pairwise
        win / tie / loss counts in significant decisions."""
        order = self.means.sort_values(ascending=False, kind="stable").index
        number = {s: i + 1 for i, s in enumerate(order)}
        t = self.table
        sig = t["significant"].to_numpy()
        beats: dict[str, list[int]] = {s: [] for s in order}
        wins = dict.fromkeys(order, 0)
        losses = dict.fromkeys(order, 0)
        for a, b, d, s in zip(t["a"], t["b"], t["diff"], sig):
            if not s:
                continue
            win, lose = (a, b) if d > 0 else (b, a)
            beats[win].append(number[lose])
            wins[win] += 1
            losses[lose] += 1
        n = len(order) - 1
        return pd.DataFrame({
            "#": [number[s] for s in order], "system": list(order),
            "mean": [float(self.means[s]) for s in order],
            "better_than": [",".join(map(str, sorted(beats[s]))) for s in order],
            "sig_wins": [wins[s] for s in order],
            "ties": [n - wins[s] - losses[s] for s in order],
            "sig_losses": [losses[s] for s in order]})

    def to_frame(self) -> pd.DataFrame:
        """A copy of ``table`` (one row per pair)."""
        return self.table.copy()

    def summary(self) -> str:
        """One line: the test, its level and correction, and how many pairs differ."""
        corr = f", correction={self.correction}" if self.correction else ""
        return (f"{self.test} (level={self.level}{corr}): {self.num_significant()} of "
                f"{self.num_pairs} pairs significant over {self.n_topics} topics")

    def __str__(self) -> str:
        return self.summary() + "\n" + self.compare_table().to_string(index=False)


@dataclass(repr=False)   # PairwiseResult's short repr
class PairedTResult(PairwiseResult):
    """:func:`paired_t`: ``df = n - 1`` and the per-pair ``standard_error`` of the mean
    difference (``sd(d) / sqrt(n)``); interval ``diff +- t_{1-alpha/2, df} se``."""

    df: int
    standard_error: np.ndarray

    def _half_width(self, alpha: float) -> np.ndarray:
        from scipy import stats
        half: np.ndarray = stats.t.ppf(1 - alpha / 2, self.df) * self.standard_error
        return half


@dataclass(repr=False)   # PairwiseResult's short repr
class BootstrapResult(PairwiseResult):
    """:func:`bootstrap`: ``delta``, the largest per-pair difference needed for
    significance at ``level`` (the per-pair values are the table's ``delta`` column)."""

    delta: float


@dataclass(repr=False)   # PairwiseResult's short repr
class TukeyHSDResult(PairwiseResult):
    """:func:`tukey_hsd`: the ANOVA's ``mse`` and ``df`` and the studentized range
    critical value ``q_crit`` at ``level``; interval ``diff +- q_crit sqrt(mse / n)``."""

    mse: float
    df: int
    q_crit: float

    def _half_width(self, alpha: float) -> np.ndarray:
        from irmeta.stats._tukey import ptukey_isf
        q_crit = ptukey_isf(alpha, len(self.means), self.df)
        return np.full(len(self.table), q_crit * np.sqrt(self.mse / self.n_topics))


@dataclass(repr=False)   # PairwiseResult's short repr
class RandomisedTukeyResult(PairwiseResult):
    """:func:`randomised_tukey_hsd`: ``ranges``, the sorted null ranges of the permuted
    system means (one per trial); interval ``diff +-`` their ``1 - alpha`` quantile."""

    ranges: np.ndarray

    def _half_width(self, alpha: float) -> np.ndarray:
        return np.full(len(self.table), float(np.quantile(self.ranges, 1 - alpha)))


@dataclass(repr=False)   # PairwiseResult's short repr
class PairwiseTukeyResult(PairwiseResult):
    """:func:`pairwise_tukey`: ``df = 2n - 2``, ``q_crit`` at ``level`` and the per-pair
    ``standard_error`` ``sqrt(sp2 / n)``; interval ``diff +- q_crit se``."""

    df: int
    q_crit: float
    standard_error: np.ndarray

    def _half_width(self, alpha: float) -> np.ndarray:
        from scipy import stats
        half: np.ndarray = (np.sqrt(2) * stats.t.ppf(1 - alpha / 2, self.df)
                            * self.standard_error)
        return half


# ----------------------------------------------------------------- helpers
def _prepare(scores, func: str, level, correction, pairs=None):
    frame = score_matrix(scores, func)
    level = validate.probability(level, "level", func)
    if correction is not None:
        validate.choice(correction, "correction", func, CORRECTIONS)
    X = frame.to_numpy()
    if pairs is None:
        ia, ib = all_pairs(X.shape[0])
    else:
        ia, ib = _pair_indices(pairs, list(frame.index), func)
    return frame, X, level, ia, ib


def _pair_indices(pairs, names: list, func: str) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of ``pairs``: ``(a, b)`` tuples of system names or row numbers."""
    def index(x) -> int:
        if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
            return validate.integer(x, "a system index in pairs", func, low=0,
                                    high=len(names) - 1)
        if x not in names:
            raise ParameterError(f"{func}: unknown system {x!r} in pairs "
                                 f"(systems: {', '.join(map(str, names[:20]))})")
        return names.index(x)
    if isinstance(pairs, (str, bytes)) or not isinstance(pairs, Iterable):
        raise ParameterError(f"{func}: pairs must be a list of (a, b) tuples, got {pairs!r}")
    ia, ib = [], []
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable) or len(list(pair)) != 2:
            raise ParameterError(f"{func}: pairs must hold (a, b) tuples, got {pair!r}")
        a, b = pair
        ia.append(index(a))
        ib.append(index(b))
    if not ia:
        raise ParameterError(f"{func}: pairs is empty")
    return np.array(ia, dtype=np.int64), np.array(ib, dtype=np.int64)


def _table(frame, X, ia, ib, *, statistic, p, effect, ci_low, ci_high, level, correction,
           extra_cols=None) -> pd.DataFrame:
    D = X[ia] - X[ib]
    means = X.mean(axis=1)
    p = np.asarray(p, dtype=np.float64)
    allzero = ~np.any(D != 0, axis=1)
    p = np.where(allzero, 1.0, p)
    p_adj = adjust_pvalues(p, correction) if correction else np.full(p.shape, np.nan)
    deciding = p_adj if correction else p
    names = np.asarray(frame.index, dtype=object)
    cols = {
        "a": names[ia], "b": names[ib], "mean_a": means[ia], "mean_b": means[ib],
        "diff": means[ia] - means[ib], "effect": effect, "statistic": statistic,
        "p_value": p, "p_adjusted": p_adj, "ci_low": ci_low, "ci_high": ci_high,
        "wins": (D > 0).sum(axis=1), "ties": (D == 0).sum(axis=1),
        "losses": (D < 0).sum(axis=1), "significant": deciding < level,
    }
    if extra_cols:
        cols.update(extra_cols)
    return pd.DataFrame(cols)


def _dz(D: np.ndarray) -> np.ndarray:
    sd = D.std(axis=1, ddof=1)
    with np.errstate(all="ignore"):
        return np.where(sd > 0, D.mean(axis=1) / sd, np.where(D.mean(axis=1) == 0, 0.0, np.nan))


def _common(test: str, frame: pd.DataFrame, table: pd.DataFrame, level: float,
            correction: str | None) -> tuple[str, float, str | None, pd.Series, pd.DataFrame,
                                              int]:
    """The positional fields every :class:`PairwiseResult` starts with."""
    means = pd.Series(frame.to_numpy().mean(axis=1), index=frame.index, name="mean")
    return test, level, correction, means, table, frame.shape[1]


# ----------------------------------------------------------------- pairwise tests
def paired_t(scores, *, level: float = 0.05, correction: str | None = None,
             pairs=None) -> PairedTResult:
    """Paired Student t-test for every pair (``scipy.stats.ttest_rel``); see module doc.

    Parameters
    ----------
    scores : DataFrame or 2-D array
        systems x topics (``Results.matrix(measure)``).
    level : float
        Significance level in (0, 1).
    correction : {"bonferroni", "holm", "fdr_bh"}, optional
        Multiple-comparison correction of the p-values.
    pairs : list of (a, b), optional
        Only these pairs (names or row numbers); default all.

    Returns
    -------
    PairedTResult

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> paired_t(toy_scores()).table[["a", "b", "p_value"]].round(4)
       a  b  p_value
    0  A  B   0.0086
    1  A  C   0.0054
    2  B  C   0.1079
    """
    from scipy import stats
    frame, X, level, ia, ib = _prepare(scores, "paired_t", level, correction, pairs)
    D = X[ia] - X[ib]
    n = X.shape[1]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        # differences equal up to rounding (a run ahead by the same amount on every
        # topic): SciPy warns of precision loss in the variance; its t is then huge and p
        # about 0, the limit of the exact answer (sd 0, t infinite), so exactly that
        # warning is ignored
        warnings.filterwarnings("ignore", category=RuntimeWarning,
                                message="Precision loss occurred in moment calculation")
        res = stats.ttest_rel(X[ia], X[ib], axis=1)
        se = D.std(axis=1, ddof=1) / np.sqrt(n)
    half = stats.t.ppf(1 - level / 2, n - 1) * se
    mean = D.mean(axis=1)
    stat = np.where(np.isnan(res.statistic) & (mean == 0), 0.0, res.statistic)
    table = _table(frame, X, ia, ib, statistic=stat, p=res.pvalue, effect=_dz(D),
                   ci_low=mean - half, ci_high=mean + half, level=level, correction=correction)
    return PairedTResult(*_common("paired_t", frame, table, level, correction), df=n - 1,
                         standard_error=se)


def wilcoxon(scores, *, level: float = 0.05, correction: str | None = None,
             pairs=None) -> PairwiseResult:
    """Wilcoxon signed-rank test for every pair (``scipy.stats.wilcoxon``, zero
    differences discarded; SciPy picks the exact or normal method). Statistic: the
    smaller of the signed-rank sums. No CI. Pairs with all-zero differences: p = 1.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> wilcoxon(toy_scores()).table["p_value"].round(4).tolist()
    [0.0625, 0.0625, 0.0656]
    """
    from scipy import stats
    frame, X, level, ia, ib = _prepare(scores, "wilcoxon", level, correction, pairs)
    D = X[ia] - X[ib]
    stat = np.zeros(len(D))
    p = np.ones(len(D))
    # SciPy chooses the exact or the normal method for a whole batch; to get for every
    # pair what a call on that pair alone gives, pairs are batched by (number of
    # non-zero differences, presence of tied |differences|) with their zeros removed.
    nonzero = D != 0
    count = nonzero.sum(axis=1)
    absd = np.sort(np.where(nonzero, np.abs(D), np.inf), axis=1)
    tied = np.any((absd[:, 1:] == absd[:, :-1]) & np.isfinite(absd[:, 1:]), axis=1)
    n = D.shape[1]
    for c in np.unique(count[count > 0]):
        for has_ties in (False, True):
            rows = np.flatnonzero((count == c) & (tied == has_ties))
            if not len(rows):
                continue
            sub = D[rows][nonzero[rows]].reshape(len(rows), c)
            # with zeros SciPy always uses the normal approximation
            method: Literal["approx", "auto"] = "approx" if c < n else "auto"
            with np.errstate(all="ignore"), warnings.catch_warnings():
                # SciPy < 1.13 warns when the normal approximation is used on few
                # differences or switched to because of zeros; that choice is made above
                # on purpose (a call on the pair alone makes the same), so exactly those
                # two warnings are ignored. Current SciPy emits neither.
                warnings.filterwarnings("ignore", category=UserWarning,
                                        message="Sample size too small for normal")
                warnings.filterwarnings("ignore", category=UserWarning,
                                        message="Exact p-value calculation does not work")
                res = stats.wilcoxon(sub, axis=1, method=method)
            stat[rows] = res.statistic
            p[rows] = res.pvalue
    nan = np.full(len(D), np.nan)
    table = _table(frame, X, ia, ib, statistic=stat, p=p, effect=_dz(D), ci_low=nan,
                   ci_high=nan, level=level, correction=correction)
    return PairwiseResult(*_common("wilcoxon", frame, table, level, correction))


@one_blas_thread
def randomisation(scores, *, trials: int = 10000, seed: int = 0, level: float = 0.05,
                  correction: str | None = None, pairs=None,
                  progress: bool | None = None) -> PairwiseResult:
    """Paired randomisation (sign-flip permutation) test for every pair; see module doc.

    One ``trials x n`` matrix of random signs is drawn from ``seed`` and shared by all
    pairs; the permuted means of a chunk of pairs are one matrix product.
    ``p = #{|mean*| >= |mean(d)|} / trials`` (the observed labelling is not added).

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = randomisation(toy_scores(), trials=1000, seed=0)
    >>> result.table["p_value"].tolist()
    [0.044, 0.044, 0.095]
    """
    func = "randomisation"
    trials = validate.trials(trials, func)
    frame, X, level, ia, ib = _prepare(scores, func, level, correction, pairs)
    rng = rng_from(seed, func)
    n = X.shape[1]
    signs = rng.integers(0, 2, size=(trials, n), dtype=np.int8).astype(np.float64) * 2 - 1
    obs = (X[ia] - X[ib]).mean(axis=1)
    count = np.zeros(len(ia), dtype=np.int64)
    step = chunk_size(trials + n)
    with progress_bar(len(ia), func, progress) as bar:
        for s in range(0, len(ia), step):
            D = X[ia[s:s + step]] - X[ib[s:s + step]]
            perm = np.abs(D @ signs.T) / n
            thr = np.abs(obs[s:s + step]) * (1 - 1e-12) - 1e-15
            count[s:s + step] = (perm >= thr[:, None]).sum(axis=1)
            bar.update(len(D))
    D = X[ia] - X[ib]
    nan = np.full(len(ia), np.nan)
    table = _table(frame, X, ia, ib, statistic=obs, p=count / trials, effect=_dz(D),
                   ci_low=nan, ci_high=nan, level=level, correction=correction)
    return PairwiseResult(*_common(func, frame, table, level, correction),
                          parameters=TestParameters(trials, seed))


def _bootstrap_counts(rng: np.random.Generator, trials: int, n: int) -> np.ndarray:
    """``trials x n`` float matrix: how often each topic is drawn in each resample."""
    draws = rng.integers(0, n, size=(trials, n))
    counts = np.zeros((trials, n))
    np.add.at(counts, (np.repeat(np.arange(trials), n), draws.ravel()), 1.0)
    return counts


@one_blas_thread
def bootstrap(scores, *, trials: int | None = None, seed: int = 0, level: float = 0.05,
              correction: str | None = None, pairs=None,
              progress: bool | None = None) -> BootstrapResult:
    """Sakai's paired bootstrap test for every pair; see module doc.

    ``trials``: bootstrap resamples ``B`` (default 1000). ``delta``: the largest per-pair
    difference needed for significance at ``level``. Per-pair columns ``delta`` and the
    percentile CI are in the table.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = bootstrap(toy_scores(), trials=1000, seed=1)
    >>> result.num_significant(), round(result.delta, 2)
    (2, 0.12)
    >>> result.parameters
    TestParameters(trials=1000, seed=1)
    """
    func = "bootstrap"
    trials = validate.trials(1000 if trials is None else trials, func)
    frame, X, level, ia, ib = _prepare(scores, func, level, correction, pairs)
    rng = rng_from(seed, func)
    n = X.shape[1]
    C = _bootstrap_counts(rng, trials, n).T            # [n, B]
    P = len(ia)
    asl = np.empty(P)
    t_obs_all = np.empty(P)
    delta = np.empty(P)
    ci_low = np.empty(P)
    ci_high = np.empty(P)
    k = max(1, int(np.ceil(trials * level)))           # k-th largest |mean*| = delta
    step = chunk_size(4 * trials + n)
    with progress_bar(P, func, progress) as bar:
        for s in range(0, P, step):
            D = X[ia[s:s + step]] - X[ib[s:s + step]]
            mean = D.mean(axis=1)
            const = np.all(D == D[:, :1], axis=1)
            W = np.where(const[:, None], 0.0, D - mean[:, None])
            sd = np.where(const, 0.0, D.std(axis=1, ddof=1))
            with np.errstate(all="ignore"):
                t_obs = np.where(sd > 0, mean / (sd / np.sqrt(n)),
                                 np.where(mean == 0, 0.0, np.sign(mean) * np.inf))
                m_star = (W @ C) / n                                  # [p, B]
                var = np.maximum(((W * W) @ C - n * m_star ** 2) / (n - 1), 0.0)
                scale = np.maximum(np.abs(W).max(axis=1, keepdims=True), 1e-300) ** 2
                var = np.where(var <= 1e-24 * scale, 0.0, var)
                t_star = np.where(var > 0, m_star / np.sqrt(var / n),
                                  np.where(np.abs(m_star) <= 1e-12 * np.sqrt(scale), 0.0,
                                           np.sign(m_star) * np.inf))
            thr = np.abs(t_obs) * (1 - 1e-12)
            asl[s:s + step] = (np.abs(t_star) >= thr[:, None]).sum(axis=1) / trials
            t_obs_all[s:s + step] = t_obs
            absm = np.abs(m_star)
            delta[s:s + step] = -np.partition(-absm, k - 1, axis=1)[:, k - 1]
            q = np.quantile(m_star, [level / 2, 1 - level / 2], axis=1)
            ci_low[s:s + step] = mean + q[0]
            ci_high[s:s + step] = mean + q[1]
            bar.update(len(D))
    D = X[ia] - X[ib]
    table = _table(frame, X, ia, ib, statistic=t_obs_all, p=asl, effect=_dz(D),
                   ci_low=ci_low, ci_high=ci_high, level=level, correction=correction,
                   extra_cols={"delta": delta})
    return BootstrapResult(*_common(func, frame, table, level, correction),
                           parameters=TestParameters(trials, seed),
                           delta=float(np.max(delta)) if P else np.nan)


# ----------------------------------------------------------------- Tukey family
def _anova_mse(X: np.ndarray) -> tuple[float, int]:
    S, n = X.shape
    resid = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    df = (S - 1) * (n - 1)
    return float((resid ** 2).sum() / df), df


def tukey_hsd(scores, *, level: float = 0.05, pairs=None) -> TukeyHSDResult:
    """Tukey HSD on the two-way ANOVA without replication (system + topic); see
    module doc. Typed fields: ``mse``, ``df``, ``q_crit`` (at ``level``).

    ``scores`` and ``level`` as :func:`paired_t`; ``pairs``: only these pairs, the
    family is still every system. Returns a :class:`TukeyHSDResult`.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = tukey_hsd(toy_scores())
    >>> result.df, round(result.mse, 5)
    (8, 0.00783)
    >>> low, high = result.confidence_interval(0.99)
    >>> bool(low[2] < 0 < high[2])          # B vs C (p = 0.08): the 99% interval holds 0
    True
    """
    from irmeta.stats._tukey import ptukey_isf, ptukey_sf
    func = "tukey_hsd"
    frame, X, level, ia, ib = _prepare(scores, func, level, None, pairs)
    S, n = X.shape
    mse, df = _anova_mse(X)
    means = X.mean(axis=1)
    diff = means[ia] - means[ib]
    se = np.sqrt(mse / n)
    with np.errstate(all="ignore"):
        q = np.where(se > 0, np.abs(diff) / se, np.where(diff == 0, 0.0, np.inf))
        p = np.where(np.isinf(q), 0.0, ptukey_sf(np.where(np.isinf(q), 0.0, q), S, df))
        q_crit = ptukey_isf(level, S, df)
        effect = np.where(mse > 0, diff / np.sqrt(mse), np.nan)
    table = _table(frame, X, ia, ib, statistic=q, p=p, effect=effect,
                   ci_low=diff - q_crit * se, ci_high=diff + q_crit * se, level=level,
                   correction=None)
    return TukeyHSDResult(*_common(func, frame, table, level, None), mse=mse, df=df,
                          q_crit=q_crit)


@one_blas_thread
def randomised_tukey_hsd(scores, *, trials: int = 5000, seed: int = 0, level: float = 0.05,
                         pairs=None, progress: bool | None = None) -> RandomisedTukeyResult:
    """Randomised Tukey HSD (Carterette 2012; Sakai's B = 5000); see module doc.

    Each trial permutes every topic's column of scores across the systems
    (``Generator.permuted`` on a batch of trials); the null distribution is that of the
    range of the permuted system means. CI: ``diff +- `` the ``(1-level)`` quantile of
    the ranges. Typed field: ``ranges`` (sorted, one per trial).

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = randomised_tukey_hsd(toy_scores(), trials=1000, seed=0)
    >>> result.table["p_value"].tolist()
    [0.315, 0.003, 0.528]
    >>> result.ranges.shape
    (1000,)
    """
    func = "randomised_tukey_hsd"
    trials = validate.trials(trials, func)
    frame, X, level, ia, ib = _prepare(scores, func, level, None, pairs)
    rng = rng_from(seed, func)
    S, n = X.shape
    ranges = np.empty(trials)
    step = chunk_size(S * n, minimum=1)
    with progress_bar(trials, func, progress) as bar:
        for s in range(0, trials, step):
            m = min(step, trials - s)
            batch = np.broadcast_to(X, (m, S, n)).copy()
            rng.permuted(batch, axis=1, out=batch)
            mm = batch.mean(axis=2)
            ranges[s:s + m] = mm.max(axis=1) - mm.min(axis=1)
            bar.update(m)
    ranges.sort()
    means = X.mean(axis=1)
    diff = means[ia] - means[ib]
    thr = np.abs(diff) * (1 - 1e-12) - 1e-15
    p = (trials - np.searchsorted(ranges, thr, side="left")) / trials
    half = float(np.quantile(ranges, 1 - level))
    mse, _ = _anova_mse(X)
    with np.errstate(all="ignore"):
        effect = np.where(mse > 0, diff / np.sqrt(mse), np.nan)
    table = _table(frame, X, ia, ib, statistic=np.abs(diff), p=p, effect=effect,
                   ci_low=diff - half, ci_high=diff + half, level=level, correction=None)
    return RandomisedTukeyResult(*_common(func, frame, table, level, None),
                                 parameters=TestParameters(trials, seed), ranges=ranges)


def pairwise_tukey(scores, *, level: float = 0.05, correction: str | None = None,
                   pairs=None) -> PairwiseTukeyResult:
    """The innovation paper's per-pair, two-group, unpaired Tukey HSD — offered ONLY to
    reproduce that paper (see module doc); prefer :func:`tukey_hsd`.

    ``q = |diff| / sqrt(sp2 / n)``, ``sp2 = (sd_a^2 + sd_b^2) / 2``, ``df = 2n - 2``,
    ``p = P(Q_{2,df} > q) = 2 P(T_df > q/sqrt 2)``; CI ``diff +- q_crit sqrt(sp2/n)``.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> pairwise_tukey(toy_scores()).table["p_value"].round(4).tolist()
    [0.0486, 0.0022, 0.1083]
    """
    from scipy import stats
    func = "pairwise_tukey"
    frame, X, level, ia, ib = _prepare(scores, func, level, correction, pairs)
    n = X.shape[1]
    df = 2 * n - 2
    means = X.mean(axis=1)
    var = X.var(axis=1, ddof=1)
    diff = means[ia] - means[ib]
    sp2 = (var[ia] + var[ib]) / 2
    se = np.sqrt(sp2 / n)
    with np.errstate(all="ignore"):
        q = np.where(se > 0, np.abs(diff) / se, np.where(diff == 0, 0.0, np.inf))
        p = 2 * stats.t.sf(q / np.sqrt(2), df)
        effect = np.where(sp2 > 0, diff / np.sqrt(sp2), np.nan)
    q_crit = np.sqrt(2) * stats.t.ppf(1 - level / 2, df)
    table = _table(frame, X, ia, ib, statistic=q, p=p, effect=effect,
                   ci_low=diff - q_crit * se, ci_high=diff + q_crit * se, level=level,
                   correction=correction)
    return PairwiseTukeyResult(*_common(func, frame, table, level, correction), df=df,
                               q_crit=float(q_crit), standard_error=se)


#: test name -> function (the names the CLI and discriminative_power accept)
TESTS: dict[str, Callable[..., PairwiseResult]] = {
    "paired_t": paired_t, "t": paired_t,
    "wilcoxon": wilcoxon,
    "randomisation": randomisation, "randomization": randomisation, "permutation": randomisation,
    "bootstrap": bootstrap,
    "tukey_hsd": tukey_hsd, "tukey": tukey_hsd,
    "randomised_tukey_hsd": randomised_tukey_hsd, "randomized_tukey_hsd": randomised_tukey_hsd,
    "pairwise_tukey": pairwise_tukey,
}
_RANDOM = {"randomisation", "bootstrap", "randomised_tukey_hsd"}


def pairwise_test(scores, test: str = "paired_t", **kwargs) -> PairwiseResult:
    """Run the named test (``paired_t``, ``wilcoxon``, ``randomisation``,
    ``bootstrap``, ``tukey_hsd``, ``randomised_tukey_hsd``, ``pairwise_tukey``) with its
    keyword arguments.

    Only the test's own arguments are accepted: ``trials`` and ``seed`` belong to the
    random tests, ``correction`` to the pairwise ones; any other keyword is a
    :class:`~irmeta.errors.ParameterError` naming the accepted ones (nothing is dropped
    silently).

    Parameters
    ----------
    scores : DataFrame or 2-D array
        systems x topics.
    test : str
        The test's name (see :data:`TESTS`).
    **kwargs
        The test's own arguments (``level``, ``correction``, ``trials``, ``seed``...).

    Returns
    -------
    PairwiseResult
        The test's result class (typed fields per test).

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = pairwise_test(toy_scores(), "tukey_hsd")
    >>> result.summary()
    'tukey_hsd (level=0.05): 2 of 3 pairs significant over 5 topics'
    >>> result.table[["a", "b", "diff", "significant"]].round(2)
       a  b  diff  significant
    0  A  B  0.18         True
    1  A  C  0.32         True
    2  B  C  0.14        False
    """
    import inspect
    fn = TESTS.get(test) if isinstance(test, str) else None
    if fn is None:
        from irmeta.suggest import did_you_mean
        raise ParameterError(f"pairwise_test: unknown test {test!r}; "
                             + did_you_mean(str(test), sorted(set(TESTS))))
    accepted = [p for p in inspect.signature(fn).parameters if p != "scores"]
    if "correction" in kwargs and "correction" not in accepted:
        if kwargs["correction"] is None:        # "no correction" is what Tukey does
            del kwargs["correction"]
        else:
            raise ParameterError(f"pairwise_test: {test} controls the family-wise error itself; "
                             "correction is only for the pairwise tests")
    validate.keywords(kwargs, accepted, f"pairwise_test({test!r})")
    return fn(scores, **kwargs)


def options_for(test: str, *, trials: int | None = None, seed: int | None = None,
                progress: bool | None = None, correction: str | None = None) -> dict:
    """The subset of these common options that ``test`` takes, for callers that run
    several tests with one set of options (``None`` = the test's default)."""
    import inspect
    accepted = inspect.signature(TESTS[test]).parameters
    given = {"trials": trials, "seed": seed, "progress": progress,
             "correction": correction}
    return {k: v for k, v in given.items() if v is not None and k in accepted}
