"""Declarative constraints (irmeta.constraints): each refuses what it says it refuses,
returns canonical values, and the decorator applies them by argument name."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta import validate
from irmeta.constraints import (
    PROBABILITY,
    Choice,
    Flag,
    Integer,
    ListOf,
    Real,
    Strings,
    constraints_of,
    validated,
)
from irmeta.errors import ParameterError

CONSTRAINTS = [Integer(), Integer(low=1), Integer(low=0, high=10), Real(), Real(low=0.0),
               PROBABILITY, Real(low=0, high=1, high_open=True), Flag(), Choice(("a", "b")),
               Strings(), Strings(allow_empty=True), ListOf(Real(low=0.0)),
               ListOf(Integer(low=2), min_items=2)]


@pytest.mark.parametrize("constraint", CONSTRAINTS, ids=repr)
def test_invalid_examples_are_refused_with_what_was_expected(constraint):
    for value in constraint.invalid_examples():
        with pytest.raises(ParameterError, match=r"^f: x "):
            constraint.check(value, "x", "f")


@pytest.mark.parametrize("constraint, value, expected", [
    (Integer(low=1), np.int64(3), 3), (Real(), np.float32(0.5), 0.5), (Real(), 2, 2.0),
    (Flag(), np.bool_(True), True), (Strings(), "run", ["run"]),
    (Strings(), ("a", "b"), ["a", "b"]), (Choice(("a", "b")), "b", "b"),
    (ListOf(Real(low=0.0)), (np.int64(1), 0.5), [1.0, 0.5]),
])
def test_valid_values_become_canonical(constraint, value, expected):
    out = constraint.check(value, "x", "f")
    assert out == expected and type(out) is type(expected)


def test_optional_keeps_none_and_says_so():
    assert Integer(low=1, optional=True).check(None, "k", "f") is None
    with pytest.raises(ParameterError, match="an integer >= 1 or None, got 0"):
        Integer(low=1, optional=True).check(0, "k", "f")
    with pytest.raises(ParameterError, match="must be an integer >= 1, got None"):
        Integer(low=1).check(None, "k", "f")


@pytest.mark.parametrize("value", [0, 1.5, True, "2", float("nan"), 11])
def test_messages_equal_the_validate_vocabulary(value):
    def message(call):
        with pytest.raises(ParameterError) as info:
            call()
        return str(info.value)
    assert (message(lambda: Integer(low=1, high=10).check(value, "k", "f"))
            == message(lambda: validate.integer(value, "k", "f", low=1, high=10)))
    if not isinstance(value, str):
        assert (message(lambda: PROBABILITY.check(value * 5, "a", "f"))
                == message(lambda: validate.probability(value * 5, "a", "f")))


@validated(k=Integer(low=1), alpha=PROBABILITY, names=Strings(optional=True))
def scored(campaign, k=100, *, alpha=0.05, names=None):
    return k, alpha, names


def test_decorator_checks_and_canonicalises_by_name():
    assert scored("c", np.int32(5), alpha=np.float64(0.1), names="r") == (5, 0.1, ["r"])
    assert scored("c") == (100, 0.05, None)
    with pytest.raises(ParameterError, match=r"^scored: k must be an integer >= 1, got 0$"):
        scored("c", 0)
    with pytest.raises(ParameterError, match=r"^scored: alpha must be a finite number in "
                                             r"\(0, 1\), got 1.5$"):
        scored("c", alpha=1.5)
    with pytest.raises(ParameterError, match="scored: .*unexpected keyword"):
        scored("c", kk=1)
    assert set(constraints_of(scored)) == {"k", "alpha", "names"}
    assert scored.__name__ == "scored" and scored.__wrapped__ is not None


def test_a_constraint_on_a_missing_parameter_fails_at_decoration():
    with pytest.raises(TypeError, match=r"validated\(kk\): not parameters of"):
        @validated(kk=Integer())
        def f(k):
            return k


def test_list_of_names_the_item_and_the_length():
    with pytest.raises(ParameterError, match=r"^f: a must hold values that are each a finite "
                                             r"number >= 0, got -1 in \[0, -1\]$"):
        ListOf(Real(low=0.0)).check([0, -1], "a", "f")
    with pytest.raises(ParameterError, match=r"^f: a must hold at least 2 values, each "):
        ListOf(Real(), min_items=2).check([0.5], "a", "f")
