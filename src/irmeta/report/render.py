"""The campaign report's renderers: one function per section draws that section's
analysis (:mod:`irmeta.report.analysis`) as a :class:`SectionView` — its tables
(DataFrames with their display options), figures (drawn by :mod:`irmeta.plot` and
:mod:`irmeta.report.figures` from computed results) and paragraphs. The prose comes
from ``templates/prose.html.j2`` (:func:`prose`); the HTML of tables and figures from
``templates/blocks.html.j2``. :func:`irmeta.report.assemble.campaign_report` hands the
views to the :class:`~irmeta.report.html.ReportWriter`, which writes the TSV, PNG and
SVG files and the page.

A renderer computes no number the page shows: it formats, orders columns and chooses
what to draw.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from irmeta.report.analysis import (
    Defaults,
    EffortSection,
    Highlights,
    InnovationSection,
    InputsSection,
    LeaderboardSection,
    NRGSection,
    PerTopic,
    TopicsSection,
    TrustSection,
)
from irmeta.report.html import Row, Text

__all__ = ["TITLES", "DataView", "FigureView", "SectionView", "TableView", "effort",
           "innovation", "inputs", "leaderboard", "nrg", "prose", "skipped", "subtitle",
           "summary", "topics", "trust"]

#: section id -> heading
TITLES = {"inputs": "Inputs and parameters", "leaderboard": "Leaderboard",
          "innovation": "Innovation: relevant documents few runs found",
          "nrg": "Relative effectiveness: what is new in each run (NRG)",
          "effort": "Effort: how much reading the ranking costs (Twist)",
          "topics": "Topics and systems: weighted aggregation (GAWM, HITS)",
          "trust": "Trust: how far the measures can be relied on"}


# ---------------------------------------------------------------------- views
@dataclass
class TableView:
    """A table of the page: ``frame`` shown with ``options`` (the keyword arguments of
    :meth:`irmeta.report.html.ReportWriter.table`: caption, digits, notes, tips ...)
    and written as ``<name>.tsv``."""

    name: str
    frame: pd.DataFrame
    options: dict[str, Any] = field(default_factory=dict)


@dataclass
class FigureView:
    """A figure of the page (a matplotlib figure, saved as PNG and SVG); ``data``, when
    given, is written as ``<name>.tsv`` and linked next to the image files."""

    name: str
    figure: Any
    caption: Markup | str = ""
    alt: str = ""
    width: int | None = None
    data: pd.DataFrame | None = None
    data_index: bool = False


@dataclass
class DataView:
    """A TSV file next to the page that no block shows (e.g. every unique document)."""

    name: str
    frame: pd.DataFrame
    index: bool = False


@dataclass
class RunDetails:
    """One run's per-topic table in a collapsed ``<details id=anchor>`` block (the
    leaderboard's run names link to it)."""

    anchor: str
    run: str
    table: TableView
    kind: str = "details"
    #: a line under the run's name (the relevant documents only its group contributed)
    note: str = ""


@dataclass
class Filters:
    """Selects above the table ``table`` that show only the rows whose column equals the
    chosen value: ``columns`` = (column, its sorted values) pairs (the run attributes of
    ``--run-info``)."""

    table: str
    columns: list
    kind: str = "filters"


@dataclass
class PaperTables:
    """The leaderboard as files to paste into a paper: ``files`` = file name -> text
    (``leaderboard.tex``: :func:`irmeta.stats.leaderboard.to_latex`, the writer of
    ``irmeta compare``; ``leaderboard.md``: ``to_markdown``), linked under the table."""

    files: dict
    kind: str = "paper_tables"


@dataclass
class Downloads:
    """The runs x topics matrix of every measure (measure string -> matrix), written as
    one TSV per measure and one Parquet file of them all."""

    matrices: dict
    kind: str = "downloads"


@dataclass
class SectionView:
    """One section: anchor ``id``, ``title``, ``intro`` and its blocks in page order
    (:class:`TableView`, :class:`FigureView`, :class:`DataView`,
    :class:`~irmeta.report.html.Text`, :class:`~irmeta.report.html.Row` of views)."""

    id: str
    title: str
    intro: Markup | str = ""
    blocks: list = field(default_factory=list)
    skipped: Markup | str = ""


