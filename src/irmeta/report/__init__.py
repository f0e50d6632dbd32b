"""Campaign reports: one self-contained HTML page (plots embedded, tables also as TSV,
figures also as PNG and SVG) that evaluates a whole campaign.

* :func:`campaign_report` / :class:`ReportOptions` — the ``irmeta report`` content
  (:mod:`irmeta.report.assemble`);
* :class:`ReportWriter`, :class:`Section`, :class:`Table`, :class:`Figure`, :class:`Text`
  — the rendering machinery (:mod:`irmeta.report.html`), reusable for other reports.
"""

from irmeta.report.assemble import (
                                    SECTIONS,
                                    CampaignReport,
                                    ReportOptions,
                                    campaign_report,
                                    leaderboard_columns,
)
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

__all__ = ["SECTIONS", "CampaignReport", "Figure", "ReportOptions", "ReportWriter", "Section",
           "Row", "Table", "Text", "campaign_report", "fmt_number", "leaderboard_columns", "markup",
           "save_figure"]
