"""GAWM: Generalized Adaptive-Weight Mean over a systems x topics score matrix.

Paper: "a unified model for system evaluation" with Generalized Adaptive-Weight Means
(``papers/gawm-adaptive-weight-mean.txt``, sections 3 and 4); spec ``spec/gawm.md``.
Notation: ``P`` is the ``m x n`` matrix of per-topic scores (rows = systems ``s_i``,
columns = topics ``t_j``).

* system effectiveness ``E_s[i] = M_s(P[i, :], W_t)``   (paper eq. 1)
* topic ease            ``E_t[j] = M_t(P[:, j], W_s)``   (paper eq. 2)
* topic weights ``W_t`` and system weights ``W_s`` are functions of ``P`` and of the
  current ``E_s``, ``E_t`` (the *axioms*), so the definition is circular and is solved
  by fixed-point iteration.

Axioms (``d`` = root-mean-square distance, see below):

* **A** (A1 + A2, topic discernment and system conformity, eqs. 3, 4, 7, 8)::

      W_t[j] = d(P[:, j], E_t[j]) = sqrt( (1/m) sum_i (P[i,j] - E_t[j])^2 )
      W_s[i] = 1 - d(P[i, :], E_t) = 1 - sqrt( (1/n) sum_j (P[i,j] - E_t[j])^2 )

* **B** (B1 + B2, topic discernment and system discernment, eqs. 3, 5, 9)::

      W_t[j] as in A
      W_s[i] = d(P[i, :], E_s[i]) = sqrt( (1/n) sum_j (P[i,j] - E_s[i])^2 )

Decisions the paper leaves open (``docs/gawm.md`` gives the reasons):

* ``d`` is the RMS distance (Euclidean / sqrt(length)), not the paper's plain Euclidean
  distance, so that ``1 - d`` of A2 stays in [0, 1] for scores in [0, 1]. For A1, B1 and
  B2 this changes nothing (the weights are normalised, a constant factor cancels).
* Weights are normalised to sum to 1 after every update; an all-zero vector (e.g. every
  system scores the same on every topic) becomes uniform. A dispersion below
  ``1e-12 * |E|`` is round-off (the mean of identical scores can differ from them in the
  last bit) and counts as 0 — without this, identical rows would not give MAP. Negative or
  non-finite weights are an error.
* Initialisation: uniform weights, ``E_s`` = MAP (row means), ``E_t`` = AAP (column
  means).
* Update order (the paper's pseudo-code, lines 5-8): in iteration k both weight vectors
  are computed from the E vectors of iteration k-1, then ``E_s`` and ``E_t`` from them.
* Stopping: when ``max(|E_s^k - E_s^(k-1)|, |E_t^k - E_t^(k-1)|) <= tol`` (converged) or
  after ``max_iter`` iterations (not converged: reported in the result *and* by a
  :class:`~irmeta.errors.ConvergenceWarning`). The returned weights are those that
  produced the returned E vectors, so ``E_s == M_s(P, W_t)`` holds exactly.
* Zeros in the harmonic and geometric means: see :mod:`irmeta.aggregate.means`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from irmeta.aggregate._matrix import as_matrix
from irmeta.aggregate.means import resolve_mean
from irmeta.constraints import NONNEGATIVE, Integer, validated
from irmeta.errors import ConvergenceWarning, ParameterError
from irmeta.errors import warn as irmeta_warn

WeightFunction = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]

AXIOMS = ("A", "B")
DEFAULT_TOL = 1e-9
DEFAULT_MAX_ITER = 1000


# --------------------------------------------------------------------------- weights
#: a dispersion below ROUNDOFF x |reference| is floating-point noise (e.g. the mean of
#: identical scores differing from them in the last bit) and counts as exactly 0
ROUNDOFF = 1e-12


def _dispersion(sq_mean: np.ndarray, ref: np.ndarray) -> np.ndarray:
    d = np.sqrt(sq_mean)
    return np.where(d > ROUNDOFF * np.abs(ref), d, 0.0)


def topic_discernment(P: np.ndarray, E_s: np.ndarray, E_t: np.ndarray) -> np.ndarray:
    """Axioms A1 = B1: ``W_t[j] = sqrt(mean_i (P[i,j] - E_t[j])^2)``, the RMS dispersion
    of the systems' scores on topic j around its ease (un-normalised)."""
    return _dispersion(np.mean((P - E_t[None, :]) ** 2, axis=0), E_t)


