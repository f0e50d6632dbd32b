"""Rareness-based ("innovation") measures: P_rare@K and AP_rare@K (Türkmen et al., ECIR 2023).

Notation (one topic): ``Rel(d)`` = 1 iff grade(d) >= ``rel`` (default: the evaluation's
relevance level); ``S`` = size of the rarity reference set; ``S_d`` = number of its runs
whose top ``depth`` documents contain d (``depth`` defaults to the cutoff K). By default
the reference set is every run of the campaign, the scored run included (``S = R``); with
``ctx.reference`` (API ``reference=``, CLI ``--reference-runs``) it is the reference runs
plus the scored run itself (``S = R_ref + 1``). In both cases the scored run counts
itself once, so ``S_d >= 1`` for every document it retrieved (also when ``depth < K``).

* rarity ``R(d) = 1 - S_d / S`` in ``[0, (S-1)/S]``;
  normalized ``R'(d) = 1 - (S_d - 1) / (S - 1)`` in ``[0, 1]`` (``R' = 1`` when ``S = 1``);
* ``w(d) = 1 + alpha * R(d)`` (standard) or ``(1 - alpha) + alpha * R'(d)`` (normalized);
* ``P_rare@K  = (1/K) * sum_{i<=K} Rel(d_i) * w(d_i)``;
* ``AP_rare@K = (1/N_R) * sum_{i<=K} Rel(d_i) * P_rare@i`` with
  ``P_rare@i = (1/i) * sum_{j<=i} Rel(d_j) * w(d_j)`` and ``N_R`` the number of relevant
  documents of the topic in the qrels (value 0 when ``N_R = 0``, as trec_eval's AP).

``alpha = 0`` gives irmeta's ``P@K`` and ``AP@K`` bit for bit. Bounds: standard variant in
``[0, 1 + alpha * (S-1)/S]``, normalized variant in ``[0, 1]``.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError
from irmeta.measures.context import others_count
from irmeta.measures.kernel import (
    REL,
    relevance_level,
    seqcumsum,
    seqsum,
    topic_blocks,
    window,
)
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param

ALPHA = Param("alpha", "float", None, "weight of rarity, required (standard: >= 0; "
              "normalized: 0..1); alpha=0 is the classic measure", low=0.0, required=True)
VARIANT = Param("variant", "str", "standard", "standard: 1 + alpha*R(d); normalized: "
                "(1-alpha) + alpha*R'(d), bounded by [0, 1]", choices=("standard", "normalized"))
DEPTH = Param("depth", "int", None, "rank depth within which a run 'retrieves' a document "
              "for rarity (default: the cutoff K)", low=1)


def rarity(others: np.ndarray, S: int, variant: str = "standard") -> np.ndarray:
    """Rarity of documents from ``others`` (= S_d - 1, runs other than the scored one that
    retrieve d) and the reference-set size ``S``.

    standard: ``R = 1 - S_d / S``; normalized: ``R' = 1 - (S_d - 1) / (S - 1)`` (1 if S = 1).
    """
    others = np.asarray(others, dtype=np.float64)
    if variant == "normalized":
        if S <= 1:
            return np.ones(others.shape)
        return 1.0 - others / (S - 1)
    return 1.0 - (others + 1.0) / S


def rarity_weights(campaign: Campaign, m: Measure, ctx: EvalContext,
                   t0: int = 0, t1: int | None = None) -> np.ndarray:
    """float64 [R, t1-t0, W]: the weight ``w(d_i)`` of the document at each rank of the
    top K for topics ``t0:t1`` (``1 + alpha*R`` or ``(1-alpha) + alpha*R'``);
    W = min(K, campaign depth)."""
    k = m.cutoff
    depth = m.get("depth") or k
    others, S = others_count(campaign, k, depth, ctx)
    others = others[:, t0:t1]
    alpha = float(m["alpha"])
    if m["variant"] == "normalized":
        return (1.0 - alpha) + alpha * rarity(others, S, "normalized")
    return 1.0 + alpha * rarity(others, S, "standard")


def _blocks(campaign: Campaign, width: int) -> Iterator[tuple[int, int]]:
    return topic_blocks(campaign.num_runs, campaign.num_topics, width)


def p_rare(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """P_rare(alpha)@K = (1/K) * sum_{i<=K} Rel(d_i) * w(d_i), w = 1 + alpha*R(d)
    (normalized: (1-alpha) + alpha*R'(d)). [R, T]; a topic absent from a run gives 0."""
    k = m.cutoff
    w = window(campaign, k)
    level = relevance_level(m, ctx)
    out = np.empty((campaign.num_runs, campaign.num_topics))
    for t0, t1 in _blocks(campaign, w):
        rel = campaign.grades[:, t0:t1, :w] >= level
        weights = rarity_weights(campaign, m, ctx, t0, t1)
        out[:, t0:t1] = seqsum(np.where(rel, weights, 0.0)) / k
    return out


def ap_rare(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """AP_rare(alpha)@K = (1/N_R) * sum_{i<=K} Rel(d_i) * P_rare@i, with
    P_rare@i = (1/i) * sum_{j<=i} Rel(d_j) * w(d_j); 0 when N_R = 0. [R, T]."""
    k = m.cutoff
    w = window(campaign, k)
    level = relevance_level(m, ctx)
    num_rel = campaign.num_rel(level).astype(float)
    out = np.empty((campaign.num_runs, campaign.num_topics))
    ranks = np.arange(1, w + 1)
    for t0, t1 in _blocks(campaign, w):
        rel = campaign.grades[:, t0:t1, :w] >= level
        weights = rarity_weights(campaign, m, ctx, t0, t1)
        cum = seqcumsum(np.where(rel, weights, 0.0))
        prec = cum / ranks
        total = seqsum(np.where(rel, prec, 0.0))
        den = np.broadcast_to(num_rel[None, t0:t1], total.shape)
        block = np.zeros(total.shape)
        np.divide(total, den, out=block, where=den > 0)
        out[:, t0:t1] = block
    return out


def _validate(m: Measure) -> None:
    if m["variant"] == "normalized" and not 0.0 <= m["alpha"] <= 1.0:
        raise MeasureError(f"{m.definition.name}: variant=normalized needs alpha in [0, 1]; "
                           f"got alpha={m['alpha']!r}")


_PARAMS = (ALPHA, VARIANT, DEPTH, REL)

register(MeasureDef(
    "P_rare", "rareness-based precision at K (Türkmen et al. 2023): relevant documents few "
    "other runs retrieve count more", p_rare, _PARAMS, cutoff="required", context=True,
    family="innovation", validate=_validate,
    formula="1/K * sum_{i<=K} Rel(d_i) * (1 + alpha*R(d_i)), R(d) = 1 - S_d/S"))
register(MeasureDef(
    "AP_rare", "rareness-based average precision at K (Türkmen et al. 2023)", ap_rare,
    _PARAMS, cutoff="required", context=True, family="innovation", validate=_validate,
    formula="1/N_R * sum_{i<=K} Rel(d_i) * P_rare@i"))
