"""Classic measures with trec_eval 10 semantics, vectorised over runs x topics x ranks.

Notation (one run, one topic): ``rel_i`` = 1 if the document at rank i has grade >=
``rel`` (trec_eval ``-l``, default 1), ``N_R`` = relevant documents in the qrels,
``n`` = documents retrieved, ``k`` = cutoff (ranks beyond ``n`` are empty).

Every kernel works on a block of topics at once (``_Block``); :func:`_blocked` feeds it
topic chunks (:mod:`irmeta.measures.kernel`, one memory budget) so that memory stays
bounded on large campaigns.
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.measures.kernel import blocked, relevance_level, safe_div, seqsum
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param

REL = Param("rel", "int", None, "minimum grade counted as relevant (default: the "
            "evaluation's relevance level, trec_eval -l)")


class _Block:
    """A chunk of topics of a campaign with the arrays classic kernels share."""

    def __init__(self, campaign: Campaign, t0: int, t1: int, level: int):
        self.grades = campaign.grades[:, t0:t1]
        self.length = campaign.length[:, t0:t1]
        self.num_rel = campaign.num_rel(level)[t0:t1]
        self.level = level
        self.campaign = campaign
        self.t0, self.t1 = t0, t1
        self.rel = self.grades >= level
        self.depth = self.grades.shape[2]

    def cum_rel(self) -> np.ndarray:
        return np.cumsum(self.rel, axis=2, dtype=np.int32)

    def upto(self, cutoff: int | None) -> int:
        return self.depth if cutoff is None else min(cutoff, self.depth)


def _blocked(fn):
    """Wrap ``fn(block, measure) -> [R, Tc]`` into a registry kernel over all topics
    (topic blocks of :func:`irmeta.measures.kernel.topic_blocks`)."""
    def over_block(campaign: Campaign, measure: Measure, ctx: EvalContext,
                   t0: int, t1: int) -> np.ndarray:
        return fn(_Block(campaign, t0, t1, relevance_level(measure, ctx)), measure)
    over_block.__name__ = fn.__name__
    over_block.__doc__ = fn.__doc__
    return blocked(over_block)


# ------------------------------------------------------------------ kernels
@_blocked
def precision(b: _Block, m: Measure) -> np.ndarray:
    """P@k = (1/k) * sum_{i<=k} rel_i; without a cutoff, k = n (set precision)."""
    k = m.cutoff
    if k is None:
        return safe_div(b.rel.sum(axis=2).astype(float), b.length.astype(float))
    return b.rel[:, :, : b.upto(k)].sum(axis=2) / k


@_blocked
def recall(b: _Block, m: Measure) -> np.ndarray:
    """R@k = (1/N_R) * sum_{i<=k} rel_i (0 when N_R = 0)."""
    hits = b.rel[:, :, : b.upto(m.cutoff)].sum(axis=2).astype(float)
    return safe_div(hits, b.num_rel[None, :].astype(float))


@_blocked
def average_precision(b: _Block, m: Measure) -> np.ndarray:
    """AP@k = (1/N_R) * sum_{i<=k} rel_i * P@i (0 when N_R = 0); trec_eval ``map``,
    with ``@k`` equal to ``map_cut_k`` and to ``map`` under ``-M k``."""
    d = b.upto(m.cutoff)
    rel = b.rel[:, :, :d]
    cum = np.cumsum(rel, axis=2, dtype=np.int32)
    prec = cum / np.arange(1, d + 1)
    total = seqsum(np.where(rel, prec, 0.0))
    return safe_div(total, b.num_rel[None, :].astype(float))


@_blocked
def reciprocal_rank(b: _Block, m: Measure) -> np.ndarray:
    """RR@k = 1 / (rank of the first relevant document within k), 0 if none."""
    rel = b.rel[:, :, : b.upto(m.cutoff)]
    first = np.argmax(rel, axis=2)
    found = rel.any(axis=2)
    return np.where(found, 1.0 / (first + 1), 0.0)


@_blocked
def r_precision(b: _Block, m: Measure) -> np.ndarray:
    """Rprec = (1/N_R) * sum_{i<=N_R} rel_i (precision at rank N_R; 0 when N_R = 0)."""
    cum = b.cum_rel()
    idx = np.clip(b.num_rel - 1, 0, b.depth - 1)
    hits = np.take_along_axis(cum, np.broadcast_to(idx[None, :, None], cum.shape[:2] + (1,)),
                              axis=2)[:, :, 0].astype(float)
    return safe_div(hits, b.num_rel[None, :].astype(float))


@_blocked
def success(b: _Block, m: Measure) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k, else 0."""
    return b.rel[:, :, : b.upto(m.cutoff)].any(axis=2).astype(float)


