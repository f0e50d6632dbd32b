"""The Parquet campaign: runs and qrels as topic-blocked Parquet files.

A folder written by :func:`irmeta.shards.partition.convert` (``irmeta convert``, or the
spill files of a streaming evaluation)::

    DIR/manifest.json        format, topics (campaign order), blocks, runs, options
    DIR/qrels.parquet        topic, docid, grade, line
    DIR/runs/NNNNN.parquet   topic, docid, score, line       (one file per run)

``topics`` are the qrels topics sorted as the campaign sorts them, and a row's ``topic``
is its index in that list (int32: no string work when a shard is read); ``blocks`` cut
them into consecutive ranges ``[t0, t1)``, and every file holds **one row group per non-
empty block** (``row_groups[k]`` in the manifest, -1 when the block is empty), rows in
file order inside a block. The spill folder of a streaming evaluation has the same
layout with Arrow IPC files (``.arrow``, one record batch per block): they cost no
encoding to write and are memory-mapped to read. Reading the topics ``[t0, t1)`` of a
shard opens only the row groups of the blocks that overlap it. ``line`` is the row's
line in the original file, so an error found when a shard is built (a document twice in
a topic) names the same file and line as an in-memory evaluation. Documents are kept as
bytes (``binary``), never decoded. Run names are resolved (tags, file names, ``names=``)
before writing, so the manifest's names are the campaign's.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from irmeta.data.campaign import Campaign, build_campaign
from irmeta.data.lines import LineMap
from irmeta.data.tables import Qrels, Run, arrow_array, column_numpy
from irmeta.errors import CampaignError, InputError, ParameterError
from irmeta.io.output import atomic_write
from irmeta.io.trec import binary_column
from irmeta.options import ReadOptions

FORMAT = "irmeta-parquet-campaign"
VERSION = 1
MANIFEST = "manifest.json"
#: spill files of one evaluation are Arrow IPC files (``.arrow``: written and mapped back
#: with no encoding); ``irmeta convert`` writes Parquet
SPILL_SUFFIX = ".arrow"
RUN_SCHEMA = pa.schema([("topic", pa.int32()), ("docid", pa.binary()),
                        ("score", pa.float64()), ("line", pa.int64())])
QRELS_SCHEMA = pa.schema([("topic", pa.int32()), ("docid", pa.binary()),
                          ("grade", pa.int64()), ("line", pa.int64())])


@dataclass(frozen=True)
class RunEntry:
    """One run of a Parquet campaign: its name, file, origin and row groups per block."""

    name: str
    file: str
    source: str | None
    tag: str | None
    dropped: int                 # topics of the run absent from the qrels
    row_groups: tuple[int, ...]  # per block: row group index, -1 when empty
    exact_lines: bool = True     # False: ``line`` is the data row + 1 (see line_map)


@dataclass(frozen=True)
class ParquetCampaign:
    """The manifest of a Parquet campaign folder (see module doc)."""

    path: str
    topics: tuple[str, ...]
    blocks: tuple[tuple[int, int], ...]
    qrels_source: str | None
    qrels_groups: tuple[int, ...]
    runs: tuple[RunEntry, ...]
    float32: bool = False
    qrels_file: str = "qrels.parquet"

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.runs)

    def blocks_of(self, t0: int, t1: int) -> list[int]:
        """Indices of the blocks that overlap topics ``[t0, t1)``."""
        return [k for k, (b0, b1) in enumerate(self.blocks) if b0 < t1 and b1 > t0]

    def to_json(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "topics": list(self.topics),
                "blocks": [list(b) for b in self.blocks], "float32": self.float32,
                "qrels": {"file": self.qrels_file, "source": self.qrels_source,
                          "row_groups": list(self.qrels_groups)},
                "runs": [{"name": r.name, "file": r.file, "source": r.source, "tag": r.tag,
                          "dropped": r.dropped, "row_groups": list(r.row_groups),
                          "exact_lines": r.exact_lines}
                         for r in self.runs]}


def is_parquet_campaign(path) -> bool:
    """True when ``path`` is a folder holding a Parquet campaign's manifest."""
    try:
        return os.path.isdir(path) and os.path.isfile(os.path.join(path, MANIFEST))
    except (TypeError, ValueError):
        return False


