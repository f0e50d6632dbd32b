"""Slow, obviously correct implementations of the trec_eval 10 measures irmeta added,
written from their definitions (docs/measures.md), one Python loop per document.

``ranking``: document ids in trec_eval order; ``judged``: {doc: grade} of the topic
(negative grade = in the pool but unjudged); a document absent from ``judged`` is not in
the pool. ``level``: relevance threshold.
"""

from __future__ import annotations

import math


def _gain(grade, gains):
    if grade is None:
        return 0.0
    if gains and grade in gains:
        return float(gains[grade])
    return float(grade) if grade > 0 else 0.0


def _ideal(judged, gains):
    """Positive gains of the judged documents (grade >= 0), sorted decreasingly."""
    return sorted((g for g in (_gain(v, gains) for v in judged.values() if v >= 0) if g > 0),
                  reverse=True)


def _dcg(values):
    out, total = [], 0.0
    for i, g in enumerate(values):
        total += g / math.log2(i + 2)
        out.append(total)
    return out


def measures(ranking, judged, level, *, gains=None, cutoff=5, mult=1.0, levels=None,
             p=0.9, length=10, beta=1.0, coefficients=(1.0, -1.0, 0.0, 0.0), size=0,
             top_gain=1.0):
    grade = [judged.get(d) for d in ranking]
    rel = [g is not None and g >= level for g in grade]
    n, n_rel = len(ranking), sum(1 for g in judged.values() if g >= level)
    found = sum(rel)
    out = {}
    # set measures
    out["SetP"] = found / n if n else 0.0
    out["SetRelP"] = found / min(n, n_rel) if n and n_rel else 0.0
    out["SetR"] = found / n_rel if n_rel else 0.0
    out["SetAP"] = out["SetP"] * out["SetR"]
    P, R = out["SetP"], out["SetR"]
    out["SetF"] = (beta + 1) * P * R / (beta * P + R) if found else 0.0
    a, b, c, d = coefficients
    out["utility"] = (a * found + b * (n - found) + c * (n_rel - found)
                      + d * (size + found - n - n_rel))
    out["num_nonrel_judged_ret"] = sum(1 for g in grade if g is not None and 0 <= g < level)
    # precision variants
    k = cutoff
    out["relative_P"] = sum(rel[:k]) / min(k, n_rel) if n_rel else 0.0
    c_mult = math.floor(mult * n_rel + 0.9)
    out["Rprec_mult"] = sum(rel[:c_mult]) / c_mult if c_mult else 0.0
    levels = levels or [x / 10 for x in range(11)]
    iprec = []
    for x in levels:
        need = max(1, math.floor(x * n_rel + 0.5))
        if found < need:
            iprec.append(0.0)
            continue
        seen, start = 0, None
        for i, r in enumerate(rel):
            seen += r
            if seen == need:
                start = i
                break
        iprec.append(max(sum(rel[:j + 1]) / (j + 1) for j in range(start, n)))
    out["11pt_avg"] = sum(iprec) / len(iprec)
    # unjudged documents
    unjudged = [g is None or g < 0 for g in grade]
    out["unj"] = sum(unjudged[:k]) / k
    if any(unjudged):
        out["rbp_resid"] = p ** n + (1 - p) * sum(p ** i for i, u in enumerate(unjudged) if u)
    else:
        out["rbp_resid"] = 0.0
    chars = []
    for g in grade[:length]:
        chars.append("-" if g is None else "." if g < 0 else ">" if g > 9 else str(g))
    out["relstring"] = "".join(chars)
    inf, r_seen, nr_seen, u_seen = 0.0, 0, 0, 0
    for j, g in enumerate(grade):
        if g is None:
            continue
        if g < 0:
            u_seen += 1
        elif g < level:
            nr_seen += 1
        else:
            r_seen += 1
            if j == 0:
                inf += 1.0
            else:
                eps = 0.00001
                inf += 1 / (j + 1) + (j / (j + 1)) * ((r_seen - 1 + nr_seen + u_seen) / j) * (
                    (r_seen - 1 + eps) / (r_seen - 1 + nr_seen + 2 * eps))
    out["infAP"] = inf / n_rel if n_rel else 0.0
    # gain measures
    ideal = _ideal(judged, gains)
    m = len(ideal)
    g_run = [_gain(g, gains) if g is not None and (g >= 0 or (gains and g in gains)) else 0.0
             for g in grade]
    dcg, idcg = _dcg(g_run), _dcg(ideal)

    def DCG(r):
        return dcg[min(r, n) - 1] if min(r, n) > 0 else 0.0

    def IDCG(r):
        return idcg[min(r, m) - 1] if min(r, m) > 0 else 0.0

    out["dcg"] = DCG(n)
    out["ideal_dcg"] = IDCG(m)
    total = sum(DCG(i + 1) / IDCG(i + 1) for i, g in enumerate(g_run) if g > 0)
    positive = sum(1 for g in g_run if g > 0)
    if m:
        total += (m - positive) * DCG(n) / IDCG(m)
    out["ndcg_rel"] = total / m if m and total > 0 else 0.0
    if n_rel == 0:
        out["Rndcg"] = 0.0
    else:
        ext = ideal + [0.0]
        terms = [DCG(bb - 1) / IDCG(bb - 1) for bb in range(2, m + 2)
                 if ext[bb - 1] != ext[bb - 2]]
        if n > m + 1 and IDCG(m) > 0:
            terms.append(DCG(n) / IDCG(m))
        out["Rndcg"] = sum(terms) / len(terms) if terms else float("nan")
    cost = spent = total = 0.0
    for i, g in enumerate(g_run):
        cost += max(ideal[i] if i < m else 0.0, 1.0)
        spent += g
        if g != 0:
            total += g / math.log2(2 + cost - spent)
    out["G"] = total / sum(ideal) if sum(ideal) > 0 else 0.0
    total, nonrel_above = 0.0, 0
    for r in rel:
        if r:
            total += 1 / math.log2(2 + nonrel_above)
        else:
            nonrel_above += 1
    out["binG"] = total / n_rel if n_rel else 0.0
    # graded RBP (trec_eval rbp): gain over the largest gain of the qrels
    scale = top_gain if top_gain > 1 else 1.0
    out["rbp"] = (1 - p) * sum(max(gv, 0.0) / scale * p ** i for i, gv in enumerate(g_run))
    return out


def yaap(ranking, judged, level):
    """trec_eval 10's yaap from its definition (Robertson 2012): S = sum over the retrieved
    relevant documents of (relevant so far) / rank; log((1 + S) / (1 + N_R - S))."""
    n_rel = sum(1 for g in judged.values() if g >= level)
    so_far, total = 0, 0.0
    for i, d in enumerate(ranking):
        g = judged.get(d)
        if g is not None and g >= level:
            so_far += 1
            total += so_far / (i + 1)
    return math.log((1.0 + total) / (1.0 + n_rel - total))
