"""``irmeta meta``: meta-evaluation of measures on a campaign.

Subcommands: ``correlation`` (Kendall / tau_AP matrix, alpha sweep), ``significance``
(tests between systems), ``leaderboard`` (ranks with intervals and tests), ``discpower``
(discriminative power, ASL curves),
``stability`` (fuzziness stability, Buckley-Voorhees rates), ``downsample`` (pool
downsampling), ``systems`` (dependence on the set of systems), ``topic-set-size``
(topics the next round needs). Each takes QRELS and
RUN files (or ``--demo``) and measures (``-m``, repeatable), prints a table, and writes
the figure with ``--plot PATH`` (PNG and SVG).
"""

from __future__ import annotations

import click

from irmeta.cli.common import (
    campaign_options,
    check_output_option,
    expand_paths,
    load_cli_campaign,
    one_measure_option,
    open_output,
    output_option,
    refuse_unused_context,
)
from irmeta.cli.notes import note
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.shards import shard_options
from irmeta.cli.tables import digits_option, format_option, write_table
from irmeta.constraints import (
    ALPHA,
    COUNT,
    DEPTH,
    FRACTION,
    NONNEGATIVE,
    POSITIVE,
    PROBABILITY,
    REL_LEVEL,
    SEED,
    TRIALS,
    Choice,
    Integer,
    ListOf,
    Real,
)

