"""The campaign report: every section computed from a :class:`~irmeta.data.campaign.Campaign`
through the public APIs, then rendered by :class:`irmeta.report.html.ReportWriter`.

Sections (``SECTIONS``; each can be skipped, see :class:`ReportOptions`):

1. ``leaderboard`` — every run under classic measures (AP, P@10, nDCG@10, RR, bpref,
   R@1000) and context measures (P_rare@K and AP_rare@K at alpha 0.5 and 1,
   NRG(base=nDCG)@10, unique relevant documents ``NRG(base=unique,prior=others)@K``
   summed over topics, Twist@N), each with the run's rank (competition ranking, 1 =
   best) and the rank change against AP. Means over the *campaign topic set* (qrels
   topics with a relevant document; a run lacking one scores an empty ranking there);
   undefined values (Twist) left out of the mean.
2. ``innovation`` — Kendall's tau (and tau_AP) between P@K / AP@K and their rareness
   versions over a grid of alpha (:func:`irmeta.stats.alpha_sweep`); per run, the
   relevant documents in its top K that no other run has in its top K, with examples.
3. ``nrg`` — NRG@10 against nDCG@10, one point per run coloured by group; the runs
   adding the most unseen relevant material.
4. ``effort`` — Twist against a gain measure on the 4x4 grid
   (:func:`irmeta.effort.effort_gain`), archetypes (:func:`irmeta.effort.archetypes`),
   CRP and DCG of the most telling (run, topic) pairs
   (:func:`irmeta.effort.most_telling`).
5. ``topics`` — GAWM (axioms A, arithmetic means) and HITS on the systems x topics
   matrix of one measure (default AP): topic weights and ease, heat map, system
   authorities, ranking under MAP vs GAWM.
6. ``trust`` — discriminative power (Sakai's paired bootstrap, ``bootstrap`` samples),
   stability under topic subsampling (the innovation paper's fuzziness stability and the
   Buckley-Voorhees error rate, ``trials`` trials), Kendall's tau between the rankings
   of every pair of reported measures.

Every random step uses ``seed`` (``numpy.random.default_rng``), so the report is
reproduced exactly by the command printed at its end.
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.errors import ParameterError
from irmeta.report.html import ReportWriter, Row, StepClock, markup

SECTIONS = ("leaderboard", "innovation", "nrg", "effort", "topics", "trust")
NRG_PRIORS = ("auto", "others", "best_per_group", "earlier")


@dataclass
class ReportOptions:
    """Parameters of the campaign report (all printed in the report).

    ``rel_level``: minimum grade counted relevant by binary measures; ``seed``: seed of
    every random procedure; ``bootstrap``: samples of the paired bootstrap test;
    ``trials``: topic-subsampling trials of the stability analysis; ``level``:
    significance level; ``fuzziness``: absolute difference below which two means tie
    (stability); ``alphas``: the alpha grid of the innovation curves; ``rare_k``: cutoff
    K of P_rare / AP_rare and of the unique-document count; ``nrg_k``: cutoff of NRG and
    nDCG in the NRG section; ``nrg_prior``: NRG prior set (``auto`` =
    ``best_per_group`` when groups are given, else ``others``); ``twist_depth``: depth N
    of Twist; ``gain``: gain measure of the effort/gain grid; ``matrix_measure``:
    measure of the GAWM/HITS matrix; ``examples``: example documents per run;
    ``skip``: sections left out; ``progress``: show a progress bar on stderr (None:
    when stderr is a terminal); ``background``: figures drawn at once in forked child
    processes while the next section is computed (0: all in this process; same files;
    ``None``: :func:`default_background`).
    """

    rel_level: int = 1
    seed: int = 0
    bootstrap: int = 1000
    trials: int = 1000
    level: float = 0.05
    fuzziness: float = 0.05
    alphas: tuple = tuple(np.round(np.linspace(0.0, 1.0, 11), 10))
    rare_k: int = 100
    nrg_k: int = 10
    nrg_prior: str = "auto"
    twist_depth: int = 1000
    gain: str = "AP"
    matrix_measure: str = "AP"
    examples: int = 3
    skip: frozenset = field(default_factory=frozenset)
    progress: bool | None = None
    background: int | None = None

    def validate(self) -> "ReportOptions":
        fn = "ReportOptions"
        for name in ("bootstrap", "trials", "rare_k", "nrg_k", "twist_depth", "examples"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ParameterError(f"{fn}: {name} must be a positive integer, got {v!r}")
        from irmeta.measures.twist import check_depth
        check_depth(self.twist_depth, f"{fn}: twist_depth")
        if self.background is None:
            return replace(self, background=default_background()).validate()
        if isinstance(self.background, bool) or not isinstance(self.background, (int, np.integer)) \
                or self.background < 0:
            raise ParameterError(f"{fn}: background must be an integer >= 0, got "
                                 f"{self.background!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) \
                or self.seed < 0:
            raise ParameterError(f"{fn}: seed must be a non-negative integer, got {self.seed!r}")
        if not 0.0 < float(self.level) < 1.0:
            raise ParameterError(f"{fn}: level must be in (0, 1), got {self.level!r}")
        if not float(self.fuzziness) >= 0.0:
            raise ParameterError(f"{fn}: fuzziness must be >= 0, got {self.fuzziness!r}")
        if self.nrg_prior not in NRG_PRIORS:
            raise ParameterError(f"{fn}: nrg_prior must be one of {', '.join(NRG_PRIORS)}, "
                                 f"got {self.nrg_prior!r}")
        if len(self.alphas) < 2 or any(not 0.0 <= float(a) for a in self.alphas):
            raise ParameterError(f"{fn}: alphas must hold at least two values >= 0, got "
                                 f"{self.alphas!r}")
        unknown = set(self.skip) - set(SECTIONS)
        if unknown:
            raise ParameterError(f"{fn}: skip names unknown section(s) "
                                 f"{', '.join(sorted(unknown))} "
                                 f"(known: {', '.join(SECTIONS)})")
        return self

    def items(self) -> list[tuple[str, str]]:
        """(name, value) pairs as printed in the report."""
        out = []
        for f in fields(self):
            v = getattr(self, f.name)
            if f.name == "alphas":
                v = ", ".join(f"{float(a):g}" for a in v)
            elif f.name == "skip":
                v = ", ".join(s for s in SECTIONS if s in v) or "none"
            elif f.name in ("progress", "background"):
                continue
            out.append((f.name, str(v)))
        return out


def default_background() -> int:
    """Figures drawn at once in the background: the CPUs this process may use, at most
    4 (the main process and the trust tests' child use the others' share; with eight
    figures more children gain nothing)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


