"""Slow, obviously correct reference implementations (plain loops, straight from the
formulas of the paper and spec) to check the vectorised code against."""

from __future__ import annotations

import math


def ref_mean(name: str, x: list[float], w: list[float]) -> float:
    """One weighted mean of a list, from the formulas (zeros: the limit)."""
    W = sum(w)
    if name == "min":
        return min(x)
    if name == "max":
        return max(x)
    if name == "arithmetic":
        return sum(wi * xi for wi, xi in zip(w, x)) / W
    if any(xi == 0 and wi > 0 for wi, xi in zip(w, x)):
        return 0.0
    if name == "geometric":
        logs = 0.0
        for wi, xi in zip(w, x):
            if wi > 0:
                logs += wi * math.log(xi)
        return math.exp(logs / W)
    if name == "harmonic":
        inv = 0.0
        for wi, xi in zip(w, x):
            if wi > 0:
                inv += wi / xi
        return W / inv
    raise ValueError(name)


def _normalise(w: list[float]) -> list[float]:
    total = sum(w)
    if total == 0:
        return [1.0 / len(w)] * len(w)
    return [v / total for v in w]


def ref_gawm(P: list[list[float]], axioms: str, ms: str, mt: str, tol: float, max_iter: int):
    """GAWM by loops: returns (E_s, E_t, W_s, W_t, iterations, converged)."""
    m, n = len(P), len(P[0])
    E_s = [sum(P[i]) / n for i in range(m)]
    E_t = [sum(P[i][j] for i in range(m)) / m for j in range(n)]
    W_s, W_t = [1.0 / m] * m, [1.0 / n] * n
    converged, k = False, 0
    for k in range(1, max_iter + 1):
        # topic discernment (A1 = B1): RMS distance of column j from E_t[j]
        W_t = []
        for j in range(n):
            acc = 0.0
            for i in range(m):
                acc += (P[i][j] - E_t[j]) ** 2
            W_t.append(math.sqrt(acc / m))
        W_s = []
        for i in range(m):
            acc = 0.0
            for j in range(n):
                if axioms == "A":   # conformity: 1 - RMS distance of row i from E_t
                    acc += (P[i][j] - E_t[j]) ** 2
                else:               # discernment: RMS distance of row i from E_s[i]
                    acc += (P[i][j] - E_s[i]) ** 2
            d = math.sqrt(acc / n)
            W_s.append(1.0 - d if axioms == "A" else d)
        W_t, W_s = _normalise(W_t), _normalise(W_s)
        new_s = [ref_mean(ms, P[i], W_t) for i in range(m)]
        new_t = [ref_mean(mt, [P[i][j] for i in range(m)], W_s) for j in range(n)]
        delta = 0.0
        for a, b in zip(new_s + new_t, E_s + E_t):
            delta = max(delta, abs(a - b))
        E_s, E_t = new_s, new_t
        if delta <= tol:
            converged = True
            break
    return E_s, E_t, W_s, W_t, k, converged


def ref_hits_power(P: list[list[float]], iterations: int = 5000):
    """HITS by power iteration on the explicit bipartite graph (adjacency lists), each
    node type normalised separately; returns (a_s, h_s, a_t, h_t), unit length, with
    authority signs made to correlate positively with MAP / AAP."""
    m, n = len(P), len(P[0])
    MAP = [sum(P[i]) / n for i in range(m)]
    AAP = [sum(P[i][j] for i in range(m)) / m for j in range(n)]
    # edges: (source, target, weight); nodes ("s", i) and ("t", j)
    edges = []
    for i in range(m):
        for j in range(n):
            edges.append((("t", j), ("s", i), P[i][j] - AAP[j]))   # topic -> system
            edges.append((("s", i), ("t", j), P[i][j] - MAP[i]))   # system -> topic
    nodes = [("s", i) for i in range(m)] + [("t", j) for j in range(n)]
    hub = {v: 1.0 for v in nodes}
    auth = {v: 1.0 for v in nodes}
    # deterministic non-degenerate start
    for idx, v in enumerate(nodes):
        hub[v] = 1.0 + 0.01 * idx
        auth[v] = 1.0 + 0.013 * idx

    def unit(vec, kind):
        norm = math.sqrt(sum(vec[v] ** 2 for v in nodes if v[0] == kind))
        for v in nodes:
            if v[0] == kind:
                vec[v] /= norm

    for _ in range(iterations):
        new_auth = {v: 0.0 for v in nodes}
        for src, dst, wgt in edges:           # a = A^T h
            new_auth[dst] += wgt * hub[src]
        unit(new_auth, "s")
        unit(new_auth, "t")
        new_hub = {v: 0.0 for v in nodes}
        for src, dst, wgt in edges:           # h = A a
            new_hub[src] += wgt * new_auth[dst]
        unit(new_hub, "s")
        unit(new_hub, "t")
        auth, hub = new_auth, new_hub

    def corr_sign(vec, ref):
        mv, mr = sum(vec) / len(vec), sum(ref) / len(ref)
        return -1.0 if sum((a - mv) * (b - mr) for a, b in zip(vec, ref)) < 0 else 1.0

    a_s = [auth[("s", i)] for i in range(m)]
    a_t = [auth[("t", j)] for j in range(n)]
    h_s = [hub[("s", i)] for i in range(m)]
    h_t = [hub[("t", j)] for j in range(n)]
    ss, st = corr_sign(a_s, MAP), corr_sign(a_t, AAP)
    # hubs follow the authorities through h = A a, so they flip with them
    return ([ss * v for v in a_s], [st * v for v in h_s],
            [st * v for v in a_t], [ss * v for v in h_t])
