"""The registry of measure declarations.

Each measure module declares its measures with :func:`register` at import time. The
registry imports the modules listed in ``_MODULES`` the first time it is asked for a
measure, so importing irmeta stays cheap.
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:        # not at run time: the CLI reads FAMILIES without loading NumPy
    from irmeta.measures.spec import MeasureDef

_MODULES = (
    "irmeta.measures.classic",
    "irmeta.measures.sets",
    "irmeta.measures.gain",
    "irmeta.measures.unjudged",
    "irmeta.measures.yaap",
    "irmeta.measures.innovation",
    "irmeta.measures.nrg",
    "irmeta.measures.tasc",
    "irmeta.measures.twist",
    "irmeta.measures.judged",
    "irmeta.measures.err",
    "irmeta.measures.cwl",
    "irmeta.measures.compatibility",
    "irmeta.measures.diversity",
)
#: the measure families (``MeasureDef.family``), in listing order, with what each holds:
#: ``irmeta measures --family`` offers these, and :func:`register` refuses any other
FAMILIES: dict[str, str] = {
    "classic": "trec_eval's measures, with trec_eval 10 semantics",
    "innovation": "rareness-weighted P_rare and AP_rare (Türkmen et al. 2023)",
    "nrg": "Normalized Residual Gain and TaSC (Bigdeli et al. 2024)",
    "twist": "Twist, effort-aware evaluation with CRP curves",
    "ir_measures": "measures of ir_measures beyond trec_eval (Judged, ERR, INST, SDCG, ...)",
    "diversity": "intent-aware measures over subtopic qrels (ndeval)",
}
_REGISTRY: dict[str, MeasureDef] = {}
_ALIASES: dict[str, MeasureDef] = {}
_MODULE_OF: dict[str, str] = {}   # measure name -> the module that registered it
_LOADED = False
#: :func:`all_measures`' sorted list, rebuilt only after :func:`register` (evaluating one
#: small campaign sorted the ~250 declarations twice: 1.2 M key calls in the 5,000 draws of
#: ``reproduce innovation``'s Table 3, issue 27)
_SORTED: list[MeasureDef] | None = None


def register(definition: MeasureDef) -> MeasureDef:
    """Add a measure declaration (its ``name`` must be new, its ``family`` one of
    :data:`FAMILIES`)."""
    global _SORTED
    if definition.family not in FAMILIES:
        raise ValueError(f"measure {definition.name!r}: family {definition.family!r} is not "
                         f"one of {', '.join(FAMILIES)} (irmeta.measures.registry.FAMILIES)")
    for name in (definition.name, *definition.aliases):
        taken = _REGISTRY.get(name) or _ALIASES.get(name)
        if taken is not None and taken is not definition:
            raise ValueError(f"measure name {name!r} registered twice")
    _REGISTRY[definition.name] = definition
    _SORTED = None
    _MODULE_OF[definition.name] = sys._getframe(1).f_globals.get("__name__", "")
    for alias in definition.aliases:
        _ALIASES[alias] = definition
    return definition


def _load() -> None:
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for module in _MODULES:
            importlib.import_module(module)


def get(name: str) -> MeasureDef | None:
    """The declaration named ``name`` or aliased so (exact, then case-insensitive), or
    None."""
    _load()
    exact = _REGISTRY.get(name) or _ALIASES.get(name)
    if exact is not None:
        return exact
    folded = {k.lower(): v for k, v in (*_ALIASES.items(), *_REGISTRY.items())}
    return folded.get(name.lower())


def all_measures() -> list[MeasureDef]:
    """Every registered declaration: by declaring module in ``_MODULES`` order, then in
    registration order — the same order whichever module was imported first."""
    global _SORTED
    _load()

    def module_rank(d: MeasureDef) -> int:
        module = _MODULE_OF.get(d.name, "")
        return _MODULES.index(module) if module in _MODULES else len(_MODULES)
    if _SORTED is None:
        _SORTED = sorted(_REGISTRY.values(), key=module_rank)
    return list(_SORTED)


def names() -> list[str]:
    return [d.name for d in all_measures()]


def aliases() -> list[str]:
    """Every alias a measure is known by (``map`` ...), for the "did you mean" of an
    unknown name."""
    _load()
    return list(_ALIASES)
