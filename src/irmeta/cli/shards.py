"""Options and the evaluation entry of commands that can evaluate in topic shards.

``--memory-budget`` / ``--shard-topics`` (stream shard by shard on this machine),
``--workers N`` (a Dask ``LocalCluster``) / ``--scheduler tcp://host:8786`` (an
existing cluster), ``--spill-dir``; a Parquet campaign folder (``irmeta convert``) in
place of QRELS and RUN files. ``docs/scaling.md`` explains when shards are used.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import click

from irmeta.cli.notes import note, quiet_progress
from irmeta.cli.options import constrained
from irmeta.constraints import COUNT


def _size(ctx, param, value):
    """``--memory-budget`` checked where it is read, named as the user wrote it."""
    if value is None:
        return None
    from irmeta.errors import ParameterError
    from irmeta.shards.plan import parse_size
    try:
        parse_size(value, "it")
    except ParameterError as exc:
        raise click.BadParameter(str(exc).removeprefix("it "), ctx, param) from None
    return value


def shard_options(fn):
    """Add the options of sharded evaluation."""
    options = [
        click.option("--memory-budget", default=None, metavar="SIZE", callback=_size,
                     help="Evaluate in topic shards when the campaign would need more "
                          "memory than this (bytes, or 512M, 4G, ...). Default: half the "
                          "available memory."),
        constrained("--shard-topics", constraint=COUNT, default=None,
                    help="Evaluate in shards of N topics (same numbers)."),
        constrained("--workers", constraint=COUNT, default=None,
                    help="Evaluate shards on a Dask LocalCluster of N processes "
                         "(needs irmeta[dask])."),
        click.option("--scheduler", default=None, metavar="ADDRESS",
                     help="Evaluate shards on the Dask cluster of this scheduler "
                          "(tcp://host:8786); inputs must be on storage its workers see."),
        click.option("--spill-dir", type=click.Path(file_okay=False), default=None,
                     help="Folder for the partitioned files of a sharded evaluation "
                          "(default: TMPDIR; shared storage for a remote cluster)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _plan(qrels, runs, options: dict):
    """The shard plan of a command's campaign, or None for the in-memory path."""
    from irmeta.shards.plan import is_parquet_campaign
    from irmeta.shards.route import sharded_plan

    workers, scheduler = options.get("workers"), options.get("scheduler")
    if workers and scheduler:
        raise click.UsageError("give --workers or --scheduler, not both")
    if options.get("demo"):
        given = [o for o, k in (("--shard-topics", "shard_topics"), ("--workers", "workers"),
                                ("--scheduler", "scheduler"), ("--memory-budget", "memory_budget"))
                 if options.get(k)]
        if given:
            raise click.UsageError(f"--demo is evaluated in memory (it is small): drop "
                                   f"{', '.join(given)}")
        return None
    if not qrels:
        return None
    parquet = not runs and is_parquet_campaign(qrels)
    if not (runs or parquet):
        return None
    return sharded_plan(qrels, None if parquet else list(runs), work_options(options),
                        force=bool(workers or scheduler))


def score_options(options: dict, ctx: dict, *, judged_only: bool = False,
                  collection_size: int = 0):
    """The :class:`~irmeta.options.ScoreOptions` of a command (``ctx``: groups, reference
    and prior runs as :func:`_context` reads them)."""
    from irmeta.options import ScoreOptions
    return ScoreOptions.checked("", complete=options.get("complete", False),
                                rel_level=options.get("rel_level", 1),
                                judged_only=judged_only, collection_size=collection_size,
                                groups=ctx["groups"], reference=ctx["reference"],
                                prior_runs=ctx["prior_runs"])


def work_options(options: dict, client=None, progress: bool | None = None,
                 warn_dropped: bool = True):
    """The :class:`~irmeta.options.WorkOptions` of a command's shard options."""
    from irmeta.options import WorkOptions
    return WorkOptions.checked("", memory_budget=options.get("memory_budget"),
                               shard_topics=options.get("shard_topics"), client=client,
                               spill_dir=options.get("spill_dir"),
                               progress=quiet_progress(progress), warn_dropped=warn_dropped)


def adhoc_and_subtopics(qrels, options: dict) -> tuple:
    """``(qrels, subtopic qrels)`` as :func:`irmeta.cli.common.load_cli_campaign` reads
    them: the subtopic file given as QRELS too means no ad hoc qrels (they are derived)."""
    from irmeta.cli.common import _same_file, refuse_unused_subtopics
    refuse_unused_subtopics(qrels, options)
    subtopics = options.get("subtopic_qrels")
    if subtopics is not None and qrels and _same_file(str(qrels), str(subtopics)):
        return None, subtopics
    return qrels, subtopics


def wants_shards(qrels, runs, options: dict) -> bool:
    """The user asked for shards (options, or a Parquet campaign folder)."""
    from irmeta.shards.plan import is_parquet_campaign
    return bool(options.get("shard_topics") or options.get("workers")
                or options.get("scheduler")
                or (qrels and not runs and is_parquet_campaign(qrels)))


