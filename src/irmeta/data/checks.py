"""Checks that a campaign can answer a question at all.

Two degenerate, but individually valid, inputs make every number of an analysis
meaningless, and are almost always a wrong file rather than an experiment:

* **no common topic**: no run has any topic of the qrels (the qrels of another
  collection, or runs and qrels numbering topics differently, ``"1"`` vs ``"001"``).
  ``evaluate`` without ``complete`` would have nothing to evaluate; analyses over the
  campaign topic set would compare empty rankings only.
* **empty campaign topic set**: no qrels topic has a relevant document at the
  relevance level in use (all-zero qrels, or ``-l`` above every grade). Measures over
  it are undefined; analyses have no topic.

Both are :class:`~irmeta.errors.CampaignError` (exit status 2). ``evaluate(...,
complete=True)`` (``trec_eval -c``) is the one place where scoring qrels topics that no
run has is meaningful (each is an empty ranking), so it is not refused there
(``docs/conventions.md``, "Degenerate campaigns").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from irmeta.errors import CampaignError


class CampaignLike(Protocol):
    """What these checks read: a :class:`~irmeta.data.campaign.Campaign`, or the
    :class:`~irmeta.shards.summary.CampaignSummary` a sharded evaluation gathers."""

    @property
    def has_topic(self) -> np.ndarray: ...
    @property
    def topics(self) -> tuple[str, ...]: ...
    @property
    def dropped_topics(self) -> Mapping[str, int]: ...
    @property
    def judged(self) -> Any: ...
    def topic_set(self, rel_level: int = 1) -> np.ndarray: ...


def _topics_text(topics: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(repr(t) for t in topics[:limit])
    return shown + (f", ... ({len(topics)} in all)" if len(topics) > limit else "")


def _prefix(what: str) -> str:
    return f"{what}: " if what else ""


def require_common_topics(campaign: CampaignLike, what: str,
                          topics: np.ndarray | None = None) -> None:
    """Raise a CampaignError when no run has any qrels topic (of ``topics``, a bool mask
    over the campaign topics, when given)."""
    has = campaign.has_topic if topics is None else campaign.has_topic[:, topics]
    if has.any():
        return
    dropped = sum(campaign.dropped_topics.values())
    runs_text = (f"the runs' {dropped} (run, topic) pair(s) are all on other topics"
                 if dropped else "the runs retrieve nothing")
    raise CampaignError(
        f"{_prefix(what)}no run shares a topic with the qrels ({runs_text}; qrels topics: "
        f"{_topics_text(list(campaign.topics))}). Wrong qrels file, or topic ids spelt "
        f"differently ('1' vs '001')?")


def require_topic_set(campaign: CampaignLike, rel_level: int, what: str) -> np.ndarray:
    """The campaign topic set (bool [T]); a CampaignError when it is empty."""
    keep: np.ndarray = campaign.topic_set(rel_level)
    if keep.any():
        return keep
    grades = np.asarray(campaign.judged.grades)
    highest = f"; the highest grade is {int(grades.max())}" if grades.size else ""
    raise CampaignError(
        f"{_prefix(what)}no qrels topic has a relevant document "
        f"(grade >= {rel_level}{highest}), so the "
        f"campaign topic set is empty and every measure is undefined. Check the qrels "
        f"grades or lower -l/--rel-level.")


def require_campaign(campaign: CampaignLike, rel_level: int, what: str) -> np.ndarray:
    """Both checks, for analyses over the campaign topic set; returns that set."""
    keep = require_topic_set(campaign, rel_level, what)
    require_common_topics(campaign, what, keep)
    return keep
