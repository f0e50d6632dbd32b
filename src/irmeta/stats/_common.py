"""Shared helpers of the meta-evaluation layer: input coercion, pairs, progress, RNG.

Every analysis works on a *score matrix*: systems x topics, float64, one row per
system. It is accepted as a pandas DataFrame (index = systems, columns = topics, as
:meth:`irmeta.Results.matrix` returns it) or as a 2-D array (systems named ``s0``,
``s1``, ...).

Undefined values (NaN) — e.g. Twist on a topic with a recall base larger than the
depth — cannot take part in paired comparisons: a topic with a NaN for any system is
dropped from the matrix (with a warning naming how many), so that every system is
compared on the same topics.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError, warn

#: bytes of float64 scratch one batched step may allocate (chunks are sized from it)
CHUNK_BYTES = 64 * 2 ** 20


def score_matrix(scores, func: str, *, min_systems: int = 2,
                 min_topics: int = 2) -> pd.DataFrame:
    """Validate and return ``scores`` as a float64 systems x topics DataFrame.

    Topics (columns) holding a NaN for any system are dropped with a warning.
    """
    if isinstance(scores, pd.DataFrame):
        try:
            frame = scores.astype(np.float64)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(f"{func}: scores must hold numbers only") from None
    else:
        try:
            arr = np.asarray(scores, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise ParameterError(f"{func}: scores must be a systems x topics matrix of "
                                 f"numbers, got {type(scores).__name__}") from None
        if arr.ndim != 2:
            raise ParameterError(f"{func}: scores must be a systems x topics matrix, "
                                 f"got an array of shape {arr.shape}")
        frame = pd.DataFrame(arr, index=[f"s{i}" for i in range(arr.shape[0])],
                             columns=[f"t{j}" for j in range(arr.shape[1])])
    if np.isinf(frame.to_numpy()).any():
        raise ParameterError(f"{func}: scores contain infinite values")
    bad = frame.isna().any(axis=0)
    if bad.any():
        warn(f"{func}: dropping {int(bad.sum())} topic(s) with undefined (NaN) "
             f"scores for some system")
        frame = frame.loc[:, ~bad]
    if frame.shape[0] < min_systems:
        raise ParameterError(f"{func}: need at least {min_systems} systems, got {frame.shape[0]}")
    if frame.shape[1] < min_topics:
        raise ParameterError(f"{func}: need at least {min_topics} topics with defined "
                             f"scores, got {frame.shape[1]}")
    if frame.index.has_duplicates:
        raise ParameterError(f"{func}: system names must be unique")
    return frame


def context_free_measures(measures: Any, func: str, because: str) -> list:
    """``measures`` parsed, one measure per string; a measure whose value depends on the
    other runs of the campaign (NRG, rareness, Twist against others ...) is a
    :class:`ParameterError` saying ``because`` (why this analysis changes that context)."""
    from irmeta.measures.parse import parse_measures
    parsed = parse_measures(measures)
    if len(parsed) != len(measures):
        raise ParameterError(f"{func}: each measure string must name exactly one measure, "
                             f"got {list(measures)!r}")
    ctx = [m.display for m in parsed if m.definition.context]
    if ctx:
        raise ParameterError(f"{func}: {', '.join(ctx)} depend(s) on the other runs of the "
                             f"campaign; {because}, so use measures without context (AP, "
                             "nDCG@10, P@10, ...)")
    return parsed


def all_pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices ``(i, j)`` of every unordered pair ``i < j`` (row-major order)."""
    i, j = np.triu_indices(n, k=1)
    return i.astype(np.int64), j.astype(np.int64)


def rng_from(seed, func: str) -> np.random.Generator:
    """``np.random.default_rng(seed)``; the seed must be an int (or a Generator)."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(validate.seed(seed, func))


def chunk_size(per_item_floats: int, minimum: int = 1) -> int:
    """How many items fit in :data:`CHUNK_BYTES` when each needs ``per_item_floats``."""
    return max(minimum, int(CHUNK_BYTES // (8 * max(1, per_item_floats))))


def progress_bar(total: int, desc: str, enabled: bool | None):
    """A tqdm bar on stderr; ``enabled=None`` shows it only when stderr is a terminal
    (and ``IRMETA_NO_PROGRESS`` is unset)."""
    from tqdm.auto import tqdm
    if enabled is None:
        enabled = sys.stderr.isatty() and not os.environ.get("IRMETA_NO_PROGRESS")
    return tqdm(total=total, desc=desc, disable=not enabled, file=sys.stderr, leave=False,
                dynamic_ncols=True)


def per_topic_values(campaign, measures, rel_level: int, *, complete: bool = False,
                     groups=None):
    """:func:`irmeta.evaluate` of a campaign that may be one topic shard, or a few runs of
    one: values for every (run, topic), ``evaluated`` as ``complete`` says (every topic,
    or the topics each run retrieved for), without the campaign-wide check that some run
    shares a topic with the qrels, which a one-topic shard or a group's runs on it may
    fail although the whole campaign passes. Per-topic pieces are joined, and the
    campaign-wide checks made, before anything is aggregated."""
    from irmeta.evaluation import evaluate
    res = evaluate(campaign, measures=measures, rel_level=rel_level, groups=groups,
                   complete=True)
    if not complete:
        res.evaluated = campaign.has_topic.copy()
    return res


F = TypeVar("F", bound=Callable[..., Any])


def one_blas_thread(fn: F) -> F:
    """Run ``fn`` with NumPy's BLAS on one thread (restored after; ``threadpoolctl``).

    The resampling's matrix products are small (trials x topics by topics x runs): a
    second BLAS thread finishes them no sooner and spins while it waits, doubling the
    CPU (DL21, 2 cores: ``bootstrap_power`` 1.7-2.5 -> 0.9 CPU-s, ``stability_table``
    1.5 -> 0.7, the same wall time; under load the wall time too). The report already
    computed them so (``report.assemble``); each output value is a dot product of the
    same operands by the same kernel, whichever thread computes it."""
    @functools.wraps(fn)
    def limited(*args: Any, **kwargs: Any) -> Any:
        from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)
    return limited  # type: ignore[return-value]
