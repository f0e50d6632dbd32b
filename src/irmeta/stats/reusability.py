"""Pool reusability: the leave-one-group-out test (Zobel 1998; Voorhees' TREC overviews).

For each group ``g`` (or each run, ``leave_out="run"``): the *unique* documents of ``g``
are the judged documents that only ``g``'s runs retrieved within the pool depth ``K``
(rank ``<= K`` in trec_eval's order, over the campaign's runs). The reduced qrels of ``g``
are the qrels without them; every run of ``g`` is re-evaluated on the reduced qrels (the
group's runs only: ``Campaign.select_runs(...).with_qrels(...)``, no copy of the
campaign per group). Scores are the means ``irmeta eval`` prints (trec_eval's ``all``);
``rank`` is a run's rank among all runs by ``score`` (1 = best, ties share the best
rank); ``rank_without`` is its rank when its own score is ``score_without`` and every
other run keeps its ``score`` (1 + the runs scoring strictly higher). Per measure,
Kendall's tau and tau_AP compare the system ranking by ``score`` with the one by
``score_without`` (each run's ``score_without`` comes from its own group's reduced
qrels), and the largest score and rank drops are reported. The rareness link: per group,
the relevant documents only it contributed and its runs' mean ``AP_rare@K`` (on the full
qrels, rarity over every run), the innovation paper's measure of finding what few runs
find. Context measures (rarity, NRG, ...) are refused as ``measures``: a group's runs
alone are not the campaign their context needs. Formulas: ``docs/pooling.md``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import MeasureError, ParameterError
from irmeta.stats._common import per_topic_values
from irmeta.stats.correlation import kendall_tau, tau_ap
from irmeta.stats.subsample import qrels_of


@dataclass(frozen=True, eq=False)
class Reusability:
    """The leave-one-group-out result (module doc).

    ``table``: one row per (group, run, measure): ``group, run, measure, score,
    score_without, rank, rank_without``. ``summary``: per measure ``kendall_tau,
    tau_ap, max_score_drop, max_score_drop_run, max_rank_drop, max_rank_drop_run``.
    ``groups``: per group ``group, runs, unique_judged, unique_relevant,
    mean_AP_rare`` (the rareness link).
    """

    leave_out: str
    depth: int
    table: pd.DataFrame
    summary: pd.DataFrame
    groups: pd.DataFrame
    #: per group: the judgments removed (``topic, docid, grade``)
    removed: dict[str, pd.DataFrame] = field(repr=False, default_factory=dict)
    #: the full qrels (whose rows the reduced qrels keep)
    qrels: object = field(repr=False, default=None)

    def __repr__(self) -> str:
        return (f"Reusability(leave-one-{self.leave_out}-out, depth {self.depth}, "
                f"{len(self.groups)} {self.leave_out}s, "
                f"{self.table['measure'].nunique()} measures; .table, .summary, .groups)")

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"summary": self.summary, "table": self.table,
                                        "groups": self.groups})

    def largest_drops(self, measure: str, n: int = 5) -> pd.DataFrame:
        """The ``n`` rows of ``measure`` with the largest score drop
        (``score - score_without``), largest first."""
        t = self.table[self.table["measure"] == measure].copy()
        t["drop"] = t["score"] - t["score_without"]
        return t.sort_values(["drop", "run"], ascending=[False, True]).head(n)

    def reduced_qrels(self, group: str):
        """The qrels without ``group``'s unique documents (a
        :class:`~irmeta.data.tables.Qrels`)."""
        if group not in self.removed:
            raise ParameterError(f"Reusability.reduced_qrels: no {self.leave_out} "
                                 f"{group!r} (have: {', '.join(self.removed)})")
        from irmeta.data.tables import decode_ids
        q: Any = self.qrels
        gone = self.removed[group]
        drop = set(zip(gone["topic"].astype(str), gone["docid"]))
        topics = q.topic_ids[q.topic_codes]
        keep = np.asarray([(str(t), d) not in drop
                           for t, d in zip(topics, decode_ids(q.docids))], dtype=bool)
        rows = np.flatnonzero(keep)
        return type(q)(q.topic_ids, q.topic_codes[rows], q.docids.take(_ints(rows)),
                       q.grades[rows], source=f"<qrels without {group}>")

    def write_qrels(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write each group's reduced qrels as ``FOLDER/<group>.qrels`` (trec_eval's
        ``topic 0 docid grade``, the campaign's topic and row order); returns the paths."""
        from irmeta.data.tables import decode_ids
        from irmeta.io.output import atomic_write, check_folder_target, write_errors
        base = check_folder_target(folder)
        with write_errors(base):
            base.mkdir(parents=True, exist_ok=True)
        paths = []
        for group in self.removed:
            q = self.reduced_qrels(group)
            topics = q.topic_ids[q.topic_codes]
            lines = [f"{t} 0 {d} {g}\n" for t, d, g in zip(topics, decode_ids(q.docids),
                                                           q.grades.tolist())]
            path = base / f"{_safe(group)}.qrels"
            with atomic_write(path) as fh:
                fh.write("".join(lines))
            paths.append(path)
        return paths


