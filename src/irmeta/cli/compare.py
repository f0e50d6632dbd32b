"""``irmeta compare``: runs x measures with significance, ready for a paper (issue 24).

A thin layer over :func:`irmeta.stats.comparison.compare_matrices`: the matrices come
from the campaign as for ``irmeta meta`` (in memory, or shard by shard), the table is
rendered in the chosen ``--format``: ``text``, ``markdown``, ``html`` and ``latex`` give
the runs x measures table; ``tsv`` and ``csv`` one row per (measure, run A, run B);
``json`` everything. Decisions: docs/compare.md.
"""

from __future__ import annotations

import click

from irmeta.cli.common import (
    campaign_options,
    open_output,
    output_option,
    refuse_unused_context,
)
from irmeta.cli.options import constrained, constrained_choice, refuse
from irmeta.cli.shards import shard_options
from irmeta.cli.tables import DIGITS, format_option
from irmeta.constraints import PROBABILITY, SEED, TRIALS, Choice

#: the tests of ``irmeta.stats.comparison.COMPARE_TESTS``
TESTS = Choice(("paired_t", "wilcoxon", "randomisation", "bootstrap", "tukey_hsd",
                "randomised_tukey_hsd"))
CORRECTIONS = Choice(("holm", "bonferroni", "fdr_bh", "none"))
#: ``irmeta.stats.comparison.LATEX_LAYOUTS`` (docs/compare.md, "Tables that fit the page")
LAYOUTS = Choice(("auto", "float", "wide", "long", "landscape"))
FAMILYWISE = ("tukey_hsd", "randomised_tukey_hsd")
RANDOM = ("randomisation", "bootstrap", "randomised_tukey_hsd")


@click.command("compare", context_settings={"show_default": True})
@click.argument("qrels", required=False)
@click.argument("runs", nargs=-1)
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help="Measure (repeatable), one column each: nDCG@10, AP, RR, P@10, ...")
@click.option("--baseline", default=None, metavar="RUN",
              help="Test every run against this run only (default: every pair of runs).")
@constrained_choice("--test", constraint=TESTS, default="paired_t",
                    help="Significance test (irmeta meta significance's).")
@constrained_choice("--correction", constraint=CORRECTIONS, default=None, show_default=False,
                    help="Multiple-comparison correction within each measure [default: "
                         "holm; none with the Tukey tests, which control all pairs "
                         "themselves].")
@constrained("--level", constraint=PROBABILITY, default=0.05, help="Significance level.")
@constrained("--trials", constraint=TRIALS, default=None,
             help="Trials of a random test (default: the test's own: randomisation 10000, "
                  "bootstrap 1000, randomised Tukey 5000).")
@constrained("--seed", constraint=SEED, default=0,
             help="Seed of a random test (results reproduce bit for bit).")
@format_option(extra=("html", "html-fragment", "latex"),
               help="text, markdown, html (a whole page), html-fragment (the <table> "
                    "alone, for embedding), latex: the runs x measures table; tsv / csv: "
                    "one row per (measure, run A, run B); json: everything (full "
                    "precision).")
@constrained("--digits", constraint=DIGITS, default=4,
             help="Decimals in the text, markdown, html and latex tables (tsv, csv and json "
                  "keep full precision).")
@click.option("--label", default=None, metavar="TEXT",
              help="LaTeX \\label of the table (default tab:compare-<measures>).")
@constrained_choice("--layout", constraint=LAYOUTS, default="auto",
                    help="LaTeX layout: auto (longtable past 40 runs, else a table float, "
                         "table* when it does not fit a column), float, wide (table*), long "
                         "(longtable), landscape (longtable on landscape pages). Measures "
                         "that do not fit the width continue in further tables.")
@output_option()
@campaign_options
@shard_options
@click.pass_context
def compare_command(click_ctx, qrels, runs, measures, baseline, test, correction, level,
                    trials, seed, fmt, digits, label, layout, output, **options):
    """Compare runs on several measures, with significance tests per measure.

    Prints a runs x measures table: runs numbered by the first measure (#), the best
    value of each measure marked, and for each run the runs it is significantly better
    than (by #), or with --baseline its significance (up/down) and wins/ties/losses
    against the baseline. Default: paired t-test, Holm correction within each measure.

    \b
    Examples:
      irmeta compare --demo -m nDCG@10 -m AP -m RR
      irmeta compare qrels.txt runs/*.gz -m nDCG@10 -m AP --baseline bm25
      irmeta compare qrels.txt runs/*.gz -m nDCG@10 --format latex --digits 3 -o table.tex
      irmeta compare qrels.txt runs/*.gz -m AP --test randomisation --trials 20000 --format tsv
    """
    from irmeta.cli.meta import _matrices
    from irmeta.stats.comparison import compare_matrices

    refuse(click_ctx, ["trials", "seed"], other=f"--test {test}", when=test not in RANDOM,
           because="the test draws nothing at random")
    refuse(click_ctx, ["correction"], other=f"--test {test}",
           when=test in FAMILYWISE and correction not in (None, "none"),
           because="the Tukey tests control the family-wise error of all pairs themselves")
    refuse(click_ctx, ["digits"], other=f"--format {fmt}",
           when=fmt not in ("text", "markdown", "html", "html-fragment", "latex"),
           because="tsv, csv and json keep full precision")
    refuse(click_ctx, ["label", "layout"], other=f"--format {fmt}", when=fmt != "latex",
           because="only the LaTeX table has a label and a layout")
    if not measures:
        raise click.UsageError("give at least one measure with -m")
    refuse_unused_context(click_ctx, measures)
    mats = _matrices(qrels, runs, list(measures), options)
    result = compare_matrices(mats, baseline=baseline, test=test,
                              correction="default" if correction is None else correction,
                              level=level, trials=trials, seed=seed,
                              rel_level=options["rel_level"])
    with open_output(output) as out:
        if fmt == "text":
            out.write(result.to_text(digits))
        elif fmt == "markdown":
            out.write(result.to_markdown(digits))
        elif fmt == "html":
            out.write(result.to_html_page(digits))
        elif fmt == "html-fragment":
            out.write(result.to_html(digits) + "\n")
        elif fmt == "latex":
            out.write(result.to_latex(digits, label=label, layout=layout))
        elif fmt == "json":
            out.write(result.to_json())
        elif fmt == "csv":
            from irmeta.cli.tables import csv_safe
            csv_safe(result.to_frame()).to_csv(out, index=False, lineterminator="\n")
        else:
            result.to_frame().to_csv(out, sep="\t", index=False, lineterminator="\n")
