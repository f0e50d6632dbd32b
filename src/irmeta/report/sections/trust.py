"""The trust section, computed (:class:`TrustSection`): discriminative power, stability, tau
between measures, pool reusability (:class:`ReusabilityPart`). Part of
:mod:`irmeta.report.analysis` (issue 33, item 0; the layout: docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, cast

import numpy as np
import pandas as pd

from irmeta.report.columns import Column
from irmeta.report.options import ReportOptions
from irmeta.report.sections.leaderboard import LeaderboardSection


@dataclass(frozen=True)
class TrustSection:
    """How far the measures can be relied on.

    ``tau``: Kendall's tau between the rankings of the runs by every pair of leaderboard
    columns (NaN where a measure ties every run); ``most_different``: the pair with the
    lowest tau and its value, None when every tau is undefined. ``tested``: False when no
    measure has 2 topics with a defined value for every run (then ``power`` and
    ``measures`` are empty). ``topic_set_size``: the primary measure's topic set size
    design over :data:`TOPIC_SET_DIFFS` (:func:`topics_needed`), None untested.
    ``power``: :func:`irmeta.stats.bootstrap_power` sorted by
    discriminative power; ``measures``: power joined with
    :func:`irmeta.stats.stability_table`, columns renamed as shown; ``pairs``: run pairs
    compared. ``level``, ``discpower_trials``, ``stability_trials``, ``fuzziness``: the
    options used (the :class:`ReportOptions` fields of the same names);
    ``analysed_topics``: topics with a relevant document. ``primary``: the primary
    measure's label (its row of ``measures`` leads the section's text); ``primary_rank``:
    its place by discriminative power (1 = separates the most pairs), None untested.
    """

    tau: pd.DataFrame
    most_different: tuple[str, str, float] | None
    tested: bool
    power: pd.DataFrame
    measures: pd.DataFrame
    pairs: int
    level: float
    discpower_trials: int
    stability_trials: int
    fuzziness: float
    analysed_topics: int
    primary: str = "AP"
    primary_rank: int | None = None
    #: leave-one-group-out of the primary measure (with ``--groups``; None without)
    reusability: ReusabilityPart | None = None
    #: the topics a next round needs for the primary measure (:func:`topics_needed`)
    topic_set_size: pd.DataFrame | None = None


@dataclass(frozen=True)
class ReusabilityPart:
    """The trust section's "Reusability" part (issue 26; docs/pooling.md): the primary
    measure re-evaluated for each group's runs without the judged documents only that
    group retrieved within ``depth`` (the report's rarity cutoff K). ``scores``: per run
    ``run, group, score, score_without, rank, rank_without``; ``groups``: per group
    ``group, runs, unique judged, unique relevant, mean AP_rare, largest drop``;
    ``tau`` / ``tau_ap``: Kendall's tau and tau_AP between the rankings with and without;
    ``worst``: the (run, drop) of the largest score drop."""

    measure: str
    depth: int
    scores: pd.DataFrame
    groups: pd.DataFrame
    tau: float
    tau_ap: float
    worst: tuple[str, float]


def reusability_part(campaign, opts: ReportOptions, measure: str,
                     groups: Mapping[str, str]) -> ReusabilityPart | None:
    """The :class:`ReusabilityPart` of the primary measure (None when it depends on the
    other runs' context, which leaving a group out would change, or with one group)."""
    from irmeta.measures.parse import parse_measures
    from irmeta.stats.reusability import reusability
    if any(m.definition.context for m in parse_measures([measure])):
        return None
    if len(set(groups.values())) < 2:
        return None
    res = reusability(campaign, [measure], dict(groups), depth=opts.rare_cutoff,
                      rel_level=opts.rel_level)
    scores = res.table.drop(columns=["measure"])[["run", "group", "score", "score_without",
                                                  "rank", "rank_without"]]
    drop = scores.assign(drop=scores["score"] - scores["score_without"])
    largest = drop.groupby("group", sort=False)["drop"].max()
    rare = [c for c in res.groups.columns if c.startswith("mean_")]
    table = res.groups.rename(columns={"unique_judged": "unique judged",
                                       "unique_relevant": "unique relevant",
                                       **{c: "mean AP_rare" for c in rare}})
    table["largest drop"] = table["group"].map(largest).to_numpy()
    table = table.sort_values(["unique relevant", "group"], ascending=[False, True],
                              kind="stable").reset_index(drop=True)
    row = res.summary.iloc[0]
    worst = drop.sort_values(["drop", "run"], ascending=[False, True]).iloc[0]
    return ReusabilityPart(measure, opts.rare_cutoff, scores.reset_index(drop=True), table,
                           float(row["kendall_tau"]), float(row["tau_ap"]),
                           (str(worst["run"]), float(worst["drop"])))


def trust_matrices(results, columns: list[Column]) -> dict[str, pd.DataFrame]:
    """``{label: systems x topics matrix}`` of the leaderboard columns, topics with an
    undefined value left out; measures with fewer than 2 topics left are dropped, and
    diagnostic columns (Judged@10) are not meta-evaluated."""
    mats = {}
    for i, col in enumerate(columns):
        if col.diagnostic:          # Judged@10 says how judged the runs are, not how good
            continue
        mat = results.matrix(i).dropna(axis=1, how="any")
        if mat.shape[1] >= 2:
            mats[col.label] = mat
    return mats


#: the differences D of the trust section's topic set size design (measures on [0, 1]);
#: a primary measure with values beyond 1 (counts) scales them by its largest value
TOPIC_SET_DIFFS = (0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075, 0.1, 0.15, 0.2)
#: the power the trust section's design asks for (Sakai's examples and Cohen's 0.8)
TOPIC_SET_POWER = 0.8


def topics_needed(mat: pd.DataFrame, level: float) -> pd.DataFrame | None:
    """The topic set size design (:func:`irmeta.stats.topic_set_size`, paired t-test
    and one-way ANOVA, at the report's level and power :data:`TOPIC_SET_POWER`) of the
    primary measure's runs x topics matrix ``mat`` (topics every run has) over
    :data:`TOPIC_SET_DIFFS`; None with fewer than 2 runs or 2 topics, or when no D gets a
    topic count (no residual variance: runs that differ by constants, identical runs)."""
    from irmeta.stats.topic_set_size import topic_set_size
    if mat.shape[0] < 2 or mat.shape[1] < 2:
        return None
    top = float(np.abs(mat.to_numpy(dtype=float)).max(initial=0.0))
    scale = top if top > 1 else 1.0
    table = topic_set_size(mat, [d * scale for d in TOPIC_SET_DIFFS], alpha=level,
                           power=TOPIC_SET_POWER, method=["ttest", "anova"],
                           measure=str(mat.index.name or "")).table
    return None if table["n_topics"].isna().all() else table


def trust_tests(mats: dict, opts: ReportOptions, primary: str | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """Discriminative power (paired bootstrap) and stability of every measure, and the
    topic set size design of ``primary`` (a label of ``mats``): the slowest part of the
    report, run in a forked child by :func:`analyse`."""
    from irmeta import stats
    if not mats:  # fewer than 2 topics: the section says why these tests are left out
        return pd.DataFrame(), pd.DataFrame(), None
    dp, _ = stats.bootstrap_power(mats, level=opts.level, trials=opts.discpower_trials,
                                  seed=opts.seed, progress=False)
    stab = stats.stability_table(mats, trials=opts.stability_trials, fuzziness=opts.fuzziness,
                                 seed=opts.seed, classic=True, progress=False)
    design = None
    if primary in mats:
        design = topics_needed(mats[primary].rename_axis(primary), opts.level)
    return dp, stab, design


def trust(campaign, opts: ReportOptions, board: LeaderboardSection,
          tests: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]) -> TrustSection:
    """The :class:`TrustSection` from the leaderboard and :func:`trust_tests`."""
    from irmeta import stats

    tau = stats.correlation_matrix(board.means, method="kendall")
    # tau is NaN (undefined) where a measure ties every run (identical runs, one topic
    # without a relevant document for anyone): the most different pair is among the rest
    off = tau.where(~np.eye(len(tau), dtype=bool)).stack().dropna()
    most_different = None
    if len(off):
        a, b = cast(tuple, off.idxmin())
        most_different = (str(a), str(b), float(off.to_numpy().min()))
    dp, stab, design = tests
    topics = int(campaign.topic_set(opts.rel_level).sum())
    if dp.empty:
        return TrustSection(tau, most_different, False, dp, dp, 0, opts.level,
                            opts.discpower_trials, opts.stability_trials, opts.fuzziness,
                            topics, board.primary, None)
    dp = dp.sort_values("dp", ascending=False, kind="stable").reset_index(drop=True)
    table = dp[["measure", "dp", "significant", "pairs", "delta"]].merge(
        stab, on="measure", how="left")
    table = table.rename(columns={"dp": "disc. power", "significant": "significant pairs",
                                  "delta": "Δ needed", "stability": "stability",
                                  "stability_ties": "stability ties", "bv_error": "BV error",
                                  "bv_ties": "BV ties", "bv_swaps": "BV swaps"})
    hits = np.flatnonzero(table["measure"].to_numpy() == board.primary)
    return TrustSection(tau, most_different, True, dp, table,
                        int(dp["pairs"].iloc[0]) if len(dp) else 0, opts.level,
                        opts.discpower_trials, opts.stability_trials, opts.fuzziness, topics,
                        board.primary,
                        int(hits[0]) + 1 if len(hits) else None, topic_set_size=design)