@dataclass
class CampaignReport:
    """What :func:`campaign_report` wrote: the HTML ``path``, every file written next to
    it (``files``), the leaderboard frame, and wall/CPU seconds per step (``timings``)."""

    path: Path
    files: list[Path]
    leaderboard: pd.DataFrame
    timings: dict[str, tuple[float, float]]


# ---------------------------------------------------------------------- measures
@dataclass(frozen=True)
class Column:
    """A leaderboard column: measure string, short label, tooltip."""

    measure: str
    label: str
    tip: str
    kind: str = "mean"         # "mean" over topics, or "sum" (counts)


def leaderboard_columns(opts: ReportOptions, prior: str) -> list[Column]:
    """The leaderboard measures for the given options (see module doc)."""
    K = opts.rare_k
    extra = [] if opts.nrg_k == 10 else [
        Column(f"nDCG@{opts.nrg_k}", f"nDCG@{opts.nrg_k}", "normalised DCG, gain = grade "
               "(the base of NRG)")]
    return [
        Column("AP", "AP", "average precision (trec_eval map)"),
        Column("P@10", "P@10", "precision at 10"),
        Column("nDCG@10", "nDCG@10", "normalised DCG at 10, gain = grade"),
        *extra,
        Column("RR", "RR", "reciprocal rank of the first relevant document"),
        Column("bpref", "bpref", "binary preference (robust to unjudged documents)"),
        Column("R@1000", "R@1000", "recall at 1000"),
        Column(f"P_rare(alpha=0.5)@{K}", f"P_rare@{K} α=.5",
               "rareness-weighted precision: a relevant document counts 1 + α(1 − S_d/S), "
               "S_d = runs retrieving it"),
        Column(f"P_rare(alpha=1)@{K}", f"P_rare@{K} α=1", "rareness-weighted precision, α = 1"),
        Column(f"AP_rare(alpha=0.5)@{K}", f"AP_rare@{K} α=.5", "rareness-weighted AP, α = 0.5"),
        Column(f"AP_rare(alpha=1)@{K}", f"AP_rare@{K} α=1", "rareness-weighted AP, α = 1"),
        Column(f"NRG(prior={prior})@{opts.nrg_k}", f"NRG@{opts.nrg_k}",
               f"normalised residual gain (base nDCG, prior = {prior}): nDCG counting only "
               "what the prior runs did not already show"),
        Column(f"NRG(base=unique,prior=others)@{K}", f"unique@{K}",
               f"relevant documents in the run's top {K} that no other run has in its top {K} "
               "(sum over topics)", kind="sum"),
        Column(f"Twist@{opts.twist_depth}", "Twist",
               "Twist: 1 = no avoidable effort (ideal order), 0 = the worst order; "
               "undefined topics left out"),
    ]


def _progress(total: int, enabled: bool | None):
    from tqdm.auto import tqdm
    if enabled is None:
        enabled = sys.stderr.isatty() and not os.environ.get("IRMETA_NO_PROGRESS")
    return tqdm(total=total, desc="irmeta report", disable=not enabled, file=sys.stderr,
                leave=False, dynamic_ncols=True, unit="step")


def _ranks(values: pd.Series) -> pd.Series:
    """Competition ranks, 1 = largest; NaN stays NaN."""
    return values.rank(ascending=False, method="min")


def _arrow(delta: float) -> tuple[str, str]:
    """Text and CSS class of a rank change (positive = moved up)."""
    if not np.isfinite(delta):
        return "", ""
    d = int(delta)
    if d > 0:
        return f"▲{d}", "up"
    if d < 0:
        return f"▼{-d}", "down"
    return "=", ""


# ---------------------------------------------------------------------- report
def campaign_report(campaign: Campaign, output="report.html", *,
                    groups: Mapping[str, str] | None = None,
                    options: ReportOptions | None = None,
                    reference: Campaign | None = None, prior_runs=None,
                    inputs: Mapping[str, object] | None = None,
                    command: str | None = None, title: str | None = None) -> CampaignReport:
    """Evaluate ``campaign`` and write the HTML report ``output`` with its TSV tables and
    PNG/SVG figures in ``<output stem>_files/``.

    ``groups``: run -> group (NRG prior ``best_per_group``, colours); without it every
    run is its own group. ``reference``: rarity reference runs of P_rare / AP_rare
    (:func:`irmeta.evaluate`'s ``reference``); ``prior_runs``: an explicit NRG prior set
    (used when ``options.nrg_prior`` is ``auto``). ``inputs``: what to print as the
    inputs (e.g. ``{"qrels": path, "runs": [paths], "groups": path}``). ``command``: the
    command line that reproduces the report (printed at its end). Returns a
    :class:`CampaignReport`.
    """
    if not isinstance(campaign, Campaign):
        raise ParameterError("campaign_report: campaign must be a Campaign (irmeta.load_campaign)")
    opts = (options or ReportOptions()).validate()
    if campaign.num_runs < 2:
        raise ParameterError(f"campaign_report: a campaign report needs at least 2 runs, "
                             f"got {campaign.num_runs}")
    require_campaign(campaign, opts.rel_level, "campaign_report")
    own_groups = not groups
    groups = {r: r for r in campaign.runs} if own_groups else dict(groups)
    missing = [r for r in campaign.runs if r not in groups]
    if missing:
        raise ParameterError(f"campaign_report: no group for run(s) {', '.join(missing[:5])}")
    prior = opts.nrg_prior
    if prior_runs is not None:
        prior_runs = tuple(prior_runs)
        unknown = [r for r in prior_runs if r not in campaign.runs]
        if unknown:
            raise ParameterError(f"campaign_report: prior_runs names unknown run(s) "
                                 f"{', '.join(unknown[:5])}")
    if prior == "auto":
        prior = ("list" if prior_runs is not None else
                 "others" if own_groups else "best_per_group")
    if reference is not None and not isinstance(reference, Campaign):
        raise ParameterError("campaign_report: reference must be a Campaign (irmeta.load_campaign)")
    active = [s for s in SECTIONS if s not in opts.skip]
    steps = 2 + len(active) + ("trust" in active)
    bar = _progress(steps, opts.progress)
    clock = StepClock(bar)
    title = title or "Campaign report"
    w = ReportWriter(output, title, background=opts.background)
    st = _State(campaign, groups, own_groups, opts, w, prior, leaderboard_columns(opts, prior),
                context={"reference": reference, "prior_runs": prior_runs})
    try:
        with _one_blas_thread(opts.background):
            path = _build(st, clock, inputs, prior, command)
    finally:
        bar.close()
        with contextlib.suppress(Exception):
            w.wait()                                       # no zombie children on errors
        w.discard()                   # after an error: no partial report, the old one kept
    return CampaignReport(path, list(w.files), st.leaderboard, clock.timings)


