"""Shards as ``dask.distributed`` tasks (the optional extra ``irmeta[dask]``).

Dask is the engine: irmeta has no scheduler of its own. Each shard is one task,
:func:`irmeta.shards.shard.evaluate_shard` applied to a
:class:`~irmeta.shards.shard.ShardTask` (file paths and names, never a campaign); the
partitioning pass maps one task per run file. Tasks read their inputs from storage every
worker sees: the run and qrels files, and the Parquet campaign (a converted one, or the
spill folder, which must then be on shared storage: ``spill_dir=`` / ``--spill-dir``).
The rarity reference campaign, the one object shared by every shard, is scattered once.

A worker that dies is Dask's business: the scheduler re-runs its tasks elsewhere (up to
``distributed.scheduler.allowed-failures`` times), and since a task is a pure function
of files, the gathered values are the same. An :class:`~irmeta.errors.IrmetaError` in a
task (a bad line found while a run file is partitioned) cancels the others and is
raised with the same message as in one process, and nothing else is printed: Dask's own
log messages (a failed task's traceback, a worker's shutdown) are silenced unless
``IRMETA_DASK_LOG`` names a level (``warning``, ``info``, ``debug``). The workers of a
``LocalCluster`` irmeta starts ignore SIGINT: Ctrl-C stops irmeta, which closes them
(before, each worker printed its own ``KeyboardInterrupt`` traceback).
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator

from irmeta.errors import ParameterError, ResourceError

#: environment variable: the level of Dask's own log messages (default: silent)
LOG_VAR = "IRMETA_DASK_LOG"
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR, "critical": logging.CRITICAL}
#: above CRITICAL: nothing of Dask's is printed
QUIET = logging.CRITICAL + 10


def log_level() -> int:
    """The level of Dask's log messages: ``IRMETA_DASK_LOG`` (``debug``, ``info``,
    ``warning``, ``error``, ``critical``), default :data:`QUIET` (none)."""
    text = os.environ.get(LOG_VAR, "").strip().lower()
    if not text:
        return QUIET
    if text not in _LEVELS:
        raise ParameterError(f"{LOG_VAR}={text!r}: expected one of {', '.join(_LEVELS)}")
    return _LEVELS[text]


def _cluster_error(exc: BaseException) -> ResourceError:
    return ResourceError(f"the Dask cluster failed: {type(exc).__name__}: {exc}")


def _distributed():
    try:
        import dask.config  # noqa: F401 (installed with distributed; _local_cluster uses it)
        import distributed
    except ImportError:
        raise ParameterError("Dask is not installed: pip install 'irmeta[dask]' "
                             "(dask[distributed])") from None
    return distributed


def worker_count(client) -> int:
    """Threads of the cluster's workers (tasks that can run at once); ``client`` a
    ``distributed.Client`` (:class:`~irmeta.options.WorkOptions` checks it)."""
    try:
        return max(1, sum(client.nthreads().values()))
    except (OSError, TimeoutError) as exc:   # CommClosedError is an OSError
        raise _cluster_error(exc) from None


def client_map(client) -> Callable:
    """A mapper ``(fn, tasks, progress=None, **shared) -> results in task order`` that
    runs the tasks on ``client``'s cluster, with a progress bar over finished tasks."""
    distributed = _distributed()   # the import, guarded with the extra's name
    KilledWorker = distributed.KilledWorker

    def run(fn, tasks, progress=None, **shared):
        try:
            return _run(fn, tasks, progress, **shared)
        except KilledWorker as exc:
            raise ResourceError(f"a Dask worker died while running a shard, as often as "
                                f"the scheduler allows ({exc}); out of memory? Give the "
                                "workers more memory or use smaller shards "
                                "(--shard-topics)") from None
        except (OSError, TimeoutError) as exc:
            raise _cluster_error(exc) from None

    def _run(fn, tasks, progress=None, **shared):
        from tqdm.auto import tqdm
        shared = {k: client.scatter(v, broadcast=True, hash=False) for k, v in shared.items()}
        futures = client.map(fn, tasks, pure=False, **shared)
        disable = None if progress is None else not progress
        try:
            with tqdm(total=len(futures), desc="shards", unit="shard", disable=disable,
                      leave=False) as bar:
                for future in distributed.as_completed(futures):
                    if future.status == "error":
                        future.result()  # raises the task's own exception
                    bar.update(1)
            return client.gather(futures)
        finally:
            client.cancel(futures)
    return run


