"""The numbers of the NRG reproduction: :func:`analyse` computes :class:`NRGAnalysis`
(no file, no HTML, no figure); :mod:`irmeta.reproduce.nrg.page` draws and writes it.

NRG (:mod:`irmeta.measures.nrg`) scores a ranking by the gain it adds to what a set of
prior rankings already showed: ``G(d | P) = G(d) prod_{R_j in P} (1 - seen(pos(d, R_j)))``.
Every value is a mean over the campaign topic set of a measure computed by
:func:`irmeta.evaluate` (:func:`measures` lists them); the unique contributions to the
pool come from :func:`irmeta.explain.unique_contributions`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import pandas as pd

from irmeta.data.campaign import Campaign
from irmeta.errors import ParameterError
from irmeta.reproduce._common import (
    CampaignFacts,
    Progress,
    Provenance,
    checked_campaign,
)
from irmeta.reproduce.params import NRGParams

__all__ = ["NRGAnalysis", "NRGParams", "PAPER_TABLE1", "PAPER_TABLES", "RunValues", "STEPS",
           "analyse", "measures", "table1"]

#: the steps of :func:`analyse` (progress bar and run-time table)
STEPS = ("table 1 (worked example)", "evaluate")

#: the paper's Table 1: three rankings of the same ten items (A, E, F, J relevant)
TABLE1_ORDERS = {"R1": "ABCDEFGHIJ", "R2": "EDCBAFGHIJ", "R3": "JIHGFEDCBA"}
TABLE1_RELEVANT = "AEFJ"
#: its printed values: nDCG@10 and NRG@10 with each prior (NaN: a run is not its own prior)
PAPER_TABLE1 = pd.DataFrame(
    {"nDCG@10": [0.7933] * 3, "prior R1": [np.nan, 0.7361, 0.8277],
     "prior R2": [0.7361, np.nan, 0.7988], "prior R3": [0.8277, 0.7988, np.nan],
     "prior: the other two": [0.8417, 0.8316, 0.8681]},
    index=pd.Index(list(TABLE1_ORDERS), name="run"))
#: the page tables that print the paper's numbers (each has a :class:`Provenance`)
PAPER_TABLES = ("table1",)


def measures(p: NRGParams) -> dict[str, str]:
    """Column label -> measure string of every value the reproduction computes."""
    k, K = p.cutoff, p.pool_depth
    return {
        f"nDCG@{k}": f"nDCG@{k}",
        f"NRG earlier@{k}": f"NRG(base=nDCG,prior=earlier)@{k}",
        f"NRG others@{k}": f"NRG(base=nDCG,prior=others)@{k}",
        "NRG best_per_group": f"NRG(base=nDCG,prior=best_per_group,select='nDCG@{k}')",
        f"NRG(P) best_per_group@{K}": f"NRG(base=P,prior=best_per_group)@{K}",
        f"unique best_per_group@{K}": f"NRG(base=unique,prior=best_per_group)@{K}",
        f"P_rare@{k}": f"P_rare(alpha={float(p.alpha):g})@{k}",
        f"TaSC best_per_group@{k}": f"TaSC(prior=best_per_group)@{k}",
    }


def table1() -> pd.DataFrame:
    """The paper's Table 1 recomputed: for its three rankings of ten items (relevant
    items A, E, F, J, grade 4), ``nDCG@10`` and ``NRG(base=nDCG)@10`` with each other
    ranking as the only prior (:func:`irmeta.evaluate`, ``prior=list``) and with the
    other two (``prior=others``); one row per ranking, ``order`` its items, then for
    each value ours (``… (ours)``, full precision) and the paper's (``… (paper)``), and
    ``equal to 4 d.``: ours rounded to the paper's 4 decimals equal it. The paper's own
    input: every cell must agree."""
    from irmeta.evaluation import evaluate
    qrels = {"q1": {d: (4 if d in TABLE1_RELEVANT else 0) for d in "ABCDEFGHIJ"}}
    runs = {name: {"q1": {d: float(10 - i) for i, d in enumerate(order)}}
            for name, order in TABLE1_ORDERS.items()}
    ours = pd.DataFrame(index=PAPER_TABLE1.index, columns=PAPER_TABLE1.columns, dtype=float)
    both = evaluate(qrels, runs, ["nDCG@10", "NRG(base=nDCG,prior=others)@10"])
    for i, run in enumerate(both.runs):
        ours.loc[run, "nDCG@10"] = both.means[i, 0]
        ours.loc[run, "prior: the other two"] = both.means[i, 1]
    for prior in TABLE1_ORDERS:
        res = evaluate(qrels, runs, ["NRG(base=nDCG,prior=list)@10"], prior_runs=[prior])
        for i, run in enumerate(res.runs):
            if run != prior:
                ours.loc[run, f"prior {prior}"] = res.means[i, 0]
    out = pd.DataFrame({"order": [" ".join(o) for o in TABLE1_ORDERS.values()]},
                       index=PAPER_TABLE1.index)
    for col in PAPER_TABLE1.columns:
        out[f"{col} (ours)"] = ours[col]
        out[f"{col} (paper)"] = PAPER_TABLE1[col]
    out["equal to 4 d."] = [bool(np.allclose(np.round(ours.loc[r].to_numpy(float), 4),
                                             PAPER_TABLE1.loc[r].to_numpy(float),
                                             rtol=0, atol=1e-12, equal_nan=True))
                            for r in out.index]
    return out


@dataclass(frozen=True)
class RunValues:
    """The numbers of one figure: per run (campaign order) ``x`` and ``y``, each named
    by its column of :attr:`NRGAnalysis.values`, and the run's ``group``."""

    x: pd.Series
    y: pd.Series
    group: pd.Series


