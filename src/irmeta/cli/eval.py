"""``irmeta eval``: trec_eval-style evaluation of one or many runs."""

from __future__ import annotations

import json
from itertools import chain

import click

from irmeta.cli.common import (
    campaign_options,
    open_output,
    output_option,
    refuse_unused_context,
)
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.shards import evaluate_cli, shard_options
from irmeta.cli.tables import TABLE_FORMATS, digits_option
from irmeta.constraints import Choice, Integer

#: measures printed when no -m is given: exactly trec_eval's default set
DEFAULT_MEASURES = ("official",)
#: ``--format`` of eval: trec_eval's layout first (the default), then the table layouts
EVAL_FORMATS = Choice(("trec",) + TABLE_FORMATS)
#: trec_eval -N: documents in the collection (0: unknown)
COLLECTION_SIZE = Integer(low=0)


@click.command("eval", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure to compute (repeatable): AP, P@10, nDCG@10, RBP(p=0.8), "
                   "P_rare(alpha=0.5)@100, Twist, or trec_eval names and nicknames (map, "
                   "P.5,10, ndcg_cut_10, rbp.p=0.8, all_trec, official, set). "
                   "Default: trec_eval's default set (official). See `irmeta measures`.")
@click.option("-q", "--per-topic", is_flag=True, help="Also print the value of every topic.")
@constrained_choice("--format", "fmt", constraint=EVAL_FORMATS, default=None,
                    help="Output layout. Default: trec (trec_eval's layout; several runs add "
                         "a leading run column); with --wide: text. tsv, csv and json are "
                         "records (run, measure, topic, value) or, with --wide, the table; "
                         "text and markdown are always the wide table.")
@click.option("--wide", is_flag=True,
              help="A runs x measures table of the aggregates (with -q: one row per run "
                   "and topic) instead of trec_eval's lines or records.")
@digits_option()
@output_option()
@click.option("--aggregator", default="mean", metavar="AGG",
              help="How a run's per-topic values become one number: mean (the measure's own: "
                   "mean, sums for counts), gmean, gawm(...), hits. Non-mean aggregators use "
                   "the campaign topic set; their rows and columns are labelled with the "
                   "aggregator.")
@click.option("-J", "--judged-only", is_flag=True,
              help="Drop unjudged documents from every ranking first (trec_eval -J).")
@constrained("-N", "--collection-size", constraint=COLLECTION_SIZE, default=0,
             help="Documents in the collection, for utility (trec_eval -N).")
@click.option("-R", "--rel-format", default="qrels", metavar="FORMAT",
              help="Relevance file format; only trec_eval's default, qrels, is read "
                   "(prefs, qrels_prefs, qrels_jg are refused).")
@click.option("-n", "--no-summary", is_flag=True,
              help="Print no summary (aggregate) lines; with -q, per-topic lines only.")
