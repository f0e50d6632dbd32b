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
    return weight_of(others[:, t0:t1], S, float(m["alpha"]), str(m["variant"]))


def weight_of(others: np.ndarray, S: int, alpha: float, variant: str) -> np.ndarray:
    """The weight of a document that ``others`` other runs of ``S`` retrieve:
    ``1 + alpha*R`` (standard) or ``(1-alpha) + alpha*R'`` (normalized), R from
    :func:`rarity`."""
    if variant == "normalized":
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


# ------------------------------------------------ many sub-campaigns at once
def is_rarity_kernel(m: Measure) -> bool:
    """True for ``P_rare`` and ``AP_rare`` (what :func:`sample_values` computes)."""
    return m.definition.kernel in (p_rare, ap_rare)


#: cells (groups x rank slots, or draws x documents) per batch of draws in
#: :func:`sample_values`
_SAMPLE_CELLS = 1 << 21
#: most cells of the tables :func:`sample_values` keeps for a whole campaign (runs x
#: topics x rank slots, and runs x documents): 16 bytes each, 256 MB
SAMPLE_MAX_CELLS = 1 << 24


def sample_fits(campaign: Campaign, measures: list[Measure]) -> bool:
    """Whether :func:`sample_values`' per-campaign tables stay within
    :data:`SAMPLE_MAX_CELLS` for these measures (bounds: every cell of the top K
    relevant, every one a different document); if not, evaluate the draws one by one."""
    R, T = campaign.num_runs, campaign.num_topics
    cells = R * T * max((window(campaign, int(m.cutoff or 0)) for m in measures), default=0)
    return cells <= SAMPLE_MAX_CELLS and R * min(cells, len(campaign.judged.grades)) \
        <= SAMPLE_MAX_CELLS


def sample_values(campaign: Campaign, measures: list[Measure], picks: list[np.ndarray],
                  rel_level: int) -> list[np.ndarray]:
    """For each ``[B, n]`` array of ``picks`` (draws of ``n`` run indices), float64
    ``[M, B, n, T]``: each of ``measures`` (``P_rare`` or ``AP_rare``, rarity over the
    evaluated runs, no reference campaign) on every sub-campaign
    ``campaign.select_runs(draw)``, bit for bit ``compute(campaign.select_runs(draw),
    measures, EvalContext(rel_level))`` (issue 27: Table 3 of ``reproduce innovation``
    evaluates 5,000 samples of runs). The same numbers, batched over draws:

    * ``S_d`` of a sub-campaign is the sum over its runs of "run r has d in its top
      depth" (rows of an integer ``[R, codes]`` matrix, one sum per draw; not a matrix
      product, whose BLAS threads spin on a shared machine), needed only at the
      documents of the relevant cells;
    * a cell's weight is a function of the integer ``others`` only, computed for each
      possible value by the same element-wise expression as :func:`rarity_weights`;
    * the in-order sums of :func:`p_rare` / :func:`ap_rare` add a ranking's cells in rank
      order; a non-relevant cell adds ``+0.0`` there (weights are >= 0, so no ``-0.0``),
      which leaves a sum unchanged, so only the relevant cells are added here, still in
      rank order: one rank slot of every (draw, run, topic) group at a time, the groups
      sorted longest first so that slot ``s`` is a prefix of them;
    * ``P_rare``'s in-order sum is ``AP_rare``'s last prefix sum (the same additions),
      so measures that share their parameters share one pass.
    """
    draws = [np.asarray(p, dtype=np.int64).reshape(len(p), -1) for p in picks]
    outs = [np.zeros((len(measures), *p.shape, campaign.num_topics)) for p in draws]
    passes: dict[tuple[int, int, float, str, int], list[int]] = {}
    for j, m in enumerate(measures):
        level = m.get("rel")
        k = int(m.cutoff or 0)                               # required by P_rare/AP_rare
        key = (k, rel_level if level is None else int(level), float(m["alpha"]),
               str(m["variant"]), int(m.get("depth") or k))
        passes.setdefault(key, []).append(j)
    for key, js in passes.items():
        k, level, alpha, variant, d = key
        cells = _RareCells(campaign, k, level, d)
        average = any(measures[j].definition.kernel is ap_rare for j in js)
        num_rel = campaign.num_rel(level).astype(float)
        for p, out in zip(draws, outs):
            p_sum, ap_sum = cells.sums(p, alpha, variant, average)
            for j in js:
                if measures[j].definition.kernel is ap_rare:
                    den = np.broadcast_to(num_rel, ap_sum.shape)
                    np.divide(ap_sum, den, out=out[j], where=den > 0)
                else:
                    out[j] = p_sum / k
    return outs


