"""Risk against the other runs: URisk and TRisk against a baseline run (TREC Web 2013-14;
Dinçer, Macdonald and Ounis, SIGIR 2014), ZRisk and GeoRisk against every run of the
campaign at once (Dinçer, Macdonald and Ounis, SIGIR 2016).

With ``x`` a run's per-topic scores, ``b`` the baseline's and ``c`` the number of topics:

* ``delta_i = x_i - b_i``; ``adj_i = delta_i`` if ``delta_i >= 0`` else
  ``(1 + alpha) * delta_i`` (a loss weighs ``1 + alpha`` times a win);
* **URisk** ``= mean_i adj_i``; **TRisk** ``= URisk / (s(adj) / sqrt(c))``, the one-sample
  t statistic of ``adj`` against 0 (``scipy.stats.ttest_1samp``, sample standard
  deviation), with its two-sided p-value **TRisk_p**; NaN when ``adj`` is constant (the
  baseline itself: URisk 0, TRisk undefined); **wins** / **losses**: topics with
  ``delta > 0`` / ``< 0``.
* With the topics x runs matrix ``X``, ``T_i`` its row sums, ``S_j`` its column sums,
  ``N`` its total: ``e_ij = T_i S_j / N``, ``z_ij = (x_ij - e_ij) / sqrt(e_ij)`` (0 where
  ``e_ij = 0``: a topic every run scores 0 on); **ZRisk_j** ``= sum_{z_ij >= 0} z_ij +
  (1 + alpha) sum_{z_ij < 0} z_ij``; **GeoRisk_j** ``= sqrt(S_j / c * Phi(ZRisk_j / c))``
  (``Phi`` the standard normal CDF, ``Phi(x) = erfc(-x / sqrt 2) / 2`` with
  :func:`math.erfc`: no ``scipy.stats`` import, so the campaign report's main process,
  which shows GeoRisk in its leaderboard, keeps scipy.stats out).

A run lacking a topic scores 0 on it (trec_eval ``-c``: every topic of the qrels is
scored), and a note says how many topics each such run lacks. Formulas, papers and a
worked example: ``docs/risk.md``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta.constraints import NONNEGATIVE
from irmeta.errors import ParameterError, warn

#: the default risk weight: a loss against the baseline counts twice (TREC Web 2013-14
#: reported alpha = 1 and 5; Dinçer et al. 2014 use 1, 5, 10)
DEFAULT_ALPHA = 1.0
#: the columns of :attr:`Risk.table`, in order (the TSV / CSV / JSON columns)
COLUMNS = ["run", "measure", "alpha", "mean", "URisk", "TRisk", "TRisk_p", "wins", "losses",
           "ZRisk", "GeoRisk"]

__all__ = ["COLUMNS", "DEFAULT_ALPHA", "Risk", "georisk", "risk", "risk_matrices",
           "std_normal_cdf", "urisk", "zrisk"]


@dataclass(frozen=True, eq=False)
class Risk:
    """Risk of every run: ``table`` (one row per run, measure and alpha, :data:`COLUMNS`;
    the baseline columns NaN without a baseline), ``baseline`` (its name or None) and
    ``topics`` (the number of topics every value is over)."""

    table: pd.DataFrame
    baseline: str | None
    topics: int

    def __repr__(self) -> str:
        runs = self.table["run"].nunique()
        measures = list(dict.fromkeys(self.table["measure"]))
        alphas = sorted(set(self.table["alpha"]))
        base = f", baseline {self.baseline}" if self.baseline else ""
        return (f"Risk({runs} runs x {len(measures)} measures {measures} x alpha {alphas}, "
                f"{self.topics} topics{base}; .table)")

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"table": self.table})


def urisk(x: np.ndarray, b: np.ndarray, alpha: float) -> tuple[float, float, float, int, int]:
    """``(URisk, TRisk, TRisk_p, wins, losses)`` of scores ``x`` against ``b`` (1-D):
    ``delta = x - b``, ``adj_i = delta_i`` if ``delta_i >= 0`` else ``(1 + alpha)
    delta_i``, ``URisk = mean(adj)``, ``TRisk = URisk / (s(adj) / sqrt(c))`` (sample
    standard deviation; NaN when ``adj`` is constant) with its two-sided Student-t
    p-value (``c - 1`` degrees of freedom), ``wins = #{delta > 0}``, ``losses =
    #{delta < 0}``."""
    from scipy.stats import ttest_1samp
    delta = x - b
    adj = np.where(delta >= 0, delta, (1.0 + alpha) * delta)
    u = float(adj.mean())
    if len(adj) < 2 or np.all(adj == adj[0]):
        t = p = float("nan")
    else:
        res = ttest_1samp(adj, 0.0)
        t, p = float(res.statistic), float(res.pvalue)
    return u, t, p, int((delta > 0).sum()), int((delta < 0).sum())


