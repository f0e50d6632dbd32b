"""Stability: hand-made examples and slow loops with the same draws."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from irmeta.errors import ParameterError
from irmeta.stats import stability as sb


def test_fuzziness_stability_hand_made():
    # constant rows: every subset gives the same means.
    # A-B: 0.5 > 0.05 -> A wins; A-C: 0.02 -> tie; B-C: 0.48 -> C wins.
    X = np.array([[1.0] * 4, [0.5] * 4, [0.98] * 4])
    r = sb.fuzziness_stability(X, trials=50, subset_size=2, seed=0)
    assert r.value == pytest.approx((50 + 0 + 50) / (3 * 50))     # = 2/3
    assert list(r.wins_a) == [50, 0, 0] and list(r.wins_b) == [0, 0, 50]
    assert list(r.ties) == [0, 50, 0]


def test_fuzziness_stability_hand_made_split():
    # two systems, 4 topics, subsets of 2: A - B per topic = [+0.2, +0.2, -0.2, 0.0];
    # subset means of the difference over the 6 subsets: .2 0 .1 0 .1 -.1
    X = np.array([[0.6, 0.6, 0.2, 0.5], [0.4, 0.4, 0.4, 0.5]])
    r = sb.fuzziness_stability(X, trials=20000, subset_size=2, seed=1)
    # P(A wins) = 3/6, P(B wins) = 1/6, P(tie) = 2/6 -> stability = 1/2
    assert r.value == pytest.approx(0.5, abs=0.01)
    assert r.tie_rate == pytest.approx(1 / 3, abs=0.01)


def _draws(seed, trials, T, size, parts):
    order = np.argsort(np.random.default_rng(seed).random((trials, T)), axis=1)
    return [[order[i, p * size:(p + 1) * size] for p in range(parts)] for i in range(trials)]


def test_fuzziness_stability_matches_slow_loop():
    X = np.round(np.random.default_rng(2).random((5, 11)), 2)
    trials, seed = 60, 4
    r = sb.fuzziness_stability(X, trials=trials, seed=seed, fuzziness=0.03)
    k = round(11 / 2)
    num = den = 0
    draws = _draws(seed, trials, 11, k, 1)
    for i, j in itertools.combinations(range(5), 2):
        w = [0, 0, 0]
        for (sub,) in draws:
            d = X[i, sub].mean() - X[j, sub].mean()
            w[0 if d > 0.03 + 1e-12 else 1 if -d > 0.03 + 1e-12 else 2] += 1
        num += max(w[0], w[1])
        den += sum(w)
    assert r.value == pytest.approx(num / den)


def test_buckley_voorhees_matches_slow_loop():
    X = np.round(np.random.default_rng(3).random((4, 12)), 2)
    trials, seed, f = 40, 8, 0.05
    r = sb.buckley_voorhees(X, trials=trials, seed=seed, fuzziness=f, relative=True)
    draws = _draws(seed, trials, 12, 6, 2)
    err = ties = total = swaps = 0
    for i, j in itertools.combinations(range(4), 2):
        w = losses = t = 0
        for halves in draws:
            dec = []
            for sub in halves:
                a, b = X[i, sub].mean(), X[j, sub].mean()
                thr = f * max(abs(a), abs(b)) + 1e-12
                dec.append(1 if a - b > thr else -1 if b - a > thr else 0)
            w += dec.count(1)
            losses += dec.count(-1)
            t += dec.count(0)
            swaps += dec[0] * dec[1] == -1
        err += min(w, losses)
        ties += t
        total += w + losses + t
    assert r.value == pytest.approx(err / total)
    assert r.tie_rate == pytest.approx(ties / total)
    assert r.swap_rate == pytest.approx(swaps / (6 * trials))


def test_seed_reproduces_and_errors():
    X = np.random.default_rng(0).random((6, 20))
    a = sb.fuzziness_stability(X, seed=5, trials=100)
    b = sb.fuzziness_stability(X, seed=5, trials=100)
    assert a.value == b.value and np.array_equal(a.wins_a, b.wins_a)
    with pytest.raises(ParameterError, match="subset_size"):
        sb.buckley_voorhees(X, subset_size=11)
    with pytest.raises(ParameterError, match="fuzziness"):
        sb.fuzziness_stability(X, fuzziness=-1)
    table = sb.stability_table({"m": X}, trials=50)
    assert set(table.columns) >= {"stability", "bv_error", "bv_ties", "bv_swaps"}