def _one_blas_thread(background: int):
    """With figures drawn in child processes, the BLAS of this process runs on one
    thread: the report's matrix products are small, and BLAS worker threads spinning
    while they wait take the cores the figure processes need (measured: 2 CPU-s of the
    demo report on 2 cores). Without background figures, nothing changes."""
    if not background:
        return contextlib.nullcontext()
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=1, user_api="blas")


def _build(st: "_State", clock: StepClock, inputs, prior: str, command) -> Path:
    """Compute every section into the writer and render the page; returns its path."""
    from irmeta import __version__
    from irmeta.evaluation import evaluate

    opts, w, campaign = st.opts, st.w, st.campaign
    with clock.step("evaluate"):
        st.results = evaluate(campaign, measures=[c.measure for c in st.columns],
                              groups=st.groups, rel_level=opts.rel_level, complete=True,
                              reference=st.context["reference"],
                              prior_runs=st.context["prior_runs"])
        st.means = _means(st)
        _leaderboard_frame(st)
    if "trust" not in opts.skip:
        with clock.step("trust: start (tests in a child, tau figure)"):
            _start_trust(st)
    try:
        for name in SECTIONS:
            if name in opts.skip:
                sec = w.section(name, _TITLES[name])
                sec.skipped = f"Skipped (--skip {name})."
                continue
            if name == "trust":
                _trust(st, clock)
                continue
            with clock.step(name):
                _BUILDERS[name](st)
    finally:
        if st.trust_job is not None:
            st.trust_job.cancel()                          # an error above: stop the child
    _inputs_section(st, inputs, prior)
    with clock.step("render"):
        return w.render(subtitle=_subtitle(st), summary=_summary(st),
                        version=__version__,
                        command=command or "irmeta report (API: irmeta.report.campaign_report)")


_TITLES = {"inputs": "Inputs and parameters", "leaderboard": "Leaderboard",
           "innovation": "Innovation: relevant documents few runs found",
           "nrg": "Relative effectiveness: what is new in each run (NRG)",
           "effort": "Effort: how much reading the ranking costs (Twist)",
           "topics": "Topics and systems: weighted aggregation (GAWM, HITS)",
           "trust": "Trust: how far the measures can be relied on"}


@dataclass
class _State:
    campaign: Campaign
    groups: dict
    own_groups: bool
    opts: ReportOptions
    w: ReportWriter
    prior: str
    columns: list
    context: dict = field(default_factory=dict)
    results: object = None
    means: pd.DataFrame = None
    leaderboard: pd.DataFrame = None
    lb_parts: tuple = None
    notes: list = field(default_factory=list)
    trust_job: object = None            # Job computing discriminative power and stability
    tau_block: object = None            # the Kendall tau figure, drawn early

    def col(self, label: str) -> Column:
        return next(c for c in self.columns if c.label == label)

    def matrix(self, label: str) -> pd.DataFrame:
        """systems x topics matrix (campaign topic set) of a leaderboard column."""
        i = [c.label for c in self.columns].index(label)
        return self.results.matrix(i)


def _means(st: _State) -> pd.DataFrame:
    out = {}
    for i, c in enumerate(st.columns):
        m = st.results.matrix(i)
        out[c.label] = m.sum(axis=1) if c.kind == "sum" else m.mean(axis=1, skipna=True)
    return pd.DataFrame(out)


def _no_group(st: _State, frame: pd.DataFrame) -> pd.DataFrame:
    """Drop the ``group`` column when no groups were given (it would repeat the run)."""
    return frame.drop(columns="group") if st.own_groups and "group" in frame else frame


def _subtitle(st: _State) -> str:
    c = st.campaign
    keep = c.topic_set(st.opts.rel_level)
    groups = len(set(st.groups.values()))
    return (f"{c.num_runs} runs" + ("" if st.own_groups else f" from {groups} groups")
            + f" · {int(keep.sum())} topics with relevant documents"
            f" · {len(c.judged.grades):,} judged documents")


def _summary(st: _State) -> list:
    m = st.means
    if m is None or m.empty:
        return []
    ap = m["AP"]
    best = ap.idxmax()
    out = [markup("Best run by AP: <strong>{r}</strong> (AP {v}).", r=best, v=f"{ap[best]:.3f}")]
    nrg = m[f"NRG@{st.opts.nrg_k}"]
    if nrg.notna().any():
        b = nrg.idxmax()
        out.append(markup("Most new relevant material (NRG@{k}): <strong>{r}</strong> "
                        "(AP rank {a}).", k=st.opts.nrg_k, r=b, a=int(_ranks(ap)[b])))
    uniq = m[f"unique@{st.opts.rare_k}"]
    if uniq.max() > 0:
        b = uniq.idxmax()
        out.append(markup("Most relevant documents no other run found: <strong>{r}</strong> "
                        "({n}).", r=b, n=int(uniq[b])))
    if st.leaderboard is not None:
        lb = st.leaderboard
        deltas = {c: lb[f"delta {c}"].abs() for c in m.columns if c != "AP"
                  and f"delta {c}" in lb}
        if deltas:
            frame = pd.DataFrame(deltas)
            col = frame.max().idxmax()
            run = frame[col].idxmax()
            if frame[col][run] > 0:
                out.append(markup("Largest rank change against AP: <strong>{r}</strong> is "
                                "#{a} under AP and #{b} under {c}.", r=run,
                                a=int(lb.loc[run, "rank AP"]), b=int(lb.loc[run, f"rank {col}"]),
                                c=col))
    return out


