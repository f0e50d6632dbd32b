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
2. ``innovation`` (:class:`InnovationSection`) — Kendall's tau (and tau_AP) between P@K
   / AP@K and their rareness versions over a grid of alpha
   (:func:`irmeta.stats.alpha_sweep`); per run, the relevant documents in its top K that
   no other run has in its top K, with examples.
3. ``nrg`` (:class:`NRGSection`) — NRG@10 against nDCG@10 per run; the runs adding the
   most unseen relevant material.
4. ``effort`` (:class:`EffortSection`) — Twist against a gain measure on the 4x4 grid
   (:func:`irmeta.effort.effort_gain`), archetypes (:func:`irmeta.effort.archetypes`),
   CRP and DCG of the most telling (run, topic) pairs
   (:func:`irmeta.effort.most_telling`, :func:`irmeta.effort.crp_dcg_panels`).
5. ``topics`` (:class:`TopicsSection`) — GAWM (axioms A, arithmetic means) and HITS on
   the systems x topics matrix of one measure (default AP): topic weights and ease,
   system authorities, ranking under MAP vs GAWM.
6. ``trust`` (:class:`TrustSection`) — discriminative power (Sakai's paired bootstrap,
   ``bootstrap`` samples), stability under topic subsampling (the innovation paper's
   fuzziness stability and the Buckley-Voorhees error rate, ``trials`` trials), Kendall's
   tau between the rankings of every pair of reported measures. The tests run in a forked
   child (:class:`irmeta.report.jobs.Job`) while the other sections are computed.

Every random step uses ``seed`` (``numpy.random.default_rng``), so an analysis is
reproduced exactly.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from typing import Any, Mapping, cast

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.aggregate.analyses import HeatmapBars
from irmeta.aggregate.gawm import GAWMResult
from irmeta.aggregate.hits import HITSResult
from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.effort import CrpDcgPanel, EffortGain
from irmeta.errors import ParameterError
from irmeta.report.columns import Column, leaderboard_columns
from irmeta.report.options import SECTIONS, ReportOptions
from irmeta.report.pieces import twist_undefined_stated

__all__ = ["SATURATION", "CampaignAnalysis", "Defaults", "EffortFindings", "EffortSection",
           "Highlights", "InnovationSection", "InputsSection", "LeaderboardSection",
           "NRGSection", "PerTopic", "RankChange", "ReusabilityPart", "Superlative",
           "TopicAggregation", "TopicsSection", "TrustSection", "analyse_campaign",
           "rank_ranges", "saturated_columns"]

#: a leaderboard column is *saturated* when more than this share of the runs (with a
#: defined mean) share one value: its ranks are mostly ties, and a rank change under it
#: says nothing about the run (Judged@10 on DL21: 39 of 63 runs at 1.0)
SATURATION = 0.5


# ---------------------------------------------------------------------- sections
@dataclass(frozen=True)
class LeaderboardSection:
    """Every run under every column of :func:`leaderboard_columns`.

    ``means``: runs (campaign order) x column labels, the mean over the campaign topic
    set (topics with an undefined value left out), or the sum for ``kind="sum"``
    columns. ``ranks``: competition ranks of ``means`` (1 + runs with a strictly larger
    value; NaN stays NaN). ``table``: one row per run, best first by the primary
    measure, indexed by run: ``run``, ``group`` (only when groups were given), then per
    column its value, ``rank <label>`` and, except the primary measure, ``delta
    <label>`` = rank under the primary measure - rank under it (positive = the run
    moves up). ``rare_cutoff``: K of the unique-document column. ``primary``: the label of
    the primary measure (the first column); ``uncertainty``: its
    :class:`irmeta.stats.leaderboard.Leaderboard` (bootstrap intervals of the mean,
    corrected tests against the best and the next run), None with fewer than 2 topics.
    ``saturated``: the columns (not the primary) where most runs share one value
    (:func:`saturated_columns`), whose rank changes are left out. ``attributes``: the
    run attributes of ``run_info`` (runs x attributes, campaign order; also columns of
    ``table`` after ``group``), None without.
    """

    columns: tuple[Column, ...]
    means: pd.DataFrame
    ranks: pd.DataFrame
    table: pd.DataFrame
    own_groups: bool
    rare_cutoff: int
    primary: str = "AP"
    uncertainty: Any = None
    rel_level: int = 1
    prior: str = "others"
    saturated: tuple[str, ...] = ()
    attributes: pd.DataFrame | None = None


@dataclass(frozen=True)
class Defaults:
    """The defaults that follow the campaign, and the rule that chose each (stated on
    the page). ``primary``: the primary measure string and ``primary_rule`` why it was
    chosen; ``depth``: the runs' depth (the longest ranking), which sets the recall
    cut-off ``R@depth`` and, unless given, Twist's depth N (``twist_rule``);
    ``graded``: the qrels have grades above 1."""

    primary: str
    primary_rule: str
    depth: int
    twist_depth: int
    twist_rule: str
    graded: bool


@dataclass(frozen=True)
class PerTopic:
    """Per-topic results (the layout of TREC's appendix pages) and every measure's runs
    x topics matrix. ``measure``: the primary measure's label; ``summary``:
    :func:`irmeta.aggregate.topics.topic_summary` of its matrix (best, median, worst per
    topic); ``runs``: run -> :func:`irmeta.aggregate.topics.run_topics` (the run's
    value beside them, its rank on the topic); ``matrices``: measure string -> runs x
    topics matrix over the analysed topics (campaign order; NaN = undefined)."""

    measure: str
    summary: pd.DataFrame
    runs: dict
    matrices: dict
    #: run -> relevant documents only its group retrieved within the rarity cutoff (the
    #: trust section's Reusability part; None without ``--groups``)
    group_unique: dict | None = None


@dataclass(frozen=True)
class Superlative:
    """One headline fact of the summary and every run that shares it: ``runs`` (all the
    runs with exactly ``value``, best first by the primary measure, then campaign order),
    ``ranks``: each run's competition rank under the primary measure. ``tied``: more
    than one run holds it (the page then names them all and says "tied")."""

    runs: tuple[str, ...]
    value: float
    ranks: tuple[int, ...]

    @property
    def tied(self) -> bool:
        return len(self.runs) > 1


