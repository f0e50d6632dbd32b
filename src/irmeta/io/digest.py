"""SHA-256 digests that tell a reader which inputs produced a page (issue 33, item 2).

A file is hashed as it lies on disk (compressed or not): the digest equals what
``sha256sum FILE`` prints. Qrels that come from no file (Python objects, standard
input, an ``irds:`` id) are hashed as their canonical TREC text: one line
``topic 0 docid grade`` per judgment, sorted by topic id then document id (byte order),
each line ending in a newline. That equals ``sha256sum`` of a qrels file written that
way, so an organizer can reproduce it with
``LC_ALL=C sort -k1,1 -k3,3 qrels.txt | awk '{print $1, 0, $3, $4}' | sha256sum``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["file_sha256", "qrels_text_sha256"]


def file_sha256(path: str | os.PathLike[str]) -> str | None:
    """The SHA-256 (hex) of the file ``path``; None when it is not a readable regular
    file (standard input ``-``, an ``irds:`` id, a folder)."""
    where = os.fspath(path)
    if where == "-" or not os.path.isfile(where):
        return None
    try:
        with open(where, "rb") as f:
            return hashlib.file_digest(f, "sha256").hexdigest()
    except OSError:
        return None


def qrels_text_sha256(topic: Any, docids: Any, grades: Any, topics: Sequence[str]) -> str:
    """The SHA-256 of the canonical TREC text of a campaign's judgments: one judgment
    per index ``i``, of topic ``topics[topic[i]]``, document ``docids[i]`` (a pyarrow
    binary array) and grade ``grades[i]``. The in-memory campaign passes its
    :class:`~irmeta.data.campaign.JudgedDocs`' columns; a sharded one the rows of its
    Parquet qrels (:func:`irmeta.shards.parquet.judgment_rows`), so both give one
    digest."""
    raw = docids.to_pylist()
    topic_ids = [str(t).encode("utf-8", "surrogateescape") for t in topics]
    rows = sorted(zip((topic_ids[t] for t in np.asarray(topic)), raw,
                      np.asarray(grades).tolist()))
    digest = hashlib.sha256()
    for tid, doc, grade in rows:
        digest.update(b"%s 0 %s %d\n" % (tid, doc, grade))
    return digest.hexdigest()
