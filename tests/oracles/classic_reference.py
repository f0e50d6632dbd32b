"""Slow, obviously correct implementations of the classic measures, written from the
definitions (one Python loop per document), used to check the vectorised kernels."""

from __future__ import annotations

import math


def trec_order(run_topic: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then docid descending."""
    by_doc = sorted(run_topic.items(), key=lambda kv: kv[0], reverse=True)
    return [d for d, _ in sorted(by_doc, key=lambda kv: -kv[1])]


def measures(ranking: list[str], judged: dict[str, int], level: int, cutoff: int | None,
             gains: dict[int, float] | None = None, p: float = 0.8) -> dict[str, float]:
    rel = [1 if judged.get(d, -10**6) >= level else 0 for d in ranking]
    n_rel = sum(1 for g in judged.values() if g >= level)
    n_nonrel = sum(1 for g in judged.values() if 0 <= g < level)
    k = len(ranking) if cutoff is None else cutoff
    out = {}
    hits = sum(rel[:k])
    out["P"] = hits / k if k else 0.0
    out["R"] = hits / n_rel if n_rel else 0.0
    total, found = 0.0, 0
    for i, r in enumerate(rel[:k]):
        if r:
            found += 1
            total += found / (i + 1)
    out["AP"] = total / n_rel if n_rel else 0.0
    out["RR"] = 0.0
    for i, r in enumerate(rel[:k]):
        if r:
            out["RR"] = 1.0 / (i + 1)
            break
    out["Success"] = 1.0 if hits else 0.0
    top = rel[:n_rel] if n_rel else []
    out["Rprec"] = sum(top) / n_rel if n_rel else 0.0
    # bpref (trec_eval): judged non-relevant above each retrieved relevant document
    nonrel_above, total = 0, 0.0
    for d in ranking:
        g = judged.get(d)
        if g is None or g < 0:
            continue
        if g < level:
            nonrel_above += 1
        else:
            total += 1.0 - min(nonrel_above, n_rel) / min(n_nonrel, n_rel) if nonrel_above else 1.0
    out["bpref"] = total / n_rel if n_rel else 0.0

    def gain(g):
        if gains and g in gains:
            return gains[g]
        return float(g) if g > 0 else 0.0

    dcg = 0.0
    for i, d in enumerate(ranking[:k]):
        g = judged.get(d)
        if g is not None and g >= 0:
            dcg += gain(g) / math.log2(i + 2)
        elif g is not None and gains and g in gains:
            dcg += gains[g] / math.log2(i + 2)
    ideal = sorted((gain(g) for g in judged.values() if g >= 0 and gain(g) > 0), reverse=True)
    idcg = sum(v / math.log2(i + 2) for i, v in enumerate(ideal[:k] if cutoff else ideal))
    out["nDCG"] = dcg / idcg if idcg > 0 else 0.0
    out["RBP"] = sum((1 - p) * p ** i * r for i, r in enumerate(rel[:k]))
    out["num_ret"] = float(len(ranking))
    out["num_rel_ret"] = float(hits)
    out["num_rel"] = float(n_rel)
    return out
