#!/usr/bin/env python
"""Derive a `run group` file for the TREC DL 2021 passage runs from their names.

TREC does not ship the run -> team table with the runs we have, so the group of a run is
its team prefix: the longest known prefix below that the run name starts with, else the
leading letters of the name (up to the first '_', '-' or digit). A baseline prefix
``bl_`` is stripped first (``bl_bcai_p_trad`` belongs to ``bcai``).

Usage:
    python scripts/dl21_groups.py RUNS_DIR OUT_FILE
    python scripts/dl21_groups.py ../shared/data/trec-dl-2021-passage/runs /tmp/dl21.groups

Run names are read from the file names (``input.<RUN>.txt.gz``, the run tag, checked
equal for the 63 DL21 runs). The output is never written inside the package.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: team prefixes of DL21 passage run names (longest match wins)
PREFIXES = {
    "Fast_Forward": "Fast_Forward", "NLE": "NLE", "TUW": "TUW", "WLU": "WLU",
    "bcai": "bcai", "ielab": "ielab", "ihsm": "ihsm", "mono": "mono", "pash": "pash",
    "pass_": "pass", "paug": "paug", "p_": "p", "top1000": "top1000", "uogTr": "uogTr",
    "wat": "wat", "yorku": "yorku",
}


def run_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".txt"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name[len("input."):] if name.startswith("input.") else name


def group_of(run: str) -> str:
    """Team prefix of a DL21 run name (see module doc)."""
    name = run[3:] if run.startswith("bl_") else run
    best = max((p for p in PREFIXES if name.startswith(p)), key=len, default=None)
    if best is not None:
        return PREFIXES[best]
    match = re.match(r"[A-Za-z]+", name)
    return match.group(0) if match else name


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    runs_dir, out = Path(argv[0]), Path(argv[1])
    package = Path(__file__).resolve().parents[1] / "src"
    if package in out.resolve().parents:
        print(f"refusing to write into the package: {out}", file=sys.stderr)
        return 2
    runs = sorted(run_name(p) for p in runs_dir.iterdir() if p.name.startswith("input."))
    if not runs:
        print(f"no run files (input.*) in {runs_dir}", file=sys.stderr)
        return 2
    lines = [f"{run} {group_of(run)}\n" for run in runs]
    out.write_text("".join(lines), encoding="utf-8")
    groups = sorted({group_of(r) for r in runs})
    print(f"{len(runs)} runs in {len(groups)} groups -> {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
