"""The in-memory campaign: every run of an evaluation, ordered once, as dense arrays.

Built once from a :class:`~irmeta.data.tables.Qrels` and a list of
:class:`~irmeta.data.tables.Run`; every measure reads only this object.

Axes: ``R`` runs (in the order given), ``T`` topics (every qrels topic, sorted as
trec_eval sorts them: by string), ``D`` ranks (the longest ranking; shorter rankings
are padded).

Arrays (all NumPy):

``grades[r, t, i]`` (int16)
    qrels grade of the document at rank ``i + 1`` of run ``r`` on topic ``t``;
    ``NOT_IN_QRELS`` (-32768) for a document absent from the qrels and for padding
    (``i >= length[r, t]``). Negative grades from the qrels are kept (trec_eval reads
    them as "in the pool, not judged"). Relevant at level L means ``grades >= L``.
``length[r, t]`` (int32)
    number of documents run ``r`` retrieved for topic ``t`` (0: topic absent from the
    run), after ``max_docs`` truncation.
``doc_fp[r, t, i]`` (uint64)
    fingerprint of the document id (see :mod:`irmeta.data.fingerprint`), 0 for padding.
``doc_codes`` (int32, lazy)
    documents interned to integers: one code per distinct (topic, document) pair over
    the qrels and every run; -1 for padding. Codes of one topic are *not* contiguous;
    ``code_topic[c]`` gives the topic of code ``c``. "How many runs retrieved d" is a
    ``np.bincount`` over ``doc_codes``.
``judged`` (:class:`JudgedDocs`)
    the qrels, grouped by topic (CSR layout): ``ptr[t]:ptr[t+1]`` are the rows of topic
    ``t``; ``grades``, ``fp`` and (lazily) ``codes`` per row.

trec_eval's ordering — score descending, then document id descending (byte order) —
is applied here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pyarrow as pa

from irmeta.data.fingerprint import combine, fingerprint_strings
from irmeta.data.tables import (
    MAX_GRADE,
    Qrels,
    Run,
    arrow_ints,
    decode_id,
    decode_ids,
    numpy_view,
)
from irmeta.data.threads import background, map_threads, thread_budget
from irmeta.errors import CampaignError, InputError, warn

if TYPE_CHECKING:
    from concurrent.futures import Future

NOT_IN_QRELS = np.int16(-32768)

T = TypeVar("T")
U = TypeVar("U")


@dataclass(eq=False)
class JudgedDocs:
    """The qrels of a campaign grouped by topic (rows of topic t: ``ptr[t]:ptr[t+1]``)."""

    ptr: np.ndarray        # int64 [T+1]
    grades: np.ndarray     # int64 [n]
    fp: np.ndarray         # uint64 [n] document fingerprints
    docids: pa.Array       # binary [n]: the ids' bytes
    topic: np.ndarray      # int32 [n] topic index of each row

    def num_rel(self, rel_level: int = 1) -> np.ndarray:
        """Number of relevant documents (grade >= rel_level) per topic, int64 [T]
        (computed once per level; do not modify the returned array)."""
        cache: dict[int, np.ndarray] = self.__dict__.setdefault("_num_rel", {})
        if rel_level not in cache:
            cache[rel_level] = np.bincount(self.topic[self.grades >= rel_level],
                                           minlength=len(self.ptr) - 1).astype(np.int64)
            cache[rel_level].flags.writeable = False
        return cache[rel_level]

    def num_judged_nonrel(self, rel_level: int = 1) -> np.ndarray:
        """Judged non-relevant documents (0 <= grade < rel_level) per topic."""
        mask = (self.grades >= 0) & (self.grades < rel_level)
        return np.bincount(self.topic[mask], minlength=len(self.ptr) - 1).astype(np.int64)


def names_text(names: tuple[str, ...], noun: str, shown: int = 3) -> str:
    """``"30 runs [a, b, c, ...]"``: a count and the first names (for ``__repr__``)."""
    head = ", ".join(names[:shown]) + (", ..." if len(names) > shown else "")
    return f"{len(names):,} {noun}{'' if len(names) == 1 else 's'} [{head}]"


def _range_text(grades: np.ndarray) -> str:
    lo, hi = int(grades.min()), int(grades.max())
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


class RunTopicShape:
    """The shape and topic set of a campaign, read from ``runs``, ``topics``, ``length``
    (int [R, T], documents retrieved) and ``judged`` (``num_rel``): shared by
    :class:`Campaign` and the :class:`~irmeta.shards.summary.CampaignSummary` of a
    sharded evaluation, so that both answer them alike."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    length: np.ndarray
    judged: Any

    @property
    def num_runs(self) -> int:
        """Number of runs (R, the first axis of the dense arrays)."""
        return len(self.runs)

    @property
    def num_topics(self) -> int:
        """Number of qrels topics (T, the second axis)."""
        return len(self.topics)

    @property
    def has_topic(self) -> np.ndarray:
        """bool [R, T]: the run retrieved at least one document for the topic."""
        return self.length > 0

    def num_rel(self, rel_level: int = 1) -> np.ndarray:
        """int64 [T]: relevant documents per topic, from the qrels."""
        result: np.ndarray = self.judged.num_rel(rel_level)
        return result

    def topic_set(self, rel_level: int = 1) -> np.ndarray:
        """bool [T]: the campaign topic set — topics with at least one relevant document."""
        return self.num_rel(rel_level) > 0


