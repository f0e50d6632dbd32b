"""The numbers of the innovation reproduction: :func:`analyse` computes
:class:`InnovationAnalysis` (no file, no HTML, no figure);
:mod:`irmeta.reproduce.innovation.page` draws and writes it.

Measures (:mod:`irmeta.measures.innovation`): ``P_rare(alpha=a)@K`` and
``AP_rare(alpha=a)@K`` with rarity ``R(d) = 1 - S_d / S`` over every run of the
campaign, ``w(d) = 1 + alpha R(d)``; ``alpha = 0`` is ``P@K`` / ``AP@K``. Every table is
one call of :mod:`irmeta.stats` (see :class:`InnovationAnalysis`); Figure 1 is
:func:`synthetic_insertion`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import pandas as pd

from irmeta.constraints import COUNT
from irmeta.data.campaign import Campaign
from irmeta.data.tables import decode_ids
from irmeta.errors import CampaignError, ParameterError
from irmeta.reproduce._common import (
    CampaignFacts,
    Progress,
    Provenance,
    checked_campaign,
)
from irmeta.reproduce.params import InnovationParams

__all__ = ["InnovationAnalysis", "InnovationParams", "PAPER_TABLE1", "PAPER_TABLE2",
           "PAPER_TABLE3", "PAPER_TABLES", "STEPS", "analyse", "figure1_topic",
           "provenance", "rank_changes", "rare_documents", "steps", "synthetic_insertion"]

#: the steps of :func:`analyse` (progress bar and run-time table); Figure 1 is last
STEPS = ("figure 2 (tau vs alpha)", "table 1 (discriminative power)", "table 2 (stability)",
         "table 3 (number of systems)", "table 4 (rare relevant documents)",
         "figure 1 (synthetic insertion)")


def steps(figure1: bool = True) -> tuple[str, ...]:
    """The steps :func:`analyse` runs (without Figure 1 when ``figure1`` is False)."""
    return STEPS if figure1 else STEPS[:-1]

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
#: the page tables that print the paper's numbers (each has a :class:`Provenance`)
PAPER_TABLES = ("table1_paper", "table2", "table3_paper")


def _a(alpha: float) -> str:
    return f"{float(alpha):.10g}"


def _measure(family: str, alpha: float, k: int) -> str:
    """``P@100`` for alpha 0, else ``P_rare(alpha=a)@100`` (the same numbers, bit for bit)."""
    if float(alpha) == 0.0:
        return f"{family}@{k}"
    return f"{family}_rare(alpha={_a(alpha)})@{k}"


# ------------------------------------------------------------------ Figure 1
def figure1_topic(campaign: Campaign, k: int, rel_level: int, topic=None) -> int:
    """Index of Figure 1's topic: ``topic`` itself, or by default the topic (with a
    relevant document retrieved) whose best run's P@k is the median of that value over
    such topics (ties: first)."""
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
    :func:`figure1_topic`).

    Returns ``system, D, alpha, score, rank, systems`` (``systems`` = R + 1) and the
    topic in ``frame.attrs["topic"]``.
    """
    fn = "synthetic_insertion"
    k = COUNT.check(k, "k", fn)
    max_d = COUNT.check(max_d, "max_d", fn)
    points = COUNT.check(points, "points", fn)
    t = figure1_topic(campaign, k, rel_level, topic)
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
    for doc_id in rare:
        qrels[tid][doc_id] = max(int(rel_level), 1)
    measures = [_measure("P", a, k) for a in alphas]
    hyps = []
    for system, pool in (("S_rare", rare), ("S_common", common)):
        for n in grid:
            if n > len(pool):
                break
            hyps.append((system, n, {tid: {doc: float(n - i) for i, doc in enumerate(pool[:n])}}))
    rows = []
    for (system, n, _), v in zip(hyps, _hypothetical_scores(qrels, runs, [h[2] for h in hyps],
                                                            measures, rel_level)):
        for m, a in enumerate(alphas):
            h = len(v[m]) - 1                                # the hypothetical run: last
            rows.append({"system": system, "D": n, "alpha": float(a),
                         "score": float(v[m][h]),
                         "rank": int(1 + np.sum(np.delete(v[m], h) > v[m][h])),
                         "systems": len(v[m])})
    frame = pd.DataFrame(rows)
    frame.attrs["topic"] = tid
    return frame


