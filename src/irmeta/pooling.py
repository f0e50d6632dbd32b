"""Judgment pools: which documents of the runs an organiser sends to the assessors.

``pool(runs, depth=K, strategy=...)`` returns a :class:`Pool`: one row per pooled
(topic, document), sorted by topic then document id, with the runs and groups that
retrieved it and the best rank at which it was retrieved, and per-topic statistics.
The formulas are in ``docs/pooling.md``; in short (``rank`` is 1-based, in trec_eval's
order: score descending, then document id descending, as the campaign builds it):

``depth``        depth-K union (TREC): every document some run ranks ``<= K``.
``group_depth``  per-group depth: each group's runs merged by best rank (ties by document
                 id descending), the first ``K`` documents of each group pooled; a group
                 that sent many runs gets the budget of one.
``rrf``          Take@N by reciprocal rank fusion: ``sum_r 1 / (k + rank_r(d))``,
                 the ``N = depth`` documents of highest value per topic.
``rbp_sum``      Take@N by RBP weight: ``sum_r (1 - p) p^(rank_r(d) - 1)``.
``rbp_max``      Take@N by RBP weight: ``max_r (1 - p) p^(rank_r(d) - 1)``.
``comb_sum``     Take@N by CombSUM of the raw scores ``sum_r s_r(d)``;
``comb_max``     CombMAX ``max_r s_r(d)``; ``comb_mnz`` CombMNZ ``n(d) * sum_r s_r(d)``
                 (``n(d)``: runs retrieving d) — trectools' ``combos``, unnormalised.

Take@N ties on the fused value are broken by document id ascending (what trectools'
pandas sort gives). A run's documents count at every rank it holds (``max_docs`` cuts).

The per-topic statistics: ``pool_size``, ``runs`` (runs with the topic), ``groups``
(groups that found a pooled document), ``docs_per_group`` (mean pooled documents a
contributing group found), ``unique_docs`` (pooled documents exactly one group found).
"Found" means retrieved within the depth for ``depth`` / ``group_depth``, at any rank
for the Take@N strategies.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from irmeta import validate
from irmeta.data.campaign import Campaign, build_campaign
from irmeta.data.tables import Qrels, Run, arrow_ints, decode_ids
from irmeta.errors import CampaignError, ParameterError
from irmeta.options import GroupsArgument, groups_argument

#: the pooling strategies (module doc)
STRATEGIES = ("depth", "group_depth", "rrf", "rbp_sum", "rbp_max", "comb_sum", "comb_max",
              "comb_mnz")
#: strategies that rank every retrieved document (fixed budget per topic, Take@N)
TAKE_N = ("rrf", "rbp_sum", "rbp_max", "comb_sum", "comb_max", "comb_mnz")


@dataclass(frozen=True, eq=False)
class Pool:
    """A judgment pool (see the module doc).

    ``table``: one row per pooled document, sorted by topic then docid, with the columns
    ``topic, docid, best_rank, n_runs, n_groups`` (and ``value``, the fused value, for
    the Take@N strategies). ``stats``: one row per topic (module doc).
    """

    strategy: str
    depth: int
    runs: tuple[str, ...]
    groups: dict[str, str]
    table: pd.DataFrame
    stats: pd.DataFrame
    #: per pooled row: the runs that found it (indices into ``runs``), CSR layout
    _ptr: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(1, np.int64))
    _members: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int64))

    def __len__(self) -> int:
        return len(self.table)

    def __repr__(self) -> str:
        return (f"Pool({self.strategy}, depth {self.depth}, {len(self.table):,} documents, "
                f"{len(self.stats):,} topics, {len(self.runs)} runs; .table, .stats)")

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), {"table": self.table, "stats": self.stats})

    def lines(self) -> str:
        """The pool as ``topic docid`` lines (the default output of ``irmeta pool``)."""
        t = self.table
        return "".join(f"{a} {b}\n" for a, b in zip(t["topic"], t["docid"]))

    def contributors(self) -> pd.DataFrame:
        """``table`` with the columns ``runs`` and ``groups``: the comma-joined names of
        the runs / groups that found each document (``--format tsv``)."""
        names = np.asarray(self.runs, dtype=object)
        group_of = np.asarray([self.groups[r] for r in self.runs], dtype=object)
        runs, groups = [], []
        ptr, members = self._ptr, self._members
        for a, b in zip(ptr[:-1], ptr[1:]):
            m = members[a:b]
            runs.append(",".join(names[m]))
            groups.append(",".join(dict.fromkeys(group_of[m])))
        out = self.table.copy()
        out.insert(2, "runs", runs)
        out.insert(3, "groups", groups)
        return out

    def to_qrels_frame(self, grade: int = 0) -> pd.DataFrame:
        """``query_id, doc_id, relevance``: the pool as a qrels frame (one grade)."""
        return pd.DataFrame({"query_id": self.table["topic"], "doc_id": self.table["docid"],
                             "relevance": grade})


# ------------------------------------------------------------------ campaigns
def runs_campaign(runs: Sequence[Run], *, max_docs: int | None = None,
                  dedupe: bool = False) -> Campaign:
    """The campaign of parsed runs over their own topics (no judgments): the topic axis
    is every topic some run retrieved for, sorted as trec_eval sorts (by string). Ranks
    are the campaign's (trec_eval's order). Each topic carries one placeholder judgment
    of the empty document id (which no run file can hold), so nothing is judged."""
    topics = sorted({str(t) for run in runs for t in run.topic_ids[np.unique(run.topic_codes)]})
    if not topics:
        raise CampaignError("the runs retrieve no document")
    n = len(topics)
    qrels = Qrels(topic_ids=np.asarray(topics, dtype=object),
                  topic_codes=np.arange(n, dtype=np.int32),
                  docids=pa.array([b""] * n, pa.binary()), grades=np.zeros(n, np.int64),
                  source="<no judgments>")
    return build_campaign(qrels, list(runs), max_docs=max_docs, dedupe=dedupe,
                          warn_dropped=False)


def check_groups(groups: GroupsArgument | None, runs: Sequence[str], func: str,
                 source: str | None = None) -> dict[str, str]:
    """``{run: group}`` for every run (each run its own group when ``groups`` is None);
    a CampaignError naming the runs without a group, or the names that are no run.
    ``groups``: a mapping or a groups file path (:func:`irmeta.options.groups_argument`;
    the messages then name the file)."""
    if isinstance(groups, (str, os.PathLike)):
        source = source or os.fspath(groups)
    groups = groups_argument(groups, func)
    if groups is None:
        return {r: r for r in runs}
    where = f"{source}: " if source else f"{func}: groups "
    unknown = [str(r) for r in groups if r not in set(runs)]
    if unknown:
        raise CampaignError(f"{where}names run(s) that are not in the campaign: "
                            f"{', '.join(unknown[:10])}{' ...' if len(unknown) > 10 else ''} "
                            f"(runs: {', '.join(runs[:10])}{', ...' if len(runs) > 10 else ''})")
    missing = [r for r in runs if r not in groups]
    if missing:
        raise CampaignError(f"{where}has no group for run(s) {', '.join(missing[:10])}"
                            f"{' ...' if len(missing) > 10 else ''}")
    return {r: str(groups[r]) for r in runs}


# ------------------------------------------------------------------ cells
def _cells(campaign: Campaign, depth: int | None) -> tuple[np.ndarray, ...]:
    """Flat ``(run, topic, rank0, code)`` of every retrieved cell at 0-based rank < depth
    (every cell when depth is None)."""
    D = campaign.depth if depth is None else min(depth, campaign.depth)
    valid = np.arange(D)[None, None, :] < campaign.length[:, :, None]
    r, t, i = np.nonzero(valid)
    codes = campaign.doc_codes[:, :, :D][valid]
    return r.astype(np.int64), t.astype(np.int64), i.astype(np.int64), codes.astype(np.int64)


def _docids_of(campaign: Campaign, r: np.ndarray, t: np.ndarray, i: np.ndarray) -> pa.Array:
    """The document ids (bytes, an Arrow binary array) of the cells ``(r, t, i)``."""
    pos = campaign.starts[r, t] + i
    order = np.argsort(r, kind="stable")
    rs = r[order]
    bounds = np.r_[0, np.flatnonzero(rs[1:] != rs[:-1]) + 1, len(rs)]
    chunks = [campaign.docids[int(rs[a])].take(arrow_ints(pos[order[a:b]])).cast(pa.binary())
              for a, b in zip(bounds[:-1], bounds[1:])]
    if not chunks:
        return pa.array([], pa.binary())
    ids = pa.concat_arrays(chunks)
    inverse = np.empty(len(order), np.int64)
    inverse[order] = np.arange(len(order))
    return ids.take(arrow_ints(inverse))


def _texts(ids: pa.Array) -> np.ndarray:
    """Document ids as text (object array): UTF-8 decoded by Arrow, or one by one with
    :func:`~irmeta.data.tables.decode_id` when some id is not UTF-8."""
    try:
        out: np.ndarray = ids.cast(pa.string()).to_numpy(zero_copy_only=False)
        return out
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return np.asarray(decode_ids(ids), dtype=object)


def _cell_scores(campaign: Campaign, runs: Sequence[Run], r: np.ndarray, t: np.ndarray,
                 i: np.ndarray) -> np.ndarray:
    """The run score of each cell (the runs' rows matched by topic and document)."""
    from irmeta.data.fingerprint import combine
    index = {tp: k for k, tp in enumerate(campaign.topics)}
    out = np.full(len(r), np.nan)
    fp = campaign.doc_fp[r, t, i]
    for k, run in enumerate(runs):
        sel = np.flatnonzero(r == k)
        if not len(sel):
            continue
        remap = np.asarray([index.get(str(x), -1) for x in run.topic_ids], dtype=np.int64)
        keys = combine(remap[run.topic_codes], run.fingerprints)
        order = np.argsort(keys, kind="stable")
        want = combine(t[sel], fp[sel])
        loc = np.searchsorted(keys[order], want)
        out[sel] = run.scores[order[np.minimum(loc, len(order) - 1)]]
    return out


def _fused(strategy: str, codes: np.ndarray, i: np.ndarray, scores: np.ndarray | None,
           num_codes: int, p: float, k: int) -> np.ndarray:
    """Fused value per code (module doc); NaN for codes no cell holds."""
    if strategy == "rrf":
        v = 1.0 / (k + i + 1.0)
    elif strategy.startswith("rbp"):
        v = (1.0 - p) * np.power(p, i.astype(np.float64))
    elif scores is not None:
        v = scores
    else:
        raise ParameterError(f"pool: strategy {strategy!r} needs the runs' scores")
    count = np.bincount(codes, minlength=num_codes)
    if strategy.endswith("_max"):
        out = np.full(num_codes, -np.inf)
        np.maximum.at(out, codes, v)
    else:
        out = np.bincount(codes, weights=v, minlength=num_codes)
        if strategy == "comb_mnz":
            out = out * count
    out = out.astype(np.float64)
    out[count == 0] = np.nan
    return out


# ------------------------------------------------------------------ the pool
def pool(runs: Any, depth: int = 10, *, strategy: str = "depth",
         groups: GroupsArgument | None = None, rbp_p: float = 0.8, rrf_k: int = 60,
         names: Sequence[str] | None = None, max_docs: int | None = None,
         float32: bool = False, dedupe: bool = False) -> Pool:
    """The judgment pool of ``runs`` (module doc; formulas in ``docs/pooling.md``).

    Parameters
    ----------
    runs : paths, DataFrames, dicts, Runs (as :func:`irmeta.load_runs` reads), or a
        built :class:`~irmeta.data.campaign.Campaign` (its qrels topics only; the
        ``comb_*`` strategies need the runs' scores, so not a campaign).
    depth : int
        ``K`` of ``depth`` / ``group_depth``; the budget ``N`` per topic of Take@N.
    strategy : str
        One of :data:`STRATEGIES`.
    groups : mapping run -> group, or a groups file path, optional
        A groups file has ``run group`` lines (:func:`irmeta.read_groups`; the CLI's
        ``--groups FILE``). Default: each run its own group.
    rbp_p, rrf_k : RBP persistence ``p`` (``rbp_*``) and the RRF constant ``k`` (``rrf``).
    names, max_docs, float32, dedupe : how the runs are read (:func:`irmeta.load_runs`).

    Examples
    --------
    >>> import irmeta
    >>> runs = {"A": {"q1": {"d1": 3.0, "d2": 2.0}}, "B": {"q1": {"d3": 1.0, "d1": 0.5}}}
    >>> print(irmeta.pool(runs, depth=1).lines(), end="")
    q1 d1
    q1 d3
    """
    func = "pool"
    depth = validate.integer(depth, "depth", func, low=1)
    strategy = validate.choice(strategy, "strategy", func, STRATEGIES)
    p = validate.number(rbp_p, "rbp_p", func, low=0.0, high=1.0, low_open=True,
                        high_open=True)
    k = validate.integer(rrf_k, "rrf_k", func, low=0)
    run_tables: list[Run] | None = None
    if getattr(runs, "sharded", False):     # an open sharded campaign (irmeta.open_shards)
        if strategy.startswith("comb"):
            raise ParameterError(f"{func}: strategy {strategy!r} fuses the runs' scores, "
                                 "which a sharded campaign does not keep; pass the runs")
        group_of = check_groups(groups, list(runs.runs), func)
        pieces = runs.map(_pool_piece, (depth, strategy, group_of, p, k))
        return _merged(pieces)
    if isinstance(runs, Campaign):
        campaign = runs
        if strategy.startswith("comb"):
            raise ParameterError(f"{func}: strategy {strategy!r} fuses the runs' scores, "
                                 "which a Campaign does not keep; pass the runs instead")
        if names is not None or max_docs is not None or float32 or dedupe:
            raise ParameterError(f"{func}: names, max_docs, float32 and dedupe say how runs "
                                 "are read; a built Campaign was given")
    else:
        from irmeta.io.load import load_runs
        if max_docs is not None:
            max_docs = validate.integer(max_docs, "max_docs", func, low=1)
        run_tables = load_runs(runs, names, float32=validate.flag(float32, "float32", func))
        cut = depth if strategy in ("depth", "group_depth") else max_docs
        if cut is not None and max_docs is not None:
            cut = min(cut, max_docs)
        campaign = runs_campaign(run_tables, max_docs=cut,
                                 dedupe=validate.flag(dedupe, "dedupe", func))
    group_of = check_groups(groups, list(campaign.runs), func)
    return pool_campaign(campaign, depth, strategy=strategy, groups=group_of, p=p, k=k,
                         runs=run_tables)


def pool_campaign(campaign: Campaign, depth: int, *, strategy: str, groups: dict[str, str],
                  p: float = 0.8, k: int = 60, runs: Sequence[Run] | None = None) -> Pool:
    """:func:`pool` of a built campaign (arguments checked)."""
    gnames = list(dict.fromkeys(groups[r] for r in campaign.runs))
    gidx = np.asarray([gnames.index(groups[r]) for r in campaign.runs], dtype=np.int64)
    take_n = strategy in TAKE_N
    r, t, i, codes = _cells(campaign, None if take_n else depth)
    n_codes = campaign.num_codes
    if strategy == "depth":
        pooled = np.zeros(n_codes, bool)
        pooled[codes] = True
        value = None
    elif strategy == "group_depth":
        pooled, value = _group_depth(campaign, r, t, i, codes, gidx, depth), None
    else:
        scores = _cell_scores(campaign, runs or [], r, t, i) if strategy.startswith("comb") \
            else None
        fused = _fused(strategy, codes, i, scores, n_codes, p, k)
        pooled, value = _take_n(campaign, r, t, i, codes, fused, depth), fused
    return _assemble(campaign, strategy, depth, groups, gnames, gidx, r, t, i, codes,
                     pooled, value)


def _pool_piece(campaign: Campaign, args, reference=None) -> Pool:
    """The pool of one topic shard (``ShardedCampaign.map`` calls it per shard)."""
    depth, strategy, groups, p, k = args
    return pool_campaign(campaign, depth, strategy=strategy, groups=groups, p=p, k=k)


def _merged(pieces: list[Pool]) -> Pool:
    """The shards' pools as one: every strategy is per topic and shards hold contiguous
    runs of the sorted topics, so concatenating in shard order keeps the order."""
    first = pieces[0]
    if len(pieces) == 1:
        return first
    offsets = np.cumsum([0] + [len(x._members) for x in pieces[:-1]])
    ptr = np.concatenate([[0]] + [x._ptr[1:] + off for x, off in zip(pieces, offsets)])
    return Pool(first.strategy, first.depth, first.runs, first.groups,
                pd.concat([x.table for x in pieces], ignore_index=True),
                pd.concat([x.stats for x in pieces], ignore_index=True),
                ptr.astype(np.int64), np.concatenate([x._members for x in pieces]))


def _representatives(r, t, i, codes, n_codes):
    """One cell per code: its first cell (by run, topic, rank)."""
    first = np.full(n_codes, -1, np.int64)
    order = np.arange(len(codes))[::-1]
    first[codes[order]] = order
    return first


def _code_docids(campaign, r, t, i, codes, wanted: np.ndarray) -> pa.Array:
    """The document id (bytes) of each code of ``wanted``."""
    first = _representatives(r, t, i, codes, campaign.num_codes)
    cells = first[wanted]
    return _docids_of(campaign, r[cells], t[cells], i[cells])


def _id_rank(ids: pa.Array, wanted: np.ndarray, num_codes: int) -> np.ndarray:
    """int64 [num_codes]: each code of ``wanted`` ranked by its document id (byte order,
    ascending; ``ids`` aligned with ``wanted``)."""
    import pyarrow.compute as pc
    rank = np.zeros(num_codes, np.int64)
    order = np.asarray(pc.sort_indices(ids), dtype=np.int64)
    rank[wanted[order]] = np.arange(len(order))
    return rank


def _group_depth(campaign, r, t, i, codes, gidx, depth) -> np.ndarray:
    """Pooled codes of the per-group depth strategy."""
    g = gidx[r]
    key = g * campaign.num_codes + codes
    order = np.lexsort((i, key))
    first = np.r_[True, key[order][1:] != key[order][:-1]]
    sel = order[first]                     # best cell of each (group, code)
    cand = _distinct(codes[sel], campaign.num_codes)
    # rank of each document id among the candidates, for the tie-break
    id_rank = _id_rank(_code_docids(campaign, r, t, i, codes, cand), cand, campaign.num_codes)
    # per (group, topic): best rank ascending, then document id descending
    gt = g[sel] * campaign.num_topics + t[sel]
    o = np.lexsort((-id_rank[codes[sel]], i[sel], gt))
    gts = gt[o]
    start = np.r_[0, np.flatnonzero(gts[1:] != gts[:-1]) + 1]
    pos = np.arange(len(o)) - np.repeat(start, np.diff(np.r_[start, len(o)]))
    pooled = np.zeros(campaign.num_codes, bool)
    pooled[codes[sel][o][pos < depth]] = True
    return pooled


def _take_n(campaign, r, t, i, codes, fused, budget) -> np.ndarray:
    """Pooled codes of a Take@N strategy: the ``budget`` codes of highest fused value per
    topic, ties by document id ascending."""
    present = _distinct(codes, campaign.num_codes)
    id_rank = _id_rank(_code_docids(campaign, r, t, i, codes, present), present,
                       campaign.num_codes)
    topic = campaign.code_topic[present]
    o = np.lexsort((id_rank[present], -fused[present], topic))
    ts = topic[o]
    start = np.r_[0, np.flatnonzero(ts[1:] != ts[:-1]) + 1]
    pos = np.arange(len(o)) - np.repeat(start, np.diff(np.r_[start, len(o)]))
    pooled = np.zeros(campaign.num_codes, bool)
    pooled[present[o][pos < budget]] = True
    return pooled


def _distinct(keys: np.ndarray, bound: int) -> np.ndarray:
    """``np.unique(keys)`` for keys in ``[0, bound)``: a bitmap when it is small (linear,
    and several times faster than sorting the millions of cells of a deep pool)."""
    if bound > (1 << 28):
        return np.unique(keys)
    seen = np.zeros(bound, dtype=bool)
    seen[keys] = True
    return np.flatnonzero(seen)


def _assemble(campaign, strategy, depth, groups, gnames, gidx, r, t, i, codes, pooled,
              value) -> Pool:
    found = pooled[codes]
    fr, fi, fc = r[found], i[found], codes[found]
    wanted = np.flatnonzero(pooled)
    ids = _code_docids(campaign, r, t, i, codes, wanted)
    id_rank = _id_rank(ids, wanted, campaign.num_codes)
    best = np.full(campaign.num_codes, np.iinfo(np.int64).max)
    np.minimum.at(best, fc, fi + 1)
    # runs (and groups) per pooled code
    rc = _distinct(fc * campaign.num_runs + fr, campaign.num_codes * campaign.num_runs)
    rc_code, rc_run = rc // campaign.num_runs, rc % campaign.num_runs
    n_runs = np.bincount(rc_code, minlength=campaign.num_codes)
    gc = _distinct(fc * len(gnames) + gidx[fr], campaign.num_codes * len(gnames))
    gc_code, gc_group = gc // len(gnames), gc % len(gnames)
    n_groups = np.bincount(gc_code, minlength=campaign.num_codes)
    topics = np.asarray(campaign.topics, dtype=object)
    # by topic (the campaign's topics are sorted as text), then document id (byte order)
    sort = np.lexsort((id_rank[wanted], campaign.code_topic[wanted]))
    order_codes = wanted[sort]
    frame = pd.DataFrame({"topic": topics[campaign.code_topic[order_codes]],
                          "docid": _texts(ids.take(arrow_ints(sort))),
                          "best_rank": best[order_codes], "n_runs": n_runs[order_codes],
                          "n_groups": n_groups[order_codes]})
    if value is not None:
        frame["value"] = value[order_codes]
    # CSR of the runs of each row, in row order
    pos_of = np.full(campaign.num_codes, -1, np.int64)
    pos_of[order_codes] = np.arange(len(order_codes))
    row = pos_of[rc_code]
    o = np.lexsort((rc_run, row))
    members = rc_run[o]
    ptr = np.zeros(len(order_codes) + 1, np.int64)
    np.cumsum(np.bincount(row, minlength=len(order_codes)), out=ptr[1:])
    # per-topic statistics
    T = campaign.num_topics
    size = np.bincount(campaign.code_topic[wanted], minlength=T)
    gt = np.unique(campaign.code_topic[gc_code] * len(gnames) + gc_group)
    groups_per_topic = np.bincount(gt // len(gnames), minlength=T)
    docs_group = np.bincount(campaign.code_topic[gc_code], minlength=T)
    unique = np.bincount(campaign.code_topic[wanted][n_groups[wanted] == 1], minlength=T)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_group = np.where(groups_per_topic > 0, docs_group / groups_per_topic, np.nan)
    stats = pd.DataFrame({"topic": list(campaign.topics), "pool_size": size,
                          "runs": campaign.has_topic.sum(axis=0),
                          "groups": groups_per_topic, "docs_per_group": per_group,
                          "unique_docs": unique})
    return Pool(strategy, depth, tuple(campaign.runs), dict(groups), frame, stats, ptr,
                members)
