"""The kernel toolkit: what every measure kernel shares, in one place.

* :func:`relevance_level` — the binary threshold a kernel uses: the measure's own ``rel``
  parameter when given, else the evaluation's level (trec_eval ``-l``).
* :func:`topic_blocks` and :func:`blocked` — topic blocking under **one** memory budget,
  :data:`CELLS_PER_BLOCK` cells of ``runs x topics x width`` per block (temporaries of a
  few tens of MB per float64 array). Topics are independent, so the block size never
  changes a value.
* :func:`seqsum` — sums accumulated in index order, as trec_eval accumulates.
* :func:`safe_div` — ``num / den`` with 0 where ``den <= 0`` (trec_eval's convention for
  measures whose denominator is empty, e.g. recall on a topic without relevant documents).
* :func:`memo` — memoisation of shared intermediate arrays in :attr:`EvalContext.cache`.
* :func:`window` — number of rank columns inside a cutoff.
* :data:`REL`, :data:`JUDGED_ONLY`, :data:`GAINS` — the parameters many families share,
  declared once (a family may restate a doc with ``dataclasses.replace``).
* :class:`Block` and :func:`block_kernel` — a kernel over one topic block with the
  arrays most kernels need (grades, binary relevance, ``N_R``).
* :func:`relevant_ranks`, :func:`judged_ranks`, :func:`sparse_judged` — the retrieved
  relevant (or judged) documents as compact columns, memoised per campaign.
* :func:`gain_values`, :func:`ideal_gains`, :func:`max_judged`, :func:`powers` — gains of
  grades, the ideal ranking's gains, and trec_eval's repeated-multiplication powers.

Kernels themselves live in their family's module (``classic.py``, ``gain.py``, ...).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, TypeVar

import numpy as np

from irmeta.data.campaign import NOT_IN_QRELS, Campaign
from irmeta.measures.spec import EvalContext, Kernel, Measure, Param

Built = TypeVar("Built")

#: cells (runs x topics x width) per topic block: the one memory budget of the kernels
CELLS_PER_BLOCK = 1 << 22


def relevance_level(measure: Measure, ctx: EvalContext) -> int:
    """The measure's ``rel`` parameter if set, else ``ctx.rel_level``."""
    rel = measure.get("rel")
    return ctx.rel_level if rel is None else int(rel)


