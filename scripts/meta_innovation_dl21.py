"""Reproduce the innovation paper's meta-evaluation (Figure 2, Tables 1-3) on TREC DL 2021
passage (63 runs, 53 topics; relevance >= 1; rarity and measures at depth 100), and print
Markdown tables for docs/meta-evaluation.md.

    python scripts/meta_innovation_dl21.py [--data ../shared/data] [--out docs/figures/meta]
                                          [--only fig2,table1,table2,table3] [--trials 1000]

Each part is also one CLI command (see docs/meta-evaluation.md). Seeds are fixed (0).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import pandas as pd

import irmeta
from irmeta.stats import (
    alpha_sweep,
    discriminative_power,
    matrices,
    stability_table,
    system_dependence,
)

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["P@100", "P_rare(alpha=0.5)@100", "P_rare(alpha=1)@100",
            "AP@100", "AP_rare(alpha=0.5)@100", "AP_rare(alpha=1)@100"]


def md(frame: pd.DataFrame, floatfmt: str = "{:.3f}") -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        cells = [floatfmt.format(v) if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "meta"))
    ap.add_argument("--only", default="fig2,table1,table2,table3")
    ap.add_argument("--trials", type=int, default=1000)
    args = ap.parse_args()
    parts = set(args.only.split(","))
    base = Path(args.data) / "trec-dl-2021-passage"
    campaign = irmeta.load_campaign(base / "qrels" / "qrels.dl21-passage.txt",
                                    sorted((base / "runs").glob("*.gz")), warn_dropped=False)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"DL21: {campaign.num_runs} runs, {int(campaign.topic_set(1).sum())} topics "
          f"with a relevant document (grade >= 1)\n")

    if "fig2" in parts:
        t = time.time()
        sweep = alpha_sweep(campaign, alphas=[round(0.1 * i, 1) for i in range(11)],
                            methods=("kendall", "tau_ap"))
        from irmeta.plot.meta import alpha_sweep_plot
        alpha_sweep_plot(sweep, path=out / "dl21_fig2_alpha_sweep", title="DL21 passage")
        wide = sweep.pivot_table(index="alpha", columns="baseline", values=["kendall", "tau_ap"])
        wide.columns = [f"{m} {b}" for m, b in wide.columns]
        print("## Figure 2 (tau vs alpha)\n")
        print(md(wide.reset_index()))
        print(f"\n({time.time() - t:.1f} s)\n")

    mats = None
    if parts & {"table1", "table2"}:
        mats = matrices(campaign, MEASURES)

    if "table1" in parts:
        t = time.time()
        dp = discriminative_power(mats, tests=("pairwise_tukey", "tukey_hsd"),
                                  levels=(0.05, 0.01))
        wide = dp.pivot_table(index="measure", columns=["test", "level"], values="significant",
                              sort=False)
        wide = wide.reindex(MEASURES)
        wide.columns = [f"{t} {int(round(100 * (1 - lv)))}%" for t, lv in wide.columns]
        print(f"## Table 1 (significant pairs of {dp['pairs'].iloc[0]})\n")
        print(md(wide.reset_index().astype({c: int for c in wide.columns}), "{}"))
        print(f"\n({time.time() - t:.1f} s)\n")

    if "table2" in parts:
        t = time.time()
        st = stability_table(mats, trials=args.trials, fuzziness=0.05, seed=0)
        from irmeta.plot.meta import stability_table_plot
        stability_table_plot(st, path=out / "dl21_table2_stability", title="DL21 stability")
        print("## Table 2 (stability, fuzziness 0.05, round(T/2) topics, "
              f"{args.trials} trials; Buckley-Voorhees with relative fuzziness)\n")
        print(md(st))
        print(f"\n({time.time() - t:.1f} s)\n")

    if "table3" in parts:
        t = time.time()
        sd = system_dependence(campaign, ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100"],
                               sizes=(2, 4, 8, 16, 32, 64), trials=args.trials, seed=0)
        from irmeta.plot.meta import systems_plot
        systems_plot(sd, path=out / "dl21_table3_systems", title="DL21: number of systems")
        wide = sd.pivot_table(index="measure", columns="n_systems", values="tau", sort=False)
        wide.columns = [f"N={c}" for c in wide.columns]
        print(f"## Table 3 (mean tau over {args.trials} samples; N=64 > 63 runs is skipped)\n")
        print(md(wide.reset_index()))
        print("\nundefined (tied) samples: " +
              ", ".join(f"{r.measure} N={r.n_systems}: {r.undefined}"
                        for r in sd.itertuples() if r.undefined))
        print(f"\n({time.time() - t:.1f} s)\n")


if __name__ == "__main__":
    os.environ.setdefault("IRMETA_NO_PROGRESS", "1")
    main()
