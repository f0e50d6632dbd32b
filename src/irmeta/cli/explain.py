"""``irmeta explain``: why a run got its rareness / NRG score, document by document."""

from __future__ import annotations

import click

from irmeta.cli.common import campaign_options, check_output_option, load_cli_campaign, open_output
from irmeta.cli.shards import open_cli_shards, shard_options


@click.command("explain", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("--run", "run_name", default=None, metavar="NAME",
              help="Explain this run document by document. Without it: the unique "
                   "contributions of every run.")
@click.option("--topic", default=None, metavar="TOPIC", help="Only this topic (with --run).")
@click.option("-k", "--cutoff", type=click.IntRange(min=1), default=100,
              help="Top K of each ranking: rarity counts runs retrieving a document in "
                   "their top K; unique contributions are counted there.")
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="Rarity depth (default: K), as the measures' depth= parameter.")
@click.option("--nrg", "nrg", default="NRG", metavar="MEASURE",
              help="NRG measure whose prior product and residual gain are shown, e.g. "
                   "'NRG(base=nDCG)@10' or 'NRG(prior=best_per_group)@10'; 'none' to skip.")
@click.option("--all-docs", is_flag=True, help="Show every document of the top K, not only "
                                                "the relevant ones.")
@click.option("--per-topic", is_flag=True, help="Unique contributions per (run, topic).")
@click.option("--format", "fmt", type=click.Choice(["text", "tsv", "csv"]), default="text",
              help="Output layout: an aligned table, or tab / comma separated with a header.")
@click.option("-o", "--output", type=click.Path(dir_okay=False),
              callback=check_output_option,
              help="Write to this file instead of standard output.")
@campaign_options
@shard_options
def explain_command(qrels, runs, run_name, topic, cutoff, depth, nrg, all_docs, per_topic,
                    fmt, output, **options):
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

    shards = click.get_current_context().with_resource(
        open_cli_shards(qrels, runs, options))   # None: the campaign fits in memory
    campaign, ctx = shards or load_cli_campaign(qrels, runs, options)
    if topic is not None and run_name is None:
        raise click.UsageError("--topic needs --run")
    if run_name is not None:
        frame = explain_documents(
            campaign, run_name, topic, k=cutoff, depth=depth, rel_level=options["rel_level"],
            nrg=None if nrg.lower() == "none" else nrg, relevant_only=not all_docs,
            groups=ctx["groups"], reference=ctx["reference"], prior_runs=ctx["prior_runs"])
    else:
        frame = unique_contributions(campaign, cutoff, rel_level=options["rel_level"],
                                     reference=ctx["reference"], per_topic=per_topic)
        if not per_topic:
            frame = frame.reset_index()
    with open_output(output) as out:
        _write(frame, out, fmt)


def _write(frame, out, fmt: str) -> None:
    if fmt == "tsv":
        frame.to_csv(out, sep="\t", index=False, lineterminator="\n")
    elif fmt == "csv":
        frame.to_csv(out, index=False, lineterminator="\n")
    else:
        if frame.empty:
            out.write("(no documents)\n")
            return
        out.write(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}") + "\n")
