"""The numbers of the GAWM reproduction: :func:`analyse` computes
:class:`GAWMAnalysis` (no file, no HTML, no figure); :mod:`irmeta.reproduce.gawm.page`
draws and writes it. Every table is one call of :mod:`irmeta.aggregate.analyses`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from irmeta.aggregate.analyses import HeatmapBars
from irmeta.aggregate.gawm import GAWMResult
from irmeta.aggregate.hits import HITSResult
from irmeta.errors import ParameterError
from irmeta.reproduce._common import Progress, Provenance
from irmeta.reproduce.params import GAWMParams

__all__ = ["GAWMAnalysis", "GAWMParams", "PAPER_TABLE2", "PAPER_TABLES", "STEPS", "analyse",
           "provenance"]

#: the paper's Table 2 (axioms A, M_s = M_t = arithmetic) on TREC 6-9 ad hoc (ta6-ta9)
#: and the TREC 2004-2006 Terabyte tracks (tb4-tb6), in our column names
PAPER_TABLE2 = pd.DataFrame(
    [[56, 50, 0.988, 0.958, 0.999, 0.999, 0.029, 0.781],
     [96, 50, 0.998, 0.995, 1, 0.999, 0.048, 0.815],
     [116, 50, 0.996, 0.996, 1, 0.999, 0.750, 0.890],
     [93, 50, 0.984, 0.972, 1, 0.996, 0.116, 0.897],
     [70, 50, 0.999, 0.997, 1, 0.998, -0.223, 0.933],
     [58, 50, 0.999, 0.999, 1, 0.999, 0.565, 0.768],
     [80, 50, 0.998, 0.991, 1, 0.998, 0.579, 0.758]],
    index=pd.Index([f"{c} (paper)" for c in ("ta6", "ta7", "ta8", "ta9", "tb4", "tb5", "tb6")],
                   name="collection"),
    columns=["systems", "topics", "Pearson(MAP,E_s)", "Pearson(MAP,A(s))", "Pearson(AAP,E_t)",
             "Pearson(AAP,A(t))", "Pearson(MAP,W_s)", "Pearson(AAP,W_t)"])
#: the page tables that print the paper's numbers (each has a :class:`Provenance`)
PAPER_TABLES = ("table2_paper",)


def provenance(name: str, shape: tuple[int, int]) -> dict[str, Provenance]:
    """The paper's collections behind the tables that print its numbers."""
    return {"table2_paper": Provenance(
        "table2_paper", "TREC 6-9 ad hoc and TREC 2004-2006 Terabyte: AP matrices of 56-116 "
        "runs x 50 topics", f"{name}: {shape[0]} systems x {shape[1]} topics",
        "same-measure-different-data")}

#: the steps of :func:`analyse` (progress bar and run-time table)
STEPS = ("table 2", "table 3", "figure 2 (weights against the means)", "figure 3 (heat map)",
         "figure 4 (ranking grid)", "figure 5 (confidence)", "figure 6 (leave one topic out)")


