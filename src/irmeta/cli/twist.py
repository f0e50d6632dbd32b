"""``irmeta twist``: effort analysis — CRP/DCG curves, archetypes, effort/gain grids.

The measures themselves (``Twist``, ``Twist.rho``, ``Twist.sigma``) are computed by
``irmeta eval -m Twist``; this command gives the analyses around them.
"""

from __future__ import annotations

import math

import click

from irmeta.cli.common import (
    campaign_options,
    check_output_option,
    json_records,
    load_cli_campaign,
    open_output,
)

_FORMATS = click.Choice(["tsv", "csv", "markdown", "json"])


def _common(fn):
    options = [
        click.option("-N", "--depth", type=click.IntRange(min=1), default=1000, show_default=True,
                     help="Evaluation depth N (rankings shorter than N are padded with "
                          "non-relevant documents)."),
        click.option("--crossing", type=click.Choice(["matters", "formal"]), default="matters",
                     show_default=True, help="First-crossing rule: matters (the authors' "
                     "code) or formal (the paper's printed Definition 3)."),
        click.option("--format", "fmt", type=_FORMATS, default="tsv", show_default=True,
                     help="Table layout."),
        click.option("-o", "--output", type=click.Path(dir_okay=False),
              callback=check_output_option,
                     help="Write the table to this file instead of standard output."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def markdown(frame, digits: int = 2, index: bool = True) -> str:
    """A pandas frame as a GitHub Markdown table (floats with ``digits`` decimals)."""
    cols = ([frame.index.name or ""] if index else []) + [str(c) for c in frame.columns]

    def cell(v):
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    lines = ["| " + " | ".join(cols) + " |",
             "|" + "|".join("---" if i == 0 and index else "---:" for i in range(len(cols))) + "|"]
    for row in frame.itertuples(index=True, name=None):
        key, values = row[0], row[1:]
        key = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        vals = ([key] if index else []) + [cell(v) for v in values]
        lines.append("| " + " | ".join(vals) + " |")
    return "\n".join(lines) + "\n"


def write_frame(frame, output, fmt: str, digits: int = 4, index: bool = True) -> None:
    """Write a table in one of the ``--format`` layouts."""
    with open_output(output) as out:
        if fmt == "markdown":
            out.write(markdown(frame, digits, index))
        elif fmt == "json":
            out.write(json_records(frame.reset_index() if index else frame))
        else:
            out.write(frame.to_csv(sep="\t" if fmt == "tsv" else ",", index=index,
                                   lineterminator="\n"))


@click.group("twist")
def twist_command():
    """Effort analysis around Twist: curves, archetypes, effort/gain grids.

    \b
    Examples:
      irmeta twist archetypes qrels.txt runs/*.gz
      irmeta twist grid qrels.txt runs/*.gz -g AP -g nDCG --plot eg.png
      irmeta twist curve qrels.txt runs/*.gz --run myrun --topic 301 --plot crp.png
    Twist itself: irmeta eval qrels.txt runs/*.gz -m Twist -m Twist.rho -m Twist.sigma
    """


@twist_command.command("curve")
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("--run", "run_names", multiple=True, required=True,
              help="Run name (repeatable; pairs with --topic in order, or one run for all topics).")
@click.option("--topic", "topic_ids", multiple=True, required=True,
              help="Topic id (repeatable).")
@click.option("--normalised", is_flag=True, help="Add RP/CRP normalised to [-1, 1] against "
              "the full-scale run.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Also draw CRP next to DCG (PNG and SVG with this stem).")
@click.option("--max-rank", type=click.IntRange(min=1), default=None,
              help="Last rank shown in the plot.")
@_common
@campaign_options
def curve_command(qrels, runs, run_names, topic_ids, normalised, plot_path, max_rank, depth,
                  crossing, fmt, output, **options):
    """RP, CRP and DCG of (run, topic) pairs, rank by rank."""
    import pandas as pd

    from irmeta import effort

    campaign, _ = load_cli_campaign(qrels, runs, options)
    if len(run_names) == 1:
        run_names = run_names * len(topic_ids)
    if len(run_names) != len(topic_ids):
        raise click.UsageError("give one --run, or as many --run as --topic")
    pairs = list(zip(run_names, topic_ids))
    frames = [effort.curves(campaign, r, t, depth, options["rel_level"], normalised)
              .assign(run=r, topic=t) for r, t in pairs]
    frame = pd.concat(frames, ignore_index=True)
    frame = frame[["run", "topic"] + [c for c in frame.columns if c not in ("run", "topic")]]
    write_frame(frame, output, fmt, index=False)
    if plot_path:
        from irmeta.plot.effort import plot_crp_dcg_panels
        panels = effort.crp_dcg_panels(campaign, pairs, depth=depth,
                                       rel_level=options["rel_level"], max_rank=max_rank,
                                       normalised=normalised)
        _, written = plot_crp_dcg_panels(panels, plot_path, normalised=normalised,
                                         full_scale=True)
        click.echo("wrote " + ", ".join(map(str, written)), err=True)


@twist_command.command("archetypes")
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("--per-topic", is_flag=True, help="One line per (run, topic) instead of the "
              "percentage table.")
@_common
@campaign_options
def archetypes_command(qrels, runs, per_topic, depth, crossing, fmt, output, **options):
    """Archetype of every (run, topic) curve and the campaign's percentages (Table 2)."""
    from irmeta import effort

    campaign, _ = load_cli_campaign(qrels, runs, options)
    frame = effort.archetypes(campaign, depth, crossing, options["rel_level"])
    if per_topic:
        write_frame(frame, output, fmt, index=False)
    else:
        write_frame(effort.archetype_table(frame), output, fmt, digits=2)


@twist_command.command("grid")
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-g", "--gain", "gains", multiple=True, metavar="MEASURE",
              help="Gain measure (repeatable). Default: AP, bpref, RBP(p=0.8), nDCG.")
@click.option("--cells", is_flag=True, help="Print the 4x4 shares of every grid, not only "
              "the summary.")
@click.option("--points", "points_path", type=click.Path(dir_okay=False),
              help="Write the plot-ready points (run, topic, twist, gain, row, col) as TSV.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Draw the effort/gain scatter(s) (PNG and SVG with this stem).")
@click.option("--title", default=None, help="Title of the plot.")
@_common
@campaign_options
def grid_command(qrels, runs, gains, cells, points_path, plot_path, title, depth, crossing,
                 fmt, output, **options):
    """Effort/gain grids: Twist against gain measures, shares on the diagonal and in the
    high-high cells (high gain at high effort)."""
    import pandas as pd

    from irmeta import effort

    campaign, _ = load_cli_campaign(qrels, runs, options)
    summary, grids = effort.effort_gain_summary(campaign, gains or effort.GAIN_MEASURES,
                                                depth, crossing, options["rel_level"])
    if cells:
        table = pd.concat({name: eg.table() for name, eg in grids.items()},
                          names=["gain", "gain row"])
        write_frame(table, output, fmt, digits=2)
    else:
        write_frame(summary, output, fmt, digits=4)
    if points_path:
        pts = pd.concat([eg.points.assign(gain_measure=name) for name, eg in grids.items()])
        with open_output(points_path) as out:
            pts.to_csv(out, sep="\t", index=False, lineterminator="\n")
    if plot_path:
        from irmeta.plot.effort import plot_effort_gain
        _, written = plot_effort_gain(grids, plot_path, title=title)
        click.echo("wrote " + ", ".join(map(str, written)), err=True)
