"""The reader against an earlier irmeta's reader, on the same inputs in the same run.

Each measurement is its own subprocess (best of ``--repeat``): read one run file with
``irmeta.io.trec.read_run`` and fingerprint its document ids (what campaign building
needs from the reader), timed inside the process, with the process's peak resident
memory. The baseline is an irmeta source tree given by ``--baseline`` (e.g. a
``git worktree add ../irmeta-old 3134142``); ratios are current / baseline.

    python benchmarks/bench_reader.py --baseline ../irmeta-old/src \\
        --run /work/bench-data/msmarco-like/runs/run.txt --messy --markdown out.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

WORKER = r"""
import json, resource, sys, time
from irmeta.io import trec
t0 = time.perf_counter()
run = trec.read_run(sys.argv[1])
t1 = time.perf_counter()
run.fingerprints
t2 = time.perf_counter()
print(json.dumps({"read": t1 - t0, "fingerprint": t2 - t1, "total": t2 - t0,
                  "rows": len(run),
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def measure(src: str, path: str, repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=src)
    best = None
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", WORKER, path], env=env,
                             capture_output=True, text=True)
        if out.returncode:
            return {"error": out.stderr.strip().splitlines()[-1]}
        got = json.loads(out.stdout)
        if best is None or got["total"] < best["total"]:
            best = got
    return best


def messy_copy(path: str, folder: str, k: int) -> str:
    """The same run with a tab after each field and a trailing space on every line:
    every line takes the careful path."""
    import gzip
    out = Path(folder) / f"{k}-{Path(path).name}.messy"
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    with (gzip.open if gz else open)(path, "rb") as src, open(out, "wb") as dst:
        for line in src:
            dst.write(b"\t".join(line.split()) + b" \n")
    return str(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="src/ folder of the baseline irmeta")
    ap.add_argument("--current", default=str(Path(__file__).resolve().parents[1] / "src"))
    ap.add_argument("--run", action="append", required=True, help="run file (repeatable)")
    ap.add_argument("--messy", action="store_true", help="also time a messy copy of each run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--markdown", help="write the table here")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        inputs = [(p, "clean") for p in args.run]
        if args.messy:
            inputs += [(messy_copy(p, tmp, k), "messy") for k, p in enumerate(args.run)]
        for path, kind in inputs:
            base = measure(args.baseline, path, args.repeat)
            cur = measure(args.current, path, args.repeat)
            rows.append((Path(path).parent.parent.name + "/" + Path(path).name
                         if kind == "clean" else Path(path).name, kind, base, cur))
    lines = ["| input | kind | rows | baseline s (read+fp) | current s (read+fp) | ratio | "
             "baseline MB | current MB |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, kind, base, cur in rows:
        if "error" in base or "error" in cur:
            def show(m):
                return m["error"] if "error" in m else f"{m['total']:.2f}"
            lines.append(f"| {name} | {kind} | - | {show(base)} | {show(cur)} | - | - | - |")
            continue
        lines.append(
            f"| {name} | {kind} | {cur['rows']:,} | {base['read']:.2f}+{base['fingerprint']:.2f}"
            f" | {cur['read']:.2f}+{cur['fingerprint']:.2f} | {cur['total'] / base['total']:.2f}"
            f" | {base['rss_mb']:.0f} | {cur['rss_mb']:.0f} |")
    table = "\n".join(lines)
    print(table)
    if args.markdown:
        Path(args.markdown).write_text(table + "\n")


if __name__ == "__main__":
    main()
