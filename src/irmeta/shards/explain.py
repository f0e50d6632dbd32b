"""``explain`` on a campaign larger than memory: the rows of the topics asked for.

Every explanation of :mod:`irmeta.explain` is a function of one topic's rankings
across the runs (a document's ``S_d``, its rarity, whether it is unique, its NRG prior
product), so on a :class:`~irmeta.shards.local.ShardedCampaign`:

* one run on one topic (``explain_documents(..., topic=T)``) builds the campaign of
  that topic alone, in this process;
* one run on every topic, and the unique contributions, run a hook on every shard
  (a Dask task each on a cluster) and join the per-topic rows in topic order;
* ``NRG(prior=best_per_group)`` first gathers its base metric's means over the whole
  campaign (the first pass of a sharded evaluation) and gives them to every shard
  (:attr:`~irmeta.measures.spec.EvalContext.campaign_means`), as
  :func:`~irmeta.shards.local.evaluate_sharded` does.

The rows are those of the campaign in memory, computed by the same functions
(``tests/shards/test_report_explain.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable, Mapping

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import CampaignError
from irmeta.explain import (
    DOC_COLUMNS,
    _check_k,
    _context,
    _nrg_measure,
    contributions_frame,
    document_frames,
    unique_counts,
    unique_documents,
)
from irmeta.options import ScoreOptions
from irmeta.shards.shard import measure_names


@dataclass(frozen=True)
class _DocumentArgs:
    """What a shard needs to explain one run's documents (plain data)."""

    run: str
    k: int | None
    depth: int | None
    rel_level: int
    nrg: str | None                    # the NRG measure's portable name
    relevant_only: bool
    groups: Mapping[str, str] | None
    prior_runs: tuple[str, ...] | None
    campaign_means: Mapping[str, np.ndarray] | None


def _documents_of(campaign, args: _DocumentArgs, reference,
                  topics=None) -> list[pd.DataFrame]:
    """The per-topic frames of ``args.run`` on ``campaign`` (every topic it retrieved
    for, or ``topics``): the hook run on each shard."""
    ctx = replace(_context(args.rel_level, args.groups, reference, args.prior_runs),
                  campaign_means=args.campaign_means)
    r = campaign.run_index(args.run)
    if topics is None:
        topics = np.flatnonzero(campaign.length[r] > 0)
    m = _nrg_measure(args.nrg, args.k)
    return document_frames(campaign, r, topics, args.k, args.depth, m, ctx,
                           args.relevant_only)


def explain_documents_sharded(sharded: Any, run: str, topic: str | None = None,
                              *, k: int | None = 100, depth: int | None = None,
                              rel_level: int = 1, nrg="NRG", relevant_only: bool = True,
                              groups: Mapping[str, str] | None = None, reference=None,
                              prior_runs: Iterable[str] | None = None) -> pd.DataFrame:
    """:func:`irmeta.explain.explain_documents` on a sharded campaign (same arguments,
    same rows; see the module doc)."""
    fn = "explain_documents"
    relevant_only = validate.flag(relevant_only, "relevant_only", fn)
    k = _check_k(fn, "k", k)
    depth = _check_k(fn, "depth", depth) or k
    ctx = _context(rel_level, groups, reference, prior_runs)
    if run not in sharded.runs:
        raise CampaignError(f"no run named {run!r} in the campaign "
                            f"(runs: {', '.join(sharded.runs[:10])}"
                            f"{', ...' if len(sharded.runs) > 10 else ''})")
    m = _nrg_measure(nrg, k)
    means = None
    if m is not None:
        score = ScoreOptions(rel_level=ctx.rel_level, groups=ctx.groups, reference=reference,
                             prior_runs=ctx.prior_runs)
        means = sharded.campaign_means([m], score) or None
    args = _DocumentArgs(run, k, depth, ctx.rel_level,
                         None if m is None else measure_names([m])[0], relevant_only,
                         ctx.groups, ctx.prior_runs, means)
    if topic is not None:
        try:
            t = sharded.topics.index(str(topic))
        except ValueError:
            raise CampaignError(f"no topic {topic!r} in the qrels") from None
        frames = _documents_of(sharded.campaign(t, t + 1), args, reference, topics=[0])
    else:
        frames = [f for part in sharded.map(_documents_of, args, reference=reference)
                  for f in part]
    if not frames:
        return pd.DataFrame(columns=DOC_COLUMNS)
    return pd.concat(frames, ignore_index=True)[DOC_COLUMNS]


@dataclass(frozen=True)
class _UniqueArgs:
    k: int
    rel_level: int


def _unique_counts_of(campaign, args: _UniqueArgs, reference):
    return unique_counts(campaign, args.k, rel_level=args.rel_level, reference=reference,
                         func="unique_contributions")


def _unique_documents_of(campaign, args: _UniqueArgs, reference) -> pd.DataFrame:
    return unique_documents(campaign, args.k, rel_level=args.rel_level, reference=reference)


def _unique_args(fn: str, k, rel_level, reference) -> _UniqueArgs:
    k = validate.integer(k, "k", fn, low=1)
    ctx = _context(rel_level, None, reference, None)    # checks rel_level and reference
    return _UniqueArgs(int(k), ctx.rel_level)


def unique_contributions_sharded(sharded: Any, k: int = 100, *,
                                 rel_level: int = 1, reference=None,
                                 per_topic: bool = False) -> pd.DataFrame:
    """:func:`irmeta.explain.unique_contributions` on a sharded campaign: every shard's
    ``[R, T_k]`` counts, joined in topic order (same frame)."""
    args = _unique_args("unique_contributions", k, rel_level, reference)
    per_topic = validate.flag(per_topic, "per_topic", "unique_contributions")
    parts = sharded.map(_unique_counts_of, args, reference=reference)
    unique = np.concatenate([p[0] for p in parts], axis=1)
    found = np.concatenate([p[1] for p in parts], axis=1)
    return contributions_frame(sharded.runs, sharded.topics, unique, found, per_topic)


def unique_documents_sharded(sharded: Any, k: int = 100, *, rel_level: int = 1,
                             reference=None) -> pd.DataFrame:
    """:func:`irmeta.explain.unique_documents` on a sharded campaign (same rows, in the
    same order: by run, topic and rank)."""
    args = _unique_args("unique_documents", k, rel_level, reference)
    return by_run(sharded.map(_unique_documents_of, args, reference=reference), sharded.runs)


def by_run(frames: list[pd.DataFrame], runs) -> pd.DataFrame:
    """Shards' tables, each ordered by run then topic, as one table ordered by run then
    topic: concatenated in shard (topic) order and stably sorted by run."""
    kept = [f for f in frames if len(f)] or frames[:1]   # no all-empty concatenation
    frame = pd.concat(kept, ignore_index=True) if len(kept) > 1 else kept[0]
    position = {r: i for i, r in enumerate(runs)}
    order = np.argsort(frame["run"].map(position).to_numpy(dtype=np.int64), kind="stable")
    return frame.iloc[order].reset_index(drop=True)
