"""The GAWM paper (generalised adaptive weighted means of a systems x topics matrix,
against HITS) — Tables 2-3 and Figures 3-6 on any score matrix.

Input: a systems x topics DataFrame — from a campaign (one measure's per-topic scores
over the campaign topic set, default AP) or read from a file
(:func:`irmeta.io.matrix.read_matrix`).

* **Table 2** (axioms A, ``M_s = M_t`` = arithmetic): Pearson's r of MAP with ``E_s``
  (GAWM system effectiveness) and with ``A(s)`` (HITS authority), of AAP (topic means)
  with ``E_t`` and ``A(t)``, of MAP with the system weights ``W_s`` and of AAP with the
  topic weights ``W_t`` (:func:`irmeta.aggregate.analyses.correlation_table`).
* **Table 3**: with ``M_s`` arithmetic and each topic mean ``M_t`` in min, harmonic,
  geometric, arithmetic, max: Pearson(MAP, W_s) and Pearson(AAP, W_t)
  (:func:`~irmeta.aggregate.analyses.mean_function_table`).
* **Figure 3**: the matrix as a heat map (best system on top, easiest topic left) with
  side bars MAP, A(s), E_s, W_s and the same for topics.
* **Figure 4**: the ranking of the systems under each of the 5 x 5 (``M_s``, ``M_t``)
  pairs, with the MAP leader traced (:func:`~irmeta.aggregate.analyses.ranking_grid`).
* **Figure 5**: confidence that the best system beats the median and the worst one,
  for MAP and GAWM with each ``M_s`` (:func:`~irmeta.aggregate.analyses.winner_confidence`).
* **Figure 6**: leave-one-topic-out predictivity, axioms B (the paper's choice):
  Kendall's tau between the aggregate over n-1 topics and the held-out topic
  (:func:`~irmeta.aggregate.analyses.leave_one_topic_out`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta.errors import ParameterError
from irmeta.reproduce._common import Reproduction, Session, doc

__all__ = ["GAWMParams", "reproduce"]


@dataclass
class GAWMParams:
    """Parameters of the GAWM reproduction (defaults: the paper's)."""

    measure: str = doc("measure of the matrix (campaign input; the paper: AP)", default="AP")
    axioms: str = doc("axioms of Tables 2-3 and Figures 3-5 (A | B)", default="A")
    loto_axioms: str = doc("axioms of Figure 6 (leave-one-topic-out)", default="B")
    heatmap_means: tuple = doc("GAWM means (M_s = M_t) shown beside the heat map",
                               default=("arithmetic", "geometric"))

    def validate(self) -> "GAWMParams":
        for name in ("axioms", "loto_axioms"):
            v = str(getattr(self, name)).upper()
            if v not in ("A", "B"):
                raise ParameterError(f"reproduce gawm: {name} must be A or B, got "
                                     f"{getattr(self, name)!r}")
            setattr(self, name, v)
        return self


def reproduce(matrix: pd.DataFrame, output, *, params: GAWMParams | None = None,
              name: str = "matrix", inputs: list[tuple[str, str]] | None = None,
              command: str | None = None, progress: bool | None = None,
              formats=("png", "svg"), dpi: int = 150) -> Reproduction:
    """Write the GAWM paper's Tables 2-3 and Figures 3-6 for ``matrix`` (systems x
    topics) into the folder ``output``. ``name``: the collection's label in the tables.
    ``tables``: ``table2``, ``table3``, ``figure4``, ``figure4_scores``, ``figure5``,
    ``figure6``, ``weights_systems``, ``weights_topics``."""
    from irmeta.aggregate import analyses as an
    from irmeta.aggregate import gawm, hits
    from irmeta.aggregate._matrix import as_matrix
    from irmeta.errors import ConvergenceWarning
    from irmeta.plot import gawm as plots
    from irmeta.report.html import Row
    from irmeta.report.html import markup as html

    p = (params or GAWMParams()).validate()
    if not isinstance(matrix, pd.DataFrame):
        raise ParameterError("reproduce gawm: matrix must be a systems x topics DataFrame")
    P, runs, topics = as_matrix(matrix, "reproduce gawm", min_shape=(2, 2))
    S = Session("gawm", output, "Reproduction: GAWM, adaptive weighted means of a score matrix",
                7, progress=progress, formats=formats, dpi=dpi)
    summary, notes = [], []
    ax = p.axioms
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)

        with S.step("table 2"):
            t2 = an.correlation_table({name: matrix}, ax)
            sec = S.section("table2", "Table 2: GAWM and HITS against the plain means",
                            html("Pearson's r between MAP (system means) and GAWM's E_s and "
                                 "HITS' A(s); between AAP (topic means) and E_t, A(t); and "
                                 "between the means and GAWM's weights W_s, W_t (axioms {a}, "
                                 "M_s = M_t = arithmetic).", a=ax))
            sec.add(S.table("table2", t2, index=True, digits=3, compact=True, sortable=False,
                            caption=f"Table 2 on {name} ({P.shape[0]} systems x {P.shape[1]} "
                                    "topics)."))
            r = t2.iloc[0]
            summary.append(f"Table 2: r(MAP, E_s) = {r['Pearson(MAP,E_s)']:.3f}, r(MAP, A(s)) = "
                           f"{r['Pearson(MAP,A(s))']:.3f}, r(MAP, W_s) = "
                           f"{r['Pearson(MAP,W_s)']:.3f}, r(AAP, W_t) = {r['Pearson(AAP,W_t)']:.3f}"
                           + ("" if bool(r["converged"]) else " (GAWM did not converge)") + ".")

        with S.step("table 3"):
            t3 = an.mean_function_table({name: matrix}, ax)
            sec = S.section("table3", "Table 3: the topic mean M_t",
                            html("With M_s = arithmetic and each topic mean M_t: Pearson's r "
                                 "of MAP with the system weights W_s and of AAP with the topic "
                                 "weights W_t (axioms {a}).", a=ax))
            sec.add(S.table("table3", t3, index=True, digits=3, compact=True, sortable=False,
                            caption="Table 3."))

        with S.step("figure 3 (heat map)"):
            res = {m: gawm(matrix, ax, m, m) for m in p.heatmap_means}
            h = hits(matrix)
            fig, _ = plots.plot_matrix_heatmap(matrix, None, axioms=ax, means=p.heatmap_means,
                                               results=res, hits_result=h)
            sec = S.section("figure3", "Figure 3: the score matrix",
                            "Systems by MAP (best on top), topics by AAP (easiest left); side "
                            "bars: MAP, HITS authority, GAWM effectiveness per mean, GAWM "
                            "weights (white = more weight) and the uniform weight of MAP, "
                            "each min-max scaled on its own.")
            sec.add(S.figure("figure3_heatmap", fig, caption="Heat map with side bars.",
                             width=900))
            g = res.get("arithmetic") or next(iter(res.values()))
            ws = pd.DataFrame({"system": runs, "MAP": P.mean(axis=1),
                               "E_s": g.E_s.to_numpy(), "W_s": g.W_s.to_numpy(),
                               "A(s)": h.authority_s.to_numpy()})
            ws = ws.sort_values("MAP", ascending=False, kind="stable")
            wt = pd.DataFrame({"topic": topics, "AAP": P.mean(axis=0),
                               "E_t": g.E_t.to_numpy(), "W_t": g.W_t.to_numpy(),
                               "A(t)": h.authority_t.to_numpy()})
            wt = wt.sort_values("AAP", ascending=False, kind="stable")
            sec.add(Row([S.table("weights_systems", ws, digits=4, compact=True, max_rows=15,
                                 caption="Systems: MAP, GAWM (arithmetic) E_s and W_s, HITS "
                                         "A(s)."),
                         S.table("weights_topics", wt, digits=4, compact=True, max_rows=15,
                                 caption="Topics: AAP, E_t, W_t, A(t).")]))

        with S.step("figure 4 (ranking grid)"):
            results = an.grid_results(matrix, ax)
            scores = an.grid_scores(matrix, ax, results=results)
            grid = an.ranking_grid(matrix, ax, results=results)
            fig, _ = plots.plot_ranking_grid(matrix, None, axioms=ax, scores=scores)
            sec = S.section("figure4", "Figure 4: rankings under the 5 x 5 means",
                            "The systems ranked by E_s for every pair (M_s, M_t) of means "
                            "(S1..S5 / T1..T5 = min, harmonic, geometric, arithmetic, max), "
                            "with the MAP leader traced.")
            sec.add(S.figure("figure4_grid", fig, caption="Ranking grid.", width=900))
            sec.add(S.table("figure4", grid, index=True, digits=3, compact=True,
                            caption="Per (M_s, M_t): leader, rank of MAP's leader and last "
                                    "system, Kendall's τ with MAP."))
            S.writer.write_tsv("figure4_scores", scores, index=True)
            S.tables["figure4_scores"] = scores
            moved = grid[grid["map_leader_rank"] > 1]
            summary.append(f"Figure 4: MAP's leader keeps rank 1 in {25 - len(moved)} of 25 "
                           f"(M_s, M_t) pairs; τ with MAP from {grid['kendall_tau'].min():.3f} "
                           f"to {grid['kendall_tau'].iloc[1:].max():.3f}.")

        with S.step("figure 5 (confidence)"):
            conf = an.winner_confidence(matrix, ax)
            fig, _ = plots.plot_confidence(conf, None)
            sec = S.section("figure5", "Figure 5: confidence in the winner",
                            "Each system as a Gaussian (its aggregate, and the weighted "
                            "variance of its scores); P(best > median) and P(best > worst) "
                            "under MAP and GAWM with each system mean M_s (M_t arithmetic).")
            sec.add(Row([S.figure("figure5_confidence", fig, caption="Confidence.", width=480),
                         S.table("figure5", conf, index=True, digits=3, compact=True,
                                 caption="Confidence per aggregator.")]))

        with S.step("figure 6 (leave one topic out)"):
            loto = an.leave_one_topic_out(matrix, p.loto_axioms)
            fig, _ = plots.plot_leave_one_topic_out(loto, None)
            sec = S.section("figure6", "Figure 6: leave-one-topic-out predictivity",
                            html("For each topic, Kendall's τ between the aggregate over the "
                                 "other topics and the held-out topic's scores; mean over "
                                 "topics (axioms {a}, M_t arithmetic).", a=p.loto_axioms))
            sec.add(Row([S.figure("figure6_loto", fig, caption="Mean τ per aggregator.",
                                  width=480),
                         S.table("figure6", loto, index=True, digits=4, compact=True,
                                 caption="Leave-one-topic-out τ.")]))
            summary.append(_loto_summary(loto["mean_tau"]))

    for key, t in (("table2", t2), ("table3", t3), ("figure4", grid), ("figure5", conf),
                   ("figure6", loto)):
        S.tables[key] = t
    inputs = list(inputs or []) + [("systems", f"{P.shape[0]}"), ("topics", f"{P.shape[1]}"),
                                   ("cells", f"{P.size:,}"),
                                   ("score range", f"{np.nanmin(P):.4f} to {np.nanmax(P):.4f}")]
    return S.finish(inputs=inputs, params=p, command=command,
                    subtitle=f"{name}: {P.shape[0]} systems x {P.shape[1]} topics",
                    summary=summary, notes=notes)


def _loto_summary(mean_tau: pd.Series) -> str:
    """The Figure 6 line of the summary. τ is undefined (NaN) when every held-out topic
    ties all systems (identical systems, constant matrix): then say so."""
    if not mean_tau.notna().any():
        return ("Figure 6: leave-one-topic-out τ is undefined for every aggregator (each "
                "held-out topic ties all systems, e.g. identical or constant scores).")
    best = mean_tau.idxmax()
    return (f"Figure 6: best predictor of a held-out topic: {best} "
            f"(mean τ {mean_tau[best]:.4f}; MAP {mean_tau.iloc[0]:.4f}).")
