#!/usr/bin/env python3
"""Benchmark of ``irmeta check`` against ``irmeta eval -m P@10`` on the same run (issue 33).

Both commands run as subprocesses, interleaved (eval then check, ``--repeat`` rounds):
wall clock and CPU time (user + system, from ``os.wait4``) from process start to exit,
each round's ratio, the best of each command and the median ratio, with the load average
before and after. The number to read is the ratio check / eval (the machine is shared;
absolute seconds move from minute to minute). The run is the MS MARCO-sized one of::

    python ../shared/tools/make_campaign.py --preset msmarco-like --out /work/bench-data

Usage::

    python benchmarks/bench_check.py --data /work/bench-data/msmarco-like [--repeat 5]

Nothing here is imported by irmeta or its tests; numbers go to RESULTS-check.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
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
    parser.add_argument("--repeat", type=int, default=5)
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
    load_before = os.getloadavg()
    rounds: list[dict[str, tuple[float, float]]] = []
    for _ in range(args.repeat):
        rounds.append({name: timed(argv) for name, argv in commands.items()})
    load_after = os.getloadavg()
    eval_name, check_name = "eval -m P@10", "check --qrels --depth 1000"
    print(f"{Path(run).name}, {args.repeat} rounds (eval then check in each); load average "
          f"{load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print("\n| round | eval wall s | eval CPU s | check wall s | check CPU s | ratio wall "
          "| ratio CPU |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k, r in enumerate(rounds, 1):
        (ew, ec), (cw, cc) = r[eval_name], r[check_name]
        print(f"| {k} | {ew:.2f} | {ec:.2f} | {cw:.2f} | {cc:.2f} | {cw / ew:.2f} "
              f"| {cc / ec:.2f} |")
    best = {name: (min(r[name][0] for r in rounds), min(r[name][1] for r in rounds))
            for name in commands}
    print(f"\n| command | wall s | CPU s |  (best of {args.repeat})")
    print("|---|---:|---:|")
    for name, (wall, cpu) in best.items():
        print(f"| irmeta {name} | {wall:.2f} | {cpu:.2f} |")
    (ew, ec), (cw, cc) = best[eval_name], best[check_name]
    ratios_wall = sorted(r[check_name][0] / r[eval_name][0] for r in rounds)
    ratios_cpu = sorted(r[check_name][1] / r[eval_name][1] for r in rounds)
    print(f"\nratio check / eval, best against best: wall {cw / ew:.2f}, CPU {cc / ec:.2f}; "
          f"median of the rounds: wall {statistics.median(ratios_wall):.2f}, "
          f"CPU {statistics.median(ratios_cpu):.2f}")

if __name__ == "__main__":
    main()
