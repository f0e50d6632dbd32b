"""``irmeta twist``: effort analysis — CRP/DCG curves, archetypes, effort/gain grids.

The measures themselves (``Twist``, ``Twist.rho``, ``Twist.sigma``) are computed by
``irmeta eval -m Twist``; this command gives the analyses around them.
"""

from __future__ import annotations

import click

from irmeta.cli.common import (
    campaign_options,
    load_cli_campaign,
    numeric_measures_option,
    open_output,
    output_option,
)
from irmeta.cli.notes import note
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.tables import digits_option, format_option, write_table
from irmeta.constraints import DEPTH, Choice, Integer

#: first-crossing rules of the CRP curve (irmeta.measures.twist.CROSSING_RULES)
CROSSING = Choice(("matters", "formal"))
#: campaign options no effort analysis reads
_CONTEXT = ("prior_runs", "groups_file", "reference_runs")


def _common(fn):
    options = [
        constrained("--depth", constraint=DEPTH, default=1000, show_default=True,
                    help="Evaluation depth N (rankings shorter than N are padded with "
                         "non-relevant documents)."),
        constrained_choice("--crossing", constraint=CROSSING, default="matters",
                           show_default=True, help="First-crossing rule: matters (the "
                           "authors' code) or formal (the paper's printed Definition 3)."),
        format_option(),
        digits_option(),
        output_option(),
        click.pass_context,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _refuse_context(ctx) -> None:
    refuse(ctx, _CONTEXT, other=f"irmeta {ctx.info_name}",
           because="effort analyses read only the qrels and the rankings (no prior set, "
                   "groups or rarity reference)")


def write_frame(frame, output, fmt: str, digits: int = 4, index: bool = True) -> None:
    """Write a table in one of the ``--format`` layouts (:mod:`irmeta.cli.tables`)."""
    with open_output(output) as out:
        write_table(frame, out, fmt, digits=digits, index=index)


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
@constrained("--max-rank", constraint=Integer(low=1), default=None,
             help="Last rank shown in the plot (with --plot).")
@_common
@campaign_options
def curve_command(click_ctx, qrels, runs, run_names, topic_ids, normalised, plot_path,
                  max_rank, depth, crossing, fmt, digits, output, **options):
    """RP, CRP and DCG of (run, topic) pairs, rank by rank."""
    import pandas as pd

    from irmeta import effort

    _refuse_context(click_ctx)
    refuse(click_ctx, ["crossing"], other="irmeta twist curve",
           because="the curves do not depend on the first-crossing rule (archetypes and "
                   "grid do)")
    refuse(click_ctx, ["max_rank"], other="no --plot", when=plot_path is None,
           because="it sets the last rank drawn")
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
    write_frame(frame, output, fmt, digits, index=False)
    if plot_path:
        from irmeta.plot.effort import plot_crp_dcg_panels
        panels = effort.crp_dcg_panels(campaign, pairs, depth=depth,
                                       rel_level=options["rel_level"], max_rank=max_rank,
                                       normalised=normalised)
        _, written = plot_crp_dcg_panels(panels, plot_path, normalised=normalised,
                                         full_scale=True)
        note("wrote " + ", ".join(map(str, written)))


@twist_command.command("archetypes")
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("--per-topic", is_flag=True, help="One line per (run, topic) instead of the "
              "percentage table.")
@_common
@campaign_options
def archetypes_command(click_ctx, qrels, runs, per_topic, depth, crossing, fmt, digits,
                       output, **options):
    """Archetype of every (run, topic) curve and the campaign's percentages (Table 2)."""
    from irmeta import effort

    _refuse_context(click_ctx)
    campaign, _ = load_cli_campaign(qrels, runs, options)
    frame = effort.archetypes(campaign, depth, crossing, options["rel_level"])
    if per_topic:
        write_frame(frame, output, fmt, digits, index=False)
    else:
        write_frame(effort.archetype_table(frame), output, fmt, digits)


@twist_command.command("grid")
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-g", "--gain", "gains", multiple=True, metavar="MEASURE",
              callback=numeric_measures_option,
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
def grid_command(click_ctx, qrels, runs, gains, cells, points_path, plot_path, title, depth,
                 crossing, fmt, digits, output, **options):
    """Effort/gain grids: Twist against gain measures, shares on the diagonal and in the
    high-high cells (high gain at high effort)."""
    import pandas as pd

    from irmeta import effort

    _refuse_context(click_ctx)
    refuse(click_ctx, ["title"], other="no --plot", when=plot_path is None,
           because="it is the title of the plot")
    campaign, _ = load_cli_campaign(qrels, runs, options)
    summary, grids = effort.effort_gain_summary(campaign, gains or effort.GAIN_MEASURES,
                                                depth, crossing, options["rel_level"])
    if cells:
        table = pd.concat({name: eg.table() for name, eg in grids.items()},
                          names=["gain", "gain row"])
        write_frame(table, output, fmt, digits)
    else:
        write_frame(summary, output, fmt, digits)
    if points_path:
        pts = pd.concat([eg.points.assign(gain_measure=name) for name, eg in grids.items()])
        with open_output(points_path) as out:
            pts.to_csv(out, sep="\t", index=False, lineterminator="\n")
    if plot_path:
        from irmeta.plot.effort import plot_effort_gain
        _, written = plot_effort_gain(grids, plot_path, title=title)
        note("wrote " + ", ".join(map(str, written)))
