"""Parse measure strings: ir_measures syntax plus trec_eval names as aliases.

Grammar (a small recursive-descent parser, so errors can point at a position)::

    measure  := NAME [ "(" param ("," param)* ")" ] [ "@" INT ]
    NAME     := letter (letter | digit | "_" | ".")*        e.g. P_rare, Twist.rho
    param    := IDENT "=" value
    value    := NUMBER | IDENT | "{" INT ":" NUMBER ("," INT ":" NUMBER)* "}"
              | "[" IDENT ("," IDENT)* "]"

trec_eval names are recognised first: ``map``, ``gm_map``, ``P_10`` / ``P.10`` /
``P.5,10``, ``recall_100``, ``ndcg``, ``ndcg_cut_10``, ``ndcg.1=3,2=9``, ``map_cut_100``,
``recip_rank``, ``success_10``, ``Rprec``, ``bpref``, ``num_q``, ``num_ret``, ``num_rel``,
``num_rel_ret``. A measure parsed from a trec_eval name keeps it as its label (it is
printed as trec_eval prints it).
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from irmeta.errors import MeasureError, ParameterError
from irmeta.measures import registry
from irmeta.measures.spec import Measure, MeasureDef

# trec_eval family -> (irmeta family, label prefix)
_TREC_CUTOFF = {
    "P": ("P", "P_"), "recall": ("R", "recall_"), "ndcg_cut": ("nDCG", "ndcg_cut_"),
    "map_cut": ("AP", "map_cut_"), "success": ("Success", "success_"),
}
_TREC_PLAIN = {
    "map": "AP", "gm_map": "GMAP", "ndcg": "nDCG", "recip_rank": "RR", "Rprec": "Rprec",
    "bpref": "bpref", "num_q": "num_q", "num_ret": "num_ret", "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret", "gm_bpref": None,
}
_TREC_IPREC_RE = re.compile(r"^iprec_at_recall[._]((?:\d*\.?\d+)(?:,\d*\.?\d+)*)$")
_TREC_CUTOFF_RE = re.compile(r"^(P|recall|ndcg_cut|map_cut|success)[._](\d+(?:,\d+)*)$")
_TREC_GAINS_RE = re.compile(r"^ndcg\.((?:-?\d+=-?[\d.]+)(?:,-?\d+=-?[\d.]+)*)$")


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


def parse_measures(items: Iterable[str | Measure] | str | Measure) -> list[Measure]:
    """Parse several measures (strings or :class:`Measure`), dropping exact repeats.

    One string is one measure string (``"AP"`` is AP; ``"P.5,10"`` is trec_eval's two).
    """
    if isinstance(items, (str, Measure)):
        items = [items]
    elif isinstance(items, (bytes, dict)) or not isinstance(items, Iterable):
        raise ParameterError(f"parse_measures: items must be a measure string or a sequence "
                             f"of them, got {items!r}")
    out: list[Measure] = []
    seen = set()
    for item in items:
        for m in ([item] if isinstance(item, Measure) else parse_measure(item)):
            key = (m, m.display)
            if key not in seen:
                seen.add(key)
                out.append(m)
    return out


def make(definition: MeasureDef, params: dict[str, Any], cutoff: int | None,
         text: str, label: str | None = None) -> Measure:
    """Validate parameters and cutoff against a declaration and build the measure."""
    values = {}
    for p in definition.params:
        values[p.name] = p.default
    for key, value in params.items():
        p = definition.param(key)
        if p is None:
            allowed = ", ".join(q.name for q in definition.params) or "none"
            raise MeasureError(f"{definition.name} has no parameter {key!r} "
                               f"(parameters: {allowed})", text=text,
                               position=max(text.find(key + "="), 0))
        values[key] = p.check(value, definition.name)
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
        raise MeasureError(f"unknown measure {name!r}", text=text, position=position,
                           known=known_names())
    return d


def _parse_trec(text: str) -> list[Measure] | None:
    m = _TREC_CUTOFF_RE.match(text)
    if m:
        family, prefix = _TREC_CUTOFF[m.group(1)]
        d = _definition(family, text, 0)
        return [make(d, {}, int(k), text, prefix + k) for k in m.group(2).split(",")]
    m = _TREC_IPREC_RE.match(text)
    if m:
        d = _definition("IPrec", text, 0)
        levels = [float(x) for x in m.group(1).split(",")]
        if text.startswith("iprec_at_recall_"):
            levels = [float(m.group(1))]
        return [make(d, {"recall": x}, None, text, f"iprec_at_recall_{x:.2f}") for x in levels]
    if text == "iprec_at_recall":
        d = _definition("IPrec", text, 0)
        return [make(d, {"recall": x / 10}, None, text, f"iprec_at_recall_{x / 10:.2f}")
                for x in range(11)]
    m = _TREC_GAINS_RE.match(text)
    if m:
        gains = {int(k): float(v) for k, v in (kv.split("=") for kv in m.group(1).split(","))}
        return [make(_definition("nDCG", text, 0), {"gains": gains}, None, text, "ndcg")]
    if text in _TREC_PLAIN and _TREC_PLAIN[text] is not None:
        d = registry.get(_TREC_PLAIN[text])
        if d is not None:
            return [make(d, {}, None, text, text)]
    return None


class _Parser:
    """Recursive descent over the measure string, tracking the position for errors."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, message: str, known: bool = False):
        raise MeasureError(message, text=self.text, position=self.pos,
                           known=known_names() if known else None)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> None:
        while self.peek().isspace():
            self.pos += 1

    def expect(self, char: str) -> None:
        self.skip_space()
        if self.peek() != char:
            found = repr(self.peek()) if self.peek() else "end of string"
            self.error(f"expected {char!r}, found {found}")
        self.pos += 1

    def name(self) -> str:
        start = self.pos
        if not (self.peek().isalpha()):
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
            self.skip_space()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect(")")
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
                self.skip_space()
                if self.peek() == ",":
                    self.pos += 1
                    continue
                self.expect("}")
                return out
        if c == "[":
            self.pos += 1
            items = []
            while True:
                self.skip_space()
                items.append(self.identifier())
                self.skip_space()
                if self.peek() == ",":
                    self.pos += 1
                    continue
                self.expect("]")
                return items
        if c and (c.isdigit() or c in "+-."):
            return self.number()
        if c and (c.isalpha() or c == "_"):
            return self.identifier()
        self.error("expected a value (number, name, {grade:gain,...} or [a,b])")