# ---------------------------------------------------------------------- prose
@functools.lru_cache(maxsize=1)
def _prose_macros():
    from irmeta.report.html import environment
    return environment().get_template("prose.html.j2").module


def prose(macro: str, /, **values) -> Markup:
    """The macro ``macro`` of ``templates/prose.html.j2`` with ``values`` (escaped), its
    words joined by single spaces (the template's line breaks are layout only)."""
    return Markup(" ".join(getattr(_prose_macros(), macro)(**values).split()))


def subtitle(sec: InputsSection) -> Markup:
    """The line under the page title: runs, groups, analysed topics, judgements."""
    return prose("subtitle", runs=sec.runs, groups=sec.groups, topics=sec.analysed_topics,
                 judged=sec.judged)


def summary(h: Highlights, renamed=()) -> list[Markup]:
    """The summary box: best run, most new material, most unique documents, largest
    rank change (the last three when they exist)."""
    out = [prose("summary_best", primary=h.primary, runs=h.best.runs, value=h.best.value,
                 tied=h.tied)]
    if h.most_new:
        out.append(prose("summary_most_new", k=h.nrg_cutoff, runs=h.most_new.runs,
                         ranks=h.most_new.ranks, value=h.most_new.value))
    if h.most_unique:
        out.append(prose("summary_most_unique", runs=h.most_unique.runs,
                         n=int(h.most_unique.value)))
    out.append(prose("summary_moved", primary=h.primary, changes=h.moved,
                     left_out=h.left_out))
    if renamed:
        out.append(run_names_note(renamed))
    return out


def run_names_note(renamed) -> Markup:
    """The summary's line on runs not named by their tags (:attr:`InputsSection.renamed`):
    which runs, and why (colliding tags: the collisions named)."""
    from collections import Counter
    by_file = [(r, t) for r, t, why in renamed if why == "file"]
    counts = Counter(t for _, t in by_file)
    collide = [(t, n) for t, n in counts.items() if n > 1]
    given = [r for r, _, why in renamed if why == "given"]
    return prose("summary_run_names", n_file=len(by_file), collide=collide, given=given)


def skipped(name: str) -> SectionView:
    """A section left out with ``--skip``."""
    return SectionView(name, TITLES[name], skipped=prose("skipped", name=name))


def _arrow(delta: float) -> tuple[str, str]:
    """Text and CSS class of a rank change (positive = moved up)."""
    if not np.isfinite(delta):
        return "", ""
    d = int(delta)
    if d > 0:
        return f"▲{d}", "up"
    if d < 0:
        return f"▼{-d}", "down"
    return "=", ""


