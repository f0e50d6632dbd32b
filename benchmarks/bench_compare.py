"""Speed of ``irmeta compare`` on DL21: 63 runs x nDCG@10, AP, RR (5,859 pairs in all).

    python benchmarks/bench_compare.py [--repeat 3] [--no-ranx] [--cli]

Measures, best of ``--repeat`` wall-clock runs, in one process:

* the evaluation (``irmeta.evaluate`` of the 63 runs, three measures) — not part of the
  tests' time, printed for scale;
* ``compare_matrices`` (the tests, the corrections, the table) for paired t, Wilcoxon,
  randomisation (10,000 trials) and bootstrap (1,000 trials);
* the same tests as ``irmeta meta significance`` runs them (``stats.pairwise_test`` per
  measure, then its ``compare_table``);
* ranx's ``compare`` (Student t, its default; Fisher randomisation with 1,000
  permutations) on the same runs, if ranx is installed (``pip install ranx``, the
  ``bench`` extra): its own evaluation included, and its evaluation alone, so the
  difference is its tests. Numba is compiled by a first call on two runs before timing.

``--cli`` also times the two commands end to end (``irmeta compare`` and ``irmeta meta
significance``, new processes). Results: benchmarks/RESULTS.md, section "compare".
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("IRMETA_NO_PROGRESS", "1")

from machine import best  # noqa: E402  (benchmarks/machine.py, beside this script)

import irmeta  # noqa: E402
from irmeta.stats import significance as sg  # noqa: E402
from irmeta.stats.comparison import compare_matrices  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DL21 = ROOT.parent / "shared" / "data" / "trec-dl-2021-passage"
MEASURES = ["nDCG@10", "AP", "RR"]


def meta_significance(mats, test, trials=None):
    """What ``irmeta meta significance`` computes per measure (its summary table)."""
    for mat in mats.values():
        opts = sg.options_for(test, trials=trials, seed=0, correction="holm")
        sg.compare(mat, test, level=0.05, **opts).compare_table()


def ranx_timings(qrels_path, run_paths, repeat):
    """(evaluation only, compare with student, compare with fisher) in seconds."""
    from ranx import Qrels, Run, compare, evaluate
    tmp = Path(tempfile.mkdtemp(prefix="bench_compare_"))
    plain = []
    for p in run_paths:
        out = tmp / p.name.removesuffix(".gz")
        out.write_bytes(gzip.decompress(p.read_bytes()))
        plain.append(out)
    qrels = Qrels.from_file(str(qrels_path), kind="trec")
    runs = [Run.from_file(str(p), kind="trec") for p in plain]
    for i, r in enumerate(runs):
        r.name = f"r{i}"
    metrics = ["ndcg@10", "map", "mrr"]
    compare(qrels, runs[:2], metrics=metrics, stat_test="student",
            make_comparable=True)                                    # numba warm-up
    compare(qrels, runs[:2], metrics=metrics, stat_test="fisher", n_permutations=100,
            make_comparable=True)
    ev = best(lambda: [evaluate(qrels, r, metrics, make_comparable=True) for r in runs],
              repeat)
    student = best(lambda: compare(qrels, runs, metrics=metrics, max_p=0.05,
                                   stat_test="student", make_comparable=True), repeat)
    fisher = best(lambda: compare(qrels, runs, metrics=metrics, max_p=0.05,
                                  stat_test="fisher", n_permutations=1000,
                                  make_comparable=True), 1)
    return ev, student, fisher


def cli_time(args) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "irmeta.cli.main", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-ranx", action="store_true")
    ap.add_argument("--cli", action="store_true")
    args = ap.parse_args()
    qrels = DL21 / "qrels" / "qrels.dl21-passage.txt"
    runs = sorted((DL21 / "runs").glob("*.gz"))
    rows = []
    res = None

    def evaluate():
        nonlocal res
        res = irmeta.evaluate(qrels, runs, MEASURES)
    rows.append(("evaluation (63 runs, 3 measures; for scale)", best(evaluate, args.repeat)))
    mats = {m: res.matrix(m) for m in MEASURES}
    for test, trials in [("paired_t", None), ("wilcoxon", None), ("randomisation", 10000),
                         ("bootstrap", 1000)]:
        ours = best(lambda: compare_matrices(mats, test=test, trials=trials), args.repeat)
        theirs = best(lambda: meta_significance(mats, test, trials), args.repeat)
        label = test + (f" ({trials} trials)" if trials else "")
        rows.append((f"irmeta compare, {label}: 5,859 tests", ours))
        rows.append((f"meta significance's functions, {label}", theirs))
    if not args.no_ranx:
        try:
            ev, student, fisher = ranx_timings(qrels, runs, args.repeat)
        except ImportError:
            print("ranx not installed: pip install ranx (the bench extra)", file=sys.stderr)
        else:
            rows += [("ranx evaluate (63 runs, ndcg@10 map mrr)", ev),
                     ("ranx compare, student (evaluation included)", student),
                     ("ranx compare, student, minus its evaluation", student - ev),
                     ("ranx compare, fisher 1000 permutations (evaluation included; 1 run)",
                      fisher)]
    if args.cli:
        base = [str(qrels), *map(str, runs), "-m", "nDCG@10", "-m", "AP", "-m", "RR"]
        rows.append(("CLI: irmeta compare (process, evaluation included)",
                     best(lambda: cli_time(["compare", *base]), args.repeat)))
        rows.append(("CLI: irmeta meta significance --correction holm",
                     best(lambda: cli_time(["meta", "significance", *base, "--correction",
                                            "holm"]), args.repeat)))
    print("| step | best of runs (s) |\n| --- | ---: |")
    for name, sec in rows:
        print(f"| {name} | {sec:.3f} |")


if __name__ == "__main__":
    main()