def _hypothetical_scores(qrels: dict, runs: dict, hyps: list[dict], measures: list[str],
                         rel_level: int) -> list[list[np.ndarray]]:
    """For each hypothetical run of ``hyps``, each measure's scores of the real ``runs``
    and, last, of the hypothetical run, scored together (``evaluate(qrels, {**runs,
    hypothetical})``, one topic).

    One campaign of the real runs and every hypothetical run is built once, and each
    evaluation takes the real runs and one hypothetical run from it
    (:meth:`Campaign.select_runs`): the same cells, so the same values, as building
    each campaign from the dicts (68 builds were 1.3 CPU-s of the page, issue 27)."""
    from irmeta.evaluation import evaluate
    from irmeta.io.load import load_campaign

    names = []
    for i in range(len(hyps)):
        name = f"S_hypothetical_{i}"
        while name in runs:
            name += "_"
        names.append(name)
    everything = load_campaign(qrels, {**runs, **dict(zip(names, hyps))})
    out = []
    for name in names:
        res = evaluate(everything.select_runs([*runs, name]), measures=measures,
                       rel_level=rel_level)
        out.append([res.matrix(m).iloc[:, 0].to_numpy(dtype=float)
                    for m in range(len(measures))])
    return out


def _synthetic_id(i: int, width: int, taken: set) -> str:
    """A document id no run retrieves: ``~<i>`` padded with ``_`` to ``width`` bytes."""
    base = f"~{i}"
    out = base + "_" * max(0, width - len(base))
    while out in taken:
        out = "~" + out
    return out


# ------------------------------------------------------------------ Table 4
def rank_changes(means: pd.DataFrame, base: str, rare: str) -> pd.DataFrame:
    """Per run, its competition rank (1 = best) by the run means ``base`` and ``rare``
    and the gain ``rank_change = rank(base) - rank(rare)`` (> 0: rarity lifts the run);
    largest gain first, ties by run name."""
    rb = means[base].rank(ascending=False, method="min").astype(int)
    rr = means[rare].rank(ascending=False, method="min").astype(int)
    out = pd.DataFrame({"run": means.index, f"rank {base}": rb.to_numpy(),
                        f"rank {rare}": rr.to_numpy(), "rank_change": (rb - rr).to_numpy()})
    return out.sort_values(["rank_change", "run"], ascending=[False, True],
                           kind="stable").reset_index(drop=True)


def rare_documents(campaign: Campaign, changes: pd.DataFrame, *, runs: int, docs: int, k: int,
                   rel_level: int) -> pd.DataFrame:
    """The paper's Table 4 on any campaign: for the ``runs`` runs with the largest rank
    gain (``changes``, :func:`rank_changes`), the ``docs`` rarest relevant documents of
    their top ``k`` (:func:`irmeta.explain.explain_documents`: fewest runs retrieving it,
    ties by topic and rank), with the run's ranks and gain, the document's grade, the
    runs retrieving it ``retrieved_by`` of ``S`` and its rarity ``R(d) = 1 - S_d / S``.
    A run without a relevant document in its top ``k`` has no row."""
    from irmeta.explain import explain_documents
    frames = []
    columns = ["run", *changes.columns[1:4], "topic", "rank in run", "docid", "grade",
               "retrieved_by", "S", "rarity"]
    for row in changes.head(runs).itertuples(index=False):
        run = str(row[0])
        ex = explain_documents(campaign, run, k=k, rel_level=rel_level, nrg=None,
                               relevant_only=True)
        ex = ex.sort_values(["retrieved_by", "topic", "rank"], kind="stable").head(docs)
        ex = ex[["run", "topic", "rank", "docid", "grade", "retrieved_by", "S", "rarity"]]
        ex.insert(1, "rank_change", int(row[3]))
        ex.insert(1, changes.columns[2], int(row[2]))
        ex.insert(1, changes.columns[1], int(row[1]))
        if len(ex):
            frames.append(ex.rename(columns={"rank": "rank in run"}))
    if not frames:
        return pd.DataFrame(columns=columns)
    return pd.concat(frames, ignore_index=True)[columns]