# glibc malloc in the workers of a LocalCluster irmeta starts. Dask's nanny sets
# MALLOC_TRIM_THRESHOLD_=65536, and setting any malloc threshold freezes the mmap
# threshold at 128 KiB: every array of a shard then is a fresh mmap whose pages the
# kernel zeroes on first touch (4.1 M page faults and 23 s of system time in 55 CPU-s on
# a 40 M-line campaign). Arrays up to 64 MiB are reused from the heap instead, and free
# heap above 64 MiB still goes back to the system (benchmarks/RESULTS-shards.md).
WORKER_MALLOC = {"MALLOC_TRIM_THRESHOLD_": str(64 << 20), "MALLOC_MMAP_THRESHOLD_": str(64 << 20)}


# Dask settings of the workers of a LocalCluster irmeta starts: no statistical profiler
# (a thread in every worker that walks the task thread's stack every 10 ms, for the
# dashboard's profile page: 0.3-0.7 CPU-s per worker on a 40 M-line campaign, issue 27).
WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity, else ``os.cpu_count()``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):   # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


#: ``OMP_NUM_THREADS`` as the user set it when irmeta started (read at import: Dask's
#: nanny writes its worker environment into this process's ``os.environ`` each time it
#: spawns a worker, so later reads would see the last cluster's value)
_USER_OMP = os.environ.get("OMP_NUM_THREADS", "").strip()


def worker_threads(workers: int | None, cores: int | None = None) -> int:
    """The CPU budget of each worker of a LocalCluster of ``workers`` processes on
    ``cores`` cores (default :func:`machine_cores`): its share of the machine,
    ``cores // workers``, at least 1 (``workers`` None: one worker per core, as
    LocalCluster then starts), capped by a smaller ``OMP_NUM_THREADS`` the user set.

    It is the worker's ``OMP_NUM_THREADS`` (and, up to 2, its task threads:
    :func:`task_threads`), which Arrow's CPU pool and irmeta's helper threads
    (:mod:`irmeta.data.threads`) follow: one worker on two cores reads two run files at
    once and fingerprints on two threads, as one process does (with one task thread
    and Dask's ``OMP_NUM_THREADS=1`` it did all of it one step after another: up to
    twice the one-process wall time, issue 27); two workers on two cores keep one
    thread each (no oversubscription)."""
    cores = machine_cores() if cores is None else max(1, int(cores))
    share = max(1, cores // max(1, workers or cores))
    cap = _USER_OMP
    return min(share, int(cap)) if cap.isdigit() and int(cap) > 0 else share


def task_threads(share: int) -> int:
    """Dask task threads of a worker whose share of the cores is ``share``: at most 2,
    as the one-process path reads two run files at a time and evaluates one shard at a
    time (more would hold that many shards in memory at once; the cores beyond serve
    Arrow's pool and irmeta's helper threads through ``OMP_NUM_THREADS``)."""
    return max(1, min(int(share), 2))


def _local_cluster(distributed, workers: int | None):
    """A LocalCluster of ``workers`` processes, each with :func:`task_threads` task
    threads and ``OMP_NUM_THREADS`` = :func:`worker_threads` (Arrow's pool, irmeta's
    helpers) and :data:`WORKER_MALLOC` in Dask's own worker environment
    (``MKL_NUM_THREADS=1`` and the others stay), and :data:`WORKER_CONFIG`: each
    worker is the one-process path on its share of the cores (two run files read at
    once, as ``map_threads`` reads them, when it has two). Dask lets a variable of this
    process's environment override its configuration, and its nanny writes the worker
    environment (and ``PYTHONHASHSEED``) into this process's ``os.environ``: irmeta's
    values are put there while the workers are spawned, and the previous environment
    is restored after (a worker Dask restarts later writes it again)."""
    _check_open_files(workers)
    config = sys.modules["dask.config"]       # imported (guarded) by _distributed()
    env = dict(config.get("distributed.nanny.pre-spawn-environ", {}))
    threads = worker_threads(workers)
    ours = dict(WORKER_MALLOC, OMP_NUM_THREADS=str(threads))
    env.update(ours)
    keys = set(env) | set(ours) | {"PYTHONHASHSEED"}
    saved = {k: os.environ.get(k) for k in keys}
    try:
        os.environ.update(ours)
        with config.set({"distributed.nanny.pre-spawn-environ": env, **WORKER_CONFIG}), \
                _workers_ignore_sigint():
            return distributed.LocalCluster(n_workers=workers,
                                            threads_per_worker=task_threads(threads),
                                            processes=True, dashboard_address=":0",
                                            silence_logs=log_level())
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


#: open files a LocalCluster needs in this process (and each worker): a base and so
#: many per worker (its nanny's pipes, the comms of scheduler, nanny and worker), with a
#: margin: 2 workers started with 48 and failed with 40, 4 needed 64
OPEN_FILES_BASE = 64
OPEN_FILES_PER_WORKER = 16


def _check_open_files(workers: int | None) -> None:
    """Refuse a LocalCluster the limit on open files (``ulimit -n``) cannot hold: under
    it, Dask's event loop met ``EMFILE`` on every accept and printed its traceback in a
    loop (220,000 in 40 s) and the command hung, or a nanny failed to start."""
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):   # pragma: no cover - not POSIX
        return
    n = workers or machine_cores()
    need = OPEN_FILES_BASE + OPEN_FILES_PER_WORKER * n
    if soft != resource.RLIM_INFINITY and 0 <= soft < need:
        raise ResourceError(f"a Dask LocalCluster of {n} worker(s) needs about {need} open "
                            f"files, the limit is {soft} (ulimit -n): raise the limit or "
                            "give fewer --workers")


