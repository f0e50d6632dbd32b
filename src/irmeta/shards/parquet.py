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

A folder is untrusted input (people share them): :func:`open_campaign` checks the
manifest's fields, confines its file names to the folder and checks each file's columns
and row groups against it; every row read is checked by the text reader's value rules
(:func:`check_rows`). Each problem is one located :class:`~irmeta.errors.InputError`
(section "validation" below; docs/scaling.md).
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Literal, overload

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeta.data.campaign import Campaign, build_campaign
from irmeta.data.lines import LineMap, no_runs
from irmeta.data.tables import MAX_GRADE, Qrels, Run, arrow_array, column_numpy
from irmeta.errors import CampaignError, InputError, ParameterError
from irmeta.io.output import atomic_write
from irmeta.io.trec import binary_column
from irmeta.options import ReadOptions
from irmeta.shards.plan import MANIFEST

FORMAT = "irmeta-parquet-campaign"
VERSION = 1
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


def open_campaign(path) -> ParquetCampaign:
    """Read the manifest of the Parquet campaign at ``path``, checked as untrusted input
    (:func:`check_manifest`, :func:`check_files`): every field's type and range, paths
    confined to the folder, each file's columns and row groups against the manifest."""
    campaign = check_manifest(load_manifest(path), path)
    check_files(campaign)
    return campaign


def write_manifest(campaign: ParquetCampaign) -> None:
    """Write ``manifest.json`` last: a folder without it is not a campaign."""
    with atomic_write(Path(campaign.path) / MANIFEST) as fh:   # a unique temporary name
        fh.write(json.dumps(campaign.to_json(), indent=1) + "\n")


# ------------------------------------------------------------------ reading a shard
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
        return LineMap(no_runs(), rows)
    return LineMap(None, rows, partial(_blank_lines_of, source))


def _blank_lines_of(path: str) -> np.ndarray:
    """The blank lines of a run file as runs, as the reader's lazy line map finds them."""
    from irmeta.io.source import open_source
    from irmeta.io.trec import _blank_lines  # the reader's own scan
    try:  # a manifest's source is a label: re-read only a regular file (never a FIFO)
        if not stat.S_ISREG(os.stat(path).st_mode):
            return no_runs()
        return _blank_lines(open_source(path))
    except (OSError, InputError):
        return no_runs()  # the file is gone: data rows are the best we know


def read_qrels_shard(campaign: ParquetCampaign, t0: int, t1: int) -> Qrels:
    """The qrels rows of topics ``[t0, t1)``."""
    table = _checked_rows(campaign, campaign.qrels_file, campaign.qrels_groups, t0, t1,
                          list(QRELS_SCHEMA.names))
    check_judged_topics(campaign, column_numpy(table.column("topic")), t0, t1,
                        os.path.join(campaign.path, campaign.qrels_file))
    ids, codes = _codes(table, campaign, t0, t1)
    return Qrels(ids, codes, binary_column(table.column("docid")),
                 column_numpy(table.column("grade")).astype(np.int64),
                 source=campaign.qrels_source, lines=_lines(table))


def read_run_shard(campaign: ParquetCampaign, run: RunEntry, t0: int, t1: int) -> Run:
    """The rows of ``run`` on topics ``[t0, t1)``, in file order within each topic."""
    table = _checked_rows(campaign, run.file, run.row_groups, t0, t1, list(RUN_SCHEMA.names))
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
    if read.names is not None:   # idempotent after apply_read_options; needed where a
        # worker reopens the folder by path (shard.shard_campaign), whose entries are
        # the manifest's names, not the renamed ones of the driver
        runs = [run.renamed(name) for run, name in zip(runs, read.names)]
    try:
        return build_campaign(qrels, runs, max_docs=read.max_docs, dedupe=read.dedupe,
                              warn_dropped=False)
    except InputError as exc:  # a document twice: name the Parquet file too
        raise _in_parquet(exc, campaign) from None


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
    table = read_groups(campaign, campaign.qrels_file, campaign.qrels_groups,
                        list(range(len(campaign.blocks))), ["topic", "grade"]).table
    tix = column_numpy(table.column("topic"))
    check_judged_topics(campaign, tix, 0, len(campaign.topics), path)
    return np.asarray(tix, dtype=np.int32), column_numpy(table.column("grade")).astype(np.int64)


