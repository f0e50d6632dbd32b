"""``irmeta report``: evaluate a whole campaign into one self-contained HTML report."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import click

from irmeta.cli.common import campaign_options, load_cli_campaign, one_measure_option
from irmeta.cli.notes import note
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.shards import open_cli_shards, shard_options
from irmeta.constraints import (
    ALPHA,
    CUTOFF,
    DEPTH,
    NONNEGATIVE,
    PROBABILITY,
    SEED,
    TRIALS,
    Choice,
    ListOf,
)


def _sections() -> tuple[str, ...]:
    """The report's sections ``--skip`` accepts, in page order: the one list,
    :data:`irmeta.report.options.SECTIONS` (defined in :mod:`irmeta.report.section_names`,
    which imports nothing; read when needed, so that importing this module loads nothing
    of the report)."""
    from irmeta.report.section_names import SECTIONS
    return SECTIONS


def _skip(ctx, param, value):
    sections = _sections()
    out = set()
    for item in value or ():
        for name in item.split(","):
            name = name.strip().lower()
            if not name:
                continue
            if name not in sections:
                from irmeta.suggest import unknown
                raise click.BadParameter(unknown("section", name, sections))
            out.add(name)
    return frozenset(out)


class _SkipOption(click.Option):
    """``--skip``, whose help lists the sections of :func:`_sections`, read when the help
    is shown (``irmeta report --help``), not when this module is imported."""

    @property                                          # type: ignore[override]
    def help(self) -> str:
        return ("Leave sections out (repeatable or comma-separated): "
                f"{', '.join(_sections())}. trust and effort are the most expensive.")

    @help.setter
    def help(self, value) -> None:          # click.Option.__init__ sets it: the text is ours
        pass


def _command_line(ctx: click.Context) -> str:
    """The command that reproduces this report, run from the folder of the page
    (:func:`irmeta.cli.rerun.rerun_command`)."""
    from irmeta.cli.rerun import rerun_command
    base = Path(os.path.abspath(ctx.params.get("output") or "report.html")).parent
    return rerun_command(ctx, ["irmeta", "report"], base, sections=_sections())


#: the constraint of each ReportOptions field the command sets, equal to
#: ``irmeta.report.options.OPTION_CONSTRAINTS`` (a test checks it): written out here
#: because importing ``irmeta.report`` loads the whole report (seconds) and ``irmeta report
#: --help`` should not
REPORT_CONSTRAINTS = {
    "seed": SEED, "discpower_trials": TRIALS, "stability_trials": TRIALS,
    "level": PROBABILITY,
    "fuzziness": NONNEGATIVE, "alphas": ListOf(ALPHA, min_items=2), "rare_cutoff": CUTOFF,
    "nrg_cutoff": CUTOFF, "nrg_prior": Choice(("auto", "others", "best_per_group", "earlier")),
    "twist_depth": replace(DEPTH, optional=True),
    "test": Choice(("paired_t", "wilcoxon", "randomisation", "bootstrap")),
    "ci_level": PROBABILITY, "ci_trials": TRIALS,
}
#: ``--correction``: ReportOptions.correction's choices, and ``none`` for None (as in meta)
CORRECTION = Choice(("bonferroni", "holm", "fdr_bh", "none"))


def _option(name: str, **kwargs):
    """The option ``name`` (``--rare-cutoff``), declared from the constraint of the
    ReportOptions field of the same name (``rare_cutoff``): the option and the field
    cannot be spelt differently."""
    field = name.lstrip("-").replace("-", "_")
    constraint = REPORT_CONSTRAINTS[field]
    if isinstance(constraint, Choice):
        return constrained_choice(name, field, constraint=constraint, **kwargs)
    return constrained(name, field, constraint=constraint, **kwargs)


@click.command("report")
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@campaign_options
@shard_options
@click.option("-o", "--output", default="report.html", show_default=True,
              type=click.Path(dir_okay=False, writable=True),
              help="HTML file to write; tables (TSV) and figures (PNG, SVG) go to "
                   "<name>_files/ next to it.")
@click.option("--title", default=None,
              help="Page title (default: the --campaign-info title, else 'Campaign report: "
                   "<qrels file name>').")
@click.option("--campaign-info", "campaign_info", default=None, metavar="FILE",
              type=click.Path(dir_okay=False),
              help="What the campaign is (TOML: title, track, year, description, pool_depth, "
                   "judging, qrels_version, [links]): shown at the top of the page; "
                   "docs/report.md.")
@click.option("--skip", cls=_SkipOption, multiple=True, callback=_skip,
              metavar="SECTION[,SECTION]")
@_option("--seed", default=0, show_default=True,
         help="Seed of every random procedure (bootstrap, topic subsampling).")
@_option("--discpower-trials", default=1000, show_default=True,
         help="Bootstrap resamples of the discriminative-power test (trust section).")
@_option("--stability-trials", default=1000, show_default=True,
         help="Topic-subsampling trials of the stability analysis (trust section).")
@_option("--level", default=0.05, show_default=True,
         help="Significance level.")
@_option("--test", default="paired_t", show_default=True,
         help="Paired test of the leaderboard's significance markers.")
@constrained_choice("--correction", constraint=CORRECTION, default="holm", show_default=True,
                    help="Multiple-comparison correction of the leaderboard's markers.")
@_option("--ci-level", default=0.95, show_default=True,
         help="Confidence level of the leaderboard's bootstrap intervals.")
@_option("--ci-trials", default=10000, show_default=True,
         help="Bootstrap resamples of the leaderboard's confidence intervals.")
@_option("--fuzziness", default=0.05, show_default=True,
         help="Stability: absolute difference of means below which two runs tie.")
@_option("--alphas", default="0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1",
         show_default=True,
         help="Alpha grid of the innovation (Kendall tau vs alpha) curves: a,b,c or "
              "START:STOP:STEP.")
@_option("--rare-cutoff", default=100, show_default=True,
         help="Cutoff K of P_rare/AP_rare and of the unique-document count.")
@_option("--nrg-cutoff", default=10, show_default=True,
         help="Cutoff of NRG and nDCG in the NRG section.")
@_option("--nrg-prior", default="auto", show_default=True,
         help="NRG prior set; auto = best_per_group with --groups, else others.")
@_option("--twist-depth", default=None,
         help="Depth N of Twist (shorter rankings are padded; default: the runs' depth).")
@click.option("--run-info", "run_info", type=click.Path(exists=True, dir_okay=False),
              default=None, metavar="FILE",
              help="Run attributes (TSV: a header row 'run<TAB>attribute...', then one row "
                   "per run): leaderboard columns and filters; the first attribute colours "
                   "the figures coloured by group.")
@click.option("--primary", default=None, metavar="MEASURE", callback=one_measure_option,
              help="Primary measure: orders the leaderboard (with intervals and tests), the "
                   "rank changes and the summary (default: nDCG@10 for graded qrels and "
                   "runs of at most 100 documents, else AP).")
@click.option("--gain", default=None, metavar="MEASURE", callback=one_measure_option,
              help="Gain measure of the effort/gain grid (one measure; default: the "
                   "primary measure).")
@click.option("--matrix-measure", default=None, metavar="MEASURE",
              callback=one_measure_option,
              help="Measure of the runs x topics matrix aggregated by GAWM and HITS "
                   "(default: the primary measure).")
@click.option("--baseline", default=None, metavar="RUN",
              help="A run of the campaign: the risk section shows every run's topics won, "
                   "lost and tied against it, URisk and TRisk (alpha 1) and a win/loss "
                   "figure (default: only the campaign-wide ZRisk and GeoRisk).")
@click.option("--export-groups", "export_groups", default=None, metavar="DIR",
              type=click.Path(file_okay=False),
              help="Also write DIR/<group>/ and DIR/<group>.zip per group (needs --groups): "
                   "its runs' appendix pages and the campaign-wide tables, nothing of "
                   "another group's runs; ready to mail.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: when stderr is a terminal).")
@click.pass_context
def report_command(click_ctx, qrels, runs, output, title, campaign_info, skip, seed,
                   discpower_trials, stability_trials, level, test, correction, ci_level,
                   ci_trials, fuzziness, alphas, rare_cutoff, nrg_cutoff, nrg_prior,
                   twist_depth, run_info, primary, gain, matrix_measure, baseline, export_groups,
                   progress, **options):
    """Evaluate every run of a campaign into one HTML report.

    Seven sections: a sortable leaderboard (the primary measure with confidence
    intervals and significance markers, GeoRisk, classic and context measures, rank
    changes, per-topic results of every run), risk (against --baseline: wins, losses,
    URisk, TRisk; ZRisk and GeoRisk against every run), innovation (rare relevant
    documents), NRG, effort (Twist), topics and systems (GAWM, HITS), and trust
    (discriminative power, stability, Kendall tau between measures). The page works
    offline (plots embedded); every table is also written as TSV and every figure as
    PNG and SVG in <name>_files/.
    Means are over the campaign topic set (qrels topics with a relevant document,
    a missing topic scoring an empty ranking), so -c changes nothing here.

    \b
    Examples:
      irmeta report --demo                         # the shipped demo campaign
      irmeta report qrels.txt runs/*.gz --groups groups.txt -o dl21.html
      irmeta report qrels.txt runs/*.gz --skip trust,effort   # faster
      irmeta report qrels.txt runs/*.gz --baseline bm25       # risk against a run
    """
    from irmeta.report import ReportOptions, campaign_report

    refuse(click_ctx, ["complete"], other="irmeta report",
           because="the report's means are over the campaign topic set (a topic missing "
                   "from a run already scores an empty ranking)")
    export_to = export_groups
    if export_to is not None:       # refused before any work
        if not options.get("groups_file") and not options.get("demo"):
            raise click.UsageError("--export-groups needs --groups: the folders are per "
                                   "group")
        if "appendix" in skip:
            raise click.UsageError("--export-groups does not apply with --skip appendix: "
                                   "the folders hold the runs' appendix pages")
        from irmeta.io.output import check_folder_target
        check_folder_target(export_to)
        assets = (Path(output).parent / f"{Path(output).stem}_files").resolve()
        if assets == Path(export_to).resolve() or assets in Path(export_to).resolve().parents:
            raise click.UsageError(f"--export-groups {export_to} is inside the report's own "
                                   f"folder {assets}, which the next report replaces")
    shards = click_ctx.with_resource(         # None: the campaign fits in memory
        open_cli_shards(qrels, runs, options, progress=progress))
    campaign, ctx = shards or load_cli_campaign(qrels, runs, options)
    opts = ReportOptions(rel_level=options.get("rel_level", 1), seed=seed,
                         discpower_trials=discpower_trials,
                         stability_trials=stability_trials, level=level, test=test,
                         correction=None if correction == "none" else correction,
                         ci_level=ci_level, ci_trials=ci_trials, fuzziness=fuzziness,
                         alphas=alphas,
                         rare_cutoff=rare_cutoff, nrg_cutoff=nrg_cutoff, nrg_prior=nrg_prior,
                         twist_depth=twist_depth, primary=primary, gain=gain,
                         matrix_measure=matrix_measure, run_info=run_info,
                         campaign_info=campaign_info, skip=skip, progress=progress,
                         baseline=baseline)
    inputs = {"qrels": ctx["qrels"], "runs": ctx["runs"], "groups": options.get("groups_file")}
    if options.get("demo"):
        inputs["campaign"] = "the demo campaign shipped with irmeta (simulated data, irmeta.demo)"
    result = campaign_report(campaign, output, groups=ctx["groups"], options=opts,
                             reference=ctx["reference"], prior_runs=ctx["prior_runs"],
                             inputs=inputs, command=_command_line(click_ctx),
                             title=title or (None if campaign_info else
                                             "irmeta demo campaign report" if
                                             options.get("demo") else
                                             f"Campaign report: {Path(str(qrels)).name}"))
    note(f"irmeta: wrote {result.path} ({len(result.files)} files in "
         f"{result.path.parent / (result.path.stem + '_files')})")
    if export_to is not None:
        from irmeta.report.export import export_groups
        done = export_groups(result, export_to)
        note(f"irmeta: wrote {len(done.groups)} group folders and zips in "
             f"{done.folder}")
