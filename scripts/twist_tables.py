"""Real-data tables and figures of docs/twist.md (Twist on TREC DL 2021 and CLEF eHealth 2016).

Usage (from the repository root; needs ../shared/data):

    python scripts/twist_tables.py [--img docs/img/twist] > /tmp/twist_tables.md

Prints Markdown: timings of Twist, the archetype table (paper's Table 2) under both
crossing rules, the effort/gain summaries and 4x4 grids for AP, bpref, RBP(p=0.8) and
nDCG; writes the effort/gain scatters and CRP/DCG panels as PNG under --img.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import pandas as pd

import irmeta
from irmeta import effort
from irmeta.cli.twist import markdown

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
CAMPAIGNS = {
    "DL21": (DATA / "trec-dl-2021-passage" / "qrels" / "qrels.dl21-passage.txt",
             sorted((DATA / "trec-dl-2021-passage" / "runs").glob("*.gz")),
             "TREC DL 2021 passage (63 runs, depth 100 padded to 1000)"),
    "eHealth": (DATA / "clef-ehealth-2016-irtask2" / "qrels" / "task2.qrels",
                sorted((DATA / "clef-ehealth-2016-irtask2" / "runs").glob("*.gz")),
                "CLEF eHealth 2016 IRTask2 (16 runs, depth 1000)"),
}


def shrink(path: Path, width: int = 1100) -> None:
    """Keep the docs' PNGs small: at most ``width`` pixels wide, 256-colour palette."""
    from PIL import Image
    with Image.open(path) as im:
        im = im.convert("RGB")
        if im.width > width:
            im = im.resize((width, round(im.height * width / im.width)), Image.LANCZOS)
        im.quantize(256, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--img", default=str(ROOT / "docs" / "img" / "twist"))
    parser.add_argument("--depth", type=int, default=1000)
    args = parser.parse_args()
    img = Path(args.img)
    from irmeta.plot.effort import plot_crp_dcg_panels, plot_effort_gain

    arche = {"matters": {}, "formal": {}}
    summaries, cells = {}, {}
    print("### Timing (one run of this script)\n")
    rows = []
    for name, (qrels, runs, title) in CAMPAIGNS.items():
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            campaign = irmeta.load_campaign(qrels, runs, warn_dropped=False)
        t1 = time.perf_counter()
        res = irmeta.evaluate(campaign, measures=["Twist", "Twist.rho", "Twist.sigma"])
        t2 = time.perf_counter()
        rb = campaign.num_rel(1)
        rows.append({"campaign": name,
                     "runs x topics x depth": "x".join(map(str, campaign.grades.shape)),
                     "topics with RB>0": int((rb > 0).sum()), "max RB": int(rb.max()),
                     "load s": round(t1 - t0, 2), "Twist+rho+sigma s": round(t2 - t1, 3),
                     "mean Twist": round(float(res.means[:, 0].mean()), 4),
                     "mean rho": round(float(res.means[:, 1].mean()), 4),
                     "mean sigma": round(float(res.means[:, 2].mean()), 4)})
        for rule in arche:
            arche[rule][name] = effort.archetypes(campaign, args.depth, rule)
        if campaign.depth < args.depth:      # also at the runs' own depth
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for rule in arche:
                    arche[rule][f"{name}@{campaign.depth} (RB<={campaign.depth} only)"] = \
                        effort.archetypes(campaign, campaign.depth, rule)
        summary, grids = effort.effort_gain_summary(campaign, depth=args.depth)
        summaries[name] = summary
        cells[name] = grids
        pairs = effort.most_telling(grids["nDCG"], k=2)
        written = plot_effort_gain(grids, img / f"{name.lower()}_effort_gain", title=title,
                                   highlight=list(zip(pairs["run"], pairs["topic"])),
                                   formats=("png",))[1]
        panels = effort.crp_dcg_panels(campaign, list(zip(pairs["run"], pairs["topic"])),
                                       depth=args.depth)
        written += plot_crp_dcg_panels(panels, img / f"{name.lower()}_crp_dcg",
                                       full_scale=True, formats=("png",),
                                       title=f"{title}: CRP next to DCG (top nDCG quartile)")[1]
        for path in written:
            shrink(path)
        cells[name + "_pairs"] = pairs
    print(markdown(pd.DataFrame(rows).set_index("campaign"), 3))

    for rule in ("matters", "formal"):
        print(f"### Archetypes, crossing={rule} (percent of run x topic curves)\n")
        table = effort.archetype_table(arche[rule])
        if rule == "matters":
            table = pd.concat([table, effort.PAPER_TABLE2.rename(index=lambda s: s + " (paper)")])
        table["total"] = table["total"].astype(int)
        print(markdown(table, 2))

    print("### Effort/gain summaries (percent of run x topic points)\n")
    frames = []
    for name, summary in summaries.items():
        frames.append(summary[["points", "diagonal %", "high_high %", "top_row_low_effort %",
                               "q1", "q2", "q3"]].assign(campaign=name)
                      .reset_index().set_index(["campaign", "gain"]))
    print(markdown(pd.concat(frames), 3))
    print("Paper (TREC 10/14/20/21, from its text):\n")
    print(markdown(effort.PAPER_SHARES.set_index(["gain", "collection"]), 1))

    for name in summaries:
        print(f"### {name}: 4x4 shares (percent; rows: gain quartile from the top, "
              "columns: Twist from huge to low effort)\n")
        for gain, eg in cells[name].items():
            print(f"**{gain}** (quartiles {', '.join(f'{q:.4f}' for q in eg.quartiles)})\n")
            print(markdown(eg.table(), 1))
        pairs = cells[name + "_pairs"]
        print(f"CRP/DCG pairs drawn for {name}:\n")
        print(markdown(pairs[["run", "topic", "twist", "gain", "kind"]], 3, index=False))


if __name__ == "__main__":
    main()
