"""TaSC: task subspace coverage (Arabzadeh, Bigdeli, Hamidi Rad & Bagheri, SIGIR 2023),
as the NRG paper compares it with NRG (its appendix C and Figure 5).

For a run r, a topic t and a prior set P(r)::

    TaSC(r, t) = (1 - max_{j in P(r)} nDCG@k(j, t)) * nDCG@k(r, t)

with ``max`` over an empty prior set equal to 0 (TaSC is then nDCG@k). nDCG@k is
irmeta's ``nDCG@k`` (trec_eval ``ndcg_cut.k``: gain = grade, log2 discount, ideal from
the judged documents); a prior run that did not retrieve the topic has nDCG 0 there. The
run's value is the mean over its evaluated topics, as for every measure.

Prior sets are NRG's (:func:`irmeta.measures.nrg.prior_plan`): ``others``,
``best_per_group`` (the best run — by nDCG@k over the campaign topic set — of every
*other* group, which is what the NRG paper's Figure 5 caption says), ``earlier`` and
``list``. A run is never its own prior.

The NRG authors' script (``code/calculate_tasc.py``) keeps, as competitors of a run, the
best runs of the run's *own* group (``run_group_dict[run] == group_target_run``), which
contradicts the caption of the paper's Figure 5 ("the best run submitted from each other
group"); irmeta follows the paper's text. ``docs/context-measures.md`` records this.

Cost: per topic the largest and second-largest nDCG over the prior pool (with the index
of the largest), so that removing one run is a lookup; ``earlier`` is an exclusive
cumulative maximum over the run axis. O(R * T) beyond nDCG itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from irmeta.data.campaign import Campaign
from irmeta.errors import CampaignError, IrmetaError
from irmeta.measures import classic
from irmeta.measures.nrg import PRIORS, PriorPlan, prior_plan
from irmeta.measures.registry import register
from irmeta.measures.spec import EvalContext, Measure, MeasureDef, Param


def _declared(name: str, params: dict[str, Any], cutoff: int | None) -> Measure:
    """The registered measure ``name`` with these parameters and cutoff."""
    from irmeta.measures.parse import make  # the parser sits beside the registry
    from irmeta.measures.registry import get
    definition = get(name)
    if definition is None:                  # registered by irmeta itself
        raise IrmetaError(f"internal error: measure {name!r} is not registered")
    return make(definition, params, cutoff, name)


def _ndcg(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """float64 [R, T]: nDCG@k of every run (trec_eval ndcg_cut.k)."""
    return classic.ndcg(campaign, _declared("nDCG", {}, m.cutoff), ctx)


def _nrg_twin(m: Measure) -> Measure:
    """The NRG measure whose prior plan TaSC shares: base nDCG with grade gains, the same
    prior and cutoff (its 'best run' of a group is the best by nDCG@k)."""
    return _declared("NRG", {"base": "nDCG", "prior": m["prior"]}, m.cutoff)


def _prior_plan(campaign: Campaign, m: Measure, ctx: EvalContext) -> PriorPlan:
    """NRG's prior plan for TaSC ``m``; its errors name ``m``, the measure the user wrote,
    not the NRG twin it is computed through (issue 22, item 9: ``TaSC(prior=list)``
    without prior runs said ``NRG(prior=list)@5: ...``)."""
    twin = _nrg_twin(m)
    try:
        return prior_plan(campaign, twin, ctx)
    except CampaignError as exc:
        text = str(exc)
        if text.startswith(f"{twin.name}: "):
            text = f"{m.name}: {text[len(twin.name) + 2:]}"
        raise CampaignError(text) from None


def best_prior_value(values: np.ndarray, member: np.ndarray,
                     exclude: np.ndarray) -> np.ndarray:
    """[R, T]: for every run r, ``max_{j in pool, j != exclude[r]} values[j, t]`` (0 if
    that set is empty), from the pool's largest and second-largest value per topic."""
    R, T = values.shape
    pool = np.where(member[:, None], values, -np.inf)
    if R == 1:
        first_idx = np.zeros(T, dtype=np.int64)
        first, second = pool[0], np.full(T, -np.inf)
    else:
        order = np.argsort(-pool, axis=0, kind="stable")[:2]
        first_idx = order[0]
        first = np.take_along_axis(pool, order[:1], axis=0)[0]
        second = np.take_along_axis(pool, order[1:2], axis=0)[0]
    best = np.where(exclude[:, None] == first_idx[None, :], second[None, :], first[None, :])
    return np.where(np.isfinite(best), best, 0.0)


def tasc(campaign: Campaign, m: Measure, ctx: EvalContext) -> np.ndarray:
    """TaSC(prior)@k = (1 - max_{j in P(r)} nDCG@k(j, t)) * nDCG@k(r, t), [R, T]."""
    values = _ndcg(campaign, m, ctx)
    plan = _prior_plan(campaign, m, ctx)
    if plan.kind == "earlier":
        before = np.zeros(values.shape)
        if len(values) > 1:
            before[1:] = np.maximum.accumulate(values[:-1], axis=0)
        prior_max = before
    else:
        prior_max = best_prior_value(values, plan.member, plan.exclude)
    tasc: np.ndarray = (1.0 - prior_max) * values
    return tasc


register(MeasureDef(
    "TaSC", "task subspace coverage (Arabzadeh et al. 2023): nDCG@k scaled by what the "
    "best prior run left uncovered on the topic", tasc,
    (Param("prior", "str", "others", "prior set, as NRG's: others, best_per_group (needs "
           "groups), earlier (campaign order), list (needs prior_runs / --prior-runs)",
           choices=PRIORS),),
    cutoff="optional", context=True, family="nrg", relevance="graded",
    formula="(1 - max_{j in P} nDCG@k(j, t)) * nDCG@k(r, t)"))
