#!/usr/bin/env python3
"""Why ranx's means differ from irmeta / trec_eval on DL21: tie-breaking, or more?

ranx orders a topic's documents with an unstable ``argsort`` of the scores, so equal
scores come out in an arbitrary order; trec_eval (and irmeta) order ties by docid,
descending. This script evaluates every DL21 run with ranx twice: on the original
scores, and on scores replaced by a strictly decreasing sequence in trec_eval's order
(so there are no ties left and the ranking is trec_eval's). If the second agrees with
irmeta to rounding, ties explain the whole difference.

Usage: python benchmarks/check_ranx_ties.py [--dl21 ../shared/data/trec-dl-2021-passage]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

MEASURES = ["AP@100", "P@100", "nDCG@10"]
RANX = ["map@100", "precision@100", "ndcg@10"]


def read_run(path: Path) -> pd.DataFrame:
    df = pd.read_csv(path, sep=r"\s+", header=None, dtype=str,
                     names=["q_id", "q0", "doc_id", "rank", "score", "tag"])
    df["score"] = df["score"].astype("float64")
    for col in ("q_id", "doc_id"):  # ranx wants object columns (pandas 3 defaults to str)
        df[col] = df[col].astype(object)
    return df


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--dl21", default=str(Path(__file__).resolve().parents[2]
                                         / "shared/data/trec-dl-2021-passage"))
    a = p.parse_args()
    from ranx import Qrels, Run, evaluate

    import irmeta

    base = Path(a.dl21)
    qrels_path = base / "qrels" / "qrels.dl21-passage.txt"
    paths = sorted((base / "runs").iterdir())
    import warnings
    warnings.simplefilter("ignore", UserWarning)  # DL21 runs hold many unjudged topics
    ref = irmeta.evaluate(str(qrels_path), [str(p) for p in paths], MEASURES).aggregate()
    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    rows = []
    for path, run_name in zip(paths, ref.index):
        df = read_run(path)
        ties = bool(df.duplicated(["q_id", "score"]).any())
        # trec_eval order: score desc, docid desc -> strictly decreasing surrogate scores
        df = df.sort_values(["q_id", "score", "doc_id"], ascending=[True, False, False])
        tied = Run.from_df(df, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        df["score"] = -np.arange(len(df), dtype=np.float64)
        untied = Run.from_df(df, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
        for variant, run in (("original", tied), ("ties broken as trec_eval", untied)):
            res = evaluate(qrels, run, RANX, make_comparable=True)
            for m, x in zip(MEASURES, RANX):
                rows.append((run_name, ties, variant, m, abs(res[x] - ref.loc[run_name, m])))
    out = pd.DataFrame(rows, columns=["run", "has_ties", "variant", "measure", "diff"])
    summary = out.groupby(["variant", "has_ties", "measure"])["diff"].agg(
        max_abs="max", runs_over_5e_5=lambda d: int((d > 5e-5).sum()), runs="count")
    print(summary.to_string())


if __name__ == "__main__":
    main()
