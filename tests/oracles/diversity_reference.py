"""A slow, obviously correct transcription of ndeval's diversity measures, written from
their definitions (docs/diversity.md) one document and one subtopic at a time.

``judgments`` is ``{doc: {subtopic: grade}}`` for one topic; ``ranking`` a list of ids in
trec_eval order. Cutoffs apply normalisation at every k (including k = 1, where ndeval
leaves ERR-IA and alpha-DCG unnormalised)."""

from __future__ import annotations

import math


def _relevant(judgments, level):
    return {d: {s for s, g in subs.items() if g >= level} for d, subs in judgments.items()}


def _gains(ranking, rel, alpha):
    seen: dict = {}
    out = []
    for d in ranking:
        g = 0.0
        for s in sorted(rel.get(d, ())):
            g += (1 - alpha) ** seen.get(s, 0)
            seen[s] = seen.get(s, 0) + 1
        out.append(g)
    return out


def ideal_ranking(judgments, level, alpha):
    """ndeval's greedy ideal: largest novelty gain next, ties by the largest document id
    (compared as UTF-8 bytes)."""
    rel = _relevant(judgments, level)
    left = [d for d in rel if rel[d]]
    seen: dict = {}
    out = []
    while left:
        def gain(d):
            return sum((1 - alpha) ** seen.get(s, 0) for s in rel[d])
        best = max(left, key=lambda d: (gain(d), d.encode()))
        out.append(best)
        left.remove(best)
        for s in rel[best]:
            seen[s] = seen.get(s, 0) + 1
    return out


def measures(ranking, judgments, level=1, alpha=0.5, beta=0.5, k=None, err_alpha=0.5):
    """``err_alpha``: the alpha of ERR-IA / nERR-IA (ndeval's -alpha; 0.5 by default)."""
    rel = _relevant(judgments, level)
    subtopics = {s for subs in rel.values() for s in subs}
    S = len(subtopics)
    out = {}
    kk = len(ranking) if k is None else k
    top = ranking[:kk]
    gains = _gains(top, rel, alpha)
    ideal = ideal_ranking(judgments, level, alpha)
    ideal_gains = _gains(ideal, rel, alpha)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    cut = len(ideal_gains) if k is None else k   # no cutoff: the whole ideal ranking
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains[:cut]))
    ii = S * sum((1 - alpha) ** i / math.log2(i + 2) for i in range(kk))
    out["alpha_DCG"] = dcg / ii if S and dcg else 0.0
    out["alpha_nDCG"] = dcg / best if S and dcg else 0.0
    g_err = _gains(top, rel, err_alpha)
    e = sum(g / (i + 1) for i, g in enumerate(g_err))
    ideal_err = _gains(ideal_ranking(judgments, level, err_alpha), rel, err_alpha)
    e_best = sum(g / (i + 1) for i, g in enumerate(ideal_err[:len(ideal_err) if k is None else k]))
    e_ii = S * sum((1 - err_alpha) ** i / (i + 1) for i in range(kk))
    out["ERR_IA"] = e / e_ii if S and e else 0.0
    out["nERR_IA"] = e / e_best if S and e else 0.0
    pairs = sum(len(rel.get(d, ())) for d in top)
    out["P_IA"] = pairs / (kk * S) if S and kk else 0.0
    covered = {s for d in top for s in rel.get(d, ())}
    out["StRecall"] = len(covered) / S if S else 0.0
    # whole-ranking measures
    all_gains = _gains(ranking, rel, alpha)
    scale = (1 - (1 - alpha) * beta) / S if S else 0.0
    nrbp = scale * sum(beta ** i * g for i, g in enumerate(all_gains))
    nrbp_best = scale * sum(beta ** i * g for i, g in enumerate(ideal_gains))
    out["NRBP"] = nrbp
    out["nNRBP"] = (nrbp / nrbp_best if nrbp else 0.0) if S else float("nan")
    total = 0.0
    for s in subtopics:
        n_s = sum(1 for d in rel if s in rel[d])
        found, acc = 0, 0.0
        for i, d in enumerate(ranking):
            if s in rel.get(d, ()):
                found += 1
                acc += found / (i + 1)
        total += acc / n_s
    out["AP_IA"] = total / S if S else 0.0
    return out
