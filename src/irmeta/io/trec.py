"""Read TREC qrels and run files (plain or gzip, detected by magic bytes).

Reading is columnar: the whole file is handed to Arrow's multithreaded CSV reader
(single-tab or single-space separated files, the common case), falling back to pandas'
C whitespace reader for files with runs of blanks. Neither reports a usable line number
when a line is malformed, so when a fast path fails the file is scanned once, line by
line, only to locate and describe the first problem (:func:`_diagnose`). Valid files
never take that path.

Format rules (``docs/conventions.md``):

* qrels: ``topic iteration docid grade`` — grade an integer, possibly negative;
* run: ``topic Q0 docid rank score tag`` — rank ignored, score a finite number;
* lines whose first non-blank character is ``#`` are comments; blank lines are skipped;
* one tag per run file unless ``split_tags=True``.
"""

from __future__ import annotations

import gzip
import io
import math
import os
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from irmeta.data.tables import Qrels, Run
from irmeta.errors import InputError

GZIP_MAGIC = b"\x1f\x8b"
RUN_COLUMNS = ["topic", "q0", "docid", "rank", "score", "tag"]
QRELS_COLUMNS = ["topic", "iteration", "docid", "grade"]
_COMMENT = re.compile(rb"^[ \t]*#")


def read_bytes(path: str | os.PathLike) -> bytes:
    """The decompressed content of a file; gzip is detected by its magic bytes."""
    p = str(path)
    try:
        with open(p, "rb") as fh:
            raw = fh.read()
    except FileNotFoundError:
        raise InputError("no such file", path=p) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", path=p) from None
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path=p) from None
    if raw[:2] == GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"unreadable gzip data ({exc})", path=p) from None
    return raw


def _strip_comments(raw: bytes) -> tuple[bytes, np.ndarray | None]:
    """Drop comment lines (first non-blank character ``#``) and blank lines; return the
    data and, if any line was dropped, the 1-based original line of each kept line.

    Fast path: a file with no ``#`` at a line start is returned as is (Arrow skips blank
    lines itself; :func:`line_numbers` recovers exact lines when an error needs them).
    """
    if raw.find(b"#") < 0 or not (raw.startswith(b"#") or b"\n#" in raw):
        return raw, None
    lines = raw.split(b"\n")
    keep = [i for i, ln in enumerate(lines) if ln.strip() and not _COMMENT.match(ln)]
    kept = b"\n".join(lines[i].rstrip(b"\r") for i in keep) + b"\n"
    return kept, np.asarray(keep, dtype=np.int64) + 1


def line_numbers(raw: bytes) -> np.ndarray:
    """1-based line of each data row (rows skip blank and comment lines)."""
    lines = raw.split(b"\n")
    return np.asarray([i for i, ln in enumerate(lines)
                       if ln.strip() and not _COMMENT.match(ln)], dtype=np.int64) + 1


def _stream(path: str):
    """An Arrow input stream over the file, gzip-decompressed when its magic bytes say so
    (never the whole file in memory)."""
    with open(path, "rb") as fh:
        magic = fh.read(2)
    return pa.input_stream(path, compression="gzip" if magic == GZIP_MAGIC else None)


def _head(path: str, size: int = 1 << 16) -> bytes:
    with _stream(path) as fh:
        return fh.read(size)


def _fast_table(path: str, names: list[str], types: dict, include: list[str]) -> pa.Table | None:
    """Parse the file straight from disk with Arrow when it is a plain single-tab or
    single-space file; None when anything is unusual (comments, runs of blanks, a bad
    line, ...), which sends the caller to the careful path."""
    try:
        head = _head(path)
        if not head.strip() or head.lstrip().startswith(b"#"):
            return None
        delim = _delimiter(head, len(names))
        if delim is None:
            return None
        with _stream(path) as fh:
            table = _arrow_table(fh, names, types, include, delim)
    except (OSError, pa.ArrowException, EOFError, zlib.error):
        return None
    _parse_pool().release_unused()  # give the parser's scratch back
    topics = table.column("topic").combine_chunks()
    values = topics.dictionary if pa.types.is_dictionary(topics.type) else topics
    import pyarrow.compute as pc
    if pc.any(pc.starts_with(values, "#")).as_py():
        return None  # comment lines that happened to have the right number of fields
    return table


def _delimiter(raw: bytes, ncols: int) -> str | None:
    first = raw[: raw.find(b"\n")] if b"\n" in raw else raw
    for delim in ("\t", " "):
        fields = first.split(delim.encode())
        if len(fields) == ncols and all(fields):
            return delim
    return None


def _parse_pool():
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


_POOL = None


def _arrow_table(source, names: list[str], types: dict, include: list[str],
                 delim: str) -> pa.Table:
    if isinstance(source, (bytes, bytearray, memoryview)):
        source = pa.BufferReader(source)
    return pacsv.read_csv(
        source, memory_pool=_parse_pool(),
        read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 22),
        parse_options=pacsv.ParseOptions(delimiter=delim, quote_char=False,
                                          double_quote=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(column_types=types, include_columns=include,
                                             strings_can_be_null=False,
                                             quoted_strings_can_be_null=False),
    )


