"""The NRG section, computed (:class:`NRGSection`): what is new in each run. Part of
:mod:`irmeta.report.analysis` (issue 33, item 0; the layout: docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from irmeta.report.options import ReportOptions
from irmeta.report.sections.common import _no_group, _Source, ranks
from irmeta.report.sections.leaderboard import LeaderboardSection


@dataclass(frozen=True)
class NRGSection:
    """NRG@``k`` (prior set ``prior``: ``others``, ``best_per_group``, ``earlier`` or
    ``list``) against nDCG@``k``.

    ``points``: per run (campaign order) ``nDCG``, ``NRG`` and ``group`` (and
    ``colour``: the value of the run attribute ``colour_by`` that colours the scatter,
    the first of ``run_info``; None: the group colours it).
    ``table``: per run ``run``, ``group`` (with groups), nDCG@k, NRG@k, ``NRG / nDCG``
    (NaN where nDCG is 0), both ranks and the unique@K count; highest NRG first.
    """

    k: int
    rare_cutoff: int
    prior: str
    own_groups: bool
    points: pd.DataFrame
    table: pd.DataFrame
    colour_by: str | None = None


def nrg(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
        groups: dict, prior: str, context: dict) -> NRGSection:
    """The :class:`NRGSection` from the leaderboard's means."""
    k, m = opts.nrg_cutoff, board.means
    x, y = m[f"nDCG@{k}"], m[f"NRG@{k}"]
    grp = pd.Series([groups[r] for r in m.index], index=m.index)
    ratio = y / x.where(x > 0)
    uniq = m[f"unique@{opts.rare_cutoff}"]
    table = pd.DataFrame({"run": m.index, "group": grp.values, f"nDCG@{k}": x.values,
                          f"NRG@{k}": y.values, "NRG / nDCG": ratio.values,
                          f"rank nDCG@{k}": ranks(x).values, f"rank NRG@{k}": ranks(y).values,
                          f"unique@{opts.rare_cutoff}": uniq.values})
    table = _no_group(board.own_groups,
                      table.sort_values([f"NRG@{k}", "run"], ascending=[False, True]))
    points = pd.DataFrame({"nDCG": x, "NRG": y, "group": grp})
    colour_by = None
    if board.attributes is not None:         # the first run attribute colours the points
        colour_by = str(board.attributes.columns[0])
        points["colour"] = board.attributes[board.attributes.columns[0]].reindex(m.index)
    return NRGSection(k, opts.rare_cutoff, prior, board.own_groups, points, table, colour_by)
