"""Exit-path stress (issue 41, item 6): ``irmeta eval`` on a bad input, many times in
parallel batches under a CPU burner, each run with a timeout so that a hang is counted
rather than waited for.

Two inputs, each ending in exit 2 with a located message:

* ``5-field``: a large run file (``--lines`` lines, default 1,000,000) whose last line has
  5 fields (Arrow's fast path refuses it, the careful path reads it through a Python
  stream: the native abort at exit, ``terminate called without an active exception``,
  exit -6, was seen there);
* ``gzip-cut``: the same run, gzip-compressed and cut in the middle (read by Arrow's
  native decompressing stream: the hang at exit was seen there).

    python scripts/exit_stress.py [--runs 150] [--parallel 4] [--burners 1]
        [--timeout 30] [--lines 1000000] [--cases 5-field,gzip-cut]

``--runs`` is per case. Prints one table (cases, exit-2, aborts, hangs, other) and the
first lines of every unexpected outcome; exit status 1 when any run was not a clean
exit 2. The defaults take about 2-3 minutes on 2 cores; each hang costs its timeout
(30 s, 4 at once): before the fix, 16 hangs in 100 gzip runs added about 3 minutes.
"""

from __future__ import annotations

import argparse
import gzip
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CASES = ("5-field", "gzip-cut")


def make_inputs(folder: Path, lines: int) -> dict[str, tuple[Path, Path]]:
    """The qrels and the two bad runs in ``folder``: case name -> (qrels, run)."""
    qrels = folder / "qrels.txt"
    qrels.write_bytes(b"".join(b"%d 0 d%d %d\n" % (t, d, d % 3)
                               for t in range(1, 51) for d in range(100)))
    per_topic = max(1, lines // 50)
    body = b"".join(b"%d Q0 d%d %d %.4f tag\n" % (t, d, d + 1, 1000 - d / 1000)
                    for t in range(1, 51) for d in range(per_topic))
    run = folder / "run-5-field.txt"
    run.write_bytes(body + b"50 Q0 dlast 1 0.5\n")
    packed = gzip.compress(body, compresslevel=1)
    cut = folder / "run-cut.gz"
    cut.write_bytes(packed[:len(packed) // 2])
    return {"5-field": (qrels, run), "gzip-cut": (qrels, cut)}


def burner() -> subprocess.Popen:
    """A process that keeps one core busy until it is killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def one_run(qrels: Path, run: Path, timeout: float) -> tuple[str, str]:
    """(outcome, detail): ``exit-2``, ``abort`` (killed by a signal, e.g. -6), ``hang``
    (still running after ``timeout`` s; its process group is killed) or ``other``."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.Popen([sys.executable, "-m", "irmeta", "eval", str(qrels), str(run),
                             "-m", "AP"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        said = err.decode(errors="replace").strip().splitlines()
        return "hang", f"after {timeout:g} s; stderr: {said[-1] if said else ''}"
    text = err.decode(errors="replace").strip()
    last = text.splitlines()[-1] if text else ""
    if proc.returncode == 2 and last.startswith("irmeta: error:") and len(
            text.splitlines()) == 1:
        return "exit-2", ""
    if proc.returncode < 0 or proc.returncode in (134, 139):
        return "abort", f"exit {proc.returncode}; stderr: {text[-300:]}"
    return "other", f"exit {proc.returncode}; stderr: {text[-300:]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=150, help="runs per case (default 150)")
    ap.add_argument("--parallel", type=int, default=4, help="runs at once (default 4)")
    ap.add_argument("--burners", type=int, default=1, help="CPU burner processes (default 1)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds after which a run counts as a hang (default 30; a run "
                         "takes 1-5 s under the default load)")
    ap.add_argument("--lines", type=int, default=1_000_000,
                    help="lines of the large run file (default 1,000,000)")
    ap.add_argument("--cases", default=",".join(CASES),
                    help=f"comma-separated cases (default {','.join(CASES)})")
    args = ap.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = set(cases) - set(CASES)
    if unknown:
        ap.error(f"unknown case(s) {', '.join(sorted(unknown))}; known: {', '.join(CASES)}")

    with tempfile.TemporaryDirectory(prefix="irmeta-exit-stress-") as tmp:
        started = time.monotonic()
        inputs = make_inputs(Path(tmp), args.lines)
        print(f"inputs: {args.lines:,} lines, made in {time.monotonic() - started:.1f} s; "
              f"{args.runs} runs per case, {args.parallel} at once, {args.burners} "
              f"burner(s), timeout {args.timeout:g} s", flush=True)
        burners = [burner() for _ in range(args.burners)]
        rows, notes = [], []
        try:
            for case in cases:
                qrels, run = inputs[case]
                t0 = time.monotonic()
                with ThreadPoolExecutor(max_workers=args.parallel) as pool:
                    results = list(pool.map(lambda _: one_run(qrels, run, args.timeout),
                                            range(args.runs)))
                counts = {k: sum(1 for o, _ in results if o == k)
                          for k in ("exit-2", "abort", "hang", "other")}
                rows.append((case, len(results), counts, time.monotonic() - t0))
                notes += [f"{case}: {o}: {d}" for o, d in results if o != "exit-2"]
        finally:
            for b in burners:
                b.kill()
                b.wait()

    print()
    print(f"{'case':<10} {'cases':>6} {'exit-2':>7} {'aborts':>7} {'hangs':>6} {'other':>6}"
          f" {'seconds':>8}")
    for case, n, c, secs in rows:
        print(f"{case:<10} {n:>6} {c['exit-2']:>7} {c['abort']:>7} {c['hang']:>6} "
              f"{c['other']:>6} {secs:>8.0f}")
    total = {k: sum(r[2][k] for r in rows) for k in ("exit-2", "abort", "hang", "other")}
    print(f"{'total':<10} {sum(r[1] for r in rows):>6} {total['exit-2']:>7} "
          f"{total['abort']:>7} {total['hang']:>6} {total['other']:>6}")
    for note in notes[:20]:
        print(" ", note)
    if len(notes) > 20:
        print(f"  ... and {len(notes) - 20} more")
    return 0 if not notes else 1


if __name__ == "__main__":
    sys.exit(main())