@dataclass(frozen=True)
class RankChange:
    """A tie-aware rank change of ``run`` between the primary measure and ``measure``:
    ``primary_ranks`` and ``measure_ranks`` are the ranges of ranks the run can take
    under each (``(lo, hi)``: ``lo`` = 1 + runs strictly better, ``hi`` = runs better or
    equal; a run without ties has ``lo == hi``); ``shift``: how far apart the two ranges
    are (0 when they overlap: no change), positive when the run moves up under
    ``measure``."""

    run: str
    measure: str
    primary_ranks: tuple[int, int]
    measure_ranks: tuple[int, int]
    shift: int


@dataclass(frozen=True)
class Highlights:
    """The summary at the top of the page, from the leaderboard; every superlative is a
    :class:`Superlative` that names all the runs sharing it (a tie is never hidden).

    ``primary``: the primary measure's label; ``best``: the best run(s) by it; ``tied``:
    runs not significantly below the best, None without tests; ``most_new``: the highest
    NRG@``nrg_cutoff``, None when NRG is undefined for every run; ``most_unique``: most
    unique relevant documents, None when no run has one; ``moved``: the largest
    tie-aware rank change against the primary measure (every run and measure sharing
    the largest ``shift``), empty when no run moves; ``left_out``: (column, why) of the
    leaderboard columns left out of the rank changes: saturated ones (most runs share one
    value, :func:`saturated_columns`; why: "39 of 63 runs share 1.000") and diagnostic
    ones (Judged@10)."""

    primary: str
    best: Superlative
    tied: int | None
    nrg_cutoff: int
    most_new: Superlative | None
    most_unique: Superlative | None
    moved: tuple[RankChange, ...]
    left_out: tuple[tuple[str, str], ...] = ()

    @property
    def best_run(self) -> str:
        """The first of the best runs (campaign order on a tie)."""
        return self.best.runs[0]

    @property
    def best_value(self) -> float:
        return self.best.value


@dataclass(frozen=True)
class InnovationSection:
    """Rareness and unique documents at cutoff ``rare_cutoff``.

    ``sweep``: :func:`irmeta.stats.alpha_sweep` (``baseline, measure, alpha, kendall,
    tau_ap``); ``lowest_tau``: its smallest Kendall tau per baseline. ``documents``:
    every unique relevant document (:func:`irmeta.explain.unique_documents`).
    ``unique``: one row per run (most unique documents first): ``run``, ``group`` (with
    groups), ``unique`` (count), ``topics`` (with at least one), ``share`` (unique /
    relevant documents the run retrieved in its top K; NaN when it retrieved none),
    ``examples``. ``runs_with_unique``: runs with at least one; ``num_runs``: all runs.
    """

    rare_cutoff: int
    sweep: pd.DataFrame
    lowest_tau: pd.Series
    documents: pd.DataFrame
    unique: pd.DataFrame
    runs_with_unique: int
    num_runs: int


@dataclass(frozen=True)
class NRGSection:
    """NRG@``k`` (prior set ``prior``: ``others``, ``best_per_group``, ``earlier`` or
    ``list``) against nDCG@``k``.

    ``points``: per run (campaign order) ``nDCG``, ``NRG`` and ``group`` (and
    ``colour``: the value of the run attribute ``colour_by`` that colours the scatter,
    the first of ``run_info``; None: the group colours it).
    ``table``: per run ``run``, ``group`` (with groups), nDCG@k, NRG@k, ``NRG / nDCG``
    (NaN where nDCG is 0), both ranks and the unique@K count; highest NRG first.
    """

    k: int
    rare_cutoff: int
    prior: str
    own_groups: bool
    points: pd.DataFrame
    table: pd.DataFrame
    colour_by: str | None = None


@dataclass(frozen=True)
class EffortFindings:
    """What the effort section shows when Twist is defined on some topic.

    ``grid``: the effort/gain grid; ``telling``: :func:`irmeta.effort.most_telling` (one
    pair per kind); ``shares``: the grid's percentages (rows: gain quartile, highest
    first); ``archetypes``: percent of curves per archetype, first row ``all runs``, then
    one row per run with its ``total``; ``panels``: the CRP / DCG curves of the telling
    pairs.
    """

    grid: EffortGain
    telling: pd.DataFrame
    shares: pd.DataFrame
    archetypes: pd.DataFrame
    panels: tuple[CrpDcgPanel, ...]


@dataclass(frozen=True)
class EffortSection:
    """Twist@``depth`` against the gain measure ``gain``: ``findings``, None when Twist
    is undefined on every topic. ``seed``: of the point subsample drawn when the grid
    has more than 20,000 points. ``runs_depth``: the depth of the runs (``depth``
    is that unless ``--twist-depth`` gave another); ``undefined_topics``: analysed
    topics with more relevant documents than ``depth``, where Twist is undefined.
    ``gain_rule``: why ``gain`` (the primary measure unless ``--gain`` gave another)."""

    depth: int
    gain: str
    seed: int
    findings: EffortFindings | None
    runs_depth: int = 0
    undefined_topics: int = 0
    gain_rule: str = ""


@dataclass(frozen=True)
class TopicAggregation:
    """GAWM and HITS on a runs x topics matrix.

    ``matrix``: the matrix, topics with an undefined value dropped; ``gawm`` (axioms A,
    arithmetic means), ``hits``; ``map``: per-run mean of the matrix; ``bars``: the heat
    map's orders and side bars (:func:`irmeta.aggregate.analyses.heatmap_bars`).
    ``systems``: per run MAP, GAWM E_s, HITS A(s), W_s, their ranks and ``rank change``
    (the tie-aware shift from MAP to GAWM, :func:`rank_shift`), by GAWM rank; ``topics``:
    per topic the relevant documents, AAP, E_t, W_t, A(t) and the standard deviation over
    runs, by weight. ``moved``: runs whose rank changes; ``tau``: Kendall's tau between
    the MAP and GAWM rankings.
    """

    matrix: pd.DataFrame
    gawm: GAWMResult
    hits: HITSResult
    map: pd.Series
    bars: HeatmapBars
    systems: pd.DataFrame
    topics: pd.DataFrame
    moved: int
    tau: float


@dataclass(frozen=True)
class TopicsSection:
    """The runs x topics matrix of ``measure`` aggregated (``aggregation``), None when
    fewer than 2 runs or topics have defined values. ``measure_rule``: why ``measure``
    (the primary measure unless ``--matrix-measure`` gave another)."""

    measure: str
    aggregation: TopicAggregation | None
    measure_rule: str = ""


