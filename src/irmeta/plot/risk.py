"""Figures of risk against a baseline (house style of :mod:`irmeta.plot.style`).

:func:`wins_losses_plot` draws what the TREC 2013-2014 Web track overviews showed for
their risk-sensitive task: per run, the topics it wins against the baseline as a bar up
and the topics it loses as a bar down. The counts are computed elsewhere
(:func:`irmeta.stats.risk.urisk`, the report's :class:`~irmeta.report.sections.risk.RiskSection`);
this module only draws them. matplotlib is imported only when drawing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from irmeta.plot import style

__all__ = ["wins_losses_plot"]


def wins_losses_plot(runs: Sequence[str], wins: Sequence[int], losses: Sequence[int], *,
                     baseline: str, measure: str, path=None, title: str | None = None):
    """One column per run (in the given order, left to right): a bar up to its number of
    topics won against ``baseline`` (``delta_i = x_i - b_i > 0`` under ``measure``) and
    a bar down to its number of topics lost (``delta_i < 0``); ties are the rest. The
    width grows with the runs (0.16 inch a run), so every run name stays legible at 100
    runs. Saved as PNG and SVG when ``path`` is given; returns the figure."""
    n = len(runs)
    won = np.asarray(wins, dtype=np.float64)
    lost = np.asarray(losses, dtype=np.float64)
    fig, ax = style.figure(max(4.5, 1.4 + 0.16 * n), 3.8)
    x = np.arange(n)
    ax.bar(x, won, width=0.75, color=style.PALETTE[2], label="topics won")
    ax.bar(x, -lost, width=0.75, color=style.PALETTE[3], label="topics lost")
    ax.axhline(0.0, color="0.3", lw=0.8)
    ax.set_xticks(x, [style.short_label(r) for r in runs], rotation=90,
                  fontsize=6.5 if n > 30 else 7.5)
    ax.set_xlim(-0.7, n - 0.3)
    top = max(1.0, float(np.max(won, initial=0.0)), float(np.max(lost, initial=0.0)))
    ax.set_ylim(-1.08 * top, 1.32 * top)          # room for the legend
    from matplotlib.ticker import FuncFormatter, MaxNLocator
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{abs(v):g}"))
    ax.set_ylabel("topics won (up) / lost (down)")
    ax.grid(axis="x", visible=False)
    ax.legend(fontsize=7, frameon=False, loc="upper right", ncols=2)
    ax.set_title(title if title is not None else
                 f"{style.short_label(measure)} against {style.short_label(baseline)}")
    if path is not None:
        style.save(fig, path)
    return fig
