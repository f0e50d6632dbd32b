"""Fixtures of the ecosystem tests: a small campaign as files, frames and rows, and local
ir_datasets registrations (IR_DATASETS_HOME is a temporary folder: tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

QRELS = [("q1", "d1", 1), ("q1", "d2", 0), ("q1", "d3", 2), ("q2", "d4", 1), ("q2", "d5", 2),
         ("q3", "d6", 0)]
RUNS = {
    "bm25": [("q1", "d1", 3.0), ("q1", "d2", 2.0), ("q1", "d9", 1.0), ("q2", "d5", 2.0),
             ("q2", "d4", 1.0), ("q3", "d6", 1.0)],
    "dense": [("q1", "d3", 2.5), ("q1", "d2", 2.5), ("q2", "d8", 1.0), ("q2", "d4", 0.5)],
    "splade": [("q1", "d3", 1.0), ("q2", "d4", 2.0), ("q2", "d7", 1.0), ("q3", "d6", 4.0)],
}


@pytest.fixture(scope="session")
def files(tmp_path_factory) -> tuple[Path, list[Path]]:
    """The campaign as TREC files (one set per process: the local ir_datasets
    registrations point at them)."""
    tmp_path = tmp_path_factory.mktemp("campaign")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in QRELS))
    runs = []
    for name, rows in RUNS.items():
        path = tmp_path / f"{name}.run"
        path.write_text("".join(f"{q} Q0 {d} {i} {s} {name}\n"
                                for i, (q, d, s) in enumerate(rows)))
        runs.append(path)
    return qrels, runs


def pt_frames():
    """The campaign as PyTerrier frames (qrels: qid, docno, label; runs with a rank)."""
    import pandas as pd
    qrels = pd.DataFrame(QRELS, columns=["qid", "docno", "label"])
    runs = {}
    for name, rows in RUNS.items():
        f = pd.DataFrame(rows, columns=["qid", "docno", "score"])
        f["rank"] = f.groupby("qid").cumcount()
        runs[name] = f
    return qrels, runs


_registered: set[str] = set()


def register_local(name: str, qrels: Path | None = None, run: Path | None = None) -> str:
    """Register an ir_datasets dataset over local files (once per process); its id."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs
    from ir_datasets.util import LocalDownload
    if name not in _registered:
        parts = []
        if qrels is not None:
            parts.append(TrecQrels(LocalDownload(str(qrels)), {0: "not", 1: "rel", 2: "high"}))
        if run is not None:
            parts.append(TrecScoredDocs(LocalDownload(str(run))))
        ir_datasets.registry.register(name, Dataset(*parts))
        _registered.add(name)
    return name


def irds_home() -> Path:
    home = Path(os.environ["IR_DATASETS_HOME"])
    assert "irmeta-irds-" in home.name, "tests must never use a real ir_datasets cache"
    return home
