"""Diversity measures over subtopic judgments, with the semantics of NIST's ndeval.

Notation (one run, one topic): a document is relevant to subtopic ``s`` when its grade for
``s`` is ``>= rel`` (default: the evaluation's relevance level, 1; ndeval binarises grades
the same way). ``S`` = the topic's subtopics with at least one relevant document (ndeval's
"actual subtopics": the others are ignored). ``rel_{i,s}`` = 1 if the document at rank i
is relevant to s; ``c_{i,s}`` = documents relevant to s ranked above i. The novelty gain
of rank i is

    gain_i = sum_s rel_{i,s} * (1 - alpha)^{c_{i,s}}

and the *ideal ranking* is ndeval's greedy one: repeatedly the judged document with the
largest gain given those already placed, ties broken by document id, highest byte string
first. Measures (``k`` = cutoff; without one, the whole ranking)::

    alpha_DCG@k  = sum_{i<=k} gain_i / log2(i+1)  /  sum_{i<=k} S (1-alpha)^(i-1) / log2(i+1)
    alpha_nDCG@k = sum_{i<=k} gain_i / log2(i+1)  /  same sum over the ideal ranking
    ERR_IA@k     = sum_{i<=k} gain_i / i  /  sum_{i<=k} S (1-alpha)^(i-1) / i
    nERR_IA@k    = sum_{i<=k} gain_i / i  /  same sum over the ideal ranking
    NRBP         = (1 - (1-alpha) beta) / S * sum_i beta^(i-1) gain_i
    nNRBP        = NRBP / NRBP of the ideal ranking
    P_IA@k       = sum_{i<=k} sum_s rel_{i,s} / (k S)
    StRecall@k   = |{s : sum_{i<=k} rel_{i,s} > 0}| / S
    AP_IA        = (1/S) sum_{s: N_s > 0} (1/N_s) sum_i rel_{i,s} * (sum_{j<=i} rel_{j,s}) / i

``N_s`` = documents relevant to s in the qrels. Every measure is 0 when ``S = 0`` (the
topic has no relevant subtopic judgment, or no subtopic judgment at all); the normalised
ones are 0 when the run's own sum is 0 (ndeval) — except ``nNRBP``, which is **NaN**
when ``S = 0`` (ndeval computes 0/0 there; undefined values are NaN in irmeta). Without
a cutoff P_IA divides by the run's length ``n`` (0 on an empty ranking). ``alpha``
defaults to 1/2 everywhere, as in ndeval (for ERR-IA: a relevant document satisfies the
intent with probability 1/2); ndeval's ``-alpha`` changes ERR-IA and nERR-IA too, and so
does ``ERR_IA(alpha=0.3)`` (ir_measures' ERR_IA has no alpha).

Differences from ndeval (``docs/diversity.md``): ndeval only computes cutoffs up to 20;
it leaves ``ERR-IA@1`` and ``alpha-DCG@1`` unnormalised (its normalisation loop starts at
rank 2: ``ERR-IA@1`` can be 3.0); irmeta normalises at every k. ndeval (through pyndeval)
breaks score ties by document id ascending; irmeta keeps its one trec_eval order.

Storage: :mod:`irmeta.data.subtopics` (a per-topic CSR of documents x subtopic grades and
one row index per cell of the dense run arrays); kernels gather ``[R, Tb, d, S_max]``
relevance blocks under the one memory budget of :mod:`irmeta.measures.kernel`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.data.subtopics import SubtopicTable, cell_rows
from irmeta.errors import MeasureError
from irmeta.measures import kernel
from irmeta.measures.kernel import memo, relevance_level, safe_div, seqsum, topic_blocks, window
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Kernel, Measure, MeasureDef, Param

#: the shared ``rel`` parameter, read on subtopic grades
REL = replace(kernel.REL, doc="minimum subtopic grade counted as relevant (default: the "
              "evaluation's relevance level)")
#: ndeval's ``-alpha`` (default 0.5), which changes alpha-(n)DCG, (n)NRBP and ERR-IA /
#: nERR-IA alike (ir_measures' ERR_IA has no alpha: its value is ndeval's default)
ALPHA = Param("alpha", "float", 0.5, "redundancy intolerance, 0 <= alpha <= 1")
BETA = Param("beta", "float", 0.5, "patience of NRBP, 0 < beta < 1")


def _check(m: Measure) -> None:
    if m.get("alpha") is not None and not 0.0 <= m["alpha"] <= 1.0:
        raise MeasureError(f"{m.family}: alpha must be in [0, 1], got {m['alpha']}")
    if m.get("beta") is not None and not 0.0 < m["beta"] < 1.0:
        raise MeasureError(f"{m.family}: beta must be in (0, 1), got {m['beta']}")


def _table(campaign: Campaign, measure: Measure) -> SubtopicTable:
    if campaign.subtopics is None:
        raise MeasureError(f"{measure.family} needs subtopic qrels (topic subtopic docid "
                           f"grade): irmeta.load_campaign(..., subtopic_qrels=PATH), "
                           f"evaluate(..., subtopic_qrels=PATH) or irmeta eval "
                           f"--subtopic-qrels PATH")
    table: SubtopicTable = campaign.subtopics     # typed Any on Campaign (data layer)
    return table


class _Subtopics:
    """What one diversity kernel needs for the campaign, the level and alpha."""

    def __init__(self, campaign: Campaign, measure: Measure, ctx: EvalContext, alpha: float):
        self.campaign = campaign
        self.table = _table(campaign, measure)
        self.level = relevance_level(measure, ctx)
        self.alpha = alpha
        self.rows = cell_rows(campaign)
        counts = memo(ctx, ("subtopic_counts", campaign, self.level),
                      lambda: self.table.relevant_counts(self.level))
        self.n_rel = counts                                           # [T, S_max]
        self.actual = np.count_nonzero(counts, axis=1).astype(float)  # S per topic
        self.ctx = ctx

    def relevance(self, t0: int, t1: int, d: int) -> np.ndarray:
        """bool [R, t1-t0, d, S_max]: rel_{i,s} of every cell of the block."""
        rows: np.ndarray = self.rows[:, t0:t1, :d]
        grades: np.ndarray = self.table.grades[rows]
        return (grades >= self.level) & (rows >= 0)[..., None]

    def gains(self, rel: np.ndarray) -> np.ndarray:
        """float [R, Tb, d]: novelty gain sum_s rel * (1 - alpha)^(relevant above)."""
        above = np.cumsum(rel, axis=2) - rel
        # in subtopic order: the same sum whatever the table's width (a shard's table is
        # as wide as its topics need; NumPy's pairwise sum would group the terms by it)
        gains: np.ndarray = seqsum(np.where(rel, (1.0 - self.alpha) ** above, 0.0), axis=3)
        return gains

    def ideal(self) -> np.ndarray:
        """float [T, W]: gains of each topic's greedy ideal ranking (zero-padded)."""
        return memo(self.ctx, ("ideal_subtopic_gains", self.campaign, self.level, self.alpha),
                    lambda: ideal_gains(self.table, self.level, self.alpha))

    def blocks(self, d: int) -> Iterator[tuple[int, int]]:
        R, T = self.campaign.num_runs, self.campaign.num_topics
        return topic_blocks(R, T, max(1, d * self.table.max_subtopics))


