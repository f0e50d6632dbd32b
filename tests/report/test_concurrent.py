"""Two processes writing the same report at once (issue 22, item 9): both succeed and the
folder holds one whole report. Before, both wrote the archive through the fixed temporary
name ``.<stem>.zip.tmp``, so one renamed the other's file away (``irmeta report -o same``
twice: 2 of 17 trials exit 1), and the archive was read from the published folder while
the other process swapped it. Each process here publishes a small page, its folder and
its archive 40 times through :class:`~irmeta.report.html.ReportWriter`, the writer of
``irmeta report`` and of the reproductions, so the two overlap many times in a few
seconds (the same loop with the former writer failed at once)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

# processes (quick loop: pytest -m "not slow", docs/development.md)
pytestmark = pytest.mark.slow

_WRITER = """
import sys
import pandas as pd
from irmeta.report.html import ReportWriter
frame = pd.DataFrame({"run": ["a", "b"], "AP": [0.5, 0.25]})
for _ in range(40):
    w = ReportWriter(sys.argv[1], "same", archive=True)
    try:
        w.section("s", "S").add(w.table("t", frame))
        w.render()
    finally:
        w.discard()
"""


def test_two_processes_write_the_same_report_at_once(tmp_path):
    out = tmp_path / "same.html"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(out)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(2)]
    errors = [proc.communicate()[1] for proc in procs]   # both, before any assert:
    for proc, err in zip(procs, errors):                  # a leaked Popen fails a later test
        assert proc.returncode == 0, err.decode()
    assert sorted(os.listdir(tmp_path)) == ["same.html", "same.zip", "same_files"]  # no temp
    with zipfile.ZipFile(tmp_path / "same.zip") as z:         # one whole report
        names = sorted(z.namelist())
        on_disk = sorted(str(f.relative_to(tmp_path).as_posix())
                         for f in tmp_path.rglob("*") if f.is_file() and f.suffix != ".zip")
        assert names == on_disk == ["same.html", "same_files/t.tsv"]
        assert all(z.read(n) == (tmp_path / n).read_bytes() for n in names)
