"""Rank correlations against slow formulas; alpha sweep and matrices on a small campaign."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeta.errors import ParameterError
from irmeta.stats import correlation as cr
from tests.quick import examples


def slow_tau_b(x, y):
    n = len(x)
    conc = disc = tx = ty = 0
    for i, j in itertools.combinations(range(n), 2):
        sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
        if sx == 0 and sy == 0:
            continue
        if sx == 0:
            tx += 1
        elif sy == 0:
            ty += 1
        elif sx == sy:
            conc += 1
        else:
            disc += 1
    return (conc - disc) / np.sqrt((conc + disc + tx) * (conc + disc + ty))


def slow_tau_ap(x, y):
    """Yilmaz et al. 2008, straight from the definition (no ties)."""
    order = sorted(range(len(x)), key=lambda i: -x[i])
    n = len(x)
    total = 0.0
    for pos in range(1, n):
        item = order[pos]
        c = sum(1 for above in order[:pos] if y[above] > y[item])
        total += c / pos
    return 2.0 / (n - 1) * total - 1.0


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=3, max_size=12))
def test_kendall_tau_b_matches_formula(pairs):
    x = np.array([p[0] for p in pairs], float)
    y = np.array([p[1] for p in pairs], float)
    if len(set(x)) < 2 or len(set(y)) < 2:
        assert np.isnan(cr.kendall_tau(x, y))
        return
    assert cr.kendall_tau(x, y) == pytest.approx(slow_tau_b(x, y))


def test_tau_ap_matches_definition():
    rng = np.random.default_rng(0)
    for _ in range(20):
        x, y = rng.random(9), rng.random(9)
        assert cr.tau_ap(x, y) == pytest.approx(slow_tau_ap(x, y))
    x = rng.random(10)
    assert cr.tau_ap(x, x) == pytest.approx(1.0)
    assert cr.tau_ap(x, -x) == pytest.approx(-1.0)
    tied = np.array([0.5, 0.5, 0.3, 0.3, 0.1])
    assert cr.tau_ap(tied, tied) == pytest.approx(1.0)
    assert cr.tau_ap(tied, np.array([0.5, 0.4, 0.3, 0.2, 0.1])) < 1.0
    # a swap at the top costs more than a swap at the bottom
    ref = np.arange(10, 0, -1.0)
    top, bottom = ref.copy(), ref.copy()
    top[[0, 1]] = top[[1, 0]]
    bottom[[8, 9]] = bottom[[9, 8]]
    assert cr.tau_ap(top, ref) < cr.tau_ap(bottom, ref)
    assert cr.kendall_tau(top, ref) == pytest.approx(cr.kendall_tau(bottom, ref))


def test_series_are_aligned_by_name():
    a = pd.Series([0.1, 0.5, 0.3], index=["x", "y", "z"])
    b = pd.Series([0.3, 0.1, 0.5], index=["z", "x", "y"])
    assert cr.kendall_tau(a, b) == pytest.approx(1.0)
    with pytest.raises(ParameterError, match="different systems"):
        cr.kendall_tau(a, pd.Series([1.0, 2.0, 3.0], index=["p", "q", "r"]))


def test_correlation_matrix():
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.random((8, 3)), columns=["A", "B", "C"])
    m = cr.correlation_matrix(df)
    assert np.allclose(np.diag(m), 1) and np.allclose(m, m.T)
    assert m.loc["A", "C"] == pytest.approx(cr.kendall_tau(df["A"], df["C"]))
    ap = cr.correlation_matrix(df, method="tau_ap")
    assert ap.loc["A", "B"] == pytest.approx(cr.tau_ap(df["A"], df["B"]))
    with pytest.raises(ParameterError, match="method"):
        cr.correlation_matrix(df, method="cosine")


def test_alpha_sweep_with_any_measure(small_campaign):
    out = cr.alpha_sweep(small_campaign, {"RBP(p=0.5)": "RBP(p={alpha})"}, alphas=[0.5, 0.8, 0.95])
    assert list(out["alpha"]) == [0.5, 0.8, 0.95]
    assert out["kendall"].iloc[0] == pytest.approx(1.0)
    assert out["measure"].iloc[2] == "RBP(p=0.95)"
    means = cr.system_means(small_campaign, ["RBP(p=0.5)", "RBP(p=0.95)"])
    assert out["kendall"].iloc[2] == pytest.approx(cr.kendall_tau(means["RBP(p=0.95)"],
                                                                  means["RBP(p=0.5)"]))
    with pytest.raises(ParameterError, match="alpha"):
        cr.alpha_sweep(small_campaign, {"AP": "AP@10"})


@pytest.mark.parametrize("n", [2, 3, 7, 30, 200])
def test_kendall_tau_equals_scipy_on_random_and_tied_scores(n):
    """The pairwise-sign kernel gives scipy's tau-b (same integer counts, same
    division) with and without ties, and NaN where scipy gives NaN."""
    from scipy.stats import kendalltau
    rng = np.random.default_rng(n)
    for trial in range(40):
        levels = rng.integers(2, 6) if trial % 2 else n * 10
        x = rng.integers(0, levels, n) / levels
        y = (x + rng.normal(0, 0.2, n)).round(1) if trial % 3 else rng.random(n)
        ours, ref = cr.kendall_tau(x, y), kendalltau(x, y).statistic
        assert (np.isnan(ours) and np.isnan(ref)) or ours == ref


def test_kendall_tau_beyond_pairwise_max_uses_scipy(monkeypatch):
    from scipy.stats import kendalltau
    rng = np.random.default_rng(3)
    x, y = rng.random(50), rng.random(50)
    monkeypatch.setattr(cr, "PAIRWISE_MAX", 10)
    assert cr.kendall_tau(x, y) == kendalltau(x, y).statistic


def test_kendall_correlation_matrix_is_the_pairwise_tau_everywhere():
    """The one-product matrix equals kendall_tau cell by cell, bit for bit, as the
    per-pair loop filled it (each pair once, earlier column first, then mirrored: the
    last bit of tau can depend on the argument order), including constant columns (NaN
    off the diagonal, 1 on it) and NaN scores (per-pair path)."""
    rng = np.random.default_rng(5)
    df = pd.DataFrame(rng.integers(0, 4, (25, 5)) / 4, columns=list("ABCDE"))
    df["K"] = 0.5
    m = cr.correlation_matrix(df)
    cols = list(df)
    for a in cols:
        for b in cols:
            first, second = sorted((a, b), key=cols.index)
            want = 1.0 if a == b else cr.kendall_tau(df[first], df[second])
            got = m.loc[a, b]
            assert (np.isnan(want) and np.isnan(got)) or got == want      # bit for bit
    df.iloc[3, 0] = np.nan
    m2 = cr.correlation_matrix(df)
    assert m2.loc["A", "B"] == pytest.approx(cr.kendall_tau(df["A"], df["B"]))
    assert m2.loc["B", "C"] == m.loc["B", "C"]


def test_kendall_matrix_blocks_give_the_same_values(monkeypatch):
    rng = np.random.default_rng(9)
    df = pd.DataFrame(rng.integers(0, 6, (40, 4)) / 6, columns=list("ABCD"))
    whole = cr.correlation_matrix(df)
    monkeypatch.setattr(cr, "_PAIRS_PER_BLOCK", 7)            # 780 pairs in 112 blocks
    assert cr.correlation_matrix(df).equals(whole)