# ---------------------------------------------------------------------- sections
def p_value(p: float) -> str:
    """A p-value as shown: three decimals, ``<0.001`` below that."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def run_anchor(runs) -> dict[str, str]:
    """A page anchor per run (``run-<name>``, characters outside ``[A-Za-z0-9_.-]``
    replaced; a number appended where two names would collide)."""
    import re
    out: dict[str, str] = {}
    taken: set[str] = set()
    for k, run in enumerate(runs):
        a = "run-" + re.sub(r"[^A-Za-z0-9_.-]", "_", str(run))
        if a in taken:
            a = f"{a}-{k}"
        taken.add(a)
        out[str(run)] = a
    return out


def leaderboard(lb: LeaderboardSection, per_topic: PerTopic | None = None,
                defaults: Defaults | None = None) -> SectionView:
    """Values with the rank (and its change against the primary measure) in small
    print under each; the primary measure's interval and tests; the forest plot; each
    run's per-topic values (``per_topic``) in a collapsed block the run name links to."""
    from irmeta.plot.meta import leaderboard_plot
    from irmeta.stats.leaderboard import legend, markers

    t, P = lb.table, lb.primary
    labels = list(lb.means.columns)
    anchors = run_anchor(t["run"]) if per_topic is not None else {}
    frame = pd.DataFrame({"#": t[f"rank {P}"].astype(int).to_numpy(),
                          "run": t["run"].to_numpy()})
    if "group" in t:
        frame["group"] = t["group"].to_numpy()
    attrs = [] if lb.attributes is None else [str(c) for c in lb.attributes.columns]
    for name in attrs:
        frame[name] = t[name].to_numpy()
    u = lb.uncertainty
    notes, classes = {}, {}
    for c in labels:
        frame[c] = t[c].to_numpy()
        if c == P and u is not None:
            level = round(u.ci_level * 100)
            frame[f"{level}% CI low"] = t["ci_low"].to_numpy()
            frame[f"{level}% CI high"] = t["ci_high"].to_numpy()
            frame["p vs best"] = t["p_vs_best"].to_numpy()
            frame["p vs next"] = t["p_vs_next"].to_numpy()
            classes["p vs best"] = ["sig" if x else "" for x in t["significant_vs_best"]]
            classes["p vs next"] = ["sig" if x else "" for x in t["significant_vs_next"]]
        deltas = t[f"delta {c}"] if c != P else pd.Series(np.nan, index=t.index)
        texts, css = [], []
        for r, delta in zip(t[f"rank {c}"], deltas):
            if not np.isfinite(r):
                texts.append("")
                css.append("")
                continue
            arrow, cls = ("", "") if c == P else _arrow(delta)
            texts.append(f"#{int(r)} {arrow}".strip())
            css.append(" ".join(x for x in (cls, "best" if r == 1 else "") if x))
        notes[c], classes[c] = texts, css
    if u is not None:
        marks = markers(u).reindex(t.index).fillna("")
        notes[P] = [m for m in marks]
        classes[P] = [f"{cls} marks".strip() for cls in classes[P]]
    tips = {c.label: c.tip + f"  [{c.measure}]"
            + ("  (most runs share one value: no rank change shown)"
               if c.label in lb.saturated else "") for c in lb.columns}
    tips.update({name: "a run attribute (--run-info)" for name in attrs})
    tips.update({"#": f"rank by {P} (the primary measure)", "group": "the run's group (--groups)",
                 "p vs best": "p-value of the test against the best run (corrected)",
                 "p vs next": "p-value of the test against the run ranked just below "
                              "(corrected)"})
    digits = {c: 3 for c in labels}
    digits[f"unique@{lb.rare_cutoff}"] = 0
    # the TSV's headers are the measure strings (ASCII), rank_<measure>, delta_<measure>
    rename = {}
    for col in lb.columns:
        rename.update({col.label: col.measure, f"rank {col.label}": f"rank_{col.measure}",
                       f"delta {col.label}": f"delta_{col.measure}"})
    filters = [Filters("leaderboard", [(name, sorted(set(map(str, t[name])), key=str))
                                       for name in attrs])] if attrs else []
    view = SectionView("leaderboard", TITLES["leaderboard"],
                       prose("leaderboard_intro", primary=P,
                             rule=defaults.primary_rule if defaults else ""), [
        *filters,
        TableView("leaderboard", frame, dict(
            digits=digits, notes=notes, classes=classes, tips=tips, stacked=True,
            tsv=t.rename(columns=rename),
            links={"run": ["#" + anchors[r] for r in t["run"]]} if anchors else None,
            formats={"p vs best": p_value, "p vs next": p_value},
            header_notes={c.label: c.relevance(lb.rel_level, lb.prior) for c in lb.columns},
            caption=prose("leaderboard_caption", k=lb.rare_cutoff, primary=P,
                          legend=legend(u) if u is not None else "")))])
    if u is not None:
        view.blocks.append(FigureView(
            "leaderboard_ci", leaderboard_plot(u, title=f"{P}: mean and "
                                               f"{round(u.ci_level * 100)}% interval"),
            alt=f"{P} of every run with its confidence interval", width=560,
            caption=prose("leaderboard_ci_caption", primary=P, describe=u.describe())))
        from irmeta.stats.leaderboard import to_latex, to_markdown
        view.blocks.append(PaperTables({
            "leaderboard.tex": to_latex(u, measure=lb.columns[0].measure),
            "leaderboard.md": to_markdown(u, measure=lb.columns[0].measure)}))
    if per_topic is not None:
        view.blocks += per_topic_blocks(per_topic, anchors, lb)
    return view


