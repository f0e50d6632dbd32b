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
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, TypeVar

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.measures.spec import EvalContext, Kernel, Measure

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
    total: np.ndarray = np.take(np.cumsum(x, axis=axis), -1, axis=axis)
    return total


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
