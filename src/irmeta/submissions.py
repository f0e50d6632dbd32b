"""``irmeta check``: the submission checker of a campaign's runs (issue 33).

:func:`check` reads each run file through the reading layer (any compression, a pipe,
``-``), finds every problem of every rule (bounded to :data:`MAX_PER_RULE` per rule and
file, the rest counted) and returns one :class:`CheckResult` per file. Nothing is
printed here: ``irmeta check`` renders the results. Rules, severities, exit codes and the
JSON shape are documented in ``docs/check.md``.

Lines are counted from 1 in the decompressed text, after ``\\r\\n`` and lone ``\\r`` are
made line ends (docs/conventions.md, "Input"); fields are separated by any whitespace;
blank lines are skipped (and counted).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from irmeta.data.fingerprint import fingerprint_strings
from irmeta.data.tables import decode_id, numpy_view
from irmeta.data.threads import map_threads
from irmeta.errors import InputError, ParameterError
from irmeta.io.source import open_source, read_bytes
from irmeta.io.tokens import RUN, Layout, unify_line_ends

#: the run layout of a submission: exactly 6 fields. The evaluation reader ignores fields
#: after the sixth, as trec_eval does; a submission checker refuses them, as TREC's check
#: scripts do ("extra fields"), so the reader refuses such a line here and the line-by-line
#: path reports every one of them (rule ``malformed``)
SUBMISSION = Layout(RUN.kind, RUN.ncols, False, RUN.expected)

#: problems kept per rule and file; the others are counted in :attr:`CheckResult.omitted`
MAX_PER_RULE = 100

ERROR = "error"
WARNING = "warning"

#: rule name -> (severity, one-line description); the order of the documentation
RULES: dict[str, tuple[str, str]] = {
    "unreadable": (ERROR, "the file cannot be read (missing, corrupt compressed data)"),
    "empty": (ERROR, "the file has no run line"),
    "malformed": (ERROR, "not 6 fields, a rank not an integer, a score not a finite number"),
    "unknown-topic": (ERROR, "a topic that is not in the topic set"),
    "too-deep": (ERROR, "more than --depth documents for a topic"),
    "duplicate-document": (ERROR, "a document listed twice for a topic"),
    "tag-changes": (ERROR, "a run tag different from the file's first tag"),
    "tag-reused": (ERROR, "a run tag another file of the check also uses"),
    "unknown-document": (ERROR, "a document not in the --docids list"),
    "too-many-runs": (ERROR, "more runs for a group than --max-runs-per-group"),
    "no-group": (ERROR, "a run that the --groups file gives no group"),
    "missing-topic": (WARNING, "a topic of the set without any document"),
    "rank-order": (WARNING, "ranks that disagree with the score order"),
}


@dataclass(frozen=True)
class Problem:
    """One problem of a run file: ``line`` counted from 1 after decompression (None:
    the file as a whole), ``topic`` when the problem belongs to one."""

    rule: str
    severity: str
    line: int | None
    topic: str | None
    message: str


@dataclass
class CheckResult:
    """The check of one run file: ``run`` is its (first) run tag, None when no line has
    one; ``ok`` is True when no problem is an error (warnings allowed); ``omitted``
    counts, per rule, the problems beyond the first :data:`MAX_PER_RULE`."""

    file: str
    run: str | None
    problems: list[Problem] = field(default_factory=list)
    omitted: dict[str, int] = field(default_factory=dict)
    _kept: dict[str, int] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when no problem is an error (warnings allowed)."""
        return not any(p.severity == ERROR for p in self.problems)

    def __repr__(self) -> str:
        errors = sum(p.severity == ERROR for p in self.problems)
        more = sum(self.omitted.values())
        return (f"CheckResult({self.file!r}, run {self.run!r}, "
                f"{'ok' if self.ok else 'FAILED'}: {errors} errors, "
                f"{len(self.problems) - errors} warnings"
                + (f" (+{more} omitted)" if more else "") + "; .problems)")

    def add(self, rule: str, line: int | None, topic: str | None, message: str) -> None:
        """Record a problem of ``rule`` (kept or counted, :data:`MAX_PER_RULE`)."""
        if self._kept.get(rule, 0) >= MAX_PER_RULE:
            self.omitted[rule] = self.omitted.get(rule, 0) + 1
            return
        self._kept[rule] = self._kept.get(rule, 0) + 1
        self.problems.append(Problem(rule, RULES[rule][0], line, topic, message))

    def to_dict(self) -> dict:
        """The JSON object of this result (docs/check.md, "JSON")."""
        return {"file": self.file, "run": self.run, "ok": self.ok,
                "problems": [{"rule": p.rule, "severity": p.severity, "line": p.line,
                              "topic": p.topic, "message": p.message}
                             for p in self.problems],
                "omitted": dict(self.omitted)}