def system_conformity(P: np.ndarray, E_s: np.ndarray, E_t: np.ndarray) -> np.ndarray:
    """Axiom A2: ``W_s[i] = 1 - sqrt(mean_j (P[i,j] - E_t[j])^2)``, the closeness of
    system i to the topic-ease vector (in [0, 1] for scores in [0, 1])."""
    return 1.0 - np.sqrt(np.mean((P - E_t[None, :]) ** 2, axis=1))


def system_discernment(P: np.ndarray, E_s: np.ndarray, E_t: np.ndarray) -> np.ndarray:
    """Axiom B2: ``W_s[i] = sqrt(mean_j (P[i,j] - E_s[i])^2)``, the RMS dispersion of
    system i's scores around its effectiveness."""
    return _dispersion(np.mean((P - E_s[:, None]) ** 2, axis=1), E_s)


_AXIOM_WEIGHTS = {"A": (system_conformity, topic_discernment),
                  "B": (system_discernment, topic_discernment)}


def normalise_weights(w, size: int, what: str = "weights") -> np.ndarray:
    """``w / sum(w)``; a vector of zeros becomes uniform ``1/size``.

    :class:`ParameterError` when ``w`` has the wrong length, or holds a negative or
    non-finite value (``what`` names the weight function in the message).
    """
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (size,):
        raise ParameterError(f"gawm: {what} returned shape {w.shape}, expected ({size},)")
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        bad = w[~np.isfinite(w) | (w < 0)][0]
        raise ParameterError(f"gawm: {what} returned a negative or non-finite weight ({bad}); "
                             f"weights must be finite and >= 0")
    total = w.sum()
    if total <= 0:
        return np.full(size, 1.0 / size)
    return w / total


# --------------------------------------------------------------------------- result
@dataclass(frozen=True)
class GAWMResult:
    """Outcome of :func:`gawm`.

    ``E_s`` (system effectiveness) and ``W_s`` (system weights) are Series indexed by
    the systems; ``E_t`` (topic ease) and ``W_t`` (topic weights) by the topics. Weights
    sum to 1. ``iterations`` is the number of updates performed; ``converged`` says
    whether the last change ``delta`` was at most ``tol`` (if not, the E vectors are
    the last iterate, not a fixed point).
    """

    E_s: pd.Series
    E_t: pd.Series
    W_s: pd.Series
    W_t: pd.Series
    iterations: int
    converged: bool
    delta: float
    axioms: str
    ms: str
    mt: str
    tol: float
    max_iter: int

    @property
    def label(self) -> str:
        """``gawm(axioms=A,ms=arithmetic,mt=arithmetic)`` — the aggregator string."""
        return f"gawm(axioms={self.axioms},ms={self.ms},mt={self.mt})"

    def systems(self) -> pd.DataFrame:
        """Per system: ``E_s``, ``W_s`` and ``rank``
        by ``E_s`` (1 = best, ties share the lowest rank), sorted by rank."""
        frame = pd.DataFrame({"E_s": self.E_s, "W_s": self.W_s})
        frame["rank"] = frame["E_s"].rank(ascending=False, method="min").astype(int)
        return frame.sort_values(["rank"], kind="stable")

    def topics(self) -> pd.DataFrame:
        """Per topic: ``E_t`` (ease) and ``W_t`` (discernment weight), easiest first."""
        frame = pd.DataFrame({"E_t": self.E_t, "W_t": self.W_t})
        return frame.sort_values("E_t", ascending=False, kind="stable")


