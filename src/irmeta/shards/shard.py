"""One shard's evaluation: topics ``[t0, t1)`` of a Parquet campaign, every measure.

:func:`evaluate_shard` is a pure function of plain data (:class:`ShardTask`: the
campaign's folder, the topic range, measure names, the context) and returns plain data
(:class:`ShardResult`), so the same function runs in this process or as a Dask task on
a worker that reads the folder from shared storage. Nothing of a campaign is shipped:
each task reads the row groups of its topics.

Measures are sent by their canonical names and parsed again in the task (a parsed
measure holds its kernel, which need not pickle); the driver checks that the names
parse back to the same measures.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from irmeta.data.subtopics import subtopic_table
from irmeta.errors import IrmetaError
from irmeta.measures.parse import parse_measures
from irmeta.measures.spec import EvalContext, Measure
from irmeta.options import ReadOptions, ScoreOptions
from irmeta.shards.parquet import build_shard, open_campaign


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to evaluate one shard (plain, picklable data).

    ``read`` and ``score``: the evaluation's :class:`~irmeta.options.ReadOptions` and
    :class:`~irmeta.options.ScoreOptions`, whole (without the diversity judgments and
    the rarity reference campaign, which are the same for every shard and travel as
    separate arguments of :func:`evaluate_shard`: Dask scatters them once).
    ``campaign_means``: ``{base measure name: [R] means over the whole campaign topic
    set}`` for best-per-group priors (second pass); ``bases``: the NRG measures (no
    prior) whose gathered values give those means (first pass), computed with an empty
    prior set as :func:`irmeta.measures.nrg.campaign_means` does."""

    dataset: str
    t0: int
    t1: int
    measures: tuple[str, ...]
    read: ReadOptions = field(default_factory=ReadOptions)
    score: ScoreOptions = field(default_factory=ScoreOptions)
    campaign_means: Mapping[str, np.ndarray] | None = None
    bases: tuple[str, ...] = ()
    #: the distinct qrels grades of the whole campaign (``Campaign.grade_levels``)
    grade_levels: tuple[int, ...] | None = None
    #: a per-shard hook ``extra(campaign, extra_args, reference) -> piece`` run on the
    #: shard's campaign after the measures (a module-level function, so that it pickles
    #: by name): what a caller needs of a shard beyond per-topic values (the report's
    #: per-document tables, ``explain``'s rows); its piece comes back in
    #: :attr:`ShardResult.extra`. With ``score.judged_only`` (trec_eval -J) the measures
    #: read the rankings without their unjudged documents; the hook and the returned
    #: lengths still see the whole rankings.
    extra: Callable[[Any, Any, Any], Any] | None = None
    extra_args: Any = None


@dataclass
class ShardResult:
    """Per-topic values ``[R, M, t1 - t0]`` and ranking lengths ``[R, t1 - t0]``;
    ``texts``: ``{measure position: runs x topics strings}`` of the text measures
    (trec_eval ``relstring``), whose values are NaN."""

    t0: int
    t1: int
    values: np.ndarray
    length: np.ndarray
    extra: Any = None
    texts: dict[int, list[list[str]]] = field(default_factory=dict)


def parse_names(names) -> list[Measure]:
    """One measure per canonical name, repeats kept (``map`` and ``AP`` are two columns)."""
    return [parse_measures([name])[0] for name in names]


def compute_values(campaign, measures: list[Measure], ctx: EvalContext) -> np.ndarray:
    """Kernel values ``[R, M, T]`` of parsed measures on a campaign (the loop of
    :func:`irmeta.evaluation.compute`, which this layer does not import): a measure with
    ``judged_only=true`` (ir_measures' parameter) reads the campaign's judged documents
    only, as trec_eval ``-J`` would."""
    out = np.empty((campaign.num_runs, len(measures), campaign.num_topics))
    judged = None
    for j, m in enumerate(measures):
        source = campaign
        if m.get("judged_only"):
            judged = campaign.judged_only() if judged is None else judged
            source = judged
        out[:, j] = m.definition.kernel(source, m, ctx)
    return out