def _unique_note(pt: PerTopic, run: str) -> str:
    """The drill-down's line on reusability: how many relevant documents only this run's
    group contributed to the judgments (the trust section's Reusability part)."""
    if not pt.group_unique or run not in pt.group_unique:
        return ""
    n = pt.group_unique[run]
    return (f"{n} relevant document{'' if n == 1 else 's'} only this run's group "
            f"retrieved (see Reusability)")


def per_topic_blocks(pt: PerTopic, anchors: dict[str, str], lb: LeaderboardSection) -> list:
    """The per-topic drill-down: the topics' best/median/worst, one collapsed table per
    run (best run first) and the downloads of every measure's matrix."""
    s = pt.summary
    summary = pd.DataFrame({"topic": s.index.astype(str), "best": s["best"].to_numpy(),
                            "best run": s["best_run"].astype(object).to_numpy(),
                            "runs at best": s["runs_at_best"].to_numpy(),
                            "median": s["median"].to_numpy(), "worst": s["worst"].to_numpy()})
    blocks: list = [
        Text(prose("per_topic_intro", primary=pt.measure)),
        TableView("per_topic_summary", summary, dict(
            digits={"best": 3, "median": 3, "worst": 3},
            caption=prose("per_topic_summary_caption", primary=pt.measure)))]
    for run in lb.table["run"]:
        r = pt.runs[str(run)]
        frame = pd.DataFrame({"topic": r.index.astype(str), pt.measure: r["value"].to_numpy(),
                              "best": r["best"].to_numpy(), "median": r["median"].to_numpy(),
                              "worst": r["worst"].to_numpy(), "rank": r["rank"].to_numpy(),
                              "vs median": r["vs_median"].to_numpy()})
        blocks.append(RunDetails(anchors[str(run)], str(run), TableView(
            f"per_topic_{anchors[str(run)]}", frame, dict(
                digits={pt.measure: 3, "best": 3, "median": 3, "worst": 3, "rank": 0,
                        "vs median": 3},
                classes={"vs median": ["up" if v > 0 else "down" if v < 0 else ""
                                       for v in r["vs_median"]],
                         pt.measure: ["best" if b else "" for b in r["is_best"]]},
                compact=True, write=False)),
            note=_unique_note(pt, str(run))))
    long = pd.concat({str(run): pt.runs[str(run)].drop(columns="is_best")
                      for run in lb.table["run"]}, names=["run", "topic"]).reset_index()
    blocks += [DataView("per_topic_runs", long.rename(columns={"value": pt.measure})),
               Downloads(pt.matrices)]
    return blocks


def innovation(sec: InnovationSection) -> SectionView:
    """The tau-against-alpha curves and the unique documents per run."""
    from irmeta.plot.meta import alpha_sweep_plot

    K = sec.rare_cutoff
    table = sec.unique
    return SectionView("innovation", TITLES["innovation"], prose("innovation_intro", k=K), [
        FigureView("innovation_tau_alpha",
                   alpha_sweep_plot(sec.sweep, method="kendall", threshold=0.9),
                   alt="Kendall tau against alpha", width=520, data=sec.sweep,
                   caption=prose("innovation_sweep_caption", k=K,
                                 lowest=list(sec.lowest_tau.items()))),
        DataView("unique_documents", sec.documents),
        TableView("innovation_unique", table, dict(
            digits={"share": 3},
            classes={"examples": ["wrap"] * len(table)},
            labels={"unique": f"unique rel. @{K}", "topics": "topics",
                    "share": "share of its rel."},
            tips={"unique": f"relevant documents in the run's top {K} that no other run "
                            f"has in its top {K}",
                  "topics": "topics with at least one such document",
                  "share": "unique / relevant documents the run retrieved in its top K",
                  "examples": "topics with the most such documents; per topic the "
                              "highest-graded documents first"},
            caption=prose("innovation_unique_caption", n=sec.runs_with_unique,
                          runs=sec.num_runs)))])


