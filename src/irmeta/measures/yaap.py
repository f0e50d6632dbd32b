"""``yaap``: Robertson's "Yet Another Average Precision" (trec_eval 10 ``yaap``).

Robertson (On Smoothing Average Precision, ECIR 2012) smooths AP into a log-odds so that
it averages better over topics (extreme values — topics with AP near 0 or 1 — weigh less)::

    S    = sum_{rel i} (relevant documents up to rank i) / i   (AP's numerator, AP = S / N_R)
    yaap = log((1 + S) / (1 + N_R - S))

per topic, with the relevance level of the evaluation (trec_eval ``-l``; ``rel=``
overrides it) and ``N_R`` from the qrels; the mean over topics is arithmetic. It is
monotonic with AP on a topic (``S = AP * N_R``). A topic with no relevant document scores
``log(1 / 1) = 0``, as in trec_eval; with ``complete=True`` (``-c``) a topic missing from
the run scores ``log(1 / (1 + N_R))``, as trec_eval 10's placeholder ranking of one
non-relevant document does. ``S`` is summed in rank order and the logarithm is
libm's (``math.log``), so the values are trec_eval's bit for bit. trec_eval lists it
outside ``all_trec``; ``-m yaap`` asks for it.
"""

from __future__ import annotations

import math

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.measures.kernel import REL, Block, block_kernel, relevance_level, relevant_ranks, seqsum
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, TrecName

#: libm's log one value at a time (NumPy's SIMD log differs from it in the last bit)
_LOG = np.frompyfunc(math.log, 1, 1)


def _log_odds(total: np.ndarray, num_rel: np.ndarray) -> np.ndarray:
    """log((1 + S) / (1 + N_R - S)), in trec_eval's order of operations."""
    ratio = (1.0 + total) / ((1.0 + num_rel.astype(np.float64)) - total)
    out: np.ndarray = _LOG(ratio).astype(np.float64) if ratio.size else ratio
    return out


def yaap(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """yaap = log((1 + S) / (1 + N_R - S)), S = sum over the retrieved relevant documents
    of (relevant documents up to their rank) / rank, summed in rank order."""
    level = relevance_level(m, ctx)
    compact = relevant_ranks(campaign, level, ctx)
    if compact is None:
        return _yaap_blocked(campaign, m, ctx)
    _, prec, _ = compact
    return _log_odds(seqsum(prec), campaign.num_rel(level)[None, :])


@block_kernel
def _yaap_blocked(b: Block, m: Measure) -> np.ndarray:
    """yaap on one block of topics (the dense arrays): S as AP's numerator."""
    rel = b.rel
    prec = np.cumsum(rel, axis=2, dtype=np.int32) / np.arange(1, b.depth + 1)
    return _log_odds(seqsum(np.where(rel, prec, 0.0)), b.num_rel[None, :])


register(MeasureDef(
    "yaap", "Yet Another Average Precision, Robertson's smoothed AP (trec_eval yaap)", yaap,
    (REL,), cutoff="none",
    formula="log((1 + S) / (1 + N_R - S)), S = sum_{rel i} P@i (= AP * N_R)",
    trec=(TrecName("yaap", 54, nicknames=()),)))
