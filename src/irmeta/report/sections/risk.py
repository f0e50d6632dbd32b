"""The risk section, computed (:class:`RiskSection`): how badly each run loses, topic by
topic, against a baseline run (``ReportOptions.baseline``: topics won, lost and tied,
URisk and TRisk) and against every run of the campaign at once (ZRisk, GeoRisk). Part of
:mod:`irmeta.report.analysis` (the layout: docs/report.md); the numbers are
:mod:`irmeta.stats.risk`'s (formulas: docs/risk.md), on the primary measure's runs x
topics matrix:

* ``delta_i = x_i - b_i``; ``adj_i = delta_i`` if ``delta_i >= 0`` else
  ``(1 + alpha) delta_i``; ``URisk = mean_i adj_i``; ``TRisk = URisk / (s(adj) /
  sqrt(c))`` with its two-sided p-value; wins / losses / ties: topics with ``delta > 0``
  / ``< 0`` / ``= 0``;
* ``e_ij = T_i S_j / N``, ``z_ij = (x_ij - e_ij) / sqrt(e_ij)``, ``ZRisk_j = sum_{z >= 0}
  z_ij + (1 + alpha) sum_{z < 0} z_ij``, ``GeoRisk_j = sqrt(S_j / c * Phi(ZRisk_j / c))``.

``alpha`` is :data:`irmeta.stats.risk.DEFAULT_ALPHA` (1: a loss counts twice). TRisk's
p-values import ``scipy.stats``, which the report's main process never imports, so
:func:`irmeta.report.analysis.analyse` computes this section in the leaderboard's forked
child, beside the leaderboard's tests (its registry line has no ``compute``). GeoRisk,
which needs no ``scipy.stats``, is also a leaderboard column (:func:`georisk_column`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.report.options import ReportOptions
from irmeta.report.sections.common import ranks
from irmeta.stats.risk import DEFAULT_ALPHA, georisk, risk_matrices

__all__ = ["RiskSection", "common_topics", "georisk_column", "risk_section"]


@dataclass(frozen=True)
class RiskSection:
    """Risk of every run under the primary measure ``measure`` at ``alpha``.

    ``baseline``: the run the table's wins, losses, ties, URisk and TRisk are against
    (``ReportOptions.baseline``; None: none given, those columns are absent).
    ``topics``: the analysed topics every number is over (those where every run has a
    value); ``dropped``: analysed topics left out because some run's value is undefined
    there (risk compares runs topic by topic). ``table``: one row per run, in the
    leaderboard's order (best first by the primary measure): ``run``, ``mean`` (over
    ``topics``), then with a baseline ``wins``, ``losses``, ``ties``, ``URisk``,
    ``TRisk``, ``TRisk_p`` (the baseline's own row: no win or loss, URisk 0, TRisk
    undefined), then ``ZRisk``, ``GeoRisk``, ``rank mean`` and ``rank GeoRisk``
    (competition ranks, 1 = best). ``reason``: why nothing was computed (``table``
    empty), None when it was.
    """

    measure: str
    alpha: float
    baseline: str | None
    topics: int
    dropped: int
    table: pd.DataFrame
    reason: str | None = None

    @property
    def against(self) -> pd.DataFrame:
        """The rows of the runs other than the baseline (what the win/loss figure draws);
        empty without a baseline."""
        if self.baseline is None or self.table.empty:
            return self.table.iloc[0:0]
        return self.table[self.table["run"] != self.baseline]


def common_topics(matrix: pd.DataFrame) -> tuple[pd.DataFrame, str | None]:
    """``matrix`` (runs x topics) restricted to the topics where every run has a value,
    and why risk cannot be computed on it (None when it can): no such topic, or a
    negative value (the ZRisk/GeoRisk model assumes scores >= 0)."""
    complete = matrix.dropna(axis=1, how="any")
    if complete.shape[1] == 0:
        return complete, "no analysed topic where every run has a value"
    if (complete.to_numpy(dtype=np.float64) < 0).any():
        return complete, "the measure takes negative values (ZRisk and GeoRisk assume " \
                         "scores >= 0)"
    return complete, None


def georisk_column(matrix: pd.DataFrame, alpha: float = DEFAULT_ALPHA) -> pd.Series | None:
    """GeoRisk of every run (campaign order) of the primary measure's runs x topics
    ``matrix``, over the topics where every run has a value:
    ``GeoRisk_j = sqrt(S_j / c * Phi(ZRisk_j / c))`` (:func:`irmeta.stats.risk.georisk`,
    no ``scipy.stats``). None when :func:`common_topics` gives a reason."""
    complete, reason = common_topics(matrix)
    if reason is not None:
        return None
    values = georisk(complete.to_numpy(dtype=np.float64), alpha)
    return pd.Series(values, index=matrix.index, name="GeoRisk")


def risk_section(results, opts: ReportOptions, primary: str,
                 order: Sequence[str]) -> RiskSection:
    """The :class:`RiskSection` of the primary measure (``results.matrix(0)``, labelled
    ``primary``) against ``opts.baseline`` (a run of the campaign, checked by
    :func:`~irmeta.report.analysis.check_inputs`, or None) and against every run,
    through :func:`irmeta.stats.risk.risk_matrices`; rows in ``order`` (the leaderboard's
    runs, best first). Over the ``c`` topics where every run has a value, with ``delta_i
    = x_i - b_i``: ``URisk = mean_i adj_i`` (``adj_i = delta_i``, or ``(1 + alpha)
    delta_i`` when negative), ``TRisk = URisk / (s(adj) / sqrt(c))``, ``ties = c - wins -
    losses``; ``ZRisk`` and ``GeoRisk = sqrt(S_j / c * Phi(ZRisk_j / c))`` against every
    run (the module doc)."""
    alpha = DEFAULT_ALPHA
    matrix = results.matrix(0)
    complete, reason = common_topics(matrix)
    dropped = matrix.shape[1] - complete.shape[1]
    base = opts.baseline
    if reason is not None:
        return RiskSection(primary, alpha, base, complete.shape[1], dropped,
                           pd.DataFrame({"run": pd.Series([], dtype=object)}), reason)
    res = risk_matrices({primary: complete}, baseline=base, alpha=alpha)
    t = res.table.set_index("run").reindex([str(r) for r in order])
    table = pd.DataFrame({"run": list(t.index), "mean": t["mean"].to_numpy()})
    if base is not None:
        wins = t["wins"].astype(int).to_numpy()
        losses = t["losses"].astype(int).to_numpy()
        table["wins"], table["losses"] = wins, losses
        table["ties"] = res.topics - wins - losses
        for name in ("URisk", "TRisk", "TRisk_p"):
            table[name] = t[name].to_numpy(dtype=np.float64)
    table["ZRisk"] = t["ZRisk"].to_numpy()
    table["GeoRisk"] = t["GeoRisk"].to_numpy()
    table["rank mean"] = ranks(table["mean"]).to_numpy()
    table["rank GeoRisk"] = ranks(table["GeoRisk"]).to_numpy()
    return RiskSection(primary, alpha, base, res.topics, dropped, table)
