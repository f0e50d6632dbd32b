"""GAWM figures: each draws and writes PNG + SVG (smoke tests, Agg backend)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irmeta.aggregate.analyses import grid_scores, leave_one_topic_out, winner_confidence
from irmeta.errors import ParameterError
from irmeta.plot.gawm import (plot_confidence, plot_leave_one_topic_out, plot_matrix_heatmap,
                              plot_ranking_grid)


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(2)
    P = np.clip(np.outer(rng.random(12), rng.random(8)) + 0.1 * rng.standard_normal((12, 8)), 0, 1)
    return pd.DataFrame(P, index=[f"run{i}" for i in range(12)], columns=[str(300 + j) for j in range(8)])


def test_figures_draw(frame):
    # drawing only: saving PNG + SVG is checked once, through `irmeta aggregate --plots`
    fig, paths = plot_confidence(winner_confidence(frame))
    assert paths == [] and len(fig.axes) == 2 and len(fig.axes[0].patches) == 6
    fig, paths = plot_leave_one_topic_out(leave_one_topic_out(frame, ms=["arithmetic"]))
    assert paths == [] and len(fig.axes[0].patches) == 2
    fig, _ = plot_matrix_heatmap(frame, means=("harmonic",))
    assert len(fig.axes) >= 3


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
