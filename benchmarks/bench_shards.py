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
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--dl21", type=Path, default=None)
    ap.add_argument("--baseline", type=Path, default=None)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--only", default=None, help="comma-separated configuration names")
    ap.add_argument("--report", action="store_true", help="measure irmeta report instead")
    ap.add_argument("--report-big", action="store_true",
                    help="with --report: the 4,000-topic campaign too")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--dask-pairs", type=int, default=0,
                    help="only: N alternating pairs of --workers 1 / --workers 2 on the "
                         "4,000-topic campaign (--shard-topics 250), with their ratios")
    opts = ap.parse_args()
    if opts.report:
        return report_main(opts)
    if opts.dask_pairs:
        return dask_pairs(opts)
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


def dask_pairs(opts) -> None:
    """Issue 13's target: a LocalCluster of 2 workers against 1, alternating, so that the
    machine's slow minutes fall on both sides."""
    ms = [a for m in MEASURES for a in ("-m", m)]
    args = ["eval", *campaign_args(opts.data / "c10x4k"), *ms, "--shard-topics", "250"]
    for rep in range(opts.dask_pairs):
        one = measure([*args, "--workers", "1"], ROOT / "src")
        two = measure([*args, "--workers", "2"], ROOT / "src")
        print(f"pair {rep + 1}: 1 worker {one['wall']:6.1f} s, 2 workers {two['wall']:6.1f} s, "
              f"speed-up {one['wall'] / two['wall']:.2f}x (load {os.getloadavg()[0]:.1f})",
              flush=True)


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