def open_campaign(path) -> ParquetCampaign:
    """Read the manifest of the Parquet campaign at ``path``."""
    file = Path(path) / MANIFEST
    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the manifest of a Parquet campaign ({exc})",
                         path=str(file), expected="a folder written by irmeta convert") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError("not an irmeta Parquet campaign manifest", path=str(file),
                         expected=f"format {FORMAT!r} (written by irmeta convert)")
    if data.get("version") != VERSION:
        raise InputError(f"Parquet campaign version {data.get('version')!r}", path=str(file),
                         expected=f"version {VERSION}")
    runs = tuple(RunEntry(r["name"], r["file"], r.get("source"), r.get("tag"),
                          int(r.get("dropped", 0)), tuple(r["row_groups"]),
                          bool(r.get("exact_lines", True)))
                 for r in data["runs"])
    return ParquetCampaign(str(path), tuple(data["topics"]),
                           tuple(tuple(b) for b in data["blocks"]),
                           data["qrels"].get("source"), tuple(data["qrels"]["row_groups"]),
                           runs, bool(data.get("float32", False)),
                           str(data["qrels"].get("file", "qrels.parquet")))


def write_manifest(campaign: ParquetCampaign) -> None:
    """Write ``manifest.json`` last: a folder without it is not a campaign."""
    with atomic_write(Path(campaign.path) / MANIFEST) as fh:   # a unique temporary name
        fh.write(json.dumps(campaign.to_json(), indent=1) + "\n")


# ------------------------------------------------------------------ reading a shard
def _read_rows(path: str, groups: list[int], t0: int, t1: int,
               columns: list[str]) -> pa.Table:
    """Rows of ``path`` in row groups ``groups`` whose topic index is in ``[t0, t1)``."""
    groups = [g for g in groups if g >= 0]
    schema = RUN_SCHEMA if "score" in columns else QRELS_SCHEMA
    if not groups:
        return schema.empty_table()
    if path.endswith(SPILL_SUFFIX):  # Arrow IPC: one record batch per block, mapped
        reader = pa.ipc.open_file(pa.memory_map(path))
        table = pa.Table.from_batches([reader.get_batch(g) for g in groups], schema=schema)
    else:
        table = pq.ParquetFile(path).read_row_groups(groups, columns=columns)
    tix = column_numpy(table.column("topic"))
    keep = (tix >= t0) & (tix < t1)
    if not keep.all():
        table = table.filter(arrow_array(keep))
    return table


def _codes(table: pa.Table, campaign: "ParquetCampaign", t0: int,
           t1: int) -> tuple[np.ndarray, np.ndarray]:
    """(topic ids, int32 codes) of a shard's rows: the shard's topics, and each row's
    topic index relative to ``t0``."""
    ids = np.empty(t1 - t0, dtype=object)
    ids[:] = campaign.topics[t0:t1]
    tix = column_numpy(table.column("topic"))
    return ids, (np.asarray(tix, dtype=np.int32) - np.int32(t0))


def _lines(table: pa.Table, source: str | None = None, exact: bool = True) -> LineMap:
    """Row -> original file line: stored per row, or (``exact`` False) the data row,
    mapped to its line by re-reading ``source`` for blank lines when an error asks."""
    line = column_numpy(table.column("line"))
    rows = np.asarray(line, np.int64) - 1
    if exact or source is None:
        return LineMap(np.zeros(0, np.int64), rows)
    return LineMap(None, rows, partial(_blank_lines_of, source))


def _blank_lines_of(path: str) -> np.ndarray:
    """The blank lines of a run file, as the reader's lazy line map finds them."""
    from irmeta.io.source import open_source
    from irmeta.io.trec import _blank_lines  # the reader's own scan
    try:
        return _blank_lines(open_source(path))
    except (OSError, InputError):
        return np.zeros(0, np.int64)  # the file is gone: data rows are the best we know


def read_qrels_shard(campaign: ParquetCampaign, t0: int, t1: int) -> Qrels:
    """The qrels rows of topics ``[t0, t1)``."""
    groups = [campaign.qrels_groups[k] for k in campaign.blocks_of(t0, t1)]
    table = _read_rows(os.path.join(campaign.path, campaign.qrels_file), groups, t0, t1,
                       list(QRELS_SCHEMA.names))
    ids, codes = _codes(table, campaign, t0, t1)
    return Qrels(ids, codes, binary_column(table.column("docid")),
                 column_numpy(table.column("grade")).astype(np.int64),
                 source=campaign.qrels_source, lines=_lines(table))


def read_run_shard(campaign: ParquetCampaign, run: RunEntry, t0: int, t1: int) -> Run:
    """The rows of ``run`` on topics ``[t0, t1)``, in file order within each topic."""
    groups = [run.row_groups[k] for k in campaign.blocks_of(t0, t1)]
    table = _read_rows(os.path.join(campaign.path, run.file), groups, t0, t1,
                       list(RUN_SCHEMA.names))
    ids, codes = _codes(table, campaign, t0, t1)
    scores = column_numpy(table.column("score"))
    return Run(run.name, ids, codes, binary_column(table.column("docid")),
               np.asarray(scores, dtype=np.float64), source=run.source, tag=run.tag,
               lines=_lines(table, run.source, run.exact_lines))