def _rarity_measure(rare: Any, depth: int, func: str) -> str:
    """``rare@depth`` after checking that ``rare`` is a rareness family (``P_rare`` or
    ``AP_rare`` with parameters, no cutoff: the cutoff is the pool depth)."""
    from irmeta.measures.innovation import is_rarity_kernel
    from irmeta.measures.parse import parse_measures
    if not isinstance(rare, str) or not rare.strip():
        raise ParameterError(f"{func}: rare must be a rareness measure such as "
                             f"'AP_rare(alpha=0.5)' or None, got {rare!r}")
    text = f"{rare}@{depth}"
    try:
        parsed = parse_measures([text])
    except (MeasureError, ParameterError):   # a cutoff of its own, a typo
        parsed = []
    if len(parsed) != 1 or not is_rarity_kernel(parsed[0]):
        raise ParameterError(f"{func}: rare {rare!r} is not a rareness measure; expected "
                             "P_rare or AP_rare with its parameters and no cutoff (it is "
                             f"evaluated @{depth}, the depth), e.g. 'AP_rare(alpha=0.5)', "
                             "or none")
    return text


def _safe(name: str) -> str:
    from irmeta.io.output import bounded_file_name
    return bounded_file_name("".join(c if c.isalnum() or c in "-_.+" else "_" for c in name))


def _unique_rows(campaign, owner_of_run: np.ndarray, n_owners: int, depth: int) -> np.ndarray:
    """int64 [n judged rows]: the owner (group or run index) that alone retrieved the
    row's document within ``depth``; -1 when none or several did."""
    D = min(depth, campaign.depth)
    valid = np.arange(D)[None, None, :] < campaign.length[:, :, None]
    r = np.nonzero(valid)[0]
    codes = campaign.doc_codes[:, :, :D][valid].astype(np.int64)
    pairs = np.unique(codes * n_owners + owner_of_run[r])
    code, own = pairs // n_owners, pairs % n_owners
    count = np.bincount(code, minlength=campaign.num_codes)
    owner = np.full(campaign.num_codes, -1, np.int64)
    single = count[code] == 1
    owner[code[single]] = own[single]
    return owner[campaign.judged_codes]


def _piece(campaign, args, reference=None) -> dict:
    """The per-topic part of the analysis on one campaign (the whole campaign in memory,
    or one topic shard: ``ShardedCampaign.map`` calls this with the shard's campaign).
    Values are per topic, so the shards' pieces, joined in topic order, are the whole
    campaign's piece."""
    measures, owner_of_run, n_owners, depth, rel_level, rare, groups = args
    row_owner = _unique_rows(campaign, owner_of_run, n_owners, depth)
    full = per_topic_values(campaign, measures, rel_level)
    without = np.full(full.values.shape, np.nan)
    without_evaluated = np.zeros(full.evaluated.shape, bool)
    judged = campaign.judged
    n = len(judged.grades)
    removed = []
    for o in range(n_owners):
        rows = np.flatnonzero(row_owner == o)
        removed.append(rows)
        members = np.flatnonzero(owner_of_run == o)
        keep = np.setdiff1d(np.arange(n), rows)
        # scored on the whole qrels' grade scale, in memory and in shards alike
        sub = campaign.select_runs(members).with_qrels(qrels_of(campaign, keep),
                                                       grade_levels=campaign.grade_levels)
        res = per_topic_values(sub, measures, rel_level)
        without[members], without_evaluated[members] = res.values, res.evaluated
    from irmeta.data.tables import decode_ids
    topics = np.asarray(campaign.topics, dtype=object)
    removed_frames = [pd.DataFrame({"topic": topics[judged.topic[rows]],
                                    "docid": decode_ids(judged.docids.take(_ints(rows))),
                                    "grade": judged.grades[rows]}) for rows in removed]
    rare_values = None
    if rare is not None:
        rare_values = per_topic_values(campaign, [rare], rel_level, groups=groups).values[:, 0]
    return {"values": full.values, "evaluated": full.evaluated, "without": without,
            "without_evaluated": without_evaluated,
            "removed": removed_frames, "rare": rare_values,
            "aggregate": [m.definition.aggregate for m in full.measures]}


