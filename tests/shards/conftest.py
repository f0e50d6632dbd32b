"""Campaigns written as TREC files whose lines are shuffled (not sorted by topic)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tests.oracles.test_classic_oracle import random_campaign


def write_campaign(folder: Path, seed: int = 0, n_runs: int = 4, n_topics: int = 9,
                   n_docs: int = 30) -> tuple[str, list[str]]:
    """(qrels path, run paths) of a random campaign; run lines in random order."""
    qrels, runs = random_campaign(seed, n_runs=n_runs, n_topics=n_topics, n_docs=n_docs)
    rng = np.random.default_rng(seed)
    qpath = folder / "qrels.txt"
    qpath.write_text("".join(f"{t} 0 {d} {g}\n" for t, docs in qrels.items()
                             for d, g in docs.items()))
    paths = []
    for name, topics in runs.items():
        lines = [f"{t} Q0 {d} 0 {s} {name}\n" for t, docs in topics.items()
                 for d, s in docs.items()]
        lines += [f"zz{k} Q0 x 0 1 {name}\n" for k in range(2)]  # topics outside the qrels
        rng.shuffle(lines)
        path = folder / f"{name}.txt"
        path.write_text("".join(lines))
        paths.append(str(path))
    return str(qpath), paths
