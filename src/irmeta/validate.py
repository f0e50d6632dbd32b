"""One vocabulary for checking the arguments of public functions.

Every check takes the value, the argument's name and the public function's name, returns
the value in its canonical type, and raises :class:`~irmeta.errors.ParameterError` with a
message ``"<function>: <argument> must be <what>, got <value>"``. Nothing is coerced
silently: ``1.5`` is not an integer, ``True`` is not a number, ``"abc"`` is not a list of
three names, NaN is not in any range.

``integer``        an int (``numpy`` ints too) in ``[low, high]``
``number``         a finite real in a range (open or closed ends)
``probability``    a number in ``(0, 1)`` (a significance level, a fraction)
``seed``           a non-negative int
``trials``         a number of random trials, 1 to ``MAX_TRIALS``
``flag``           ``True`` / ``False``
``choice``         one of a fixed set of strings
``strings``        a sequence of strings; one string is ONE item, never its characters
``measure_list``   measure strings / :class:`~irmeta.measures.spec.Measure` objects
``keywords``       keyword arguments a function forwards: unknown names are errors
``campaign``       a built Campaign
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Collection, Iterable
from typing import Any

import numpy as np

from irmeta.errors import ParameterError


def _fail(func: str, name: str, what: str, value: Any) -> ParameterError:
    return ParameterError(f"{func}: {name} must be {what}, got {_show(value)}")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _range_text(low, high, low_open=False, high_open=False) -> str:
    low, high = (None if x is None else f"{x:g}" if isinstance(x, float) else x
                 for x in (low, high))
    if low is not None and high is not None:
        return f"in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f"{'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{'<' if high_open else '<='} {high}"
    return ""


def integer(value: Any, name: str, func: str, *, low: int | None = None,
            high: int | None = None) -> int:
    """An integer (not a bool, not a float such as 1.5 or 2.0) in ``[low, high]``."""
    what = ("an integer " + _range_text(low, high)).strip()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise _fail(func, name, what, value)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise _fail(func, name, what, value)
    return value


def number(value: Any, name: str, func: str, *, low: float | None = None,
           high: float | None = None, low_open: bool = False,
           high_open: bool = False) -> float:
    """A finite real number (not a bool, not NaN or inf) in the given range."""
    what = ("a finite number " + _range_text(low, high, low_open, high_open)).strip()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise _fail(func, name, what, value)
    try:
        x = float(value)
    except OverflowError:           # an int beyond the float range
        raise _fail(func, name, what, value) from None
    if (not math.isfinite(x) or (low is not None and (x < low or (low_open and x == low)))
            or (high is not None and (x > high or (high_open and x == high)))):
        raise _fail(func, name, what, value)
    return x


def probability(value: Any, name: str, func: str) -> float:
    """A number strictly between 0 and 1 (a significance level, a fraction)."""
    return number(value, name, func, low=0.0, high=1.0, low_open=True, high_open=True)


def seed(value: Any, func: str, name: str = "seed") -> int:
    """A seed for ``numpy.random.default_rng``: a non-negative integer."""
    return integer(value, name, func, low=0)


#: most random trials (resamples, permutations, subsets) one call may ask for; published
#: settings use 1,000-10,000, and a bootstrap holds a trials x topics matrix in memory
MAX_TRIALS = 10 ** 6


def trials(value: Any, func: str, name: str = "trials") -> int:
    """A number of random trials: an integer in ``[1, MAX_TRIALS]``."""
    return integer(value, name, func, low=1, high=MAX_TRIALS)


def flag(value: Any, name: str, func: str) -> bool:
    """``True`` or ``False`` (a NumPy bool too); not 0/1, not a string."""
    if not isinstance(value, (bool, np.bool_)):
        raise _fail(func, name, "True or False", value)
    return bool(value)


def choice(value: Any, name: str, func: str, options: Collection[str]) -> str:
    """One of ``options`` (strings, compared exactly)."""
    if not isinstance(value, str) or value not in options:
        raise _fail(func, name, "one of " + ", ".join(map(str, options)), value)
    return value


def strings(value: Any, name: str, func: str, *, allow_empty: bool = False) -> list[str]:
    """A sequence of non-empty strings; a single string is one item.

    ``allow_empty`` allows an empty sequence (not an empty string item).
    """
    items = [value] if isinstance(value, str) else value
    if isinstance(items, (bytes, bytearray, dict)) or not isinstance(items, Iterable):
        raise _fail(func, name, "a string or a sequence of strings", value)
    items = list(items)
    for item in items:
        if not isinstance(item, str) or not item:
            raise ParameterError(f"{func}: {name} must hold non-empty strings, got "
                                 f"{_show(item)} in {_show(value)}")
    if not items and not allow_empty:
        raise _fail(func, name, "a non-empty sequence of strings", value)
    return items


def measure_list(value: Any, func: str, name: str = "measures") -> list:
    """Measure strings, :class:`Measure` objects or ir_measures measure objects, at least
    one; one string or one Measure is one item (``"AP"`` is AP, not ``"A"`` and ``"P"``).

    Returns the items unparsed; unknown measure names raise :class:`MeasureError` when
    they are parsed.
    """
    from irmeta.measures.parse import is_ir_measures_object
    from irmeta.measures.spec import Measure
    if isinstance(value, (str, Measure)) or is_ir_measures_object(value):
        return [value]
    if isinstance(value, (bytes, bytearray, dict)) or not isinstance(value, Iterable):
        raise _fail(func, name, "a measure string or a sequence of them", value)
    items = list(value)
    if not items:
        raise _fail(func, name, "at least one measure", value)
    for item in items:
        if not isinstance(item, (str, Measure)) and not is_ir_measures_object(item):
            raise ParameterError(f"{func}: {name} must hold measure strings, got "
                                 f"{_show(item)} in {_show(value)}")
    return items


def keywords(given: Iterable[str], accepted: Collection[str], func: str) -> None:
    """Fail on any keyword argument outside ``accepted`` (nothing is silently dropped)."""
    unknown = sorted(set(given) - set(accepted))
    if unknown:
        raise ParameterError(f"{func}: unexpected argument(s) {', '.join(unknown)} "
                             f"(accepted: {', '.join(sorted(accepted)) or 'none'})")


def campaign(value: Any, func: str, name: str = "campaign"):
    """A built :class:`~irmeta.data.campaign.Campaign` (``irmeta.load_campaign``)."""
    from irmeta.data.campaign import Campaign
    if not isinstance(value, Campaign):
        raise ParameterError(f"{func}: {name} must be a Campaign (irmeta.load_campaign), "
                             f"got {type(value).__name__}")
    return value
