"""A slow TaSC, shaped as the NRG authors' script (code/calculate_tasc.py) computes it:
per-run dictionaries of per-topic nDCG@k, a list of competitor runs per target run, and
per topic ``(1 - max(competitor nDCG on the topic, default 0)) * target nDCG`` — written
here from that description, not copied. One deliberate difference, documented in
irmeta.measures.tasc: competitors are the best runs of the *other* groups (the paper's
Figure 5 caption), where the script keeps the target's own group.

nDCG@k per (run, topic) comes from the slow classic reference (one loop per document).
"""

from __future__ import annotations

from tests.oracles.classic_reference import measures as classic_measures


def ndcg_table(rankings: dict, qrels: dict, k: int | None) -> dict[str, dict[str, float]]:
    """run -> topic -> nDCG@k, for the topics each run retrieved (as the script keeps)."""
    out: dict[str, dict[str, float]] = {}
    for run, by_topic in rankings.items():
        out[run] = {}
        for topic, ranking in by_topic.items():
            if ranking and topic in qrels:
                out[run][topic] = classic_measures(ranking, qrels[topic], 1, k)["nDCG"]
    return out


def competitors(runs: list[str], kind: str, ndcg: dict, topic_set: list[str],
                groups: dict | None = None, listed: list[str] | None = None) -> dict:
    """run -> its prior runs (NRG's prior sets; best_per_group by mean nDCG@k over the
    campaign topic set, a missing topic counting 0, ties to the earlier run)."""
    out = {}
    for i, run in enumerate(runs):
        if kind == "others":
            out[run] = [r for r in runs if r != run]
        elif kind == "earlier":
            out[run] = runs[:i]
        elif kind == "list":
            out[run] = [r for r in listed if r != run]
        else:
            mean = {r: (sum(ndcg[r].get(t, 0.0) for t in topic_set) / len(topic_set)
                        if topic_set else 0.0) for r in runs}
            best: dict[str, str] = {}
            for r in runs:
                if groups[r] not in best or mean[r] > mean[best[groups[r]]]:
                    best[groups[r]] = r
            out[run] = [b for g, b in best.items() if g != groups[run]]
    return out


def tasc(rankings: dict, qrels: dict, k: int | None, kind: str = "others",
         groups: dict | None = None, listed: list[str] | None = None,
         topic_set: list[str] | None = None) -> dict[str, dict[str, float]]:
    """run -> topic -> TaSC@k over every qrels topic (a topic the run did not retrieve
    has nDCG 0, so TaSC 0)."""
    ndcg = ndcg_table(rankings, qrels, k)
    runs = list(rankings)
    priors = competitors(runs, kind, ndcg, topic_set or [], groups, listed)
    out: dict[str, dict[str, float]] = {}
    for run in runs:
        out[run] = {}
        for topic in qrels:
            target = ndcg[run].get(topic, 0.0)
            best = max((ndcg[p].get(topic, 0.0) for p in priors[run]), default=0.0)
            out[run][topic] = (1.0 - best) * target
    return out
