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

The names are imported when first used (PEP 562): importing a light module of the
package, such as :mod:`irmeta.report.section_names` (what ``irmeta report --skip``
reads), does not load pandas and matplotlib with the whole report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from irmeta.report.options import ReportOptions
    from irmeta.report.section_names import SECTIONS

#: public name -> the module defining it
_LAZY = {
    "CampaignAnalysis": "analysis", "analyse_campaign": "analysis",
    "CampaignReport": "assemble", "campaign_report": "assemble",
    "leaderboard_columns": "columns",
    "GroupExport": "export", "export_groups": "export",
    **{name: "html" for name in ("Figure", "ReportWriter", "Row", "Section", "Table", "Text",
                                 "fmt_number", "markup", "save_figure")},
    "ReportOptions": "options", "SECTIONS": "section_names",
}

__all__ = ["SECTIONS", "CampaignAnalysis", "CampaignReport", "Figure", "GroupExport",
           "ReportOptions", "ReportWriter", "Row", "Section", "Table", "Text",
           "analyse_campaign", "campaign_report", "export_groups", "fmt_number",
           "leaderboard_columns", "markup", "save_figure"]


def __getattr__(name: str) -> Any:
    import importlib
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value                 # once: later lookups are plain
        return value
    try:                                        # a submodule, as the eager imports left it
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
