"""Effort plots: the effort/gain scatter with its 4x4 grid and shares (paper's Figures
7-10), and CRP next to DCG for chosen (run, topic) pairs (Figure 11).

matplotlib is imported only when drawing (through :mod:`irmeta.plot.style`).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

from irmeta.errors import ParameterError
from irmeta.plot import style

_HIGH_HIGH = "#E69F00"
_DIAGONAL = "#0072B2"


def draw_effort_gain(eg, ax, *, shares: bool = True, title: str | None = None,
                     highlight=None, max_points: int | None = None, seed: int = 0) -> None:
    """Draw one effort/gain grid (:class:`irmeta.effort.EffortGain`) on ``ax``.

    x = Twist, y = gain; dotted lines at Twist .25/.5/.75 and at the gain quartiles;
    the high-high cells (top two gain rows, left two Twist columns) shaded orange, the
    diagonal cells blue; each cell labelled with its share of the points.
    ``highlight``: (run, topic) pairs to mark. ``max_points``: draw a reproducible
    random subset (``seed``) of the points when there are more (shares use all).
    """
    pts = eg.points
    if max_points is not None and len(pts) > max_points:
        pts = pts.iloc[np.sort(np.random.default_rng(seed).choice(len(pts), max_points,
                                                                  replace=False))]
    lo_y = float(min(0.0, eg.points["gain"].min()))
    hi_y = float(max(1.0, eg.points["gain"].max()))
    ybounds = [lo_y, *eg.quartiles, hi_y]
    xbounds = [0.0, 0.25, 0.5, 0.75, 1.0]
    share = eg.shares.values[::-1]                  # row 0 = lowest gain
    for i in range(4):
        for j in range(4):
            if ybounds[i + 1] <= ybounds[i]:
                continue
            color = _HIGH_HIGH if (i >= 2 and j <= 1) else (_DIAGONAL if i == j else None)
            if color:
                ax.axhspan(ybounds[i], ybounds[i + 1], xmin=xbounds[j], xmax=xbounds[j + 1],
                           color=color, alpha=0.10, lw=0, zorder=0)
    ax.scatter(pts["twist"], pts["gain"], s=5, alpha=0.35, color="#333333", lw=0, zorder=2,
               rasterized=len(pts) > 2000)
    for x in xbounds[1:-1]:
        ax.axvline(x, color="black", lw=0.7, ls=":", zorder=1)
    for y in eg.quartiles:
        ax.axhline(y, color="black", lw=0.7, ls=":", zorder=1)
    if shares:
        # label every cell at its centre; thin rows (ties at the quartiles) would put
        # labels on top of each other, so label rows are spread at least 6% apart
        span = hi_y - lo_y
        ys, prev = [], lo_y - span
        for i in range(4):
            y = max((ybounds[i] + ybounds[i + 1]) / 2, prev + 0.06 * span, lo_y + 0.03 * span)
            ys.append(y)
            prev = y
        for i in range(4):
            if ybounds[i + 1] <= ybounds[i] and eg.counts.values[::-1][i].sum() == 0:
                continue
            for j in range(4):
                ax.text((xbounds[j] + xbounds[j + 1]) / 2, ys[i],
                        f"{100 * share[i, j]:.1f}%", ha="center", va="center", fontsize=6.5,
                        color="#8B0000" if (i >= 2 and j <= 1) else "#222222", zorder=3,
                        bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none",
                              "alpha": 0.75}, in_layout=False)   # inside its grid cell
    if highlight:
        sel = eg.points.set_index(["run", "topic"])
        markers = ["s", "^", "o", "D", "v", "P"]
        for k, (run, topic) in enumerate(highlight):
            if (run, str(topic)) in sel.index:
                p = sel.loc[(run, str(topic))]
                ax.scatter([p["twist"]], [p["gain"]], s=45, marker=markers[k % len(markers)],
                           facecolor="none", edgecolor=style.PALETTE[(k + 3) % 8], lw=1.4,
                           zorder=4, label=f"{run} / {topic}")
    ax.set_xlim(0, 1)
    ax.set_ylim(lo_y, hi_y)
    ax.set_xlabel("Twist (effort: 0 = huge, 1 = none)")
    ax.set_ylabel(eg.gain_name)
    ax.grid(False)
    head = title or f"{eg.gain_name} over Twist"
    ax.set_title(f"{head}\ndiagonal {100 * eg.diagonal:.1f}%, high-high "
                 f"{100 * eg.high_high:.1f}%, n = {len(eg.points)}", fontsize=8)


def plot_effort_gain(grids, path=None, *, title: str | None = None, ncols: int = 2,
                     highlight=None, max_points: int | None = 20000, seed: int = 0,
                     formats=("png", "svg")):
    """Effort/gain scatter(s): one panel per grid. ``grids``: an ``EffortGain`` or a
    mapping name -> ``EffortGain``. Saved as PNG and SVG when ``path`` is given
    (suffix ignored; ``formats`` lists the files written). Returns the figure (closed
    once saved) and the written paths."""
    if not isinstance(grids, Mapping):
        grids = {grids.gain_name: grids}
    if not grids:
        raise ParameterError("plot_effort_gain: grids is empty")
    if isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ParameterError(f"plot_effort_gain: ncols must be a positive integer, got {ncols!r}")
    n = len(grids)
    ncols = min(ncols, n)
    nrows = -(-n // ncols)
    fig, axes = style.figure(3.4 * ncols, 3.1 * nrows, nrows=nrows, ncols=ncols, squeeze=False)
    for ax, (name, eg) in zip(axes.ravel(), grids.items()):
        draw_effort_gain(eg, ax, highlight=highlight, max_points=max_points, seed=seed)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(handles), 3),
                   fontsize=7, frameon=False)
    if title:
        fig.suptitle(title)
    written = style.save(fig, path, formats) if path is not None else []
    return fig, written


def plot_crp_dcg_panels(panels: Sequence, path=None, *, normalised: bool = False,
                        full_scale: bool = False, title: str | None = None,
                        formats=("png", "svg")):
    """Draw :func:`irmeta.effort.crp_dcg_panels`: CRP (left) next to DCG (right), one row
    per panel.

    The recall base RB is marked by a vertical line on both panels; the DCG panel also
    shows the ideal DCG (dashed). ``normalised``: CRP in [-1, 1] against the full-scale
    bounds (the panels must have been computed with ``normalised=True``).
    ``full_scale``: draw the full-scale CRP too.
    """
    if not panels:
        raise ParameterError("plot_crp_dcg_panels: panels is empty")
    fig, axes = style.figure(7.0, 2.3 * len(panels), nrows=len(panels), ncols=2,
                             squeeze=False)
    for k, p in enumerate(panels):
        f, rb, x_max = p.curves, p.rb, p.x_max
        ax_c, ax_d = axes[k]
        crp = f["crp_norm"] if normalised else f["crp"]
        ax_c.plot(f["rank"], crp, color=style.PALETTE[0], label="CRP")
        if full_scale:
            fs = f["crp_fs_norm"] if normalised else f["crp_fs"]
            ax_c.plot(f["rank"], fs, color="grey", ls="--", lw=0.9, label="full scale")
        ax_c.axhline(0, color="black", lw=0.6)
        ax_d.plot(f["rank"], f["dcg"], color=style.PALETTE[3], label="DCG")
        ax_d.plot(f["rank"], f["ideal_dcg"], color="grey", ls="--", lw=0.9, label="ideal DCG")
        for ax in (ax_c, ax_d):
            if rb <= x_max:
                ax.axvline(rb, color="black", ls=":", lw=0.9)
                ax.annotate("RB", (rb, 1.0), xycoords=("data", "axes fraction"),
                            ha="left", va="top", fontsize=7, xytext=(2, -2),
                            textcoords="offset points")
            ax.set_xlim(1, x_max)
            ax.set_xlabel("rank")
        # fixed corners: loc="best" searches every curve point at every draw; DCG rises
        # to the right (its lower right is empty), the CRP panel needs no legend alone
        ax_d.legend(fontsize=7, loc="lower right")
        if full_scale:
            ax_c.legend(fontsize=7, loc="lower right")
        x = p.crossing
        ax_c.set_ylabel("CRP (normalised)" if normalised else "CRP")
        ax_c.set_title(f"{p.run} / topic {p.topic}: Twist {p.twist:.3f}", fontsize=8)
        ax_d.set_ylabel("DCG")
        ax_d.set_title(f"RB = {rb}, ρ {p.rho:.2f}, σ {p.sigma:.2f}, "
                       + (f"crossing at {x}" if x > 0 else "no crossing"), fontsize=8)
    if title:
        fig.suptitle(title)
    written = style.save(fig, path, formats) if path is not None else []
    return fig, written