def nrg(sec: NRGSection) -> SectionView:
    """NRG against nDCG per run, and the runs with the highest NRG."""
    from irmeta.report.figures import scatter_by_group

    k, p = sec.k, sec.points
    colour = p["colour"] if sec.colour_by else p["group"]
    fig = scatter_by_group(p["nDCG"], p["NRG"], colour, xlabel=f"nDCG@{k}",
                           ylabel=f"NRG@{k} (prior: {sec.prior})", diagonal=False,
                           label_top=5, legend_title=sec.colour_by or
                           ("run" if sec.own_groups else "group"))
    return SectionView("nrg", TITLES["nrg"], prose("nrg_intro", k=k, prior=sec.prior), [
        FigureView("nrg_vs_ndcg", fig, alt="NRG against nDCG", width=640,
                   caption=prose("nrg_scatter_caption", k=k, own_groups=sec.own_groups,
                                 colour_by=sec.colour_by)),
        TableView("nrg_top", sec.table, dict(
            digits={f"unique@{sec.rare_cutoff}": 0, f"rank nDCG@{k}": 0, f"rank NRG@{k}": 0},
            tips={"NRG / nDCG": "share of the run's nDCG that the prior runs had not "
                                "already shown"},
            caption=prose("nrg_table_caption", k=k)))])


def effort(sec: EffortSection) -> SectionView:
    """The effort/gain grid, its shares, the archetypes, the telling CRP/DCG curves."""
    from irmeta.effort import ARCHETYPES
    from irmeta.plot.effort import plot_crp_dcg_panels, plot_effort_gain

    view = SectionView("effort", TITLES["effort"], prose(
        "effort_intro", depth=sec.depth,
        rule="the runs' depth" if sec.depth == sec.runs_depth
        else f"given; the runs are {sec.runs_depth} deep", undefined=sec.undefined_topics))
    f = sec.findings
    if f is None:
        view.blocks.append(Text(prose("effort_undefined")))
        return view
    tell = f.telling
    pairs = list(zip(tell["run"], tell["topic"]))
    grid_fig, _ = plot_effort_gain(f.grid, None, highlight=pairs, seed=sec.seed)
    curves_fig, _ = plot_crp_dcg_panels(list(f.panels))
    # each panel's title describes that panel: Twist's components belong to the CRP
    # curve (left), the DCG panel (right) names the recall base. Two lines each: on one
    # line the CRP title was wider than its panel (DL21's run names), and a title
    # sticking out makes plot.style.save write the figure again with a tight bounding box
    # (three more draws, a tenth of the report's figure CPU)
    for (ax_c, ax_d), p in zip(np.reshape(curves_fig.axes[:2 * len(f.panels)], (-1, 2)),
                               f.panels):
        crossing = f"crossing at {p.crossing}" if p.crossing > 0 else "no crossing"
        ax_c.set_title(f"CRP: {p.run} / topic {p.topic}, Twist@{sec.depth} {p.twist:.3f}\n"
                       f"(ρ {p.rho:.2f}, σ {p.sigma:.2f}, {crossing})", fontsize=7.5)
        ax_d.set_title(f"DCG of the same ranking\n(RB = {p.rb} relevant)", fontsize=7.5)
    listing = "; ".join(f"{r} / topic {t} ({k})"
                        for r, t, k in zip(tell["run"], tell["topic"], tell["kind"]))
    view.blocks += [
        FigureView("effort_gain", grid_fig, alt="effort/gain grid", width=520,
                   caption=prose("effort_grid_caption", gain=sec.gain, depth=sec.depth,
                                 rule=sec.gain_rule)),
        TableView("effort_gain_shares", f.shares, dict(
            index=True, digits=1, sortable=False, compact=True,
            caption=prose("effort_shares_caption", diagonal=f.grid.diagonal,
                          high_high=f.grid.high_high))),
        TableView("effort_archetypes", f.archetypes, dict(
            index=True, digits={a: 1 for a in ARCHETYPES},
            caption=prose("effort_archetypes_caption", depth=sec.depth))),
        FigureView("effort_crp_dcg", curves_fig, alt="CRP and DCG curves", width=760,
                   caption=prose("effort_curves_caption", pairs=listing))]
    return view


#: the topics heat map names every run and topic up to this many topics; beyond, it has the
#: paper's layout (a fixed size, no topic ids)
HEATMAP_LABELLED_TOPICS = 300