@campaign_options
@shard_options
@click.pass_context
def eval_command(click_ctx, qrels, runs, measures, per_topic, fmt, wide, digits, output,
                 aggregator, judged_only, collection_size, rel_format, no_summary, **options):
    """Evaluate RUN files against QRELS (plain or gzip).

    \b
    Examples:
      irmeta eval qrels.txt run1.gz run2.gz -m AP -m P@10 -m nDCG@10
      irmeta eval -q -c -l 2 qrels.txt run.txt -m map -m ndcg_cut.10
      irmeta eval --demo -m "P_rare(alpha=0.5)@100" -m "NRG(base=nDCG)@10"
      irmeta eval --demo -m AP -m P@10 -m nDCG@10 --wide
      irmeta eval --memory-budget 4G qrels.txt runs/*.gz -m AP -m nDCG@10
      irmeta eval --workers 2 campaign.parquet/ -m AP    # after irmeta convert
    """
    from irmeta.measures.parse import trec_eval_measures

    if rel_format != "qrels":
        raise click.BadParameter(f"irmeta reads qrels only; trec_eval's {rel_format!r} "
                                 "relevance format (preference judgments) is not supported",
                                 param_hint="-R")
    refuse(click_ctx, ["wide"], other="--format trec",
           because="trec_eval's layout has one line per value; choose text, markdown, "
                   "tsv, csv or json for the table", when=fmt == "trec")
    refuse(click_ctx, ["aggregator"], other="-n/--no-summary", when=no_summary,
           because="it computes the summary values, which -n leaves out")
    if fmt in ("text", "markdown"):
        wide = True
    fmt = fmt or ("text" if wide else "trec")
    refuse(click_ctx, ["digits"], other=f"--format {fmt}",
           because="only text and markdown tables are rounded (tsv, csv and json keep full "
                   "precision; trec prints 4 decimals)", when=fmt not in ("text", "markdown"))
    # trec_eval names only: trec_eval's order, each name once, its first parameters win
    trec_only = trec_eval_measures(measures or DEFAULT_MEASURES)
    wanted = trec_only or list(measures)
    refuse_unused_context(click_ctx, wanted)
    results = evaluate_cli(qrels, runs, wanted, options, judged_only=judged_only,
                           collection_size=collection_size)
    with open_output(output) as out:
        if wide:
            write_wide(results, out, fmt, per_topic, aggregator, summary=not no_summary,
                       digits=digits)
            return
        # trec_eval prints a runid line only when runid is asked for (official, all_trec, set
        # include it); irmeta-style measure lists always get one
        write_results(results, out, fmt, per_topic, aggregator, summary=not no_summary,
                      runid=trec_only is None)


def aggregate_label(aggregator: str) -> str:
    """The label of the aggregate rows (the ``topic`` of records, the column suffix of the
    wide table): ``all`` for the measure's own aggregation (``mean``), else the
    aggregator's canonical name (``gmean``, ``hits``, ``gawm(axioms=A,...)``), so a GAWM
    score is never read as a mean."""
    if aggregator == "mean":
        return "all"
    from irmeta.aggregate import canonical_aggregator
    label: str = canonical_aggregator(aggregator)
    return label


def write_wide(results, out, fmt: str, per_topic: bool, aggregator: str = "mean",
               summary: bool = True, digits: int = 4) -> None:
    """A runs x measures table (``--wide``): one row per run with the aggregates (their
    columns named ``measure`` for the mean, ``measure [aggregator]`` otherwise); with
    ``per_topic`` first one row per (run, topic) of the evaluated topics."""
    import pandas as pd

    from irmeta.cli.tables import write_table

    shown = [j for j, m in enumerate(results.measures) if _numeric(m)]
    names = [results.names[j] for j in shown]
    parts = []
    if per_topic:
        long = results.to_frame(per_topic=True, aggregate=False)
        long = long[long["measure"].isin(set(names))]
        table = long.pivot_table(index=["run", "topic"], columns="measure", values="value",
                                 sort=False, dropna=False)
        parts.append(table.reindex(columns=names).reset_index())
    if summary:
        label = aggregate_label(aggregator)
        agg = results.aggregate(aggregator).iloc[:, shown]
        agg.columns = names
        agg = agg.rename_axis("run").reset_index()
        if per_topic:
            agg.insert(1, "topic", label)
        elif label != "all":
            agg.columns = ["run"] + [f"{n} [{label}]" for n in names]
        parts.append(agg)
    frame = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["run"])
    write_table(frame, out, fmt, digits=digits, index=False)


def _value_text(value: float, integer: bool) -> str:
    """A value as trec_eval prints it: ``%6.4f``, counts as integers."""
    if value != value:  # NaN
        return "nan"
    if integer:
        return str(int(round(value)))
    return f"{value:6.4f}"


def _column_text(values, integer: bool) -> list[str]:
    """:func:`_value_text` of every value of a column (the same text, one pass)."""
    if integer:
        return ["nan" if v != v else str(int(round(v))) for v in values.tolist()]
    return ["nan" if v != v else f"{v:6.4f}" for v in values.tolist()]


