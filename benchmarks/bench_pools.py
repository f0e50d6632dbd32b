#!/usr/bin/env python3
"""Pools and leave-one-group-out (issue 26): irmeta against trectools, and the cost of
the leave-one-group-out test.

* ``pool``: ``irmeta.pool(files, depth=K)`` (reading the run files included) against
  trectools reading the same files (``TrecRun``) and ``TrecPoolMaker.make_pool(...,
  strategy="topX")``; reading and pooling are timed separately for trectools; the
  ratio is irmeta's total over trectools' total. Also the Take@N strategies (irmeta only;
  trectools' ``rrf``/``rbp`` read the file's rank column, not trec_eval's order).
* ``reusability``: ``irmeta.stats.reusability`` (one re-evaluation per group) on the
  campaign already built, and the campaign build itself.

Usage::

    python benchmarks/bench_pools.py --runs ../shared/data/trec-dl-2021-passage/runs \\
        --qrels ../shared/data/trec-dl-2021-passage/qrels/qrels.dl21-passage.txt \\
        --groups dl21.groups [--repeat 2] [--no-trectools]

Numbers go to RESULTS.md by hand; nothing here is imported by irmeta or its tests.
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path


def best(fn, repeat):
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", required=True)
    ap.add_argument("--qrels", required=True)
    ap.add_argument("--groups", default=None)
    ap.add_argument("--depths", default="10,100")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-trectools", action="store_true")
    ap.add_argument("--no-pools", action="store_true", help="only the reusability part")
    args = ap.parse_args()
    import irmeta
    from irmeta import stats
    from irmeta.io.load import read_groups
    files = sorted(str(p) for p in Path(args.runs).iterdir() if p.is_file())
    print(f"{len(files)} runs")
    for depth in ([] if args.no_pools else [int(d) for d in args.depths.split(",")]):
        t, res = best(lambda: irmeta.pool(files, depth=depth), args.repeat)
        line = f"pool depth {depth}: irmeta {t:.2f} s ({len(res):,} documents)"
        if not args.no_trectools:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from trectools import TrecPoolMaker, TrecRun
                t0 = time.perf_counter()
                runs = [TrecRun(f) for f in files]
                t_read = time.perf_counter() - t0
                t_pool, tp = best(lambda: TrecPoolMaker().make_pool(runs, strategy="topX",
                                                                    topX=depth), 1)
            total = t_read + t_pool
            line += (f"; trectools read {t_read:.2f} s + pool {t_pool:.2f} s = {total:.2f} s"
                     f" ({int(tp.get_total_pool_size()):,} documents); ratio {t / total:.2f}")
        print(line, flush=True)
    for strategy in () if args.no_pools else ("group_depth", "rrf", "rbp_sum", "comb_sum"):
        groups = read_groups(args.groups) if args.groups and strategy == "group_depth" \
            else None
        if groups is not None:
            names = [irmeta.read_run(f).name for f in files]
            groups = {n: groups[n] for n in names}
        t, res = best(lambda: irmeta.pool(files, depth=100, strategy=strategy,
                                          groups=groups), args.repeat)
        print(f"pool {strategy} @100: irmeta {t:.2f} s ({len(res):,} documents)", flush=True)
    t_build, campaign = best(lambda: irmeta.load_campaign(args.qrels, files,
                                                          warn_dropped=False), 1)
    print(f"campaign build: {t_build:.2f} s")
    if args.groups:
        groups = read_groups(args.groups, campaign.runs)
        for depth in (10, 100):
            t, res = best(lambda: stats.reusability(
                campaign, ["AP", "nDCG@10"], groups, depth=depth, rel_level=2, rare=None),
                args.repeat)
            t_rare, _ = best(lambda: stats.reusability(
                campaign, ["AP", "nDCG@10"], groups, depth=depth, rel_level=2), 1)
            t_eval, _ = best(lambda: irmeta.evaluate(campaign, measures=["AP", "nDCG@10"],
                                                     rel_level=2), 1)
            print(f"reusability depth {depth} ({res.groups.shape[0]} groups): {t:.2f} s "
                  f"({t_rare:.2f} s with the AP_rare link); one full evaluation "
                  f"{t_eval:.2f} s", flush=True)


if __name__ == "__main__":
    main()
