"""Read TREC qrels and run files: every input once, tokenised as trec_eval does.

The pipeline, one streaming pass:

1. :func:`irmeta.io.source.open_source` opens the input once (pipes and ``-`` are spooled),
   detects gzip / bzip2 / xz / zstd by magic bytes and refuses zip and UTF-16;
2. :class:`irmeta.io.tokens.CanonicalStream` turns whitespace-separated lines into
   canonical lines (trec_eval's tokenisation; blank and comment lines dropped and
   remembered for line numbers);
3. Arrow's CSV reader parses the canonical lines, ids as **bytes** (never
   decoded, so no replacement character can merge two ids), scores as doubles; on its
   threads when the input is a native stream, on the calling thread when it is a Python
   one (:func:`arrow_threads`);
4. values are checked column-wise (finite scores, integer grades in range) and the first
   bad one is reported with its file, line and topic.

When Arrow refuses a line (a score that is not a number, a line whose field count the
block check could not see), :func:`_diagnose` re-reads the input block by block to name
that line. Valid files never take that path.

Format rules (``docs/conventions.md``, "Input"):

* qrels: ``topic iteration docid grade`` — exactly 4 fields, grade an integer;
* run: ``topic Q0 docid rank score tag`` — at least 6 fields (later ones ignored, as
  trec_eval does), score a finite number, rank ignored;
* lines whose first token starts with ``#`` are comments; blank lines are skipped;
* one tag per run file unless ``split_tags=True``.
"""

from __future__ import annotations

import lzma
import os
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from irmeta.data.lines import LineMap, RunsBuilder
from irmeta.data.tables import MAX_GRADE, Qrels, Run, arrow_ints, decode_id, numpy_view
from irmeta.data.threads import background
from irmeta.errors import InputError, ResourceError, memory_limits
from irmeta.io.source import Source, open_source, read_bytes
from irmeta.io.tokens import (
    QRELS,
    RUN,
    CanonicalStream,
    Layout,
    is_canonical,
    last_line_end,
    unify_line_ends,
)

__all__ = ["read_run", "read_qrels", "read_bytes", "run_name_from_path"]

RUN_COLUMNS = ["topic", "q0", "docid", "rank", "score", "tag"]
QRELS_COLUMNS = ["topic", "iteration", "docid", "grade"]
_ID = pa.dictionary(pa.int32(), pa.binary())
#: the tag is read as plain bytes: one file holds one tag, which a comparison with the first
#: value checks faster than Arrow builds a dictionary (:func:`_tags`)
_RUN_TYPES = {"topic": _ID, "docid": pa.binary(), "score": pa.float64(), "tag": pa.binary()}
_QRELS_TYPES = {"topic": _ID, "docid": pa.binary(), "grade": _ID}
#: a grade: an integer, optionally written with a zero fraction (``2``, ``-1``, ``+3``, ``2.0``)
_GRADE = re.compile(rb"[+-]?[0-9]+(\.0*)?")
#: what Arrow's float parser accepts (used only to name a bad score)
_NUMBER = re.compile(rb"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
                     rb"|[+-]?(inf|infinity|nan)", re.IGNORECASE)


# ------------------------------------------------------------------ parsing
def _parse_pool() -> pa.MemoryPool:
    """The Arrow memory pool for parsing: jemalloc when this pyarrow has it (it returns
    the parser's scratch blocks to the OS; the default mimalloc kept ~200 MB more on a
    7-million-line run), else Arrow's default. Passed per call, never set globally."""
    global _POOL
    if _POOL is None:
        try:
            _POOL = pa.jemalloc_memory_pool()
        except (NotImplementedError, pa.ArrowNotImplementedError, AttributeError):
            _POOL = pa.default_memory_pool()
    return _POOL


_POOL: pa.MemoryPool | None = None


#: bytes Arrow's CSV reader parses at a time; a longer line may not parse (:func:`_diagnose`)
PARSE_BLOCK = 1 << 22


def arrow_threads(stream: object) -> bool:
    """May Arrow parse ``stream`` on its CPU pool? Only a native stream (a file on disk,
    Arrow's own decompression). A Python-backed one (``pa.PythonFile``: the careful
    path's :class:`CanonicalStream`, xz, the size-capped :class:`~irmeta.io.source._Capped`)
    is parsed on the calling thread: a worker of the pool could still hold the stream's
    Python buffers, or the Python error of a failed read, after ``read_csv`` has raised,
    and release them during interpreter finalisation, where it needs the GIL and the
    process aborted (``terminate called without an active exception``, exit -6, after the
    right message; issue 41, item 6)."""
    return isinstance(stream, pa.NativeFile) and not isinstance(stream, pa.PythonFile)


