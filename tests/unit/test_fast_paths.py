"""The fast paths of ``irmeta eval`` (docs/performance.md) give what the simple ones give.

Threaded fingerprints and duplicate checks, the single-tag shortcut of the run reader, and
the promise that evaluating files never imports pandas. (The sparse kernels are checked
against the dense ones by tests/unit/test_kernel_blocks.py.)
"""

from __future__ import annotations

import ast

import numpy as np
import pyarrow as pa
import pytest

from irmeta.data import campaign as campaign_module
from irmeta.data import fingerprint
from irmeta.io import trec
from tests.fresh import python_output


@pytest.fixture
def two_cpus():
    """Arrow's CPU budget of two threads, so the helpers run threaded on any machine
    (irmeta.data.threads: one thread when pyarrow.cpu_count() is 1)."""
    before = pa.cpu_count()
    pa.set_cpu_count(2)
    yield
    pa.set_cpu_count(before)


def test_threaded_fingerprints_equal_the_sequential_ones(monkeypatch, two_cpus):
    ids = pa.array([f"doc{i * 7919 % 100003}".encode() * (1 + i % 3) for i in range(5000)],
                   type=pa.binary())
    sequential = fingerprint.fingerprint_strings(ids)            # one chunk
    monkeypatch.setattr(fingerprint, "_CHUNK", 300)              # 17 chunks, two threads
    threaded = fingerprint.fingerprint_strings(ids)
    np.testing.assert_array_equal(threaded, sequential)


def test_threaded_duplicate_check_finds_a_duplicate_in_any_block(two_cpus):
    rng = np.random.default_rng(3)
    T, D = 40, 1 << 17                       # 5 topic blocks of 8 topics: two threads
    fp = rng.integers(1, 2**63, size=(T, D), dtype=np.uint64)
    length = np.full(T, D, dtype=np.int32)
    length[5] = 10                           # padding is never a duplicate
    assert not campaign_module._has_duplicates(fp, length)
    for topic in (0, 17, T - 1):
        dup = fp.copy()
        dup[topic, 9] = dup[topic, 3]
        assert campaign_module._has_duplicates(dup, length)


def test_single_tag_shortcut(tmp_path):
    column = pa.chunked_array([pa.array([b"run1"] * 3), pa.array([b"run1"] * 2)])
    assert trec._single_value(column) == b"run1"
    mixed = pa.chunked_array([pa.array([b"run1"] * 3), pa.array([b"run1", b"run2"])])
    assert trec._single_value(mixed) is None
    assert trec._single_value(pa.array([b"ab", b"a", b"b"])) is None   # same bytes, split
    wide = pa.array([b"run1"] * 3, type=pa.large_binary())             # 64-bit offsets
    assert trec._single_value(wide) == b"run1"
    assert trec._single_value(pa.array([b"run1", b"run2"], type=pa.large_binary())) is None
    ids, codes = trec._tags(mixed)
    assert list(ids) == ["run1", "run2"] and codes.tolist() == [0, 0, 0, 0, 1]


def modules_loaded_by_eval(args: list[str], modules: list[str]) -> list[str]:
    """Which of ``modules`` a fresh interpreter has imported after ``irmeta eval ARGS
    QRELS RUN`` on the demo campaign's first run."""
    code = (
        "import sys\n"
        "from irmeta.demo import demo_paths\n"
        "from irmeta.cli.main import main\n"
        "p = demo_paths()\n"
        f"sys.argv = ['irmeta', 'eval', *{args!r}, str(p.qrels), str(p.runs[0])]\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        f"sys.stderr.write('LOADED ' + repr([m for m in {modules!r} if m in sys.modules]))\n"
    )
    done = python_output(code)
    assert "LOADED " in done.stderr, done.stderr[-500:]
    return list(ast.literal_eval(done.stderr.rsplit("LOADED ", 1)[1]))


@pytest.mark.slow
@pytest.mark.parametrize("shards", [[], ["--shard-topics", "7"]])
def test_evaluating_files_does_not_import_pandas(shards):
    """In memory, and shard by shard (the partitioning pass, reading shards, gathering:
    what a Dask driver runs), trec_eval's measures never import pandas."""
    assert modules_loaded_by_eval(["-q", "-m", "all_trec", *shards], ["pandas"]) == []


def test_arrow_arrays_from_numpy_buffers_equal_pyarrows():
    from irmeta.data.tables import arrow_array, column_numpy
    rng = np.random.default_rng(0)
    for values in (rng.integers(-5, 5, 37).astype(np.int32), rng.random(19),
                   rng.random(11).astype(np.float32), rng.random(70) < 0.3,
                   np.zeros(0, dtype=np.int64)):
        got = arrow_array(values)
        assert got.equals(pa.array(values)), values.dtype
        chunked = pa.chunked_array([got, got]) if len(values) and values.dtype != bool else None
        if chunked is not None:
            np.testing.assert_array_equal(column_numpy(chunked), np.concatenate([values] * 2))
    with pytest.raises(TypeError, match="numbers or booleans"):
        arrow_array(np.array(["a"]))


@pytest.mark.slow
def test_evaluating_files_in_memory_imports_no_sharding_or_parquet():
    """An evaluation in memory decides it needs no shards without importing the sharded
    machinery or Parquet, and its NumPy calls never load numpy.ma (start-up, issue 27)."""
    heavy = ["irmeta.shards.local", "irmeta.shards.parquet", "pyarrow.parquet", "numpy.ma"]
    assert modules_loaded_by_eval(["-m", "AP", "-m", "nDCG@10"], heavy) == []


def test_report_help_lists_the_sections_without_loading_the_report():
    """``irmeta report --help`` prints ``--skip``'s sections from the one list
    (``irmeta.report.section_names.SECTIONS``, issue 42 item 2) without importing pandas,
    matplotlib or the report's modules (``irmeta.report`` imports its names lazily)."""
    code = (
        "import sys\n"
        "from irmeta.cli.main import main\n"
        "sys.argv = ['irmeta', 'report', '--help']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('numpy', 'pandas', 'matplotlib', 'irmeta.report.options',"
        " 'irmeta.report.analysis', 'irmeta.report.assemble')\n"
        "sys.stderr.write('LOADED ' + repr([m for m in heavy if m in sys.modules]))\n"
    )
    done = python_output(code)
    assert "LOADED []" in done.stderr, done.stderr[-500:]
    assert "appendix" in done.stdout and "--skip" in done.stdout