def provenance(p: InnovationParams, facts: CampaignFacts) -> dict[str, Provenance]:
    """The paper's collections behind the tables that print its numbers
    (:data:`PAPER_TABLES`)."""
    ours = facts.describe()
    return {
        "table1_paper": Provenance(
            "table1_paper", "TREC DL 2020 document task (DLT20): 64 runs, 2,016 pairs", ours,
            "same-measure-different-data"),
        "table2": Provenance(
            "table2", "TREC DL 2020 document task (DLT20): 64 runs", ours,
            "same-measure-different-data"),
        "table3_paper": Provenance(
            "table3_paper", "TREC-8 ad hoc: 129 runs, 50 topics, 1,000 samples per N",
            f"{ours}, {p.systems_trials:,} samples per N", "same-measure-different-data"),
    }


# ------------------------------------------------------------------ the analysis
@dataclass(frozen=True)
class InnovationAnalysis:
    """Every number of the innovation reproduction (Türkmen et al., ECIR 2023).

    * ``figure1``: the synthetic insertion (:func:`synthetic_insertion`), long:
      ``system, D, alpha, score, rank, systems``; ``figure1_ranks``: the rank per D
      (rows) and system/alpha (columns); ``figure1_topic``: its topic. All None when
      Figure 1 was skipped;
    * ``figure2``: Kendall's tau and tau_AP between P@K and P_rare(alpha)@K, AP@K and
      AP_rare(alpha)@K per alpha, long (:func:`irmeta.stats.alpha_sweep`);
      ``figure2_wide``: one row per alpha;
    * ``table1``: significant pairs per measure (rows, with ``alpha``) at each level for
      the per-pair Tukey HSD (the paper's) and the two-way Tukey HSD
      (:func:`irmeta.stats.discriminative_power`); ``table1_long``: the same, long;
      ``pairs``: the number of pairs of runs;
    * ``table2``: stability per measure with the paper's DLT20 value beside it
      (:func:`irmeta.stats.stability_table`);
    * ``table3``: mean tau per measure and number of systems N, long
      (:func:`irmeta.stats.system_dependence`); ``table3_wide``: one row per measure,
      columns ``N=2`` ...; ``table3_skipped``: the N above the number of runs;
    * ``table4_changes``: every run's rank by P@K and by P_rare(table3_alpha)@K and its
      gain (:func:`rank_changes`); ``table4``: the rarest relevant documents of the runs
      that gain the most (:func:`rare_documents`, the paper's qualitative Table 4);
    * ``figure2`` holds ``kendall_p``: the p-value of each tau
      (:func:`irmeta.stats.kendall_test`);
    * ``provenance``: per page table with the paper's numbers (:data:`PAPER_TABLES`),
      the paper's collection and ours (:class:`~irmeta.reproduce._common.Provenance`).
    """

    params: InnovationParams
    campaign: CampaignFacts
    measures: list[str]
    figure1: pd.DataFrame | None
    figure1_ranks: pd.DataFrame | None
    figure1_topic: str | None
    figure2: pd.DataFrame
    figure2_wide: pd.DataFrame
    pairs: int
    table1: pd.DataFrame
    table1_long: pd.DataFrame
    table2: pd.DataFrame
    table3: pd.DataFrame
    table3_wide: pd.DataFrame
    table3_skipped: list[int]
    table4_changes: pd.DataFrame
    table4: pd.DataFrame
    provenance: dict[str, Provenance]
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    def tau_at_last_alpha(self) -> pd.Series:
        """Kendall's tau per baseline at the last alpha of the grid."""
        s = self.figure2
        return pd.Series({b: s[s.baseline == b].iloc[-1]["kendall"]
                          for b in s["baseline"].unique()})

    def first_alpha_below(self, tau: float = 0.9) -> pd.Series:
        """Per baseline, the smallest alpha whose Kendall's tau is below ``tau``
        (baselines that never drop below are absent)."""
        s = self.figure2
        return s[s["kendall"] < tau].groupby("baseline")["alpha"].min()

    def most_discriminative(self) -> tuple[str, int]:
        """The measure with the most significant pairs under the paper's test at the
        first level (95%), and that count."""
        col = self.table1.columns[2]
        best = self.table1.iloc[int(np.argmax(self.table1[col].to_numpy()))]
        return best["measure"], int(best[col])

    def first_rank1(self) -> dict[float, int]:
        """Per alpha of Figure 1, the smallest D at which S_rare ranks first (alphas
        where it never does are absent)."""
        out: dict[float, int] = {}
        if self.figure1 is None:
            return out
        f1 = self.figure1
        for a in self.params.figure1_alphas:
            sub = f1[(f1.system == "S_rare") & (f1.alpha == float(a)) & (f1["rank"] == 1)]
            if len(sub):
                out[float(a)] = int(sub["D"].min())
        return out

    @property
    def undefined_draws(self) -> int:
        """Table 3 draws whose tau is undefined (all runs tied), left out of the means."""
        return int(self.table3["undefined"].sum())


