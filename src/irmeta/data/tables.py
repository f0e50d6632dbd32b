"""Parsed, validated qrels and runs: columnar tables, before the campaign is built.

A :class:`Run` or :class:`Qrels` holds its rows in file order as columns:

* topics as codes into a small table of topic ids (strings, never numbers),
* document ids as an Arrow string array (the columnar form the reader produced),
* scores as float64 (runs) or grades as int64 (qrels).

Nothing here orders a run: trec_eval's ordering is applied once, when the campaign is
built (:mod:`irmeta.data.campaign`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeta.data.fingerprint import fingerprint_strings


def _line(table, row: int) -> int:
    """Exact file line of a row: rows skip blank and comment lines, so on an error the
    file is scanned once to map rows to lines."""
    if table.line_of_row is None and table.source and not table.source.startswith("<"):
        from irmeta.io.trec import line_numbers, read_bytes
        try:
            table.line_of_row = line_numbers(read_bytes(table.source))
        except Exception:  # noqa: BLE001 - the file may be gone; fall back to the row
            return int(row) + 1
    if table.line_of_row is not None and row < len(table.line_of_row):
        return int(table.line_of_row[row])
    return int(row) + 1


class _Rows:
    """Behaviour shared by runs and qrels: row count, fingerprints, file lines, frames."""

    _value_column: str = "score"

    def __len__(self) -> int:
        return len(self.topic_codes)

    @property
    def fingerprints(self) -> np.ndarray:
        """64-bit fingerprints of the document ids (see :mod:`irmeta.data.fingerprint`)."""
        if self._fingerprints is None:
            self._fingerprints = fingerprint_strings(self.docids)
        return self._fingerprints

    def line(self, row: int) -> int:
        """1-based line of ``row`` in the source file."""
        return _line(self, row)

    def to_frame(self) -> pd.DataFrame:
        """Columns ``query_id, doc_id`` and ``score`` (runs) or ``relevance`` (qrels),
        in input order (the ir_measures / ir_datasets names)."""
        values = self.scores if self._value_column == "score" else self.grades
        return pd.DataFrame({
            "query_id": self.topic_ids[self.topic_codes],
            "doc_id": self.docids.to_numpy(zero_copy_only=False),
            self._value_column: values,
        })


@dataclass(eq=False)
class Run(_Rows):
    """One run: rows ``topic, docid, score`` in input order.

    ``source`` is the file it came from (or a description such as ``<DataFrame>``);
    ``line_of_row`` maps row indices to 1-based file lines when they differ from
    ``row + 1`` (comment lines), else None.
    """

    name: str
    topic_ids: np.ndarray          # object array of unique topic ids (str)
    topic_codes: np.ndarray        # int32 per row, index into topic_ids
    docids: pa.Array               # string per row
    scores: np.ndarray             # float64 per row
    source: str | None = None
    tag: str | None = None
    line_of_row: np.ndarray | None = None
    _fingerprints: np.ndarray | None = field(default=None, repr=False)

    def renamed(self, name: str) -> "Run":
        """A copy of this run under another name (data shared, not copied)."""
        return Run(name, self.topic_ids, self.topic_codes, self.docids, self.scores,
                   self.source, self.tag, self.line_of_row, self._fingerprints)


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
    line_of_row: np.ndarray | None = None
    _fingerprints: np.ndarray | None = field(default=None, repr=False)

    _value_column = "relevance"
