"""The Twist reproduction page: :func:`render` draws and writes a
:class:`~irmeta.reproduce.twist.analysis.TwistAnalysis`; it computes nothing.

The prose of the page is the ``TEXT`` block below; one function per section picks the
analysis' numbers and lays them out.
"""

from __future__ import annotations

from typing import Any

from irmeta.reproduce._common import Progress, Reproduction
from irmeta.reproduce._session import Session, campaign_rows, p_text, render_doc
from irmeta.reproduce.twist.analysis import TwistAnalysis, grid_slug

__all__ = ["STEPS", "render"]

#: the steps of :func:`render` (progress bar and run-time table)
STEPS = ("draw figures 7-11", "draw figure 12", "draw figure 13", "draw figure 14", "render")

# ---------------------------------------------------------------------- prose
TITLE = "Reproduction: Twist, the effort of reading a ranking"
TEXT: dict[str, Any] = {
    "example": ("The paper's worked example: RP and CRP vectors",
                "The relevance vectors of the paper's example (degrees nr < pr < fr < hr, "
                "recall base 7, N = 15: the ideal, worst and full-scale runs and two systems "
                "A and B), turned into a one-topic campaign; their relative position (RP) "
                "and cumulated RP (CRP) vectors computed by irmeta.effort.curve_arrays, "
                "beside the vectors the paper prints."),
    "figure12": ("Figure 12: distribution of the measures' means",
                 "The mean over the campaign topic set of each measure, one dot per run, for "
                 "all {R} runs; the {d} runs in orange are those the paper's filter drops "
                 "(outside the best {f:.0%} by MAP) before Tables 3-4 and Figures 13-14. "
                 "Box: quartiles and median; whiskers: 1.5 × the interquartile range."),
    "tables3_4_paper": "The paper's Tables 3 (AP rows) and 4 (Twist rows), for comparison; "
                       "its 'RBP' is RBP(p=0.8).",
    "provenance": {
        "worked_example": "",
        "table2": "the share of each archetype depends on the runs' depth (TREC 20-21 runs "
                  "are 10,000 deep, DL runs 100), the number of relevant documents per topic "
                  "and the graded scale; only a collection of the paper would give its row.",
        "tables3_4_paper": "τ between two measures depends on which runs are compared and "
                           "how close they are; the paper's TREC runs (and their graded "
                           "scales) are not ours.",
    },
    "table2": ("Table 2: archetypes of the CRP curves",
               "Share (percent) of the (run, topic) curves of {which} in each archetype, on "
               "the topics where Twist@{n} is defined (0 < RB ≤ {n}); crossing rule '{c}'. "
               "The paper's rows are its Table 2 (TREC 10, 14, 20, 21)."),
    "grids": ("Figures 7-11: effort/gain grids and CRP curves",
              "Each point is one (run, topic) of {which}: Twist (x; 1 = no avoidable effort) "
              "against a gain measure (y). Dotted lines: Twist quarters and the gain "
              "quartiles. Diagonal = share of points in the cells where effort and gain "
              "agree (blue); high-high = high gain at high effort (orange, top two gain rows "
              "x left two Twist columns)."),
    "tables3_4": ("Tables 3-4: Kendall's τ between the measures",
                  "Kendall's τ (tau-b) between the rankings of the best {n} of {R} runs by "
                  "MAP under each pair of measures (means over the campaign topic set; "
                  "Twist's undefined topics left out of its mean). Table 3 of the paper is "
                  "the AP row; Table 4 the Twist row. The second table gives the two-sided "
                  "p-value of each τ under 'no association' (SciPy's kendalltau, variant b, "
                  "method auto: exact without ties for up to 33 runs, else the normal "
                  "approximation with tie correction); the paper reports its values as "
                  "significant 'with p-values well below 1%'."),
    "figure13": ("Figure 13: robustness to incomplete judgments",
                 "Stratified random subsets of the qrels (per topic and grade, at least 1 "
                 "relevant and 10 non-relevant documents per topic; smaller pools are "
                 "subsets of larger ones), {r} sampling(s) averaged; Kendall's τ between the "
                 "ranking of the kept runs on the full and on the reduced qrels. Share of "
                 "qrels rows kept: {k}. No p-value is printed: the question is how close τ "
                 "stays to 1, not whether it differs from 0 (with {r} > 1 samplings τ is a "
                 "mean, which has none)."),
    "figure14": ("Figure 14: discriminative power (paired bootstrap)",
                 "Sakai's paired bootstrap test (B = {b}) on every pair of the kept runs: the "
                 "achieved significance level (ASL) of each pair, pairs sorted by ASL; DP = "
                 "share of pairs with ASL < {a}; Δ = the largest (1 − {a}) quantile of the "
                 "null bootstrap distribution of |mean difference|, the difference needed "
                 "for significance."),
}
FIGURE11 = ("Figure 11: CRP (left) and DCG (right) of the two (run, topic) pairs of the top "
            "nDCG quartile (nDCG as the paper computes it, log10 discount: "
            "nDCG(discount=jk10)) with the most effort and the two with the least; the vertical "
            "line is the recall base.")