def _ints(rows):
    from irmeta.data.tables import arrow_ints
    return arrow_ints(rows)


def _joined(pieces: list[dict]) -> dict:
    """The shards' pieces as one (topic axes concatenated in shard order)."""
    if len(pieces) == 1:
        return pieces[0]
    out: dict[str, Any] = {k: np.concatenate([p[k] for p in pieces], axis=-1)
           for k in ("values", "without")}
    for k in ("evaluated", "without_evaluated"):
        out[k] = np.concatenate([p[k] for p in pieces], axis=1)
    out["rare"] = (None if pieces[0]["rare"] is None else
                   np.concatenate([p["rare"] for p in pieces], axis=1))
    out["removed"] = [pd.concat([p["removed"][o] for p in pieces], ignore_index=True)
                      for o in range(len(pieces[0]["removed"]))]
    out["aggregate"] = pieces[0]["aggregate"]
    return out


def _rank_among(scores: np.ndarray) -> np.ndarray:
    """1-based rank of each score, higher is better, ties share the best rank; NaN last."""
    s = np.where(np.isnan(scores), -np.inf, scores)
    return 1 + (s[None, :] > s[:, None]).sum(axis=1)


def reusability(campaign, measures: Sequence[str],
                groups: Mapping[str, str] | str | os.PathLike[str] | None = None,
                *, depth: int = 100, leave_out: str = "group", rel_level: int = 1,
                rare: str | None = "AP_rare(alpha=0.5)") -> Reusability:
    """Leave-one-group-out (or leave-one-run-out) reusability of the campaign's qrels.

    Parameters
    ----------
    campaign : Campaign
        The runs and their qrels.
    measures : list of str
        Measures without context (``AP``, ``nDCG@10``, ``P@10`` ...).
    groups : mapping run -> group, or a groups file path
        Every run's group (required with ``leave_out="group"``; every run must have one,
        every name must be a run). A groups file has ``run group`` lines
        (:func:`irmeta.read_groups`; the CLI's ``--groups FILE``).
    depth : int
        The pool depth ``K`` within which "retrieved" counts.
    leave_out : ``"group"`` or ``"run"``
        Leave out a group's runs, or one run at a time (then ``groups`` is optional and
        only labels the rows).
    rel_level : int
        Binary relevance threshold (trec_eval ``-l``).
    rare : str or None
        The rarity measure family of the rareness link, evaluated at ``@depth``
        (default ``AP_rare(alpha=0.5)``, evaluated as ``AP_rare(alpha=0.5)@K``); None skips it.

    Examples
    --------
    >>> import irmeta
    >>> from irmeta.demo import demo_paths
    >>> paths = demo_paths()
    >>> c = irmeta.load_campaign(paths.qrels, paths.runs)
    >>> from irmeta.stats import reusability
    >>> res = reusability(c, ["AP"], paths.groups, depth=20)   # or a {run: group} dict
    >>> list(res.table.columns)
    ['group', 'run', 'measure', 'score', 'score_without', 'rank', 'rank_without']
    """
    from irmeta.evaluation import aggregate_values
    from irmeta.pooling import check_groups
    from irmeta.stats._common import context_free_measures
    func = "reusability"
    sharded = bool(getattr(campaign, "sharded", False))
    if not sharded:
        validate.campaign(campaign, func)
    measures = [str(m) for m in validate.measure_list(measures, func)]
    depth = validate.integer(depth, "depth", func, low=1)
    leave_out = validate.choice(leave_out, "leave_out", func, ("group", "run"))
    rel_level = validate.integer(rel_level, "rel_level", func, low=-32768, high=32768)
    context_free_measures(measures, func, "leaving a group out changes that context")
    if leave_out == "group" and groups is None:
        raise ParameterError(f"{func}: leave_out='group' needs groups (run -> group)")
    group_of = check_groups(groups, list(campaign.runs), func)
    runs = list(campaign.runs)
    owners = runs if leave_out == "run" else list(dict.fromkeys(group_of[r] for r in runs))
    owner_of_run = np.asarray([owners.index(r if leave_out == "run" else group_of[r])
                               for r in runs], dtype=np.int64)
    rare_measure = None if rare is None else _rarity_measure(rare, depth, func)
    args = (measures, owner_of_run, len(owners), depth, rel_level, rare_measure, group_of)
    from irmeta.data.checks import require_common_topics
    require_common_topics(campaign.summary() if sharded else campaign, func)
    if sharded:
        piece = _joined(campaign.map(_piece, args))
    else:
        piece = _piece(campaign, args)
    evaluated = piece["evaluated"]
    score = np.stack([aggregate_values(piece["values"][:, j], evaluated, kind)
                      for j, kind in enumerate(piece["aggregate"])], axis=1)
    without = np.stack([aggregate_values(piece["without"][:, j], piece["without_evaluated"],
                                         kind)
                        for j, kind in enumerate(piece["aggregate"])], axis=1)
    removed = dict(zip(owners, piece["removed"]))
    rare_means = None if piece["rare"] is None else \
        aggregate_values(piece["rare"], evaluated, "mean")
    table_rows, summary_rows = [], []
    for j, m in enumerate(measures):
        s, w = score[:, j], without[:, j]
        rank = _rank_among(s)
        rank_wo = np.empty(len(runs), np.int64)
        for r in range(len(runs)):
            alt = s.copy()
            alt[r] = w[r]
            rank_wo[r] = _rank_among(alt)[r]
        for r, run in enumerate(runs):
            table_rows.append((group_of[run] if leave_out == "group" else run, run, m,
                               float(s[r]), float(w[r]), int(rank[r]), int(rank_wo[r])))
        sx, wx = pd.Series(s, index=runs), pd.Series(w, index=runs)
        drop = s - w
        rdrop = rank_wo - rank
        i_s = int(np.nanargmax(drop)) if np.isfinite(drop).any() else 0
        i_r = int(np.argmax(rdrop))
        two = len(runs) >= 2
        summary_rows.append((m, kendall_tau(sx, wx) if two else float("nan"),
                             tau_ap(wx, sx) if two else float("nan"), float(drop[i_s]),
                             runs[i_s], int(rdrop[i_r]), runs[i_r]))
    table = pd.DataFrame(table_rows, columns=["group", "run", "measure", "score",
                                              "score_without", "rank", "rank_without"])
    summary = pd.DataFrame(summary_rows, columns=["measure", "kendall_tau", "tau_ap",
                                                  "max_score_drop", "max_score_drop_run",
                                                  "max_rank_drop", "max_rank_drop_run"])
    grp = pd.DataFrame({
        leave_out: owners,
        "runs": np.bincount(owner_of_run, minlength=len(owners)),
        "unique_judged": [len(removed[x]) for x in owners],
        "unique_relevant": [int((removed[x]["grade"] >= rel_level).sum()) for x in owners]})
    if rare_means is not None:
        grp[f"mean_{rare}@{depth}"] = [float(np.mean(rare_means[owner_of_run == o]))
                                       for o in range(len(owners))]
    if sharded:
        from irmeta.shards.parquet import read_qrels_shard
        qrels = read_qrels_shard(campaign.dataset, 0, len(campaign.topics))
    else:
        qrels = qrels_of(campaign)
    return Reusability(leave_out, depth, table, summary, grp, removed, qrels)
