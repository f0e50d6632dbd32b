"""``irmeta aggregate``: rank systems by GAWM, HITS or plain means over a score matrix,
and run the analyses of the GAWM paper.

The matrix comes from a campaign (QRELS RUN... with one ``-m MEASURE``, over the
campaign topic set) or from a file (``--matrix FILE``: long ``run topic value`` or wide
CSV, see :func:`irmeta.io.matrix.read_matrix`).
"""

from __future__ import annotations

import warnings

import click

from irmeta.cli.common import (
    campaign_options,
    load_cli_campaign,
    one_measure_option,
    open_output,
    output_option,
    refuse_unused_context,
)
from irmeta.cli.notes import note
from irmeta.cli.options import constrained_choice, refuse
from irmeta.cli.tables import digits_option, format_option, write_table
from irmeta.constraints import Choice

DEFAULT_AGGREGATORS = ("mean", "gawm", "hits")
ANALYSES = ("correlations", "means", "grid", "confidence", "loto")
#: what the rows of a wide matrix file are
ROWS = Choice(("topics", "systems"))
#: GAWM's axiom sets
AXIOMS = Choice(("A", "B"))
#: the options that say how to build a campaign (none applies to a --matrix file)
CAMPAIGN_ONLY = ("complete", "max_docs", "float32", "names", "dedupe", "split_tags",
                 "groups_file", "reference_runs", "prior_runs", "subtopic_qrels", "measure")
#: the options of a --matrix file
MATRIX_ONLY = ("rows", "measure_name", "missing")


def refuse_matrix_mismatch(ctx, matrix_path) -> None:
    """With ``--matrix``: refuse the campaign options (a matrix has no rankings, qrels or
    runs to read); without it: refuse the options of a matrix file."""
    refuse(ctx, CAMPAIGN_ONLY + ("rel_level", "demo"), other="--matrix",
           when=matrix_path is not None,
           because="a score matrix has no qrels or rankings; these options say how to "
                   "read and evaluate a campaign")
    refuse(ctx, MATRIX_ONLY, other="a campaign (no --matrix)", when=matrix_path is None,
           because="it says how to read a --matrix FILE")


def _read(qrels, runs, matrix_path, measure, rows, measure_name, missing, options):
    """(matrix DataFrame, description)."""
    if matrix_path:
        if qrels or runs:
            raise click.UsageError("give either --matrix FILE or QRELS RUN..., not both")
        from irmeta.io.matrix import read_matrix
        miss = missing
        if missing not in ("error", "nan"):
            try:
                miss = float(missing)
            except ValueError:
                raise click.BadParameter(f"{missing!r} is not error, nan or a number",
                                         param_hint="--missing") from None
        frame = read_matrix(matrix_path, rows=rows, measure=measure_name, missing=miss)
        return frame, f"{matrix_path}: {frame.shape[0]} systems x {frame.shape[1]} topics"
    from irmeta.evaluation import evaluate
    campaign, ctx = load_cli_campaign(qrels, runs, options)
    results = evaluate(campaign, measures=[measure], rel_level=options["rel_level"],
                       groups=ctx["groups"], reference=ctx["reference"],
                       prior_runs=ctx["prior_runs"])
    frame = results.matrix(0)
    return frame, (f"{measure}: {frame.shape[0]} runs x {frame.shape[1]} topics "
                   f"(campaign topic set, relevance >= {options['rel_level']})")


@click.command("aggregate", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-m", "--measure", default="AP", metavar="MEASURE", callback=one_measure_option,
              help="Measure whose systems x topics matrix is aggregated (campaign input).")
@click.option("--matrix", "matrix_path", type=click.Path(dir_okay=False), default=None,
              help="Read the score matrix from FILE (long `run topic value` or wide CSV; "
                   "plain or gzip) instead of a campaign.")
@constrained_choice("--rows", constraint=ROWS, default=None,
              help="For a wide --matrix file whose header does not say it: what the rows are.")
@click.option("--measure-name", default=None,
              help="For a long --matrix file with a measure column: the measure to keep.")
@click.option("--missing", default="error",
              help="Missing cells of a --matrix file: error, nan, or a number to fill them.")
@click.option("-a", "--aggregator", "aggregators", multiple=True, metavar="AGG",
              help="Aggregator (repeatable): mean, gmean, hmean, min, max, hits, "
                   "gawm(axioms=A|B,ms=MEAN,mt=MEAN,tol=...,max_iter=...,floor=...) with MEAN in "
                   "min, harmonic, geometric, arithmetic, max.  [default: mean, gawm, hits]")
@constrained_choice("--analysis", "analyses", multiple=True,
                    constraint=Choice(ANALYSES + ("all",)),
              help="Print a table of the GAWM paper instead of the leaderboard (repeatable): "
                   "correlations (Table 2), means (Table 3), grid (Figure 4), confidence "
                   "(Figure 5), loto (Figure 6), all.")
@constrained_choice("--axioms", constraint=AXIOMS, case_sensitive=False, default=None,
                    help="Axioms of the analyses and plots (default: A, and B for loto, as "
                         "in the paper).")
