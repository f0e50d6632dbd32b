#!/usr/bin/env python
"""The DL21 context-measure table of docs/context-measures.md.

Runs exactly the documented command — ``irmeta eval`` over the 63 TREC DL 2021 passage
runs, relevance >= 1, P_rare/AP_rare at alpha 0.5 and 1 and NRG (nDCG base, prior=others
and prior=best_per_group with the groups file of scripts/dl21_groups.py) — with
``--format tsv``, and pivots its output into one Markdown row per run (4 decimals, as
the trec layout prints them), sorted by nDCG@10.

Usage:
    python scripts/dl21_context_table.py ../shared/data/trec-dl-2021-passage GROUPS_FILE
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

MEASURES = ["nDCG@10", "P@100", "P_rare(alpha=0.5)@100", "P_rare(alpha=1)@100", "AP@100",
            "AP_rare(alpha=0.5)@100", "AP_rare(alpha=1)@100", "NRG@10",
            "NRG(prior=best_per_group)@10"]


def command(data: Path, groups: str) -> list[str]:
    args = ["eval", "-l", "1", str(data / "qrels" / "qrels.dl21-passage.txt"),
            *map(str, sorted((data / "runs").glob("*.gz")))]
    for m in MEASURES:
        args += ["-m", m]
    return args + ["--groups", groups, "--format", "tsv"]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    import pandas as pd

    from irmeta.cli.main import main as irmeta_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        status = irmeta_main(command(Path(argv[0]), argv[1]))
    if status:
        return status
    frame = pd.read_csv(io.StringIO(buf.getvalue()), sep="\t", dtype={"topic": str})
    wide = frame[frame["topic"] == "all"].pivot(index="run", columns="measure", values="value")
    wide = wide[list(pd.unique(frame["measure"]))]          # the order of the -m options
    wide = wide.sort_values("nDCG@10", ascending=False)
    header = "| run | " + " | ".join(f"`{c}`" for c in wide.columns) + " |"
    print(header)
    print("| --- " * (len(wide.columns) + 1) + "|")
    for run, row in wide.iterrows():
        print(f"| {run} | " + " | ".join(f"{v:.4f}" for v in row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