def _csv(stream: pa.NativeFile, names: list[str],
         types: dict[str, pa.DataType], delim: bytes) -> pa.Table:
    return pacsv.read_csv(
        stream, memory_pool=_parse_pool(),
        read_options=pacsv.ReadOptions(column_names=names, block_size=PARSE_BLOCK,
                                       use_threads=arrow_threads(stream)),
        parse_options=pacsv.ParseOptions(delimiter=delim.decode(), quote_char=False,
                                          double_quote=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                             null_values=[], strings_can_be_null=False,
                                             quoted_strings_can_be_null=False),
    )


def _read_table(source: Source, layout: Layout, names: list[str],
                types: dict[str, pa.DataType]) -> tuple[pa.Table, LineMap]:
    """:func:`_parse_table`, refused when the input was cut at ``source.max_bytes``
    (a compressed input that expands past what the address-space limit leaves room for:
    the stream ends early rather than raise inside Arrow's threads)."""
    try:
        result = _parse_table(source, layout, names, types)
    except (InputError, ResourceError):
        if source.over_limit:   # a cut stream's last line is no error of the file
            raise source.limit_error() from None
        raise
    if source.over_limit:
        raise source.limit_error()
    return result


def _parse_table(source: Source, layout: Layout, names: list[str],
                 types: dict[str, pa.DataType]) -> tuple[pa.Table, LineMap]:
    """Parse the whole input into an Arrow table of trec_eval tokens.

    Fast path: Arrow parses the input straight from disk with the delimiter of its first
    line, and the columns are checked to hold trec_eval tokens (no empty field, no
    whitespace inside one, no comment line). Anything else takes the careful path."""
    # the first ignored field (Q0, iteration) is checked too, read as bytes (cheaper than a
    # dictionary); the rank field is not (a space inside it is the one defect the fast path
    # lets through: docs/conventions.md)
    checked = {**types, names[1]: types.get(names[1], pa.binary())}
    _check_address_space(source)
    try:
        delim = _first_delimiter(source, layout)
        if delim is not None:
            try:
                with source.open() as raw:
                    table = _csv(raw, names, checked, delim)
                if _all_tokens(table):
                    _parse_pool().release_unused()
                    return table.select(list(types)), LineMap.lazy(
                        lambda: _blank_lines(source))
            except pa.ArrowInvalid:
                pass
        return _careful_table(source, layout, names, types)
    except InputError:
        raise
    except (MemoryError, pa.ArrowMemoryError):
        raise _out_of_memory(source) from None
    except (OSError, EOFError, pa.ArrowException, lzma.LZMAError) as exc:
        if _is_resource_failure(exc):
            raise _out_of_memory(source) from None
        raise source.read_error(exc) from None


def _first_delimiter(source: Source, layout: Layout) -> bytes | None:
    """Tab or space, whichever makes the first 64 KiB canonical (None: they are not, so
    the fast path would fail; the careful path is taken at once)."""
    size = 1 << 16
    with source.open() as raw:
        head = raw.read(size)
    if not head.strip():
        if len(head) == size:
            return None  # 64 KiB of blank lines: let the careful path look further
        raise InputError(f"empty {layout.kind} file", path=source.name,
                         expected="at least one line: " + layout.expected.split(": ")[1])
    head = head[:last_line_end(head) + 1] or head + b"\n"   # whole lines only
    head = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    head = unify_line_ends(head)   # Arrow reads \r\n and a lone \r as line ends too
    for delim in (b"\t", b" "):
        if is_canonical(head, layout.ncols, delim):
            return delim
    return None  # untidy from the first lines on: straight to the careful path


def _all_tokens(table: pa.Table) -> bool:
    """Every id-like field is a non-empty token without whitespace; no comment line."""
    for name in table.column_names:
        col = table.column(name)
        if pa.types.is_dictionary(col.type):
            values = set()
            for chunk in col.chunks:
                values.update(chunk.dictionary.to_pylist())
            if any(not v or v.split() != [v] or (name == "topic" and v.startswith(b"#"))
                   for v in values):
                return False
        elif pa.types.is_binary(col.type):
            for chunk in col.chunks:
                if not _clean_bytes(chunk):
                    return False
    return True


def _clean_bytes(chunk: pa.Array) -> bool:
    """No empty value and no whitespace byte in a binary array."""
    if len(chunk) == 0:
        return True
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset:
                                                                 chunk.offset + len(chunk) + 1]
    if np.any(offsets[1:] == offsets[:-1]):
        return False
    data = bytes(memoryview(chunk.buffers()[2])[offsets[0]:offsets[-1]])
    return not any(c in data for c in (b" ", b"\t", b"\r", b"\x0b", b"\x0c"))


