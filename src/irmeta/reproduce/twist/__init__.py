"""The Twist paper (effort-aware evaluation: CRP curves, Twist, effort/gain) — its
tables and figures on any campaign.

``analyse(campaign, params)`` computes a :class:`TwistAnalysis` (no output);
``render(analysis, output)`` writes its page; ``reproduce`` does both.

* **Worked example**: the RP and CRP vectors of the paper's example, beside the printed
  ones (:mod:`irmeta.reproduce.twist.example`; reproduced exactly).
* **Table 2**: archetypes of the CRP curves (ideal, worst, full-scale, excellent,
  typical A, typical B), percent of (run, topic) curves (:func:`irmeta.effort.archetypes`,
  crossing rule ``matters``), beside the paper's values.
* **Figures 7-10**: effort/gain grids — Twist (x) against AP, bpref, RBP(p=0.8) and
  nDCG (y) on a 4 x 4 grid (Twist quarters x gain quartiles), with the share of points
  on the diagonal and in the high-gain/high-effort cells
  (:func:`irmeta.effort.effort_gain_summary`, :func:`irmeta.plot.effort.plot_effort_gain`).
* **Figure 11**: CRP next to DCG for the (run, topic) pairs of the top nDCG quartile
  with the most and the least effort (:func:`irmeta.effort.most_telling`,
  :func:`irmeta.effort.crp_dcg_panels`, :func:`irmeta.plot.effort.plot_crp_dcg_panels`).
* **Figure 12**: the distribution of the run means of each measure (all runs; box plot,
  the runs the MAP filter drops marked).
* **Tables 3-4**: Kendall's tau (and its p-value) between the system rankings (means
  over the campaign topic set) of AP, bpref, RBP(p=0.8), nDCG and Twist, beside the
  paper's values (:func:`irmeta.stats.correlation_matrix`, :func:`~irmeta.stats.kendall_pvalues`).
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

from irmeta.data.campaign import Campaign
from irmeta.reproduce._common import Reproduction
from irmeta.reproduce._session import run_reproduction
from irmeta.reproduce.twist import page
from irmeta.reproduce.twist.analysis import STEPS as ANALYSIS_STEPS
from irmeta.reproduce.twist.analysis import TwistAnalysis, TwistParams, analyse
from irmeta.reproduce.twist.page import render

__all__ = ["TwistAnalysis", "TwistParams", "analyse", "render", "reproduce"]


def reproduce(campaign: Campaign, output, *, params: TwistParams | None = None,
              inputs: list[tuple[str, str]] | None = None, command: str | None = None,
              progress: bool | None = None, formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    """``render(analyse(campaign, params), output, ...)``: write the Twist paper's
    Table 2, effort/gain grids, Tables 3-4 and Figures 13-14 for ``campaign`` into the
    folder ``output`` (see module doc). ``tables``: ``table2``, ``effort_gain``,
    ``grid_<gain>``, ``tables3_4``, ``figure13``, ``figure14``, ``figure14_asl``;
    ``analysis``: the :class:`TwistAnalysis`."""
    return run_reproduction(
        "twist", len(ANALYSIS_STEPS) + len(page.STEPS),
        lambda prog: analyse(campaign, params, progress=prog), render, output,
        inputs=inputs, command=command, progress=progress, formats=formats, dpi=dpi)
