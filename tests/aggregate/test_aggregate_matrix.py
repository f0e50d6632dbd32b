"""Aggregator strings: parsing, errors showing the string, and Results.aggregate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.aggregate import aggregate_matrix, canonical_aggregator, gawm, hits, parse_aggregator
from irmeta.errors import ParameterError


@pytest.fixture
def frame():
    rng = np.random.default_rng(8)
    P = np.round(rng.random((6, 5)), 2)
    P[2, 3] = 0.0
    return pd.DataFrame(P, index=[f"r{i}" for i in range(6)], columns=[f"t{j}" for j in range(5)])


def test_parse_fills_defaults_and_canonicalises():
    name, params = parse_aggregator(" GAWM( axioms=b , MS=3, mt=hmean, tol=1e-12, max_iter=50 ) ")
    assert name == "gawm"
    assert params == {"axioms": "B", "ms": "geometric", "mt": "harmonic", "tol": 1e-12,
                      "max_iter": 50, "floor": 0.0}
    assert parse_aggregator("hits") == ("hits", {})
    assert parse_aggregator("gmean()") == ("gmean", {"floor": 1e-5})
    assert canonical_aggregator("gawm(axioms=A,ms=arithmetic)") == "gawm"
    assert canonical_aggregator("gawm(axioms=b,mt=2)") == "gawm(axioms=B,mt=harmonic)"


@pytest.mark.parametrize("text, why", [
    ("gawm(", "does not parse"), ("median", "unknown aggregator 'median'"),
    ("gawm(alpha=1)", "gawm has no parameter 'alpha'"), ("gawm(axioms=C)", "axioms must be A or B"),
    ("gawm(ms=median)", "ms must be one of"), ("gawm(tol=abc)", "tol must be a number"),
    ("gawm(max_iter=0)", "max_iter must be a positive integer"),
    ("hits(x=1)", "hits has no parameter"),
    ("gawm(ms=min,ms=max)", "given twice"), ("gawm(ms)", "expected key=value"),
    ("gmean(floor=-1)", "floor must be a finite number >= 0"),
])
def test_errors_show_the_string(frame, text, why):
    with pytest.raises(ParameterError) as info:
        aggregate_matrix(frame, text)
    assert repr(text) in str(info.value) and why in str(info.value)


def test_aggregators_compute_what_they_say(frame):
    P = frame.to_numpy()
    np.testing.assert_allclose(aggregate_matrix(frame, "mean"), P.mean(axis=1))
    np.testing.assert_allclose(aggregate_matrix(frame, "min"), P.min(axis=1))
    np.testing.assert_allclose(aggregate_matrix(frame, "max"), P.max(axis=1))
    np.testing.assert_allclose(aggregate_matrix(frame, "gmean"),
                               np.exp(np.log(np.maximum(P, 1e-5)).mean(axis=1)))
    np.testing.assert_allclose(aggregate_matrix(frame, "hmean(floor=0)").iloc[[0, 1, 3, 4, 5]],
                               5 / (1 / P[[0, 1, 3, 4, 5]]).sum(axis=1))
    assert aggregate_matrix(frame, "hmean(floor=0)").iloc[2] == 0.0
    s = aggregate_matrix(frame, "gawm(axioms=B,ms=geometric)")
    assert s.name == "gawm(axioms=B,ms=geometric)" and list(s.index) == list(frame.index)
    np.testing.assert_allclose(s, gawm(frame, "B", "geometric").E_s)
    np.testing.assert_allclose(aggregate_matrix(frame, "hits"), hits(frame).authority_s)


def test_simple_aggregators_skip_nan_but_gawm_refuses(frame):
    frame = frame.copy()
    frame.iloc[0, 0] = np.nan
    assert aggregate_matrix(frame, "mean").iloc[0] == pytest.approx(frame.iloc[0, 1:].mean())
    with pytest.raises(ParameterError, match="system 'r0', topic 't0'"):
        aggregate_matrix(frame, "gawm")
    with pytest.raises(ParameterError, match="must be a pandas DataFrame"):
        aggregate_matrix(frame.to_numpy(), "mean")


def test_results_aggregate_uses_the_campaign_matrix():
    qrels = {"1": {"d1": 1, "d2": 0, "d3": 1}, "2": {"d4": 1, "d5": 2}, "3": {"d6": 1}}
    runs = {
        "a": {"1": {"d1": 3, "d2": 2, "d3": 1}, "2": {"d5": 2, "d4": 1}, "3": {"d6": 1, "d7": 0}},
        "b": {"1": {"d2": 3, "d1": 2}, "2": {"d9": 1, "d4": 0.5}, "3": {"d7": 1, "d6": 0.5}},
        "c": {"1": {"d3": 3}, "2": {"d5": 1}, "3": {"d8": 1}},
    }
    res = irmeta.evaluate(qrels, runs, ["AP", "P@2"])
    table = res.aggregate("gawm(axioms=B)")
    assert list(table.index) == ["a", "b", "c"] and list(table.columns) == ["AP", "P@2"]
    np.testing.assert_allclose(table["AP"], gawm(res.matrix("AP"), "B").E_s)
    np.testing.assert_allclose(res.aggregate("hits")["P@2"], hits(res.matrix("P@2")).authority_s)
