"""``irmeta meta``: meta-evaluation of measures on a campaign.

Subcommands: ``correlation`` (Kendall / tau_AP matrix, alpha sweep), ``significance``
(tests between systems), ``leaderboard`` (ranks with intervals and tests), ``discpower``
(discriminative power, ASL curves),
``stability`` (fuzziness stability, Buckley-Voorhees rates), ``downsample`` (pool
downsampling), ``systems`` (dependence on the set of systems). Each takes QRELS and
RUN files (or ``--demo``) and measures (``-m``, repeatable), prints a table, and writes
the figure with ``--plot PATH`` (PNG and SVG).
"""

from __future__ import annotations

import click

from irmeta.cli.common import (
    campaign_options,
    load_cli_campaign,
    one_measure_option,
    open_output,
    output_option,
    refuse_unused_context,
)
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.shards import shard_options
from irmeta.cli.tables import digits_option, format_option, write_table
from irmeta.constraints import (
    ALPHA,
    COUNT,
    FRACTION,
    NONNEGATIVE,
    PROBABILITY,
    SEED,
    TRIALS,
    Choice,
    Integer,
    ListOf,
    Real,
)

#: the tests of ``irmeta.stats.significance.TESTS`` under their canonical names
TESTS = Choice(("paired_t", "wilcoxon", "randomisation", "bootstrap", "tukey_hsd",
                "randomised_tukey_hsd", "pairwise_tukey"))


def _common(fn):
    options = [
        click.argument("qrels", required=False),
        click.argument("runs", nargs=-1),
        click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
                     callback=one_measure_option,
                     help="Measure (repeatable): AP@100, P@100, nDCG, bpref, RBP(p=0.8), "
                          "P_rare(alpha=0.5)@100, Twist@1000, ..."),
        constrained("--top-fraction", constraint=FRACTION, default=None,
                    help="Keep only the best fraction of runs (ceil) by --by first "
                         "(the Twist paper uses 0.75)."),
        click.option("--by", default="AP", show_default=True, metavar="MEASURE",
                     callback=one_measure_option,
                     help="Measure that ranks runs for --top-fraction."),
        constrained("--seed", constraint=SEED, default=0, show_default=True,
                    help="Seed of every random draw (results reproduce bit for bit)."),
        click.option("--plot", "plot_path", type=click.Path(dir_okay=False), default=None,
                     help="Write the figure to PATH (.png and .svg)."),
        format_option(extra=("latex",),
                      help="Table layout: text (aligned), markdown, tsv / csv / json at full "
                           "precision; latex (leaderboard only). The leaderboard's markdown "
                           "and latex carry significance superscripts."),
        digits_option(),
        output_option(),
        click.option("--progress/--no-progress", default=None,
                     help="Progress bar on stderr (default: when stderr is a terminal)."),
        campaign_options,
        shard_options,
        click.pass_context,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _refuse_common(ctx, options: dict, seeded: bool = True) -> None:
    """The refusals every meta subcommand shares."""
    refuse(ctx, ["by"], other="no --top-fraction", when=options.get("top_fraction") is None,
           because="--by ranks the runs --top-fraction keeps")
    refuse(ctx, ["seed"], other=f"irmeta meta {ctx.info_name}", when=not seeded,
           because="this analysis draws nothing at random")
    fmt = options["fmt"]
    refuse(ctx, ["digits"], other=f"--format {fmt}", when=fmt not in ("text", "markdown"),
           because="only text and markdown tables are rounded")
    if fmt == "latex" and ctx.info_name != "leaderboard":
        raise click.UsageError("--format latex is available for 'irmeta meta leaderboard' "
                               "only; use text, markdown, tsv, csv or json here, or "
                               "'irmeta compare --format latex' for the table of a paper")


