"""GAWM figures: each draws and writes PNG + SVG (smoke tests, Agg backend)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irmeta.aggregate.analyses import grid_scores, leave_one_topic_out, winner_confidence
from irmeta.errors import ParameterError
from irmeta.plot.gawm import (
    plot_confidence,
    plot_leave_one_topic_out,
    plot_matrix_heatmap,
    plot_ranking_grid,
)


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(2)
    P = np.clip(np.outer(rng.random(12), rng.random(8)) + 0.1 * rng.standard_normal((12, 8)), 0, 1)
    return pd.DataFrame(P, index=[f"run{i}" for i in range(12)],
                        columns=[str(300 + j) for j in range(8)])


@pytest.mark.slow
def test_figures_draw(frame):
    # drawing only: saving PNG + SVG is checked once, through `irmeta aggregate --plots`
    fig, paths = plot_confidence(winner_confidence(frame))
    assert paths == [] and len(fig.axes) == 2 and len(fig.axes[0].patches) == 6
    fig, paths = plot_leave_one_topic_out(leave_one_topic_out(frame, ms=["arithmetic"]))
    assert paths == [] and len(fig.axes[0].patches) == 2
    fig, _ = plot_matrix_heatmap(frame, means=("harmonic",))
    assert len(fig.axes) >= 3


@pytest.mark.slow
def test_ranking_grid_traces_the_leader(frame):
    scores = grid_scores(frame)
    fig, paths = plot_ranking_grid(frame, scores=scores)
    assert paths == []
    line = fig.axes[0].lines[0]
    leader = scores["MAP"].idxmax()
    want = [1 + int((scores[c] > scores.loc[leader, c]).sum()) for c in scores.columns]
    assert list(line.get_ydata()) == want


def test_plots_reject_foreign_tables(frame):
    with pytest.raises(ParameterError, match="winner_confidence"):
        plot_confidence(frame)
    with pytest.raises(ParameterError, match="grid_scores"):
        plot_ranking_grid(frame, scores=frame)


def test_heatmap_bars_are_the_figure_numbers(frame):
    """Figure 3's numbers come from the analysis, not the plot: MAP/AAP orders, HITS and
    GAWM bars per system and topic, checked against the functions that define them."""
    from irmeta.aggregate import gawm, hits
    from irmeta.aggregate.analyses import heatmap_bars
    bars = heatmap_bars(frame, "A", ("harmonic", "arithmetic"))
    P = frame.to_numpy()
    assert bars.row_order.tolist() == np.argsort(-P.mean(axis=1), kind="stable").tolist()
    assert bars.col_order.tolist() == np.argsort(-P.mean(axis=0), kind="stable").tolist()
    labels = [label for label, _, _ in bars.system_bars]
    assert labels == ["MAP", "A(s)", "E_s har", "E_s ari", "W_s har", "uniform"]
    assert [label for label, _, _ in bars.topic_bars] == [
        "AAP", "A(t)", "E_t har", "E_t ari", "W_t har", "uniform"]
    assert [grey for _, _, grey in bars.system_bars] == [False] * 4 + [True] * 2
    values = {label: v for label, v, _ in bars.system_bars}
    g, h = gawm(frame, "A", "harmonic", "harmonic"), hits(frame)
    np.testing.assert_array_equal(values["MAP"], P.mean(axis=1))
    np.testing.assert_array_equal(values["A(s)"], h.authority_s.to_numpy())
    np.testing.assert_array_equal(values["E_s har"], g.E_s.to_numpy())
    np.testing.assert_array_equal(values["W_s har"], g.W_s.to_numpy())
    with pytest.raises(ParameterError, match="plot_matrix_heatmap"):
        plot_matrix_heatmap(frame.iloc[:1])