def _blank_lines(source: Source) -> np.ndarray:
    """File lines that Arrow skipped on the fast path (empty lines), as runs
    (:class:`LineMap`), found by a scan that runs only when an error needs a line number."""
    skipped = RunsBuilder()
    with source.open() as raw:
        stream = CanonicalStream(raw, RUN, source.name)
        for first, block in stream.raw_blocks():
            a = np.frombuffer(block, dtype=np.uint8)
            nl = np.flatnonzero(a == 10)
            empty = np.diff(nl, prepend=-1) == 1
            skipped.add_lines(np.flatnonzero(empty).astype(np.int64) + first)
    return skipped.runs()


def _careful_table(source: Source, layout: Layout, names: list[str],
                   types: dict[str, pa.DataType]) -> tuple[pa.Table, LineMap]:
    """Every block rewritten into canonical lines, then parsed by Arrow."""
    try:
        with source.open() as raw:
            stream = CanonicalStream(raw, layout, source.name)
            if stream.empty:
                raise InputError(f"empty {layout.kind} file", path=source.name,
                                 expected="at least one line: " + layout.expected.split(": ")[1])
            table = _csv(pa.PythonFile(stream, mode="r"), names, types, stream.delimiter)
            lines = stream.line_map
    except pa.ArrowInvalid:
        _diagnose(source, layout)
        raise InputError(f"cannot parse {layout.kind} file", path=source.name,
                         expected=layout.expected) from None
    _parse_pool().release_unused()  # give the parser's scratch back
    return table, lines


def _out_of_memory(source: Source) -> ResourceError:
    try:
        size = f" ({os.path.getsize(source.path) / 2**20:,.0f} MiB on disk)"
    except OSError:
        size = ""
    return ResourceError(f"{source.name}: not enough memory to read this file{size} "
                         f"({memory_limits()}); give irmeta more memory or fewer runs at once")


#: bytes of memory a parse needs per byte of (uncompressed) input, with a margin: the
#: Arrow table and the arrays made from it (measured: 1.8 on a 7-million-line run)
READ_FACTOR = 2.0


def _check_address_space(source: Source) -> None:
    """Refuse, with a clear message, to parse an input that cannot fit under the
    address-space limit (``ulimit -v``). Arrow aborts the process when an allocation
    fails inside its parsing threads, so this is checked before parsing starts.
    Without such a limit Linux overcommits and nothing is checked."""
    headroom = _address_space_headroom()
    if headroom is None:
        return
    need = int(READ_FACTOR * _uncompressed_size(source)) + (64 << 20)
    if source.codec is not None:
        # the size of compressed data is a guess (gzip's trailer holds it modulo 4 GiB,
        # of the last member only): the decompressed stream itself stops at what fits.
        # Address space, not resident memory, is what the limit counts: a parse took
        # 4.2 bytes of it per input byte (jemalloc's arenas, Arrow's read-ahead)
        source.max_bytes = max(1, int((headroom - (64 << 20)) / (3 * READ_FACTOR)))
    if need > headroom:
        raise ResourceError(
            f"{source.name}: not enough memory to read this file: it needs about "
            f"{need / 2**20:,.0f} MiB, {max(headroom, 0) / 2**20:,.0f} MiB are left under "
            f"the limit ({memory_limits()}); "
            "raise the limit or give fewer runs at once")


def _address_space_headroom() -> int | None:
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft in (resource.RLIM_INFINITY, -1):
            return None
        with open("/proc/self/status") as fh:
            vm = next(int(ln.split()[1]) * 1024 for ln in fh if ln.startswith("VmSize"))
        return soft - vm
    except (ImportError, OSError, StopIteration, ValueError):
        return None


def _uncompressed_size(source: Source) -> int:
    size = os.path.getsize(source.path)
    if source.codec == "gzip" and size >= 4:  # ISIZE trailer: size mod 2^32
        with open(source.path, "rb") as fh:
            fh.seek(-4, os.SEEK_END)
            return max(size, int.from_bytes(fh.read(4), "little"))
    return size * (5 if source.codec else 1)


def _is_resource_failure(exc: BaseException) -> bool:
    text = str(exc)
    return "Failed to launch worker thread" in text or "out of memory" in text.lower()


