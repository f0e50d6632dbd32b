"""``irmeta reproduce innovation|nrg|twist|gawm``: a paper's tables and figures, computed
with the paper's own procedure and parameters, on any campaign (or score matrix)."""

from __future__ import annotations

import importlib
import os
from dataclasses import MISSING, fields
from pathlib import Path
from typing import Any

import click

from irmeta.cli.aggregate import CAMPAIGN_ONLY, ROWS
from irmeta.cli.common import campaign_options, load_cli_campaign, one_measure_option
from irmeta.cli.notes import note
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.constraints import Choice, Flag, Integer
from irmeta.reproduce.params import GAWMParams, InnovationParams, NRGParams, TwistParams

#: PNG resolution: below 30 dpi a figure is unreadable
DPI = Integer(low=30)


def _command_line(paper: str) -> str:
    """The command that re-runs this reproduction from the folder of its page (the
    output folder): parameters given on the command line, paths relative to the page,
    the runs as ``DIR/*`` when they are a folder's whole listing
    (:func:`irmeta.cli.rerun.rerun_command`, as ``irmeta report``)."""
    from irmeta.cli.rerun import rerun_command
    ctx = click.get_current_context()
    base = Path(os.path.abspath(ctx.params.get("output") or "."))
    return rerun_command(ctx, ["irmeta", "reproduce", paper], base)


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


def _param_option(f, callback: Any = None) -> Any:
    """The click option of one declared field (:func:`irmeta.reproduce.params.doc`);
    ``callback``: click's, for a check the CLI adds (``-m``: exactly one measure)."""
    meta = f.metadata
    decls = (*meta["option"], f.name)
    default = f.default if f.default is not MISSING else f.default_factory()
    text = meta["cli_help"] or meta["doc"][0].upper() + meta["doc"][1:] + "."
    constraint = meta["constraint"]
    extra = dict(meta["click"])
    if callback is not None:
        extra["callback"] = callback
    if isinstance(constraint, Flag):
        return click.option(*decls, is_flag=True, default=default, help=text, **extra)
    if isinstance(constraint, Choice):
        return constrained_choice(*decls, constraint=constraint, default=default, help=text,
                                  **extra)
    if constraint is None:
        return click.option(*decls, default=default, help=text, **extra)
    if isinstance(default, tuple):          # shown and parsed as the command line writes it
        default = ",".join(f"{x:g}" for x in default)
    return constrained(*decls, constraint=constraint, default=default, help=text, **extra)


def param_options(params_cls: type, callbacks: dict[str, Any] | None = None) -> Any:
    """The options of a reproduction's parameters dataclass: one per field that declares
    ``option`` spellings, in field order, storing into the field of the same name with the
    field's default, constraint and meaning (declared once, in
    :mod:`irmeta.reproduce.params`). ``callbacks``: field name -> click callback of its
    option (a check that needs the CLI layer, such as :func:`one_measure_option`)."""
    callbacks = callbacks or {}
    declared = [f for f in fields(params_cls) if f.metadata.get("option")]

    def deco(fn: Any) -> Any:
        for f in reversed(declared):
            fn = _param_option(f, callbacks.get(f.name))(fn)
        return fn
    return deco


def param_values(params_cls: type, options: dict) -> dict:
    """The values of ``params_cls``' declared options, taken out of ``options`` (the rest
    says how to read the campaign)."""
    return {f.name: options.pop(f.name) for f in fields(params_cls)
            if f.metadata.get("option")}


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
    note(f"irmeta: wrote {result.path} and {len(result.files)} files in "
         f"{result.path.parent / 'index_files'} ({wall:.1f} s wall, {cpu:.1f} s CPU)")


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


