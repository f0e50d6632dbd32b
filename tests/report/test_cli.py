"""``irmeta report`` on the command line."""

from __future__ import annotations

import pandas as pd
import pytest

from irmeta.cli.main import main

FAST = ["--skip", "innovation,effort,topics,trust"]


def test_demo_cli(tmp_path, capsys):
    out = tmp_path / "demo.html"
    assert main(["report", "--demo", "-o", str(out), "--no-progress", *FAST,
                 "--title", "Demo <test>"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<title>Demo &lt;test&gt;</title>" in page
    assert f"irmeta report --demo --output {out} --title &#39;Demo &lt;test&gt;&#39; --skip innovation,effort,topics,trust --no-progress" in page
    assert "--skip innovation,effort,topics,trust" in page
    assert "groups.txt" in page and "best_per_group" in page       # demo groups used
    lb = pd.read_csv(tmp_path / "demo_files" / "leaderboard.tsv", sep="\t")
    assert len(lb) == 30
    assert "wrote" in capsys.readouterr().err


def test_files_cli(tmp_path):
    from irmeta.demo import demo_paths
    p = demo_paths()
    out = tmp_path / "sub" / "r.html"
    assert main(["report", str(p.qrels), *map(str, p.runs[:5]), "-o", str(out),
                 "--no-progress", *FAST, "--nrg-k", "5"]) == 0
    lb = pd.read_csv(tmp_path / "sub" / "r_files" / "leaderboard.tsv", sep="\t")
    assert len(lb) == 5 and "NRG@5" in lb.columns
    page = out.read_text(encoding="utf-8")
    assert "every run is its own group" in page


@pytest.mark.parametrize("args, msg", [
    (["--skip", "bogus"], "unknown section"),
    (["--alphas", "0.5"], "at least two values"),
    (["--bootstrap", "0"], "bootstrap"),
])
def test_bad_options(tmp_path, capsys, args, msg):
    assert main(["report", "--demo", "-o", str(tmp_path / "x.html"), *args]) == 2
    assert msg in capsys.readouterr().err


def test_needs_inputs(capsys):
    assert main(["report", "--no-progress"]) == 2
    assert "QRELS" in capsys.readouterr().err
