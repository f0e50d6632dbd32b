"""The innovation reproduction page: :func:`render` draws and writes an
:class:`~irmeta.reproduce.innovation.analysis.InnovationAnalysis`; it computes nothing.

The prose of the page is the ``TEXT`` block below; one function per section picks the
analysis' numbers and lays them out, in the paper's order (Figure 1 first).
"""

from __future__ import annotations

import contextlib
from typing import Any

import pandas as pd

from irmeta.reproduce._common import Progress, Reproduction
from irmeta.reproduce._session import Session, campaign_rows, render_doc
from irmeta.reproduce.innovation.analysis import (
    PAPER_TABLE1,
    PAPER_TABLE3,
    InnovationAnalysis,
)

__all__ = ["render", "steps"]

# ---------------------------------------------------------------------- prose
TITLE = "Reproduction: innovation metrics (Türkmen et al., ECIR 2023)"
TEXT: dict[str, Any] = {
    "figure1": ("Figure 1: a hypothetical system with rare or common relevant documents",
                "On topic {t}, a hypothetical system S_rare retrieves D relevant documents no "
                "run retrieves (added to the qrels); S_common retrieves the D relevant "
                "documents that the most runs have in their top {k}. Each joins the {R} real "
                "runs (rarity over all of them) and is ranked by P_rare@{k} on the topic "
                "(competition ranking: 1 + runs scoring strictly more). At α = 0 both curves "
                "coincide (P@{k})."),
    "figure2": ("Figure 2: rank correlation against alpha",
                "Kendall's τ between the ranking of the runs by P@{k} and by P_rare(α)@{k}, "
                "and by AP@{k} and AP_rare(α)@{k} (means over the campaign topic set), for α "
                "on the grid. τ_AP (top-weighted) is in the table. The dashed line is "
                "τ = 0.9. p = the two-sided p-value of Kendall's τ-b under 'no association' "
                "(SciPy's kendalltau, variant b, method auto: exact without ties for up to 33 "
                "runs, else the normal approximation with tie correction); a τ near 1 is "
                "far from chance, so p is tiny — it tells whether the two rankings agree at "
                "all, not whether they are interchangeable."),
    "table1": ("Table 1: discriminative power",
               "Significantly different pairs of runs among the {n} pairs, at 95% and 99%. "
               "The paper's test is a Tukey HSD run on each pair separately (two groups, "
               "unpaired: the authors' code); the two-way (run + topic) Tukey HSD over all "
               "runs at once is the classic procedure, shown beside it."),
    "table4": ("Table 4: the rare relevant documents behind the largest rank changes",
               "The paper reads five relevant documents of one TREC-8 topic, from common to "
               "rare, and quotes their text. Here, on any campaign: the {n} runs that gain "
               "the most places when P@{k} becomes P_rare(α={a})@{k}, and for each the {d} "
               "rarest relevant documents of its top {k} (irmeta.explain.explain_documents): "
               "the topic, the document, its grade, the number of runs retrieving it in "
               "their top {k} (retrieved_by, of S) and its rarity R(d) = 1 − S_d / S. These "
               "are the documents that lift the run; read them to judge, as the paper does, "
               "whether rarely retrieved also means less focused."),
    "table1_paper": "The paper's values (DLT20, 2,016 pairs, per-pair Tukey), for comparison.",
    "table2": ("Table 2: stability",
               "In each of {tr} trials, one random subset of round(T/2) = {h} of the T = {T} "
               "topics; for every pair of runs, the run whose mean is higher by more than "
               "{f} wins, otherwise the pair ties. Stability = Σ max(wins) / (pairs × "
               "trials): ties stay in the denominator, as in the paper's code. "
               "stability_ties = share of tied decisions."),
    "table3": ("Table 3: dependence on the participating systems (Algorithm 1)",
               "Rank all runs; then, for each N, {s} times draw N runs, recompute the "
               "measures with the sample as the only context (rarity over the N runs), and "
               "take Kendall's τ against the full ranking restricted to the sample; mean "
               "over the draws ({s} per N; the paper's 1,000 is the default: about 43 s "
               "CPU on TREC DL 2021, 63 runs; --systems-trials 100 for a quick look). Each cell "
               "is a mean of τ over the draws, so it has no single p-value; the draws' "
               "spread is tau_std in the TSV."),
    "table3_paper": "The paper's values (TREC-8, 129 runs, 1000 samples).",
    # why the paper's numbers beside each table cannot be compared cell by cell
    "provenance": {
        "table1_paper": "the number of significant pairs grows with the number of runs "
                        "(pairs) and topics and with how far apart the runs are; the "
                        "paper's DLT20 document runs and ours differ in all three.",
        "table2": "stability depends on the topics sampled, on how close the runs' "
                  "means are (fuzziness is absolute) and on the number of runs; only the "
                  "paper's DLT20 column is printed.",
        "table3_paper": "mean τ over samples depends on how many runs the collection has "
                        "and how spread their scores are; the paper's TREC-8 has 129 runs.",
    },
}
UNDEFINED = ("Table 3: {n} draws gave an undefined τ (all runs tied) and were left out of "
             "the means.")


