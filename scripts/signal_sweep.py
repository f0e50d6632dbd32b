"""SIGINT / SIGTERM sweep over ``irmeta report`` (issue 32): start the report of a
campaign, send the signal after T seconds, and check the exit status (130 / 143), the
last stderr line (``irmeta: aborted`` / ``irmeta: interrupted`` / ``irmeta: terminated``), that no
child process of the report survives it and that nothing is left behind: the ``-o`` folder
the run created is gone, and no ``irmeta-pipe-*`` spool stays in the temporary folder.

    python scripts/signal_sweep.py [--start 0.5 --stop 8 --step 0.5] [--signals INT,TERM]
        [QRELS RUN...]   # default: DL21 (../shared/data/trec-dl-2021-passage)

Prints one line per case and a summary; exit status 1 when any case failed.
"""

from __future__ import annotations

import argparse
import glob
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DL21 = ROOT.parent / "shared" / "data" / "trec-dl-2021-passage"
EXPECTED = {"INT": (130, ("irmeta: aborted", "irmeta: interrupted")),
            "TERM": (143, ("irmeta: terminated",))}


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = Path(stat).read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.split("/")[2]))
    return out


def one_case(inputs: list[str], sig: str, delay: float, work: Path) -> tuple[bool, str]:
    """Run the report, signal it after ``delay`` s; (clean, description)."""
    out = work / f"{sig}-{delay:g}"
    env = dict(os.environ, TMPDIR=str(work / "tmp"))
    Path(env["TMPDIR"]).mkdir(exist_ok=True)
    proc = subprocess.Popen([sys.executable, "-m", "irmeta", "report", *inputs,
                             "-o", str(out / "r.html"), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            text=True)
    time.sleep(delay)
    kids = _children(proc.pid)
    proc.send_signal(getattr(signal, f"SIG{sig}"))
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        return False, "still running 60 s after the signal"
    code, lines = proc.returncode, EXPECTED[sig]
    last = err.strip().splitlines()[-1] if err.strip() else ""
    problems = []
    if code == 0:
        return True, "finished before the signal"
    if code != lines[0]:
        problems.append(f"exit {code}")
    if last not in lines[1]:
        problems.append(f"last line {last!r}")
    time.sleep(0.2)
    alive = [k for k in kids if os.path.exists(f"/proc/{k}")
             and "Z" not in Path(f"/proc/{k}/stat").read_text().rsplit(")", 1)[1].split()[0]]
    if alive:
        problems.append(f"children alive {alive}")
    if out.exists():
        problems.append(f"left {sorted(p.name for p in out.rglob('*'))[:5]} in {out.name}")
    spools = os.listdir(env["TMPDIR"])
    if spools:
        problems.append(f"left {spools} in TMPDIR")
    return not problems, "; ".join(problems) or f"exit {code}, {last!r}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*")
    ap.add_argument("--start", type=float, default=0.5)
    ap.add_argument("--stop", type=float, default=8.0)
    ap.add_argument("--step", type=float, default=0.5)
    ap.add_argument("--signals", default="INT,TERM")
    args = ap.parse_args()
    inputs = args.inputs or [str(DL21 / "qrels" / "qrels.dl21-passage.txt"),
                             *sorted(glob.glob(str(DL21 / "runs" / "*.gz")))]
    delays = []
    t = args.start
    while t <= args.stop + 1e-9:
        delays.append(round(t, 3))
        t += args.step
    failed = total = 0
    with tempfile.TemporaryDirectory(prefix="irmeta-sweep-") as tmp:
        for sig in args.signals.split(","):
            for delay in delays:
                ok, what = one_case(inputs, sig, delay, Path(tmp))
                total += 1
                failed += not ok
                print(f"SIG{sig} at {delay:4.1f} s: {'ok  ' if ok else 'FAIL'} {what}",
                      flush=True)
    print(f"{total - failed} of {total} cases clean, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