@dataclass(eq=False)
class Campaign(RunTopicShape):
    """All runs of one evaluation over one qrels, as dense arrays (see module doc)."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    grades: np.ndarray
    length: np.ndarray
    doc_fp: np.ndarray
    judged: JudgedDocs
    docids: tuple[pa.Array, ...]      # per run: document ids (bytes) in dense order
    starts: np.ndarray                # int64 [R, T]: offset of (r, t) in docids[r]
    max_docs: int | None = None
    sources: tuple[str | None, ...] = ()
    dropped_topics: dict[str, int] = field(default_factory=dict)
    #: subtopic judgments laid out for this campaign (irmeta.data.subtopics), or None
    subtopics: Any = None
    #: per run the tag its file gives it (None: not read from a file, or no tag); a run
    #: whose name differs was renamed (tags colliding across files, or ``names``)
    tags: tuple[str | None, ...] = ()

    def __repr__(self) -> str:
        """A summary (never the arrays): ``Campaign(30 runs [a, b, c, ...], 50 topics,
        depth 100, 5,000 judged documents, graded 0-3)``."""
        return (f"Campaign({names_text(self.runs, 'run')}, {names_text(self.topics, 'topic')}, "
                f"depth {self.depth:,}"
                + (f" (max_docs={self.max_docs})" if self.max_docs is not None else "")
                + f", {len(self.judged.grades):,} judged documents"
                + (", graded " + _range_text(self.judged.grades) if len(self.judged.grades)
                   else "")
                + (", subtopics" if self.subtopics is not None else "") + ")")

    # ------------------------------------------------------------------ shape
    @property
    def depth(self) -> int:
        """Rank columns of the dense arrays (D): the longest ranking of any run and topic."""
        return int(self.grades.shape[2])

    @property
    def valid(self) -> np.ndarray:
        """bool [R, T, D]: rank i holds a retrieved document (not padding)."""
        return np.arange(self.depth)[None, None, :] < self.length[:, :, None]

    # -------------------------------------------------------------- relevance
    @cached_property
    def grade_levels(self) -> np.ndarray:
        """int64 [G]: the distinct grades of the qrels, ascending — what measures scaled by
        "the highest grade of the qrels" read (graded RBP, C/W/L, ``gain=scaled``). A
        topic shard's campaign (:mod:`irmeta.shards`) is given the whole campaign's
        levels here, so that its values do not depend on which topics it holds."""
        levels: np.ndarray = np.unique(np.asarray(self.judged.grades, dtype=np.int64))
        return levels

    # ------------------------------------------------------------- documents
    @cached_property
    def _interned(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        R, T, D = self.grades.shape
        valid = self.valid
        topic_of_cell = np.broadcast_to(np.arange(T, dtype=np.int32)[None, :, None], (R, T, D))
        run_keys = combine(topic_of_cell[valid], self.doc_fp[valid])
        qrels_keys = combine(self.judged.topic, self.judged.fp)
        import pandas as pd  # lazily: the evaluation path does not need pandas otherwise
        codes, uniques = pd.factorize(np.concatenate([qrels_keys, run_keys]))
        codes = codes.astype(np.int32)
        n_q = len(qrels_keys)
        doc_codes = np.full((R, T, D), -1, dtype=np.int32)
        doc_codes[valid] = codes[n_q:]
        code_topic = np.empty(len(uniques), dtype=np.int32)
        code_topic[codes[:n_q]] = self.judged.topic
        code_topic[codes[n_q:]] = topic_of_cell[valid]
        return doc_codes, codes[:n_q], code_topic, len(uniques)

    @property
    def doc_codes(self) -> np.ndarray:
        """int32 [R, T, D]: interned (topic, document) codes, -1 for padding."""
        return self._interned[0]

    @property
    def judged_codes(self) -> np.ndarray:
        """int32 [n]: codes of the qrels rows (``judged``), same code space as doc_codes."""
        return self._interned[1]

    @property
    def code_topic(self) -> np.ndarray:
        """int32 [num_codes]: topic index of each document code."""
        return self._interned[2]

    @property
    def num_codes(self) -> int:
        """Number of distinct (topic, document) pairs among the retrieved documents."""
        return int(self._interned[3])

    def docid(self, run: int, topic: int, rank: int) -> str:
        """The document id at 0-based ``rank`` of ``run`` on ``topic``."""
        if rank >= self.length[run, topic]:
            raise IndexError("rank beyond the run's length")
        return decode_id(self.docids[run][int(self.starts[run, topic]) + rank].as_py())

    def ranking(self, run: int, topic: int) -> list[str]:
        """The ordered document ids of ``run`` on ``topic``."""
        s, n = int(self.starts[run, topic]), int(self.length[run, topic])
        return decode_ids(self.docids[run].slice(s, n))

    # ------------------------------------------------------------- subsets
    def run_index(self, name: str) -> int:
        """Position of the run ``name``; a CampaignError listing the runs if none."""
        try:
            return self.runs.index(name)
        except ValueError:
            raise CampaignError(f"no run named {name!r} in the campaign "
                                f"(runs: {', '.join(self.runs[:10])}"
                                f"{', ...' if len(self.runs) > 10 else ''})") from None

    def topic_index(self, topic: str) -> int:
        """Position of ``topic`` (compared as text); a CampaignError if not in the qrels."""
        try:
            return self.topics.index(str(topic))
        except ValueError:
            raise CampaignError(f"no topic {topic!r} in the qrels") from None

    def _derived(self, keep_grade_levels: bool = True, **changes: Any) -> "Campaign":
        """This campaign with ``changes`` (field -> new value), every other field kept
        (:func:`dataclasses.replace`: no positional rebuilding that could drop a field).
        ``keep_grade_levels``: the derived campaign has the same judgments, so it keeps
        this one's :attr:`grade_levels` — which a topic shard's campaign was given for
        the whole campaign (:mod:`irmeta.shards`) and must not recompute from its own
        qrels."""
        sub = replace(self, **changes)
        if keep_grade_levels:
            sub._pin_grade_levels(self.grade_levels)
        return sub

    def _pin_grade_levels(self, levels: Any) -> None:
        """Set :attr:`grade_levels` (the one place that writes the cached value)."""
        self.__dict__["grade_levels"] = np.asarray(levels, dtype=np.int64)

    def with_grade_levels(self, levels: Any) -> "Campaign":
        """This campaign scored on the grade scale ``levels`` (the distinct grades of a
        larger qrels: the whole campaign's for a topic shard, the full qrels' for a
        subset of them) instead of its own qrels' :attr:`grade_levels`."""
        sub = self._derived(keep_grade_levels=False)
        sub._pin_grade_levels(levels)
        return sub

    def select_runs(self, runs: Iterable[str | int]) -> "Campaign":
        """A campaign with a subset of the runs (names or indices), in the given order."""
        idx = [self.run_index(r) if isinstance(r, str) else int(r) for r in runs]
        sub = self._derived(runs=tuple(self.runs[i] for i in idx), grades=self.grades[idx],
                            length=self.length[idx], doc_fp=self.doc_fp[idx],
                            docids=tuple(self.docids[i] for i in idx),
                            starts=self.starts[idx],
                            sources=tuple(self.sources[i] for i in idx) if self.sources else (),
                            tags=tuple(self.tags[i] for i in idx) if self.tags else ())
        if "_interned" in self.__dict__:
            dc, jc, ct, n = self._interned
            sub.__dict__["_interned"] = (dc[idx], jc, ct, n)
        return sub

    def judged_only(self) -> "Campaign":
        """The same runs with every unjudged document removed (trec_eval ``-J``).

        Unjudged: absent from the qrels, or judged with a negative grade. The judged
        documents keep their order and move up; a ranking may become empty (its topic
        still counts as retrieved for the topic set of :func:`irmeta.evaluate`).
        """
        keep = self.valid & (self.grades >= 0)
        order = np.argsort(~keep, axis=2, kind="stable")  # judged first, in rank order
        length = keep.sum(axis=2).astype(np.int32)
        depth = max(1, int(length.max(initial=0)))
        order = order[:, :, :depth]
        kept = np.arange(depth)[None, None, :] < length[:, :, None]
        grades = np.where(kept, np.take_along_axis(self.grades, order, axis=2), NOT_IN_QRELS)
        doc_fp = np.where(kept, np.take_along_axis(self.doc_fp, order, axis=2), np.uint64(0))
        docids, starts = [], np.zeros_like(self.starts)
        for r in range(self.num_runs):
            rows = (self.starts[r][:, None] + np.arange(self.depth)[None, :])[keep[r]]
            docids.append(self.docids[r].take(arrow_ints(rows)))
            starts[r, 1:] = np.cumsum(length[r])[:-1]
        return self._derived(grades=grades.astype(np.int16), length=length, doc_fp=doc_fp,
                             docids=tuple(docids), starts=starts)

    def with_qrels(self, qrels: Qrels, grade_levels: Any = None) -> "Campaign":
        """The same runs judged by other qrels (e.g. a downsampled pool). The topic axis
        stays the same; qrels topics outside it are ignored. ``grade_levels``: the grade
        scale to score on (as :meth:`with_grade_levels`); None: the new qrels' own."""
        judged = _judged_docs(qrels, self.topics)
        R, T, D = self.grades.shape
        valid = self.valid
        topic_of_cell = np.broadcast_to(np.arange(T, dtype=np.int32)[None, :, None], (R, T, D))
        grades = np.full((R, T, D), NOT_IN_QRELS, dtype=np.int16)
        grades[valid] = _GradeIndex(judged).lookup(topic_of_cell[valid], self.doc_fp[valid])
        # other judgments: their own grade scale (the one field meant to change with them)
        sub = self._derived(keep_grade_levels=False, grades=grades, judged=judged)
        if grade_levels is not None:
            sub._pin_grade_levels(grade_levels)
        return sub