def zrisk(matrix: np.ndarray, alpha: float) -> np.ndarray:
    """ZRisk of every run of a runs x topics ``matrix`` (float64 [runs]): with ``X`` the
    topics x runs matrix, ``e_ij = T_i S_j / N`` (row sums, column sums, total),
    ``z_ij = (x_ij - e_ij) / sqrt(e_ij)`` (0 where ``e_ij = 0``), ``ZRisk_j =
    sum_{z_ij >= 0} z_ij + (1 + alpha) sum_{z_ij < 0} z_ij``."""
    X = np.asarray(matrix, dtype=np.float64).T              # topics x runs, as the paper
    T = X.sum(axis=1, keepdims=True)
    S = X.sum(axis=0, keepdims=True)
    N = X.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        e = T * S / N if N > 0 else np.zeros_like(X)
        z = np.where(e > 0, (X - e) / np.sqrt(e), 0.0)
    weighted = np.where(z >= 0, z, (1.0 + alpha) * z)
    out: np.ndarray = weighted.sum(axis=0)
    return out


def georisk(matrix: np.ndarray, alpha: float) -> np.ndarray:
    """GeoRisk of every run of a runs x topics ``matrix`` (float64 [runs]):
    ``GeoRisk_j = sqrt(S_j / c * Phi(ZRisk_j / c))``, ``S_j`` the run's total over the
    ``c`` topics, ``Phi`` the standard normal CDF (:func:`std_normal_cdf`)."""
    X = np.asarray(matrix, dtype=np.float64)
    c = X.shape[1]
    out: np.ndarray = np.sqrt(X.sum(axis=1) / c * std_normal_cdf(zrisk(X, alpha) / c))
    return out


def std_normal_cdf(x: np.ndarray) -> np.ndarray:
    """The standard normal CDF of every element of ``x``: ``Phi(x) = erfc(-x / sqrt 2) /
    2`` (:func:`math.erfc`, accurate to a few ulp in both tails, as ``scipy.stats.norm.cdf``;
    computed without importing ``scipy.stats``, about a second that the report's main
    process never pays)."""
    values = np.asarray(x, dtype=np.float64)
    flat = [0.5 * math.erfc(-v / math.sqrt(2.0)) for v in values.ravel().tolist()]
    return np.array(flat, dtype=np.float64).reshape(values.shape)


def _alphas(alpha: Any, func: str) -> list[float]:
    values = [alpha] if isinstance(alpha, (int, float, np.number)) and not isinstance(
        alpha, bool) else alpha
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence) or not values:
        raise ParameterError(f"{func}: alpha must be a number >= 0 or a non-empty list of "
                             f"them, got {alpha!r}")
    return [float(NONNEGATIVE.check(a, "alpha", func)) for a in values]


