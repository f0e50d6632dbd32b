"""``irmeta convert``: a campaign of TREC files to a topic-blocked Parquet campaign."""

from __future__ import annotations

import click

from irmeta.cli.notes import note
from irmeta.cli.options import constrained, refuse
from irmeta.constraints import COUNT


@click.command("convert", context_settings={"show_default": True})
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False),
              help="Folder to write (created; it must be empty or absent, its parent "
                   "must exist). Written aside and renamed into place when complete: a "
                   "failed or interrupted convert leaves nothing.")
@constrained("--block-topics", constraint=COUNT, default=100,
             help="Topics per block (Parquet row group): the finest shard that reads "
                  "no row twice.")
@click.option("--float32", is_flag=True,
              help="Read scores as 32-bit floats, as trec_eval 9.x does (more ties).")
@click.option("--names", default=None, metavar="A,B,...",
              help="Comma-separated names for the runs, in the order given.")
@click.option("--split-tags", is_flag=True,
              help="Split a run file that mixes tags into one run per tag.")
@constrained("--workers", constraint=COUNT, default=None,
             help="Convert the run files on a Dask LocalCluster of N processes.")
@click.option("--scheduler", default=None, metavar="ADDRESS",
              help="Convert the run files on this Dask cluster (shared storage).")
def convert_command(qrels, runs, output, block_topics, float32, names, split_tags, workers,
                    scheduler):
    """Write QRELS and RUN files as a Parquet campaign that `irmeta eval FOLDER` reads
    shard by shard (each shard opens only the row groups of its topics).

    \b
    Examples:
      irmeta convert qrels.txt runs/*.gz -o campaign.parquet
      irmeta eval campaign.parquet -m AP -m nDCG@10 --workers 4
    """
    from irmeta.cli.common import expand_paths, split_names
    from irmeta.shards.partition import convert

    refuse(click.get_current_context(), ["workers"], other="--scheduler",
           because="give one of them (a local cluster of N processes, or an existing one)",
           when=scheduler is not None)
    kwargs = dict(block_topics=block_topics, float32=float32, split_tags=split_tags,
                  names=split_names(names) if names is not None else None)
    paths = expand_paths(runs)
    if workers or scheduler:
        from irmeta.shards.dask import client_map, connect
        with connect(scheduler, workers) as client:
            mapper = client_map(client)
            done = convert(qrels, paths, output, **kwargs,
                           mapper=lambda fn, tasks: mapper(fn, tasks, progress=False))
    else:
        done = convert(qrels, paths, output, **kwargs)
    note(f"irmeta: wrote {len(done.runs)} run(s), {len(done.topics)} topic(s) in "
         f"{len(done.blocks)} block(s) to {output}")