@dataclass(frozen=True)
class GAWMAnalysis:
    """Every number of the GAWM reproduction, for one systems x topics ``matrix``
    labelled ``name``.

    * ``table2``: Pearson's r of MAP / AAP with GAWM's ``E_s``, ``E_t``, ``W_s``, ``W_t``
      and HITS' ``A(s)``, ``A(t)`` (:func:`~irmeta.aggregate.analyses.correlation_table`);
    * ``table2_paper``: the paper's Table 2 (:data:`PAPER_TABLE2`);
    * ``figure2a`` / ``figure2b``: per system (topic) the plain mean MAP (AAP), HITS
      authority ``A`` and hub ``H``, GAWM (axioms ``params.axioms``, arithmetic means)
      effectiveness ``E`` and weight ``W``, best first — the points of the paper's Figures
      2a and 2b (also shown as ``weights_systems`` / ``weights_topics``);
    * ``table3``: Pearson(MAP, W_s) and Pearson(AAP, W_t) for each topic mean ``M_t``
      (:func:`~irmeta.aggregate.analyses.mean_function_table`);
    * ``figure3``: the heat map's orders and side bars
      (:func:`~irmeta.aggregate.analyses.heatmap_bars`), from ``heatmap_gawm`` (GAWM with
      ``M_s = M_t`` = each mean of ``params.heatmap_means``) and ``hits``;
      ``weights_systems`` / ``weights_topics``: MAP / AAP, GAWM (arithmetic, else the
      first mean) ``E`` and ``W``, HITS authority, best first;
    * ``figure4``: per (M_s, M_t) the leader, the rank of MAP's leader and last system and
      tau with MAP (:func:`~irmeta.aggregate.analyses.ranking_grid`); ``figure4_scores``:
      every system's ``E_s`` under the 25 pairs (:func:`~irmeta.aggregate.analyses.grid_scores`);
      ``figure4`` also holds ``kendall_p``, the two-sided p-value of each tau with MAP
      (:func:`irmeta.stats.kendall_test`);
    * ``figure5``: confidence that the best system beats the median / worst one
      (:func:`~irmeta.aggregate.analyses.winner_confidence`);
    * ``figure6``: leave-one-topic-out tau per aggregator, axioms ``params.loto_axioms``
      (:func:`~irmeta.aggregate.analyses.leave_one_topic_out`);
    * ``provenance``: per page table with the paper's numbers (:data:`PAPER_TABLES`).
    """

    params: GAWMParams
    name: str
    matrix: pd.DataFrame
    table2: pd.DataFrame
    table2_paper: pd.DataFrame
    figure2a: pd.DataFrame
    figure2b: pd.DataFrame
    table3: pd.DataFrame
    heatmap_gawm: dict[str, GAWMResult]
    hits: HITSResult
    figure3: HeatmapBars
    weights_systems: pd.DataFrame
    weights_topics: pd.DataFrame
    figure4: pd.DataFrame
    figure4_scores: pd.DataFrame
    figure5: pd.DataFrame
    figure6: pd.DataFrame
    provenance: dict[str, Provenance]
    timings: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        """(systems, topics)."""
        return self.matrix.shape

    @property
    def score_range(self) -> tuple[float, float]:
        """The smallest and largest score of the matrix."""
        P = self.matrix.to_numpy(dtype=np.float64)
        return float(np.nanmin(P)), float(np.nanmax(P))

    @property
    def map_leader_kept(self) -> int:
        """Number of the 25 (M_s, M_t) pairs under which MAP's leader keeps rank 1."""
        return 25 - int((self.figure4["map_leader_rank"] > 1).sum())

    @property
    def heatmap_not_converged(self) -> list[str]:
        """The heat map's means whose GAWM hit its iteration limit."""
        return [m for m, g in self.heatmap_gawm.items() if not g.converged]


