"""Expected reciprocal rank (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009), graded.

A user scans the ranking top down and stops at rank i, satisfied, with probability
``R_i`` (having not stopped before)::

    R(g)  = (2^g - 1) / 2^g_max                     g = max(grade, 0); unjudged: g = 0
    ERR@k = sum_{i <= k} (1/i) * R(g_i) * prod_{j < i} (1 - R(g_j))
    nERR@k = ERR@k / ERR@k(ideal)

``g_max`` is the parameter ``max_rel``, default **4**: gdeval's fixed ``MAX_JUDGMENT``,
which is what ir_measures' ``ERR@k`` (its gdeval provider) and the TREC Web track
computed — not the highest grade of the qrels at hand, so ERR values of campaigns with
different grade scales stay comparable to the published ones. A qrels grade above
``max_rel`` is an error (gdeval stops too): ``R`` would exceed 1.

The ideal ranking of nERR lists the judged documents by grade, highest first. nERR is 0
on a topic without a relevant document (trec_eval's convention for nDCG). gdeval prints
ERR with 5 decimals; irmeta keeps full precision.
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError
from irmeta.measures.kernel import blocked, memo, safe_div, seqsum, window
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param

MAX_REL = Param("max_rel", "int", 4, "g_max of R(g) = (2^g - 1) / 2^g_max (gdeval: 4)",
                low=1, high=30)


def _check_grades(campaign: Campaign, measure: Measure) -> None:
    levels = campaign.grade_levels
    top = int(levels[-1]) if len(levels) else 0
    if top > measure["max_rel"]:
        raise MeasureError(f"{measure.family}: the qrels hold grade {top}, above "
                           f"max_rel={measure['max_rel']}; use {measure.family}"
                           f"(max_rel={top})")


def stop_probability(grades: np.ndarray, max_rel: int) -> np.ndarray:
    """R(g) = (2^g - 1) / 2^max_rel for g = max(grade, 0) (unjudged documents: 0)."""
    g = np.maximum(grades, 0).astype(np.float64)
    probability: np.ndarray = (np.exp2(g) - 1.0) / 2.0 ** max_rel
    return probability


def err_of(stop: np.ndarray) -> np.ndarray:
    """ERR of stop probabilities ``stop[..., i]`` along the last axis."""
    reach = np.cumprod(1.0 - stop, axis=-1)
    before = np.concatenate([np.ones(stop.shape[:-1] + (1,)), reach[..., :-1]], axis=-1)
    return seqsum(stop * before / np.arange(1, stop.shape[-1] + 1))


def _ideal_err(campaign: Campaign, max_rel: int, k: int | None) -> np.ndarray:
    """[T] ERR@k of each topic's ideal ranking (judged documents by grade)."""
    j = campaign.judged
    T = campaign.num_topics
    counts = np.diff(j.ptr)
    width = max(1, int(counts.max(initial=0)) if k is None else min(k, int(counts.max(initial=0))))
    order = np.lexsort((-j.grades, j.topic))
    grades, topic = j.grades[order], j.topic[order]
    rank = np.arange(len(grades)) - j.ptr[topic]
    ideal = np.zeros((T, width), dtype=np.int64)
    keep = rank < width
    ideal[topic[keep], rank[keep]] = grades[keep]
    return err_of(stop_probability(ideal, max_rel))


@blocked
def err(campaign: Campaign, measure: Measure, ctx: EvalContext, t0: int, t1: int) -> np.ndarray:
    """ERR@k = sum_{i<=k} R_i / i * prod_{j<i} (1 - R_j), R = (2^g - 1) / 2^max_rel."""
    if t0 == 0:
        _check_grades(campaign, measure)
    d = window(campaign, measure.cutoff)
    return err_of(stop_probability(campaign.grades[:, t0:t1, :d], measure["max_rel"]))


@blocked
def nerr(campaign: Campaign, measure: Measure, ctx: EvalContext, t0: int, t1: int) -> np.ndarray:
    """nERR@k = ERR@k / ERR@k of the ideal ranking (0 without relevant documents)."""
    if t0 == 0:
        _check_grades(campaign, measure)
    d = window(campaign, measure.cutoff)
    value = err_of(stop_probability(campaign.grades[:, t0:t1, :d], measure["max_rel"]))
    ideal = memo(ctx, ("ideal_err", campaign, measure["max_rel"], measure.cutoff),
                 lambda: _ideal_err(campaign, measure["max_rel"], measure.cutoff))
    return safe_div(value, ideal[None, t0:t1])


register(MeasureDef(
    "ERR", "expected reciprocal rank (Chapelle et al. 2009), graded; ir_measures / gdeval "
    "ERR@k", err, (MAX_REL,), family="ir_measures", relevance="graded",
    formula="sum_{i<=k} R_i/i * prod_{j<i}(1-R_j), R = (2^g-1)/2^max_rel"))
register(MeasureDef(
    "nERR", "ERR normalised by the ERR of the ideal ranking", nerr, (MAX_REL,),
    family="ir_measures", relevance="graded", formula="ERR@k / ERR@k(ideal ranking)"))
