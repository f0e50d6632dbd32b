"""kendall_test / kendall_pvalues: tau-b with SciPy's p-value (variant b, method auto)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from irmeta.stats import alpha_sweep, correlation_matrix, kendall_pvalues, kendall_tau, kendall_test


@pytest.mark.parametrize("n,ties", [(10, False), (40, False), (40, True)])
def test_matches_scipy(n, ties):
    rng = np.random.default_rng(n)
    x = rng.random(n)
    y = x + rng.normal(0, 0.3, n)
    if ties:
        x = np.round(x, 1)
    tau, p = kendall_test(x, y)
    ref = sps.kendalltau(x, y, variant="b", method="auto")
    assert tau == kendall_tau(x, y)
    assert tau == pytest.approx(ref.statistic, abs=1e-12)
    assert p == ref.pvalue


def test_exact_small_sample():
    # 5 systems, one swap, no ties: the exact permutation distribution
    tau, p = kendall_test([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])
    assert tau == pytest.approx(0.8)
    assert p == pytest.approx(sps.kendalltau([1, 2, 3, 4, 5], [1, 3, 2, 4, 5],
                                             method="exact").pvalue)


def test_undefined_is_nan():
    tau, p = kendall_test([1.0, 1.0, 1.0], [1.0, 2.0, 3.0])
    assert np.isnan(tau) and np.isnan(p)


def test_pvalue_matrix_matches_pairwise():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.random((12, 3)), columns=["a", "b", "c"])
    frame["c"] = frame["a"] * 0.9 + 0.1 * frame["c"]
    P = kendall_pvalues(frame)
    assert list(P.index) == ["a", "b", "c"] and (P.to_numpy() == P.to_numpy().T).all()
    assert P.loc["a", "c"] == kendall_test(frame["a"], frame["c"])[1]
    assert P.loc["a", "a"] == pytest.approx(0.0, abs=1e-6)
    tau = correlation_matrix(frame)
    assert tau.loc["a", "c"] == kendall_test(frame["a"], frame["c"])[0]


def test_alpha_sweep_pvalues(small_campaign):
    sweep = alpha_sweep(small_campaign, {"P@10": "P_rare(alpha={alpha})@10"}, alphas=(0.0, 1.0),
                        methods=("kendall",), pvalues=True)
    assert "kendall_p" in sweep.columns
    assert sweep["kendall_p"].between(0, 1).all()
    assert "kendall_p" not in alpha_sweep(small_campaign, {"P@10": "P_rare(alpha={alpha})@10"},
                                          alphas=(0.0,), methods=("kendall",)).columns
