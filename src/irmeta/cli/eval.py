"""``irmeta eval``: trec_eval-style evaluation of one or many runs."""

from __future__ import annotations

import json

import click

from irmeta.cli.common import campaign_options, check_output_option, open_output
from irmeta.cli.shards import evaluate_cli, shard_options

#: measures printed when no -m is given: exactly trec_eval's default set
DEFAULT_MEASURES = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                    "bpref", "recip_rank", "iprec_at_recall", "P.5,10,15,20,30,100,200,500,1000")


@click.command("eval", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure to compute (repeatable): AP, P@10, nDCG@10, RBP(p=0.8), "
                   "P_rare(alpha=0.5)@100, Twist, or trec_eval names (map, P.5,10, ndcg_cut_10). "
                   "Default: trec_eval's default set. See `irmeta measures`.")
@click.option("-q", "--per-topic", is_flag=True, help="Also print the value of every topic.")
@click.option("--format", "fmt", type=click.Choice(["trec", "tsv", "csv", "json"]),
              default=None, help="Output layout. Default: trec (trec_eval's layout; several "
                                 "runs add a leading run column).")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              callback=check_output_option,
              help="Write to this file instead of standard output.")
@click.option("--aggregate", "aggregator", default="mean", metavar="AGG",
              help="How a run's per-topic values become one number: mean (the measure's own: "
                   "mean, sums for counts), gmean, gawm(...), hits. Non-mean aggregators use "
                   "the campaign topic set.")
@campaign_options
@shard_options
def eval_command(qrels, runs, measures, per_topic, fmt, output, aggregator, **options):
    """Evaluate RUN files against QRELS (plain or gzip).

    \b
    Examples:
      irmeta eval qrels.txt run1.gz run2.gz -m AP -m P@10 -m nDCG@10
      irmeta eval -q -c -l 2 qrels.txt run.txt -m map -m ndcg_cut.10
      irmeta eval --demo -m P_rare(alpha=0.5)@100 -m "NRG(base=nDCG)@10"
      irmeta eval --memory-budget 4G qrels.txt runs/*.gz -m AP -m nDCG@10
      irmeta eval --workers 2 campaign.parquet/ -m AP      (after irmeta convert)
    """
    results = evaluate_cli(qrels, runs, measures or DEFAULT_MEASURES, options)
    fmt = fmt or "trec"
    with open_output(output) as out:
        write_results(results, out, fmt, per_topic, aggregator)


def _value_text(value: float, integer: bool) -> str:
    if value != value:  # NaN
        return "nan"
    if integer:
        return str(int(round(value)))
    return f"{value:6.4f}"


def write_results(results, out, fmt: str, per_topic: bool, aggregator: str = "mean") -> None:
    """Print ``results`` in one of the layouts of ``docs/conventions.md``."""
    if fmt == "trec":
        _write_trec(results, out, per_topic, aggregator)
        return
    frame = results.to_frame(per_topic=per_topic, aggregate=False) if per_topic else None
    summary = results.aggregate(aggregator)
    rows = [] if frame is None else list(frame.itertuples(index=False, name=None))
    for run in summary.index:
        for name in summary.columns:
            rows.append((run, name, "all", float(summary.loc[run, name])))
    if fmt == "tsv":
        out.write("run\tmeasure\ttopic\tvalue\n")
        for run, name, topic, value in rows:
            out.write(f"{run}\t{name}\t{topic}\t{value!r}\n")
    elif fmt == "csv":
        import csv
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["run", "measure", "topic", "value"])
        for run, name, topic, value in rows:
            writer.writerow([run, name, topic, repr(float(value))])
    else:
        records = [{"run": r, "measure": m, "topic": t,
                    "value": (None if v != v else float(v))} for r, m, t, v in rows]
        json.dump(records, out, indent=1)
        out.write("\n")


def _write_trec(results, out, per_topic: bool, aggregator: str) -> None:
    import numpy as np
    multi = len(results.runs) > 1
    summary = results.aggregate(aggregator)
    integer = [m.definition.integer for m in results.measures]
    per_topic_ok = [m.definition.aggregate in ("mean", "sum") for m in results.measures]
    for r, run in enumerate(results.runs):
        prefix = f"{run}\t" if multi else ""
        if per_topic:
            for t in np.flatnonzero(results.evaluated[r]):
                topic = results.topics[t]
                for j, name in enumerate(results.names):
                    if per_topic_ok[j]:
                        out.write(f"{prefix}{name:<22s}\t{topic}\t"
                                  f"{_value_text(results.values[r, j, t], integer[j])}\n")
        out.write(f"{prefix}{'runid':<22s}\tall\t{run}\n")
        for j, name in enumerate(results.names):
            out.write(f"{prefix}{name:<22s}\tall\t"
                      f"{_value_text(summary.iloc[r, j], integer[j] and aggregator == 'mean')}\n")