# ===================================================================== building
def _topics_of(qrels: Qrels) -> tuple[str, ...]:
    # the codes in use (np.unique would import numpy.ma: ~10 ms of start-up, issue 27)
    present = np.flatnonzero(np.bincount(qrels.topic_codes, minlength=len(qrels.topic_ids)))
    return tuple(sorted(str(t) for t in qrels.topic_ids[present]))


def _judged_docs(qrels: Qrels, topics: tuple[str, ...]) -> JudgedDocs:
    index = {t: i for i, t in enumerate(topics)}
    remap = np.asarray([index.get(str(t), -1) for t in qrels.topic_ids], dtype=np.int32)
    tidx = remap[qrels.topic_codes] if len(qrels) else np.zeros(0, np.int32)
    keep = np.flatnonzero(tidx >= 0)
    order = keep[np.argsort(tidx[keep], kind="stable")]
    tidx = tidx[order]
    fp = qrels.fingerprints[order]
    _check_qrels_duplicates(qrels, order, tidx, fp)
    ptr = np.zeros(len(topics) + 1, dtype=np.int64)
    np.cumsum(np.bincount(tidx, minlength=len(topics)), out=ptr[1:])
    grades = qrels.grades[order]
    if len(grades) and (grades.min() < -MAX_GRADE or grades.max() > MAX_GRADE):
        raise InputError(f"relevance grade out of range [-{MAX_GRADE}, {MAX_GRADE}]",
                         path=qrels.source)
    return JudgedDocs(ptr, grades, fp, qrels.docids.take(arrow_ints(order)), tidx)


