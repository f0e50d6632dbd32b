"""Judged@k: the fraction of the top k documents that carry a relevance judgment.

``Judged@k = |{i <= min(k, n) : d_i is in the qrels}| / min(k, n)``

where ``n`` is the number of documents retrieved. Without a cutoff, ``k = n``. A document
counts as judged when the qrels hold any grade for it, zero and negative grades included
(ir_measures' ``judged`` provider). On an empty ranking (a topic missing from the run,
scored with ``complete=True``) the value is **0**: ir_measures gives every qrels topic
missing from a run its default value 0, as trec_eval ``-c`` does.

The denominator is ``min(k, n)``, not ``k``: a run that returns 5 documents, all judged,
has Judged@10 = 1 (ir_measures' definition; OpenNIR's).
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import NOT_IN_QRELS, Campaign
from irmeta.measures.kernel import blocked, safe_div, window
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef


@blocked
def judged(campaign: Campaign, measure: Measure, ctx: EvalContext,
           t0: int, t1: int) -> np.ndarray:
    """Judged@k = (judged documents in the top min(k, n)) / min(k, n); 0 when n = 0."""
    d = window(campaign, measure.cutoff)
    grades = campaign.grades[:, t0:t1, :d]
    count = np.count_nonzero(grades != NOT_IN_QRELS, axis=2).astype(float)
    shown = np.minimum(campaign.length[:, t0:t1], d).astype(float)
    return safe_div(count, shown)


register(MeasureDef(
    "Judged", "fraction of the top k documents that are judged (ir_measures Judged@k)",
    judged, formula="|{i <= min(k,n): d_i judged}| / min(k,n); 0 on an empty ranking",
    family="ir_measures", relevance="judged"))
