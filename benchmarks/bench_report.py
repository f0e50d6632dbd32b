#!/usr/bin/env python3
"""Benchmark of ``irmeta report``: the whole campaign report, end to end.

Each scenario runs in its own subprocess (a *worker*: import irmeta, read the files,
build the campaign, write the full report with default parameters), timed from process
start to the HTML written: wall clock, CPU time of the child (user + system, from
``os.wait4``) and its peak resident memory. The worker also reports the wall/CPU
seconds of every step (reading, evaluation, each section, rendering).

Scenarios:

* ``demo``     the demo campaign shipped with irmeta (30 runs x 50 topics x 100 docs);
* ``dl21``     the 63 TREC DL 2021 passage runs, ``-l 2`` (official binary relevance),
               groups from team prefixes (``scripts/dl21_groups.py``);
* ``ehealth``  the 16 CLEF eHealth 2016 IRTask2 runs (depth 1000);
* ``rep100``   a generated 100 runs x 50 topics x 1,000 documents campaign, made by
               ``make_campaign.py --name rep100 --topics 50 --depth 1000 --runs 100
               --judged 200 --grades graded --out DATA``.

Usage::

    python benchmarks/bench_report.py --data /work/bench-data \\
        --shared ../shared/data [--scenarios demo,dl21,ehealth,rep100] [--repeat 1]

Nothing here is imported by irmeta or its tests; numbers go to RESULTS-report.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import cpu_ticks, steal_share  # benchmarks/machine.py, beside this script

HERE = Path(__file__).resolve().parent
SCENARIOS = ("demo", "dl21", "ehealth", "rep100")


# ------------------------------------------------------------------ worker
def _dl21_groups(runs_dir: Path, runs) -> dict:
    import importlib.util
    spec = importlib.util.spec_from_file_location("dl21_groups",
                                                  HERE.parent / "scripts" / "dl21_groups.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return {r: mod.group_of(r) for r in runs}


def worker(scenario: str, shared: Path, data: Path, out: Path) -> dict:
    t0w, t0c = time.perf_counter(), time.process_time()
    import warnings
    warnings.simplefilter("ignore")
    import irmeta
    from irmeta.report import ReportOptions, campaign_report
    rel_level, groups = 1, None
    if scenario == "demo":
        from irmeta.demo import demo_groups, demo_paths
        p = demo_paths()
        qrels, runs, groups = p.qrels, p.runs, demo_groups()
    elif scenario == "dl21":
        base = shared / "trec-dl-2021-passage"
        qrels, runs, rel_level = (base / "qrels" / "qrels.dl21-passage.txt",
                                  sorted((base / "runs").glob("*.gz")), 2)
    elif scenario == "ehealth":
        base = shared / "clef-ehealth-2016-irtask2"
        qrels, runs = base / "qrels" / "task2.qrels", sorted((base / "runs").glob("*.gz"))
    else:
        base = data / "rep100"
        qrels, runs = base / "qrels.txt", sorted((base / "runs").iterdir())
    imported = (time.perf_counter() - t0w, time.process_time() - t0c)
    w, c = time.perf_counter(), time.process_time()
    campaign = irmeta.load_campaign(qrels, runs, warn_dropped=False)
    if scenario == "dl21":
        groups = _dl21_groups(base / "runs", campaign.runs)
    loaded = (time.perf_counter() - w, time.process_time() - c)
    # BENCH_REPORT_SKIP=appendix,...: sections left out (bench_report_versions.py)
    skip = frozenset(s for s in os.environ.get("BENCH_REPORT_SKIP", "").split(",") if s)
    rep = campaign_report(campaign, out, groups=groups,
                          options=ReportOptions(rel_level=rel_level, progress=False,
                                                skip=skip),
                          inputs={"qrels": qrels, "runs": runs})
    total = (time.perf_counter() - t0w, time.process_time() - t0c)
    size = rep.path.stat().st_size
    return {"scenario": scenario, "shape": [campaign.num_runs, campaign.num_topics, campaign.depth],
            "import": imported, "load": loaded, "steps": rep.timings, "total": total,
            "html_bytes": size, "files": len(rep.files)}


# ------------------------------------------------------------------ driver
def run(scenario: str, args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.html"
        cmd = [sys.executable, __file__, "worker", scenario, str(args.shared), str(args.data),
               str(out)]
        env = dict(os.environ, IRMETA_NO_PROGRESS="1")
        w0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - w0
        text = proc.stdout.read()
        if status != 0:
            raise SystemExit(f"{scenario}: worker failed with status {status}")
        res = json.loads(text.strip().splitlines()[-1])
        res["wall"] = wall
        res["cpu"] = usage.ru_utime + usage.ru_stime
        res["maxrss_mb"] = usage.ru_maxrss / 1024
        return res


def load_average() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "worker":
        scenario, shared, data, out = argv[1], Path(argv[2]), Path(argv[3]), Path(argv[4])
        print(json.dumps(worker(scenario, shared, data, out)))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=HERE.parent.parent / "shared" / "data")
    ap.add_argument("--data", type=Path, default=Path("/work/bench-data"))
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None, help="also write the raw results here")
    args = ap.parse_args(argv)
    print(f"# irmeta report benchmark — {platform.node()} · {os.cpu_count()} CPUs · "
          f"Python {platform.python_version()} · load average before: {load_average()}\n")
    results = []
    for scenario in args.scenarios.split(","):
        best = None
        ticks = cpu_ticks()
        for _ in range(args.repeat):
            r = run(scenario, args)
            if best is None or r["wall"] < best["wall"]:
                best = r
        best["load_after"] = load_average()
        best["steal"] = steal_share(ticks, cpu_ticks())
        results.append(best)
        R, T, D = best["shape"]
        print(f"## {scenario}: {R} runs x {T} topics x depth {D}\n")
        print(f"end to end: **{best['wall']:.1f} s wall, {best['cpu']:.1f} s CPU**, peak RSS "
              f"{best['maxrss_mb']:.0f} MB, HTML {best['html_bytes'] / 1e6:.2f} MB + "
              f"{best['files']} files; load average after: {best['load_after']}; CPU stolen by "
              f"the host: {best['steal']}\n")
        print("| step | wall s | CPU s |\n|---|---:|---:|")
        rows = [("import", best["import"]), ("read + build campaign", best["load"])]
        rows += list(best["steps"].items())
        for name, (w, c) in rows:
            print(f"| {name} | {w:.2f} | {c:.2f} |")
        print(f"| **total (in process)** | {best['total'][0]:.2f} | {best['total'][1]:.2f} |\n")
        sys.stdout.flush()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