def ideal_gains(table: SubtopicTable, level: int, alpha: float) -> np.ndarray:
    """Greedy ideal ranking of every topic (ndeval): at each rank the document with the
    largest novelty gain, ties by document id descending. float [T, W] gains."""
    T = len(table.ptr) - 1
    out: list[np.ndarray] = []
    for t in range(T):
        lo, hi = int(table.ptr[t]), int(table.ptr[t + 1])
        rel = table.grades[lo:hi] >= level
        keep = np.flatnonzero(rel.any(axis=1))
        ids = [table.docids[lo + int(i)].as_py() for i in keep]
        order = sorted(range(len(keep)), key=lambda i: ids[i], reverse=True)
        rel = rel[keep[order]]
        weight = np.ones(rel.shape[1])
        free = np.ones(len(rel), dtype=bool)
        gains = np.zeros(len(rel))
        for r in range(len(rel)):
            score = np.cumsum(np.where(rel, weight, 0.0), axis=1)[:, -1]
            score[~free] = -1.0
            best = int(np.argmax(score))
            gains[r] = score[best]
            free[best] = False
            weight[rel[best]] *= 1.0 - alpha
        out.append(gains)
    width = max([len(g) for g in out] + [1])
    ideal = np.zeros((T, width))
    for t, g in enumerate(out):
        ideal[t, :len(g)] = g
    return ideal


def _discounts(kind: str, d: int) -> np.ndarray:
    i = np.arange(1, d + 1, dtype=np.float64)
    return 1.0 / np.log2(i + 1.0) if kind == "log" else 1.0 / i


def _ideal_ideal(actual: np.ndarray, alpha: float, disc: np.ndarray) -> np.ndarray:
    """[T] sum_{i<=k} S (1-alpha)^(i-1) disc_i: every subtopic covered at every rank."""
    per_subtopic: float = np.sum((1.0 - alpha) ** np.arange(len(disc)) * disc)
    return actual * per_subtopic


