"""``irmeta reproduce innovation|nrg|twist|gawm``: a paper's tables and figures, computed
with the paper's own procedure and parameters, on any campaign (or score matrix)."""

from __future__ import annotations

import os
import shlex
import sys

import click

from irmeta.cli.aggregate import AXIOMS, CAMPAIGN_ONLY, ROWS
from irmeta.cli.common import campaign_options, load_cli_campaign, one_measure_option
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.constraints import (
    ALPHA,
    COUNT,
    CUTOFF,
    DEPTH,
    FRACTION,
    NONNEGATIVE,
    PROBABILITY,
    SEED,
    TRIALS,
    Choice,
    Integer,
    ListOf,
)

#: PNG resolution: below 30 dpi a figure is unreadable
DPI = Integer(low=30)
#: the alpha grid of the innovation paper's Figure 2
ALPHAS = ListOf(ALPHA)


def _command_line(paper: str) -> str:
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "reproduce":
        return shlex.join(["irmeta", *args])
    return shlex.join(["irmeta", "reproduce", paper, *args])


def output_options(paper: str):
    """-o/--output, --seed-independent output options shared by the four subcommands."""
    def deco(fn):
        opts = [
            click.option("-o", "--output", default=f"reproduce-{paper}", show_default=True,
                         type=click.Path(file_okay=False, writable=True),
                         help="Output folder: index.html, and index_files/ with every table "
                              "(TSV) and figure (PNG, SVG)."),
            click.option("--svg/--no-svg", default=True, show_default=True,
                         help="Also write each figure as SVG."),
            constrained("--dpi", constraint=DPI, default=150, show_default=True,
                        help="Resolution of the PNG figures."),
            click.option("--progress/--no-progress", default=None,
                         help="Progress bar on stderr (default: when stderr is a terminal)."),
        ]
        for o in reversed(opts):
            fn = o(fn)
        return fn
    return deco


def _inputs(ctx: dict, options: dict) -> list[tuple[str, str]]:
    rows = []
    if options.get("demo"):
        rows.append(("campaign", "the demo campaign shipped with irmeta (simulated data)"))
    if ctx.get("qrels"):
        rows.append(("qrels file", os.path.basename(str(ctx["qrels"]))))
    names = [os.path.basename(str(p)) for p in ctx.get("runs") or []]
    if names:
        rows.append(("run files", ", ".join(names[:4])
                     + (f", … ({len(names)} files)" if len(names) > 4 else "")))
    if options.get("groups_file"):
        rows.append(("groups file", os.path.basename(str(options["groups_file"]))))
    return rows


def _load(qrels, runs, options):
    """The campaign, refusing the context options a paper's procedure fixes itself."""
    if options.get("reference_runs") or options.get("prior_runs"):
        raise click.UsageError("--reference-runs and --prior-runs do not apply to a "
                               "reproduction: each paper fixes its own rarity reference "
                               "and NRG prior sets")
    return load_cli_campaign(qrels, runs, options)


def _done(result) -> None:
    wall = sum(w for w, _ in result.timings.values())
    cpu = sum(c for _, c in result.timings.values())
    click.echo(f"irmeta: wrote {result.path} and {len(result.files)} files in "
               f"{result.path.parent / 'index_files'} ({wall:.1f} s wall, {cpu:.1f} s CPU)",
               err=True)


def _formats(svg: bool) -> tuple:
    return ("png", "svg") if svg else ("png",)


@click.group("reproduce", context_settings={"show_default": True})
def reproduce_command():
    """Rerun a paper's tables and figures on your campaign, with the paper's procedure.

    Each subcommand writes an output folder with a self-contained index.html (figures
    embedded) and every table as TSV, every figure as PNG (and SVG). The paper's
    parameters are the defaults; the page lists every parameter, the inputs and the
    run time of each step.

    \b
    Examples:
      irmeta reproduce innovation qrels.txt runs/*.gz -o out/innovation
      irmeta reproduce nrg qrels.txt runs/*.gz --groups groups.txt -o out/nrg
      irmeta reproduce twist --demo -o out/twist
      irmeta reproduce gawm --matrix web2010ap.csv -o out/gawm
    """


# ---------------------------------------------------------------------- innovation
@reproduce_command.command("innovation",
                           short_help="Türkmen et al. 2023: P_rare/AP_rare, Figures 1-2, "
                                      "Tables 1-4.")
