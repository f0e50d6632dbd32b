"""The sharded evaluation driver: plan, partition, evaluate shard by shard, gather.

:func:`evaluate_sharded` is what :func:`irmeta.evaluate` calls when a campaign read from
files would exceed the memory budget, when ``shard_topics`` or a Dask ``client`` is
given, or when the input is a Parquet campaign:

1. TREC files are partitioned into a Parquet campaign in a spill folder (a temporary
   folder, deleted at the end; :mod:`irmeta.shards.partition`), blocks of exactly one
   shard each; a Parquet campaign is read in place;
2. every shard — consecutive topics — is one :class:`~irmeta.shards.shard.ShardTask`,
   run here one after another (peak memory: one shard) or as Dask tasks;
3. ``prior=best_per_group`` (NRG, TaSC) ranks runs by their base metric's mean over the
   whole campaign topic set, which no shard sees: the first pass computes the base
   metric with the other measures, the gathered matrix gives the means, and a second
   pass computes the best-per-group measures with those means
   (:attr:`~irmeta.measures.spec.EvalContext.campaign_means`);
4. the shards' ``[R, M, T_k]`` values are concatenated in topic order, and the
   :class:`~irmeta.shards.summary.CampaignSummary` stands in for the campaign.

Each topic's value is computed from exactly the rows an in-memory evaluation would use,
by the same kernels, so the values are bit-identical (``tests/shards``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from irmeta.errors import warn
from irmeta.io.output import remove_tree
from irmeta.measures.kernel import relevance_level
from irmeta.measures.nrg import topic_set_means
from irmeta.measures.parse import parse_measures
from irmeta.measures.spec import EvalContext, Measure
from irmeta.options import ReadOptions, ScoreOptions, WorkOptions
from irmeta.shards import plan as planning
from irmeta.shards.parquet import (
    ParquetCampaign,
    apply_read_options,
    open_campaign,
    ranking_lengths,
    read_judgments,
)
from irmeta.shards.shard import ShardTask, evaluate_shard, measure_names, shard_campaign
from irmeta.shards.spill import convert_into, make_spill_dir
from irmeta.shards.summary import CampaignSummary, JudgedSummary


@dataclass
class ShardedValues:
    """What the driver hands to :class:`~irmeta.evaluation.Results` (and ``extras``: the
    pieces of a per-shard hook, in shard order)."""

    summary: CampaignSummary
    measures: list[Measure]
    values: np.ndarray         # float64 [R, M, T]
    extras: list = field(default_factory=list)
    #: ``{measure position: runs x topics strings}`` of the text measures (relstring)
    texts: dict[int, list[list[str]]] = field(default_factory=dict)


def _prior_base(m: Measure) -> Measure | None:
    """The NRG base whose campaign means rank the runs of a best-per-group measure."""
    if m.get("prior") != "best_per_group":
        return None
    from irmeta.measures.nrg import ranking_measure
    if m.family == "NRG":
        return ranking_measure(m)
    if m.family == "TaSC":
        from irmeta.measures.tasc import _nrg_twin  # TaSC's own choice of base
        return ranking_measure(_nrg_twin(m))
    return None


def _shards(num_topics: int, size: int) -> list[tuple[int, int]]:
    return [(t0, min(num_topics, t0 + size)) for t0 in range(0, num_topics, size)]


def local_map(fn: Callable, tasks: list, progress=None, **shared) -> list:
    """``[fn(task, **shared) for task in tasks]`` in this process, with a progress bar
    over shards on a terminal (``progress=None``), always (True) or never (False)."""
    from tqdm.auto import tqdm
    disable = None if progress is None else not progress
    out = []
    with tqdm(total=len(tasks), desc="shards", unit="shard", disable=disable,
              leave=False) as bar:
        for task in tasks:
            out.append(fn(task, **shared))
            bar.update(1)
    return out


def evaluate_sharded(qrels, runs, measures, *, plan: planning.ShardPlan,
                     read: ReadOptions | None = None, score: ScoreOptions | None = None,
                     work: WorkOptions | None = None) -> ShardedValues:
    """Evaluate ``measures`` shard by shard (see module doc) with the options objects
    of :mod:`irmeta.options` (built and checked by :func:`irmeta.evaluate`).
    ``qrels`` is a Parquet campaign folder when ``runs`` is None. ``work.spill_dir``:
    where the partitioned files go (default ``TMPDIR``; with a Dask cluster on several
    machines, a folder every worker can read)."""
    ms = parse_measures(measures)
    work = work or WorkOptions()
    with open_sharded(qrels, runs, plan=plan, read=read, work=work) as sharded:
        return sharded.evaluate(ms, score, warn_dropped=work.warn_dropped)


@contextlib.contextmanager
def open_sharded(qrels, runs, *, plan: planning.ShardPlan, read: ReadOptions | None = None,
                 work: WorkOptions | None = None) -> Iterator[ShardedCampaign]:
    """A :class:`ShardedCampaign` open for the duration of the ``with`` block: TREC files
    partitioned into a spill folder (deleted on exit), or a Parquet campaign read in
    place (``runs`` None); ``read`` and ``work`` as :func:`evaluate_sharded`. What the
    report and ``explain`` use: several passes over the same shards, and the campaign of
    a few topics built on demand.

    ``read.subtopic_qrels`` (path, DataFrame or SubtopicQrels): diversity judgments,
    read here once (they are small) and given to every shard. Without ``qrels`` (None),
    the qrels are derived from them as :func:`irmeta.load_campaign` derives them."""
    read = read or ReadOptions()
    work = work or WorkOptions()
    workers = 1
    mapper = local_map
    client = work.client
    if client is not None:
        from irmeta.shards import dask as dask_engine
        workers = dask_engine.worker_count(client)
        mapper = dask_engine.client_map(client)
    spill = None
    subtopics = None
    if read.subtopic_qrels is not None:
        from irmeta.io.subtopics import load_subtopic_qrels
        subtopics = load_subtopic_qrels(read.subtopic_qrels)
        if qrels is None:
            qrels = subtopics.to_qrels()
    try:
        if runs is None:
            dataset = apply_read_options(open_campaign(qrels), read)
        else:
            spill = make_spill_dir(work.spill_dir)   # OutputError naming the folder
            dataset = convert_into(qrels,
                                   list(runs) if isinstance(runs, (list, tuple)) else [runs],
                                   spill, names=read.names, float32=read.float32,
                                   split_tags=read.split_tags, spill=True,
                                   block_topics=lambda T: planning.topics_per_shard(plan, T,
                                                                                     workers),
                                   mapper=None if client is None else
                                   (lambda fn, tasks: mapper(fn, tasks, progress=False)))
        size = planning.topics_per_shard(plan, len(dataset.topics), workers)
        yield ShardedCampaign(dataset, size, mapper, read, progress=work.progress,
                              subtopics=subtopics)
    finally:
        if spill is not None:
            remove_tree(spill)   # also under a small ulimit -n


class ShardedCampaign:
    """A campaign evaluated shard by shard: the Parquet campaign (a converted one, or the
    spill folder of TREC files), its shards of ``size`` consecutive topics, the engine
    that runs them (``mapper``: this process, or Dask) and the
    :class:`~irmeta.options.ReadOptions` that shape how a shard is read. Opened by
    :func:`open_sharded` (and :func:`irmeta.open_shards`); valid only inside that
    ``with`` block.

    Stands in for a :class:`~irmeta.data.campaign.Campaign` where the library knows how
    to work shard by shard: :func:`irmeta.report.analyse_campaign` /
    :func:`~irmeta.report.campaign_report` and :mod:`irmeta.explain`'s functions."""

    #: what :mod:`irmeta.explain` recognises a sharded campaign by
    sharded = True

    def __init__(self, dataset: ParquetCampaign, size: int, mapper,
                 read: ReadOptions | None = None, *, progress=None, subtopics=None):
        self.dataset = dataset
        #: the diversity judgments (SubtopicQrels) every shard's campaign gets, or None
        self.subtopics = subtopics
        self.size = max(1, int(size))
        self.mapper = mapper
        #: how a shard is read; the diversity judgments travel apart (``subtopics``)
        self.read = replace(read or ReadOptions(), subtopic_qrels=None)
        self.progress = progress
        T = len(dataset.topics)
        self.judged = JudgedSummary(*read_judgments(dataset), num_topics=T)
        self.grade_levels = tuple(int(g) for g in np.unique(self.judged.grades))
        self._lengths: np.ndarray | None = None

    @property
    def max_docs(self) -> int | None:
        return self.read.max_docs

    @property
    def runs(self) -> tuple[str, ...]:
        return self.dataset.names

    @property
    def topics(self) -> tuple[str, ...]:
        return self.dataset.topics

    @property
    def shards(self) -> list[tuple[int, int]]:
        """The topic ranges ``[t0, t1)`` of the shards, in topic order."""
        return _shards(len(self.dataset.topics), self.size)

    def _task(self, t0: int, t1: int, measures=(), score: ScoreOptions | None = None,
              **more) -> ShardTask:
        """The task of shard ``[t0, t1)``: the options whole (without the reference
        campaign, which :meth:`shared` sends once)."""
        score = replace(score or ScoreOptions(), reference=None)
        return ShardTask(self.dataset.path, t0, t1, tuple(measures), read=self.read,
                         score=score, grade_levels=self.grade_levels, **more)

    def summary(self, length: np.ndarray | None = None) -> CampaignSummary:
        """The :class:`CampaignSummary` (``length``: the ranking lengths; default
        :meth:`lengths`, read without evaluating a shard)."""
        d = self.dataset
        return CampaignSummary(d.names, d.topics, self.lengths() if length is None else length,
                               self.judged, self.max_docs, tuple(r.source for r in d.runs),
                               {r.name: r.dropped for r in d.runs if r.dropped},
                               shards=len(self.shards), tags=tuple(r.tag for r in d.runs))

    def qrels_text_sha256(self) -> str:
        """The SHA-256 of the qrels' canonical TREC text
        (:func:`irmeta.io.digest.qrels_text_sha256`), read from the Parquet qrels: the
        digest the in-memory campaign of the same judgments gives."""
        from irmeta.io.digest import qrels_text_sha256
        from irmeta.shards.parquet import judgment_rows
        return qrels_text_sha256(*judgment_rows(self.dataset), self.dataset.topics)

    def lengths(self) -> np.ndarray:
        """int32 ``[R, T]`` ranking lengths, from the ``topic`` columns alone
        (:func:`~irmeta.shards.parquet.ranking_lengths`; read once)."""
        if self._lengths is None:
            self._lengths = ranking_lengths(self.dataset, max_docs=self.read.max_docs,
                                            dedupe=self.read.dedupe)
        return self._lengths

    def campaign(self, t0: int, t1: int):
        """The in-memory :class:`~irmeta.data.campaign.Campaign` of topics ``[t0, t1)``
        (every run), built in this process."""
        return shard_campaign(self.dataset, t0, t1, self.read,
                              grade_levels=self.grade_levels, subtopics=self.subtopics)

    def evaluate(self, ms: list[Measure], score: ScoreOptions | None = None, *,
                 warn_dropped: bool = True, extra=None, extra_args=None,
                 **changes) -> ShardedValues:
        """Every measure of ``ms`` on every shard, gathered (two passes for best-per-group
        priors), scored with ``score`` (:class:`~irmeta.options.ScoreOptions`; ``changes``:
        fields of it to replace, e.g. ``rel_level=2``); ``extra(campaign, extra_args,
        reference)`` runs on each shard's campaign in the first pass and its pieces come
        back in :attr:`ShardedValues.extras`, in shard order."""
        score = _score(score, changes)
        return _evaluate_dataset(self, ms, score, warn_dropped=warn_dropped, extra=extra,
                                 extra_args=extra_args)

    def map(self, fn: Callable, args=None, *, reference=None) -> list:
        """``[fn(campaign, args, reference) for each shard's campaign]``, in shard order,
        on the engine (a Dask task per shard); ``fn`` must be a module-level function."""
        tasks = [self._task(t0, t1, extra=fn, extra_args=args) for t0, t1 in self.shards]
        return [res.extra for res in self.mapper(evaluate_shard, tasks, progress=self.progress,
                                                 **self.shared(reference))]

    def shared(self, reference=None) -> dict:
        """What every shard task takes besides its :class:`ShardTask` (Dask scatters it
        once): the rarity reference campaign and the diversity judgments, when given."""
        shared = {} if reference is None else {"reference": reference}
        if self.subtopics is not None:
            shared["subtopics"] = self.subtopics
        return shared

    def explain_documents(self, run: str, topic: str | None = None, **kwargs):
        """:func:`irmeta.explain.explain_documents` shard by shard."""
        from irmeta.shards.explain import explain_documents_sharded
        return explain_documents_sharded(self, run, topic, **kwargs)

    def unique_contributions(self, k: int = 100, **kwargs):
        """:func:`irmeta.explain.unique_contributions` shard by shard."""
        from irmeta.shards.explain import unique_contributions_sharded
        return unique_contributions_sharded(self, k, **kwargs)

    def unique_documents(self, k: int = 100, **kwargs):
        """:func:`irmeta.explain.unique_documents` shard by shard."""
        from irmeta.shards.explain import unique_documents_sharded
        return unique_documents_sharded(self, k, **kwargs)

    def campaign_means(self, ms: list[Measure], score: ScoreOptions | None = None,
                       **changes) -> dict[str, np.ndarray]:
        """``{base name: [R] means}`` that the best-per-group measures of ``ms`` rank runs
        by (the first pass of :meth:`evaluate`); empty when none has such a prior.
        ``score`` and ``changes`` as :meth:`evaluate`."""
        score = _score(score, changes)
        bases = _bases(ms)
        if not bases:
            return {}
        length = np.zeros((len(self.runs), len(self.topics)), dtype=np.int32)
        gathered, _ = _run_pass(self, [], list(bases.values()), score, length)
        return _means(gathered, bases, 0, self.summary(length), score.rel_level)


