"""The leaderboard section, drawn: the table, the forest plot, the per-topic block of every
run. Part of :mod:`irmeta.report.render` (issue 33, item 0; the layout: docs/report.md). A
renderer computes no number the page shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irmeta.report.html import Text
from irmeta.report.sections.leaderboard import Defaults, LeaderboardSection, PerTopic
from irmeta.report.views.common import (
    TITLES,
    DataView,
    Downloads,
    FigureView,
    Filters,
    PaperTables,
    RunDetails,
    SectionView,
    TableView,
    _arrow,
    p_value,
    prose,
    run_anchor,
)


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
        if c == P and lb.georisk is not None:
            frame["GeoRisk"] = t["GeoRisk"].to_numpy()
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
    if lb.georisk is not None:
        notes["GeoRisk"] = [f"#{int(r)}" for r in t["rank GeoRisk"]]
        classes["GeoRisk"] = ["best" if r == 1 else "" for r in t["rank GeoRisk"]]
    tested = [c for c in labels if c != P and f"significant_vs_best {c}" in t]
    for c in tested:
        notes[c] = [f"{text} {m}".strip() for text, m in zip(notes[c], column_markers(t, c))]
    tips = {c.label: c.tip + f"  [{c.measure}]"
            + ("  (most runs share one value: no rank change shown)"
               if c.label in lb.saturated else "") for c in lb.columns}
    tips.update({name: "a run attribute (--run-info)" for name in attrs})
    tips.update({"#": f"rank by {P} (the primary measure)", "group": "the run's group (--groups)",
                 "p vs best": "p-value of the test against the best run (corrected)",
                 "p vs next": "p-value of the test against the run ranked just below "
                              "(corrected)",
                 "GeoRisk": f"GeoRisk of {P} (Dinçer et al., SIGIR 2016): sqrt(mean × "
                            f"Φ(ZRisk / topics)), α = 1: high for runs good on average and "
                            f"rarely far below the other runs on a topic (see Risk)"})
    digits = {c: 3 for c in labels}
    digits["GeoRisk"] = 3
    digits[f"unique@{lb.rare_cutoff}"] = 0
    # the TSV's headers are the measure strings (ASCII), rank_<measure>, delta_<measure>
    rename = {}
    for col in lb.columns:
        rename.update({col.label: col.measure, f"rank {col.label}": f"rank_{col.measure}",
                       f"delta {col.label}": f"delta_{col.measure}"})
        rename.update({f"{name} {col.label}": f"{name}_{col.measure}" for name in (
            "p_vs_best", "significant_vs_best", "p_vs_next", "significant_vs_next")})
    primary_measure = lb.columns[0].measure
    rename.update({"GeoRisk": f"GeoRisk_{primary_measure}",
                   "rank GeoRisk": f"rank_GeoRisk_{primary_measure}"})
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
            header_notes={**{c.label: c.relevance(lb.rel_level, lb.prior) for c in lb.columns},
                          "GeoRisk": f"{P}, α = 1"},
            caption=prose("leaderboard_caption", k=lb.rare_cutoff, primary=P,
                          legend=legend(u) if u is not None else "", tested=tested,
                          georisk=lb.georisk is not None)))])
    if lb.best_per_group is not None:
        view.blocks.append(best_per_group_table(lb, lb.best_per_group))
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


def column_markers(t: pd.DataFrame, label: str) -> list[str]:
    """The markers of column ``label`` per row of the leaderboard table ``t``: ``*``
    significantly below that column's best run, ``†`` significantly above the run
    ranked just below it under that column (the primary measure's markers, per
    column)."""
    from irmeta.stats.leaderboard import ABOVE_NEXT, BELOW_BEST
    return [(BELOW_BEST if b else "") + (ABOVE_NEXT if n else "") for b, n in zip(
        t[f"significant_vs_best {label}"], t[f"significant_vs_next {label}"])]


def best_per_group_table(lb: LeaderboardSection, b: pd.DataFrame) -> TableView:
    """The best run of each group (``b``: ``lb.best_per_group``; issue 33, item 5): the
    table organizers publish."""
    frame = pd.DataFrame({"group rank": b["group rank"].to_numpy(),
                          "group": b["group"].to_numpy(), "best run": b["run"].to_numpy(),
                          lb.primary: b["value"].to_numpy(),
                          "rank of all runs": b["rank"].to_numpy(),
                          "runs of the group": b["runs"].to_numpy()})
    return TableView("best_per_group", frame, dict(
        digits={lb.primary: 3, "group rank": 0, "rank of all runs": 0,
                "runs of the group": 0},
        caption=prose("best_per_group_caption", primary=lb.primary,
                      groups=len(frame), runs=int(b["runs"].sum())),
        lower=["group rank", "rank of all runs"]))


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
    if pt.long is not None:
        blocks.append(DataView("per_topic_runs", pt.long))
    blocks.append(Downloads(pt.matrices))
    return blocks
