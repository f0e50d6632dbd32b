#!/usr/bin/env python3
"""Benchmark of the README's first command, ``irmeta report --demo``, as a user runs it.

The command runs as a subprocess from an installed irmeta (a fresh ``pip install .``
into a virtual environment: compiled bytecode, no editable-install finder), ``--repeat``
times, timed from process start to exit: wall clock, and CPU time of the process and
all its children (user + system, ``os.wait4``; the report draws figures and runs its
significance tests in forked children).

Shared virtual machines change speed from minute to minute, so two things make the
numbers comparable:

* ``--baseline BIN``: another ``irmeta`` executable (e.g. the previous release in its
  own virtual environment) run alternately with the one under test, so both see the
  same machine; the ratio of medians is the result to trust;
* a calibration loop (20 million ``s += i`` in pure Python, the interpreter speed that
  dominates matplotlib's drawing) is timed between rounds and printed with the results:
  a laptop core of 2024 runs it in about 1 s.

Usage::

    python benchmarks/bench_demo.py --irmeta /tmp/new/bin/irmeta \\
        [--baseline /tmp/old/bin/irmeta] [--repeat 7]

Nothing here is imported by irmeta or its tests; numbers go to RESULTS-report.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_ticks, steal_share  # benchmarks/machine.py, beside this script

CALIBRATION = "s = 0\nfor i in range(20_000_000):\n    s += i\n"


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall s, CPU s of the process and its children) of one run of ``cmd``."""
    w0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w0
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{proc.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime


def demo_once(irmeta: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        return timed([irmeta, "report", "--demo", "-o", str(Path(tmp) / "report.html"),
                      "--no-progress"])


def summary(label: str, runs: list[tuple[float, float]]) -> str:
    wall = [w for w, _ in runs]
    cpu = [c for _, c in runs]
    return (f"| {label} | {statistics.median(wall):.2f} | {min(wall):.2f}-{max(wall):.2f} | "
            f"{statistics.median(cpu):.2f} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--irmeta", default=shutil.which("irmeta"), help="irmeta executable under test")
    ap.add_argument("--baseline", default=None, help="another irmeta executable, run alternately")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    if not args.irmeta:
        raise SystemExit("bench_demo: no irmeta executable (use --irmeta)")
    subjects = {"irmeta": args.irmeta}
    if args.baseline:
        subjects = {"baseline": args.baseline, **subjects}
    for exe in subjects.values():                    # first run: font cache, page cache
        demo_once(exe)
    results = {name: [] for name in subjects}
    calibration = []
    ticks = cpu_ticks()
    for _ in range(args.repeat):
        for name, exe in subjects.items():
            results[name].append(demo_once(exe))
        calibration.append(timed([sys.executable, "-c", CALIBRATION])[1])
    print(f"# irmeta report --demo — {platform.node()} · {os.cpu_count()} CPUs · Python "
          f"{platform.python_version()} · {args.repeat} alternating rounds\n")
    print(f"calibration loop: median {statistics.median(calibration):.2f} s CPU "
          f"(range {min(calibration):.2f}-{max(calibration):.2f}); CPU time stolen by the "
          f"host during the rounds: {steal_share(ticks, cpu_ticks())}\n")
    print("| command | median wall s | wall range | median CPU s (with children) |")
    print("|---|---:|---:|---:|")
    for name, runs in results.items():
        print(summary(f"{name} ({subjects[name]})", runs))
    if args.baseline:
        ratio = [n[0] / b[0] for n, b in zip(results["irmeta"], results["baseline"])]
        cpu = [n[1] / b[1] for n, b in zip(results["irmeta"], results["baseline"])]
        print(f"\nirmeta / baseline, median of the rounds: wall {statistics.median(ratio):.3f}, "
              f"CPU {statistics.median(cpu):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