def _pairs(columns: pd.Index) -> list[tuple[Any, Any]]:
    """The labels of a two-level column index as pairs (pandas types them as Hashable)."""
    return [cast(tuple[Any, Any], c) for c in columns]


def analyse(campaign: Campaign, params: InnovationParams | None = None, *,
            figure1: bool = True,
            progress: bool | None | Progress = None) -> InnovationAnalysis:
    """Compute the innovation paper's Figures 1-2 and Tables 1-4 for ``campaign``.

    Parameters
    ----------
    campaign : Campaign
        At least 3 runs and 2 topics with a relevant document at ``params.rel_level``.
    params : InnovationParams, optional
        The paper's values by default (except ``systems_trials``, see the module doc).
    figure1 : bool
        Run the synthetic insertion experiment of Figure 1.
    progress : bool, None or Progress
        Progress bar on stderr (None: when stderr is a terminal).

    Returns
    -------
    InnovationAnalysis
    """
    from irmeta.stats import (
        alpha_sweep,
        discriminative_power,
        matrices,
        stability_table,
        system_dependence,
        system_means,
    )

    p, keep = checked_campaign("reproduce innovation", campaign, params or InnovationParams(),
                               min_runs=3)
    if keep.sum() < 2:
        raise CampaignError(f"reproduce innovation: the paper's significance tests need at least 2 "
                            f"topics with a relevant document, got {int(keep.sum())}")
    k, lvl = p.cutoff, p.rel_level
    measures = list(dict.fromkeys(_measure(fam, a, k) for fam in ("P", "AP")
                                  for a in p.table_alphas))
    f1 = ranks = None
    run_steps = steps(figure1)

    with Progress.use(progress, "innovation", len(run_steps)) as prog:
        with prog.step("figure 2 (tau vs alpha)"):
            sweep = alpha_sweep(campaign, {f"P@{k}": f"P_rare(alpha={{alpha}})@{k}",
                                           f"AP@{k}": f"AP_rare(alpha={{alpha}})@{k}"},
                                alphas=p.alphas, methods=("kendall", "tau_ap"), rel_level=lvl,
                                pvalues=True)
            wide = sweep.pivot_table(index="alpha", columns="baseline",
                                     values=["kendall", "kendall_p", "tau_ap"], sort=False)
            wide.columns = [f"{m} {b}" for m, b in _pairs(wide.columns)]
            wide = wide.reset_index()

        with prog.step("table 1 (discriminative power)"):
            mats = matrices(campaign, measures, rel_level=lvl)
            dp = discriminative_power(mats, tests=("pairwise_tukey", "tukey_hsd"),
                                      levels=p.levels, progress=prog.inner)
            t1 = dp.pivot_table(index="measure", columns=["test", "level"],
                                values="significant", sort=False).reindex(measures)
            t1.columns = [
                f"{'per-pair Tukey' if t == 'pairwise_tukey' else 'two-way Tukey HSD'}"
                f" {100 * (1 - lv):g}%" for t, lv in _pairs(t1.columns)]
            t1 = t1.astype(int).reset_index()
            t1.insert(1, "alpha", [_alpha_of(m) for m in t1["measure"]])

        with prog.step("table 2 (stability)"):
            st = stability_table(mats, trials=p.stability_trials, fuzziness=p.fuzziness,
                                 seed=p.seed, classic=False, progress=prog.inner)
            st.insert(1, "alpha", [_alpha_of(m) for m in st["measure"]])
            st["paper (DLT20)"] = [PAPER_TABLE2.get(_paper_name(m, k), np.nan)
                                   for m in st["measure"]]

        with prog.step("table 3 (number of systems)"):
            t3m = [_measure("P", p.table3_alpha, k), _measure("AP", p.table3_alpha, k)]
            sd = system_dependence(campaign, t3m, sizes=p.sizes, trials=p.systems_trials,
                                   seed=p.seed, rel_level=lvl, progress=prog.inner)
            t3 = sd.pivot_table(index="measure", columns="n_systems", values="tau", sort=False)
            t3.columns = [f"N={c}" for c in t3.columns]
            t3 = t3.reset_index()

        with prog.step("table 4 (rare relevant documents)"):
            base_m, rare_m = _measure("P", 0.0, k), _measure("P", p.table3_alpha, k)
            means = system_means(campaign, [base_m, rare_m], rel_level=lvl)
            changes = rank_changes(means, base_m, rare_m)
            t4 = rare_documents(campaign, changes, runs=p.table4_runs, docs=p.table4_docs,
                                k=k, rel_level=lvl)

        if figure1:
            with prog.step("figure 1 (synthetic insertion)"):
                f1 = synthetic_insertion(campaign, p.figure1_topic, k=k, rel_level=lvl,
                                         alphas=p.figure1_alphas, max_d=p.figure1_max_d,
                                         points=p.figure1_points)
                ranks = f1.pivot_table(index="D", columns=["system", "alpha"], values="rank")
                ranks.columns = [f"{s} α={a:g}" for s, a in _pairs(ranks.columns)]
                ranks = ranks.reset_index()
        timings = {s: prog.timings[s] for s in run_steps}

    return InnovationAnalysis(
        params=p, campaign=CampaignFacts.of(campaign, lvl), measures=measures, figure1=f1,
        figure1_ranks=ranks, figure1_topic=None if f1 is None else f1.attrs["topic"],
        figure2=sweep, figure2_wide=wide,
        pairs=campaign.num_runs * (campaign.num_runs - 1) // 2, table1=t1, table1_long=dp,
        table2=st, table3=sd, table3_wide=t3,
        table3_skipped=[n for n in p.sizes if n > campaign.num_runs], table4_changes=changes,
        table4=t4, provenance=provenance(p, CampaignFacts.of(campaign, lvl)), timings=timings)


def _alpha_of(measure: str) -> float:
    if "alpha=" not in measure:
        return 0.0
    return float(measure.split("alpha=")[1].split(")")[0].split(",")[0])


def _paper_name(measure: str, k: int) -> str:
    a = _alpha_of(measure)
    fam = "AP" if measure.startswith("AP") else "P"
    return f"{fam}@100" if a == 0 else f"{fam}_rare(alpha={a:g})@100"
