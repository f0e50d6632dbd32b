"""Fuzz: signals and a full disk during ``irmeta report`` (issue 32, items 1 and 2).

* SIGINT / SIGTERM at several moments of a real DL21 report (63 runs: the children of
  the leaderboard's intervals and the trust tests, the figure children, the render):
  exit 130 / 143 with ``irmeta: aborted`` / ``irmeta: terminated``, no child left, and
  nothing left behind (the ``-o`` folder the run made is removed again, no spool). The
  whole sweep, 0.5 to 8 s at 0.5 s steps, is ``scripts/signal_sweep.py`` (results in
  docs/robustness.md); here a few moments of it (``slow``).
* A full disk (a small tmpfs in a private mount namespace, where ``unshare`` may make
  one) at several fill levels: exit 2 ``cannot write PATH: No space left on device`` and
  no ``-o`` folder left behind. Skipped where no such mount can be made.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]


def _sweep():
    spec = importlib.util.spec_from_file_location("signal_sweep",
                                                  ROOT / "scripts" / "signal_sweep.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize("sig", ["INT", "TERM"])
@pytest.mark.parametrize("delay", [1.0, 3.0, 4.5])
def test_signal_into_a_dl21_report_is_clean(sig, delay, tmp_path):
    base = shared_path("trec-dl-2021-passage")
    inputs = [str(base / "qrels" / "qrels.dl21-passage.txt"),
              *sorted(str(p) for p in (base / "runs").glob("*.gz"))]
    ok, what = _sweep().one_case(inputs, sig, delay, tmp_path)
    assert ok, what


def _can_mount_tmpfs(where: Path) -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c",
                            f"mount -t tmpfs -o size=64k tmpfs {where}"],
                           capture_output=True)
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.parametrize("size", ["100k", "300k", "1m", "3m"])
def test_full_disk_during_a_report_is_a_located_error(size, tmp_path):
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if not _can_mount_tmpfs(mnt):
        pytest.skip("no private tmpfs can be mounted here (unshare --mount)")
    script = (f"mount -t tmpfs -o size={size} tmpfs {mnt} && "
              f"{sys.executable} -m irmeta.cli.main report --demo "
              f"-o {mnt}/out/new/r.html --no-progress; echo \"status $?\"; "
              f"ls -A {mnt}")
    done = subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", script],
                          capture_output=True, text=True, timeout=300)
    err = done.stderr.strip().splitlines()
    assert err and err[-1].startswith(f"irmeta: error: cannot write {mnt}/out/"), done.stderr
    assert err[-1].endswith(": No space left on device"), done.stderr
    lines = done.stdout.split("\n")
    assert lines[0] == "status 2"
    assert [x for x in lines[1:] if x] == []          # no out/ (made by the run) is left