@dataclass(frozen=True)
class NRGAnalysis:
    """Every number of the NRG reproduction (Bigdeli et al., SIGIR-AP 2024).

    * ``values``: one row per run (campaign order, index ``run``): ``group``, the mean
      of every measure of :attr:`measures` (column = its label) and ``unique to the
      pool@K (sum)``;
    * ``table1``: the paper's Table 1 (its worked example) recomputed beside the printed
      values (:func:`table1`); ``provenance``: its :class:`Provenance` (exact);
    * ``correlations``: Kendall's tau-b (with its two-sided p-value,
      :func:`irmeta.stats.kendall_test`) and Pearson's r of each measure's run means with
      the base metric's (``nDCG@k``);
    * ``figure1a``: chronological comparison — ``nDCG@k`` and NRG with the earlier runs
      as the prior; ``figure1b``: NRG with every other run as the prior against
      ``nDCG@k``; ``figure2``: full-depth NRG, prior = the best run of every other
      group; ``figure3``: NRG from ``P@K`` with that prior; ``figure4``: ``P_rare(alpha)@k``;
      ``figure5``: TaSC@k (Arabzadeh et al.) with the best run of every other group as
      the prior (the paper's appendix C);
    * ``unique_contributions``: Figure 3's table, the relevant documents each run alone
      has in its top K (every other run as the prior), summed over topics, most first;
    * ``groups_given``: False when every run is its own group (then ``best_per_group``
      is every other run); ``timings``: ``{step: (wall s, CPU s)}`` of the analysis.
    """

    params: NRGParams
    campaign: CampaignFacts
    measures: dict[str, str]
    groups_given: bool
    num_groups: int
    table1: pd.DataFrame
    values: pd.DataFrame
    correlations: pd.DataFrame
    figure1a: RunValues
    figure1b: RunValues
    figure2: RunValues
    figure3: RunValues
    unique_contributions: pd.DataFrame
    figure4: RunValues
    figure5: RunValues
    provenance: dict[str, Provenance]
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def base(self) -> str:
        """The base metric's column label (``nDCG@k``)."""
        return f"nDCG@{self.params.cutoff}"

    def tau_with_base(self, label: str) -> float:
        """Kendall's tau-b between the run means of ``label`` and of the base metric."""
        return float(self.correlations.set_index("measure")[f"Kendall τ with {self.base}"][label])

    def top_runs(self, figure: RunValues, n: int = 5) -> pd.DataFrame:
        """The ``n`` runs with the highest ``y`` of ``figure``: ``run, group, value,
        base rank`` (competition rank of the run by the base metric, 1 = best)."""
        top = figure.y.sort_values(ascending=False).head(n)
        ranks = self.values[self.base].rank(ascending=False, method="min")
        return pd.DataFrame({"run": top.index, "group": self.values.loc[top.index, "group"],
                             "value": top.to_numpy(),
                             "base_rank": ranks[top.index].astype(int).to_numpy()})


