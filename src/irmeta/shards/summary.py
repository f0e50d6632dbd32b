"""What a sharded evaluation keeps of a campaign it never held whole.

:class:`~irmeta.evaluation.Results` of an in-memory evaluation holds the
:class:`~irmeta.data.campaign.Campaign`; a sharded evaluation holds a
:class:`CampaignSummary` instead: the run and topic names, the ranking lengths
``length[r, t]`` (hence ``has_topic``) and the qrels grades per topic (hence
``num_rel``, ``topic_set`` at any relevance level). That is everything ``Results``
(``means``, ``aggregate``, ``to_frame``, ``wide``, ``matrix``) and the checks of
:mod:`irmeta.data.checks` read. The rankings themselves (``grades``, ``doc_fp``,
``docids``) are not kept: functions that need them (``explain``, the report, the
subsampling of ``irmeta.stats``) take a :class:`Campaign` and refuse a summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from irmeta.data.campaign import RunTopicShape


@dataclass(eq=False)
class JudgedSummary:
    """The qrels grades of a campaign, one entry per judgment (``topic[i]``, ``grades[i]``)."""

    topic: np.ndarray      # int32 [n]: topic index of each judgment
    grades: np.ndarray     # int64 [n]
    num_topics: int

    def num_rel(self, rel_level: int = 1) -> np.ndarray:
        """int64 [T]: judgments with grade >= rel_level per topic."""
        return np.bincount(self.topic[self.grades >= rel_level],
                           minlength=self.num_topics).astype(np.int64)

    def num_judged_nonrel(self, rel_level: int = 1) -> np.ndarray:
        """int64 [T]: judged non-relevant documents (0 <= grade < rel_level) per topic."""
        mask = (self.grades >= 0) & (self.grades < rel_level)
        return np.bincount(self.topic[mask], minlength=self.num_topics).astype(np.int64)


@dataclass(eq=False)
class CampaignSummary(RunTopicShape):
    """Runs, topics, ranking lengths and qrels grades of a campaign (see module doc)."""

    runs: tuple[str, ...]
    topics: tuple[str, ...]
    length: np.ndarray                 # int32 [R, T]: documents retrieved (after max_docs)
    judged: JudgedSummary
    max_docs: int | None = None
    sources: tuple[str | None, ...] = ()
    dropped_topics: dict[str, int] = field(default_factory=dict)
    shards: int = 1                    # number of shards the values were computed in
    tags: tuple[str | None, ...] = ()  # per run its file's tag (Campaign.tags)

    @property
    def depth(self) -> int:
        """The longest ranking of any run and topic (at least 1), as ``Campaign.depth``."""
        return max(1, int(self.length.max(initial=0)))