@dataclass
class _Parsed:
    """The well-formed lines of a run file, as columns: topics as codes into
    ``topic_ids`` (distinct topic byte strings, decoded), document ids and tags as Arrow
    binary arrays (one chunk or several)."""

    lines: Any             # row -> line number counted from 1 (an array or _Lines)
    topic_ids: list[str]   # code -> topic (one code per distinct byte string)
    tcodes: np.ndarray     # row -> topic code (int32 or int64)
    docids: pa.Array | pa.ChunkedArray
    ranks: np.ndarray      # int64
    scores: np.ndarray     # float64
    tags: pa.Array | pa.ChunkedArray

    def topic(self, i: int) -> str:
        return self.topic_ids[int(self.tcodes[i])]

    def docid(self, i: int) -> bytes:
        value: bytes = self.docids[int(i)].as_py()
        return value


def read_topics(path: str | os.PathLike[str]) -> list[str]:
    """A topics file: one topic id per line (the first field; blank lines and ``#``
    comments skipped). Not a TREC topics (XML/SGML) file: see docs/check.md."""
    raw = unify_line_ends(read_bytes(path))
    topics: list[str] = []
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) != 1 or fields[0].startswith(b"<"):
            raise InputError(f"{len(fields)} fields" if len(fields) != 1 else
                             "an SGML/XML tag", path=str(path), line=lineno,
                             expected="one topic id per line")
        topics.append(decode_id(fields[0]))
    if not topics:
        raise InputError("no topic id", path=str(path), expected="one topic id per line")
    return topics


def read_docids(path: str | os.PathLike[str]) -> set[str]:
    """A document id list: one id per line (the first field; blank lines skipped)."""
    raw = unify_line_ends(read_bytes(path))
    docids = {decode_id(line.split()[0]) for line in raw.split(b"\n") if line.split()}
    if not docids:
        raise InputError("no document id", path=str(path),
                         expected="one document id per line")
    return docids


#: the run reader's column types (topics dictionary-encoded by the parser), with the
#: rank column parsed too (the reader itself skips it)
_RANK = {"rank": pa.int64()}


class _Lines:
    """Row -> file line of the reader's table (its :class:`LineMap`), on demand."""

    def __init__(self, line_map: Any, n: int):
        self._map, self._n = line_map, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, row: Any) -> int:
        return int(self._map.line(int(row)))


def _read(path: str | os.PathLike[str]) -> _Parsed | None:
    """The fast path: irmeta's run reader (streamed, Arrow, the canonical-form test of
    docs/conventions.md, its column types), with the rank column parsed too; None when it
    refuses the file (the slow path then finds every line at fault) or a score is not
    finite."""
    from irmeta.io.trec import _RUN_TYPES, RUN_COLUMNS, _read_table
    try:
        table, line_map = _read_table(open_source(path), SUBMISSION, RUN_COLUMNS,
                                      {**_RUN_TYPES, **_RANK})
    except InputError:
        return None
    if table.num_rows == 0:
        return None
    scores = _numbers(table.column("score"))
    if not np.isfinite(scores).all():
        return None
    topic_ids, tcodes = _dictionary_codes(table.column("topic"))
    return _Parsed(_Lines(line_map, table.num_rows), topic_ids, tcodes,
                   table.column("docid"), _numbers(table.column("rank")), scores,
                   table.column("tag"))


def _numbers(column: pa.ChunkedArray) -> np.ndarray:
    """A number column (no nulls) as one NumPy array (not through pyarrow's
    ``to_numpy``, which imports pandas)."""
    return numpy_view(column.combine_chunks())


