"""Normalized Residual Gain (SIGIR-AP 2024; code: github aminbigdeli/Normalized-Residual-Gain).

A base metric of the browsing-model form ``S(R) = (1/N) * sum_{i<=K} G(d_i) * seen(i)``
is re-scored against a set of **prior rankings** P by replacing the gain with the
residual gain

    G(d | P) = G(d) * prod_{R_j in P} (1 - seen(pos(d, R_j)))

where ``pos(d, R_j)`` is the rank of d in the top K of ``R_j`` and ``seen(pos) = 0``
when d is not there. With an empty prior set NRG is the base metric.

==========  ==========================  ====================  ================================
base        G(d) (``gain=``, default)   seen(i), i <= K       N
==========  ==========================  ====================  ================================
nDCG        graded (grade)              1 / log2(i + 1)       ideal: the topic's judged
                                                              documents sorted by residual
                                                              gain, top K
DCG         graded (grade)              1 / log2(i + 1)       1
P           Rel                         1                     K (no @K: run length)
RBP(p)      graded (binary = Rel)       p^(i-1)               1 / (1 - p)
unique      Rel                         1                     1
==========  ==========================  ====================  ================================

Each base is one declaration in :data:`BASES`: its gain kinds (the first is the default),
its ``seen`` function and its normalisation — adding a base of this form is one entry.
Graded gains (``gain=``): ``grade`` (max(grade, 0)), ``exp`` (2^grade - 1), ``binary``
(Rel), ``scaled`` (max(grade, 0) / the highest grade of the qrels, in [0, 1]: graded RBP
as Moffat & Zobel define it with gains in [0, 1]). ``DCG`` and graded ``RBP`` (irmeta
extensions; the paper uses nDCG, P, RBP and unique) are unnormalised beyond their N.

``Rel(d) = 1`` iff grade >= ``rel`` (default: the evaluation's relevance level). Without
``@K`` whole rankings are used. NRG = 0 when N = 0 (a topic without relevant documents).

Prior sets (``prior=``): ``others`` (every other run of the campaign), ``best_per_group``
(the best run — by the base metric's mean over the campaign topic set, ties to the
earlier run — of every *other* group; needs ``ctx.groups``), ``earlier`` (the runs before
it in campaign order), ``list`` (``ctx.prior_runs``; API ``prior_runs=``, CLI
``--prior-runs``). A run is never its own prior.

Cost: the residual products are computed per topic once over all runs, as a count of
zero factors and a sum of logs of the non-zero ones (:func:`irmeta.measures.context.seen_totals`);
each run's product then removes one row (its own, or its group's best run) or, for
``earlier``, is an exclusive cumulative sum over the run axis: O(R * T * (K + J_t)) time
with J_t the judged documents of a topic, no loop over pairs of runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Literal, overload

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import CampaignError, MeasureError
from irmeta.measures.context import judged_cells, seen_totals
from irmeta.measures.kernel import REL, relevance_level, seqsum, topic_blocks, window
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param

PRIORS = ("others", "best_per_group", "earlier", "list")
GAIN_KINDS = ("grade", "binary", "exp", "scaled")


# ------------------------------------------------------------------ bases
def _log_seen(m: Measure, w: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, w + 2, dtype=np.float64))


def _geometric_seen(m: Measure, w: int) -> np.ndarray:
    return float(m["p"]) ** np.arange(w, dtype=np.float64)


def _flat_seen(m: Measure, w: int) -> np.ndarray:
    return np.ones(w)


@dataclass(frozen=True)
class BaseDef:
    """A base metric declared as a (gain, seen, normalisation) triple.

    ``gains``: the gain kinds it accepts, the first being its default. ``seen(m, w)``:
    seen(i) for ranks 1..w. ``norm``: ``ideal`` (the ideal ranking's sum of residual
    gains times seen, top K), ``depth`` (K, or the run's length without @K), ``rbp``
    (1 / (1 - p): the weight of rank i becomes (1 - p) p^(i-1), as the classic RBP
    kernel multiplies) or ``one``. ``divides``: the contribution is computed as
    ``G / log2(i + 1)`` (bit-identical to the classic nDCG kernel) instead of
    ``G * seen(i)``."""

    name: str
    seen: Callable[[Measure, int], np.ndarray]
    norm: str
    gains: tuple[str, ...]
    divides: bool = False
    key_params: tuple[str, ...] = ()


#: every NRG base, by name (module doc)
BASES: dict[str, BaseDef] = {b.name: b for b in (
    BaseDef("nDCG", _log_seen, "ideal", GAIN_KINDS, divides=True),
    BaseDef("DCG", _log_seen, "one", GAIN_KINDS, divides=True),
    BaseDef("P", _flat_seen, "depth", ("binary",)),
    BaseDef("RBP", _geometric_seen, "rbp", ("binary", "grade", "exp", "scaled"),
            key_params=("p",)),
    BaseDef("unique", _flat_seen, "one", ("binary",)),
)}


@dataclass(frozen=True)
class Base:
    """A base metric resolved for one measure over ranks 1..w."""

    name: str
    seen: np.ndarray          # float64 [w]: seen(i) for the priors' factors 1 - seen(pos)
    key: tuple[Any, ...]      # identifies ``seen`` for memoisation
    definition: BaseDef       # the declaration it was resolved from

    def contribution_at(self, residual: np.ndarray, rank0: np.ndarray) -> np.ndarray:
        """``G(d_i|P) * seen(i)`` for residual gains at 0-based ranks ``rank0``, with the
        floating-point operations of irmeta's classic kernels (nDCG divides by
        ``log2(i + 1)``, RBP multiplies by ``(1 - p) * p^(i-1)``)."""
        w = len(self.seen)
        d = self.definition
        contribution: np.ndarray
        if d.divides:
            contribution = residual / np.log2(np.arange(2, w + 2, dtype=np.float64))[rank0]
        elif d.norm == "rbp":
            p = self.key[1]
            contribution = residual * ((1.0 - p) * p ** np.arange(w))[rank0]
        else:
            contribution = residual * self.seen[rank0]
        return contribution


def base_of(m: Measure, w: int) -> Base:
    """The :class:`Base` of an NRG measure for ranks 1..w."""
    d = BASES[m["base"]]
    seen = d.seen(m, w)
    key = (("log",) if d.seen is _log_seen else ("flat",) if d.seen is _flat_seen
           else (d.name,) + tuple(float(m[k]) for k in d.key_params))
    return Base(d.name, seen, key, d)


def gain_kind(m: Measure) -> str:
    """The measure's gain kind: its ``gain=`` or its base's default."""
    return m["gain"] or BASES[m["base"]].gains[0]


def judged_gains(campaign: Campaign, m: Measure, level: int, lo: int, hi: int) -> np.ndarray:
    """float64 gains ``G(d)`` of the qrels rows ``lo:hi`` for the measure's gain kind:
    ``grade`` (negative -> 0), ``binary`` (grade >= rel), ``exp`` (2^grade - 1, grade > 0),
    ``scaled`` (max(grade, 0) / the highest grade of the qrels)."""
    grades = campaign.judged.grades[lo:hi]
    kind = gain_kind(m)
    if kind == "binary":
        return (grades >= level).astype(np.float64)
    if kind == "exp":
        return np.where(grades > 0, np.exp2(np.maximum(grades, 0).astype(np.float64)) - 1.0, 0.0)
    graded = np.where(grades > 0, grades, 0).astype(np.float64)
    if kind == "scaled":
        top = campaign.grade_levels.max(initial=0)
        return graded / float(top) if top > 0 else np.zeros(len(grades))
    return graded


# ------------------------------------------------------------------ prior plans
@dataclass(frozen=True)
class PriorPlan:
    """Which runs are priors of which run.

    ``kind == "earlier"``: priors of run r are runs 0..r-1. Otherwise ``member[j]`` says
    whether run j belongs to the common prior pool and ``exclude[r]`` is the pool member
    removed for run r (itself, or its group's best run; -1: none).
    """

    kind: str
    member: np.ndarray        # bool [R]
    exclude: np.ndarray       # int64 [R]


def prior_plan(campaign: Campaign, m: Measure, ctx: EvalContext) -> PriorPlan:
    """Resolve ``prior=`` against the campaign and the context (see module doc)."""
    R = campaign.num_runs
    kind = m["prior"]
    everyone = np.ones(R, dtype=bool)
    if kind == "others":
        return PriorPlan(kind, everyone, np.arange(R))
    if kind == "earlier":
        return PriorPlan(kind, everyone, np.full(R, -1))
    if kind == "list":
        if ctx.prior_runs is None:
            raise CampaignError(f"{m.name}: prior=list needs an explicit prior set "
                                "(API prior_runs=[...], CLI --prior-runs a,b,c)")
        unknown = [r for r in ctx.prior_runs if r not in campaign.runs]
        if unknown:
            raise CampaignError(f"{m.name}: prior runs not in the campaign: {', '.join(unknown)}")
        member = np.isin(np.asarray(campaign.runs, dtype=object),
                         np.asarray(list(ctx.prior_runs), dtype=object))
        return PriorPlan(kind, member, np.where(member, np.arange(R), -1))
    # best_per_group
    if not ctx.groups:
        raise CampaignError(f"{m.name}: prior=best_per_group needs a run -> group mapping "
                            "(API groups={run: group}, CLI --groups FILE)")
    missing = [r for r in campaign.runs if r not in ctx.groups]
    if missing:
        raise CampaignError(f"{m.name}: prior=best_per_group: no group for run(s) "
                            f"{', '.join(missing)}")
    best = best_per_group(campaign, m, ctx)
    group_of = [ctx.groups[r] for r in campaign.runs]
    member = np.zeros(R, dtype=bool)
    member[list(best.values())] = True
    exclude = np.asarray([best[g] for g in group_of], dtype=np.int64)
    return PriorPlan(kind, member, exclude)


def selection_measure(m: Measure) -> Measure | None:
    """The measure ``select=`` names (parsed), or None when the base metric selects."""
    text = m.get("select")
    if text is None:
        return None
    from irmeta.measures.parse import parse_measure  # the parser sits beside the registry
    found = parse_measure(text)
    if len(found) != 1 or found[0].definition.context:
        raise MeasureError(f"{m.definition.name}: select must name one measure that does "
                           f"not depend on the other runs (e.g. select='nDCG@10'), "
                           f"got {text!r}")
    return found[0]


def best_per_group(campaign: Campaign, m: Measure, ctx: EvalContext) -> dict[str, int]:
    """group -> index of its best run averaged over the campaign topic set, by
    :func:`ranking_measure` (the ``select=`` measure when given — the NRG paper's Figure 2
    picks by nDCG@10 while NRG runs at full depth —, else the base metric, i.e. NRG with
    no prior); ties go to the run that comes first in the campaign. A topic shard gets the
    whole campaign's means in ``ctx.campaign_means``."""
    ranking = ranking_measure(m)
    if ctx.campaign_means is not None and ranking.name in ctx.campaign_means:
        means = ctx.campaign_means[ranking.name]  # a shard: means of the whole campaign
    else:
        means = campaign_means(campaign, ranking, ctx)
    best: dict[str, int] = {}
    groups = ctx.groups or {}           # prior_plan checked that every run has a group
    for r, run in enumerate(campaign.runs):
        g = groups[run]
        if g not in best or means[r] > means[best[g]]:
            best[g] = r
    return best


def ranking_measure(m: Measure) -> Measure:
    """The measure whose campaign means rank the runs of a group for
    ``prior=best_per_group``: the ``select=`` measure, else the base metric (``m`` with an
    empty prior list)."""
    chooser = selection_measure(m)
    return m.replace(prior="list") if chooser is None else chooser


def campaign_means(campaign: Campaign, ranking: Measure, ctx: EvalContext) -> np.ndarray:
    """[R] means of ``ranking`` (:func:`ranking_measure`) over the campaign topic set (a
    sharded evaluation applies :func:`topic_set_means` to the gathered values)."""
    none = EvalContext(rel_level=ctx.rel_level, prior_runs=(), cache=ctx.cache)
    values = ranking.definition.kernel(campaign, ranking, none)
    return topic_set_means(values, campaign.topic_set(relevance_level(ranking, none)))


def topic_set_means(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """[R] row means of ``values[R, T]`` over the topics ``keep`` (0 when none)."""
    return values[:, keep].mean(axis=1) if keep.any() else np.zeros(values.shape[0])


# ------------------------------------------------------------------ kernel
def _dense_earlier(R: int, Tb: int, J: int, r_i: np.ndarray, t_i: np.ndarray,
                   i_i: np.ndarray, jl: np.ndarray, zero: np.ndarray,
                   logf: np.ndarray) -> np.ndarray:
    """[R, Tb, J] product over the runs before each run of ``1 - seen(pos)`` at every
    judged document: an exclusive cumulative sum over the run axis of zero flags and
    logs of the non-zero factors."""
    zf = np.zeros((R, Tb, J), dtype=np.int32)
    lf = np.zeros((R, Tb, J))
    zf[r_i, t_i, jl] = zero[i_i]
    lf[r_i, t_i, jl] = np.where(zero[i_i], 0.0, logf[i_i])
    zr = np.zeros(zf.shape, dtype=np.int32)
    lr = np.zeros(lf.shape)
    np.cumsum(zf[:-1], axis=0, out=zr[1:])
    np.cumsum(lf[:-1], axis=0, out=lr[1:])
    out: np.ndarray = np.exp(lr)
    out[zr > 0] = 0.0
    return out


def _product(zeros: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """prod of factors from (number of zero factors, sum of logs of the others)."""
    out: np.ndarray = np.exp(logs)
    out[zeros > 0] = 0.0
    return out


def _sorted_desc_top(values: np.ndarray, n: int) -> np.ndarray:
    """The ``n`` largest values along the last axis, descending, zero-padded to n."""
    values = np.sort(values, axis=-1)
    top = values[..., ::-1][..., :n]
    if top.shape[-1] < n:
        pad = np.zeros(top.shape[:-1] + (n - top.shape[-1],))
        top = np.concatenate([top, pad], axis=-1)
    return top


@overload
def nrg_block(campaign: Campaign, m: Measure, ctx: EvalContext, plan: PriorPlan,
              t0: int, t1: int, cells: Literal[False] = False) -> np.ndarray: ...


@overload
def nrg_block(campaign: Campaign, m: Measure, ctx: EvalContext, plan: PriorPlan,
              t0: int, t1: int,
              cells: Literal[True]) -> tuple[np.ndarray, np.ndarray, np.ndarray]: ...


def nrg_block(campaign: Campaign, m: Measure, ctx: EvalContext, plan: PriorPlan,
              t0: int, t1: int,
              cells: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray, np.ndarray]:
    """NRG of every run on topics ``t0:t1`` -> float64 [R, t1-t0].

    With ``cells=True`` also return ``(prior[R, Tb, w], residual[R, Tb, w])``: at each
    rank of the top K, the product over the prior set of ``1 - seen(pos)`` and the
    residual gain ``G(d|P)`` (NaN for documents outside the qrels).

    Only judged documents can have a gain, so residual products are computed for qrels
    rows: per row, totals over the prior pool (zero count, log sum), minus one run's
    factor at the cells where that run retrieved the row's document. The ideal ranking
    of a run (nDCG) is the top of: the pool-wide residual gains of the documents it did
    not retrieve (shared by all runs; only the first ``ideal_depth + w`` per topic can
    matter) and its own residual gains.
    """
    k = m.cutoff
    w = window(campaign, k)
    level = relevance_level(m, ctx)
    base = base_of(m, w)
    judged = campaign.judged
    ptr = judged.ptr
    R, Tb = campaign.num_runs, t1 - t0
    lo, hi = int(ptr[t0]), int(ptr[t1])
    Jb = hi - lo
    nj = np.diff(ptr[t0:t1 + 1])
    J = max(1, int(nj.max(initial=0)))

    ct, cr, ci, crow, starts = judged_cells(campaign, w, ctx)
    a, b = starts[t0], starts[t1]
    r_i, t_i, i_i = cr[a:b], ct[a:b] - t0, ci[a:b]         # cells of the block's topics
    jb = crow[a:b] - lo                                    # row index within the block
    jl = jb - (ptr[t0 + t_i] - lo)                         # row index within its topic
    factor = 1.0 - base.seen
    zero = factor <= 0.0
    logf = np.log(np.where(zero, 1.0, factor))
    z_i, l_i = zero[i_i], logf[i_i]
    gains = judged_gains(campaign, m, level, lo, hi)       # [Jb]
    row_topic = judged.topic[lo:hi] - t0

    group = None
    if plan.kind == "earlier":
        dense = _dense_earlier(R, Tb, J, r_i, t_i, i_i, jl, zero, logf)
        prior_i = dense[r_i, t_i, jl]
    else:
        if plan.kind == "others":
            zt, lt = seen_totals(campaign, w, base.seen, base.key, ctx)
            zt, lt = zt[lo:hi], lt[lo:hi]
        else:
            mem = plan.member[r_i]
            # float64 even when no cell is selected (bincount of nothing is int64)
            zt = np.bincount(jb[mem], weights=z_i[mem], minlength=Jb).astype(np.float64)
            lt = np.bincount(jb[mem], weights=l_i[mem], minlength=Jb).astype(np.float64)
        if plan.kind == "best_per_group":
            bests, group = np.unique(plan.exclude, return_inverse=True)
            zg = np.broadcast_to(zt, (len(bests), Jb)).copy()
            lg = np.broadcast_to(lt, (len(bests), Jb)).copy()
            slot = np.full(R, -1)
            slot[bests] = np.arange(len(bests))
            sel = slot[r_i] >= 0
            zg[slot[r_i[sel]], jb[sel]] -= z_i[sel]
            lg[slot[r_i[sel]], jb[sel]] -= l_i[sel]
            group_prior = _product(zg, lg)                 # [G, Jb]
            prior_i = group_prior[group[r_i], jb]
        else:
            own = plan.member[r_i]
            prior_i = _product(zt[jb] - np.where(own, z_i, 0), lt[jb] - np.where(own, l_i, 0.0))
            common = gains * _product(zt, lt)              # [Jb]
    residual_i = gains[jb] * prior_i

    # raw score: per (run, topic), contributions accumulated in rank order — the same
    # sequence of additions as the classic kernels' sequential sum (zeros add nothing)
    # (cells come sorted by topic, run, rank: within a (run, topic) in rank order)
    cell = r_i.astype(np.int64) * Tb + t_i
    contrib = base.contribution_at(residual_i, i_i)
    raw = np.bincount(cell, weights=contrib, minlength=R * Tb).reshape(R, Tb)

    if base.definition.norm == "ideal":
        ideal_depth = max(1, int(nj.max(initial=0)) if k is None
                          else min(k, int(nj.max(initial=0))))
        disc = np.log2(np.arange(2, ideal_depth + 2, dtype=np.float64))
        row_local = np.arange(Jb) - (ptr[t0 + row_topic] - lo)
        if plan.kind == "earlier":
            dense_gain = np.zeros((Tb, J))
            dense_gain[row_topic, row_local] = gains
            norm = seqsum(_sorted_desc_top(dense * dense_gain[None], ideal_depth) / disc)
        elif plan.kind == "best_per_group":
            per_group = np.zeros((group_prior.shape[0], Tb, J))
            per_group[:, row_topic, row_local] = gains[None] * group_prior
            norm = seqsum(_sorted_desc_top(per_group, ideal_depth) / disc)[group]
        else:
            L = min(J, ideal_depth + w)
            order = np.lexsort((-common, row_topic))
            pos = np.empty(Jb, dtype=np.int64)
            pos[order] = np.arange(Jb) - (ptr[t0 + row_topic[order]] - lo)
            top = np.zeros((Tb, L))
            keep = pos < L
            top[row_topic[keep], pos[keep]] = common[keep]
            cand = np.zeros((R, Tb, L + w))
            cand[:, :, :L] = top
            mine = pos[jb] < L
            cand[r_i[mine], t_i[mine], pos[jb][mine]] = 0.0   # retrieved: use own value
            cand[r_i, t_i, L + i_i] = residual_i
            norm = seqsum(_sorted_desc_top(cand, ideal_depth) / disc)
    elif base.definition.norm == "depth":
        norm = (campaign.length[:, t0:t1].astype(np.float64) if k is None
                else np.full((R, Tb), float(k)))
    else:
        norm = None
    if norm is None:
        values = raw
    else:
        values = np.zeros((R, Tb), dtype=np.float64)
        np.divide(raw, norm, out=values, where=norm > 0)
    if not cells:
        return values
    cell_prior = np.full((R, Tb, w), np.nan)
    cell_prior[r_i, t_i, i_i] = prior_i
    cell_res = np.full((R, Tb, w), np.nan)
    cell_res[r_i, t_i, i_i] = residual_i
    return values, cell_prior, cell_res


def nrg(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """NRG(base, prior)@K = (1/N) * sum_{i<=K} G(d_i) * prod_{R_j in P}(1 - seen(pos(d_i, R_j)))
    * seen(i), for every run and topic [R, T] (see module doc)."""
    plan = prior_plan(campaign, m, ctx)
    R, T = campaign.num_runs, campaign.num_topics
    w = window(campaign, m.cutoff)
    J = int(np.diff(campaign.judged.ptr).max(initial=1))
    out = np.empty((R, T))
    for t0, t1 in topic_blocks(R, T, max(w, J)):
        out[:, t0:t1] = nrg_block(campaign, m, ctx, plan, t0, t1)
    return out


def _validate(m: Measure) -> None:
    if m.get("select") is not None:
        if m["prior"] != "best_per_group":
            raise MeasureError(f"NRG: select= chooses each group's best run, so it needs "
                               f"prior=best_per_group (got prior={m['prior']})")
        selection_measure(m)
    if m["base"] == "RBP" and not 0.0 < m["p"] < 1.0:
        raise MeasureError(f"NRG: base=RBP needs p in (0, 1); got p={m['p']!r}")
    allowed = BASES[m["base"]].gains
    if m["gain"] is not None and m["gain"] not in allowed:
        raise MeasureError(f"NRG: base={m['base']} takes gain={' or '.join(allowed)}, "
                           f"got gain={m['gain']}" + (" (it uses binary relevance, rel=L)"
                                                      if allowed == ("binary",) else ""))


register(MeasureDef(
    "NRG", "Normalized Residual Gain (SIGIR-AP 2024): the base metric with gains "
    "reduced by what the prior runs already showed", nrg,
    (Param("base", "str", "nDCG", "base metric: " + ", ".join(BASES), choices=tuple(BASES)),
     Param("prior", "str", "others", "prior set: others, best_per_group (needs groups), "
           "earlier (campaign order), list (needs prior_runs / --prior-runs)", choices=PRIORS),
     Param("gain", "str", None, "gain: grade, binary (grade >= rel), exp (2^grade-1), scaled "
           "(grade / highest grade); default: the base's (grade for nDCG and DCG, binary "
           "for RBP; P and unique are binary only)", choices=GAIN_KINDS),
     Param("p", "float", 0.8, "RBP persistence, 0 < p < 1"),
     REL,
     Param("select", "str", None, "with prior=best_per_group: the measure that picks each "
           "group's best run, quoted (select='nDCG@10'); default: the base metric")),
    cutoff="optional", context=True, family="nrg", validate=_validate,
    relevance=lambda m: "binary" if gain_kind(m) == "binary" else "graded",
    formula="1/N * sum_{i<=K} G(d_i) * prod_{R_j in P} (1 - seen(pos(d_i, R_j))) * seen(i)"))
