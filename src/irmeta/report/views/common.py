"""What every section's renderer shares: the views a renderer returns (:class:`SectionView` of
:class:`TableView`, :class:`FigureView`, :class:`DataView` ...), the prose macros
(:func:`prose`), the page's subtitle and summary, run anchors. Part of
:mod:`irmeta.report.render` (issue 33, item 0; the layout: docs/report.md). A renderer
computes no number the page shows.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from markupsafe import Markup

from irmeta.report.sections.inputs import InputsSection
from irmeta.report.sections.leaderboard import Highlights

#: section id -> heading
#: the placeholder of the page's ``<stem>_files`` folder in a link a view makes (the
#: writer puts the folder's name in its place: a view does not know where the page goes)
ASSETS = "{assets}"

TITLES = {"inputs": "Inputs and parameters", "leaderboard": "Leaderboard",
          "appendix": "Appendix: one page per run",
          "risk": "Risk: where runs lose against a baseline and the field",
          "innovation": "Innovation: relevant documents few runs found",
          "nrg": "Relative effectiveness: what is new in each run (NRG)",
          "effort": "Effort: how much reading the ranking costs (Twist)",
          "topics": "Topics and systems: weighted aggregation (GAWM, HITS)",
          "trust": "Trust: how far the measures can be relied on"}


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


def p_value(p: float) -> str:
    """A p-value as shown: three decimals, ``<0.001`` below that."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def run_anchor(runs) -> dict[str, str]:
    """A page anchor per run, also the stem of its appendix page's files: ``run-<name>``
    with characters outside ``[A-Za-z0-9_.-]`` replaced, bounded to 80 characters
    (:func:`irmeta.io.output.bounded_file_name`), and a number appended where two
    names would collide, ignoring case (a case-insensitive file system)."""
    import re

    from irmeta.io.output import bounded_file_name
    out: dict[str, str] = {}
    taken: set[str] = set()
    for k, run in enumerate(runs):
        a = base = bounded_file_name("run-" + re.sub(r"[^A-Za-z0-9_.-]", "_", str(run)))
        n = k
        while a.lower() in taken:
            a, n = bounded_file_name(f"{base}-{n}"), n + 1
        taken.add(a.lower())
        out[str(run)] = a
    return out
