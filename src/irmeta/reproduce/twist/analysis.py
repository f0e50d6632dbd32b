"""The numbers of the Twist reproduction: :func:`analyse` computes
:class:`TwistAnalysis` (no file, no HTML, no figure); :mod:`irmeta.reproduce.twist.page`
draws and writes it. Every number comes from :mod:`irmeta.effort` (archetypes,
effort/gain grids, CRP/DCG panels) and :mod:`irmeta.stats` (correlations, pool
downsampling, bootstrap discriminative power).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.effort import CrpDcgPanel, EffortGain
from irmeta.errors import CampaignError
from irmeta.reproduce._common import (
    CampaignFacts,
    Progress,
    Provenance,
    checked_campaign,
)
from irmeta.reproduce.params import TwistParams

__all__ = ["PAPER_TABLES", "PAPER_TABLES3_4", "STEPS", "TwistAnalysis", "TwistParams",
           "analyse", "grid_slug", "provenance"]

#: the steps of :func:`analyse` (progress bar and run-time table)
STEPS = ("worked example", "top runs by MAP", "table 2 (archetypes)", "effort/gain grids",
         "figure 12 (distribution of the means)", "tables 3-4 (correlations)",
         "figure 13 (pool downsampling)", "figure 14 (bootstrap discriminative power)")

#: the paper's Tables 3 (AP rows) and 4 (Twist rows): Kendall's tau on the top 75% runs
#: by MAP of TREC 10, 14, 20 and 21 (NaN: not printed)
PAPER_TABLES3_4 = pd.DataFrame(
    [[np.nan, 0.8506, 0.6041, 0.8334], [np.nan, 0.8390, 0.7229, 0.9070],
     [np.nan, 0.8498, 0.5675, 0.8962], [np.nan, 0.8461, 0.5669, 0.8388],
     [0.8144, 0.8173, 0.6489, 0.8791], [0.8477, 0.7547, 0.6051, 0.9012],
     [0.8254, 0.8148, 0.3968, 0.9245], [0.9157, 0.8526, 0.3684, 0.82105]],
    index=[f"{m} (TREC{c}, paper)" for m in ("AP", "Twist") for c in (10, 14, 20, 21)],
    columns=["AP", "bpref", "RBP", "nDCG"])
#: the page tables that print the paper's numbers (each has a :class:`Provenance`)
PAPER_TABLES = ("worked_example", "table2", "tables3_4_paper")


def grid_slug(gain: str) -> str:
    """The file-name form of a gain measure (``RBP(p=0.8)`` -> ``rbp_p_0_8``)."""
    from irmeta.io.output import bounded_file_name
    return bounded_file_name("".join(ch if ch.isalnum() else "_" for ch in gain)
                             .strip("_").lower())


def provenance(facts: CampaignFacts, kept: int) -> dict[str, Provenance]:
    """The paper's collections behind the tables that print its numbers
    (:data:`PAPER_TABLES`)."""
    trec = "TREC 10 (2001 Web), 14 (2005 Robust), 20 (2011 Web), 21 (2012 Web)"
    return {
        "worked_example": Provenance(
            "worked_example", "the worked example of its definitions (five relevance vectors, "
            "RB = 7, N = 15)", "the same five vectors", "exact"),
        "table2": Provenance("table2", f"{trec}: every run", facts.describe(),
                             "same-measure-different-data"),
        "tables3_4_paper": Provenance(
            "tables3_4_paper", f"{trec}: the top 75% of the runs by MAP",
            f"{facts.describe()}, the best {kept} runs by MAP", "same-measure-different-data"),
    }


@dataclass(frozen=True)
class TwistAnalysis:
    """Every number of the Twist reproduction.

    ``kept_runs``: the best ``top_fraction`` of the runs by MAP, used by Tables 3-4 and
    Figures 13-14 (and by everything with ``filter_all``).

    * ``table2``: percent of the (run, topic) CRP curves per archetype, this campaign's
      row then the paper's (:func:`irmeta.effort.archetype_table`); ``table2_curves``:
      the archetype of every curve (:func:`irmeta.effort.archetypes`);
    * ``effort_gain``: per gain measure, points, diagonal and high-high shares and gain
      quartiles (Figures 7-10, :func:`irmeta.effort.effort_gain_summary`); ``grids``: the
      :class:`~irmeta.effort.EffortGain` per gain; ``grid_tables``: each 4 x 4 grid in
      percent;
    * ``figure11_pairs``: the (run, topic) pairs of the top nDCG quartile with the most
      and the least effort (:func:`irmeta.effort.most_telling`); ``figure11``: their CRP
      and DCG curves (:func:`irmeta.effort.crp_dcg_panels`); both None without nDCG
      among the gains;
    * ``worked_example``: the paper's RP and CRP vectors of its worked example beside
      ours (:func:`irmeta.reproduce.twist.example.worked_example`);
    * ``figure12``: the mean of each measure for every run (all runs, before the MAP
      filter), the distribution the paper's Figure 12 shows;
    * ``means``: the mean of each measure per kept run; ``tables3_4``: Kendall's tau
      between the measures' rankings of the kept runs; ``tables3_4_p``: its two-sided
      p-values (:func:`irmeta.stats.kendall_pvalues`); ``tables3_4_paper``: the paper's
      Tables 3-4 (:data:`PAPER_TABLES3_4`);
    * ``figure13``: pool downsampling, long (:func:`irmeta.stats.pool_downsampling`);
      ``figure13_tau``: tau per measure (rows) and pool kept (columns, ``90%`` ...);
      ``figure13_judged``: share of the qrels rows kept per level;
    * ``figure14``: significant pairs, DP (and ``dp_percent``) and delta per measure
      (:func:`irmeta.stats.bootstrap_power`); ``figure14_curves``: the ASL of every pair
      of runs, sorted, per measure; ``figure14_asl``: the same as one column per
      measure, padded with NaN;
    * ``provenance``: per page table with the paper's numbers (:data:`PAPER_TABLES`),
      the paper's collection and ours.
    """

    params: TwistParams
    campaign: CampaignFacts
    kept_runs: tuple[str, ...]
    table2: pd.DataFrame
    table2_curves: pd.DataFrame
    effort_gain: pd.DataFrame
    grids: dict[str, EffortGain]
    grid_tables: dict[str, pd.DataFrame]
    figure11_pairs: pd.DataFrame | None
    figure11: list[CrpDcgPanel] | None
    worked_example: pd.DataFrame
    figure12: pd.DataFrame
    means: pd.DataFrame
    tables3_4: pd.DataFrame
    tables3_4_p: pd.DataFrame
    tables3_4_paper: pd.DataFrame
    figure13: pd.DataFrame
    figure13_tau: pd.DataFrame
    figure13_judged: pd.Series
    figure14: pd.DataFrame
    figure14_curves: dict[str, np.ndarray]
    figure14_asl: pd.DataFrame
    provenance: dict[str, Provenance]
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def twist(self) -> str:
        """The Twist measure's name (``Twist@N``)."""
        return f"Twist@{self.params.depth}"