def _check_matrix(matrix) -> tuple[np.ndarray, pd.Index, pd.Index]:
    """``(P, systems, topics)`` of a DataFrame of at least 2 x 2 finite numbers, else a
    :class:`ParameterError` naming the first bad cell (the rules of the aggregate
    layer's own check, which is private to it; see docs/architecture.md)."""
    fn = "reproduce gawm"
    if not isinstance(matrix, pd.DataFrame):
        raise ParameterError(f"{fn}: matrix must be a systems x topics DataFrame")
    try:
        P = matrix.to_numpy(dtype=np.float64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ParameterError(f"{fn}: matrix must hold numbers ({exc})") from None
    if P.shape[0] < 2 or P.shape[1] < 2:
        raise ParameterError(f"{fn}: matrix needs at least 2 systems and 2 topics, got "
                             f"{P.shape[0]} x {P.shape[1]}")
    bad = ~np.isfinite(P)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ParameterError(
            f"{fn}: matrix has {int(bad.sum())} missing or infinite value(s), first at "
            f"system {matrix.index[i]!r}, topic {matrix.columns[j]!r} ({P[i, j]}); GAWM and "
            f"HITS need a complete matrix: drop those topics or systems, or fill the cells")
    return P, matrix.index, matrix.columns


def analyse(matrix: pd.DataFrame, params: GAWMParams | None = None, *, name: str = "matrix",
            progress: bool | None | Progress = None) -> GAWMAnalysis:
    """Compute the GAWM paper's Tables 2-3 and Figures 3-6 for ``matrix``.

    Parameters
    ----------
    matrix : DataFrame
        Systems x topics scores, at least 2 x 2, every cell a finite number.
    params : GAWMParams, optional
        The paper's values by default.
    name : str
        The collection's label in the tables.
    progress : bool, None or Progress
        Progress bar on stderr (None: when stderr is a terminal).

    Returns
    -------
    GAWMAnalysis
    """
    from irmeta.aggregate import analyses as an
    from irmeta.aggregate import gawm, hits
    from irmeta.stats import kendall_test

    p = (params or GAWMParams()).validate()
    P, runs, topics = _check_matrix(matrix)
    ax = p.axioms
    with Progress.use(progress, "gawm", len(STEPS)) as prog:
        with prog.step("table 2"):
            t2 = an.correlation_table({name: matrix}, ax)
        with prog.step("table 3"):
            t3 = an.mean_function_table({name: matrix}, ax)
        with prog.step("figure 2 (weights against the means)"):
            # warn=False: whether each mean converged is kept (heatmap_not_converged) and
            # stated on the page, as the other tables do in their `converged` column
            res = {m: gawm(matrix, ax, m, m, warn=False) for m in p.heatmap_means}
            h = hits(matrix)
            g = res.get("arithmetic") or next(iter(res.values()))
            ws = pd.DataFrame({"system": runs, "MAP": P.mean(axis=1),
                               "E_s": g.E_s.to_numpy(), "W_s": g.W_s.to_numpy(),
                               "A(s)": h.authority_s.to_numpy(), "H(s)": h.hub_s.to_numpy()})
            ws = ws.sort_values("MAP", ascending=False, kind="stable")
            wt = pd.DataFrame({"topic": topics, "AAP": P.mean(axis=0),
                               "E_t": g.E_t.to_numpy(), "W_t": g.W_t.to_numpy(),
                               "A(t)": h.authority_t.to_numpy(), "H(t)": h.hub_t.to_numpy()})
            wt = wt.sort_values("AAP", ascending=False, kind="stable")
        with prog.step("figure 3 (heat map)"):
            bars = an.heatmap_bars(matrix, ax, p.heatmap_means, results=res, hits_result=h,
                                   func="reproduce gawm")
        with prog.step("figure 4 (ranking grid)"):
            results = an.grid_results(matrix, ax)
            scores = an.grid_scores(matrix, ax, results=results)
            grid = an.ranking_grid(matrix, ax, results=results)
            grid = grid.assign(kendall_p=[kendall_test(scores[lab], scores["MAP"])[1]
                                          for lab in grid["label"]])
        with prog.step("figure 5 (confidence)"):
            conf = an.winner_confidence(matrix, ax)
        with prog.step("figure 6 (leave one topic out)"):
            loto = an.leave_one_topic_out(matrix, p.loto_axioms)
        timings = {k: prog.timings[k] for k in STEPS}
    return GAWMAnalysis(params=p, name=name, matrix=matrix, table2=t2,
                        table2_paper=PAPER_TABLE2, figure2a=ws, figure2b=wt, table3=t3,
                        heatmap_gawm=res, hits=h, figure3=bars, weights_systems=ws,
                        weights_topics=wt, figure4=grid, figure4_scores=scores, figure5=conf,
                        figure6=loto, provenance=provenance(name, P.shape), timings=timings)

