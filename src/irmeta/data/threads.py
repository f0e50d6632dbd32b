"""irmeta's own helper threads, and when it uses none.

A few steps run on two threads (reading run files: up to four), because NumPy and Arrow
release the GIL for most of their work: fingerprints, the duplicate check, preparing the
runs of a campaign, reading and partitioning run files. Values never depend on the split.

A process whose CPU budget is one thread does these steps one after another. The budget
is Arrow's CPU pool, ``pyarrow.cpu_count()``, which follows ``OMP_NUM_THREADS``: Dask's
nanny sets it to 1 in every worker, and the ``LocalCluster`` irmeta starts sets it to the
worker's share of the cores (``irmeta.shards.dask.worker_threads``), so a cluster of
one-thread workers, one per core, is not oversubscribed by irmeta's helpers (measured
in ``benchmarks/RESULTS-shards.md``: two workers on two cores then run side by side at
full speed), one worker alone on two cores uses both as one process does, and a user
who sets ``OMP_NUM_THREADS=1`` gets one thread of irmeta's too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from concurrent.futures import Future

T = TypeVar("T")
U = TypeVar("U")


def thread_budget(wanted: int) -> int:
    """``wanted`` helper threads, or 1 when the process's CPU budget is one thread."""
    import pyarrow as pa

    return 1 if pa.cpu_count() <= 1 else max(1, int(wanted))


def map_threads(fn: Callable[[T], U], items: Sequence[T], wanted: int = 2) -> list[U]:
    """``[fn(x) for x in items]`` in order, on up to ``thread_budget(wanted)`` threads;
    the first exception (in item order) is raised."""
    threads = min(thread_budget(wanted), len(items))
    if threads < 2:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=threads) as pool:
        return list(pool.map(fn, items))


def background(fn: Callable[..., U], *args: object, threaded: bool = True) -> "Future[U]":
    """``fn(*args)`` started on a helper thread, to be collected with ``.result()``; run
    at once in the calling thread when the process's CPU budget is one thread or
    ``threaded`` is False (work too small for a thread): the result, or its exception,
    is then waiting in the returned future."""
    from concurrent.futures import Future, ThreadPoolExecutor
    if not threaded or thread_budget(2) < 2:
        done: Future[U] = Future()
        try:
            done.set_result(fn(*args))
        except Exception as exc:  # re-raised by .result(), as a thread's would be
            done.set_exception(exc)
        return done
    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(fn, *args)
    pool.shutdown(wait=False)   # the thread ends with its one task
    return future
