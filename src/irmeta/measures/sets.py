"""Unranked (set) measures of trec_eval 10: the retrieved documents as a set.

Notation (one run, one topic): ``n`` documents retrieved, ``N_R`` relevant documents in the
qrels (grade >= ``rel``), ``r`` relevant documents retrieved, ``N`` documents in the
collection (trec_eval ``-N``, default 0). A measure whose denominator is empty is 0, as
in trec_eval.
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError
from irmeta.measures.kernel import JUDGED_ONLY, REL, Block, block_kernel, safe_div
from irmeta.measures.registry import register
from irmeta.measures.spec import ALL_TREC, SET, EvalContext, Measure, MeasureDef, Param, TrecName


def _counts(b: Block) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(n, N_R, r) as float arrays [R, Tc] (N_R broadcast over runs)."""
    n = b.length.astype(float)
    n_rel = np.broadcast_to(b.num_rel[None, :].astype(float), n.shape)
    found = b.rel.sum(axis=2).astype(float)
    return n, n_rel, found


@block_kernel
def set_precision(b: Block, m: Measure) -> np.ndarray:
    """SetP = r / n; with ``relative=true``, r / min(n, N_R) (trec_eval set_relative_P)."""
    n, n_rel, found = _counts(b)
    if m.get("relative"):
        return np.where(n_rel > 0, safe_div(found, np.minimum(n, n_rel)), 0.0)
    return safe_div(found, n)


@block_kernel
def set_recall(b: Block, m: Measure) -> np.ndarray:
    """SetR = r / N_R."""
    n, n_rel, found = _counts(b)
    return safe_div(found, n_rel)


@block_kernel
def set_average_precision(b: Block, m: Measure) -> np.ndarray:
    """SetAP = (r * r) / (n * N_R) = SetP * SetR (trec_eval set_map)."""
    n, n_rel, found = _counts(b)
    return safe_div(found * found, n * n_rel)


@block_kernel
def set_f(b: Block, m: Measure) -> np.ndarray:
    """SetF(beta) = (beta + 1) * P * R / (beta * P + R) with P = r/n, R = r/N_R; 0 when
    r = 0. ``beta`` weighs as trec_eval's ``set_F.x`` does (not squared)."""
    n, n_rel, found = _counts(b)
    beta = m["beta"]
    P = safe_div(found, n)
    R = safe_div(found, n_rel)
    out = np.zeros(n.shape)
    np.divide((beta + 1.0) * P * R, beta * P + R, out=out, where=found > 0)
    return out


@block_kernel
def utility(b: Block, m: Measure) -> np.ndarray:
    """utility(a, b, c, d) = a*r + b*(n - r) + c*(N_R - r) + d*(N + r - n - N_R), with N the
    collection size (trec_eval -N, ``collection_size``; default 0)."""
    a, bb, c, d = m["coefficients"]
    n, n_rel, found = _counts(b)
    size = float(m.get("collection_size") or 0)
    value: np.ndarray = (a * found + bb * (n - found) + c * (n_rel - found)
                         + d * (size + found - n - n_rel))
    return value


def utility_kernel(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """Binds the evaluation's collection size (``-N``) before computing utility."""
    if measure.get("collection_size") is None:
        measure = measure.replace(collection_size=ctx.collection_size)
    return utility(campaign, measure, ctx)


@block_kernel
def num_nonrel_judged_ret(b: Block, m: Measure) -> np.ndarray:
    """Retrieved documents judged non-relevant (0 <= grade < rel)."""
    count: np.ndarray = ((b.grades >= 0) & ~b.rel).sum(axis=2).astype(float)
    return count


#: the largest |coefficient| of utility: times any document count (< 2^53) the four terms
#: stay far inside the double range
MAX_COEFFICIENT = 1e15


def _check_utility(m: Measure) -> None:
    if len(m["coefficients"]) != 4:
        raise MeasureError(f"utility takes 4 coefficients a,b,c,d, got {m['coefficients']}")
    if any(abs(x) > MAX_COEFFICIENT for x in m["coefficients"]):
        raise MeasureError(f"utility: each coefficient must be in [-{MAX_COEFFICIENT:g}, "
                           f"{MAX_COEFFICIENT:g}] (a larger one overflows the sum over "
                           f"the documents), got {m['coefficients']}")


register(MeasureDef(
    "SetP", "precision of the retrieved set (trec_eval set_P)", set_precision,
    (REL, Param("relative", "bool", False, "divide by min(n, N_R) (set_relative_P)"),
     JUDGED_ONLY), cutoff="none", formula="r / n", family="classic",
    aliases=("set_P",), trec=(TrecName("set_P", 30, nicknames=SET),)))
register(MeasureDef(
    "SetRelP", "precision of the retrieved set relative to the best possible "
    "(trec_eval set_relative_P)", set_precision,
    (REL, Param("relative", "bool", True, "always true"), JUDGED_ONLY), cutoff="none",
    formula="r / min(n, N_R)", aliases=("set_relative_P",),
    trec=(TrecName("set_relative_P", 31, nicknames=SET),)))
register(MeasureDef(
    "SetR", "recall of the retrieved set (trec_eval set_recall)", set_recall, (REL,),
    cutoff="none", formula="r / N_R", aliases=("set_recall",),
    trec=(TrecName("set_recall", 32, nicknames=SET),)))
register(MeasureDef(
    "SetAP", "set precision times set recall (trec_eval set_map)", set_average_precision,
    (REL, JUDGED_ONLY), cutoff="none", formula="r^2 / (n * N_R)", aliases=("set_map",),
    trec=(TrecName("set_map", 33, nicknames=SET),)))
register(MeasureDef(
    "SetF", "F measure of the retrieved set (trec_eval set_F)", set_f,
    (REL, Param("beta", "float", 1.0, "weight of recall (trec_eval's x, not squared)", low=0.0),
     JUDGED_ONLY), cutoff="none", formula="(beta+1) P R / (beta P + R)", aliases=("set_F",),
    trec=(TrecName("set_F", 34, "values", "beta", nicknames=SET),)))
register(MeasureDef(
    "utility", "linear utility of the retrieved set (trec_eval utility)", utility_kernel,
    (Param("coefficients", "floats", (1.0, -1.0, 0.0, 0.0), "a, b, c, d"),
     Param("collection_size", "int", None, "documents in the collection N (default: "
           "the evaluation's, trec_eval -N, 0 if not given)", low=0), REL),
    cutoff="none", validate=_check_utility,
    formula="a r + b (n - r) + c (N_R - r) + d (N + r - n - N_R)",
    trec=(TrecName("utility", 17, "values", "coefficients", nicknames=SET),),
    differs="with -c, a topic missing from the run is scored on an empty ranking "
            "(c N_R + d (N - N_R)); trec_eval 10 prints 0 for `utility` and, with parameters, "
            "scores its placeholder document as a retrieved non-relevant one (b + c N_R + "
            "d (N - 1 - N_R))"))
register(MeasureDef(
    "num_nonrel_judged_ret", "retrieved documents judged non-relevant", num_nonrel_judged_ret,
    (REL,), cutoff="none", aggregate="sum", integer=True,
    trec=(TrecName("num_nonrel_judged_ret", 35, nicknames=ALL_TREC),)))
