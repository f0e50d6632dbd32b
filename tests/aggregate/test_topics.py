"""Per-topic views (irmeta.aggregate.topics) against a loop over the runs of each topic."""

from __future__ import annotations

import statistics

import numpy as np
import pandas as pd
import pytest

from irmeta.aggregate.topics import run_topics, topic_summary
from irmeta.errors import ParameterError


def _matrix(seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, (6, 9)) / 4.0          # many ties
    X[rng.random(X.shape) < 0.1] = np.nan
    X[:, 3] = np.nan                               # a topic no run defines
    return pd.DataFrame(X, index=[f"r{i}" for i in range(6)],
                        columns=[f"t{j}" for j in range(9)])


@pytest.mark.parametrize("seed", range(5))
def test_summary_and_run_view_match_a_loop(seed):
    m = _matrix(seed)
    summary = topic_summary(m)
    for topic in m.columns:
        values = [(run, v) for run, v in m[topic].items() if not np.isnan(v)]
        row = summary.loc[topic]
        if not values:
            assert np.isnan(row["best"]) and pd.isna(row["best_run"]) and row["runs"] == 0
            continue
        best = max(v for _, v in values)
        assert row["best"] == best and row["worst"] == min(v for _, v in values)
        assert row["median"] == statistics.median(v for _, v in values)
        assert row["best_run"] == next(run for run, v in values if v == best)
        assert row["runs_at_best"] == sum(v == best for _, v in values)
        assert row["runs"] == len(values)
    for run in m.index:
        view = run_topics(m, run)
        for topic in m.columns:
            x = m.loc[run, topic]
            others = [v for v in m[topic] if not np.isnan(v)]
            if np.isnan(x):
                assert np.isnan(view.loc[topic, "rank"])
                continue
            assert view.loc[topic, "rank"] == 1 + sum(v > x for v in others)
            assert view.loc[topic, "vs_median"] == x - statistics.median(others)
            assert view.loc[topic, "is_best"] == (x == max(others))


def test_unknown_run_is_named():
    with pytest.raises(ParameterError, match="no run 'zz'"):
        run_topics(_matrix(0), "zz")
