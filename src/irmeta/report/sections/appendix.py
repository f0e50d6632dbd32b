"""The per-run appendix, computed (:class:`AppendixSection`; issue 33, item 3): what
TREC sends each participant about each run — every leaderboard measure's mean and rank,
per topic its value against the topic's best, median and worst, and what the run gave
the pool. :mod:`irmeta.report.views.appendix` draws one self-contained page per run from
it. Part of :mod:`irmeta.report.analysis` (the layout: docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta.report.options import ReportOptions
from irmeta.report.sections.leaderboard import LeaderboardSection, PerTopic

__all__ = ["AppendixSection", "appendix_section", "pool_contribution"]


@dataclass(frozen=True)
class AppendixSection:
    """The appendix of every run.

    ``runs``: the runs, best first (the leaderboard's order). ``means``: one row per
    (run, column) in that order: ``run``, ``label``, ``measure``, ``mean`` (the
    leaderboard's value), ``rank`` (its competition rank), ``ranked`` (runs with a
    defined value), ``best``, ``median`` (over the runs' values), ``marker`` (``*`` /
    ``†`` of that column's tests, empty without). ``per_topic``: the
    :attr:`PerTopic.long` frame (run, topic, measure, value, best, median, worst,
    vs_median). ``primary``: the primary measure string (the bar chart's).
    ``attributes``: run -> ((name, value), ...): the group (with ``--groups``) and the
    ``--run-info`` attributes. ``pool``: per run (index) the documents it put in the
    judged set: ``judged`` and ``relevant`` documents among its first ``pool_depth``
    over the analysed topics, and ``only its group`` (relevant documents no other
    group retrieved within the rarity cutoff; NaN without groups or the trust section),
    the same for a campaign open shard by shard (:func:`pool_contribution`).
    ``pool_depth``: the depth counted (the campaign information's ``pool_depth``, else
    the runs' depth); ``pool_depth_given``: it came from the campaign information;
    ``campaign``: the campaign information (the pages' header), None without.
    """

    runs: tuple[str, ...]
    means: pd.DataFrame
    per_topic: pd.DataFrame
    primary: str
    primary_label: str
    attributes: dict
    pool: pd.DataFrame | None
    pool_depth: int
    pool_depth_given: bool
    rel_level: int
    rare_cutoff: int
    campaign: Any = None


def appendix_section(campaign, opts: ReportOptions, board: LeaderboardSection,
                     per_topic: PerTopic, groups: dict, own_groups: bool,
                     depth: int) -> AppendixSection:
    """The :class:`AppendixSection` of a campaign whose leaderboard is ``board`` (with
    its tests) and per-topic results ``per_topic``; ``campaign``: the in-memory
    :class:`~irmeta.data.campaign.Campaign` (its grades give the pool contribution) or
    the summary of a sharded one; ``depth``: the runs' depth."""
    from irmeta.stats.leaderboard import ABOVE_NEXT, BELOW_BEST
    t = board.table
    runs = tuple(str(r) for r in t.index)
    rows = []
    for col in board.columns:
        values = board.means[col.label]
        ranked = int(values.notna().sum())
        best, median = float(values.max()), float(values.median())
        below, above = _significance(board, col.label)
        for run in runs:
            marker = (BELOW_BEST if below.get(run, False) else "") + \
                (ABOVE_NEXT if above.get(run, False) else "")
            rows.append((run, col.label, col.measure, float(values[run]),
                         float(board.ranks[col.label][run]), ranked, best, median, marker))
    means = pd.DataFrame(rows, columns=["run", "label", "measure", "mean", "rank", "ranked",
                                        "best", "median", "marker"])
    attributes = {run: _attributes(t, run, own_groups, board) for run in runs}
    info = opts.campaign_info
    pool_depth = info.pool_depth if info is not None and info.pool_depth else depth
    pool = pool_contribution(campaign, opts.rel_level, pool_depth)
    if pool is not None:
        unique = per_topic.group_unique
        pool["only its group"] = [float(unique[r]) if unique and r in unique else np.nan
                                  for r in pool.index]
        pool = pool.reindex(list(runs))
    if per_topic.long is None:   # per_topic_results always fills it
        raise RuntimeError("appendix_section: the per-topic results have no long form")
    return AppendixSection(runs, means, per_topic.long, board.columns[0].measure,
                           board.primary, attributes, pool, int(pool_depth),
                           bool(info is not None and info.pool_depth), opts.rel_level,
                           opts.rare_cutoff, info)


def pool_contribution(campaign, rel_level: int, depth: int) -> pd.DataFrame | None:
    """Per run (index, campaign order): ``judged`` = documents among its first
    ``depth`` on the analysed topics that have a qrels line (any grade, negative ones
    included, as trec_eval's "judged"), ``relevant`` = those with grade >= ``rel_level``.
    A campaign open shard by shard counts each shard (one more pass over the shards,
    on its engine) and sums the counts: the same integers. None for a summary, which
    holds no per-document grades."""
    if getattr(campaign, "sharded", False):
        parts = campaign.map(_pool_counts, (rel_level, depth))
        counts = np.sum([p for p in parts], axis=0) if parts else \
            np.zeros((2, len(campaign.runs)), np.int64)
    else:
        grades = getattr(campaign, "grades", None)
        if not isinstance(grades, np.ndarray) or grades.ndim != 3:
            return None
        counts = _pool_counts(campaign, (rel_level, depth), None)
    return pd.DataFrame({"judged": counts[0].astype(np.int64),
                         "relevant": counts[1].astype(np.int64)},
                        index=pd.Index([str(r) for r in campaign.runs], name="run"))


def _pool_counts(campaign, args: tuple[int, int], reference) -> np.ndarray:
    """int64 ``[2, R]``: judged and relevant documents per run among its first ``depth``
    on the analysed topics of the in-memory ``campaign`` (a shard's, on the engine)."""
    from irmeta.data.campaign import NOT_IN_QRELS
    rel_level, depth = args
    keep = campaign.topic_set(rel_level)
    g = campaign.grades[:, keep, :depth]
    return np.stack([(g != NOT_IN_QRELS).sum(axis=(1, 2)),
                     (g >= rel_level).sum(axis=(1, 2))]).astype(np.int64)


def _significance(board: LeaderboardSection, label: str) -> tuple[dict, dict]:
    """run -> significantly below the best / above the next under column ``label``."""
    t = board.table
    if label == board.primary:
        if board.uncertainty is None:
            return {}, {}
        u = board.uncertainty.table
        return u["significant_vs_best"].to_dict(), u["significant_vs_next"].to_dict()
    if f"significant_vs_best {label}" not in t:
        return {}, {}
    return (t[f"significant_vs_best {label}"].to_dict(),
            t[f"significant_vs_next {label}"].to_dict())


def _attributes(t: pd.DataFrame, run: str, own_groups: bool,
                board: LeaderboardSection) -> tuple[tuple[str, str], ...]:
    out = []
    if not own_groups:
        out.append(("group", str(t.loc[run, "group"])))
    if board.attributes is not None:
        out += [(str(name), str(t.loc[run, str(name)])) for name in board.attributes.columns]
    return tuple(out)
