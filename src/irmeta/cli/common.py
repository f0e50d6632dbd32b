"""Options and helpers shared by the subcommands that read a campaign."""

from __future__ import annotations

import contextlib
import os
import sys

import click

from irmeta.cli.notes import note
from irmeta.cli.options import constrained
from irmeta.constraints import DEPTH, REL_LEVEL
from irmeta.errors import CampaignError


def campaign_options(fn):
    """Add the options every campaign-reading subcommand understands."""
    options = [
        click.option("--demo", is_flag=True,
                     help="Use the simulated demo campaign shipped with irmeta "
                          "(no QRELS/RUN arguments)."),
        click.option("-c", "--complete", is_flag=True,
                     help="Score every qrels topic; a topic missing from a run counts as an "
                          "empty ranking (trec_eval -c)."),
        constrained("-l", "--rel-level", constraint=REL_LEVEL, default=1, show_default=True,
                    help="Minimum grade counted as relevant by binary measures "
                         "(trec_eval -l)."),
        constrained("-M", "--max-docs", constraint=DEPTH, default=None,
                    help="Keep only the top M documents of each ranking (trec_eval -M)."),
        click.option("--float32", is_flag=True,
                     help="Read scores as 32-bit floats, as trec_eval 9.x does (more ties)."),
        click.option("--names", default=None, metavar="A,B,...",
                     help="Comma-separated names for the runs, in the order given."),
        click.option("--dedupe", is_flag=True,
                     help="Keep the first occurrence of a document repeated in a topic "
                          "instead of stopping with an error."),
        click.option("--split-tags", is_flag=True,
                     help="Split a run file that mixes tags into one run per tag."),
        click.option("--groups", "groups_file", type=click.Path(exists=True, dir_okay=False),
                     help="File of `run group` lines (NRG prior=best_per_group, reports)."),
        click.option("--reference-runs", "reference_runs", multiple=True, metavar="FILES",
                     help="Score rarity against these runs instead of the evaluated ones: "
                          "a file, a comma-separated list, a folder, or a quoted glob "
                          "such as 'old/*.gz' (repeatable)."),
        click.option("--prior-runs", default=None, metavar="A,B,...",
                     help="Explicit NRG prior set: comma-separated run names."),
        click.option("--subtopic-qrels", default=None, metavar="FILE",
                     type=click.Path(exists=True, dir_okay=False),
                     help="Subtopic (diversity) qrels, `topic subtopic docid grade`, for "
                          "alpha_nDCG@k, ERR_IA@k, NRBP ... Give the same file as QRELS to "
                          "derive the ad hoc qrels from it (docs/diversity.md)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def refuse_unused_context(ctx, measures) -> None:
    """Refuse ``--prior-runs``, ``--groups`` and ``--reference-runs`` when no measure of
    ``measures`` reads them (an NRG/TaSC measure with ``prior=list`` /
    ``prior=best_per_group``, a rarity measure); unparsable measures are left to the
    evaluation, which names them."""
    from irmeta.cli.options import given, refuse
    from irmeta.errors import IrmetaError
    from irmeta.measures.parse import parse_measures

    if not any(given(ctx, n) for n in ("prior_runs", "groups_file", "reference_runs")):
        return
    try:
        parsed = parse_measures(list(measures))
    except IrmetaError:
        return
    priors = {m.get("prior") for m in parsed}
    families = {m.definition.family for m in parsed}
    refuse(ctx, ["prior_runs"], other="these -m measures", when="list" not in priors,
           because="no measure has prior=list (e.g. NRG(prior=list)@10)")
    refuse(ctx, ["groups_file"], other="these -m measures",
           when="best_per_group" not in priors,
           because="no measure has prior=best_per_group (e.g. "
                   "NRG(prior=best_per_group)@10)")
    refuse(ctx, ["reference_runs"], other="these -m measures",
           when="innovation" not in families,
           because="only the rarity measures (P_rare, AP_rare) read a reference set")


def read_options(options: dict, subtopics=None):
    """The :class:`~irmeta.options.ReadOptions` of a command's campaign options (built
    once here, passed whole to the shards and the Parquet reader)."""
    from irmeta.options import ReadOptions
    names = split_names(options["names"]) if options.get("names") is not None else None
    return ReadOptions.checked("", max_docs=options.get("max_docs"), names=names,
                               float32=options.get("float32", False),
                               dedupe=options.get("dedupe", False),
                               split_tags=options.get("split_tags", False),
                               subtopic_qrels=subtopics)


def load_reference(adhoc, subtopics, options: dict):
    """The rarity reference campaign of ``--reference-runs`` (None without it), read with
    the campaign's own read-time options and judgments (a Parquet campaign's qrels when
    ``adhoc`` is its folder), in memory and in shards alike."""
    if not options.get("reference_runs"):
        return None
    from irmeta.io.load import load_campaign
    from irmeta.shards.parquet import open_campaign, read_qrels_shard
    from irmeta.shards.plan import is_parquet_campaign
    read = read_options(options, subtopics)
    if adhoc is not None and is_parquet_campaign(adhoc):   # the folder's own qrels
        folder = open_campaign(adhoc)
        adhoc = read_qrels_shard(folder, 0, len(folder.topics))
    return load_campaign(adhoc, expand_paths(options["reference_runs"]),
                         max_docs=read.max_docs, float32=read.float32, dedupe=read.dedupe,
                         warn_dropped=False, subtopic_qrels=read.subtopic_qrels)


#: the parameters that hold the measures a command computes (-m, --measure, report's
#: --primary, --gain, --matrix-measure); a command without any computes no diversity measure
_MEASURE_PARAMS = ("measures", "measure", "primary", "gain", "matrix_measure")


def refuse_unused_subtopics(qrels, options: dict) -> None:
    """Refuse ``--subtopic-qrels`` when nothing reads it (docs/cli.md, "Options that do not
    apply are refused"): no diversity measure among the command's measures. Given as
    QRELS too, the file is read (the ad hoc qrels are derived from it), so it applies.
    Measures that do not parse are left to the evaluation, which names them."""
    from irmeta.cli.options import refuse
    from irmeta.errors import IrmetaError
    from irmeta.measures.parse import parse_measures

    subtopics = options.get("subtopic_qrels")
    ctx = click.get_current_context(silent=True)
    if subtopics is None or ctx is None or (qrels and _same_file(str(qrels), str(subtopics))):
        return
    measures: list[str] = []
    for name in _MEASURE_PARAMS:
        value = ctx.params.get(name)
        measures.extend([value] if isinstance(value, str) else list(value or ()))
    try:
        parsed = parse_measures(measures) if measures else []
    except IrmetaError:
        return
    named = [n for n in _MEASURE_PARAMS if n in ctx.params]
    other = (f"these measures ({', '.join(measures)})" if measures
             else "no -m measure" if named else f"irmeta {ctx.command_path.split(' ', 1)[-1]}")
    refuse(ctx, ["subtopic_qrels"], other=other,
           when=not any(m.definition.family == "diversity" for m in parsed),
           because="only the diversity measures (alpha_nDCG@k, ERR_IA@k, NRBP, ...) read "
                   "subtopic qrels; give the file as QRELS too to derive the ad hoc qrels "
                   "from it (docs/diversity.md)")


def load_cli_campaign(qrels, runs, options: dict):
    """Build the campaign (and the context of cross-run measures) from CLI options.

    Returns ``(campaign, ctx)`` with ``ctx`` holding ``groups``, ``reference``,
    ``prior_runs``, ``qrels`` and ``runs`` (the paths used).
    """
    from irmeta.data.checks import require_common_topics
    from irmeta.io.load import load_campaign, read_groups

    if options.get("demo"):
        if qrels or runs:
            raise click.UsageError("--demo takes no QRELS/RUN arguments")
        from irmeta.demo import demo_paths
        paths = demo_paths()
        qrels, runs = str(paths.qrels), [str(p) for p in paths.runs]
        if not options.get("groups_file"):
            options["groups_file"] = str(paths.groups)
    if qrels and not runs and qrels != "-" and not os.path.exists(qrels):
        raise click.UsageError(f"{qrels}: no such file or Parquet campaign folder")
    if qrels and not runs and os.path.isdir(qrels):
        # the commands that read a Parquet campaign take it before they get here
        raise click.UsageError(f"{qrels} is a folder: this command reads QRELS and RUN "
                               "files (a Parquet campaign folder is read by eval, report, "
                               "explain and meta)")
    if not qrels or not runs:
        raise click.UsageError("give a QRELS file and at least one RUN file, a Parquet "
                               "campaign folder (irmeta convert), or --demo")
    refuse_unused_subtopics(qrels, options)
    subtopics = options.get("subtopic_qrels")
    adhoc = None if subtopics is not None and _same_file(qrels, subtopics) else qrels
    read = read_options(options, subtopics)
    campaign = load_campaign(adhoc, list(runs), names=read.names, max_docs=read.max_docs,
                             float32=read.float32, dedupe=read.dedupe,
                             split_tags=read.split_tags, warn_dropped=False,
                             subtopic_qrels=read.subtopic_qrels)
    if not options.get("complete"):
        require_common_topics(campaign, "")
    if campaign.dropped_topics:
        total = sum(campaign.dropped_topics.values())
        note(f"irmeta: note: {total} run topic(s) absent from the qrels were ignored "
             f"({len(campaign.dropped_topics)} run(s))")
    groups = (read_groups(options["groups_file"], campaign.runs) if options.get("groups_file")
              else None)
    reference = load_reference(adhoc, subtopics, options)
    prior = None
    if options.get("prior_runs"):
        prior = tuple(p.strip() for p in options["prior_runs"].split(",") if p.strip())
        unknown = [p for p in prior if p not in campaign.runs]
        if unknown:
            raise CampaignError(f"--prior-runs names unknown run(s): {', '.join(unknown)}")
    ctx = {"groups": groups, "reference": reference, "prior_runs": prior,
           "qrels": qrels, "runs": list(runs)}
    return campaign, ctx


def _same_file(a: str, b: str) -> bool:
    """Whether two CLI paths name the same file (the subtopic file given as QRELS too)."""
    import os
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def expand_paths(values) -> list[str]:
    """Files named by CLI values: each a file, a comma-separated list, a folder (its files,
    sorted) or a glob pattern."""
    import glob
    from pathlib import Path

    out: list[str] = []
    for value in values:
        for item in (v for v in str(value).split(",") if v):
            path = Path(item)
            if path.is_dir():
                out.extend(str(p) for p in sorted(path.iterdir()) if p.is_file())
            elif any(c in item for c in "*?[") and not path.exists():
                matches = sorted(glob.glob(item))
                if not matches:
                    raise CampaignError(f"no file matches {item!r}")
                out.extend(matches)
            else:
                out.append(item)
    return out


def json_records(frame) -> str:
    """``frame`` as JSON records at full precision: floats are written with ``repr``
    (they read back bit for bit; pandas' ``to_json`` rounds to 10 digits), NaN as null.
    JSON has no infinity: ``inf`` and ``-inf`` are written as null too (the text and TSV
    formats print them)."""
    import json
    import math

    import numpy as np

    def plain(v):
        if isinstance(v, (np.integer, np.bool_)):
            return v.item()
        if isinstance(v, (float, np.floating)):
            return None if not math.isfinite(v) else float(v)
        return v if isinstance(v, (str, int, bool)) or v is None else str(v)

    records = [{str(k): plain(v) for k, v in row.items()}
               for row in frame.to_dict(orient="records")]
    return json.dumps(records, indent=1, allow_nan=False) + "\n"


def split_names(text: str, option: str = "--names") -> list[str]:
    """A comma-separated list of run names; an empty name (``a,,b``, ``a,``) is an error."""
    names = [n.strip() for n in text.split(",")]
    if any(not n for n in names):
        raise click.BadParameter(f"empty name in {text!r} (give one name per run, "
                                 "separated by commas)", param_hint=option)
    return names


def check_output_option(ctx, param, value):
    """Click callback of ``-o FILE``: the file must be writable, checked before any work
    (``-`` is standard output)."""
    if value not in (None, "-"):
        from irmeta.io.output import check_file_target
        check_file_target(value)
    return value



def output_option():
    """``-o/--output FILE`` of the commands that print a table: standard output by
    default, the file checked writable before any work (:func:`check_output_option`)."""
    return click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
                        callback=check_output_option,
                        help="Write the table to this file instead of standard output.")

@contextlib.contextmanager
def open_output(path):
    """Standard output (streamed), or the file ``path`` (UTF-8), written all or nothing
    (:func:`irmeta.io.output.atomic_write`); write errors are
    :class:`~irmeta.errors.OutputError`."""
    from irmeta.io.output import atomic_write, stdout_errors

    if path in (None, "-"):
        with stdout_errors():
            yield sys.stdout
    else:
        with atomic_write(path) as fh:
            yield fh


def one_measure_option(ctx, param, value, keep: tuple[str, ...] = ()):
    """Click callback of an option that takes exactly one measure (``report --primary``,
    ``aggregate -m``, ``meta --by``, ...; repeated options: each value): the string must name
    one measure with a number per topic (:func:`irmeta.measures.parse.one_measure`), checked
    before any input is read; a usage error (exit 2) naming the option otherwise. Values in
    ``keep`` (``none`` of ``explain --nrg``) pass as they are."""
    if value is None:
        return value
    from irmeta.errors import MeasureError
    from irmeta.measures.parse import one_measure
    option = max(param.opts, key=len)
    for item in (value if isinstance(value, tuple) else (value,)):
        if isinstance(item, str) and item.strip().lower() in keep:
            continue
        try:
            one_measure(item, option)
        except MeasureError as exc:
            raise click.BadParameter(str(exc).split("\n")[0], ctx=ctx, param=param) from None
    return value


def one_measure_or_none_option(ctx, param, value):
    """:func:`one_measure_option` that also lets ``none`` through (``explain --nrg none``)."""
    return one_measure_option(ctx, param, value, keep=("none",))


def numeric_measures_option(ctx, param, value):
    """Click callback of a repeatable option of measures to compare (``meta -m``, ``twist
    grid -g``): each string may give several measures, each with a number per topic
    (:func:`irmeta.measures.parse.numeric_measures`); a usage error naming the option
    otherwise (``relstring`` and ``runid`` gave a column of NaN)."""
    if not value:
        return value
    from irmeta.errors import MeasureError
    from irmeta.measures.parse import numeric_measures
    option = max(param.opts, key=len)
    for item in (value if isinstance(value, tuple) else (value,)):
        try:
            numeric_measures(item, option)
        except MeasureError as exc:
            raise click.BadParameter(str(exc).split("\n")[0], ctx=ctx, param=param) from None
    return value
