"""``irmeta explain``: why a run got its rareness / NRG score, document by document."""

from __future__ import annotations

import click

from irmeta.cli.common import (
    campaign_options,
    load_cli_campaign,
    one_measure_or_none_option,
    open_output,
    output_option,
)
from irmeta.cli.options import constrained, refuse
from irmeta.cli.shards import open_cli_shards, shard_options
from irmeta.cli.tables import digits_option, format_option, write_table
from irmeta.constraints import CUTOFF, DEPTH


@click.command("explain", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("--run", "run_name", default=None, metavar="NAME",
              help="Explain this run document by document. Without it: the unique "
                   "contributions of every run.")
@click.option("--topic", default=None, metavar="TOPIC", help="Only this topic (with --run).")
@constrained("-k", "--cutoff", constraint=CUTOFF, default=100,
             help="Top K of each ranking: rarity counts runs retrieving a document in "
                  "their top K; unique contributions are counted there.")
@constrained("--depth", constraint=DEPTH, default=None,
             help="Rarity depth (default: K), as the measures' depth= parameter (with --run).")
@click.option("--nrg", "nrg", default="NRG", metavar="MEASURE",
              callback=one_measure_or_none_option,
              help="NRG measure whose prior product and residual gain are shown, e.g. "
                   "'NRG(base=nDCG)@10' or 'NRG(prior=best_per_group)@10'; 'none' to skip "
                   "(with --run).")
@click.option("--relevant-only/--all-docs", default=True,
              help="Show the relevant documents of the top K, or every document (with "
                   "--run).")
@click.option("--per-topic", is_flag=True,
              help="Unique contributions per (run, topic) (without --run).")
@format_option()
@digits_option()
@output_option()
@campaign_options
@shard_options
@click.pass_context
def explain_command(click_ctx, qrels, runs, run_name, topic, cutoff, depth, nrg, relevant_only,
                    per_topic, fmt, digits, output, **options):
    """Explain context scores of RUN files judged by QRELS.

    \b
    With --run: for each relevant document of the run's top K, how many runs retrieve
    it (S_d of S), its rarity R(d) = 1 - S_d/S and normalized rarity, whether it is
    unique, and its NRG prior product and residual gain.
    Without --run: per run, the relevant documents no other run retrieved in its top K.

    \b
    Examples:
      irmeta explain -l 2 qrels.txt runs/*.gz --run p_bm25 --topic 1129237 -k 100
      irmeta explain -l 2 qrels.txt runs/*.gz -k 10
      irmeta explain qrels.txt runs/*.gz --run p_bm25 --groups groups.txt \\
          --nrg "NRG(prior=best_per_group)@10" -k 10
    """
    from irmeta.explain import explain_documents, unique_contributions

    if run_name is None:
        refuse(click_ctx, ["topic", "depth", "nrg", "relevant_only", "prior_runs",
                           "groups_file"],
               other="the unique contributions (no --run)",
               because="it applies to one run explained document by document; give --run")
    refuse(click_ctx, ["per_topic"], other="--run", when=run_name is not None,
           because="the documents of --run are listed per topic already")
    refuse(click_ctx, ["digits"], other=f"--format {fmt}", when=fmt not in ("text", "markdown"),
           because="only text and markdown tables are rounded")
    shards = click_ctx.with_resource(
        open_cli_shards(qrels, runs, options))   # None: the campaign fits in memory
    campaign, ctx = shards or load_cli_campaign(qrels, runs, options)
    if run_name is not None:
        frame = explain_documents(
            campaign, run_name, topic, k=cutoff, depth=depth, rel_level=options["rel_level"],
            nrg=None if nrg.lower() == "none" else nrg, relevant_only=relevant_only,
            groups=ctx["groups"], reference=ctx["reference"], prior_runs=ctx["prior_runs"])
    else:
        frame = unique_contributions(campaign, cutoff, rel_level=options["rel_level"],
                                     reference=ctx["reference"], per_topic=per_topic)
        if not per_topic:
            frame = frame.reset_index()
    with open_output(output) as out:
        write_table(frame, out, fmt, digits=digits, index=False, empty="(no documents)")
