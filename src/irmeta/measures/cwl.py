"""C/W/L measures (Moffat et al.), as cwl_eval computes them: INST, INSQ, SDCG.

In the C/W/L framework a user continues from rank i to rank i+1 with probability
``C_i``; the weight of rank i is the probability of viewing it, normalised to sum to 1::

    W_i = prod_{j<i} C_j / sum_{m=1}^{N} prod_{j<m} C_j        (N = 1000)
    M   = sum_{i=1}^{N} W_i * g_i                               (expected utility per item)

Gains are graded relevance scaled into [0, 1] (cwl_eval, through ir_measures)::

    g = (clip(max(grade, 0), min_rel, max_rel) - min_rel) / (max_rel - min_rel)

unjudged documents and empty ranks gain 0. ``N = 1000`` is cwl_eval's ranking length
(``max_n``): documents past rank 1000 are ignored and the weights are normalised over
1000 ranks, whatever the run's length.

* ``INSQ(T)`` (Moffat, Scholer & Thomas 2012): ``C_i = ((i + 2T - 1) / (i + 2T))^2``.
* ``INST(T)`` (Moffat, Bailey, Scholer & Thomas 2015): ``C_i = ((i + T + T_i - 1) /
  (i + T + T_i))^2`` with ``T_i = T - sum_{j<=i} g_j`` (the gain still wanted after rank i).
* ``SDCG@k``: ``C_i = log2(i+1) / log2(i+2)`` for ``i < k``, 0 from k on, so
  ``SDCG@k = sum_{i<=k} g_i / log2(i+1) / sum_{i<=k} 1 / log2(i+1)`` — DCG scaled by the
  DCG of k fully relevant documents (Moffat's "scaled DCG").

``max_rel`` is required by ir_measures (``INST(T=3,max_rel=3)``); irmeta defaults it to the
highest grade of the qrels, so ``INST(T=3)`` works. ``min_rel`` defaults to 0.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError
from irmeta.measures.kernel import seqsum, topic_blocks
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param

#: cwl_eval's ranking length: weights are normalised over this many ranks
CWL_DEPTH = 1000

MIN_REL = Param("min_rel", "int", 0, "grade mapped to gain 0 (and below it)")
MAX_REL = Param("max_rel", "int", None, "grade mapped to gain 1 (and above it); default: "
                "the highest grade of the qrels")
T_PARAM = Param("T", "float", 1.0, "total gain the user wants (INST, INSQ), in (0, 1e300]")


#: the largest T of INST and INSQ: ``i + 2T`` stays finite (beyond 2^53 every continuation
#: probability is already 1.0 in double precision, so nothing is lost)
MAX_T = 1e300


def _check(m: Measure) -> None:
    if m.get("max_rel") is not None and m["max_rel"] <= m["min_rel"]:
        raise MeasureError(f"{m.family}: max_rel must be above min_rel, got "
                           f"min_rel={m['min_rel']}, max_rel={m['max_rel']}")
    if m.get("T") is not None and not 0 < m["T"] <= MAX_T:
        raise MeasureError(f"{m.family}: T must be in (0, {MAX_T:g}], got {m['T']!r}"
                           + (" (a larger T overflows i + 2T)" if m["T"] > 0 else ""))


def gain_scale(campaign: Campaign, measure: Measure) -> tuple[int, int]:
    """``(min_rel, max_rel)`` of the gain scale, ``max_rel`` defaulting to the highest grade
    of the qrels. The two parameters are checked together: ``min_rel`` must be below
    ``max_rel`` whether ``max_rel`` is given (checked when the measure is parsed) or is the
    default (checked here, against the campaign's grade scale) — ``INST(min_rel=5)`` on
    grades 0-3 is refused as ``INST(min_rel=5,max_rel=3)`` is. The one exception is the
    default scale of qrels without a positive grade (``min_rel=0``, highest grade 0): every
    gain is 0, as AP and nDCG are 0 there (docs/conventions.md, degenerate campaigns)."""
    lo: int = measure["min_rel"]
    hi: int | None = measure["max_rel"]
    if hi is None:
        levels = campaign.grade_levels
        hi = max(int(levels[-1]) if len(levels) else 0, 0)
        if hi <= lo and not (hi == 0 and lo == 0):
            raise MeasureError(f"{measure.name}: min_rel must be below max_rel, which defaults "
                               f"to the highest grade of the qrels, {hi}; got min_rel={lo} "
                               f"(give max_rel above it, or a lower min_rel)")
    return lo, hi


def scaled_gains(campaign: Campaign, measure: Measure, t0: int, t1: int) -> np.ndarray:
    """float64 [R, t1-t0, min(D, 1000)] gains in [0, 1] (module doc)."""
    lo, hi = gain_scale(campaign, measure)
    g: np.ndarray = campaign.grades[:, t0:t1, :CWL_DEPTH]
    if hi <= lo:
        return np.zeros(g.shape)
    scaled: np.ndarray = (np.clip(np.maximum(g, 0), lo, hi) - lo) / float(hi - lo)
    return scaled


def _weights(cont: np.ndarray) -> np.ndarray:
    """W over the last axis from continuation probabilities C (the last C is unused)."""
    view = np.cumprod(cont[..., :-1], axis=-1)
    view = np.concatenate([np.ones(cont.shape[:-1] + (1,)), view], axis=-1)
    weights: np.ndarray = view / seqsum(view)[..., None]
    return weights


def _padded(gains: np.ndarray) -> np.ndarray:
    pad = CWL_DEPTH - gains.shape[-1]
    return np.pad(gains, [(0, 0), (0, 0), (0, pad)]) if pad > 0 else gains


def _over_blocks(campaign: Campaign, fn: Callable[[int, int], np.ndarray]) -> np.ndarray:
    R, T = campaign.num_runs, campaign.num_topics
    out = np.empty((R, T))
    for t0, t1 in topic_blocks(R, T, CWL_DEPTH):
        out[:, t0:t1] = fn(t0, t1)
    return out


def insq(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """INSQ = sum_i W_i g_i, C_i = ((i + 2T - 1) / (i + 2T))^2, over 1000 ranks."""
    i = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)
    t2 = 2.0 * measure["T"]
    w = _weights(((i + t2 - 1.0) / (i + t2)) ** 2)

    def block(t0: int, t1: int) -> np.ndarray:
        g = scaled_gains(campaign, measure, t0, t1)
        return seqsum(g * w[: g.shape[-1]])
    return _over_blocks(campaign, block)


def inst(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """INST = sum_i W_i g_i, C_i = ((i + T + T_i - 1) / (i + T + T_i))^2,
    T_i = T - sum_{j<=i} g_j, over 1000 ranks."""
    i = np.arange(1, CWL_DEPTH + 1, dtype=np.float64)
    T = measure["T"]

    def block(t0: int, t1: int) -> np.ndarray:
        g = _padded(scaled_gains(campaign, measure, t0, t1))
        ti = T - np.cumsum(g, axis=-1)
        w = _weights(((i + T + ti - 1.0) / (i + T + ti)) ** 2)
        return seqsum(w * g)
    return _over_blocks(campaign, block)


def sdcg(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """SDCG@k = sum_{i<=k} g_i / log2(i+1) / sum_{i<=k} 1 / log2(i+1) (k <= 1000)."""
    k = min(int(measure.cutoff or CWL_DEPTH), CWL_DEPTH)   # @k is required
    disc = 1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))
    w = disc / disc.sum()

    def block(t0: int, t1: int) -> np.ndarray:
        g = scaled_gains(campaign, measure, t0, t1)[:, :, :k]
        return seqsum(g * w[: g.shape[-1]])
    return _over_blocks(campaign, block)


register(MeasureDef(
    "INST", "INST, adaptive C/W/L measure (Moffat et al. 2015; ir_measures cwl_eval)", inst,
    (T_PARAM, MIN_REL, MAX_REL), cutoff="none", family="ir_measures", validate=_check,
    relevance="graded",
    formula="sum_i W_i g_i, C_i = ((i+T+T_i-1)/(i+T+T_i))^2, T_i = T - sum_{j<=i} g_j"))
register(MeasureDef(
    "INSQ", "INSQ, C/W/L measure (Moffat et al. 2012; ir_measures cwl_eval)", insq,
    (T_PARAM, MIN_REL, MAX_REL), cutoff="none", family="ir_measures", validate=_check,
    relevance="graded",
    formula="sum_i W_i g_i, C_i = ((i+2T-1)/(i+2T))^2"))
register(MeasureDef(
    "SDCG", "scaled DCG: DCG@k over the DCG of k fully relevant documents (cwl_eval)", sdcg,
    (MIN_REL, MAX_REL, Param("dcg", "str", "log2", "discount (ir_measures: only log2)",
                             choices=("log2",))),
    cutoff="required", family="ir_measures", validate=_check, relevance="graded",
    formula="sum_{i<=k} g_i/log2(i+1) / sum_{i<=k} 1/log2(i+1)"))