@click.argument("qrels", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("runs", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@campaign_options
@output_options("innovation")
@constrained("-k", "--cutoff", constraint=CUTOFF, default=100,
             help="K of P@K, AP@K and of rarity (the runs' top K).")
@constrained("--alphas", constraint=ALPHAS, default="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1",
             help="Alpha grid of Figure 2: a,b,c or START:STOP:STEP.")
@constrained("--stability-trials", constraint=TRIALS, default=1000,
             help="Table 2: random half-topic subsets.")
@constrained("--fuzziness", constraint=NONNEGATIVE, default=0.05,
             help="Table 2: absolute difference of means below which a pair ties.")
@constrained("--systems-trials", constraint=TRIALS, default=1000,
             help="Table 3: random system samples per N (the paper's 1000: about 43 s CPU "
                  "on 63 runs; 100 for a quick look).")
@constrained("--table4-runs", constraint=COUNT, default=3,
             help="Table 4: runs with the largest rank gain from P@K to P_rare@K.")
@constrained("--table4-docs", constraint=COUNT, default=5,
             help="Table 4: rarest relevant documents listed per run.")
@click.option("--figure1-topic", default=None,
              help="Figure 1: the topic (default: the one whose best run's P@K is the median).")
@constrained("--figure1-points", constraint=COUNT, default=40,
             help="Figure 1: at most this many values of D (one small campaign each).")
@click.option("--figure1/--no-figure1", default=True,
              help="Run the synthetic insertion experiment of Figure 1.")
@constrained("--seed", constraint=SEED, default=0, help="Seed of every random step.")
@click.pass_context
def innovation_command(click_ctx, qrels, runs, output, svg, dpi, progress, cutoff, alphas,
                       stability_trials, fuzziness, systems_trials, table4_runs, table4_docs,
                       figure1_topic, figure1_points, figure1, seed, **options):
    """Türkmen et al. (ECIR 2023): P_rare@K and AP_rare@K, "innovation" metrics.

    \b
    Figure 1  a hypothetical system retrieving D rare (new) or D common relevant
              documents on one topic, ranked among the runs by P_rare@K, alpha 0/.5/1.
    Figure 2  Kendall's tau between P@K and P_rare(alpha)@K, AP@K and AP_rare(alpha)@K
              over the alpha grid (tau_AP too).
    Table 1   discriminative power: significant pairs at 95%/99% for alpha 0/.5/1 with
              the paper's per-pair two-group Tukey HSD and the two-way Tukey HSD.
    Table 2   stability: STABILITY_TRIALS subsets of round(T/2) topics, fuzziness 0.05 (absolute),
              stability = sum max(wins) / (pairs x trials).
    Table 3   Algorithm 1: for N = 2, 4, ..., 64 (<= runs), SYSTEMS_TRIALS draws of N runs,
              rarity recomputed on the sample, mean Kendall's tau with the full ranking;
              alpha = 1.
    Table 4   the rarest relevant documents (explain_documents) of the runs whose rank
              gains the most from P@K to P_rare(alpha=1)@K.

    Binary relevance is grade >= -l (default 1). Means are over the topics with a
    relevant document.
    """
    from irmeta.reproduce import innovation

    refuse(click_ctx, ["figure1_topic", "figure1_points"], other="--no-figure1",
           when=not figure1, because="they set up Figure 1's experiment")
    campaign, ctx = _load(qrels, runs, options)
    params = innovation.InnovationParams(cutoff=cutoff, rel_level=options["rel_level"],
                                         alphas=tuple(alphas),
                                         stability_trials=stability_trials, fuzziness=fuzziness,
                                         systems_trials=systems_trials,
                                         table4_runs=table4_runs, table4_docs=table4_docs,
                                         figure1_topic=figure1_topic, figure1_points=figure1_points,
                                         seed=seed)
    result = innovation.reproduce(campaign, output, params=params, inputs=_inputs(ctx, options),
                                  command=_command_line("innovation"), progress=progress,
                                  formats=_formats(svg), dpi=dpi, figure1=figure1)
    _done(result)


# ---------------------------------------------------------------------- nrg
@reproduce_command.command("nrg",
                           short_help="Bigdeli et al. 2024: Normalized Residual Gain, Table 1, "
                                      "Figures 1-5.")
@click.argument("qrels", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("runs", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@campaign_options
@output_options("nrg")
@constrained("-k", "--cutoff", constraint=CUTOFF, default=10,
             help="Cutoff of nDCG@k and of the chronological / all-others NRG.")
@constrained("--pool-depth", constraint=CUTOFF, default=10,
             help="K of the unique-contribution variants (the track's pool depth).")
@constrained("--alpha", constraint=ALPHA, default=1.0, help="Alpha of P_rare@k (Figure 4).")
def nrg_command(qrels, runs, output, svg, dpi, progress, cutoff, pool_depth, alpha, **options):
    """Bigdeli et al. (SIGIR-AP 2024): Normalized Residual Gain.

    \b
    Table 1   the paper's worked example (three rankings of ten items), recomputed.
    Figure 1  (a) runs in campaign order: nDCG@k and NRG@k with the earlier runs as
              the prior; (b) NRG@k with every other run as the prior vs nDCG@k.
    Figure 2  NRG (nDCG, full depth; prior = best run of every other group) vs nDCG@k,
              coloured by group (--groups FILE; without it each run is its own group).
    Figure 3  NRG from P@K (K = --pool-depth), same prior: unique contributions; the
              table counts the relevant documents only one run has in its top K.
    Figure 4  P_rare(alpha)@k vs nDCG@k.
    Figure 5  TaSC@k (prior = best run of every other group) vs nDCG@k.
    The table of values has one row per run with every measure.
    """
    from irmeta.reproduce import nrg

    campaign, ctx = _load(qrels, runs, options)
    params = nrg.NRGParams(cutoff=cutoff, pool_depth=pool_depth, alpha=alpha,
                           rel_level=options["rel_level"])
    result = nrg.reproduce(campaign, output, groups=ctx["groups"], params=params,
                           inputs=_inputs(ctx, options), command=_command_line("nrg"),
                           progress=progress, formats=_formats(svg), dpi=dpi)
    _done(result)


# ---------------------------------------------------------------------- twist
@reproduce_command.command("twist",
                           short_help="Twist: archetypes, effort/gain grids, Tables 3-4, "
                                      "Figures 13-14.")
@click.argument("qrels", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("runs", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@campaign_options
@output_options("twist")
@constrained("--depth", constraint=DEPTH, default=1000, help="Depth N of Twist.")
@constrained_choice("--crossing", constraint=Choice(("matters", "formal")), default="matters",
                    help="First-crossing rule of the CRP curve (archetypes).")
@constrained("--top-fraction", constraint=FRACTION, default=0.75,
             help="Share of the runs kept by MAP for Tables 3-4 and Figures 13-14.")
@click.option("--filter-all", is_flag=True,
              help="Also restrict Table 2 and the effort/gain grids to those runs.")
@constrained("--discpower-trials", constraint=TRIALS, default=1000,
             help="Figure 14: bootstrap resamples B.")
@constrained("--repeats", constraint=TRIALS, default=1,
             help="Figure 13: independent pool downsamplings averaged.")
@constrained("--level", constraint=PROBABILITY, default=0.05,
             help="Figure 14: significance level.")
@constrained("--seed", constraint=SEED, default=0, help="Seed of every random step.")
def twist_command(qrels, runs, output, svg, dpi, progress, depth, crossing, top_fraction,
                  filter_all, discpower_trials, repeats, level, seed, **options):
    """The Twist paper: effort-aware evaluation with CRP curves.

    \b
    example       the RP and CRP vectors of the paper's worked example, recomputed.
    Table 2       archetypes of the CRP curves (percent of run x topic curves), beside
                  the paper's TREC 10/14/20/21 values.
    Figures 7-10  effort/gain grids of Twist against AP, bpref, RBP(p=0.8), nDCG with
                  the diagonal and high-gain/high-effort shares.
    Figure 12     distribution of the run means of each measure (all runs).
    Tables 3-4    Kendall's tau (and p-values) between AP, bpref, RBP(p=0.8), nDCG and
                  Twist, beside the paper's.
    Figure 13     pool downsampling to 90/70/50/30/10% (stratified per topic and grade,
                  >= 1 relevant and 10 non-relevant per topic), tau with the full pool.
    Figure 14     paired bootstrap (B = 1000, 0.05): ASL curves, DP, delta.
    As in the paper, Tables 3-4 and Figures 13-14 use the top 75% of runs by MAP.
    """
    from irmeta.reproduce import twist

    campaign, ctx = _load(qrels, runs, options)
    params = twist.TwistParams(depth=depth, crossing=crossing, rel_level=options["rel_level"],
                               top_fraction=top_fraction, filter_all=filter_all,
                               repeats=repeats, discpower_trials=discpower_trials, level=level,
                               seed=seed)
    result = twist.reproduce(campaign, output, params=params, inputs=_inputs(ctx, options),
                             command=_command_line("twist"), progress=progress,
                             formats=_formats(svg), dpi=dpi)
    _done(result)


# ---------------------------------------------------------------------- gawm
@reproduce_command.command("gawm",
                           short_help="GAWM vs HITS: Tables 2-3, Figures 2-6 "
                                      "(campaign or --matrix).")
@click.argument("qrels", required=False, type=click.Path(exists=True, dir_okay=False))
@click.argument("runs", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@campaign_options
@output_options("gawm")
@click.option("-m", "--measure", default="AP", metavar="MEASURE", callback=one_measure_option,
              help="Measure whose runs x topics matrix is analysed (campaign input).")
@click.option("--matrix", "matrix_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Read the systems x topics matrix from FILE instead of "
                                 "QRELS RUN... (long or wide, plain or gzip).")
@constrained_choice("--rows", constraint=ROWS, default=None,
                    help="For a wide --matrix file whose header does not say it: what the "
                         "rows are.")
@click.option("--measure-name", default=None,
              help="For a long --matrix file with a measure column: the measure to keep.")
@constrained_choice("--axioms", constraint=AXIOMS, case_sensitive=False, default="A",
                    help="Axioms of Tables 2-3 and Figures 3-5 (Figure 6 uses B, as the "
                         "paper).")
@click.option("--name", default=None, help="Label of the collection in the tables.")
@click.pass_context
def gawm_command(click_ctx, qrels, runs, output, svg, dpi, progress, measure, matrix_path, rows,
                 measure_name, axioms, name, **options):
    """The GAWM paper: adaptive weighted means of a systems x topics matrix, vs HITS.

    \b
    Table 2   Pearson's r of MAP/AAP with GAWM's E_s/E_t and W_s/W_t, and with HITS.
    Figure 2  HITS authority/hub and GAWM effectiveness/weight against MAP (a), AAP (b).
    Table 3   Pearson(MAP, W_s) and Pearson(AAP, W_t) for each topic mean M_t.
    Figure 3  the matrix heat map with side bars (means, authorities, weights).
    Figure 4  the 5 x 5 (M_s, M_t) ranking grid with the MAP leader traced.
    Figure 5  confidence that the best system beats the median / worst one.
    Figure 6  leave-one-topic-out predictivity (axioms B).
    Input: QRELS RUN... (matrix of -m MEASURE, default AP) or --matrix FILE.
    """
    from irmeta.reproduce import gawm

    refuse(click_ctx, [*CAMPAIGN_ONLY, "rel_level"],
           other="--matrix", when=matrix_path is not None,
           because="a score matrix has no qrels or rankings; these options say how to "
                   "read and evaluate a campaign")
    refuse(click_ctx, ["rows", "measure_name"], other="a campaign (no --matrix)",
           when=matrix_path is None, because="it says how to read a --matrix FILE")
    if matrix_path:
        if qrels or runs or options.get("demo"):
            raise click.UsageError("give either --matrix FILE or QRELS RUN... (or --demo), "
                                   "not both")
        from irmeta.io.matrix import read_matrix
        frame = read_matrix(matrix_path, rows=rows, measure=measure_name)
        stem = os.path.basename(matrix_path)
        for ext in (".gz", ".csv", ".tsv", ".txt"):
            stem = stem[: -len(ext)] if stem.endswith(ext) else stem
        label = name or stem
        inputs = [("matrix file", os.path.basename(matrix_path))]
    else:
        from irmeta.evaluation import evaluate
        campaign, ctx = _load(qrels, runs, options)
        res = evaluate(campaign, measures=[measure], rel_level=options["rel_level"],
                       groups=ctx["groups"])
        frame = res.matrix(0)
        label = name or f"{'demo' if options.get('demo') else 'campaign'} {measure}"
        inputs = _inputs(ctx, options) + [
            ("matrix", f"{measure} per run and topic over the {frame.shape[1]} topics with a "
                       f"relevant document (grade ≥ {options['rel_level']})")]
    params = gawm.GAWMParams(measure=measure if not matrix_path else "(from the file)",
                             axioms=axioms.upper())
    result = gawm.reproduce(frame, output, params=params, name=label, inputs=inputs,
                            command=_command_line("gawm"), progress=progress,
                            formats=_formats(svg), dpi=dpi)
    _done(result)
