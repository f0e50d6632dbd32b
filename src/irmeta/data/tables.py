"""Parsed, validated qrels and runs: columnar tables, before the campaign is built.

A :class:`Run` or :class:`Qrels` holds its rows in file order as columns:

* topics as codes into a small table of topic ids (strings, never numbers),
* document ids as an Arrow binary array: the id's bytes, never decoded (two ids are
  the same document iff their bytes are equal; :func:`decode_id` gives the text),
* scores as float64 (runs) or grades as int64 (qrels).

Nothing here orders a run: trec_eval's ordering is applied once, when the campaign is
built (:mod:`irmeta.data.campaign`).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np
import pyarrow as pa

from irmeta.data.fingerprint import fingerprint_strings
from irmeta.data.lines import LineMap

if TYPE_CHECKING:
    import pandas as pd


def is_frame(obj: Any) -> TypeGuard[pd.DataFrame]:
    """Whether ``obj`` is a pandas DataFrame, without importing pandas (when pandas is not
    imported yet, nothing can be a DataFrame): the evaluation of files never loads it."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(obj, pandas.DataFrame)


def arrow_ints(values: np.ndarray) -> pa.Array:
    """An int64 Arrow array over a NumPy array (row numbers for ``take``), built from its
    buffer: ``pa.array`` on NumPy input imports pandas, which evaluating files never
    needs (``docs/performance.md``)."""
    return arrow_array(np.asarray(values, dtype=np.int64))


def arrow_array(values: np.ndarray) -> pa.Array:
    """An Arrow array over a NumPy array of integers, floats or booleans, built from its
    buffer (bit-packed for booleans), without ``pa.array``'s import of pandas."""
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    kind = pa.from_numpy_dtype(values.dtype)
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        raise TypeError(f"arrow_array: numbers or booleans only, got {values.dtype}")
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def column_numpy(column: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """A NumPy array of a column of numbers without nulls (:func:`numpy_view` of its
    chunks, combined): ``ChunkedArray.to_numpy`` imports pandas."""
    if isinstance(column, pa.ChunkedArray):
        column = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    return numpy_view(column)


def numpy_view(arr: pa.Array) -> np.ndarray:
    """A NumPy view (read-only) of an Arrow array of numbers without nulls; any other
    array is converted by pyarrow (which imports pandas)."""
    if arr.null_count == 0 and (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)):
        dtype = np.dtype(arr.type.to_pandas_dtype())
        return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr),
                             offset=arr.offset * dtype.itemsize)
    converted: np.ndarray = arr.to_numpy(zero_copy_only=False)
    return converted


#: grades are stored as int16 in the campaign (-32768 marks an unjudged document)
MAX_GRADE = 32767


def decode_id(raw: bytes) -> str:
    """A topic or document id as text, for display and for topic names: UTF-8, with a
    byte that is not UTF-8 written as ``\\xNN`` (``caf\\xe9``), so the text can be printed,
    stored in any table and never merges two ids into one replacement character.
    Document identity never goes through this text: it is computed from the bytes."""
    return raw.decode("utf-8", "backslashreplace")


def encode_id(text: str) -> bytes:
    """The bytes of an id given as text (UTF-8; lone surrogates as their bytes)."""
    return text.encode("utf-8", "surrogateescape")


def decode_ids(arr: pa.Array) -> list[str]:
    """Every id of a binary (or string) Arrow array, as text."""
    return [decode_id(v) if isinstance(v, bytes) else v for v in arr.to_pylist()]


class _Rows:
    """Behaviour shared by runs and qrels: row count, fingerprints, file lines, frames."""

    _value_column: str = "score"
    # fields of both dataclasses below, declared for the shared methods
    topic_ids: np.ndarray
    topic_codes: np.ndarray
    docids: pa.Array
    lines: LineMap | None
    _fingerprints: np.ndarray | None

    def _values(self) -> np.ndarray:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self.topic_codes)

    @property
    def fingerprints(self) -> np.ndarray:
        """64-bit fingerprints of the document ids (see :mod:`irmeta.data.fingerprint`)."""
        if self._fingerprints is None:
            self._fingerprints = fingerprint_strings(self.docids)
        return self._fingerprints

    def line(self, row: int) -> int:
        """1-based line of ``row`` in the source file (``row + 1`` when unknown)."""
        return self.lines.line(row) if self.lines is not None else int(row) + 1

    def to_frame(self) -> pd.DataFrame:
        """Columns ``query_id, doc_id`` and ``score`` (runs) or ``relevance`` (qrels),
        in input order (the ir_measures / ir_datasets names)."""
        import pandas as pd
        return pd.DataFrame({
            "query_id": self.topic_ids[self.topic_codes],
            "doc_id": decode_ids(self.docids),
            self._value_column: self._values(),
        })


@dataclass(eq=False)
class Run(_Rows):
    """One run: rows ``topic, docid, score`` in input order.

    ``source`` is the file it came from (or a description such as ``<DataFrame>``);
    ``lines`` maps rows to 1-based file lines (None: row + 1); ``spool`` keeps the
    temporary copy of a piped input alive as long as the rows are.
    """

    name: str
    topic_ids: np.ndarray          # object array of unique topic ids (str)
    topic_codes: np.ndarray        # int32 per row, index into topic_ids
    docids: pa.Array               # binary per row (the id's bytes)
    scores: np.ndarray             # float64 per row
    source: str | None = None
    tag: str | None = None
    lines: LineMap | None = field(default=None, repr=False)
    spool: object = field(default=None, repr=False)
    _fingerprints: np.ndarray | None = field(default=None, repr=False)

    def renamed(self, name: str) -> "Run":
        """A copy of this run under another name (data shared, not copied)."""
        return Run(name, self.topic_ids, self.topic_codes, self.docids, self.scores,
                   self.source, self.tag, self.lines, self.spool, self._fingerprints)

    def _values(self) -> np.ndarray:
        return self.scores


@dataclass(eq=False)
class Qrels(_Rows):
    """Relevance judgments: rows ``topic, docid, grade`` in input order.

    Grades are integers and may be negative (trec_eval reads a negative grade as "in the
    pool but not judged"; every measure treats it as non-relevant).
    """

    topic_ids: np.ndarray
    topic_codes: np.ndarray
    docids: pa.Array
    grades: np.ndarray             # int64 per row
    source: str | None = None
    lines: LineMap | None = field(default=None, repr=False)
    spool: object = field(default=None, repr=False)
    _fingerprints: np.ndarray | None = field(default=None, repr=False)

    _value_column = "relevance"

    def _values(self) -> np.ndarray:
        return self.grades
