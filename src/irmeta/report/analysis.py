"""What the campaign report shows, computed: :func:`analyse_campaign` evaluates a
:class:`~irmeta.data.campaign.Campaign` through the library (``evaluate``, ``explain``,
``effort``, ``aggregate``, ``stats``) into a :class:`CampaignAnalysis` — one frozen
dataclass per section holding DataFrames, library result objects and numbers, no HTML
and no figure. :mod:`irmeta.report.render` draws it; every number of the page is
computed here.

Sections (``SECTIONS``; each can be skipped, see :class:`ReportOptions`):

1. ``leaderboard`` (:class:`LeaderboardSection`) — every run under classic measures (AP, P@10,
   nDCG@10, RR, bpref, R@1000) and context measures (P_rare@K and AP_rare@K at alpha
   0.5 and 1, NRG(base=nDCG)@10, unique relevant documents
   ``NRG(base=unique,prior=others)@K`` summed over topics, Twist@N), each with the run's
   rank (competition ranking, 1 = best) and the rank change against AP. Means over the
   *campaign topic set* (qrels topics with a relevant document; a run lacking one scores
   an empty ranking there); undefined values (Twist) left out of the mean. Always
   computed (the other sections and the summary use it); ``skip`` only hides it.
   GeoRisk of the primary measure is a column.
2. ``risk`` (:class:`RiskSection`) — under the primary measure, every run against
   ``baseline`` (topics won, lost, tied; URisk, TRisk and its p-value) and against every
   run at once (ZRisk, GeoRisk; :mod:`irmeta.stats.risk`, alpha 1). Computed in the
   leaderboard's forked child (TRisk's p-values need ``scipy.stats``).
3. ``innovation`` (:class:`InnovationSection`) — Kendall's tau (and tau_AP) between P@K
   / AP@K and their rareness versions over a grid of alpha
   (:func:`irmeta.stats.alpha_sweep`); per run, the relevant documents in its top K that
   no other run has in its top K, with examples.
4. ``nrg`` (:class:`NRGSection`) — NRG@10 against nDCG@10 per run; the runs adding the
   most unseen relevant material.
5. ``effort`` (:class:`EffortSection`) — Twist against a gain measure on the 4x4 grid
   (:func:`irmeta.effort.effort_gain`), archetypes (:func:`irmeta.effort.archetypes`),
   CRP and DCG of the most telling (run, topic) pairs
   (:func:`irmeta.effort.most_telling`, :func:`irmeta.effort.crp_dcg_panels`).
6. ``topics`` (:class:`TopicsSection`) — GAWM (axioms A, arithmetic means) and HITS on
   the systems x topics matrix of one measure (default AP): topic weights and ease,
   system authorities, ranking under MAP vs GAWM.
7. ``trust`` (:class:`TrustSection`) — discriminative power (Sakai's paired bootstrap,
   ``bootstrap`` samples), stability under topic subsampling (the innovation paper's
   fuzziness stability and the Buckley-Voorhees error rate, ``trials`` trials), Kendall's
   tau between the rankings of every pair of reported measures. The tests run in a forked
   child (:class:`irmeta.report.jobs.Job`) while the other sections are computed.

Every random step uses ``seed`` (``numpy.random.default_rng``), so an analysis is
reproduced exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from irmeta import validate
from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.errors import ParameterError
from irmeta.options import groups_argument
from irmeta.report.columns import Column, leaderboard_columns
from irmeta.report.options import SECTIONS, ReportOptions
from irmeta.report.pieces import twist_undefined_stated
from irmeta.report.registry import REGISTRY
from irmeta.report.sections.appendix import AppendixSection, appendix_section
from irmeta.report.sections.common import (
    _is_sharded,
    _panels_of,
    _Source,
    _sweep_families,
    _Untimed,
    _view,
)
from irmeta.report.sections.common import ranks as ranks
from irmeta.report.sections.effort import EffortFindings as EffortFindings
from irmeta.report.sections.effort import EffortSection
from irmeta.report.sections.effort import effort_section as effort_section
from irmeta.report.sections.innovation import InnovationSection
from irmeta.report.sections.innovation import innovation as innovation
from irmeta.report.sections.inputs import InputsSection, inputs_section
from irmeta.report.sections.leaderboard import COMPUTE as COMPUTE
from irmeta.report.sections.leaderboard import SATURATION as SATURATION
from irmeta.report.sections.leaderboard import (
    Defaults,
    Highlights,
    LeaderboardSection,
    PerTopic,
    board_of_means,
    board_tests,
    choose_defaults,
    highlights,
    leaderboard_section,
    per_topic_results,
)
from irmeta.report.sections.leaderboard import RankChange as RankChange
from irmeta.report.sections.leaderboard import Superlative as Superlative
from irmeta.report.sections.leaderboard import natural_order as natural_order
from irmeta.report.sections.leaderboard import rank_ranges as rank_ranges
from irmeta.report.sections.leaderboard import rank_shift as rank_shift
from irmeta.report.sections.leaderboard import saturated_columns as saturated_columns
from irmeta.report.sections.nrg import NRGSection
from irmeta.report.sections.nrg import nrg as nrg
from irmeta.report.sections.risk import RiskSection, risk_section
from irmeta.report.sections.topics import TopicAggregation as TopicAggregation
from irmeta.report.sections.topics import TopicsSection
from irmeta.report.sections.topics import topics as topics
from irmeta.report.sections.trust import ReusabilityPart as ReusabilityPart
from irmeta.report.sections.trust import (
    TrustSection,
    reusability_part,
    trust,
    trust_matrices,
    trust_tests,
)

__all__ = ["SATURATION", "CampaignAnalysis", "Defaults", "EffortFindings", "EffortSection",
           "Highlights", "InnovationSection", "InputsSection", "LeaderboardSection",
           "NRGSection", "PerTopic", "RankChange", "ReusabilityPart", "RiskSection",
           "Superlative",
           "TopicAggregation", "TopicsSection", "TrustSection", "analyse_campaign",
           "rank_ranges", "saturated_columns"]


# ---------------------------------------------------------------------- sections


@dataclass(frozen=True)
class CampaignAnalysis:
    """Everything the campaign report shows (see the module doc). ``options``: the
    validated options; a section named in ``options.skip`` is None (the leaderboard is
    always computed)."""

    options: ReportOptions
    inputs: InputsSection
    leaderboard: LeaderboardSection
    highlights: Highlights
    defaults: Defaults
    per_topic: PerTopic
    innovation: InnovationSection | None
    nrg: NRGSection | None
    effort: EffortSection | None
    topics: TopicsSection | None
    trust: TrustSection | None
    appendix: AppendixSection | None = None
    risk: RiskSection | None = None


# ---------------------------------------------------------------------- entry point
def analyse_campaign(campaign: Campaign, options: ReportOptions | None = None, *,
                     groups: Mapping[str, str] | None = None,
                     reference: Campaign | None = None, prior_runs=None,
                     inputs: Mapping[str, object] | None = None,
                     clock=None, run_info=None) -> CampaignAnalysis:
    """Compute every section of the campaign report.

    Parameters
    ----------
    campaign : the runs and qrels (:func:`irmeta.load_campaign`); at least 2 runs. Or a
        campaign larger than memory, open shard by shard (:func:`irmeta.open_shards`):
        the same analysis, computed from the shards' score matrices and per-topic
        pieces (:mod:`irmeta.report.pieces`, ``docs/scaling.md``).
    options : :class:`ReportOptions` (default ``ReportOptions()``), validated here.
    groups : run -> group (NRG prior ``best_per_group``), or a groups file path (``run
        group`` lines, read as ``--groups``); without it every run is its own group.
    reference : rarity reference runs of P_rare / AP_rare (:func:`irmeta.evaluate`).
    prior_runs : an explicit NRG prior set (used when ``options.nrg_prior`` is ``auto``).
    inputs : what to name as the inputs (``{"qrels": path, "runs": [paths],
        "groups": path, "campaign": name}``).
    clock : a :class:`irmeta.report.html.StepClock` timing the steps (campaign_report's
        progress bar); None: untimed.
    run_info : run attributes (``ReportOptions.run_info``: a TSV path or a DataFrame
        indexed by run); given here, it replaces ``options.run_info``.

    Returns
    -------
    CampaignAnalysis
        One dataclass per section; skipped sections are None.
    """
    opts = options or ReportOptions()
    if run_info is not None:
        opts = replace(opts, run_info=run_info)
    opts = opts.validate()
    groups, own_groups, prior, prior_runs = check_inputs(
        campaign, opts, groups, reference, prior_runs, "analyse_campaign")
    return analyse(campaign, opts, groups=groups, own_groups=own_groups, prior=prior,
                   reference=reference, prior_runs=prior_runs, inputs=inputs, clock=clock)


def check_inputs(campaign, opts: ReportOptions, groups, reference, prior_runs, func: str
                 ) -> tuple[dict[str, str], bool, str, tuple[str, ...] | None]:
    """Validate the inputs of a report; returns ``(groups, own_groups, prior,
    prior_runs)``: the group of every run (its own name without ``groups``), whether
    none were given, the NRG prior set (``auto`` resolved) and the explicit prior runs
    as a tuple (or None)."""
    if not isinstance(campaign, Campaign) and not _is_sharded(campaign):
        raise ParameterError(f"{func}: campaign must be a Campaign (irmeta.load_campaign) "
                             "or an open sharded campaign (irmeta.open_shards)")
    if len(campaign.runs) < 2:
        raise ParameterError(f"{func}: a campaign report needs at least 2 runs, "
                             f"got {len(campaign.runs)}")
    require_campaign(_view(campaign), opts.rel_level, func)
    groups = groups_argument(groups, func, campaign.runs)   # a groups file: as --groups
    own_groups = not groups
    group_of = {r: r for r in campaign.runs} if own_groups else dict(groups)
    missing = [r for r in campaign.runs if r not in group_of]
    if missing:
        raise ParameterError(f"{func}: no group for run(s) {', '.join(missing[:5])}")
    if own_groups:
        _refuse_group_priors(opts, func)
    prior = opts.nrg_prior
    if prior_runs is not None:
        prior_runs = tuple(prior_runs)
        unknown = [r for r in prior_runs if r not in campaign.runs]
        if unknown:
            raise ParameterError(f"{func}: prior_runs names unknown run(s) "
                                 f"{', '.join(unknown[:5])}")
    if prior == "auto":
        prior = ("list" if prior_runs is not None else
                 "others" if own_groups else "best_per_group")
    if reference is not None and not isinstance(reference, Campaign):
        raise ParameterError(f"{func}: reference must be a Campaign (irmeta.load_campaign)")
    runs = [str(r) for r in campaign.runs]
    if opts.baseline is not None and opts.baseline not in runs:
        raise ParameterError(f"{func}: baseline (--baseline) names unknown run "
                             f"{opts.baseline!r} (runs: {', '.join(runs[:8])}"
                             f"{' ...' if len(runs) > 8 else ''})")
    return group_of, own_groups, prior, prior_runs


def analyse(campaign, opts: ReportOptions, *, groups: dict, own_groups: bool,
            prior: str, reference, prior_runs, inputs, clock=None) -> CampaignAnalysis:
    """:func:`analyse_campaign` on checked inputs (:func:`check_inputs`). ``campaign``: a
    :class:`Campaign`, or an open :class:`~irmeta.shards.local.ShardedCampaign`, whose
    shards give the score matrices and the per-topic pieces of
    :mod:`irmeta.report.pieces` (the same numbers)."""
    from irmeta.report.jobs import Job

    clock = clock or _Untimed()
    sharded = _is_sharded(campaign)
    view = _view(campaign)           # a Campaign, or the summary of a sharded one
    from irmeta.io.runinfo import check_run_info
    info = check_run_info(opts.run_info, [str(r) for r in view.runs], "report")
    defaults = choose_defaults(view, opts)
    # every section of one measure follows the primary measure unless given its own
    opts = replace(opts, primary=defaults.primary, twist_depth=defaults.twist_depth,
                   gain=opts.gain or defaults.primary,
                   matrix_measure=opts.matrix_measure or defaults.primary)
    columns = leaderboard_columns(opts, prior, depth=defaults.depth, primary=defaults.primary)
    context = {"reference": reference, "prior_runs": prior_runs}
    spec = piece_spec(opts, columns, groups, prior_runs, sharded)
    with clock.step("evaluate"), twist_undefined_stated():
        if sharded:
            results, pieces = _evaluate_shards(campaign, columns, spec, opts, groups,
                                               context, defaults.depth)
            view = results.campaign
        else:
            from irmeta.evaluation import evaluate
            results = evaluate(campaign, measures=[c.measure for c in columns], groups=groups,
                               rel_level=opts.rel_level, complete=True, **context)
        # intervals and tests (SciPy) come from a child below: here only the means
        board = leaderboard_section(results, columns, groups, own_groups, opts.rare_cutoff,
                                    opts, prior, uncertainty=None, run_info=info)
        per_topic = per_topic_results(view, opts, results, board)
    # two children starting at once: the leaderboard's intervals and tests and the risk
    # section (they import scipy.stats, a second) and the trust section's tests
    with clock.step("trust: start (tests in a child)"):
        fork = bool(opts.background)
        jobs: list[Job] = [Job(board_and_risk_tests, results, columns, opts,
                               list(board.table["run"]), background=fork)]
        if "trust" not in opts.skip:
            jobs.append(Job(trust_tests, trust_matrices(results, columns), opts,
                            board.primary, background=fork))
    try:
        if not sharded:   # after the trust child starts: it runs beside these
            with clock.step("pieces"), twist_undefined_stated():
                from irmeta.report.pieces import topic_pieces
                pieces = topic_pieces(campaign, spec, reference)
        source = _Source(view, pieces, spec, _panels_of(campaign))
        sections: dict = {}
        for section in REGISTRY:
            if section.compute is None or section.name in opts.skip:
                continue
            with clock.step(section.name):
                sections[section.name] = section.compute(source, opts, results, board,
                                                         groups, prior, context)
        with clock.step("trust: significance and stability"):
            uncertainty, column_tests, risk = jobs[0].result()
            if risk is not None:
                sections["risk"] = risk
            tests = None if len(jobs) == 1 else jobs[1].result()
        jobs = []
        # the same means as above (not the matrices and means computed a second time)
        board = board_of_means(columns, board.means, groups, own_groups, opts.rare_cutoff,
                               opts, prior, uncertainty, info, column_tests, board.georisk)
        if tests is not None:
            sections["trust"] = trust(view, opts, board, tests)
            if not own_groups:   # the part needs the groups the user gave
                with clock.step("trust: reusability"):
                    part = reusability_part(campaign, opts, defaults.primary, groups)
                if part is not None:
                    sections["trust"] = replace(sections["trust"], reusability=part)
                    if per_topic is not None:
                        unique = part.groups.set_index("group")["unique relevant"]
                        per_topic = replace(per_topic, group_unique={
                            run: int(unique[g]) for run, g in
                            zip(part.scores["run"], part.scores["group"])})
        if "appendix" not in opts.skip:
            with clock.step("appendix"):
                sections["appendix"] = appendix_section(
                    campaign, opts, board, per_topic, groups, own_groups, defaults.depth)
    finally:
        for job in jobs:
            job.cancel()                                   # an error above: stop the children
    return CampaignAnalysis(
        options=opts, leaderboard=board, highlights=highlights(board, opts.nrg_cutoff),
        defaults=defaults, per_topic=per_topic,
        inputs=inputs_section(view, opts, groups, own_groups, prior, prior_runs,
                              reference, inputs, campaign if sharded else None),
        **{name: sections.get(name) for name in SECTIONS if name != "leaderboard"})


def board_and_risk_tests(results, columns: list[Column], opts: ReportOptions,
                         order: list[str]):
    """``(uncertainty, column_tests, risk)``: :func:`board_tests` and the risk section
    (:func:`~irmeta.report.sections.risk.risk_section` of the primary measure, rows in
    ``order``; None when ``risk`` is skipped): every part of the report that imports
    ``scipy.stats``, run together in one forked child."""
    uncertainty, column_tests = board_tests(results, columns, opts)
    risk = None if "risk" in opts.skip else risk_section(results, opts, columns[0].label,
                                                         order)
    return uncertainty, column_tests, risk


def piece_spec(opts: ReportOptions, columns: list[Column], groups: dict, prior_runs,
               sharded: bool = False):
    """The :class:`~irmeta.report.pieces.PieceSpec` of the sections not skipped: the
    alpha sweep's measures and unique documents (innovation), archetypes and the gain
    measure when it is not a column (effort), the matrix measure when it is not a
    column (topics). ``sharded``: refuse a gain or matrix measure with a best-per-group
    prior outside the columns (it needs the whole campaign's means, which one shard's
    hook does not have)."""
    from irmeta.report.pieces import PieceSpec
    from irmeta.stats.correlation import sweep_measures
    labels = [c.measure for c in columns]
    K = opts.rare_cutoff
    innovation = "innovation" not in opts.skip
    effort = "effort" not in opts.skip
    gain = opts.gain if effort and opts.gain not in labels else None
    matrix = (opts.matrix_measure if "topics" not in opts.skip
              and opts.matrix_measure not in labels else None)
    if sharded:
        _shardable("gain", gain)
        _shardable("matrix_measure", matrix)
    sweep = sweep_measures(_sweep_families(K), opts.alphas) if innovation else []
    return PieceSpec(opts.rel_level, K, int(opts.twist_depth or 1), tuple(sweep),
                     documents=innovation, archetypes=effort, gain=gain, matrix=matrix,
                     groups=dict(groups) if groups else None,
                     prior_runs=None if prior_runs is None else tuple(prior_runs))


def _refuse_group_priors(opts: ReportOptions, func: str) -> None:
    """Without groups every run is its own group; a measure the user gave with
    ``prior=best_per_group`` would silently become ``prior=others`` there, so it is
    refused as ``eval`` refuses it (``--nrg-prior best_per_group`` likewise)."""
    from irmeta.measures.parse import parse_measures
    if opts.nrg_prior == "best_per_group":
        raise ParameterError(f"{func}: nrg_prior='best_per_group' needs a run -> group "
                             "mapping (API groups={run: group}, CLI --groups FILE)")
    for name in ("primary", "gain", "matrix_measure"):
        text = getattr(opts, name)
        if text is not None and any(m.get("prior") == "best_per_group"
                                    for m in parse_measures([text])):
            raise ParameterError(f"{func}: {name} {text}: prior=best_per_group needs a "
                                 "run -> group mapping (API groups={run: group}, CLI "
                                 "--groups FILE)")


def _shardable(option: str, measure: str | None) -> None:
    if measure is None:
        return
    from irmeta.measures.parse import parse_measures
    if any(m.get("prior") == "best_per_group" for m in parse_measures([measure])):
        raise ParameterError(f"a sharded report cannot compute {option} {measure!r}: a "
                             "best-per-group prior needs the whole campaign's means; make it "
                             "a leaderboard column (primary), choose another measure, or "
                             "evaluate the campaign in memory (docs/scaling.md)")


def _evaluate_shards(campaign, columns: list[Column], spec, opts: ReportOptions,
                     groups: dict, context: dict, depth: int):
    """The Results of the leaderboard columns and the gathered pieces, in one pass over
    the shards (two with best-per-group priors)."""
    from irmeta.errors import IrmetaError
    from irmeta.evaluation import Results
    from irmeta.measures.parse import parse_measures
    from irmeta.report.pieces import gather_pieces, topic_pieces
    ms = parse_measures(validate.measure_list([c.measure for c in columns], "evaluate"))
    prior_runs = context["prior_runs"]
    out = campaign.evaluate(ms, rel_level=opts.rel_level, groups=groups,
                            reference=context["reference"],
                            prior_runs=None if prior_runs is None else tuple(prior_runs),
                            warn_dropped=False, extra=topic_pieces, extra_args=spec)
    if out.summary.depth != depth:  # pragma: no cover - ranking_lengths disagrees with a shard
        raise IrmetaError(f"internal error: the runs' depth read before evaluating ({depth}) "
                          f"differs from the shards' ({out.summary.depth})")
    evaluated = np.ones_like(out.summary.has_topic)       # complete=True
    return (Results(out.summary, out.measures, out.values, evaluated, opts.rel_level),
            gather_pieces(out.extras))


# ---------------------------------------------------------------------- leaderboard


# ---------------------------------------------------------------------- innovation


# ---------------------------------------------------------------------- NRG


# ---------------------------------------------------------------------- effort


# ---------------------------------------------------------------------- topics


# ---------------------------------------------------------------------- trust


# ---------------------------------------------------------------------- inputs
