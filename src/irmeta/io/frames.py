"""Qrels and runs from pandas DataFrames and nested dicts.

DataFrames use the ir_measures / ir_datasets column names: ``query_id, doc_id,
relevance`` (qrels) and ``query_id, doc_id, score`` (runs; an optional ``run``, ``tag``
or ``system`` column splits a frame into several runs), or PyTerrier's: ``qid, docno,
label`` (qrels) and ``qid, docno, score`` (a result frame; its ``rank`` column is ignored:
rankings are ordered by score, ties by docid, as trec_eval and ``pt.Experiment``'s
ir_measures do). A frame with both spellings is read by the ir_measures names. Dicts are
``{topic: {docid: value}}`` (the pytrec_eval / ranx shape).

Ids may be ``str``, ``bytes`` or integers (``1`` is the topic ``"1"``); they become the
bytes of their UTF-8 text, exactly as a file would give them (``docs/conventions.md``).
Missing ids (None, NaN), float ids (usually a column pandas turned to floats because of
a NaN), non-integer grades, booleans and non-finite or overflowing scores are errors
that name the row or the topic.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeta.data.tables import MAX_GRADE, Qrels, Run, decode_id, encode_id
from irmeta.errors import InputError

QRELS_FRAME_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_FRAME_COLUMNS = ("query_id", "doc_id", "score")
#: PyTerrier's column names -> ir_measures' (pyterrier.model.to_ir_measures' mapping)
PYTERRIER_COLUMNS = {"qid": "query_id", "docno": "doc_id", "label": "relevance"}


def _renamed(frame: Any) -> Any:
    """A PyTerrier frame (``qid, docno``) with the ir_measures column names; any other
    object unchanged."""
    if (isinstance(frame, pd.DataFrame) and "query_id" not in frame.columns
            and "qid" in frame.columns and "docno" in frame.columns):
        keep = {k: v for k, v in PYTERRIER_COLUMNS.items()
                if k in frame.columns and v not in frame.columns}
        return frame.rename(columns=keep)
    return frame


def _require(frame: object, columns: Sequence[str], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"{what}: expected a DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        pyterrier = {v: k for k, v in PYTERRIER_COLUMNS.items()}
        raise InputError(f"{what} DataFrame lacks column(s) {', '.join(missing)}",
                         expected="columns " + ", ".join(columns) + " (or PyTerrier's "
                                  + ", ".join(pyterrier.get(c, c) for c in columns) + ")")


def _id_bytes(value: object, column: str, row: int, source: str) -> bytes:
    if isinstance(value, str):
        return encode_id(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    if (isinstance(value, (numbers.Integral, np.integer))
            and not isinstance(value, (bool, np.bool_))):
        return str(int(value)).encode()
    what = "missing" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value!r} ({type(value).__name__})"
    raise InputError(f"{column} is {what}", path=source,
                     expected=f"a str, bytes or integer id (row {row})")


def _ids(values: pd.Series, column: str, source: str) -> pa.Array:
    """An id column as an Arrow binary array (fast path for clean str columns)."""
    arr = values.to_numpy(dtype=object)
    try:
        out = pa.array(arr, type=pa.string(), from_pandas=True)
        if out.null_count == 0:
            return out.cast(pa.binary())
    except (pa.ArrowException, UnicodeEncodeError, TypeError, ValueError):
        pass
    return pa.array([_id_bytes(v, column, i, source) for i, v in enumerate(arr)], pa.binary())


def _topics(values: pd.Series, source: str) -> tuple[np.ndarray, np.ndarray]:
    ids = _ids(values, "query_id", source)
    encoded = ids.dictionary_encode()
    names = np.empty(len(encoded.dictionary), dtype=object)
    names[:] = [decode_id(v) for v in encoded.dictionary.to_pylist()]
    return names, encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32)


def _first_bad(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def _grades(column: pd.Series, topics: pd.Series, source: str) -> np.ndarray:
    numeric = (pd.api.types.is_integer_dtype(column.dtype)
               or pd.api.types.is_float_dtype(column.dtype)) and column.dtype != bool
    if numeric and len(column):
        f = column.to_numpy(dtype=np.float64)
        if np.all(np.isfinite(f) & (f == np.round(f)) & (np.abs(f) <= MAX_GRADE)):
            return f.astype(np.int64)
    values = column.to_numpy(dtype=object)
    out = np.zeros(len(values), dtype=np.int64)
    for i, g in enumerate(values):
        ok = isinstance(g, (numbers.Real, np.number)) and not isinstance(g, (bool, np.bool_))
        big = False
        if ok:
            try:
                x = float(g)
                ok = math.isfinite(x) and x == int(x)
            except OverflowError:       # an int beyond the float range (10**400)
                big = True
        if not ok and not big:
            raise InputError(f"relevance {g!r} is not an integer", path=source,
                             topic=str(topics.iloc[i]), expected=f"an integer grade (row {i})")
        if big or abs(int(g)) > MAX_GRADE:   # checked before it meets an int64
            text = repr(g)
            shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
            raise InputError(f"relevance {shown} is out of range", path=source,
                             topic=str(topics.iloc[i]),
                             expected=f"a grade in [-{MAX_GRADE}, {MAX_GRADE}] (row {i})")
        out[i] = int(g)
    return out


def _scores(column: pd.Series, topics: pd.Series, source: str) -> np.ndarray:
    if pd.api.types.is_float_dtype(column.dtype) or (
            pd.api.types.is_integer_dtype(column.dtype) and column.dtype != bool):
        scores = column.to_numpy(dtype=np.float64)
        bad = ~np.isfinite(scores)
    else:
        values = column.to_numpy(dtype=object)
        scores = np.zeros(len(values), dtype=np.float64)
        bad = np.zeros(len(values), dtype=bool)
        for i, s in enumerate(values):
            try:
                if isinstance(s, (bool, np.bool_)) or not isinstance(s, (numbers.Real, np.number)):
                    raise TypeError
                scores[i] = float(s)
            except (TypeError, OverflowError, ValueError):
                bad[i] = True
        bad |= ~np.isfinite(scores)
    if bad.any():
        i = _first_bad(bad)
        shown = column.iloc[i]
        shown = shown.item() if isinstance(shown, np.generic) else shown  # nan, not np.float64(nan)
        raise InputError(f"score {shown!r} is not a finite number", path=source,
                         topic=str(topics.iloc[i]), expected=f"a finite number (row {i})")
    return scores


def qrels_from_frame(frame: pd.DataFrame, source: str = "<DataFrame>") -> Qrels:
    """Qrels from a DataFrame with columns ``query_id, doc_id, relevance``."""
    frame = _renamed(frame)
    _require(frame, QRELS_FRAME_COLUMNS, "qrels")
    grades = _grades(frame["relevance"], frame["query_id"], source)
    ids, codes = _topics(frame["query_id"], source)
    return Qrels(ids, codes, _ids(frame["doc_id"], "doc_id", source), grades, source=source)


def run_from_frame(frame: pd.DataFrame, name: str = "run", source: str = "<DataFrame>") -> Run:
    """One run from a DataFrame with columns ``query_id, doc_id, score``."""
    frame = _renamed(frame)
    _require(frame, RUN_FRAME_COLUMNS, "run")
    scores = _scores(frame["score"], frame["query_id"], source)
    ids, codes = _topics(frame["query_id"], source)
    return Run(name, ids, codes, _ids(frame["doc_id"], "doc_id", source), scores,
               source=source)


def runs_from_frame(frame: pd.DataFrame, name: str = "run") -> list[Run]:
    """Runs from a DataFrame; a ``run`` (or ``tag``, ``system``) column splits it."""
    frame = _renamed(frame)
    _require(frame, RUN_FRAME_COLUMNS, "run")
    for col in ("run", "tag", "system"):
        if col in frame.columns:
            return [run_from_frame(part, str(key)) for key, part in
                    frame.groupby(col, sort=False)]
    return [run_from_frame(frame, name)]


def _rows(data: object, what: str, source: str) -> pd.DataFrame:
    """``{topic: {docid: value}}`` as a frame, checking the nesting."""
    if not isinstance(data, Mapping):
        raise InputError(f"{what}: expected a {{topic: {{docid: value}}}} dict, "
                         f"got {type(data).__name__}", path=source)
    rows: list[tuple[object, object, object]] = []
    for t, docs in data.items():
        if not isinstance(docs, Mapping):
            raise InputError(f"expected a {{docid: value}} dict for this topic, got "
                             f"{type(docs).__name__}", path=source, topic=str(t))
        rows.extend((t, d, v) for d, v in docs.items())
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "value"], dtype=object)


def qrels_from_dict(data: Mapping[Any, Any], source: str = "<dict>") -> Qrels:
    """Qrels from ``{topic: {docid: grade}}``."""
    frame = _rows(data, "qrels", source).rename(columns={"value": "relevance"})
    return qrels_from_frame(frame, source=source)


def run_from_dict(data: Mapping[Any, Any], name: str = "run", source: str = "<dict>") -> Run:
    """A run from ``{topic: {docid: score}}``."""
    frame = _rows(data, "run", source).rename(columns={"value": "score"})
    return run_from_frame(frame, name, source=source)
