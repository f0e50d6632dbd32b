"""Subtopic (diversity) judgments, and their layout next to a campaign's dense arrays.

A subtopic qrels file (TREC Web track diversity format) has one line per ``topic subtopic
docid grade``: the same (topic, document) appears once per subtopic it was judged for.

:class:`SubtopicQrels` holds the parsed rows. :func:`subtopic_table` lays them out for the
topic axis of a campaign, without any ``[R, T, D, S]`` array kept in memory:

``SubtopicTable``
    per topic ``t`` the distinct judged documents, rows ``ptr[t]:ptr[t+1]`` (CSR), with
    ``grades[row, s]`` (int16 ``[n, S_max]``) the grade of the document for the topic's
    ``s``-th subtopic (``MISSING`` when not judged for it; subtopics are numbered per topic
    in order of first appearance), ``fp`` and ``docids`` per row, ``num_subtopics[t]``.
:func:`cell_rows`
    int32 ``[R, T, D]``: for every cell of the campaign's dense run arrays, the table row of
    its document, or -1 (not in the subtopic qrels, or padding). Built once per campaign
    and cached on it.

A diversity kernel gathers ``grades[cell_rows[:, t0:t1, :d]]`` for one topic block at a
time — ``[R, Tb, d, S_max]`` under the kernels' one memory budget — so it stays vectorised
over runs x topics x depth x subtopics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from irmeta.data.fingerprint import combine
from irmeta.data.tables import Qrels, decode_id
from irmeta.errors import InputError

#: grade of a (document, subtopic) pair that was not judged
MISSING = np.int16(-32768)


@dataclass(eq=False)
class SubtopicQrels:
    """Subtopic judgments: ``qrels`` holds rows ``topic, docid, grade`` (one per line of
    the file, in input order) and ``subtopic_codes[row]`` indexes ``subtopic_ids``."""

    qrels: Qrels
    subtopic_ids: np.ndarray      # object [n_subtopic_ids]: the ids as text
    subtopic_codes: np.ndarray    # int32 per row

    def __len__(self) -> int:
        return len(self.qrels)

    @property
    def source(self) -> str | None:
        return self.qrels.source

    def to_qrels(self) -> Qrels:
        """Ad hoc qrels: one row per (topic, document), its highest grade over the
        subtopics (a document relevant to any subtopic is relevant to the topic, as
        ndeval counts it), rows in the order of each pair's first line."""
        q = self.qrels
        keys = combine(q.topic_codes.astype(np.int64), q.fingerprints)
        import pandas as pd
        frame = pd.DataFrame({"key": keys, "grade": q.grades, "row": np.arange(len(q))})
        first = frame.groupby("key", sort=False)["row"].min()
        best = frame.groupby("key", sort=False)["grade"].max()
        rows = np.sort(first.to_numpy())
        grades = best.reindex(frame["key"].to_numpy()[rows]).to_numpy().astype(np.int64)
        return Qrels(q.topic_ids, q.topic_codes[rows], q.docids.take(pa.array(rows, pa.int64())),
                     grades, source=q.source,
                     lines=q.lines.subset(rows) if q.lines is not None else None)


@dataclass(eq=False)
class SubtopicTable:
    """Subtopic judgments on a campaign's topic axis (see the module doc)."""

    ptr: np.ndarray            # int64 [T+1]
    fp: np.ndarray             # uint64 [n]
    docids: pa.Array           # binary [n]
    grades: np.ndarray         # int16 [n + 1, S_max]; the last row is all MISSING (row -1)
    num_subtopics: np.ndarray  # int64 [T]: subtopics judged per topic
    topic: np.ndarray          # int32 [n]

    @property
    def max_subtopics(self) -> int:
        return int(self.grades.shape[1])

    def relevant_counts(self, level: int) -> np.ndarray:
        """int64 [T, S_max]: documents relevant (grade >= level) to each subtopic."""
        rel = self.grades[:-1] >= level
        out = np.zeros((len(self.ptr) - 1, self.max_subtopics), dtype=np.int64)
        np.add.at(out, self.topic, rel.astype(np.int64))
        return out