@_blocked
def bpref(b: _Block, m: Measure) -> np.ndarray:
    """bpref = (1/N_R) * sum over retrieved relevant d of
    (1 - min(nr_d, N_R) / min(N_N, N_R)), where nr_d = judged non-relevant documents
    ranked above d and N_N = judged non-relevant documents of the topic (a term is 1
    when nr_d = 0). Unjudged documents (and negative grades) are skipped (trec_eval)."""
    nonrel = (b.grades >= 0) & (b.grades < b.level)
    above = np.cumsum(nonrel, axis=2, dtype=np.int32)
    n_nonrel = b.campaign.judged.num_judged_nonrel(b.level)[b.t0:b.t1]
    R = b.num_rel[None, :, None].astype(float)
    denom = np.minimum(n_nonrel, b.num_rel)[None, :, None].astype(float)
    frac = np.zeros(above.shape)
    np.divide(np.minimum(above, R), denom, out=frac, where=denom > 0)
    term = np.where(above > 0, 1.0 - frac, 1.0)
    total = seqsum(np.where(b.rel & (b.grades >= 0), term, 0.0))
    return safe_div(total, b.num_rel[None, :].astype(float))


def _gain_table(m: Measure) -> dict[int, float] | None:
    gains = m.get("gains")
    return dict(gains) if gains else None


def _ideal_gains(campaign: Campaign, gain_map, t0: int, t1: int, depth: int) -> np.ndarray:
    """[Tc, depth] positive gains of the judged documents (grade >= 0), sorted
    descending per topic, zero-padded: the ideal ranking's gain vector."""
    j = campaign.judged
    lo, hi = j.ptr[t0], j.ptr[t1]
    grades = j.grades[lo:hi]
    topic = j.topic[lo:hi] - t0
    gain = np.where(grades > 0, grades, 0).astype(float)
    if gain_map:
        for grade, value in gain_map.items():
            gain[grades == grade] = value
    gain[grades < 0] = 0.0
    gain = np.where(gain > 0, gain, 0.0)
    order = np.lexsort((-gain, topic))
    gain, topic = gain[order], topic[order]
    counts = np.bincount(topic, minlength=t1 - t0)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    rank = np.arange(len(gain)) - starts[topic]
    out = np.zeros((t1 - t0, depth))
    keep = rank < depth
    out[topic[keep], rank[keep]] = gain[keep]
    return out