@dataclass(frozen=True)
class TrustSection:
    """How far the measures can be relied on.

    ``tau``: Kendall's tau between the rankings of the runs by every pair of leaderboard
    columns (NaN where a measure ties every run); ``most_different``: the pair with the
    lowest tau and its value, None when every tau is undefined. ``tested``: False when no
    measure has 2 topics with a defined value for every run (then ``power`` and
    ``measures`` are empty). ``power``: :func:`irmeta.stats.bootstrap_power` sorted by
    discriminative power; ``measures``: power joined with
    :func:`irmeta.stats.stability_table`, columns renamed as shown; ``pairs``: run pairs
    compared. ``level``, ``discpower_trials``, ``stability_trials``, ``fuzziness``: the
    options used (the :class:`ReportOptions` fields of the same names);
    ``analysed_topics``: topics with a relevant document. ``primary``: the primary
    measure's label (its row of ``measures`` leads the section's text); ``primary_rank``:
    its place by discriminative power (1 = separates the most pairs), None untested.
    """

    tau: pd.DataFrame
    most_different: tuple[str, str, float] | None
    tested: bool
    power: pd.DataFrame
    measures: pd.DataFrame
    pairs: int
    level: float
    discpower_trials: int
    stability_trials: int
    fuzziness: float
    analysed_topics: int
    primary: str = "AP"
    primary_rank: int | None = None
    #: leave-one-group-out of the primary measure (with ``--groups``; None without)
    reusability: ReusabilityPart | None = None


@dataclass(frozen=True)
class ReusabilityPart:
    """The trust section's "Reusability" part (issue 26; docs/pooling.md): the primary
    measure re-evaluated for each group's runs without the judged documents only that
    group retrieved within ``depth`` (the report's rarity cutoff K). ``scores``: per run
    ``run, group, score, score_without, rank, rank_without``; ``groups``: per group
    ``group, runs, unique judged, unique relevant, mean AP_rare, largest drop``;
    ``tau`` / ``tau_ap``: Kendall's tau and tau_AP between the rankings with and without;
    ``worst``: the (run, drop) of the largest score drop."""

    measure: str
    depth: int
    scores: pd.DataFrame
    groups: pd.DataFrame
    tau: float
    tau_ap: float
    worst: tuple[str, float]


@dataclass(frozen=True)
class InputsSection:
    """What the report was computed from. ``files``: (label, value) pairs of the named
    inputs (campaign, qrels file, run files, groups file), as given; ``groups``: number
    of groups, None when none were given; ``relevant_per_topic``: mean relevant
    documents per analysed topic (NaN without one); ``prior_runs``: the explicit NRG
    prior set (``nrg_prior == "list"``); ``reference_runs``: rarity reference runs, None
    without; ``dropped_topics``: run topics absent from the qrels, None when none were
    dropped; ``parameters``: (name, value) of every option, as printed."""

    files: tuple[tuple[str, str], ...]
    runs: int
    groups: int | None
    qrels_topics: int
    analysed_topics: int
    judged: int
    relevant: int
    relevant_per_topic: float
    rel_level: int
    depth: int
    nrg_prior: str
    prior_runs: tuple[str, ...] | None
    reference_runs: int | None
    dropped_topics: int | None
    parameters: tuple[tuple[str, str], ...]
    renamed: tuple[tuple[str, str, str], ...] = ()


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
    groups : run -> group (NRG prior ``best_per_group``); without it every run is its
        own group.
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
    own_groups = not groups
    group_of = {r: r for r in campaign.runs} if own_groups else dict(groups)
    missing = [r for r in campaign.runs if r not in group_of]
    if missing:
        raise ParameterError(f"{func}: no group for run(s) {', '.join(missing[:5])}")
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
    # two children starting at once: the leaderboard's intervals and tests (they import
    # scipy.stats, a second) and the trust section's tests
    with clock.step("trust: start (tests in a child)"):
        fork = bool(opts.background)
        jobs: list[Job] = [Job(primary_uncertainty, results, opts, background=fork)]
        if "trust" not in opts.skip:
            jobs.append(Job(trust_tests, trust_matrices(results, columns), opts,
                            background=fork))
    try:
        if not sharded:   # after the trust child starts: it runs beside these
            with clock.step("pieces"), twist_undefined_stated():
                from irmeta.report.pieces import topic_pieces
                pieces = topic_pieces(campaign, spec, reference)
        source = _Source(view, pieces, spec, _panels_of(campaign))
        sections: dict = {}
        for name in SECTIONS:
            if name in opts.skip or name in ("leaderboard", "trust"):
                continue
            with clock.step(name):
                sections[name] = _ANALYSES[name](source, opts, results, board, groups,
                                                 prior, context)
        with clock.step("trust: significance and stability"):
            uncertainty = jobs[0].result()
            tests = None if len(jobs) == 1 else jobs[1].result()
        jobs = []
        # the same means as above (not the matrices and means computed a second time)
        board = board_of_means(columns, board.means, groups, own_groups, opts.rare_cutoff,
                               opts, prior, uncertainty, info)
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
    finally:
        for job in jobs:
            job.cancel()                                   # an error above: stop the children
    return CampaignAnalysis(
        options=opts, leaderboard=board, highlights=highlights(board, opts.nrg_cutoff),
        defaults=defaults, per_topic=per_topic,
        inputs=inputs_section(view, opts, groups, own_groups, prior, prior_runs,
                              reference, inputs),
        **{name: sections.get(name) for name in SECTIONS if name != "leaderboard"})


def _is_sharded(campaign) -> bool:
    from irmeta.shards.local import ShardedCampaign
    return isinstance(campaign, ShardedCampaign)


def _view(campaign):
    """What the sections read of the campaign besides the pieces: the campaign itself,
    or a sharded campaign's :class:`~irmeta.shards.summary.CampaignSummary` (run and
    topic names, ranking lengths — hence the depth —, qrels grades)."""
    return campaign.summary() if _is_sharded(campaign) else campaign


@dataclass(frozen=True)
class _Source:
    """What the sections compute from: ``view`` (the campaign, or a sharded campaign's
    summary), the per-topic ``pieces`` of ``spec``, and ``panels(pairs, depth,
    rel_level)``, the CRP/DCG panels of a few (run, topic) pairs."""

    view: Any
    pieces: Any
    spec: Any
    panels: Any


