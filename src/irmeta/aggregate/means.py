"""The five weighted mean functions of GAWM (paper section 4.3), vectorised over rows.

Every function takes ``x`` of shape ``[..., N]`` (a batch of vectors, one per row) and
non-negative weights ``w`` of shape ``[N]``, and reduces the last axis, returning shape
``[...]``. The weights need not sum to 1: each function divides by ``sum(w)`` where the
formula needs it, so uniform weights give the ordinary unweighted mean. GAWM always
passes weights normalised to sum to 1.

===========  =====================================================  ===============
name         formula (``W = sum_i w_i``)                            paper's number
===========  =====================================================  ===============
min          ``min_i x_i`` (weights ignored)                        1 (S1 / T1)
harmonic     ``W / sum_i (w_i / x_i)``                              2 (S2 / T2)
geometric    ``prod_i x_i ** (w_i / W)``                            3 (S3 / T3)
arithmetic   ``sum_i w_i x_i / W``                                  4 (S4 / T4)
max          ``max_i x_i`` (weights ignored)                        5 (S5 / T5)
===========  =====================================================  ===============

Zeros (the paper does not say; we take the mathematical limit): the harmonic and the
geometric mean are 0 as soon as one value with a *positive* weight is 0 — a term with
weight 0 is left out (``0 ** 0 = 1``). An optional ``floor`` raises every value below it
to ``floor`` first (``floor=1e-5`` is trec_eval's GMAP convention); the default 0 keeps
the exact limit. Negative values make the harmonic and the geometric mean undefined
(NaN); GAWM rejects such matrices before it starts.

A *custom* mean is any callable with the same contract ``f(x[..., N], w[N]) -> [...]``.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from irmeta.errors import ParameterError

MeanFunction = Callable[[np.ndarray, np.ndarray], np.ndarray]

#: the paper's five mean functions, in its order (S1..S5 / T1..T5)
MEAN_FUNCTIONS = ("min", "harmonic", "geometric", "arithmetic", "max")

_ALIASES = {
    "min": "min", "minimum": "min", "1": "min",
    "harmonic": "harmonic", "hmean": "harmonic", "2": "harmonic",
    "geometric": "geometric", "gmean": "geometric", "3": "geometric",
    "arithmetic": "arithmetic", "mean": "arithmetic", "amean": "arithmetic", "4": "arithmetic",
    "max": "max", "maximum": "max", "5": "max",
}


def weighted_min(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``min_i x_i`` over the last axis; the weights are ignored (paper's function 1)."""
    return np.min(x, axis=-1)


def weighted_max(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``max_i x_i`` over the last axis; the weights are ignored (paper's function 5)."""
    return np.max(x, axis=-1)


def weighted_arithmetic(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``sum_i w_i x_i / sum_i w_i`` over the last axis (paper's function 4)."""
    w = np.asarray(w, dtype=np.float64)
    return (x @ w) / w.sum()


def _positive_part(x: np.ndarray, w: np.ndarray, floor: float):
    """Values floored, and whether a positively weighted value is 0 in each row."""
    if floor > 0:
        x = np.maximum(x, floor)
    zero = ((x == 0) & (w > 0)).any(axis=-1)
    return x, zero


def weighted_harmonic(x: np.ndarray, w: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """``sum_i w_i / sum_i (w_i / x_i)`` over the last axis (paper's function 2).

    0 when some ``x_i = 0`` has ``w_i > 0``; NaN when some weighted ``x_i < 0``.
    """
    w = np.asarray(w, dtype=np.float64)
    x, zero = _positive_part(np.asarray(x, dtype=np.float64), w, floor)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = np.where(x != 0, 1.0 / np.where(x != 0, x, 1.0), 0.0)
        out = w.sum() / (inv @ w)
        negative = ((x < 0) & (w > 0)).any(axis=-1)
    return np.where(negative, np.nan, np.where(zero, 0.0, out))


def weighted_geometric(x: np.ndarray, w: np.ndarray, floor: float = 0.0) -> np.ndarray:
    """``prod_i x_i ** (w_i / sum w)`` over the last axis (paper's function 3).

    0 when some ``x_i = 0`` has ``w_i > 0``; NaN when some weighted ``x_i < 0``.
    """
    w = np.asarray(w, dtype=np.float64)
    x, zero = _positive_part(np.asarray(x, dtype=np.float64), w, floor)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.where(x > 0, x, 1.0))
        out = np.exp((logs @ w) / w.sum())
        negative = ((x < 0) & (w > 0)).any(axis=-1)
    return np.where(negative, np.nan, np.where(zero, 0.0, out))


_FUNCTIONS = {
    "min": weighted_min, "harmonic": weighted_harmonic, "geometric": weighted_geometric,
    "arithmetic": weighted_arithmetic, "max": weighted_max,
}


def canonical_mean(name, func: str = "gawm", param: str = "mean") -> str:
    """The canonical name (one of :data:`MEAN_FUNCTIONS`) of a mean given by name,
    alias (``hmean``, ``gmean``, ``mean``, ``minimum``, ``maximum``) or paper number
    (1..5); :class:`ParameterError` otherwise."""
    key = str(name).strip().lower()
    if isinstance(name, bool) or key not in _ALIASES:
        raise ParameterError(
            f"{func}: {param} must be one of {', '.join(MEAN_FUNCTIONS)} (or 1..5, or a "
            f"callable f(x, w)), got {name!r}")
    return _ALIASES[key]


def resolve_mean(mean, floor: float = 0.0, func: str = "gawm",
                 param: str = "mean") -> tuple[str, MeanFunction]:
    """``(name, function)`` of a mean given by name or as a callable.

    Named harmonic and geometric means get ``floor`` bound; a callable is returned as
    is, named after its ``__name__``.
    """
    if callable(mean):
        return getattr(mean, "__name__", "custom"), mean
    name = canonical_mean(mean, func, param)
    fn = _FUNCTIONS[name]
    if name in ("harmonic", "geometric") and floor > 0:
        def floored(x, w, _fn=fn, _floor=floor):
            return _fn(x, w, _floor)
        floored.__name__ = fn.__name__
        return name, floored
    return name, fn
