"""Declaring a measure once: name, typed parameters, cutoff, kernel, aggregation.

A :class:`MeasureDef` is registered once (:func:`irmeta.measures.registry.register`);
parsing, validation, canonical names, ``irmeta measures`` and the docs all derive from
it. A parsed, parameterised measure is a :class:`Measure` (hashable, usable as a key).

Kernel contract: ``kernel(campaign, measure, ctx) -> float64 [R, T]`` — the value of
the measure for every run and every topic of the campaign at once (NaN where the
measure is undefined). ``ctx`` is an :class:`EvalContext` (relevance level, groups,
reference runs, ...). Kernels never look at which topics a run is evaluated on: that
is decided by :func:`irmeta.evaluate`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from irmeta.constraints import Choice, Constraint, Flag, Integer, ListOf, Real, Strings
from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError, ParameterError

#: how a measure's per-topic values become one number per run
AGGREGATES = ("mean", "sum", "count", "gmean")
#: what a measure reads of the grades (:attr:`MeasureDef.relevance`)
RELEVANCE = ("binary", "graded", "judged")


@dataclass(frozen=True)
class Param:
    """A typed measure parameter.

    ``kind``: ``int``, ``float``, ``str`` (one of ``choices`` if given), ``gains``
    (a ``{grade: gain}`` mapping, written ``{0:0,1:1,2:3}``), ``floats`` (a tuple of
    numbers, written ``[1,-1,0,0]``), ``runs`` (a list of run names, API only), ``bool``.
    ``required``: no default; the measure string must set it.
    Numbers must be finite (``nan``/``inf`` are errors); a bool is not an int.
    """

    name: str
    kind: str
    default: Any = None
    doc: str = ""
    choices: tuple[Any, ...] | None = None
    low: float | None = None
    high: float | None = None
    required: bool = False

    def constraint(self) -> Constraint | None:
        """The :mod:`irmeta.constraints` object a value of this parameter must meet (after
        :meth:`read`): ``int`` and ``float`` in ``[low, high]`` (finite), ``bool``, ``str``
        one of ``choices``, ``floats`` a non-empty list of finite numbers, ``runs`` names;
        None for ``str`` without choices and for ``gains`` (whose values :meth:`check`
        checks as finite numbers)."""
        if self.kind == "int":
            return Integer(self.low, self.high)  # type: ignore[arg-type]
        if self.kind == "float":
            return Real(self.low, self.high)
        if self.kind == "bool":
            return Flag()
        if self.kind == "str":
            return Choice(tuple(self.choices)) if self.choices is not None else None
        if self.kind == "floats":
            return ListOf(Real())
        if self.kind == "runs":
            return Strings(allow_empty=True)
        return None

    def read(self, value: Any) -> Any:
        """The measure-string spellings of a value, as the value itself: an integral float
        for ``int`` (trec_eval's ``name=value`` pairs are read as reals), ``true``/``false``
        /``1``/``0`` for ``bool``, ``1,2`` for ``floats``, ``a|b`` for ``runs``, a mapping
        for ``gains``. Raises ``ValueError``/``TypeError`` when it cannot be one."""
        if self.kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            return int(value)
        if self.kind == "float":
            return value if isinstance(value, bool) else float(value)
        if self.kind == "bool":
            if isinstance(value, str):
                if value.lower() not in ("true", "false", "1", "0"):
                    raise ValueError
                return value.lower() in ("true", "1")
            return bool(value)
        if self.kind == "str":
            return str(value)
        if self.kind == "gains":
            return tuple(sorted((int(k), float(v)) for k, v in dict(value).items()))
        if self.kind == "floats":
            items = [v for v in value.split(",") if v] if isinstance(value, str) else value
            return [float(v) for v in items]
        if self.kind == "runs":
            items = [v for v in value.split("|") if v] if isinstance(value, str) else value
            return [str(v) for v in items]
        return value

    def check(self, value: Any, measure: str) -> Any:
        """Read ``value`` (:meth:`read`) and validate it through :meth:`constraint`; raise
        :class:`MeasureError` ``"<measure>: parameter '<name>' must be <what>, got
        <value>"`` if it does not fit."""
        label = f"parameter {self.name!r}"
        try:
            value = self.read(value)
        except (TypeError, ValueError, OverflowError):
            raise MeasureError(f"{measure}: {label} expects {self.kind}, "
                               f"got {value!r}") from None
        constraint = (ListOf(Real(), min_items=0) if self.kind == "gains" else
                      self.constraint())
        if constraint is None:
            return value
        try:
            if self.kind == "gains":            # the mapping's gains: finite numbers
                constraint.check([g for _, g in value], label, measure)
                return value
            checked = constraint.check(value, label, measure)
        except ParameterError as exc:
            raise MeasureError(str(exc)) from None
        return tuple(checked) if isinstance(checked, list) else checked


#: the kernel contract: ``kernel(campaign, measure, ctx) -> float64 [R, T]`` (a Callable
#: alias, not a Protocol: kernels name their parameters freely, e.g. ``m`` for the measure)
Kernel = Callable[["Campaign", "Measure", "EvalContext"], np.ndarray]
#: a string-valued measure (``relstring``): ``text(campaign, measure, ctx)`` -> ``R`` lists
#: of ``T`` strings
TextKernel = Callable[["Campaign", "Measure", "EvalContext"], list[list[str]]]


#: how a trec_eval name takes its parameters (``-m name.params``), see :class:`TrecName`
TREC_FORMS = ("single", "cutoffs", "levels", "values", "pairs")
#: trec_eval nicknames (``TrecName.nicknames``): ``official`` is a subset of ``all_trec``;
#: ``set`` too
OFFICIAL = ("official", "all_trec")
ALL_TREC = ("all_trec",)
SET = ("set", "all_trec")


@dataclass(frozen=True)
class TrecName:
    """A trec_eval name of a measure family, declared on its :class:`MeasureDef`.

    ``name``: trec_eval's name (``P``, ``map``, ``iprec_at_recall``). ``rank``: the position
    of the name in trec_eval 10's measure table, which is the order it prints measures in.
    ``form``: how ``-m name.params`` is read —

    * ``single``: no parameters; one measure printed as ``name``;
    * ``cutoffs``: integer cutoffs ``5,10`` (sorted, each > 0, no repeats) -> one measure
      per cutoff printed ``name_5``; ``bind`` is ``"@"`` (the cutoff) or a parameter name;
    * ``levels``: real levels ``.1,.2`` (sorted) -> one measure per level printed
      ``name_0.10`` (``%3.2f``); ``bind`` names the parameter;
    * ``values``: a list of reals ``2,-1,0,0`` bound to the parameter ``bind`` (a tuple;
      or its first item when the parameter is a float); printed ``name_<text>`` when given;
    * ``pairs``: ``name=value`` pairs; integer names form the ``gains`` mapping, other names
      set the parameter of that name; printed ``name_<text>`` when given.

    ``defaults``: cutoffs, levels or values used when none are given. ``fixed``: irmeta
    parameters the trec_eval name implies (``rbp`` is ``RBP(p=0.9, graded=True)``).
    ``nicknames``: trec_eval nicknames that include the name (``official``, ``all_trec``,
    ``set``).
    """

    name: str
    rank: int
    form: str = "single"
    bind: str | None = None
    defaults: tuple[Any, ...] = ()
    fixed: tuple[tuple[str, Any], ...] = ()
    nicknames: tuple[str, ...] = ()


@dataclass(frozen=True)
class MeasureDef:
    """The declaration of a measure family (e.g. ``P`` with ``rel`` and a cutoff).

    ``cutoff``: ``"optional"``, ``"required"`` or ``"none"`` — what ``@K`` may do.
    ``aggregate``: how per-topic values become a run's value (see ``AGGREGATES``).
    ``integer``: values are counts (printed without decimals).
    ``context``: the value of a run depends on the other runs of the campaign.
    ``formula``: one line shown by ``irmeta measures`` and in the docs.
    ``validate``: optional hook ``(Measure) -> None`` for cross-parameter checks.
    ``aliases``: other names of the same family in irmeta / ir_measures syntax (e.g.
    ``MAP`` for ``AP``); the parser accepts them, the canonical name stays ``name``.
    ``trec``: the family's trec_eval names (:class:`TrecName`), read by the parser,
    ``irmeta measures`` and the docs table.
    ``text``: for a measure whose per-topic value is a string (trec_eval ``relstring``):
    ``text(campaign, measure, ctx) -> list of R lists of T strings``; its numeric values
    are NaN. ``summary``: whether an aggregate line is printed (``relstring``: no).
    ``differs``: how the value differs from trec_eval 10's, when it does (docs).
    ``relevance``: what the measure reads of the grades, one of :data:`RELEVANCE` —
    ``binary`` (grade >= ``rel``, the default), ``graded`` (grades as gains) or ``judged``
    (whether a document is judged at all) — or a function ``(Measure) -> str`` when a
    parameter decides (RBP's ``graded``, NRG's ``gain``); read by :attr:`Measure.relevance`
    (the campaign report's column notes).
    """

    name: str
    description: str
    kernel: Kernel
    params: tuple[Param, ...] = ()
    cutoff: str = "optional"
    aggregate: str = "mean"
    integer: bool = False
    context: bool = False
    formula: str = ""
    family: str = "classic"
    validate: Callable[[Measure], None] | None = None
    cutoff_default: int | None = None
    at_param: str | None = None   # parameter that "@x" sets instead of the cutoff
    aliases: tuple[str, ...] = ()
    trec: tuple[TrecName, ...] = ()
    text: TextKernel | None = None
    summary: bool = True
    differs: str = ""
    relevance: str | Callable[[Measure], str] = "binary"

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None


@dataclass(frozen=True)
class Measure:
    """A parsed measure: a declaration plus parameter values and a cutoff.

    ``params`` holds every parameter (defaults filled in) as a sorted tuple of pairs;
    ``name`` is the canonical name (defaults omitted), ``label`` the name to print
    (the user's trec_eval-style name when they used one).
    """

    definition: MeasureDef
    params: tuple[tuple[str, Any], ...]
    cutoff: int | None = None
    label: str | None = field(default=None, compare=False)

    def __getitem__(self, key: str) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return default

    @property
    def family(self) -> str:
        return self.definition.name

    @property
    def name(self) -> str:
        """Canonical name: ``Family(p=v,...)@K`` with default-valued parameters omitted."""
        shown = []
        for p in self.definition.params:
            value = self.get(p.name)
            if value != p.default:
                shown.append(f"{p.name}={_format_value(value)}")
        text = self.definition.name + (f"({','.join(shown)})" if shown else "")
        if self.cutoff is not None and self.cutoff != self.definition.cutoff_default:
            text += f"@{self.cutoff}"
        return text

    @property
    def display(self) -> str:
        return self.label or self.name

    @property
    def relevance(self) -> str:
        """``binary``, ``graded`` or ``judged``: what this measure, with its parameters,
        reads of the grades (:attr:`MeasureDef.relevance`)."""
        declared = self.definition.relevance
        return declared if isinstance(declared, str) else declared(self)

    def replace(self, cutoff: int | None = None, **params: Any) -> "Measure":
        """A copy with some parameters (or the cutoff) changed; validated."""
        values = dict(self.params)
        for k, v in params.items():
            p = self.definition.param(k)
            if p is None:
                raise MeasureError(f"{self.definition.name} has no parameter {k!r}")
            values[k] = p.check(v, self.definition.name)
        return Measure(self.definition, tuple(sorted(values.items())),
                       self.cutoff if cutoff is None else cutoff)

    def __str__(self) -> str:
        return self.display

    def __repr__(self) -> str:
        return f"Measure({self.name!r})"


def _format_value(value: Any) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], float):
        return "[" + ",".join(_format_value(v) for v in value) + "]"
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ",".join(f"{k}:{_format_value(v)}" for k, v in value) + "}"
    if isinstance(value, tuple):
        return "|".join(map(str, value))
    if isinstance(value, float) and value.is_integer():
        return str(value) if abs(value) >= 1e16 else repr(value)
    if isinstance(value, str) and not re.fullmatch(r"[A-Za-z_][\w.-]*", value):
        return repr(value)          # 'nDCG@10': quoted so that the name parses back
    return str(value)


@dataclass
class EvalContext:
    """Everything a kernel may need beyond the campaign and its own parameters.

    ``rel_level``: binary relevance threshold (trec_eval ``-l``). ``groups``: run name ->
    group name (NRG ``prior=best_per_group``). ``reference``: a campaign whose runs form
    the rarity reference set instead of the evaluated runs (innovation metrics).
    ``prior_runs``: explicit prior set for NRG. ``cache``: kernels may memoise shared
    intermediate arrays here (e.g. per-document retrieval counts), keyed by a tuple.
    ``collection_size``: documents in the collection (trec_eval ``-N``, default 0 as in
    trec_eval), read by ``utility``.
    ``campaign_means``: ``{base measure name: [R] means}`` over the whole campaign topic
    set, given by a topic-sharded evaluation (:mod:`irmeta.shards`), whose campaigns hold
    only some topics, for NRG's and TaSC's ``prior=best_per_group``.
    """

    rel_level: int = 1
    groups: Mapping[str, str] | None = None
    reference: Any = None
    prior_runs: tuple[str, ...] | None = None
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict)
    collection_size: int = 0
    campaign_means: Mapping[str, Any] | None = None
