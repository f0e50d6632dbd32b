"""irmeta's own warnings reach a CLI user as one line ``irmeta: note: ...`` (issue 24,
defect 8: ``-m Twist@100`` printed a raw ``UserWarning`` with a source path)."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.report import tiny


def test_twist_undefined_topics_is_a_one_line_note(tmp_path):
    q = tiny.qrels()
    (tmp_path / "qrels.txt").write_text("".join(f"{t} 0 {d} {g}\n" for t in q
                                                for d, g in q[t].items()))
    run = tiny.runs()["r1"]
    (tmp_path / "r1.txt").write_text("".join(
        f"{t} Q0 {d} {i + 1} {s} r1\n" for t in run
        for i, (d, s) in enumerate(sorted(run[t].items(), key=lambda x: -x[1]))))
    # 3 relevant documents per topic: Twist@2 is undefined on t1..t7
    done = subprocess.run([sys.executable, "-m", "irmeta.cli.main", "eval", "qrels.txt",
                           "r1.txt", "-m", "Twist@2"], cwd=tmp_path, capture_output=True,
                          text=True, env={**os.environ, "PYTHONWARNINGS": ""})
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines == ["irmeta: note: Twist@2: 7 topic(s) have more relevant documents than "
                     "the depth and are undefined (NaN): t1, t2, t3, t4, t5, t6, t7; use a "
                     "depth >= the recall base"], done.stderr
    assert "UserWarning" not in done.stderr and ".py:" not in done.stderr