# --------------------------------------------------------------------------- iteration
@validated(tol=NONNEGATIVE, max_iter=Integer(low=1), floor=NONNEGATIVE)
def gawm(matrix, axioms: str = "A", ms="arithmetic", mt="arithmetic", *,
         system_weight: WeightFunction | None = None,
         topic_weight: WeightFunction | None = None,
         tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER,
         floor: float = 0.0, warn: bool = True) -> GAWMResult:
    """Generalized Adaptive-Weight Mean of a systems x topics matrix.

    Iterates, from ``E_s = MAP``, ``E_t = AAP``::

        W_s = normalise(system_weight(P, E_s, E_t))      # axiom A2 or B2
        W_t = normalise(topic_weight(P, E_s, E_t))       # axiom A1 = B1
        E_s[i] = M_s(P[i, :], W_t);  E_t[j] = M_t(P[:, j], W_s)

    until the largest change of ``E_s`` and ``E_t`` is ``<= tol`` or ``max_iter``
    iterations (see the module docstring for the formulas and every decision).

    Parameters
    ----------
    matrix : DataFrame (rows = systems, columns = topics) or 2-D array; complete (no NaN).
    axioms : ``"A"`` (topic discernment + system conformity) or ``"B"`` (topic
        discernment + system discernment). Axiom A needs scores in [0, 1].
    ms, mt : mean function for ``E_s`` (over topics) and ``E_t`` (over systems): ``min``,
        ``harmonic``, ``geometric``, ``arithmetic``, ``max`` (aliases ``hmean``, ``gmean``,
        ``mean``; or the paper's numbers 1..5), or a callable ``f(x[..., N], w[N]) -> [...]``
        reducing the last axis. Harmonic and geometric need scores >= 0.
    system_weight, topic_weight : optional callables ``f(P, E_s, E_t) -> weights``
        replacing the axiom's weight function on that side (un-normalised, >= 0).
    tol, max_iter : stopping rule.
    floor : raise values below ``floor`` to it inside the harmonic and geometric means
        (0 = exact; 1e-5 = GMAP's convention).
    warn : emit :class:`~irmeta.errors.ConvergenceWarning` when not converged
        (the result reports it either way).

    Returns
    -------
    GAWMResult with ``E_s, E_t, W_s, W_t`` (pandas Series), ``iterations``, ``converged``.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> result = gawm(toy_scores())
    >>> result.converged
    True
    >>> result.E_s.round(4).tolist()
    [0.5791, 0.3977, 0.2171]
    """
    func = "gawm"
    P, runs, topics = as_matrix(matrix, func)
    axiom = str(axioms).strip().upper()
    if axiom not in AXIOMS:
        raise ParameterError(f"{func}: axioms must be 'A' or 'B', got {axioms!r}")
    ms_name, ms_fn = resolve_mean(ms, floor, func, "ms")
    mt_name, mt_fn = resolve_mean(mt, floor, func, "mt")
    for name, side in ((ms_name, "ms"), (mt_name, "mt")):
        if name in ("harmonic", "geometric") and (P < 0).any():
            raise ParameterError(f"{func}: {side}={name} needs scores >= 0, the matrix has "
                                 f"a minimum of {P.min()}")
    ws_default, wt_default = _AXIOM_WEIGHTS[axiom]
    for fn, name in ((system_weight, "system_weight"), (topic_weight, "topic_weight")):
        if fn is not None and not callable(fn):
            raise ParameterError(f"{func}: {name} must be a callable f(P, E_s, E_t), got {fn!r}")
    if system_weight is None and axiom == "A" and (P.min() < 0 or P.max() > 1):
        raise ParameterError(f"{func}: axiom A (system conformity 1 - d) needs scores in "
                             f"[0, 1], the matrix spans [{P.min()}, {P.max()}]; use axioms='B' "
                             f"or rescale the matrix")
    ws_fn = system_weight or ws_default
    wt_fn = topic_weight or wt_default
    ws_what = "system_weight" if system_weight else f"axiom {axiom}2 system weight"
    wt_what = "topic_weight" if topic_weight else f"axiom {axiom}1 topic weight"

    m, n = P.shape
    PT = np.ascontiguousarray(P.T)
    E_s, E_t = P.mean(axis=1), P.mean(axis=0)
    W_s, W_t = np.full(m, 1.0 / m), np.full(n, 1.0 / n)
    converged, delta, k = False, np.inf, 0
    for k in range(1, max_iter + 1):
        W_s = normalise_weights(ws_fn(P, E_s, E_t), m, ws_what)
        W_t = normalise_weights(wt_fn(P, E_s, E_t), n, wt_what)
        new_s = np.asarray(ms_fn(P, W_t), dtype=np.float64)
        new_t = np.asarray(mt_fn(PT, W_s), dtype=np.float64)
        if new_s.shape != (m,) or new_t.shape != (n,) or not (
                np.isfinite(new_s).all() and np.isfinite(new_t).all()):
            raise ParameterError(f"{func}: mean function ms={ms_name} or mt={mt_name} returned "
                                 f"a wrong shape or a non-finite value at iteration {k}")
        delta = max(float(np.max(np.abs(new_s - E_s))), float(np.max(np.abs(new_t - E_t))))
        E_s, E_t = new_s, new_t
        if delta <= tol:
            converged = True
            break
    result = GAWMResult(
        E_s=pd.Series(E_s, index=runs, name="E_s"), E_t=pd.Series(E_t, index=topics, name="E_t"),
        W_s=pd.Series(W_s, index=runs, name="W_s"), W_t=pd.Series(W_t, index=topics, name="W_t"),
        iterations=k, converged=converged, delta=delta, axioms=axiom, ms=ms_name, mt=mt_name,
        tol=tol, max_iter=max_iter)
    if not converged and warn:
        irmeta_warn(f"{result.label}: did not converge in {max_iter} iterations (last change "
                    f"{delta:.3g} > tol {tol:g}); the result holds the last iterate",
                    ConvergenceWarning)
    return result
