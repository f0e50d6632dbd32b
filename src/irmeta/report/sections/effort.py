"""The effort section, computed (:class:`EffortSection`): Twist against a gain measure,
archetypes, CRP/DCG panels. Part of :mod:`irmeta.report.analysis` (issue 33, item 0; the
layout: docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.effort import CrpDcgPanel, EffortGain
from irmeta.report.options import ReportOptions
from irmeta.report.sections.common import _rule, _Source
from irmeta.report.sections.leaderboard import LeaderboardSection


@dataclass(frozen=True)
class EffortFindings:
    """What the effort section shows when Twist is defined on some topic.

    ``grid``: the effort/gain grid; ``telling``: :func:`irmeta.effort.most_telling` (one
    pair per kind); ``shares``: the grid's percentages (rows: gain quartile, highest
    first); ``archetypes``: percent of curves per archetype, first row ``all runs``, then
    one row per run with its ``total``; ``panels``: the CRP / DCG curves of the telling
    pairs.
    """

    grid: EffortGain
    telling: pd.DataFrame
    shares: pd.DataFrame
    archetypes: pd.DataFrame
    panels: tuple[CrpDcgPanel, ...]


@dataclass(frozen=True)
class EffortSection:
    """Twist@``depth`` against the gain measure ``gain``: ``findings``, None when Twist
    is undefined on every topic. ``seed``: of the point subsample drawn when the grid
    has more than 20,000 points. ``runs_depth``: the depth of the runs (``depth``
    is that unless ``--twist-depth`` gave another); ``undefined_topics``: analysed
    topics with more relevant documents than ``depth``, where Twist is undefined.
    ``gain_rule``: why ``gain`` (the primary measure unless ``--gain`` gave another)."""

    depth: int
    gain: str
    seed: int
    findings: EffortFindings | None
    runs_depth: int = 0
    undefined_topics: int = 0
    gain_rule: str = ""


def effort_section(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
                   groups: dict, prior: str, context: dict) -> EffortSection:
    """The :class:`EffortSection`: grid, archetypes and the most telling curves (the
    gain measure's values and the archetypes from the pieces)."""
    from irmeta import effort
    from irmeta.measures.parse import parse_measures

    c = source.view
    N = int(opts.twist_depth or c.depth)          # analyse() resolved it; None: runs' depth
    labels = [col.measure for col in board.columns]
    tv = results.values[:, [col.label for col in board.columns].index("Twist")]
    if opts.gain in labels:
        gv = results.values[:, labels.index(opts.gain)]
        gain_label = board.columns[labels.index(opts.gain)].label
    else:
        gv = source.pieces.gain
        gain_label = parse_measures(validate.measure_list([opts.gain], "evaluate"))[0].display
    keep = c.topic_set(opts.rel_level)
    tv = np.where(keep[None, :], tv, np.nan)
    undefined = int((keep & (c.num_rel(opts.rel_level) > N)).sum())
    if np.isnan(tv).all():
        return EffortSection(N, gain_label, opts.seed, None, c.depth, undefined,
                             _rule(opts, opts.gain, "--gain"))
    grid = effort.effort_gain(c, gain_label, depth=N, values=(tv, gv))
    tell = effort.most_telling(grid, k=1)
    shares = grid.table(percent=True)
    shares.index.name = f"{gain_label} quartile"
    arche = source.pieces.archetypes
    arche = arche[arche["topic"].isin(np.asarray(c.topics, dtype=object)[keep])]
    overall = effort.archetype_table({"campaign": arche})
    per_run = (pd.crosstab(arche["run"], arche["archetype"])
               .reindex(columns=list(effort.ARCHETYPES), fill_value=0))
    per_run = per_run.reindex(list(c.runs)).fillna(0).astype(int)
    per_run = per_run.assign(total=per_run.sum(axis=1))
    percent = 100.0 * per_run[list(effort.ARCHETYPES)].div(
        per_run["total"].where(per_run["total"] > 0), axis=0)
    both = pd.concat([overall.rename(index={"campaign": "all runs"}),
                      per_run[["total"]].join(percent)])
    both.index.name = "run"
    panels = source.panels(list(zip(tell["run"], tell["topic"])), N, opts.rel_level)
    return EffortSection(N, gain_label, opts.seed,
                         EffortFindings(grid, tell, shares, both, tuple(panels)), c.depth,
                         undefined, _rule(opts, opts.gain, "--gain"))
