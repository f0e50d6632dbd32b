"""Slow, obviously-correct context measures: one loop per document, straight from the
formulas of docs/context-measures.md (spec: innovation.md, nrg.md). Inputs are plain
Python: ``rankings[run][topic] -> [docid, ...]`` (in trec_eval order) and
``qrels[topic][docid] -> grade``."""

from __future__ import annotations

import math

import numpy as np


def random_campaign(seed: int, n_runs: int = 5, n_topics: int = 6, max_depth: int = 25):
    """(qrels dict, runs dict) with grades -1..3, unjudged documents, tied scores, short
    and missing rankings, a topic without relevant documents, overlapping rankings."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"run{r}": {} for r in range(n_runs)}
    for t in range(n_topics):
        topic = f"q{t}"
        pool = [f"{topic}-d{i}" for i in range(int(rng.integers(3, 40)))]
        n_judged = int(rng.integers(1, len(pool) + 1))
        choices = [-1, 0] if t == 0 else [-1, 0, 0, 1, 1, 2, 3]
        qrels[topic] = {pool[i]: int(rng.choice(choices)) for i in range(n_judged)}
        for r in range(n_runs):
            if rng.random() < 0.15 and t > 0:
                continue                       # topic missing from this run
            n = int(rng.integers(1, min(len(pool), max_depth) + 1))
            docs = rng.choice(pool[: max(n, int(len(pool) * 0.6))], n, replace=False)
            scores = rng.integers(0, 4, n).astype(float)   # many ties
            runs[f"run{r}"][topic] = {str(d): float(s) for d, s in zip(docs, scores)}
    runs = {k: v for k, v in runs.items() if v}
    return qrels, runs


def rankings_of(campaign) -> dict:
    """rankings[run][topic] from a built campaign (trec_eval order is the core's job)."""
    return {run: {topic: campaign.ranking(r, t) for t, topic in enumerate(campaign.topics)}
            for r, run in enumerate(campaign.runs)}


# ----------------------------------------------------------------- rareness
def rarity_counts(rankings, topic, run, doc, depth, reference=None):
    """(S_d, S): runs of the reference set whose top `depth` holds doc, the run itself
    counted once."""
    if reference is None:
        others = [r for r in rankings if r != run]
        pool = rankings
        S = len(rankings)
    else:
        others = list(reference)
        pool = reference
        S = len(reference) + 1
    s_d = 1
    for other in others:
        if doc in pool[other].get(topic, [])[:depth]:
            s_d += 1
    return s_d, S


def weight(s_d, S, alpha, variant):
    if variant == "normalized":
        r = 1.0 if S == 1 else 1.0 - (s_d - 1) / (S - 1)
        return (1.0 - alpha) + alpha * r
    return 1.0 + alpha * (1.0 - s_d / S)


def p_rare(rankings, qrels, run, topic, k, alpha, variant="standard", depth=None,
           level=1, reference=None):
    depth = depth or k
    total = 0.0
    for doc in rankings[run].get(topic, [])[:k]:
        if qrels[topic].get(doc, -99) >= level:
            s_d, S = rarity_counts(rankings, topic, run, doc, depth, reference)
            total += weight(s_d, S, alpha, variant)
    return total / k


def ap_rare(rankings, qrels, run, topic, k, alpha, variant="standard", depth=None,
            level=1, reference=None):
    depth = depth or k
    n_rel = sum(1 for g in qrels[topic].values() if g >= level)
    if n_rel == 0:
        return 0.0
    ranking = rankings[run].get(topic, [])[:k]
    total, cum = 0.0, 0.0
    for i, doc in enumerate(ranking, start=1):
        if qrels[topic].get(doc, -99) >= level:
            s_d, S = rarity_counts(rankings, topic, run, doc, depth, reference)
            cum += weight(s_d, S, alpha, variant)
            total += cum / i
    return total / n_rel


# ----------------------------------------------------------------- NRG
def seen(base, i, p):
    """seen(i) for 1-based rank i."""
    if base in ("nDCG", "DCG"):
        return 1.0 / math.log2(i + 1)
    if base == "RBP":
        return p ** (i - 1)
    return 1.0


def gain(base, grade, gain_kind, level, top_grade=None):
    """G(d); ``gain_kind`` None is the base's default (grade for nDCG/DCG, else binary)."""
    if grade is None:
        return 0.0
    if gain_kind is None:
        gain_kind = "grade" if base in ("nDCG", "DCG") else "binary"
    if gain_kind == "binary":
        return 1.0 if grade >= level else 0.0
    if gain_kind == "exp":
        return 2.0 ** grade - 1.0 if grade > 0 else 0.0
    if gain_kind == "scaled":
        return max(grade, 0) / top_grade if top_grade else 0.0
    return float(grade) if grade > 0 else 0.0


def residual(base, doc, priors, rankings, topic, k, p):
    prod = 1.0
    for prior in priors:
        ranking = rankings[prior].get(topic, [])
        top = ranking if k is None else ranking[:k]
        if doc in top:
            prod *= 1.0 - seen(base, top.index(doc) + 1, p)
    return prod


def nrg_topic(rankings, qrels, run, topic, priors, base="nDCG", k=None, gain_kind=None,
              level=1, p=0.8):
    top_grade = max(max(g.values()) for g in qrels.values())
    ranking = rankings[run].get(topic, [])
    kk = len(ranking) if k is None else k
    top = ranking[:kk]
    raw = 0.0
    for i, doc in enumerate(top, start=1):
        g = gain(base, qrels[topic].get(doc), gain_kind, level, top_grade)
        raw += g * residual(base, doc, priors, rankings, topic, k, p) * seen(base, i, p)
    if base == "nDCG":
        ideal = sorted((gain(base, g, gain_kind, level, top_grade) *
                        residual(base, d, priors, rankings, topic, k, p)
                        for d, g in qrels[topic].items()), reverse=True)
        if k is not None:
            ideal = ideal[:k]
        norm = sum(g / math.log2(i + 1) for i, g in enumerate(ideal, start=1))
        return raw / norm if norm > 0 else 0.0
    if base == "P":
        return raw / kk if kk > 0 else 0.0
    if base == "RBP":
        return raw * (1.0 - p)
    return raw


def prior_sets(runs, kind, groups=None, listed=None, means=None):
    """run -> list of its prior runs."""
    runs = list(runs)
    out = {}
    for i, run in enumerate(runs):
        if kind == "others":
            out[run] = [r for r in runs if r != run]
        elif kind == "earlier":
            out[run] = runs[:i]
        elif kind == "list":
            out[run] = [r for r in listed if r != run]
        else:
            best = {}
            for r in runs:            # first in campaign order wins ties
                g = groups[r]
                if g not in best or means[r] > means[best[g]]:
                    best[g] = r
            out[run] = [b for g, b in best.items() if g != groups[run]]
    return out


def nrg_all(rankings, qrels, topics, kind="others", base="nDCG", k=None, gain_kind=None,
            level=1, p=0.8, groups=None, listed=None, topic_set=None):
    """{run: [value per topic]} for every run."""
    runs = list(rankings)
    means = None
    if kind == "best_per_group":
        base_vals = {r: [nrg_topic(rankings, qrels, r, t, [], base, k, gain_kind, level, p)
                         for t in topics] for r in runs}
        keep = [i for i, t in enumerate(topics) if t in topic_set]
        means = {r: (sum(base_vals[r][i] for i in keep) / len(keep) if keep else 0.0)
                 for r in runs}
    priors = prior_sets(runs, kind, groups, listed, means)
    return {r: [nrg_topic(rankings, qrels, r, t, priors[r], base, k, gain_kind, level, p)
                for t in topics] for r in runs}
