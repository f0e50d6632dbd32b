"""The per-run appendix, drawn: a section of the page listing every run's page, and the
pages themselves (:class:`AppendixPages`: one :class:`RunPage` per run, written by
:func:`irmeta.report.assemble.write_appendix` into ``<stem>_files/runs/``). Part of
:mod:`irmeta.report.render` (issue 33, item 3; the layout: docs/report.md). A renderer
computes no number the page shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from irmeta.report.html import Text
from irmeta.report.sections.appendix import AppendixSection
from irmeta.report.views.common import (
    ASSETS,
    TITLES,
    SectionView,
    TableView,
    prose,
    run_anchor,
)

__all__ = ["AppendixPages", "BarsView", "Collapsed", "RunPage", "appendix", "run_page"]


@dataclass
class RunPage:
    """One run's appendix page: ``anchor`` (its file name stem, the run's page anchor),
    ``title``, its blocks in page order (:class:`TableView`, :class:`BarsView`,
    :class:`~irmeta.report.html.Text`, :class:`Collapsed`) and ``data``: the run's rows of
    ``per_topic_runs.tsv``, written beside the page as ``<anchor>.tsv``."""

    anchor: str
    run: str
    title: str
    blocks: list = field(default_factory=list)
    data: pd.DataFrame | None = None


@dataclass
class Collapsed:
    """A table under a title that opens on a click (``<details>``)."""

    anchor: str
    run: str                     # the summary line (the template's ``details`` block)
    table: TableView
    kind: str = "details"
    note: str = ""


@dataclass
class BarsView:
    """The bar chart of a run's per-topic difference from the median
    (:class:`irmeta.plot.meta.VsMedianBars`, one figure drawn for every page):
    ``values`` in the order of ``AppendixPages.topics``."""

    values: np.ndarray
    run: str
    caption: Any = ""
    alt: str = ""
    kind: str = "bars"


@dataclass
class AppendixPages:
    """Every run's page (written next to the report, linked from it). ``topics`` and
    ``measure``: the bar charts' x axis and measure; ``limit``: their common y range
    (the largest difference from a median of any run, at least 0.05)."""

    pages: list[RunPage]
    topics: list[str]
    measure: str
    limit: float
    campaign: Any = None          # the campaign information, for the pages' header
    kind: str = "appendix_pages"


def page_href(anchor: str) -> str:
    """The link from the report to a run's page (``ASSETS`` becomes the page's
    ``<stem>_files``)."""
    return f"{ASSETS}/runs/{anchor}.html"


def appendix(sec: AppendixSection) -> SectionView:
    """The section listing the pages (run, group, primary mean and rank, link), and the
    pages."""
    anchors = run_anchor(sec.runs)
    means = sec.means[sec.means["label"] == sec.primary_label].set_index("run")
    frame = pd.DataFrame({"#": means["rank"].reindex(list(sec.runs)).to_numpy(),
                          "run": list(sec.runs)})
    groups = {r: dict(sec.attributes[r]).get("group") for r in sec.runs}
    if any(g is not None for g in groups.values()):
        frame["group"] = [groups[r] for r in sec.runs]
    frame[sec.primary_label] = means["mean"].reindex(list(sec.runs)).to_numpy()
    frame["page"] = [f"{r}.html" for r in anchors.values()]
    table = TableView("appendix", frame, dict(
        digits={sec.primary_label: 3, "#": 0},
        links={"run": [page_href(anchors[r]) for r in sec.runs],
               "page": [page_href(anchors[r]) for r in sec.runs]},
        caption=prose("appendix_caption", runs=len(sec.runs))))
    by_run = {run: rows for run, rows in sec.per_topic.groupby("run", sort=False,
                                                              observed=True)}
    empty = sec.per_topic.iloc[:0]
    pages = [run_page(sec, run, anchors[run], by_run.get(run, empty)) for run in sec.runs]
    primary = sec.per_topic[sec.per_topic["measure"] == sec.primary]
    diff = primary["vs_median"].to_numpy(dtype=float)
    limit = max(0.05, float(np.nanmax(np.abs(diff))) if np.isfinite(diff).any() else 0.0)
    topics = list(dict.fromkeys(primary["topic"]))
    return SectionView("appendix", TITLES["appendix"], prose("appendix_intro"),
                       [table, AppendixPages(pages, topics, sec.primary, limit * 1.05,
                                             sec.campaign)])


def run_page(sec: AppendixSection, run: str, anchor: str,
             rows: pd.DataFrame | None = None) -> RunPage:
    """The appendix page of ``run``: its attributes, every measure's mean and rank, its
    pool contribution, the bar chart of the primary measure per topic against the
    median, and per measure the per-topic table (the primary one open). ``rows``: the
    run's rows of :attr:`AppendixSection.per_topic` when the caller has them (one
    ``groupby`` for every page instead of one filter of the long frame per page)."""
    blocks: list[Any] = []
    facts = list(sec.attributes[run])
    if facts:
        blocks.append(TableView("attributes", pd.DataFrame(facts, columns=["attribute",
                                                                           "value"]),
                                dict(sortable=False, compact=True,
                                     caption=prose("appendix_attributes_caption"))))
    m = sec.means[sec.means["run"] == run]
    summary = pd.DataFrame({"measure": m["label"].to_numpy(), "mean": m["mean"].to_numpy(),
                            "rank": m["rank"].to_numpy(), "of runs": m["ranked"].to_numpy(),
                            "best run's mean": m["best"].to_numpy(),
                            "median of the runs": m["median"].to_numpy()})
    blocks.append(TableView("means", summary, dict(
        digits={"mean": 3, "rank": 0, "of runs": 0, "best run's mean": 3,
                "median of the runs": 3},
        notes={"mean": list(m["marker"])}, compact=True,
        caption=prose("appendix_means_caption", runs=len(sec.runs)))))
    if sec.pool is not None:
        judged, relevant, only = sec.pool.loc[
            run, ["judged", "relevant", "only its group"]].to_numpy(dtype=float)
        counts = [(f"judged documents in its first {sec.pool_depth}", judged),
                  (f"relevant documents (grade ≥ {sec.rel_level}) in its first "
                   f"{sec.pool_depth}", relevant)]
        if np.isfinite(only):
            counts.append((f"relevant documents only its group retrieved (first "
                           f"{sec.rare_cutoff})", only))
        blocks.append(TableView("pool", pd.DataFrame(counts, columns=["pool contribution",
                                                                    "documents"]),
                                dict(digits={"documents": 0}, sortable=False, compact=True,
                                     caption=prose("appendix_pool_caption",
                                                   depth=sec.pool_depth,
                                                   given=sec.pool_depth_given))))
    if rows is None:
        rows = sec.per_topic[sec.per_topic["run"] == run]
    primary = rows[rows["measure"] == sec.primary]
    blocks.append(BarsView(primary["vs_median"].to_numpy(dtype=float), run,
                           caption=prose("appendix_figure_caption",
                                         measure=sec.primary_label),
                           alt=f"{run}: {sec.primary_label} per topic minus the topic's "
                               "median"))
    frame = pd.DataFrame({"topic": primary["topic"].to_numpy(),
                          sec.primary_label: primary["value"].to_numpy(),
                          "best": primary["best"].to_numpy(),
                          "median": primary["median"].to_numpy(),
                          "worst": primary["worst"].to_numpy(),
                          "vs median": primary["vs_median"].to_numpy()})
    blocks.append(Text(prose("appendix_topics_intro", measure=sec.primary_label)))
    blocks.append(TableView("topics", frame, dict(
        digits=3, compact=True, classes={
            "vs median": _signs(frame["vs median"]),
            sec.primary_label: ["best" if a == b else "" for a, b in
                                zip(frame[sec.primary_label], frame["best"])]},
        caption=prose("appendix_topics_caption", measure=sec.primary_label))))
    blocks.append(Collapsed("every-measure", "Every measure per topic",
                            every_measure_table(rows, sec)))
    return RunPage(anchor, run, f"Appendix: {run}", blocks, rows.reset_index(drop=True))


def _signs(values) -> list[str]:
    v = np.asarray(values, dtype=float)
    return ["up" if x > 0 else "down" if x < 0 else "" for x in v]


def every_measure_table(rows: pd.DataFrame, sec: AppendixSection) -> TableView:
    """One row per topic, one column per leaderboard measure: the run's value, bold
    where it is the topic's best, green above the topic's median, red below (best,
    median and worst of every measure are in the page's TSV). ``rows``: the run's rows
    of :attr:`AppendixSection.per_topic` (measure by measure, the same topics each)."""
    labels = dict(zip(sec.means["measure"], sec.means["label"]))
    measures = list(pd.unique(rows["measure"].to_numpy(dtype=object)))
    M = len(measures)
    T = len(rows) // M if M else 0
    value = rows["value"].to_numpy(dtype=float).reshape(M, T)
    best = rows["best"].to_numpy(dtype=float).reshape(M, T)
    diff = rows["vs_median"].to_numpy(dtype=float).reshape(M, T)
    columns: dict[str, Any] = {"topic": rows["topic"].to_numpy()[:T]}
    classes = {}
    for i, measure in enumerate(measures):
        label = labels.get(measure, measure)
        columns[label] = value[i]
        mark = np.where(value[i] == best[i], "best ", "")
        sign = np.where(diff[i] > 0, "up", np.where(diff[i] < 0, "down", ""))
        classes[label] = [(m + s).strip() for m, s in zip(mark, sign)]
    frame = pd.DataFrame(columns)        # built at once: a column at a time cost 60%
    return TableView("every_measure", frame, dict(
        digits=3, compact=True, classes=classes,
        caption=prose("appendix_every_measure_caption")))
