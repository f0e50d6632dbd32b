"""Speed of the meta-evaluation layer on a TREC-8-sized campaign: 129 systems x 50
topics (8,256 pairs), synthetic scores (system + topic effects + noise).

    python benchmarks/bench_stats.py [--repeat 3]

Prints a Markdown table (best of --repeat wall-clock runs) and, for reference, the time
of a plain per-pair Python loop of the paired bootstrap on a sample of pairs,
extrapolated to all pairs. Results: benchmarks/RESULTS-stats.md.
"""

from __future__ import annotations

import argparse
import os
import platform

import numpy as np
import pandas as pd

os.environ.setdefault("IRMETA_NO_PROGRESS", "1")

from machine import best  # benchmarks/machine.py, beside this script

from irmeta.aggregate.analyses import grid_results  # noqa: E402
from irmeta.stats import buckley_voorhees, fuzziness_stability  # noqa: E402
from irmeta.stats import significance as sg


def matrix(S=129, T=50, seed=0):
    rng = np.random.default_rng(seed)
    X = (0.1 + 0.3 * rng.random((S, 1)) + 0.3 * rng.random((1, T))
         + 0.15 * rng.standard_normal((S, T)))
    return np.clip(X, 0, 1)


def naive_bootstrap(X, pairs, B=1000, seed=0):
    rng = np.random.default_rng(seed)
    n = X.shape[1]
    for a, b in pairs:
        d = X[a] - X[b]
        t_obs = d.mean() / (d.std(ddof=1) / np.sqrt(n))
        w = d - d.mean()
        count = 0
        for _ in range(B):
            x = w[rng.integers(0, n, n)]
            count += abs(x.mean() / (x.std(ddof=1) / np.sqrt(n))) >= abs(t_obs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    X = matrix()
    G = pd.DataFrame(np.random.default_rng(0).random((100, 50)))
    sg.tukey_hsd(X)            # warm the studentized-range table (cached per k)
    cases = [
        ("paired t-test (SciPy ttest_rel, all pairs)", lambda: sg.paired_t(X)),
        ("Wilcoxon signed-rank (SciPy, all pairs)", lambda: sg.wilcoxon(X)),
        ("paired bootstrap, B = 1000", lambda: sg.bootstrap(X, trials=1000, seed=1)),
        ("paired randomisation, B = 10000", lambda: sg.randomisation(X, trials=10000, seed=1)),
        ("Tukey HSD, two-way ANOVA", lambda: sg.tukey_hsd(X)),
        ("randomised Tukey HSD, B = 5000", lambda: sg.randomised_tukey_hsd(X, trials=5000, seed=1)),
        ("pairwise_tukey (paper's procedure)", lambda: sg.pairwise_tukey(X)),
        ("fuzziness stability, 1000 trials", lambda: fuzziness_stability(X, trials=1000, seed=1)),
        ("Buckley-Voorhees, 1000 trials", lambda: buckley_voorhees(X, trials=1000, seed=1)),
        # was a wall-clock assertion in tests/aggregate/test_gawm.py (< 0.5 s)
        ("GAWM 5 x 5 grid, axioms A, 100 x 50 uniform", lambda: grid_results(G, "A")),
    ]
    print(f"129 systems x 50 topics (8,256 pairs); {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs, numpy {np.__version__}; best of {args.repeat}\n")
    print("| analysis | seconds |\n| --- | ---: |")
    for name, fn in cases:
        print(f"| {name} | {best(fn, args.repeat):.2f} |")
    pairs = [(0, j) for j in range(1, 21)]
    t = best(lambda: naive_bootstrap(X, pairs), 1)
    print(f"\nplain Python loop, paired bootstrap B = 1000: {t:.2f} s for 20 pairs -> "
          f"~{t / 20 * 8256:.0f} s extrapolated to 8,256 pairs")


if __name__ == "__main__":
    main()
