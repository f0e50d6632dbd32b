"""The five weighted means: formulas, zero handling, weights ignored by min/max."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeta.aggregate.means import (
    MEAN_FUNCTIONS,
    canonical_mean,
    resolve_mean,
    weighted_arithmetic,
    weighted_geometric,
    weighted_harmonic,
    weighted_max,
    weighted_min,
)
from irmeta.errors import ParameterError
from tests.quick import examples

from .reference import ref_mean

FUNCS = {"min": weighted_min, "harmonic": weighted_harmonic, "geometric": weighted_geometric,
         "arithmetic": weighted_arithmetic, "max": weighted_max}


def test_hand_computed_values():
    x = np.array([0.2, 0.5, 0.8])
    w = np.array([0.5, 0.25, 0.25])
    assert weighted_arithmetic(x, w) == pytest.approx(0.1 + 0.125 + 0.2)
    assert weighted_geometric(x, w) == pytest.approx(0.2 ** 0.5 * 0.5 ** 0.25 * 0.8 ** 0.25)
    assert weighted_harmonic(x, w) == pytest.approx(1 / (0.5 / 0.2 + 0.25 / 0.5 + 0.25 / 0.8))
    assert weighted_min(x, w) == 0.2 and weighted_max(x, w) == 0.8


@pytest.mark.parametrize("name", MEAN_FUNCTIONS)
def test_against_reference_on_random_batches(name):
    rng = np.random.default_rng(7)
    x = np.round(rng.random((30, 9)), 1)          # ties and zeros
    w = rng.random(9)
    w[2] = 0.0                                   # a zero weight on a column
    got = FUNCS[name](x, w)
    want = [ref_mean(name, list(row), list(w)) for row in x]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


def test_zero_with_positive_weight_gives_zero_and_zero_weight_is_ignored():
    x = np.array([[0.0, 0.5, 0.5]])
    assert weighted_geometric(x, np.array([0.2, 0.4, 0.4]))[0] == 0.0
    assert weighted_harmonic(x, np.array([0.2, 0.4, 0.4]))[0] == 0.0
    # weight 0 on the zero: 0 ** 0 = 1, the term is left out
    assert weighted_geometric(x, np.array([0.0, 0.5, 0.5]))[0] == pytest.approx(0.5)
    assert weighted_harmonic(x, np.array([0.0, 0.5, 0.5]))[0] == pytest.approx(0.5)


def test_floor_raises_small_values():
    x = np.array([[0.0, 1.0]])
    w = np.array([0.5, 0.5])
    _, fn = resolve_mean("geometric", floor=1e-4)
    assert fn(x, w)[0] == pytest.approx(1e-2)
    _, fn = resolve_mean("harmonic", floor=1e-4)
    assert fn(x, w)[0] == pytest.approx(2 / (1e4 + 1))


def test_negative_values_are_nan_for_harmonic_and_geometric():
    x = np.array([[-0.1, 0.5]])
    w = np.array([0.5, 0.5])
    assert np.isnan(weighted_geometric(x, w)[0]) and np.isnan(weighted_harmonic(x, w)[0])


@pytest.mark.parametrize("fn", [weighted_min, weighted_max])
def test_min_and_max_ignore_weights(fn):
    rng = np.random.default_rng(3)
    x = rng.random((10, 6))
    results = {tuple(fn(x, rng.dirichlet(np.ones(6)))) for _ in range(5)}
    assert len(results) == 1


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=12), st.data())
def test_mean_inequalities_and_bounds(xs, data):
    x = np.array(xs)
    w = np.array(data.draw(st.lists(st.floats(0.01, 1.0), min_size=len(xs), max_size=len(xs))))
    values = [FUNCS[name](x, w) for name in MEAN_FUNCTIONS]
    # min <= harmonic <= geometric <= arithmetic <= max (power-mean inequality)
    for lo, hi in zip(values, values[1:]):
        assert lo <= hi + 1e-12


def test_uniform_weights_give_the_unweighted_means():
    rng = np.random.default_rng(5)
    x = rng.random(20) + 0.01
    w = np.full(20, 0.05)
    assert weighted_arithmetic(x, w) == pytest.approx(x.mean())
    assert weighted_geometric(x, w) == pytest.approx(np.exp(np.log(x).mean()))
    assert weighted_harmonic(x, w) == pytest.approx(20 / (1 / x).sum())


def test_names_aliases_and_errors():
    assert canonical_mean("GMEAN") == "geometric"
    assert canonical_mean(2) == "harmonic"
    assert [canonical_mean(i) for i in range(1, 6)] == list(MEAN_FUNCTIONS)
    with pytest.raises(ParameterError, match="ms must be one of .*got 'median'"):
        canonical_mean("median", "gawm", "ms")
    name, fn = resolve_mean(lambda x, w: x[..., 0])
    assert name == "<lambda>" and callable(fn)