# ---------------------------------------------------------------------- sections
def _inputs_section(st: _State, inputs, prior) -> None:
    c, opts = st.campaign, st.opts
    sec = st.w.section("inputs", _TITLES["inputs"],
                       "What this report was computed from, and every parameter used. "
                       "The command below re-creates it exactly.")
    keep = c.topic_set(opts.rel_level)
    nrel = c.num_rel(opts.rel_level)
    rows = []
    inputs = dict(inputs or {})
    if inputs.get("campaign"):
        rows.append(("campaign", str(inputs["campaign"])))
    if inputs.get("qrels"):
        rows.append(("qrels file", os.path.basename(str(inputs["qrels"]))))
    if inputs.get("runs"):
        names = [os.path.basename(str(p)) for p in inputs["runs"]]
        shown = ", ".join(names[:4]) + (f", … ({len(names)} files)" if len(names) > 4 else "")
        rows.append(("run files", shown))
    if inputs.get("groups"):
        rows.append(("groups file", os.path.basename(str(inputs["groups"]))))
    rows += [
        ("runs", f"{c.num_runs}"),
        ("groups", "none given: every run is its own group" if st.own_groups
         else f"{len(set(st.groups.values()))}"),
        ("qrels topics", f"{c.num_topics}"),
        ("topics with a relevant document (analysed)", f"{int(keep.sum())}"),
        ("judged documents", f"{len(c.judged.grades):,}"),
        (f"relevant documents (grade ≥ {opts.rel_level})", f"{int(nrel.sum()):,} "
         f"({nrel[keep].mean():.1f} per analysed topic)" if keep.any() else "0"),
        ("ranking depth (longest run)", f"{c.depth}"),
        ("NRG prior set", prior if prior != "list" else
         "list: " + ", ".join(st.context["prior_runs"])),
    ]
    ref = st.context.get("reference")
    if ref is not None:
        rows.append(("rarity reference runs (P_rare, AP_rare)", f"{ref.num_runs}"))
    if getattr(c, "dropped_topics", None):
        rows.append(("run topics absent from the qrels (ignored)",
                     f"{sum(c.dropped_topics.values())}"))
    frame = pd.DataFrame(rows, columns=["input", "value"])
    params = pd.DataFrame(opts.items(), columns=["parameter", "value"])
    sec.add(Row([st.w.table("inputs", frame, caption="Inputs.", sortable=False, compact=True,
                            classes={"value": ["wrap"] * len(frame)}),
                 st.w.table("parameters", params, sortable=False, compact=True,
                            caption="Parameters (API: irmeta.report.ReportOptions).")]))
    sec.text(markup("Means are taken over the {n} topics with a relevant document; a run that "
                  "did not answer one of them scores an empty ranking there. Values undefined "
                  "on a topic (Twist on a topic with more relevant documents than the depth) "
                  "are left out of that run's mean.", n=int(keep.sum())))


def _leaderboard_frame(st: _State) -> None:
    """Compute the leaderboard (display frame, rank notes, TSV frame) into ``st``."""
    m = st.means
    labels = list(m.columns)
    ranks = m.apply(_ranks)
    ap_rank = ranks["AP"]
    order = m["AP"].sort_values(ascending=False, kind="stable").index
    frame = pd.DataFrame({"#": ap_rank.reindex(order).astype(int), "run": list(order),
                          "group": [st.groups[r] for r in order]}, index=order)
    notes, classes = {}, {}
    frame = _no_group(st, frame)
    tsv = frame[[c for c in ("run", "group") if c in frame]].copy()
    for c in labels:
        frame[c] = m[c].reindex(order)
        delta = (ap_rank - ranks[c]).reindex(order)
        tsv[c] = m[c].reindex(order)
        tsv[f"rank {c}"] = ranks[c].reindex(order)
        if c != "AP":
            tsv[f"delta {c}"] = delta
        texts, css = [], []
        for run in order:
            r = ranks[c][run]
            if not np.isfinite(r):
                texts.append("")
                css.append("")
                continue
            arrow, cls = ("", "") if c == "AP" else _arrow(delta[run])
            texts.append(f"#{int(r)} {arrow}".strip())
            css.append(" ".join(x for x in (cls, "best" if r == 1 else "") if x))
        notes[c], classes[c] = texts, css
    st.leaderboard = tsv.set_index("run", drop=False).rename_axis(None)
    st.leaderboard["rank AP"] = ranks["AP"].reindex(order)
    for c in labels:
        st.leaderboard[f"rank {c}"] = ranks[c].reindex(order)
        if c != "AP":
            st.leaderboard[f"delta {c}"] = (ap_rank - ranks[c]).reindex(order)
    st.lb_parts = (frame, notes, classes, tsv)


def _leaderboard(st: _State) -> None:
    frame, notes, classes, tsv = st.lb_parts
    labels = list(st.means.columns)
    tips = {c.label: c.tip + f"  [{c.measure}]" for c in st.columns}
    tips.update({"#": "rank by AP", "group": "the run's group (--groups)"})
    digits = {c: 3 for c in labels}
    digits[f"unique@{st.opts.rare_k}"] = 0
    sec = st.w.section("leaderboard", _TITLES["leaderboard"], markup(
        "Every run under the classic measures (left) and the measures that look at the other "
        "runs of the campaign (right). Small print: the run's rank under that measure and how "
        "many places it gains (▲) or loses (▼) against its rank under AP. "
        "<strong>Click a column header to sort</strong>; hover over it for the definition."))
    sec.add(st.w.table("leaderboard", frame.reset_index(drop=True), digits=digits,
                       notes=notes, classes=classes, tips=tips, tsv=tsv, stacked=True,
                       caption=markup("Means over the analysed topics; unique@{k} is a total "
                                    "over topics. The TSV adds every rank and rank change.",
                                    k=st.opts.rare_k)))


