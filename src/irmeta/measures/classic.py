"""Classic measures with trec_eval 10 semantics, vectorised over runs x topics x ranks.

Notation (one run, one topic): ``rel_i`` = 1 if the document at rank i has grade >=
``rel`` (trec_eval ``-l``, default 1), ``N_R`` = relevant documents in the qrels,
``n`` = documents retrieved, ``k`` = cutoff (ranks beyond ``n`` are empty).

Every kernel works on a block of topics at once (``Block``); :func:`block_kernel` feeds it
topic chunks (:mod:`irmeta.measures.kernel`, one memory budget) so that memory stays
bounded on large campaigns.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError
from irmeta.measures.kernel import (
    GAINS,
    JUDGED_ONLY,
    REL,
    Block,
    block_kernel,
    gain_values,
    ideal_gains,
    max_judged,
    memo,
    powers,
    relevance_level,
    relevant_ranks,
    safe_div,
    seqsum,
    sparse_judged,
    window,
)
from irmeta.measures.registry import register
from irmeta.measures.spec import (
    ALL_TREC,
    OFFICIAL,
    EvalContext,
    Measure,
    MeasureDef,
    Param,
    TrecName,
)

#: trec_eval's default cutoffs of P, recall, ndcg_cut, map_cut, relative_P
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


# ------------------------------------------------------------------ kernels
@block_kernel
def precision(b: Block, m: Measure) -> np.ndarray:
    """P@k = (1/k) * sum_{i<=k} rel_i; without a cutoff, k = n (set precision)."""
    k = m.cutoff
    if k is None:
        return safe_div(b.rel.sum(axis=2).astype(float), b.length.astype(float))
    precision_at_k: np.ndarray = b.rel[:, :, : b.upto(k)].sum(axis=2) / k
    return precision_at_k


@block_kernel
def recall(b: Block, m: Measure) -> np.ndarray:
    """R@k = (1/N_R) * sum_{i<=k} rel_i (0 when N_R = 0)."""
    hits = b.rel[:, :, : b.upto(m.cutoff)].sum(axis=2).astype(float)
    return safe_div(hits, b.num_rel[None, :].astype(float))


def average_precision(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """AP@k = (1/N_R) * sum_{i<=k} rel_i * P@i (0 when N_R = 0): the precisions at the
    relevant ranks (:func:`relevant_ranks`) summed in rank order."""
    level = relevance_level(m, ctx)
    compact = relevant_ranks(campaign, level, ctx)
    if compact is None:
        return average_precision_blocked(campaign, m, ctx)
    rank, prec, _ = compact
    terms = prec if m.cutoff is None else np.where(rank <= m.cutoff, prec, 0.0)
    return safe_div(seqsum(terms), campaign.num_rel(level)[None, :].astype(float))


@block_kernel
def average_precision_blocked(b: Block, m: Measure) -> np.ndarray:
    """AP@k = (1/N_R) * sum_{i<=k} rel_i * P@i (0 when N_R = 0); trec_eval ``map``,
    with ``@k`` equal to ``map_cut_k`` and to ``map`` under ``-M k``."""
    d = b.upto(m.cutoff)
    rel = b.rel[:, :, :d]
    cum = np.cumsum(rel, axis=2, dtype=np.int32)
    prec = cum / np.arange(1, d + 1)
    total = seqsum(np.where(rel, prec, 0.0))
    return safe_div(total, b.num_rel[None, :].astype(float))


@block_kernel
def reciprocal_rank(b: Block, m: Measure) -> np.ndarray:
    """RR@k = 1 / (rank of the first relevant document within k), 0 if none."""
    rel = b.rel[:, :, : b.upto(m.cutoff)]
    first = np.argmax(rel, axis=2)
    found = rel.any(axis=2)
    return np.where(found, 1.0 / (first + 1), 0.0)


def r_precision(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """Rprec (see :func:`r_precision_blocked`), counted on the relevant ranks
    (:func:`relevant_ranks`)."""
    level = relevance_level(m, ctx)
    compact = relevant_ranks(campaign, level, ctx)
    if compact is None:
        return r_precision_blocked(campaign, m, ctx)
    num_rel = campaign.num_rel(level)
    upto = np.clip(num_rel, 1, campaign.depth)[None, :, None]
    hits = (compact[0] <= upto).sum(axis=2).astype(float)
    return safe_div(hits, num_rel[None, :].astype(float))


@block_kernel
def r_precision_blocked(b: Block, m: Measure) -> np.ndarray:
    """Rprec = (1/N_R) * sum_{i<=N_R} rel_i (precision at rank N_R; 0 when N_R = 0)."""
    cum = b.cum_rel()
    idx = np.clip(b.num_rel - 1, 0, b.depth - 1)
    hits = np.take_along_axis(cum, np.broadcast_to(idx[None, :, None], cum.shape[:2] + (1,)),
                              axis=2)[:, :, 0].astype(float)
    return safe_div(hits, b.num_rel[None, :].astype(float))


@block_kernel
def success(b: Block, m: Measure) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k, else 0."""
    return b.rel[:, :, : b.upto(m.cutoff)].any(axis=2).astype(float)


