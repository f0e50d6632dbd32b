"""The paper's worked example (degrees nr < pr < fr < hr, RB = 7, N = 15) as a campaign."""

from __future__ import annotations

LEVEL = {"nr": 0, "pr": 1, "fr": 2, "hr": 3}

VECTORS = {
    "ideal": "hr hr fr fr pr pr pr nr nr nr nr nr nr nr nr",
    "worst": "nr nr nr nr nr nr nr nr nr nr nr nr nr nr nr",
    "fs": "nr nr nr nr nr nr nr nr pr pr pr fr fr hr hr",
    "a": "hr hr fr nr pr fr nr nr nr pr nr nr nr nr nr",
    "b": "hr nr pr nr fr nr nr nr fr pr nr nr hr pr nr",
}


def grades_of(name: str) -> list[int]:
    return [LEVEL[x] for x in VECTORS[name].split()]


def qrels_and_runs(vectors=VECTORS):
    """qrels {topic: {doc: grade}} and runs {name: {topic: {doc: score}}} realising
    the relevance vectors: the 7 relevant documents and 20 judged non-relevant ones."""
    docs = {3: ["h1", "h2"], 2: ["f1", "f2"], 1: ["p1", "p2", "p3"],
            0: [f"n{i:02d}" for i in range(20)]}
    qrels = {"t1": {d: g for g, ds in docs.items() for d in ds}}
    runs = {}
    for name, vec in vectors.items():
        used = {g: 0 for g in docs}
        ranking = {}
        for i, lev in enumerate(vec.split()):
            g = LEVEL[lev]
            ranking[docs[g][used[g]]] = float(100 - i)
            used[g] += 1
        runs[name] = {"t1": ranking}
    return qrels, runs
