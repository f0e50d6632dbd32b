"""The partitioning pass: TREC files to a topic-blocked Parquet campaign.

Run files are rarely sorted by topic the way the campaign sorts them, so a shard's rows
are spread over every file. One streaming pass puts them in place:

1. the qrels are read (they are small) and fix the campaign's topics — sorted as
   :mod:`irmeta.data.campaign` sorts them — and their blocks of ``block_topics``
   consecutive topics;
2. each run file is read **alone**, by the same reader as an in-memory evaluation
   (:func:`irmeta.io.trec.read_run`: same checks, same ``file:line`` messages), its rows
   grouped by block (a stable sort: file order is kept inside a block) and written as
   one Parquet file with one row group per block, with each row's file line; the file's
   memory is freed before the next one is read. The files are independent, so on Dask
   each one is a task (:func:`convert_run_file` takes and returns plain data);
3. run names are resolved over all files (tags; file names when tags collide;
   ``names=``) and the manifest is written last.

Peak memory is that of reading the two largest run files (two are read at a time; each
needs about twice its size, see :data:`irmeta.io.trec.READ_FACTOR`), whatever the number
of runs and topics. Spill
files are compressed Parquet (about a fifth of the text's size on synthetic runs).
"""

from __future__ import annotations

import dataclasses
import errno
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeta.data.lines import LineMap, row_lines
from irmeta.data.tables import arrow_array, arrow_ints
from irmeta.data.threads import map_threads
from irmeta.errors import CampaignError, InputError, ParameterError
from irmeta.io import trec
from irmeta.io.load import load_qrels
from irmeta.io.output import (
    atomic_path,
    check_folder_target,
    output_error,
    remove_tree,
    write_errors,
)
from irmeta.shards.parquet import (
    MANIFEST,
    QRELS_SCHEMA,
    RUN_SCHEMA,
    SPILL_SUFFIX,
    ParquetCampaign,
    RunEntry,
    write_manifest,
)


def file_lines(lines: LineMap | None, n: int, exact: bool = True) -> tuple[np.ndarray, bool]:
    """int64 [n]: the 1-based file line of every row (vectorised :meth:`LineMap.line`),
    and whether it is exact. When the reader's map is lazy (Arrow's fast path skipped
    only blank lines, found by re-reading the file) and ``exact`` is False, the data
    row + 1 is returned instead, and the file is re-read only if an error needs a line
    (:func:`irmeta.shards.parquet.line_map`)."""
    if lines is None:
        return np.arange(1, n + 1, dtype=np.int64), True
    rows = np.arange(n, dtype=np.int64) if lines.rows is None else lines.rows.astype(np.int64)
    if lines.runs is None and not exact:
        return rows + 1, False
    return row_lines(lines.skipped_runs(), rows), True


def campaign_topics(topic_ids: np.ndarray, topic_codes: np.ndarray) -> tuple[str, ...]:
    """The qrels topics in campaign order (:func:`irmeta.data.campaign._topics_of`)."""
    present = np.unique(topic_codes)
    return tuple(sorted(str(t) for t in topic_ids[present]))


def make_blocks(num_topics: int, block_topics: int) -> tuple[tuple[int, int], ...]:
    """Consecutive topic ranges of ``block_topics`` topics."""
    step = max(1, int(block_topics))
    return tuple((t0, min(num_topics, t0 + step)) for t0 in range(0, num_topics, step))


