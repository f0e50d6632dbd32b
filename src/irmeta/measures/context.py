"""Per-topic, per-document totals shared by the context measures (rarity, NRG, explain).

The cross-run measures need, for every document ``d`` of a topic, quantities that sum
or multiply over *all* runs of the campaign. They are computed **once** per campaign
(one pass over the dense ``[R, T, D]`` arrays, ``np.bincount`` over document codes) and
each run's own value is then obtained by removing its own contribution — never by a
loop over pairs of runs. Cost O(R * T * D) time, O(R * T * D) memory at most.

* :func:`retrieval_counts` — ``count[c]`` = number of runs whose top ``depth`` documents
  contain the document of code ``c`` (codes: :attr:`Campaign.doc_codes`).
* :func:`reference_counts` — the same over the runs of *another* campaign (the rarity
  reference set), matched by ``(topic, document fingerprint)``.
* :func:`others_count` — for every cell ``(r, t, i)`` of the top ``K`` of every run: how
  many **other** runs of the reference set retrieve that document in their top ``depth``.
* :func:`judged_rows` — for every cell, the qrels row of its document (or -1), so that
  residual-gain computations work on the judged documents of a topic only (a document
  outside the qrels has gain 0); :func:`judged_cells` lists those cells topic by topic.
* :func:`seen_totals` — per qrels row ``j``, over all runs: the number of zero factors
  ``z_j = #{runs: 1 - seen(pos) == 0}`` and ``L_j = sum log(1 - seen(pos))`` over the
  non-zero factors, so that ``prod_{runs} (1 - seen(pos)) = [z_j == 0] * exp(L_j)`` and a
  run's own factor is removed exactly (zeros are counted, not divided by).

Everything is memoised in :attr:`EvalContext.cache` under keys that hold the campaign
object itself (so that a cached entry can never be confused with another campaign).
"""

from __future__ import annotations

from typing import Hashable

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.data.fingerprint import combine
from irmeta.errors import CampaignError
from irmeta.measures.kernel import memo as _memo
from irmeta.measures.kernel import window
from irmeta.measures.spec import EvalContext


def retrieval_counts(campaign: Campaign, depth: int | None,
                     ctx: EvalContext | None = None) -> np.ndarray:
    """int32 [num_codes]: ``S_d`` over the campaign's runs — for each document code, the
    number of runs that have it in their top ``depth`` (None: whole rankings).

    ``count[c] = sum_r [c in top_depth(r)]`` (a document appears at most once per ranking).
    """
    d = window(campaign, depth)

    def build() -> np.ndarray:
        codes = campaign.doc_codes[:, :, :d]
        codes = codes[codes >= 0]
        return np.bincount(codes, minlength=campaign.num_codes).astype(np.int32)

    return _memo(ctx, ("context.counts", campaign, d), build)


def _topic_map(campaign: Campaign, reference: Campaign) -> np.ndarray:
    """int32 [T_ref]: campaign topic index of each reference topic (-1 if absent)."""
    index = {t: i for i, t in enumerate(campaign.topics)}
    return np.asarray([index.get(t, -1) for t in reference.topics], dtype=np.int32)