def paper_command(paper: str, params_cls: type, *, callbacks: dict[str, Any] | None = None,
                  **command: Any) -> Any:
    """``irmeta reproduce PAPER [QRELS RUN...]``: the command with the campaign options,
    the output options and the options of the paper's parameters dataclass
    (``callbacks``: see :func:`param_options`)."""
    def deco(fn: Any) -> Any:
        fn = param_options(params_cls, callbacks)(fn)
        fn = output_options(paper)(fn)
        fn = campaign_options(fn)
        fn = click.argument("runs", nargs=-1, type=click.Path(exists=True, dir_okay=False))(fn)
        fn = click.argument("qrels", required=False,
                            type=click.Path(exists=True, dir_okay=False))(fn)
        return reproduce_command.command(paper, **command)(fn)
    return deco


def _reproduce(paper: str, params_cls: type, qrels, runs, options: dict, *, output, svg: bool,
               dpi: int, progress, **extra: Any) -> None:
    """Load the campaign, build the paper's parameters from the options and ``-l``, and
    write the reproduction (``extra``: keywords of the paper's ``reproduce``)."""
    module = importlib.import_module(f"irmeta.reproduce.{paper}")
    values = param_values(params_cls, options)
    campaign, ctx = _load(qrels, runs, options)
    if paper == "nrg":
        extra["groups"] = ctx["groups"]
    result = module.reproduce(campaign, output,
                              params=params_cls(**values, rel_level=options["rel_level"]),
                              inputs=_inputs(ctx, options), command=_command_line(paper),
                              progress=progress, formats=_formats(svg), dpi=dpi, **extra)
    _done(result)


# ---------------------------------------------------------------------- innovation
@paper_command("innovation", InnovationParams,
               short_help="Türkmen et al. 2023: P_rare/AP_rare, Figures 1-2, "
                          "Tables 1-4.")
@click.option("--figure1/--no-figure1", default=True,
              help="Run the synthetic insertion experiment of Figure 1.")
@click.pass_context
def innovation_command(click_ctx, qrels, runs, output, svg, dpi, progress, figure1, **options):
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
    refuse(click_ctx, ["figure1_topic", "figure1_points"], other="--no-figure1",
           when=not figure1, because="they set up Figure 1's experiment")
    _reproduce("innovation", InnovationParams, qrels, runs, options, output=output, svg=svg,
               dpi=dpi, progress=progress, figure1=figure1)


# ---------------------------------------------------------------------- nrg
@paper_command("nrg", NRGParams,
               short_help="Bigdeli et al. 2024: Normalized Residual Gain, Table 1, "
                          "Figures 1-5.")
def nrg_command(qrels, runs, output, svg, dpi, progress, **options):
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
    _reproduce("nrg", NRGParams, qrels, runs, options, output=output, svg=svg, dpi=dpi,
               progress=progress)


# ---------------------------------------------------------------------- twist
@paper_command("twist", TwistParams,
               short_help="Twist: archetypes, effort/gain grids, Tables 3-4, "
                          "Figures 13-14.")
def twist_command(qrels, runs, output, svg, dpi, progress, **options):
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
    _reproduce("twist", TwistParams, qrels, runs, options, output=output, svg=svg, dpi=dpi,
               progress=progress)


# ---------------------------------------------------------------------- gawm
@paper_command("gawm", GAWMParams, callbacks={"measure": one_measure_option},
               short_help="GAWM vs HITS: Tables 2-3, Figures 2-6 "
                          "(campaign or --matrix).")
@click.option("--matrix", "matrix_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Read the systems x topics matrix from FILE instead of "
                                 "QRELS RUN... (long or wide, plain or gzip).")
@constrained_choice("--rows", constraint=ROWS, default=None,
                    help="For a wide --matrix file whose header does not say it: what the "
                         "rows are.")
@click.option("--measure-name", default=None,
              help="For a long --matrix file with a measure column: the measure to keep.")
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
    params = GAWMParams(measure=measure if not matrix_path else "(from the file)",
                        axioms=axioms.upper())
    result = gawm.reproduce(frame, output, params=params, name=label, inputs=inputs,
                            command=_command_line("gawm"), progress=progress,
                            formats=_formats(svg), dpi=dpi)
    _done(result)
