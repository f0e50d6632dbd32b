"""One vocabulary for checking the arguments of public functions.

The checks are the declarative constraints of :mod:`irmeta.constraints` called in
function style (``validate.integer(k, "k", fn, low=1)`` is
``Integer(low=1).check(k, "k", fn)``); a public function may instead declare them with the
:func:`irmeta.constraints.validated` decorator.

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
``measure_list``   measure strings / :class:`~irmeta.measures.spec.Measure` objects /
                   ir_measures measure objects (converted to their string form)
``keywords``       keyword arguments a function forwards: unknown names are errors
``campaign``       a built Campaign
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Any

from irmeta.constraints import (
    MAX_TRIALS,
    PROBABILITY,
    SEED,
    TRIALS,
    Choice,
    Flag,
    Integer,
    Real,
    Strings,
    show,
)
from irmeta.errors import ParameterError

__all__ = ["MAX_TRIALS", "campaign", "choice", "flag", "integer", "keywords", "measure_list",
           "number", "probability", "seed", "strings", "trials"]

if TYPE_CHECKING:
    from irmeta.data.campaign import Campaign


def _fail(func: str, name: str, what: str, value: Any) -> ParameterError:
    return ParameterError(f"{func}: {name} must be {what}, got {_show(value)}")


_show = show


def integer(value: Any, name: str, func: str, *, low: int | None = None,
            high: int | None = None) -> int:
    """An integer (not a bool, not a float such as 1.5 or 2.0) in ``[low, high]``."""
    result: int = Integer(low, high).check(value, name, func)
    return result


def number(value: Any, name: str, func: str, *, low: float | None = None,
           high: float | None = None, low_open: bool = False,
           high_open: bool = False) -> float:
    """A finite real number (not a bool, not NaN or inf) in the given range."""
    result: float = Real(low, high, low_open, high_open).check(value, name, func)
    return result


def probability(value: Any, name: str, func: str) -> float:
    """A number strictly between 0 and 1 (a significance level, a fraction)."""
    result: float = PROBABILITY.check(value, name, func)
    return result


def seed(value: Any, func: str, name: str = "seed") -> int:
    """A seed for ``numpy.random.default_rng``: a non-negative integer."""
    result: int = SEED.check(value, name, func)
    return result


def trials(value: Any, func: str, name: str = "trials") -> int:
    """A number of random trials: an integer in ``[1, MAX_TRIALS]``."""
    result: int = TRIALS.check(value, name, func)
    return result


def flag(value: Any, name: str, func: str) -> bool:
    """``True`` or ``False`` (a NumPy bool too); not 0/1, not a string."""
    result: bool = Flag().check(value, name, func)
    return result


def choice(value: Any, name: str, func: str, options: Collection[str]) -> str:
    """One of ``options`` (strings, compared exactly)."""
    result: str = Choice(tuple(options)).check(value, name, func)
    return result


def strings(value: Any, name: str, func: str, *, allow_empty: bool = False) -> list[str]:
    """A sequence of non-empty strings; a single string is one item.

    ``allow_empty`` allows an empty sequence (not an empty string item).
    """
    result: list[str] = Strings(allow_empty).check(value, name, func)
    return result


def measure_list(value: Any, func: str, name: str = "measures") -> list[Any]:
    """Measure strings, :class:`Measure` objects or ir_measures measure objects, at least
    one; one string or one Measure is one item (``"AP"`` is AP, not ``"A"`` and ``"P"``).

    Returns the items unparsed; unknown measure names raise :class:`MeasureError` when
    they are parsed (ir_measures objects are read by :mod:`irmeta.measures.parse`: name,
    parameters and cutoff from the object).
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


def campaign(value: Any, func: str, name: str = "campaign") -> Campaign:
    """A built :class:`~irmeta.data.campaign.Campaign` (``irmeta.load_campaign``)."""
    from irmeta.data.campaign import Campaign
    if not isinstance(value, Campaign):
        raise ParameterError(f"{func}: {name} must be a Campaign (irmeta.load_campaign), "
                             f"got {type(value).__name__}")
    return value
