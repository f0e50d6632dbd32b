"""How much of a campaign fits in memory, and how many topics a shard holds.

The memory model (measured, ``benchmarks/RESULTS-shards.md``): evaluating a campaign in
memory costs about :data:`BYTES_PER_ROW` bytes per run line (the parsed rows, the dense
``runs x topics x depth`` arrays and the kernels' temporaries). The number of run lines
is estimated from the files' sizes without reading them (:func:`estimate_rows`); when
``rows * BYTES_PER_ROW`` exceeds the budget, the campaign is evaluated in shards of
``floor(topics * budget / estimate)`` topics.

The default budget is :data:`DEFAULT_FRACTION` of the memory available now
(``MemAvailable`` of ``/proc/meminfo``; ``os.sysconf`` where there is no ``/proc``):
psutil is not a dependency for one number.

The plan only needs sizes: it ``stat``s each run file and reads the head of regular
files, never opens a pipe, FIFO or device (opening a FIFO waits for its writer). Such
an input cannot be partitioned: a campaign with one is evaluated in memory, and asking
for shards (``shard_topics``, a Dask client) is an error naming it. A file that cannot
be read is an :class:`~irmeta.errors.InputError` with its path and the reason, as the
reader would give it.
"""

from __future__ import annotations

import gzip
import os
import stat
import zlib
from dataclasses import dataclass

from irmeta.errors import InputError
from irmeta.io.source import input_kind, os_error
from irmeta.options import parse_size  # noqa: F401  (re-exported: it was defined here)

#: bytes of peak memory per run line of an in-memory evaluation (AP, nDCG@10, NRG@100,
#: AP_rare@100, Twist on 10 runs x 4,000 topics x 1,000: 4.0 GB / 40 M lines; 85 without
#: the context measures)
BYTES_PER_ROW = 100
#: fraction of the available memory used when no budget is given
DEFAULT_FRACTION = 0.5
#: bytes per line assumed for a compressed file whose head cannot be sampled
_LINE_BYTES = 50


def available_memory() -> int:
    """Bytes of memory available to a new allocation now (``MemAvailable``)."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 4 << 30


def default_budget() -> int:
    """:data:`DEFAULT_FRACTION` of :func:`available_memory`."""
    return int(available_memory() * DEFAULT_FRACTION)


def _head_line_bytes(path: str, compressed: bool) -> float | None:
    """Mean length of the first lines of a file (decompressed for gzip)."""
    try:
        opener = gzip.open if compressed else open
        with opener(path, "rb") as fh:
            head = fh.read(1 << 16)
    except (OSError, EOFError, zlib.error):
        return None
    lines = head.count(b"\n")
    return len(head) / lines if lines else None


#: the shortest plausible run line (``1 Q0 d 1 1 r``): bytes / this bounds the line count
_MIN_LINE_BYTES = 12


def _raw_size(path) -> tuple[int, str] | None:
    """(uncompressed size estimate, codec) of a regular file; None for anything else
    (a pipe or device is never opened: :func:`unsized_inputs`). A regular file that
    cannot be read is an :class:`InputError` naming it."""
    try:
        info = os.stat(path)
    except (OSError, TypeError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    size = info.st_size
    try:
        with open(path, "rb") as fh:
            magic = fh.read(6)
            if magic[:2] == b"\x1f\x8b":
                fh.seek(max(0, size - 4))
                isize = int.from_bytes(fh.read(4), "little")
                return (isize if isize >= size else size * 5), "gzip"  # ISIZE: mod 2^32
    except OSError as exc:
        raise os_error(exc, os.fspath(path)) from None
    if magic[:3] == b"BZh" or magic[:6] == b"\xfd7zXZ\x00" or magic[:4] == b"\x28\xb5\x2f\xfd":
        return size * 5, "other"
    return size, "plain"


def unsized_inputs(paths) -> list[tuple[str, str]]:
    """``(path, kind)`` of the inputs that are not files: standard input (``-``), pipes,
    FIFOs, devices. They are read once, in order, and their size is unknown until then,
    so they cannot be partitioned into shards. ``stat`` only: nothing is opened."""
    found = []
    for path in paths:
        name = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
        if name == "-":
            found.append((name, "standard input"))
        elif isinstance(name, str) and (kind := input_kind(name)) is not None:
            found.append((name, kind))
    return found


def refuse_unsized(paths) -> None:
    """Raise :class:`InputError` for the first input :func:`unsized_inputs` finds."""
    for name, kind in unsized_inputs(paths):
        what = kind if kind == "standard input" else f"a {kind}"
        raise InputError(f"{what} cannot be partitioned into shards (its size is "
                         "unknown until it is read, once)", path=name,
                         expected="a regular file, or no shard options (--shard-topics, "
                                  "--workers, --scheduler): a pipe is evaluated in memory")


def estimate_rows(paths, upper_bound: bool = False) -> int | None:
    """Estimated number of lines of the files ``paths`` from their sizes (None when one is
    not a regular file: a pipe cannot be measured without reading it). ``upper_bound``:
    sizes divided by the shortest plausible line, without reading any file's head."""
    total = 0.0
    for path in paths:
        got = _raw_size(path)
        if got is None:
            return None
        raw, codec = got
        if upper_bound:
            per_line: float = _MIN_LINE_BYTES
        elif codec == "other":
            per_line = _LINE_BYTES
        else:
            per_line = _head_line_bytes(path, codec == "gzip") or _LINE_BYTES
        total += raw / per_line
    return int(total)


