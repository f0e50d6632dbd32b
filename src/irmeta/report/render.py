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

Each section's renderer is a module of :mod:`irmeta.report.views` (the shared views and
prose in ``views/common.py``); this module re-exports their names (issue 33, item 0; the
layout: docs/report.md).
"""

from __future__ import annotations

from irmeta.report.views.common import TITLES as TITLES
from irmeta.report.views.common import DataView as DataView
from irmeta.report.views.common import Downloads as Downloads
from irmeta.report.views.common import FigureView as FigureView
from irmeta.report.views.common import Filters as Filters
from irmeta.report.views.common import PaperTables as PaperTables
from irmeta.report.views.common import RunDetails as RunDetails
from irmeta.report.views.common import SectionView as SectionView
from irmeta.report.views.common import TableView as TableView
from irmeta.report.views.common import _arrow as _arrow
from irmeta.report.views.common import _prose_macros as _prose_macros
from irmeta.report.views.common import p_value as p_value
from irmeta.report.views.common import prose as prose
from irmeta.report.views.common import run_anchor as run_anchor
from irmeta.report.views.common import run_names_note as run_names_note
from irmeta.report.views.common import skipped as skipped
from irmeta.report.views.common import subtitle as subtitle
from irmeta.report.views.common import summary as summary
from irmeta.report.views.effort import effort as effort
from irmeta.report.views.innovation import innovation as innovation
from irmeta.report.views.inputs import inputs as inputs
from irmeta.report.views.leaderboard import _unique_note as _unique_note
from irmeta.report.views.leaderboard import leaderboard as leaderboard
from irmeta.report.views.leaderboard import per_topic_blocks as per_topic_blocks
from irmeta.report.views.nrg import nrg as nrg
from irmeta.report.views.risk import risk as risk
from irmeta.report.views.topics import HEATMAP_LABELLED_TOPICS as HEATMAP_LABELLED_TOPICS
from irmeta.report.views.topics import topics as topics
from irmeta.report.views.trust import reusability_blocks as reusability_blocks
from irmeta.report.views.trust import trust as trust

__all__ = ["TITLES", "DataView", "FigureView", "SectionView", "TableView", "effort",
           "innovation", "inputs", "leaderboard", "nrg", "prose", "risk", "skipped",
           "subtitle", "summary", "topics", "trust"]
