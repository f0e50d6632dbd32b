#!/usr/bin/env python3
"""Sharded evaluation benchmark (issue 13): peak memory and time of ``irmeta eval``.

Each configuration runs ``irmeta eval`` in a fresh child process; the peak resident
memory is the child's ``ru_maxrss`` (read with ``resource.getrusage`` in a wrapper
process that runs nothing else, so the figure is that command's alone; for Dask runs it
is the largest single process, workers included). Campaigns from
``../shared/tools/make_campaign.py`` (never committed)::

    python ../shared/tools/make_campaign.py --name c10x1k --topics 1000 --depth 1000 \\
        --runs 10 --judged 100 --grades graded --out /work/bench-data
    python ../shared/tools/make_campaign.py --name c10x4k --topics 4000 --depth 1000 \\
        --runs 10 --judged 100 --grades graded --out /work/bench-data
    python benchmarks/bench_shards.py --data /work/bench-data \\
        --dl21 ../shared/data/trec-dl-2021-passage --baseline ../main/src

A 100-run campaign (``--name c100x1k --topics 1000 --runs 100``, 100 M lines, 4 GB) is
measured too when it is there.

``--report`` measures ``irmeta report`` instead (the whole page, every section, default
options, written to a temporary folder) on the 1,000-topic campaign (and the 4,000-topic
one with ``--report-big``): in memory against ``--shard-topics`` / ``--memory-budget``,
alternated ``--repeat`` times. ``--baseline SRC`` runs the same small-campaign command
with another checkout's ``src`` (today's code) to give the ratio of the small-campaign
path.

``--dask FOLDER`` (issue 27, target 4) measures Dask against the one-process sharded path
on one campaign folder (``qrels.txt``, ``runs/``; 40 M lines: ``make_campaign.py --name
dask40m --runs 10 --topics 4000 --depth 1000 --judged 100 --grades graded``)::

    python benchmarks/bench_shards.py --dask /work/bench-data/dask40m --rounds 3

``irmeta eval -m AP -m nDCG@10 --shard-topics 500`` in one process, with ``--workers 1``
and with ``--workers 2`` (a LocalCluster), alternated ``--rounds`` times; for each: wall,
CPU-seconds of every process (the command, the Dask nannies and workers: the rusage of
the waited-for descendants), system time, minor page faults, and the peak of the summed
RSS of the whole process tree (sampled every 50 ms), best of the rounds, with ratios
against the one-process path. ``--dask-extra "--memory-budget 4G"`` replaces
``--shard-topics 500`` (the 500 M-line campaign: ``--workers 2`` only, ``--dask-configs``).
With ``--baseline SRC`` every configuration runs with that checkout's code too (today's
figures in the same run), alternated; ratios are against this code's one-process path.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

MEASURES = ["AP", "nDCG@10", "NRG@100", "AP_rare(alpha=1)@100", "Twist"]
ROOT = Path(__file__).resolve().parents[1]

_WRAPPER = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
wall = time.perf_counter() - t
print(json.dumps({"rc": rc, "wall": wall,
                  "rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""


def measure(args: list[str], src: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(src)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                      if p and "src" not in p]))
    # as installed: pip compiles irmeta's bytecode, so a run from the source tree keeps
    # its caches too (the development VM sets PYTHONDONTWRITEBYTECODE=1, which would make
    # every process, Dask workers included, compile irmeta again)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    cmd = [sys.executable, "-c", _WRAPPER, sys.executable, "-c",
           "import sys; from irmeta.cli.main import main; sys.argv[0] = 'irmeta'; main()",
           *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def campaign_args(folder: Path) -> list[str]:
    runs = sorted(str(p) for p in (folder / "runs").iterdir())
    return [str(folder / "qrels.txt"), *runs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None,
                    help="folder of the c10x1k / c10x4k campaigns (all modes but --dask)")
    ap.add_argument("--dl21", type=Path, default=None)
    ap.add_argument("--baseline", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--only", default=None, help="comma-separated configuration names")
    ap.add_argument("--report", action="store_true", help="measure irmeta report instead")
    ap.add_argument("--report-big", action="store_true",
                    help="with --report: the 4,000-topic campaign too")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--dask", type=Path, default=None, metavar="FOLDER",
                    help="only: one process vs a 1- and a 2-worker LocalCluster on this "
                         "campaign folder, alternated --rounds times (issue 27)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dask-extra", default="--shard-topics 500",
                    help="with --dask: the sharding options of every configuration")
    ap.add_argument("--dask-configs", default="one,1,2",
                    help="with --dask: which of one process (one), 1 and 2 workers")
    opts = ap.parse_args()
    if opts.report:
        return report_main(opts)
    if opts.dask:
        return dask_main(opts)
    if opts.data is None:
        ap.error("--data is required (but with --dask)")
    ms = [a for m in MEASURES for a in ("-m", m)]
    src = ROOT / "src"
    small, big = campaign_args(opts.data / "c10x1k"), campaign_args(opts.data / "c10x4k")
    wide = (campaign_args(opts.data / "c100x1k")   # 100 runs x 1,000 topics (optional)
            if (opts.data / "c100x1k").exists() else None)
    configs = {
        "1k in memory": (small + ms + ["--memory-budget", "64G"], src),
        "4k in memory": (big + ms + ["--memory-budget", "64G"], src),
        "1k budget 1G": (small + ms + ["--memory-budget", "1G"], src),
        "4k budget 1G": (big + ms + ["--memory-budget", "1G"], src),
        "4k 500-topic shards": (big + ms + ["--shard-topics", "500"], src),
        "1k 250-topic shards": (small + ms + ["--shard-topics", "250"], src),
        "1k dask 1 worker": (small + ms + ["--workers", "1", "--shard-topics", "100"], src),
        "1k dask 2 workers": (small + ms + ["--workers", "2", "--shard-topics", "100"], src),
    }
    if wide is not None:
        configs["100 runs budget 2G"] = (wide + ms + ["--memory-budget", "2G"], src)
        configs["100 runs in memory"] = (wide + ms + ["--memory-budget", "64G"], src)
    if opts.dl21:
        dl = [str(opts.dl21 / "qrels" / "qrels.dl21-passage.txt"),
              *sorted(str(p) for p in (opts.dl21 / "runs").glob("*.gz"))]
        dlm = ["-m", "AP", "-m", "nDCG@10", "-m", "NRG@10"]
        for rep in range(3):
            configs[f"DL21 this branch #{rep + 1}"] = (dl + dlm, src)
            if opts.baseline:
                configs[f"DL21 baseline #{rep + 1}"] = (dl + dlm, opts.baseline)
    only = set(opts.only.split(",")) if opts.only else None
    results = {}
    for name, (args, where) in configs.items():
        if only and name not in only:
            continue
        got = measure(["eval", *args], where)
        results[name] = got
        print(f"{name:28s} rc={got['rc']} wall={got['wall']:8.1f} s "
              f"peak RSS={got['rss'] / 2**30:6.2f} GiB", flush=True)
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1) + "\n")


_TREE_WRAPPER = r"""
import json, os, resource, subprocess, sys, tempfile, threading, time
import psutil
out = tempfile.TemporaryFile()
t = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=out)
peak = [0, 0]   # summed RSS of the tree, largest single process
def sample():
    try:
        root = psutil.Process(child.pid)
    except psutil.Error:
        return
    while child.poll() is None:
        total = big = 0
        try:
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            break
        for p in procs:
            try:
                rss = p.memory_info().rss
            except psutil.Error:
                continue
            total += rss
            big = max(big, rss)
        peak[0], peak[1] = max(peak[0], total), max(peak[1], big)
        time.sleep(0.05)