def _diagnose(source: Source, layout: Layout) -> None:
    """Re-read the input block by block and raise for the first line Arrow refused."""
    with source.open() as raw:
        stream = CanonicalStream(raw, layout, source.name)
        for first_line, block in stream.raw_blocks():
            stream.canonical(block, first_line, strict=True)  # wrong numbers of fields
            for offset, line in enumerate(block.split(b"\n")):
                if len(line) > PARSE_BLOCK:   # Arrow's rows must fit in its read block
                    raise InputError(f"line of {len(line) / 2**20:,.1f} MiB: longer than "
                                     "the 4 MiB the parser reads at a time",
                                     path=source.name, line=first_line + offset,
                                     expected="lines of at most 4 MiB")
                fields = line.split()
                if fields and not fields[0].startswith(b"#") and layout is RUN \
                        and not _NUMBER.fullmatch(fields[4]):
                    raise InputError(f"score {decode_id(fields[4])!r} is not a number",
                                     path=source.name, line=first_line + offset,
                                     topic=decode_id(fields[0]), expected="a finite number")


def _ids(column: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """A dictionary column as (decoded ids, int32 codes)."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if col.null_count:
        col = col.fill_null(b"")
    values = col.dictionary.to_pylist()
    ids = np.empty(len(values), dtype=object)
    ids[:] = [decode_id(v) for v in values]
    codes = numpy_view(col.indices).astype(np.int32, copy=False)
    if len(set(values)) != len(values):  # chunks unified with repeated entries
        uniq, inverse = np.unique(ids, return_inverse=True)
        return uniq, inverse.astype(np.int32)[codes]
    return ids, codes


def _tags(column: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """A bytes column as (decoded distinct values, int32 codes), like :func:`_ids`; a
    column holding one value (a run file's tag) is recognised by comparing bytes."""
    first = _single_value(column)
    if first is not None:
        ids = np.empty(1, dtype=object)
        ids[0] = decode_id(first)
        return ids, np.zeros(len(column), dtype=np.int32)
    return _ids(binary_column(column).dictionary_encode())


def _single_value(column: pa.Array | pa.ChunkedArray) -> bytes | None:
    """The one value of a non-empty binary column, or None if it holds several."""
    first: bytes | None = None
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    for chunk in chunks:
        if len(chunk) == 0:
            continue
        width = np.int64 if pa.types.is_large_binary(chunk.type) else np.int32
        offsets = np.frombuffer(chunk.buffers()[1], dtype=width)[
            chunk.offset:chunk.offset + len(chunk) + 1]
        data = chunk.buffers()[2]
        raw = (np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]]
               if data is not None else np.zeros(0, np.uint8))
        if first is None:
            first = raw[:offsets[1] - offsets[0]].tobytes()
        size = len(first)
        if len(raw) != size * len(chunk) or np.any(np.diff(offsets) != size):
            return None
        if size and not _repeats(raw, np.frombuffer(first, np.uint8)):
            return None
    return first


def _repeats(raw: np.ndarray, value: np.ndarray) -> bool:
    """Whether ``raw`` is ``value`` repeated (its length a multiple of ``value``'s),
    compared 64k values at a time: cache-sized temporaries, not one the size of the
    column (a run file's tag column is as long as the run)."""
    step = len(value) << 16
    rows = value[None, :]
    return all((raw[lo:lo + step].reshape(-1, len(value)) == rows).all()
               for lo in range(0, len(raw), step))


