"""Tables 2 and 3 of the GAWM paper (and the Figure 4-6 summaries) on every real score
matrix we hold, beside the paper's own values; Markdown on standard output.

    python scripts/gawm_tables.py [--data ../shared/data] [--figures DIR]

Matrices: TREC DL 2019/2020/2021 passage nDCG@10 (trec_eval files, long layout) and
TREC 2010 Web ad hoc AP and P@20 (88 systems x 48 topics, wide layout). Used to write
the tables of docs/gawm.md.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

from irmeta.aggregate.analyses import (
    correlation_table,
    grid_results,
    leave_one_topic_out,
    mean_function_table,
    ranking_grid,
    winner_confidence,
)
from irmeta.io.matrix import read_matrix

ROOT = Path(__file__).resolve().parents[1]

PAPER_TABLE2 = pd.DataFrame(
    [[0.988, 0.958, 0.999, 0.999, 0.029, 0.781], [0.998, 0.995, 1, 0.999, 0.048, 0.815],
     [0.996, 0.996, 1, 0.999, 0.750, 0.890], [0.984, 0.972, 1, 0.996, 0.116, 0.897],
     [0.999, 0.997, 1, 0.998, -0.223, 0.933], [0.999, 0.999, 1, 0.999, 0.565, 0.768],
     [0.998, 0.991, 1, 0.998, 0.579, 0.758]],
    index=pd.Index(["ta6", "ta7", "ta8", "ta9", "tb4", "tb5", "tb6"], name="collection"),
    columns=["Pearson(MAP,E_s)", "Pearson(MAP,A(s))", "Pearson(AAP,E_t)", "Pearson(AAP,A(t))",
             "Pearson(MAP,W_s)", "Pearson(AAP,W_t)"])
PAPER_TABLE3 = pd.DataFrame(
    [[-0.995, 0.992], [-0.982, 0.838], [-0.346, 0.705], [0.579, 0.758], [0.997, 0.096]],
    index=pd.MultiIndex.from_product([["tb6 (paper)"], ["min", "harmonic", "geometric",
                                                        "arithmetic", "max"]],
                                     names=["collection", "M_t"]),
    columns=["Pearson(MAP,W_s)", "Pearson(AAP,W_t)"])


def matrices(data: Path) -> dict[str, pd.DataFrame]:
    dl = data / "trec-dl-2021-passage" / "score-matrices"
    web = data / "trec-2010-web-adhoc-score-matrices"
    return {"DL19 nDCG@10": read_matrix(dl / "dl19.ndcg_cut10.csv"),
            "DL20 nDCG@10": read_matrix(dl / "dl20.ndcg_cut10.csv"),
            "DL21 nDCG@10": read_matrix(dl / "dl21.ndcg_cut10.csv"),
            "Web10 AP": read_matrix(web / "web2010ap.csv"),
            "Web10 P@20": read_matrix(web / "web2010p20.csv")}


def markdown(frame: pd.DataFrame, digits: int = 3) -> str:
    cols = [" / ".join(frame.index.names) if frame.index.nlevels > 1 else (frame.index.name or "")]
    cols += [str(c) for c in frame.columns]

    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    lines = ["| " + " | ".join(cols) + " |", "|---|" + "---:|" * (len(cols) - 1)]
    for key, *values in frame.itertuples(index=True, name=None):
        key = " / ".join(map(str, key)) if isinstance(key, tuple) else str(key)
        lines.append("| " + " | ".join([key] + [cell(v) for v in values]) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--figures", type=Path, default=None,
                        help="also draw Figures 3-6 for Web10 AP and DL21 into this folder")
    args = parser.parse_args()
    ms = matrices(args.data)

    print("### Table 2 (axioms A, M_s = M_t = arithmetic)\n")
    t2 = correlation_table(ms, "A")
    print(markdown(t2.drop(columns=["iterations", "converged"])))
    print("Paper (TREC 6-9 ad hoc, Terabyte 2004-2006, AP):\n")
    print(markdown(PAPER_TABLE2))
    print(f"All converged: {bool(t2['converged'].all())} "
          f"(iterations {t2['iterations'].min()}-{t2['iterations'].max()}, tol 1e-9).\n")

    print("### Table 2 with axioms B (for comparison; the paper reports A only)\n")
    t2b = correlation_table(ms, "B")
    print(markdown(t2b[["Pearson(MAP,E_s)", "Pearson(AAP,E_t)", "Pearson(MAP,W_s)",
                        "Pearson(AAP,W_t)", "iterations"]]))

    print("### Table 3 (axioms A, M_s = arithmetic, each M_t)\n")
    t3 = mean_function_table(ms, "A")
    wide = t3[["Pearson(MAP,W_s)", "Pearson(AAP,W_t)"]].unstack("collection")
    wide = wide.reindex(["min", "harmonic", "geometric", "arithmetic", "max"])
    wide.columns = [f"{c} {m.split(',')[1].rstrip(')')}" for m, c in wide.columns]
    wide = wide[[f"{c} {w}" for c in ms for w in ("W_s", "W_t")]]
    wide.index.name = "M_t"
    print(markdown(wide))
    paper = PAPER_TABLE3.droplevel(0)
    paper.columns = ["tb6 (paper) W_s", "tb6 (paper) W_t"]
    print(markdown(paper))
    print(f"All converged: {bool(t3['converged'].all())}.\n")

    print("### Table 3 with floor = 1e-5 in the harmonic/geometric means (GMAP's convention)\n")
    t3f = mean_function_table({k: ms[k] for k in ("Web10 AP", "DL21 nDCG@10")}, "A", floor=1e-5)
    print(markdown(t3f.drop(columns=["iterations", "converged"])))

    print("### Figure 4 summary: rank of the MAP leader under each (M_s, M_t), axioms A\n")
    rows = {}
    for name, m in ms.items():
        grid = ranking_grid(m, "A")
        rows[name] = grid.iloc[1:].set_index("label")["map_leader_rank"]
    ranks = pd.DataFrame(rows).T
    ranks.index.name = "collection"
    print(markdown(ranks, 0))
    print("### Figure 5: confidence in the winner (axioms A, M_t = arithmetic)\n")
    conf = {name: winner_confidence(m, "A") for name, m in ms.items()}
    table = pd.DataFrame({f"{name} {col.split('>')[1].rstrip(')')}": t[col]
                          for name, t in conf.items()
                          for col in ("P(best>median)", "P(best>worst)")})
    table.index.name = "aggregator"
    print(markdown(table))
    print("### Figure 6: leave-one-topic-out mean Kendall tau (axioms B, M_t = arithmetic)\n")
    loto = pd.DataFrame({name: leave_one_topic_out(m, "B")["mean_tau"] for name, m in ms.items()})
    loto["mean"] = loto.mean(axis=1)
    loto.index.name = "aggregator"
    print(markdown(loto))

    print("### Speed\n")
    rng = np.random.default_rng(0)
    P = pd.DataFrame(rng.random((100, 50)))
    for axioms in ("A", "B"):
        best = math.inf
        for _ in range(5):
            t0 = time.perf_counter()
            grid_results(P, axioms)
            best = min(best, time.perf_counter() - t0)
        print(f"- 5 x 5 grid (25 GAWM runs to tol 1e-9), 100 x 50 uniform random matrix, "
              f"axioms {axioms}: {1000 * best:.1f} ms (best of 5)")
    print()
    if args.figures:
        from irmeta.plot import gawm as plots
        for name, key in (("Web10 AP", "web10ap"), ("DL21 nDCG@10", "dl21")):
            m = ms[name]
            plots.plot_matrix_heatmap(m, args.figures / f"gawm_heatmap_{key}", title=name)
            plots.plot_ranking_grid(m, args.figures / f"gawm_grid_{key}", title=name)
            plots.plot_confidence(conf[name], args.figures / f"gawm_confidence_{key}", title=name)


if __name__ == "__main__":
    main()
