"""Figures of the campaign report that no other module draws: the NRG vs nDCG scatter
coloured by group, the rank-change (slope) chart between two aggregations, and an
annotated correlation heat map. House style and PNG + SVG saving come from
:mod:`irmeta.plot.style`; matplotlib is imported only when drawing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irmeta.plot import style

_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*", "<", ">", "h", "p"]


#: 20 colours for more than the house palette's 8 groups (matplotlib's tab20, dark
#: shades first, then the light ones)
_TAB20 = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
          "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
          "#c5b0d5", "#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5"]


def group_styles(groups: list[str]) -> dict[str, tuple[str, str]]:
    """(colour, marker) per group, in order of first appearance: the house palette's 8
    colours for up to 8 groups, else 20 colours; the marker changes every full round of
    colours, so up to 240 groups get a distinct (colour, marker) pair."""
    names = list(dict.fromkeys(groups))
    palette = style.PALETTE if len(names) <= len(style.PALETTE) else _TAB20
    return {g: (palette[k % len(palette)], _MARKERS[(k // len(palette)) % len(_MARKERS)])
            for k, g in enumerate(names)}


def scatter_by_group(x: pd.Series, y: pd.Series, groups: pd.Series, *, xlabel: str,
                     ylabel: str, title: str = "", label_top: int = 5, diagonal: bool = True,
                     legend_title: str = "group"):
    """One point per run at ``(x, y)``, coloured (and shaped) by group; the ``label_top``
    runs with the largest ``y`` are labelled. ``diagonal``: draw ``y = x``. The legend
    (titled ``legend_title``) lists up to 24 groups, in two columns above 12."""
    fig, ax = style.figure(6.4, 4.6)
    styles = group_styles(list(groups))
    many = len(styles) > 24
    for g, (color, marker) in styles.items():
        sel = groups == g
        ax.scatter(x[sel], y[sel], s=26, color=color, marker=marker, alpha=0.85, lw=0.4,
                   edgecolor="white", label=style.short_label(g), zorder=3)
    if diagonal:
        hi = float(np.nanmax([x.max(), y.max(), 0.0]))
        ax.plot([0, hi], [0, hi], color="0.6", lw=0.8, ls="--", zorder=1, label="_y = x")
    for k, run in enumerate(y.sort_values(ascending=False).index[:label_top]):
        ax.annotate(style.short_label(run), (x[run], y[run]),
                    xytext=(4, 3 if k % 2 == 0 else -8),
                    textcoords="offset points", fontsize=6.5, color="0.2")
    lo_x, hi_x = float(np.nanmin(x)), float(np.nanmax(x))
    pad = 0.06 * max(hi_x - lo_x, 1e-9)
    ax.set_xlim(lo_x - pad, hi_x + 3 * pad)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if not many:
        ax.legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.04, 0.5),
                  title=legend_title, title_fontsize=7, ncols=2 if len(styles) > 12 else 1)
    else:
        ax.text(1.0, -0.16, f"{len(styles)} {legend_title}s (colour and marker = "
                f"{legend_title}; every value in the table below)", transform=ax.transAxes,
                ha="right", fontsize=7, color="0.4")
    return fig


def rank_slope(left: pd.Series, right: pd.Series, *, left_label: str, right_label: str,
               title: str = "", highlight: int = 5):
    """Slope chart: each run's rank (1 = best) under ``left`` and under ``right``
    joined by a line and named on both sides; the ``highlight`` largest rank changes
    are coloured. The height grows with the runs (0.13 inch a run above 30), so 100
    runs stay legible."""
    rl = left.rank(ascending=False, method="min")
    rr = right.reindex(left.index).rank(ascending=False, method="min")
    n = len(rl)
    fig, ax = style.figure(5.2, min(9.0, 2.2 + 0.11 * n) if n <= 30 else 2.2 + 0.13 * n)
    change = (rl - rr).abs()
    top = set(change.sort_values(ascending=False, kind="stable").index[:highlight][
        change.sort_values(ascending=False, kind="stable").iloc[:highlight] > 0])
    k = 0
    for run in rl.index:
        hot = run in top
        color = style.PALETTE[(k % 7)] if hot else "0.75"
        k += hot
        ax.plot([0, 1], [rl[run], rr[run]], color=color, lw=1.5 if hot else 0.7,
                marker="o", ms=2.5, zorder=3 if hot else 2)
        size = 6 if n > 30 else 6.5
        ax.text(-0.03, rl[run], str(run), ha="right", va="center", fontsize=size,
                color=color if hot else "0.35")
        ax.text(1.03, rr[run], str(run), ha="left", va="center", fontsize=size,
                color=color if hot else "0.35")
    ax.set_xlim(-0.9, 1.9)
    ax.set_ylim(n + 0.8, 0.2)
    ax.set_xticks([0, 1], [style.short_label(left_label), style.short_label(right_label)])
    ax.set_ylabel("rank (1 = best)")
    ax.grid(False)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title)
    return fig


def correlation_heatmap(matrix: pd.DataFrame, *, title: str = "", vmin: float = 0.0,
                        label: str = "Kendall's τ"):
    """Annotated heat map of a square measures x measures correlation matrix.

    A symmetric matrix is drawn as its lower triangle without the diagonal (rows: the
    second to last measure, columns: the first to the one before last), so every pair
    appears once; any other matrix is drawn whole."""
    vals = matrix.to_numpy(dtype=float)
    rows, cols = list(matrix.index), list(matrix.columns)
    if len(vals) > 2 and np.allclose(vals, vals.T, equal_nan=True):
        vals = np.where(np.tri(len(vals), k=-1, dtype=bool), vals, np.nan)[1:, :-1]
        rows, cols = rows[1:], cols[:-1]
    n_rows, n_cols = vals.shape
    fig, ax = style.figure(1.8 + 0.40 * n_cols, 1.4 + 0.36 * n_rows)
    shown = vals[np.isfinite(vals)]
    lo = min(vmin, float(shown.min())) if shown.size else vmin
    image = ax.imshow(np.ma.masked_invalid(vals), cmap="viridis", vmin=lo, vmax=1.0,
                      interpolation="none")      # one pixel per cell, scaled by the viewer
    for (i, j), v in np.ndenumerate(vals):
        if np.isfinite(v):
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=6.5,
                    color="white" if v < lo + 0.55 * (1 - lo) else "black",
                    in_layout=False)           # inside its cell: nothing for the layout to fit
    ax.set_xticks(range(n_cols), [style.short_label(c) for c in cols], rotation=45,
                  ha="right", fontsize=7)
    ax.set_yticks(range(n_rows), [style.short_label(r) for r in rows], fontsize=7)
    ax.grid(False)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.colorbar(image, ax=ax, shrink=0.8, label=label)
    if title:
        ax.set_title(title)
    return fig


def bars(values: pd.Series, *, xlabel: str, title: str = "", fmt: str = "{:.0%}",
         color_index=None):
    """Horizontal bars, one per index entry (in the given order, first on top)."""
    fig, ax = style.figure(5.6, 0.9 + 0.26 * len(values))
    y = np.arange(len(values))
    colors = [style.PALETTE[0]] * len(values)
    for i in (color_index or []):
        colors[i] = style.PALETTE[1]
    ax.barh(y, values.to_numpy(dtype=float), color=colors)
    for k, v in enumerate(values.to_numpy(dtype=float)):
        if np.isfinite(v):
            ax.text(v, k, " " + fmt.format(v), va="center", fontsize=7,
                    in_layout=False)           # inside the axes (x limit leaves room)
    ax.set_yticks(y, [style.short_label(i) for i in values.index], fontsize=7.5)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_xlim(0, max(1e-9, float(np.nanmax(values.to_numpy(dtype=float)))) * 1.18)
    ax.grid(axis="y", visible=False)
    if title:
        ax.set_title(title)
    return fig