def topics(sec: TopicsSection) -> SectionView:
    """The heat map, the MAP/GAWM slope chart, the runs and the topics tables."""
    from irmeta.plot.gawm import plot_heatmap_bars
    from irmeta.report.figures import rank_slope

    name = sec.measure
    view = SectionView("topics", TITLES["topics"], prose("topics_intro", measure=name,
                                                           rule=sec.measure_rule))
    a = sec.aggregation
    if a is None:
        view.blocks.append(Text(prose("topics_too_small")))
        return view
    # labelled, the figure grows 0.16 inch a topic: at 4,000 topics its raster took 1.5 GB
    # (more than a topic shard of the campaign); the matrix's TSV names every topic
    labels = a.matrix.shape[1] <= HEATMAP_LABELLED_TOPICS
    heatmap, _ = plot_heatmap_bars(a.bars, None, title=f"{name}: runs x topics", labels=labels)
    slope = rank_slope(a.map, a.gawm.E_s, left_label=f"MAP ({name})",
                       right_label="GAWM E_s", title="rank of every run under MAP and under GAWM")
    arrows = [_arrow(d) for d in a.systems["rank change"]]
    view.blocks += [
        FigureView("topics_heatmap", heatmap, alt="score matrix heat map", width=900,
                   caption=prose("topics_heatmap_caption", measure=name)),
        FigureView("topics_rank_map_gawm", slope, alt="ranks under MAP and GAWM", width=520,
                   caption=prose("topics_slope_caption", moved=a.moved,
                                 runs=len(a.systems), tau=a.tau)),
        TableView("topics_systems", a.systems, dict(
            digits={"MAP": 4, "GAWM E_s": 4, "HITS A(s)": 3, "weight W_s": 4,
                    "rank MAP": 0, "rank GAWM": 0, "rank HITS": 0, "rank change": 0},
            classes={"rank change": [cls for _, cls in arrows]},
            caption=prose("topics_systems_caption", converged=a.gawm.converged,
                          iterations=a.gawm.iterations))),
        TableView("topics_weights", a.topics, dict(
            digits={"AAP": 3, "ease E_t": 3, "weight W_t": 4, "HITS A(t)": 3,
                    "std over runs": 3},
            caption=prose("topics_weights_caption", uniform=1 / a.matrix.shape[1])))]
    return view


def trust(sec: TrustSection) -> SectionView:
    """Discriminative power, stability and the Kendall tau matrix of the measures."""
    from irmeta.report.figures import bars, correlation_heatmap

    tau = FigureView("trust_kendall_tau",
                     correlation_heatmap(sec.tau,
                                         title="Kendall's τ between the rankings of the runs"),
                     alt="Kendall tau matrix", width=620, data=sec.tau, data_index=True,
                     caption=prose("trust_tau_caption", most_different=sec.most_different))
    view = SectionView("trust", TITLES["trust"], prose("trust_intro"))
    if sec.tested and sec.primary_rank is not None:
        row = sec.measures.iloc[sec.primary_rank - 1]
        view.blocks.append(Text(prose(
            "trust_primary", primary=sec.primary, rank=sec.primary_rank,
            measures=len(sec.measures), power=float(row["disc. power"]),
            delta=float(row["Δ needed"]), stability=float(row.get("stability", np.nan)),
            level=sec.level)))
    if not sec.tested:
        view.blocks += [Text(prose("trust_untested", topics=sec.analysed_topics)), tau]
        return view
    fig = bars(sec.power.set_index("measure")["dp"],
               xlabel=f"share of run pairs with p < {sec.level:g}",
               title=f"discriminative power (paired bootstrap, B = {sec.discpower_trials})")
    view.blocks += [
        FigureView("trust_discriminative_power", fig, alt="discriminative power", width=560,
                   caption=prose("trust_power_caption", pairs=sec.pairs,
                                 discpower_trials=sec.discpower_trials, level=sec.level)),
        TableView("trust_measures", sec.measures, dict(
            lower=("Δ needed", "BV error", "BV swaps"),
            digits={"disc. power": 3, "Δ needed": 3, "stability": 3,
                    "stability ties": 3, "BV error": 3, "BV ties": 3, "BV swaps": 3},
            tips={"disc. power": "share of run pairs significantly different",
                  "Δ needed": "largest difference in means a pair needed to be "
                              "significant (bootstrap)",
                  "stability": f"fuzziness stability (Türkmen et al.): {sec.stability_trials} "
                               f"random halves of the topics; higher = more stable",
                  "stability ties": f"share of decisions where two runs differ by at "
                                    f"most {sec.fuzziness:g}",
                  "BV error": "Buckley-Voorhees error rate over pairs of disjoint topic "
                              "halves; lower = more stable",
                  "BV swaps": "share of (pair, trial) where the two halves disagree"},
            caption=prose("trust_measures_caption", stability_trials=sec.stability_trials,
                          fuzziness=sec.fuzziness))),
        tau]
    if sec.reusability is not None:
        view.blocks += reusability_blocks(sec.reusability)
    return view