def _ideal_sum(ideal: np.ndarray, disc: np.ndarray) -> np.ndarray:
    """[T] sum_{i<=k} ideal_gain_i disc_i (ideal rankings shorter than k padded with 0)."""
    k = len(disc)
    width = min(k, ideal.shape[1])
    ideal_sum: np.ndarray = seqsum(ideal[:, :width] * disc[:width], axis=1)  # rank order
    return ideal_sum


def _cascade(campaign: Campaign, measure: Measure, ctx: EvalContext, alpha: float,
             kind: str, normalise: str) -> np.ndarray:
    """Discounted novelty gain (log: alpha-DCG, 1/i: ERR-IA) over the top k, normalised by
    the ideal-ideal sum ("independent") or by the ideal ranking ("ideal")."""
    sub = _Subtopics(campaign, measure, ctx, alpha)
    R, T = campaign.num_runs, campaign.num_topics
    k = measure.cutoff
    d = window(campaign, k)
    disc = _discounts(kind, d if k is None else k)
    out = np.empty((R, T))
    for t0, t1 in sub.blocks(d):
        raw = seqsum(sub.gains(sub.relevance(t0, t1, d)) * disc[:d])
        if normalise == "independent":
            if k is None:  # whole ranking: every subtopic covered at each of the n ranks
                cum = np.cumsum((1.0 - alpha) ** np.arange(d) * disc[:d])
                n = np.clip(campaign.length[:, t0:t1], 1, None)
                den = sub.actual[None, t0:t1] * cum[n - 1]
            else:
                den = _ideal_ideal(sub.actual[t0:t1], alpha, disc)[None, :]
        else:
            full = disc if k is not None else _discounts(kind, sub.ideal().shape[1])
            den = _ideal_sum(sub.ideal()[t0:t1], full)[None, :]
        out[:, t0:t1] = np.where(raw != 0, safe_div(raw, den), 0.0)
    return out