def build_shard(campaign: ParquetCampaign, t0: int, t1: int,
                read: ReadOptions | None = None) -> Campaign:
    """The in-memory :class:`Campaign` of topics ``[t0, t1)``: every run, those topics,
    read with ``read`` (:class:`~irmeta.options.ReadOptions`: ``max_docs``, ``dedupe``,
    ``float32`` and ``names`` applied as the text reader applies them; see
    :func:`apply_read_options` for the checks done once by the driver).

    A run without any row there is kept (all its rankings empty), so every shard has
    the same runs in the same order."""
    read = read or ReadOptions()
    qrels = read_qrels_shard(campaign, t0, t1)
    runs = [read_run_shard(campaign, r, t0, t1) for r in campaign.runs]
    if read.float32 and not campaign.float32:   # as trec.read_run(float32=True) rounds
        for run in runs:
            run.scores = run.scores.astype(np.float32).astype(np.float64)
    if read.names is not None:
        runs = [run.renamed(name) for run, name in zip(runs, read.names)]
    return build_campaign(qrels, runs, max_docs=read.max_docs, dedupe=read.dedupe,
                          warn_dropped=False)


def apply_read_options(campaign: ParquetCampaign, read: ReadOptions) -> ParquetCampaign:
    """The Parquet campaign as ``read`` sees it, checked once before any shard is read:
    ``names`` rename the runs (one name per run, else a
    :class:`~irmeta.errors.CampaignError` naming the folder); ``split_tags`` is refused
    (the runs were split, or not, when the folder was written: ``irmeta convert
    --split-tags``). ``max_docs``, ``dedupe`` and ``float32`` apply when a shard is built
    (:func:`build_shard`)."""
    if read.split_tags:
        raise ParameterError(f"split_tags applies when run files are read; the runs of the "
                             f"Parquet campaign {campaign.path} were split (or not) when it "
                             "was written (irmeta convert --split-tags)")
    if read.names is None:
        return campaign
    if len(read.names) != len(campaign.runs):
        raise CampaignError(f"{len(read.names)} names given for {len(campaign.runs)} runs "
                            f"(Parquet campaign {campaign.path})")
    return replace(campaign, runs=tuple(replace(r, name=n)
                                        for r, n in zip(campaign.runs, read.names)))


def read_judgments(campaign: ParquetCampaign) -> tuple[np.ndarray, np.ndarray]:
    """(topic index int32, grade int64) of every qrels row: what a campaign summary keeps."""
    path = os.path.join(campaign.path, campaign.qrels_file)
    if path.endswith(SPILL_SUFFIX):
        with pa.memory_map(path) as source:
            table = pa.ipc.open_file(source).read_all().select(["topic", "grade"])
    else:
        table = pq.read_table(path, columns=["topic", "grade"])
    tix = column_numpy(table.column("topic"))
    return np.asarray(tix, dtype=np.int32), column_numpy(table.column("grade")).astype(np.int64)


def _block_columns(path: str, group: int, columns: list[str]) -> pa.Table:
    """Some columns of one block (row group / record batch) of a run file."""
    if path.endswith(SPILL_SUFFIX):
        batch = pa.ipc.open_file(pa.memory_map(path)).get_batch(group)
        return pa.Table.from_batches([batch]).select(columns)
    return pq.ParquetFile(path).read_row_group(group, columns=columns)


def ranking_lengths(campaign: ParquetCampaign, *, max_docs: int | None = None,
                    dedupe: bool = False) -> np.ndarray:
    """int32 ``[R, T]``: the ranking lengths ``Campaign.length`` of the whole campaign,
    from the ``topic`` column alone (and ``docid`` with ``dedupe``: distinct documents),
    one block at a time: no campaign is built. ``min(rows of (run, topic), max_docs)``,
    exactly what :func:`~irmeta.data.campaign.build_campaign` keeps (without ``dedupe``
    a repeated document is an error there, which the shards report when they are
    built). What the report needs before any shard is evaluated: the runs' depth sets
    the cut-offs of its measures (``R@depth``, ``Twist@depth``)."""
    T = len(campaign.topics)
    out = np.zeros((len(campaign.runs), T), dtype=np.int64)
    columns = ["topic", "docid"] if dedupe else ["topic"]
    for r, run in enumerate(campaign.runs):
        path = os.path.join(campaign.path, run.file)
        for group in run.row_groups:
            if group < 0:
                continue
            table = _block_columns(path, group, columns)
            if dedupe:   # one row per distinct (topic, document)
                table = table.group_by(columns, use_threads=False).aggregate([])
            tix = np.asarray(column_numpy(table.column("topic")), dtype=np.int64)
            out[r] += np.bincount(tix, minlength=T)
    if max_docs is not None:
        np.minimum(out, max_docs, out=out)
    return out.astype(np.int32)
