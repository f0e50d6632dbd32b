"""Shards on a real ``distributed.LocalCluster`` (2 worker processes, 1 thread each).

No mock of Dask: the tasks are pickled to worker processes that read the Parquet
campaign from the file system, as on a cluster. Every test here is slow (starting a
cluster costs seconds): the full suite runs them, the quick loop does not.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.errors import InputError
from irmeta.shards.dask import WORKER_MALLOC, client_map, task_threads, worker_threads
from tests.shards.conftest import write_campaign


@pytest.fixture(scope="module")
def client():
    """irmeta's own LocalCluster (what ``--workers 2`` starts)."""
    pytest.importorskip("distributed")
    from irmeta.shards.dask import connect
    with connect(None, 2) as c:
        yield c


def _worker_setup() -> tuple:
    import dask.config

    from irmeta.data.threads import thread_budget
    return (os.environ.get("OMP_NUM_THREADS"), os.environ.get("MALLOC_MMAP_THRESHOLD_"),
            os.environ.get("MALLOC_TRIM_THRESHOLD_"), thread_budget(2),
            dask.config.get("distributed.worker.profile.enabled"))


@pytest.mark.slow
def test_workers_get_their_share_of_the_cores_and_reuse_their_heap(client):
    """Each of the 2 workers gets cores // 2 threads (one on a 2-core machine: irmeta's
    helper threads off, no oversubscription) and glibc's mmap threshold is raised
    (docs/performance.md, "Threads and Dask workers"); Dask's profiler is off."""
    mmap = WORKER_MALLOC["MALLOC_MMAP_THRESHOLD_"]
    trim = WORKER_MALLOC["MALLOC_TRIM_THRESHOLD_"]
    share = worker_threads(2)
    assert set(client.nthreads().values()) == {task_threads(share)}
    assert set(client.run(_worker_setup).values()) == {
        (str(share), mmap, trim, 1 if share == 1 else 2, False)}


@pytest.mark.slow
def test_one_worker_gets_the_whole_machine_and_the_environment_is_restored():
    """A 1-worker cluster reads on as many threads as one process (issue 27: with Dask's
    OMP_NUM_THREADS=1 it read on one); the nanny's writes into this process's
    os.environ are undone, so a later cluster is not given the last one's values."""
    from irmeta.shards.dask import connect
    before = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "PYTHONHASHSEED", *WORKER_MALLOC)}
    with connect(None, 1) as one:
        (got,) = one.run(_worker_setup).values()
        threads = set(one.nthreads().values())
    assert {k: os.environ.get(k) for k in before} == before
    share = worker_threads(1)
    assert threads == {task_threads(share)}
    assert got[0] == str(share) and got[3] == (1 if share == 1 else 2)
    assert got[4] is False   # Dask's statistical profiler is off (WORKER_CONFIG)


def test_worker_threads_is_the_share_of_the_cores(monkeypatch):
    from irmeta.shards import dask as engine
    monkeypatch.setattr(engine, "_USER_OMP", "")
    assert [worker_threads(n, cores=2) for n in (1, 2, 3, None)] == [2, 1, 1, 1]
    assert [worker_threads(n, cores=8) for n in (1, 2, 3, None)] == [8, 4, 2, 1]
    monkeypatch.setattr(engine, "_USER_OMP", "3")   # the user's OMP_NUM_THREADS caps it
    assert [worker_threads(n, cores=8) for n in (1, 2, 4)] == [3, 3, 2]
    assert [task_threads(n) for n in (1, 2, 3, 8)] == [1, 2, 2, 2]


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*not in the qrels:UserWarning")
def test_a_local_cluster_gives_the_in_memory_values(tmp_path, client):
    qrels, runs = write_campaign(tmp_path, 11)
    measures = ["AP", "nDCG@10", "NRG(prior=best_per_group)@10", "P_rare(alpha=0.5)@10"]
    groups = {"run0": "a", "run1": "a", "run2": "b", "run3": "b"}
    whole = irmeta.evaluate(qrels, runs, measures, groups=groups)
    reference = irmeta.load_campaign(qrels, runs[:2])
    ref_whole = irmeta.evaluate(qrels, runs, measures, groups=groups, reference=reference)
    on_dask = irmeta.evaluate(qrels, runs, measures, groups=groups, client=client,
                              spill_dir=tmp_path, shard_topics=2)
    np.testing.assert_array_equal(whole.values, on_dask.values)
    assert on_dask.campaign.shards == 5
    ref_dask = irmeta.evaluate(qrels, runs, measures, groups=groups, client=client,
                               reference=reference)
    np.testing.assert_array_equal(ref_whole.values, ref_dask.values)
    bad = tmp_path / "bad.txt"
    bad.write_text("t01 Q0 d1 1 1.0 bad\nt01 Q0 d2 2 nan bad\n")
    with pytest.raises(InputError) as error:
        irmeta.evaluate(qrels, [*runs, str(bad)], ["AP"], client=client)
    assert "bad.txt:2" in str(error.value)


@pytest.mark.slow
@pytest.mark.shared_data
def test_dl21_on_a_local_cluster(dl21, client, tmp_path):
    qrels, runs = dl21
    runs = [str(p) for p in runs]
    measures = ["AP", "nDCG@10", "NRG@10", "AP_rare(alpha=1)@100", "Twist@1000"]
    with pytest.warns(UserWarning, match="not in the qrels"):
        whole = irmeta.evaluate(qrels, runs, measures)
    with pytest.warns(UserWarning, match="not in the qrels"):
        on_dask = irmeta.evaluate(qrels, runs, measures, client=client, shard_topics=9)
    np.testing.assert_array_equal(whole.values, on_dask.values)


def _die_once(task):
    """Kill the worker process the first time task 1 runs (a crash, not an exception)."""
    marker, k = task
    if k == 1 and not Path(marker).exists():
        Path(marker).write_text("died here once")
        os._exit(1)
    return k * 10


@pytest.mark.slow
def test_a_worker_that_dies_is_replaced_and_the_result_is_complete(tmp_path, client):
    run = client_map(client)
    tasks = [(str(tmp_path / "marker"), k) for k in range(4)]
    assert run(_die_once, tasks, progress=False) == [0, 10, 20, 30]
    assert (tmp_path / "marker").exists()


@pytest.mark.slow
def test_the_report_and_explain_on_a_local_cluster(tmp_path, client):
    """The report's per-shard hook and explain's rows, pickled to worker processes and
    back: the analysis and the frames of the campaign in memory."""
    from irmeta.report import ReportOptions, analyse_campaign
    from tests.shards.test_report_explain import GROUPS, QUICK, assert_same

    qrels, runs = write_campaign(tmp_path, 33, n_runs=5, n_topics=10)
    whole = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    opts = ReportOptions(**QUICK, gain="bpref")
    expected = analyse_campaign(whole, opts, groups=GROUPS)
    with irmeta.open_shards(qrels, runs, client=client, spill_dir=tmp_path,
                            shard_topics=3) as sharded:
        assert_same(expected, analyse_campaign(sharded, opts, groups=GROUPS))
        for frame, same in [
                (irmeta.explain_documents(sharded, "run1", k=10, groups=GROUPS,
                                          nrg="NRG(prior=best_per_group)@10"),
                 irmeta.explain_documents(whole, "run1", k=10, groups=GROUPS,
                                          nrg="NRG(prior=best_per_group)@10")),
                (irmeta.unique_contributions(sharded, 10, per_topic=True),
                 irmeta.unique_contributions(whole, 10, per_topic=True))]:
            pd.testing.assert_frame_equal(frame, same, check_exact=True)
