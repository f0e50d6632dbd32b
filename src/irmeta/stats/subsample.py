"""Subsampling experiments: judgments (pool downsampling), systems, and run filtering.

Pool downsampling (Buckley & Voorhees 2004, adapted to grades as in the Twist paper):
per topic, every qrels document gets one seeded random key; within each (topic, grade)
stratum the documents are ordered by key and, at level ``P%``, the first
``max(1, round_half_up(P/100 * n))`` are kept; in addition the first ``min_relevant``
relevant (grade >= rel_level) and the first ``min_nonrelevant`` non-relevant documents
of the topic (in key order over the whole topic) are always kept. Every criterion is
monotone in ``P`` and uses the same keys, so smaller pools are subsets of larger ones.
Negative grades are non-relevant strata of their own. The runs are then re-judged with
:meth:`Campaign.with_qrels` and re-evaluated; Kendall's tau compares the ranking of
systems (mean over the campaign topic set) on the full and on each reduced qrels.

Dependence on the participating systems (innovation paper, Algorithm 1): rank all
systems; then for each ``N`` draw ``N`` systems ``trials`` times, re-evaluate with the
campaign made of the sample only (:meth:`Campaign.select_runs` — context measures
recompute rarity / residual gain from the sample), and average Kendall's tau with the
full ranking restricted to the sample. ``N`` larger than the number of systems is
skipped; ``N`` equal to it has one possible sample. With ``N = 2`` tau is NaN when the
two systems tie under either ranking; such trials are left out of the mean and counted
in ``undefined``. For a measure without context, tau is 1 by construction.

Run filtering: :func:`filter_top_runs` keeps the best ``ceil(fraction * R)`` runs by a
measure (MAP by default), in campaign order — the Twist paper's top 75%.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Sequence

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import CampaignError, ParameterError
from irmeta.stats._common import progress_bar, rng_from
from irmeta.stats.correlation import (
    METHODS,
    kendall_tau,
    kendall_tau_rows,
    rank_correlation,
    system_means,
)


# ------------------------------------------------------------------ qrels
def qrels_of(campaign, rows: np.ndarray | None = None, source: str = "<campaign qrels>"):
    """The campaign's judgments as a :class:`~irmeta.data.tables.Qrels` (optionally a
    subset of its rows, indices into ``campaign.judged``)."""
    import pyarrow as pa

    from irmeta.data.tables import Qrels
    validate.campaign(campaign, "qrels_of")
    j = campaign.judged
    if rows is None:
        rows = np.arange(len(j.grades))
    rows = np.asarray(rows)
    if rows.ndim != 1 or (rows.size and (rows.dtype.kind not in "iu" or rows.min() < 0
                                         or rows.max() >= len(j.grades))):
        raise ParameterError(f"qrels_of: rows must be a 1-D array of row indices in "
                             f"[0, {len(j.grades)}), got {_short(rows)}")
    rows = rows.astype(np.int64)
    return Qrels(topic_ids=np.asarray(campaign.topics, dtype=object),
                 topic_codes=j.topic[rows].astype(np.int32),
                 docids=j.docids.take(pa.array(rows, pa.int64())),
                 grades=j.grades[rows].astype(np.int64), source=source,
                 _fingerprints=j.fp[rows])


def _short(a: np.ndarray) -> str:
    return f"shape {a.shape}, dtype {a.dtype}"


def _rank_within(groups: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """0-based rank of each element by ``keys`` within its group."""
    order = np.lexsort((keys, groups))
    g = groups[order]
    start = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    first = np.repeat(start, np.diff(np.r_[start, len(g)]))
    rank = np.empty(len(g), np.int64)
    rank[order] = np.arange(len(g)) - first
    return rank


def _levels(levels, func: str) -> list[float]:
    """Percentages of the judgments to keep, each in (0, 100], at least one."""
    if isinstance(levels, (int, float)):
        levels = [levels]
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable) or not list(levels):
        raise ParameterError(f"{func}: levels must be a non-empty list of percentages in "
                             f"(0, 100], got {levels!r}")
    return [validate.number(x, "levels", func, low=0.0, high=100.0, low_open=True)
            for x in levels]


def downsample_rows(campaign, levels: Sequence[float] = (90, 70, 50, 30, 10), *,
                    seed: int = 0, rel_level: int = 1, min_relevant: int = 1,
                    min_nonrelevant: int = 10) -> dict[float, np.ndarray]:
    """``{level: indices of the kept rows of campaign.judged}`` (nested; see module doc)."""
    func = "downsample_rows"
    validate.campaign(campaign, func)
    rng = rng_from(seed, func)
    lv = _levels(levels, func)
    rel_level = validate.integer(rel_level, "rel_level", func, low=-32768, high=32768)
    min_relevant = validate.integer(min_relevant, "min_relevant", func, low=0)
    min_nonrelevant = validate.integer(min_nonrelevant, "min_nonrelevant", func, low=0)
    j = campaign.judged
    n = len(j.grades)
    keys = rng.random(n)
    topic = j.topic.astype(np.int64)
    grades = j.grades.astype(np.int64)
    gvals, ginv = np.unique(grades, return_inverse=True)
    stratum = topic * len(gvals) + ginv
    rank = _rank_within(stratum, keys)
    size = np.bincount(stratum, minlength=int(stratum.max()) + 1 if n else 0)[stratum]
    rel = grades >= rel_level
    # rank among the relevant / non-relevant documents of the topic
    cls_rank = _rank_within(topic * 2 + rel, keys)
    forced = (rel & (cls_rank < min_relevant)) | (~rel & (cls_rank < min_nonrelevant))
    out = {}
    for x in lv:
        quota = np.maximum(1, np.floor(x / 100.0 * size + 0.5)).astype(np.int64)
        out[x] = np.flatnonzero((rank < quota) | forced)
    return out


def downsample_qrels(campaign, levels: Sequence[float] = (90, 70, 50, 30, 10), **kwargs):
    """``{level: Qrels}`` — the nested downsampled judgments (see module doc)."""
    return {lv: qrels_of(campaign, rows, f"<qrels downsampled to {lv:g}%>")
            for lv, rows in downsample_rows(campaign, levels, **kwargs).items()}


def pool_downsampling(campaign, measures: Sequence[str], *,
                      levels: Sequence[float] = (90, 70, 50, 30, 10), seed: int = 0,
                      repeats: int = 1, rel_level: int = 1, method: str = "kendall",
                      min_relevant: int = 1, min_nonrelevant: int = 10,
                      progress: bool | None = None) -> pd.DataFrame:
    """Rank correlation between the system rankings on the full and on downsampled
    qrels, per measure and level (Twist paper, Figure 13).

    ``repeats`` independent samplings (seeds drawn from ``seed``) are averaged.
    Returns ``measure, level, tau, tau_std, judged`` (``judged``: share of the qrels
    kept), with the full qrels as level 100 (tau = 1).
    """
    func = "pool_downsampling"
    validate.campaign(campaign, func)
    measures = validate.measure_list(measures, func)
    repeats = validate.trials(repeats, func, "repeats")
    method = validate.choice(method, "method", func, METHODS)
    full = system_means(campaign, measures, rel_level=rel_level)
    rng = rng_from(seed, "pool_downsampling")
    seeds = rng.integers(0, 2 ** 31, size=repeats)
    taus: dict[tuple[str, float], list[float]] = {}
    kept: dict[float, list[float]] = {}
    n_rows = len(campaign.judged.grades)
    lv = _levels(levels, func)
    with progress_bar(repeats * len(lv), "pool_downsampling", progress) as bar:
        for s in seeds:
            rows = downsample_rows(campaign, lv, seed=int(s), rel_level=rel_level,
                                   min_relevant=min_relevant, min_nonrelevant=min_nonrelevant)
            for level, r in rows.items():
                sub = campaign.with_qrels(qrels_of(campaign, r))
                means = system_means(sub, measures, rel_level=rel_level)
                kept.setdefault(level, []).append(len(r) / max(1, n_rows))
                for m in measures:
                    taus.setdefault((m, level), []).append(
                        rank_correlation(means[m], full[m], method))
                bar.update(1)
    out = []
    for m in measures:
        out.append({"measure": m, "level": 100.0, "tau": 1.0, "tau_std": 0.0, "judged": 1.0})
        for level in lv:
            v = np.asarray(taus[(m, level)])
            out.append({"measure": m, "level": level, "tau": float(np.mean(v)),
                        "tau_std": float(np.std(v)), "judged": float(np.mean(kept[level]))})
    return pd.DataFrame(out)


# ------------------------------------------------------------------ systems
def filter_top_runs(campaign, top_fraction: float = 0.75, *, by: str = "AP",
                    rel_level: int = 1):
    """The campaign restricted to its best ``ceil(top_fraction * R)`` runs by ``by`` (mean
    over the campaign topic set; ties broken by campaign order), in campaign order
    (``top_fraction``: the name of ``irmeta meta --top-fraction``)."""
    validate.campaign(campaign, "filter_top_runs")
    top_fraction = validate.number(top_fraction, "top_fraction", "filter_top_runs", low=0.0,
                                   high=1.0, low_open=True)
    from irmeta.measures.parse import one_measure
    one_measure(by, "filter_top_runs: by")   # one measure with a number per topic
    means = system_means(campaign, [by], rel_level=rel_level)[by].to_numpy()
    keep = max(1, math.ceil(top_fraction * len(means) - 1e-9))
    best = np.argsort(-means, kind="stable")[:keep]
    return campaign.select_runs(sorted(int(i) for i in best))


def _usable_sizes(sizes: list[int], runs: int, func: str) -> list[int]:
    """The sample sizes that fit in the campaign; an error rather than an empty table
    when none does (a campaign of one run has no ranking to depend on)."""
    if runs < 2:
        raise CampaignError(f"{func}: needs at least 2 runs, got {runs}")
    used = [n for n in sizes if n <= runs]
    if not used:
        raise ParameterError(f"{func}: every sample size ({', '.join(map(str, sizes))}) "
                             f"exceeds the {runs} runs of the campaign")
    return used


def _row_means(values: np.ndarray) -> np.ndarray:
    """float64 [N]: ``DataFrame.mean(axis=1)`` of an [N, T] array — the reduction
    :func:`~irmeta.stats.correlation.system_means` applies to ``Results.matrix``; each
    row's mean depends on that row only (the same additions whatever N), which
    :func:`_sample_means` relies on to take many draws' runs in one frame."""
    means: np.ndarray = pd.DataFrame(values).mean(axis=1).to_numpy()
    return means