def topic_blocks(num_runs: int, num_topics: int, width: int,
                 cells: int | None = None) -> Iterator[tuple[int, int]]:
    """Consecutive topic ranges ``(t0, t1)`` with ``num_runs * (t1 - t0) * width <= cells``
    (default :data:`CELLS_PER_BLOCK`, read at call time; at least one topic per block)."""
    budget = CELLS_PER_BLOCK if cells is None else cells
    step = max(1, budget // max(1, num_runs * width))
    for t0 in range(0, num_topics, step):
        yield t0, min(num_topics, t0 + step)


#: a blocked kernel: ``fn(campaign, measure, ctx, t0, t1) -> [R, t1 - t0]``
BlockFn = Callable[[Campaign, Measure, EvalContext, int, int], np.ndarray]


def blocked(fn: BlockFn) -> Kernel:
    """Turn ``fn(campaign, measure, ctx, t0, t1) -> [R, t1 - t0]`` into a registry kernel
    ``(campaign, measure, ctx) -> [R, T]`` that runs it topic block by topic block."""
    def kernel(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
        R, T, D = campaign.grades.shape
        out = np.empty((R, T))
        for t0, t1 in topic_blocks(R, T, D):
            out[:, t0:t1] = fn(campaign, measure, ctx, t0, t1)
        return out
    kernel.__name__ = fn.__name__
    kernel.__doc__ = fn.__doc__
    return kernel


def seqsum(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """Sum in index order, as trec_eval accumulates (NumPy's ``sum`` is pairwise and
    can differ in the last bit, which shows at 4-decimal rounding boundaries)."""
    if x.shape[axis] == 0:
        return np.zeros(np.delete(x.shape, axis))
    if x.dtype == np.float64 and x.size >= _SLICE_ADDS * x.shape[axis] \
            and x.shape[axis] <= _SLICE_MAX:
        # the same additions in the same order, one whole slice at a time (vectorised
        # across cells) instead of NumPy's one-cell-at-a-time accumulate: 5-7x faster
        # on [R, T, 100] blocks (issue 27); float64 only, where ``cumsum`` keeps the dtype
        v = np.moveaxis(x, axis, -1)
        out: np.ndarray = v[..., 0].copy()
        for i in range(1, v.shape[-1]):
            out += v[..., i]
        return out
    total: np.ndarray = np.take(np.cumsum(x, axis=axis), -1, axis=axis)
    return total


#: :func:`seqsum` adds slice by slice when there are at least this many cells per
#: slice (fewer: NumPy's call overhead per slice outweighs the vectorised add)
_SLICE_ADDS = 256
#: ... and at most this many slices (one NumPy call each)
_SLICE_MAX = 4096


def seqcumsum(x: np.ndarray) -> np.ndarray:
    """``np.cumsum(x, axis=-1)``, bit for bit (each prefix sum adds in index order), one
    slice at a time for float64 arrays with many cells per slice (see :func:`seqsum`)."""
    if x.dtype != np.float64 or x.ndim == 0 or x.shape[-1] == 0 \
            or x.size < _SLICE_ADDS * x.shape[-1] or x.shape[-1] > _SLICE_MAX:
        return np.cumsum(x, axis=-1)
    out = np.empty(x.shape)
    out[..., 0] = x[..., 0]
    for i in range(1, x.shape[-1]):
        np.add(out[..., i - 1], x[..., i], out=out[..., i])
    return out


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` element-wise (broadcast), 0 where ``den <= 0``."""
    den = np.broadcast_to(den, num.shape)
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den > 0)
    return out


def memo(ctx: EvalContext | None, key: tuple[Any, ...], build: Callable[[], Built]) -> Built:
    """Return ``ctx.cache[key]`` or build, store and return it. ``key[1]`` is the
    campaign (kept alive by the cache, so ``id`` reuse cannot alias entries); without a
    context, just build."""
    if ctx is None:
        return build()
    full = (key[0], id(key[1])) + key[2:]
    hit = ctx.cache.get(full)
    if hit is not None and hit[0] is key[1]:
        cached: Built = hit[1]
        return cached
    value = build()
    ctx.cache[full] = (key[1], value)
    return value


def window(campaign: Campaign, k: int | None) -> int:
    """Number of rank columns of the dense arrays inside a cutoff ``k`` (None = all)."""
    return campaign.depth if k is None else min(int(k), campaign.depth)


# ------------------------------------------------------------ shared parameters
REL = Param("rel", "int", None, "minimum grade counted as relevant (default: the "
            "evaluation's relevance level, trec_eval -l)")
JUDGED_ONLY = Param("judged_only", "bool", False, "drop unjudged documents from the ranking "
                    "first (trec_eval -J, ir_measures judged_only)")
GAINS = Param("gains", "gains", None, "grade -> gain mapping, e.g. {0:0,1:1,2:3,3:7}; "
              "default gain = grade")


# ------------------------------------------------ blocks and compact columns
class Block:
    """A chunk of topics of a campaign with the arrays classic kernels share."""

    def __init__(self, campaign: Campaign, t0: int, t1: int, level: int):
        self.grades: np.ndarray = campaign.grades[:, t0:t1]
        self.length: np.ndarray = campaign.length[:, t0:t1]
        self.num_rel: np.ndarray = campaign.num_rel(level)[t0:t1]
        self.level = level
        self.campaign = campaign
        self.t0, self.t1 = t0, t1
        self.rel: np.ndarray = self.grades >= level
        self.depth: int = self.grades.shape[2]

    def cum_rel(self) -> np.ndarray:
        return np.cumsum(self.rel, axis=2, dtype=np.int32)

    def upto(self, cutoff: int | None) -> int:
        return self.depth if cutoff is None else min(cutoff, self.depth)


#: a classic kernel over one block of topics: ``fn(block, measure) -> [R, Tc]``
BlockKernelFn = Callable[["Block", Measure], np.ndarray]


def block_kernel(fn: BlockKernelFn) -> Kernel:
    """Wrap ``fn(block, measure) -> [R, Tc]`` into a registry kernel over all topics
    (topic blocks of :func:`topic_blocks`)."""
    def over_block(campaign: Campaign, measure: Measure, ctx: EvalContext,
                   t0: int, t1: int) -> np.ndarray:
        return fn(Block(campaign, t0, t1, relevance_level(measure, ctx)), measure)
    over_block.__name__ = fn.__name__
    over_block.__doc__ = fn.__doc__
    return blocked(over_block)


#: ``(idx, i, slot, j, K, found)`` of :func:`_selected_columns`
_Columns = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]


def _selected_columns(selected: np.ndarray) -> _Columns | None:
    """The documents ``selected`` (bool ``[R, T, D]``) as padded columns, in rank order:
    ``(idx, i, slot, j, K, found)`` with ``idx`` their flat positions, ``i`` their 0-based
    ranks, ``j`` their order within their (run, topic) cell, ``slot = cell * K + j`` their
    place in a flat ``[R, T, K]`` array, ``K`` the most in one cell (at least 1) and
    ``found[cell]`` the count per cell. None when ``R * T * K`` exceeds two topic blocks of
    cells (the caller then works block by block on the dense arrays)."""
    R, T, D = selected.shape
    idx = np.flatnonzero(selected)
    cell, i = np.divmod(idx, D)
    found = np.bincount(cell, minlength=R * T)
    K = max(1, int(found.max(initial=0)))
    if R * T * K > 2 * CELLS_PER_BLOCK:
        return None
    first = np.r_[0, np.cumsum(found)[:-1]]
    j = np.arange(len(idx)) - first[cell]
    slot: np.ndarray = cell * K + j
    return idx, i, slot, j, K, found


#: ``(rank, prec, found)`` of :func:`relevant_ranks`
RelevantRanks = tuple[np.ndarray, np.ndarray, np.ndarray]


def relevant_ranks(campaign: Campaign, level: int,
                   ctx: EvalContext | None) -> RelevantRanks | None:
    """The retrieved relevant documents only, shared by AP, IPrec and 11pt_avg:
    ``(rank, prec, found)`` with ``rank[r, t, j]`` the 1-based rank of the (j+1)-th relevant
    document (past ``found[r, t]``: depth + 1) and ``prec[r, t, j] = (j + 1) / rank`` (0
    past it). Memoised per campaign and level; None when the ``[R, T, K]`` arrays would
    exceed two topic blocks of cells (the kernels then work block by block)."""
    def build() -> RelevantRanks | None:
        R, T, D = campaign.grades.shape
        columns = _selected_columns(campaign.grades >= level)
        if columns is None:
            return None
        idx, i, slot, j, K, found = columns
        rank = np.full(R * T * K, D + 1, dtype=np.int32)
        prec = np.zeros(R * T * K)
        rank[slot] = i + 1
        prec[slot] = (j + 1) / (i + 1)
        return rank.reshape(R, T, K), prec.reshape(R, T, K), found.reshape(R, T)
    ranks: RelevantRanks | None = memo(ctx, ("relevant_ranks", campaign, level), build)
    return ranks


#: ``(pos, grade, found)`` of :func:`judged_ranks`
JudgedRanks = tuple[np.ndarray, np.ndarray, np.ndarray]


def judged_ranks(campaign: Campaign, ctx: EvalContext | None) -> JudgedRanks | None:
    """The retrieved documents that the qrels hold (any grade, negative included), in rank
    order: ``(pos, grade, found)`` with ``pos[r, t, j]`` the 0-based rank of the (j+1)-th
    of them (past ``found[r, t]``: the depth D) and ``grade[r, t, j]`` its grade (past it:
    ``NOT_IN_QRELS``). Kernels whose sums only take terms at judged documents (infAP,
    bpref, nDCG, ndcg_rel, G) read these few columns instead of the full depth: a term of
    0 adds nothing to a float sum, so the values are the same bit for bit. Memoised per
    campaign; None when the ``[R, T, K]`` arrays would exceed two topic blocks of cells
    (the kernels then work block by block on the dense arrays)."""
    def build() -> JudgedRanks | None:
        R, T, D = campaign.grades.shape
        flat = campaign.grades.reshape(-1)
        columns = _selected_columns(campaign.grades != NOT_IN_QRELS)
        if columns is None:
            return None
        idx, i, slot, _, K, found = columns
        pos = np.full(R * T * K, D, dtype=np.int64)
        grade = np.full(R * T * K, NOT_IN_QRELS, dtype=np.int16)
        pos[slot] = i
        grade[slot] = flat[idx]
        return pos.reshape(R, T, K), grade.reshape(R, T, K), found.reshape(R, T)
    ranks: JudgedRanks | None = memo(ctx, ("judged_ranks", campaign), build)
    return ranks


def sparse_judged(campaign: Campaign, m: Measure, ctx: EvalContext | None,
                  level: int | None = None) -> JudgedRanks | None:
    """:func:`judged_ranks` when a kernel may use them: every document outside the qrels
    must score 0, i.e. the relevance level is above ``NOT_IN_QRELS`` and no ``gains``
    mapping names that grade. None: use the dense kernel."""
    if level is not None and level <= NOT_IN_QRELS:
        return None
    if any(grade == NOT_IN_QRELS for grade, _ in (m.get("gains") or ())):
        return None
    return judged_ranks(campaign, ctx)


# ------------------------------------------------------------------- gains
def gain_values(grades: np.ndarray, m: Measure) -> np.ndarray:
    """Gain of each grade (float array, same shape): the grade itself for grades > 0
    (``2^grade - 1`` with ``dcg='exp-log2'``), 0 for grade 0, negative grades and
    unjudged documents; the measure's ``gains`` mapping overrides listed grades."""
    positive = np.where(grades > 0, grades, 0).astype(float)
    gain = np.exp2(positive) - 1.0 if m.get("dcg") == "exp-log2" else positive
    gain_map = m.get("gains")
    if gain_map:
        for grade, value in gain_map:
            gain[grades == grade] = value
    return gain


def ideal_gains(campaign: Campaign, m: Measure, t0: int, t1: int, depth: int) -> np.ndarray:
    """[Tc, depth] positive gains of the judged documents (grade >= 0), sorted
    descending per topic, zero-padded: the ideal ranking's gain vector."""
    j = campaign.judged
    lo, hi = j.ptr[t0], j.ptr[t1]
    grades = j.grades[lo:hi]
    topic = j.topic[lo:hi] - t0
    gain = gain_values(grades, m)
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


def max_judged(campaign: Campaign, t0: int, t1: int) -> int:
    """The largest number of judged documents of one topic among topics t0..t1-1."""
    return int(np.max(np.diff(campaign.judged.ptr[t0:t1 + 1]), initial=0))


def powers(p: float, n: int) -> np.ndarray:
    """p^0 .. p^n by repeated multiplication, as trec_eval computes them (bit for bit)."""
    power: np.ndarray = np.r_[1.0, np.cumprod(np.full(n, p))]
    return power
