"""``irmeta pool``: the judgment pool of runs (issue 26; docs/pooling.md).

A thin layer over :func:`irmeta.pooling.pool`: ``topic docid`` lines by default, or the
table with the contributing runs, groups and best rank (``--format tsv``, ...), or the
per-topic statistics (``--stats``).
"""

from __future__ import annotations

import contextlib

import click

from irmeta.cli.common import check_output_option, expand_paths, open_output, split_names
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.tables import TABLE_FORMATS, write_table
from irmeta.constraints import DEPTH, PROBABILITY, Choice, Integer


@click.command("pool", context_settings={"show_default": True})
@click.argument("runs", nargs=-1, required=True)
@constrained("-k", "--depth", constraint=DEPTH, default=10,
             help="Pool depth K (depth, group_depth), or documents per topic N (Take@N).")
@constrained_choice("--strategy", constraint=Choice(("depth", "group_depth", "rrf", "rbp_sum",
                                                      "rbp_max", "comb_sum", "comb_max",
                                                      "comb_mnz")),
                    default="depth", help="Pooling strategy (docs/pooling.md).")
@click.option("--groups", "groups_file", type=click.Path(exists=True, dir_okay=False),
              default=None, help="File of `run group` lines (default: each run its own group).")
@constrained("--rbp-p", constraint=PROBABILITY, default=0.8, help="RBP persistence (rbp_*).")
@constrained("--rrf-k", constraint=Integer(low=0), default=60, help="RRF constant (rrf).")
@click.option("--stats", "show_stats", is_flag=True,
              help="Print the per-topic statistics instead of the pool.")
@constrained_choice("--format", "fmt", constraint=Choice(TABLE_FORMATS + ("lines",)),
                    default=None, show_default=False,
                    help="Default (lines): `topic docid`; text / markdown / tsv / csv / json: "
                         "the table with runs, groups and best rank.")
@click.option("--names", default=None, metavar="A,B,...", help="Names for the runs, in order.")
@constrained("-M", "--max-docs", constraint=DEPTH, default=None,
             help="Keep only the top M documents of each ranking (Take@N strategies).")
@click.option("--float32", is_flag=True, help="Read scores as 32-bit floats (trec_eval 9.x).")
@click.option("--dedupe", is_flag=True, help="Keep the first of a repeated document.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), callback=check_output_option,
              default=None, help="Write to this file instead of standard output.")
@click.pass_context
def pool_command(ctx, runs, depth, strategy, groups_file, rbp_p, rrf_k, show_stats, fmt,
                 names, max_docs, float32, dedupe, output):
    """The judgment pool of RUNS: one `topic docid` line per pooled document, sorted by
    topic then document id.

    \b
    Examples:
      irmeta pool runs/*.gz --depth 10 > pool.txt
      irmeta pool runs/*.gz --depth 100 --groups groups.txt --format tsv
      irmeta pool runs/*.gz --strategy rrf --depth 200 --stats
    """
    from irmeta.pooling import check_groups, pool, runs_campaign  # noqa: F401
    refuse(ctx, ["rbp_p"], other=f"--strategy {strategy}", when=not strategy.startswith("rbp"),
           because="only the RBP strategies weigh ranks by p")
    refuse(ctx, ["rrf_k"], other=f"--strategy {strategy}", when=strategy != "rrf",
           because="only rrf adds k to the rank")
    refuse(ctx, ["max_docs"], other=f"--strategy {strategy}",
           when=strategy in ("depth", "group_depth"),
           because="the depth strategies read the top --depth documents only")
    if fmt is None:
        fmt = "text" if show_stats else "lines"
    elif show_stats and fmt == "lines":
        raise click.UsageError("--stats prints a table: give a table --format (text, "
                               "markdown, tsv, csv, json)")
    groups = None
    files = expand_paths(runs)
    if groups_file:
        from irmeta.io.load import read_groups
        groups = read_groups(groups_file)
    with located_groups(groups_file):
        result = pool(files, depth, strategy=strategy, groups=groups, rbp_p=rbp_p, rrf_k=rrf_k,
                      names=split_names(names) if names else None, max_docs=max_docs,
                      float32=float32, dedupe=dedupe)
    with open_output(output) as out:
        if show_stats:
            write_table(result.stats, out, fmt, index=False)
        elif fmt == "lines":
            out.write(result.lines())
        else:
            write_table(result.contributors(), out, fmt, index=False)


@contextlib.contextmanager
def located_groups(path):
    """Turn the groups check of the API (runs without a group, names that are no run)
    into an error naming the groups file and, for an unknown run, its line."""
    from irmeta.errors import CampaignError, InputError
    try:
        yield
    except CampaignError as exc:
        text = str(exc)
        if path is None or ": groups " not in text:
            raise
        detail = text.split(": groups ", 1)[1]
        line = None
        if detail.startswith("names run(s)"):
            first = detail.split(": ", 1)[1].split(",")[0].split(" ")[0]
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, raw in enumerate(fh, 1):
                    if raw.split()[:1] == [first]:
                        line = n
                        break
        raise InputError(detail, path=str(path), line=line,
                         expected="one `run group` line for every run given, and no other "
                                  "run") from None