def _check_qrels_duplicates(qrels: Qrels, order: np.ndarray, tidx: np.ndarray,
                            fp: np.ndarray) -> None:
    keys = combine(tidx, fp)
    srt = np.argsort(keys, kind="stable")
    dup = np.flatnonzero(keys[srt][1:] == keys[srt][:-1])
    if len(dup):
        a, b = sorted((int(order[srt[dup[0]]]), int(order[srt[dup[0] + 1]])))
        raise InputError(
            f"document {decode_id(qrels.docids[b].as_py())!r} is judged twice for this topic "
            f"(also on line {qrels.line(a)})", path=qrels.source, line=qrels.line(b),
            topic=str(qrels.topic_ids[qrels.topic_codes[b]]),
            expected="one judgment per (topic, document); subtopic (diversity) qrels go to "
                     "subtopic_qrels= / --subtopic-qrels")


class _GradeIndex:
    """Index from (topic, document) fingerprints to qrels grades, built once.

    Most retrieved documents are in no qrels topic at all: a bitmap over the low bits of
    the judged documents' fingerprints sets them aside with one gather, and only the few
    candidates left are looked up by (topic, fingerprint) key, by binary search in the
    sorted keys (keys are unique: duplicate judgments are refused before)."""

    def __init__(self, judged: JudgedDocs):
        keys = combine(judged.topic, judged.fp)
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        self.grades = judged.grades[order].astype(np.int16)
        # about 256 bits per judged document (at most 16 M): few false candidates for the
        # binary search, and a table that still fits the cache (msmarco-like, 9.5k judged:
        # 4 M bits, 263k -> 16k candidates, the lookup 36 -> 19 ms; issue 27)
        bits = min(1 << 24, max(1 << 10, 1 << (256 * max(1, len(keys))).bit_length()))
        self.mask = np.uint64(bits - 1)
        self.bitmap = np.zeros(bits, dtype=bool)
        self.bitmap[judged.fp & self.mask] = True

    def lookup(self, tidx: np.ndarray, fp: np.ndarray, threads: bool = False) -> np.ndarray:
        """int16 grade of each (topic, document) pair; NOT_IN_QRELS when not judged
        (``threads``: the two halves of the rows on two threads)."""
        out = np.full(len(tidx), NOT_IN_QRELS, dtype=np.int16)
        if len(self.keys) == 0 or len(tidx) == 0:
            return out
        half = len(fp) // 2
        if threads and half:
            map_threads(lambda lo_hi: self._lookup_into(out, tidx, fp, *lo_hi),
                        [(0, half), (half, len(fp))])
        else:
            self._lookup_into(out, tidx, fp, 0, len(fp))
        return out

    def _lookup_into(self, out: np.ndarray, tidx: np.ndarray, fp: np.ndarray,
                     start: int, stop: int) -> None:
        """:meth:`lookup` of rows ``start:stop``, written into ``out``."""
        # the bitmap test a million rows at a time: no run-sized uint64 temporary
        step = 1 << 20
        low = np.empty(min(step, stop - start), dtype=np.uint64)
        seen = np.empty(stop - start, dtype=bool)
        for lo in range(start, stop, step):
            part = low[:min(step, stop - lo)]
            np.bitwise_and(fp[lo:lo + len(part)], self.mask, out=part)
            np.take(self.bitmap, part, out=seen[lo - start:lo - start + len(part)])
        cand = np.flatnonzero(seen)
        cand += start
        keys = combine(tidx[cand], fp[cand])
        loc = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        hit = self.keys[loc] == keys
        out[cand[hit]] = self.grades[loc[hit]]


