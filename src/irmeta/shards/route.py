"""In memory or in shards: the choice an evaluation makes before it reads anything.

A module of its own so that an evaluation in memory imports nothing of the sharded
machinery (:mod:`irmeta.shards.local`, the Parquet reader and writer): about 30 ms of
start-up on every ``irmeta eval`` (issue 27, ``docs/performance.md``).
"""

from __future__ import annotations

import os

from irmeta.errors import ParameterError
from irmeta.options import WorkOptions
from irmeta.shards.plan import ShardPlan, is_parquet_campaign, plan


def run_paths(runs: object) -> list | None:
    """The run inputs as a list of paths, or None when one is not a path (an ``irds:``
    id is a dataset's scoreddocs, read in memory: docs/ecosystem.md)."""
    from irmeta.io.ecosystem import is_irds
    items = list(runs) if isinstance(runs, (list, tuple)) else [runs]
    if items and all(isinstance(i, (str, os.PathLike)) and not is_irds(i) for i in items):
        return items
    return None


def sharded_plan(qrels: object, runs: object, work: WorkOptions | None = None, *,
                 force: bool = False, subtopic_qrels: object = None) -> ShardPlan | None:
    """The shard plan of an evaluation, or None for today's in-memory path (the inputs
    are not files, or they fit in ``work.memory_budget`` and nothing asks for shards).
    Reads no file: file sizes only. Without ``qrels``, a subtopic qrels file stands in
    for them (the qrels are derived from it). A module of its own, not :mod:`irmeta.shards.local`,
    so that an evaluation in memory never imports the sharded machinery (Parquet
    included: ~30 ms of start-up, issue 27)."""
    work = work or WorkOptions()
    no_runs = runs is None or (isinstance(runs, (list, tuple)) and not runs)
    if not no_runs and qrels is not None and is_parquet_campaign(qrels):
        raise ParameterError(f"{qrels}: a Parquet campaign folder (irmeta convert) holds its "
                             "own runs: give it alone, without run files")
    parquet = runs is None and qrels is not None and is_parquet_campaign(qrels)
    forced = force or work.asks_for_shards or parquet
    paths = None if parquet else run_paths(runs) if runs is not None else None
    topic_axis = qrels if qrels is not None else subtopic_qrels
    if not parquet and (paths is None or not isinstance(topic_axis, (str, os.PathLike))):
        if forced:
            raise ParameterError("evaluate: sharded evaluation (shard_topics=, client=) reads "
                                 "files: give qrels and runs as paths, or a Parquet campaign "
                                 "folder (irmeta convert)")
        return None
    result = plan(paths or [], work.memory_budget, work.shard_topics, force=forced)
    return result if result.sharded else None