def judgment_rows(campaign: ParquetCampaign) -> tuple[np.ndarray, pa.Array, np.ndarray]:
    """(topic index int32, document id binary, grade int64) of every qrels row: what the
    canonical qrels digest (:func:`irmeta.io.digest.qrels_text_sha256`) of a sharded
    campaign reads (the qrels, never the runs)."""
    table = read_groups(campaign, campaign.qrels_file, campaign.qrels_groups,
                        list(range(len(campaign.blocks))), ["topic", "docid", "grade"]).table
    docids = table.column("docid").combine_chunks()
    return (np.asarray(column_numpy(table.column("topic")), dtype=np.int32), docids,
            column_numpy(table.column("grade")).astype(np.int64))


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
        for k, group in enumerate(run.row_groups):
            if group < 0:
                continue
            table = read_groups(campaign, run.file, run.row_groups, [k], columns).table
            if dedupe:   # one row per distinct (topic, document)
                table = table.group_by(columns, use_threads=False).aggregate([])
            tix = np.asarray(column_numpy(table.column("topic")), dtype=np.int64)
            out[r] += np.bincount(tix, minlength=T)
    if max_docs is not None:
        np.minimum(out, max_docs, out=out)
    return out.astype(np.int32)


# ------------------------------------------------------------------ validation
# A Parquet campaign folder is a file people share: untrusted input, checked as a text
# file is (docs/scaling.md, "What a Parquet campaign folder must hold"). Every problem is
# one InputError naming the file (manifest.json, or the Parquet file) and, for a row,
# its row group and row (both counted from 0, as Arrow counts them) and its column.

#: a manifest holds a few bytes per topic and run; a larger file is not one
MAX_MANIFEST_BYTES = 256 << 20
#: file names a manifest may give: the two formats irmeta writes
SUFFIXES = (".parquet", SPILL_SUFFIX)
_WS = re.compile(r"\s")
_EXPECTED_MANIFEST = "a manifest written by irmeta convert"