@dataclass(frozen=True)
class ShardPlan:
    """``shard_topics`` topics per shard (None: the campaign fits, evaluate in memory)."""

    budget: int
    estimated_bytes: int | None
    shard_topics: int | None

    @property
    def sharded(self) -> bool:
        return self.shard_topics is not None


def plan(run_paths, budget: int | None = None, shard_topics: int | None = None,
         force: bool = False) -> ShardPlan:
    """Decide between the in-memory path and shards, from file sizes alone.

    ``shard_topics`` given: shards of that many topics. Else shards when the estimate
    exceeds ``budget`` (default :func:`default_budget`) or ``force`` (a Dask client or a
    Parquet campaign); their size is set by :func:`topics_per_shard` once the number of
    topics is known.
    """
    budget = default_budget() if budget is None else budget
    if shard_topics is not None or force:
        refuse_unsized(run_paths)
    if shard_topics is None and not force:
        bound = estimate_rows(run_paths, upper_bound=True)  # no file read: the usual case
        if bound is not None and bound * BYTES_PER_ROW <= budget:
            return ShardPlan(budget, None, None)
    rows = estimate_rows(run_paths)
    need = None if rows is None else rows * BYTES_PER_ROW
    if shard_topics is not None:
        return ShardPlan(budget, need, shard_topics)
    if force or (need is not None and need > budget):
        return ShardPlan(budget, need, 0)   # 0: size decided by topics_per_shard
    return ShardPlan(budget, need, None)


def topics_per_shard(plan: ShardPlan, num_topics: int, workers: int = 1) -> int:
    """Topics per shard: the plan's own, or the most that keep a shard within the budget
    (divided among ``workers`` processes evaluating shards at once), at least 1 and at
    most ``ceil(num_topics / (2 * workers))`` when several workers share the work."""
    if plan.shard_topics:
        return max(1, plan.shard_topics)
    num_topics = max(1, num_topics)
    per_worker = plan.budget / max(1, workers)
    if plan.estimated_bytes:
        size = int(num_topics * per_worker / plan.estimated_bytes)
    else:
        size = num_topics
    if workers > 1:
        size = min(size, -(-num_topics // (2 * workers)))
    return max(1, min(num_topics, size))


# ------------------------------------------------------------- in memory or in shards
#: the file that makes a folder a Parquet campaign (:mod:`irmeta.shards.parquet`)
MANIFEST = "manifest.json"


def is_parquet_campaign(path) -> bool:
    """True when ``path`` is a folder holding a Parquet campaign's manifest."""
    try:
        return os.path.isdir(path) and os.path.isfile(os.path.join(path, MANIFEST))
    except (TypeError, ValueError):
        return False
