#!/usr/bin/env python3
"""Wall time of one ``irmeta report`` scenario under two or more versions of irmeta's
sources, as a ratio to the first (issue 42: "the DL21 report's wall time does not grow").

Each version is a ``src`` folder put first on ``PYTHONPATH`` (for an older commit:
``git archive COMMIT | tar -x -C /tmp/old``, then ``/tmp/old/src``; the checkout is not
touched), with this project's virtual environment; ``LABEL=SRC@SECTION,SECTION`` leaves
those sections out (``--skip``; e.g. ``now-no-appendix=src@appendix`` times today's
report without a section the old one did not have). A round runs every version once, in
turn, in its own subprocess: ``bench_report.py``'s worker (import, read, build the
campaign, the full report with default parameters, for DL21 ``-l 2`` and the team groups
of ``scripts/dl21_groups.py``), timed from process start to exit (wall clock; CPU of the
child and its children from ``os.wait4``). Rounds alternate the versions so that both
see the same machine; the load average (``os.getloadavg``) is noted around every run.
The last round's ``leaderboard.tsv`` and ``matrix_*.tsv`` are then compared with the
first version's (``tests/report/test_golden.py``'s rules: matrices byte for byte, every
old leaderboard column unchanged, new columns allowed).

Usage::

    python benchmarks/bench_report_versions.py before=/tmp/irmeta_before/src now=src \\
        [--scenario dl21] [--repeat 4] [--shared ../shared/data]

Nothing here is imported by irmeta or its tests; numbers go to RESULTS-report.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load() -> str:
    try:
        return "/".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def one_run(src: Path, skip: str, scenario: str, args, out: Path) -> dict:
    cmd = [sys.executable, str(HERE / "bench_report.py"), "worker", scenario,
           str(args.shared), str(args.data), str(out)]
    env = dict(os.environ, PYTHONPATH=str(src), IRMETA_NO_PROGRESS="1",
               BENCH_REPORT_SKIP=skip)
    before = load()
    w0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - w0
    text = proc.stdout.read()
    if status != 0:
        raise SystemExit(f"{src}: worker failed with status {status}")
    res = json.loads(text.strip().splitlines()[-1])
    res.update(wall=wall, cpu=usage.ru_utime + usage.ru_stime, load_before=before,
               load_after=load())
    return res


def columns(path: Path) -> dict[str, list[str]]:
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    return {c: [r[i] for r in rows[1:]] for i, c in enumerate(rows[0])}


def same_numbers(old: Path, new: Path) -> list[str]:
    """Differences of ``new``'s report files from ``old``'s (empty: the same numbers)."""
    out = []
    for m in sorted(old.glob("matrix_*.tsv")):
        if not (new / m.name).is_file():
            out.append(f"{m.name} missing")
        elif (new / m.name).read_bytes() != m.read_bytes():
            out.append(f"{m.name} differs")
    a, b = columns(old / "leaderboard.tsv"), columns(new / "leaderboard.tsv")
    out += [f"leaderboard column {c!r} " + ("missing" if c not in b else "differs")
            for c in a if b.get(c) != a[c]]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("versions", nargs="+", help="LABEL=SRC_FOLDER, the first is the base")
    ap.add_argument("--scenario", default="dl21", help="a bench_report.py scenario")
    ap.add_argument("--repeat", type=int, default=4, help="rounds (each runs every version)")
    ap.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--data", type=Path, default=Path("/work/bench-data"))
    args = ap.parse_args(argv)
    versions, skips = [], {}
    for v in args.versions:
        label, _, rest = v.partition("=")
        src, _, skips[label] = rest.partition("@")
        versions.append((label, Path(src).resolve()))
    print(f"# {args.scenario} report, {len(versions)} versions x {args.repeat} rounds — "
          f"{platform.node()} · {os.cpu_count()} CPUs · Python {platform.python_version()}"
          f" · load average before: {load()}\n")
    results: dict[str, list[dict]] = {label: [] for label, _ in versions}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            for label, src in versions:
                res = one_run(src, skips[label], args.scenario, args,
                              Path(tmp) / label / "report.html")
                results[label].append(res)
                print(f"round {r + 1} {label}: {res['wall']:.2f} s wall, {res['cpu']:.2f} "
                      f"CPU-s, load {res['load_before']} -> {res['load_after']}")
                sys.stdout.flush()
        base = versions[0][0]
        checks = {label: same_numbers(Path(tmp) / base / "report_files",
                                      Path(tmp) / label / "report_files")
                  for label, _ in versions[1:]}
    print("\n| version | wall s (each round) | median wall | min wall | median CPU-s |"
          " load averages (1/5/15 min, before each run) |\n|---|---|---:|---:|---:|---|")
    med = {}
    for label, src in versions:
        rs = results[label]
        walls = [x["wall"] for x in rs]
        med[label] = (statistics.median(walls), min(walls))
        skipped = f", `--skip {skips[label]}`" if skips[label] else ""
        print(f"| {label} (`{src}`{skipped}) | {', '.join(f'{w:.2f}' for w in walls)} | "
              f"{med[label][0]:.2f} | {med[label][1]:.2f} | "
              f"{statistics.median(x['cpu'] for x in rs):.2f} | "
              f"{'; '.join(x['load_before'] for x in rs)} |")
    print()
    for label, _ in versions[1:]:
        print(f"{label} / {base}: median wall {med[label][0] / med[base][0]:.3f}, "
              f"min wall {med[label][1] / med[base][1]:.3f}; numbers: "
              + ("the same" if not checks[label] else "; ".join(checks[label])))
    steps = sorted({s for rs in results.values() for s in rs[0]["steps"]},
                   key=lambda s: list(results[base][0]["steps"]).index(s)
                   if s in results[base][0]["steps"] else 99)
    print("\nIn-process steps, median wall s over the rounds:\n")
    print("| step | " + " | ".join(label for label, _ in versions) + " |\n|---|"
          + "---:|" * len(versions))
    for s in steps:
        cells = [statistics.median(x["steps"][s][0] for x in results[label])
                 if s in results[label][0]["steps"] else None for label, _ in versions]
        print(f"| {s} | " + " | ".join("-" if c is None else f"{c:.2f}" for c in cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
