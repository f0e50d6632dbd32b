"""CLI options built from the API's constraints, and refused combinations.

* :class:`ConstraintType` / :func:`constrained`: a click parameter type made from an
  :mod:`irmeta.constraints` object. The command line value is parsed (``"3"`` -> 3,
  ``"0,0.5,1"`` -> ``[0.0, 0.5, 1.0]``) and checked by the very constraint the Python API
  checks, so ``--seed -1`` fails with the words ``seed=-1`` fails with in Python: click's
  usage error (exit 2) ``Invalid value for '--seed': must be an integer >= 0, got -1``.
  Every numeric and choice option of every subcommand is declared this way
  (``tests/unit/test_cli_options.py`` walks them all).
* :func:`given`, :func:`refuse`: options that do not apply to the chosen input are refused
  (usage error naming both options), never ignored.

The decisions (one name per concept) are in ``docs/cli.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import click
from click.core import ParameterSource

from irmeta.constraints import Choice, Constraint, Integer, Invalid, ListOf, Real, show

__all__ = ["ConstraintChoice", "ConstraintType", "constrained", "constrained_choice", "given",
           "refuse"]


def _parse_number(text: str, item: Constraint) -> Any:
    """One command-line number: an int for :class:`Integer`, a float for :class:`Real`."""
    text = text.strip()
    if isinstance(item, Integer):
        return int(text, 10)
    return float(text)


def _parse_list(text: str, item: Constraint) -> list[Any]:
    """``a,b,c`` (empty items refused), or ``START:STOP:STEP`` for real numbers (STOP
    included, values rounded to 10 decimals: ``0:1:0.1`` is 0, 0.1, ..., 1)."""
    if ":" in text and isinstance(item, Real):
        parts = [float(x) for x in text.split(":")]
        if len(parts) != 3 or not all(map(math.isfinite, parts)) or parts[2] <= 0 \
                or parts[1] < parts[0]:
            raise ValueError("START:STOP:STEP with START <= STOP and STEP > 0")
        n = int(round((parts[1] - parts[0]) / parts[2])) + 1
        return [round(parts[0] + parts[2] * i, 10) for i in range(n)]
    items = text.split(",")
    if any(not s.strip() for s in items):
        raise ValueError("an empty item")
    return [_parse_number(s, item) for s in items]


class ConstraintType(click.ParamType):
    """A click type that parses a command-line string and checks it with ``constraint``
    (an :class:`~irmeta.constraints.Integer`, :class:`~irmeta.constraints.Real` or a
    :class:`~irmeta.constraints.ListOf` of them, given comma-separated)."""

    def __init__(self, constraint: Constraint):
        if not isinstance(constraint, (Integer, Real, ListOf)):
            raise TypeError(f"ConstraintType takes Integer, Real or ListOf, not {constraint!r}")
        self.constraint = constraint
        item = constraint.item if isinstance(constraint, ListOf) else constraint
        self.name = ("integers" if isinstance(item, Integer) else "numbers") \
            if isinstance(constraint, ListOf) else \
            ("integer" if isinstance(item, Integer) else "number")

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        if isinstance(self.constraint, ListOf):
            return "A,B,..."
        return "N" if isinstance(self.constraint, Integer) else "X"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        c = self.constraint
        if isinstance(value, str):
            try:
                parsed: Any = (_parse_list(value, c.item) if isinstance(c, ListOf)
                               else _parse_number(value, c))
            except ValueError:
                self.fail(f"must be {c.what}, got {value!r}", param, ctx)
        else:                       # a default value given in Python
            parsed = value
        try:
            out: Any = c.coerce(parsed)
        except Invalid as exc:
            self.fail(exc.detail or f"must be {c.what}, got "
                                    f"{exc.shown if exc.shown is not None else value}",
                      param, ctx)
        return tuple(out) if isinstance(c, ListOf) else out

    def __repr__(self) -> str:
        return f"ConstraintType({self.constraint!r})"


class ConstraintChoice(click.Choice):
    """``click.Choice`` over the options of a :class:`~irmeta.constraints.Choice` (so help
    lists them and the shell completes them); the constraint checks the chosen value."""

    def __init__(self, constraint: Choice, case_sensitive: bool = True):
        super().__init__(constraint.options, case_sensitive=case_sensitive)
        self.constraint = constraint

    def get_invalid_choice_message(self, value: Any, ctx: click.Context | None) -> str:
        """click's ``'tvs' is not one of ...``, with the closest choices first
        (:func:`irmeta.suggest.did_you_mean`; only on this error path)."""
        from irmeta.suggest import did_you_mean
        hint = did_you_mean(str(value), [str(c) for c in self.choices], noun="choices")
        return f"{value!r} is not a choice; {hint}" if hint else \
            super().get_invalid_choice_message(value, ctx)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        chosen = super().convert(value, param, ctx)
        try:
            return self.constraint.coerce(chosen)
        except Invalid:             # pragma: no cover - click.Choice refused it first
            self.fail(f"must be {self.constraint.what}, got {show(value)}", param, ctx)


def constrained(*decls: str, constraint: Constraint, help: str | None = None,
                **kwargs: Any) -> Callable[[Any], Any]:
    """``click.option(*decls, type=ConstraintType(constraint), ...)``; the help ends with
    what the constraint accepts (``[an integer >= 1]``)."""
    text = f"{help + '  ' if help else ''}[{constraint.what}]"
    return click.option(*decls, type=ConstraintType(constraint), help=text, **kwargs)


def constrained_choice(*decls: str, constraint: Choice, case_sensitive: bool = True,
                       **kwargs: Any) -> Callable[[Any], Any]:
    """``click.option(*decls, type=ConstraintChoice(constraint), ...)``."""
    return click.option(*decls, type=ConstraintChoice(constraint, case_sensitive), **kwargs)


# ---------------------------------------------------------------------- refused combinations
def given(ctx: click.Context, name: str) -> bool:
    """Whether the parameter ``name`` was given on the command line (or its environment
    variable), not taken from its default."""
    source = ctx.get_parameter_source(name)
    return source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)


def _spelling(ctx: click.Context, name: str) -> str:
    """The option ``name`` as given: the secondary spelling of an on/off pair when it
    was used (``--all-docs`` of ``--relevant-only/--all-docs``)."""
    for p in ctx.command.params:
        if p.name == name:
            if not isinstance(p, click.Option):
                return p.human_readable_name
            if p.is_flag and p.secondary_opts and ctx.params.get(name) is False:
                return p.secondary_opts[0]
            opts = [o for o in p.opts if o.startswith("--")] or p.opts
            return opts[0]
    return name


def refuse(ctx: click.Context, names: Iterable[str], *, because: str, other: str,
           when: bool = True) -> None:
    """A usage error when ``when`` holds and any option of ``names`` was given: the
    message names that option, ``other`` (the option or input it does not apply to) and
    the reason (``because``)."""
    if not when:
        return
    for name in names:
        if given(ctx, name):
            raise click.UsageError(f"{_spelling(ctx, name)} does not apply with {other}: "
                                   f"{because}")
