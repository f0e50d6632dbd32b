"""The NRG reproduction page: :func:`render` draws and writes an
:class:`~irmeta.reproduce.nrg.analysis.NRGAnalysis`; it computes nothing.

The prose of the page (section titles, introductions, captions) is the ``TEXT`` block
below; one function per section picks the analysis' numbers and lays them out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irmeta.reproduce._common import Progress, Reproduction
from irmeta.reproduce._session import Session, campaign_rows, render_doc
from irmeta.reproduce.nrg.analysis import NRGAnalysis, RunValues

__all__ = ["STEPS", "render"]

#: the steps of :func:`render` (progress bar and run-time table)
STEPS = ("table 1", "draw figure 1", "draw figure 2", "draw figure 3", "draw figure 4",
         "draw figure 5", "render")

# ---------------------------------------------------------------------- prose
TITLE = "Reproduction: Normalized Residual Gain (Bigdeli et al., SIGIR-AP 2024)"
TEXT: dict[str, Any] = {
    "table1": ("Table 1: the impact of rank order on NRG (the paper's worked example)",
               "Three rankings of the same ten items A-J (A, E, F, J relevant, grade 4; the "
               "same nDCG@10), and NRG(base=nDCG)@10 of each with every other ranking as "
               "the only prior and with the other two, computed by irmeta.evaluate on the "
               "paper's rankings. seen(i) = 1/log2(i+1), as in the authors' code: the printed "
               "1/(log(i)+1) does not give these values (docs/paper-deviations.md)."),
    "values": ("The values",
               "Means over the campaign topic set of every measure behind the figures, one "
               "row per run (campaign order). Measure strings: {m}. In the agreement table, "
               "p (τ) is the two-sided p-value of Kendall's τ-b under 'no association' "
               "(SciPy's kendalltau, variant b, method auto: exact without ties for up to "
               "33 runs, else the normal approximation with tie correction)."),
    "provenance": {"table1": ""},
    "figure1": ("Figure 1: chronological and all-others comparison",
                "(a) Runs in campaign order (taken as the order of release): {b} and "
                "NRG@{k} with the earlier runs as the prior — what each run adds to "
                "everything before it. (b) NRG@{k} with every other run as the prior, "
                "against {b}. The paper plots MRR@10 on MS MARCO; nDCG@{k} is the base here "
                "(RR has no NRG browsing model)."),
    "figure2": ("Figure 2: NRG against nDCG, by group",
                "NRG with the nDCG browsing model over the whole ranking (the authors' "
                "code), the prior of a run being the best run by nDCG@{k} of every other "
                "group (the paper's choice); one point per run, colour = group; the {n} "
                "runs with the highest NRG are named."),
    "figure3": ("Figure 3: unique contributions",
                "NRG from precision@{K} (K = the pool depth), prior = the best run of every "
                "other group: the share of the run's top {K} that is relevant and in no "
                "prior run's top {K}; × {K} it is the number of such documents per topic "
                "('unique' column of the values). The table counts, with every other run as "
                "the prior, the relevant documents each run alone has in its top {K} "
                "(unique contributions to the pool), summed over topics."),
    "figure4": ("Figure 4: rareness-based precision against nDCG",
                "P_rare(α={a})@{k} (Türkmen et al.): rarity of a document over all the "
                "runs, the scored one included — no prior set."),
    "figure5": ("Figure 5: TaSC against nDCG",
                "TaSC@{k} (Arabzadeh et al., SIGIR 2023; the NRG paper's appendix C): per "
                "topic (1 − the best nDCG@{k} of the prior runs) × the run's nDCG@{k}, the "
                "prior of a run being the best run of every other group, as the caption of "
                "the paper's Figure 5 says (the authors' script keeps the run's own group; "
                "see docs/paper-deviations.md). Like rareness-based precision, TaSC follows "
                "nDCG closely: it looks at aggregated scores, not at which documents a run "
                "found."),
}
NO_GROUPS = ("No groups file: every run is its own group, so the prior 'best_per_group' is "
             "every other run (the same as 'others').")


# ---------------------------------------------------------------------- figures
def _chronological_plot(fig1a: RunValues):
    from irmeta.plot import style
    n = len(fig1a.x)
    fig, ax = style.figure(min(11.0, 3.0 + 0.14 * n), 3.4)
    x = np.arange(1, n + 1)
    ax.plot(x, fig1a.x, marker="o", ms=3, label=fig1a.x.name, color=style.PALETTE[0])
    ax.plot(x, fig1a.y, marker="s", ms=3, label="NRG, prior = earlier runs",
            color=style.PALETTE[3])
    ax.set_xlabel("runs in campaign order")
    ax.set_ylabel("mean over topics")
    if n <= 40:
        ax.set_xticks(x, list(fig1a.x.index), rotation=70, ha="right", fontsize=6)
    ax.set_xlim(0.5, n + 0.5)
    ax.legend(frameon=False)
    ax.set_title("Chronological comparison: what each run adds to the earlier ones")
    return fig


def _scatter(v: RunValues, ylabel: str, title: str, label_top: int, diagonal: bool = True):
    from irmeta.report.figures import scatter_by_group
    return scatter_by_group(v.x, v.y, v.group, xlabel=str(v.x.name), ylabel=ylabel, title=title,
                            label_top=label_top, diagonal=diagonal)


# ---------------------------------------------------------------------- sections
def _table1(S: Session, a: NRGAnalysis, summary: list) -> None:
    sec = S.section("table1", *TEXT["table1"])
    sec.add(S.table("table1", a.table1.reset_index(), digits=4, compact=True, sortable=False,
                    caption="Ours (full precision) and the paper's values."))
    S.provenance(sec, a.provenance["table1"], TEXT["provenance"]["table1"])
    summary.append(f"Table 1 (the paper's example): {int(a.table1['equal to 4 d.'].sum())} of "
                   f"{len(a.table1)} rows equal the printed values to 4 decimals.")


def _values(S: Session, a: NRGAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    title, intro = TEXT["values"]
    sec = S.section("values", title,
                    markup(intro, m="; ".join(f"{k} = {v}" for k, v in a.measures.items())))
    sec.add(S.table("values", a.values.reset_index(), digits=4, compact=True,
                    caption="Per-run values (sortable)."))
    sec.add(S.table("correlations", a.correlations, digits=3, compact=True, sortable=False,
                    caption=f"Agreement of each measure's ranking with {a.base}."))


def _figure1(S: Session, a: NRGAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    k = a.params.cutoff
    fig_a = _chronological_plot(a.figure1a)
    fig_b = _scatter(a.figure1b, f"NRG@{k}, prior = all other runs", "All-others comparison",
                     a.params.label_top)
    title, intro = TEXT["figure1"]
    sec = S.section("figure1", title, markup(intro, b=a.base, k=k))
    sec.add(S.figure("figure1a_chronological", fig_a, caption="(a) chronological.", width=820))
    sec.add(S.figure("figure1b_others", fig_b, caption="(b) all other runs as the prior.",
                     width=620))
    nrg_e = a.figure1a.y
    summary.append(f"Figure 1a: NRG with the earlier runs as the prior falls from "
                   f"{nrg_e.iloc[0]:.3f} (first run) to a median of "
                   f"{nrg_e.iloc[1:].median():.3f} for the others; τ(NRG others, {a.base}) = "
                   f"{a.tau_with_base(str(a.figure1b.y.name)):.3f}.")


def _figure2(S: Session, a: NRGAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    fig = _scatter(a.figure2, "NRG (nDCG, full depth), prior = best run of each other group",
                   f"NRG against {a.base}", a.params.label_top)
    title, intro = TEXT["figure2"]
    sec = S.section("figure2", title, markup(intro, n=a.params.label_top, k=a.params.cutoff))
    sec.add(S.figure("figure2_nrg_ndcg", fig, caption="NRG against nDCG.", width=620))
    summary.append("Figure 2: highest NRG (best_per_group): " + ", ".join(
        f"{r.run} ({r.group}, {r.value:.3f}; {a.base} rank {r.base_rank})"
        for r in a.top_runs(a.figure2).itertuples()) + ".")


def _figure3(S: Session, a: NRGAnalysis, summary: list) -> None:
    from irmeta.report.html import Row, markup
    K = a.params.pool_depth
    fig = _scatter(a.figure3, f"NRG@{K} (precision), prior = best run of each other group",
                   f"Unique contributions (NRG from P@{K})", a.params.label_top,
                   diagonal=False)
    uct = a.unique_contributions
    title, intro = TEXT["figure3"]
    sec = S.section("figure3", title, markup(intro, K=K))
    sec.add(Row([S.figure("figure3_unique", fig, caption="NRG(P) against nDCG.", width=620),
                 S.table("unique_contributions", uct, digits=3, compact=True,
                         caption=f"Unique contributions to the pool (top {K}).")]))
    best = uct.iloc[0]
    summary.append(f"Figure 3: most unique relevant documents in the top {K}: "
                   f"{best['run']} ({int(best['unique'])} over all topics); "
                   f"{int((uct['unique'] == 0).sum())} runs contribute none.")


def _figure4(S: Session, a: NRGAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    p = a.params
    fig = _scatter(a.figure4, f"P_rare(α={float(p.alpha):g})@{p.cutoff}",
                   "Rareness-based precision", p.label_top, diagonal=False)
    title, intro = TEXT["figure4"]
    sec = S.section("figure4", title, markup(intro, a=f"{float(p.alpha):g}", k=p.cutoff))
    sec.add(S.figure("figure4_p_rare", fig, caption="P_rare against nDCG.", width=620))


def _figure5(S: Session, a: NRGAnalysis, summary: list) -> None:
    from irmeta.report.html import markup
    k = a.params.cutoff
    fig = _scatter(a.figure5, f"TaSC@{k}, prior = best run of each other group",
                   "TaSC (task subspace coverage)", a.params.label_top, diagonal=True)
    title, intro = TEXT["figure5"]
    sec = S.section("figure5", title, markup(intro, k=k))
    sec.add(S.figure("figure5_tasc", fig, caption="TaSC against nDCG.", width=620))
    summary.append(f"Figure 5: τ(TaSC, {a.base}) = {a.tau_with_base(str(a.figure5.y.name)):.3f}, "
                   f"τ(NRG best_per_group, {a.base}) = "
                   f"{a.tau_with_base(str(a.figure2.y.name)):.3f}.")


#: (step, section writer) in page order; the values section is written with Figure 1
SECTIONS = (("table 1", (_table1,)), ("draw figure 1", (_values, _figure1)),
            ("draw figure 2", (_figure2,)), ("draw figure 3", (_figure3,)),
            ("draw figure 4", (_figure4,)), ("draw figure 5", (_figure5,)))


# ---------------------------------------------------------------------- render
@render_doc("nrg", "NRGAnalysis",
            "``table1``, ``values``, ``correlations``, ``unique_contributions``")
def render(analysis: NRGAnalysis, output, *, inputs: list[tuple[str, str]] | None = None,
           command: str | None = None, progress: bool | None | Progress = None,
           formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    a = analysis
    with Progress.use(progress, "nrg", len(STEPS)) as prog:
        S = Session("nrg", output, TITLE, progress=prog, formats=formats, dpi=dpi)
        summary = S.write_sections(SECTIONS, a)
        inputs = list(inputs or []) + campaign_rows(a.campaign) + [
            ("groups", f"{a.num_groups}" if a.groups_given
             else "none given: every run is its own group")]
        return S.finish(analysis=a, inputs=inputs, command=command,
                        subtitle=f"{a.campaign.runs} runs"
                                 + (f" from {a.num_groups} groups" if a.groups_given else "")
                                 + f", {a.campaign.analysed_topics} topics",
                        summary=summary, notes=[] if a.groups_given else [NO_GROUPS])
