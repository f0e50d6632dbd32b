"""What every section's computation shares: the campaign or its sharded summary
(:class:`_Source`), ranks, a clock that times nothing. Part of :mod:`irmeta.report.analysis`
(issue 33, item 0; the layout: docs/report.md).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta.report.options import ReportOptions


def _is_sharded(campaign) -> bool:
    from irmeta.shards.local import ShardedCampaign
    return isinstance(campaign, ShardedCampaign)


def _view(campaign):
    """What the sections read of the campaign besides the pieces: the campaign itself,
    or a sharded campaign's :class:`~irmeta.shards.summary.CampaignSummary` (run and
    topic names, ranking lengths — hence the depth —, qrels grades)."""
    return campaign.summary() if _is_sharded(campaign) else campaign


@dataclass(frozen=True)
class _Source:
    """What the sections compute from: ``view`` (the campaign, or a sharded campaign's
    summary), the per-topic ``pieces`` of ``spec``, and ``panels(pairs, depth,
    rel_level)``, the CRP/DCG panels of a few (run, topic) pairs."""

    view: Any
    pieces: Any
    spec: Any
    panels: Any


def _panels_of(campaign):
    """``panels(pairs, depth, rel_level)``: :func:`irmeta.effort.crp_dcg_panels` on the
    campaign, or — sharded — on the campaign of each pair's topic alone (a panel is a
    function of one topic's rankings)."""
    from irmeta import effort
    if not _is_sharded(campaign):
        return lambda pairs, depth, rel: effort.crp_dcg_panels(campaign, pairs, depth=depth,
                                                               rel_level=rel)

    def panels(pairs, depth, rel):
        out = []
        for run, topic in pairs:
            t = campaign.topics.index(str(topic))
            out += effort.crp_dcg_panels(campaign.campaign(t, t + 1), [(run, topic)],
                                         depth=depth, rel_level=rel)
        return out
    return panels


class _Untimed:
    """A clock that times nothing (:func:`analyse_campaign` without a progress bar)."""

    def step(self, name: str):
        return contextlib.nullcontext()


def ranks(values: pd.Series) -> pd.Series:
    """Competition ranks, 1 = largest (1 + the number of strictly larger values); NaN
    stays NaN."""
    return values.rank(ascending=False, method="min")


def _no_group(own_groups: bool, frame: pd.DataFrame) -> pd.DataFrame:
    """Drop the ``group`` column when no groups were given (it would repeat the run)."""
    return frame.drop(columns="group") if own_groups and "group" in frame else frame


def _results_of(c, ms: list, values: np.ndarray, rel_level: int):
    """:class:`~irmeta.evaluation.Results` of per-topic ``values[R, M, T]`` of the
    measures ``ms``, every topic evaluated (``complete``): their ``matrix`` is the one
    ``evaluate(..., complete=True)`` gives."""
    from irmeta.evaluation import Results
    return Results(c, list(ms), values, np.ones((c.num_runs, c.num_topics), dtype=bool),
                   rel_level)


def _rule(opts: ReportOptions, measure, option: str) -> str:
    """Why a one-measure section uses ``measure`` (stated on the page)."""
    if measure == opts.primary:
        return f"the primary measure, as every section of one measure; {option} chooses another"
    return f"given ({option}); the primary measure is {opts.primary}"


def _sweep_families(K: int) -> dict[str, str]:
    return {f"P@{K}": f"P_rare(alpha={{alpha}})@{K}", f"AP@{K}": f"AP_rare(alpha={{alpha}})@{K}"}