def _innovation(st: _State) -> None:
    from irmeta import stats
    from irmeta.explain import unique_contributions, unique_documents
    from irmeta.plot.meta import alpha_sweep_plot

    c, opts, w = st.campaign, st.opts, st.w
    K = opts.rare_k
    sec = w.section("innovation", _TITLES["innovation"], markup(
        "The rareness-based measures of Türkmen et al. (ECIR 2023) weigh each relevant "
        "document by how few runs retrieved it: <em>w(d) = 1 + α (1 − S<sub>d</sub>/S)</em>, "
        "with S<sub>d</sub> the runs having d in their top {k} and S the number of runs. "
        "α = 0 gives P@{k} and AP@{k}; the larger α, the more a run is rewarded for "
        "finding what the others missed.", k=K))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sweep = stats.alpha_sweep(c, {f"P@{K}": f"P_rare(alpha={{alpha}})@{K}",
                                      f"AP@{K}": f"AP_rare(alpha={{alpha}})@{K}"},
                                  alphas=opts.alphas, methods=("kendall", "tau_ap"),
                                  rel_level=opts.rel_level, complete=True, **st.context)
    fig = alpha_sweep_plot(sweep, method="kendall", threshold=0.9)
    low = sweep.groupby("baseline")["kendall"].min()
    sec.add(w.figure("innovation_tau_alpha", fig, alt="Kendall tau against alpha", width=520,
                     caption=markup("Kendall's τ between the ranking of runs by P@{k} (AP@{k}) and "
                                  "by its rareness version, as α grows. τ stays above the dashed "
                                  "0.9 line when rewarding rare documents hardly changes the "
                                  "ranking; here its lowest value is {lo}. The TSV adds τ_AP, "
                                  "which weighs swaps at the top more.", k=K,
                                  lo=", ".join(f"{b}: {v:.3f}" for b, v in low.items()))))
    tsv = w.write_tsv("innovation_tau_alpha", sweep)
    sec.blocks[-1].files.append(w._rel(tsv))

    # unique relevant documents: in the run's top K, grade >= rel, no other run's top K
    docs = unique_documents(c, K, rel_level=opts.rel_level)
    counts = unique_contributions(c, K, rel_level=opts.rel_level, per_topic=True)
    per = counts["unique"].to_numpy().reshape(c.num_runs, c.num_topics)
    found = counts["relevant_retrieved"].to_numpy().reshape(c.num_runs, c.num_topics)
    w.write_tsv("unique_documents", docs)
    rows = []
    for r, run in enumerate(c.runs):
        total = int(per[r].sum())
        ex = []
        if total:
            d = docs[docs["run"] == run]
            top_topics = np.argsort(-per[r], kind="stable")[:opts.examples]
            for t in top_topics:
                if per[r, t] == 0:
                    break
                dt = d[d["topic"] == c.topics[t]].sort_values(["grade", "rank"],
                                                              ascending=[False, True])
                items = ", ".join(f"{x.docid} (rank {x.rank}, grade {x.grade})"
                                  for x in dt.head(opts.examples).itertuples())
                more = f" +{len(dt) - opts.examples}" if len(dt) > opts.examples else ""
                ex.append(f"topic {c.topics[t]}: {items}{more}")
        rel_total = int(found[r].sum())
        rows.append({"run": run, "group": st.groups[run], "unique": total,
                     "topics": int((per[r] > 0).sum()),
                     "share": total / rel_total if rel_total else np.nan,
                     "examples": "; ".join(ex)})
    table = _no_group(st, pd.DataFrame(rows).sort_values(["unique", "run"],
                                                         ascending=[False, True]))
    n_any = int((table["unique"] > 0).sum())
    sec.add(w.table("innovation_unique", table, digits={"share": 3}, max_rows=max(n_any, 5),
                    classes={"examples": ["wrap"] * len(table)},
                    labels={"unique": f"unique rel. @{K}", "topics": "topics",
                            "share": "share of its rel."},
                    tips={"unique": f"relevant documents in the run's top {K} that no other run "
                                    f"has in its top {K}",
                          "topics": "topics with at least one such document",
                          "share": "unique / relevant documents the run retrieved in its top K",
                          "examples": "topics with the most such documents; per topic the "
                                      "highest-graded documents first"},
                    caption=markup("Relevant documents only this run found: {n} of {R} runs "
                                 "found at least one (the page lists those; the TSV every "
                                 "run). Every such document is listed in "
                                 "<code>unique_documents.tsv</code>.", n=n_any, R=c.num_runs)))