def evaluate_cli(qrels, runs, measures, options: dict, *, judged_only: bool = False,
                 collection_size: int = 0):
    """The Results of ``irmeta eval``: in memory as always when the campaign fits, else
    (or with a Parquet campaign, ``--shard-topics``, ``--workers``, ``--scheduler``)
    shard by shard, with ``judged_only`` (-J) and ``collection_size`` (-N) either way."""
    from irmeta.cli.common import load_cli_campaign
    from irmeta.evaluation import evaluate_campaign

    plan = _plan(qrels, runs, options)
    if plan is None:
        campaign, ctx = load_cli_campaign(qrels, runs, options)
        return evaluate_campaign(campaign, measures,
                                 score_options(options, ctx, judged_only=judged_only,
                                               collection_size=collection_size))
    return _evaluate_planned(qrels, runs, measures, plan, options,
                             judged_only=judged_only, collection_size=collection_size)


def sharded_matrices(qrels, runs, measures, options: dict) -> dict | None:
    """``{measure string: systems x topics matrix}`` of a sharded evaluation, or None
    when the campaign is evaluated in memory (the caller's own path)."""
    from irmeta.errors import ParameterError

    plan = _plan(qrels, runs, options)
    if plan is None:
        return None
    if options.get("top_fraction"):
        raise click.UsageError("--top-fraction needs the campaign in memory; it is not "
                               "available with a sharded evaluation yet")
    results = _evaluate_planned(qrels, runs, measures, plan, options)
    if len(results.measures) != len(measures):
        raise ParameterError(f"each measure string must name one measure: {list(measures)!r}")
    return {m: results.matrix(i) for i, m in enumerate(measures)}


def _evaluate_planned(qrels, runs, measures, plan, options: dict, **evaluation):
    """``evaluation``: ``judged_only`` (-J) and ``collection_size`` (-N)."""
    workers, scheduler = options.get("workers"), options.get("scheduler")
    if not (workers or scheduler):
        return _sharded(qrels, runs, measures, plan, options, None, **evaluation)
    from irmeta.shards.dask import connect
    with connect(scheduler, workers) as client:
        return _sharded(qrels, runs, measures, plan, options, client, **evaluation)


def _sharded(qrels, runs, measures, plan, options: dict, client, **evaluation):
    from irmeta.cli.common import read_options
    from irmeta.evaluation import evaluate_in_shards

    ctx = _context(qrels, options, None)
    adhoc, subtopics = adhoc_and_subtopics(qrels, options)
    results = evaluate_in_shards(
        adhoc, list(runs) if runs else None, measures, plan,
        read_options(options, subtopics), score_options(options, ctx, **evaluation),
        work_options(options, client, warn_dropped=False))
    _note_dropped(results.campaign.dropped_topics)
    return results


def _note_dropped(dropped: dict) -> None:
    if dropped:
        note(f"irmeta: note: {sum(dropped.values())} run topic(s) absent from the qrels "
             f"were ignored ({len(dropped)} run(s))")


def _context(qrels, options: dict, runs) -> dict:
    """Groups, rarity reference campaign and prior runs of a sharded command (``runs``:
    the campaign's run names, to check the groups file and ``--prior-runs`` against, as
    :func:`irmeta.cli.common.load_cli_campaign` does; None: unchecked)."""
    from irmeta.cli.common import load_reference
    from irmeta.errors import CampaignError
    from irmeta.io.load import read_groups

    groups = None
    if options.get("groups_file"):
        groups = (read_groups(options["groups_file"]) if runs is None
                  else read_groups(options["groups_file"], runs))
    adhoc, subtopics = adhoc_and_subtopics(qrels, options)
    reference = load_reference(adhoc, subtopics, options)
    prior = None
    if options.get("prior_runs"):
        prior = tuple(p.strip() for p in options["prior_runs"].split(",") if p.strip())
        unknown = [p for p in prior if runs is not None and p not in runs]
        if unknown:
            raise CampaignError(f"--prior-runs names unknown run(s): {', '.join(unknown)}")
    return {"groups": groups, "reference": reference, "prior_runs": prior}


@contextlib.contextmanager
def open_cli_shards(qrels, runs, options: dict,
                    progress: bool | None = None) -> Iterator[tuple | None]:
    """``(sharded campaign, ctx)`` of ``irmeta report`` / ``irmeta explain`` when the
    campaign is sharded (it exceeds the memory budget, or ``--shard-topics``,
    ``--workers``, ``--scheduler`` or a Parquet campaign folder was given), with ``ctx``
    as :func:`irmeta.cli.common.load_cli_campaign` returns it; None: the caller loads the
    campaign in memory, as always. Open for the ``with`` block (the spill files and the
    Dask cluster are released on exit). ``progress``: the bar over shards (None: on a
    terminal; ``irmeta report --progress/--no-progress``)."""
    from irmeta.cli.common import read_options
    from irmeta.data.checks import require_common_topics
    from irmeta.shards.local import open_sharded

    plan = _plan(qrels, runs, options)
    if plan is None:
        yield None
        return
    workers, scheduler = options.get("workers"), options.get("scheduler")
    with contextlib.ExitStack() as stack:
        client = None
        if workers or scheduler:
            from irmeta.shards.dask import connect
            client = stack.enter_context(connect(scheduler, workers))
        adhoc, subtopics = adhoc_and_subtopics(qrels, options)
        sharded = stack.enter_context(open_sharded(
            adhoc, list(runs) if runs else None, plan=plan,
            read=read_options(options, subtopics),
            work=work_options(options, client, progress)))
        summary = sharded.summary()
        if not options.get("complete"):
            require_common_topics(summary, "")
        _note_dropped(summary.dropped_topics)
        ctx = _context(qrels, options, sharded.runs)
        ctx.update(qrels=qrels, runs=list(runs or ()))
        yield sharded, ctx
