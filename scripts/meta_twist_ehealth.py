"""The Twist paper's meta-evaluation (Tables 3-4, Figures 13-14) on CLEF eHealth 2016
IRTask2 (16 runs, depth 1000, graded qrels 0-2), restricted like the paper to the top
75% of runs by MAP; binary measures use the lenient mapping (grade >= 1).

    python scripts/meta_twist_ehealth.py [--data ../shared/data] [--out docs/figures/meta]
        [--campaign ehealth|dl21]

Prints Markdown tables for docs/meta-evaluation.md and writes the figures.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import irmeta
from irmeta.stats import (
    bootstrap_power,
    correlation_matrix,
    filter_top_runs,
    matrices,
    pool_downsampling,
    system_means,
)

ROOT = Path(__file__).resolve().parents[1]
MEASURES = ["AP", "bpref", "RBP(p=0.8)", "nDCG", "Twist@1000"]


def md(frame, floatfmt="{:.4f}") -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(floatfmt.format(v) if isinstance(v, float) else str(v)
                                       for v in row) + " |")
    return "\n".join(lines)


def load(data: Path, which: str):
    if which == "ehealth":
        base = data / "clef-ehealth-2016-irtask2"
        return irmeta.load_campaign(base / "qrels" / "task2.qrels",
                                    sorted((base / "runs").glob("*.gz")))
    base = data / "trec-dl-2021-passage"
    return irmeta.load_campaign(base / "qrels" / "qrels.dl21-passage.txt",
                                sorted((base / "runs").glob("*.gz")), warn_dropped=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "figures" / "meta"))
    ap.add_argument("--campaign", choices=["ehealth", "dl21"], default="ehealth")
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=10,
                    help="independent downsamplings averaged (12 runs: one draw is noisy)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    full = load(Path(args.data), args.campaign)
    campaign = filter_top_runs(full, 0.75, by="AP")
    tag = args.campaign
    print(f"{tag}: top {campaign.num_runs} of {full.num_runs} runs by MAP; "
          f"{int(campaign.topic_set(1).sum())} topics\n")

    t = time.time()
    means = system_means(campaign, MEASURES)
    tau = correlation_matrix(means)
    print("## Tables 3-4: Kendall's tau between system rankings\n")
    print(md(tau.reset_index()))
    print(f"\n({time.time() - t:.1f} s)\n")

    t = time.time()
    down = pool_downsampling(campaign, MEASURES, levels=(90, 70, 50, 30, 10), seed=0,
                             repeats=args.repeats)
    from irmeta.plot.meta import asl_plot, downsampling_plot
    downsampling_plot(down, path=out / f"{tag}_fig13_downsampling",
                      title=f"{tag}: pool downsampling (top 75% runs)")
    wide = down.pivot_table(index="measure", columns="level", values="tau", sort=False)
    wide = wide[sorted(wide.columns, reverse=True)]
    wide.columns = [f"{c:g}%" for c in wide.columns]
    print(f"## Figure 13: Kendall's tau, full vs downsampled pool (mean of {args.repeats} "
          "samplings, seed 0)\n")
    print(md(wide.reset_index()))
    sd = down.pivot_table(index="measure", columns="level", values="tau_std", sort=False)
    print("\nlargest standard deviation over samplings: " +
          ", ".join(f"{m}: {v:.3f}" for m, v in sd.max(axis=1).items()))
    judged = down.drop_duplicates("level").set_index("level")["judged"]
    print("\nshare of qrels kept: " + ", ".join(f"{k:g}%: {v:.3f}" for k, v in judged.items()))
    print(f"\n({time.time() - t:.1f} s)\n")

    t = time.time()
    mats = matrices(campaign, MEASURES)
    summary, curves = bootstrap_power(mats, level=0.05, trials=args.trials, seed=0)
    asl_plot(curves, level=0.05, summary=summary, path=out / f"{tag}_fig14_asl",
             title=f"{tag}: paired bootstrap, B={args.trials}")
    print(f"## Figure 14: paired bootstrap (B = {args.trials}, level 0.05)\n")
    print(md(summary))
    print(f"\n({time.time() - t:.1f} s)\n")


if __name__ == "__main__":
    os.environ.setdefault("IRMETA_NO_PROGRESS", "1")
    main()
