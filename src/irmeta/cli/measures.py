"""``irmeta measures``: the registered measures, their parameters and formulas."""

from __future__ import annotations

import click


@click.command("measures")
@click.option("--family", default=None, help="Only measures of this family (classic, "
                                              "innovation, nrg, twist).")
@click.option("--markdown", is_flag=True, help="Print a Markdown table (used for the docs).")
def measures_command(family, markdown):
    """List every measure irmeta computes, with parameters and defaults."""
    from irmeta.measures.registry import all_measures

    defs = [d for d in all_measures() if family is None or d.family == family]
    if markdown:
        click.echo("| measure | cutoff | parameters | description |")
        click.echo("| --- | --- | --- | --- |")
    for d in defs:
        params = ", ".join((f"{p.name} (required)" if p.required else f"{p.name}={p.default}")
                           + (f" ({'|'.join(map(str, p.choices))})" if p.choices else "")
                           for p in d.params)
        cutoff = {"optional": "@k optional", "required": "@k required", "none": "no @k"}[d.cutoff]
        if d.cutoff_default is not None:
            cutoff += f" (default {d.cutoff_default})"
        if markdown:
            click.echo(f"| `{d.name}` | {cutoff} | {params or '-'} | {d.description} |")
            continue
        click.echo(f"{d.name:<14s} {d.description}")
        click.echo(f"{'':<14s} {cutoff}" + (f"; parameters: {params}" if params else ""))
        if d.formula:
            click.echo(f"{'':<14s} {d.formula}")
    if not markdown:
        click.echo("\ntrec_eval names are accepted too: map, gm_map, P_10 / P.5,10, recall_100, "
                   "ndcg, ndcg_cut_10, ndcg.1=3,2=9, map_cut_100, recip_rank, success_10, Rprec, "
                   "bpref, num_q, num_ret, num_rel, num_rel_ret.")
