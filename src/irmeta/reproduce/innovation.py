"""Türkmen, Kutlu, Lease, Tutuncu: "Innovation" metrics (rareness-weighted P@K and AP),
ECIR 2023 — every table and figure of the paper, on any campaign.

Measures (:mod:`irmeta.measures.innovation`): ``P_rare(alpha=a)@K`` and
``AP_rare(alpha=a)@K`` with rarity ``R(d) = 1 - S_d / S`` over every run of the
campaign, ``w(d) = 1 + alpha R(d)``; ``alpha = 0`` is ``P@K`` / ``AP@K``. The paper uses
K = 100 and binary relevance (``rel_level``, ``-l``).

* **Figure 1** (synthetic insertion, one topic): a hypothetical system ``S_rare``
  retrieves D relevant documents no other run retrieves; ``S_common`` retrieves the D
  relevant documents most runs retrieve (most common first). Each is added to the
  real runs of the topic (so S = R + 1 and the common documents gain one more
  retriever) and ranked among them by ``P_rare@K`` on that topic (rank 1 = best,
  competition ranking), for D = 1..``figure1_max_d`` and alpha 0, 0.5, 1. Computed
  through the public API: one small campaign per (system, D) built with
  :func:`irmeta.load_campaign` and scored with :func:`irmeta.evaluate`.
* **Figure 2**: Kendall's tau between the system rankings (means over the campaign
  topic set) of ``P@K`` vs ``P_rare(alpha)@K`` and ``AP@K`` vs ``AP_rare(alpha)@K``
  for alpha on the grid (:func:`irmeta.stats.alpha_sweep`; tau_AP alongside).
* **Table 1**: discriminative power — significant system pairs at 95% and 99% for
  alpha 0, 0.5, 1, with the paper's per-pair two-group Tukey HSD
  (:func:`irmeta.stats.pairwise_tukey`, what the authors' code does) and the classic
  two-way Tukey HSD over all systems (:func:`irmeta.stats.tukey_hsd`).
* **Table 2**: stability — ``trials`` random subsets of round(T/2) topics; a pair is a
  win for the better system when its means differ by more than ``fuzziness``, else a
  tie; stability = sum max(wins) / (pairs x trials) (:func:`irmeta.stats.fuzziness_stability`).
* **Table 3**: dependence on the participating systems (Algorithm 1): for N = 2, 4,
  ..., 64 (up to R), ``samples`` times draw N runs, recompute the measures with the
  sample as the only context, Kendall's tau against the full ranking restricted to the
  sample; mean (:func:`irmeta.stats.system_dependence`). The paper draws 1000 samples;
  the default here is 100 so that 63 runs finish in about a minute (``samples=1000``
  reproduces the paper's count).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.data.tables import decode_ids
from irmeta.errors import CampaignError, ParameterError
from irmeta.reproduce._common import (
    Reproduction,
    Session,
    campaign_rows,
    check_positive,
    check_seed,
    doc,
)

__all__ = ["InnovationParams", "PAPER_TABLE1", "PAPER_TABLE2", "PAPER_TABLE3", "reproduce",
           "synthetic_insertion"]

#: the paper's values on DLT20 (TREC DL 2020 document task), for comparison
PAPER_TABLE1 = pd.DataFrame(
    {"95%": [61, 173, 237, 320, 352, 376], "99%": [15, 24, 82, 169, 209, 238]},
    index=["P@100", "P_rare(alpha=0.5)@100", "P_rare(alpha=1)@100", "AP@100",
           "AP_rare(alpha=0.5)@100", "AP_rare(alpha=1)@100"])
PAPER_TABLE2 = pd.Series([0.071, 0.128, 0.179, 0.425, 0.444, 0.466], index=PAPER_TABLE1.index)
PAPER_TABLE3 = pd.DataFrame([[0.970, 0.976, 0.983, 0.987, 0.992, 0.995],
                             [0.970, 0.984, 0.985, 0.989, 0.993, 0.996]],
                            index=["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100"],
                            columns=[2, 4, 8, 16, 32, 64])


@dataclass
class InnovationParams:
    """Parameters of the innovation reproduction (defaults: the paper's, except
    ``samples``; see the module doc)."""

    k: int = doc("cutoff K of P@K, AP@K and of rarity (runs' top K)", default=100)
    rel_level: int = doc("minimum grade counted relevant (binary measures, rarity)", default=1)
    alphas: tuple = doc("alpha grid of Figure 2",
                        default=tuple(np.round(np.linspace(0.0, 1.0, 11), 10)))
    table_alphas: tuple = doc("alphas of Tables 1-2", default=(0.0, 0.5, 1.0))
    levels: tuple = doc("significance levels of Table 1 (95% and 99%)", default=(0.05, 0.01))
    trials: int = doc("Table 2: random topic subsets", default=1000)
    fuzziness: float = doc("Table 2: absolute difference of means below which a pair ties",
                           default=0.05)
    samples: int = doc("Table 3: random system samples per N (paper: 1000)", default=100)
    sizes: tuple = doc("Table 3: numbers of systems N (those above R are skipped)",
                       default=(2, 4, 8, 16, 32, 64))
    table3_alpha: float = doc("Table 3: alpha of the measures", default=1.0)
    figure1_topic: str | None = doc("Figure 1: topic (default: the one whose best run's "
                                    "P@K is the median over topics)", default=None)
    figure1_max_d: int = doc("Figure 1: largest D (relevant documents retrieved)", default=100)
    figure1_points: int = doc("Figure 1: at most this many values of D", default=40)
    figure1_alphas: tuple = doc("Figure 1: alphas", default=(0.0, 0.5, 1.0))
    seed: int = doc("seed of every random procedure", default=0)

    def validate(self) -> "InnovationParams":
        fn = "reproduce innovation"
        for name in ("k", "trials", "samples", "figure1_max_d", "figure1_points"):
            check_positive(getattr(self, name), name, fn)
        check_seed(self.seed, fn)
        if len(self.alphas) < 2 or any(float(a) < 0 for a in self.alphas):
            raise ParameterError(f"{fn}: alphas must hold at least two values >= 0, got "
                                 f"{self.alphas!r}")
        if any(float(a) < 0 for a in (*self.table_alphas, *self.figure1_alphas, self.table3_alpha)):
            raise ParameterError(f"{fn}: alphas must be >= 0")
        if any(not 0 < float(x) < 1 for x in self.levels):
            raise ParameterError(f"{fn}: levels must be in (0, 1), got {self.levels!r}")
        if not float(self.fuzziness) >= 0:
            raise ParameterError(f"{fn}: fuzziness must be >= 0, got {self.fuzziness!r}")
        return self


def _a(alpha: float) -> str:
    return f"{float(alpha):.10g}"


def _measure(family: str, alpha: float, k: int) -> str:
    """``P@100`` for alpha 0, else ``P_rare(alpha=a)@100`` (the same numbers, bit for bit)."""
    if float(alpha) == 0.0:
        return f"{family}@{k}"
    return f"{family}_rare(alpha={_a(alpha)})@{k}"


# ------------------------------------------------------------------ Figure 1
def _figure1_topic(campaign: Campaign, k: int, rel_level: int, topic) -> int:
    """The chosen topic, or by default the topic (with a relevant document retrieved)
    whose best run's P@k is the median of that value over such topics (ties: first)."""
    if topic is not None:
        if str(topic) not in campaign.topics:
            raise ParameterError(f"reproduce innovation: figure1_topic {topic!r} is not a "
                                 "qrels topic of the campaign")
        return campaign.topics.index(str(topic))
    w = min(k, campaign.depth)
    best = (campaign.grades[:, :, :w] >= rel_level).sum(axis=2).max(axis=0)
    cand = np.flatnonzero(best > 0)
    if cand.size == 0:
        raise ParameterError("reproduce innovation: no run retrieves a relevant document")
    order = cand[np.argsort(best[cand], kind="stable")]
    return int(order[(len(order) - 1) // 2])


def synthetic_insertion(campaign: Campaign, topic=None, *, k: int = 100, rel_level: int = 1,
                        alphas=(0.0, 0.5, 1.0), max_d: int = 100,
                        points: int = 40) -> pd.DataFrame:
    """The paper's Figure 1 experiment on one topic (see module doc).

    ``S_rare`` ranks D new relevant documents (added to the qrels, grade =
    ``rel_level``) that no real run retrieves; ``S_common`` ranks the D relevant
    documents retrieved by the most runs in their top ``k`` (ties by document id). Each
    system is scored with the real runs of the topic (rarity over all R + 1 runs) by
    ``P_rare(alpha)@k`` (``P@k`` for alpha 0); its rank is 1 + the number of real runs
    scoring strictly more. D runs over at most ``points`` values from 1 to
    ``min(max_d, k, 10 + the most relevant documents a real run has in its top k)``
    (S_common stops at the number of relevant documents the runs retrieve). Default
    topic: the one whose best run's P@k is the median over the topics (see
    :func:`_figure1_topic`).

    Returns ``system, D, alpha, score, rank, systems`` (``systems`` = R + 1) and the
    topic in ``frame.attrs["topic"]``.
    """
    from irmeta.evaluation import evaluate

    fn = "synthetic_insertion"
    k = check_positive(k, "k", fn)
    max_d = check_positive(max_d, "max_d", fn)
    points = check_positive(points, "points", fn)
    t = _figure1_topic(campaign, k, rel_level, topic)
    tid = campaign.topics[t]
    j = campaign.judged
    lo, hi = int(j.ptr[t]), int(j.ptr[t + 1])
    qrels = {tid: dict(zip(decode_ids(j.docids.slice(lo, hi - lo)), j.grades[lo:hi].tolist()))}
    w = min(k, campaign.depth)
    runs = {}
    counts: dict[str, int] = {}
    for r, name in enumerate(campaign.runs):
        docs = campaign.ranking(r, t)[:w]
        if not docs:
            continue
        runs[name] = {tid: {d: float(len(docs) - i) for i, d in enumerate(docs)}}
        for d in docs:
            if qrels[tid].get(d, -1) >= rel_level:
                counts[d] = counts.get(d, 0) + 1
    if len(runs) < 1:
        raise ParameterError(f"{fn}: no run retrieves anything on topic {tid}")
    common = sorted(counts, key=lambda d: (-counts[d], d))
    if not common:
        raise ParameterError(f"{fn}: no run retrieves a relevant document of topic {tid}")
    best = max(sum(qrels[tid].get(d, -1) >= rel_level for d in r[tid]) for r in runs.values())
    D = min(max_d, k, best + 10)
    step = max(1, -(-D // points))
    grid = sorted(set(range(1, D + 1, step)) | {D})
    # synthetic ids as long (in bytes) as the topic's longest real id, so that they
    # cannot be mistaken for a real one
    width = max(len(str(d).encode()) for d in qrels[tid])
    rare = [_synthetic_id(i + 1, width, set(qrels[tid])) for i in range(D)]
    for d in rare:
        qrels[tid][d] = max(int(rel_level), 1)
    measures = [_measure("P", a, k) for a in alphas]
    hyp = "S_hypothetical"
    while hyp in runs:
        hyp += "_"
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for system, pool in (("S_rare", rare), ("S_common", common)):
            for d in grid:
                if d > len(pool):
                    break
                docs = pool[:d]
                run = {hyp: {tid: {doc: float(d - i) for i, doc in enumerate(docs)}}}
                res = evaluate(qrels, {**runs, **run}, measures=measures,
                               rel_level=rel_level)
                names = list(res.matrix(0).index)
                h = names.index(hyp)
                for m, a in enumerate(alphas):
                    v = res.matrix(m).iloc[:, 0].to_numpy(dtype=float)
                    rows.append({"system": system, "D": d, "alpha": float(a),
                                 "score": float(v[h]),
                                 "rank": int(1 + np.sum(np.delete(v, h) > v[h])),
                                 "systems": len(v)})
    frame = pd.DataFrame(rows)
    frame.attrs["topic"] = tid
    return frame


def _synthetic_id(i: int, width: int, taken: set) -> str:
    """A document id no run retrieves: ``~<i>`` padded with ``_`` to ``width`` bytes."""
    base = f"~{i}"
    out = base + "_" * max(0, width - len(base))
    while out in taken:
        out = "~" + out
    return out


def _figure1_plot(frame: pd.DataFrame, k: int):
    from irmeta.plot import style
    fig, axes = style.figure(7.4, 3.0, ncols=2, sharey=True)
    markers = ["o", "s", "^", "D", "v"]
    for ax, system in zip(axes, ("S_rare", "S_common")):
        sub = frame[frame["system"] == system]
        for i, (a, grp) in enumerate(sub.groupby("alpha", sort=True)):
            ax.plot(grp["D"], grp["rank"], marker=markers[i % len(markers)], ms=2.5, lw=1.1,
                    label=f"α = {a:g}", color=style.PALETTE[i % len(style.PALETTE)])
        ax.set_title(f"{system.replace('_', ' ')}")
        ax.set_xlabel("D (relevant documents retrieved)")
    axes[0].set_ylabel(f"rank by P_rare@{k} (1 = best)")
    axes[0].invert_yaxis()
    axes[0].legend(frameon=False)
    fig.suptitle(f"Topic {frame.attrs.get('topic', '')}: ranking of a hypothetical system",
                 fontsize=9)
    return fig


# ------------------------------------------------------------------ reproduce
def reproduce(campaign: Campaign, output, *, params: InnovationParams | None = None,
              inputs: list[tuple[str, str]] | None = None, command: str | None = None,
              progress: bool | None = None, formats=("png", "svg"), dpi: int = 150,
              figure1: bool = True) -> Reproduction:
    """Write the innovation paper's Figures 1-2 and Tables 1-3 for ``campaign`` into the
    folder ``output`` (see module doc). ``figure1=False`` skips the synthetic
    experiment. Returns a :class:`~irmeta.reproduce.Reproduction` whose ``tables``
    hold ``figure1``, ``figure2``, ``table1``, ``table1_long``, ``table2``, ``table3``."""
    from irmeta.plot.meta import alpha_sweep_plot, systems_plot
    from irmeta.report.html import Row
    from irmeta.report.html import markup as html
    from irmeta.stats import (
        alpha_sweep,
        discriminative_power,
        matrices,
        stability_table,
        system_dependence,
    )

    if not isinstance(campaign, Campaign):
        raise ParameterError("reproduce innovation: campaign must be a Campaign")
    p = (params or InnovationParams()).validate()
    if campaign.num_runs < 3:
        raise ParameterError(f"reproduce innovation: needs at least 3 runs, "
                             f"got {campaign.num_runs}")
    keep = require_campaign(campaign, p.rel_level, "reproduce innovation")
    if keep.sum() < 2:
        raise CampaignError(f"reproduce innovation: the paper's significance tests need at least 2 "
                            f"topics with a relevant document, got {int(keep.sum())}")
    k, lvl = p.k, p.rel_level
    S = Session("innovation", output,
                "Reproduction: innovation metrics (Türkmen et al., ECIR 2023)",
                6 if figure1 else 5, progress=progress, formats=formats, dpi=dpi)
    w = S.writer
    summary = []
    notes = []

    # ---------------------------------------------------------------- Figure 2
    with S.step("figure 2 (tau vs alpha)"):
        sweep = alpha_sweep(campaign, {f"P@{k}": f"P_rare(alpha={{alpha}})@{k}",
                                       f"AP@{k}": f"AP_rare(alpha={{alpha}})@{k}"},
                            alphas=p.alphas, methods=("kendall", "tau_ap"), rel_level=lvl)
        fig = alpha_sweep_plot(sweep, title="Kendall's τ against alpha")
        sec = S.section("figure2", "Figure 2: rank correlation against alpha",
                        html("Kendall's τ between the ranking of the runs by P@{k} and by "
                             "P_rare(α)@{k}, and by AP@{k} and AP_rare(α)@{k} (means over the "
                             "campaign topic set), for α on the grid. τ_AP (top-weighted) is "
                             "in the table. The dashed line is τ = 0.9.", k=k))
        wide = sweep.pivot_table(index="alpha", columns="baseline", values=["kendall", "tau_ap"],
                                 sort=False)
        wide.columns = [f"{m} {b}" for m, b in wide.columns]
        wide = wide.reset_index()
        sec.add(Row([S.figure("figure2_alpha_sweep", fig, caption="Kendall's τ against α.",
                              width=520),
                     S.table("figure2", wide, digits=3, compact=True,
                             caption="τ (Kendall) and τ_AP per α.", tsv=sweep)]))
        S.tables["figure2"] = sweep
        below = sweep[(sweep["kendall"] < 0.9)]
        first = below.groupby("baseline")["alpha"].min()
        summary.append("Figure 2: τ at α = 1: " + ", ".join(
            f"{b} {sweep[(sweep.baseline == b)].iloc[-1]['kendall']:.3f}"
            for b in sweep["baseline"].unique()) + "; " + (
            "τ < 0.9 from α = " + ", ".join(f"{v:g} ({b})" for b, v in first.items())
            if len(first) else "τ ≥ 0.9 everywhere") + ".")

    measures = []
    for fam in ("P", "AP"):
        for a in p.table_alphas:
            measures.append(_measure(fam, a, k))
    measures = list(dict.fromkeys(measures))
    mats = matrices(campaign, measures, rel_level=lvl)
    pairs = campaign.num_runs * (campaign.num_runs - 1) // 2

    # ---------------------------------------------------------------- Table 1
    with S.step("table 1 (discriminative power)"):
        dp = discriminative_power(mats, tests=("pairwise_tukey", "tukey_hsd"),
                                  levels=p.levels, progress_bar=S.inner)
        t1 = dp.pivot_table(index="measure", columns=["test", "level"], values="significant",
                            sort=False).reindex(measures)
        t1.columns = [
            f"{'per-pair Tukey (paper)' if t == 'pairwise_tukey' else 'two-way Tukey HSD'}"
            f" {100 * (1 - lv):g}%" for t, lv in t1.columns]
        t1 = t1.astype(int).reset_index()
        t1.insert(1, "alpha", [_alpha_of(m) for m in t1["measure"]])
        sec = S.section("table1", "Table 1: discriminative power",
                        html("Significantly different pairs of runs among the {n} pairs, at "
                             "95% and 99%. The paper's test is a Tukey HSD run on each pair "
                             "separately (two groups, unpaired: the authors' code); the "
                             "two-way (run + topic) Tukey HSD over all runs at once is the "
                             "classic procedure, shown beside it.", n=f"{pairs:,}"))
        sec.add(S.table("table1", t1, caption="Significant pairs per measure and test.",
                        compact=True, digits={"alpha": 1}))
        paper = PAPER_TABLE1.reset_index().rename(columns={"index": "measure"})
        sec.add(S.table("table1_paper", paper, sortable=False, compact=True,
                        caption="The paper's values (DLT20, 2,016 pairs, per-pair Tukey), "
                                "for comparison."))
        S.tables["table1_long"] = dp
        col = t1.columns[2]
        best = t1.iloc[int(np.argmax(t1[col].to_numpy()))]
        summary.append(f"Table 1: most discriminative at 95% (per-pair Tukey): "
                       f"{best['measure']} ({int(best[col])} of {pairs} pairs).")

    # ---------------------------------------------------------------- Table 2
    with S.step("table 2 (stability)"):
        st = stability_table(mats, trials=p.trials, fuzziness=p.fuzziness, seed=p.seed,
                             classic=False, progress_bar=S.inner)
        st.insert(1, "alpha", [_alpha_of(m) for m in st["measure"]])
        st["paper (DLT20)"] = [PAPER_TABLE2.get(_paper_name(m, k), np.nan) for m in st["measure"]]
        T = int(campaign.topic_set(lvl).sum())
        sec = S.section("table2", "Table 2: stability",
                        html("In each of {tr} trials, one random subset of round(T/2) = {h} of "
                             "the T = {T} topics; for every pair of runs, the run whose mean "
                             "is higher by more than {f} wins, otherwise the pair ties. "
                             "Stability = Σ max(wins) / (pairs × trials): ties stay in the "
                             "denominator, as in the paper's code. stability_ties = share of "
                             "tied decisions.", tr=f"{p.trials:,}", h=int(round(T / 2)), T=T,
                             f=f"{p.fuzziness:g}"))
        sec.add(S.table("table2", st, digits={"alpha": 1}, compact=True,
                        caption="Stability per measure (higher = more stable)."))
        summary.append("Table 2: stability " + ", ".join(
            f"{r.measure} {r.stability:.3f}" for r in st.itertuples()) + ".")

    # ---------------------------------------------------------------- Table 3
    with S.step("table 3 (number of systems)"):
        t3m = [_measure("P", p.table3_alpha, k), _measure("AP", p.table3_alpha, k)]
        sd = system_dependence(campaign, t3m, sizes=p.sizes, trials=p.samples, seed=p.seed,
                               rel_level=lvl, progress_bar=S.inner)
        t3 = sd.pivot_table(index="measure", columns="n_systems", values="tau", sort=False)
        t3.columns = [f"N={c}" for c in t3.columns]
        t3 = t3.reset_index()
        fig = systems_plot(sd, title="Kendall's τ against the number of systems")
        skipped = [n for n in p.sizes if n > campaign.num_runs]
        sec = S.section("table3", "Table 3: dependence on the participating systems (Algorithm 1)",
                        html("Rank all runs; then, for each N, {s} times draw N runs, recompute "
                             "the measures with the sample as the only context (rarity over "
                             "the N runs), and take Kendall's τ against the full ranking "
                             "restricted to the sample; mean over the draws. The paper draws "
                             "1000 samples per N (use --samples 1000).", s=f"{p.samples:,}"))
        sec.add(Row([S.table("table3", t3, digits=3, compact=True,
                             caption="Mean τ per N" + (f" (N = {', '.join(map(str, skipped))} > "
                                                       f"{campaign.num_runs} runs skipped)"
                                                       if skipped else "") + ".", tsv=sd),
                     S.figure("table3_systems", fig, caption="Mean τ against N.", width=480)]))
        S.tables["table3"] = sd
        paper = PAPER_TABLE3.copy()
        paper.columns = [f"N={c}" for c in paper.columns]
        sec.add(S.table("table3_paper", paper.reset_index().rename(columns={"index": "measure"}),
                        digits=3, sortable=False, compact=True,
                        caption="The paper's values (TREC-8, 129 runs, 1000 samples)."))
        undefined = int(sd["undefined"].sum())
        if undefined:
            notes.append(f"Table 3: {undefined} draws gave an undefined τ (all runs tied) and "
                         "were left out of the means.")

    # ---------------------------------------------------------------- Figure 1
    if figure1:
        with S.step("figure 1 (synthetic insertion)"):
            f1 = synthetic_insertion(campaign, p.figure1_topic, k=k, rel_level=lvl,
                                     alphas=p.figure1_alphas, max_d=p.figure1_max_d,
                                     points=p.figure1_points)
            fig = _figure1_plot(f1, k)
            topic = f1.attrs["topic"]
            sec = S.section("figure1", "Figure 1: a hypothetical system with rare or common "
                                       "relevant documents",
                            html("On topic {t}, a hypothetical system S_rare retrieves D "
                                 "relevant documents no run retrieves (added to the qrels); "
                                 "S_common retrieves the D relevant documents that the most "
                                 "runs have in their top {k}. Each joins the {R} real runs "
                                 "(rarity over all of them) and is ranked by P_rare@{k} on the "
                                 "topic (competition ranking: 1 + runs scoring strictly "
                                 "more). At α = 0 both curves coincide (P@{k}).", t=topic, k=k,
                                 R=campaign.num_runs))
            wide = f1.pivot_table(index="D", columns=["system", "alpha"], values="rank")
            wide.columns = [f"{s} α={a:g}" for s, a in wide.columns]
            sec.add(Row([S.figure("figure1_synthetic", fig, caption="Rank against D.",
                                  width=700),
                         S.table("figure1", wide.reset_index(), compact=True, tsv=f1, digits=0,
                                 caption="Rank per D.", max_rows=15)]))
            S.tables["figure1"] = f1
            w.sections.insert(0, w.sections.pop())      # the paper's order: Figure 1 first
            for a in p.figure1_alphas:
                sub = f1[(f1.system == "S_rare") & (f1.alpha == float(a)) & (f1["rank"] == 1)]
                if len(sub):
                    summary.append(f"Figure 1 (topic {topic}): S_rare ranks first from D = "
                                   f"{int(sub['D'].min())} at α = {float(a):g}.")

    inputs = list(inputs or []) + campaign_rows(campaign, lvl)
    return S.finish(inputs=inputs, params=p, command=command,
                    subtitle=f"{campaign.num_runs} runs, {int(campaign.topic_set(lvl).sum())} "
                             f"topics, relevance ≥ {lvl}, K = {k}",
                    summary=summary, notes=notes)


def _alpha_of(measure: str) -> float:
    if "alpha=" not in measure:
        return 0.0
    return float(measure.split("alpha=")[1].split(")")[0].split(",")[0])


def _paper_name(measure: str, k: int) -> str:
    a = _alpha_of(measure)
    fam = "AP" if measure.startswith("AP") else "P"
    return f"{fam}@100" if a == 0 else f"{fam}_rare(alpha={a:g})@100"