def analyse(campaign: Campaign, params: TwistParams | None = None, *,
            progress: bool | None | Progress = None) -> TwistAnalysis:
    """Compute the Twist paper's Table 2, effort/gain grids, Figure 11, Tables 3-4 and
    Figures 13-14 for ``campaign``.

    Parameters
    ----------
    campaign : Campaign
        At least 3 runs and 2 topics with a relevant document at ``params.rel_level``.
    params : TwistParams, optional
        The paper's values by default.
    progress : bool, None or Progress
        Progress bar on stderr (None: when stderr is a terminal).

    Returns
    -------
    TwistAnalysis
    """
    from irmeta import effort
    from irmeta.reproduce.twist.example import worked_example
    from irmeta.stats import (
        bootstrap_power,
        correlation_matrix,
        filter_top_runs,
        kendall_pvalues,
        matrices,
        pool_downsampling,
        system_means,
    )

    p, keep = checked_campaign("reproduce twist", campaign, params or TwistParams(), min_runs=3)
    if keep.sum() < 2:
        raise CampaignError(f"reproduce twist: the paper's significance tests need at least 2 "
                            f"topics with a relevant document, got {int(keep.sum())}")
    lvl = p.rel_level
    measures = [*p.gains, f"Twist@{p.depth}"]

    with Progress.use(progress, "twist", len(STEPS)) as prog:
        with prog.step("worked example"):
            example = worked_example()
        with prog.step("top runs by MAP"):
            top = filter_top_runs(campaign, p.top_fraction, by="AP", rel_level=lvl)
        base = top if p.filter_all else campaign

        with prog.step("table 2 (archetypes)"):
            arche = effort.archetypes(base, p.depth, p.crossing, lvl)
            t2 = effort.archetype_table({"this campaign": arche})
            t2 = pd.concat([t2, effort.PAPER_TABLE2.rename(index=lambda s: f"{s} (paper)")])
            t2["total"] = t2["total"].astype("Int64")
            t2.index.name = "collection"

        with prog.step("effort/gain grids"):
            summ, grids = effort.effort_gain_summary(base, p.gains, p.depth, p.crossing, lvl)
            pairs = panels = None
            ndcg = next((g for g in grids if g.split("(")[0].split("@")[0] == "nDCG"), None)
            if ndcg is not None:         # Figure 11: CRP next to DCG for telling pairs
                pairs = effort.most_telling(grids[ndcg], k=2)
                panels = effort.crp_dcg_panels(base, list(zip(pairs["run"], pairs["topic"])),
                                               depth=p.depth, rel_level=lvl)

        with prog.step("figure 12 (distribution of the means)"):
            all_means = system_means(campaign, measures, rel_level=lvl)
            all_means.index.name = "run"

        with prog.step("tables 3-4 (correlations)"):
            means = all_means.loc[list(top.runs)]
            tau = correlation_matrix(means)
            tau_p = kendall_pvalues(means)

        with prog.step("figure 13 (pool downsampling)"):
            down = pool_downsampling(top, measures, levels=p.levels, seed=p.seed,
                                     repeats=p.repeats, rel_level=lvl, progress=prog.inner)
            wide = down.pivot_table(index="measure", columns="level", values="tau", sort=False)
            wide = wide[sorted(wide.columns, reverse=True)]
            wide.columns = [f"{c:g}%" for c in wide.columns]
            judged = down.drop_duplicates("level").set_index("level")["judged"]

        with prog.step("figure 14 (bootstrap discriminative power)"):
            mats = matrices(top, measures, rel_level=lvl)
            dp, curves = bootstrap_power(mats, level=p.level, trials=p.discpower_trials,
                                         seed=p.seed, progress=prog.inner)
            dp = dp.assign(dp_percent=100 * dp["dp"])
            n = max(len(c) for c in curves.values())
            asl = pd.DataFrame({k: np.pad(v, (0, n - len(v)), constant_values=np.nan)
                                for k, v in curves.items()})
        timings = {k: prog.timings[k] for k in STEPS}

    return TwistAnalysis(
        params=p, campaign=CampaignFacts.of(campaign, lvl), kept_runs=tuple(top.runs),
        table2=t2, table2_curves=arche, effort_gain=summ, grids=grids,
        grid_tables={g: eg.table() for g, eg in grids.items()}, figure11_pairs=pairs,
        figure11=panels, worked_example=example, figure12=all_means, means=means,
        tables3_4=tau, tables3_4_p=tau_p, tables3_4_paper=PAPER_TABLES3_4, figure13=down,
        figure13_tau=wide, figure13_judged=judged, figure14=dp, figure14_curves=curves,
        figure14_asl=asl,
        provenance=provenance(CampaignFacts.of(campaign, lvl), len(top.runs)),
        timings=timings)
