"""Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal
19(3), 2016): from a past runs x topics matrix of one measure, how many topics the next
test collection needs so that a difference of at least ``D`` between systems is
detected with the requested power (or estimated to within ``D``).

The variance estimate. With ``X`` the matrix (``k`` runs x ``n_t`` topics), ``r_ij =
x_ij - mean_i. - mean_.j + mean_..`` the residuals of the two-way ANOVA without
replication, and ``V_E = sum_ij r_ij^2 / ((n_t - 1)(k - 1))`` its residual mean square.

The methods (``alpha``: the test's level; ``power = 1 - beta``):

* ``ttest`` (paired t-test of two systems): the smallest ``n`` with
  ``power_t(D / sqrt(2 V_E), n, alpha) >= power``, the exact two-sided power of the
  paired t-test from the noncentral t distribution (statsmodels ``TTestPower``'s
  formula, :func:`power_at`);
* ``anova`` (one-way ANOVA over the ``k`` systems, ``D`` the minimum detectable range):
  the smallest ``n`` with ``power_F(f, n k, alpha, k) >= power`` at Cohen's
  ``f = sqrt(D^2 / (2 k V_E))`` (statsmodels ``FTestAnovaPower``'s, ``nobs = n k``);
* ``ci`` (confidence-interval width): the smallest ``n`` whose expected
  ``100(1 - alpha)%`` confidence interval of a paired difference has width at most
  ``D``: ``E[W(n)] = 2 t_{1-alpha/2, n-1} E[s_d] / sqrt(n)``, with the differences'
  variance ``sigma_d^2 = 2 V_E`` and ``E[s_d] = sigma_d sqrt(2 / (n-1))
  Gamma(n/2) / Gamma((n-1)/2)`` (the mean of a sample standard deviation of ``n``
  normal values; Sakai 2016, CI-based design). No power: ``power`` is NaN.

Reported beside ``n`` (column ``n_topics``): the current topic count ``topics``, the
power the current topic set has for ``D`` (``power``), and the minimum detectable
difference at the current topic count (``min_detectable``: the smallest ``D`` whose
required ``n`` is at most ``topics``, solved on the continuous power curve; for ``ci``
the expected width at ``topics``). Undefined values are NaN: every value when
``V_E = 0`` (an additive matrix: no residual variance to plan with), ``n_topics`` when
more than :data:`MAX_TOPICS` topics would be needed. Docs: ``docs/topic-set-size.md``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.errors import ParameterError

__all__ = ["CERTAIN", "COLUMNS", "MAX_TOPICS", "METHODS", "TopicSetSize", "ci_width", "power_at",
           "residual_variance", "topic_set_size"]

#: the design methods, in the order of the table
METHODS = ("ttest", "anova", "ci")
#: the largest topic count the search goes to (beyond: n_topics is NaN)
MAX_TOPICS = 1 << 24
#: the noncentrality past which a power SciPy cannot compute (NaN) is 1: at
#: noncentrality 400 the miss probability is below 1e-80
CERTAIN = 400.0
#: the columns of :attr:`TopicSetSize.table`, in order (the TSV / CSV / JSON columns)
COLUMNS = ["measure", "method", "min_diff", "alpha", "target_power", "n_topics", "variance",
           "topics", "runs", "power", "min_detectable"]


@dataclass(frozen=True, eq=False)
class TopicSetSize:
    """The design table: one row per measure, method and ``min_diff`` (:data:`COLUMNS`):
    ``n_topics`` the topics needed, ``variance`` ``V_E``, ``topics`` / ``runs`` the
    current matrix's size, ``power`` the current topic set's power for ``min_diff``,
    ``min_detectable`` the smallest difference the current topic count detects."""

    table: pd.DataFrame

    def __repr__(self) -> str:
        t = self.table
        measures = list(dict.fromkeys(t["measure"]))
        return (f"TopicSetSize({len(t)} rows: measures {measures}, methods "
                f"{list(dict.fromkeys(t['method']))}, min_diff "
                f"{sorted(set(t['min_diff']))}; .table)")

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"table": self.table})


def residual_variance(X: np.ndarray) -> float:
    """``V_E``: the residual mean square of the two-way ANOVA without replication of
    the ``k x n_t`` matrix ``X`` (runs x topics), ``sum r_ij^2 / ((n_t - 1)(k - 1))``
    with ``r_ij = x_ij - mean_i. - mean_.j + mean_..``."""
    X = np.asarray(X, dtype=float)
    k, n = X.shape
    r = X - X.mean(axis=1, keepdims=True) - X.mean(axis=0, keepdims=True) + X.mean()
    return float((r * r).sum() / ((n - 1) * (k - 1)))


def power_at(method: str, diff: float, n: float, variance: float, alpha: float,
             runs: int) -> float:
    """The power of ``n`` topics for a difference ``diff`` under ``method``; NaN for
    ``ci``.

    * ``ttest``: the two-sided paired t-test at effect size ``d = diff / sqrt(2 V_E)``:
      with ``c = t_{1-alpha/2, n-1}`` and ``T'`` noncentral t with ``n - 1`` degrees of
      freedom and noncentrality ``d sqrt(n)``, ``P(T' > c) + P(T' < -c)``;
    * ``anova``: the one-way ANOVA of ``runs`` systems at Cohen's ``f = sqrt(diff^2 /
      (2 runs V_E))``: with ``F'`` noncentral F with ``(runs - 1, n runs - runs)``
      degrees of freedom and noncentrality ``f^2 n runs``, ``P(F' > F_{1-alpha})``.

    These are statsmodels' ``TTestPower`` and ``FTestAnovaPower`` formulas, computed with
    ``scipy.special``'s noncentral distribution functions (``nctdtr``, ``ncfdtr``) and
    quantiles (``stdtrit``, ``fdtri``) directly: importing statsmodels costs 0.85 s and
    ``scipy.stats`` 0.4 s, most of a DL21 run, and the tests compare every topic count
    with statsmodels' own. The t-test's lower tail is ``1 - P(T'(-nc) < c)`` (the same
    by symmetry: the cdf of a far lower tail is NaN where this is finite); past a
    noncentrality of :data:`CERTAIN` a power still NaN is 1."""
    from scipy import special
    if method == "ttest":
        es = diff / math.sqrt(2 * variance)
        nc, df = es * math.sqrt(n), n - 1
        crit = float(special.stdtrit(df, 1 - alpha / 2))
        value = float((1.0 - special.nctdtr(df, nc, crit))
                      + (1.0 - special.nctdtr(df, -nc, crit)))
        nc = nc * nc
    elif method == "anova":
        f = math.sqrt(diff * diff / (2 * runs * variance))
        nc, d1, d2 = f * f * n * runs, runs - 1, n * runs - runs
        crit = float(special.fdtri(d1, d2, 1 - alpha))
        value = float(1.0 - special.ncfdtr(d1, d2, nc, crit))
    else:
        return float("nan")
    if math.isnan(value) and nc > CERTAIN:
        return 1.0
    return value


def ci_width(n: int, variance: float, alpha: float) -> float:
    """The expected width of the ``100(1 - alpha)%`` CI of a paired difference over
    ``n`` topics: ``2 t_{1-alpha/2, n-1} E[s_d] / sqrt(n)``, ``sigma_d = sqrt(2 V_E)``,
    ``E[s_d] = sigma_d sqrt(2/(n-1)) Gamma(n/2) / Gamma((n-1)/2)``."""
    from scipy import special
    c = math.sqrt(2.0 / (n - 1)) * math.exp(math.lgamma(n / 2) - math.lgamma((n - 1) / 2))
    t = float(special.stdtrit(n - 1, 1 - alpha / 2))
    return 2 * t * c * math.sqrt(2 * variance) / math.sqrt(n)


def _smallest(ok) -> float:
    """The smallest ``n >= 2`` with ``ok(n)`` (``ok`` monotone: false, then true), by
    doubling then bisection; NaN past :data:`MAX_TOPICS`."""
    if ok(2):
        return 2.0
    lo, hi = 2, 4
    while not ok(hi):
        if hi >= MAX_TOPICS:
            return float("nan")
        lo, hi = hi, min(2 * hi, MAX_TOPICS)
    while hi - lo > 1:           # ok(lo) false, ok(hi) true
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return float(hi)


def _min_detectable(method: str, n: int, variance: float, alpha: float, power: float,
                    runs: int) -> float:
    """The smallest difference the ``n`` current topics detect with ``power``: the root
    of ``power_at(d) = power`` (increasing in ``d``), bracketed by doubling and found by
    bisection to 1e-12 relative."""
    if method == "ci":
        return ci_width(n, variance, alpha)
    lo, hi = 0.0, math.sqrt(2 * variance)
    while power_at(method, hi, n, variance, alpha, runs) < power:
        lo, hi = hi, 2 * hi
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if power_at(method, mid, n, variance, alpha, runs) < power \
            else (lo, mid)
    return (lo + hi) / 2


def _check(min_diff, alpha, power, methods) -> tuple[list[float], list[str], float, float]:
    from irmeta.constraints import POSITIVE, PROBABILITY
    func = "topic_set_size"
    diffs = [min_diff] if not isinstance(min_diff, (list, tuple, np.ndarray, pd.Series)) \
        else list(min_diff)
    if not diffs:
        raise ParameterError(f"{func}: give at least one min_diff")
    diffs = [float(POSITIVE.check(d, "min_diff", func)) for d in diffs]
    alpha = float(PROBABILITY.check(alpha, "alpha", func))
    power = float(PROBABILITY.check(power, "power", func))
    ms = [methods] if isinstance(methods, str) else list(methods)
    for m in ms:
        if m not in METHODS:
            raise ParameterError(f"{func}: method must be one of {', '.join(METHODS)}, "
                                 f"got {m!r}")
    if not ms:
        raise ParameterError(f"{func}: give at least one method")
    return diffs, list(dict.fromkeys(ms)), alpha, power


def _matrix(name: str, m) -> np.ndarray:
    func = "topic_set_size"
    if not isinstance(m, pd.DataFrame):
        raise ParameterError(f"{func}: the matrix of {name} must be a DataFrame (runs x "
                             f"topics, irmeta.evaluate(...).matrix(measure)), got "
                             f"{type(m).__name__}")
    X = m.to_numpy(dtype=float)
    if X.shape[0] < 2 or X.shape[1] < 2:
        raise ParameterError(f"{func}: {name} needs at least 2 runs and 2 topics, got "
                             f"{X.shape[0]} runs x {X.shape[1]} topics")
    bad = np.argwhere(~np.isfinite(X))
    if len(bad):
        r, t = bad[0]
        raise ParameterError(f"{func}: {name} has no value for run {m.index[r]!r} on topic "
                             f"{m.columns[t]!r} ({len(bad)} cells undefined): the variance "
                             "needs every run on every topic")
    return X


def topic_set_size(matrix: pd.DataFrame | Mapping[str, pd.DataFrame],
                   min_diff: float | Sequence[float], *, alpha: float = 0.05,
                   power: float = 0.8, method: str | Sequence[str] = "ttest",
                   measure: str | None = None) -> TopicSetSize:
    """The topics a next round needs for each ``min_diff`` ``D`` and ``method``
    (``ttest``, ``anova``, ``ci``; the formulas: the module doc), from ``matrix``:
    one runs x topics DataFrame (``measure`` names it; default ``"score"``) or a
    mapping ``{measure: matrix}``. Every run must have a value on every topic (a NaN
    cell is a ParameterError naming it); at least 2 runs and 2 topics.

    >>> from irmeta.demo import toy_scores
    >>> t = topic_set_size(toy_scores(), [0.1, 0.2]).table
    >>> list(t["n_topics"]) == sorted(t["n_topics"], reverse=True)
    True
    """
    diffs, methods, alpha, power = _check(min_diff, alpha, power, method)
    mats = dict(matrix) if isinstance(matrix, Mapping) else {measure or "score": matrix}
    if not mats:
        raise ParameterError("topic_set_size: give at least one matrix")
    rows = []
    for name, m in mats.items():
        X = _matrix(str(name), m)
        k, n_t = X.shape
        V = residual_variance(X)
        for meth in methods:
            mdd = (_min_detectable(meth, n_t, V, alpha, power, k) if V > 0
                   else float("nan"))
            for d in diffs:
                if V <= 0:
                    need = now = float("nan")
                elif meth == "ci":
                    need = _smallest(lambda n: ci_width(n, V, alpha) <= d)
                    now = float("nan")
                else:
                    need = _smallest(lambda n: power_at(meth, d, n, V, alpha, k) >= power)
                    now = power_at(meth, d, n_t, V, alpha, k)
                rows.append((str(name), meth, d, alpha, power, need, V, n_t, k, now, mdd))
    table = pd.DataFrame(rows, columns=COLUMNS)
    for c in ("topics", "runs"):
        table[c] = table[c].astype(np.int64)
    table["n_topics"] = table["n_topics"].astype("Int64")      # NaN: <NA>, JSON null
    return TopicSetSize(table)
