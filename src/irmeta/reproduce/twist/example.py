"""The Twist paper's worked example (Section "Definition of the Twist Measure"): five
relevance vectors of length N = 15 over the degrees nr < pr < fr < hr with recall base
RB = 7, and the RP and CRP vectors the paper prints for them. :func:`worked_example`
recomputes those vectors with :func:`irmeta.effort.curve_arrays` on a one-topic campaign
that realises the relevance vectors: the paper's own input, so every value must agree.

The paper prints the full-scale run with nine ``nr`` (16 entries); its RP/CRP vectors
(15 entries) are those of eight, the only length-15 full-scale run with RB = 7.
"""

from __future__ import annotations

import pandas as pd

__all__ = ["PAPER_CRP", "PAPER_RP", "VECTORS", "worked_example"]

LEVEL = {"nr": 0, "pr": 1, "fr": 2, "hr": 3}

#: the paper's relevance vectors: ideal, worst, full scale, systems A and B
VECTORS = {
    "ideal": "hr hr fr fr pr pr pr nr nr nr nr nr nr nr nr",
    "worst": "nr nr nr nr nr nr nr nr nr nr nr nr nr nr nr",
    "full scale": "nr nr nr nr nr nr nr nr pr pr pr fr fr hr hr",
    "A": "hr hr fr nr pr fr nr nr nr pr nr nr nr nr nr",
    "B": "hr nr pr nr fr nr nr nr fr pr nr nr hr pr nr",
}
#: the RP vectors the paper prints
PAPER_RP = {
    "ideal": (0,) * 15,
    "worst": (-7, -6, -5, -4, -3, -2, -1) + (0,) * 8,
    "full scale": (-7, -6, -5, -4, -3, -2, -1, 0, 2, 3, 4, 8, 9, 12, 13),
    "A": (0, 0, 0, -4, 0, 2, -1, 0, 0, 3, 0, 0, 0, 0, 0),
    "B": (0, -6, -2, -4, 1, -2, -1, 0, 5, 3, 0, 0, 11, 7, 0),
}
#: the CRP vectors the paper prints
PAPER_CRP = {
    "ideal": (0,) * 15,
    "worst": (-7, -13, -18, -22, -25, -27, -28) + (-28,) * 8,
    "full scale": (-7, -13, -18, -22, -25, -27, -28, -28, -26, -23, -19, -11, -2, 10, 23),
    "A": (0, 0, 0, -4, -4, -2, -3, -3, -3, 0, 0, 0, 0, 0, 0),
    "B": (0, -6, -8, -12, -11, -13, -14, -14, -9, -6, -6, -6, 5, 12, 12),
}


def _campaign():
    """A one-topic campaign whose runs have the relevance vectors :data:`VECTORS`
    (2 hr, 2 fr, 3 pr relevant documents and 20 judged non-relevant ones)."""
    from irmeta.io.load import load_campaign
    docs = {3: ["h1", "h2"], 2: ["f1", "f2"], 1: ["p1", "p2", "p3"],
            0: [f"n{i:02d}" for i in range(20)]}
    qrels = {"t1": {d: g for g, ds in docs.items() for d in ds}}
    runs = []
    for vec in VECTORS.values():
        used = dict.fromkeys(docs, 0)
        ranking = {}
        for i, lev in enumerate(vec.split()):
            g = LEVEL[lev]
            ranking[docs[g][used[g]]] = float(100 - i)
            used[g] += 1
        runs.append({"t1": ranking})
    return load_campaign(qrels, runs, names=list(VECTORS))


def _show(values) -> str:
    return "(" + ", ".join(f"{v:+d}" if v else "0" for v in values) + ")"


def worked_example() -> pd.DataFrame:
    """Per run of the example and per curve (``RP``, ``CRP``): the relevance vector,
    our vector, the paper's and whether they are equal (``equal``)."""
    from irmeta.effort import curve_arrays
    campaign = _campaign()
    arrays = curve_arrays(campaign, list(VECTORS), ["t1"], depth=15)
    rows = []
    for r, name in enumerate(VECTORS):
        for curve, ours, paper in (("RP", arrays.rp[r, 0], PAPER_RP[name]),
                                   ("CRP", arrays.crp[r, 0], PAPER_CRP[name])):
            ours = tuple(int(v) for v in ours)
            rows.append({"run": name, "relevance": VECTORS[name] if curve == "RP" else "",
                         "curve": curve, "ours": _show(ours), "paper": _show(paper),
                         "equal": ours == tuple(paper)})
    return pd.DataFrame(rows)