def _setup(qrels, runs, measures, options, need_measures=True):
    from irmeta.cli.shards import wants_shards
    from irmeta.stats import filter_top_runs
    if need_measures and not measures:
        raise click.UsageError("give at least one measure with -m")
    if wants_shards(qrels, runs, options):
        raise click.UsageError("this analysis needs the whole campaign in memory; sharded "
                               "evaluation (--shard-topics, --workers, --scheduler, a Parquet "
                               "campaign) serves correlation, significance, discpower, "
                               "stability and leaderboard")
    campaign, ctx = load_cli_campaign(qrels, runs, options)
    if options.get("top_fraction"):
        before = campaign.num_runs
        campaign = filter_top_runs(campaign, options["top_fraction"], by=options["by"],
                                   rel_level=options["rel_level"])
        click.echo(f"irmeta: kept the top {campaign.num_runs} of {before} runs by "
                   f"{options['by']}", err=True)
    kwargs = {"groups": ctx["groups"], "reference": ctx["reference"],
              "prior_runs": ctx["prior_runs"]}
    return campaign, kwargs


def _matrices(qrels, runs, measures, options) -> dict:
    """``{measure: matrix}``: shard by shard when the campaign does not fit (or shards are
    asked for, docs/scaling.md), else from the campaign in memory, as always."""
    from irmeta.cli.shards import sharded_matrices
    from irmeta.stats import matrices
    if not measures:
        raise click.UsageError("give at least one measure with -m")
    mats = sharded_matrices(qrels, runs, measures, options)
    if mats is None:
        campaign, kw = _setup(qrels, runs, measures, options)
        mats = matrices(campaign, measures, rel_level=options["rel_level"], **kw)
    return mats


def _progress(options):
    return options.get("progress")


def _emit(frame, options):
    with open_output(options.get("output")) as out:
        write_table(frame, out, options["fmt"], digits=options["digits"], index=False)


def _refuse_no_context(ctx) -> None:
    """For analyses that rebuild the context of every sample themselves."""
    refuse(ctx, ["prior_runs", "groups_file", "reference_runs"],
           other=f"irmeta meta {ctx.info_name}",
           because="this analysis recomputes the context measures on each sample from "
                   "the sampled runs (no fixed prior set, groups or reference)")


@click.group("meta")
def meta_command():
    """Meta-evaluation: can a measure be trusted?

    \b
    Examples:
      irmeta meta correlation --demo -m AP -m nDCG -m bpref -m "RBP(p=0.8)"
      irmeta meta correlation qrels runs/* --sweep "P_rare(alpha={alpha})@100" --baseline P@100
      irmeta meta discpower qrels runs/* -m AP@100 --test tukey_hsd --test pairwise_tukey
      irmeta meta leaderboard qrels runs/* -m nDCG@10 -l 2
      irmeta meta stability qrels runs/* -m P@100 -m AP@100
      irmeta meta downsample qrels runs/* -m AP -m bpref --top-fraction 0.75
      irmeta meta systems qrels runs/* -m "AP_rare(alpha=1)@100" --trials 1000
    """


@meta_command.command("correlation", context_settings={"show_default": True})
@_common
@constrained_choice("--method", constraint=Choice(("kendall", "tau_ap", "tau_ap_sym",
                                                   "spearman", "pearson")),
                    default="kendall", help="Correlation of the system rankings.")
@click.option("--sweep", "sweeps", multiple=True, metavar="TEMPLATE",
              help="Alpha sweep: a measure template with {alpha}, e.g. "
                   "'P_rare(alpha={alpha})@100' (repeatable).")
@click.option("--baseline", "baselines", multiple=True, metavar="MEASURE",
              callback=one_measure_option,
              help="Baseline of each --sweep, in order (default: the template at the first "
                   "alpha).")
@constrained("--alphas", constraint=ListOf(ALPHA), default="0:1:0.1",
             help="Alpha grid of --sweep: START:STOP:STEP or a,b,c.")
