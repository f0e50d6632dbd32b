"""The NRG section, drawn. Part of :mod:`irmeta.report.render` (issue 33, item 0; the layout:
docs/report.md). A renderer computes no number the page shows.
"""

from __future__ import annotations

from irmeta.report.sections.nrg import NRGSection
from irmeta.report.views.common import TITLES, FigureView, SectionView, TableView, prose


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
