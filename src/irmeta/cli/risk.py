"""``irmeta risk``: URisk / TRisk against a baseline run, ZRisk / GeoRisk against every run
(:mod:`irmeta.stats.risk`; formulas and decisions: docs/risk.md).

The score matrices come as for ``irmeta compare`` (the campaign options, in memory or
shard by shard, Dask included), always with every qrels topic scored (``-c``): risk
compares runs topic by topic, so a run lacking a topic scores 0 on it."""

from __future__ import annotations

import click

from irmeta.cli.common import campaign_options, open_output, output_option
from irmeta.cli.options import constrained
from irmeta.cli.shards import shard_options
from irmeta.cli.tables import digits_option, format_option, write_table
from irmeta.constraints import NONNEGATIVE


@click.command("risk", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE", required=True,
              help="Measure (repeatable): a row per run, measure and alpha.")
@click.option("--baseline", default=None, metavar="RUN",
              help="The run URisk, TRisk, wins and losses are against (a run of the "
                   "campaign; without it those columns are empty).")
@constrained("--alpha", "alphas", constraint=NONNEGATIVE, multiple=True, default=(1.0,),
             help="Risk weight: a loss counts 1 + alpha times a win (repeatable).")
@format_option()
@digits_option()
@output_option()
@campaign_options
@shard_options
def risk_command(qrels, runs, measures, baseline, alphas, fmt, digits, output, **options):
    """Risk of every run against the others: URisk and TRisk against --baseline (TREC Web
    2013-14; Dinçer et al., SIGIR 2014), ZRisk and GeoRisk against every run of the
    campaign (Dinçer et al., SIGIR 2016). Every qrels topic is scored (-c): a run lacking
    a topic scores 0 there.

    \b
    Examples:
      irmeta risk --demo -m nDCG@10 --baseline lexA-bm25
      irmeta risk qrels.txt runs/*.gz -m AP -m nDCG@10 --alpha 1 --alpha 5 --format tsv
    """
    from irmeta.cli.meta import _matrices
    from irmeta.stats.risk import risk_matrices
    options["complete"] = True
    mats = _matrices(qrels, runs, list(measures), options)
    res = risk_matrices(mats, baseline=baseline, alpha=list(alphas))
    with open_output(output) as out:
        write_table(res.table, out, fmt, digits=digits, index=False)
