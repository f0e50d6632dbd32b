"""Slow, obviously-correct Twist: plain loops over ranks, straight from Definitions 1-6
of the paper and the crossing rules of docs/twist.md."""

from __future__ import annotations

import math

NR = "nr"


def degree(grade, level: int = 1):
    """Degree of a document: its grade if relevant, else the non-relevant degree."""
    return grade if grade is not None and grade >= level else NR


def ideal_run(qrels_grades, n: int, level: int = 1) -> list:
    relevant = sorted((g for g in qrels_grades if g >= level), reverse=True)
    return relevant + [NR] * (n - len(relevant))


def intervals(ideal: list, rb: int, n: int) -> tuple[dict, dict]:
    lo, hi = {}, {}
    for pos, d in enumerate(ideal, start=1):
        if d not in lo:
            lo[d] = pos
        hi[d] = pos
    lo[NR], hi[NR] = rb + 1, n
    return lo, hi


def rp_vector(run: list, lo: dict, hi: dict) -> list[int]:
    out = []
    for j, d in enumerate(run, start=1):
        if j < lo[d]:
            out.append(j - lo[d])
        elif j > hi[d]:
            out.append(j - hi[d])
        else:
            out.append(0)
    return out


def crp_vector(rp: list[int]) -> list[int]:
    out, total = [], 0
    for value in rp:
        total += value
        out.append(total)
    return out


def first_crossing(crp: list[int], rule: str) -> float:
    for j in range(1, len(crp)):
        a, b = crp[j - 1], crp[j]
        if rule == "formal":
            hit = (a <= 0 and b >= 0) or (a >= 0 and b <= 0)
        else:
            hit = (a <= 0 < b) or (b <= 0 < a)
        if hit:
            return j
    return math.inf


def twist(ranking_grades, qrels_grades, n: int, rule: str = "matters", level: int = 1) -> dict:
    """Every quantity of Twist for one ranking (grades of the ranked documents, None =
    not in the qrels) against one topic's qrels grades, at depth n."""
    rb = sum(1 for g in qrels_grades if g >= level)
    if rb == 0 or rb > n:
        return {"twist": math.nan, "rho": math.nan, "sigma": math.nan, "rb": rb}
    ideal = ideal_run(qrels_grades, n, level)
    lo, hi = intervals(ideal, rb, n)
    run = [degree(g, level) for g in list(ranking_grades)[:n]]
    run += [NR] * (n - len(run))
    rp = rp_vector(run, lo, hi)
    crp = crp_vector(rp)
    fs = list(reversed(ideal))
    rp_fs = rp_vector(fs, lo, hi)
    crp_fs = crp_vector(rp_fs)
    x = first_crossing(crp, rule)
    if x == math.inf:
        rho = 1.0 if (rule == "matters" and all(v == 0 for v in crp)) else 0.0
    else:
        rho = rb / max(rb, x)
    s_plus = sum(v for v in rp if v > 0)
    s_minus = sum(-v for v in rp if v < 0)
    s_plus_fs = sum(v for v in rp_fs if v > 0)
    s_minus_fs = sum(-v for v in rp_fs if v < 0)
    sp = 1.0 if s_plus_fs == 0 else min(1.0, max(0.0, 1 - s_plus / s_plus_fs))
    sm = 1.0 if s_minus_fs == 0 else min(1.0, max(0.0, 1 - s_minus / s_minus_fs))
    sigma = 0.0 if sp + sm == 0 else 2 * sp * sm / (sp + sm)
    if all(v == 0 for v in crp):
        archetype = "ideal"
    elif all(d == NR for d in run):
        archetype = "worst"
    elif run == fs:
        archetype = "full_scale"
    elif x <= rb:
        archetype = "excellent"
    elif x < math.inf:
        archetype = "typical_A"
    else:
        archetype = "typical_B"
    return {"twist": (rho + sigma) / 2, "rho": rho, "sigma": sigma, "sigma_plus": sp,
            "sigma_minus": sm, "s_plus": s_plus, "s_minus": s_minus, "rp": rp, "crp": crp,
            "rp_fs": rp_fs, "crp_fs": crp_fs, "crossing": x, "rb": rb, "lo": lo, "hi": hi,
            "archetype": archetype}
