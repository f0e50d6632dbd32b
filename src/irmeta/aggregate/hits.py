"""HITS on the systems-topics graph (Mizzaro & Robertson), the special case GAWM is
compared with (paper section 4.2, spec ``gawm.md``).

Construction. ``P`` is the ``m x n`` score matrix, ``MAP[i]`` its row means and
``AAP[j]`` its column means. The bipartite graph has a node per system and per topic:

* edge topic ``t_j`` -> system ``s_i`` with weight ``Y[i, j] = P[i, j] - AAP[j]``: how much
  better than the average system ``s_i`` did on ``t_j`` (column-centred matrix);
* edge system ``s_i`` -> topic ``t_j`` with weight ``X[i, j] = P[i, j] - MAP[i]``: how much
  easier ``t_j`` was for ``s_i`` than its other topics (row-centred matrix).

With the adjacency ``A = [[0, X], [Y^T, 0]]`` (systems first), HITS solves
``a = A^T h``, ``h = A a``, i.e. per node type::

    a_s = Y h_t,   h_t = Y^T a_s   ->  a_s = leading left singular vector of Y
    a_t = X^T h_s, h_s = X a_t     ->  a_t = leading right singular vector of X

(``A^T A`` is block diagonal, so the power iteration on the whole graph is two
independent power iterations; each block is normalised separately — with one joint
normalisation the block with the smaller singular value would vanish.) We compute
them directly with an SVD (exact; no convergence issue) and:

* normalise each of the four vectors to unit Euclidean length;
* fix the sign of each authority so that it correlates positively with MAP (systems)
  and AAP (topics) — singular vectors have arbitrary sign; hubs follow from the HITS
  equations ``h_t = Y^T a_s / ||.||``, ``h_s = X a_t / ||.||``.

With this orientation system authority measures effectiveness: Pearson(MAP, A(s)) is
about 0.99 on real matrices (the paper's Table 2). The reversed orientation (system
authority from the row-centred X) gives about 0.55 — tests check this.

Undefined cases: when ``Y`` (resp. ``X``) is all zero — every system scores the same on
each topic (resp. every topic the same for each system) — that side's authorities and
hubs are NaN. When the two leading singular values are equal the vectors are not
unique (SVD picks one).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.aggregate._matrix import as_matrix


@dataclass(frozen=True)
class HITSResult:
    """Authorities and hubs of systems and topics (unit-length Series), and the leading
    singular values ``sigma_s`` (of the column-centred matrix, systems' side) and
    ``sigma_t`` (of the row-centred matrix, topics' side)."""

    authority_s: pd.Series
    hub_s: pd.Series
    authority_t: pd.Series
    hub_t: pd.Series
    sigma_s: float
    sigma_t: float


def _pearson_sign(v: np.ndarray, ref: np.ndarray) -> float:
    """+1 or -1: the sign making ``v`` correlate non-negatively with ``ref`` (ties:
    the sign making ``sum(v) >= 0``)."""
    c = float(np.dot(v - v.mean(), ref - ref.mean()))
    if abs(c) <= 1e-12 * (np.linalg.norm(v) * np.linalg.norm(ref - ref.mean()) + 1e-300):
        c = float(v.sum())
    return -1.0 if c < 0 else 1.0


def _leading(M: np.ndarray):
    """Leading singular triplet ``(u, sigma, v)`` of ``M``; NaN vectors if M == 0."""
    if not np.any(M):
        return np.full(M.shape[0], np.nan), 0.0, np.full(M.shape[1], np.nan)
    U, S, Vt = np.linalg.svd(M, full_matrices=False)
    return U[:, 0], float(S[0]), Vt[0]


def _unit(v: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(v)
    return v / norm if norm > 0 else np.full_like(v, np.nan)


def hits(matrix) -> HITSResult:
    """HITS hubs and authorities of the systems and topics of a score matrix.

    ``A(s) = a_s`` = leading left singular vector of ``Y = P - AAP`` (column-centred),
    ``A(t) = a_t`` = leading right singular vector of ``X = P - MAP`` (row-centred),
    ``H(t) = Y^T a_s``, ``H(s) = X a_t``, each scaled to unit length, authority signs
    fixed by Pearson(MAP, A(s)) >= 0 and Pearson(AAP, A(t)) >= 0. See the module
    docstring for the graph and why these are the HITS fixed points.

    ``matrix``: DataFrame (rows = systems, columns = topics) or 2-D array; complete.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> hits(toy_scores()).authority_s.round(4).abs().tolist()
    [0.7071, 0.0, 0.7071]
    """
    P, runs, topics = as_matrix(matrix, "hits")
    MAP, AAP = P.mean(axis=1), P.mean(axis=0)
    Y = P - AAP[None, :]          # topic -> system edges
    X = P - MAP[:, None]          # system -> topic edges
    a_s, sigma_s, _ = _leading(Y)
    _, sigma_t, a_t = _leading(X)
    if np.isfinite(a_s).all():
        a_s = a_s * _pearson_sign(a_s, MAP)
        h_t = _unit(Y.T @ a_s)
    else:
        h_t = np.full(P.shape[1], np.nan)
    if np.isfinite(a_t).all():
        a_t = a_t * _pearson_sign(a_t, AAP)
        h_s = _unit(X @ a_t)
    else:
        h_s = np.full(P.shape[0], np.nan)
    return HITSResult(
        authority_s=pd.Series(a_s, index=runs, name="A(s)"),
        hub_s=pd.Series(h_s, index=runs, name="H(s)"),
        authority_t=pd.Series(a_t, index=topics, name="A(t)"),
        hub_t=pd.Series(h_t, index=topics, name="H(t)"),
        sigma_s=sigma_s, sigma_t=sigma_t)
