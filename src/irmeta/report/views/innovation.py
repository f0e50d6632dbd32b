"""The innovation section, drawn. Part of :mod:`irmeta.report.render` (issue 33, item 0; the
layout: docs/report.md). A renderer computes no number the page shows.
"""

from __future__ import annotations

from irmeta.report.sections.innovation import InnovationSection
from irmeta.report.views.common import TITLES, DataView, FigureView, SectionView, TableView, prose


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
