"""A tiny campaign whose numbers can be checked by hand: 5 runs x 8 topics.

Every topic judges six documents: ``a`` (grade 2), ``b`` and ``c`` (grade 1) and ``x``,
``y``, ``z`` (grade 0); topic ``t8`` has no relevant document, so it is outside the
campaign topic set (7 topics analysed). Every run retrieves exactly the six judged
documents of every topic, in its own order, so ``P@10`` (0.3), ``R@6`` and ``Judged@10``
(1) are constants and no run has a document the others lack. ``ideal`` ranks a b c x y z
on every topic (AP = nDCG@10 = 1); ``r1`` ... ``r4`` take the orders of ``CYCLE`` in turn,
each starting at a different one, so that no two runs differ by a constant (a paired
test on constant differences makes SciPy warn).
"""

from __future__ import annotations

import math

#: orders of the non-ideal runs, with their AP (relevant ranks -> (sum of precisions) / 3)
CYCLE = ["xyzcba",   # 4 5 6: (1/4 + 2/5 + 3/6) / 3 = 23/60
         "bxaycz",   # 1 3 5: (1 + 2/3 + 3/5) / 3
         "axbycz",   # 1 3 5: the same AP, a higher nDCG@10 (a, grade 2, first)
         "xaybzc",   # 2 4 6: 1/2
         "abxcyz"]   # 1 2 4: (1 + 1 + 3/4) / 3
GRADES = {"a": 2, "b": 1, "c": 1, "x": 0, "y": 0, "z": 0}
TOPICS = [f"t{i}" for i in range(1, 9)]
RUNS = ["ideal", "r1", "r2", "r3", "r4"]


def order(run: str, topic: str) -> str:
    if run == "ideal":
        return "abcxyz"
    return CYCLE[(int(run[1:]) - 1 + int(topic[1:]) - 1) % len(CYCLE)]


def grade(topic: str, doc: str) -> int:
    return 0 if topic == "t8" else GRADES[doc]


def qrels() -> dict:
    return {t: {f"{t}{d}": grade(t, d) for d in GRADES} for t in TOPICS}


def runs() -> dict:
    return {name: {t: {f"{t}{d}": float(6 - i) for i, d in enumerate(order(name, t))}
                   for t in TOPICS} for name in RUNS}


def campaign():
    import irmeta
    r = runs()
    return irmeta.load_campaign(qrels(), [r[n] for n in RUNS], names=RUNS)


# --- the measures by their definitions, on one ranking of one topic (t1 ... t7)
def ap(run: str, topic: str) -> float:
    hits, total = 0, 0.0
    for rank, doc in enumerate(order(run, topic), 1):
        if grade(topic, doc) >= 1:
            hits += 1
            total += hits / rank
    return total / 3


def ndcg10(run: str, topic: str) -> float:
    dcg = sum(grade(topic, d) / math.log2(r + 1) for r, d in enumerate(order(run, topic), 1))
    ideal = sum(g / math.log2(r + 1) for r, g in enumerate(sorted(GRADES.values(),
                                                                  reverse=True), 1))
    return dcg / ideal


def mean(fn, run: str) -> float:
    """The mean over the campaign topic set (t1 ... t7)."""
    return sum(fn(run, t) for t in TOPICS[:7]) / 7