def _panels_of(campaign):
    """``panels(pairs, depth, rel_level)``: :func:`irmeta.effort.crp_dcg_panels` on the
    campaign, or — sharded — on the campaign of each pair's topic alone (a panel is a
    function of one topic's rankings)."""
    from irmeta import effort
    if not _is_sharded(campaign):
        return lambda pairs, depth, rel: effort.crp_dcg_panels(campaign, pairs, depth=depth,
                                                               rel_level=rel)

    def panels(pairs, depth, rel):
        out = []
        for run, topic in pairs:
            t = campaign.topics.index(str(topic))
            out += effort.crp_dcg_panels(campaign.campaign(t, t + 1), [(run, topic)],
                                         depth=depth, rel_level=rel)
        return out
    return panels


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


def _sweep_families(K: int) -> dict[str, str]:
    return {f"P@{K}": f"P_rare(alpha={{alpha}})@{K}", f"AP@{K}": f"AP_rare(alpha={{alpha}})@{K}"}


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
    from irmeta import validate
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


class _Untimed:
    """A clock that times nothing (:func:`analyse_campaign` without a progress bar)."""

    def step(self, name: str):
        return contextlib.nullcontext()


def ranks(values: pd.Series) -> pd.Series:
    """Competition ranks, 1 = largest (1 + the number of strictly larger values); NaN
    stays NaN."""
    return values.rank(ascending=False, method="min")


# ---------------------------------------------------------------------- leaderboard
#: ``leaderboard_section(..., uncertainty=COMPUTE)``: compute the intervals and tests in place
COMPUTE = "compute"


def leaderboard_section(results, columns: list[Column], groups: dict, own_groups: bool,
                rare_cutoff: int, opts: ReportOptions | None = None,
                prior: str = "others", uncertainty: Any = COMPUTE,
                run_info: pd.DataFrame | None = None) -> LeaderboardSection:
    """The :class:`LeaderboardSection` of evaluated ``results`` (one measure per column; the
    first is the primary measure, which orders the table and gets intervals and tests
    with ``opts``' test, correction, level, ``ci_level``, ``ci_trials`` and seed).
    ``uncertainty``: those intervals and tests when already computed
    (:func:`primary_uncertainty`, None for none), else :data:`COMPUTE`."""
    opts = opts or ReportOptions()
    per_column = {}
    for i, col in enumerate(columns):
        m = results.matrix(i)
        per_column[col.label] = col.aggregate(m)
    means = pd.DataFrame(per_column)
    if isinstance(uncertainty, str) and uncertainty == COMPUTE:
        uncertainty = primary_uncertainty(results, opts)
    return board_of_means(columns, means, groups, own_groups, rare_cutoff, opts, prior,
                          uncertainty, run_info)


def board_of_means(columns: list[Column], means: pd.DataFrame, groups: dict,
                   own_groups: bool, rare_cutoff: int, opts: ReportOptions,
                   prior: str = "others", uncertainty: Any = None,
                   run_info: pd.DataFrame | None = None) -> LeaderboardSection:
    """The :class:`LeaderboardSection` of the runs' ``means`` (runs x column labels):
    ranks, tie-aware rank changes, saturated columns, the table."""
    rank = means.apply(ranks)
    primary = columns[0].label
    saturated = tuple(c for c in saturated_columns(means) if c != primary)
    # the same order as the tests' table: mean descending, campaign order on ties
    order = means[primary].sort_values(ascending=False, kind="stable").index
    table = pd.DataFrame({"run": list(order)}, index=list(order))
    if not own_groups:
        table["group"] = [groups[r] for r in order]
    if run_info is not None:
        for name in run_info.columns:
            table[str(name)] = run_info[name].reindex(order).to_numpy()
    for label in means.columns:
        table[label] = means[label].reindex(order).to_numpy()
        table[f"rank {label}"] = rank[label].reindex(order).to_numpy()
        if label != primary:      # tie-aware; none under a saturated column
            delta = (pd.Series(np.nan, index=means.index) if label in saturated
                     else rank_shift(means[primary], means[label]))
            table[f"delta {label}"] = delta.reindex(order).to_numpy()
        if label == primary and uncertainty is not None:
            u = uncertainty.table.reindex(order)
            for name in ("ci_low", "ci_high", "p_vs_best", "significant_vs_best",
                         "p_vs_next", "significant_vs_next", "tied_with_best"):
                table[name] = u[name].to_numpy()
    return LeaderboardSection(tuple(columns), means, rank, table, own_groups, rare_cutoff, primary,
                       uncertainty, opts.rel_level, prior, saturated, run_info)


def primary_uncertainty(results, opts: ReportOptions):
    """The primary measure's (first column's) bootstrap intervals and tests
    (:func:`irmeta.stats.leaderboard.leaderboard` on the topics every run has a value
    for), None with fewer than 2 such topics. :func:`analyse` computes them in a forked
    child (importing ``scipy.stats`` takes about a second) while the parent computes
    the other sections."""
    from irmeta.stats.leaderboard import leaderboard as ranked
    matrix = results.matrix(0).dropna(axis=1, how="any")   # paired tests: common topics
    if matrix.shape[1] < 2:
        return None
    return ranked(matrix, test=opts.test, correction=opts.correction, level=opts.level,
                  ci_level=opts.ci_level, trials=opts.ci_trials, seed=opts.seed)


def choose_defaults(campaign, opts: ReportOptions) -> Defaults:
    """The campaign-dependent defaults (:class:`Defaults`).

    Primary measure, unless given: **nDCG@10 when the qrels are graded (a grade above 1)
    and no run is deeper than 100 documents** — the convention of TREC Deep Learning
    and of other shallow, graded tracks — **else AP** (trec_eval's ``map``, the primary
    measure of TREC's ad hoc tracks, which needs deep rankings to be meaningful).
    Twist's depth N, unless given: the runs' depth (a deeper N pads every ranking with
    non-relevant documents)."""
    depth = int(campaign.depth)
    graded = bool(len(campaign.judged.grades) and int(campaign.judged.grades.max()) > 1)
    if opts.primary is not None:
        primary, rule = opts.primary, "given (--primary)"
    elif graded and depth <= 100:
        primary, rule = "nDCG@10", ("chosen from the campaign: graded judgements and runs "
                                    "of at most 100 documents (as TREC Deep Learning)")
    else:
        primary = "AP"
        rule = ("chosen from the campaign: " + ("binary judgements" if not graded else
                f"runs deeper than 100 documents ({depth})")
                + " (as TREC's ad hoc tracks)")
    twist, twist_rule = (opts.twist_depth, "given (--twist-depth)") if opts.twist_depth \
        else (depth, "the runs' depth")
    return Defaults(primary, rule, depth, int(twist), twist_rule, graded)


