"""Parse measure strings: ir_measures syntax, and trec_eval's names and ``-m`` syntax.

Grammar of the irmeta / ir_measures syntax (a small recursive-descent parser, so errors
can point at a position)::

    measure  := NAME [ "(" param ("," param)* ")" ] [ "@" INT ]
    NAME     := letter (letter | digit | "_" | ".")*        e.g. P_rare, Twist.rho
    param    := IDENT "=" value
    value    := NUMBER | IDENT | "{" INT ":" NUMBER ("," INT ":" NUMBER)* "}"
              | "[" IDENT ("," IDENT)* "]"

trec_eval names come first (docs/conventions.md, "Measure names"): a string spelled
exactly as a trec_eval measure (case-sensitive), alone or followed by trec_eval's
``.params`` (``P``, ``P.5,10``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``, ``rbp.p=0.8``), or
as trec_eval prints it (``P_10``, ``iprec_at_recall_0.10``), or a trec_eval nickname
(``official``, ``all_trec``, ``set``), means what it means in trec_eval 10 and is printed
as trec_eval prints it. The trec_eval names are read from the declarations
(:class:`~irmeta.measures.spec.TrecName`); nothing here lists them.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, NoReturn

from irmeta.errors import IrmetaError, MeasureError, ParameterError
from irmeta.measures import registry
from irmeta.measures.spec import Measure, MeasureDef, TrecName

#: a printed trec_eval name: ``P_10``, ``iprec_at_recall_0.10``, ``Rprec_mult_1.20``
_PRINTED_RE = re.compile(r"^(.+)_(\d+(?:\.\d*)?|\.\d+)$")
_PREFS = ("prefs", "all_prefs", "qrels_jg")


def known_names() -> list[str]:
    return registry.names()


def parse_measure(text: str) -> list[Measure]:
    """Parse one measure string; trec_eval forms with several cutoffs give several."""
    if not isinstance(text, str):
        raise MeasureError(f"a measure name must be a string, got {text!r}")
    text = text.strip()
    if not text:
        raise MeasureError("empty measure name", text=text, position=0, known=known_names())
    trec = _parse_trec(text)
    if trec is not None:
        return trec
    return [_Parser(text).measure()]


def is_ir_measures_object(item: Any) -> bool:
    """Whether ``item`` is a measure object of the ir_measures package (``nDCG@10``)."""
    return (type(item).__module__.startswith("ir_measures")
            and hasattr(item, "NAME") and hasattr(item, "params"))


def from_ir_measures(item: Any) -> str:
    """The irmeta measure string of an ir_measures measure object (its name, parameters
    and its at-parameter, the cutoff or IPrec's ``recall``; ``nDCG(dcg='exp-log2')@10`` ->
    ``nDCG(dcg=exp-log2)@10``). Measures defined at run time
    (``ir_measures.define``) are refused: their values are a function irmeta cannot see."""
    if hasattr(item, "runtime_impl"):
        raise MeasureError(f"ir_measures measure {item!r} is defined at run time "
                           "(ir_measures.define): irmeta cannot compute it; give irmeta the "
                           "measure string it stands for (docs/ecosystem.md)")
    params = dict(item.params)
    cutoff = params.pop(getattr(item, "AT_PARAM", "cutoff"), None)

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, dict):
            return "{" + ",".join(f"{k}:{g}" for k, g in v.items()) + "}"
        return str(v)
    inner = ",".join(f"{k}={value(v)}" for k, v in params.items())
    text: str = item.NAME + (f"({inner})" if inner else "")
    return text + (f"@{cutoff}" if cutoff is not None else "")


def _parse_ir_measures(item: Any) -> list[Measure]:
    """The irmeta measure an ir_measures object names, or one MeasureError saying why
    there is none (an unknown name, a parameter irmeta does not take)."""
    text = from_ir_measures(item)
    try:
        return parse_measure(text)
    except MeasureError as exc:
        first = str(exc).splitlines()[0]
        try:
            shown = repr(item)
        except Exception:   # ir_measures' repr fails on a parameter it does not know
            shown = text
        raise MeasureError(f"ir_measures measure {shown} has no irmeta equivalent: {first} "
                           "(docs/ecosystem.md lists the mapping)") from None


def parse_measures(items: Iterable[str | Measure] | str | Measure) -> list[Measure]:
    """Parse several measures (strings, :class:`Measure` or ir_measures measure objects),
    dropping exact repeats.

    One string is one measure string (``"AP"`` is AP; ``"P.5,10"`` is trec_eval's two).
    """
    sequence: list[Any]
    if isinstance(items, (str, Measure)) or is_ir_measures_object(items):
        sequence = [items]
    elif isinstance(items, (bytes, dict)) or not isinstance(items, Iterable):
        raise ParameterError(f"parse_measures: items must be a measure string or a sequence "
                             f"of them, got {items!r}")
    else:
        sequence = list(items)
    out: list[Measure] = []
    seen = set()
    for item in sequence:
        if is_ir_measures_object(item):
            parsed = _parse_ir_measures(item)
        else:
            parsed = [item] if isinstance(item, Measure) else parse_measure(item)
        for m in parsed:
            key = (m, m.display)
            if key not in seen:
                seen.add(key)
                out.append(m)
    return out


def make(definition: MeasureDef, params: dict[str, Any], cutoff: int | None,
         text: str, label: str | None = None) -> Measure:
    """Validate parameters and cutoff against a declaration and build the measure."""
    values = {}
    for q in definition.params:
        values[q.name] = q.default
    for key, value in params.items():
        p = definition.param(key)
        if p is None:
            from irmeta.suggest import did_you_mean
            names = [q.name for q in definition.params]
            hint = ("; " + did_you_mean(key, names, noun="parameters") if names
                    else " (parameters: none)")
            raise MeasureError(f"{definition.name} has no parameter {key!r}{hint}",
                               text=text, position=max(text.find(key + "="), 0))
        try:
            values[key] = p.check(value, definition.name)
        except MeasureError as exc:   # the constraint's message, with the string it was in
            if exc.text is not None:
                raise
            at = text.find(key + "=")
            raise MeasureError(str(exc), text=text,
                               position=at if at >= 0 else text.find(".") + 1) from None
    missing = [p.name for p in definition.params if p.required and values[p.name] is None]
    if missing:
        raise MeasureError(f"{definition.name} needs {', '.join(missing)}, e.g. "
                           f"{definition.name}({missing[0]}=0.5)", text=text, position=len(text))
    if cutoff is None:
        cutoff = definition.cutoff_default
    if definition.cutoff == "none" and cutoff is not None:
        raise MeasureError(f"{definition.name} takes no @cutoff", text=text,
                           position=max(text.find("@"), 0))
    if definition.cutoff == "required" and cutoff is None:
        raise MeasureError(f"{definition.name} needs a cutoff, e.g. {definition.name}@10",
                           text=text, position=len(text))
    if cutoff is not None and cutoff < 1:
        raise MeasureError(f"cutoff must be a positive integer, got {cutoff}", text=text,
                           position=max(text.find("@") + 1, 0))
    measure = Measure(definition, tuple(sorted(values.items())), cutoff, label)
    if definition.validate is not None:
        try:
            definition.validate(measure)
        except MeasureError as exc:
            if exc.text is not None:
                raise
            reason = str(exc).split("\n")[0]
            raise MeasureError(reason, text=text, position=None) from None
    return measure


def _definition(name: str, text: str, position: int) -> MeasureDef:
    d = registry.get(name)
    if d is None:
        from irmeta.suggest import close_matches, unknown
        names = [*known_names(), *registry.aliases(), *trec_names(), *trec_nicknames()]
        like = name   # a trec_eval form: ``ndcg_cutt.10`` is matched as ``ndcg_cutt``
        if "." in name and not close_matches(name, names):
            like = name.partition(".")[0]
        raise MeasureError(unknown("measure", name, names, like=like,
                                   elsewhere="every measure: `irmeta measures`, "
                                             "docs/measures.md"),
                           text=text, position=position)
    return d


def trec_names() -> dict[str, tuple[MeasureDef, TrecName]]:
    """Every trec_eval name -> (declaration, TrecName), from the registry."""
    return {t.name: (d, t) for d in registry.all_measures() for t in d.trec}


def trec_nicknames() -> dict[str, list[str]]:
    """trec_eval nickname -> its measure names, in trec_eval's order."""
    out: dict[str, list[tuple[int, str]]] = {}
    for _, t in trec_names().values():
        for nick in t.nicknames:
            out.setdefault(nick, []).append((t.rank, t.name))
    return {k: [n for _, n in sorted(v)] for k, v in out.items()}


def _split_trec(text: str) -> tuple[str, str | None] | None:
    """``(trec name, params or None)`` if ``text`` is a trec_eval measure name (with
    ``.params`` or in its printed ``name_value`` form), else None."""
    names = trec_names()
    name, dot, params = text.partition(".")
    if name in names:
        return name, (params if dot else None)
    m = _PRINTED_RE.match(text)
    if m and m.group(1) in names:
        form = names[m.group(1)][1].form
        if form == "levels" or (form == "cutoffs" and m.group(2).isdigit()):
            return m.group(1), m.group(2)
    return None


def is_trec_name(text: str) -> bool:
    """Whether ``text`` is a trec_eval measure name (as written after ``-m`` or as
    trec_eval prints it) or nickname."""
    return text in trec_nicknames() or _split_trec(text) is not None


def _parse_trec(text: str) -> list[Measure] | None:
    if text in _PREFS:
        raise MeasureError(f"trec_eval's {text!r} measures need preference judgments "
                           "(-R prefs, qrels_prefs, qrels_jg), which irmeta does not read",
                           text=text, position=0)
    nicknames = trec_nicknames()
    if text in nicknames:
        return [m for name in nicknames[text] for m in expand_trec(name, None)]
    split = _split_trec(text)
    if split is None:
        return None
    return expand_trec(*split)


#: trec_eval parameter numbers, read strictly (docs/conventions.md, "Measure names").
#: trec_eval reads them with C's atol/atof, which take the leading number and ignore the
#: rest (``x`` is 0, ``2x`` is 2, ``5e3`` as a cutoff is 5; atof reads ``nan`` and
#: ``inf``); irmeta refuses each of those. A real is a decimal number with an optional
#: exponent (``.25``, ``1e-2``, ``+2``), finite. A cutoff is decimal digits, optionally
#: with a fraction, which is dropped as atol drops it: trec_eval's own test suite writes
#: ``ndcg_cut.10,20,23.4`` and prints ``ndcg_cut_23``.
_TREC_INT = re.compile(r"[-+]?\d+")
_TREC_CUTOFF = re.compile(r"([-+]?\d+)(\.\d*)?")
_TREC_REAL = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _items(params: str) -> list[tuple[str, int]]:
    """The comma-separated items of ``params`` with their offsets in ``params``."""
    out, start = [], 0
    for item in params.split(","):
        out.append((item, start))
        start += len(item) + 1
    return out


def _trec_number(item: str, offset: int, kind: str, name: str, what: str,
                 text: str) -> Any:
    """``item`` read strictly as an integer (``kind == "int"``) or a finite real, or a
    :class:`MeasureError` naming the measure, the item and what was expected."""
    token = item.strip()
    position = offset + len(item) - len(item.lstrip())
    cutoff = _TREC_CUTOFF.fullmatch(token) if kind == "int" else None
    if cutoff:
        return int(cutoff.group(1))
    if kind == "real" and _TREC_REAL.fullmatch(token):
        value = float(token)
        if math.isfinite(value):
            return value
        raise MeasureError(f"trec_eval measure {name!r}: {what} must be finite, got "
                           f"{token!r} (beyond the range of a double)",
                           text=text, position=position)
    expected = ("a decimal integer" if kind == "int" else
                "a finite decimal number (nan and inf are not allowed)")
    raise MeasureError(f"trec_eval measure {name!r}: {what} must be {expected}, got "
                       f"{token!r}", text=text, position=position)


def _trec_numbers(name: str, params: str, kind: str, what: str, text: str) -> list[Any]:
    """Every comma-separated item of ``params`` read by :func:`_trec_number`, an error
    pointing into ``text`` (``name.params``)."""
    return [_trec_number(x, len(name) + 1 + at, kind, name, what, text)
            for x, at in _items(params)]


def expand_trec(name: str, params: str | None) -> list[Measure]:
    """The measures trec_eval computes for ``-m name[.params]``, labelled as it prints them."""
    definition, t = trec_names()[name]
    text = name if params is None else f"{name}.{params}"
    fixed = dict(t.fixed)
    bind = t.bind or ""             # the forms that bind a value declare the parameter
    if params == "":
        raise MeasureError(f"trec_eval measure {name!r}: empty parameter list after '.'",
                           text=text, position=len(text))
    if t.form == "single":
        if params is not None:
            raise MeasureError(f"trec_eval measure {name!r} takes no parameters", text=text,
                               position=len(name))
        return [make(definition, fixed, None, text, name)]
    if t.form == "cutoffs":
        cutoffs = sorted(t.defaults if params is None else
                         _trec_numbers(name, params, "int", "a cutoff", text))
        if cutoffs[0] <= 0 or len(set(cutoffs)) != len(cutoffs):
            raise MeasureError(f"trec_eval measure {name!r}: cutoffs must be positive and "
                               f"distinct, got {params}", text=text, position=len(name) + 1)
        if t.bind == "@":
            return [make(definition, fixed, k, text, f"{name}_{k}") for k in cutoffs]
        return [make(definition, {**fixed, bind: k}, None, text, f"{name}_{k}")
                for k in cutoffs]
    if t.form == "levels":
        levels = sorted(t.defaults if params is None else
                        _trec_numbers(name, params, "real", "a level", text))
        if len(set(levels)) != len(levels):
            raise MeasureError(f"trec_eval measure {name!r}: repeated levels in {params}",
                               text=text, position=len(name) + 1)
        return [make(definition, {**fixed, bind: x}, None, text, f"{name}_{x:3.2f}")
                for x in levels]
    label = name if params is None else f"{name}_{params}"
    values: dict[str, Any] = dict(fixed)
    if params is not None and t.form == "values":
        bound = definition.param(bind)
        if bound is None:               # a declaration error of irmeta's, not the user's
            raise IrmetaError(f"internal error: trec_eval name {name!r} binds {bind!r}, "
                              f"which {definition.name} does not declare")
        kind = bound.kind
        items = _items(params)
        if kind != "floats" and len(items) != 1:
            raise MeasureError(f"trec_eval measure {name!r} takes one value, got "
                               f"{len(items)}: {params}", text=text,
                               position=len(name) + 1 + items[1][1])
        numbers = _trec_numbers(name, params, "real",
                                "a value" if kind == "floats" else "its value", text)
        # relstring's length: trec_eval casts the double to long (``relstring.1e1`` is 10)
        values[bind] = (tuple(numbers) if kind == "floats" else
                        int(numbers[0]) if kind == "int" else numbers[0])
    elif params is not None:
        values.update(_pairs(definition, name, params, text))
    return [make(definition, values, None, text, label)]


def _pairs(definition: MeasureDef, name: str, params: str, text: str) -> dict[str, Any]:
    """trec_eval ``name=value`` pairs: integer names are grades of the gains mapping."""
    out: dict[str, Any] = {}
    gains: dict[int, float] = {}
    for item, at in _items(params):
        at += len(name) + 1
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise MeasureError(f"trec_eval measure {name!r}: malformed pair {item!r} "
                               "(expected name=value)", text=text, position=at)
        offset = at + len(key) + 1
        if _TREC_INT.fullmatch(key):
            grade = int(key)
            if grade in gains:
                raise MeasureError(f"trec_eval measure {name!r}: the gain of grade {grade} "
                                   "is given twice", text=text, position=at)
            gains[grade] = _trec_number(value, offset, "real", name,
                                        f"the gain of grade {grade}", text)
        elif definition.param(key) is not None:
            if key in out:
                raise MeasureError(f"trec_eval measure {name!r}: parameter {key!r} is given "
                                   "twice", text=text, position=at)
            out[key] = _trec_number(value, offset, "real", name, f"parameter {key!r}", text)
        else:
            from irmeta.suggest import did_you_mean
            hint = did_you_mean(key, [q.name for q in definition.params], noun="parameters")
            raise MeasureError(f"trec_eval measure {name!r} has no parameter {key!r}"
                               + (f"; {hint}" if hint else ""), text=text, position=at)
    if gains:
        if definition.param("gains") is None:
            raise MeasureError(f"trec_eval measure {name!r} takes no gains", text=text,
                               position=len(name) + 1)
        out["gains"] = gains
    return out


def trec_eval_measures(items: Iterable[str]) -> list[Measure] | None:
    """The measures of ``trec_eval -m item -m item ...``, or None when some item is not a
    trec_eval name or nickname.

    As trec_eval does: measures come in trec_eval's order (not the order of the ``-m``
    options), a name marked twice is computed once, and the first ``-m name.params`` of a
    name gives its parameters (``-m all_trec -m relstring.20`` prints ``relstring_20``).
    """
    nicknames = trec_nicknames()
    names = trec_names()
    marked: dict[str, str | None] = {}
    for item in items:
        if not isinstance(item, str):
            return None
        item = item.strip()
        if item in _PREFS:
            _parse_trec(item)
        if item in nicknames:
            for name in nicknames[item]:
                marked.setdefault(name, None)
            continue
        split = _split_trec(item)
        if split is None:
            return None
        name, params = split
        if marked.get(name) is None:
            marked[name] = params
    order = sorted(marked, key=lambda n: names[n][1].rank)
    return [m for name in order for m in expand_trec(name, marked[name])]


class _Parser:
    """Recursive descent over the measure string, tracking the position for errors."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, message: str, known: bool = False) -> NoReturn:
        raise MeasureError(message, text=self.text, position=self.pos,
                           known=known_names() if known else None)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.peek().isspace():
            self.pos += 1

    def more(self, closer: str) -> bool:
        """After an item of a list: True past a ``,`` (another item follows), False past
        ``closer`` (the list ends); an error naming ``closer`` otherwise."""
        self.skip_space()
        if self.peek() == ",":
            self.pos += 1
            return True
        self.expect(closer)
        return False

    def expect(self, char: str) -> None:
        self.skip_space()
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "end of string"
            self.error(f"expected {char!r}, found {found}")
        self.pos += 1

    def name(self) -> str:
        start = self.pos
        if not self.peek().isalnum():
            self.error("expected a measure name", known=True)
        while self.peek() and (self.peek().isalnum() or self.peek() in "_."):
            self.pos += 1
        return self.text[start:self.pos]

    def measure(self) -> Measure:
        start = self.pos
        name = self.name()
        definition = _definition(name, self.text, start)
        params: dict[str, Any] = {}
        self.skip_space()
        if self.peek() == "(":
            self.pos += 1
            params = self.params()
        cutoff = None
        self.skip_space()
        if self.peek() == "@":
            self.pos += 1
            if definition.at_param is not None:
                params[definition.at_param] = self.number()
            else:
                cutoff = self.integer()
        self.skip_space()
        if self.pos != len(self.text):
            self.error(f"unexpected {self.peek()!r} after the measure")
        return make(definition, params, cutoff, self.text)

    def params(self) -> dict[str, Any]:
        params: dict[str, Any] = {}
        self.skip_space()
        if self.peek() == ")":
            self.pos += 1
            return params
        while True:
            self.skip_space()
            key_pos = self.pos
            key = self.identifier()
            if key in params:
                self.pos = key_pos
                self.error(f"parameter {key!r} given twice")
            self.expect("=")
            params[key] = self.value()
            if not self.more(")"):
                return params

    def identifier(self) -> str:
        start = self.pos
        while self.peek() and (self.peek().isalnum() or self.peek() in "_-."):
            self.pos += 1
        if start == self.pos:
            self.error("expected a parameter name")
        return self.text[start:self.pos]

    def integer(self) -> int:
        self.skip_space()
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            self.error("expected a positive integer cutoff after '@'")
        return int(self.text[start:self.pos])

    def number(self) -> float | int:
        self.skip_space()
        m = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?").match(self.text, self.pos)
        if not m:
            self.error("expected a number")
        self.pos = m.end()
        token = m.group(0)
        return int(token) if re.fullmatch(r"[-+]?\d+", token) else float(token)

    def value(self) -> Any:
        self.skip_space()
        c = self.peek()
        if c == "{":
            self.pos += 1
            out = {}
            while True:
                key = self.number()
                if not isinstance(key, int):
                    self.error("gain keys must be integer grades")
                self.expect(":")
                out[key] = float(self.number())
                if not self.more("}"):
                    return out
        if c == "[":
            self.pos += 1
            items = []
            while True:
                self.skip_space()
                items.append(self.identifier())
                if not self.more("]"):
                    return items
        if c in ("'", '"'):
            return self.quoted(c)
        if c and (c.isdigit() or c in "+-."):
            return self.number()
        if c and (c.isalpha() or c == "_"):
            return self.identifier()
        self.error("expected a value (number, name, 'text', {grade:gain,...} or [a,b])")

    def quoted(self, quote: str) -> str:
        """A string between single or double quotes (ir_measures writes ``dcg='exp-log2'``;
        a measure string as a value, ``select='nDCG@10'``, needs them)."""
        start = self.pos + 1
        end = self.text.find(quote, start)
        if end < 0:
            self.error(f"unterminated {quote}...{quote} string")
        self.pos = end + 1
        return self.text[start:end]


def one_measure(text: Any, option: str) -> Measure:
    """The one measure with a number per topic that ``text`` names, for an option that takes
    exactly one measure (``report --primary``, ``ReportOptions.primary``).

    A string that expands to several measures (trec_eval's ``P`` is ``P_5`` ... ``P_1000``,
    ``Rprec_mult``, ``all_trec``), a measure without a number per topic (``relstring``, a
    string; ``runid``, a name; ``num_q``, a count of topics) is a :class:`MeasureError`
    that names ``option`` and the string: such a value used to shift every column after it
    or end in an internal error.
    """
    if isinstance(text, Measure):
        measures = [text]
    else:
        if not isinstance(text, str) or not text.strip():
            raise MeasureError(f"{option} must be one measure string, got {text!r}")
        measures = parse_measure(text)
    shown = text.display if isinstance(text, Measure) else text.strip()
    if len(shown) > 60:
        shown = shown[:57] + "..."
    if len(measures) != 1:
        labels = [m.display for m in measures]
        listed = (", ".join(labels) if len(labels) <= 3 else
                  f"{labels[0]} ... {labels[-1]}")
        usable = [m.display for m in measures if _per_topic(m)] or ["AP"]
        raise MeasureError(f"{option} {shown} expands to {len(measures)} measures ({listed}); "
                           f"give one, e.g. {usable[1] if len(usable) > 1 else usable[0]}")
    m = measures[0]
    if not _per_topic(m):
        what = ("a string per topic" if m.definition.text is not None else
                "a count of topics" if m.definition.name != "runid" else "the run's name")
        raise MeasureError(f"{option} {shown}: {m.display} is {what}, not a number per topic; "
                           "give a measure with a value per topic, e.g. AP or nDCG@10")
    return m


def _per_topic(m: Measure) -> bool:
    """Whether ``m`` has a number per topic (not ``relstring``, ``runid``, ``num_q``)."""
    return m.definition.text is None and m.definition.aggregate != "count"


def numeric_measures(text: Any, option: str) -> list[Measure]:
    """The measures ``text`` names, each with a number per topic, for an option that takes
    measures to compare or plot (``meta -m``, ``twist grid -g``): a string may give several
    (``P`` is ``P_5`` ... ``P_1000``) but not ``relstring``, ``runid`` or ``num_q``, whose
    values are NaN or a count (a :class:`MeasureError` naming ``option``)."""
    measures = [text] if isinstance(text, Measure) else parse_measure(text)
    for m in measures:
        if not _per_topic(m):
            shown = text.display if isinstance(text, Measure) else text.strip()
            raise MeasureError(f"{option} {shown[:60]}: {m.display} has no number per topic "
                               "(a string, a run name or a count of topics); give measures "
                               "with a value per topic, e.g. AP or nDCG@10")
    return measures
