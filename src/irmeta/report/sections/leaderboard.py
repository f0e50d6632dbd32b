"""The leaderboard section, computed: every run under every column
(:class:`LeaderboardSection`), the primary measure's rule (:class:`Defaults`), the per-topic
results (:class:`PerTopic`) and the summary's highlights (:class:`Highlights`). Part of
:mod:`irmeta.report.analysis` (issue 33, item 0; the layout: docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta.report.columns import Column
from irmeta.report.options import ReportOptions
from irmeta.report.sections.common import ranks
from irmeta.report.sections.risk import georisk_column

#: a leaderboard column is *saturated* when more than this share of the runs (with a
#: defined mean) share one value: its ranks are mostly ties, and a rank change under it
#: says nothing about the run (Judged@10 on DL21: 39 of 63 runs at 1.0)
SATURATION = 0.5


@dataclass(frozen=True)
class LeaderboardSection:
    """Every run under every column of :func:`leaderboard_columns`.

    ``means``: runs (campaign order) x column labels, the mean over the campaign topic
    set (topics with an undefined value left out), or the sum for ``kind="sum"``
    columns. ``ranks``: competition ranks of ``means`` (1 + runs with a strictly larger
    value; NaN stays NaN). ``table``: one row per run, best first by the primary
    measure, indexed by run: ``run``, ``group`` (only when groups were given), then per
    column its value, ``rank <label>`` and, except the primary measure, ``delta
    <label>`` = rank under the primary measure - rank under it (positive = the run
    moves up). ``rare_cutoff``: K of the unique-document column. ``primary``: the label of
    the primary measure (the first column); ``uncertainty``: its
    :class:`irmeta.stats.leaderboard.Leaderboard` (bootstrap intervals of the mean,
    corrected tests against the best and the next run), None with fewer than 2 topics.
    ``saturated``: the columns (not the primary) where most runs share one value
    (:func:`saturated_columns`), whose rank changes are left out. ``attributes``: the
    run attributes of ``run_info`` (runs x attributes, campaign order; also columns of
    ``table`` after ``group``), None without. ``column_tests``: column label -> the
    tests of that column's runs against its best and its next run
    (:func:`irmeta.stats.leaderboard.vs_best_and_next`: each column its own two
    families, corrected with the report's correction), for every column but the
    primary (whose tests are in ``uncertainty``) that averages per-topic values
    (:func:`columns_with_markers`); None before the tests ran. ``best_per_group``: the best
    run of each group by the primary measure (:func:`best_per_group`), None without
    groups. ``georisk``: every run's GeoRisk of the primary measure at alpha 1 (campaign
    order; :func:`irmeta.report.sections.risk.georisk_column`: ``sqrt(mean * Phi(ZRisk /
    c))`` over the topics where every run has a value), also the table's ``GeoRisk`` and
    ``rank GeoRisk`` columns after the primary measure's; None when undefined (no such
    topic, or negative values).
    """

    columns: tuple[Column, ...]
    means: pd.DataFrame
    ranks: pd.DataFrame
    table: pd.DataFrame
    own_groups: bool
    rare_cutoff: int
    primary: str = "AP"
    uncertainty: Any = None
    rel_level: int = 1
    prior: str = "others"
    saturated: tuple[str, ...] = ()
    attributes: pd.DataFrame | None = None
    column_tests: dict | None = None
    best_per_group: pd.DataFrame | None = None
    georisk: pd.Series | None = None


@dataclass(frozen=True)
class Defaults:
    """The defaults that follow the campaign, and the rule that chose each (stated on
    the page). ``primary``: the primary measure string and ``primary_rule`` why it was
    chosen; ``depth``: the runs' depth (the longest ranking), which sets the recall
    cut-off ``R@depth`` and, unless given, Twist's depth N (``twist_rule``);
    ``graded``: the qrels have grades above 1."""

    primary: str
    primary_rule: str
    depth: int
    twist_depth: int
    twist_rule: str
    graded: bool


@dataclass(frozen=True)
class PerTopic:
    """Per-topic results (the layout of TREC's appendix pages) and every measure's runs
    x topics matrix. ``measure``: the primary measure's label; ``summary``:
    :func:`irmeta.aggregate.topics.topic_summary` of its matrix (best, median, worst per
    topic); ``runs``: run -> :func:`irmeta.aggregate.topics.run_topics` (the run's
    value beside them, its rank on the topic); ``matrices``: measure string -> runs x
    topics matrix over the analysed topics (campaign order; NaN = undefined)."""

    measure: str
    summary: pd.DataFrame
    runs: dict
    matrices: dict
    #: run -> relevant documents only its group retrieved within the rarity cutoff (the
    #: trust section's Reusability part; None without ``--groups``)
    group_unique: dict | None = None
    #: every measure's per-topic values in long form (:func:`long_per_topic`; the
    #: report's ``per_topic_runs.tsv``)
    long: pd.DataFrame | None = None


@dataclass(frozen=True)
class Superlative:
    """One headline fact of the summary and every run that shares it: ``runs`` (all the
    runs with exactly ``value``, best first by the primary measure, then campaign order),
    ``ranks``: each run's competition rank under the primary measure. ``tied``: more
    than one run holds it (the page then names them all and says "tied")."""

    runs: tuple[str, ...]
    value: float
    ranks: tuple[int, ...]

    @property
    def tied(self) -> bool:
        return len(self.runs) > 1


@dataclass(frozen=True)
class RankChange:
    """A tie-aware rank change of ``run`` between the primary measure and ``measure``:
    ``primary_ranks`` and ``measure_ranks`` are the ranges of ranks the run can take
    under each (``(lo, hi)``: ``lo`` = 1 + runs strictly better, ``hi`` = runs better or
    equal; a run without ties has ``lo == hi``); ``shift``: how far apart the two ranges
    are (0 when they overlap: no change), positive when the run moves up under
    ``measure``."""

    run: str
    measure: str
    primary_ranks: tuple[int, int]
    measure_ranks: tuple[int, int]
    shift: int


@dataclass(frozen=True)
class Highlights:
    """The summary at the top of the page, from the leaderboard; every superlative is a
    :class:`Superlative` that names all the runs sharing it (a tie is never hidden).

    ``primary``: the primary measure's label; ``best``: the best run(s) by it; ``tied``:
    runs not significantly below the best, None without tests; ``most_new``: the highest
    NRG@``nrg_cutoff``, None when NRG is undefined for every run; ``most_unique``: most
    unique relevant documents, None when no run has one; ``moved``: the largest
    tie-aware rank change against the primary measure (every run and measure sharing
    the largest ``shift``), empty when no run moves; ``left_out``: (column, why) of the
    leaderboard columns left out of the rank changes: saturated ones (most runs share one
    value, :func:`saturated_columns`; why: "39 of 63 runs share 1.000") and diagnostic
    ones (Judged@10)."""

    primary: str
    best: Superlative
    tied: int | None
    nrg_cutoff: int
    most_new: Superlative | None
    most_unique: Superlative | None
    moved: tuple[RankChange, ...]
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def best_run(self) -> str:
        """The first of the best runs (campaign order on a tie)."""
        return self.best.runs[0]

    @property
    def best_value(self) -> float:
        return self.best.value


#: ``leaderboard_section(..., uncertainty=COMPUTE)``: compute the intervals and tests in place
COMPUTE = "compute"


def leaderboard_section(results, columns: list[Column], groups: dict, own_groups: bool,
                rare_cutoff: int, opts: ReportOptions | None = None,
                prior: str = "others", uncertainty: Any = COMPUTE,
                run_info: pd.DataFrame | None = None) -> LeaderboardSection:
    """The :class:`LeaderboardSection` of evaluated ``results`` (one measure per column; the
    first is the primary measure, which orders the table and gets intervals and tests
    with ``opts``' test, correction, level, ``ci_level``, ``ci_trials`` and seed).
    ``uncertainty``: those intervals and tests when already computed
    (:func:`primary_uncertainty`, None for none), else :data:`COMPUTE`. GeoRisk of the
    primary measure (:func:`~irmeta.report.sections.risk.georisk_column`) is a column."""
    opts = opts or ReportOptions()
    per_column = {}
    for i, col in enumerate(columns):
        m = results.matrix(i)
        per_column[col.label] = col.aggregate(m)
    means = pd.DataFrame(per_column)
    column_tests = None
    if isinstance(uncertainty, str) and uncertainty == COMPUTE:
        uncertainty, column_tests = board_tests(results, columns, opts)
    return board_of_means(columns, means, groups, own_groups, rare_cutoff, opts, prior,
                          uncertainty, run_info, column_tests,
                          georisk=georisk_column(results.matrix(0)))


def board_of_means(columns: list[Column], means: pd.DataFrame, groups: dict,
                   own_groups: bool, rare_cutoff: int, opts: ReportOptions,
                   prior: str = "others", uncertainty: Any = None,
                   run_info: pd.DataFrame | None = None,
                   column_tests: dict | None = None,
                   georisk: pd.Series | None = None) -> LeaderboardSection:
    """The :class:`LeaderboardSection` of the runs' ``means`` (runs x column labels):
    ranks, tie-aware rank changes, saturated columns, the table (with every tested
    column's ``p_vs_best <label>``, ``significant_vs_best <label>``, ``p_vs_next
    <label>``, ``significant_vs_next <label>``, and, given ``georisk`` (run -> GeoRisk of
    the primary measure), ``GeoRisk`` and ``rank GeoRisk`` after the primary
    measure's columns)."""
    rank = means.apply(ranks)
    primary = columns[0].label
    saturated = tuple(c for c in saturated_columns(means) if c != primary)
    # the same order as the tests' table: mean descending, campaign order on ties
    order = means[primary].sort_values(ascending=False, kind="stable").index
    # the columns gathered first, the frame built once (inserting ~100 columns one at a
    # time fragments it: pandas warns)
    cells: dict[str, Any] = {"run": list(order)}
    if not own_groups:
        cells["group"] = [groups[r] for r in order]
    if run_info is not None:
        for name in run_info.columns:
            cells[str(name)] = run_info[name].reindex(order).to_numpy()
    for label in means.columns:
        cells[label] = means[label].reindex(order).to_numpy()
        cells[f"rank {label}"] = rank[label].reindex(order).to_numpy()
        if label != primary:      # tie-aware; none under a saturated column
            delta = (pd.Series(np.nan, index=means.index) if label in saturated
                     else rank_shift(means[primary], means[label]))
            cells[f"delta {label}"] = delta.reindex(order).to_numpy()
        if label == primary and uncertainty is not None:
            u = uncertainty.table.reindex(order)
            for name in ("ci_low", "ci_high", "p_vs_best", "significant_vs_best",
                         "p_vs_next", "significant_vs_next", "tied_with_best"):
                cells[name] = u[name].to_numpy()
        if label == primary and georisk is not None:
            cells["GeoRisk"] = georisk.reindex(order).to_numpy()
            cells["rank GeoRisk"] = ranks(georisk).reindex(order).to_numpy()
        if column_tests and label in column_tests:
            tests = column_tests[label].reindex(order)
            for name in ("p_vs_best", "significant_vs_best", "p_vs_next",
                         "significant_vs_next"):
                cells[f"{name} {label}"] = tests[name].to_numpy()
    table = pd.DataFrame(cells, index=list(order))
    best = None if own_groups else best_per_group(means[primary], rank[primary], groups)
    return LeaderboardSection(tuple(columns), means, rank, table, own_groups, rare_cutoff,
                              primary, uncertainty, opts.rel_level, prior, saturated, run_info,
                              column_tests, best, georisk)


def best_per_group(values: pd.Series, rank: pd.Series, groups: dict) -> pd.DataFrame:
    """The best run of each group by ``values`` (the primary measure's means): one row
    per group, best group first: ``group``, ``run`` (the first in campaign order when
    two of its runs tie), ``value``, ``rank`` (its rank among all runs), ``group rank``
    (competition rank among the groups' best runs) and ``runs`` (the group's runs). A
    group whose runs are all undefined (NaN) comes last with NaN values."""
    frame = pd.DataFrame({"run": [str(r) for r in values.index],
                          "group": [str(groups[r]) for r in values.index],
                          "value": values.to_numpy(dtype=float),
                          "rank": rank.to_numpy(dtype=float)})
    frame["order"] = np.arange(len(frame))
    size = frame.groupby("group", sort=False)["run"].size()
    best = (frame.sort_values(["value", "order"], ascending=[False, True], kind="stable",
                              na_position="last")
            .drop_duplicates("group").reset_index(drop=True))
    best["group rank"] = best["value"].rank(ascending=False, method="min")
    best["runs"] = size.reindex(best["group"]).to_numpy()
    return best[["group", "run", "value", "rank", "group rank", "runs"]]


def columns_with_markers(columns: list[Column]) -> list[int]:
    """The positions of the columns (not the primary, position 0) that get significance
    markers: those whose value is a mean of per-topic values, where a paired test of the
    per-topic differences asks the right question. Left out: totals (unique@K) and
    geometric means (GMAP: a test of arithmetic means would not test them), and
    diagnostics of the judgments (Judged@10)."""
    return [i for i, c in enumerate(columns) if i > 0 and c.kind == "mean"
            and not c.diagnostic]


def board_tests(results, columns: list[Column], opts: ReportOptions):
    """``(uncertainty, column_tests)``: the primary measure's intervals and tests
    (:func:`primary_uncertainty`) and every :func:`columns_with_markers` column's tests
    against its best and next run on the topics every run has a value for (label ->
    frame; a column with fewer than 2 such topics is left out). Run together in the
    report's child process."""
    from irmeta.stats.leaderboard import vs_best_and_next
    uncertainty = primary_uncertainty(results, opts)
    tests = {}
    for i in columns_with_markers(columns):
        matrix = results.matrix(i).dropna(axis=1, how="any")
        if matrix.shape[1] < 2:
            continue
        tests[columns[i].label] = vs_best_and_next(
            matrix, test=opts.test, correction=opts.correction, level=opts.level,
            trials=opts.ci_trials, seed=opts.seed)
    return uncertainty, tests


def primary_uncertainty(results, opts: ReportOptions):
    """The primary measure's (first column's) bootstrap intervals and tests
    (:func:`irmeta.stats.leaderboard.leaderboard` on the topics every run has a value
    for), None with fewer than 2 such topics. :func:`analyse` computes them in a forked
    child (importing ``scipy.stats`` takes about a second) while the parent computes
    the other sections."""
    from irmeta.stats.leaderboard import leaderboard as ranked
    matrix = results.matrix(0).dropna(axis=1, how="any")   # paired tests: common topics
    if matrix.shape[1] < 2:
        return None
    return ranked(matrix, test=opts.test, correction=opts.correction, level=opts.level,
                  ci_level=opts.ci_level, trials=opts.ci_trials, seed=opts.seed)


def choose_defaults(campaign, opts: ReportOptions) -> Defaults:
    """The campaign-dependent defaults (:class:`Defaults`).

    Primary measure, unless given: **nDCG@10 when the qrels are graded (a grade above 1)
    and no run is deeper than 100 documents** — the convention of TREC Deep Learning
    and of other shallow, graded tracks — **else AP** (trec_eval's ``map``, the primary
    measure of TREC's ad hoc tracks, which needs deep rankings to be meaningful).
    Twist's depth N, unless given: the runs' depth (a deeper N pads every ranking with
    non-relevant documents)."""
    depth = int(campaign.depth)
    graded = bool(len(campaign.judged.grades) and int(campaign.judged.grades.max()) > 1)
    if opts.primary is not None:
        primary, rule = opts.primary, "given (--primary)"
    elif graded and depth <= 100:
        primary, rule = "nDCG@10", ("chosen from the campaign: graded judgements and runs "
                                    "of at most 100 documents (as TREC Deep Learning)")
    else:
        primary = "AP"
        rule = ("chosen from the campaign: " + ("binary judgements" if not graded else
                f"runs deeper than 100 documents ({depth})")
                + " (as TREC's ad hoc tracks)")
    twist, twist_rule = (opts.twist_depth, "given (--twist-depth)") if opts.twist_depth \
        else (depth, "the runs' depth")
    return Defaults(primary, rule, depth, int(twist), twist_rule, graded)


def natural_order(topics) -> list:
    """Topic ids in natural order: by number when every id is an integer (``2`` before
    ``10``), else by their runs of digits read as numbers (``t2`` before ``t10``), ties
    by the id itself; the per-topic tables and matrices use it (issue 24)."""
    import re
    ids = [str(t) for t in topics]

    def key(t: str):
        parts = re.split(r"(\d+)", t)
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p], t
    order = sorted(range(len(ids)), key=lambda i: key(ids[i]))
    return [list(topics)[i] for i in order]


def per_topic_results(campaign, opts: ReportOptions, results,
                      board: LeaderboardSection) -> PerTopic:
    """The :class:`PerTopic` results: every measure's matrix over the analysed topics
    (in :func:`natural_order`), and for the primary measure the best/median/worst per
    topic with each run beside them."""
    from irmeta.aggregate.topics import run_topics, topic_summary
    keep = np.asarray(campaign.topics, dtype=object)[campaign.topic_set(opts.rel_level)]
    matrices = {}
    for i, col in enumerate(board.columns):
        m = results.matrix(i)
        matrices[col.measure] = m.reindex(columns=natural_order(
            [t for t in m.columns if t in set(keep)]))
    primary = matrices[board.columns[0].measure]
    return PerTopic(board.primary, topic_summary(primary),
                    {str(r): run_topics(primary, str(r)) for r in primary.index}, matrices,
                    long=long_per_topic(matrices, [str(r) for r in board.table.index]))


#: the columns of :func:`long_per_topic` (and of ``per_topic_runs.tsv``)
LONG_COLUMNS = ("run", "topic", "measure", "value", "best", "median", "worst", "vs_median")


def long_per_topic(matrices: dict, runs: list[str]) -> pd.DataFrame:
    """Every run's value of every measure on every topic beside the topic's best,
    median and worst over the runs (:func:`irmeta.aggregate.topics.topic_summary`: NaN
    cells left out) and ``vs_median = value - median``: one row per (run, measure,
    topic), ordered by ``runs`` (the leaderboard's order), then the measures' order,
    then the matrices' topic order. Columns :data:`LONG_COLUMNS`; ``measure`` is the
    measure string."""
    from irmeta.aggregate.topics import topic_summary
    parts: list[pd.DataFrame] = []
    for measure, m in matrices.items():
        m = m.reindex([r for r in runs])
        s = topic_summary(m)
        X = m.to_numpy(dtype=float)
        R, T = X.shape
        median = np.broadcast_to(s["median"].to_numpy(dtype=float), (R, T))
        parts.append(pd.DataFrame({
            "run": np.repeat(np.asarray(runs, dtype=object), T),
            "topic": np.tile(np.asarray([str(t) for t in m.columns], dtype=object), R),
            "measure": measure, "value": X.ravel(),
            "best": np.broadcast_to(s["best"].to_numpy(dtype=float), (R, T)).ravel(),
            "median": median.ravel(),
            "worst": np.broadcast_to(s["worst"].to_numpy(dtype=float), (R, T)).ravel(),
            "vs_median": (X - median).ravel(), "_run": np.repeat(np.arange(R), T),
            "_measure": len(parts)}))
    if not parts:
        return pd.DataFrame(columns=list(LONG_COLUMNS))
    long = pd.concat(parts, ignore_index=True)      # measure by measure, run, topic
    long = long.sort_values(["_run", "_measure"], kind="stable")   # run, measure, topic
    return long[list(LONG_COLUMNS)].reset_index(drop=True)


def rank_ranges(values: pd.Series) -> pd.DataFrame:
    """Per run the range of ranks it can take when ties are broken either way (1 =
    largest): ``lo`` = 1 + runs with a strictly larger value (the competition rank),
    ``hi`` = runs with a larger or equal value; NaN for an undefined value."""
    return pd.DataFrame({"lo": values.rank(ascending=False, method="min"),
                         "hi": values.rank(ascending=False, method="max")})


def rank_shift(primary: pd.Series, other: pd.Series) -> pd.Series:
    """The tie-aware rank change of every run from ``primary`` to ``other``: the gap
    between its two rank ranges (:func:`rank_ranges`), 0 when they overlap, positive
    when the run ranks higher under ``other``; NaN where either value is undefined."""
    a, b = rank_ranges(primary), rank_ranges(other)
    up = a["lo"] - b["hi"]              # > 0: even its worst rank under other is better
    down = b["lo"] - a["hi"]            # > 0: even its best rank under other is worse
    return up.clip(lower=0) - down.clip(lower=0)


def saturated_columns(means: pd.DataFrame) -> tuple[str, ...]:
    """The columns where more than :data:`SATURATION` of the runs with a defined value
    share one value (most ranks are ties: rank changes there are noise)."""
    out = []
    for label in means.columns:
        v = means[label].dropna()
        if len(v) and v.value_counts().iloc[0] > SATURATION * len(v):
            out.append(str(label))
    return tuple(out)


def _superlative(values: pd.Series, order, ranks: pd.Series) -> Superlative | None:
    """Every run holding the largest of ``values`` (exact equality, as the ranks),
    in ``order``; None when every value is NaN."""
    if not values.notna().any():
        return None
    top = values.max()
    runs = tuple(str(r) for r in order if values[r] == top)
    return Superlative(runs, float(top), tuple(int(ranks[r]) for r in runs))


def highlights(board: LeaderboardSection, nrg_cutoff: int) -> Highlights:
    """The summary facts of a leaderboard (see :class:`Highlights`)."""
    m, lb = board.means, board.table
    P = board.primary
    order = list(lb.index)                 # best first by the primary measure
    rank_p = board.ranks[P]
    best = _superlative(m[P], order, rank_p) or \
        Superlative(tuple(str(r) for r in order[:1]), float("nan"), (0,))   # all undefined
    tied = None if board.uncertainty is None else \
        int(board.uncertainty.table["tied_with_best"].sum())
    most_new = _superlative(m[f"NRG@{nrg_cutoff}"], order, rank_p)
    uniq = m[f"unique@{board.rare_cutoff}"]
    most_unique = _superlative(uniq, order, rank_p) if uniq.max() > 0 else None
    left_out = {}
    for c in board.columns:
        if c.label == P:
            continue
        if c.label in board.saturated:
            v = m[c.label].dropna()
            counts = v.value_counts()
            left_out[c.label] = (f"{int(counts.iloc[0])} of {len(v)} runs share "
                                 f"{float(counts.index[0]):.3f}")
        elif c.diagnostic:
            left_out[c.label] = "a diagnostic of the judgements, not of the runs"
    changes = []
    ranges: dict = {}     # rank ranges of a column, computed once (not once per run)
    for col in m.columns:
        if col == P or col in left_out:
            continue
        shift = lb[f"delta {col}"]
        for run in order:
            d = shift[run]
            if np.isfinite(d) and d != 0:
                changes.append(RankChange(str(run), str(col), _range(m, P, run, ranges),
                                          _range(m, col, run, ranges), int(d)))
    largest = max((abs(c.shift) for c in changes), default=0)
    moved = tuple(c for c in changes if abs(c.shift) == largest)
    return Highlights(P, best, tied, nrg_cutoff, most_new, most_unique, moved,
                      tuple((c, left_out[c]) for c in m.columns if c in left_out))


def _range(means: pd.DataFrame, col, run, cache: dict) -> tuple[int, int]:
    """The rank range of ``run`` under column ``col`` of ``means`` (:func:`rank_ranges`,
    computed once per column into ``cache``)."""
    if col not in cache:
        r = rank_ranges(means[col])
        cache[col] = dict(zip(r.index, zip(r["lo"].to_numpy(), r["hi"].to_numpy())))
    lo, hi = cache[col][run]
    return int(lo), int(hi)