def _write_blocks(path: str, schema: pa.Schema, columns: dict, block_of_row: np.ndarray,
                  num_blocks: int, compression: str = "zstd") -> list[int]:
    """Write the rows grouped by block, one row group per non-empty block; returns the
    row group of each block (-1: empty)."""
    sizes = np.bincount(block_of_row, minlength=num_blocks)
    if np.all(block_of_row[1:] >= block_of_row[:-1]):  # already in block order
        ordered = pa.table(columns, schema=schema)
    else:
        order = arrow_ints(np.argsort(block_of_row, kind="stable"))
        ordered = pa.table({name: col.take(order) for name, col in columns.items()},
                           schema=schema)
    groups, group, start = [], 0, 0
    spill = path.endswith(SPILL_SUFFIX)
    import pyarrow.parquet as pq  # on use: evaluating text files never writes Parquet
    with atomic_path(path) as tmp, \
            (pa.ipc.new_file(tmp, schema) if spill else
             pq.ParquetWriter(tmp, schema, compression=compression,
                              use_dictionary=["topic"], write_statistics=False,
                              write_page_checksum=True)) as writer:  # a damaged page is found
        for k in range(num_blocks):
            n = int(sizes[k])
            if n == 0:
                groups.append(-1)
                continue
            part = ordered.slice(start, n)
            if spill:
                writer.write_batch(part.combine_chunks().to_batches()[0])
            else:
                writer.write_table(part, row_group_size=max(n, 1))
            groups.append(group)
            group += 1
            start += n
    return groups