def _nrg(st: _State) -> None:
    from irmeta.report.figures import scatter_by_group

    opts, w = st.opts, st.w
    k = opts.nrg_k
    m = st.means
    x, y = m[f"nDCG@{k}"], m[f"NRG@{k}"]
    grp = pd.Series([st.groups[r] for r in m.index], index=m.index)
    prior_text = {"others": "every other run", "list": "the runs given with --prior-runs",
                  "best_per_group": "the best run (by nDCG) of every other group",
                  "earlier": "the runs listed before it"}[st.prior]
    sec = st.w.section("nrg", _TITLES["nrg"], markup(
        "Normalized Residual Gain (Bigdeli et al., SIGIR-AP 2024) scores a run with nDCG@{k} "
        "after discounting each relevant document by how visibly the <em>prior runs</em> "
        "already showed it: gain × Π<sub>prior</sub>(1 − 1/log<sub>2</sub>(1 + rank there)). "
        "Prior runs here: {p}. A run far above the others in NRG adds relevant material that "
        "a reader of the other runs has not seen.", k=k, p=prior_text))
    fig = scatter_by_group(x, y, grp, xlabel=f"nDCG@{k}", ylabel=f"NRG@{k}",
                           diagonal=False, label_top=5)
    sec.add(w.figure("nrg_vs_ndcg", fig, alt="NRG against nDCG", width=640,
                     caption=markup("One point per run, coloured by group"
                                  + (" (no groups given: one colour per run)"
                                     if st.own_groups else "")
                                  + "; the five runs with the highest NRG@{k} are named. Runs "
                                  "on the upper edge of the cloud contribute the most that is "
                                  "new for their nDCG.", k=k)))
    ratio = (y / x.where(x > 0)).rename("NRG/nDCG")
    uniq = m[f"unique@{opts.rare_k}"]
    table = pd.DataFrame({"run": m.index, "group": grp.values, f"nDCG@{k}": x.values,
                          f"NRG@{k}": y.values, "NRG / nDCG": ratio.values,
                          f"rank nDCG@{k}": _ranks(x).values, f"rank NRG@{k}": _ranks(y).values,
                          f"unique@{opts.rare_k}": uniq.values})
    table = _no_group(st, table.sort_values([f"NRG@{k}", "run"], ascending=[False, True]))
    sec.add(w.table("nrg_top", table, max_rows=10,
                    digits={f"unique@{opts.rare_k}": 0, f"rank nDCG@{k}": 0, f"rank NRG@{k}": 0},
                    tips={"NRG / nDCG": "share of the run's nDCG that the prior runs had not "
                                        "already shown"},
                    caption=markup("The runs adding the most unseen relevant material (highest "
                                 "NRG@{k}). NRG / nDCG is the share of the run's gain that is "
                                 "new.", k=k)))


def _effort(st: _State) -> None:
    from irmeta import effort
    from irmeta.plot.effort import plot_crp_dcg, plot_effort_gain

    c, opts, w = st.campaign, st.opts, st.w
    N = opts.twist_depth
    res = st.results
    tv = res.values[:, [col.label for col in st.columns].index("Twist")]
    gain_label = opts.gain
    labels = [col.measure for col in st.columns]
    if opts.gain in labels:
        gv = res.values[:, labels.index(opts.gain)]
        gain_label = st.columns[labels.index(opts.gain)].label
    else:
        from irmeta.evaluation import compute
        from irmeta.measures.spec import EvalContext
        ms, vals = compute(c, [opts.gain], EvalContext(rel_level=opts.rel_level))
        gv, gain_label = vals[:, 0], ms[0].display
    keep = c.topic_set(opts.rel_level)
    tv = np.where(keep[None, :], tv, np.nan)
    sec = w.section("effort", _TITLES["effort"], markup(
        "Twist (Ferro et al.) measures the <em>avoidable effort</em> of a ranking: how far its "
        "relevant documents sit from the positions they would have in the ideal order, "
        "from the Cumulated Relative Position (CRP) curve. 1 = ideal order, 0 = the reverse "
        "order. Depth N = {n}; shorter rankings are padded with non-relevant documents.", n=N))
    if np.isnan(tv).all():
        sec.text("Twist is undefined on every topic (no topic has between 1 and N relevant "
                 "documents); nothing to show.")
        return
    eg = effort.effort_gain(c, gain_label, depth=N, values=(tv, gv))
    tell = effort.most_telling(eg, k=1)
    pairs = list(zip(tell["run"], tell["topic"]))
    fig, _ = plot_effort_gain(eg, None, highlight=pairs, seed=opts.seed)
    sec.add(w.figure("effort_gain", fig, alt="effort/gain grid", width=520, caption=markup(
        "Each point is one run on one topic: Twist (x; left = much avoidable effort) against "
        "{g} (y). Dotted lines: Twist .25/.5/.75 and the quartiles of {g}; each cell shows its "
        "share of the points. Blue cells (the diagonal) are where gain and effort agree; "
        "orange cells hold high gain obtained with high effort — a good score that hides a "
        "costly ranking. Marked points are drawn below.", g=gain_label)))
    shares = eg.table(percent=True)
    shares.index.name = f"{gain_label} quartile"
    sec.add(w.table("effort_gain_shares", shares, index=True, digits=1, sortable=False,
                    compact=True, caption=markup(
                        "Share of (run, topic) points per cell, percent (rows: gain quartile, "
                        "highest first; columns: Twist range). Diagonal {d}%, high gain with "
                        "high effort {h}%.", d=f"{100 * eg.diagonal:.1f}",
                        h=f"{100 * eg.high_high:.1f}")))
    arche = effort.archetypes(c, N, rel_level=opts.rel_level)
    arche = arche[arche["topic"].isin(np.asarray(c.topics, dtype=object)[keep])]
    overall = effort.archetype_table({"campaign": arche})
    per_run = (pd.crosstab(arche["run"], arche["archetype"])
               .reindex(columns=list(effort.ARCHETYPES), fill_value=0))
    per_run = per_run.reindex(list(c.runs)).fillna(0).astype(int)
    both = pd.concat([overall.rename(index={"campaign": "all runs"}),
                      per_run.assign(total=per_run.sum(axis=1)).pipe(
                          lambda f: f[["total"]].join(100.0 * f[list(effort.ARCHETYPES)].div(
                              f["total"].where(f["total"] > 0), axis=0)))])
    both.index.name = "run"
    sec.add(w.table("effort_archetypes", both, index=True,
                    digits={a: 1 for a in effort.ARCHETYPES}, max_rows=1, caption=markup(
                        "Shapes of the CRP curves, percent of (run, topic) pairs: <em>ideal</em> "
                        "(perfect order), <em>worst</em> (no relevant document retrieved), "
                        "<em>excellent</em> (CRP crosses zero within the first RB ranks), "
                        "<em>typical A</em> (crosses later), <em>typical B</em> (never "
                        "crosses: relevant documents always late). The TSV has one row per "
                        "run.")))
    fig, _ = plot_crp_dcg(c, pairs, None, depth=N, rel_level=opts.rel_level)
    listing = "; ".join(f"{r} / topic {t} ({k})" for r, t, k in
                        zip(tell["run"], tell["topic"], tell["kind"]))
    sec.add(w.figure("effort_crp_dcg", fig, alt="CRP and DCG curves", width=760, caption=markup(
        "CRP (left) and DCG (right) for the most telling pairs of the grid: {l}. CRP below 0 "
        "means relevant documents arrive later than in the ideal order; the dotted line is "
        "the number of relevant documents RB. Two rankings with the same DCG can cost the "
        "reader very different effort.", l=listing)))


