"""Shared fixtures: paths to ../shared/data.

Tests on real data skip with a message when it is absent, unless the environment variable
``IRMETA_REQUIRE_SHARED_DATA=1`` is set (``.ci/run`` sets it): then a missing folder is a
hard failure, so the trec_eval parity tests can never skip silently in CI
(docs/development.md).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# Bytecode caches (git-ignored ``__pycache__``) are written even when the environment sets
# PYTHONDONTWRITEBYTECODE=1, as this project's development VM does: without them every
# pytest process (each xdist worker) compiles irmeta and re-rewrites the asserts of every
# test module, about 5 s of its 11 s start (docs/development.md, "The quick loop").
sys.dont_write_bytecode = False

from tests import quick  # noqa: E402  (after the line above: its module is cached too)

# ir_datasets fixes its cache folder (IR_DATASETS_HOME) when it is first imported, and
# importing it creates folders there: every test process gets its own temporary home, so
# no test reads or writes a user's cache (tests/ecosystem, docs/ecosystem.md).
os.environ["IR_DATASETS_HOME"] = tempfile.mkdtemp(prefix="irmeta-irds-")
atexit.register(shutil.rmtree, os.environ["IR_DATASETS_HOME"], True)

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("IRMETA_SHARED_DATA", ROOT.parent / "shared" / "data"))


def pytest_configure(config):
    """The quick loop (``-m "not slow"``) runs fewer Hypothesis examples: tests/quick.py."""
    quick.QUICK = "not slow" in (config.getoption("markexpr", "") or "")
    if quick.QUICK:
        from hypothesis import settings

        settings.register_profile("quick", max_examples=quick.examples(100))
        settings.load_profile("quick")


def pytest_unconfigure(config):
    """The last hook of every pytest process (each xdist worker too): freeze the heap, so
    that the interpreter's exit skips its final garbage collection over every object
    the session made (0.6-1.2 s a process with pandas, SciPy and matplotlib loaded,
    paid at the end of each worker and of the controller; objects are still freed)."""
    shutil.rmtree(os.environ["IR_DATASETS_HOME"], ignore_errors=True)  # see its creation
    import gc
    gc.freeze()


#: set to 1 to turn a missing ../shared/data into a failure instead of a skip
REQUIRE_SHARED_DATA = "IRMETA_REQUIRE_SHARED_DATA"


def shared_data_required() -> bool:
    """True when ``IRMETA_REQUIRE_SHARED_DATA`` is ``1`` (read at call time). ``CI=true``
    alone does not imply it: downstream CI without the data should still skip."""
    return os.environ.get(REQUIRE_SHARED_DATA, "").strip() == "1"


def shared_path(*parts: str, base: Path | None = None) -> Path:
    """Path inside ../shared/data (or ``base``); skips the calling test when it does not
    exist, or fails it when ``IRMETA_REQUIRE_SHARED_DATA=1``."""
    path = (SHARED if base is None else Path(base)).joinpath(*parts)
    if not path.exists():
        message = f"shared data not available: {path} (tests on real data need ../shared/data)"
        if shared_data_required():
            pytest.fail(f"{message}; {REQUIRE_SHARED_DATA}=1 forbids skipping", pytrace=False)
        pytest.skip(message)
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