def _whitespace_table(raw: bytes, names: list[str], include: list[str]) -> pa.Table:
    frame = pd.read_csv(io.BytesIO(raw), sep=r"\s+", header=None, names=names,
                        usecols=include, dtype=str, engine="c", quoting=3,
                        keep_default_na=False, na_filter=False)
    if (frame == "").to_numpy().any():  # a short line: pandas pads it with empty fields
        raise ValueError("missing fields")
    return pa.Table.from_pandas(frame, preserve_index=False)


def _parse(raw: bytes, names: list[str], types: dict, include: list[str],
           path: str, kind: str, line_of_row) -> pa.Table:
    delim = _delimiter(raw, len(names))
    if delim is not None:
        try:
            return _arrow_table(raw, names, types, include, delim)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    try:
        return _whitespace_table(raw, names, include)
    except (pd.errors.ParserError, ValueError):
        pass
    _diagnose(raw, path, kind, line_of_row)
    if kind == "run":  # lines with fields after the tag: ignored, as trec_eval does
        return _tolerant_table(raw, names, include)
    raise InputError(f"cannot parse {kind} file", path=path)


def _tolerant_table(raw: bytes, names: list[str], include: list[str]) -> pa.Table:
    """Slow path for run files whose lines carry extra fields after the tag."""
    rows = [ln.split()[: len(names)] for ln in raw.decode("utf-8", errors="replace").split("\n")]
    rows = [r for r in rows if r and not r[0].startswith("#")]
    columns = {name: [r[i] for r in rows] for i, name in enumerate(names) if name in include}
    return pa.table(columns)


def _careful_table(path: str, kind: str, names: list[str], types: dict, include: list[str]):
    """The careful path: the whole file in memory, comments stripped, whitespace-tolerant
    parsing, and a line-by-line diagnosis of the first bad line. Returns
    ``(table, data, line_of_row)``."""
    raw = read_bytes(path)
    _nonempty(raw, path, kind)
    data, line_of_row = _strip_comments(raw)
    del raw
    _nonempty(data, path, kind)
    return _parse(data, names, types, include, path, kind, line_of_row), data, line_of_row


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _diagnose(raw: bytes, path: str, kind: str, line_of_row=None) -> None:
    """Scan the file line by line and raise an :class:`InputError` for the first
    malformed line. Called only after a fast path failed."""
    ncols = 6 if kind == "run" else 4
    expected = ("6 fields: topic Q0 docid rank score tag" if kind == "run"
                else "4 fields: topic iteration docid grade")
    for idx, line in enumerate(raw.decode("utf-8", errors="replace").split("\n")):
        lineno = int(line_of_row[idx]) if line_of_row is not None and idx < len(line_of_row) else idx + 1
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        topic = fields[0]
        if len(fields) < ncols or (kind == "qrels" and len(fields) != ncols):
            raise InputError(f"{len(fields)} fields", path=path, line=lineno,
                             topic=topic, expected=expected)
        if kind == "run":
            value = _number(fields[4])
            if value is None:
                raise InputError(f"score {fields[4]!r} is not a number", path=path,
                                 line=lineno, topic=topic, expected="a finite number")
            if not math.isfinite(value):
                raise InputError(f"score {fields[4]!r} is not finite", path=path,
                                 line=lineno, topic=topic, expected="a finite number")
        else:
            try:
                int(fields[3])
            except ValueError:
                raise InputError(f"grade {fields[3]!r} is not an integer", path=path,
                                 line=lineno, topic=topic,
                                 expected="an integer relevance grade") from None


def _topic_codes(column) -> tuple[np.ndarray, np.ndarray]:
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if not pa.types.is_dictionary(col.type):
        col = col.dictionary_encode()
    ids = np.asarray(col.dictionary.to_pylist(), dtype=object)
    codes = col.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    return ids, codes


def _string_column(column) -> pa.Array:
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if pa.types.is_dictionary(col.type):
        col = col.dictionary_decode()
    return col


def _nonempty(raw: bytes, path: str, kind: str) -> None:
    if re.search(rb"[^\s]", raw) is None:
        raise InputError(f"empty {kind} file", path=path,
                         expected="at least one line" + (": topic Q0 docid rank score tag"
                                                         if kind == "run" else
                                                         ": topic iteration docid grade"))