def natural_order(topics) -> list:
    """Topic ids in natural order: by number when every id is an integer (``2`` before
    ``10``), else by their runs of digits read as numbers (``t2`` before ``t10``), ties
    by the id itself; the per-topic tables and matrices use it (issue 24)."""
    import re
    ids = [str(t) for t in topics]

    def key(t: str):
        parts = re.split(r"(\d+)", t)
        return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p], t
    order = sorted(range(len(ids)), key=lambda i: key(ids[i]))
    return [list(topics)[i] for i in order]


def per_topic_results(campaign, opts: ReportOptions, results,
                      board: LeaderboardSection) -> PerTopic:
    """The :class:`PerTopic` results: every measure's matrix over the analysed topics
    (in :func:`natural_order`), and for the primary measure the best/median/worst per
    topic with each run beside them."""
    from irmeta.aggregate.topics import run_topics, topic_summary
    keep = np.asarray(campaign.topics, dtype=object)[campaign.topic_set(opts.rel_level)]
    matrices = {}
    for i, col in enumerate(board.columns):
        m = results.matrix(i)
        matrices[col.measure] = m.reindex(columns=natural_order(
            [t for t in m.columns if t in set(keep)]))
    primary = matrices[board.columns[0].measure]
    return PerTopic(board.primary, topic_summary(primary),
                    {str(r): run_topics(primary, str(r)) for r in primary.index}, matrices)


def rank_ranges(values: pd.Series) -> pd.DataFrame:
    """Per run the range of ranks it can take when ties are broken either way (1 =
    largest): ``lo`` = 1 + runs with a strictly larger value (the competition rank),
    ``hi`` = runs with a larger or equal value; NaN for an undefined value."""
    return pd.DataFrame({"lo": values.rank(ascending=False, method="min"),
                         "hi": values.rank(ascending=False, method="max")})


def rank_shift(primary: pd.Series, other: pd.Series) -> pd.Series:
    """The tie-aware rank change of every run from ``primary`` to ``other``: the gap
    between its two rank ranges (:func:`rank_ranges`), 0 when they overlap, positive
    when the run ranks higher under ``other``; NaN where either value is undefined."""
    a, b = rank_ranges(primary), rank_ranges(other)
    up = a["lo"] - b["hi"]              # > 0: even its worst rank under other is better
    down = b["lo"] - a["hi"]            # > 0: even its best rank under other is worse
    return up.clip(lower=0) - down.clip(lower=0)


def saturated_columns(means: pd.DataFrame) -> tuple[str, ...]:
    """The columns where more than :data:`SATURATION` of the runs with a defined value
    share one value (most ranks are ties: rank changes there are noise)."""
    out = []
    for label in means.columns:
        v = means[label].dropna()
        if len(v) and v.value_counts().iloc[0] > SATURATION * len(v):
            out.append(str(label))
    return tuple(out)


def _superlative(values: pd.Series, order, ranks: pd.Series) -> Superlative | None:
    """Every run holding the largest of ``values`` (exact equality, as the ranks),
    in ``order``; None when every value is NaN."""
    if not values.notna().any():
        return None
    top = values.max()
    runs = tuple(str(r) for r in order if values[r] == top)
    return Superlative(runs, float(top), tuple(int(ranks[r]) for r in runs))


def highlights(board: LeaderboardSection, nrg_cutoff: int) -> Highlights:
    """The summary facts of a leaderboard (see :class:`Highlights`)."""
    m, lb = board.means, board.table
    P = board.primary
    order = list(lb.index)                 # best first by the primary measure
    rank_p = board.ranks[P]
    best = _superlative(m[P], order, rank_p) or \
        Superlative(tuple(str(r) for r in order[:1]), float("nan"), (0,))   # all undefined
    tied = None if board.uncertainty is None else \
        int(board.uncertainty.table["tied_with_best"].sum())
    most_new = _superlative(m[f"NRG@{nrg_cutoff}"], order, rank_p)
    uniq = m[f"unique@{board.rare_cutoff}"]
    most_unique = _superlative(uniq, order, rank_p) if uniq.max() > 0 else None
    left_out = {}
    for c in board.columns:
        if c.label == P:
            continue
        if c.label in board.saturated:
            v = m[c.label].dropna()
            counts = v.value_counts()
            left_out[c.label] = (f"{int(counts.iloc[0])} of {len(v)} runs share "
                                 f"{float(counts.index[0]):.3f}")
        elif c.diagnostic:
            left_out[c.label] = "a diagnostic of the judgements, not of the runs"
    changes = []
    ranges: dict = {}     # rank ranges of a column, computed once (not once per run)
    for col in m.columns:
        if col == P or col in left_out:
            continue
        shift = lb[f"delta {col}"]
        for run in order:
            d = shift[run]
            if np.isfinite(d) and d != 0:
                changes.append(RankChange(str(run), str(col), _range(m, P, run, ranges),
                                          _range(m, col, run, ranges), int(d)))
    largest = max((abs(c.shift) for c in changes), default=0)
    moved = tuple(c for c in changes if abs(c.shift) == largest)
    return Highlights(P, best, tied, nrg_cutoff, most_new, most_unique, moved,
                      tuple((c, left_out[c]) for c in m.columns if c in left_out))


def _range(means: pd.DataFrame, col, run, cache: dict) -> tuple[int, int]:
    """The rank range of ``run`` under column ``col`` of ``means`` (:func:`rank_ranges`,
    computed once per column into ``cache``)."""
    if col not in cache:
        r = rank_ranges(means[col])
        cache[col] = dict(zip(r.index, zip(r["lo"].to_numpy(), r["hi"].to_numpy())))
    lo, hi = cache[col][run]
    return int(lo), int(hi)


