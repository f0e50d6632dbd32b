"""The GAWM reproduction page: :func:`render` draws and writes a
:class:`~irmeta.reproduce.gawm.analysis.GAWMAnalysis`; it computes nothing.

The prose of the page is the ``TEXT`` block below; one function per section picks the
analysis' numbers and lays them out.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from irmeta.reproduce._common import Progress, Reproduction
from irmeta.reproduce._session import Session, render_doc
from irmeta.reproduce.gawm.analysis import GAWMAnalysis

__all__ = ["STEPS", "render"]

#: the steps of :func:`render` (progress bar and run-time table)
STEPS = ("draw figure 2", "draw figure 3", "draw figure 4", "draw figure 5", "draw figure 6",
         "render")

# ---------------------------------------------------------------------- prose
TITLE = "Reproduction: GAWM, adaptive weighted means of a score matrix"
TEXT: dict[str, Any] = {
    "table2": ("Table 2: GAWM and HITS against the plain means",
               "Pearson's r between MAP (system means) and GAWM's E_s and HITS' A(s); "
               "between AAP (topic means) and E_t, A(t); and between the means and GAWM's "
               "weights W_s, W_t (axioms {a}, M_s = M_t = arithmetic)."),
    "table2_paper": "The paper's Table 2 (TREC 6-9 ad hoc, TREC 2004-2006 Terabyte; AP), for "
                    "comparison.",
    "figure2": ("Figures 2a and 2b: the weights against the means",
                "Figure 2a: one point per system, against MAP — HITS authority A(s) and hub "
                "H(s) (the paper's left panel) and GAWM's effectiveness E_s and weight W_s "
                "('performance and conformity', its right panel). Figure 2b: the same per "
                "topic against AAP (A(t), H(t), E_t, W_t: 'ease and discernment'). GAWM with "
                "axioms {a}, M_s = M_t = arithmetic; r = Pearson's r with the mean (Table 2). "
                "The paper draws them for tb06."),
    "provenance": {
        "table2_paper": "Pearson's r between the weights and the means depends on the "
                        "spread of the systems and topics of each collection (the paper's "
                        "own r(MAP, W_s) ranges from −0.22 to 0.75 across its seven), so only "
                        "the signs and the near-1 values of r(MAP, E_s) and r(AAP, E_t) are "
                        "expected to carry over.",
    },
    "table3": ("Table 3: the topic mean M_t",
               "With M_s = arithmetic and each topic mean M_t: Pearson's r of MAP with the "
               "system weights W_s and of AAP with the topic weights W_t (axioms {a})."),
    "figure3": ("Figure 3: the score matrix",
                "Systems by MAP (best on top), topics by AAP (easiest left); side bars: MAP, "
                "HITS authority, GAWM effectiveness per mean, GAWM weights (white = more "
                "weight) and the uniform weight of MAP, each min-max scaled on its own."),
    "figure4": ("Figure 4: rankings under the 5 x 5 means",
                "The systems ranked by E_s for every pair (M_s, M_t) of means (S1..S5 / "
                "T1..T5 = min, harmonic, geometric, arithmetic, max), with the MAP leader "
                "traced. kendall_p: the two-sided p-value of each τ with MAP (SciPy's "
                "kendalltau, variant b, method auto: exact without ties for up to 33 systems, "
                "else the normal approximation with tie correction)."),
    "figure5": ("Figure 5: confidence in the winner",
                "Each system as a Gaussian (its aggregate, and the weighted variance of its "
                "scores); P(best > median) and P(best > worst) under MAP and GAWM with each "
                "system mean M_s (M_t arithmetic)."),
    "figure6": ("Figure 6: leave-one-topic-out predictivity",
                "For each topic, Kendall's τ between the aggregate over the other topics and "
                "the held-out topic's scores; mean over topics (axioms {a}, M_t "
                "arithmetic). A mean of τ over topics has no single p-value; the spread "
                "over topics is in the table."),
}


def _loto_summary(mean_tau: pd.Series) -> str:
    """The Figure 6 line of the summary. τ is undefined (NaN) when every held-out topic
    ties all systems (identical systems, constant matrix): then say so."""
    if not mean_tau.notna().any():
        return ("Figure 6: leave-one-topic-out τ is undefined for every aggregator (each "
                "held-out topic ties all systems, e.g. identical or constant scores).")
    best = str(mean_tau.idxmax())
    return (f"Figure 6: best predictor of a held-out topic: {best} "
            f"(mean τ {mean_tau[best]:.4f}; MAP {mean_tau.iloc[0]:.4f}).")


# ---------------------------------------------------------------------- sections
def _table2(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    title, intro = TEXT["table2"]
    sec = S.section("table2", title, markup(intro, a=a.params.axioms))
    m, n = a.shape
    sec.add(S.table("table2", a.table2, index=True, digits=3, compact=True, sortable=False,
                    caption=f"Table 2 on {a.name} ({m} systems x {n} topics)."))
    sec.add(S.table("table2_paper", a.table2_paper, index=True, digits=3, compact=True,
                    sortable=False, caption=TEXT["table2_paper"]))
    S.provenance(sec, a.provenance["table2_paper"], TEXT["provenance"]["table2_paper"])
    r = a.table2.iloc[0]
    summary.append(f"Table 2: r(MAP, E_s) = {r['Pearson(MAP,E_s)']:.3f}, r(MAP, A(s)) = "
                   f"{r['Pearson(MAP,A(s))']:.3f}, r(MAP, W_s) = "
                   f"{r['Pearson(MAP,W_s)']:.3f}, r(AAP, W_t) = {r['Pearson(AAP,W_t)']:.3f}"
                   + ("" if bool(r["converged"]) else " (GAWM did not converge)") + ".")


def _figure2(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.plot.gawm import plot_weights_scatter
    from irmeta.report.html import markup
    title, intro = TEXT["figure2"]
    sec = S.section("figure2", title, markup(intro, a=a.params.axioms))
    fig_a, _ = plot_weights_scatter(a.figure2a, "MAP", ["A(s)", "H(s)", "E_s", "W_s"],
                                    title=f"Figure 2a: systems of {a.name}")
    fig_b, _ = plot_weights_scatter(a.figure2b, "AAP", ["A(t)", "H(t)", "E_t", "W_t"],
                                    title=f"Figure 2b: topics of {a.name}")
    sec.add(S.figure("figure2a_systems", fig_a, caption="(a) systems against MAP.", width=820))
    sec.add(S.figure("figure2b_topics", fig_b, caption="(b) topics against AAP.", width=820))


def _table3(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    title, intro = TEXT["table3"]
    sec = S.section("table3", title, markup(intro, a=a.params.axioms))
    sec.add(S.table("table3", a.table3, index=True, digits=3, compact=True, sortable=False,
                    caption="Table 3."))


def _figure3(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.plot.gawm import plot_matrix_heatmap
    from irmeta.report.html import Row
    fig, _ = plot_matrix_heatmap(a.matrix, None, axioms=a.params.axioms,
                                 means=a.params.heatmap_means, results=a.heatmap_gawm,
                                 hits_result=a.hits)
    sec = S.section("figure3", *TEXT["figure3"])
    sec.add(S.figure("figure3_heatmap", fig, caption="Heat map with side bars.", width=900))
    sec.add(Row([S.table("weights_systems", a.weights_systems, digits=4, compact=True,
                         caption="Systems: MAP, GAWM (arithmetic) E_s and W_s, HITS A(s)."),
                 S.table("weights_topics", a.weights_topics, digits=4, compact=True,
                         caption="Topics: AAP, E_t, W_t, A(t).")]))


def _figure4(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.plot.gawm import plot_ranking_grid
    fig, _ = plot_ranking_grid(a.matrix, None, axioms=a.params.axioms,
                               scores=a.figure4_scores)
    sec = S.section("figure4", *TEXT["figure4"])
    sec.add(S.figure("figure4_grid", fig, caption="Ranking grid.", width=900))
    grid = a.figure4
    sec.add(S.table("figure4", grid, index=True, digits=3, compact=True,
                    caption="Per (M_s, M_t): leader, rank of MAP's leader and last system, "
                            "Kendall's τ with MAP."))
    S.tsv("figure4_scores", a.figure4_scores, index=True)
    summary.append(f"Figure 4: MAP's leader keeps rank 1 in {a.map_leader_kept} of 25 "
                   f"(M_s, M_t) pairs; τ with MAP from {grid['kendall_tau'].min():.3f} "
                   f"to {grid['kendall_tau'].iloc[1:].max():.3f}.")


def _figure5(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.plot.gawm import plot_confidence
    from irmeta.report.html import Row
    fig, _ = plot_confidence(a.figure5, None)
    sec = S.section("figure5", *TEXT["figure5"])
    sec.add(Row([S.figure("figure5_confidence", fig, caption="Confidence.", width=480),
                 S.table("figure5", a.figure5, index=True, digits=3, compact=True,
                         caption="Confidence per aggregator.")]))


def _figure6(S: Session, a: GAWMAnalysis, summary: list) -> None:
    from irmeta.plot.gawm import plot_leave_one_topic_out
    from irmeta.report.html import Row, markup
    fig, _ = plot_leave_one_topic_out(a.figure6, None)
    title, intro = TEXT["figure6"]
    sec = S.section("figure6", title, markup(intro, a=a.params.loto_axioms))
    sec.add(Row([S.figure("figure6_loto", fig, caption="Mean τ per aggregator.", width=480),
                 S.table("figure6", a.figure6, index=True, digits=4, compact=True,
                         caption="Leave-one-topic-out τ.")]))
    summary.append(_loto_summary(a.figure6["mean_tau"]))


#: (step, section writers) in page order; Table 2 is written with Figure 2, Table 3 with
#: Figure 3
SECTIONS = (("draw figure 2", (_table2, _figure2)), ("draw figure 3", (_table3, _figure3)),
            ("draw figure 4", (_figure4,)), ("draw figure 5", (_figure5,)),
            ("draw figure 6", (_figure6,)))


# ---------------------------------------------------------------------- render
@render_doc("gawm", "GAWMAnalysis",
            "``table2``, ``table2_paper``, ``table3``, ``figure4``, ``figure4_scores``, "
            "``figure5``, ``figure6``, ``weights_systems``, ``weights_topics``")
def render(analysis: GAWMAnalysis, output, *, inputs: list[tuple[str, str]] | None = None,
           command: str | None = None, progress: bool | None | Progress = None,
           formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    a = analysis
    with Progress.use(progress, "gawm", len(STEPS)) as prog:
        S = Session("gawm", output, TITLE, progress=prog, formats=formats, dpi=dpi)
        summary = S.write_sections(SECTIONS, a)
        m, n = a.shape
        low, high = a.score_range
        inputs = list(inputs or []) + [("systems", f"{m}"), ("topics", f"{n}"),
                                       ("cells", f"{m * n:,}"),
                                       ("score range", f"{low:.4f} to {high:.4f}")]
        notes = [f"GAWM did not converge for the heat map's {', '.join(a.heatmap_not_converged)} "
                 "mean(s); its side bars show the last iteration."] \
            if a.heatmap_not_converged else []
        return S.finish(analysis=a, inputs=inputs, command=command,
                        subtitle=f"{a.name}: {m} systems x {n} topics", summary=summary,
                        notes=notes)