def _topics(st: _State) -> None:
    from irmeta.aggregate import gawm, hits
    from irmeta.errors import ConvergenceWarning
    from irmeta.plot.gawm import plot_matrix_heatmap
    from irmeta.report.figures import rank_slope

    c, opts, w = st.campaign, st.opts, st.w
    labels = [col.measure for col in st.columns]
    if opts.matrix_measure in labels:
        name = st.columns[labels.index(opts.matrix_measure)].label
        matrix = st.matrix(name)
    else:
        from irmeta.evaluation import evaluate
        res = evaluate(c, measures=[opts.matrix_measure], rel_level=opts.rel_level,
                       groups=st.groups, complete=True)
        name, matrix = res.names[0], res.matrix(0)
    sec = w.section("topics", _TITLES["topics"], markup(
        "GAWM (generalized adaptive-weight mean) aggregates the runs x topics matrix of {m} "
        "with weights that adapt to the data: a topic weighs more when it separates the runs "
        "(axiom A1), a run weighs more in a topic's ease when it agrees with the others (A2). "
        "HITS gives the matching authority scores. MAP is the uniform-weight special case.",
        m=name))
    matrix = matrix.dropna(axis=1, how="any")
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        sec.text("Too few runs or topics with defined values for GAWM.")
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        g = gawm(matrix, "A", "arithmetic", "arithmetic")
    h = hits(matrix)
    fig, _ = plot_matrix_heatmap(matrix, None, means=("arithmetic",), results={"arithmetic": g},
                                 hits_result=h, title=f"{name}: runs x topics")
    sec.add(w.figure("topics_heatmap", fig, alt="score matrix heat map", width=900, caption=markup(
        "The {m} matrix (red = high), best run (MAP) on top and easiest topic on the left. Side "
        "bars, each scaled on its own: MAP / AAP, HITS authority A, GAWM effectiveness E_s and "
        "ease E_t, and the GAWM weights W (white = more weight) next to the uniform weights "
        "of MAP.", m=name)))
    MAP = matrix.mean(axis=1)
    sysframe = pd.DataFrame({"run": matrix.index, "group": [st.groups[r] for r in matrix.index],
                             "MAP": MAP.values, "rank MAP": _ranks(MAP).values,
                             "GAWM E_s": g.E_s.values, "rank GAWM": _ranks(g.E_s).values,
                             "HITS A(s)": h.authority_s.values,
                             "rank HITS": _ranks(h.authority_s).values,
                             "weight W_s": g.W_s.values})
    sysframe["rank change"] = sysframe["rank MAP"] - sysframe["rank GAWM"]
    sysframe = _no_group(st, sysframe.sort_values(["rank GAWM", "run"]))
    fig = rank_slope(MAP, g.E_s, left_label=f"MAP ({name})", right_label="GAWM E_s",
                     title="rank of every run under MAP and under GAWM")
    moved = int((sysframe["rank change"] != 0).sum())
    sec.add(w.figure("topics_rank_map_gawm", fig, alt="ranks under MAP and GAWM", width=520,
                     caption=markup("Rank of every run under MAP (left) and GAWM (right); the five "
                                  "largest moves are coloured. {n} of {R} runs change rank; "
                                  "Kendall's τ between the two rankings is {t}.", n=moved,
                                  R=len(sysframe), t=f"{_tau(MAP, g.E_s):.3f}")))
    arrows = [_arrow(d) for d in sysframe["rank change"]]
    sec.add(w.table("topics_systems", sysframe, max_rows=15,
                    digits={"MAP": 4, "GAWM E_s": 4, "HITS A(s)": 3, "weight W_s": 4,
                            "rank MAP": 0, "rank GAWM": 0, "rank HITS": 0, "rank change": 0},
                    classes={"rank change": [a[1] for a in arrows]},
                    caption=markup("Runs by GAWM effectiveness, with MAP and the HITS authority. "
                                 "GAWM {c} after {i} iterations.",
                                 c="converged" if g.converged else "did NOT converge",
                                 i=g.iterations)))
    nrel = pd.Series(c.num_rel(opts.rel_level), index=list(c.topics)).reindex(matrix.columns)
    AAP = matrix.mean(axis=0)
    topics = pd.DataFrame({"topic": matrix.columns, "relevant": nrel.values.astype(int),
                           "AAP": AAP.values, "ease E_t": g.E_t.values,
                           "weight W_t": g.W_t.values, "HITS A(t)": h.authority_t.values,
                           "std over runs": matrix.std(axis=0, ddof=0).values})
    topics = topics.sort_values(["weight W_t", "topic"], ascending=[False, True])
    sec.add(w.table("topics_weights", topics, max_rows=12,
                    digits={"AAP": 3, "ease E_t": 3, "weight W_t": 4, "HITS A(t)": 3,
                            "std over runs": 3},
                    caption=markup("Topics by GAWM weight: the topics that separate the runs "
                                 "most count most (uniform weight would be {u}). AAP is the "
                                 "mean over runs; ease E_t the GAWM-weighted mean.",
                                 u=f"{1 / matrix.shape[1]:.4f}")))
    if caught:
        st.notes.append(f"GAWM: {caught[0].message}")


def _tau(a: pd.Series, b: pd.Series) -> float:
    from irmeta.stats import kendall_tau
    return kendall_tau(a, b.reindex(a.index))


def _trust_matrices(st: _State) -> dict:
    """``{measure: systems x topics matrix}`` of the leaderboard columns, topics with an
    undefined value left out; measures with fewer than 2 topics left are dropped."""
    mats = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for col in st.columns:
            mat = st.matrix(col.label).dropna(axis=1, how="any")
            if mat.shape[1] >= 2:
                mats[col.label] = mat
    return mats


