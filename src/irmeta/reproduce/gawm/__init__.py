"""The GAWM paper (generalised adaptive weighted means of a systems x topics matrix,
against HITS) — Tables 2-3 and Figures 2-6 on any score matrix.

``analyse(matrix, params)`` computes a :class:`GAWMAnalysis` (no output);
``render(analysis, output)`` writes its page; ``reproduce`` does both.

Input: a systems x topics DataFrame — from a campaign (one measure's per-topic scores
over the campaign topic set, default AP) or read from a file
(:func:`irmeta.io.matrix.read_matrix`).

* **Table 2** (axioms A, ``M_s = M_t`` = arithmetic): Pearson's r of MAP with ``E_s``
  (GAWM system effectiveness) and with ``A(s)`` (HITS authority), of AAP (topic means)
  with ``E_t`` and ``A(t)``, of MAP with the system weights ``W_s`` and of AAP with the
  topic weights ``W_t`` (:func:`irmeta.aggregate.analyses.correlation_table`), beside
  the paper's values.
* **Figures 2a/2b**: HITS authority and hub, GAWM effectiveness and weight of each
  system (topic) against MAP (AAP), one scatter panel each
  (:func:`irmeta.plot.gawm.plot_weights_scatter`).
* **Table 3**: with ``M_s`` arithmetic and each topic mean ``M_t`` in min, harmonic,
  geometric, arithmetic, max: Pearson(MAP, W_s) and Pearson(AAP, W_t)
  (:func:`~irmeta.aggregate.analyses.mean_function_table`).
* **Figure 3**: the matrix as a heat map (best system on top, easiest topic left) with
  side bars MAP, A(s), E_s, W_s and the same for topics.
* **Figure 4**: the ranking of the systems under each of the 5 x 5 (``M_s``, ``M_t``)
  pairs, with the MAP leader traced (:func:`~irmeta.aggregate.analyses.ranking_grid`)
  and the p-value of each Kendall's tau with MAP.
* **Figure 5**: confidence that the best system beats the median and the worst one,
  for MAP and GAWM with each ``M_s`` (:func:`~irmeta.aggregate.analyses.winner_confidence`).
* **Figure 6**: leave-one-topic-out predictivity, axioms B (the paper's choice):
  Kendall's tau between the aggregate over n-1 topics and the held-out topic
  (:func:`~irmeta.aggregate.analyses.leave_one_topic_out`).
"""

from __future__ import annotations

import pandas as pd

from irmeta.reproduce._common import Reproduction
from irmeta.reproduce._session import run_reproduction
from irmeta.reproduce.gawm import page
from irmeta.reproduce.gawm.analysis import STEPS as ANALYSIS_STEPS
from irmeta.reproduce.gawm.analysis import GAWMAnalysis, GAWMParams, analyse
from irmeta.reproduce.gawm.page import render

__all__ = ["GAWMAnalysis", "GAWMParams", "analyse", "render", "reproduce"]


def reproduce(matrix: pd.DataFrame, output, *, params: GAWMParams | None = None,
              name: str = "matrix", inputs: list[tuple[str, str]] | None = None,
              command: str | None = None, progress: bool | None = None,
              formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    """``render(analyse(matrix, params, name=name), output, ...)``: write the GAWM
    paper's Tables 2-3 and Figures 3-6 for ``matrix`` (systems x topics) into the folder
    ``output``. ``name``: the collection's label in the tables. ``tables``: ``table2``,
    ``table3``, ``figure4``, ``figure4_scores``, ``figure5``, ``figure6``,
    ``weights_systems``, ``weights_topics``; ``analysis``: the :class:`GAWMAnalysis`."""
    return run_reproduction(
        "gawm", len(ANALYSIS_STEPS) + len(page.STEPS),
        lambda prog: analyse(matrix, params, name=name, progress=prog), render, output,
        inputs=inputs, command=command, progress=progress, formats=formats, dpi=dpi)
