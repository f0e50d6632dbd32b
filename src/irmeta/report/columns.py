"""The leaderboard's column catalogue: which measures the campaign report evaluates,
with the short label and the tooltip each column shows."""

from __future__ import annotations

from dataclasses import dataclass

from irmeta.report.options import ReportOptions

__all__ = ["Column", "leaderboard_columns"]


@dataclass(frozen=True)
class Column:
    """A leaderboard column: measure string, short label, tooltip, and how the
    per-topic values become one number per run (``kind``: ``"mean"`` over the topics
    with a defined value, or ``"sum"`` over topics, for counts)."""

    measure: str
    label: str
    tip: str
    kind: str = "mean"


def leaderboard_columns(opts: ReportOptions, prior: str) -> list[Column]:
    """The leaderboard measures for the given options: AP, P@10, nDCG@10 (and
    nDCG@``nrg_k``, the base of NRG, when ``nrg_k`` is not 10), RR, bpref, R@1000,
    P_rare and AP_rare at alpha 0.5 and 1 (cutoff ``rare_k``), NRG@``nrg_k`` with the
    prior set ``prior``, the unique relevant documents at ``rare_k`` (a sum over topics)
    and Twist@``twist_depth``."""
    K = opts.rare_k
    extra = [] if opts.nrg_k == 10 else [
        Column(f"nDCG@{opts.nrg_k}", f"nDCG@{opts.nrg_k}", "normalised DCG, gain = grade "
               "(the base of NRG)")]
    return [
        Column("AP", "AP", "average precision (trec_eval map)"),
        Column("P@10", "P@10", "precision at 10"),
        Column("nDCG@10", "nDCG@10", "normalised DCG at 10, gain = grade"),
        *extra,
        Column("RR", "RR", "reciprocal rank of the first relevant document"),
        Column("bpref", "bpref", "binary preference (robust to unjudged documents)"),
        Column("R@1000", "R@1000", "recall at 1000"),
        Column(f"P_rare(alpha=0.5)@{K}", f"P_rare@{K} α=.5",
               "rareness-weighted precision: a relevant document counts 1 + α(1 − S_d/S), "
               "S_d = runs retrieving it"),
        Column(f"P_rare(alpha=1)@{K}", f"P_rare@{K} α=1", "rareness-weighted precision, α = 1"),
        Column(f"AP_rare(alpha=0.5)@{K}", f"AP_rare@{K} α=.5", "rareness-weighted AP, α = 0.5"),
        Column(f"AP_rare(alpha=1)@{K}", f"AP_rare@{K} α=1", "rareness-weighted AP, α = 1"),
        Column(f"NRG(prior={prior})@{opts.nrg_k}", f"NRG@{opts.nrg_k}",
               f"normalised residual gain (base nDCG, prior = {prior}): nDCG counting only "
               "what the prior runs did not already show"),
        Column(f"NRG(base=unique,prior=others)@{K}", f"unique@{K}",
               f"relevant documents in the run's top {K} that no other run has in its top {K} "
               "(sum over topics)", kind="sum"),
        Column(f"Twist@{opts.twist_depth}", "Twist",
               "Twist: 1 = no avoidable effort (ideal order), 0 = the worst order; "
               "undefined topics left out"),
    ]