def write_results(results, out, fmt: str, per_topic: bool, aggregator: str = "mean",
                  summary: bool = True, runid: bool = True) -> None:
    """Print ``results`` in one of the layouts of ``docs/conventions.md``. ``runid``: in
    the trec layout, print the runid line even when the measure ``runid`` is not asked for."""
    if fmt == "trec":
        _write_trec(results, out, per_topic, aggregator, summary, runid)
        return
    shown = [j for j, m in enumerate(results.measures) if _numeric(m)]
    names = {results.names[j] for j in shown}
    frame = results.to_frame(per_topic=per_topic, aggregate=False) if per_topic else None
    table = results.aggregate(aggregator)
    rows = [] if frame is None else [row for row in frame.itertuples(index=False, name=None)
                                     if row[1] in names]
    label = aggregate_label(aggregator)
    for run in table.index if summary else ():
        for j in shown:
            name = results.names[j]
            rows.append((run, name, label, float(table.iloc[list(table.index).index(run), j])))
    if fmt == "tsv":
        out.write("run\tmeasure\ttopic\tvalue\n")
        for run, name, topic, value in rows:
            out.write(f"{run}\t{name}\t{topic}\t{value!r}\n")
    elif fmt == "csv":
        import csv

        from irmeta.cli.tables import csv_cell
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["run", "measure", "topic", "value"])
        for run, name, topic, value in rows:
            writer.writerow([csv_cell(run), csv_cell(name), csv_cell(topic),
                             repr(float(value))])
    else:
        records = [{"run": r, "measure": m, "topic": t,
                    "value": (None if v != v else float(v))} for r, m, t, v in rows]
        json.dump(records, out, indent=1)
        out.write("\n")


def _numeric(measure) -> bool:
    """A measure with a number per topic (not runid, not a text measure such as relstring)."""
    return measure.definition.text is None and measure.definition.name != "runid"


def _write_trec(results, out, per_topic: bool, aggregator: str, summary: bool = True,
                runid: bool = True) -> None:
    """trec_eval's layout: per-topic lines (``-q``), then the runid line and the summary."""
    import numpy as np
    multi = len(results.runs) > 1
    # the default mean straight from the results (no DataFrame, no pandas import)
    table = (results.means if aggregator == "mean"
             else results.aggregate(aggregator).to_numpy())
    defs = [m.definition for m in results.measures]
    integer = [d.integer for d in defs]
    per_topic_ok = [_numeric(m) and d.aggregate in ("mean", "sum")
                    for m, d in zip(results.measures, defs)]
    texts = {j: results.text(j) for j, d in enumerate(defs) if d.text is not None}
    label = aggregate_label(aggregator)     # "all" for the mean, as trec_eval prints it
    for r, run in enumerate(results.runs):
        prefix = f"{run}\t" if multi else ""
        if per_topic:
            evaluated = np.flatnonzero(results.evaluated[r])
            topics = [results.topics[t] for t in evaluated]
            columns = []   # one list of lines per measure, then interleaved topic by topic
            for j, name in enumerate(results.names):
                head = f"{prefix}{name:<22s}\t"
                if j in texts:
                    columns.append([f"{head}{topic}\t'{texts[j][r][t]}'\n"
                                    for topic, t in zip(topics, evaluated.tolist())])
                elif per_topic_ok[j]:
                    values = _column_text(results.values[r, j, evaluated], integer[j])
                    columns.append([f"{head}{topic}\t{value}\n"
                                    for topic, value in zip(topics, values)])
            out.write("".join(chain.from_iterable(zip(*columns))))
        if not summary:
            continue
        if runid or any(d.name == "runid" for d in defs):
            out.write(f"{prefix}{'runid':<22s}\tall\t{run}\n")
        for j, name in enumerate(results.names):
            if _numeric(results.measures[j]) and defs[j].summary:
                value = _value_text(table[r, j], integer[j] and aggregator == "mean")
                out.write(f"{prefix}{name:<22s}\t{label}\t{value}\n")