def _no_group(own_groups: bool, frame: pd.DataFrame) -> pd.DataFrame:
    """Drop the ``group`` column when no groups were given (it would repeat the run)."""
    return frame.drop(columns="group") if own_groups and "group" in frame else frame


# ---------------------------------------------------------------------- innovation
def innovation(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
               groups: dict, prior: str, context: dict) -> InnovationSection:
    """The :class:`InnovationSection`: rareness curves and unique documents, from the
    pieces (:mod:`irmeta.report.pieces`): the sweep measures' per-topic values, the
    unique documents and their counts per (run, topic)."""
    from irmeta.stats.correlation import sweep_table

    c, pieces, K = source.view, source.pieces, opts.rare_cutoff
    # the sweep's means as irmeta.stats.alpha_sweep takes them (system_means)
    sweep_values = _results_of(c, [_one_measure(m) for m in source.spec.sweep], pieces.sweep,
                               opts.rel_level)
    means = pd.DataFrame({m: sweep_values.matrix(i).mean(axis=1)
                          for i, m in enumerate(source.spec.sweep)})
    alphas = [validate.number(a, "alphas", "alpha_sweep") for a in opts.alphas]
    sweep = sweep_table(means, _sweep_families(K), alphas, ("kendall", "tau_ap"))
    # unique relevant documents: in the run's top K, grade >= rel, no other run's top K
    docs = pieces.documents
    per, found = pieces.unique, pieces.found
    rows = []
    for r, run in enumerate(c.runs):
        total = int(per[r].sum())
        rel_total = int(found[r].sum())
        rows.append({"run": run, "group": groups[run], "unique": total,
                     "topics": int((per[r] > 0).sum()),
                     "share": total / rel_total if rel_total else np.nan,
                     "examples": _examples(c, docs[docs["run"] == run], per[r], opts.examples)
                     if total else ""})
    table = _no_group(board.own_groups, pd.DataFrame(rows).sort_values(
        ["unique", "run"], ascending=[False, True]))
    return InnovationSection(K, sweep, sweep.groupby("baseline")["kendall"].min(), docs,
                             table, int((table["unique"] > 0).sum()), c.num_runs)


def _results_of(c, ms: list, values: np.ndarray, rel_level: int):
    """:class:`~irmeta.evaluation.Results` of per-topic ``values[R, M, T]`` of the
    measures ``ms``, every topic evaluated (``complete``): their ``matrix`` is the one
    ``evaluate(..., complete=True)`` gives."""
    from irmeta.evaluation import Results
    return Results(c, list(ms), values, np.ones((c.num_runs, c.num_topics), dtype=bool),
                   rel_level)


def _one_measure(measure: str):
    """The measure a string names (system_means' rule: exactly one)."""
    from irmeta.measures.parse import parse_measures
    parsed = parse_measures(validate.measure_list([measure], "evaluate"))
    if len(parsed) != 1:
        raise ParameterError("system_means: each measure string must name exactly one "
                             f"measure, got {[measure]!r}")
    return parsed[0]


def _examples(c, docs: pd.DataFrame, per_topic: np.ndarray, n: int) -> str:
    """Up to ``n`` topics of one run with most unique documents, per topic up to ``n``
    documents, highest grade first: ``topic T: doc (rank r, grade g), ... +more; ...``."""
    out = []
    for t in np.argsort(-per_topic, kind="stable")[:n]:
        if per_topic[t] == 0:
            break
        dt = docs[docs["topic"] == c.topics[t]].sort_values(["grade", "rank"],
                                                            ascending=[False, True])
        items = ", ".join(f"{x.docid} (rank {x.rank}, grade {x.grade})"
                          for x in dt.head(n).itertuples())
        more = f" +{len(dt) - n}" if len(dt) > n else ""
        out.append(f"topic {c.topics[t]}: {items}{more}")
    return "; ".join(out)


# ---------------------------------------------------------------------- NRG
def nrg(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
        groups: dict, prior: str, context: dict) -> NRGSection:
    """The :class:`NRGSection` from the leaderboard's means."""
    k, m = opts.nrg_cutoff, board.means
    x, y = m[f"nDCG@{k}"], m[f"NRG@{k}"]
    grp = pd.Series([groups[r] for r in m.index], index=m.index)
    ratio = y / x.where(x > 0)
    uniq = m[f"unique@{opts.rare_cutoff}"]
    table = pd.DataFrame({"run": m.index, "group": grp.values, f"nDCG@{k}": x.values,
                          f"NRG@{k}": y.values, "NRG / nDCG": ratio.values,
                          f"rank nDCG@{k}": ranks(x).values, f"rank NRG@{k}": ranks(y).values,
                          f"unique@{opts.rare_cutoff}": uniq.values})
    table = _no_group(board.own_groups,
                      table.sort_values([f"NRG@{k}", "run"], ascending=[False, True]))
    points = pd.DataFrame({"nDCG": x, "NRG": y, "group": grp})
    colour_by = None
    if board.attributes is not None:         # the first run attribute colours the points
        colour_by = str(board.attributes.columns[0])
        points["colour"] = board.attributes[board.attributes.columns[0]].reindex(m.index)
    return NRGSection(k, opts.rare_cutoff, prior, board.own_groups, points, table, colour_by)