def _show(value: object, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def load_manifest(path) -> object:
    """The JSON of ``path``'s ``manifest.json``: a regular file inside the folder, at most
    :data:`MAX_MANIFEST_BYTES`, valid UTF-8 JSON (any JSON: :func:`check_manifest` checks
    its shape)."""
    file = os.path.join(os.fspath(path), MANIFEST)
    try:
        root = os.path.realpath(os.fspath(path))
        real = os.path.realpath(file)
        info = os.stat(real)
        if not stat.S_ISREG(info.st_mode):
            raise InputError("the manifest is not a regular file", path=file,
                             expected=_EXPECTED_MANIFEST)
        if os.path.dirname(real) != root:
            raise InputError("the manifest is a link to a file outside the folder",
                             path=file, expected=_EXPECTED_MANIFEST)
        if info.st_size > MAX_MANIFEST_BYTES:
            raise InputError(f"the manifest has {info.st_size} bytes, more than the "
                             f"{MAX_MANIFEST_BYTES >> 20} MiB a manifest can hold",
                             path=file, expected=_EXPECTED_MANIFEST)
        with open(real, "rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
        return json.loads(raw)
    except InputError:
        raise
    except (OSError, ValueError, RecursionError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else \
            ("nested too deeply" if isinstance(exc, RecursionError) else f"not JSON: {exc}")
        raise InputError(f"cannot read the manifest of a Parquet campaign ({reason})",
                         path=file, expected="a folder written by irmeta convert") from None


class _Fields:
    """Typed access to the manifest's fields, each failure one located InputError."""

    def __init__(self, file: str):
        self.file = file

    def fail(self, field: str, problem: str, expected: str) -> InputError:
        return InputError(f"field {field}: {problem}", path=self.file, expected=expected)

    def get(self, obj: dict, key: str, field: str, default=Ellipsis):
        if key in obj:
            return obj[key]
        if default is Ellipsis:
            raise InputError(f"field {field} is missing", path=self.file,
                             expected=_EXPECTED_MANIFEST)
        return default

    def dict(self, value, field: str) -> dict:
        if not isinstance(value, dict):
            raise self.fail(field, f"{_show(value)} is not an object", "a JSON object")
        return value

    def list(self, value, field: str, length: int | None = None, low: int = 0) -> list:
        if not isinstance(value, list):
            raise self.fail(field, f"{_show(value)} is not a list", "a JSON list")
        if length is not None and len(value) != length:
            raise self.fail(field, f"{len(value)} entries", f"{length} (one per block)")
        if len(value) < low:
            raise self.fail(field, "an empty list", f"at least {low} entry")
        return value

    def integer(self, value, field: str, low: int | None = None,
                high: int | None = None) -> int:
        if type(value) is not int:
            raise self.fail(field, f"{_show(value)} is not an integer", "an integer")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"in [{low}, {high}]" if high is not None else f">= {low}"
            raise self.fail(field, f"{value} is out of range", f"an integer {span}")
        return value

    def flag(self, value, field: str) -> bool:
        if type(value) is not bool:
            raise self.fail(field, f"{_show(value)} is not true or false", "a JSON boolean")
        return value

    @overload
    def text(self, value, field: str, *, null: Literal[False] = False,
             name: bool = False) -> str: ...

    @overload
    def text(self, value, field: str, *, null: bool, name: bool = False) -> str | None: ...

    def text(self, value, field: str, *, null: bool = False, name: bool = False) -> str | None:
        """A string (None too when ``null``); ``name``: one usable as a run name."""
        if value is None and null:
            return None
        if not isinstance(value, str):
            raise self.fail(field, f"{_show(value)} is not a string",
                            "a string" + (" or null" if null else ""))
        if name and (not value.strip() or value != value.strip()
                     or any(c in value for c in "\t\n\r\x0b\x0c")):
            raise self.fail(field, f"{_show(value)} is not a usable name",
                            "a non-empty string without surrounding spaces, tabs or line "
                            "breaks (they would break every table irmeta writes)")
        if "\x00" in value:
            raise self.fail(field, f"{_show(value)} holds a NUL character", "text")
        return value

    def member(self, value, field: str, root: str) -> str:
        """A file name inside the folder: relative, no ``..``, no link out of it."""
        name = self.text(value, field)
        expected = ("a file name inside the campaign folder, such as runs/00000.parquet "
                    "(relative, no '..', no link out of the folder)")
        parts = name.split("/")
        if (not name or name.startswith("/") or "\\" in name or len(name) > 4096
                or any(p in ("", ".", "..") for p in parts) or re.match(r"^[A-Za-z]:", name)):
            raise self.fail(field, f"{_show(name)} is not a plain relative file name",
                            expected)
        if not name.endswith(SUFFIXES):
            raise self.fail(field, f"{_show(name)} is neither .parquet nor {SPILL_SUFFIX}",
                            expected)
        real = os.path.realpath(os.path.join(root, name))
        if os.path.commonpath([root, real]) != root or real == root:
            raise self.fail(field, f"{_show(name)} leads out of the campaign folder "
                                   f"(to {real})", expected)
        return name


def check_manifest(data: object, path) -> ParquetCampaign:
    """The :class:`ParquetCampaign` of a manifest's JSON ``data`` (the folder ``path``),
    every field checked: its type, its range, the topics sorted and distinct, blocks that
    cut them into consecutive ranges, one row group entry per block, run names non-empty
    and distinct, file names confined to the folder. Raises :class:`InputError` naming
    ``manifest.json`` and the field."""
    path = os.fspath(path)
    f = _Fields(os.path.join(path, MANIFEST))
    root = os.path.realpath(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError("not an irmeta Parquet campaign manifest", path=f.file,
                         expected=f"format {FORMAT!r} (written by irmeta convert)")
    version = data.get("version")
    if type(version) is not int or version != VERSION:
        raise InputError(f"Parquet campaign version {_show(version)}", path=f.file,
                         expected=f"version {VERSION}")
    topics = f.list(f.get(data, "topics", "topics"), "topics", low=1)
    for i, t in enumerate(topics):
        f.text(t, f"topics[{i}]")
        if not t or _WS.search(t):
            raise f.fail(f"topics[{i}]", f"{_show(t)} is not a topic id",
                         "a non-empty id without whitespace, as in a qrels file")
        if i and not topics[i - 1] < t:
            raise f.fail(f"topics[{i}]", f"{_show(t)} does not sort after "
                                         f"{_show(topics[i - 1])}",
                         "the topics sorted and distinct, as irmeta convert writes them")
    T = len(topics)
    blocks = f.list(f.get(data, "blocks", "blocks"), "blocks", low=1)
    end = 0
    for k, b in enumerate(blocks):
        field = f"blocks[{k}]"
        f.list(b, field, low=2)
        if len(b) != 2:
            raise f.fail(field, f"{len(b)} entries", "a pair [first topic, end topic)")
        b0 = f.integer(b[0], f"{field}[0]", end, end)
        f.integer(b[1], f"{field}[1]", b0 + 1, T)
        end = b[1]
    if end != T:
        raise f.fail("blocks", f"the blocks end at topic {end} of {T}",
                     "consecutive ranges that cover every topic")
    float32 = f.flag(data.get("float32", False), "float32")
    qrels = f.dict(f.get(data, "qrels", "qrels"), "qrels")
    qfile = f.member(qrels.get("file", "qrels.parquet"), "qrels.file", root)
    qsource = f.text(qrels.get("source"), "qrels.source", null=True)
    qgroups = _row_groups(f, f.get(qrels, "row_groups", "qrels.row_groups"),
                          "qrels.row_groups", len(blocks))
    runs: list[RunEntry] = []
    names: dict[str, str] = {}
    files = {qfile: "qrels.file"}
    for i, r in enumerate(f.list(f.get(data, "runs", "runs"), "runs", low=1)):
        field = f"runs[{i}]"
        f.dict(r, field)
        name = f.text(f.get(r, "name", f"{field}.name"), f"{field}.name", name=True)
        if name in names:
            raise f.fail(f"{field}.name", f"run name {name!r} repeats {names[name]}.name",
                         "distinct run names")
        names[name] = field
        file = f.member(f.get(r, "file", f"{field}.file"), f"{field}.file", root)
        if file in files:
            raise f.fail(f"{field}.file", f"{file!r} is also {files[file]}",
                         "one file per run")
        files[file] = f"{field}.file"
        exact = f.flag(r.get("exact_lines", True), f"{field}.exact_lines")
        if not exact and not file.endswith(SPILL_SUFFIX):
            raise f.fail(f"{field}.exact_lines", "false for a Parquet file",
                         "true (irmeta convert stores every row's exact line)")
        runs.append(RunEntry(name, file, f.text(r.get("source"), f"{field}.source", null=True),
                             f.text(r.get("tag"), f"{field}.tag", null=True),
                             f.integer(r.get("dropped", 0), f"{field}.dropped", 0,
                                       2**63 - 1),
                             _row_groups(f, f.get(r, "row_groups", f"{field}.row_groups"),
                                         f"{field}.row_groups", len(blocks)),
                             exact))
    return ParquetCampaign(path, tuple(topics), tuple((b[0], b[1]) for b in blocks),
                           qsource, qgroups, tuple(runs), float32, qfile)


def _row_groups(f: _Fields, value, field: str, num_blocks: int) -> tuple[int, ...]:
    """One entry per block: -1 (no rows), or the next row group (0, 1, 2, ...): the
    layout irmeta writes, so row groups are in block order and none is skipped."""
    f.list(value, field, length=num_blocks)
    following = 0
    for k, g in enumerate(value):
        f.integer(g, f"{field}[{k}]", -1)
        if g >= 0:
            if g != following:
                raise f.fail(f"{field}[{k}]", f"row group {g} where row group {following} "
                                              "comes next",
                             "the row groups of the non-empty blocks in order (0, 1, 2, ...; "
                             "-1 for an empty block)")
            following += 1
    return tuple(value)


def _columns(kind: str) -> pa.Schema:
    return QRELS_SCHEMA if kind == "qrels" else RUN_SCHEMA


#: files already checked by this process: (path, device, inode, size, mtime, row groups)
_CHECKED: dict[tuple, None] = {}


def check_files(campaign: ParquetCampaign) -> None:
    """Each file of ``campaign`` against its manifest, from the files' metadata alone
    (the Parquet footer, the Arrow IPC schema): a regular file inside the folder, its
    columns and their Arrow types, and one row group per non-empty block. A file checked
    by this process and unchanged since (same inode, size and time) is not read again:
    every shard task opens the manifest."""
    entries = [("qrels", campaign.qrels_file, campaign.qrels_groups)]
    entries += [("run", r.file, r.row_groups) for r in campaign.runs]
    for kind, file, groups in entries:
        path = os.path.join(campaign.path, file)
        try:
            info = os.stat(path)
        except OSError as exc:
            raise InputError(f"cannot read a file of the Parquet campaign "
                             f"({exc.strerror or exc})", path=path,
                             expected="the files its manifest names") from None
        if not stat.S_ISREG(info.st_mode):
            raise InputError("not a regular file", path=path,
                             expected="the Parquet files its manifest names")
        key = (os.path.realpath(path), info.st_dev, info.st_ino, info.st_size,
               info.st_mtime_ns, kind, groups)
        if key in _CHECKED:
            continue
        schema, sizes = _layout(path)
        _check_schema(path, schema, _columns(kind))
        used = sum(1 for g in groups if g >= 0)
        if used != len(sizes):
            raise InputError(f"the file has {len(sizes)} row group(s), its manifest entry "
                             f"names {used}", path=path,
                             expected="one row group per non-empty block, as the manifest's "
                                      "row_groups say")
        if len(_CHECKED) > 4096:
            _CHECKED.clear()
        _CHECKED[key] = None


def _layout(path: str) -> tuple[pa.Schema, list[int]]:
    """(schema, rows of each row group / record batch) of a campaign file."""
    try:
        if path.endswith(SPILL_SUFFIX):
            with pa.memory_map(path) as source:
                reader = pa.ipc.open_file(source)
                return reader.schema, [reader.get_batch(i).num_rows
                                       for i in range(reader.num_record_batches)]
        import pyarrow.parquet as pq  # on use: evaluating text files never reads Parquet
        with pq.ParquetFile(path) as pf:
            meta = pf.metadata
            return pf.schema_arrow, [meta.row_group(i).num_rows
                                     for i in range(meta.num_row_groups)]
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise _unreadable(path, exc) from None


def _unreadable(path: str, exc: BaseException) -> InputError:
    what = "an Arrow IPC file" if path.endswith(SPILL_SUFFIX) else "a Parquet file"
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return InputError(f"cannot read it as {what} ({_show(reason, 200)})", path=path,
                      expected=f"{what} written by irmeta convert")


def _check_schema(path: str, schema: pa.Schema, wanted: pa.Schema) -> None:
    for field in wanted:
        i = schema.get_field_index(field.name)
        if i < 0:
            have = ", ".join(schema.names) or "none"
            raise InputError(f"column {field.name!r} is missing (columns: {_show(have, 200)})",
                             path=path, expected=_schema_text(wanted))
        if schema.field(i).type != field.type:
            raise InputError(f"column {field.name!r} has type {schema.field(i).type}",
                             path=path, expected=f"{field.type} ({_schema_text(wanted)})")


def _schema_text(schema: pa.Schema) -> str:
    return "columns " + ", ".join(f"{f.name}: {f.type}" for f in schema)


# ------------------------------------------------------------------ checked reading
@dataclass(frozen=True)
class _Rows:
    """Rows of some row groups of one file, in row group order, and where they are."""

    path: str
    table: pa.Table
    groups: tuple[int, ...]       # row group of each part
    blocks: tuple[int, ...]       # block of each part
    sizes: np.ndarray             # int64: rows of each part

    def where(self, i: int) -> str:
        """``row group G, row R`` of the table's row ``i``."""
        ends = np.cumsum(self.sizes)
        j = int(np.searchsorted(ends, i, side="right"))
        return f"row group {self.groups[j]}, row {i - int(ends[j] - self.sizes[j])}"


def read_groups(campaign: ParquetCampaign, file: str, row_groups: tuple[int, ...],
                blocks: list[int], columns: list[str]) -> _Rows:
    """The rows of the ``blocks`` of ``file`` (its manifest ``row_groups``), read as
    stored and checked by :func:`check_rows`; a file that cannot be read (truncated,
    corrupt page) is an InputError naming it."""
    path = os.path.join(campaign.path, file)
    parts = [(row_groups[k], k) for k in blocks if row_groups[k] >= 0]
    kind = "run" if "score" in columns else "qrels"
    # Table.from_batches, not Schema.empty_table: the latter imports pandas, which the
    # trec_eval measures never need (tests/unit/test_fast_paths.py)
    table = pa.Table.from_batches([], schema=_columns(kind)).select(columns)
    try:
        if not parts:
            sizes = np.zeros(0, np.int64)
        elif path.endswith(SPILL_SUFFIX):  # mapped: the batches keep the mapping alive
            reader = pa.ipc.open_file(pa.memory_map(path))
            batches = [reader.get_batch(g) for g, _ in parts]
            for batch in batches:   # offsets inside their buffers: no read out of bounds
                batch.validate(full=True)
            table = pa.Table.from_batches(batches).select(columns)
            sizes = np.asarray([b.num_rows for b in batches], np.int64)
        else:
            import pyarrow.parquet as pq  # on use (see above)
            with pq.ParquetFile(path, page_checksum_verification=True) as pf:
                table = pf.read_row_groups([g for g, _ in parts], columns=columns)
                sizes = np.asarray([pf.metadata.row_group(g).num_rows for g, _ in parts],
                                   np.int64)
    except (OSError, pa.ArrowException, ValueError) as exc:
        raise _unreadable(path, exc) from None
    if int(sizes.sum()) != table.num_rows:  # pragma: no cover - a reader disagreeing with itself
        raise InputError("the row groups hold fewer rows than their metadata says", path=path)
    rows = _Rows(path, table, tuple(g for g, _ in parts), tuple(k for _, k in parts), sizes)
    check_rows(campaign, rows)
    return rows


def check_rows(campaign: ParquetCampaign, rows: _Rows) -> None:
    """The text reader's value rules on rows read from a campaign file, vectorised: no
    null in any column; every topic index inside the topics of its row group's block (so
    inside the campaign's topics: no row is dropped without a word); document ids non-
    empty; scores finite; grades in [-32767, 32767]; line numbers >= 1. The first row
    that breaks a rule is named: file, row group, row, column, topic."""
    table = rows.table
    topics = campaign.topics

    def fail(i: int, column: str, problem: str, expected: str, topic=None) -> InputError:
        return InputError(f"{rows.where(i)}, column {column!r}: {problem}", path=rows.path,
                          topic=topic, expected=expected)

    for name in table.column_names:
        column = table.column(name)
        if column.null_count:
            row = int(np.flatnonzero(_bools(pc.is_null(column)))[0])
            t = table.column("topic")[row].as_py() if "topic" in table.column_names else None
            raise fail(row, name, "null", "a value in every row",
                       topics[t] if t is not None and 0 <= t < len(topics) else None)
    if not table.num_rows:
        return
    tix = column_numpy(table.column("topic"))
    start = 0
    for k, size in zip(rows.blocks, rows.sizes.tolist()):
        b0, b1 = campaign.blocks[k]
        found = _first_outside(tix[start:start + size], b0, b1 - 1)
        if found is not None:
            row = found + start
            t = int(tix[row])
            if 0 <= t < len(topics):
                problem = (f"topic index {t} ({topics[t]!r}) is not a topic of this row "
                           f"group's block (topics {b0} to {b1 - 1})")
            else:
                problem = f"topic index {t} is outside the campaign's {len(topics)} topics"
            raise fail(row, "topic", problem,
                       "each row in the row group of its topic's block, as irmeta convert "
                       "writes it")
        start += size

    def topic(i: int) -> str:
        return topics[int(tix[i])]

    if "docid" in table.column_names:
        i = _first_outside(column_numpy(pc.binary_length(table.column("docid"))), 1, None)
        if i is not None:
            raise fail(i, "docid", "an empty document id", "a non-empty document id",
                       topic(i))
    if "score" in table.column_names:
        scores = column_numpy(table.column("score"))
        i = _first_outside(scores, -np.inf, np.inf, finite=True)
        if i is not None:
            raise fail(i, "score", f"{scores[i]} is not a finite number",
                       "a finite score, as in a run file", topic(i))
    if "grade" in table.column_names:
        grades = column_numpy(table.column("grade"))
        i = _first_outside(grades, -MAX_GRADE, MAX_GRADE)
        if i is not None:
            raise fail(i, "grade", f"{int(grades[i])} is out of range",
                       f"an integer relevance grade in [-{MAX_GRADE}, {MAX_GRADE}]",
                       topic(i))
    if "line" in table.column_names:
        lines = column_numpy(table.column("line"))
        i = _first_outside(lines, 1, None)
        if i is not None:
            raise fail(i, "line", f"line number {int(lines[i])}",
                       "the row's line in its original file (>= 1)", topic(i))


def _first_outside(values: np.ndarray, low, high, finite: bool = False) -> int | None:
    """The first index whose value is outside ``[low, high]`` (``high`` None: no upper
    bound; ``finite``: also NaN and infinities), or None. The common case, nothing
    outside, costs a min and a max (NaN propagates through both)."""
    if not len(values):
        return None
    lo, hi = values.min(), values.max()
    if finite:
        if np.isfinite(lo) and np.isfinite(hi):
            return None
        return int(np.flatnonzero(~np.isfinite(values))[0])
    if low <= lo and (high is None or hi <= high):
        return None
    bad = values < low if high is None else (values < low) | (values > high)
    return int(np.flatnonzero(bad)[0])


def _bools(column) -> np.ndarray:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return np.asarray(column.to_numpy(zero_copy_only=False), dtype=bool)


def check_judged_topics(campaign: ParquetCampaign, tix: np.ndarray, t0: int, t1: int,
                        path: str) -> None:
    """Every topic of ``[t0, t1)`` has a qrels row: a campaign's topics are its judged
    topics (a topic without one would be missing from its shard's campaign)."""
    counts = np.bincount(np.asarray(tix, np.int64) - t0, minlength=t1 - t0)
    missing = np.flatnonzero(counts[:t1 - t0] == 0)
    if len(missing):
        t = campaign.topics[t0 + int(missing[0])]
        raise InputError("no qrels row for this topic of the manifest", path=path,
                         topic=t, expected="the manifest's topics are the judged topics")


def _in_parquet(exc: InputError, campaign: ParquetCampaign) -> InputError:
    """``exc`` (found when a shard's campaign is built: a document twice in a topic),
    naming the Parquet file besides the original file and line of the row (the spill
    folder of TREC files is no user's file: there the message is the in-memory one)."""
    files = [e.file for e in campaign.runs if e.source == exc.path and e.source is not None]
    if exc.path is not None and exc.path == campaign.qrels_source:
        files.insert(0, campaign.qrels_file)
    if campaign.qrels_file.endswith(SPILL_SUFFIX):  # our own spill: the text file's message
        return exc
    where = (f"{os.path.join(campaign.path, files[0])}" if len(files) == 1
             else f"the Parquet campaign {campaign.path}")
    return InputError(f"{exc.reason} (read from {where})", path=exc.path, line=exc.line,
                      topic=exc.topic, expected=exc.expected)


def _checked_rows(campaign: ParquetCampaign, file: str, row_groups: tuple[int, ...],
                  t0: int, t1: int, columns: list[str]) -> pa.Table:
    """:func:`read_groups` of the blocks overlapping ``[t0, t1)``, then the rows of those
    topics (a shard may cover part of a block)."""
    table = read_groups(campaign, file, row_groups, campaign.blocks_of(t0, t1), columns).table
    tix = column_numpy(table.column("topic"))
    keep = (tix >= t0) & (tix < t1)
    if not keep.all():
        table = table.filter(arrow_array(keep))
    return table