@click.option("--plots", "plot_dir", type=click.Path(file_okay=False), default=None,
              help="Write the figures (heatmap, grid, confidence, loto) as PNG and SVG here.")
@format_option()
@digits_option()
@output_option()
@campaign_options
@click.pass_context
def aggregate_command(click_ctx, qrels, runs, measure, matrix_path, rows, measure_name,
                      missing, aggregators, analyses, axioms, plot_dir, fmt, digits, output,
                      **options):
    """Rank systems by GAWM, HITS or means of a systems x topics score matrix.

    The leaderboard has one column per aggregator, sorted by the first; GAWM's
    convergence is reported on standard error.

    \b
    Examples:
      irmeta aggregate qrels.txt runs/*.gz -m AP -a mean -a "gawm(axioms=B)" -a hits
      irmeta aggregate --matrix web2010ap.csv -a "gawm(ms=geometric,mt=harmonic)"
      irmeta aggregate --matrix dl21.ndcg_cut10.csv --analysis all --plots figs/
    """
    import pandas as pd

    from irmeta.aggregate import aggregate_matrix, canonical_aggregator, gawm, parse_aggregator
    from irmeta.errors import ConvergenceWarning

    refuse_matrix_mismatch(click_ctx, matrix_path)
    refuse(click_ctx, ["aggregators"], other="--analysis", when=bool(analyses),
           because="each analysis fixes its own aggregators (GAWM's and HITS')")
    refuse(click_ctx, ["axioms"], other="the leaderboard (no --analysis or --plots)",
           when=not analyses and not plot_dir,
           because="give the axioms of a leaderboard column in -a 'gawm(axioms=B)'")
    refuse(click_ctx, ["digits"], other=f"--format {fmt}", when=fmt not in ("text", "markdown"),
           because="only text and markdown tables are rounded")
    if matrix_path is None:
        refuse_unused_context(click_ctx, [measure])
    frame, description = _read(qrels, runs, matrix_path, measure, rows, measure_name, missing,
                               options)
    note(f"irmeta: {description}")
    names = aggregators or DEFAULT_AGGREGATORS
    with open_output(output) as out:
        if not analyses:
            columns = {}
            for text in names:
                label = canonical_aggregator(text)
                name, params = parse_aggregator(text)
                if name == "gawm":
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", ConvergenceWarning)
                        result = gawm(frame, params["axioms"], params["ms"], params["mt"],
                                      tol=params["tol"], max_iter=params["max_iter"],
                                      floor=params["floor"])
                    state = "converged" if result.converged else "DID NOT CONVERGE"
                    note(f"irmeta: {label}: {state} after {result.iterations} iterations "
                         f"(last change {result.delta:.3g})")
                    columns[label] = result.E_s
                else:
                    columns[label] = aggregate_matrix(frame, text)
            table = pd.DataFrame(columns)
            first = table.columns[0]
            table.insert(0, "rank", table[first].rank(ascending=False, method="min")
                         .astype("Int64"))
            table = table.iloc[(-table[first]).argsort(kind="stable")]
            table.index.name = "run"
            write_table(table, out, fmt, digits)
        else:
            _analyses(frame, analyses, axioms, out, fmt, digits)
    if plot_dir:
        _plots(frame, plot_dir, axioms)


def _analyses(frame, analyses, axioms, out, fmt, digits) -> None:
    from irmeta.aggregate import analyses as an
    chosen = ANALYSES if "all" in analyses else tuple(dict.fromkeys(analyses))
    ax = (axioms or "A").upper()
    for kind in chosen:
        if kind == "correlations":
            table, title = an.correlation_table({"matrix": frame}, ax), f"Table 2 (axioms {ax})"
        elif kind == "means":
            table, title = an.mean_function_table({"matrix": frame}, ax), \
                f"Table 3 (axioms {ax}, M_s arithmetic)"
        elif kind == "grid":
            table, title = an.ranking_grid(frame, ax), f"Figure 4 ranking grid (axioms {ax})"
        elif kind == "confidence":
            table, title = an.winner_confidence(frame, ax), \
                f"Figure 5 confidence in the winner (axioms {ax}, M_t arithmetic)"
        else:
            lax = (axioms or "B").upper()
            table, title = an.leave_one_topic_out(frame, lax), \
                f"Figure 6 leave-one-topic-out (axioms {lax}, M_t arithmetic)"
        write_table(table, out, fmt, digits, title=title)


def _plots(frame, plot_dir, axioms) -> None:
    from pathlib import Path

    from irmeta.aggregate import analyses as an
    from irmeta.plot import gawm as plots
    ax = (axioms or "A").upper()
    base = Path(plot_dir)
    written = []
    written += plots.plot_matrix_heatmap(frame, base / "gawm_heatmap", axioms=ax)[1]
    written += plots.plot_ranking_grid(frame, base / "gawm_grid", axioms=ax)[1]
    written += plots.plot_confidence(an.winner_confidence(frame, ax), base / "gawm_confidence")[1]
    written += plots.plot_leave_one_topic_out(an.leave_one_topic_out(frame,
                                                                      (axioms or "B").upper()),
                                              base / "gawm_loto")[1]
    note("irmeta: wrote " + ", ".join(str(p) for p in written))