def binary_column(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One contiguous binary array (64-bit offsets when the bytes pass 2 GiB)."""
    if isinstance(column, pa.ChunkedArray):
        nbytes = sum(c.buffers()[2].size if c.buffers()[2] is not None else 0
                     for c in column.chunks)
        if nbytes >= (1 << 31) - 1:
            column = column.cast(pa.large_binary())
        return column.combine_chunks()
    return column


def _row_error(message: str, source: Source, lines: LineMap, topic_ids: np.ndarray,
               topic_codes: np.ndarray, row: int, expected: str) -> InputError:
    return InputError(message, path=source.name, line=lines.line(row),
                      topic=str(topic_ids[topic_codes[row]]), expected=expected)


# --------------------------------------------------------------------- runs
def read_run(path: str | os.PathLike[str], *, name: str | None = None, float32: bool = False,
             split_tags: bool = False) -> Run | list[Run]:
    """Read one TREC run file (any input :func:`~irmeta.io.source.open_source` takes).

    ``name`` overrides the run's name (default: its tag). ``float32=True`` rounds
    scores to 32-bit floats as trec_eval 9.x does (near-equal scores become ties).
    ``split_tags=True`` returns one :class:`Run` per tag instead of rejecting a file
    that mixes tags.
    """
    source = open_source(path)
    table, lines = _read_table(source, RUN, RUN_COLUMNS, _RUN_TYPES)
    # the ids' chunks joined into one array on a helper thread, beside the checks below
    # (a one-chunk column, a small file, needs no copy and no thread)
    column = table.column("docid")
    docids_joined = background(binary_column, column, threaded=column.num_chunks > 1)
    topic_ids, topic_codes = _ids(table.column("topic"))
    scores = numpy_view(table.column("score").combine_chunks())
    scores = np.asarray(scores, dtype=np.float64)
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise _row_error(f"score {float(scores[row])!r} is not finite", source, lines, topic_ids,
                         topic_codes, row, "a finite number")
    if float32:
        scores = scores.astype(np.float32).astype(np.float64)
    tag_ids, tag_codes = _tags(table.column("tag"))
    docids = docids_joined.result()
    del table
    base = Run(name or str(tag_ids[tag_codes[0]]), topic_ids, topic_codes, docids, scores,
               source=source.name, tag=str(tag_ids[tag_codes[0]]), lines=lines,
               spool=source.spool)
    if len(tag_ids) == 1:
        return [base] if split_tags else base
    if not split_tags:
        row = int(np.flatnonzero(tag_codes != tag_codes[0])[0])
        raise _row_error(
            f"the file mixes run tags ({', '.join(map(repr, tag_ids[:5]))}"
            f"{', ...' if len(tag_ids) > 5 else ''}); tag {tag_ids[tag_codes[row]]!r} first "
            f"appears here, after {tag_ids[tag_codes[0]]!r}", source, lines, topic_ids,
            topic_codes, row, "one tag per run file (or split_tags=True / --split-tags)")
    order = sorted(set(tag_codes.tolist()), key=lambda k: tag_ids[k])
    return [_subset_run(base, tag_codes == k, str(tag_ids[k])) for k in order]


def _subset_run(run: Run, mask: np.ndarray, tag: str) -> Run:
    rows = np.flatnonzero(mask)
    lines = None if run.lines is None else run.lines.subset(rows)
    return Run(tag, run.topic_ids, run.topic_codes[rows], run.docids.take(arrow_ints(rows)),
               run.scores[rows], source=run.source, tag=tag, lines=lines, spool=run.spool)


# -------------------------------------------------------------------- qrels
def _grades(column: pa.Array | pa.ChunkedArray, source: Source, lines: LineMap,
            topic_ids: np.ndarray, topic_codes: np.ndarray) -> np.ndarray:
    """Grades from their (few) distinct spellings: integers in [-32767, 32767]."""
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    spellings = col.dictionary.to_pylist()
    codes = numpy_view(col.indices)
    values = np.zeros(len(spellings), dtype=np.int64)
    for k, text in enumerate(spellings):
        problem = None
        if not _GRADE.fullmatch(text):
            problem = f"grade {decode_id(text)!r} is not an integer"
        else:
            grade = int(text.split(b".")[0])   # a Python int: 23 digits do not overflow
            if abs(grade) > MAX_GRADE:
                shown = decode_id(text if len(text) <= 40 else text[:20])
                problem = (f"grade {shown} is out of range" if len(text) <= 40 else
                           f"grade {shown}... ({len(text)} digits) is out of range")
            else:
                values[k] = grade
        if problem is not None:
            rows = np.flatnonzero(codes == k)
            if len(rows):
                raise _row_error(problem, source, lines, topic_ids, topic_codes,
                                 int(rows[0]),
                                 f"an integer relevance grade in [-{MAX_GRADE}, {MAX_GRADE}]")
    grades: np.ndarray = values[codes]
    return grades


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a TREC qrels file (``topic iteration docid grade``)."""
    source = open_source(path)
    table, lines = _read_table(source, QRELS, QRELS_COLUMNS, _QRELS_TYPES)
    topic_ids, topic_codes = _ids(table.column("topic"))
    grades = _grades(table.column("grade"), source, lines, topic_ids, topic_codes)
    docids = binary_column(table.column("docid"))
    return Qrels(topic_ids, topic_codes, docids, grades, source=source.name, lines=lines,
                 spool=source.spool)


def run_name_from_path(path: str | os.PathLike[str]) -> str:
    """A run's name from its file name: extensions ``.gz``, ``.bz2``, ``.xz``, ``.zst``,
    ``.txt``, ``.run``, ``.trec``, ``.res``, ``.tsv`` stripped, and trec_eval's ``input.``
    prefix removed."""
    name = Path(path).name
    for ext in (".gz", ".bz2", ".xz", ".zst", ".txt", ".run", ".trec", ".res", ".tsv"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name