def _pearson(x: pd.Series, y: pd.Series) -> float:
    """Pearson's r of two run-mean columns; NaN (undefined) when either is constant,
    e.g. every run with the same nDCG@k."""
    if not (x.std() > 0 and y.std() > 0):
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def _run_values(values: pd.DataFrame, x: str, y: str) -> RunValues:
    return RunValues(x=values[x], y=values[y], group=values["group"])


def analyse(campaign: Campaign, params: NRGParams | None = None, *,
            groups: Mapping[str, str] | None = None,
            progress: bool | None | Progress = None) -> NRGAnalysis:
    """Compute the NRG paper's Figures 1-5 and the tables behind them for ``campaign``.

    Parameters
    ----------
    campaign : Campaign
        At least 2 runs and a topic with a relevant document at ``params.rel_level``.
    params : NRGParams, optional
        The paper's values by default.
    groups : mapping run -> group, optional
        The prior ``best_per_group`` and the colours; without it every run is its own
        group (``best_per_group`` = every other run).
    progress : bool, None or Progress
        Progress bar on stderr (None: when stderr is a terminal).

    Returns
    -------
    NRGAnalysis
    """
    from irmeta.evaluation import evaluate
    from irmeta.explain import unique_contributions
    from irmeta.stats import kendall_test

    p, _ = checked_campaign("reproduce nrg", campaign, params or NRGParams(), min_runs=2)
    own = not groups
    group_of: dict[str, str] = {r: r for r in campaign.runs} if not groups else dict(groups)
    missing = [r for r in campaign.runs if r not in group_of]
    if missing:
        raise ParameterError(f"reproduce nrg: no group for run(s) {', '.join(missing[:5])}")
    cols = measures(p)
    base, K = f"nDCG@{p.cutoff}", p.pool_depth

    with Progress.use(progress, "nrg", len(STEPS)) as prog:
        with prog.step("table 1 (worked example)"):
            t1 = table1()
        with prog.step("evaluate"):
            res = evaluate(campaign, measures=list(cols.values()), groups=group_of,
                           rel_level=p.rel_level)
            values = pd.DataFrame({label: res.matrix(i).mean(axis=1)
                                   for i, label in enumerate(cols)})
            values.index.name = "run"
            values.insert(0, "group", [group_of[r] for r in values.index])
            uc = unique_contributions(campaign, K, rel_level=p.rel_level)
            values[f"unique to the pool@{K} (sum)"] = uc["unique"]
            corr = pd.DataFrame([
                {"measure": label, "string": cols[label],
                 **dict(zip((f"Kendall τ with {base}", "p (τ)"),
                            kendall_test(values[base], values[label]))),
                 "Pearson r": _pearson(values[base], values[label])}
                for label in cols if label != base])
            uct = uc.reset_index()
            uct.insert(1, "group", [group_of[r] for r in uct["run"]])
            uct = uct.sort_values(["unique", "run"], ascending=[False, True], kind="stable")
        timings = {k: prog.timings[k] for k in STEPS}

    return NRGAnalysis(
        params=p, campaign=CampaignFacts.of(campaign, p.rel_level), measures=cols,
        groups_given=not own, num_groups=len(set(group_of.values())), table1=t1, values=values,
        correlations=corr,
        figure1a=_run_values(values, base, f"NRG earlier@{p.cutoff}"),
        figure1b=_run_values(values, base, f"NRG others@{p.cutoff}"),
        figure2=_run_values(values, base, "NRG best_per_group"),
        figure3=_run_values(values, base, f"NRG(P) best_per_group@{K}"),
        unique_contributions=uct,
        figure4=_run_values(values, base, f"P_rare@{p.cutoff}"),
        figure5=_run_values(values, base, f"TaSC best_per_group@{p.cutoff}"),
        provenance={"table1": Provenance(
            "table1", "its Table 1: three rankings of ten items, four relevant",
            "the same three rankings", "exact")},
        timings=timings)