def _score(score: ScoreOptions | None, changes: dict) -> ScoreOptions:
    """``score`` (default: the defaults) with ``changes`` replaced (checked again)."""
    score = score or ScoreOptions()
    return replace(score, **changes) if changes else score


def _bases(ms: list[Measure]) -> dict[str, Measure]:
    bases = {}
    for m in ms:
        base = _prior_base(m)
        if base is not None:
            bases[base.name] = base
    return bases


def _means(gathered: np.ndarray, bases: dict, offset: int, summary: CampaignSummary,
           rel_level: int) -> dict[str, np.ndarray]:
    ctx = EvalContext(rel_level=rel_level)
    return {name: topic_set_means(gathered[:, offset + k],
                                  summary.topic_set(relevance_level(base, ctx)))
            for k, (name, base) in enumerate(bases.items())}


def _evaluate_dataset(sharded: ShardedCampaign, ms: list[Measure], score: ScoreOptions, *,
                      warn_dropped: bool, extra=None, extra_args=None) -> ShardedValues:
    dataset = sharded.dataset
    T, R = len(dataset.topics), len(dataset.runs)
    bases = _bases(ms)
    first = [m for m in ms if _prior_base(m) is None]
    second = [m for m in ms if _prior_base(m) is not None]
    values = np.empty((R, len(ms), T))
    length = np.zeros((R, T), dtype=np.int32)
    summary = sharded.summary(length)
    extras: list = []
    gathered, texts = _run_pass(sharded, first, list(bases.values()), score, length,
                                extra=extra, extra_args=extra_args, extras=extras)
    position = {id(m): j for j, m in enumerate(ms)}
    for j, m in enumerate(first):
        values[:, position[id(m)]] = gathered[:, j]
    if second:
        means = _means(gathered, bases, len(first), summary, score.rel_level)
        again, _ = _run_pass(sharded, second, [], score, None, campaign_means=means)
        for j, m in enumerate(second):
            values[:, position[id(m)]] = again[:, j]
    if warn_dropped and summary.dropped_topics:
        total = sum(summary.dropped_topics.values())
        warn(f"{total} topic(s) of {len(summary.dropped_topics)} run(s) are not in "
             "the qrels and were ignored")
    return ShardedValues(summary, ms, values, extras,
                         {position[id(first[j])]: rows for j, rows in texts.items()})