def _draw_means(sub, measures: Sequence[str], rel_level: int) -> dict[str, np.ndarray]:
    """``system_means(sub, measures)[m].to_numpy()`` for each measure, without building
    the labelled frames (run and topic indexes: a third of a draw's time in
    ``reproduce innovation``'s Table 3, issue 27): the same values array as
    ``Results.matrix`` and the same pandas reduction (``DataFrame.mean(axis=1)`` on a
    frame of that array), so the same bits."""
    from irmeta.data.checks import require_campaign
    from irmeta.evaluation import evaluate
    res = evaluate(sub, measures=measures, rel_level=rel_level)
    if len(res.measures) != len(measures):
        raise ParameterError("system_means: each measure string must name exactly one "
                             f"measure, got {measures!r}")
    keep = require_campaign(res.campaign, res.rel_level, "campaign topic set")
    return {m: _row_means(res.values[:, i][:, keep]) for i, m in enumerate(measures)}


def _batchable(campaign, measures: Sequence[str]) -> list | None:
    """The parsed measures when every one is a rarity measure that
    :func:`~irmeta.measures.innovation.sample_values` computes for many draws at once
    (one measure per string) and its tables fit its memory budget
    (:func:`~irmeta.measures.innovation.sample_fits`); else None (each draw is
    evaluated on its own, as before, in the kernels' topic blocks)."""
    from irmeta.measures.innovation import is_rarity_kernel, sample_fits
    from irmeta.measures.parse import parse_measures
    parsed = [parse_measures(m) for m in measures]
    if not all(len(p) == 1 and is_rarity_kernel(p[0]) for p in parsed):
        return None
    ms = [p[0] for p in parsed]
    return ms if sample_fits(campaign, ms) else None