#: the designs of ``irmeta.stats.topic_set_size``
TOPIC_SET_METHODS = Choice(("ttest", "anova", "ci"))
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
        note(f"irmeta: kept the top {campaign.num_runs} of {before} runs by "
             f"{options['by']}")
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
      irmeta meta topic-set-size qrels runs/* -m nDCG@10 -l 2 --min-diff 0.05 --min-diff 0.1
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
        note(f"# {name}: {res.summary()}")
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
@constrained_choice("--layout", constraint=Choice(("auto", "float", "wide", "long",
                                                   "landscape")),
                    default="auto", help="With --format latex: auto (longtable past 40 "
                                         "runs, else a table float), float, wide (table*), "
                                         "long (longtable), landscape (docs/compare.md).")
def leaderboard_cmd(click_ctx, qrels, runs, measures, test, level, correction, ci_level,
                    trials, layout, **options):
    """Runs ranked by each measure, with bootstrap confidence intervals of the mean and
    corrected tests against the best run and against the next run."""
    import pandas as pd

    from irmeta.stats import leaderboard
    _refuse_common(click_ctx, options)
    refuse(click_ctx, ["layout"], other=f"--format {options['fmt']}",
           when=options["fmt"] != "latex", because="only the LaTeX table has a layout")
    refuse_unused_context(click_ctx, measures)
    mats = _matrices(qrels, runs, measures, options)    # shard by shard when needed
    parts, boards = [], {}
    for name, mat in mats.items():
        board = leaderboard(mat, test=test, level=level, ci_level=ci_level, trials=trials,
                            correction=None if correction == "none" else correction,
                            seed=options["seed"])
        note(f"# {name}: {board.describe()}")
        boards[name] = board
        frame = board.table.reset_index()
        frame.insert(0, "measure", name)
        parts.append(frame)
    if options["fmt"] in ("latex", "markdown"):
        from irmeta.stats.leaderboard import to_latex, to_markdown
        with open_output(options.get("output")) as out:
            out.write("\n".join(to_latex(b, measure=name, layout=layout)
                                 if options["fmt"] == "latex" else to_markdown(b, measure=name)
                                 for name, b in boards.items()))
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


@meta_command.command("topic-set-size", context_settings={"show_default": True})
@_common
@constrained("--min-diff", "min_diffs", constraint=POSITIVE, multiple=True, required=True,
             help="The smallest difference D between systems to detect (repeatable: a row "
                  "per D).")
@constrained("--alpha", constraint=PROBABILITY, default=0.05,
             help="Level of the test (ci: 1 - the confidence level).")
@constrained("--power", constraint=PROBABILITY, default=0.8,
             help="Power to reach (1 - beta; ttest and anova).")
@constrained_choice("--method", "methods", constraint=TOPIC_SET_METHODS, multiple=True,
                    help="ttest (paired t-test of two systems), anova (one-way ANOVA over "
                         "every run: D the minimum detectable range), ci (expected CI width "
                         "at most D); repeatable.  [default: ttest]")
@click.option("--matrix", "matrix_path", type=click.Path(dir_okay=False), default=None,
              help="Read the score matrix from FILE (long `run topic value` or wide CSV, as "
                   "`irmeta aggregate --matrix`) instead of a campaign.")
@click.option("--measure-name", default=None,
              help="For --matrix: the measure to keep from a long file with a measure "
                   "column (and the name of the table's rows).")
def topic_set_size_cmd(click_ctx, qrels, runs, measures, min_diffs, alpha, power, methods,
                       matrix_path, measure_name, **options):
    """Topics the next round needs (Sakai's topic set size design): from the residual
    variance V_E of this campaign's runs x topics matrix, the smallest topic count that
    detects a difference D with the requested power (ttest, anova), or whose expected
    confidence interval is at most D wide (ci); also the current topic set's power for D
    and the smallest difference it detects. Formulas: docs/topic-set-size.md."""
    from irmeta.stats.topic_set_size import topic_set_size
    _refuse_common(click_ctx, options, seeded=False)
    refuse(click_ctx, ["top_fraction"], other="irmeta meta topic-set-size",
           because="the variance is of every participating run")
    if matrix_path:
        if qrels or runs or options.get("demo"):
            raise click.UsageError("give either --matrix FILE or QRELS RUN..., not both")
        refuse(click_ctx, ["measures"], other="--matrix",
               because="the matrix holds its values; --measure-name picks a measure "
                       "column")
        from pathlib import Path

        from irmeta.io.matrix import read_matrix
        frame = read_matrix(matrix_path, measure=measure_name)
        mats = {measure_name or Path(matrix_path).name: frame}
    else:
        refuse(click_ctx, ["measure_name"], other="a campaign (no --matrix)",
               because="it picks a measure of a --matrix file")
        refuse_unused_context(click_ctx, measures)
        mats = _matrices(qrels, runs, measures, options)   # shard by shard when needed
    result = topic_set_size(mats, list(min_diffs), alpha=alpha, power=power,
                            method=list(methods) or ["ttest"])
    t = result.table
    for name, mat in mats.items():
        variance = t.loc[t["measure"] == str(name), "variance"].iloc[0]
        note(f"# {name}: {mat.shape[0]} runs x {mat.shape[1]} topics, V_E = "
             f"{variance:.6g}")
    _emit(result.table, options)
    if options["plot_path"]:
        import numpy as np

        from irmeta.plot.meta import topic_set_size_plot
        # the curve over a grid of D around the ones asked for (log-spaced), and them
        grid = np.geomspace(min(min_diffs) / 2, max(min_diffs) * 2, 25)
        curve = topic_set_size(mats, sorted({*grid.tolist(), *min_diffs}), alpha=alpha,
                               power=power, method=list(methods) or ["ttest"])
        topic_set_size_plot(curve, path=options["plot_path"])


# ------------------------------------------------------ pools and judgments (issue 26)
#: which table of a multi-table analysis to print (all: each with a title)
def _parts(frames: dict, part: str | None, options: dict) -> None:
    fmt = options["fmt"]
    if part is None and fmt == "json":
        raise click.UsageError("--format json prints one table: choose it with --part "
                               f"({', '.join(frames)})")
    chosen = {part: frames[part]} if part else frames
    with open_output(options.get("output")) as out:
        for name, frame in chosen.items():
            write_table(frame, out, fmt, digits=options["digits"], index=False,
                        title=None if part else name)


def _table_options(parts: tuple[str, ...]):
    def wrap(fn):
        for option in reversed([
            constrained_choice("--part", constraint=Choice(parts), default=None,
                               help="Print one table only (default: all, each with a "
                                    "title; json needs one)."),
            format_option(),
            digits_option(),
            click.option("-o", "--output", type=click.Path(dir_okay=False),
                         callback=check_output_option, default=None,
                         help="Write the tables to this file instead of standard output."),
        ]):
            fn = option(fn)
        return fn
    return wrap


def _refuse_digits(ctx, options):
    fmt = options["fmt"]
    refuse(ctx, ["digits"], other=f"--format {fmt}", when=fmt not in ("text", "markdown"),
           because="only text and markdown tables are rounded")


@meta_command.command("reusability", context_settings={"show_default": True})
@click.argument("qrels")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE", required=True,
              callback=one_measure_option, help="Measure without context (repeatable).")
@click.option("--groups", "groups_file", type=click.Path(exists=True, dir_okay=False),
              default=None, help="File of `run group` lines (required unless --leave-out run).")
@constrained("-k", "--depth", constraint=DEPTH, default=100,
             help="Pool depth K: a document is unique to a group when only its runs rank "
                  "it <= K.")
@constrained_choice("--leave-out", constraint=Choice(("group", "run")), default="group",
                    help="Leave out one group (Zobel / TREC) or one run at a time.")
@constrained("-l", "--rel-level", constraint=REL_LEVEL, default=1,
             help="Minimum grade counted as relevant (trec_eval -l).")
@click.option("--rare", default="AP_rare(alpha=0.5)", metavar="MEASURE",
              help="Rarity measure of the rareness link, evaluated @K ('none': skip).")
@constrained("--shard-topics", constraint=COUNT, default=None,
             help="Evaluate the campaign shard by shard, N topics per shard (same numbers; "
                  "docs/scaling.md).")
@click.option("--write-qrels", "qrels_dir", type=click.Path(file_okay=False), default=None,
              help="Write each group's reduced qrels to DIR/<group>.qrels.")
@_table_options(("table", "summary", "groups"))
@click.pass_context
def reusability_cmd(click_ctx, qrels, runs, measures, groups_file, depth, leave_out, rel_level,
                    rare, shard_topics, qrels_dir, part, **options):
    """Leave-one-group-out: each group's runs re-evaluated on the qrels without the
    judged documents only that group retrieved within --depth (Zobel 1998; TREC
    overviews). Prints one row per (group, run, measure), per measure Kendall's tau and
    tau_AP of the two system rankings and the largest drops, and per group the relevant
    documents it alone contributed with its mean AP_rare."""
    from irmeta.cli.pool import located_groups
    from irmeta.io.load import load_campaign, read_groups
    from irmeta.stats.reusability import reusability
    _refuse_digits(click_ctx, options)
    if leave_out == "group" and not groups_file:
        raise click.UsageError("--leave-out group needs --groups FILE (`run group` lines)")
    import contextlib

    from irmeta.evaluation import open_shards
    if qrels_dir:
        from irmeta.io.output import check_folder_target
        check_folder_target(qrels_dir)            # a file in the way: found before any work
    files = expand_paths(runs)
    groups = read_groups(groups_file) if groups_file else None
    with contextlib.ExitStack() as stack:
        campaign = (stack.enter_context(open_shards(qrels, files,
                                                           shard_topics=shard_topics))
                    if shard_topics else load_campaign(qrels, files, warn_dropped=False))
        with located_groups(groups_file):
            res = reusability(campaign, list(measures), groups, depth=depth,
                              leave_out=leave_out, rel_level=rel_level,
                              rare=None if rare.strip().lower() == "none" else rare)
    if qrels_dir:
        paths = res.write_qrels(qrels_dir)
        note(f"irmeta: wrote {len(paths)} reduced qrels to {qrels_dir}")
    _parts({"table": res.table, "summary": res.summary, "groups": res.groups}, part, options)


@meta_command.command("reproducibility", context_settings={"show_default": True})
@click.argument("qrels")
@click.argument("orig_run")
@click.argument("repro_run")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE", required=True,
              callback=one_measure_option, help="Measure (repeatable).")
@click.option("--baseline-orig", default=None, metavar="RUN",
              help="The original baseline run (with --baseline-repro: effect ratio, DeltaRI).")
@click.option("--baseline-repro", default=None, metavar="RUN",
              help="The reproduced baseline run.")
@constrained("--rbo-p", constraint=PROBABILITY, default=0.95, help="RBO persistence p.")
@constrained("-k", "--depth", constraint=DEPTH, default=1000,
             help="Documents per ranking compared by KTU and RBO.")
@constrained("-l", "--rel-level", constraint=REL_LEVEL, default=1,
             help="Minimum grade counted as relevant (trec_eval -l).")
@click.option("--float32", is_flag=True, help="Read scores as 32-bit floats (trec_eval 9.x).")
@_table_options(("measures", "summary", "effects", "topics"))
@click.pass_context
def reproducibility_cmd(click_ctx, qrels, orig_run, repro_run, measures, baseline_orig,
                        baseline_repro, rbo_p, depth, rel_level, float32, part, **options):
    """Original vs reproduced run (Breuer et al., SIGIR 2020): Kendall's tau union and
    RBO per topic, RMSE and t-test p-values per measure, and with a baseline pair the
    effect ratio and delta relative improvement — repro_eval's definitions."""
    from irmeta.stats.reproducibility import reproducibility
    _refuse_digits(click_ctx, options)
    if (baseline_orig is None) != (baseline_repro is None):
        raise click.UsageError("give --baseline-orig and --baseline-repro together")
    res = reproducibility(qrels, orig_run, repro_run, list(measures),
                          baseline_orig=baseline_orig, baseline_repro=baseline_repro,
                          rbo_p=rbo_p, depth=depth, rel_level=rel_level, float32=float32)
    frames = {"measures": res.measures, "summary": res.summary()}
    if res.effects is not None:
        frames["effects"] = res.effects
    elif part == "effects":
        raise click.UsageError("--part effects needs --baseline-orig and --baseline-repro")
    frames["topics"] = res.topics
    _parts(frames, part, options)


@meta_command.command("qrels-agreement", context_settings={"show_default": True})
@click.argument("qrels_a")
@click.argument("qrels_b")
@click.argument("runs", nargs=-1, required=True)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE", required=True,
              callback=one_measure_option, help="Measure (repeatable).")
@constrained("-l", "--rel-level", constraint=REL_LEVEL, default=1,
             help="Minimum grade counted as relevant (binary kappa, binary measures).")
@constrained_choice("--weights", constraint=Choice(("linear", "quadratic")), default="linear",
                    help="Weights of the graded kappa.")
@constrained("--top-k", constraint=Integer(low=1), default=10,
             help="Systems compared by the top-k overlap.")
@constrained("--shard-topics", constraint=COUNT, default=None,
             help="Evaluate the campaign shard by shard, N topics per shard (same numbers; "
                  "docs/scaling.md).")
@_table_options(("summary", "kappa", "confusion", "scores"))
@click.pass_context
def qrels_agreement_cmd(click_ctx, qrels_a, qrels_b, runs, measures, rel_level, weights, top_k,
                        shard_topics, part, **options):
    """Two judgment sets, one campaign: Cohen's kappa on the shared judgments (binary and
    weighted, per topic and overall, with the confusion matrix), each run's score under
    both, and Kendall's tau / tau_AP of the system rankings per measure."""
    from irmeta.stats.agreement import qrels_agreement
    _refuse_digits(click_ctx, options)
    import contextlib

    from irmeta.evaluation import open_shards
    files = expand_paths(runs)
    with contextlib.ExitStack() as stack:
        campaign = (stack.enter_context(open_shards(qrels_a, files,
                                                           shard_topics=shard_topics))
                    if shard_topics else files)
        res = qrels_agreement(qrels_a, qrels_b, campaign, list(measures),
                              rel_level=rel_level, weights=weights, top_k=top_k)
    _parts({"summary": res.summary, "kappa": res.kappa,
            "confusion": res.confusion.reset_index(), "scores": res.scores}, part, options)
