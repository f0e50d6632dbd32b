"""trec_eval 10's cumulative-gain measures besides nDCG: ndcg_rel, Rndcg, G, binG.

Notation (one run, one topic): ``g_i`` the gain of the document at rank i (its grade, or
the ``gains`` mapping; 0 when unjudged), ``I_1 >= I_2 >= ... >= I_m > 0`` the positive
gains of the topic's judged documents sorted decreasingly (the ideal ranking, ``m`` of
them), ``DCG_r = sum_{i<=r} g_i / log2(i + 1)``, ``IDCG_r`` the same over ``I`` (constant
past ``m``), ``n`` documents retrieved. Sums are accumulated in rank order, as trec_eval
accumulates them, so values agree to the last bit.
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.measures import kernel
from irmeta.measures.kernel import (
    GAINS,
    REL,
    Block,
    block_kernel,
    gain_values,
    ideal_gains,
    max_judged,
    relevance_level,
    relevant_ranks,
    safe_div,
    seqsum,
    sparse_judged,
)
from irmeta.measures.registry import register
from irmeta.measures.spec import ALL_TREC, EvalContext, Measure, MeasureDef, TrecName


def _log2_ranks(n: int) -> np.ndarray:
    """log2(i + 1) for ranks i = 1..n."""
    return np.log2(np.arange(2, n + 2, dtype=np.float64))


def _fractional_gains(name: str, consequence: str) -> str:
    """The ``differs`` note of the measures that sort an ideal ranking of gains the way
    trec_eval 10's ndcg does (ndcg_rel, Rndcg, G)."""
    return (f"fractional gains ({name}.3=0.5) are sorted by value for the ideal ranking, "
            "as for nDCG; trec_eval 10 sorts them by their integer-truncated difference "
            f"(the same code as ndcg), which can give {consequence}")


class _Gains:
    """Run gains, cumulative DCG and the ideal ranking of a block of topics."""

    def __init__(self, b: Block, m: Measure):
        self.gain = gain_values(b.grades, m)                       # [R, Tc, D]
        self.dcg = np.cumsum(self.gain / _log2_ranks(b.depth), axis=2)   # DCG_r, r = 1..D
        width = max(1, max_judged(b.campaign, b.t0, b.t1))
        self.ideal = ideal_gains(b.campaign, m, b.t0, b.t1, width)  # [Tc, W], 0-padded
        self.m = (self.ideal > 0).sum(axis=1)                       # [Tc]
        self.idcg = np.cumsum(self.ideal / _log2_ranks(width), axis=1)  # IDCG_r, r = 1..W

    def dcg_at(self, r: np.ndarray) -> np.ndarray:
        """DCG at prefix lengths ``r`` ([Tc, K], 0 = empty prefix) -> [R, Tc, K]."""
        padded = np.concatenate([np.zeros(self.dcg.shape[:2] + (1,)), self.dcg], axis=2)
        idx = np.minimum(r, padded.shape[2] - 1)
        return np.take_along_axis(padded, np.broadcast_to(idx[None], (padded.shape[0],)
                                                          + idx.shape), axis=2)

    def idcg_at(self, r: np.ndarray) -> np.ndarray:
        """IDCG at prefix lengths ``r`` ([Tc, K] >= 0) -> [Tc, K] (0 for r = 0)."""
        padded = np.concatenate([np.zeros((self.idcg.shape[0], 1)), self.idcg], axis=1)
        return np.take_along_axis(padded, np.minimum(r, padded.shape[1] - 1), axis=1)


@block_kernel
def dcg(b: Block, m: Measure) -> np.ndarray:
    """DCG = DCG_n, unnormalised, over the whole ranking (trec_eval dcg)."""
    return _Gains(b, m).dcg[:, :, -1].copy()


