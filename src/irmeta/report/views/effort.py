"""The effort section, drawn. Part of :mod:`irmeta.report.render` (issue 33, item 0; the
layout: docs/report.md). A renderer computes no number the page shows.
"""

from __future__ import annotations

import numpy as np

from irmeta.report.html import Text
from irmeta.report.sections.effort import EffortSection
from irmeta.report.views.common import TITLES, FigureView, SectionView, TableView, prose


def effort(sec: EffortSection) -> SectionView:
    """The effort/gain grid, its shares, the archetypes, the telling CRP/DCG curves."""
    from irmeta.effort import ARCHETYPES
    from irmeta.plot.effort import plot_crp_dcg_panels, plot_effort_gain

    view = SectionView("effort", TITLES["effort"], prose(
        "effort_intro", depth=sec.depth,
        rule="the runs' depth" if sec.depth == sec.runs_depth
        else f"given; the runs are {sec.runs_depth} deep", undefined=sec.undefined_topics))
    f = sec.findings
    if f is None:
        view.blocks.append(Text(prose("effort_undefined")))
        return view
    tell = f.telling
    pairs = list(zip(tell["run"], tell["topic"]))
    grid_fig, _ = plot_effort_gain(f.grid, None, highlight=pairs, seed=sec.seed)
    curves_fig, _ = plot_crp_dcg_panels(list(f.panels))
    # each panel's title describes that panel: Twist's components belong to the CRP
    # curve (left), the DCG panel (right) names the recall base. Two lines each: on one
    # line the CRP title was wider than its panel (DL21's run names), and a title
    # sticking out makes plot.style.save write the figure again with a tight bounding box
    # (three more draws, a tenth of the report's figure CPU)
    for (ax_c, ax_d), p in zip(np.reshape(curves_fig.axes[:2 * len(f.panels)], (-1, 2)),
                               f.panels):
        crossing = f"crossing at {p.crossing}" if p.crossing > 0 else "no crossing"
        ax_c.set_title(f"CRP: {p.run} / topic {p.topic}, Twist@{sec.depth} {p.twist:.3f}\n"
                       f"(ρ {p.rho:.2f}, σ {p.sigma:.2f}, {crossing})", fontsize=7.5)
        ax_d.set_title(f"DCG of the same ranking\n(RB = {p.rb} relevant)", fontsize=7.5)
    listing = "; ".join(f"{r} / topic {t} ({k})"
                        for r, t, k in zip(tell["run"], tell["topic"], tell["kind"]))
    view.blocks += [
        FigureView("effort_gain", grid_fig, alt="effort/gain grid", width=520,
                   caption=prose("effort_grid_caption", gain=sec.gain, depth=sec.depth,
                                 rule=sec.gain_rule)),
        TableView("effort_gain_shares", f.shares, dict(
            index=True, digits=1, sortable=False, compact=True,
            caption=prose("effort_shares_caption", diagonal=f.grid.diagonal,
                          high_high=f.grid.high_high))),
        TableView("effort_archetypes", f.archetypes, dict(
            index=True, digits={a: 1 for a in ARCHETYPES},
            caption=prose("effort_archetypes_caption", depth=sec.depth))),
        FigureView("effort_crp_dcg", curves_fig, alt="CRP and DCG curves", width=760,
                   caption=prose("effort_curves_caption", pairs=listing))]
    return view