@dataclass
class _Order:
    """A run's kept rows in trec_eval order (:func:`_order_run`)."""

    rows: np.ndarray          # kept rows: grouped by topic, score descending, ties by id
    group_start: np.ndarray   # int64 [G]: position in ``rows`` where each topic begins
    identity: bool            # rows is every row in file order
    #: when not None, rows is every row in file order but at these positions, where
    #: rows tied on (topic, score) were put in document-id order: the topic of every
    #: position is its file row's (tie blocks never cross a topic)
    tied: np.ndarray | None = None

    @property
    def same_topics(self) -> bool:
        """Whether position i of ``rows`` has file row i's topic (no gather needed)."""
        return self.identity or self.tied is not None


def _order_run(run: Run, tidx: np.ndarray, dedupe: bool) -> _Order:
    """Rows of ``run`` in trec_eval order within topic, and where each topic begins.

    The kept rows (topics with tidx < 0 dropped) are grouped by topic, score descending,
    ties by document id descending. Files already grouped with scores non-increasing
    (the usual case) skip the sort; their ties are reordered inside their blocks only.
    """
    rows, group_start = _presorted_rows(run, tidx)
    every = rows is not None and len(rows) == len(tidx)   # every row, in file order
    if rows is None:
        rows = _sorted_rows(run, tidx)
    ts = tidx if every else tidx[rows]
    sc = run.scores if every else run.scores[rows]
    if group_start is None:
        group_start = _group_starts(ts[1:] != ts[:-1], len(ts))
    tie = sc[1:] == sc[:-1]
    if len(group_start) > 1:      # equal scores across a topic boundary are no tie
        tie[group_start[1:] - 1] = False
    tied = None
    if tie.any():
        rows, pos = _break_ties(run, rows, tie)
        tied = pos if every else None
    if dedupe:
        kept = _check_run_duplicates(run, rows, tidx[rows], dedupe)
        if len(kept) != len(rows):
            ts = tidx[kept]
            return _Order(kept, _group_starts(ts[1:] != ts[:-1], len(kept)), False, None)
    return _Order(rows, group_start, every and tied is None, tied)