@block_kernel
def ideal_dcg(b: Block, m: Measure) -> np.ndarray:
    """IDCG = IDCG_m, the DCG of the ideal ranking of the judged documents (trec_eval
    ideal_dcg; the same for every run)."""
    G = _Gains(b, m)
    return np.broadcast_to(G.idcg[:, -1][None, :], G.gain.shape[:2]).copy()


class _Ideal:
    """The ideal ranking of every topic: gains ``ideal[T, W]`` (0-padded), the number
    ``m[T]`` of positive ones and ``IDCG_r`` for r = 0..W (``idcg[T, W + 1]``)."""

    def __init__(self, campaign: Campaign, m: Measure):
        T = campaign.num_topics
        width = max(1, max_judged(campaign, 0, T))
        self.ideal = ideal_gains(campaign, m, 0, T, width)
        self.m = (self.ideal > 0).sum(axis=1)
        idcg = np.cumsum(self.ideal / _log2_ranks(width), axis=1)
        self.idcg = np.concatenate([np.zeros((T, 1)), idcg], axis=1)

    def idcg_at(self, r: np.ndarray) -> np.ndarray:
        """IDCG at prefix lengths ``r`` (``[R, T, K]``, 0 <= r <= m of the topic)."""
        values: np.ndarray = self.idcg[np.arange(self.idcg.shape[0])[None, :, None], r]
        return values


