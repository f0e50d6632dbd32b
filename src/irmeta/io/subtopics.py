"""Read subtopic (diversity) qrels: ``topic subtopic docid grade`` (TREC Web track).

The file is tokenised exactly as a qrels file (:mod:`irmeta.io.trec`: whitespace, comments,
compression, byte ids, integer grades) — only the second column is kept, as the subtopic
id, instead of being ignored. The same (topic, document) appears once per subtopic, which
the plain qrels reader refuses as "judged twice"; a (topic, subtopic, document) judged twice
is refused when the campaign is built (:func:`irmeta.data.subtopics.subtopic_table`).
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeta.data.subtopics import SubtopicQrels
from irmeta.data.tables import Qrels
from irmeta.errors import InputError
from irmeta.io import frames, trec
from irmeta.io.source import open_source
from irmeta.io.tokens import QRELS

COLUMNS = ["topic", "subtopic", "docid", "grade"]
_TYPES = {"topic": trec._ID, "subtopic": trec._ID, "docid": pa.binary(), "grade": trec._ID}
#: DataFrame column of the subtopic (ir_measures / pyndeval: ``iteration`` / ``subtopic_id``)
FRAME_SUBTOPIC = ("subtopic_id", "subtopic", "iteration")


def read_subtopic_qrels(path: str | os.PathLike[str]) -> SubtopicQrels:
    """Read a subtopic qrels file (``topic subtopic docid grade``)."""
    source = open_source(path)
    table, lines = trec._read_table(source, QRELS, COLUMNS, _TYPES)
    topic_ids, topic_codes = trec._ids(table.column("topic"))
    sub_ids, sub_codes = trec._ids(table.column("subtopic"))
    grades = trec._grades(table.column("grade"), source, lines, topic_ids, topic_codes)
    docids = trec.binary_column(table.column("docid"))
    qrels = Qrels(topic_ids, topic_codes, docids, grades, source=source.name, lines=lines,
                  spool=source.spool)
    return SubtopicQrels(qrels, sub_ids, sub_codes)


def subtopic_qrels_from_frame(frame: pd.DataFrame,
                              source: str = "<DataFrame>") -> SubtopicQrels:
    """Subtopic qrels from a DataFrame with columns ``query_id, doc_id, relevance`` and a
    subtopic column (``subtopic_id``, ``subtopic`` or ``iteration``)."""
    column = next((c for c in FRAME_SUBTOPIC if c in frame.columns), None)
    if column is None:
        raise InputError("subtopic qrels: no subtopic column", path=source,
                         expected="columns query_id, subtopic_id (or iteration), doc_id, "
                                  "relevance")
    qrels = frames.qrels_from_frame(frame, source)
    values = frame[column]
    if values.isna().any():
        row = int(np.flatnonzero(values.isna().to_numpy())[0])
        raise InputError(f"missing subtopic id in row {row}", path=source,
                         expected="a subtopic id on every row")
    codes, ids = pd.factorize(values.astype(str).to_numpy())
    return SubtopicQrels(qrels, np.asarray(ids, dtype=object), codes.astype(np.int32))


def load_subtopic_qrels(value: Any) -> SubtopicQrels:
    """Subtopic qrels from a path, a DataFrame or a :class:`SubtopicQrels`."""
    if isinstance(value, SubtopicQrels):
        return value
    if isinstance(value, (str, os.PathLike)):
        return read_subtopic_qrels(value)
    if isinstance(value, pd.DataFrame):
        return subtopic_qrels_from_frame(value)
    raise InputError(f"cannot read subtopic qrels from {type(value).__name__}",
                     expected="a path or a DataFrame (query_id, subtopic_id, doc_id, "
                              "relevance)")
