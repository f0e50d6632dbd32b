"""Two ``irmeta report -o same`` at once (issue 22, item 9): both exit 0 and the folder
holds one whole report. Before, both wrote the archive through the fixed temporary name
``.<stem>.zip.tmp``, so one renamed the other's file away (2 of 17 trials exit 1), and the
archive was read from the published folder while the other process swapped it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# processes (quick loop: pytest -m "not slow", docs/development.md)
pytestmark = pytest.mark.slow

FAST = ["--skip", "innovation,effort,topics,trust", "--no-progress"]


def _report(qrels, runs, out) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    return subprocess.Popen([sys.executable, "-m", "irmeta.cli.main", "report", str(qrels),
                             *map(str, runs), "-o", str(out), *FAST],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


def test_two_reports_to_the_same_page_at_once(tmp_path):
    from irmeta.demo import demo_paths
    p = demo_paths()
    out = tmp_path / "same.html"
    for _ in range(3):                       # three rounds of two processes
        procs = [_report(p.qrels, p.runs[:3], out) for _ in range(2)]
        for proc in procs:
            _, err = proc.communicate()
            assert proc.returncode == 0, err.decode()
    assert sorted(os.listdir(tmp_path)) == ["same.html", "same.zip", "same_files"]  # no temp
    with zipfile.ZipFile(tmp_path / "same.zip") as z:         # one whole report
        names = sorted(z.namelist())
        on_disk = sorted(str(f.relative_to(tmp_path).as_posix())
                         for f in tmp_path.rglob("*") if f.is_file() and f.suffix != ".zip")
        assert names == on_disk
        assert all(z.read(n) == (tmp_path / n).read_bytes() for n in names)
