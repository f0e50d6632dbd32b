#!/usr/bin/env python3
"""``-m all_trec`` benchmark (issue 12): irmeta against pytrec_eval, and against itself.

* ``msmarco``: ``irmeta eval -m all_trec QRELS RUN`` against pytrec_eval computing the
  same measure set (the ``all_trec`` measures pytrec_eval has: all but ``rbp``,
  ``rbp_resid``, ``unj``, which irmeta computes on top) from the same files, reading them
  with its own parser, each a subprocess timed from process start to printed means
  (wall clock, best of ``--repeat``, the two commands alternating); target ratio <= 0.33.
* ``dl21``: the 63 TREC DL 2021 runs, ``irmeta eval -m all_trec`` against ``irmeta eval``
  (trec_eval's default set); target ratio <= 2.

Usage::

    python benchmarks/bench_all_trec.py --data /work/bench-data/msmarco-like \\
        --dl21 ../shared/data/trec-dl-2021-passage [--repeat 3]

Numbers go to RESULTS.md by hand; nothing here is imported by irmeta or its tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from machine import cpu_ticks, steal_share  # noqa: E402

#: trec_eval 10's all_trec names pytrec_eval (trec_eval 9.x inside) computes
PYTREC_ALL_TREC = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                   "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
                   "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "ndcg",
                   "relative_P", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
                   "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                   "num_nonrel_judged_ret")

PYTREC_WORKER = r"""
import statistics, sys, time
t0 = time.perf_counter()
import pytrec_eval
qrels, run, names = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
with open(qrels) as f:
    qrel = pytrec_eval.parse_qrel(f)
with open(run) as f:
    ranking = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrel, set(names) & set(pytrec_eval.supported_measures))
per_topic = evaluator.evaluate(ranking)
keys = next(iter(per_topic.values())).keys()
for key in sorted(keys):
    print(key, statistics.fmean(v[key] for v in per_topic.values()))
"""


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of ``cmd`` run to completion."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {proc.stderr.read().decode()[-500:]}")
    return time.perf_counter() - start, usage.ru_maxrss / 1024.0


def best_pair(a: tuple[list[str], dict | None], b: tuple[list[str], dict | None],
              repeat: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """Best of ``repeat`` for two commands run alternately (a, b, a, b ...), so that a
    burst of load on the shared machine falls on both sides of a ratio."""
    runs_a, runs_b = [], []
    for _ in range(repeat):
        runs_a.append(timed(*a))
        runs_b.append(timed(*b))
    return ((min(w for w, _ in runs_a), max(m for _, m in runs_a)),
            (min(w for w, _ in runs_b), max(m for _, m in runs_b)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default="/work/bench-data/msmarco-like")
    ap.add_argument("--dl21", default=str(HERE.parent.parent / "shared" / "data"
                                          / "trec-dl-2021-passage"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": str(HERE.parent / "src")}
    irmeta = [args.python, "-m", "irmeta.cli.main", "eval"]
    before = cpu_ticks()
    rows = []
    data = Path(args.data)
    qrels, run = str(data / "qrels.txt"), str(data / "runs" / "run.txt")
    ir, pt = best_pair((irmeta + ["-m", "all_trec", qrels, run], env),
                       ([args.python, "-c", PYTREC_WORKER, qrels, run,
                         ",".join(PYTREC_ALL_TREC)], None), args.repeat)
    rows.append(("msmarco-like, 1 run x 6,980 topics x 1,000: irmeta all_trec / pytrec_eval "
                 "(same 33 measures)", ir, pt))
    dl = Path(args.dl21)
    runs = [str(p) for p in sorted((dl / "runs").glob("*.gz"))]
    dq = str(dl / "qrels" / "qrels.dl21-passage.txt")
    full, default = best_pair((irmeta + ["-m", "all_trec", dq, *runs], env),
                              (irmeta + [dq, *runs], env), args.repeat)
    rows.append((f"DL21, {len(runs)} runs: irmeta all_trec / irmeta default set", full, default))
    print(f"load average {os.getloadavg()[0]:.1f}, steal {steal_share(before, cpu_ticks())}, "
          f"best of {args.repeat}")
    print("| comparison | time (s) | baseline (s) | ratio | peak RSS (MiB) |")
    print("| --- | --- | --- | --- | --- |")
    for name, (w, m), (bw, bm) in rows:
        print(f"| {name} | {w:.1f} | {bw:.1f} | {w / bw:.2f} | {m:.0f} / {bm:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