def read_run(path: str | os.PathLike, *, name: str | None = None, float32: bool = False,
             split_tags: bool = False) -> Run | list[Run]:
    """Read one TREC run file.

    ``name`` overrides the run's name (default: its tag). ``float32=True`` rounds
    scores to 32-bit floats as trec_eval 9.x does (near-equal scores become ties).
    ``split_tags=True`` returns one :class:`Run` per tag instead of rejecting a file
    that mixes tags.
    """
    p = str(path)
    types = {"topic": pa.dictionary(pa.int32(), pa.string()), "docid": pa.string(),
             "score": pa.float64(), "tag": pa.dictionary(pa.int32(), pa.string())}
    include = ["topic", "docid", "score", "tag"]
    table = _fast_table(p, RUN_COLUMNS, types, include)
    data = line_of_row = None
    if table is None or not _finite(table.column("score")):
        table, data, line_of_row = _careful_table(p, "run", RUN_COLUMNS, types, include)
    scores = _scores(table.column("score"), data, p, line_of_row)
    if float32:
        scores = scores.astype(np.float32).astype(np.float64)
    topic_ids, topic_codes = _topic_codes(table.column("topic"))
    tag_ids, tag_codes = _topic_codes(table.column("tag"))
    if any(len(str(t).split()) != 1 for t in tag_ids):  # tab-separated "tag junk ..."
        first_words = np.asarray([str(t).split()[0] if str(t).split() else "" for t in tag_ids],
                                 dtype=object)
        tag_ids, inverse = np.unique(first_words, return_inverse=True)
        tag_codes = inverse.astype(np.int32)[tag_codes]
    docids = _string_column(table.column("docid"))
    base = Run(name or str(tag_ids[tag_codes[0]]), topic_ids, topic_codes, docids, scores,
               source=p, tag=str(tag_ids[tag_codes[0]]), line_of_row=line_of_row)
    if len(tag_ids) == 1:
        return [base] if split_tags else base
    if not split_tags:
        row = int(np.flatnonzero(tag_codes != tag_codes[0])[0])
        raise InputError(
            f"the file mixes run tags ({', '.join(map(repr, tag_ids[:5]))}"
            f"{', ...' if len(tag_ids) > 5 else ''}); tag {tag_ids[tag_codes[row]]!r} first "
            f"appears here, after {tag_ids[tag_codes[0]]!r}",
            path=p, line=base.line(row), topic=str(topic_ids[topic_codes[row]]),
            expected="one tag per run file (or split_tags=True / --split-tags)")
    return [_subset_run(base, tag_codes == k, str(tag_ids[k])) for k in range(len(tag_ids))]


def _subset_run(run: Run, mask: np.ndarray, tag: str) -> Run:
    rows = np.flatnonzero(mask)
    lines = run.line_of_row[rows] if run.line_of_row is not None else rows + 1
    return Run(tag, run.topic_ids, run.topic_codes[rows], run.docids.take(pa.array(rows)),
               run.scores[rows], source=run.source, tag=tag, line_of_row=lines)


def _finite(column) -> bool:
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    return pa.types.is_floating(col.type) and bool(
        np.isfinite(col.to_numpy(zero_copy_only=False)).all())


def _scores(column, raw: bytes | None, path: str, line_of_row) -> np.ndarray:
    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if not pa.types.is_floating(col.type):
        values = pd.to_numeric(pd.Series(col.to_numpy(zero_copy_only=False)), errors="coerce")
        values = values.to_numpy(dtype=np.float64)
        if np.isnan(values).any():
            _diagnose(raw if raw is not None else read_bytes(path), path, "run", line_of_row)
    else:
        values = col.to_numpy(zero_copy_only=False).astype(np.float64, copy=False)
    if not np.isfinite(values).all():
        _diagnose(raw if raw is not None else read_bytes(path), path, "run", line_of_row)
        raise InputError("a score is not a finite number", path=path)
    return values


def read_qrels(path: str | os.PathLike) -> Qrels:
    """Read a TREC qrels file (``topic iteration docid grade``)."""
    p = str(path)
    types = {"topic": pa.dictionary(pa.int32(), pa.string()), "docid": pa.string(),
             "grade": pa.int64()}
    include = ["topic", "docid", "grade"]
    table = _fast_table(p, QRELS_COLUMNS, types, include)
    data = line_of_row = None
    if table is None:
        table, data, line_of_row = _careful_table(p, "qrels", QRELS_COLUMNS, types, include)
    grade_col = table.column("grade").combine_chunks()
    if not pa.types.is_integer(grade_col.type):
        text = grade_col.to_numpy(zero_copy_only=False)
        grades = pd.to_numeric(pd.Series(text), errors="coerce")
        if grades.isna().any() or not np.all(grades == np.round(grades)):
            _diagnose(data if data is not None else read_bytes(p), p, "qrels", line_of_row)
        grades = grades.to_numpy().astype(np.int64)
    else:
        grades = grade_col.to_numpy().astype(np.int64, copy=False)
    topic_ids, topic_codes = _topic_codes(table.column("topic"))
    docids = _string_column(table.column("docid"))
    return Qrels(topic_ids, topic_codes, docids, grades, source=p, line_of_row=line_of_row)


def run_name_from_path(path: str | os.PathLike) -> str:
    """A run's name from its file name: extensions ``.gz``, ``.txt``, ``.run``,
    ``.trec``, ``.res`` stripped, and trec_eval's ``input.`` prefix removed."""
    name = Path(path).name
    for ext in (".gz", ".txt", ".run", ".trec", ".res", ".tsv"):
        if name.endswith(ext):
            name = name[: -len(ext)]
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name
