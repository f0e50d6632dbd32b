"""Declarative parameter constraints: what an argument may be, said once.

A :class:`Constraint` knows what values it accepts, the canonical value it turns them into
(``numpy.int64(3)`` -> ``3``), how to say what it expects (``"an integer >= 1"``), and a
few values it must refuse (used by the test that feeds every public entry point invalid
values). The same objects serve three callers:

* public functions, through the :func:`validated` decorator, in the spirit of
  scikit-learn's ``validate_params``::

      @validated(k=Integer(low=1), rel_level=REL_LEVEL, seed=SEED)
      def unique_contributions(campaign, k=100, *, rel_level=1, seed=0): ...

  arguments are bound to the signature, checked and replaced by their canonical value
  before the body runs; a bad one raises :class:`~irmeta.errors.ParameterError`
  ``"<function>: <argument> must be <what>, got <value>"``;
* measure parameters (:class:`irmeta.measures.spec.Param`), which raise
  :class:`~irmeta.errors.MeasureError` with the same ``what``;
* CLI and report options, which report the same ``what`` through their own error types.

Nothing is coerced silently: ``1.5`` and ``2.0`` are not integers, ``True`` is not a
number, ``"abc"`` is not a list of three names, NaN is in no range.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from irmeta.errors import ParameterError

F = TypeVar("F", bound=Callable[..., Any])


class Invalid(ValueError):
    """Raised by :meth:`Constraint.coerce`; the caller turns it into its own error type.

    ``detail``: a whole phrase replacing "must be <what>, got <value>"; ``shown``: the value
    to show instead of the given one (e.g. the integer a NumPy integer converted to).
    """

    def __init__(self, detail: str = "", shown: str | None = None):
        super().__init__(detail)
        self.detail = detail
        self.shown = shown


def is_bool(value: Any) -> bool:
    """``True``/``False`` or a NumPy bool. NumPy is looked up, not imported: a value can
    only be a NumPy bool once NumPy is loaded, and the CLI's option parsing (which uses
    these constraints) should not pay NumPy's import to print ``--help``."""
    if isinstance(value, bool):
        return True
    np = sys.modules.get("numpy")
    return np is not None and isinstance(value, np.bool_)


def show(value: Any) -> str:
    """``repr`` of a value, shortened to 80 characters for error messages."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def range_text(low: float | None, high: float | None, low_open: bool = False,
               high_open: bool = False) -> str:
    """``"in [0, 1)"``, ``">= 1"``, ``"< 5"`` or ``""``."""
    lo, hi = (None if x is None else f"{x:g}" if isinstance(x, float) else str(x)
              for x in (low, high))
    if lo is not None and hi is not None:
        return f"in {'(' if low_open else '['}{lo}, {hi}{')' if high_open else ']'}"
    if lo is not None:
        return f"{'>' if low_open else '>='} {lo}"
    if hi is not None:
        return f"{'<' if high_open else '<='} {hi}"
    return ""


class Constraint:
    """Base class: ``coerce(value)`` returns the canonical value or raises :class:`Invalid`.

    ``optional``: ``None`` is accepted (and kept) as "not given".
    """

    optional: bool = False

    @property
    def what(self) -> str:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def coerce(self, value: Any) -> Any:  # pragma: no cover
        raise NotImplementedError

    def invalid_examples(self) -> list[Any]:
        """Values this constraint must refuse (for the entry-point tests)."""
        return [object()]

    def check(self, value: Any, name: str, func: str) -> Any:
        """The canonical value, or a :class:`ParameterError` naming ``func`` and ``name``."""
        if value is None and self.optional:
            return None
        try:
            return self.coerce(value)
        except Invalid as exc:
            if exc.detail:
                raise ParameterError(f"{func}: {name} {exc.detail}") from None
            what = self.what + (" or None" if self.optional else "")
            shown = exc.shown if exc.shown is not None else show(value)
            raise ParameterError(f"{func}: {name} must be {what}, got {shown}") from None


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer (``numpy`` integers too; not a bool, not ``2.0``) in ``[low, high]``."""

    low: int | None = None
    high: int | None = None
    optional: bool = False

    @property
    def what(self) -> str:
        return ("an integer " + range_text(self.low, self.high)).strip()

    def coerce(self, value: Any) -> int:
        if is_bool(value) or not isinstance(value, numbers.Integral):
            raise Invalid
        v = int(value)
        if (self.low is not None and v < self.low) or (self.high is not None and v > self.high):
            raise Invalid(shown=show(v))
        return v

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [1.5, "3", True]
        if self.low is not None:
            out.append(self.low - 1)
        if self.high is not None:
            out.append(self.high + 1)
        return out


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number (not a bool, NaN or inf) in a range with open or closed ends."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    optional: bool = False

    @property
    def what(self) -> str:
        return ("a finite number " + range_text(self.low, self.high, self.low_open,
                                                self.high_open)).strip()

    def coerce(self, value: Any) -> float:
        if is_bool(value) or not isinstance(value, numbers.Real):
            raise Invalid
        try:
            x = float(value)
        except OverflowError:           # an int beyond the float range
            raise Invalid from None
        if not math.isfinite(x):
            raise Invalid
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            raise Invalid
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            raise Invalid
        return x

    def invalid_examples(self) -> list[Any]:
        out: list[Any] = [float("nan"), "0.5", True]
        if self.low is not None:
            out.append(self.low if self.low_open else self.low - 1)
        if self.high is not None:
            out.append(self.high if self.high_open else self.high + 1)
        return out


