"""Qrels and runs from pandas DataFrames and nested dicts.

DataFrames use the ir_measures / ir_datasets column names: ``query_id, doc_id,
relevance`` (qrels) and ``query_id, doc_id, score`` (runs; an optional ``run`` or
``tag`` column splits a frame into several runs). Dicts are ``{topic: {docid: value}}``
(the pytrec_eval / ranx shape). Ids are converted to strings, never to numbers.
"""

from __future__ import annotations

import math
from typing import Mapping

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeta.data.tables import Qrels, Run
from irmeta.errors import InputError

QRELS_FRAME_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_FRAME_COLUMNS = ("query_id", "doc_id", "score")


def _require(frame: pd.DataFrame, columns, what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(f"{what} DataFrame lacks column(s) {', '.join(missing)}",
                         expected="columns " + ", ".join(columns))


def _codes(values) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = pd.factorize(pd.Series(values).astype(str), sort=False)
    return np.asarray(uniques, dtype=object), codes.astype(np.int32)


def qrels_from_frame(frame: pd.DataFrame) -> Qrels:
    """Qrels from a DataFrame with columns ``query_id, doc_id, relevance``."""
    _require(frame, QRELS_FRAME_COLUMNS, "qrels")
    rel = pd.to_numeric(frame["relevance"], errors="coerce")
    bad = rel.isna() | (rel != np.round(rel))
    if bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(f"relevance {frame['relevance'].iloc[i]!r} is not an integer",
                         path="<DataFrame>", line=None, topic=str(frame["query_id"].iloc[i]),
                         expected=f"an integer grade (row {i})")
    ids, codes = _codes(frame["query_id"])
    return Qrels(ids, codes, pa.array(frame["doc_id"].astype(str).to_numpy(), pa.string()),
                 rel.to_numpy().astype(np.int64), source="<DataFrame>")


def run_from_frame(frame: pd.DataFrame, name: str = "run") -> Run:
    """One run from a DataFrame with columns ``query_id, doc_id, score``."""
    _require(frame, RUN_FRAME_COLUMNS, "run")
    scores = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=np.float64)
    bad = ~np.isfinite(scores)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(f"score {frame['score'].iloc[i]!r} is not a finite number",
                         path="<DataFrame>", topic=str(frame["query_id"].iloc[i]),
                         expected=f"a finite number (row {i})")
    ids, codes = _codes(frame["query_id"])
    return Run(name, ids, codes, pa.array(frame["doc_id"].astype(str).to_numpy(), pa.string()),
               scores, source="<DataFrame>")


def runs_from_frame(frame: pd.DataFrame, name: str = "run") -> list[Run]:
    """Runs from a DataFrame; a ``run`` (or ``tag``) column splits it into several."""
    for col in ("run", "tag", "system"):
        if col in frame.columns:
            return [run_from_frame(part, str(key)) for key, part in
                    frame.groupby(col, sort=False)]
    return [run_from_frame(frame, name)]


def qrels_from_dict(data: Mapping) -> Qrels:
    """Qrels from ``{topic: {docid: grade}}``."""
    rows = [(str(t), str(d), g) for t, docs in data.items() for d, g in docs.items()]
    for t, d, g in rows:
        if not isinstance(g, (int, np.integer)) and not (isinstance(g, float) and g.is_integer()):
            raise InputError(f"grade {g!r} of document {d!r} is not an integer", topic=t,
                             path="<dict>", expected="an integer grade")
    frame = pd.DataFrame(rows, columns=list(QRELS_FRAME_COLUMNS))
    out = qrels_from_frame(frame)
    out.source = "<dict>"
    return out


def run_from_dict(data: Mapping, name: str = "run") -> Run:
    """A run from ``{topic: {docid: score}}``."""
    rows = [(str(t), str(d), s) for t, docs in data.items() for d, s in docs.items()]
    for t, d, s in rows:
        if not isinstance(s, (int, float, np.integer, np.floating)) or not math.isfinite(s):
            raise InputError(f"score {s!r} of document {d!r} is not a finite number",
                             topic=t, path="<dict>", expected="a finite number")
    frame = pd.DataFrame(rows, columns=list(RUN_FRAME_COLUMNS))
    out = run_from_frame(frame, name)
    out.source = "<dict>"
    return out