def correlation_cmd(click_ctx, qrels, runs, measures, method, sweeps, baselines, alphas,
                    **options):
    """Rank correlation between the system rankings of measures (a matrix), or an
    alpha sweep (innovation paper, Figure 2)."""
    from irmeta.stats import alpha_sweep, correlation_matrix, system_means
    _refuse_common(click_ctx, options, seeded=False)
    refuse(click_ctx, ["baselines", "alphas", "plot_path"], other="no --sweep",
           when=not sweeps, because="they set up the alpha sweep and its figure")
    if not sweeps and len(measures) < 2:
        raise click.UsageError("give at least two measures with -m, or --sweep")
    if not sweeps:
        refuse_unused_context(click_ctx, measures)
        import pandas as pd

        from irmeta.cli.shards import sharded_matrices
        mats = sharded_matrices(qrels, runs, measures, options)
        if mats is not None:
            means = pd.DataFrame({m: mat.mean(axis=1) for m, mat in mats.items()})
            _emit(correlation_matrix(means, method=method).reset_index(), options)
            return
    campaign, kw = _setup(qrels, runs, measures, options, need_measures=False)
    if sweeps:
        grid = list(alphas)
        if len(baselines) > len(sweeps):
            raise click.UsageError("more --baseline than --sweep options")
        fams = {}
        for i, tpl in enumerate(sweeps):
            base = baselines[i] if i < len(baselines) else tpl.format(alpha=f"{grid[0]:.10g}")
            fams[base] = tpl
        methods = tuple(dict.fromkeys([method, "kendall", "tau_ap"]))
        table = alpha_sweep(campaign, fams, alphas=grid, methods=methods,
                            rel_level=options["rel_level"], progress=_progress(options),
                            **kw)
        _emit(table, options)
        if options["plot_path"]:
            from irmeta.plot.meta import alpha_sweep_plot
            alpha_sweep_plot(table, method=method, path=options["plot_path"])
        return
    means = system_means(campaign, measures, rel_level=options["rel_level"], **kw)
    matrix = correlation_matrix(means, method=method).reset_index()
    _emit(matrix, options)


def _random(test: str) -> bool:
    """Whether ``test`` draws at random (takes ``trials`` and ``seed``)."""
    from irmeta.stats.significance import options_for
    return "trials" in options_for(test, trials=1)


@meta_command.command("significance",
                      context_settings={"show_default": True})
@_common
@constrained_choice("--test", constraint=TESTS, default="paired_t",
                    help="Test (pairwise_tukey: reproduction of the innovation paper only).")
@constrained("--level", constraint=PROBABILITY, default=0.05, help="Significance level.")
@constrained_choice("--correction", constraint=Choice(("bonferroni", "holm", "fdr_bh")),
                    default=None, help="Multiple-comparison correction (pairwise tests).")
@constrained("--trials", constraint=TRIALS, default=None,
             help="Resamples / permutations of a random test (default: the test's own: "
                  "bootstrap 1000, randomisation 10000, randomised Tukey 5000).")
@click.option("--per-pair", is_flag=True,
              help="Print one row per pair of systems, not the summary.")
def significance_cmd(click_ctx, qrels, runs, measures, test, level, correction, trials,
                     per_pair, **options):
    """Significance tests between every pair of systems, per measure: a ranx-style
    summary (systems it beats significantly, by rank number) or every pair (--per-pair)."""
    from irmeta.stats import pairwise_test
    _refuse_common(click_ctx, options, seeded=_random(test))
    refuse(click_ctx, ["trials"], other=f"--test {test}", when=not _random(test),
           because="the test draws nothing at random")
    refuse(click_ctx, ["plot_path"], other="irmeta meta significance",
           because="significance draws no figure (leaderboard draws the means with "
                   "intervals)")
    refuse(click_ctx, ["correction"], other=f"--test {test}",
           when=test in ("tukey_hsd", "randomised_tukey_hsd"),
           because="the Tukey tests control the family-wise error themselves")
    refuse_unused_context(click_ctx, measures)
    from irmeta.stats.significance import options_for
    mats = _matrices(qrels, runs, measures, options)
    extra = options_for(test, trials=trials, seed=options["seed"],
                        progress=_progress(options), correction=correction)
    import pandas as pd
    parts = []
    for name, mat in mats.items():
        res = pairwise_test(mat, test, level=level, **extra)
        click.echo(f"# {name}: {res.summary()}", err=True)
        frame = res.to_frame() if per_pair else res.compare_table()
        frame.insert(0, "measure", name)
        parts.append(frame)
    _emit(pd.concat(parts, ignore_index=True), options)


@meta_command.command("leaderboard", context_settings={"show_default": True})
@_common
@constrained_choice("--test", constraint=Choice(("paired_t", "wilcoxon", "randomisation",
                                                 "bootstrap")),
                    default="paired_t", help="Paired test against the best and against the "
                                             "next run.")