def risk_matrices(matrices: Mapping[str, pd.DataFrame], *, baseline: str | None = None,
                  alpha: float | Sequence[float] = DEFAULT_ALPHA) -> Risk:
    """Risk from ``{measure: runs x topics matrix}`` (as :func:`irmeta.stats.matrices`
    returns them). ``baseline``: a run of the matrices (URisk, TRisk, wins, losses
    against it); ``alpha``: one risk weight or several (a row per alpha)."""
    func = "risk"
    alphas = _alphas(alpha, func)
    if not matrices:
        raise ParameterError(f"{func}: no measures")
    rows = []
    topics = 0
    for measure, frame in matrices.items():
        if frame.isna().to_numpy().any():
            raise ParameterError(f"{func}: {measure} is undefined (NaN) on some topics; risk "
                                 "needs a score for every run on every topic")
        runs = [str(r) for r in frame.index]
        if len(runs) < 2:
            raise ParameterError(f"{func}: risk against the other runs needs at least 2 runs")
        if baseline is not None and baseline not in runs:
            raise ParameterError(f"{func}: unknown baseline run {baseline!r} (runs: "
                                 f"{', '.join(runs[:8])}{' ...' if len(runs) > 8 else ''})")
        X = frame.to_numpy(dtype=np.float64)
        topics = X.shape[1]
        means = X.mean(axis=1)
        for a in alphas:
            z, g = zrisk(X, a), georisk(X, a)
            b = X[runs.index(baseline)] if baseline is not None else None
            for r, run in enumerate(runs):
                base = urisk(X[r], b, a) if b is not None else (np.nan,) * 3 + (None, None)
                rows.append((run, measure, a, float(means[r]), *base, float(z[r]),
                             float(g[r])))
    table = pd.DataFrame(rows, columns=COLUMNS)
    table = table.astype({"wins": "Int64", "losses": "Int64"})
    return Risk(table, baseline, topics)


def risk(qrels: Any, runs: Any, measures: Sequence[str], *, baseline: str | None = None,
         alpha: float | Sequence[float] = DEFAULT_ALPHA, rel_level: int = 1,
         max_docs: int | None = None,
         groups: Mapping[str, str] | str | os.PathLike[str] | None = None) -> Risk:
    """URisk / TRisk against ``baseline`` and ZRisk / GeoRisk against every run, per run,
    measure and alpha (formulas: the module doc, ``docs/risk.md``).

    ``qrels``, ``runs``: anything :func:`irmeta.load_campaign` reads (or a built
    :class:`~irmeta.Campaign` as ``runs`` with ``qrels=None``). Every qrels topic is scored;
    a run lacking a topic scores 0 there (a note says so). ``groups``: ``{run: group}`` or
    a groups file path, for the context of the measures (as :func:`irmeta.evaluate`).

    Examples
    --------
    >>> from irmeta.demo import demo_paths
    >>> from irmeta.stats.risk import risk
    >>> p = demo_paths()
    >>> res = risk(p.qrels, p.runs[:3], ["AP"], baseline="expD-doc2query")
    >>> list(res.table.columns) == COLUMNS, res.topics
    (True, 50)
    """
    from irmeta import validate
    from irmeta.data.campaign import Campaign
    from irmeta.evaluation import evaluate
    from irmeta.io.load import load_campaign
    func = "risk"
    measures = [str(m) for m in validate.measure_list(measures, func)]
    _alphas(alpha, func)
    campaign = runs if isinstance(runs, Campaign) and qrels is None else \
        load_campaign(qrels, runs, max_docs=max_docs, warn_dropped=False)
    res = evaluate(campaign, measures=measures, complete=True, rel_level=rel_level,
                   groups=groups)
    if len(res.measures) != len(measures):
        raise ParameterError(f"{func}: each measure string must name exactly one measure, "
                             f"got {measures!r}")
    _note_missing(campaign)
    return risk_matrices({m: res.matrix(j) for j, m in enumerate(measures)},
                         baseline=baseline, alpha=alpha)


def _note_missing(campaign: Any) -> None:
    has = np.asarray(campaign.has_topic)
    for r, name in enumerate(campaign.runs):
        missing = int((~has[r]).sum())
        if missing:
            warn(f"risk: run {name} retrieves nothing for {missing} of the "
                 f"{has.shape[1]} topics; it scores 0 on them (trec_eval -c)")
