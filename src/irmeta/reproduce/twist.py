"""The Twist paper (effort-aware evaluation: CRP curves, Twist, effort/gain) — its
tables and figures on any campaign.

* **Table 2**: archetypes of the CRP curves (ideal, worst, full-scale, excellent,
  typical A, typical B), percent of (run, topic) curves (:func:`irmeta.effort.archetypes`,
  crossing rule ``matters``), beside the paper's values.
* **Figures 7-10**: effort/gain grids — Twist (x) against AP, bpref, RBP(p=0.8) and
  nDCG (y) on a 4 x 4 grid (Twist quarters x gain quartiles), with the share of points
  on the diagonal and in the high-gain/high-effort cells
  (:func:`irmeta.effort.effort_gain_summary`, :func:`irmeta.plot.effort.plot_effort_gain`).
* **Figure 11**: CRP next to DCG for the (run, topic) pairs of the top nDCG quartile
  with the most and the least effort (:func:`irmeta.effort.most_telling`,
  :func:`irmeta.plot.effort.plot_crp_dcg`).
* **Tables 3-4**: Kendall's tau between the system rankings (means over the campaign
  topic set) of AP, bpref, RBP(p=0.8), nDCG and Twist
  (:func:`irmeta.stats.correlation_matrix`).
* **Figure 13**: pool downsampling — stratified (per topic and grade) random subsets
  of the qrels at 90, 70, 50, 30, 10% (at least 1 relevant and 10 non-relevant
  documents per topic, nested), Kendall's tau of each measure's ranking with the full
  pool (:func:`irmeta.stats.pool_downsampling`).
* **Figure 14**: discriminative power with Sakai's paired bootstrap (B = 1000,
  level 0.05): ASL curves, DP and the difference Δ needed for significance
  (:func:`irmeta.stats.bootstrap_power`).

As in the paper (its Section 6: "we consider only the top 75% runs as measured by
MAP"), Tables 3-4 and Figures 13-14 use the best 75% of the runs by MAP
(:func:`irmeta.stats.filter_top_runs`); Table 2 and the effort/gain grids, which the
paper reports before that section for all the runs of each collection, use every run
(``filter_all=True`` filters them too).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.errors import CampaignError, ParameterError
from irmeta.measures.twist import check_depth
from irmeta.reproduce._common import (
    Reproduction,
    Session,
    campaign_rows,
    check_fraction,
    check_positive,
    check_seed,
    doc,
)

__all__ = ["TwistParams", "reproduce"]


@dataclass
class TwistParams:
    """Parameters of the Twist reproduction (defaults: the paper's)."""

    depth: int = doc("depth N of Twist (shorter rankings are padded)", default=1000)
    crossing: str = doc("first-crossing rule of CRP (matters | formal)", default="matters")
    rel_level: int = doc("minimum grade counted relevant by the binary measures", default=1)
    gains: tuple = doc("gain measures of the effort/gain grids and the correlations",
                       default=("AP", "bpref", "RBP(p=0.8)", "nDCG"))
    top_fraction: float = doc("share of runs kept by MAP for Tables 3-4, Figures 13-14",
                              default=0.75)
    filter_all: bool = doc("also restrict Table 2 and the grids to those runs", default=False)
    levels: tuple = doc("Figure 13: pool percentages kept", default=(90, 70, 50, 30, 10))
    repeats: int = doc("Figure 13: independent downsamplings averaged", default=1)
    samples: int = doc("Figure 14: bootstrap samples B", default=1000)
    level: float = doc("Figure 14: significance level", default=0.05)
    seed: int = doc("seed of every random procedure", default=0)

    def validate(self) -> "TwistParams":
        fn = "reproduce twist"
        for name in ("depth", "repeats", "samples"):
            check_positive(getattr(self, name), name, fn)
        check_depth(self.depth, fn)
        check_seed(self.seed, fn)
        check_fraction(self.top_fraction, "top_fraction", fn)
        if self.crossing not in ("matters", "formal"):
            raise ParameterError(f"{fn}: crossing must be matters or formal, got {self.crossing!r}")
        if not 0 < float(self.level) < 1:
            raise ParameterError(f"{fn}: level must be in (0, 1), got {self.level!r}")
        if not self.gains:
            raise ParameterError(f"{fn}: gains is empty")
        if any(not 0 < float(x) <= 100 for x in self.levels):
            raise ParameterError(f"{fn}: levels must be percentages in (0, 100], "
                                 f"got {self.levels!r}")
        return self


def reproduce(campaign: Campaign, output, *, params: TwistParams | None = None,
              inputs: list[tuple[str, str]] | None = None, command: str | None = None,
              progress: bool | None = None, formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    """Write the Twist paper's Table 2, effort/gain grids, Tables 3-4 and Figures
    13-14 for ``campaign`` into the folder ``output`` (see module doc). ``tables``:
    ``table2``, ``effort_gain``, ``grid_<gain>``, ``tables3_4``, ``figure13``,
    ``figure14``, ``figure14_asl``."""
    from irmeta import effort
    from irmeta.plot.effort import plot_crp_dcg, plot_effort_gain
    from irmeta.plot.meta import asl_plot, downsampling_plot
    from irmeta.report.html import Row
    from irmeta.report.html import markup as html
    from irmeta.stats import (
        bootstrap_power,
        correlation_matrix,
        filter_top_runs,
        matrices,
        pool_downsampling,
        system_means,
    )

    if not isinstance(campaign, Campaign):
        raise ParameterError("reproduce twist: campaign must be a Campaign")
    p = (params or TwistParams()).validate()
    if campaign.num_runs < 3:
        raise ParameterError(f"reproduce twist: needs at least 3 runs, got {campaign.num_runs}")
    keep = require_campaign(campaign, p.rel_level, "reproduce twist")
    if keep.sum() < 2:
        raise CampaignError(f"reproduce twist: the paper's significance tests need at least 2 "
                            f"topics with a relevant document, got {int(keep.sum())}")
    lvl = p.rel_level
    S = Session("twist", output, "Reproduction: Twist, the effort of reading a ranking",
                7, progress=progress, formats=formats, dpi=dpi)
    summary, notes = [], []
    twist = f"Twist@{p.depth}"
    measures = [*p.gains, twist]

    with S.step("top runs by MAP"):
        top = filter_top_runs(campaign, p.top_fraction, by="AP", rel_level=lvl)
    base = top if p.filter_all else campaign
    which = (f"the best {top.num_runs} of {campaign.num_runs} runs by MAP" if p.filter_all
             else f"all {campaign.num_runs} runs")
    if campaign.depth < p.depth:
        notes.append(f"The runs are {campaign.depth} documents deep; Twist@{p.depth} pads "
                     "them (non-relevant) and is undefined on topics with more than "
                     f"{p.depth} relevant documents.")

    # ---------------------------------------------------------------- Table 2
    with S.step("table 2 (archetypes)"):
        arche = effort.archetypes(base, p.depth, p.crossing, lvl)
        t2 = effort.archetype_table({"this campaign": arche})
        t2 = pd.concat([t2, effort.PAPER_TABLE2.rename(index=lambda s: f"{s} (paper)")])
        t2["total"] = t2["total"].astype("Int64")
        t2.index.name = "collection"
        sec = S.section("table2", "Table 2: archetypes of the CRP curves",
                        html("Share (percent) of the (run, topic) curves of {which} in each "
                             "archetype, on the topics where Twist@{n} is defined "
                             "(0 < RB ≤ {n}); crossing rule '{c}'. The paper's rows are its "
                             "Table 2 (TREC 10, 14, 20, 21).", which=which, n=p.depth,
                             c=p.crossing))
        sec.add(S.table("table2", t2, index=True, digits=2, compact=True, sortable=False,
                        caption="Percent of curves per archetype."))
        S.tables["table2_curves"] = arche
        row = t2.iloc[0]
        summary.append(f"Table 2: typical A {row['typical_A']:.1f}%, typical B "
                       f"{row['typical_B']:.1f}%, excellent {row['excellent']:.1f}% of "
                       f"{int(row['total'])} curves.")

    # ---------------------------------------------------------------- grids
    with S.step("effort/gain grids"):
        summ, grids = effort.effort_gain_summary(base, p.gains, p.depth, p.crossing, lvl)
        fig, _ = plot_effort_gain(grids, None, ncols=2, seed=p.seed)
        sec = S.section("grids", "Figures 7-11: effort/gain grids and CRP curves",
                        html("Each point is one (run, topic) of {which}: Twist (x; 1 = no "
                             "avoidable effort) against a gain measure (y). Dotted lines: "
                             "Twist quarters and the gain quartiles. Diagonal = share of "
                             "points in the cells where effort and gain agree (blue); "
                             "high-high = high gain at high effort (orange, top two gain "
                             "rows x left two Twist columns).", which=which))
        s = summ.reset_index()
        sec.add(S.figure("grids_effort_gain", fig, caption="Effort/gain grids.", width=760))
        sec.add(S.table("effort_gain", s, digits=3, compact=True,
                        caption="Points, diagonal and high-high shares (percent), quartile "
                                "cut points of each gain."))
        for name, eg in grids.items():
            slug = "".join(ch if ch.isalnum() else "_" for ch in name).strip("_").lower()
            S.writer.write_tsv(f"grid_{slug}", eg.table().reset_index().rename(
                columns={"index": "gain quartile"}))
            S.tables[f"grid_{slug}"] = eg.table()
        if "nDCG" in grids:          # Figure 11: CRP next to DCG for telling pairs
            pairs = effort.most_telling(grids["nDCG"], k=2)
            fig, _ = plot_crp_dcg(base, list(zip(pairs["run"], pairs["topic"])), None,
                                  depth=p.depth, rel_level=lvl, full_scale=True)
            sec.add(S.figure("figure11_crp_dcg", fig, width=700,
                             caption=html("Figure 11: CRP (left) and DCG (right) of the two "
                                          "(run, topic) pairs of the top nDCG quartile with "
                                          "the most effort and the two with the least; the "
                                          "vertical line is the recall base.")))
            sec.add(S.table("figure11_pairs", pairs, digits=3, compact=True, sortable=False,
                            caption="The pairs of Figure 11."))
        summary.append("Effort/gain: diagonal " + ", ".join(
            f"{g} {v:.1f}%" for g, v in summ["diagonal %"].items()) + "; high-high " +
            ", ".join(f"{g} {v:.1f}%" for g, v in summ["high_high %"].items()) + ".")

    # ---------------------------------------------------------------- Tables 3-4
    with S.step("tables 3-4 (correlations)"):
        means = system_means(top, measures, rel_level=lvl)
        tau = correlation_matrix(means)
        sec = S.section("tables3_4", "Tables 3-4: Kendall's τ between the measures",
                        html("Kendall's τ (tau-b) between the rankings of the best {n} of {R} "
                             "runs by MAP under each pair of measures (means over the "
                             "campaign topic set; Twist's undefined topics left out of its "
                             "mean). Table 3 of the paper is the AP row; Table 4 the Twist "
                             "row.", n=top.num_runs, R=campaign.num_runs))
        t34 = tau.reset_index()
        sec.add(S.table("tables3_4", t34, digits=3, compact=True, sortable=False,
                        caption="Kendall's τ matrix."))
        m = means.copy()
        m.index.name = "run"
        sec.add(S.table("means", m.reset_index(), digits=4, compact=True, max_rows=12,
                        caption="Mean of each measure per run (the runs kept)."))
        summary.append("Table 4: τ(Twist, ·) = " + ", ".join(
            f"{g} {tau.loc[twist, g]:.3f}" for g in p.gains) + ".")

    # ---------------------------------------------------------------- Figure 13
    with S.step("figure 13 (pool downsampling)"):
        down = pool_downsampling(top, measures, levels=p.levels, seed=p.seed,
                                 repeats=p.repeats, rel_level=lvl, progress_bar=S.inner)
        fig = downsampling_plot(down, title="Pool downsampling")
        wide = down.pivot_table(index="measure", columns="level", values="tau", sort=False)
        wide = wide[sorted(wide.columns, reverse=True)]
        wide.columns = [f"{c:g}%" for c in wide.columns]
        judged = down.drop_duplicates("level").set_index("level")["judged"]
        sec = S.section("figure13", "Figure 13: robustness to incomplete judgments",
                        html("Stratified random subsets of the qrels (per topic and grade, at "
                             "least 1 relevant and 10 non-relevant documents per topic; "
                             "smaller pools are subsets of larger ones), {r} sampling(s) "
                             "averaged; Kendall's τ between the ranking of the kept runs on "
                             "the full and on the reduced qrels. Share of qrels rows kept: "
                             "{k}.", r=p.repeats,
                             k=", ".join(f"{lv:g}% → {v:.3f}" for lv, v in judged.items()
                                         if lv < 100)))
        sec.add(Row([S.figure("figure13_downsampling", fig, caption="τ against the pool kept.",
                              width=480),
                     S.table("figure13", wide.reset_index(), digits=3, compact=True, tsv=down,
                             caption="τ per measure and pool size.")]))
        S.tables["figure13"] = down
        last = wide.columns[-1]
        summary.append(f"Figure 13: τ at {last} of the pool: " + ", ".join(
            f"{mname} {v:.3f}" for mname, v in wide[last].items()) + ".")

    # ---------------------------------------------------------------- Figure 14
    with S.step("figure 14 (bootstrap discriminative power)"):
        mats = matrices(top, measures, rel_level=lvl)
        dp, curves = bootstrap_power(mats, level=p.level, trials=p.samples, seed=p.seed,
                                     progress_bar=S.inner)
        fig = asl_plot(curves, level=p.level, summary=dp, title="ASL curves (paired bootstrap)")
        dp = dp.assign(dp_percent=100 * dp["dp"])
        sec = S.section("figure14", "Figure 14: discriminative power (paired bootstrap)",
                        html("Sakai's paired bootstrap test (B = {b}) on every pair of the "
                             "kept runs: the achieved significance level (ASL) of each pair, "
                             "pairs sorted by ASL; DP = share of pairs with ASL < {a}; Δ = the "
                             "largest (1 − {a}) quantile of the null bootstrap distribution "
                             "of |mean difference|, the difference needed for significance.",
                             b=f"{p.samples:,}", a=f"{p.level:g}"))
        sec.add(Row([S.figure("figure14_asl", fig, caption="ASL curves.", width=520),
                     S.table("figure14", dp, digits=3, compact=True,
                             caption="Significant pairs, DP and Δ per measure.")]))
        n = max(len(c) for c in curves.values())
        asl = pd.DataFrame({k: np.pad(v, (0, n - len(v)), constant_values=np.nan)
                            for k, v in curves.items()})
        S.writer.write_tsv("figure14_asl", asl)
        S.tables["figure14_asl"] = asl
        summary.append("Figure 14: DP " + ", ".join(
            f"{r.measure} {100 * r.dp:.1f}%" for r in dp.itertuples()) + ".")

    inputs = list(inputs or []) + campaign_rows(campaign, lvl) + [
        ("runs kept (top by MAP)", f"{top.num_runs} of {campaign.num_runs}: "
                                   + ", ".join(top.runs[:6]) + (" …" if top.num_runs > 6 else ""))]
    return S.finish(inputs=inputs, params=p, command=command,
                    subtitle=f"{campaign.num_runs} runs ({top.num_runs} kept by MAP for the "
                             f"meta-evaluation), {int(campaign.topic_set(lvl).sum())} topics, "
                             f"Twist@{p.depth}",
                    summary=summary, notes=notes)