def _sample_means(campaign, measures: Sequence[str], parsed: list,
                  picks: list[np.ndarray], rel_level: int) -> list[dict[str, np.ndarray]]:
    """For each ``[B, n]`` array of ``picks``, ``{m: [B, n]}``: :func:`_draw_means` of
    ``campaign.select_runs(draw)`` for every draw, bit for bit, computed for all draws
    at once (issue 27): the rarity values of every sub-campaign by
    :func:`~irmeta.measures.innovation.sample_values`, the run means by the same pandas
    reduction (:func:`_row_means`) over the draws' runs stacked. A draw that
    :func:`_draw_means` would refuse (no drawn run has a topic of the campaign topic
    set) is given to it, for its error, before anything is computed."""
    from irmeta.measures.innovation import sample_values
    keep = campaign.topic_set(rel_level)
    has = campaign.has_topic[:, keep]
    for p in picks:
        bad = ~has[p].any(axis=(1, 2))
        if bad.any():
            pick = p[int(np.argmax(bad))]
            _draw_means(campaign.select_runs(pick.tolist()), measures, rel_level)  # raises
    out = []
    for p, vals in zip(picks, sample_values(campaign, parsed, picks, rel_level)):
        vals = vals[..., keep]
        out.append({m: _row_means(vals[j].reshape(p.size, -1)).reshape(p.shape)
                    for j, m in enumerate(measures)})
    return out


