"""Bigdeli, Arabzadeh, Clarke et al.: Normalized Residual Gain (SIGIR-AP 2024) — its
figures on any campaign, with the tables of the values behind them.

``analyse(campaign, params, groups=...)`` computes an :class:`NRGAnalysis` (no output);
``render(analysis, output)`` writes its page; ``reproduce`` does both.

* **Table 1** (the paper's worked example): three rankings of ten items, NRG@10 with each
  prior, recomputed beside the printed values (:func:`~irmeta.reproduce.nrg.analysis.table1`;
  reproduced exactly).
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
* **Figure 5** (the paper's appendix C): ``TaSC(prior=best_per_group)@k`` (task subspace
  coverage, Arabzadeh et al., SIGIR 2023: ``nDCG@k`` times what the best prior run left
  uncovered on the topic, :mod:`irmeta.measures.tasc`) against ``nDCG@k``; the prior is
  the best run of every *other* group, as the paper's caption says (the authors' script
  keeps the run's own group: docs/paper-deviations.md).
* The **correlations** of every measure's run means with ``nDCG@k`` (Kendall's tau with
  its p-value, Pearson's r).

Without a groups file every run is its own group, so ``best_per_group`` is every other
run (= ``others``); the page says so.
"""

from __future__ import annotations

from typing import Mapping

from irmeta.data.campaign import Campaign
from irmeta.reproduce._common import Reproduction
from irmeta.reproduce._session import run_reproduction
from irmeta.reproduce.nrg import page
from irmeta.reproduce.nrg.analysis import STEPS as ANALYSIS_STEPS
from irmeta.reproduce.nrg.analysis import (
    NRGAnalysis,
    NRGParams,
    RunValues,
    analyse,
    measures,
)
from irmeta.reproduce.nrg.page import render

__all__ = ["NRGAnalysis", "NRGParams", "RunValues", "analyse", "measures", "render",
           "reproduce"]


def reproduce(campaign: Campaign, output, *, groups: Mapping[str, str] | None = None,
              params: NRGParams | None = None, inputs: list[tuple[str, str]] | None = None,
              command: str | None = None, progress: bool | None = None,
              formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    """``render(analyse(campaign, params, groups=groups), output, ...)``: write the NRG
    paper's Table 1 (its worked example), Figures 1-5 and the tables behind them for
    ``campaign`` into the folder
    ``output`` (see module doc). ``groups``: run -> group (prior ``best_per_group`` and
    colours). ``tables``: ``table1``, ``values`` (one row per run, every measure),
    ``correlations``, ``unique_contributions``; ``analysis``: the :class:`NRGAnalysis`."""
    return run_reproduction(
        "nrg", len(ANALYSIS_STEPS) + len(page.STEPS),
        lambda prog: analyse(campaign, params, groups=groups, progress=prog), render, output,
        inputs=inputs, command=command, progress=progress, formats=formats, dpi=dpi)