class _RareCells:
    """The relevant cells of a campaign's top ``k`` (binary relevance at ``level``),
    laid out for :meth:`sums`, with the retrieval of their documents by each run in
    its top ``d`` (see :func:`sample_values`)."""

    def __init__(self, campaign: Campaign, k: int, level: int, d: int):
        R, T, _ = campaign.grades.shape
        w = window(campaign, k)
        dw = window(campaign, d)                             # retrieval counts: top dw
        codes = campaign.doc_codes
        rel = campaign.grades[:, :, :w] >= level             # [R, T, w]
        r_i, t_i, i_i = np.nonzero(rel)                      # rank order within (r, t)
        cell_code = codes[:, :, :w][r_i, t_i, i_i]
        # own appearance removed as others_count does: rank < d of a retrieved document
        own = (i_i < d) & (i_i < campaign.length[r_i, t_i])
        # the documents of relevant cells as columns; padding (code -1): the last, 0
        ucodes = np.unique(cell_code[cell_code >= 0])
        C = len(ucodes) + 1
        col = np.where(cell_code >= 0, np.searchsorted(ucodes, cell_code), C - 1)
        lookup = np.full(campaign.num_codes + 1, -1, dtype=np.int64)
        lookup[ucodes] = np.arange(C - 1)
        top = lookup[codes[:, :, :dw].reshape(R, -1)]        # code -1 reads the last: -1
        hit = top >= 0
        runs = np.broadcast_to(np.arange(R)[:, None], top.shape)[hit]
        self.member = np.bincount(runs * C + top[hit],
                                  minlength=R * C).reshape(R, C).astype(np.int32)
        # per (run, topic), its relevant cells as rank slots 0..L-1, slot-major: the
        # column (+ C when its own appearance is removed) and the rank
        self.per_rt = rel.sum(axis=2).reshape(-1)            # [R*T]
        L = self.L = int(self.per_rt.max(initial=0))
        slot = np.arange(len(r_i)) - np.repeat(np.cumsum(self.per_rt) - self.per_rt,
                                               self.per_rt)
        rt_i = r_i * T + t_i
        self.slot_key = np.zeros((max(L, 1), R * T), dtype=np.int64)
        self.slot_rank = np.ones((max(L, 1), R * T))
        self.slot_key[slot, rt_i] = col + C * own
        self.slot_rank[slot, rt_i] = i_i + 1
        self.C, self.T = C, T

    def sums(self, picks: np.ndarray, alpha: float, variant: str,
             average: bool) -> tuple[np.ndarray, np.ndarray]:
        """``(sum_i Rel_i w_i, sum_i Rel_i P_rare@i)`` in rank order, ``[B, n, T]`` each,
        for every draw of ``picks`` ``[B, n]`` (the second: zeros unless ``average``)."""
        B, n = picks.shape
        C, T, L = self.C, self.T, self.L
        # the weight of every possible ``others`` (0..n with n runs, S = n; more if a
        # run repeats a document), by the expression of rarity_weights on the same
        # float64 values
        others = np.arange(max(n, int(self.member.sum(axis=0).max(initial=0))) + 1,
                           dtype=np.float64)
        wtab = weight_of(others, n, alpha, variant)
        p_out = np.zeros((B, n, T))
        ap_out = np.zeros((B, n, T))
        step = max(1, _SAMPLE_CELLS // max(1, n * T * max(L, 1), 2 * C))
        for b0 in range(0, B, step):
            b1 = min(B, b0 + step)
            pk = picks[b0:b1]
            counts = self.member[pk].sum(axis=1)             # [nb, C]: S_d (no BLAS)
            # per draw, each column's weight: others = S_d (first C), S_d - 1 (next C)
            weights = wtab[np.concatenate([counts, np.maximum(counts - 1, 0)],
                                          axis=1)].reshape(-1)
            # groups (draw, position, topic), longest first (stable radix sort)
            rt = (pk[:, :, None] * T + np.arange(T)[None, None, :]).reshape(-1)
            size = self.per_rt[rt]
            key = (L - size).astype(np.uint16 if L < (1 << 16) else np.uint32)
            order = np.argsort(key, kind="stable")
            rt = rt[order]
            base = (order // (n * T)) * (2 * C)              # the draw's row of weights
            active = np.bincount(size, minlength=L + 1)[::-1].cumsum()[::-1]
            cum = np.zeros(len(order))
            acc = np.zeros(len(order))
            for s in range(L):
                g = int(active[s + 1])                       # groups longer than s
                idx = rt[:g]
                c = cum[:g]
                c += weights.take(base[:g] + self.slot_key[s].take(idx))
                if average:
                    acc[:g] += c / self.slot_rank[s].take(idx)
            p_out[b0:b1].reshape(-1)[order] = cum
            ap_out[b0:b1].reshape(-1)[order] = acc
        return p_out, ap_out