def _trust_tests(mats: dict, opts: ReportOptions) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Discriminative power (paired bootstrap) and stability of every measure: the
    slowest part of the report, run in a child process by :func:`_start_trust`."""
    from irmeta import stats
    if not mats:  # fewer than 2 topics: the section says why these tests are left out
        return pd.DataFrame(), pd.DataFrame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dp, _ = stats.bootstrap_power(mats, level=opts.level, trials=opts.bootstrap,
                                      seed=opts.seed, progress_bar=False)
        stab = stats.stability_table(mats, trials=opts.trials, fuzziness=opts.fuzziness,
                                     seed=opts.seed, classic=True, progress_bar=False)
    return dp, stab


def _start_trust(st: _State) -> None:
    """Start the trust section's tests in a child process (they need only the score
    matrices) and draw its Kendall tau figure (it needs only the means), so that both
    run while the other sections are computed."""
    from irmeta.report.jobs import Job
    st.trust_job = Job(_trust_tests, _trust_matrices(st), st.opts,
                       background=st.opts.background > 0)
    st.tau_block = _tau_figure(st)


def _tau_figure(st: _State):
    """Figure block of Kendall's tau between the rankings of every pair of measures."""
    from irmeta import stats
    from irmeta.report.figures import correlation_heatmap

    w = st.w
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tau = stats.correlation_matrix(st.means, method="kendall")
    tsv = w.write_tsv("trust_kendall_tau", tau, index=True)
    fig = correlation_heatmap(tau, title="Kendall's τ between the rankings of the runs")
    # tau is NaN (undefined) where a measure ties every run (identical runs, one topic
    # without a relevant document for anyone): the most different pair is among the rest
    off = tau.where(~np.eye(len(tau), dtype=bool)).stack().dropna()
    lo = off.idxmin() if len(off) else None
    block = w.figure("trust_kendall_tau", fig, alt="Kendall tau matrix", width=620, caption=markup(
        "Kendall's τ between the rankings of the runs by each pair of measures (1 = same "
        "order). τ ≥ 0.9 is usually read as equivalent rankings; it is undefined (blank) "
        "for a measure that ties every run. "
        + ("The most different pair here: {a} vs {b} (τ = {v})." if lo else ""),
        a=lo[0] if lo else "", b=lo[1] if lo else "", v=f"{off.min():.3f}" if lo else ""))
    block.files.append(w._rel(tsv))
    return block


def _no_trust_tests_text(st: _State) -> str:
    """Why the trust section has no significance or stability table: both need at least
    two topics with a defined value for every run (a one-topic campaign has none)."""
    topics = int(st.campaign.topic_set(st.opts.rel_level).sum())
    return markup("Discriminative power and stability are omitted: they compare runs "
                  "over topics and need at least 2 topics with a defined value for every "
                  "run; this campaign has {n} topic(s) with a relevant document. The "
                  "Kendall τ between the measures' rankings below is still defined.",
                  n=topics)


def _trust(st: _State, clock: StepClock) -> None:
    from irmeta.report.figures import bars

    opts, w = st.opts, st.w
    sec = w.section("trust", _TITLES["trust"], markup(
        "Can the differences in the leaderboard be trusted? Three checks for every reported "
        "measure: how many pairs of runs it tells apart with statistical significance "
        "(discriminative power), how often a ranking drawn on half of the topics agrees with "
        "another half (stability), and how similarly the measures rank the runs."))
    with clock.step("trust: significance and stability"):
        dp, stab = st.trust_job.result()
    st.trust_job = None
    if dp.empty:
        sec.text(_no_trust_tests_text(st))
        sec.add(st.tau_block)
        return
    dp = dp.sort_values("dp", ascending=False, kind="stable").reset_index(drop=True)
    fig = bars(dp.set_index("measure")["dp"], xlabel=f"share of run pairs with p < {opts.level:g}",
               title=f"discriminative power (paired bootstrap, B = {opts.bootstrap})")
    sec.add(w.figure("trust_discriminative_power", fig, alt="discriminative power", width=560,
                     caption=markup("Share of the {p} pairs of runs whose difference is "
                                  "significant (Sakai's paired bootstrap test, B = {b}, "
                                  "α = {a}, no correction for multiple comparisons). Higher is "
                                  "better: the measure separates more runs on these topics.",
                                  p=int(dp["pairs"].iloc[0]) if len(dp) else 0, b=opts.bootstrap,
                                  a=f"{opts.level:g}")))
    table = dp[["measure", "dp", "significant", "pairs", "delta"]].merge(
        stab, on="measure", how="left")
    table = table.rename(columns={"dp": "disc. power", "significant": "significant pairs",
                                  "delta": "Δ needed", "stability": "stability",
                                  "stability_ties": "stability ties", "bv_error": "BV error",
                                  "bv_ties": "BV ties", "bv_swaps": "BV swaps"})
    sec.add(w.table("trust_measures", table,
                    digits={"disc. power": 3, "Δ needed": 3, "stability": 3,
                            "stability ties": 3, "BV error": 3, "BV ties": 3, "BV swaps": 3},
                    tips={"disc. power": "share of run pairs significantly different",
                          "Δ needed": "largest difference in means a pair needed to be "
                                      "significant (bootstrap)",
                          "stability": f"fuzziness stability (Türkmen et al.): {opts.trials} "
                                       f"random halves of the topics; higher = more stable",
                          "stability ties": f"share of decisions where two runs differ by at "
                                            f"most {opts.fuzziness:g}",
                          "BV error": "Buckley-Voorhees error rate over pairs of disjoint topic "
                                      "halves; lower = more stable",
                          "BV swaps": "share of (pair, trial) where the two halves disagree"},
                    caption=markup("Per measure: discriminative power; stability under topic "
                                 "subsampling ({t} trials, half of the topics each, fuzziness "
                                 "{f}: the innovation paper's stability, higher is better; "
                                 "Buckley-Voorhees error rate, lower is better). The "
                                 "fuzziness is absolute, so measures with larger values "
                                 "(P_rare with α > 0, unique counts) tie less often.",
                                 t=opts.trials, f=f"{opts.fuzziness:g}")))
    sec.add(st.tau_block)


_BUILDERS = {"leaderboard": _leaderboard, "innovation": _innovation, "nrg": _nrg,
             "effort": _effort, "topics": _topics}
