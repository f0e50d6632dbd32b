"""GAWM figures: the matrix heatmap with side bars (paper's Figure 3), the 5 x 5 ranking
grid with the MAP leader traced (Figure 4), the confidence bars (Figure 5) and the
leave-one-topic-out bars (Figure 6).

Every function draws what :mod:`irmeta.aggregate.analyses` computes (the heat map's
orders and side bars come from :func:`~irmeta.aggregate.analyses.heatmap_bars`, the grid
from :func:`~irmeta.aggregate.analyses.grid_scores`; given only the matrix, a function
asks that module and computes nothing itself), optionally saves PNG + SVG with
:func:`irmeta.plot.style.save`, and returns ``(figure, written paths)``. matplotlib is
imported only when drawing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irmeta.errors import ParameterError
from irmeta.plot import style

_SCORE_CMAP = "RdBu_r"      # the paper: red = larger values, blue = smaller
_WEIGHT_CMAP = "gray"       # the paper: white = more weight


def _minmax(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64)
    lo, hi = np.nanmin(v), np.nanmax(v)
    return np.full_like(v, 0.5) if hi <= lo else (v - lo) / (hi - lo)


def plot_matrix_heatmap(matrix: pd.DataFrame, path=None, *, axioms: str = "A",
                        means=("arithmetic", "geometric"), results=None, hits_result=None,
                        title: str | None = None):
    """Figure 3: the raw systems x topics matrix, best system (MAP) on top and easiest
    topic (AAP) on the left, with side bars.

    Right of the matrix, one bar per system: MAP, A(s) (HITS authority), ``E_s`` for each
    mean in ``means`` (GAWM with ``M_s = M_t`` = that mean), then the weights ``W_s``
    (grey, white = more weight) and the uniform weight of MAP. Below, the same for
    topics: AAP, A(t), ``E_t`` per mean, ``W_t``, uniform. Each bar is min-max scaled on
    its own, so colours compare ranks within a bar, not values across bars.

    ``results``: ``{mean: GAWMResult}`` to reuse; ``hits_result``: a HITSResult.
    """
    from irmeta.aggregate.analyses import heatmap_bars

    bars = heatmap_bars(matrix, axioms, means, results=results, hits_result=hits_result,
                        func="plot_matrix_heatmap")
    return plot_heatmap_bars(bars, path, title=title or f"score matrix with GAWM (axioms "
                             f"{axioms}) and HITS side bars")


def plot_heatmap_bars(bars, path=None, *, title: str = "", labels: bool = False,
                      measure: str | None = None):
    """Draw Figure 3 from :func:`irmeta.aggregate.analyses.heatmap_bars` (see
    :func:`plot_matrix_heatmap`, which computes them from a matrix): the matrix in the
    bars' orders, the system bars on the right, the topic bars below, ``title`` on top.
    ``labels``: name every run (left) and every topic (below), the figure growing with
    them (0.12 inch a run, 0.16 inch a topic) so that 100 runs stay legible; without,
    the paper's layout (run names up to 70 runs, no topic ids).
    ``measure``: the measure the matrix holds (the report's): the axes, the colour bar
    and the mean bars say it (``mean``, not the paper's ``MAP`` / ``AAP``, unless it is
    AP); without, the paper's labels.
    Saved as PNG and SVG when ``path`` is given; returns ``(figure, written paths)``."""
    P, runs, rows, cols = bars.values, bars.runs, bars.row_order, bars.col_order
    sys_bars, top_bars = bars.system_bars, bars.topic_bars
    if measure is not None and measure != "AP":
        rename = {"MAP": "mean", "AAP": "mean"}
        sys_bars = [(rename.get(lab, lab), v, g) for lab, v, g in sys_bars]
        top_bars = [(rename.get(lab, lab), v, g) for lab, v, g in top_bars]
    what = "MAP" if measure in (None, "AP") else f"mean {style.short_label(measure, 24)}"

    style.pyplot()  # selects a non-interactive backend when none is set
    m, n = P.shape
    nb, tb = len(sys_bars), len(top_bars)
    width = min(14.0, 3.0 + 0.11 * n + 0.25 * nb)
    height = min(14.0, 2.0 + 0.09 * m + 0.22 * tb)
    if labels:
        width = max(width, 3.8 + 0.16 * n + 0.25 * nb)
        height = max(height, 2.6 + 0.12 * m + 0.22 * tb)
    fig, _ = style.figure(width, height)
    fig.clf()
    gs = fig.add_gridspec(2, 2, width_ratios=[n, 0.9 * nb], height_ratios=[m, 0.9 * tb],
                          wspace=0.02, hspace=0.02)
    ax = fig.add_subplot(gs[0, 0])
    image = ax.imshow(P[np.ix_(rows, cols)], aspect="auto", cmap=_SCORE_CMAP,
                      interpolation="none", vmin=np.min(P), vmax=np.max(P))
    ax.set_ylabel(f"systems (best {what} on top)")
    ax.set_xticks([])
    ax.grid(False)
    if labels:
        ax.set_yticks(range(m), [str(runs[i]) for i in rows], fontsize=6)
    elif m <= 70:
        ax.set_yticks(range(m), [str(runs[i]) for i in rows], fontsize=max(3.5, min(7, 300 / m)))
    else:
        ax.set_yticks([])
    right = fig.add_subplot(gs[0, 1], sharey=ax)
    strip = np.column_stack([_minmax(v)[rows] for _, v, _ in sys_bars])
    for k, (_, _, grey) in enumerate(sys_bars):
        right.imshow(strip[:, k:k + 1], aspect="auto", cmap=_WEIGHT_CMAP if grey else _SCORE_CMAP,
                     extent=(k - 0.5, k + 0.5, m - 0.5, -0.5), vmin=0, vmax=1,
                     interpolation="none")
    right.set_xlim(-0.5, nb - 0.5)
    right.set_xticks(range(nb), [lab for lab, _, _ in sys_bars], rotation=90, fontsize=7)
    right.xaxis.tick_top()
    right.tick_params(axis="y", left=False, labelleft=False)
    right.grid(False)
    bottom = fig.add_subplot(gs[1, 0], sharex=ax)
    strip = np.vstack([_minmax(v)[cols] for _, v, _ in top_bars])
    for k, (_, _, grey) in enumerate(top_bars):
        bottom.imshow(strip[k:k + 1, :], aspect="auto", cmap=_WEIGHT_CMAP if grey else _SCORE_CMAP,
                      extent=(-0.5, n - 0.5, k + 0.5, k - 0.5), vmin=0, vmax=1,
                      interpolation="none")
    bottom.set_ylim(tb - 0.5, -0.5)
    bottom.set_yticks(range(tb), [lab for lab, _, _ in top_bars], fontsize=7)
    bottom.set_xlabel("topics (easiest AAP on the left)" if measure in (None, "AP") else
                      f"topics (highest {what} on the left)")
    if labels:
        bottom.set_xticks(range(n), [str(bars.topics[j]) for j in cols], rotation=90,
                          fontsize=6)
        ax.tick_params(axis="x", bottom=False, labelbottom=False)   # shared: below only
    else:
        bottom.set_xticks([])
    bottom.grid(False)
    corner = fig.add_subplot(gs[1, 1])
    corner.axis("off")
    fig.colorbar(image, ax=corner, fraction=0.9, aspect=8,
                 label=style.short_label(measure, 24) if measure else "score")
    if title:
        fig.suptitle(title)
    written = style.save(fig, path) if path is not None else []
    return fig, written


def plot_ranking_grid(matrix: pd.DataFrame, path=None, *, axioms: str = "A", scores=None,
                      title: str | None = None):
    """Figure 4: one column per aggregation (MAP, then ``S1T1`` .. ``S5T5``), each the
    systems ordered by that column's score (best on top), coloured by the score scaled
    by the column's maximum (red = highest); a black line traces the rank of the MAP
    leader (competition rank: 1 + number of systems strictly better).

    ``scores``: the :func:`~irmeta.aggregate.analyses.grid_scores` frame to reuse.
    """
    from irmeta.aggregate.analyses import grid_scores
    if scores is None:
        scores = grid_scores(matrix, axioms)
    if "MAP" not in scores.columns:
        raise ParameterError("plot_ranking_grid: scores must be a grid_scores() frame with a "
                             "MAP column")
    values = scores.to_numpy(dtype=np.float64)
    m, c = values.shape
    leader = int(np.argmax(values[:, 0]))
    image = np.empty_like(values)
    ranks = np.empty(c)
    for k in range(c):
        col = values[:, k]
        top = np.max(col)
        image[:, k] = np.sort(col)[::-1] / top if top > 0 else 0.0
        ranks[k] = 1 + np.sum(col > col[leader])
    fig, ax = style.figure(min(14.0, 2.5 + 0.32 * c), min(10.0, 2.0 + 0.06 * m))
    ax.imshow(image, aspect="auto", cmap=_SCORE_CMAP, interpolation="none", vmin=0, vmax=1,
              extent=(-0.5, c - 0.5, m + 0.5, 0.5))
    ax.plot(range(c), ranks, color="black", lw=1.3, marker="o", ms=2.5,
            label=f"MAP leader: {scores.index[leader]}")
    for x in range(1, c, 5):
        ax.axvline(x - 0.5, color="white", lw=1.2)
    ax.set_xticks(range(c), list(scores.columns), rotation=90, fontsize=7)
    ax.set_ylabel("rank (1 = best)")
    ax.set_xlabel("aggregation: S = system mean, T = topic mean "
                  "(1 min, 2 harmonic, 3 geometric, 4 arithmetic, 5 max)")
    ax.grid(False)
    ax.legend(loc="lower right", framealpha=0.9)
    ax.set_title(title or f"rankings of systems under MAP and the 5 x 5 GAWM means "
                          f"(axioms {axioms})")
    written = style.save(fig, path) if path is not None else []
    return fig, written


def plot_confidence(table: pd.DataFrame, path=None, *, title: str | None = None):
    """Figure 5: bars of P(best > median) and P(best > worst) for each aggregator of a
    :func:`~irmeta.aggregate.analyses.winner_confidence` table."""
    needed = {"P(best>median)", "P(best>worst)"}
    if not needed <= set(table.columns):
        raise ParameterError("plot_confidence: table must come from winner_confidence() "
                             "(columns P(best>median), P(best>worst))")
    fig, axes = style.figure(7.0, 2.8, ncols=2, sharey=True)
    labels = [str(i).replace("gawm(ms=", "").rstrip(")") for i in table.index]
    colors = [style.PALETTE[7] if lab == "MAP" else style.PALETTE[0] for lab in labels]
    for ax, col, name in zip(axes, ("P(best>median)", "P(best>worst)"),
                             ("best vs median", "best vs worst")):
        vals = table[col].to_numpy(dtype=np.float64)
        ax.bar(range(len(vals)), vals, color=colors)
        for x, v in enumerate(vals):
            ax.text(x, v + 0.01, f"{v:.2f}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks(range(len(vals)), labels, rotation=30, ha="right")
        ax.set_ylim(0, 1.08)
        ax.axhline(0.5, color="black", lw=0.7, ls=":")
        ax.set_title(name)
    axes[0].set_ylabel("P(best system is better)")
    fig.suptitle(title or "confidence in the winner: MAP (black) and GAWM with each system mean")
    written = style.save(fig, path) if path is not None else []
    return fig, written


def plot_leave_one_topic_out(table: pd.DataFrame, path=None, *, title: str | None = None):
    """Figure 6: mean Kendall tau (error bar: standard deviation over topics) between
    each aggregate over n-1 topics and the held-out topic, from a
    :func:`~irmeta.aggregate.analyses.leave_one_topic_out` table."""
    if "mean_tau" not in table.columns:
        raise ParameterError("plot_leave_one_topic_out: table must come from "
                             "leave_one_topic_out() (column mean_tau)")
    fig, ax = style.figure(4.5, 3.0)
    labels = [str(i).replace("gawm(ms=", "").rstrip(")") for i in table.index]
    colors = [style.PALETTE[7] if lab == "MAP" else style.PALETTE[0] for lab in labels]
    ax.bar(range(len(labels)), table["mean_tau"], yerr=table.get("std_tau"), color=colors,
           capsize=3, error_kw={"lw": 0.8})
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_ylabel("Kendall tau with the held-out topic")
    ax.set_title(title or "leave-one-topic-out predictivity")
    written = style.save(fig, path) if path is not None else []
    return fig, written


def plot_weights_scatter(frame: pd.DataFrame, x: str, ys, path=None, *,
                         title: str | None = None):
    """The GAWM paper's Figures 2a/2b: one panel per column of ``ys`` (e.g. HITS
    authority and hubness, GAWM effectiveness and weight) against the plain mean ``x``
    (MAP for systems, AAP for topics), one point per row of ``frame``; each panel's
    title gives Pearson's r (NaN when a column is constant)."""
    ys = list(ys)
    missing = [c for c in [x, *ys] if c not in frame.columns]
    if missing:
        raise ParameterError(f"plot_weights_scatter: frame has no column(s) {missing}")
    fig, axes = style.figure(2.3 * len(ys) + 0.6, 2.6, ncols=len(ys), squeeze=False)
    xv = frame[x].to_numpy(dtype=np.float64)
    for ax, col, color in zip(axes[0], ys, style.PALETTE):
        yv = frame[col].to_numpy(dtype=np.float64)
        ax.scatter(xv, yv, s=10, color=color, alpha=0.8)
        ok = np.isfinite(xv) & np.isfinite(yv)
        r = (float(np.corrcoef(xv[ok], yv[ok])[0, 1])
             if ok.sum() > 1 and np.std(xv[ok]) > 0 and np.std(yv[ok]) > 0 else float("nan"))
        ax.set_title(f"{col}  (r = {r:.3f})", fontsize=8)
        ax.set_xlabel(x)
    fig.suptitle(title or f"weights against {x}", fontsize=9)
    written = style.save(fig, path) if path is not None else []
    return fig, written