def reusability_blocks(part) -> list:
    """The trust section's "Reusability" part: the leave-one-group-out of the primary
    measure, a figure (score with vs without each group's unique documents) and the
    per-group table (docs/pooling.md)."""
    from irmeta.report.figures import scatter_by_group
    s = part.scores.set_index("run")
    fig = scatter_by_group(s["score"], s["score_without"], s["group"],
                           xlabel=f"{part.measure} (all judgments)",
                           ylabel=f"{part.measure} without the group's unique documents",
                           title="Reusability: leave-one-group-out")
    return [
        Text(prose("trust_reusability", measure=part.measure, depth=part.depth,
                   tau=part.tau, tau_ap=part.tau_ap, worst=part.worst)),
        FigureView("trust_reusability", fig, alt="score with and without the group's "
                   "unique documents", width=620, data=part.scores,
                   caption=prose("trust_reusability_caption", depth=part.depth)),
        TableView("trust_reusability_groups", part.groups, dict(
            digits={"mean AP_rare": 3, "largest drop": 4},
            tips={"unique relevant": f"relevant documents only this group's runs retrieved "
                                     f"within rank {part.depth}",
                  "largest drop": "largest score drop of the group's runs without them"}))]


def inputs(sec: InputsSection) -> SectionView:
    """The inputs and the parameters, side by side."""
    rows = list(sec.files) + [
        ("runs", f"{sec.runs}"),
        ("groups", "none given: every run is its own group" if sec.groups is None
         else f"{sec.groups}"),
        ("qrels topics", f"{sec.qrels_topics}"),
        ("topics with a relevant document (analysed)", f"{sec.analysed_topics}"),
        ("judged documents", f"{sec.judged:,}"),
        (f"relevant documents (grade ≥ {sec.rel_level})",
         f"{sec.relevant:,} ({sec.relevant_per_topic:.1f} per analysed topic)"
         if sec.analysed_topics else "0"),
        ("ranking depth (longest run)", f"{sec.depth}"),
        ("NRG prior set", sec.nrg_prior if sec.nrg_prior != "list" else
         "list: " + ", ".join(sec.prior_runs or ())),
    ]
    if sec.reference_runs is not None:
        rows.append(("rarity reference runs (P_rare, AP_rare)", f"{sec.reference_runs}"))
    if sec.dropped_topics is not None:
        rows.append(("run topics absent from the qrels (ignored)", f"{sec.dropped_topics}"))
    by_file = [(r, t) for r, t, why in sec.renamed if why == "file"]
    given = [(r, t) for r, t, why in sec.renamed if why == "given"]
    if by_file:
        rows.append(("runs named by their file names (tags collide)", ", ".join(
            f"{r} (tag {t})" for r, t in by_file)))
    if given:
        rows.append(("runs named as given (--names)", ", ".join(
            f"{r} (tag {t})" for r, t in given)))
    frame = pd.DataFrame(rows, columns=["input", "value"])
    params = pd.DataFrame(list(sec.parameters), columns=["parameter", "value"])
    return SectionView("inputs", TITLES["inputs"], prose("inputs_intro"), [
        Row([TableView("inputs", frame, dict(caption=prose("inputs_caption"), sortable=False,
                                              compact=True,
                                              classes={"value": ["wrap"] * len(frame)})),
             TableView("parameters", params, dict(
                 sortable=False, compact=True, caption=prose("parameters_caption")))]),
        Text(prose("inputs_topic_set", topics=sec.analysed_topics))])