@contextlib.contextmanager
def _workers_ignore_sigint():
    """SIGINT ignored while the worker processes are spawned: they inherit it, so Ctrl-C
    (sent to the whole process group) reaches irmeta alone, which closes the cluster."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def _dask_logs_at(level: int) -> Iterator[None]:
    """Dask's loggers in this process at ``level`` inside the block."""
    logger = logging.getLogger("distributed")
    previous = logger.level
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.setLevel(previous)


#: how long the Client tries to reach a scheduler that does not answer (a host that drops
#: the connection); one that refuses it, or a host name that does not resolve, is an
#: error at once (:func:`unreachable`)
CONNECT_TIMEOUT = "30s"
#: seconds :func:`unreachable` waits for a TCP connection
PROBE_TIMEOUT = 5.0
#: connection errors that mean no scheduler can answer, whatever the Client waits
_DEAD_END = {errno.ECONNREFUSED: "connection refused: nothing listens there",
             errno.EHOSTUNREACH: "no route to the host", errno.ENETUNREACH:
             "the network is unreachable"}


def unreachable(address: str) -> str | None:
    """Why no Dask scheduler can answer at ``address`` (``tcp://host:port``, ``host:port``
    or ``tls://...``), found with one TCP connection: refused (nothing listens on that
    port), no route, a host name that does not resolve. None when the connection is made
    or cannot be told so quickly (a timeout, another protocol): the Client then tries
    for :data:`CONNECT_TIMEOUT`. Before, a refused address took the whole 30 s: the
    Client retries a refused connection until its timeout."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme not in ("tcp", "tls"):
        return None
    try:
        from distributed.comm.addressing import parse_host_port
        host, port = parse_host_port(rest, default_port=8786)
    except (ImportError, ValueError, TypeError):
        return None   # the Client says what is wrong with the address
    try:
        with socket.create_connection((host, port), timeout=PROBE_TIMEOUT):
            return None
    except socket.gaierror as exc:
        return f"unknown host {host!r} ({exc.strerror or exc})"
    except OSError as exc:
        reason = _DEAD_END.get(exc.errno or 0)
        return None if reason is None else f"{reason} ({host}:{port})"


@contextlib.contextmanager
def connect(scheduler: str | None = None, workers: int | None = None) -> Iterator:
    """A client of the scheduler at ``scheduler`` (``tcp://host:8786``), or of a new
    ``LocalCluster`` of ``workers`` processes (:func:`worker_threads` threads each),
    closed on exit."""
    distributed = _distributed()
    level = log_level()
    with contextlib.ExitStack() as stack:
        stack.enter_context(_dask_logs_at(level))
        try:
            if scheduler is not None:
                why = unreachable(scheduler)
                if why is not None:
                    raise OSError(why)
                client = stack.enter_context(distributed.Client(scheduler,
                                                                timeout=CONNECT_TIMEOUT))
            else:
                cluster = stack.enter_context(_local_cluster(distributed, workers))
                client = stack.enter_context(distributed.Client(cluster))
        except (OSError, TimeoutError, RuntimeError, ValueError) as exc:
            where = (f"the Dask scheduler at {scheduler}" if scheduler is not None
                     else f"a Dask LocalCluster of {workers} worker(s)")
            raise ResourceError(f"cannot start or reach {where}: {exc}") from None
        yield client