def subtopic_table(subtopics: SubtopicQrels, topics: tuple[str, ...]) -> SubtopicTable:
    """Lay out ``subtopics`` for the campaign topic axis ``topics`` (others are ignored).

    A (topic, subtopic, document) judged twice is an :class:`~irmeta.errors.InputError`
    naming both lines."""
    q = subtopics.qrels
    index = {t: i for i, t in enumerate(topics)}
    remap = np.asarray([index.get(str(t), -1) for t in q.topic_ids], dtype=np.int64)
    tidx = remap[q.topic_codes] if len(q) else np.zeros(0, np.int64)
    keep = np.flatnonzero(tidx >= 0)
    keep = keep[np.argsort(tidx[keep], kind="stable")]
    tidx, fp = tidx[keep], q.fingerprints[keep]
    sub = subtopics.subtopic_codes[keep].astype(np.int64)
    # per-topic subtopic numbers, in order of first appearance
    import pandas as pd
    local = pd.factorize(tidx * (len(subtopics.subtopic_ids) + 1) + sub)[0]
    first_of_topic = pd.Series(local).groupby(tidx).transform("min").to_numpy()
    local = (local - first_of_topic).astype(np.int64)
    doc_key = combine(tidx, fp)
    row, _ = pd.factorize(doc_key)
    _check_duplicates(subtopics, keep, combine(doc_key, local.astype(np.uint64)))
    T = len(topics)
    n = int(row.max()) + 1 if len(row) else 0
    width = int(local.max()) + 1 if len(local) else 1
    grades = np.full((n + 1, width), MISSING, dtype=np.int16)
    grades[row, local] = q.grades[keep]
    first = np.unique(row, return_index=True)[1]
    topic = tidx[first].astype(np.int32)
    ptr = np.zeros(T + 1, dtype=np.int64)
    np.cumsum(np.bincount(topic, minlength=T), out=ptr[1:])
    num = np.zeros(T, dtype=np.int64)
    if len(local):
        np.maximum.at(num, tidx, local + 1)
    return SubtopicTable(ptr, fp[first], q.docids.take(pa.array(keep[first], pa.int64())),
                         grades, num, topic)


def _check_duplicates(subtopics: SubtopicQrels, keep: np.ndarray, keys: np.ndarray) -> None:
    srt = np.argsort(keys, kind="stable")
    dup = np.flatnonzero(keys[srt][1:] == keys[srt][:-1])
    if not len(dup):
        return
    q = subtopics.qrels
    a, b = sorted((int(keep[srt[dup[0]]]), int(keep[srt[dup[0] + 1]])))
    raise InputError(
        f"document {decode_id(q.docids[b].as_py())!r} is judged twice for subtopic "
        f"{subtopics.subtopic_ids[subtopics.subtopic_codes[b]]!r} of this topic (also on line "
        f"{q.line(a)})", path=q.source, line=q.line(b),
        topic=str(q.topic_ids[q.topic_codes[b]]),
        expected="one judgment per (topic, subtopic, document)")


def cell_rows(campaign: Any) -> np.ndarray:
    """int32 [R, T, D]: the subtopic-table row of the document in every cell of the
    campaign's dense arrays, -1 when it has none (cached on the campaign)."""
    cached: np.ndarray | None = campaign.__dict__.get("_subtopic_rows")
    if cached is not None:
        return cached
    table: SubtopicTable = campaign.subtopics
    R, T, D = campaign.grades.shape
    out = np.full((R, T, D), -1, dtype=np.int32)
    if len(table.fp):
        import pandas as pd
        index = pd.Index(combine(table.topic.astype(np.int64), table.fp))
        valid = campaign.valid
        topic_of_cell = np.broadcast_to(np.arange(T, dtype=np.int64)[None, :, None], (R, T, D))
        out[valid] = index.get_indexer(combine(topic_of_cell[valid], campaign.doc_fp[valid]))
    campaign.__dict__["_subtopic_rows"] = out
    return out
