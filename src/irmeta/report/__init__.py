"""Campaign reports: one self-contained HTML page (plots embedded, tables also as TSV,
figures also as PNG and SVG) that evaluates a whole campaign.

* :func:`campaign_report` / :class:`ReportOptions` — the ``irmeta report`` content
  (:mod:`irmeta.report.assemble`: analyse, render, write);
* :func:`analyse_campaign` / :class:`CampaignAnalysis` — every number of the report,
  computed, one dataclass per section (:mod:`irmeta.report.analysis`); the renderers
  of the sections are in :mod:`irmeta.report.render`, their prose in the templates;
* :func:`export_groups` — a folder and a zip per group of a finished report
  (:mod:`irmeta.report.export`);
* :class:`ReportWriter`, :class:`Section`, :class:`Table`, :class:`Figure`, :class:`Text`
  — the rendering machinery (:mod:`irmeta.report.html`), reusable for other reports.
"""

from irmeta.report.analysis import CampaignAnalysis, analyse_campaign
from irmeta.report.assemble import CampaignReport, campaign_report
from irmeta.report.columns import leaderboard_columns
from irmeta.report.export import GroupExport, export_groups
from irmeta.report.html import (
    Figure,
    ReportWriter,
    Row,
    Section,
    Table,
    Text,
    fmt_number,
    markup,
    save_figure,
)
from irmeta.report.options import SECTIONS, ReportOptions

__all__ = ["SECTIONS", "CampaignAnalysis", "CampaignReport", "Figure", "GroupExport",
           "ReportOptions", "ReportWriter", "Row", "Section", "Table", "Text",
           "analyse_campaign", "campaign_report", "export_groups", "fmt_number",
           "leaderboard_columns", "markup", "save_figure"]
