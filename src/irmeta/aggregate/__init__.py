"""Aggregate a systems x topics score matrix into one score per system.

Aggregator strings (``irmeta eval --aggregator``, ``irmeta aggregate -a``,
:meth:`irmeta.Results.aggregate`, :func:`aggregate_matrix`)::

    NAME                     or   NAME(key=value,key=value,...)

==============  ==========================================================  ==========
name            score of system i                                           parameters
==============  ==========================================================  ==========
``mean``        arithmetic mean of its row (MAP), NaN cells left out        —
``gmean``       geometric mean, each value floored at ``floor`` (GMAP)      ``floor`` (1e-5)
``hmean``       harmonic mean, each value floored at ``floor``               ``floor`` (1e-5)
``min``         worst topic score                                           —
``max``         best topic score                                            —
``gawm``        ``E_s`` of :func:`gawm` (adaptive weights, iterated)        ``axioms`` (A), ``ms``,
                                                                            ``mt`` (arithmetic),
                                                                            ``tol`` (1e-9),
                                                                            ``max_iter`` (1000),
                                                                            ``floor`` (0)
``hits``        system authority ``A(s)`` of :func:`hits`                   —
==============  ==========================================================  ==========

Names and keys are case-insensitive; values of ``ms``/``mt`` are ``min``, ``harmonic``,
``geometric``, ``arithmetic``, ``max`` (aliases ``hmean``, ``gmean``, ``mean``, or the
paper's numbers 1..5). Examples: ``gawm``, ``gawm(axioms=B)``,
``gawm(axioms=B,ms=arithmetic,mt=harmonic)``, ``gawm(ms=3,mt=4,tol=1e-12)``,
``gmean(floor=0.001)``. A string that does not parse, an unknown name or key, or a bad
value is a :class:`~irmeta.errors.ParameterError` that shows the string.

The simple aggregators skip NaN cells (undefined values); GAWM and HITS need a complete
matrix and raise :class:`~irmeta.errors.ParameterError` otherwise.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pandas as pd

from irmeta.aggregate.gawm import (
    AXIOMS,
    GAWMResult,
    gawm,
    normalise_weights,
    system_conformity,
    system_discernment,
    topic_discernment,
)
from irmeta.aggregate.hits import HITSResult, hits
from irmeta.aggregate.means import (
    MEAN_FUNCTIONS,
    canonical_mean,
    weighted_arithmetic,
    weighted_geometric,
    weighted_harmonic,
    weighted_max,
    weighted_min,
)
from irmeta.aggregate.topics import run_topics, topic_summary
from irmeta.errors import ParameterError

#: the C library's log, one value at a time
_LIBM_LOG = np.frompyfunc(math.log, 1, 1)

__all__ = [
    "AGGREGATORS", "AXIOMS", "MEAN_FUNCTIONS", "GAWMResult", "HITSResult", "aggregate_matrix",
    "canonical_aggregator", "aggregator_label",
    "gawm", "hits", "normalise_weights", "parse_aggregator", "system_conformity",
    "system_discernment", "topic_discernment", "weighted_arithmetic", "weighted_geometric",
    "weighted_harmonic", "weighted_max", "weighted_min", "run_topics", "topic_summary",
]

#: aggregator name -> {parameter: default}
AGGREGATORS: dict[str, dict[str, object]] = {
    "mean": {},
    "gmean": {"floor": 1e-5},
    "hmean": {"floor": 1e-5},
    "min": {},
    "max": {},
    "gawm": {"axioms": "A", "ms": "arithmetic", "mt": "arithmetic", "tol": 1e-9,
             "max_iter": 1000, "floor": 0.0},
    "hits": {},
}

_SYNTAX = re.compile(r"^\s*([A-Za-z_]+)\s*(?:\((.*)\))?\s*$", re.S)


def _bad(text: str, why: str) -> ParameterError:
    return ParameterError(f"aggregator {text!r}: {why}. Syntax: NAME or NAME(key=value,...) "
                          f"with NAME one of {', '.join(AGGREGATORS)}; e.g. "
                          f"gawm(axioms=B,ms=arithmetic,mt=harmonic)")


def parse_aggregator(text: str) -> tuple[str, dict[str, Any]]:
    """``(name, params)`` of an aggregator string, with defaults filled in and values
    converted (numbers to float/int, ``ms``/``mt`` to canonical mean names, ``axioms``
    to ``A``/``B``). :class:`ParameterError` showing the string on any problem.

    Examples
    --------
    >>> parse_aggregator("gawm(axioms=B)")[1]["axioms"]
    'B'
    """
    if not isinstance(text, str):
        raise ParameterError(f"aggregator must be a string like 'gawm(axioms=B)', got {text!r}")
    match = _SYNTAX.match(text)
    if not match:
        raise _bad(text, "does not parse")
    name = match.group(1).lower()
    if name not in AGGREGATORS:
        from irmeta.suggest import unknown
        raise _bad(text, unknown("aggregator", match.group(1), AGGREGATORS, short=0))
    params = dict(AGGREGATORS[name])
    body = match.group(2)
    if body is not None and body.strip():
        seen = set()
        for item in body.split(","):
            if "=" not in item:
                raise _bad(text, f"expected key=value, got {item.strip()!r}")
            key, value = (s.strip() for s in item.split("=", 1))
            key = key.lower()
            if key not in params:
                from irmeta.suggest import did_you_mean
                hint = did_you_mean(key, AGGREGATORS[name]) or "known: none"
                raise _bad(text, f"{name} has no parameter {key!r}; {hint}")
            if key in seen:
                raise _bad(text, f"parameter {key!r} given twice")
            seen.add(key)
            params[key] = _convert(text, name, key, value)
    return name, params


def _convert(text: str, name: str, key: str, value: str):
    if key == "axioms":
        if value.upper() not in AXIOMS:
            raise _bad(text, f"axioms must be A or B, got {value!r}")
        return value.upper()
    if key in ("ms", "mt"):
        try:
            return canonical_mean(value, "aggregator", key)
        except ParameterError:
            raise _bad(text, f"{key} must be one of {', '.join(MEAN_FUNCTIONS)} or 1..5, "
                             f"got {value!r}") from None
    try:
        number = float(value)
    except ValueError:
        raise _bad(text, f"{key} must be a number, got {value!r}") from None
    if key == "max_iter":
        if number != int(number) or number < 1:
            raise _bad(text, f"max_iter must be a positive integer, got {value!r}")
        return int(number)
    if not np.isfinite(number) or number < 0:
        raise _bad(text, f"{key} must be a finite number >= 0, got {value!r}")
    return number


def canonical_aggregator(text: str) -> str:
    """Canonical spelling of an aggregator string (defaults omitted), e.g.
    ``GAWM( axioms=b, mt=2 )`` -> ``gawm(axioms=B,mt=harmonic)``.

    Examples
    --------
    >>> canonical_aggregator("GAWM( axioms=b, mt=2 )")
    'gawm(axioms=B,mt=harmonic)'
    """
    return aggregator_label(*parse_aggregator(text))


def aggregator_label(name: str, params: dict) -> str:
    """``name(key=value,...)`` listing only the parameters that differ from defaults."""
    diff = [f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
            for k, v in params.items() if v != AGGREGATORS[name][k]]
    return name + ("(" + ",".join(diff) + ")" if diff else "")


def aggregate_matrix(matrix: pd.DataFrame, aggregator: str = "mean") -> pd.Series:
    """One score per system (Series indexed like the matrix rows, named by the
    canonical aggregator string) from a systems x topics matrix.

    See the module docstring for the aggregator syntax. ``mean``/``gmean``/``hmean``/
    ``min``/``max`` leave NaN cells out (all-NaN row -> NaN); ``gawm`` returns
    :attr:`GAWMResult.E_s` (non-convergence emits a ConvergenceWarning), ``hits`` the
    system authority.

    Parameters
    ----------
    matrix : pandas.DataFrame
        systems x topics.
    aggregator : str
        ``mean``, ``gmean``, ``hmean``, ``min``, ``max``, ``hits`` or ``gawm(...)``.

    Returns
    -------
    pandas.Series
        One score per system, named by the canonical aggregator string.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> aggregate_matrix(toy_scores(), "gawm(axioms=B)").round(4)
    A    0.5791
    B    0.3977
    C    0.2171
    Name: gawm(axioms=B), dtype: float64
    """
    name, params = parse_aggregator(aggregator)
    if not isinstance(matrix, pd.DataFrame):
        raise ParameterError(f"aggregate_matrix: matrix must be a pandas DataFrame (rows = "
                             f"runs, columns = topics), got {type(matrix).__name__}")
    label = aggregator_label(name, params)
    if name == "gawm":
        out = gawm(matrix, params["axioms"], params["ms"], params["mt"], tol=params["tol"],
                   max_iter=params["max_iter"], floor=params["floor"]).E_s
    elif name == "hits":
        out = hits(matrix).authority_s
    else:
        out = pd.Series(_simple(matrix.to_numpy(dtype=np.float64), name, params),
                        index=matrix.index)
    return out.rename(label)


def _simple(P: np.ndarray, name: str, params: dict) -> np.ndarray:
    """Uniform-weight means over the defined (non-NaN) cells of each row."""
    defined = ~np.isnan(P)
    n = defined.sum(axis=1)
    with np.errstate(all="ignore"):
        if name == "mean":
            out = np.where(defined, P, 0.0).sum(axis=1) / n
        elif name == "min":
            out = np.where(defined, P, np.inf).min(axis=1)
        elif name == "max":
            out = np.where(defined, P, -np.inf).max(axis=1)
        else:
            x = np.maximum(np.where(defined, P, 1.0), params["floor"])
            if name == "gmean":
                # as trec_eval's gm_map (irmeta.evaluation.aggregate_values): libm's log of
                # each value, summed in topic order, libm's exp of the mean — NumPy's SIMD
                # log/exp differ in the last bit, by CPU
                logs = np.where(defined, np.asarray(_LIBM_LOG(np.where(x > 0, x, 1.0)), float), 0.0)
                total = np.cumsum(logs, axis=1)[:, -1] if logs.shape[1] else np.zeros(len(n))
                out = np.array([math.exp(v) for v in (total / np.maximum(n, 1)).tolist()])
                out = np.where((defined & (x <= 0)).any(axis=1), np.where(
                    (defined & (x < 0)).any(axis=1), np.nan, 0.0), out)
            else:
                inv = np.where(defined & (x > 0), 1.0 / np.where(x > 0, x, 1.0), 0.0).sum(axis=1)
                out = n / inv
                out = np.where((defined & (x <= 0)).any(axis=1), np.where(
                    (defined & (x < 0)).any(axis=1), np.nan, 0.0), out)
    return np.where(n > 0, out, np.nan)
