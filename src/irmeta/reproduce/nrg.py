"""Bigdeli, Arabzadeh, Clarke et al.: Normalized Residual Gain (SIGIR-AP 2024) — its
figures on any campaign, with the tables of the values behind them.

NRG (:mod:`irmeta.measures.nrg`) scores a ranking by the gain it adds to what a set of
prior rankings already showed: ``G(d | P) = G(d) prod_{R_j in P} (1 - seen(pos(d, R_j)))``.

* **Figure 1a** (chronological): runs in campaign order (the order of the files, taken
  as the order of release); each run's base metric ``nDCG@k`` and its
  ``NRG(base=nDCG, prior=earlier)@k`` — the gain left over by every earlier run. The
  paper uses MRR@10 on MS MARCO; RR is not an NRG base (the paper defines no RR
  browsing model), so nDCG@k stands in.
* **Figure 1b**: ``NRG(prior=others)@k`` against ``nDCG@k`` (the run as if released
  last).
* **Figure 2**: ``NRG(base=nDCG, prior=best_per_group)`` at full depth (what the authors'
  code computes) against ``nDCG@k``, one point per run coloured by group; the prior of
  a run is the best run by the base metric of every *other* group.
* **Figure 3**: ``NRG(base=P, prior=best_per_group)@K`` (K = the pool depth) against
  ``nDCG@k``: the "unique contributions" instantiation; also
  ``NRG(base=unique, prior=best_per_group)@K`` (relevant documents in the run's top K
  that no prior run has in its top K, mean per topic) and, with every other run as
  the prior, the unique contributions to the pool (:func:`irmeta.explain.unique_contributions`).
* **Figure 4**: ``P_rare(alpha)@k`` (rarity over all runs, the scored one included)
  against ``nDCG@k``.

Without a groups file every run is its own group, so ``best_per_group`` is every other
run (= ``others``); the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign
from irmeta.errors import ParameterError
from irmeta.reproduce._common import (
    Reproduction,
    Session,
    campaign_rows,
    check_positive,
    doc,
    tau_b,
)

__all__ = ["NRGParams", "measures", "reproduce"]


@dataclass
class NRGParams:
    """Parameters of the NRG reproduction (defaults: the paper's)."""

    k: int = doc("cutoff of nDCG@k and of the chronological / all-others NRG", default=10)
    pool_depth: int = doc("K of the unique-contribution variants (the pool depth)", default=10)
    alpha: float = doc("alpha of P_rare@k in Figure 4", default=1.0)
    rel_level: int = doc("minimum grade counted relevant (binary gains, unique, P_rare)",
                         default=1)
    label_top: int = doc("runs named in the scatter plots (highest NRG)", default=5)

    def validate(self) -> "NRGParams":
        for name in ("k", "pool_depth"):
            check_positive(getattr(self, name), name, "reproduce nrg")
        if (isinstance(self.label_top, bool) or not isinstance(self.label_top, int)
                or self.label_top < 0):
            raise ParameterError(f"reproduce nrg: label_top must be an integer >= 0, got "
                                 f"{self.label_top!r}")
        if not float(self.alpha) >= 0:
            raise ParameterError(f"reproduce nrg: alpha must be >= 0, got {self.alpha!r}")
        return self


def measures(p: NRGParams) -> dict[str, str]:
    """Column label -> measure string of every value the reproduction computes."""
    k, K = p.k, p.pool_depth
    return {
        f"nDCG@{k}": f"nDCG@{k}",
        f"NRG earlier@{k}": f"NRG(base=nDCG,prior=earlier)@{k}",
        f"NRG others@{k}": f"NRG(base=nDCG,prior=others)@{k}",
        "NRG best_per_group": "NRG(base=nDCG,prior=best_per_group)",
        f"NRG(P) best_per_group@{K}": f"NRG(base=P,prior=best_per_group)@{K}",
        f"unique best_per_group@{K}": f"NRG(base=unique,prior=best_per_group)@{K}",
        f"P_rare@{k}": f"P_rare(alpha={float(p.alpha):g})@{k}",
    }


def _chronological_plot(frame: pd.DataFrame, base: str, nrg: str):
    from irmeta.plot import style
    n = len(frame)
    fig, ax = style.figure(min(11.0, 3.0 + 0.14 * n), 3.4)
    x = np.arange(1, n + 1)
    ax.plot(x, frame[base], marker="o", ms=3, label=base, color=style.PALETTE[0])
    ax.plot(x, frame[nrg], marker="s", ms=3, label="NRG, prior = earlier runs",
            color=style.PALETTE[3])
    ax.set_xlabel("runs in campaign order")
    ax.set_ylabel("mean over topics")
    if n <= 40:
        ax.set_xticks(x, list(frame.index), rotation=70, ha="right", fontsize=6)
    ax.set_xlim(0.5, n + 0.5)
    ax.legend(frameon=False)
    ax.set_title("Chronological comparison: what each run adds to the earlier ones")
    return fig


def reproduce(campaign: Campaign, output, *, groups: Mapping[str, str] | None = None,
              params: NRGParams | None = None, inputs: list[tuple[str, str]] | None = None,
              command: str | None = None, progress: bool | None = None,
              formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    """Write the NRG paper's Figures 1-4 and the tables behind them for ``campaign``
    into the folder ``output`` (see module doc). ``groups``: run -> group (prior
    ``best_per_group`` and colours). ``tables``: ``values`` (one row per run, every
    measure), ``correlations``, ``unique_contributions``."""
    from irmeta.evaluation import evaluate
    from irmeta.explain import unique_contributions
    from irmeta.report.figures import scatter_by_group
    from irmeta.report.html import Row
    from irmeta.report.html import markup as html

    if not isinstance(campaign, Campaign):
        raise ParameterError("reproduce nrg: campaign must be a Campaign")
    p = (params or NRGParams()).validate()
    if campaign.num_runs < 2:
        raise ParameterError(f"reproduce nrg: needs at least 2 runs, got {campaign.num_runs}")
    require_campaign(campaign, p.rel_level, "reproduce nrg")
    own = not groups
    groups = {r: r for r in campaign.runs} if own else dict(groups)
    missing = [r for r in campaign.runs if r not in groups]
    if missing:
        raise ParameterError(f"reproduce nrg: no group for run(s) {', '.join(missing[:5])}")
    lvl = p.rel_level
    S = Session("nrg", output,
                "Reproduction: Normalized Residual Gain (Bigdeli et al., SIGIR-AP 2024)",
                6, progress=progress, formats=formats, dpi=dpi)
    summary, notes = [], []
    if own:
        notes.append("No groups file: every run is its own group, so the prior "
                     "'best_per_group' is every other run (the same as 'others').")
    cols = measures(p)
    base = f"nDCG@{p.k}"

    with S.step("evaluate"):
        res = evaluate(campaign, measures=list(cols.values()), groups=groups,
                       rel_level=lvl)
        values = pd.DataFrame({label: res.matrix(i).mean(axis=1)
                               for i, label in enumerate(cols)})
        values.index.name = "run"
        values.insert(0, "group", [groups[r] for r in values.index])
        uc = unique_contributions(campaign, p.pool_depth, rel_level=lvl)
        values[f"unique to the pool@{p.pool_depth} (sum)"] = uc["unique"]
        gser = values["group"]
        corr = pd.DataFrame([{"measure": label, "string": cols[label],
                              f"Kendall τ with {base}": tau_b(values[base], values[label]),
                              "Pearson r": float(np.corrcoef(values[base], values[label])[0, 1])
                              if values[label].std() > 0 else np.nan}
                             for label in cols if label != base])
    sec = S.section("values", "The values",
                    html("Means over the campaign topic set of every measure behind the "
                         "figures, one row per run (campaign order). Measure strings: {m}.",
                         m="; ".join(f"{k} = {v}" for k, v in cols.items())))
    sec.add(S.table("values", values.reset_index(), digits=4, compact=True,
                    caption="Per-run values (sortable)."))
    sec.add(S.table("correlations", corr, digits=3, compact=True, sortable=False,
                    caption=f"Agreement of each measure's ranking with {base}."))

    with S.step("figure 1 (chronological, all others)"):
        nrg_e, nrg_o = f"NRG earlier@{p.k}", f"NRG others@{p.k}"
        fig_a = _chronological_plot(values, base, nrg_e)
        fig_b = scatter_by_group(values[base], values[nrg_o], gser, xlabel=base,
                                 ylabel=f"NRG@{p.k}, prior = all other runs",
                                 title="All-others comparison", label_top=p.label_top)
        sec = S.section("figure1", "Figure 1: chronological and all-others comparison",
                        html("(a) Runs in campaign order (taken as the order of release): "
                             "{b} and NRG@{k} with the earlier runs as the prior — what each "
                             "run adds to everything before it. (b) NRG@{k} with every other "
                             "run as the prior, against {b}. The paper plots MRR@10 on MS "
                             "MARCO; nDCG@{k} is the base here (RR has no NRG browsing model).",
                             b=base, k=p.k))
        sec.add(S.figure("figure1a_chronological", fig_a, caption="(a) chronological.",
                         width=820))
        sec.add(S.figure("figure1b_others", fig_b, caption="(b) all other runs as the prior.",
                         width=620))
        first = values[nrg_e].iloc[0]
        later = values[nrg_e].iloc[1:]
        summary.append(f"Figure 1a: NRG with the earlier runs as the prior falls from "
                       f"{first:.3f} (first run) to a median of {later.median():.3f} for the "
                       f"others; τ(NRG others, {base}) = "
                       f"{corr.set_index('measure').loc[nrg_o].iloc[1]:.3f}.")

    with S.step("figure 2 (NRG vs nDCG by group)"):
        col = "NRG best_per_group"
        fig = scatter_by_group(values[base], values[col], gser, xlabel=base,
                               ylabel="NRG (nDCG, full depth), "
                                      "prior = best run of each other group",
                               title=f"NRG against {base}", label_top=p.label_top)
        sec = S.section("figure2", "Figure 2: NRG against nDCG, by group",
                        html("NRG with the nDCG browsing model over the whole ranking (the "
                             "authors' code), the prior of a run being the best run by the "
                             "base metric of every other group; one point per run, colour = "
                             "group; the {n} runs with the highest NRG are named.",
                             n=p.label_top))
        sec.add(S.figure("figure2_nrg_ndcg", fig, caption="NRG against nDCG.", width=620))
        top = values[col].sort_values(ascending=False).head(5)
        summary.append("Figure 2: highest NRG (best_per_group): " + ", ".join(
            f"{r} ({values.loc[r, 'group']}, {v:.3f}; {base} rank "
            f"{int(values[base].rank(ascending=False, method='min')[r])})"
            for r, v in top.items()) + ".")

    with S.step("figure 3 (unique contributions)"):
        K = p.pool_depth
        colp = f"NRG(P) best_per_group@{K}"
        fig = scatter_by_group(values[base], values[colp], gser, xlabel=base,
                               ylabel=f"NRG@{K} (precision), prior = best run of each other group",
                               title=f"Unique contributions (NRG from P@{K})",
                               label_top=p.label_top, diagonal=False)
        uct = uc.reset_index()
        uct.insert(1, "group", [groups[r] for r in uct["run"]])
        uct = uct.sort_values(["unique", "run"], ascending=[False, True], kind="stable")
        sec = S.section("figure3", "Figure 3: unique contributions",
                        html("NRG from precision@{K} (K = the pool depth), prior = the best "
                             "run of every other group: the share of the run's top {K} that "
                             "is relevant and in no prior run's top {K}; × {K} it is the "
                             "number of such documents per topic ('unique' column of the "
                             "values). The table counts, with every other run as the prior, "
                             "the relevant documents each run alone has in its top {K} "
                             "(unique contributions to the pool), summed over topics.", K=K))
        sec.add(Row([S.figure("figure3_unique", fig, caption="NRG(P) against nDCG.", width=620),
                     S.table("unique_contributions", uct, digits=3, compact=True, max_rows=20,
                             caption=f"Unique contributions to the pool (top {K}).")]))
        best = uct.iloc[0]
        summary.append(f"Figure 3: most unique relevant documents in the top {K}: "
                       f"{best['run']} ({int(best['unique'])} over all topics); "
                       f"{int((uct['unique'] == 0).sum())} runs contribute none.")

    with S.step("figure 4 (P_rare)"):
        colr = f"P_rare@{p.k}"
        fig = scatter_by_group(values[base], values[colr], gser, xlabel=base,
                               ylabel=f"P_rare(α={float(p.alpha):g})@{p.k}",
                               title="Rareness-based precision", label_top=p.label_top,
                               diagonal=False)
        sec = S.section("figure4", "Figure 4: rareness-based precision against nDCG",
                        html("P_rare(α={a})@{k} (Türkmen et al.): rarity of a document over "
                             "all the runs, the scored one included — no prior set.",
                             a=f"{float(p.alpha):g}", k=p.k))
        sec.add(S.figure("figure4_p_rare", fig, caption="P_rare against nDCG.", width=620))

    inputs = list(inputs or []) + campaign_rows(campaign, lvl) + [
        ("groups", "none given: every run is its own group" if own
         else f"{len(set(groups.values()))}")]
    return S.finish(inputs=inputs, params=p, command=command,
                    subtitle=f"{campaign.num_runs} runs"
                             + ("" if own else f" from {len(set(groups.values()))} groups")
                             + f", {int(campaign.topic_set(lvl).sum())} topics",
                    summary=summary, notes=notes)