def shard_campaign(dataset, t0: int, t1: int, read: ReadOptions | None = None, *,
                   grade_levels=None, subtopics=None):
    """The :class:`~irmeta.data.campaign.Campaign` of topics ``[t0, t1)`` of a Parquet
    campaign (a folder or an opened :class:`~irmeta.shards.parquet.ParquetCampaign`),
    read with ``read`` (:class:`~irmeta.options.ReadOptions`), given the whole
    campaign's ``grade_levels`` (so that no value depends on which topics the shard
    holds; every campaign derived from it keeps them). ``subtopics``: the campaign's
    :class:`~irmeta.data.subtopics.SubtopicQrels` (diversity judgments, small: read once
    by the driver), laid out for the shard's topics as :func:`irmeta.load_campaign` lays
    them out for all of them."""
    if isinstance(dataset, str):
        dataset = open_campaign(dataset)
    campaign = build_shard(dataset, t0, t1, read)
    if subtopics is not None:
        campaign = replace(campaign, subtopics=subtopic_table(subtopics, campaign.topics))
    if grade_levels is not None:   # the whole campaign's, not this shard's
        campaign = campaign.with_grade_levels(grade_levels)
    return campaign


def evaluate_shard(task: ShardTask, reference=None, subtopics=None) -> ShardResult:
    """Build the shard's campaign from the Parquet campaign and evaluate every measure
    (``reference``: the rarity reference :class:`~irmeta.data.campaign.Campaign`, whose
    topics are matched by name, so the whole reference serves every shard;
    ``subtopics``: the diversity judgments, see :func:`shard_campaign`; Dask scatters
    both once), then run the task's ``extra`` hook on the same campaign."""
    campaign = shard_campaign(task.dataset, task.t0, task.t1, task.read,
                              grade_levels=task.grade_levels, subtopics=subtopics)
    ms = parse_names(task.measures)
    score = task.score
    ctx = EvalContext(rel_level=score.rel_level, groups=score.groups,
                      reference=reference, prior_runs=score.prior_runs,
                      campaign_means=task.campaign_means,
                      collection_size=score.collection_size)
    # -J: as irmeta.evaluate, the measures read the judged documents only
    measured = campaign.judged_only() if score.judged_only else campaign
    values = compute_values(measured, ms, ctx)
    texts = {j: m.definition.text(measured, m, ctx) for j, m in enumerate(ms)
             if m.definition.text is not None}
    if task.bases:
        none = EvalContext(rel_level=score.rel_level, prior_runs=(), cache=ctx.cache,
                           collection_size=score.collection_size)
        values = np.concatenate([values, compute_values(measured, parse_names(task.bases),
                                                        none)], axis=1)
    extra = None if task.extra is None else task.extra(campaign, task.extra_args, reference)
    return ShardResult(task.t0, task.t1, values, campaign.length.copy(), extra, texts)


def _portable_name(m: Measure) -> str:
    """A name that parses back to ``m`` alone: the canonical name, or — when that name is
    also a trec_eval spelling with another meaning (``P`` is P_5 ... P_1000, bare
    ``Rprec_mult`` ten measures) — the same name in irmeta syntax, ``Family()...``."""
    name = m.name
    if parse_names([name]) == [m]:
        return name
    family = m.definition.name
    if name.startswith(family) and not name[len(family):].startswith("("):
        return family + "()" + name[len(family):]
    return name


def measure_names(ms: list[Measure]) -> tuple[str, ...]:
    """Names that parse back to exactly ``ms`` (what a task is sent)."""
    names = tuple(_portable_name(m) for m in ms)
    if parse_names(names) != ms:  # pragma: no cover - a parser round-trip bug
        raise IrmetaError(f"internal error: measure names do not parse back: {names}")
    return names