def _bools(array: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean Arrow result without nulls as a NumPy bool array (no pandas)."""
    import pyarrow.compute as pc
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    return numpy_view(pc.cast(array, pa.uint8())).astype(bool)


def _dictionary_codes(column: pa.ChunkedArray) -> tuple[list[str], np.ndarray]:
    """The parser's dictionary-encoded topics as (distinct topics, decoded; each row's
    code): one code per distinct byte string, when joining the chunks repeated one."""
    col = column.combine_chunks()
    values = col.dictionary.to_pylist()
    codes = numpy_view(col.indices)
    distinct = dict.fromkeys(values)
    if len(distinct) != len(values):
        index = {v: k for k, v in enumerate(distinct)}
        codes = np.asarray([index[v] for v in values], dtype=np.int32)[codes]
        values = list(distinct)
    return [decode_id(v) for v in values], codes


def _parse(raw: bytes, result: CheckResult) -> _Parsed:
    """Split the lines; a malformed line becomes a problem and is left out."""
    lines: list[int] = []
    topics: list[bytes] = []
    docids: list[bytes] = []
    ranks: list[int] = []
    scores: list[float] = []
    tags: list[bytes] = []
    for lineno, line in enumerate(unify_line_ends(raw).split(b"\n"), 1):
        f = line.split()
        if not f or f[0].startswith(b"#"):   # blank and comment lines, as the reader
            continue
        if len(f) != 6:
            result.add("malformed", lineno, decode_id(f[0]),
                       f"{len(f)} fields (expected 6: topic Q0 docid rank score tag)")
            continue
        try:
            rank = int(f[3])
        except ValueError:
            result.add("malformed", lineno, decode_id(f[0]),
                       f"rank {decode_id(f[3])!r} is not an integer")
            continue
        try:
            score = float(f[4])
        except ValueError:
            score = math.nan
        if not math.isfinite(score):
            result.add("malformed", lineno, decode_id(f[0]),
                       f"score {decode_id(f[4])!r} is not a finite number")
            continue
        lines.append(lineno)
        topics.append(f[0])
        docids.append(f[2])
        ranks.append(rank)
        scores.append(score)
        tags.append(f[5])
    topic_ids, tcodes = _encode(pa.array(topics, pa.binary()))
    return _Parsed(np.asarray(lines, dtype=np.int64), topic_ids, tcodes,
                   pa.array(docids, pa.binary()), np.asarray(ranks, dtype=np.int64),
                   np.asarray(scores, dtype=np.float64), pa.array(tags, pa.binary()))


def _report(result: CheckResult, rule: str, rows: np.ndarray, message) -> None:
    """Problems of ``rule`` at ``rows`` (in order): the first ones kept, the rest counted
    (no message is made for them)."""
    room = max(MAX_PER_RULE - result._kept.get(rule, 0), 0)
    for i in rows[:room].tolist():
        result.add(rule, *message(i))
    if len(rows) > room:
        result.omitted[rule] = result.omitted.get(rule, 0) + len(rows) - room


def _encode(array: pa.Array) -> tuple[list[str], np.ndarray]:
    """Distinct ids (decoded) and each row's code."""
    if len(array) == 0:
        return [], np.zeros(0, dtype=np.int64)
    encoded = array.dictionary_encode()
    ids = [decode_id(v) for v in encoded.dictionary.to_pylist()]
    return ids, numpy_view(encoded.indices).astype(np.int64)