@constrained("--level", constraint=PROBABILITY, default=0.05, help="Significance level.")
@constrained_choice("--correction", constraint=Choice(("bonferroni", "holm", "fdr_bh",
                                                       "none")),
                    default="holm", help="Correction within each family of R - 1 "
                                         "comparisons.")
@constrained("--ci-level", constraint=PROBABILITY, default=0.95,
             help="Confidence level of the bootstrap intervals.")
@constrained("--trials", constraint=TRIALS, default=10000,
             help="Bootstrap resamples (and trials of the random tests).")
def leaderboard_cmd(click_ctx, qrels, runs, measures, test, level, correction, ci_level,
                    trials, **options):
    """Runs ranked by each measure, with bootstrap confidence intervals of the mean and
    corrected tests against the best run and against the next run."""
    import pandas as pd

    from irmeta.stats import leaderboard
    _refuse_common(click_ctx, options)
    refuse_unused_context(click_ctx, measures)
    mats = _matrices(qrels, runs, measures, options)    # shard by shard when needed
    parts, boards = [], {}
    for name, mat in mats.items():
        board = leaderboard(mat, test=test, level=level, ci_level=ci_level, trials=trials,
                            correction=None if correction == "none" else correction,
                            seed=options["seed"])
        click.echo(f"# {name}: {board.describe()}", err=True)
        boards[name] = board
        frame = board.table.reset_index()
        frame.insert(0, "measure", name)
        parts.append(frame)
    if options["fmt"] in ("latex", "markdown"):
        from irmeta.stats.leaderboard import to_latex, to_markdown
        write = to_latex if options["fmt"] == "latex" else to_markdown
        with open_output(options.get("output")) as out:
            out.write("\n".join(write(b, measure=name) for name, b in boards.items()))
    else:
        _emit(pd.concat(parts, ignore_index=True), options)
    if options["plot_path"]:
        from pathlib import Path

        from irmeta.plot.meta import leaderboard_plot
        base = Path(options["plot_path"])
        for k, (name, board) in enumerate(boards.items(), start=1):
            # one figure per measure: PATH for one, PATH-1, PATH-2, ... for several
            path = base if len(boards) == 1 else base.with_name(f"{base.stem}-{k}{base.suffix}")
            leaderboard_plot(board, path=path, title=name)


@meta_command.command("discpower",
                      context_settings={"show_default": True})
@_common
@constrained_choice("--test", "tests", constraint=TESTS, multiple=True, default=("bootstrap",),
                    help="Test(s) (repeatable).")
@constrained("--level", "levels", constraint=PROBABILITY, multiple=True,
             default=(0.05, 0.01), help="Significance level(s) (repeatable).")
@constrained("--trials", constraint=TRIALS, default=None,
             help="Resamples / permutations of the random tests (default: each test's own: "
                  "bootstrap 1000, randomisation 10000, randomised Tukey 5000).")
def discpower_cmd(click_ctx, qrels, runs, measures, tests, levels, trials, **options):
    """Discriminative power: significant system pairs per measure, test and level
    (innovation paper Table 1; Twist paper Figure 14). --plot draws the bootstrap ASL
    curves at the first level."""
    from irmeta.stats import bootstrap_power, discriminative_power
    tests = tuple(dict.fromkeys(tests))
    seeded = any(_random(t) for t in tests) or options["plot_path"] is not None
    _refuse_common(click_ctx, options, seeded=seeded)
    refuse(click_ctx, ["trials"], other="--test " + ", ".join(tests), when=not seeded,
           because="none of these tests draws at random")
    refuse_unused_context(click_ctx, measures)
    mats = _matrices(qrels, runs, measures, options)
    import pandas as pd
    parts = []
    for name, mat in mats.items():
        for test in tests:
            parts.append(discriminative_power(
                {name: mat}, tests=[test], levels=levels, seed=options["seed"],
                trials=trials if _random(test) else None, progress=_progress(options)))
    _emit(pd.concat(parts, ignore_index=True), options)
    if options["plot_path"]:
        from irmeta.plot.meta import asl_plot
        summary, curves = bootstrap_power(mats, level=levels[0], trials=trials or 1000,
                                          seed=options["seed"], progress=_progress(options))
        asl_plot(curves, level=levels[0], summary=summary, path=options["plot_path"])


