"""Why did a run score that? Per-document explanations of the context measures.

* :func:`explain_documents` — for a run (and one topic, or all), each document of its
  top K with its grade, the number of runs retrieving it ``S_d`` and the size ``S`` of the
  reference set, its rarity ``R(d) = 1 - S_d/S`` and normalized rarity
  ``R'(d) = 1 - (S_d-1)/(S-1)``, whether no other run retrieves it, and for an NRG
  measure the product over the prior set of ``1 - seen(pos)`` and the residual gain
  ``G(d|P) = G(d) * prod (1 - seen(pos))``.
* :func:`unique_contributions` — per run, the relevant documents in its top K that no
  other run (of the reference set) has in its top K: TREC's "unique contributions to
  the relevant set", i.e. ``NRG(base=unique)@K`` summed over topics.

Both return pandas DataFrames and use the same per-topic totals as the measures
(:mod:`irmeta.measures.context`), so they explain exactly the numbers ``evaluate`` prints.

Every function here also takes a campaign larger than memory, opened shard by shard
(:func:`irmeta.open_shards`), and returns the same rows (:mod:`irmeta.shards.explain`:
only the shard of the topic asked for, or each shard in turn).
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Iterable, Mapping, cast

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.constraints import CUTOFF, DEPTH, REL_LEVEL, Flag, validated
from irmeta.data.campaign import Campaign
from irmeta.data.tables import decode_ids
from irmeta.errors import ParameterError
from irmeta.measures.context import others_count
from irmeta.measures.kernel import window
from irmeta.measures.spec import EvalContext, Measure
from irmeta.options import groups_argument

__all__ = ["explain_documents", "unique_contributions", "unique_documents"]

DOC_COLUMNS = ["run", "topic", "rank", "docid", "grade", "relevant", "retrieved_by", "S",
               "rarity", "rarity_normalized", "unique", "prior_product", "gain",
               "residual_gain"]


def _context(rel_level, groups, reference, prior_runs, runs=None) -> EvalContext:
    rel_level = validate.integer(rel_level, "rel_level", "explain", low=-32768, high=32768)
    groups = groups_argument(groups, "explain", runs)
    if reference is not None and not isinstance(reference, Campaign):
        raise ParameterError("explain: reference must be a Campaign (irmeta.load_campaign)")
    return EvalContext(rel_level=int(rel_level), groups=dict(groups) if groups else None,
                       reference=reference,
                       prior_runs=tuple(prior_runs) if prior_runs is not None else None)


def _check_k(fn: str, name: str, value) -> int | None:
    return None if value is None else validate.integer(value, name, fn, low=1)


def _nrg_measure(nrg, k: int | None) -> Measure | None:
    if nrg is None:
        return None
    from irmeta.measures.parse import parse_measure
    m = nrg if isinstance(nrg, Measure) else parse_measure(str(nrg))[0]
    if m.definition.name != "NRG":
        raise ParameterError(f"explain_documents: nrg must be an NRG measure, got {m.name!r}")
    return m


@validated(k=replace(CUTOFF, optional=True), depth=replace(DEPTH, optional=True),
           rel_level=REL_LEVEL, relevant_only=Flag())
def explain_documents(campaign: Campaign, run: str, topic: str | None = None, *,
                      k: int | None = 100, depth: int | None = None, rel_level: int = 1,
                      nrg: str | Measure | None = "NRG", relevant_only: bool = True,
                      groups: Mapping[str, str] | str | os.PathLike[str] | None = None,
                      reference: Campaign | None = None,
                      prior_runs: Iterable[str] | None = None) -> pd.DataFrame:
    """Per-document explanation of ``run``'s context scores on ``topic`` (None: all topics).

    Rows: the documents of the run's top ``k`` (only relevant ones — grade >= rel_level —
    when ``relevant_only``), in rank order. Columns (``DOC_COLUMNS``):

    * ``retrieved_by`` = ``S_d``, runs of the reference set whose top ``depth`` (default
      ``k``) holds the document, the explained run included; ``S`` the reference set size
      (the campaign's runs, or ``reference``'s runs plus this run);
    * ``rarity`` = ``1 - S_d/S``; ``rarity_normalized`` = ``1 - (S_d-1)/(S-1)`` (1 if S=1);
    * ``unique``: ``S_d == 1`` (no other run retrieves it);
    * ``prior_product`` = ``prod_{R_j in P} (1 - seen(pos(d, R_j)))`` and ``gain``,
      ``residual_gain`` = gain * prior_product for the NRG measure ``nrg`` (default
      ``NRG``: nDCG base, prior=others, whole rankings; ``None`` to skip); NaN for
      documents outside the qrels (their gain is 0) or beyond the NRG cutoff.

    ``groups``, ``prior_runs``: the NRG prior context (best_per_group, list); ``groups``
    is ``{run: group}`` or a groups file path (``run group`` lines, as ``--groups``).

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> frame = explain_documents(campaign, "A", "q1", nrg=None)
    >>> frame[["rank", "docid", "grade", "retrieved_by", "unique"]]
       rank docid  grade  retrieved_by  unique
    0     1    d1      1             1    True
    1     3    d3      2             2   False
    """
    if _is_sharded(campaign):
        return cast(Any, campaign).explain_documents(
            run, topic, k=k, depth=depth, rel_level=rel_level, nrg=nrg,
            relevant_only=relevant_only, groups=groups, reference=reference,
            prior_runs=prior_runs)
    validate.campaign(campaign, "explain_documents")
    depth = depth or k
    r = campaign.run_index(run)
    ctx = _context(rel_level, groups, reference, prior_runs, campaign.runs)
    if topic is None:
        topics = np.flatnonzero(campaign.length[r] > 0)
    else:
        topics = np.asarray([campaign.topic_index(topic)])
    frames = document_frames(campaign, r, topics, k, depth, _nrg_measure(nrg, k), ctx,
                             relevant_only)
    if not frames:
        return pd.DataFrame(columns=DOC_COLUMNS)
    return pd.concat(frames, ignore_index=True)[DOC_COLUMNS]


def _is_sharded(campaign) -> bool:
    """``campaign`` is an open :class:`~irmeta.shards.local.ShardedCampaign`, which
    explains itself shard by shard (its methods of the same names call
    :mod:`irmeta.shards.explain`; this module does not import it: that module builds on
    this one)."""
    return getattr(campaign, "sharded", False) is True


def document_frames(campaign: Campaign, r: int, topics, k: int | None, depth: int | None,
                    m: Measure | None, ctx: EvalContext,
                    relevant_only: bool) -> list[pd.DataFrame]:
    """The rows of :func:`explain_documents` for run ``r`` on ``topics`` (indices), one
    frame per topic the run retrieved for; checked arguments (``m``: the NRG measure or
    None; ``ctx.campaign_means``: the whole campaign's, on a topic shard)."""
    from irmeta.measures.nrg import nrg_block, prior_plan

    w = window(campaign, k)
    others, S = others_count(campaign, k, depth, ctx)
    plan = prior_plan(campaign, m, ctx) if m is not None else None
    nw = window(campaign, m.cutoff) if m is not None else 0
    frames = []
    for t in topics:
        n = int(min(campaign.length[r, t], w))
        if n == 0:
            continue
        grades = campaign.grades[r, t, :n].astype(np.int64)
        sd = others[r, t, :n].astype(np.int64) + 1
        prior = np.full(n, np.nan)
        resid = np.full(n, np.nan)
        if m is not None and plan is not None:
            _, cp, cr = nrg_block(campaign, m, ctx, plan, int(t), int(t) + 1, cells=True)
            upto = min(n, nw)
            prior[:upto] = cp[r, 0, :upto]
            resid[:upto] = cr[r, 0, :upto]
        gain = _cell_gains(campaign, m, ctx, r, int(t), n) if m is not None else np.full(n, np.nan)
        frame = pd.DataFrame({
            "run": campaign.runs[r], "topic": campaign.topics[t],
            "rank": np.arange(1, n + 1), "docid": campaign.ranking(r, int(t))[:n],
            "grade": pd.arrays.IntegerArray(grades, grades == -32768),
            "relevant": grades >= ctx.rel_level, "retrieved_by": sd, "S": S,
            "rarity": 1.0 - sd / S,
            "rarity_normalized": (1.0 - (sd - 1) / (S - 1)) if S > 1 else np.ones(n),
            "unique": sd == 1, "prior_product": prior, "gain": gain,
            "residual_gain": resid})
        if relevant_only:
            frame = frame[frame["relevant"]]
        frames.append(frame)
    return frames


def _cell_gains(campaign: Campaign, m: Measure, ctx: EvalContext, r: int, t: int,
                n: int) -> np.ndarray:
    """Gain G(d) of the NRG measure for the first n documents of run r on topic t (NaN
    outside the qrels)."""
    from irmeta.measures.context import judged_rows
    from irmeta.measures.kernel import relevance_level
    from irmeta.measures.nrg import judged_gains
    rows = judged_rows(campaign, None, ctx)[r, t, :n]
    out = np.full(n, np.nan)
    hit = rows >= 0
    if hit.any():
        lo, hi = campaign.judged.ptr[t], campaign.judged.ptr[t + 1]
        g = judged_gains(campaign, m, relevance_level(m, ctx), lo, hi)
        out[hit] = g[rows[hit] - lo]
    return out


def _unique_mask(fn: str, campaign, k, rel_level, reference) -> tuple[np.ndarray, np.ndarray]:
    """bool ``[R, T, min(k, depth)]`` masks: the rank holds a relevant document, and a
    relevant document no other run (or reference run) has in its top ``k``."""
    validate.campaign(campaign, fn)
    k = _check_k(fn, "k", k)
    ctx = _context(rel_level, None, reference, None)
    others, _ = others_count(campaign, k, k, ctx)
    rel = campaign.grades[:, :, :window(campaign, k)] >= ctx.rel_level
    return rel, rel & (others == 0)


@validated(k=CUTOFF, rel_level=REL_LEVEL, per_topic=Flag())
def unique_contributions(campaign: Campaign, k: int = 100, *, rel_level: int = 1,
                         reference: Campaign | None = None,
                         per_topic: bool = False) -> pd.DataFrame:
    """Relevant documents in each run's top ``k`` that no other run has in its top ``k``.

    ``unique(r, t) = #{i <= k : grade(d_i) >= rel_level and S_d(d_i) == 1}`` where
    ``S_d`` counts the runs of the campaign (or of ``reference``, plus the run) retrieving
    ``d`` in their top ``k``; equal to ``NRG(base=unique)@k`` with ``prior=others``.

    Returns, per run (index ``run``): ``unique`` (sum over topics), ``topics_with_unique``,
    ``relevant_retrieved`` (relevant documents in the top k, summed) and
    ``unique_share`` = unique / relevant_retrieved (NaN when 0). With ``per_topic``: a
    long table ``run, topic, unique, relevant_retrieved`` over every (run, topic).

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> unique_contributions(campaign, k=10)[["unique", "relevant_retrieved"]]
         unique  relevant_retrieved
    run
    A         2                   3
    B         0                   1
    """
    if _is_sharded(campaign):
        return cast(Any, campaign).unique_contributions(k, rel_level=rel_level,
                                            reference=reference, per_topic=per_topic)
    unique, found = unique_counts(campaign, k, rel_level=rel_level, reference=reference,
                                  func="unique_contributions")
    return contributions_frame(campaign.runs, campaign.topics, unique, found, per_topic)


def unique_counts(campaign: Campaign, k: int = 100, *, rel_level: int = 1,
                  reference: Campaign | None = None,
                  func: str = "unique_counts") -> tuple[np.ndarray, np.ndarray]:
    """int ``[R, T]`` arrays ``(unique, found)``: per (run, topic) the relevant documents
    of the run's top ``k`` that no other run has in its top ``k``, and the relevant
    documents of its top ``k`` (see :func:`unique_contributions`). Topic by topic: a
    topic shard's arrays are the whole campaign's columns."""
    rel, uniq = _unique_mask(func, campaign, k, rel_level, reference)
    return uniq.sum(axis=2), rel.sum(axis=2)


def contributions_frame(runs, topics, unique: np.ndarray, found: np.ndarray,
                        per_topic: bool = False) -> pd.DataFrame:
    """The frame of :func:`unique_contributions` from :func:`unique_counts`' arrays."""
    runs = list(runs)
    if per_topic:
        R, T = unique.shape
        return pd.DataFrame({"run": np.repeat(runs, T), "topic": list(topics) * R,
                             "unique": unique.ravel(), "relevant_retrieved": found.ravel()})
    total, rel_total = unique.sum(axis=1), found.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(rel_total > 0, total / np.maximum(rel_total, 1), np.nan)
    frame = pd.DataFrame({"unique": total, "topics_with_unique": (unique > 0).sum(axis=1),
                          "relevant_retrieved": rel_total, "unique_share": share},
                         index=pd.Index(runs, name="run"))
    return frame


@validated(k=CUTOFF, rel_level=REL_LEVEL)
def unique_documents(campaign: Campaign, k: int = 100, *, rel_level: int = 1,
                     reference: Campaign | None = None) -> pd.DataFrame:
    """The documents counted by :func:`unique_contributions`, one row each: relevant
    documents in a run's top ``k`` that no other run (of the campaign, or of
    ``reference``) has in its top ``k``.

    Columns ``run, topic, rank, docid, grade``, ordered by run, topic and rank (runs and
    topics in campaign order). ``len(unique_documents(c, k))`` equals
    ``unique_contributions(c, k)["unique"].sum()``.

    Examples
    --------
    >>> from irmeta.demo import toy_campaign
    >>> campaign = toy_campaign()
    >>> unique_documents(campaign, k=10)
      run topic  rank docid  grade
    0   A    q1     1    d1      1
    1   A    q2     1    d4      1
    """
    if _is_sharded(campaign):
        return cast(Any, campaign).unique_documents(k, rel_level=rel_level,
                                        reference=reference)
    _, uniq = _unique_mask("unique_documents", campaign, k, rel_level, reference)
    r, t, i = np.nonzero(uniq)
    docids = np.empty(len(r), dtype=object)
    for run in np.unique(r):
        sel = r == run
        docids[sel] = decode_ids(campaign.docids[run].take(campaign.starts[run, t[sel]] + i[sel]))
    return pd.DataFrame({"run": np.asarray(campaign.runs, dtype=object)[r],
                         "topic": np.asarray(campaign.topics, dtype=object)[t],
                         "rank": i + 1, "docid": docids,
                         "grade": campaign.grades[r, t, i].astype(int)})