def system_dependence(campaign, measures: Sequence[str], *,
                      sizes: Sequence[int] = (2, 4, 8, 16, 32, 64), trials: int = 1000,
                      seed: int = 0, rel_level: int = 1, method: str = "kendall",
                      progress: bool | None = None) -> pd.DataFrame:
    """Innovation paper, Algorithm 1 (see module doc). Returns ``measure, n_systems,
    tau, tau_std, trials, undefined``."""
    func = "system_dependence"
    validate.campaign(campaign, func)
    measures = validate.measure_list(measures, func)
    trials = validate.trials(trials, func)
    method = validate.choice(method, "method", func, METHODS)
    R = campaign.num_runs
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Iterable) or not list(sizes):
        raise ParameterError(f"{func}: sizes must be a non-empty list of integers >= 2, "
                             f"got {sizes!r}")
    sizes = [validate.integer(n, "sizes", func, low=2) for n in sizes]
    used = _usable_sizes(sizes, R, func)
    rng = rng_from(seed, func)
    full = system_means(campaign, measures, rel_level=rel_level)
    # every draw first, in the order of the per-draw loop (evaluating a draw never
    # touches the generator), so that the draws of a size can be evaluated together
    picks = {n: np.stack([np.sort(rng.choice(R, size=n, replace=False))
                          for _ in range(1 if n == R else trials)]) for n in used}
    parsed = _batchable(campaign, measures)
    batches = (_sample_means(campaign, measures, parsed, [picks[n] for n in used], rel_level)
               if parsed is not None else None)
    fulls = {m: full[m].to_numpy() for m in measures}
    rows = []
    with progress_bar(sum(1 if n == R else trials for n in used), func, progress) as bar:
        for n in used:
            reps = len(picks[n])
            vals = {m: np.empty(reps) for m in measures}
            batch = batches[used.index(n)] if batches is not None else None
            if batch is not None and method == "kendall":
                for m in measures:
                    vals[m] = kendall_tau_rows(batch[m], fulls[m][picks[n]])
                bar.update(reps)
                reps_left = 0
            else:
                reps_left = reps
            for t in range(reps_left):
                pick = picks[n][t]
                if batch is None:
                    means = _draw_means(campaign.select_runs(pick.tolist()), measures,
                                        rel_level)
                else:
                    means = {m: batch[m][t] for m in measures}
                for m in measures:
                    ref = fulls[m][pick]
                    vals[m][t] = (kendall_tau(means[m], ref) if method == "kendall"
                                  else rank_correlation(means[m], ref, method))
                bar.update(1)
            for m in measures:
                v = vals[m]
                ok = ~np.isnan(v)
                rows.append({"measure": m, "n_systems": n,
                             "tau": float(v[ok].mean()) if ok.any() else np.nan,
                             "tau_std": float(v[ok].std()) if ok.any() else np.nan,
                             "trials": reps, "undefined": int((~ok).sum())})
    return pd.DataFrame(rows)