def _fingerprints(docids: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """64-bit fingerprints of the document ids (a pure function of each id's bytes),
    chunk by chunk: the reader's chunks are not joined into one copy first; two threads
    (half the chunks each) when the budget allows."""
    chunks = docids.chunks if isinstance(docids, pa.ChunkedArray) else [docids]
    chunks = [c for c in chunks if len(c)]
    if len(chunks) < 4:
        return fingerprint_strings(docids)
    ends = np.cumsum([len(c) for c in chunks])
    out = np.empty(int(ends[-1]), dtype=np.uint64)

    def fold(part: range) -> None:
        for k in part:
            out[ends[k] - len(chunks[k]):ends[k]] = fingerprint_strings(chunks[k])

    map_threads(fold, (range(0, len(chunks), 2), range(1, len(chunks), 2)))
    return out


#: blocks of at most this many rows are sorted on the low 32 bits of the fingerprints
#: (half the memory traffic; a false repeat, about one per 8,600 blocks of 1,000 rows,
#: only sends its block to the exact test)
NARROW_BLOCK = 1 << 12


def _blocks_with_repeats(fp: np.ndarray, starts: np.ndarray) -> np.ndarray | None:
    """In a file where each topic is one block of rows (``starts``: the first row of
    each), the blocks in which some fingerprint may be repeated: every block with a
    repeat, and perhaps a few without (equal low 32 bits). The blocks are sorted one per
    row of a matrix (n log(depth) instead of n log(n) for one sort of the whole run);
    shorter blocks are padded with the largest value, which sorts last, so the first
    ``length`` values of a sorted row are exactly its block's. None: the padding would
    cost more than the rows (blocks of very different lengths)."""
    n = len(fp)
    lengths = np.diff(np.append(starts, n))
    width = int(lengths.max())
    if width < 2:
        return np.zeros(0, dtype=np.int64)
    if len(starts) * width > 2 * n:
        return None
    values = fp.astype(np.uint32) if width <= NARROW_BLOCK else fp.copy()
    if len(starts) * width == n:
        matrix = values.reshape(len(starts), width)
        _sort_rows(matrix)
        return np.flatnonzero((matrix[:, 1:] == matrix[:, :-1]).any(axis=1))
    matrix = np.full((len(starts), width), np.iinfo(values.dtype).max, dtype=values.dtype)
    flat = np.arange(n, dtype=np.int64) + np.repeat(
        np.arange(len(starts), dtype=np.int64) * width - starts, lengths)
    matrix.ravel()[flat] = values
    _sort_rows(matrix)
    same = matrix[:, 1:] == matrix[:, :-1]
    same &= np.arange(width - 1) < (lengths - 1)[:, None]
    return np.flatnonzero(same.any(axis=1))


#: fingerprints sorted on two threads from this many on (a smaller sort is not worth a thread)
THREADED_SORT = 1 << 20


def _sort_rows(matrix: np.ndarray) -> None:
    """Sort each row of ``matrix`` in place; the two halves of the rows on two threads
    (NumPy's sort releases the GIL) when the matrix is large and the budget allows."""
    half = len(matrix) // 2
    if matrix.size < THREADED_SORT:
        matrix.sort(axis=1)
        return
    map_threads(lambda part: part.sort(axis=1), (matrix[:half], matrix[half:]))


def _duplicates(parsed: _Parsed, result: CheckResult, tcodes: np.ndarray,
                starts: np.ndarray | None) -> None:
    """A document twice for a topic. When each topic is one block of rows (``starts``),
    a sort of each block's fingerprints proves most blocks free of duplicates, and only
    the other blocks' rows (usually none) are looked at further. Those rows (or, for a
    file not in blocks, all rows) get 64-bit keys of (topic, document fingerprint),
    sorted once; the rows of a key seen twice are candidates, confirmed on the ids
    themselves (a fingerprint collision is no duplicate)."""
    fp = _fingerprints(parsed.docids)
    rows: np.ndarray | None = None   # None: every row
    if starts is not None:
        blocks = _blocks_with_repeats(fp, starts)
        if blocks is not None:
            if len(blocks) == 0:
                return
            flags = np.zeros(len(starts), dtype=bool)
            flags[blocks] = True
            rows = np.flatnonzero(np.repeat(flags, np.diff(np.append(starts, len(fp)))))
            fp = fp[rows]
    codes = tcodes if rows is None else tcodes[rows]
    with np.errstate(over="ignore"):
        key = fp + codes.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    sorted_key = np.sort(key)
    repeated = sorted_key[1:] == sorted_key[:-1]
    if not repeated.any():
        return
    values = np.unique(sorted_key[1:][repeated])   # the keys seen more than once
    at = np.minimum(np.searchsorted(values, key), len(values) - 1)
    candidates = np.flatnonzero(values[at] == key)   # their rows, in file order
    if rows is not None:
        candidates = rows[candidates]
    first: dict[tuple[int, bytes], int] = {}
    dup: list[int] = []
    for i in candidates.tolist():   # file order
        pair = (int(tcodes[i]), parsed.docid(i))
        if pair in first:
            dup.append(i)
        else:
            first[pair] = i
    _report(result, "duplicate-document", np.asarray(dup, dtype=np.int64), lambda i: (
        int(parsed.lines[i]), parsed.topic(i),
        f"document {decode_id(parsed.docid(i))!r} again (first at line "
        f"{int(parsed.lines[first[(int(tcodes[i]), parsed.docid(i))]])})"))


def _check_lines(parsed: _Parsed, result: CheckResult, topic_set: set[str] | None,
                 depth: int | None, docid_set: set[str] | None) -> None:
    from irmeta.io.trec import _single_value
    n = len(parsed.lines)
    if n == 0:
        return
    lines = parsed.lines
    first_tag = parsed.tags[0].as_py()
    if _single_value(parsed.tags) is None:   # else every tag is the first one
        import pyarrow.compute as pc  # here: a clean run never needs it (start-up)
        bad_tag = np.flatnonzero(_bools(pc.not_equal(
            parsed.tags, pa.scalar(first_tag, pa.binary()))))
        _report(result, "tag-changes", bad_tag, lambda i: (
            int(lines[i]), parsed.topic(i), f"run tag {decode_id(parsed.tags[i].as_py())!r}, "
            f"the file began with {decode_id(first_tag)!r}"))
    topic_ids, tcodes = parsed.topic_ids, parsed.tcodes
    # each topic one block of rows (most runs are written so): then the blocks' first
    # rows and lengths give the counts per topic without a pass over the codes
    change = np.flatnonzero(tcodes[1:] != tcodes[:-1]) + 1
    blocked = len(change) + 1 == len(topic_ids)
    starts = np.concatenate(([0], change)) if blocked else None
    if starts is not None:
        counts = np.zeros(len(topic_ids), dtype=np.int64)
        counts[tcodes[starts]] = np.diff(np.append(starts, n))
    else:
        counts = np.bincount(tcodes, minlength=len(topic_ids))
    if topic_set is not None:
        unknown = np.asarray([c for c, t in enumerate(topic_ids) if t not in topic_set],
                             dtype=np.int64)
        if len(unknown):
            first = np.empty(len(topic_ids), dtype=np.int64)
            first[tcodes[::-1]] = np.arange(n - 1, -1, -1)   # the last write wins: first rows
            _report(result, "unknown-topic", np.sort(first[unknown]), lambda i: (
                int(lines[i]), parsed.topic(i), f"topic {parsed.topic(i)!r} is not in the "
                f"topic set ({counts[tcodes[i]]:,} line{'s' if counts[tcodes[i]] != 1 else ''})"))
    if depth is not None and (counts > depth).any():
        by_topic = np.argsort(tcodes, kind="stable")
        offsets = np.concatenate(([0], np.cumsum(counts)[:-1]))
        deep = np.flatnonzero(counts > depth)
        _report(result, "too-deep", np.sort(by_topic[offsets[deep] + depth]), lambda i: (
            int(lines[i]), parsed.topic(i), f"{counts[tcodes[i]]:,} documents, more than "
            f"the depth {depth}"))
    _duplicates(parsed, result, tcodes, starts)
    if docid_set is not None:
        import pyarrow.compute as pc
        known = _bools(pc.is_in(parsed.docids, value_set=pa.array(
            [d.encode() for d in docid_set], pa.binary())))
        _report(result, "unknown-document", np.flatnonzero(~known), lambda i: (
            int(lines[i]), parsed.topic(i), f"document "
            f"{decode_id(parsed.docid(i))!r} is not in the document list"))
    # rank order: in (topic, rank) order, the score must not rise. Most runs are written
    # in that order already (each topic one block, ranks rising inside it): no sort then,
    # and only the few rows where the score rises are looked at
    ranks, scores = parsed.ranks, parsed.scores
    if starts is not None and np.isin(np.flatnonzero(ranks[1:] <= ranks[:-1]) + 1,
                                      change).all():
        rise = np.flatnonzero(scores[1:] > scores[:-1]) + 1
        bad = rise[tcodes[rise] == tcodes[rise - 1]]
    else:
        order = np.lexsort((ranks, tcodes))
        t, s = tcodes[order], scores[order]
        bad = np.sort(order[np.flatnonzero((t[1:] == t[:-1]) & (s[1:] > s[:-1])) + 1])
    _report(result, "rank-order", bad, lambda i: (
        int(lines[i]), parsed.topic(i), f"rank {int(parsed.ranks[i])} has score "
        f"{parsed.scores[i]:g}, higher than the score of a smaller rank"))
    if topic_set is not None:
        for topic in sorted(topic_set - set(topic_ids), key=_topic_key):
            result.add("missing-topic", None, topic, f"topic {topic!r} has no document")


def _topic_key(topic: str) -> tuple[int, int | str]:
    return (0, int(topic)) if topic.isdigit() else (1, topic)


def check(runs: Sequence[str | os.PathLike[str]], *, qrels: str | os.PathLike[str] | None = None,
          topics: str | os.PathLike[str] | Iterable[str] | None = None,
          depth: int | None = None, groups: str | os.PathLike[str] | None = None,
          max_runs_per_group: int | None = None,
          docids: str | os.PathLike[str] | None = None) -> list[CheckResult]:
    """Check run files as a campaign's submissions; one :class:`CheckResult` per file.

    The topic set is the topics of ``qrels`` or the ``topics`` file (one id per line) or
    list; exactly one of them. ``depth``: the most documents per topic. ``groups``: a
    groups file (``run group`` lines) with ``max_runs_per_group``. ``docids``: a file of
    the collection's document ids, one per line. A run file that cannot be read is a
    problem of its result (rule ``unreadable``); a qrels, topics, groups or docids file
    that cannot be read raises :class:`~irmeta.errors.InputError`. Rules: docs/check.md.
    """
    if (qrels is None) == (topics is None):
        raise ParameterError("give exactly one of qrels and topics (the topic set)")
    if (groups is None) != (max_runs_per_group is None):
        raise ParameterError("groups and max_runs_per_group go together")
    if depth is not None and depth < 1:
        raise ParameterError(f"depth={depth}: expected a positive integer")
    if max_runs_per_group is not None and max_runs_per_group < 1:
        raise ParameterError(f"max_runs_per_group={max_runs_per_group}: expected a "
                             "positive integer")
    if not runs:
        raise ParameterError("no run file to check")
    if qrels is not None:
        from irmeta.io.trec import read_qrels
        topic_set = set(read_qrels(qrels).topic_ids.tolist())
    elif isinstance(topics, (str, os.PathLike)):
        topic_set = set(read_topics(topics))
    else:
        topic_set = {str(t) for t in topics or ()}
    group_of = None
    if groups is not None:
        from irmeta.io.load import read_groups
        group_of = read_groups(groups)
    docid_set = read_docids(docids) if docids is not None else None

    results: list[CheckResult] = []
    for path in runs:
        name = os.fspath(path)
        result = CheckResult(name, None)
        results.append(result)
        parsed = _read(path)
        if parsed is not None:
            result.run = decode_id(parsed.tags[0].as_py())
            _check_lines(parsed, result, topic_set, depth, docid_set)
            continue
        try:
            raw = read_bytes(path)
        except InputError as exc:
            result.add("unreadable", None, None, exc.reason)
            continue
        parsed = _parse(raw, result)
        if len(parsed.lines) == 0 and not result.problems:
            result.add("empty", None, None, "no run line")
            continue
        result.run = decode_id(parsed.tags[0].as_py()) if len(parsed.tags) else None
        _check_lines(parsed, result, topic_set, depth, docid_set)

    by_tag: dict[str, list[CheckResult]] = {}
    for result in results:
        if result.run is not None:
            by_tag.setdefault(result.run, []).append(result)
    for tag, same in by_tag.items():
        if len(same) > 1:
            for result in same:
                others = ", ".join(r.file for r in same if r is not result)
                result.add("tag-reused", None, None, f"run tag {tag!r} is also used by {others}")
    if group_of is not None and max_runs_per_group is not None:
        members: dict[str, list[str]] = {}
        for tag, same in by_tag.items():
            if tag not in group_of:
                for result in same:
                    result.add("no-group", None, None,
                               f"run {tag!r} has no group in {os.fspath(groups or '')}")
            else:
                members.setdefault(group_of[tag], []).append(tag)
        for group, tags in members.items():
            if len(tags) > max_runs_per_group:
                for tag in tags:
                    for result in by_tag[tag]:
                        result.add("too-many-runs", None, None,
                                   f"group {group!r} has {len(tags)} runs "
                                   f"({', '.join(sorted(tags))}), more than "
                                   f"{max_runs_per_group}")
    for result in results:
        result.problems.sort(key=lambda p: (p.line is None, p.line or 0))
    return results