def _group_starts(change: np.ndarray, n: int) -> np.ndarray:
    """int64 [G]: where each group begins (``change[i]``: row i+1 starts a group)."""
    if n == 0:
        return np.zeros(0, np.int64)
    starts = np.empty(np.count_nonzero(change) + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = np.flatnonzero(change)
    starts[1:] += 1
    return starts


def _ranks(group_start: np.ndarray, n: int) -> np.ndarray:
    """0-based rank of each row inside its group (groups begin at ``group_start``), as
    int32."""
    if n == 0:
        return np.zeros(0, np.int32)
    sizes = np.diff(np.r_[group_start, n])
    ranks: np.ndarray = np.arange(n, dtype=np.int32)
    ranks -= np.repeat(group_start.astype(np.int32), sizes)
    return ranks


def _presorted_rows(run: Run, tidx: np.ndarray) -> tuple[np.ndarray | None,
                                                          np.ndarray | None]:
    """``(rows, group_start)``: the kept rows in file order if the file is grouped by
    topic with scores non-increasing inside each group, and where each topic's group
    begins; ``(None, None)`` otherwise."""
    if (tidx >= 0).all():
        rows, t, s = None, tidx, run.scores
    else:
        rows = np.flatnonzero(tidx >= 0)
        t, s = tidx[rows], run.scores[rows]
    group_start = _group_starts(t[1:] != t[:-1], len(t))
    if len(t):
        # grouped: no topic begins two groups (a check over the groups, not the rows)
        first = np.sort(t[group_start])
        if (first[1:] == first[:-1]).any():
            return None, None  # a topic's lines are not contiguous
        rising = s[1:] > s[:-1]
        if len(group_start) > 1:   # a score may rise where a topic begins
            rising[group_start[1:] - 1] = False
        if rising.any():
            return None, None
    return (np.arange(len(tidx)) if rows is None else rows), group_start


def _sorted_rows(run: Run, tidx: np.ndarray) -> np.ndarray:
    """Kept rows grouped by topic, score descending (stable: ties keep file order)."""
    keep = np.flatnonzero(tidx >= 0)
    t = tidx[keep]
    s = run.scores[keep]
    order = np.argsort(t, kind="stable")
    ss = s[order]
    ts = t[order]
    if np.any((ts[1:] == ts[:-1]) & (ss[1:] > ss[:-1])):
        order = np.lexsort((-s, t))
    return keep[order]


def _break_ties(run: Run, rows: np.ndarray,
                tie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Reorder each block of equal (topic, score) rows by document id, descending (``rows``
    is reordered in place and returned, with the positions of the tied rows)."""
    in_block = np.zeros(len(rows), dtype=bool)
    in_block[:-1] |= tie
    in_block[1:] |= tie
    pos = np.flatnonzero(in_block)
    # block number of each tied row: a block begins where the row does not tie the one
    # above it (counted over the tied rows only, not the whole run)
    block_id = np.cumsum(np.r_[True, ~tie][pos])
    sub = pa.table({"block": arrow_ints(block_id),
                    "docid": run.docids.take(arrow_ints(rows[pos])),
                    "i": arrow_ints(np.arange(len(pos)))})
    sub = sub.sort_by([("block", "ascending"), ("docid", "descending")])
    # in place: the caller's rows are a fresh array it no longer reads (one run-sized
    # copy less; the right-hand side is gathered before it is written)
    rows[pos] = rows[pos][numpy_view(sub.column("i").combine_chunks())]
    return rows, pos


def _check_run_duplicates(run: Run, rows: np.ndarray, tidx: np.ndarray,
                          dedupe: bool) -> np.ndarray:
    keys = combine(tidx, run.fingerprints[rows])
    srt = np.argsort(keys, kind="stable")
    dup = np.flatnonzero(keys[srt][1:] == keys[srt][:-1])
    if not len(dup):
        return rows
    if dedupe:
        # keep the first occurrence in file order of each (topic, document)
        import pandas as pd
        first = pd.Series(keys).duplicated(keep=False).to_numpy()
        drop = np.zeros(len(rows), dtype=bool)
        frame = pd.DataFrame({"key": keys[first], "row": rows[first], "pos": np.flatnonzero(first)})
        frame = frame.sort_values(["key", "row"])
        drop[frame["pos"].to_numpy()[frame["key"].duplicated().to_numpy()]] = True
        return rows[~drop]
    i, j = srt[dup[0]], srt[dup[0] + 1]
    a, b = sorted((int(rows[i]), int(rows[j])))
    raise InputError(
        f"document {decode_id(run.docids[b].as_py())!r} appears twice for this topic "
        f"(also on line {run.line(a)})", path=run.source, line=run.line(b),
        topic=str(run.topic_ids[run.topic_codes[b]]),
        expected="each document at most once per topic (or dedupe=True / --dedupe)")


def _has_duplicates(fp: np.ndarray, length: np.ndarray) -> bool:
    """Whether some topic row of ``fp[T, D]`` holds a fingerprint twice (padding, which
    is 0, is masked by sorting it to a sentinel first)."""
    step = max(1, (1 << 20) // max(1, fp.shape[1]))
    ranks = np.arange(fp.shape[1])

    def any_in(starts: range) -> bool:
        for t0 in starts:
            block = fp[t0:t0 + step].copy()
            pad = ranks[None, :] >= length[t0:t0 + step, None]
            block[pad] = np.arange(pad.sum(), dtype=np.uint64) ^ np.uint64(0xFFFFFFFFFFFFFFFF)
            block.sort(axis=1)
            if np.any(block[:, 1:] == block[:, :-1]):
                return True
        return False

    blocks = range(0, fp.shape[0], step)
    if len(blocks) < 4:
        return any_in(blocks)
    # two threads: NumPy's sort releases the GIL (values do not depend on the split)
    return any(map_threads(any_in, (blocks[0::2], blocks[1::2])))


#: a run of at least this many rows is prepared on two threads (its fingerprints beside
#: its ordering, its lookup and layout in two halves) when it is a campaign's only run;
#: below it, starting threads costs more than it saves. Several runs are prepared two
#: at a time instead (:func:`_map_runs`).
_PARALLEL_ROWS = 1 << 17


@dataclass
class _PreparedRun:
    """One run ordered and looked up, ready to be laid out in the dense arrays."""

    rows: np.ndarray | None   # kept rows in trec_eval order (None: every row, file order)
    tix: np.ndarray           # topic index of each kept row
    group_start: np.ndarray   # int64 [G]: where each topic's rows begin
    docids: "pa.Array | Future[pa.Array]"   # document ids in that order
    fp: np.ndarray            # their fingerprints
    grades: np.ndarray        # their qrels grades (NOT_IN_QRELS when unjudged)
    dropped: int              # topics of the run absent from the qrels
    threads: bool = False     # lay it out on two threads

    @property
    def group_topic(self) -> np.ndarray:
        """int [G]: the topic index of each group."""
        topics: np.ndarray = self.tix[self.group_start]
        return topics

    @cached_property
    def group_size(self) -> np.ndarray:
        """int64 [G]: the rows (documents) of each group."""
        return np.diff(np.r_[self.group_start, len(self.tix)])

    @property
    def rank(self) -> np.ndarray:
        """int32: the 0-based rank of each kept row (made when a layout needs it: a
        run-sized array that rankings of one length never need)."""
        return _ranks(self.group_start, len(self.tix))


def _prepare_run(run: Run, index: dict[str, int], grade_index: "_GradeIndex",
                 max_docs: int | None, dedupe: bool, threads: bool = False) -> _PreparedRun:
    remap = np.asarray([index.get(str(t), -1) for t in run.topic_ids], dtype=np.int32)
    threads = threads and len(run) >= _PARALLEL_ROWS and thread_budget(2) > 1
    # the fingerprints of every row in file order, beside the ordering (they do not
    # depend on it), when every row is kept; else only the kept rows' afterwards
    # (dedupe reads the run's own, cached fingerprints: not made twice)
    pending = None
    if threads and not dedupe and run._fingerprints is None and bool((remap >= 0).all()):
        pending = background(fingerprint_strings, run.docids)
    tidx = remap[run.topic_codes]
    order = _order_run(run, tidx, dedupe)
    rows, group_start = order.rows, order.group_start
    size = np.diff(np.r_[group_start, len(rows)])
    if max_docs is not None and size.max(initial=0) > max_docs:
        keep = _ranks(group_start, len(rows)) < max_docs
        rows = rows[keep]
        group_start = np.r_[0, np.cumsum(np.minimum(size, max_docs))[:-1]].astype(np.int64)
        order = _Order(rows, group_start, False, None)
    tix = tidx if order.same_topics else tidx[rows]
    docids: pa.Array | Future[pa.Array]
    if order.identity:
        docids = run.docids
    elif threads:
        docids = background(run.docids.take, arrow_ints(rows))
    else:
        docids = run.docids.take(arrow_ints(rows))
    if pending is not None:
        fp = pending.result()        # this build's own array: reordered in place
        if order.tied is not None:
            fp[order.tied] = fp[rows[order.tied]]
        elif not order.identity:
            fp = fp[rows]
    elif run._fingerprints is not None:
        fp = run.fingerprints if order.identity else run.fingerprints[rows]
    else:
        fp = fingerprint_strings(docids if isinstance(docids, pa.Array) else docids.result())
    return _PreparedRun(None if order.identity else rows, tix, group_start, docids, fp,
                        grade_index.lookup(tix, fp, threads), int(np.sum(remap < 0)),
                        threads)


def _lay_out(p: _PreparedRun, grades: np.ndarray, doc_fp: np.ndarray) -> None:
    """Write one run's grades and fingerprints into its ``[T, D]`` dense arrays: topic
    blocks copied whole when every topic has the same number of documents (one copy per
    topic), else scattered cell by cell, a million rows at a time (in two halves on two
    threads for a large run: the cells are distinct, so the halves never write the same
    one)."""
    size = p.group_size
    if len(size) and (size == size[0]).all():
        k, topics = int(size[0]), p.group_topic
        block_grades = p.grades.reshape(len(size), k)
        block_fp = p.fp.reshape(len(size), k)

        def copy(g: slice) -> None:
            grades[topics[g], :k] = block_grades[g]
            doc_fp[topics[g], :k] = block_fp[g]

        half = len(size) // 2
        if p.threads and half:
            map_threads(copy, (slice(0, half), slice(half, None)))
        else:
            copy(slice(None))
        return
    depth, n, step, rank = grades.shape[1], len(p.tix), 1 << 20, p.rank

    def scatter(starts: range) -> None:
        flat = np.empty(min(step, n), dtype=np.int64)  # no run-sized int64 temporary
        for lo in starts:
            part = flat[:min(step, n - lo)]
            part[:] = p.tix[lo:lo + step]
            part *= depth
            part += rank[lo:lo + step]
            grades.reshape(-1)[part] = p.grades[lo:lo + step]
            doc_fp.reshape(-1)[part] = p.fp[lo:lo + step]

    chunks = range(0, n, step)
    if p.threads and len(chunks) > 1:
        map_threads(scatter, (chunks[0::2], chunks[1::2]))
    else:
        scatter(chunks)


def _map_runs(fn: Callable[[T], U], runs: list[T]) -> list[U]:
    """``[fn(run) for run in runs]``, two runs at a time when there are several: the
    NumPy, Arrow and pandas work inside releases the GIL for most of its time."""
    return map_threads(fn, runs)


def build_campaign(qrels: Qrels, runs: list[Run], *, max_docs: int | None = None,
                   dedupe: bool = False, warn_dropped: bool = True) -> Campaign:
    """Build the dense campaign from parsed qrels and runs (names must be unique)."""
    if not runs:
        raise CampaignError("a campaign needs at least one run")
    names = [r.name for r in runs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise CampaignError(f"run names must be unique; repeated: {', '.join(dupes)}")
    if max_docs is not None and max_docs < 1:
        raise CampaignError(f"max_docs must be >= 1, got {max_docs}")
    topics = _topics_of(qrels)
    if not topics:
        raise CampaignError("the qrels hold no judgments")
    judged = _judged_docs(qrels, topics)
    grade_index = _GradeIndex(judged)
    index = {t: i for i, t in enumerate(topics)}
    single = len(runs) == 1
    prepared = _map_runs(lambda run: _prepare_run(run, index, grade_index, max_docs, dedupe,
                                                  threads=single), runs)
    dropped = {run.name: p.dropped for run, p in zip(runs, prepared) if p.dropped}
    depth = max([int(p.group_size.max()) for p in prepared if len(p.group_size)] or [1])
    R, T = len(runs), len(topics)
    grades = np.full((R, T, depth), NOT_IN_QRELS, dtype=np.int16)
    doc_fp = np.zeros((R, T, depth), dtype=np.uint64)
    length = np.zeros((R, T), dtype=np.int32)
    starts = np.zeros((R, T), dtype=np.int64)
    for r, (run, p) in enumerate(zip(runs, prepared)):
        _lay_out(p, grades[r], doc_fp[r])
        topics_r = p.group_topic
        length[r, topics_r] = p.group_size
        starts[r, topics_r] = p.group_start
        if not dedupe and _has_duplicates(doc_fp[r], length[r]):
            _check_run_duplicates(run, np.arange(len(run)) if p.rows is None else p.rows,
                                  p.tix, False)
    docids = [p.docids if isinstance(p.docids, pa.Array) else p.docids.result()
              for p in prepared]
    del prepared
    if warn_dropped and dropped:
        total = sum(dropped.values())
        warn(f"{total} topic(s) of {len(dropped)} run(s) are not in the qrels and "
             "were ignored")
    return Campaign(tuple(names), topics, grades, length, doc_fp, judged, tuple(docids),
                    starts, max_docs, tuple(r.source for r in runs), dropped,
                    tags=tuple(r.tag for r in runs))