@dataclass(frozen=True)
class Flag(Constraint):
    """``True`` or ``False`` (a NumPy bool too); not 0/1, not a string."""

    optional: bool = False

    @property
    def what(self) -> str:
        return "True or False"

    def coerce(self, value: Any) -> bool:
        if not is_bool(value):
            raise Invalid
        return bool(value)

    def invalid_examples(self) -> list[Any]:
        return [1, "yes"]


@dataclass(frozen=True)
class Choice(Constraint):
    """One of a fixed set of strings, compared exactly."""

    options: tuple[str, ...]
    optional: bool = False

    @property
    def what(self) -> str:
        return "one of " + ", ".join(map(str, self.options))

    def coerce(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.options:
            if isinstance(value, str):      # a misspelt choice: the closest ones (issue 48)
                from irmeta.suggest import close_matches, did_you_mean
                if close_matches(value, self.options):
                    raise Invalid(f"must be {self.what}, got {show(value)}; "
                                  + did_you_mean(value, self.options, short=0))
            raise Invalid
        return value

    def invalid_examples(self) -> list[Any]:
        return ["no-such-option", 1]


@dataclass(frozen=True)
class Strings(Constraint):
    """A sequence of non-empty strings; one string is ONE item (never its characters)."""

    allow_empty: bool = False
    optional: bool = False

    @property
    def what(self) -> str:
        return "a string or a sequence of strings"

    def coerce(self, value: Any) -> list[str]:
        items = [value] if isinstance(value, str) else value
        if isinstance(items, (bytes, bytearray, dict)) or not isinstance(items, Iterable):
            raise Invalid
        items = list(items)
        for item in items:
            if not isinstance(item, str) or not item:
                raise Invalid(f"must hold non-empty strings, got {show(item)} in {show(value)}")
        if not items and not self.allow_empty:
            raise Invalid(f"must be a non-empty sequence of strings, got {show(value)}")
        return items

    def invalid_examples(self) -> list[Any]:
        return [b"run", [1, 2], [""]] + ([] if self.allow_empty else [[]])


@dataclass(frozen=True)
class ListOf(Constraint):
    """A sequence (not a string) of at least ``min_items`` values, each meeting ``item``;
    the canonical value is the list of the items' canonical values."""

    item: Constraint
    min_items: int = 1
    optional: bool = False

    @property
    def what(self) -> str:
        many = "at least one" if self.min_items == 1 else f"at least {self.min_items}"
        return f"a sequence of {many} values, each {self.item.what}"

    def coerce(self, value: Any) -> list[Any]:
        if isinstance(value, (str, bytes, bytearray, dict)) or not isinstance(value, Iterable):
            raise Invalid
        items = list(value)
        out = []
        for x in items:
            try:
                out.append(self.item.coerce(x))
            except Invalid:
                raise Invalid(f"must hold values that are each {self.item.what}, got "
                              f"{show(x)} in {show(value)}") from None
        if len(out) < self.min_items:
            raise Invalid(f"must hold at least {self.min_items} value"
                          f"{'s' if self.min_items > 1 else ''}, each {self.item.what}, "
                          f"got {show(value)}")
        return out

    def invalid_examples(self) -> list[Any]:
        return ["1,2", [object()], [None]] + ([[]] if self.min_items else [])


#: most random trials (resamples, permutations, subsets) one call may ask for; published
#: settings use 1,000-10,000, and a bootstrap holds a trials x topics matrix in memory
MAX_TRIALS = 10 ** 6
#: trec_eval's relevance level range (grades are 16-bit; see irmeta.data.tables.MAX_GRADE)
REL_LEVEL = Integer(low=-32768, high=32768)
SEED = Integer(low=0)
TRIALS = Integer(low=1, high=MAX_TRIALS)
PROBABILITY = Real(low=0.0, high=1.0, low_open=True, high_open=True)
CUTOFF = Integer(low=1)
#: a ranking depth N (Twist's evaluation depth, rarity depth, the top N kept of a ranking)
DEPTH = Integer(low=1)
#: the most runs one group may submit (``irmeta check --max-runs-per-group``)
RUNS_PER_GROUP = Integer(low=1)
#: how ``irmeta check`` renders its results (problems, not a table)
CHECK_FORMATS = Choice(("text", "json"))
#: a share of the runs kept (``filter_top_runs``): in (0, 1]
FRACTION = Real(low=0.0, high=1.0, low_open=True)
#: a difference below which two means tie (stability fuzziness), a tolerance
NONNEGATIVE = Real(low=0.0)
#: a difference that must be above zero (``meta topic-set-size --min-diff``)
POSITIVE = Real(low=0.0, low_open=True)
#: a count of things that must be at least one (repeats, topics per shard, workers)
COUNT = Integer(low=1)
#: the weight of rarity in P_rare / AP_rare
ALPHA = Real(low=0.0)
#: decimals of a rounded number (``--digits`` of text and markdown tables, ``round`` of
#: :func:`irmeta.pyterrier.Experiment`); 17 is the most a double carries
DIGITS = Integer(low=0, high=17)


def constraints_of(func: Callable[..., Any]) -> dict[str, Constraint]:
    """The constraints :func:`validated` attached to ``func`` (empty if none)."""
    found: dict[str, Constraint] = getattr(func, "__constraints__", {})
    return found


def validated(**constraints: Constraint) -> Callable[[F], F]:
    """Decorate a public function: check the named arguments before the body runs.

    Every name must be a parameter of the function (a typo is a ``TypeError`` at import
    time, not a constraint silently never applied). The checked, canonical values replace
    the given ones; default values are not checked (they are the function's own).
    """
    def decorate(func: F) -> F:
        signature = inspect.signature(func)
        unknown = sorted(set(constraints) - set(signature.parameters))
        if unknown:
            raise TypeError(f"validated({', '.join(unknown)}): not parameters of "
                            f"{func.__qualname__}")
        public = func.__name__

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise ParameterError(f"{public}: {exc}") from None
            for name, constraint in constraints.items():
                if name in bound.arguments:
                    bound.arguments[name] = constraint.check(bound.arguments[name], name,
                                                             public)
            return func(*bound.args, **bound.kwargs)

        wrapper.__constraints__ = dict(constraints)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]
    return decorate
