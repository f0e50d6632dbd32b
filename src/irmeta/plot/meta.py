"""Figures of the meta-evaluation (house style of :mod:`irmeta.plot.style`).

Each function takes the DataFrame (or curves) an :mod:`irmeta.stats` function returns,
draws one figure, saves it as PNG and SVG when ``path`` is given, and returns the
matplotlib figure (closed after saving). matplotlib is imported only here, lazily.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

from irmeta.plot import style

_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def _finish(fig, path):
    if path is not None:
        style.save(fig, path)
    return fig


def _lower_limit(values, threshold: float | None) -> float:
    """Lower y limit of a correlation plot: below the smallest defined value and the
    threshold line. Every value NaN (tau is undefined when a ranking is all ties, e.g.
    identical runs) leaves an empty plot with the threshold line, not an error."""
    v = np.asarray(values, dtype=np.float64)
    candidates = [float(np.min(v[np.isfinite(v)]))] if np.isfinite(v).any() else []
    if threshold is not None:
        candidates.append(threshold)
    return min(candidates, default=0.0) - 0.02


def alpha_sweep_plot(sweep: pd.DataFrame, *, method: str = "kendall", path=None,
                     title: str | None = None, threshold: float | None = 0.9):
    """Tau between each baseline and its family against alpha (innovation paper,
    Figure 2). ``sweep``: the output of :func:`irmeta.stats.alpha_sweep`."""
    fig, ax = style.figure(4.2, 3.2)
    for k, (base, grp) in enumerate(sweep.groupby("baseline", sort=False)):
        family = grp["measure"].iloc[-1].split("(")[0]
        ax.plot(grp["alpha"], grp[method], marker=_MARKERS[k % len(_MARKERS)], ms=4,
                label=f"{base} vs {family}", color=style.PALETTE[k % len(style.PALETTE)])
    if threshold is not None:
        ax.axhline(threshold, color="0.5", lw=0.8, ls="--")
    ax.set_xlabel("α")
    ax.set_ylabel({"kendall": "Kendall's τ", "tau_ap": "τ_AP"}.get(method, method))
    ax.set_xlim(min(sweep["alpha"]) - 0.02, max(sweep["alpha"]) + 0.02)
    ax.set_ylim(_lower_limit(sweep[method], threshold), 1.01)
    # above the plot, outside it: the curves can cross any corner (and loc="best"
    # would search every point at every draw)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside upper center", frameon=False,
               ncols=min(3, sweep["baseline"].nunique()), fontsize=8)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def asl_plot(curves: Mapping[str, np.ndarray], *, level: float = 0.05,
             summary: pd.DataFrame | None = None, path=None, title: str | None = None):
    """ASL curves (Sakai 2006; Twist paper, Figure 14): for each measure the achieved
    significance level of every system pair, pairs sorted by ASL. ``summary`` (from
    :func:`irmeta.stats.bootstrap_power`) adds DP and delta to the legend."""
    fig, ax = style.figure(4.6, 3.3)
    info: dict[str, tuple[float, float]] = {}
    if summary is not None:
        info = {str(name): (float(dp), float(delta)) for name, dp, delta
                in zip(summary["measure"], summary["dp"], summary["delta"])}
    for k, (name, asl) in enumerate(curves.items()):
        label = name
        if name in info:
            label = f"{name} (DP={100 * info[name][0]:.1f}%, Δ={info[name][1]:.3f})"
        ax.plot(np.arange(1, len(asl) + 1), asl, label=label, lw=1.3,
                color=style.PALETTE[k % len(style.PALETTE)])
    ax.axhline(level, color="0.4", lw=0.8, ls="--")
    ax.set_xlabel("system pairs sorted by ASL")
    ax.set_ylabel("achieved significance level (ASL)")
    n = max((len(a) for a in curves.values()), default=1)
    ax.set_xlim(0, n)
    ax.set_ylim(0, min(1.0, max(0.2, 4 * level)))
    ax.legend(frameon=False, fontsize=7)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def downsampling_plot(table: pd.DataFrame, *, path=None, title: str | None = None):
    """Kendall's tau against the share of the pool kept, one line per measure
    (Twist paper, Figure 13). ``table``: :func:`irmeta.stats.pool_downsampling`."""
    fig, ax = style.figure(4.2, 3.2)
    for k, (name, grp) in enumerate(table.groupby("measure", sort=False)):
        grp = grp.sort_values("level", ascending=False)
        ax.errorbar(grp["level"], grp["tau"], yerr=grp.get("tau_std"), capsize=2,
                    marker=_MARKERS[k % len(_MARKERS)], ms=4, label=name,
                    color=style.PALETTE[k % len(style.PALETTE)])
    ax.set_xlabel("pool kept (%)")
    ax.set_ylabel("Kendall's τ with the full pool")
    ax.invert_xaxis()
    ax.legend(frameon=False)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def systems_plot(table: pd.DataFrame, *, path=None, title: str | None = None):
    """Mean tau against the number of sampled systems (innovation paper, Table 3 as a
    plot). ``table``: :func:`irmeta.stats.system_dependence`."""
    fig, ax = style.figure(4.2, 3.2)
    for k, (name, grp) in enumerate(table.groupby("measure", sort=False)):
        ax.plot(grp["n_systems"], grp["tau"], marker=_MARKERS[k % len(_MARKERS)], ms=4,
                label=name, color=style.PALETTE[k % len(style.PALETTE)])
    ax.set_xscale("log", base=2)
    ns = sorted(set(int(n) for n in table["n_systems"]))
    ax.set_xticks(ns, [str(n) for n in ns])
    ax.minorticks_off()
    ax.set_xlabel("number of systems N")
    ax.set_ylabel("mean Kendall's τ with the full ranking")
    ax.legend(frameon=False)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def topic_set_size_plot(result, *, path=None, title: str | None = None):
    """Topics needed against the difference D to detect (:func:`irmeta.stats.
    topic_set_size` over a grid of D): one line per measure and method, log scales, a
    dotted line at the current topic count (where it crosses a curve: the smallest
    difference today's topics detect)."""
    table = result.table.dropna(subset=["n_topics"])
    fig, ax = style.figure(4.4, 3.2)
    for k, ((measure, method), grp) in enumerate(table.groupby(["measure", "method"],
                                                               sort=False)):
        grp = grp.sort_values("min_diff")
        ax.plot(grp["min_diff"], grp["n_topics"], marker=_MARKERS[k % len(_MARKERS)], ms=3,
                label=f"{style.short_label(measure, 24)} ({method})",
                color=style.PALETTE[k % len(style.PALETTE)])
    if len(table):
        topics = int(table["topics"].iloc[0])
        ax.axhline(topics, color="0.4", lw=0.8, ls=":", zorder=1)
        ax.annotate(f"today: {topics} topics", (1.0, topics), xycoords=("axes fraction",
                    "data"), xytext=(-4, 3), textcoords="offset points", ha="right",
                    fontsize=7, color="0.3")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):       # plain numbers at 1, 2, 5 x 10^k
        axis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("difference to detect D")
    ax.set_ylabel("topics needed")
    if len(table):
        ax.legend(frameon=False, fontsize=7)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def stability_table_plot(table: pd.DataFrame, *, columns=None, path=None,
                         title: str | None = None, fmt: str = "{:.3f}"):
    """A measures x statistics table rendered as an annotated heat map (e.g. the
    output of :func:`irmeta.stats.stability_table` or a discriminative power pivot)."""
    data = (table.set_index(table.columns[0]) if columns is None
            else table.set_index(columns[0])[columns[1:]])
    data = data.select_dtypes("number")
    fig, ax = style.figure(1.2 + 1.1 * data.shape[1], 0.8 + 0.35 * data.shape[0])
    vals = data.to_numpy(dtype=float)
    norm = ((vals - np.nanmin(vals, axis=0))
            / np.where(np.ptp(vals, axis=0) > 0, np.ptp(vals, axis=0), 1))
    ax.imshow(norm, cmap="Blues", aspect="auto", vmin=-0.3, vmax=2.2)
    ax.tick_params(length=0)
    for (i, j), v in np.ndenumerate(vals):
        ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=8)
    ax.set_xticks(range(data.shape[1]), data.columns, rotation=20, ha="right")
    ax.set_yticks(range(data.shape[0]), data.index)
    ax.grid(False)
    for side in ("top", "right", "left", "bottom"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def leaderboard_plot(board, *, path=None, title: str | None = None):
    """Means with their confidence intervals, best run at the top (a forest plot).

    ``board``: an :class:`irmeta.stats.leaderboard.Leaderboard`. Runs not significantly
    worse than the best are drawn in the first palette colour, the others in grey; the
    caption under the axis names the procedure. The height grows with the number of runs
    (0.16 inch a run), so every run name stays legible at 100 runs.
    """
    t = board.table
    n = len(t)
    fig, ax = style.figure(5.0, max(2.0, 0.9 + 0.16 * n))
    y = np.arange(n)[::-1]
    tied = t["tied_with_best"].to_numpy(dtype=bool)
    low = (t["mean"] - t["ci_low"]).to_numpy()
    high = (t["ci_high"] - t["mean"]).to_numpy()
    mean = t["mean"].to_numpy()
    # one errorbar call per colour (not per run: 100 calls cost seconds to build and draw)
    for sel, c in ((tied, style.PALETTE[0]), (~tied, "0.55")):
        if sel.any():
            ax.errorbar(mean[sel], y[sel], xerr=[low[sel], high[sel]], fmt="o", ms=3,
                        color=c, lw=1, capsize=2, ls="none")
    ax.set_yticks(y, [f"{r}  {style.short_label(name)}" for r, name in
                   zip(t["rank"], t.index)], fontsize=7)
    ax.set_ylim(-0.7, n - 0.3)
    from irmeta.stats.leaderboard import procedure_words
    words = procedure_words(board.test, board.correction, board.level).replace(
        " within each family of comparisons", "")
    ax.set_xlabel(f"mean with {round(board.ci_level * 100)}% bootstrap interval\n"
                  f"blue: not significantly below run 1 ({words})")
    ax.grid(axis="x", color="0.9", lw=0.6)
    if title:
        ax.set_title(title)
    return _finish(fig, path)


def means_boxplot(means: pd.DataFrame, *, marked=None, path=None, title: str | None = None):
    """Distribution of the run means of each measure (the Twist paper's Figure 12): one
    box per column of the runs x measures table ``means`` (box = quartiles, whiskers =
    1.5 IQR, every run a dot). ``marked``: runs drawn in a second colour (e.g. those
    the 75% MAP filter drops). Columns that are all NaN are left empty."""
    fig, ax = style.figure(max(4.0, 1.1 * len(means.columns) + 1.5), 3.4)
    cols = list(means.columns)
    data = [means[c].dropna().to_numpy(dtype=np.float64) for c in cols]
    ax.boxplot(data, widths=0.5, showfliers=False, medianprops={"color": "black"})
    marked = set(marked or ())
    jitter = np.random.default_rng(0)       # fixed: the figure reproduces bit for bit
    for i, c in enumerate(cols, start=1):
        v = means[c].dropna()
        x = i + jitter.uniform(-0.15, 0.15, len(v))
        out = v.index.isin(list(marked))
        ax.scatter(x[~out], v[~out], s=9, color=style.PALETTE[0], alpha=0.7, zorder=3)
        if out.any():
            ax.scatter(x[out], v[out], s=9, color=style.PALETTE[3], alpha=0.9, zorder=3)
    ax.set_xticks(range(1, len(cols) + 1), cols, rotation=20, ha="right")
    ax.set_ylabel("mean over topics (one dot per run)")
    ax.set_title(title or "Distribution of the run means per measure")
    return _finish(fig, path)



class VsMedianBars:
    """One run's per-topic difference from the topic's median over the runs (TREC's
    appendix figure), drawn for run after run on one figure: a bar per topic in topic
    order, above the axis where the run beats the median (first palette colour), below
    where it falls short (fourth), NaN without a bar. The y axis is the same for every
    run (``-limit`` to ``limit``), so two runs' pages compare at a glance.

    Only the bars and the title change from run to run, so the figure is laid out and
    drawn once without them (axes, ticks, labels, grid: most of a draw is their text);
    each run then restores those pixels, draws its bars (one collection), the zero line
    over them and its title, and encodes the pixels as PNG (issue 44: about 9 ms a run
    on DL21, against 30 for a full draw of every artist). The pixels are those of a full
    draw of the same figure: the grid is below the bars, and the zero line, the only
    artist drawn over them, is drawn after them.

    ``topics``: the topic ids (the x axis); ``measure``: the measure drawn; ``dpi``: the
    PNG's resolution."""

    def __init__(self, topics, measure: str, limit: float, dpi: int = 110):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PolyCollection
        self.n = len(topics)
        self.dpi = dpi
        self.fig, self.ax = style.figure(max(4.0, min(9.0, 1.5 + 0.09 * self.n)), 2.6)
        ax = self.ax
        ax.set_axisbelow(True)                  # the grid under the bars, in the background
        self.bars = PolyCollection([], linewidths=0, antialiaseds=True, zorder=1)
        ax.add_collection(self.bars, autolim=False)
        self.zero = ax.axhline(0, color="0.3", lw=0.6)
        ax.set_xlim(-0.8, self.n - 0.2)
        ax.set_ylim(-limit, limit)
        ax.set_xticks([])
        ax.set_xlabel(f"{self.n} topics, in the order of the table below")
        ax.set_ylabel(f"{style.short_label(measure, 24)} − median", fontsize=8)
        ax.grid(axis="y", color="0.9", lw=0.6)
        self.title = ax.set_title("", fontsize=9, loc="left")
        self.measure = measure
        self.fig.set_dpi(dpi)
        self.canvas = FigureCanvasAgg(self.fig)
        self._background = None
        x = np.arange(self.n, dtype=np.float64)
        self._left, self._right = x - 0.4, x + 0.4          # ax.bar's width 0.8

    def _set(self, values: np.ndarray, run: str) -> None:
        v = np.asarray(values, dtype=np.float64)
        if v.shape != (self.n,):
            raise ValueError(f"VsMedianBars: {v.shape[0] if v.ndim == 1 else v.shape} "
                             f"values for {self.n} topics")
        keep = ~np.isnan(v)
        h = v[keep]
        left, right = self._left[keep], self._right[keep]
        zero = np.zeros_like(h)
        verts = np.stack([np.column_stack([left, zero]), np.column_stack([left, h]),
                          np.column_stack([right, h]), np.column_stack([right, zero])],
                         axis=1)
        self.bars.set_verts(list(verts))
        self.bars.set_facecolor([style.PALETTE[3] if x < 0 else style.PALETTE[0]
                                 for x in h])
        self.title.set_text(f"{style.short_label(run)}: "
                            f"{style.short_label(self.measure, 24)} against the median run")

    def draw(self, values: np.ndarray, run: str):
        """The figure for one run (``values``: value - median per topic, in topic
        order), its pixels in ``self.canvas``; returns the figure."""
        self._set(values, run)
        with style.pyplot().rc_context(style.RC):
            if self._background is None:
                self.canvas.draw()                  # lays the figure out (the first run's)
                self.fig.set_layout_engine("none")  # ... and keeps that layout
                # where that draw put the title: the next draw, without it, moves it up
                place = self.title.get_position()
                changing = (self.bars, self.zero, self.title)
                for artist in changing:
                    artist.set_visible(False)
                self.canvas.draw()
                self._background = self.canvas.copy_from_bbox(self.fig.bbox)
                for artist in changing:
                    artist.set_visible(True)
                self.title.set_position(place)
            self.canvas.restore_region(self._background)
            renderer = self.canvas.get_renderer()
            for artist in (self.bars, self.zero, self.title):
                artist.draw(renderer)
        return self.fig

    def png(self, values: np.ndarray, run: str) -> bytes:
        """The PNG of ``run``'s figure: RGB (the background is opaque), zlib level 3,
        no date or software in the file (the same bytes for the same values)."""
        import io

        from PIL import Image
        self.draw(values, run)
        image = Image.frombuffer("RGBA", self.canvas.get_width_height(physical=True),
                                 self.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
        out = io.BytesIO()
        image.convert("RGB").save(out, format="png", compress_level=3,
                                  dpi=(self.dpi, self.dpi))
        return out.getvalue()

    def save(self, values: np.ndarray, run: str, target):
        """Draw ``run`` and write it as the PNG ``target`` (all or nothing); returns its
        path (a :class:`~pathlib.Path`)."""
        from pathlib import Path

        from irmeta.io.output import atomic_write, write_errors
        target = Path(target)
        data = self.png(values, run)
        with write_errors(target), atomic_write(target, "wb") as fh:
            fh.write(data)
        return target

    def close(self) -> None:
        style.pyplot().close(self.fig)
