"""Two judgment sets, one campaign: assessor agreement and what it does to the ranking.

Shared judgments: the (topic, document) pairs both qrels judge (document identity by
bytes, topics as text). On them, per topic and overall:

* Cohen's kappa, binary (relevant: grade ``>= rel_level``):
  ``kappa = (p_o - p_e) / (1 - p_e)``, ``p_o`` the observed agreement, ``p_e =
  sum_c p_A(c) p_B(c)``;
* weighted kappa on the grades: ``kappa_w = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij``
  with ``O`` the confusion matrix, ``E`` the product of its margins (``/ n``) and
  ``w_ij = |i - j|`` (linear) or ``(i - j)^2`` (quadratic) over the *indices* of the
  sorted grades observed in the pairs — ``sklearn.metrics.cohen_kappa_score(a, b,
  weights=...)`` exactly (with its default labels). NaN when ``1 - p_e`` is 0.
* the confusion matrix of grades (rows: A, columns: B).

The evaluation: every run scored under A and under B (the means ``irmeta eval`` prints;
B judges the same runs through :meth:`Campaign.with_qrels`, on A's topic axis), per
measure Kendall's tau and tau_AP (B's ranking against A's) of the system rankings, the
largest rank swaps, and the overlap of the top ``k`` systems (``|top_k(A) n top_k(B)| /
k``). Formulas: ``docs/pooling.md``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import InputError, ParameterError
from irmeta.stats._common import per_topic_values
from irmeta.stats.correlation import kendall_tau, tau_ap


def _note_topics_b_lacks(topics: set[str], qb: Any, qrels_b: Any, func: str) -> None:
    """Warn (a CLI note) naming the topics of A's axis that B judges nothing for: every
    run scores 0 there under B (no relevant document), which lowers B's means alike for
    all runs and can reorder them."""
    from irmeta.errors import warn
    judged_b = {str(t) for t in qb.topic_ids[np.unique(qb.topic_codes)]}
    lacking = sorted(topics - judged_b)
    if lacking:
        shown = ", ".join(lacking[:10]) + (", ..." if len(lacking) > 10 else "")
        name = str(qrels_b) if isinstance(qrels_b, (str, os.PathLike)) else "qrels_b"
        warn(f"{func}: {name} judges nothing for {len(lacking)} of the "
             f"{len(topics)} topics (of qrels A's topic axis): {shown}; every run "
             "scores 0 on them under B, in B's means and ranking")


@dataclass(frozen=True, eq=False)
class Agreement:
    """``kappa``: per topic and ``all`` — ``topic, shared, agree, kappa, kappa_weighted``;
    ``confusion``: grades of A (rows) x grades of B (columns), counts over every shared
    judgment; ``scores``: ``run, measure, score_a, score_b, rank_a, rank_b``;
    ``summary``: per measure ``kendall_tau, tau_ap, top_k_overlap, largest_swap,
    largest_swap_run``."""

    kappa: pd.DataFrame
    confusion: pd.DataFrame
    scores: pd.DataFrame
    summary: pd.DataFrame

    def _tables(self) -> dict[str, pd.DataFrame]:
        return {"summary": self.summary, "kappa": self.kappa, "confusion": self.confusion,
                "scores": self.scores}

    def __repr__(self) -> str:
        from irmeta.data.display import tables_repr
        overall = self.kappa[self.kappa["topic"].astype(str) == "all"]
        k = float(overall["kappa"].iloc[0]) if len(overall) else float("nan")
        return tables_repr("Agreement", f"kappa {k:.3f}, {len(self.kappa) - len(overall)} "
                           "topics", self._tables())

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), self._tables())


def cohen_kappa(a: np.ndarray, b: np.ndarray, weights: str | None = None) -> float:
    """Cohen's kappa of two label vectors (module doc; ``weights``: None, ``"linear"``
    or ``"quadratic"``), computed with NumPy."""
    a, b = np.asarray(a), np.asarray(b)
    if len(a) == 0:
        return float("nan")
    labels, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    n = len(labels)
    ia, ib = inv[:len(a)], inv[len(a):]
    obs = np.bincount(ia * n + ib, minlength=n * n).reshape(n, n).astype(np.float64)
    exp = np.outer(obs.sum(axis=1), obs.sum(axis=0)) / obs.sum()
    if weights is None:
        w = 1.0 - np.eye(n)
    else:
        d = np.abs(np.arange(n)[:, None] - np.arange(n)[None, :]).astype(np.float64)
        w = d if weights == "linear" else d ** 2
    den = float(np.sum(w * exp))
    if den == 0.0:
        return float("nan")
    return float(1.0 - np.sum(w * obs) / den)


def shared_judgments(qrels_a, qrels_b) -> pd.DataFrame:
    """``topic, docid, grade_a, grade_b``: the pairs both qrels judge (in A's row order)."""
    from irmeta.data.fingerprint import combine
    from irmeta.data.tables import decode_ids
    topics = sorted({str(t) for t in qrels_a.topic_ids} | {str(t) for t in qrels_b.topic_ids})
    index = {t: i for i, t in enumerate(topics)}

    def keys(q):
        remap = np.asarray([index[str(t)] for t in q.topic_ids], dtype=np.int64)
        return combine(remap[q.topic_codes], q.fingerprints)

    ka, kb = keys(qrels_a), keys(qrels_b)
    order = np.argsort(kb, kind="stable")
    loc = np.minimum(np.searchsorted(kb[order], ka), max(len(kb) - 1, 0))
    hit = np.flatnonzero(kb[order][loc] == ka) if len(kb) else np.zeros(0, np.int64)
    rows_b = order[loc[hit]]
    return pd.DataFrame({
        "topic": np.asarray(qrels_a.topic_ids, dtype=object)[qrels_a.topic_codes[hit]]
        .astype(str),
        "docid": decode_ids(qrels_a.docids.take(_ints(hit))),
        "grade_a": qrels_a.grades[hit], "grade_b": qrels_b.grades[rows_b]})


def _ints(values):
    from irmeta.data.tables import arrow_ints
    return arrow_ints(values)


def _scores_piece(campaign, args, reference=None):
    """Per-topic values and evaluated masks of the runs under A (the campaign's qrels)
    and under B (``with_qrels``), on one campaign or one topic shard; the measures'
    aggregation kinds."""
    measures, qb, rel_level, complete, levels_b = args
    res_a = per_topic_values(campaign, measures, rel_level, complete=complete)
    if len(res_a.measures) != len(measures):
        raise ParameterError("qrels_agreement: each measure string must name exactly one "
                             f"measure, got {measures!r}")
    # B's grade scale over the whole topic axis, in memory and in every shard alike
    judged_b = campaign.with_qrels(qb, grade_levels=levels_b)
    res_b = per_topic_values(judged_b, measures, rel_level, complete=complete)
    return (res_a.values, res_a.evaluated, res_b.values, res_b.evaluated,
            [m.definition.aggregate for m in res_a.measures])


def _ranks(scores: np.ndarray) -> np.ndarray:
    s = np.where(np.isnan(scores), -np.inf, scores)
    return 1 + (s[None, :] > s[:, None]).sum(axis=1)


def qrels_agreement(qrels_a: Any, qrels_b: Any, runs: Any, measures: Sequence[str], *,
                    rel_level: int = 1, weights: str = "linear", top_k: int = 10,
                    complete: bool = False) -> Agreement:
    """Agreement of two judgment sets on the shared judgments, and its effect on the
    evaluation of ``runs`` (module doc). ``qrels_a``, ``qrels_b``: anything
    :func:`irmeta.load_qrels` reads; ``runs``: anything :func:`irmeta.load_campaign`
    reads, or a built campaign (judged by A).

    Examples
    --------
    >>> import irmeta
    >>> a = {"q1": {"d1": 2, "d2": 0, "d3": 1}}
    >>> b = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    >>> runs = {"X": {"q1": {"d1": 2.0, "d3": 1.0}}, "Y": {"q1": {"d2": 2.0, "d1": 1.0}}}
    >>> from irmeta.stats import qrels_agreement
    >>> res = qrels_agreement(a, b, runs, ["P@1"])
    >>> res.kappa[["topic", "shared", "kappa"]].to_string(index=False)
    'topic  shared  kappa\\n   q1       3    1.0\\n  all       3    1.0'
    """
    from irmeta.data.campaign import Campaign
    from irmeta.io.load import load_campaign, load_qrels
    func = "qrels_agreement"
    measures = [str(m) for m in validate.measure_list(measures, func)]
    rel_level = validate.integer(rel_level, "rel_level", func, low=-32768, high=32768)
    weights = validate.choice(weights, "weights", func, ("linear", "quadratic"))
    top_k = validate.integer(top_k, "top_k", func, low=1)
    qa, qb = load_qrels(qrels_a), load_qrels(qrels_b)
    topics = set(runs.topics) if getattr(runs, "sharded", False) or isinstance(runs, Campaign) \
        else {str(t) for t in qa.topic_ids}
    in_axis = np.asarray([str(t) in topics for t in qb.topic_ids], dtype=bool)
    if not in_axis[qb.topic_codes].any():
        # every score under B would be 0 and every agreement NaN: refuse, not print
        def named(q: Any, name: str) -> str:
            return str(q) if isinstance(q, (str, os.PathLike)) else name
        shown = ", ".join(sorted(topics)[:5]) + (", ..." if len(topics) > 5 else "")
        raise InputError(f"{func}: {named(qrels_b, 'qrels_b')} judges none of the "
                         f"{len(topics)} topics of {named(qrels_a, 'qrels_a')} "
                         f"({shown}); expected two judgment sets of the same topics")
    _note_topics_b_lacks(topics, qb, qrels_b, func)
    levels_b = np.unique(qb.grades[in_axis[qb.topic_codes]].astype(np.int64))
    args = (measures, qb, rel_level, complete, levels_b)
    from irmeta.data.checks import require_common_topics
    if getattr(runs, "sharded", False):     # an open sharded campaign, judged by A
        if not complete:
            require_common_topics(runs.summary(), "qrels_agreement")
        pieces = runs.map(_scores_piece, args)
        values = [np.concatenate([p[i] for p in pieces], axis=-1) for i in range(4)]
        kinds, names = pieces[0][4], list(runs.runs)
    else:
        campaign = runs if isinstance(runs, Campaign) else load_campaign(qa, runs,
                                                                         warn_dropped=False)
        if not complete:
            require_common_topics(campaign, "qrels_agreement")
        *values, kinds = _scores_piece(campaign, args)
        names = list(campaign.runs)
    from irmeta.evaluation import aggregate_values
    means_a = np.stack([aggregate_values(values[0][:, j], values[1], k)
                        for j, k in enumerate(kinds)], axis=1)
    means_b = np.stack([aggregate_values(values[2][:, j], values[3], k)
                        for j, k in enumerate(kinds)], axis=1)
    pairs = shared_judgments(qa, qb)
    rows = []
    for topic, part in list(pairs.groupby("topic", sort=True)) + [("all", pairs)]:
        ga, gb = part["grade_a"].to_numpy(), part["grade_b"].to_numpy()
        rows.append((topic, len(part), int(np.sum(ga == gb)),
                     cohen_kappa(ga >= rel_level, gb >= rel_level),
                     cohen_kappa(ga, gb, weights)))
    kappa = pd.DataFrame(rows, columns=["topic", "shared", "agree", "kappa",
                                        "kappa_weighted"])
    confusion = pd.crosstab(pd.Series(pairs["grade_a"], name="grade_a"),
                            pd.Series(pairs["grade_b"], name="grade_b"))
    runs_ = names
    score_rows, summary_rows = [], []
    for j, m in enumerate(measures):
        sa, sb = means_a[:, j], means_b[:, j]
        ra, rb = _ranks(sa), _ranks(sb)
        for r, run in enumerate(runs_):
            score_rows.append((run, m, float(sa[r]), float(sb[r]), int(ra[r]), int(rb[r])))
        xa, xb = pd.Series(sa, index=runs_), pd.Series(sb, index=runs_)
        k = min(top_k, len(runs_))
        top_a = set(np.argsort(-np.nan_to_num(sa, nan=-np.inf), kind="stable")[:k])
        top_b = set(np.argsort(-np.nan_to_num(sb, nan=-np.inf), kind="stable")[:k])
        swap = np.abs(ra - rb)
        i = int(np.argmax(swap))
        two = len(runs_) >= 2
        summary_rows.append((m, kendall_tau(xa, xb) if two else float("nan"),
                             tau_ap(xb, xa) if two else float("nan"),
                             len(top_a & top_b) / k, int(swap[i]), runs_[i]))
    return Agreement(kappa, confusion,
                     pd.DataFrame(score_rows, columns=["run", "measure", "score_a", "score_b",
                                                       "rank_a", "rank_b"]),
                     pd.DataFrame(summary_rows, columns=["measure", "kendall_tau", "tau_ap",
                                                         "top_k_overlap", "largest_swap",
                                                         "largest_swap_run"]))
