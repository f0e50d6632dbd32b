"""Stability of a measure under topic subsampling.

:func:`fuzziness_stability` — the innovation paper's ratio, exactly as its code
(github mdenizturkmen/ecir2023, ``stability.py``) computes it: in each of ``trials``
trials draw ONE random subset of ``subset_size`` topics without replacement (default
``round(T/2)`` with Python's rounding, half to even: 26 of DL21's 53 topics, 22 of
DLT20's 45) and take each system's mean over it. For each pair ``(a, b)``:
``|mean_a - mean_b| > fuzziness`` (absolute, default 0.05) gives the better system a
win, otherwise the pair gets a tie. Then::

    stability = sum_pairs max(wins_a, wins_b) / sum_pairs (wins_a + wins_b + ties)

Ties stay in the denominator, which is why a measure whose pairwise differences are
mostly below the fuzziness (DLT20's P@100: 0.071) scores low. Note that the value is
not scale-free: a measure with a larger range (P_rare with alpha > 0 exceeds 1) has
fewer differences under the absolute fuzziness, hence fewer ties and a higher score.

:func:`buckley_voorhees` — the classic error and tie rates (Buckley & Voorhees 2000),
with two *disjoint* topic subsets per trial (Voorhees & Buckley 2002): every subset
gives, for every pair, a decision ``a > b``, ``b > a`` or tie (difference within the
fuzziness: relative to the larger mean by default, ``|d| <= f * max(|m_a|, |m_b|)``, or
absolute). Over all decisions of a pair, ``wins`` / ``losses`` / ``ties``::

    error rate = sum_pairs min(wins, losses) / sum_pairs (wins + losses + ties)
    tie rate   = sum_pairs ties / sum_pairs (wins + losses + ties)
    swap rate  = share of (pair, trial) where the two subsets decide in opposite directions

A difference must exceed the fuzziness by more than 1e-12 to count (floating-point
rounding would otherwise decide exact-boundary cases). Both are batched: the subsets of a
chunk of trials form a ``trials x T`` weight matrix, so the subset means of all systems are
one matrix product.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.constraints import COUNT, NONNEGATIVE, SEED, TRIALS, Flag, validated
from irmeta.errors import ParameterError
from irmeta.stats._common import (
    all_pairs,
    chunk_size,
    one_blas_thread,
    progress_bar,
    rng_from,
    score_matrix,
)

#: a difference must exceed the fuzziness by more than this to count as a win, so that
#: differences equal to it up to rounding (e.g. 0.55 - 0.5 with two-decimal scores) are
#: ties whatever the summation order
_EPS = 1e-12


@dataclass
class StabilityResult:
    """``value`` (the stability ratio or error rate) and per-pair counts
    (``wins_a``, ``wins_b``, ``ties`` over all decisions)."""

    value: float
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    params: dict
    tie_rate: float = np.nan
    swap_rate: float = np.nan

    @property
    def decisions(self) -> int:
        """Pair decisions counted: wins of a, wins of b and ties over every trial."""
        return int(self.wins_a.sum() + self.wins_b.sum() + self.ties.sum())

    def __repr__(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in list(self.params.items())[:6])
        return (f"StabilityResult(value={self.value:.4g}, tie_rate={self.tie_rate:.4g}, "
                f"swap_rate={self.swap_rate:.4g}, {len(self.wins_a):,} pairs, "
                f"{self.decisions:,} decisions; .wins_a/.wins_b/.ties per pair"
                + (f"; {shown}" if shown else "") + ")")


def _subset_masks(rng: np.random.Generator, trials: int, T: int, size: int, parts: int):
    """``parts`` boolean masks [trials, T] of disjoint random topic subsets of ``size``."""
    keys = rng.random((trials, T))
    order = np.argsort(keys, axis=1)
    masks = []
    for p in range(parts):
        m = np.zeros((trials, T), dtype=bool)
        np.put_along_axis(m, order[:, p * size:(p + 1) * size], True, axis=1)
        masks.append(m)
    return masks


def _check(scores, func, trials, fuzziness, subset_size, parts):
    frame = score_matrix(scores, func)
    T = frame.shape[1]
    if subset_size is None:
        subset_size = round(T / 2) if parts == 1 else T // 2
    subset_size = validate.integer(subset_size, "subset_size", func, low=1)
    if subset_size * parts > T:
        raise ParameterError(f"{func}: subset_size={subset_size} x {parts} subset(s) exceeds "
                             f"the {T} topics")
    return frame, trials, fuzziness, subset_size


@validated(trials=TRIALS, subset_size=replace(COUNT, optional=True),
           fuzziness=NONNEGATIVE, seed=SEED)
@one_blas_thread
def fuzziness_stability(scores, *, trials: int = 1000, subset_size: int | None = None,
                        fuzziness: float = 0.05, seed: int = 0,
                        progress: bool | None = None) -> StabilityResult:
    """The innovation paper's stability ratio (see module doc).

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> round(fuzziness_stability(toy_scores(), trials=100, seed=0).value, 4)
    0.9033
    """
    func = "fuzziness_stability"
    frame, trials, fuzziness, k = _check(scores, func, trials, fuzziness, subset_size, 1)
    X = frame.to_numpy()
    S, T = X.shape
    rng = rng_from(seed, func)
    (mask,) = _subset_masks(rng, trials, T, k, 1)
    ia, ib = all_pairs(S)
    wa = np.zeros(len(ia), np.int64)
    wb = np.zeros(len(ia), np.int64)
    step = max(1, chunk_size(len(ia) + S))
    with progress_bar(trials, func, progress) as bar:
        for s in range(0, trials, step):
            means = X @ mask[s:s + step].T.astype(np.float64) / k        # [S, t]
            d = means[ia] - means[ib]                                      # [P, t]
            wa += (d > fuzziness + _EPS).sum(axis=1)
            wb += (-d > fuzziness + _EPS).sum(axis=1)
            bar.update(mask[s:s + step].shape[0])
    ties = trials - wa - wb
    value = float(np.maximum(wa, wb).sum() / (len(ia) * trials))
    return StabilityResult(value, wa, wb, ties,
                           {"trials": trials, "subset_size": k, "fuzziness": fuzziness,
                            "seed": seed}, tie_rate=float(ties.sum() / (len(ia) * trials)))


@validated(trials=TRIALS, subset_size=replace(COUNT, optional=True),
           fuzziness=NONNEGATIVE, seed=SEED, relative=Flag())
@one_blas_thread
def buckley_voorhees(scores, *, trials: int = 1000, subset_size: int | None = None,
                     fuzziness: float = 0.05, relative: bool = True, seed: int = 0,
                     progress: bool | None = None) -> StabilityResult:
    """Buckley-Voorhees error rate (``value``), tie rate and swap rate with two
    disjoint topic subsets of ``subset_size`` (default ``T // 2``) per trial.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = buckley_voorhees(toy_scores(), trials=100, seed=0)
    >>> result.value, result.decisions
    (0.0, 600)
    """
    func = "buckley_voorhees"
    frame, trials, fuzziness, k = _check(scores, func, trials, fuzziness, subset_size, 2)
    X = frame.to_numpy()
    S, T = X.shape
    rng = rng_from(seed, func)
    m1, m2 = _subset_masks(rng, trials, T, k, 2)
    ia, ib = all_pairs(S)
    wa = np.zeros(len(ia), np.int64)
    wb = np.zeros(len(ia), np.int64)
    swaps = 0
    step = max(1, chunk_size(2 * len(ia) + 2 * S))

    def decide(means):
        d = means[ia] - means[ib]
        thr = (fuzziness * np.maximum(np.abs(means[ia]), np.abs(means[ib])) if relative
               else fuzziness) + _EPS
        return np.where(d > thr, 1, np.where(-d > thr, -1, 0)).astype(np.int8)

    with progress_bar(trials, func, progress) as bar:
        for s in range(0, trials, step):
            d1 = decide(X @ m1[s:s + step].T.astype(np.float64) / k)
            d2 = decide(X @ m2[s:s + step].T.astype(np.float64) / k)
            wa += (d1 == 1).sum(axis=1) + (d2 == 1).sum(axis=1)
            wb += (d1 == -1).sum(axis=1) + (d2 == -1).sum(axis=1)
            swaps += int((d1 * d2 == -1).sum())
            bar.update(d1.shape[1])
    total = 2 * trials
    ties = total - wa - wb
    denom = len(ia) * total
    return StabilityResult(float(np.minimum(wa, wb).sum() / denom), wa, wb, ties,
                           {"trials": trials, "subset_size": k, "fuzziness": fuzziness,
                            "relative": relative, "seed": seed},
                           tie_rate=float(ties.sum() / denom),
                           swap_rate=float(swaps / (len(ia) * trials)))


@one_blas_thread
def stability_table(matrices, measures=None, *, trials: int = 1000,
                    subset_size: int | None = None, fuzziness: float = 0.05, seed: int = 0,
                    classic: bool = True, relative: bool = True, rel_level: int = 1,
                    progress: bool | None = None) -> pd.DataFrame:
    """One row per measure: the fuzziness stability, and (``classic``) the
    Buckley-Voorhees error, tie and swap rates. ``matrices``: ``{measure: systems x
    topics matrix}``, or a campaign with ``measures``. Every measure uses the same
    ``seed`` (same topic subsets)."""
    from irmeta.stats.discriminative import as_matrices
    matrices = as_matrices(matrices, measures, rel_level=rel_level, func="stability_table")
    rows = []
    for name, mat in matrices.items():
        r = fuzziness_stability(mat, trials=trials, subset_size=subset_size,
                                fuzziness=fuzziness, seed=seed, progress=progress)
        row = {"measure": name, "stability": r.value, "stability_ties": r.tie_rate}
        if classic:
            bv = buckley_voorhees(mat, trials=trials, fuzziness=fuzziness, relative=relative,
                                  seed=seed, progress=progress)
            row.update({"bv_error": bv.value, "bv_ties": bv.tie_rate, "bv_swaps": bv.swap_rate})
        rows.append(row)
    return pd.DataFrame(rows)