sampler = threading.Thread(target=sample, daemon=True)
sampler.start()
rc = child.wait()
wall = time.perf_counter() - t
sampler.join()
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"rc": rc, "wall": wall, "user": ru.ru_utime, "sys": ru.ru_stime,
                  "cpu": ru.ru_utime + ru.ru_stime, "minflt": ru.ru_minflt,
                  "rss": ru.ru_maxrss * 1024, "tree_rss": peak[0], "proc_rss": peak[1],
                  "out_bytes": out.seek(0, 2)}))
"""


def measure_tree(args: list[str], src: Path) -> dict:
    """``irmeta ARGS`` as a fresh process: wall, CPU of it and every descendant it waited
    for (Dask's nannies wait for their workers), and the peak summed RSS of its tree."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(src)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                      if p and "src" not in p]))
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # as measure(): installed code is compiled
    cmd = [sys.executable, "-c", _TREE_WRAPPER, sys.executable, "-c",
           "import sys; from irmeta.cli.main import main; sys.argv[0] = 'irmeta'; main()",
           *args]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


DASK_CONFIGS = {"one": ("one process", []), "1": ("Dask 1 worker", ["--workers", "1"]),
                "2": ("Dask 2 workers", ["--workers", "2"])}


def _dask_config(key: str) -> tuple[str, list[str]]:
    name, extra = DASK_CONFIGS[key.removesuffix("@base")]
    return (f"{name} (baseline)" if key.endswith("@base") else name), extra


def dask_main(opts) -> None:
    """Issue 27, target 4: the one-process sharded path, a 1-worker and a 2-worker
    LocalCluster on the same input, alternated, best of ``--rounds``, ratios against the
    one-process path (never 2 workers against 1 alone)."""
    base = ["eval", *campaign_args(opts.dask), "-m", "AP", "-m", "nDCG@10",
            *opts.dask_extra.split()]
    keys = [k.strip() for k in opts.dask_configs.split(",") if k.strip()]
    if opts.baseline:   # today's code (another checkout's src) alternated with this one
        keys += [f"{k}@base" for k in keys]
    runs: dict[str, list[dict]] = {k: [] for k in keys}
    print(f"cores {os.cpu_count()}; irmeta eval {opts.dask}/qrels.txt {opts.dask}/runs/* "
          f"-m AP -m nDCG@10 {opts.dask_extra} [--workers N]", flush=True)
    for rnd in range(opts.rounds):
        for key in keys:
            name, extra = _dask_config(key)
            load = os.getloadavg()[0]
            got = measure_tree([*base, *extra],
                               opts.baseline if key.endswith("@base") else ROOT / "src")
            got["load"] = load
            runs[key].append(got)
            print(f"round {rnd + 1} {name:15s} rc={got['rc']} out={got['out_bytes']} B "
                  f"wall {got['wall']:6.2f} s  "
                  f"CPU {got['cpu']:6.2f} s (sys {got['sys']:5.2f})  minflt "
                  f"{got['minflt'] / 1e6:5.2f} M  peak RSS all {got['tree_rss'] / 2**30:5.2f} "
                  f"GiB (one process {got['proc_rss'] / 2**30:5.2f})  load {load:4.1f}",
                  flush=True)
    # a run that failed or wrote no table (e.g. the baseline checkout changing under
    # it) is left out of the best
    runs = {k: [r for r in v if r["rc"] == 0 and r.get("out_bytes", 1) > 0] or v
            for k, v in runs.items()}
    best = {k: {f: min(r[f] for r in v) for f in ("wall", "cpu", "sys", "minflt", "tree_rss")}
            for k, v in runs.items()}
    ref = best.get("one")
    print(f"\nbest of {opts.rounds} (load {min(r['load'] for v in runs.values() for r in v):.1f}"
          f"-{max(r['load'] for v in runs.values() for r in v):.1f})")
    print("| configuration | wall | CPU-s (all processes) | system | minor faults | "
          "peak RSS (all processes) | wall / one process | CPU / one process |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for k, b in best.items():
        ratio = (f"{b['wall'] / ref['wall']:.2f}x | {b['cpu'] / ref['cpu']:.2f}x" if ref
                 else "- | -")
        print(f"| {_dask_config(k)[0]} | {b['wall']:.2f} s | {b['cpu']:.2f} | {b['sys']:.2f} | "
              f"{b['minflt'] / 1e6:.2f} M | {b['tree_rss'] / 2**30:.2f} GiB | {ratio} |")
    if opts.json:
        opts.json.write_text(json.dumps(runs, indent=1) + "\n")


def report_main(opts) -> None:
    """Peak RSS and time of ``irmeta report`` in memory and shard by shard."""
    import tempfile
    src = ROOT / "src"
    campaigns = {"1k": campaign_args(opts.data / "c10x1k")}
    if opts.report_big:
        campaigns["4k"] = campaign_args(opts.data / "c10x4k")
    configs = {}
    for key, args in campaigns.items():
        configs[f"report {key} in memory"] = args + ["--memory-budget", "64G"]
        configs[f"report {key} 250-topic shards"] = args + ["--shard-topics", "250"]
        configs[f"report {key} budget 256M"] = args + ["--memory-budget", "256M"]
    only = set(opts.only.split(",")) if opts.only else None
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-report-") as tmp:
        for rep in range(opts.repeat):
            for name, args in configs.items():
                if only and name not in only:
                    continue
                out = str(Path(tmp) / name.replace(" ", "_") / "report.html")
                got = measure(["report", "--no-progress", *args, "-o", out], src)
                results.setdefault(name, []).append(got)
                print(f"{name:32s} #{rep + 1} rc={got['rc']} wall={got['wall']:8.1f} s "
                      f"peak RSS={got['rss'] / 2**30:6.2f} GiB", flush=True)
    if opts.json:
        opts.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
