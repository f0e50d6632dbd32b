"""The topics-and-systems section, drawn. Part of :mod:`irmeta.report.render` (issue 33, item
0; the layout: docs/report.md). A renderer computes no number the page shows.
"""

from __future__ import annotations

from irmeta.report.html import Text
from irmeta.report.sections.topics import TopicsSection
from irmeta.report.views.common import TITLES, FigureView, SectionView, TableView, _arrow, prose

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
    heatmap, _ = plot_heatmap_bars(a.bars, None, title=f"{name}: runs x topics", labels=labels,
                                   measure=name)
    # the paper's MAP is the arithmetic mean of the matrix's measure: say which
    mean = "MAP" if name == "AP" else f"mean {name}"
    slope = rank_slope(a.map, a.gawm.E_s, left_label=mean, right_label="GAWM E_s",
                       title=f"rank of every run under the {mean} and under GAWM")
    arrows = [_arrow(d) for d in a.systems["rank change"]]
    view.blocks += [
        FigureView("topics_heatmap", heatmap, alt=f"{name} heat map of the runs x topics",
                   width=None,
                   caption=prose("topics_heatmap_caption", measure=name)),
        FigureView("topics_rank_map_gawm", slope, alt=f"ranks under the {mean} and GAWM",
                   width=520,
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