# ---------------------------------------------------------------------- effort
def effort_section(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
                   groups: dict, prior: str, context: dict) -> EffortSection:
    """The :class:`EffortSection`: grid, archetypes and the most telling curves (the
    gain measure's values and the archetypes from the pieces)."""
    from irmeta import effort
    from irmeta.measures.parse import parse_measures

    c = source.view
    N = int(opts.twist_depth or c.depth)          # analyse() resolved it; None: runs' depth
    labels = [col.measure for col in board.columns]
    tv = results.values[:, [col.label for col in board.columns].index("Twist")]
    if opts.gain in labels:
        gv = results.values[:, labels.index(opts.gain)]
        gain_label = board.columns[labels.index(opts.gain)].label
    else:
        gv = source.pieces.gain
        gain_label = parse_measures(validate.measure_list([opts.gain], "evaluate"))[0].display
    keep = c.topic_set(opts.rel_level)
    tv = np.where(keep[None, :], tv, np.nan)
    undefined = int((keep & (c.num_rel(opts.rel_level) > N)).sum())
    if np.isnan(tv).all():
        return EffortSection(N, gain_label, opts.seed, None, c.depth, undefined,
                             _rule(opts, opts.gain, "--gain"))
    grid = effort.effort_gain(c, gain_label, depth=N, values=(tv, gv))
    tell = effort.most_telling(grid, k=1)
    shares = grid.table(percent=True)
    shares.index.name = f"{gain_label} quartile"
    arche = source.pieces.archetypes
    arche = arche[arche["topic"].isin(np.asarray(c.topics, dtype=object)[keep])]
    overall = effort.archetype_table({"campaign": arche})
    per_run = (pd.crosstab(arche["run"], arche["archetype"])
               .reindex(columns=list(effort.ARCHETYPES), fill_value=0))
    per_run = per_run.reindex(list(c.runs)).fillna(0).astype(int)
    per_run = per_run.assign(total=per_run.sum(axis=1))
    percent = 100.0 * per_run[list(effort.ARCHETYPES)].div(
        per_run["total"].where(per_run["total"] > 0), axis=0)
    both = pd.concat([overall.rename(index={"campaign": "all runs"}),
                      per_run[["total"]].join(percent)])
    both.index.name = "run"
    panels = source.panels(list(zip(tell["run"], tell["topic"])), N, opts.rel_level)
    return EffortSection(N, gain_label, opts.seed,
                         EffortFindings(grid, tell, shares, both, tuple(panels)), c.depth,
                         undefined, _rule(opts, opts.gain, "--gain"))


# ---------------------------------------------------------------------- topics
def topics(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
           groups: dict, prior: str, context: dict) -> TopicsSection:
    """The :class:`TopicsSection`: GAWM and HITS on the ``matrix_measure`` matrix (from
    the pieces when it is not a leaderboard column)."""
    from irmeta.aggregate import gawm, hits
    from irmeta.aggregate.analyses import heatmap_bars
    from irmeta.measures.parse import parse_measures
    from irmeta.stats import kendall_tau

    c = source.view
    labels = [col.measure for col in board.columns]
    if opts.matrix_measure in labels:
        i = labels.index(opts.matrix_measure)
        name, matrix = board.columns[i].label, results.matrix(i)
    else:   # evaluate(c, [matrix_measure], groups=groups, complete=True), from the pieces
        first = parse_measures(validate.measure_list([opts.matrix_measure], "evaluate"))[0]
        res = _results_of(c, [first], source.pieces.matrix[:, None, :], opts.rel_level)
        name, matrix = first.display, res.matrix(0)
    matrix = matrix.dropna(axis=1, how="any")
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        return TopicsSection(name, None, _rule(opts, opts.matrix_measure, "--matrix-measure"))
    # non-convergence is stated in the report (TopicsSection.gawm.converged): no warning
    g = gawm(matrix, "A", "arithmetic", "arithmetic", warn=False)
    h = hits(matrix)
    MAP = matrix.mean(axis=1)
    systems = pd.DataFrame({"run": matrix.index, "group": [groups[r] for r in matrix.index],
                            "MAP": MAP.values, "rank MAP": ranks(MAP).values,
                            "GAWM E_s": g.E_s.values, "rank GAWM": ranks(g.E_s).values,
                            "HITS A(s)": h.authority_s.values,
                            "rank HITS": ranks(h.authority_s).values,
                            "weight W_s": g.W_s.values})
    # tie-aware, as the leaderboard's: the gap between the rank ranges (0 when they overlap)
    systems["rank change"] = rank_shift(pd.Series(MAP.to_numpy(), index=systems.index),
                                        pd.Series(g.E_s.reindex(MAP.index).to_numpy(),
                                                  index=systems.index)).to_numpy()
    systems = _no_group(board.own_groups, systems.sort_values(["rank GAWM", "run"]))
    nrel = pd.Series(c.num_rel(opts.rel_level), index=list(c.topics)).reindex(matrix.columns)
    topic_frame = pd.DataFrame({"topic": matrix.columns, "relevant": nrel.values.astype(int),
                                "AAP": matrix.mean(axis=0).values, "ease E_t": g.E_t.values,
                                "weight W_t": g.W_t.values,
                                "HITS A(t)": h.authority_t.values,
                                "std over runs": matrix.std(axis=0, ddof=0).values})
    topic_frame = topic_frame.sort_values(["weight W_t", "topic"], ascending=[False, True])
    bars = heatmap_bars(matrix, "A", ("arithmetic",), results={"arithmetic": g},
                        hits_result=h)
    return TopicsSection(name, TopicAggregation(
        matrix, g, h, MAP, bars, systems, topic_frame,
        moved=int((systems["rank change"] != 0).sum()),
        tau=kendall_tau(MAP, g.E_s.reindex(MAP.index))),
        _rule(opts, opts.matrix_measure, "--matrix-measure"))


def _rule(opts: ReportOptions, measure, option: str) -> str:
    """Why a one-measure section uses ``measure`` (stated on the page)."""
    if measure == opts.primary:
        return f"the primary measure, as every section of one measure; {option} chooses another"
    return f"given ({option}); the primary measure is {opts.primary}"


# ---------------------------------------------------------------------- trust
def reusability_part(campaign, opts: ReportOptions, measure: str,
                     groups: Mapping[str, str]) -> ReusabilityPart | None:
    """The :class:`ReusabilityPart` of the primary measure (None when it depends on the
    other runs' context, which leaving a group out would change, or with one group)."""
    from irmeta.measures.parse import parse_measures
    from irmeta.stats.reusability import reusability
    if any(m.definition.context for m in parse_measures([measure])):
        return None
    if len(set(groups.values())) < 2:
        return None
    res = reusability(campaign, [measure], dict(groups), depth=opts.rare_cutoff,
                      rel_level=opts.rel_level)
    scores = res.table.drop(columns=["measure"])[["run", "group", "score", "score_without",
                                                  "rank", "rank_without"]]
    drop = scores.assign(drop=scores["score"] - scores["score_without"])
    largest = drop.groupby("group", sort=False)["drop"].max()
    rare = [c for c in res.groups.columns if c.startswith("mean_")]
    table = res.groups.rename(columns={"unique_judged": "unique judged",
                                       "unique_relevant": "unique relevant",
                                       **{c: "mean AP_rare" for c in rare}})
    table["largest drop"] = table["group"].map(largest).to_numpy()
    table = table.sort_values(["unique relevant", "group"], ascending=[False, True],
                              kind="stable").reset_index(drop=True)
    row = res.summary.iloc[0]
    worst = drop.sort_values(["drop", "run"], ascending=[False, True]).iloc[0]
    return ReusabilityPart(measure, opts.rare_cutoff, scores.reset_index(drop=True), table,
                           float(row["kendall_tau"]), float(row["tau_ap"]),
                           (str(worst["run"]), float(worst["drop"])))


