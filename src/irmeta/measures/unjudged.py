"""trec_eval 10 measures about unjudged documents: infAP, unj, rbp_resid, relstring.

trec_eval tells apart two kinds of unjudged retrieved documents: *not in the pool* (absent
from the qrels) and *in the pool but unjudged* (a negative grade in the qrels, e.g. the
unsampled pool documents of infAP). Both are "unjudged" below; judged documents have a
grade >= 0 and are relevant when the grade is >= ``rel``.
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import NOT_IN_QRELS, Campaign
from irmeta.errors import MeasureError
from irmeta.measures.kernel import (
    REL,
    Block,
    block_kernel,
    powers,
    relevance_level,
    safe_div,
    seqsum,
    sparse_judged,
)
from irmeta.measures.registry import register
from irmeta.measures.spec import ALL_TREC, EvalContext, Measure, MeasureDef, Param, TrecName

#: trec_eval's INFAP_EPSILON
INFAP_EPSILON = 0.00001


def _unjudged(b: Block, depth: int | None = None) -> np.ndarray:
    """[R, Tc, depth] retrieved documents without a judgment (not in the qrels, or a
    negative grade) in the top ``depth`` ranks (default: all); padding excluded."""
    d = b.depth if depth is None else depth
    valid = np.arange(d)[None, None, :] < b.length[:, :, None]
    return valid & (b.grades[:, :, :d] < 0)


def inferred_ap(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """infAP (see :func:`inferred_ap_blocked`), on the judged retrieved documents only
    (:func:`~irmeta.measures.kernel.judged_ranks`): the counts r, nr and u change only
    there, and only relevant documents add a term."""
    level = relevance_level(m, ctx)
    events = sparse_judged(campaign, m, ctx, level)
    if events is None:
        return inferred_ap_blocked(campaign, m, ctx)
    pos, g, _ = events
    rel = (g >= level) & (g >= 0)
    nonrel = (g >= 0) & ~rel
    pool_unjudged = (g < 0) & (g != NOT_IN_QRELS)
    r = np.cumsum(rel, axis=2, dtype=np.int64)
    nr = np.cumsum(nonrel, axis=2, dtype=np.int64)
    u = np.cumsum(pool_unjudged, axis=2, dtype=np.int64)
    j = pos.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r - 1 + nr + u) / j)
                * ((r - 1 + INFAP_EPSILON) / ((r - 1 + nr) + 2 * INFAP_EPSILON)))
    term[pos == 0] = 1.0
    total = seqsum(np.where(rel, term, 0.0))
    return safe_div(total, campaign.num_rel(level)[None, :].astype(float))


@block_kernel
def inferred_ap_blocked(b: Block, m: Measure) -> np.ndarray:
    """infAP (Yilmaz & Aslam 2006, trec_eval infAP): for each relevant document at
    0-based rank j, with r relevant (itself included), nr judged non-relevant and u pool
    unjudged (negative grade) documents at ranks 0..j (documents not in the pool are
    skipped but count in j), add 1 if j = 0, else
    1/(j+1) + j/(j+1) * (r-1+nr+u)/j * (r-1+eps)/(r-1+nr+2 eps); divide by N_R."""
    g = b.grades
    rel = b.rel & (g >= 0)
    nonrel = (g >= 0) & ~rel
    pool_unjudged = (g < 0) & (g != NOT_IN_QRELS)
    r = np.cumsum(rel, axis=2, dtype=np.int64)
    nr = np.cumsum(nonrel, axis=2, dtype=np.int64)
    u = np.cumsum(pool_unjudged, axis=2, dtype=np.int64)
    j = np.arange(b.depth, dtype=np.float64)[None, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        term = (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r - 1 + nr + u) / j)
                * ((r - 1 + INFAP_EPSILON) / ((r - 1 + nr) + 2 * INFAP_EPSILON)))
    term[:, :, 0] = 1.0
    total = seqsum(np.where(rel, term, 0.0))
    return safe_div(total, b.num_rel[None, :].astype(float))


@block_kernel
def unjudged_at(b: Block, m: Measure) -> np.ndarray:
    """unj@k = (unjudged documents in the top k) / k (ranks past the ranking count as
    judged; trec_eval unj_k)."""
    k = m.cutoff
    unjudged: np.ndarray = _unjudged(b, b.upto(k)).sum(axis=2) / k
    return unjudged


@block_kernel
def rbp_residual(b: Block, m: Measure) -> np.ndarray:
    """rbp_resid(p) = p^n + (1 - p) * sum over unjudged retrieved i of p^(i-1): the most
    RBP could rise if every unjudged document (and the unretrieved tail) were relevant;
    0 when every retrieved document is judged (trec_eval rbp_resid)."""
    p = m["p"]
    w = powers(p, b.depth)
    unj = _unjudged(b)
    tail = w[b.length]
    value = tail + (1.0 - p) * seqsum(np.where(unj, w[: b.depth], 0.0))
    return np.where(unj.any(axis=2), value, 0.0)


def relevance_string(campaign: Campaign, m: Measure, ctx: EvalContext) -> list[list[str]]:
    """relstring: the grades of the top ``length`` documents, one character each:
    the grade 0-9, ``>`` above 9, ``-`` not in the qrels, ``.`` in the qrels with a
    negative grade (trec_eval relstring)."""
    n = min(int(m["length"]), campaign.depth)
    g = campaign.grades[:, :, :n].astype(np.int64)
    chars = np.where(g > 9, ord(">"), np.where(g >= 0, ord("0") + np.maximum(g, 0),
                                               np.where(g == NOT_IN_QRELS, ord("-"), ord("."))))
    codes = chars.astype(np.uint8)
    lengths = np.minimum(campaign.length, n)
    return [[codes[r, t, :lengths[r, t]].tobytes().decode("ascii")
             for t in range(campaign.num_topics)] for r in range(campaign.num_runs)]


def no_value(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """A measure printed as text has no number (NaN)."""
    return np.full((campaign.num_runs, campaign.num_topics), np.nan)


def _check_p(m: Measure) -> None:
    if not 0.0 < m["p"] < 1.0:
        raise MeasureError(f"rbp_resid: p must be in (0, 1), got {m['p']}")


register(MeasureDef(
    "infAP", "inferred average precision (Yilmaz & Aslam 2006; trec_eval infAP)", inferred_ap,
    (REL,), cutoff="none",
    formula="1/N_R * sum_{rel j} 1/(j+1) + j/(j+1) (r-1+nr+u)/j (r-1+eps)/(r-1+nr+2eps)",
    trec=(TrecName("infAP", 14, nicknames=ALL_TREC),)))
register(MeasureDef(
    "unj", "fraction of unjudged documents in the top k (trec_eval unj_k)", unjudged_at,
    cutoff="required", formula="1/k * sum_{i<=k} [doc_i unjudged]", relevance="judged",
    trec=(TrecName("unj", 57, "cutoffs", "@", (5, 10, 20), nicknames=ALL_TREC),)))
register(MeasureDef(
    "rbp_resid", "RBP residual: the largest rise of RBP if unjudged documents were "
    "relevant (trec_eval rbp_resid)", rbp_residual,
    (Param("p", "float", 0.9, "persistence, 0 < p < 1"),), cutoff="none", validate=_check_p,
    relevance="judged",
    formula="p^n + (1-p) * sum_{unjudged i} p^(i-1) (0 if none)",
    differs="with -c, a topic missing from the run scores 0 (an empty ranking); trec_eval 10 "
            "prints 0 for `rbp_resid` but 1 for `rbp_resid.p=x`, scoring its unjudged "
            "placeholder document",
    trec=(TrecName("rbp_resid", 56, "pairs", nicknames=ALL_TREC),)))
register(MeasureDef(
    "relstring", "the grades of the top documents as a string (trec_eval relstring)", no_value,
    (Param("length", "int", 10, "number of documents shown", low=0),), cutoff="none",
    text=relevance_string, summary=False, relevance="graded",
    trec=(TrecName("relstring", 12, "values", "length", nicknames=ALL_TREC),)))