def bpref(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """bpref (see :func:`bpref_blocked`), on the judged retrieved documents only
    (:func:`judged_ranks`): memoised per level, as bpref and gm_bpref share it."""
    level = relevance_level(m, ctx)
    events = sparse_judged(campaign, m, ctx, level)
    if events is None:
        return bpref_blocked(campaign, m, ctx)
    g = events[1]

    def build() -> np.ndarray:
        nonrel = (g >= 0) & (g < level)
        above = np.cumsum(nonrel, axis=2, dtype=np.int32)
        num_rel = campaign.num_rel(level)
        n_nonrel = campaign.judged.num_judged_nonrel(level)
        R = num_rel[None, :, None].astype(float)
        denom = np.minimum(n_nonrel, num_rel)[None, :, None].astype(float)
        frac = np.zeros(above.shape)
        np.divide(np.minimum(above, R), denom, out=frac, where=denom > 0)
        term = np.where(above > 0, 1.0 - frac, 1.0)
        total = seqsum(np.where((g >= level) & (g >= 0), term, 0.0))
        return safe_div(total, num_rel[None, :].astype(float))
    values: np.ndarray = memo(ctx, ("bpref", campaign, level), build)
    return values.copy()


@block_kernel
def bpref_blocked(b: Block, m: Measure) -> np.ndarray:
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


def _log_discount(depth: int, kind: str = "log2") -> np.ndarray:
    """The divisor of the gain at ranks i = 1..depth: ``log2(i + 1)`` (trec_eval), or with
    ``kind="jk10"`` Järvelin & Kekäläinen's (2002) base-10 discount ``max(1, log10(i))`` —
    ranks 1 to 10 undiscounted —, the nDCG of the Twist paper."""
    if kind == "jk10":
        return np.maximum(1.0, np.log10(np.arange(1, depth + 1, dtype=np.float64)))
    return np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _ndcg_block(b: Block, m: Measure) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k with DCG@k = sum_{i<=k} gain_i / log2(i + 1); gain =
    grade (or the ``gains`` mapping; ``2^grade - 1`` with ``dcg='exp-log2'``), ideal =
    judged documents by gain; 0 if IDCG = 0."""
    d = b.upto(m.cutoff)
    gain = gain_values(b.grades[:, :, :d], m)
    kind = str(m.get("discount", "log2"))
    dcg = seqsum(gain / _log_discount(d, kind))
    most = max_judged(b.campaign, b.t0, b.t1)
    ideal_depth = max(1, most if m.cutoff is None else min(m.cutoff, most))
    ideal = ideal_gains(b.campaign, m, b.t0, b.t1, ideal_depth)
    idcg = seqsum(ideal / _log_discount(ideal_depth, kind))
    return safe_div(dcg, idcg[None, :])


ndcg_blocked = block_kernel(_ndcg_block)


def ndcg(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """nDCG@k (see :func:`_ndcg_block`): the DCG summed over the judged retrieved
    documents only (:func:`judged_ranks`; every other document has gain 0)."""
    events = sparse_judged(campaign, m, ctx)
    if events is None:
        return ndcg_blocked(campaign, m, ctx)
    pos, grade, _ = events
    d = window(campaign, m.cutoff)
    kind = str(m.get("discount", "log2"))
    discount = _log_discount(d, kind)
    gain = gain_values(grade, m)
    dcg = seqsum(np.where(pos < d, gain / discount[np.minimum(pos, d - 1)], 0.0))
    T = campaign.num_topics
    most = max_judged(campaign, 0, T)
    ideal_depth = max(1, most if m.cutoff is None else min(m.cutoff, most))
    ideal = ideal_gains(campaign, m, 0, T, ideal_depth)
    idcg = seqsum(ideal / _log_discount(ideal_depth, kind))
    return safe_div(dcg, idcg[None, :])


def graded_relevance(b: Block, m: Measure, d: int) -> np.ndarray:
    """[R, Tc, d] degree of relevance r_i in [0, 1]: gain / G, where G is the largest
    gain of any grade in the qrels when above 1 (else 1); negative gains count 0."""
    gain = np.maximum(gain_values(b.grades[:, :, :d], m), 0.0)
    levels = b.campaign.grade_levels
    top = float(np.max(gain_values(levels, m), initial=0.0))
    relevance: np.ndarray = gain / top if top > 1.0 else gain
    return relevance


def rbp(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """RBP (see :func:`rbp_blocked`) on the documents that can add a term: the judged
    retrieved ones when graded (:func:`judged_ranks`), the relevant ones when binary
    (:func:`relevant_ranks`)."""
    p: float = m["p"]
    d = window(campaign, m.cutoff)
    if m["graded"] or m.get("gains"):
        events = sparse_judged(campaign, m, ctx)
        if events is None:
            return rbp_blocked(campaign, m, ctx)
        pos, grade, _ = events
        gain = np.maximum(gain_values(grade, m), 0.0)
        top = float(np.max(gain_values(campaign.grade_levels, m), initial=0.0))
        relevance = gain / top if top > 1.0 else gain
        weight = np.where(pos < d, powers(p, d)[np.minimum(pos, d)], 0.0)
        return (1.0 - p) * seqsum(relevance * weight)
    compact = relevant_ranks(campaign, relevance_level(m, ctx), ctx)
    if compact is None:
        return rbp_blocked(campaign, m, ctx)
    weights = (1.0 - p) * p ** np.arange(d)
    rank = compact[0]
    return seqsum(np.where(rank <= d, weights[np.minimum(rank, d) - 1], 0.0))


@block_kernel
def rbp_blocked(b: Block, m: Measure) -> np.ndarray:
    """RBP(p) = (1 - p) * sum_i r_i * p^(i-1) (Moffat & Zobel 2008), whole ranking or
    the top k; r_i = rel_i (binary, at ``rel``) or, with ``graded=true`` (trec_eval
    ``rbp``), the gain of the document over the largest gain of the qrels' grades.
    Graded (trec_eval ``rbp``): accumulated as trec_eval does, p^(i-1) by repeated
    multiplication and (1 - p) last; binary: weights (1 - p) * p^(i-1), as NRG's RBP base
    (equal bit for bit to NRG with an empty prior)."""
    p: float = m["p"]
    d = b.upto(m.cutoff)
    if m["graded"] or m.get("gains"):
        return (1.0 - p) * seqsum(graded_relevance(b, m, d) * powers(p, d)[:d])
    weights = (1.0 - p) * p ** np.arange(d)
    return seqsum(b.rel[:, :, :d] * weights)


@block_kernel
def num_ret(b: Block, m: Measure) -> np.ndarray:
    """Number of documents retrieved (after truncation); with ``rel``, the number
    retrieved with grade >= rel (ir_measures ``NumRet(rel=1)`` = ``NumRelRet``)."""
    if m.get("rel") is None:
        return b.length.astype(float)
    count: np.ndarray = (b.grades >= m["rel"]).sum(axis=2).astype(float)
    return count


@block_kernel
def num_rel(b: Block, m: Measure) -> np.ndarray:
    """Number of relevant documents of the topic in the qrels."""
    return np.broadcast_to(b.num_rel[None, :].astype(float), b.length.shape).copy()


@block_kernel
def num_rel_ret(b: Block, m: Measure) -> np.ndarray:
    """Number of relevant documents retrieved."""
    found: np.ndarray = b.rel[:, :, : b.upto(m.cutoff)].sum(axis=2).astype(float)
    return found


def interpolated_precision(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """IPrec(recall=x): see :func:`interpolated_precision_blocked`; computed on the
    relevant ranks only (the best precision at or below rank i is reached at a relevant
    document), as a suffix maximum over them."""
    level = relevance_level(m, ctx)
    compact = relevant_ranks(campaign, level, ctx)
    if compact is None:
        return interpolated_precision_blocked(campaign, m, ctx)
    _, prec, found = compact
    best = memo(ctx, ("best_precision", campaign, level),
                lambda: np.maximum.accumulate(prec[:, :, ::-1], axis=2)[:, :, ::-1])
    c = np.floor(m["recall"] * campaign.num_rel(level) + 0.5).astype(np.int64)
    c = np.maximum(c, 1)[None, :]
    idx = np.broadcast_to(np.minimum(c, best.shape[2]) - 1, found.shape)[:, :, None]
    value = np.take_along_axis(best, idx, axis=2)[:, :, 0]
    return np.where(found >= c, value, 0.0)


@block_kernel
def interpolated_precision_blocked(b: Block, m: Measure) -> np.ndarray:
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
    if not 0.0 <= m["recall"] <= 1.0:
        raise MeasureError(f"IPrec: recall must be in [0, 1], got {m['recall']}")


def num_q(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """Number of topics evaluated (1 per evaluated topic, counted)."""
    return np.ones((campaign.num_runs, campaign.num_topics))


@block_kernel
def relative_precision(b: Block, m: Measure) -> np.ndarray:
    """relative_P@k = (1/min(k, N_R)) * sum_{i<=k} rel_i (0 when N_R = 0)."""
    k = m.cutoff
    if k is None:                      # the parser requires it; a hand-built Measure may not
        raise MeasureError("relative_P needs a cutoff, e.g. relative_P@10")
    hits = b.rel[:, :, : b.upto(k)].sum(axis=2).astype(float)
    return safe_div(hits, np.minimum(k, b.num_rel)[None, :].astype(float))


def r_precision_multiple(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """Rprec_mult(x) (see :func:`r_precision_multiple_blocked`), counted on the relevant
    ranks (:func:`relevant_ranks`)."""
    level = relevance_level(m, ctx)
    compact = relevant_ranks(campaign, level, ctx)
    if compact is None:
        return r_precision_multiple_blocked(campaign, m, ctx)
    c = np.floor(m["mult"] * campaign.num_rel(level) + 0.9).astype(np.int64)
    upto = np.minimum(c, campaign.depth)[None, :, None]
    hits = (compact[0] <= upto).sum(axis=2).astype(float)
    return safe_div(hits, c[None, :].astype(float))


@block_kernel
def r_precision_multiple_blocked(b: Block, m: Measure) -> np.ndarray:
    """Rprec_mult(x) = P@c with c = floor(x * N_R + 0.9) (0 when c = 0): precision at a
    multiple of the number of relevant documents (trec_eval ``Rprec_mult_x``)."""
    c = np.floor(m["mult"] * b.num_rel + 0.9).astype(np.int64)
    cum = np.concatenate([np.zeros(b.rel.shape[:2] + (1,), np.int32), b.cum_rel()], axis=2)
    idx = np.broadcast_to(np.minimum(c, b.depth)[None, :, None], cum.shape[:2] + (1,))
    hits = np.take_along_axis(cum, idx, axis=2)[:, :, 0].astype(float)
    return safe_div(hits, c[None, :].astype(float))


def eleven_point(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """11pt_avg = mean over the recall levels x (default 0, 0.1, ..., 1) of
    IPrec(recall=x); summed from the highest level down, as trec_eval does."""
    levels = sorted(measure["levels"], reverse=True)
    rel = measure.get("rel")
    parts = [interpolated_precision(campaign, Measure(IPREC, (("judged_only", False),
                                                              ("recall", x), ("rel", rel))),
                                    ctx) for x in levels]
    return seqsum(np.stack(parts, axis=-1)) / len(levels)


def run_id(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """No number: the run's name, printed by ``runid`` (trec_eval ``runid``)."""
    return np.full((campaign.num_runs, campaign.num_topics), np.nan)


def _check_levels(m: Measure) -> None:
    if not all(0.0 <= x <= 1.0 for x in m["levels"]):
        raise MeasureError(f"11pt_avg: recall levels must be in [0, 1], got {m['levels']}")


#: the largest multiple of Rprec_mult: mult * N_R stays an exact integer cutoff
MAX_MULT = 1e6


def _check_mult(m: Measure) -> None:
    if not 0 <= m["mult"] <= MAX_MULT:
        raise MeasureError(f"Rprec_mult: the multiple must be in [0, {MAX_MULT:g}] (a larger "
                           f"one is a cutoff beyond any ranking), got {m['mult']}")


def _check_p(m: Measure) -> None:
    if not 0.0 < m["p"] < 1.0:
        raise MeasureError(f"RBP: p must be in (0, 1), got {m['p']}")


# ----------------------------------------------------------- declarations
def _trec(name: str, rank: int, form: str = "single", bind: str | None = None,
          defaults: tuple[Any, ...] = (), fixed: tuple[tuple[str, Any], ...] = (),
          nicknames: tuple[str, ...] = ALL_TREC) -> TrecName:
    return TrecName(name, rank, form, bind, defaults, fixed, nicknames)


register(MeasureDef(
    "AP", "average precision (trec_eval map; @k = map_cut_k)", average_precision,
    (REL, JUDGED_ONLY), formula="AP@k = 1/N_R * sum_{i<=k} rel_i * P@i", aliases=("MAP",),
    trec=(_trec("map", 5, nicknames=OFFICIAL),
          _trec("map_cut", 27, "cutoffs", "@", CUTOFFS))))
register(MeasureDef(
    "GMAP", "AP aggregated by the geometric mean (trec_eval gm_map)", average_precision,
    (REL,), aggregate="gmean", formula="exp(mean(log(max(AP, 1e-5))))",
    trec=(_trec("gm_map", 6, nicknames=OFFICIAL),)))
register(MeasureDef(
    "P", "precision at k (P() without @k: set precision; bare P is trec_eval's P_5 … P_1000)",
    precision,
    (REL, JUDGED_ONLY), formula="P@k = 1/k * sum_{i<=k} rel_i", aliases=("Precision",),
    trec=(_trec("P", 11, "cutoffs", "@", CUTOFFS, nicknames=OFFICIAL),)))
register(MeasureDef(
    "R", "recall at k (trec_eval recall_k)", recall, (REL, JUDGED_ONLY),
    formula="R@k = 1/N_R * sum_{i<=k} rel_i", aliases=("Recall",),
    trec=(_trec("recall", 13, "cutoffs", "@", CUTOFFS),)))
register(MeasureDef(
    "nDCG", "normalised discounted cumulative gain (trec_eval ndcg, ndcg_cut_k)", ndcg,
    (GAINS, Param("dcg", "str", "log2", "gain formulation: log2 (gain = grade, trec_eval) "
                  "or exp-log2 (gain = 2^grade - 1)", choices=("log2", "exp-log2")),
     JUDGED_ONLY,
     Param("discount", "str", "log2", "log2: gain / log2(i+1) (trec_eval); jk10: gain / "
           "max(1, log10(i)), Järvelin & Kekäläinen's base-10 discount, the Twist paper's "
           "nDCG (its base-5 grade weights are a scale, which nDCG ignores)",
           choices=("log2", "jk10"))),
    formula="DCG@k/IDCG@k, DCG@k = sum_{i<=k} gain_i / log2(i+1)",
    trec=(_trec("ndcg", 23, "pairs"), _trec("ndcg_cut", 26, "cutoffs", "@", CUTOFFS)),
    relevance="graded",
    differs="fractional gains (ndcg.3=0.5) are sorted by value; trec_eval 10 sorts them by "
            "their integer-truncated difference, which can give nDCG above 1"))
register(MeasureDef(
    "RR", "reciprocal rank of the first relevant document (trec_eval recip_rank)",
    reciprocal_rank, (REL, JUDGED_ONLY), formula="1 / rank of the first relevant document",
    aliases=("MRR",), trec=(_trec("recip_rank", 9, nicknames=OFFICIAL),)))
register(MeasureDef(
    "Rprec", "precision at rank N_R (trec_eval Rprec)", r_precision, (REL, JUDGED_ONLY),
    cutoff="none", formula="1/N_R * sum_{i<=N_R} rel_i",
    trec=(_trec("Rprec", 7, nicknames=OFFICIAL),)))
register(MeasureDef(
    "bpref", "binary preference (Buckley & Voorhees 2004; trec_eval bpref)", bpref, (REL,),
    cutoff="none", formula="1/N_R * sum_{rel d} (1 - min(nr_d, N_R)/min(N_N, N_R))",
    trec=(_trec("bpref", 8, nicknames=OFFICIAL),)))
register(MeasureDef(
    "gm_bpref", "bpref aggregated by the geometric mean (trec_eval gm_bpref)", bpref, (REL,),
    cutoff="none", aggregate="gmean", formula="exp(mean(log(max(bpref, 1e-5))))",
    trec=(_trec("gm_bpref", 15),)))
register(MeasureDef(
    "Success", "1 if a relevant document is in the top k (trec_eval success_k)", success,
    (REL, JUDGED_ONLY), cutoff="required", formula="[sum_{i<=k} rel_i > 0]",
    trec=(_trec("success", 29, "cutoffs", "@", (1, 5, 10)),)))
register(MeasureDef(
    "RBP", "rank-biased precision (Moffat & Zobel 2008); trec_eval rbp = RBP(p=0.9,graded=true)",
    rbp, (Param("p", "float", 0.8, "persistence, 0 < p < 1"), REL,
          Param("graded", "bool", False, "graded relevance: r_i = gain / largest gain of the "
                "qrels (trec_eval rbp); default binary at rel"), GAINS),
    validate=_check_p, formula="(1-p) * sum_i r_i * p^(i-1)",
    relevance=lambda m: "graded" if m["graded"] or m.get("gains") else "binary",
    trec=(_trec("rbp", 55, "pairs", fixed=(("p", 0.9), ("graded", True))),),
    differs="graded qrels: r_i = gain / largest gain of the qrels; trec_eval 10 rescales "
            "(gain - min) / (max - min) per topic with min and max read uninitialised"))
IPREC = register(MeasureDef(
    "IPrec", "interpolated precision at a recall level (trec_eval iprec_at_recall)",
    interpolated_precision,
    (Param("recall", "float", 0.0, "recall level in [0, 1]; IPrec@0.5 binds it"), REL,
     JUDGED_ONLY),
    cutoff="none", at_param="recall", validate=_check_recall,
    formula="max_{i >= rank of the round(x*N_R)-th relevant} P@i",
    trec=(_trec("iprec_at_recall", 10, "levels", "recall",
                tuple(x / 10 for x in range(11)), nicknames=OFFICIAL),),
    differs="a ranking emptied by -J scores 0; trec_eval 10 prints nan (0/0)"))
register(MeasureDef(
    "11pt_avg", "mean interpolated precision over recall levels (trec_eval 11pt_avg)",
    eleven_point, (Param("levels", "floats", tuple(x / 10 for x in range(11)),
                         "recall levels in [0, 1]"), REL),
    cutoff="none", validate=_check_levels, formula="mean_x IPrec(recall=x)",
    trec=(_trec("11pt_avg", 18, "values", "levels"),),
    differs="a ranking emptied by -J scores 0; trec_eval 10 prints nan (0/0)"))
register(MeasureDef(
    "relative_P", "precision at k relative to the best possible (trec_eval relative_P_k)",
    relative_precision, (REL,), cutoff="required",
    formula="1/min(k, N_R) * sum_{i<=k} rel_i",
    trec=(_trec("relative_P", 28, "cutoffs", "@", CUTOFFS),)))
register(MeasureDef(
    "Rprec_mult", "precision at a multiple x of N_R (trec_eval Rprec_mult_x)",
    r_precision_multiple, (Param("mult", "float", 1.0, "multiple x of N_R; Rprec_mult@2 "
                                 "binds it"), REL),
    cutoff="none", at_param="mult", validate=_check_mult,
    formula="P@c, c = floor(x*N_R + 0.9)",
    trec=(_trec("Rprec_mult", 16, "levels", "mult",
                (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),)))
register(MeasureDef(
    "num_ret", "documents retrieved (with rel: retrieved with grade >= rel)", num_ret,
    (replace(REL, doc="count only documents with grade >= rel"),), cutoff="none",
    aggregate="sum", integer=True, aliases=("NumRet",),
    trec=(_trec("num_ret", 2, nicknames=OFFICIAL + ("set",)),)))
register(MeasureDef(
    "num_rel", "relevant documents in the qrels", num_rel, (REL,), cutoff="none",
    aggregate="sum", integer=True, aliases=("NumRel",),
    trec=(_trec("num_rel", 3, nicknames=OFFICIAL + ("set",)),),
    differs="with -c its total is the sum over topics at the relevance level; trec_eval 10 "
            "recounts grades > 0 over the qrels, ignoring -l"))
register(MeasureDef(
    "num_rel_ret", "relevant documents retrieved", num_rel_ret, (REL,), aggregate="sum",
    integer=True, aliases=("NumRelRet",),
    trec=(_trec("num_rel_ret", 4, nicknames=OFFICIAL + ("set",)),)))
register(MeasureDef(
    "num_q", "topics evaluated", num_q, cutoff="none", aggregate="count", integer=True,
    aliases=("NumQ",), trec=(_trec("num_q", 1, nicknames=OFFICIAL + ("set",)),)))
register(MeasureDef(
    "runid", "the run's name (trec_eval runid; no value)", run_id, cutoff="none",
    aggregate="count", trec=(_trec("runid", 0, nicknames=OFFICIAL + ("set",)),)))