def _block_of_rows(topic_ids: np.ndarray, topic_codes: np.ndarray, index: dict,
                   blocks: Sequence[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(block of each row, -1 for topics outside the qrels; topic index of each id)."""
    starts = np.asarray([b[0] for b in blocks], dtype=np.int64)
    tix = np.asarray([index.get(str(t), -1) for t in topic_ids], dtype=np.int64)
    block_of_id = np.where(tix >= 0, np.searchsorted(starts, tix, side="right") - 1, -1)
    return block_of_id[topic_codes], tix


@dataclass(frozen=True)
class RunFileTask:
    """Convert one run file (plain data: a Dask task ships it to a worker)."""

    path: str
    out_dir: str
    first_index: int          # runs of this file are numbered from here
    topics: tuple[str, ...]
    blocks: tuple[tuple[int, int], ...]
    float32: bool = False
    split_tags: bool = False
    spill: bool = False       # temporary files: no compression, lazy line numbers


def convert_run_file(task: RunFileTask) -> list[RunEntry]:
    """Read one run file and write its run(s) as Parquet (names: the tags, resolved later)."""
    got = trec.read_run(task.path, float32=task.float32, split_tags=task.split_tags)
    runs = got if isinstance(got, list) else [got]
    index = {t: i for i, t in enumerate(task.topics)}
    entries = []
    for i, run in enumerate(runs):
        block, tix = _block_of_rows(run.topic_ids, run.topic_codes, index, task.blocks)
        keep = np.flatnonzero(block >= 0)
        file = f"runs/{task.first_index + i:05d}" + (SPILL_SUFFIX if task.spill else ".parquet")
        lines, exact = file_lines(run.lines, len(run), exact=not task.spill)
        columns = {"topic": arrow_array(tix[run.topic_codes[keep]].astype(np.int32)),
                   "docid": run.docids.take(arrow_ints(keep)),
                   "score": arrow_array(run.scores[keep]),
                   "line": arrow_array(lines[keep])}
        if pa.types.is_large_binary(columns["docid"].type):
            columns["docid"] = columns["docid"].cast(pa.binary())
        groups = _write_blocks(os.path.join(task.out_dir, file), RUN_SCHEMA, columns,
                               block[keep], len(task.blocks))
        entries.append(RunEntry(run.name, file, run.source, run.tag, int(np.sum(tix < 0)),
                                tuple(groups), exact))
        del columns
    return entries


def _resolve_names(entries: list[RunEntry], from_file: bool, names) -> list[RunEntry]:
    """The campaign's run names: tags; every run named by its file name when tags
    collide (:func:`irmeta.io.load.load_runs`); explicit ``names`` win."""
    current = [e.name for e in entries]
    if len(set(current)) != len(current) and from_file:
        current = [trec.run_name_from_path(e.source) if e.source else e.name for e in entries]
        if len(set(current)) != len(current):
            dupes = sorted({n for n in current if current.count(n) > 1})
            raise CampaignError("run names collide even after naming runs by file name: "
                                f"{', '.join(dupes)}; pass names explicitly "
                                "(names=... / --names)")
    if names is not None:
        from irmeta.io.load import _check_names  # the one check of explicit names
        names = _check_names(names)
        if len(names) != len(entries):
            raise CampaignError(f"{len(names)} names given for {len(entries)} runs")
        current = list(names)
    return [RunEntry(n, e.file, e.source, e.tag, e.dropped, e.row_groups, e.exact_lines)
            for n, e in zip(current, entries)]


def convert(qrels, runs: Sequence, out_dir, *, block_topics: int | Callable = 100, names=None,
            float32: bool = False, split_tags: bool = False, spill: bool = False,
            mapper: Callable | None = None) -> ParquetCampaign:
    """Write the campaign of ``qrels`` and the run files ``runs`` as a Parquet campaign
    in ``out_dir`` (created; it must be empty or absent, and its parent folder must
    exist) and return its manifest. All or nothing: the campaign is written into a hidden
    folder next to ``out_dir`` (inside it, when it is an empty folder) and renamed into
    place once complete; an error or Ctrl-C deletes it. A folder that cannot be written
    is an :class:`~irmeta.errors.OutputError` naming it and the reason.

    ``block_topics``: topics per block (row group), or a function of the number of
    topics giving it; shards read whole blocks, so a block is the finest shard that
    reads no row twice. ``mapper(fn, tasks)``: how the
    per-file conversions run (default: one after another in this process; Dask maps them
    over workers). Bad lines stop the pass with the reader's ``file:line`` message.
    ``spill``: files for one evaluation (Arrow IPC, no encoding; a line number that needs a re-read
    of the run file, because the file has blank lines, is found only when an error asks
    for it); ``irmeta convert`` writes compressed files with exact line numbers.
    """
    if not callable(block_topics) and (isinstance(block_topics, bool)
                                       or not isinstance(block_topics, int) or block_topics < 1):
        raise ParameterError(f"convert: block_topics must be an integer >= 1, got {block_topics!r}")
    paths = [os.fspath(p) for p in runs]
    if not paths:
        raise CampaignError("a campaign needs at least one run")
    if "-" in paths or (isinstance(qrels, (str, os.PathLike)) and os.fspath(qrels) == "-"):
        raise InputError("standard input ('-') cannot be partitioned into shards",
                         expected="run and qrels files (or a smaller campaign in memory)")
    out = Path(out_dir)
    if spill:  # the caller's own temporary folder, deleted by the caller
        if out.exists() and any(out.iterdir()):
            raise ParameterError(f"convert: the output folder {out} is not empty")
        (out / "runs").mkdir(parents=True, exist_ok=True)
        return _write_campaign(qrels, paths, out, block_topics=block_topics, names=names,
                               float32=float32, split_tags=split_tags, spill=spill,
                               mapper=mapper)
    stage, inside = _stage(out)
    try:
        with write_errors(out):
            (stage / "runs").mkdir()
        done = _write_campaign(qrels, paths, stage, block_topics=block_topics, names=names,
                               float32=float32, split_tags=split_tags, spill=spill,
                               mapper=mapper, target=out)
        _publish(stage, out, inside)
    except BaseException:  # an error, Ctrl-C: nothing is left behind
        remove_tree(stage)
        raise
    return dataclasses.replace(done, path=str(out))


def _stage(out: Path) -> tuple[Path, bool]:
    """The hidden folder a campaign is written into before it is renamed into place:
    next to ``out`` when ``out`` is absent (its parent must exist), inside ``out`` when
    it is an empty folder; ``(folder, inside)``. Every problem is an OutputError naming
    the path and the reason, found before any input is read."""
    check_folder_target(out)
    if out.is_dir():
        if any(out.iterdir()):
            raise ParameterError(f"convert: the output folder {out} is not empty")
        with write_errors(out / MANIFEST):
            return _new_folder(out, ".irmeta-convert-"), True
    parent = out.parent
    if not parent.is_dir():
        raise output_error(out, FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT)))
    with write_errors(out):
        return _new_folder(parent, f".{out.name}."), False


def _new_folder(parent: Path, prefix: str) -> Path:
    """A new hidden folder in ``parent`` with a plain ``mkdir``'s permissions (``0777``
    less the umask: the campaign is renamed into place and shared; ``mkdtemp`` would
    make it private to the user)."""
    for _ in range(100):
        path = parent / f"{prefix}{secrets.token_hex(6)}.tmp"
        try:
            path.mkdir(0o777)
            return path
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "no free temporary folder name")


def _publish(stage: Path, out: Path, inside: bool) -> None:
    """Move a finished campaign into place: one rename, or (``inside`` an empty ``out``)
    its files, the manifest last (a folder without it is no campaign)."""
    with write_errors(out):
        if not inside:
            os.rename(stage, out)
            return
        for item in sorted(stage.iterdir(), key=lambda p: p.name == MANIFEST):
            os.rename(item, out / item.name)
        stage.rmdir()


def _write_campaign(qrels, paths: list, out: Path, *, block_topics, names, float32: bool,
                    split_tags: bool, spill: bool, mapper, target: Path | None = None
                    ) -> ParquetCampaign:
    """The body of :func:`convert`: write the campaign into the folder ``out`` (which
    holds an empty ``runs``); OS errors writing it name ``target`` (default ``out``)."""
    with write_errors(target or out):
        return _write_campaign_files(qrels, paths, out, block_topics=block_topics,
                                     names=names, float32=float32, split_tags=split_tags,
                                     spill=spill, mapper=mapper)


def _write_campaign_files(qrels, paths: list, out: Path, *, block_topics, names,
                          float32: bool, split_tags: bool, spill: bool,
                          mapper) -> ParquetCampaign:
    q = load_qrels(qrels)
    topics = campaign_topics(q.topic_ids, q.topic_codes)
    if not topics:
        raise CampaignError("the qrels hold no judgments")
    blocks = make_blocks(len(topics), block_topics(len(topics)) if callable(block_topics)
                         else block_topics)
    index = {t: i for i, t in enumerate(topics)}
    block, tix = _block_of_rows(q.topic_ids, q.topic_codes, index, blocks)
    qcols = {"topic": arrow_array(tix[q.topic_codes].astype(np.int32)),
             "docid": q.docids if not pa.types.is_large_binary(q.docids.type)
             else q.docids.cast(pa.binary()),
             "grade": arrow_array(q.grades.astype(np.int64)),
             "line": arrow_array(file_lines(q.lines, len(q))[0])}
    qfile = "qrels" + (SPILL_SUFFIX if spill else ".parquet")
    qgroups = _write_blocks(str(out / qfile), QRELS_SCHEMA, qcols, block, len(blocks))
    source = q.source
    del qcols, q
    # runs numbered in file order; split_tags may give several runs per file, so files
    # are numbered by a stride wide enough for any count of tags (tags are few)
    tasks = [RunFileTask(p, str(out), i * 1000 if split_tags else i, topics, blocks,
                         float32, split_tags, spill) for i, p in enumerate(paths)]
    mapped = (mapper or _sequential)(convert_run_file, tasks)
    entries = [e for got in mapped for e in got]
    entries = _resolve_names(entries, not split_tags, names)
    manifest = ParquetCampaign(str(out), topics, blocks, source, tuple(qgroups),
                               tuple(entries), float32, qfile)
    write_manifest(manifest)
    return manifest


def _sequential(fn, tasks):
    """Two files at a time, as :func:`irmeta.io.load.load_runs` reads them (Arrow and
    Parquet release the GIL): the pass holds at most two run files."""
    return map_threads(fn, tasks)
