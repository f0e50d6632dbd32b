"""Compatibility (Clarke, Vtyurina & Smucker, TOIS 2021): rank-biased overlap with an
ideal ranking.

The ideal ranking ``I`` lists the relevant documents (grade > 0) by grade, highest first;
documents of equal grade in the order the run ranks them, the ones it does not retrieve
after those. With ``A_i`` / ``I_i`` the sets of the first i documents of the run / of
``I``, ``n`` the run's length, ``N_R`` the relevant documents and ``L = max(n, N_R)``::

    RBO(p)    = sum_{i=1}^{L} p^(i-1) |A_i ∩ I_i| / i  /  sum_{i=1}^{L} p^(i-1)
    Compat(p) = RBO(run, I) / RBO(I, I)          (normalize=True, the default)
    Compat(p) = RBO(run, I)                      (normalize=False)

The denominator of RBO is the sum of the weights up to depth ``L`` (ir_measures' compat
provider; the paper's infinite-depth ``1 - p`` is not used). Without a relevant document
(or on an empty ranking) the value is 0.

Vectorised: a retrieved relevant document at run rank ``a`` and ideal rank ``b`` is in
``A_i ∩ I_i`` for every ``i >= max(a, b)``, so ``sum_i p^(i-1)|A_i ∩ I_i|/i = sum_d
(S_L - S_{max(a_d, b_d) - 1})`` with ``S_m = sum_{i<=m} p^(i-1)/i``.

Differences from ir_measures' provider (documented in ``docs/measures-ir_measures.md``):
it breaks score ties by document id ascending, and places a retrieved document with a
negative score after the unretrieved ones of its grade (it sorts by score with 0.0 for
unretrieved documents); irmeta uses its one trec_eval order for both.
"""

from __future__ import annotations

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import MeasureError
from irmeta.measures.kernel import blocked, safe_div, seqsum
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param


def _check(m: Measure) -> None:
    if not 0.0 < m["p"] < 1.0:
        raise MeasureError(f"Compat: p must be in (0, 1), got {m['p']}")


def _grade_levels(campaign: Campaign, t0: int, t1: int) -> tuple[np.ndarray, np.ndarray]:
    """Positive grades present in topics t0:t1 (descending) and, per topic and grade, the
    number of relevant documents of a higher grade: ([G], [t1-t0, G])."""
    j = campaign.judged
    lo, hi = j.ptr[t0], j.ptr[t1]
    grades, topic = j.grades[lo:hi], j.topic[lo:hi] - t0
    pos = grades > 0
    levels = np.unique(grades[pos])[::-1]
    counts = np.zeros((t1 - t0, len(levels)), dtype=np.int64)
    if len(levels):
        np.add.at(counts, (topic[pos], np.searchsorted(-levels, -grades[pos])), 1)
    above = np.cumsum(counts, axis=1) - counts
    return levels, above


@blocked
def compatibility(campaign: Campaign, measure: Measure, ctx: EvalContext,
                  t0: int, t1: int) -> np.ndarray:
    """Compat = RBO(run, ideal) [/ RBO(ideal, ideal)], weights summed to depth max(n, N_R)."""
    p = measure["p"]
    grades = campaign.grades[:, t0:t1]
    R, Tc, D = grades.shape
    n_rel = campaign.judged.num_rel(1)[t0:t1]
    n = campaign.length[:, t0:t1]
    depth_l = np.maximum(n, n_rel[None, :])                        # L per (run, topic)
    top = int(max(D, n_rel.max(initial=0))) + 1
    i = np.arange(1, top, dtype=np.float64)
    s = np.concatenate([[0.0], np.cumsum(p ** (i - 1) / i)])         # S_0..S_top-1
    weights = np.concatenate([[0.0], np.cumsum(p ** (i - 1))])
    levels, above = _grade_levels(campaign, t0, t1)
    ideal_rank = np.zeros(grades.shape, dtype=np.int64)            # b, 0 = not relevant
    for g, level in enumerate(levels):
        hit = grades == level
        ideal_rank = np.where(hit, above[None, :, g, None] + np.cumsum(hit, axis=2), ideal_rank)
    run_rank = np.arange(1, D + 1)[None, None, :]
    meet = np.where(ideal_rank > 0, np.maximum(run_rank, ideal_rank), 0)
    s_l = s[depth_l]
    overlap = seqsum(np.where(meet > 0, s_l[:, :, None] - s[np.maximum(meet - 1, 0)], 0.0))
    if not measure["normalize"]:
        return safe_div(overlap, weights[depth_l])
    # RBO(I, I) numerator: sum_{j=1}^{N_R} (S_L - S_{j-1})
    prefix = np.concatenate([[0.0], np.cumsum(s)])                 # sum_{m<j} S_m
    best = n_rel[None, :] * s_l - prefix[n_rel][None, :]
    return safe_div(overlap, best)


register(MeasureDef(
    "Compat", "compatibility with an ideal ranking (Clarke et al. 2021; ir_measures Compat)",
    compatibility,
    (Param("p", "float", 0.95, "persistence of the rank-biased overlap, 0 < p < 1"),
     Param("normalize", "bool", True, "divide by the ideal ranking's own RBO")),
    cutoff="none", family="ir_measures", validate=_check, relevance="graded",
    formula="RBO_p(run, ideal) / RBO_p(ideal, ideal), depth max(n, N_R)"))
