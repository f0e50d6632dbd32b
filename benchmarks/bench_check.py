#!/usr/bin/env python3
"""Benchmark of ``irmeta check`` against ``irmeta eval -m P@10`` on the same run (issue 33).

Both commands run as subprocesses, alternating, best of ``--repeat``: wall clock and CPU
time (user + system, from ``os.wait4``) from process start to exit. The number to read
is the ratio check / eval of the same round (the machine is shared; absolute seconds
move from minute to minute). The run is the MS MARCO-sized one of::

    python ../shared/tools/make_campaign.py --preset msmarco-like --out /work/bench-data

Usage::

    python benchmarks/bench_check.py --data /work/bench-data/msmarco-like [--repeat 3]

Nothing here is imported by irmeta or its tests; numbers go to RESULTS-check.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import time
from pathlib import Path


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of ``argv`` (its output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3):   # 3: the run has errors (still a full check)
        raise SystemExit(f"{' '.join(argv)}: exit {code}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="folder with qrels.txt and runs/")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data = Path(args.data)
    run = str(next((data / "runs").iterdir()))
    qrels = str(data / "qrels.txt")
    irmeta = shutil.which("irmeta") or "irmeta"
    commands = {
        "eval -m P@10": [irmeta, "eval", "-m", "P@10", qrels, run],
        "check --qrels --depth 1000": [irmeta, "check", run, "--qrels", qrels,
                                       "--depth", "1000"],
    }
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):
        for name, argv in commands.items():
            wall, cpu = timed(argv)
            old = best.get(name, (float("inf"), float("inf")))
            best[name] = (min(old[0], wall), min(old[1], cpu))
    print(f"| command | wall s | CPU s |  ({Path(run).name}, best of {args.repeat})")
    print("|---|---:|---:|")
    for name, (wall, cpu) in best.items():
        print(f"| irmeta {name} | {wall:.2f} | {cpu:.2f} |")
    (ew, ec), (cw, cc) = best["eval -m P@10"], best["check --qrels --depth 1000"]
    print(f"\nratio check / eval: wall {cw / ew:.2f}, CPU {cc / ec:.2f}")


if __name__ == "__main__":
    main()