PADDED = ("The runs are {d} documents deep; Twist@{n} pads them (non-relevant) and is "
          "undefined on topics with more than {n} relevant documents.")


def _which(a: TwistAnalysis) -> str:
    """The runs of Table 2 and the grids, in words."""
    if a.params.filter_all:
        return f"the best {len(a.kept_runs)} of {a.campaign.runs} runs by MAP"
    return f"all {a.campaign.runs} runs"


# ---------------------------------------------------------------------- sections
def _example(S: Session, a: TwistAnalysis, summary: list) -> None:
    sec = S.section("example", *TEXT["example"])
    sec.add(S.table("worked_example", a.worked_example, compact=True, sortable=False,
                    caption="RP and CRP vectors: ours and the paper's."))
    S.provenance(sec, a.provenance["worked_example"], TEXT["provenance"]["worked_example"])
    equal = int(a.worked_example["equal"].sum())
    summary.append(f"Worked example: {equal} of {len(a.worked_example)} RP/CRP vectors equal "
                   "the paper's.")


def _table2(S: Session, a: TwistAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    p = a.params
    title, intro = TEXT["table2"]
    sec = S.section("table2", title, markup(intro, which=_which(a), n=p.depth, c=p.crossing))
    sec.add(S.table("table2", a.table2, index=True, digits=2, compact=True, sortable=False,
                    caption="Percent of curves per archetype."))
    S.provenance(sec, a.provenance["table2"], TEXT["provenance"]["table2"])
    S.tables["table2_curves"] = a.table2_curves
    row = a.table2.iloc[0]
    summary.append(f"Table 2: typical A {row['typical_A']:.1f}%, typical B "
                   f"{row['typical_B']:.1f}%, excellent {row['excellent']:.1f}% of "
                   f"{int(row['total'])} curves.")


def _grids(S: Session, a: TwistAnalysis, summary: list) -> None:
    from irmeta.plot.effort import plot_crp_dcg_panels, plot_effort_gain
    from irmeta.report.html import markup
    fig, _ = plot_effort_gain(a.grids, None, ncols=2, seed=a.params.seed)
    title, intro = TEXT["grids"]
    sec = S.section("grids", title, markup(intro, which=_which(a)))
    sec.add(S.figure("grids_effort_gain", fig, caption="Effort/gain grids.", width=760))
    sec.add(S.table("effort_gain", a.effort_gain.reset_index(), digits=3, compact=True,
                    caption="Points, diagonal and high-high shares (percent), quartile cut "
                            "points of each gain."))
    for gain, table in a.grid_tables.items():
        S.tsv(f"grid_{grid_slug(gain)}",
              table.reset_index().rename(columns={"index": "gain quartile"}), kept=table)
    if a.figure11 is not None and a.figure11_pairs is not None:
        fig, _ = plot_crp_dcg_panels(a.figure11, None, full_scale=True)
        sec.add(S.figure("figure11_crp_dcg", fig, width=700, caption=markup(FIGURE11)))
        sec.add(S.table("figure11_pairs", a.figure11_pairs, digits=3, compact=True,
                        sortable=False, caption="The pairs of Figure 11."))
    summ = a.effort_gain
    summary.append("Effort/gain: diagonal " + ", ".join(
        f"{g} {v:.1f}%" for g, v in summ["diagonal %"].items()) + "; high-high " +
        ", ".join(f"{g} {v:.1f}%" for g, v in summ["high_high %"].items()) + ".")


def _figure12(S: Session, a: TwistAnalysis, summary: list) -> None:
    from irmeta.plot.meta import means_boxplot
    from irmeta.report.html import markup
    dropped = [r for r in a.figure12.index if r not in set(a.kept_runs)]
    fig = means_boxplot(a.figure12, marked=dropped,
                        title="Distribution of the run means (orange: dropped by MAP)")
    title, intro = TEXT["figure12"]
    sec = S.section("figure12", title, markup(intro, R=len(a.figure12), d=len(dropped),
                                            f=a.params.top_fraction))
    sec.add(S.figure("figure12_means", fig, caption="Run means per measure.", width=620))
    S.tsv("figure12", a.figure12.reset_index(), kept=a.figure12)
    med = a.figure12.median()
    summary.append("Figure 12: median run mean " + ", ".join(
        f"{m} {v:.3f}" for m, v in med.items()) + ".")


def _tables3_4(S: Session, a: TwistAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    title, intro = TEXT["tables3_4"]
    sec = S.section("tables3_4", title,
                    markup(intro, n=len(a.kept_runs), R=a.campaign.runs))
    tau = a.tables3_4
    sec.add(S.table("tables3_4", tau.reset_index(), digits=3, compact=True, sortable=False,
                    caption="Kendall's τ matrix."))
    # every column is a measure's p-values: <0.001 below that, never 0.000000 (the TSV
    # keeps every digit)
    sec.add(S.table("tables3_4_p", a.tables3_4_p.reset_index(), digits=3, compact=True,
                    sortable=False, caption="Two-sided p-value of each τ.",
                    formats={str(c): p_text for c in a.tables3_4_p.columns}))
    sec.add(S.table("tables3_4_paper", a.tables3_4_paper.reset_index(), digits=4,
                    compact=True, sortable=False, caption=TEXT["tables3_4_paper"]))
    S.provenance(sec, a.provenance["tables3_4_paper"], TEXT["provenance"]["tables3_4_paper"])
    m = a.means.copy()
    m.index.name = "run"
    sec.add(S.table("means", m.reset_index(), digits=4, compact=True,
                    caption="Mean of each measure per run (the runs kept)."))
    summary.append("Table 4: τ(Twist, ·) = " + ", ".join(
        f"{g} {tau.loc[a.twist, g]:.3f}" for g in a.params.gains) + ".")


def _figure13(S: Session, a: TwistAnalysis, summary: list) -> None:
    from irmeta.plot.meta import downsampling_plot
    from irmeta.report.html import Row, markup
    fig = downsampling_plot(a.figure13, title="Pool downsampling")
    wide = a.figure13_tau
    title, intro = TEXT["figure13"]
    sec = S.section("figure13", title, markup(
        intro, r=a.params.repeats,
        k=", ".join(f"{lv:g}% → {v:.3f}"
                for lv, v in zip(a.figure13_judged.index, a.figure13_judged) if lv < 100)))
    sec.add(Row([S.figure("figure13_downsampling", fig, caption="τ against the pool kept.",
                          width=480),
                 S.table("figure13", wide.reset_index(), digits=3, compact=True,
                         tsv=a.figure13, caption="τ per measure and pool size.")]))
    S.tables["figure13"] = a.figure13
    last = wide.columns[-1]
    summary.append(f"Figure 13: τ at {last} of the pool: " + ", ".join(
        f"{mname} {v:.3f}" for mname, v in wide[last].items()) + ".")


def _figure14(S: Session, a: TwistAnalysis, summary: list) -> None:
    from irmeta.plot.meta import asl_plot
    from irmeta.report.html import Row, markup
    p = a.params
    fig = asl_plot(a.figure14_curves, level=p.level, summary=a.figure14,
                   title="ASL curves (paired bootstrap)")
    title, intro = TEXT["figure14"]
    sec = S.section("figure14", title, markup(intro, b=f"{p.discpower_trials:,}", a=f"{p.level:g}"))
    sec.add(Row([S.figure("figure14_asl", fig, caption="ASL curves.", width=520),
                 S.table("figure14", a.figure14, digits=3, compact=True,
                         caption="Significant pairs, DP and Δ per measure.")]))
    S.tsv("figure14_asl", a.figure14_asl)
    summary.append("Figure 14: DP " + ", ".join(
        f"{m} {100 * dp:.1f}%" for m, dp in zip(a.figure14["measure"], a.figure14["dp"])) + ".")


#: (step, section writers) in page order; Table 2 is written with the grids
SECTIONS = (("draw figures 7-11", (_example, _table2, _grids)),
            ("draw figure 12", (_figure12,)), ("draw figure 13", (_tables3_4, _figure13)),
            ("draw figure 14", (_figure14,)))


# ---------------------------------------------------------------------- render
@render_doc("twist", "TwistAnalysis",
            "``worked_example``, ``table2``, ``table2_curves``, ``effort_gain``, "
            "``grid_<gain>``, ``figure11_pairs``, ``figure12``, ``tables3_4``, "
            "``tables3_4_p``, ``tables3_4_paper``, ``means``, ``figure13``, ``figure14``, "
            "``figure14_asl``")
def render(analysis: TwistAnalysis, output, *, inputs: list[tuple[str, str]] | None = None,
           command: str | None = None, progress: bool | None | Progress = None,
           formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    a = analysis
    p, c = a.params, a.campaign
    with Progress.use(progress, "twist", len(STEPS)) as prog:
        S = Session("twist", output, TITLE, progress=prog, formats=formats, dpi=dpi)
        summary = S.write_sections(SECTIONS, a)
        kept = a.kept_runs
        inputs = list(inputs or []) + campaign_rows(c) + [
            ("runs kept (top by MAP)", f"{len(kept)} of {c.runs}: " + ", ".join(kept[:6])
             + (" …" if len(kept) > 6 else ""))]
        notes = [PADDED.format(d=c.depth, n=p.depth)] if c.depth < p.depth else []
        return S.finish(analysis=a, inputs=inputs, command=command,
                        subtitle=f"{c.runs} runs ({len(kept)} kept by MAP for the "
                                 f"meta-evaluation), {c.analysed_topics} topics, "
                                 f"Twist@{p.depth}",
                        summary=summary, notes=notes)