def steps(figure1: bool = True) -> tuple[str, ...]:
    """The steps of :func:`render` (progress bar and run-time table)."""
    return (("draw figure 1",) if figure1 else ()) + ("draw figure 2", "draw table 3",
                                                       "render")


def _summary(a: InnovationAnalysis) -> list[str]:
    """The summary lines at the top of the page."""
    below = a.first_alpha_below(0.9)
    lines = ["Figure 2: τ at α = 1: " + ", ".join(
        f"{b} {v:.3f}" for b, v in a.tau_at_last_alpha().items()) + "; " + (
        "τ < 0.9 from α = " + ", ".join(f"{v:g} ({b})" for b, v in below.items())
        if len(below) else "τ ≥ 0.9 everywhere") + "."]
    measure, count = a.most_discriminative()
    lines.append(f"Table 1: most discriminative at 95% (per-pair Tukey): "
                 f"{measure} ({count} of {a.pairs} pairs).")
    lines.append("Table 2: stability " + ", ".join(
        f"{r.measure} {r.stability:.3f}" for r in a.table2.itertuples()) + ".")
    for alpha, d in a.first_rank1().items():
        lines.append(f"Figure 1 (topic {a.figure1_topic}): S_rare ranks first from D = "
                     f"{d} at α = {alpha:g}.")
    return lines


# ---------------------------------------------------------------------- figures
def _figure1_plot(frame: pd.DataFrame, topic: str, k: int):
    from irmeta.plot import style
    fig, axes = style.figure(7.4, 3.0, ncols=2, sharey=True)
    markers = ["o", "s", "^", "D", "v"]
    for ax, system in zip(axes, ("S_rare", "S_common")):
        sub = frame[frame["system"] == system]
        for i, (a, grp) in enumerate(sub.groupby("alpha", sort=True)):
            ax.plot(grp["D"], grp["rank"], marker=markers[i % len(markers)], ms=2.5, lw=1.1,
                    label=f"α = {a:g}", color=style.PALETTE[i % len(style.PALETTE)])
        ax.set_title(f"{system.replace('_', ' ')}")
        ax.set_xlabel("D (relevant documents retrieved)")
    axes[0].set_ylabel(f"rank by P_rare@{k} (1 = best)")
    axes[0].invert_yaxis()
    axes[0].legend(frameon=False)
    fig.suptitle(f"Topic {topic}: ranking of a hypothetical system", fontsize=9)
    return fig


# ---------------------------------------------------------------------- sections
def _figure1(S: Session, a: InnovationAnalysis) -> None:
    from irmeta.report.html import Row, markup
    k = a.params.cutoff
    if a.figure1 is None or a.figure1_ranks is None:   # render() calls it only when computed
        return
    fig = _figure1_plot(a.figure1, str(a.figure1_topic), k)
    title, intro = TEXT["figure1"]
    sec = S.section("figure1", title, markup(intro, t=a.figure1_topic, k=k, R=a.campaign.runs))
    sec.add(Row([S.figure("figure1_synthetic", fig, caption="Rank against D.", width=700),
                 S.table("figure1", a.figure1_ranks, compact=True, tsv=a.figure1, digits=0,
                         caption="Rank per D.")]))
    S.tables["figure1"] = a.figure1


def _figure2(S: Session, a: InnovationAnalysis) -> None:
    from irmeta.plot.meta import alpha_sweep_plot
    from irmeta.report.html import Row, markup
    fig = alpha_sweep_plot(a.figure2, title="Kendall's τ against alpha")
    title, intro = TEXT["figure2"]
    sec = S.section("figure2", title, markup(intro, k=a.params.cutoff))
    sec.add(Row([S.figure("figure2_alpha_sweep", fig, caption="Kendall's τ against α.",
                          width=520),
                 S.table("figure2", a.figure2_wide, digits=3, compact=True,
                         caption="τ (Kendall) and τ_AP per α.", tsv=a.figure2)]))
    S.tables["figure2"] = a.figure2


