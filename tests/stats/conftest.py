"""Small synthetic inputs for the meta-evaluation tests."""

from __future__ import annotations

import numpy as np
import pytest


def synthetic_qrels_runs(n_runs=8, n_topics=12, n_docs=40, depth=20, seed=0):
    """Graded qrels (0-2, ~30% relevant, 15 non-relevant judged at least) and runs of
    varying quality as dicts."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"run{r}": {} for r in range(n_runs)}
    for t in range(n_topics):
        tid = f"q{t + 1}"
        grades = rng.choice([0, 0, 0, 1, 1, 2], size=n_docs)
        grades[0] = 2
        qrels[tid] = {f"d{t}_{i}": int(g) for i, g in enumerate(grades)}
        for r in range(n_runs):
            skill = r / n_runs
            score = grades * skill + rng.random(n_docs)
            top = np.argsort(-score)[:depth]
            runs[f"run{r}"][tid] = {f"d{t}_{i}": float(depth - k) for k, i in enumerate(top)}
    return qrels, runs


@pytest.fixture(scope="session")
def small_campaign():
    import irmeta
    qrels, runs = synthetic_qrels_runs()
    return irmeta.load_campaign(qrels, runs)


@pytest.fixture
def scores():
    """7 systems x 15 topics with system effects, topic effects and some ties."""
    rng = np.random.default_rng(42)
    X = rng.random((7, 15)) * 0.4 + np.linspace(0, 0.3, 7)[:, None] + rng.random(15)[None, :] * 0.2
    X[2, :4] = X[3, :4]          # ties between two systems on some topics
    return np.round(X, 3)