def trust_matrices(results, columns: list[Column]) -> dict[str, pd.DataFrame]:
    """``{label: systems x topics matrix}`` of the leaderboard columns, topics with an
    undefined value left out; measures with fewer than 2 topics left are dropped, and
    diagnostic columns (Judged@10) are not meta-evaluated."""
    mats = {}
    for i, col in enumerate(columns):
        if col.diagnostic:          # Judged@10 says how judged the runs are, not how good
            continue
        mat = results.matrix(i).dropna(axis=1, how="any")
        if mat.shape[1] >= 2:
            mats[col.label] = mat
    return mats


def trust_tests(mats: dict, opts: ReportOptions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Discriminative power (paired bootstrap) and stability of every measure: the
    slowest part of the report, run in a forked child by :func:`analyse`."""
    from irmeta import stats
    if not mats:  # fewer than 2 topics: the section says why these tests are left out
        return pd.DataFrame(), pd.DataFrame()
    dp, _ = stats.bootstrap_power(mats, level=opts.level, trials=opts.discpower_trials,
                                  seed=opts.seed, progress=False)
    stab = stats.stability_table(mats, trials=opts.stability_trials, fuzziness=opts.fuzziness,
                                 seed=opts.seed, classic=True, progress=False)
    return dp, stab


def trust(campaign, opts: ReportOptions, board: LeaderboardSection,
          tests: tuple[pd.DataFrame, pd.DataFrame]) -> TrustSection:
    """The :class:`TrustSection` from the leaderboard and :func:`trust_tests`."""
    from irmeta import stats

    tau = stats.correlation_matrix(board.means, method="kendall")
    # tau is NaN (undefined) where a measure ties every run (identical runs, one topic
    # without a relevant document for anyone): the most different pair is among the rest
    off = tau.where(~np.eye(len(tau), dtype=bool)).stack().dropna()
    most_different = None
    if len(off):
        a, b = cast(tuple, off.idxmin())
        most_different = (str(a), str(b), float(off.to_numpy().min()))
    dp, stab = tests
    topics = int(campaign.topic_set(opts.rel_level).sum())
    if dp.empty:
        return TrustSection(tau, most_different, False, dp, dp, 0, opts.level,
                            opts.discpower_trials, opts.stability_trials, opts.fuzziness,
                            topics, board.primary, None)
    dp = dp.sort_values("dp", ascending=False, kind="stable").reset_index(drop=True)
    table = dp[["measure", "dp", "significant", "pairs", "delta"]].merge(
        stab, on="measure", how="left")
    table = table.rename(columns={"dp": "disc. power", "significant": "significant pairs",
                                  "delta": "Δ needed", "stability": "stability",
                                  "stability_ties": "stability ties", "bv_error": "BV error",
                                  "bv_ties": "BV ties", "bv_swaps": "BV swaps"})
    hits = np.flatnonzero(table["measure"].to_numpy() == board.primary)
    return TrustSection(tau, most_different, True, dp, table,
                        int(dp["pairs"].iloc[0]) if len(dp) else 0, opts.level,
                        opts.discpower_trials, opts.stability_trials, opts.fuzziness, topics,
                        board.primary,
                        int(hits[0]) + 1 if len(hits) else None)


# ---------------------------------------------------------------------- inputs
def inputs_section(campaign, opts: ReportOptions, groups: dict, own_groups: bool,
                   prior: str, prior_runs, reference, inputs) -> InputsSection:
    """The :class:`InputsSection`: the campaign's size and the options."""
    c = campaign
    keep = c.topic_set(opts.rel_level)
    nrel = c.num_rel(opts.rel_level)
    inputs = dict(inputs or {})
    files = []
    if inputs.get("campaign"):
        files.append(("campaign", str(inputs["campaign"])))
    if inputs.get("qrels"):
        files.append(("qrels file", os.path.basename(str(inputs["qrels"]))))
    if inputs.get("runs"):
        names = [os.path.basename(str(p)) for p in inputs["runs"]]
        files.append(("run files", ", ".join(names[:4])
                      + (f", … ({len(names)} files)" if len(names) > 4 else "")))
    if inputs.get("groups"):
        files.append(("groups file", os.path.basename(str(inputs["groups"]))))
    if isinstance(opts.run_info, (str, os.PathLike)):
        files.append(("run info file", os.path.basename(os.fspath(opts.run_info))))
    dropped = getattr(c, "dropped_topics", None)
    renamed = []
    tags, sources = getattr(c, "tags", ()) or (), getattr(c, "sources", ()) or ()
    if tags:
        from irmeta.io.trec import run_name_from_path
        for i, run in enumerate(c.runs):
            if tags[i] is not None and tags[i] != run:
                by_file = i < len(sources) and sources[i] is not None and \
                    run_name_from_path(sources[i]) == run
                renamed.append((str(run), str(tags[i]), "file" if by_file else "given"))
    return InputsSection(
        files=tuple(files), runs=c.num_runs,
        groups=None if own_groups else len(set(groups.values())),
        qrels_topics=c.num_topics, analysed_topics=int(keep.sum()),
        judged=len(c.judged.grades), relevant=int(nrel.sum()),
        relevant_per_topic=float(nrel[keep].mean()) if keep.any() else float("nan"),
        rel_level=opts.rel_level, depth=c.depth, nrg_prior=prior,
        prior_runs=prior_runs if prior == "list" else None,
        reference_runs=None if reference is None else reference.num_runs,
        dropped_topics=sum(dropped.values()) if dropped else None,
        parameters=tuple(opts.items()), renamed=tuple(renamed))


#: section name -> function computing it (``leaderboard`` and ``trust`` are computed
#: apart: every section uses the first, the second runs in a child process)
_ANALYSES = {"innovation": innovation, "nrg": nrg, "effort": effort_section,
             "topics": topics}
