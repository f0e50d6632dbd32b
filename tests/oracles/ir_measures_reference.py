"""Slow, obviously correct implementations of the ir_measures-only measures (Judged, ERR,
nERR, SDCG, INST, INSQ, Compat), written from their definitions one document at a time.
Rankings are lists of document ids in trec_eval order; ``judged`` is ``{doc: grade}``."""

from __future__ import annotations

import math

CWL_DEPTH = 1000


def judged_at(ranking: list[str], judged: dict[str, int], k: int | None) -> float:
    top = ranking if k is None else ranking[:k]
    return sum(d in judged for d in top) / len(top) if top else 0.0


def err(ranking, judged, k, max_rel=4) -> float:
    grades = [max(judged.get(d, 0), 0) for d in (ranking if k is None else ranking[:k])]
    return _err_of(grades, max_rel)


def _err_of(grades, max_rel) -> float:
    value, not_stopped = 0.0, 1.0
    for i, g in enumerate(grades, 1):
        r = (2 ** g - 1) / 2 ** max_rel
        value += not_stopped * r / i
        not_stopped *= 1 - r
    return value


def nerr(ranking, judged, k, max_rel=4) -> float:
    ideal = sorted((max(g, 0) for g in judged.values()), reverse=True)
    best = _err_of(ideal if k is None else ideal[:k], max_rel)
    return err(ranking, judged, k, max_rel) / best if best > 0 else 0.0


def _gain(judged, d, min_rel, max_rel) -> float:
    if d not in judged:
        return 0.0
    g = min(max(max(judged[d], 0), min_rel), max_rel)
    return (g - min_rel) / (max_rel - min_rel)


def _cwl(gains, cont) -> float:
    """Expected utility: W_i = prod_{j<i} C_j / sum_m prod_{j<m} C_j over 1000 ranks."""
    views, v = [], 1.0
    for i in range(CWL_DEPTH):
        views.append(v)
        v *= cont[i]
    total = sum(views)
    return sum(views[i] / total * gains[i] for i in range(CWL_DEPTH))


def _gains(ranking, judged, min_rel, max_rel):
    g = [_gain(judged, d, min_rel, max_rel) for d in ranking[:CWL_DEPTH]]
    return g + [0.0] * (CWL_DEPTH - len(g))


def insq(ranking, judged, T=1.0, min_rel=0, max_rel=3) -> float:
    gains = _gains(ranking, judged, min_rel, max_rel)
    cont = [((i + 2 * T - 1) / (i + 2 * T)) ** 2 for i in range(1, CWL_DEPTH + 1)]
    return _cwl(gains, cont)


def inst(ranking, judged, T=1.0, min_rel=0, max_rel=3) -> float:
    gains = _gains(ranking, judged, min_rel, max_rel)
    cont, seen = [], 0.0
    for i in range(1, CWL_DEPTH + 1):
        seen += gains[i - 1]
        t_i = T - seen
        cont.append(((i + T + t_i - 1) / (i + T + t_i)) ** 2)
    return _cwl(gains, cont)


def sdcg(ranking, judged, k, min_rel=0, max_rel=3) -> float:
    k = min(k, CWL_DEPTH)
    gains = _gains(ranking, judged, min_rel, max_rel)
    num = sum(gains[i] / math.log2(i + 2) for i in range(k))
    return num / sum(1 / math.log2(i + 2) for i in range(k))


def compat(ranking, judged, p=0.95, normalize=True) -> float:
    """RBO with the ideal ranking: relevant documents by grade, ties in run order, the
    unretrieved ones last; weights summed to depth max(n, N_R)."""
    position = {d: i for i, d in enumerate(ranking)}
    relevant = [d for d, g in judged.items() if g > 0]
    ideal = sorted(relevant, key=lambda d: (-judged[d], position.get(d, len(ranking)), d))
    depth = max(len(ranking), len(ideal))

    def rbo(a, b):
        score = weight_sum = 0.0
        for i in range(depth):
            overlap = len(set(a[:i + 1]) & set(b[:i + 1]))
            score += p ** i * overlap / (i + 1)
            weight_sum += p ** i
        return score / weight_sum if weight_sum else 0.0

    value = rbo(ranking, ideal)
    if normalize:
        best = rbo(ideal, ideal)
        return value / best if best > 0 else value
    return value
