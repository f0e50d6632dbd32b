"""The paper's analyses: each table against a direct computation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from irmeta.aggregate import gawm, hits
from irmeta.aggregate.analyses import (
    correlation_table,
    grid_scores,
    leave_one_topic_out,
    mean_function_table,
    pearson,
    ranking_grid,
    winner_confidence,
)
from irmeta.aggregate.means import MEAN_FUNCTIONS
from irmeta.errors import ParameterError
from irmeta.io.matrix import read_matrix

from ..conftest import shared_path


@pytest.fixture
def frame():
    rng = np.random.default_rng(21)
    skill, ease = rng.random(14), rng.random(10)
    P = np.clip(np.outer(skill, ease) + 0.2 * rng.standard_normal((14, 10)), 0, 1)
    return pd.DataFrame(np.round(P, 3), index=[f"s{i}" for i in range(14)],
                        columns=[f"t{j}" for j in range(10)])


def test_pearson_matches_numpy_and_is_nan_for_constants():
    rng = np.random.default_rng(0)
    x, y = rng.random(20), rng.random(20)
    assert pearson(x, y) == pytest.approx(np.corrcoef(x, y)[0, 1])
    assert math.isnan(pearson(np.full(5, 0.2), np.arange(5)))


def test_correlation_table(frame):
    table = correlation_table({"x": frame, "y": frame.iloc[:8]})
    assert list(table.index) == ["x", "y"]
    P = frame.to_numpy()
    g, h = gawm(frame, "A"), hits(frame)
    row = table.loc["x"]
    assert row["systems"] == 14 and row["topics"] == 10 and row["converged"]
    assert row["Pearson(MAP,E_s)"] == pytest.approx(np.corrcoef(P.mean(1), g.E_s)[0, 1])
    assert row["Pearson(MAP,A(s))"] == pytest.approx(np.corrcoef(P.mean(1), h.authority_s)[0, 1])
    assert row["Pearson(AAP,E_t)"] == pytest.approx(np.corrcoef(P.mean(0), g.E_t)[0, 1])
    assert row["Pearson(AAP,A(t))"] == pytest.approx(np.corrcoef(P.mean(0), h.authority_t)[0, 1])
    assert row["Pearson(MAP,W_s)"] == pytest.approx(np.corrcoef(P.mean(1), g.W_s)[0, 1])
    assert row["Pearson(AAP,W_t)"] == pytest.approx(np.corrcoef(P.mean(0), g.W_t)[0, 1])
    with pytest.raises(ParameterError, match="non-empty mapping"):
        correlation_table({})


def test_mean_function_table_follows_the_papers_principles():
    """Table 3's pattern on a real matrix: with M_t = min the system weights are
    anti-correlated with MAP, with M_t = max correlated (paper: -0.995 and 0.997)."""
    web = read_matrix(shared_path("trec-2010-web-adhoc-score-matrices", "web2010ap.csv"))
    table = mean_function_table({"web": web})
    assert list(table.index.get_level_values("M_t")) == list(MEAN_FUNCTIONS)
    assert table.loc[("web", "min"), "Pearson(MAP,W_s)"] < -0.95
    assert table.loc[("web", "max"), "Pearson(MAP,W_s)"] > 0.95
    assert table.loc[("web", "min"), "Pearson(AAP,W_t)"] > 0.95
    assert table["converged"].all()


def test_grid_scores_and_ranking_grid(frame):
    scores = grid_scores(frame, "A")
    assert list(scores.columns[:3]) == ["MAP", "S1T1", "S1T2"] and scores.shape == (14, 26)
    assert (np.diff(scores["MAP"].to_numpy()) <= 0).all()
    np.testing.assert_allclose(scores.loc[frame.index, "S2T4"],
                               gawm(frame, "A", "harmonic", "arithmetic").E_s)
    grid = ranking_grid(frame, "A")
    assert grid.shape[0] == 26 and grid.iloc[0]["label"] == "MAP"
    leader = frame.mean(axis=1).idxmax()
    for (ms, mt), row in grid.iloc[1:].iterrows():
        e = gawm(frame, "A", ms, mt).E_s
        assert row["map_leader_rank"] == 1 + int((e > e[leader]).sum())
        assert row["leader"] == e.idxmax()
        assert row["kendall_tau"] == pytest.approx(kendalltau(e, frame.mean(axis=1)).statistic)
    # min ignores weights: S1 columns all equal the row minimum
    np.testing.assert_allclose(scores.loc[frame.index, "S1T3"], frame.min(axis=1))


def test_winner_confidence_by_hand():
    P = pd.DataFrame([[0.9, 0.7, 0.8], [0.5, 0.6, 0.4], [0.1, 0.3, 0.2]], index=["a", "b", "c"])
    table = winner_confidence(P)
    row = table.loc["MAP"]
    assert (row["best"], row["median"], row["worst"]) == ("a", "b", "c")
    v = (2 / 3) * 0.01      # population variance of each row (deviations -0.1, 0, 0.1)
    from scipy.stats import norm
    assert row["P(best>median)"] == pytest.approx(norm.cdf(0.3 / math.sqrt(2 * v)))
    assert row["P(best>worst)"] == pytest.approx(norm.cdf(0.6 / math.sqrt(2 * v)))
    assert list(table.index) == ["MAP"] + [f"gawm(ms={m})" for m in MEAN_FUNCTIONS]
    g = gawm(P, "A", "geometric", "arithmetic")
    s, w = g.E_s.to_numpy(), g.W_t.to_numpy()
    var = ((P.to_numpy() - s[:, None]) ** 2) @ w
    want = norm.cdf((s[0] - s[2]) / math.sqrt(var[0] + var[2]))
    assert table.loc["gawm(ms=geometric)", "P(best>worst)"] == pytest.approx(want)


def test_leave_one_topic_out_against_a_loop(frame):
    table = leave_one_topic_out(frame, "B", ms=["arithmetic", "max"])
    assert list(table.index) == ["MAP", "gawm(ms=arithmetic)", "gawm(ms=max)"]
    P = frame.to_numpy()
    taus_map, taus_g = [], []
    for j in range(P.shape[1]):
        rest = np.delete(P, j, axis=1)
        taus_map.append(kendalltau(rest.mean(axis=1), P[:, j]).statistic)
        taus_g.append(kendalltau(gawm(rest, "B").E_s, P[:, j]).statistic)
    assert table.loc["MAP", "mean_tau"] == pytest.approx(np.mean(taus_map))
    assert table.loc["gawm(ms=arithmetic)", "mean_tau"] == pytest.approx(np.mean(taus_g))
    assert table.loc["MAP", "topics"] == 10
    # a constant held-out topic has no ordering and is left out
    flat = frame.copy()
    flat["t0"] = 0.5
    assert leave_one_topic_out(flat, ms=["arithmetic"]).loc["MAP", "topics"] == 9