def _table1(S: Session, a: InnovationAnalysis) -> None:
    from irmeta.report.html import markup
    title, intro = TEXT["table1"]
    sec = S.section("table1", title, markup(intro, n=f"{a.pairs:,}"))
    sec.add(S.table("table1", a.table1, caption="Significant pairs per measure and test.",
                    compact=True, digits={"alpha": 1}))
    paper = PAPER_TABLE1.reset_index().rename(columns={"index": "measure"})
    sec.add(S.table("table1_paper", paper, sortable=False, compact=True,
                    caption=TEXT["table1_paper"]))
    S.provenance(sec, a.provenance["table1_paper"], TEXT["provenance"]["table1_paper"])
    S.tables["table1_long"] = a.table1_long


def _table2(S: Session, a: InnovationAnalysis) -> None:
    from irmeta.report.html import markup
    p, T = a.params, a.campaign.analysed_topics
    title, intro = TEXT["table2"]
    sec = S.section("table2", title,
                    markup(intro, tr=f"{p.stability_trials:,}", h=int(round(T / 2)), T=T,
                         f=f"{p.fuzziness:g}"))
    sec.add(S.table("table2", a.table2, digits={"alpha": 1}, compact=True,
                    caption="Stability per measure (higher = more stable)."))
    S.provenance(sec, a.provenance["table2"], TEXT["provenance"]["table2"])


def _table3(S: Session, a: InnovationAnalysis) -> None:
    from irmeta.plot.meta import systems_plot
    from irmeta.report.html import Row, markup
    fig = systems_plot(a.table3, title="Kendall's τ against the number of systems")
    skipped = a.table3_skipped
    title, intro = TEXT["table3"]
    sec = S.section("table3", title, markup(intro, s=f"{a.params.systems_trials:,}"))
    sec.add(Row([S.table("table3", a.table3_wide, digits=3, compact=True,
                         caption="Mean τ per N" + (f" (N = {', '.join(map(str, skipped))} > "
                                                   f"{a.campaign.runs} runs skipped)"
                                                   if skipped else "") + ".", tsv=a.table3),
                 S.figure("table3_systems", fig, caption="Mean τ against N.", width=480)]))
    S.tables["table3"] = a.table3
    paper = PAPER_TABLE3.copy()
    paper.columns = [f"N={c}" for c in paper.columns]
    sec.add(S.table("table3_paper", paper.reset_index().rename(columns={"index": "measure"}),
                    digits=3, sortable=False, compact=True, caption=TEXT["table3_paper"]))
    S.provenance(sec, a.provenance["table3_paper"], TEXT["provenance"]["table3_paper"])


def _table4(S: Session, a: InnovationAnalysis) -> None:
    from irmeta.report.html import markup
    p = a.params
    title, intro = TEXT["table4"]
    sec = S.section("table4", title, markup(intro, n=p.table4_runs, k=p.cutoff,
                                          a=f"{float(p.table3_alpha):g}", d=p.table4_docs))
    sec.add(S.table("table4", a.table4, digits={"rarity": 3}, compact=True, sortable=False,
                    caption="The rarest relevant documents of the runs that gain the most."))
    S.tsv("table4_changes", a.table4_changes)


#: (step, section writer) in page order (the paper's: Figure 1 first); a section without
#: a figure is written outside a step
SECTIONS = (("draw figure 1", _figure1), ("draw figure 2", _figure2), (None, _table1),
            (None, _table2), ("draw table 3", _table3), (None, _table4))


# ---------------------------------------------------------------------- render
@render_doc("innovation", "InnovationAnalysis",
            "``figure1`` (when computed), ``figure2``, ``table1``, ``table1_paper``, "
            "``table1_long``, ``table2``, ``table3``, ``table3_paper``, ``table4``, "
            "``table4_changes``")
def render(analysis: InnovationAnalysis, output, *,
           inputs: list[tuple[str, str]] | None = None, command: str | None = None,
           progress: bool | None | Progress = None, formats=("png", "svg"),
           dpi: int = 150) -> Reproduction:
    a = analysis
    with_figure1 = a.figure1 is not None
    with Progress.use(progress, "innovation", len(steps(with_figure1))) as prog:
        S = Session("innovation", output, TITLE, progress=prog, formats=formats, dpi=dpi)
        for step, write in SECTIONS:
            if write is _figure1 and not with_figure1:
                continue
            with S.step(step) if step else contextlib.nullcontext():
                write(S, a)
        c = a.campaign
        notes = [UNDEFINED.format(n=a.undefined_draws)] if a.undefined_draws else []
        return S.finish(analysis=a, inputs=list(inputs or []) + campaign_rows(c),
                        command=command,
                        subtitle=f"{c.runs} runs, {c.analysed_topics} topics, relevance ≥ "
                                 f"{c.rel_level}, K = {a.params.cutoff}",
                        summary=_summary(a), notes=notes)
