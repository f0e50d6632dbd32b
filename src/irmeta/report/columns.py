"""The leaderboard's column catalogue: which measures the campaign report evaluates,
with the short label and the tooltip each column shows.

What a column does with its measure is read from the measure's declaration (the
registry, :class:`irmeta.measures.spec.MeasureDef`), never from a list kept here: how its
per-topic values become a run's number (``aggregate``) and what it counts as relevant
(``relevance``: binary at ``rel``, graded, or judged).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.measures.parse import parse_measure
from irmeta.measures.spec import Measure
from irmeta.report.options import ReportOptions

__all__ = ["Column", "has_measure", "leaderboard_columns"]


@dataclass(frozen=True)
class Column:
    """A leaderboard column: measure string, short label, tooltip. ``total``: summed
    over the topics although the measure's declaration aggregates by the mean (the
    unique-documents column, a count the report shows as a campaign total).
    ``diagnostic``: a column about the evaluation, not the runs' effectiveness
    (Judged@10): shown, but not meta-evaluated (no discriminative power or stability) in
    the trust section."""

    measure: str
    label: str
    tip: str
    total: bool = False
    diagnostic: bool = False

    @property
    def parsed(self) -> Measure:
        """The column's measure, parsed against the registry."""
        return parse_measure(self.measure)[0]

    @property
    def kind(self) -> str:
        """How the per-topic values become one number per run: ``"sum"`` over topics (the
        declaration's ``sum`` or ``count``, or a ``total`` column), ``"gmean"`` (the
        declaration's geometric mean) or ``"mean"`` over the topics with a defined value."""
        declared = self.parsed.definition.aggregate
        if self.total or declared in ("sum", "count"):
            return "sum"
        return "gmean" if declared == "gmean" else "mean"

    def aggregate(self, matrix: pd.DataFrame) -> pd.Series:
        """One number per run of ``matrix`` (runs x topics, NaN where undefined), by
        :attr:`kind`; the geometric mean as :func:`irmeta.evaluation.aggregate_values`."""
        kind = self.kind
        if kind == "sum":
            return matrix.sum(axis=1)
        if kind == "gmean":
            from irmeta.evaluation import aggregate_values
            values = matrix.to_numpy(dtype=float)
            return pd.Series(aggregate_values(values, ~np.isnan(values), "gmean"),
                             index=matrix.index)
        return matrix.mean(axis=1, skipna=True)

    def relevance(self, rel_level: int, prior: str) -> str:
        """What counts as relevant for this column, shown under its header, from the
        measure's declared ``relevance``: graded measures use the grades as gains (those
        with a prior set name it: NRG, TaSC), ``judged`` ones any judged grade, binary ones
        grades >= their ``rel`` (default ``rel_level``)."""
        m = self.parsed
        kind = m.relevance
        if kind == "graded":
            has_prior = m.definition.param("prior") is not None
            return "gain = grade" + (f"; prior: {m['prior'] or prior}" if has_prior else "")
        if kind == "judged":
            return "judged: any grade"
        level = m.get("rel")
        return f"rel. ≥ {rel_level if level is None else level}"


def has_measure(name: str) -> bool:
    """Whether the measure registry knows ``name`` (e.g. ``Judged``, which the
    ir_measures family adds)."""
    from irmeta.measures import registry
    return registry.get(name) is not None


def leaderboard_columns(opts: ReportOptions, prior: str, *, depth: int = 1000,
                        primary: str | None = None) -> list[Column]:
    """The leaderboard measures for the given options: the primary measure first (a
    column of the catalogue moved to the front, or a new one), then AP, P@10, nDCG@10
    (and nDCG@``nrg_cutoff``, the base of NRG, when ``nrg_cutoff`` is not 10), RR, bpref,
    R@``depth`` (recall at the runs' depth), ``Judged@10`` when the measure registry has
    ``Judged``, P_rare and AP_rare at alpha 0.5 and 1 (cutoff ``rare_cutoff``),
    NRG@``nrg_cutoff`` with the prior set ``prior``, the unique relevant documents at
    ``rare_cutoff`` (a sum over topics) and Twist@``twist_depth`` (``depth`` when unset)."""
    K = opts.rare_cutoff
    N = opts.twist_depth or depth
    extra = [] if opts.nrg_cutoff == 10 else [
        Column(f"nDCG@{opts.nrg_cutoff}", f"nDCG@{opts.nrg_cutoff}", "normalised DCG, gain = grade "
               "(the base of NRG)")]
    columns = [
        Column("AP", "AP", "average precision (trec_eval map)"),
        Column("P@10", "P@10", "precision at 10"),
        Column("nDCG@10", "nDCG@10", "normalised DCG at 10, gain = grade"),
        *extra,
        Column("RR", "RR", "reciprocal rank of the first relevant document"),
        Column("bpref", "bpref", "binary preference (robust to unjudged documents)"),
        Column(f"R@{depth}", f"R@{depth}", f"recall at {depth}, the depth of the runs"),
        *([Column("Judged@10", "Judged@10", "share of the top 10 documents that are "
                  "judged (low: the scores rest on unjudged documents counted "
                  "non-relevant)", diagnostic=True)] if has_measure("Judged") else []),
        Column(f"P_rare(alpha=0.5)@{K}", f"P_rare@{K} α=.5",
               "rareness-weighted precision: a relevant document counts 1 + α(1 − S_d/S), "
               "S_d = runs retrieving it"),
        Column(f"P_rare(alpha=1)@{K}", f"P_rare@{K} α=1", "rareness-weighted precision, α = 1"),
        Column(f"AP_rare(alpha=0.5)@{K}", f"AP_rare@{K} α=.5", "rareness-weighted AP, α = 0.5"),
        Column(f"AP_rare(alpha=1)@{K}", f"AP_rare@{K} α=1", "rareness-weighted AP, α = 1"),
        Column(f"NRG(prior={prior})@{opts.nrg_cutoff}", f"NRG@{opts.nrg_cutoff}",
               f"normalised residual gain (base nDCG, prior = {prior}): nDCG counting only "
               "what the prior runs did not already show"),
        Column(f"NRG(base=unique,prior=others)@{K}", f"unique@{K}",
               f"relevant documents in the run's top {K} that no other run has in its top {K} "
               "(sum over topics)", total=True),
        Column(f"Twist@{N}", "Twist",
               "Twist: 1 = no avoidable effort (ideal order), 0 = the worst order; "
               "undefined topics left out"),
    ]
    return _primary_first(columns, primary)


def _primary_first(columns: list[Column], primary: str | None) -> list[Column]:
    """``columns`` with the primary measure's column first (its measure string or label
    equal to ``primary``; a new column when none is)."""
    if primary is None:
        return columns
    for i, col in enumerate(columns):
        if primary in (col.measure, col.label):
            return [columns[i], *columns[:i], *columns[i + 1:]]
    return [Column(primary, primary, "the primary measure (--primary)"), *columns]
