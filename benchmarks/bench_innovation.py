#!/usr/bin/env python3
"""Benchmark of ``irmeta reproduce innovation`` on DL21 against ``irmeta report`` on the
same campaign (issue 27, target 2: the page at most 1.5x the report's wall time).

Whole commands, each in its own process, alternated round by round: ``report`` (the
DL21 report, ``-l 2`` and the team groups of ``scripts/dl21_groups.py``, as
``bench_report.py``'s dl21 scenario), ``innovation`` (``reproduce innovation -l 1``,
the command of docs/reproduce.md) and, with ``--before SRC``, ``innovation`` with the
code of another checkout's ``src`` (e.g. main's) first on ``PYTHONPATH``. Per run: wall
seconds, CPU seconds of the child (user + system, ``os.wait4``), peak RSS, and the
1-minute load average at its start. With ``--before``, every table the two pages write
(TSV, the timing table excepted) is compared byte for byte.

Usage (from the repository root)::

    python benchmarks/bench_innovation.py --shared ../shared/data --rounds 3 \\
        [--before /work/main/src]

Nothing here is imported by irmeta or its tests.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def run(cmd: list[str], src: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONWARNINGS="ignore")
    load = os.getloadavg()[0]
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"failed ({status}): {' '.join(cmd)}\n{err}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss_mb": usage.ru_maxrss / 1024, "load": load}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", type=Path, default=None,
                    help="src folder of the code to compare with (e.g. /work/main/src)")
    args = ap.parse_args()
    dl21 = args.shared / "trec-dl-2021-passage"
    qrels = str(dl21 / "qrels" / "qrels.dl21-passage.txt")
    runs = sorted(str(p) for p in (dl21 / "runs").glob("*.gz"))
    py = sys.executable
    cli = [py, "-m", "irmeta.cli.main"]
    with tempfile.TemporaryDirectory(prefix="bench-innovation-") as tmp:
        out = Path(tmp)
        groups = out / "dl21.groups"
        subprocess.run([py, str(HERE.parent / "scripts" / "dl21_groups.py"),
                        str(dl21 / "runs"), str(groups)], check=True,
                       stdout=subprocess.DEVNULL)
        jobs = {"report": (cli + ["report", "--no-progress", "-l", "2", "--groups", str(groups),
                                  qrels, *runs, "-o", str(out / "report.html")], SRC),
                "innovation": (cli + ["reproduce", "innovation", "--no-progress", "-l", "1",
                                      qrels, *runs, "-o", str(out / "innovation")], SRC)}
        if args.before is not None:
            jobs["innovation (before)"] = (
                cli + ["reproduce", "innovation", "--no-progress", "-l", "1", qrels, *runs,
                       "-o", str(out / "innovation-before")], args.before)
        times: dict[str, list[dict]] = {k: [] for k in jobs}
        for _ in range(args.rounds):
            for name, (cmd, src) in jobs.items():
                times[name].append(run(cmd, src))
        print(f"# reproduce innovation vs report, DL21 — {os.cpu_count()} CPUs, "
              f"{args.rounds} alternating rounds")
        print("\n| command | wall s (each round) | CPU s (each round) | peak RSS MB | load |")
        print("| --- | --- | --- | --- | --- |")
        for name, rs in times.items():
            walls = " / ".join(f"{r['wall']:.2f}" for r in rs)
            cpus = " / ".join(f"{r['cpu']:.2f}" for r in rs)
            loads = " / ".join(f"{r['load']:.1f}" for r in rs)
            rss = max(r["rss_mb"] for r in rs)
            print(f"| {name} | {walls} | {cpus} | {rss:.0f} | {loads} |")
        best = {k: min(r["wall"] for r in v) for k, v in times.items()}
        cpu = {k: min(r["cpu"] for r in v) for k, v in times.items()}
        print(f"\nbest wall: innovation / report = {best['innovation'] / best['report']:.2f}x; "
              f"best CPU: innovation / report = {cpu['innovation'] / cpu['report']:.2f}x")
        if args.before is not None:
            print(f"before: innovation / report = "
                  f"{best['innovation (before)'] / best['report']:.2f}x (wall), "
                  f"{cpu['innovation (before)'] / cpu['report']:.2f}x (CPU)")
            a, b = out / "innovation" / "index_files", out / "innovation-before" / "index_files"
            tables = sorted(p.name for p in a.glob("*.tsv") if p.name != "timings.tsv")
            differ = [t for t in tables if not filecmp.cmp(a / t, b / t, shallow=False)]
            print(f"tables compared with before: {len(tables)}, differing: "
                  f"{', '.join(differ) if differ else 'none'}")


if __name__ == "__main__":
    main()