def reference_counts(campaign: Campaign, reference: Campaign, depth: int | None,
                     ctx: EvalContext | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Retrieval counts of the reference runs, keyed by ``(topic, document)``.

    Returns ``(keys, counts)``: sorted uint64 keys ``combine(topic index in campaign,
    document fingerprint)`` and, for each, the number of reference runs having that
    document in their top ``depth`` for that topic. Documents are matched across the
    two campaigns by fingerprint (their document codes differ); topics by their id.
    """
    if not isinstance(reference, Campaign):
        raise CampaignError("reference must be a Campaign (irmeta.load_campaign)")
    d = None if depth is None else int(depth)

    def build() -> tuple[np.ndarray, np.ndarray]:
        dd = window(reference, d)
        valid = reference.valid[:, :, :dd]
        tmap = _topic_map(campaign, reference)
        tix = np.broadcast_to(tmap[None, :, None], valid.shape)
        keep = valid & (tix >= 0)
        keys = combine(tix[keep].astype(np.int64), reference.doc_fp[:, :, :dd][keep])
        return np.unique(keys, return_counts=True)

    return _memo(ctx, ("context.refcounts", campaign, id(reference), reference, d), build)


def others_count(campaign: Campaign, k: int | None, depth: int | None,
                 ctx: EvalContext | None = None) -> tuple[np.ndarray, int]:
    """For each cell of the top ``k`` (``[R, T, W]``, W = :func:`window`): the number of
    runs of the reference set **other than the evaluated run** that retrieve the cell's
    document in their top ``depth``; and ``S``, the size of the reference set counting
    the evaluated run. Padding cells hold 0.

    Without a reference campaign (``ctx.reference is None``): the evaluated runs are the
    reference set; ``others = count[c] - [i < depth]`` (the run's own appearance is
    removed) and ``S = R``. With ``ctx.reference``: ``others`` = number of reference
    runs retrieving the document, ``S = R_ref + 1``. Then ``S_d = others + 1 >= 1``.
    """
    w = window(campaign, k)
    d = campaign.depth if depth is None else int(depth)
    reference = ctx.reference if ctx is not None else None

    def build() -> tuple[np.ndarray, int]:
        codes = campaign.doc_codes[:, :, :w]
        valid = codes >= 0
        if reference is None:
            counts = retrieval_counts(campaign, d, ctx)
            # padding (code -1) reads the appended 0, and its own appearance is not
            # subtracted: the same integers as two np.where passes, in one gather
            padded = np.append(counts, np.int32(0)).astype(np.int32, copy=False)
            out: np.ndarray = padded[codes]
            out -= (np.arange(w) < d)[None, None, :] & valid
            return out, campaign.num_runs
        keys, counts = reference_counts(campaign, reference, d, ctx)
        T = campaign.num_topics
        tix = np.broadcast_to(np.arange(T, dtype=np.int64)[None, :, None], codes.shape)
        qk = combine(tix[valid], campaign.doc_fp[:, :, :w][valid])
        out = np.zeros(codes.shape, dtype=np.int32)
        if len(keys):
            pos = np.minimum(np.searchsorted(keys, qk), len(keys) - 1)
            hit = keys[pos] == qk
            out[valid] = np.where(hit, counts[pos], 0)
        return out, reference.num_runs + 1

    return _memo(ctx, ("context.others", campaign, w, d,
                       None if reference is None else id(reference), reference), build)


def judged_rows(campaign: Campaign, k: int | None, ctx: EvalContext | None = None) -> np.ndarray:
    """int32 [R, T, W]: for each cell of the top ``k``, the index of its document in the
    qrels rows (:attr:`Campaign.judged`, grouped by topic), -1 when the document is not
    judged or the cell is padding."""
    w = window(campaign, k)

    def build() -> np.ndarray:
        code_to_row = np.full(campaign.num_codes + 1, -1, dtype=np.int32)
        code_to_row[campaign.judged_codes] = np.arange(len(campaign.judged_codes), dtype=np.int32)
        codes = campaign.doc_codes[:, :, :w]
        rows: np.ndarray = code_to_row[codes]    # code -1 (padding) reads the trailing -1
        return rows

    return _memo(ctx, ("context.rows", campaign, w), build)


#: ``(t, r, i, row, starts)`` of :func:`judged_cells`
JudgedCells = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def judged_cells(campaign: Campaign, k: int | None,
                 ctx: EvalContext | None = None) -> JudgedCells:
    """The cells of the top ``k`` that hold a judged document, sorted by topic, then run,
    then rank: ``(t, r, i, row, starts)`` with ``row`` the qrels row of the document and
    ``starts[t]:starts[t+1]`` the cells of topic ``t`` (int64 [T+1])."""
    w = window(campaign, k)

    def build() -> JudgedCells:
        rows = judged_rows(campaign, w, ctx)
        by_topic = rows.transpose(1, 0, 2)                 # [T, R, W]: C order = topic-major
        t, r, i = np.nonzero(by_topic >= 0)
        row = by_topic[t, r, i]
        starts = np.searchsorted(t, np.arange(campaign.num_topics + 1))
        return (t.astype(np.int32), r.astype(np.int32), i.astype(np.int32), row,
                starts.astype(np.int64))

    return _memo(ctx, ("context.cells", campaign, w), build)


def seen_totals(campaign: Campaign, k: int | None, seen: np.ndarray, seen_key: Hashable,
                ctx: EvalContext | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per qrels row ``j`` over all runs: ``(zeros[j], logs[j])`` with
    ``zeros[j] = #{r : 1 - seen(pos(d_j, r)) == 0}`` and
    ``logs[j] = sum_{r : factor > 0} log(1 - seen(pos(d_j, r)))`` over the top ``k`` of
    every run, so that ``prod_r (1 - seen(pos(d_j, r))) = [zeros[j] == 0] * exp(logs[j])``.

    ``seen``: float64 [W], the browsing model's ``seen(i)`` for ranks 1..W. A run not
    retrieving ``d_j`` in its top ``k`` has factor 1 (log 0).
    """
    w = window(campaign, k)

    def build() -> tuple[np.ndarray, np.ndarray]:
        _, _, ranks, r, _ = judged_cells(campaign, w, ctx)
        factor = 1.0 - np.asarray(seen[:w], dtype=np.float64)
        zero = factor <= 0.0
        logf = np.log(np.where(zero, 1.0, factor))
        n = len(campaign.judged_codes)
        zeros = np.bincount(r, weights=zero[ranks], minlength=n).astype(np.int32)
        logs = np.bincount(r, weights=logf[ranks], minlength=n)
        return zeros, logs

    return _memo(ctx, ("context.seen", campaign, w, seen_key), build)