@meta_command.command("stability", context_settings={"show_default": True})
@_common
@constrained("--trials", constraint=TRIALS, default=1000, help="Topic subsets.")
@constrained("--subset-size", constraint=COUNT, default=None,
             help="Topics per subset (default round(T/2); Buckley-Voorhees: T//2).")
@constrained("--fuzziness", constraint=NONNEGATIVE, default=0.05,
             help="Differences up to this are ties (absolute for the stability ratio).")
@click.option("--relative/--absolute", default=True, show_default=True,
              help="Buckley-Voorhees fuzziness relative to the larger mean, or absolute.")
def stability_cmd(click_ctx, qrels, runs, measures, trials, subset_size, fuzziness, relative,
                  **options):
    """Stability under topic subsampling: the innovation paper's fuzziness ratio
    (Table 2) and the Buckley-Voorhees error, tie and swap rates."""
    from irmeta.stats import stability_table
    _refuse_common(click_ctx, options)
    refuse_unused_context(click_ctx, measures)
    mats = _matrices(qrels, runs, measures, options)
    table = stability_table(mats, trials=trials, subset_size=subset_size, fuzziness=fuzziness,
                            seed=options["seed"], relative=relative,
                            progress=_progress(options))
    _emit(table, options)
    if options["plot_path"]:
        from irmeta.plot.meta import stability_table_plot
        stability_table_plot(table, path=options["plot_path"])


#: pool sizes kept by downsampling, in percent (irmeta.stats.subsample)
POOL_LEVELS = ListOf(Real(low=0.0, high=100.0, low_open=True))


@meta_command.command("downsample", context_settings={"show_default": True})
@_common
@constrained("--levels", constraint=POOL_LEVELS, default="90,70,50,30,10",
             help="Pool sizes kept, in percent.")
@constrained("--repeats", constraint=TRIALS, default=1,
             help="Independent samplings averaged.")
def downsample_cmd(click_ctx, qrels, runs, measures, levels, repeats, **options):
    """Robustness to incomplete judgments: Kendall's tau between the rankings on the
    full and on stratified downsampled qrels (Twist paper, Figure 13)."""
    from irmeta.stats import pool_downsampling
    _refuse_common(click_ctx, options)
    _refuse_no_context(click_ctx)
    campaign, _ = _setup(qrels, runs, measures, options)
    table = pool_downsampling(campaign, measures, levels=list(levels),
                              seed=options["seed"], repeats=repeats,
                              rel_level=options["rel_level"], progress=_progress(options))
    _emit(table, options)
    if options["plot_path"]:
        from irmeta.plot.meta import downsampling_plot
        downsampling_plot(table, path=options["plot_path"])


#: numbers of sampled systems N (irmeta.stats.system_dependence)
SIZES = ListOf(Integer(low=2))


@meta_command.command("systems", context_settings={"show_default": True})
@_common
@constrained("--sizes", constraint=SIZES, default="2,4,8,16,32,64",
             help="Numbers of sampled systems N.")
@constrained("--trials", constraint=TRIALS, default=1000, help="Samples per N.")
def systems_cmd(click_ctx, qrels, runs, measures, sizes, trials, **options):
    """Dependence on the participating systems (innovation paper, Algorithm 1 and
    Table 3): mean Kendall's tau between the ranking of N sampled systems with the
    context re-computed from the sample and the full ranking restricted to them."""
    from irmeta.stats import system_dependence
    _refuse_common(click_ctx, options)
    _refuse_no_context(click_ctx)
    campaign, _ = _setup(qrels, runs, measures, options)
    table = system_dependence(campaign, measures, sizes=list(sizes),
                              trials=trials, seed=options["seed"],
                              rel_level=options["rel_level"], progress=_progress(options))
    _emit(table, options)
    if options["plot_path"]:
        from irmeta.plot.meta import systems_plot
        systems_plot(table, path=options["plot_path"])