def _sparse_gains(campaign: Campaign, m: Measure,
                  ctx: EvalContext) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(pos, gain, dcg)`` at the judged retrieved documents (:func:`judged_ranks`):
    0-based rank, gain and DCG up to and at that rank (``[R, T, K]``; past the judged
    documents: the depth, 0 and DCG_n). None: use the dense kernel."""
    events = sparse_judged(campaign, m, ctx)
    if events is None:
        return None
    pos, grade, _ = events
    gain = gain_values(grade, m)
    logs = _log2_ranks(campaign.depth)
    dcg = np.cumsum(gain / logs[np.minimum(pos, campaign.depth - 1)], axis=2)
    return pos, gain, dcg


def ndcg_rel(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """ndcg_rel (see :func:`ndcg_rel_blocked`) on the judged retrieved documents only."""
    sparse = _sparse_gains(campaign, m, ctx)
    if sparse is None:
        return ndcg_rel_blocked(campaign, m, ctx)
    pos, gain, dcg = sparse
    ideal = _Ideal(campaign, m)
    m_t = ideal.m[None, :, None]
    idcg = ideal.idcg_at(np.minimum(pos + 1, m_t))                 # IDCG_min(i, m)
    positive = gain > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, dcg / idcg, 0.0)
        total = seqsum(terms)
        idcg_m = ideal.idcg_at(m_t)[:, :, 0]
        found = positive.sum(axis=2)
        total = total + (ideal.m[None, :] - found) * dcg[:, :, -1] / idcg_m
    value = safe_div(total, np.broadcast_to(ideal.m[None, :], total.shape).astype(float))
    return np.where(total > 0, value, 0.0)


@block_kernel
def ndcg_rel_blocked(b: Block, m: Measure) -> np.ndarray:
    """ndcg_rel = (1/m) * (sum over retrieved i with g_i > 0 of DCG_i / IDCG_min(i,m)
    + (m - r) * DCG_n / IDCG_m), r = retrieved documents with g_i > 0: nDCG averaged
    over the ranks of the relevant documents, unretrieved ones at the end; 0 when the
    sum is 0 (trec_eval ndcg_rel)."""
    G = _Gains(b, m)
    ranks = np.arange(1, b.depth + 1)[None, :]
    idcg = G.idcg_at(np.minimum(ranks, G.m[:, None]))              # [Tc, D]
    positive = G.gain > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, G.dcg / idcg[None], 0.0)
        total = seqsum(terms)
        idcg_m = G.idcg_at(G.m[:, None])[:, 0][None, :]
        found = positive.sum(axis=2)
        total = total + (G.m[None, :] - found) * G.dcg[:, :, -1] / idcg_m
    value = safe_div(total, np.broadcast_to(G.m[None, :], total.shape).astype(float))
    return np.where(total > 0, value, 0.0)


def r_ndcg(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """Rndcg (see :func:`r_ndcg_blocked`) on the judged retrieved documents only: the DCG
    of a prefix is the DCG at the last judged document inside it. Dense when the
    ``[R, T, W, K]`` comparison (W ideal positions, K judged documents) would pass a
    topic block of cells."""
    sparse = _sparse_gains(campaign, m, ctx)
    if sparse is None:
        return r_ndcg_blocked(campaign, m, ctx)
    pos, _, dcg_judged = sparse
    ideal = _Ideal(campaign, m)
    R, T, K = pos.shape
    W = ideal.ideal.shape[1]
    if R * T * W * K > kernel.CELLS_PER_BLOCK:
        return r_ndcg_blocked(campaign, m, ctx)
    padded = np.concatenate([ideal.ideal, np.zeros((T, 1))], axis=1)     # I_1..I_W+1
    b = np.arange(2, W + 2)[None, :]                                     # b = 2..W+1
    drop = (padded[:, 1:] != padded[:, :-1]) & (b <= ideal.m[:, None] + 1)  # [T, W]
    prefix = np.broadcast_to(b - 1, drop.shape)
    idcg = ideal.idcg[np.arange(T)[:, None], prefix]                     # IDCG_(b-1)
    inside = (pos[:, :, None, :] < prefix[None, :, :, None]).sum(axis=3)  # [R, T, W]
    dcg = np.take_along_axis(np.concatenate([np.zeros((R, T, 1)), dcg_judged], axis=2),
                             inside, axis=2)                             # DCG_min(b-1, n)
    dcg_n = dcg_judged[:, :, -1]
    n = campaign.length
    with np.errstate(divide="ignore", invalid="ignore"):
        total = seqsum(np.where(drop[None], dcg / idcg[None], 0.0))
        idcg_m = ideal.idcg[np.arange(T), ideal.m][None, :]
        extra = (n > ideal.m[None, :] + 1) & (idcg_m > 0)
        total = np.where(extra, total + dcg_n / idcg_m, total)
        count = drop.sum(axis=1)[None, :] + extra
        value = total / count
    level = relevance_level(m, ctx)
    return np.where(campaign.num_rel(level)[None, :] > 0, value, 0.0)


@block_kernel
def r_ndcg_blocked(b: Block, m: Measure) -> np.ndarray:
    """Rndcg: nDCG averaged over the rank prefixes that end where the ideal gain drops
    (the positions b = 2..m+1 with I_b != I_(b-1), I_(m+1) = 0), each
    DCG_min(b-1,n) / IDCG_(b-1), plus DCG_n / IDCG_m when n > m + 1; 0 when the topic has
    no relevant document (trec_eval Rndcg)."""
    G = _Gains(b, m)
    W = G.ideal.shape[1]
    ideal = np.concatenate([G.ideal, np.zeros((G.ideal.shape[0], 1))], axis=1)  # I_1..I_W+1
    pos = np.arange(2, W + 2)[None, :]                                # b = 2..W+1
    drop = (ideal[:, 1:] != ideal[:, :-1]) & (pos <= G.m[:, None] + 1)  # [Tc, W]
    idcg = G.idcg_at(np.broadcast_to(pos - 1, drop.shape))           # IDCG_(b-1)
    dcg = G.dcg_at(np.broadcast_to(pos - 1, drop.shape))              # DCG_min(b-1, D)
    n = b.length
    with np.errstate(divide="ignore", invalid="ignore"):
        total = seqsum(np.where(drop[None], dcg / idcg[None], 0.0))
        idcg_m = G.idcg_at(G.m[:, None])[:, 0][None, :]
        extra = (n > G.m[None, :] + 1) & (idcg_m > 0)
        total = np.where(extra, total + G.dcg[:, :, -1] / idcg_m, total)
        count = drop.sum(axis=1)[None, :] + extra
        value = total / count
    return np.where(b.num_rel[None, :] > 0, value, 0.0)


def g_measure(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """G (see :func:`g_measure_blocked`) on the judged retrieved documents only."""
    sparse = _sparse_gains(campaign, m, ctx)
    if sparse is None:
        return g_measure_blocked(campaign, m, ctx)
    pos, gain, _ = sparse
    ideal = _Ideal(campaign, m).ideal
    at = _cost_at(ideal, np.minimum(pos, campaign.depth - 1), campaign.depth)
    spent = np.cumsum(gain, axis=2)                                   # S_i
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(gain != 0, gain / np.log2((2 + at) - spent), 0.0)
    return safe_div(seqsum(terms), seqsum(ideal)[None, :])


def _cost_at(ideal: np.ndarray, pos: np.ndarray, D: int) -> np.ndarray:
    """G's ``C_i = sum_{j<=i} max(I_j, 1)`` (``I_j = 0`` past the ideal's width ``w``)
    at the 0-based ranks ``pos`` (``[R, T, K]``) of each topic (``ideal``: ``[T, W]``).

    Past ``w`` every term is 1, so ``C_i = C_(w-1) + (i - w + 1)``: the running sum is
    made over the ``w`` ideal columns only, not all ``D`` ranks. This equals the
    sequential sum bit for bit when its values are integers below 2^52 (each addition is
    then exact), as they are for integer grades; otherwise (a ``gains`` mapping with
    fractions) the full ``[T, D]`` running sum is made, as before."""
    T = ideal.shape[0]
    w = min(D, ideal.shape[1])
    topic = np.arange(T)[None, :, None]
    head = np.cumsum(np.maximum(ideal[:, :w], 1.0), axis=1)            # C_i, i < w
    if w and np.array_equal(head, np.floor(head)) and head[:, -1].max(initial=0) < 2.0 ** 52:
        inside = head[topic, np.minimum(pos, w - 1)]
        past = head[topic, w - 1] + (pos - (w - 1))
        at: np.ndarray = np.where(pos < w, inside, past)
        return at
    full = np.ones((T, D))
    full[:, :w] = np.maximum(ideal[:, :w], 1.0)
    cost = np.cumsum(full, axis=1)                                     # C_i, [T, D]
    return np.asarray(cost[topic, pos])


@block_kernel
def g_measure_blocked(b: Block, m: Measure) -> np.ndarray:
    """G = (sum over retrieved i with g_i != 0 of g_i / log2(2 + C_i - S_i)) / sum_j I_j,
    with S_i = sum_{j<=i} g_j and C_i = sum_{j<=i} max(I_j, 1) (I_j = 0 past m): gain
    discounted by the excess cost over the ideal so far (trec_eval G); 0 when no
    positive gain is judged."""
    G = _Gains(b, m)
    D = b.depth
    ideal = np.zeros((G.ideal.shape[0], D))
    w = min(D, G.ideal.shape[1])
    ideal[:, :w] = G.ideal[:, :w]
    cost = np.cumsum(np.maximum(ideal, 1.0), axis=1)                  # C_i, [Tc, D]
    r, t, i = np.nonzero(G.gain)           # only documents with a gain add a term
    gain = G.gain[r, t, i]
    # S_i at those documents: running sums per (run, topic), in rank order (exact: the
    # documents without gain add nothing)
    cell = r * G.gain.shape[1] + t
    count = np.bincount(cell, minlength=G.gain.shape[0] * G.gain.shape[1])
    j = np.arange(len(gain)) - np.r_[0, np.cumsum(count)[:-1]][cell]
    packed = np.zeros((len(count), max(1, int(count.max(initial=0)))))
    packed[cell, j] = gain
    spent = np.cumsum(packed, axis=1)[cell, j]
    terms = np.zeros(G.gain.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms[r, t, i] = gain / np.log2((2 + cost[t, i]) - spent)
    total_ideal = seqsum(G.ideal)
    return safe_div(seqsum(terms), total_ideal[None, :])


def bin_g(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """binG (see :func:`bin_g_blocked`) on the relevant ranks (:func:`relevant_ranks`):
    the j-th relevant document at rank i has i - j non-relevant documents above it."""
    level = relevance_level(m, ctx)
    compact = relevant_ranks(campaign, level, ctx)
    if compact is None:
        return bin_g_blocked(campaign, m, ctx)
    rank, _, _ = compact
    seen = np.arange(1, rank.shape[2] + 1)           # relevant documents up to and at i
    with np.errstate(divide="ignore"):
        terms = np.where(rank <= campaign.depth,
                         1.0 / np.log2((2 + rank.astype(np.int64)) - seen), 0.0)
    return safe_div(seqsum(terms), campaign.num_rel(level)[None, :].astype(float))


@block_kernel
def bin_g_blocked(b: Block, m: Measure) -> np.ndarray:
    """binG = (1/N_R) * sum over retrieved relevant i of 1 / log2(2 + nonrelevant above
    i) (trec_eval binG; 0 when none is retrieved)."""
    cum = b.cum_rel()
    ranks = np.arange(1, b.depth + 1)
    terms = np.where(b.rel, 1.0 / np.log2((2 + ranks) - cum), 0.0)
    return safe_div(seqsum(terms), b.num_rel[None, :].astype(float))


register(MeasureDef(
    "dcg", "discounted cumulative gain, not normalised (trec_eval dcg)", dcg, (GAINS,),
    cutoff="none", formula="sum_i g_i / log2(i+1)", relevance="graded",
    trec=(TrecName("dcg", 21, "pairs", nicknames=()),),
    differs="`-m dcg.x -m ideal_dcg.y`: each keeps its own gains; trec_eval 10 shares one "
            "parameter block between them (the last given applies to both, and it then "
            "crashes freeing it twice)"))
register(MeasureDef(
    "ideal_dcg", "DCG of the ideal ranking (trec_eval ideal_dcg)", ideal_dcg, (GAINS,),
    cutoff="none", formula="sum_{j<=m} I_j / log2(j+1)", relevance="graded",
    trec=(TrecName("ideal_dcg", 22, "pairs", nicknames=()),)))
register(MeasureDef(
    "ndcg_rel", "nDCG averaged over the relevant documents (trec_eval ndcg_rel)", ndcg_rel,
    (GAINS,), cutoff="none", relevance="graded",
    formula="1/m (sum_{g_i>0} DCG_i/IDCG_min(i,m) + (m - r) DCG_n/IDCG_m)",
    trec=(TrecName("ndcg_rel", 24, "pairs", nicknames=ALL_TREC),),
    differs=_fractional_gains("ndcg_rel", "values above 1")))
register(MeasureDef(
    "Rndcg", "nDCG averaged where the ideal gain drops (trec_eval Rndcg)", r_ndcg,
    (GAINS, REL), cutoff="none", formula="mean_b DCG_min(b-1,n) / IDCG_(b-1)",
    relevance="graded",
    trec=(TrecName("Rndcg", 25, "pairs", nicknames=ALL_TREC),),
    differs=_fractional_gains("Rndcg", "a wrong ideal")))
register(MeasureDef(
    "G", "gain discounted by the excess cost over the ideal (trec_eval G)", g_measure,
    (GAINS,), cutoff="none", formula="sum_i g_i / log2(2 + C_i - S_i) / sum_j I_j",
    relevance="graded",
    trec=(TrecName("G", 20, "pairs", nicknames=ALL_TREC),),
    differs=_fractional_gains("G", "a wrong ideal")))
register(MeasureDef(
    "binG", "binary G (trec_eval binG)", bin_g, (REL,), cutoff="none",
    formula="1/N_R sum_{rel i} 1/log2(2 + nonrel above i)",
    trec=(TrecName("binG", 19, nicknames=ALL_TREC),)))
