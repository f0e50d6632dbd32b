"""Shared fixtures: paths to ../shared/data (tests skip with a message when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("IRMETA_SHARED_DATA", ROOT.parent / "shared" / "data"))


def shared_path(*parts: str) -> Path:
    """Path inside ../shared/data; skips the calling test when it does not exist."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (tests on real data need ../shared/data)")
    return path


@pytest.fixture
def trec_eval_test():
    return shared_path("trec_eval_test")


@pytest.fixture(scope="session")
def dl21():
    """(qrels path, [run paths]) of TREC DL 2021 passage: 63 runs."""
    base = shared_path("trec-dl-2021-passage")
    return base / "qrels" / "qrels.dl21-passage.txt", sorted((base / "runs").glob("*.gz"))


@pytest.fixture(scope="session")
def ehealth():
    """(qrels path, [run paths]) of CLEF eHealth 2016 IRTask2: 16 runs."""
    base = shared_path("clef-ehealth-2016-irtask2")
    return base / "qrels" / "task2.qrels", sorted((base / "runs").glob("*.gz"))


@pytest.fixture(scope="session")
def dl21_campaign(dl21):
    """The DL21 campaign built once per test session (relevance >= 1)."""
    import irmeta
    qrels, runs = dl21
    return irmeta.load_campaign(qrels, runs, warn_dropped=False)


@pytest.fixture(scope="session")
def ehealth_campaign(ehealth):
    import irmeta
    qrels, runs = ehealth
    return irmeta.load_campaign(qrels, runs)