def alpha_dcg(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """alpha-DCG@k, ndeval's collection-independent normalisation (module doc)."""
    return _cascade(campaign, measure, ctx, measure["alpha"], "log", "independent")


def alpha_ndcg(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """alpha-nDCG@k = alpha-DCG@k of the run / of the greedy ideal ranking."""
    return _cascade(campaign, measure, ctx, measure["alpha"], "log", "ideal")


def err_ia(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """ERR-IA@k, ndeval's collection-independent normalisation (module doc)."""
    return _cascade(campaign, measure, ctx, measure["alpha"], "rr", "independent")


def nerr_ia(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """nERR-IA@k = ERR-IA@k of the run / of the greedy ideal ranking."""
    return _cascade(campaign, measure, ctx, measure["alpha"], "rr", "ideal")


def _nrbp(campaign: Campaign, measure: Measure, ctx: EvalContext, ideal: bool) -> np.ndarray:
    alpha, beta = measure["alpha"], measure["beta"]
    sub = _Subtopics(campaign, measure, ctx, alpha)
    R, T, D = campaign.grades.shape
    scale = safe_div(np.full(T, 1.0 - (1.0 - alpha) * beta), sub.actual)
    decay = beta ** np.arange(D)
    out = np.empty((R, T))
    for t0, t1 in sub.blocks(D):
        out[:, t0:t1] = seqsum(sub.gains(sub.relevance(t0, t1, D)) * decay)
    out *= scale[None, :]
    if not ideal:
        return out
    gains = sub.ideal()
    best = seqsum(gains * beta ** np.arange(gains.shape[1]), axis=1) * scale  # rank order
    value = np.where(out != 0, safe_div(out, best[None, :]), 0.0)
    return np.where(sub.actual[None, :] > 0, value, np.nan)


def nrbp(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """NRBP = (1 - (1-alpha) beta) / S * sum_i beta^(i-1) gain_i."""
    return _nrbp(campaign, measure, ctx, ideal=False)


def nnrbp(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """nNRBP = NRBP / NRBP of the greedy ideal ranking."""
    return _nrbp(campaign, measure, ctx, ideal=True)


#: a counting measure over one topic block: ``fn(sub, rel [R, Tb, d, S_max], t0, t1)``
CountingFn = Callable[["_Subtopics", np.ndarray, int, int], np.ndarray]


def _counting(campaign: Campaign, measure: Measure, ctx: EvalContext,
              fn: CountingFn) -> np.ndarray:
    sub = _Subtopics(campaign, measure, ctx, 0.0)
    R, T = campaign.num_runs, campaign.num_topics
    d = window(campaign, measure.cutoff)
    out = np.empty((R, T))
    for t0, t1 in sub.blocks(d):
        out[:, t0:t1] = fn(sub, sub.relevance(t0, t1, d), t0, t1)
    return out


def p_ia(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """P-IA@k = sum_{i<=k} sum_s rel_{i,s} / (k S); no cutoff: k = n."""
    def fn(sub: _Subtopics, rel: np.ndarray, t0: int, t1: int) -> np.ndarray:
        hits = rel.sum(axis=(2, 3)).astype(float)
        k = (campaign.length[:, t0:t1] if measure.cutoff is None
             else np.full(hits.shape, measure.cutoff))
        return safe_div(hits, k * sub.actual[None, t0:t1])
    return _counting(campaign, measure, ctx, fn)


def st_recall(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """StRecall@k = subtopics covered in the top k / S."""
    def fn(sub: _Subtopics, rel: np.ndarray, t0: int, t1: int) -> np.ndarray:
        covered = rel.any(axis=2).sum(axis=2).astype(float)
        return safe_div(covered, np.broadcast_to(sub.actual[None, t0:t1], covered.shape))
    return _counting(campaign, measure, ctx, fn)


def ap_ia(campaign: Campaign, measure: Measure, ctx: EvalContext) -> np.ndarray:
    """AP-IA = (1/S) sum_{s: N_s>0} (1/N_s) sum_i rel_{i,s} * (sum_{j<=i} rel_{j,s}) / i."""
    def fn(sub: _Subtopics, rel: np.ndarray, t0: int, t1: int) -> np.ndarray:
        d = rel.shape[2]
        prec = np.cumsum(rel, axis=2) / np.arange(1, d + 1)[None, None, :, None]
        per_sub = seqsum(np.where(rel, prec, 0.0), axis=2)              # [R, Tb, S]
        n_s = sub.n_rel[t0:t1].astype(float)[None]
        total = seqsum(safe_div(per_sub, np.broadcast_to(n_s, per_sub.shape)), axis=2)
        return safe_div(total, np.broadcast_to(sub.actual[None, t0:t1], total.shape))
    return _counting(campaign, measure, ctx, fn)


def _declare(name: str, description: str, kernel: Kernel, params: tuple[Param, ...],
             formula: str,
             cutoff: str = "optional", aliases: tuple[str, ...] = ()) -> None:
    register(MeasureDef(name, description, kernel, params, cutoff=cutoff, family="diversity",
                        validate=_check, formula=formula, aliases=aliases))


_declare("alpha_DCG", "alpha-DCG (Clarke et al. 2008), ndeval's collection-independent "
         "normalisation", alpha_dcg, (REL, ALPHA),
         "sum_{i<=k} gain_i/log2(i+1) / sum_{i<=k} S(1-a)^(i-1)/log2(i+1)")
_declare("alpha_nDCG", "alpha-nDCG (Clarke et al. 2008; ndeval)", alpha_ndcg, (REL, ALPHA),
         "alpha-DCG@k(run) / alpha-DCG@k(ideal)")
_declare("ERR_IA", "intent-aware ERR (Chapelle et al. 2009), ndeval's collection-independent "
         "normalisation", err_ia, (REL, ALPHA),
         "sum_{i<=k} gain_i/i / sum_{i<=k} S (1-a)^(i-1)/i")
_declare("nERR_IA", "intent-aware ERR normalised by the ideal ranking (ndeval)", nerr_ia,
         (REL, ALPHA), "ERR-IA@k(run) / ERR-IA@k(ideal)")
_declare("NRBP", "novelty- and rank-biased precision (Clarke et al. 2009; ndeval)", nrbp,
         (REL, ALPHA, BETA), "(1-(1-a)b)/S * sum_i b^(i-1) gain_i", cutoff="none")
_declare("nNRBP", "NRBP normalised by the ideal ranking (ndeval)", nnrbp, (REL, ALPHA, BETA),
         "NRBP(run) / NRBP(ideal)", cutoff="none")
_declare("P_IA", "intent-aware precision (ndeval P-IA@k)", p_ia, (REL,),
         "sum_{i<=k} sum_s rel_is / (k S)")
_declare("StRecall", "subtopic recall (ndeval strec@k)", st_recall, (REL,),
         "|{s covered in the top k}| / S")
_declare("AP_IA", "intent-aware average precision (ndeval MAP-IA)", ap_ia, (REL,),
         "1/S sum_{s} 1/N_s sum_i rel_is P_s@i", cutoff="none", aliases=("MAP_IA",))
