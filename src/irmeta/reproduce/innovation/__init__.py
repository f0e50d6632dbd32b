"""Türkmen, Kutlu, Lease, Tutuncu: "Innovation" metrics (rareness-weighted P@K and AP),
ECIR 2023 — every table and figure of the paper, on any campaign.

``analyse(campaign, params)`` computes an :class:`InnovationAnalysis` (no output);
``render(analysis, output)`` writes its page; ``reproduce`` does both.

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
  ..., 64 (up to R), ``systems_trials`` times draw N runs, recompute the measures with the
  sample as the only context, Kendall's tau against the full ranking restricted to the
  sample; mean (:func:`irmeta.stats.system_dependence`). 1,000 samples, as in the paper
  (about 43 s CPU for 63 runs; ``systems_trials=100`` for a quick look).
* **Table 4**: qualitative analysis — the runs whose rank gains the most from P@K to
  P_rare(alpha=1)@K and the rarest relevant documents of their top K
  (:func:`~irmeta.reproduce.innovation.analysis.rare_documents`, from
  :func:`irmeta.explain.explain_documents`).

Beside Tables 1-3 the page prints the paper's values and says, from a
:class:`~irmeta.reproduce._common.Provenance` record, why they cannot be compared cell by
cell (DLT20 and TREC-8, not this campaign).
"""

from __future__ import annotations

from irmeta.data.campaign import Campaign
from irmeta.reproduce._common import Reproduction
from irmeta.reproduce._session import run_reproduction
from irmeta.reproduce.innovation import analysis as _analysis
from irmeta.reproduce.innovation import page
from irmeta.reproduce.innovation.analysis import (
    PAPER_TABLE1,
    PAPER_TABLE2,
    PAPER_TABLE3,
    InnovationAnalysis,
    InnovationParams,
    analyse,
    figure1_topic,
    synthetic_insertion,
)
from irmeta.reproduce.innovation.page import render

__all__ = ["InnovationAnalysis", "InnovationParams", "PAPER_TABLE1", "PAPER_TABLE2",
           "PAPER_TABLE3", "analyse", "figure1_topic", "render", "reproduce",
           "synthetic_insertion"]


def reproduce(campaign: Campaign, output, *, params: InnovationParams | None = None,
              inputs: list[tuple[str, str]] | None = None, command: str | None = None,
              progress: bool | None = None, formats=("png", "svg"), dpi: int = 150,
              figure1: bool = True) -> Reproduction:
    """``render(analyse(campaign, params, figure1=figure1), output, ...)``: write the
    innovation paper's Figures 1-2 and Tables 1-4 for ``campaign`` into the folder
    ``output`` (see module doc). ``figure1=False`` skips the synthetic experiment.
    Returns a :class:`~irmeta.reproduce.Reproduction` whose ``tables`` hold ``figure1``,
    ``figure2``, ``table1``, ``table1_long``, ``table2``, ``table3``, ``table4`` and whose
    ``analysis`` is the :class:`InnovationAnalysis`."""
    return run_reproduction(
        "innovation", len(_analysis.steps(figure1)) + len(page.steps(figure1)),
        lambda prog: analyse(campaign, params, figure1=figure1, progress=prog), render,
        output, inputs=inputs, command=command, progress=progress, formats=formats, dpi=dpi)