def _log_discount(depth: int) -> np.ndarray:
    """log2(i + 1) for ranks i = 1..depth (trec_eval divides the gain by it)."""
    return np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _ndcg_block(b: _Block, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k with DCG@k = sum_{i<=k} gain_i / log2(i + 1); gain =
    grade (or the ``gains`` mapping), ideal = judged documents by gain; 0 if IDCG = 0."""
    d = b.upto(m.cutoff)
    gain_map = _gain_table(m)
    g = b.grades[:, :, :d]
    gain = np.where(g > 0, g, 0).astype(float)
    if gain_map:
        for grade, value in gain_map.items():
            gain[g == grade] = value
    dcg = seqsum(gain / _log_discount(d))
    j = b.campaign.judged
    max_judged = int(np.max(np.diff(j.ptr[b.t0:b.t1 + 1]), initial=0))
    ideal_depth = max(1, max_judged if m.cutoff is None else min(m.cutoff, max_judged))
    ideal = _ideal_gains(b.campaign, gain_map, b.t0, b.t1, ideal_depth)
    idcg = seqsum(ideal / _log_discount(ideal_depth))
    return safe_div(dcg, idcg[None, :])


ndcg = _blocked(_ndcg_block)


@_blocked
def rbp(b: _Block, m: Measure) -> np.ndarray:
    """RBP(p) = (1 - p) * sum_i rel_i * p^(i-1) (Moffat & Zobel 2008; binary relevance,
    whole ranking or the top k). The residual is not reported."""
    p = m["p"]
    d = b.upto(m.cutoff)
    weights = (1.0 - p) * p ** np.arange(d)
    return seqsum(b.rel[:, :, :d] * weights)


@_blocked
def num_ret(b: _Block, m: Measure) -> np.ndarray:
    """Number of documents retrieved (after truncation)."""
    return b.length.astype(float)


@_blocked
def num_rel(b: _Block, m: Measure) -> np.ndarray:
    """Number of relevant documents of the topic in the qrels."""
    return np.broadcast_to(b.num_rel[None, :].astype(float), b.length.shape).copy()


@_blocked
def num_rel_ret(b: _Block, m: Measure) -> np.ndarray:
    """Number of relevant documents retrieved."""
    return b.rel[:, :, : b.upto(m.cutoff)].sum(axis=2).astype(float)


@_blocked
def interpolated_precision(b: _Block, m: Measure) -> np.ndarray:
    """IPrec(recall=x) = max_{i >= i_c} P@i, where i_c is the rank of the c-th relevant
    document, c = round(x * N_R) (half away from zero; c = 0 counts as 1), over ranks
    up to n; 0 when fewer than c relevant documents are retrieved (trec_eval 10
    ``iprec_at_recall``)."""
    cum = b.cum_rel()
    ranks = np.arange(1, b.depth + 1)
    valid = ranks[None, None, :] <= b.length[:, :, None]
    prec = np.where(valid, cum / ranks, -1.0)
    best_below = np.maximum.accumulate(prec[:, :, ::-1], axis=2)[:, :, ::-1]
    found = cum[:, :, -1]
    c = np.floor(m["recall"] * b.num_rel + 0.5).astype(np.int64)
    c = np.maximum(c, 1)[None, :, None]
    pos = np.argmax(cum >= c, axis=2)
    value = np.take_along_axis(best_below, pos[:, :, None], axis=2)[:, :, 0]
    return np.where(found >= c[:, :, 0], np.maximum(value, 0.0), 0.0)


def _check_recall(m: Measure) -> None:
    from irmeta.errors import MeasureError
    if not 0.0 <= m["recall"] <= 1.0:
        raise MeasureError(f"IPrec: recall must be in [0, 1], got {m['recall']}")


def num_q(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """Number of topics evaluated (1 per evaluated topic, counted)."""
    return np.ones((campaign.num_runs, campaign.num_topics))


def _check_p(m: Measure) -> None:
    from irmeta.errors import MeasureError
    if not 0.0 < m["p"] < 1.0:
        raise MeasureError(f"RBP: p must be in (0, 1), got {m['p']}")


# ----------------------------------------------------------- declarations
register(MeasureDef("AP", "average precision (trec_eval map; @k = map_cut_k)",
                    average_precision, (REL,), formula="AP@k = 1/N_R * sum_{i<=k} rel_i * P@i"))
register(MeasureDef("GMAP", "AP aggregated by the geometric mean (trec_eval gm_map)",
                    average_precision, (REL,), aggregate="gmean",
                    formula="exp(mean(log(max(AP, 1e-5))))"))
register(MeasureDef("P", "precision at k (no @k: set precision over the whole ranking)",
                    precision, (REL,), formula="P@k = 1/k * sum_{i<=k} rel_i"))
register(MeasureDef("R", "recall at k (trec_eval recall_k)", recall, (REL,),
                    formula="R@k = 1/N_R * sum_{i<=k} rel_i"))
register(MeasureDef("nDCG", "normalised discounted cumulative gain (trec_eval ndcg, ndcg_cut_k)",
                    ndcg, (Param("gains", "gains", None, "grade -> gain mapping, e.g. "
                                 "{0:0,1:1,2:3,3:7}; default gain = grade"),),
                    formula="DCG@k/IDCG@k, DCG@k = sum_{i<=k} gain_i / log2(i+1)"))
register(MeasureDef("RR", "reciprocal rank of the first relevant document (trec_eval recip_rank)",
                    reciprocal_rank, (REL,), formula="1 / rank of the first relevant document"))
register(MeasureDef("Rprec", "precision at rank N_R (trec_eval Rprec)", r_precision, (REL,),
                    cutoff="none", formula="1/N_R * sum_{i<=N_R} rel_i"))
register(MeasureDef("bpref", "binary preference (Buckley & Voorhees 2004; trec_eval bpref)",
                    bpref, (REL,), cutoff="none",
                    formula="1/N_R * sum_{rel d} (1 - min(nr_d, N_R)/min(N_N, N_R))"))
register(MeasureDef("Success", "1 if a relevant document is in the top k (trec_eval success_k)",
                    success, (REL,), cutoff="required", formula="[sum_{i<=k} rel_i > 0]"))
register(MeasureDef("RBP", "rank-biased precision (Moffat & Zobel 2008), binary relevance",
                    rbp, (Param("p", "float", 0.8, "persistence, 0 < p < 1"), REL),
                    validate=_check_p, formula="(1-p) * sum_i rel_i * p^(i-1)"))
register(MeasureDef("IPrec", "interpolated precision at a recall level (trec_eval iprec_at_recall)",
                    interpolated_precision,
                    (Param("recall", "float", 0.0, "recall level in [0, 1]; IPrec@0.5 binds it"),
                     REL), cutoff="none", at_param="recall", validate=_check_recall,
                    formula="max_{i >= rank of the round(x*N_R)-th relevant} P@i"))
register(MeasureDef("num_ret", "documents retrieved", num_ret, cutoff="none", aggregate="sum",
                    integer=True))
register(MeasureDef("num_rel", "relevant documents in the qrels", num_rel, (REL,), cutoff="none",
                    aggregate="sum", integer=True))
register(MeasureDef("num_rel_ret", "relevant documents retrieved", num_rel_ret, (REL,),
                    aggregate="sum", integer=True))
register(MeasureDef("num_q", "topics evaluated", num_q, cutoff="none", aggregate="count",
                    integer=True))
