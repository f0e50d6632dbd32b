#!/usr/bin/env python3
"""Benchmark of ``irmeta meta topic-set-size`` against ``irmeta eval`` of the same measure
on TREC DL 2021 (issue 46: "one evaluation plus the search over n").

Both commands run as subprocesses, alternating, ``--repeat`` rounds: wall clock and CPU
time (user + system, ``os.wait4``) from process start to exit; the ratio of the medians
is the number to read (the machine is shared). The data is read in place from
``../shared/data/trec-dl-2021-passage``.

Usage::

    python benchmarks/bench_topic_set_size.py [--repeat 5]

Nothing here is imported by irmeta or its tests; numbers go to RESULTS-stats.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DL21 = ROOT.parent / "shared" / "data" / "trec-dl-2021-passage"


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall, cpu) seconds of one run of ``argv`` (its output discarded)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)}: exit {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--measure", default="nDCG@10")
    args = ap.parse_args()
    files = [str(DL21 / "qrels" / "qrels.dl21-passage.txt"),
             *map(str, sorted((DL21 / "runs").glob("*.gz")))]
    irmeta = [sys.executable, "-m", "irmeta"]
    commands = {
        "eval": [*irmeta, "eval", "-l", "2", *files, "-m", args.measure],
        "topic-set-size": [*irmeta, "meta", "topic-set-size", "-l", "2", *files, "-m",
                           args.measure, "--min-diff", "0.05", "--min-diff", "0.1",
                           "--method", "ttest", "--method", "anova"],
    }
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in commands}
    for _ in range(args.repeat):
        for name, argv in commands.items():
            times[name].append(timed(argv))
    print(f"load average {os.getloadavg()[0]:.2f}, {args.repeat} rounds, {args.measure}")
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for k, v in times.items()}
    for name, (wall, cpu) in med.items():
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    print(f"ratio topic-set-size / eval: wall {med['topic-set-size'][0] / med['eval'][0]:.2f}, "
          f"CPU {med['topic-set-size'][1] / med['eval'][1]:.2f}")


if __name__ == "__main__":
    main()
