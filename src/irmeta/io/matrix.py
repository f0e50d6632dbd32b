"""Read systems x topics score matrices computed elsewhere (for GAWM, HITS, analyses).

Two layouts, plain or gzip (detected by magic bytes), fields separated by tabs, commas
or runs of blanks (decided from the first data line):

* **long**: one line per cell, ``run topic value``. A header line is optional; when
  present its column names decide which column is which (run: ``run``, ``runid``,
  ``run_id``, ``system``, ``sys``, ``tag``; topic: ``topic``, ``query``, ``qid``,
  ``query_id``, ``topic_id``; value: ``value``, ``score`` or else the last column). A
  ``measure`` column (irmeta's own ``--format tsv`` output) is allowed: pass ``measure=``
  to pick one when the file holds several. Example: the DL nDCG@10 files
  ``runid,topic,ndcg_cut_10``.
* **wide**: a header line and one line per row, the first column holding the row
  labels. The first header field says what the rows are: a topic name (``topic``,
  ``query``, ...) means rows = topics and columns = systems (the TREC 2010 Web files),
  a run name (``run``, ``system``, ...) rows = systems; otherwise pass ``rows=``.

Summary rows — topic ``average``, ``all`` (trec_eval's, irmeta's) — are dropped
(``summary_topics``). Labels are kept as strings ("001" stays "001"). Values must be
numbers; ``nan``/``NA``/empty mark a missing cell. A (run, topic) pair given twice, an
unparsable value or an infinite one is an :class:`~irmeta.errors.InputError` naming the
file and line. Missing cells are an error unless ``missing="nan"`` (keep NaN) or a number
to fill them with (e.g. ``missing=0``).

The result is always a DataFrame with rows = runs (index name ``run``) and columns =
topics (name ``topic``), in order of first appearance.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import pandas as pd

from irmeta.errors import InputError, ParameterError
from irmeta.io.trec import read_bytes

RUN_NAMES = ("run", "runid", "run_id", "system", "systems", "sys", "tag", "runs")
TOPIC_NAMES = ("topic", "topics", "query", "qid", "query_id", "topic_id", "queries")
VALUE_NAMES = ("value", "score")
MISSING_TOKENS = ("", "nan", "na", "n/a", "null", "none", "-")
SUMMARY_TOPICS = ("average", "all")


def _split_fn(first: str) -> Callable[[str], list[str]]:
    if "\t" in first:
        return lambda line: [f.strip() for f in line.split("\t")]
    if "," in first:
        return lambda line: [f.strip() for f in line.split(",")]
    return str.split


def _value(text: str, path: str, line: int) -> float | None:
    """float, or None for a missing-cell token; InputError otherwise."""
    if text.lower() in MISSING_TOKENS:
        return None
    try:
        v = float(text)
    except ValueError:
        raise InputError(f"value {text!r} is not a number", path=path, line=line) from None
    if np.isnan(v):
        return None
    if np.isinf(v):
        raise InputError(f"value {text!r} is infinite", path=path, line=line)
    return v


def _lines(path: str) -> list[tuple[int, str]]:
    raw = read_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", path=path) from None
    out = [(i + 1, ln.rstrip("\r")) for i, ln in enumerate(text.split("\n"))]
    out = [(i, ln) for i, ln in out if ln.strip() and not ln.lstrip().startswith("#")]
    if not out:
        raise InputError("empty file: no score matrix", path=path)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return text.lower() in MISSING_TOKENS


def read_matrix(path: str | os.PathLike[str], *, layout: str = "auto", rows: str | None = None,
                measure: str | None = None, missing: str | float = "error",
                summary_topics: Iterable[str] = SUMMARY_TOPICS) -> pd.DataFrame:
    """A runs x topics score matrix read from ``path`` (see the module docstring).

    ``layout``: ``auto`` (long if a header of at most 4 fields names a run and a topic
    column, or if there is no header and 3 fields per line; wide otherwise), ``long`` or ``wide``.
    ``rows``: for wide files, ``topics`` or ``systems`` (default: from the header).
    ``measure``: the measure to keep when a long file has a ``measure`` column.
    ``missing``: ``"error"`` (default), ``"nan"``, or a number that fills missing cells.
    """
    func = "read_matrix"
    if layout not in ("auto", "long", "wide"):
        raise ParameterError(f"{func}: layout must be 'auto', 'long' or 'wide', got {layout!r}")
    if rows not in (None, "topics", "systems", "runs"):
        raise ParameterError(f"{func}: rows must be 'topics' or 'systems', got {rows!r}")
    if not (missing in ("error", "nan") or (isinstance(missing, (int, float))
                                           and not isinstance(missing, bool)
                                           and np.isfinite(missing))):
        raise ParameterError(f"{func}: missing must be 'error', 'nan' or a finite number, "
                             f"got {missing!r}")
    p = str(path)
    lines = _lines(p)
    split = _split_fn(lines[0][1])
    header = split(lines[0][1])
    lower = [h.lower() for h in header]
    has_header = not all(_is_number(f) for f in header[2:]) if len(header) > 2 else True
    long_header = (len(header) <= 4 and any(h in RUN_NAMES for h in lower)
                   and any(h in TOPIC_NAMES for h in lower))
    if layout == "auto":
        layout = "long" if (long_header or (not has_header and len(header) == 3)) else "wide"
    summary = {str(s).lower() for s in summary_topics}
    if layout == "long":
        frame = _read_long(p, lines, split, header if has_header else None, measure, summary)
    else:
        if not has_header:
            raise InputError("a wide matrix needs a header line naming its columns", path=p,
                             line=lines[0][0])
        frame = _read_wide(p, lines, split, header, rows, summary)
    frame.index.name, frame.columns.name = "run", "topic"
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise InputError(f"no scores found (matrix is {frame.shape[0]} x {frame.shape[1]})",
                         path=p)
    holes = frame.isna().to_numpy()
    if holes.any():
        if missing == "error":
            r, t = np.argwhere(holes)[0]
            raise InputError(
                f"{int(holes.sum())} of {holes.size} cells missing, first run "
                f"{frame.index[r]!r} on topic {frame.columns[t]!r}; pass missing='nan' to keep "
                f"them as NaN or a number (e.g. 0) to fill them (CLI: irmeta aggregate "
                f"--missing)", path=p,
                topic=str(frame.columns[t]))
        if missing != "nan":
            frame = frame.fillna(float(missing))
    return frame


def _column(lower: list[str], names: Sequence[str], what: str, path: str) -> int:
    for i, h in enumerate(lower):
        if h in names:
            return i
    raise InputError(f"header has no {what} column (one of {', '.join(names)})", path=path, line=1)


def _read_long(path: str, lines: list[tuple[int, str]], split: Callable[[str], list[str]],
               header: list[str] | None, measure: str | None,
               summary: set[str]) -> pd.DataFrame:
    if header is None:
        ir, it, iv, im = 0, 1, 2, None
        body = lines
    else:
        lower = [h.lower() for h in header]
        ir = _column(lower, RUN_NAMES, "run", path)
        it = _column(lower, TOPIC_NAMES, "topic", path)
        iv = next((i for i, h in enumerate(lower) if h in VALUE_NAMES), len(header) - 1)
        im = lower.index("measure") if "measure" in lower else None
        if iv in (ir, it) or iv == im:
            raise InputError("header has no value column", path=path, line=lines[0][0])
        body = lines[1:]
    width = (len(header) if header is not None else 3)
    runs: dict[str, int] = {}
    topics: dict[str, int] = {}
    cells: dict[tuple[int, int], tuple[float | None, int]] = {}
    measures: set[str] = set()
    for lineno, line in body:
        fields = split(line)
        if len(fields) != width:
            raise InputError(f"{len(fields)} fields", path=path, line=lineno,
                             expected=f"{width} fields like the first line")
        if im is not None:
            if measure is None:
                measures.add(fields[im])
                if len(measures) > 1:
                    raise InputError(f"the file holds several measures "
                                     f"({', '.join(sorted(measures))}"
                                     f"...); pick one with measure= (CLI: --measure-name)",
                                     path=path, line=lineno)
            elif fields[im] != measure:
                continue
        topic = fields[it]
        if topic.lower() in summary:
            continue
        run = fields[ir]
        key = (runs.setdefault(run, len(runs)), topics.setdefault(topic, len(topics)))
        if key in cells:
            raise InputError(f"run {run!r} scored twice on this topic (also line {cells[key][1]})",
                             path=path, line=lineno, topic=topic)
        cells[key] = (_value(fields[iv], path, lineno), lineno)
    if im is not None and measure is not None and not cells:
        raise InputError(f"no line with measure {measure!r}", path=path)
    data = np.full((len(runs), len(topics)), np.nan)
    for (r, t), (v, _) in cells.items():
        if v is not None:
            data[r, t] = v
    return pd.DataFrame(data, index=pd.Index(list(runs), dtype=object),
                        columns=pd.Index(list(topics), dtype=object))


def _read_wide(path: str, lines: list[tuple[int, str]], split: Callable[[str], list[str]],
               header: list[str], rows: str | None, summary: set[str]) -> pd.DataFrame:
    kind = header[0].lower()
    if rows is None:
        if kind in TOPIC_NAMES:
            rows = "topics"
        elif kind in RUN_NAMES:
            rows = "systems"
        else:
            raise InputError(f"cannot tell whether the rows are topics or systems from the first "
                             f"header field {header[0]!r}; pass rows='topics' or rows='systems' "
                             f"(CLI: --rows)", path=path, line=lines[0][0])
    cols = header[1:]
    seen: dict[str, int] = {}
    for c in cols:
        if c in seen:
            raise InputError(f"column {c!r} appears twice in the header", path=path,
                             line=lines[0][0])
        seen[c] = 1
    labels: list[str] = []
    data: list[list[float]] = []
    where: dict[str, int] = {}
    for lineno, line in lines[1:]:
        fields = split(line)
        if len(fields) != len(header):
            raise InputError(f"{len(fields)} fields", path=path, line=lineno,
                             expected=f"{len(header)} like the header")
        label = fields[0]
        if label in where:
            raise InputError(f"row {label!r} appears twice (also line {where[label]})",
                             path=path, line=lineno)
        where[label] = lineno
        labels.append(label)
        data.append([np.nan if (v := _value(f, path, lineno)) is None else v for f in fields[1:]])
    frame = pd.DataFrame(np.asarray(data, dtype=np.float64).reshape(len(labels), len(cols)),
                         index=pd.Index(labels, dtype=object), columns=pd.Index(cols, dtype=object))
    if rows == "topics":
        frame = frame.T
    keep_t = [t for t in frame.columns if str(t).lower() not in summary]
    keep_r = [r for r in frame.index if str(r).lower() not in summary]
    return frame.loc[keep_r, keep_t]