def _run_pass(sharded: ShardedCampaign, measures, bases, score: ScoreOptions, length, *,
              extra=None, extra_args=None, extras: list | None = None,
              campaign_means=None) -> tuple[np.ndarray, dict[int, list[list[str]]]]:
    """One pass over the shards -> gathered values [R, M + B, T] of the measures and the
    best-per-group bases (and the ranking lengths, when ``length`` is given; the
    ``extra`` hook's pieces appended to ``extras``, in shard order), and the text
    measures' strings ``{position in measures: runs x topics}``, topics joined in order."""
    dataset = sharded.dataset
    names, base_names = measure_names(measures), measure_names(bases)
    tasks = [sharded._task(t0, t1, names, score, bases=base_names, extra=extra,
                           extra_args=extra_args, campaign_means=campaign_means)
             for t0, t1 in sharded.shards]
    out = np.empty((len(dataset.runs), len(names) + len(base_names), len(dataset.topics)))
    texts: dict[int, list[list[str]]] = {}
    for res in sharded.mapper(evaluate_shard, tasks, progress=sharded.progress,
                              **sharded.shared(score.reference)):
        out[:, :, res.t0:res.t1] = res.values
        for j, rows in res.texts.items():   # shards come back in topic order
            gathered = texts.setdefault(j, [[] for _ in dataset.runs])
            for r, row in enumerate(rows):
                gathered[r].extend(row)
        if length is not None:
            length[:, res.t0:res.t1] = res.length
        if extras is not None and extra is not None:
            extras.append(res.extra)
    return out, texts
