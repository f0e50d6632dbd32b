"""``irmeta report`` and ``irmeta reproduce`` on degenerate but valid campaigns (issue 11,
class 7): a page with the sections that make sense and a note for the others, or a
one-line error with exit status 2 — never an internal error."""

from __future__ import annotations

import warnings

import pandas as pd
import pytest

from irmeta.cli.main import main
from tests.unit.test_degenerate import _write

# whole reports and reproductions on degenerate campaigns (quick loop: -m "not slow")
pytestmark = pytest.mark.slow

QUICK = ["--no-progress", "--discpower-trials", "20", "--stability-trials", "10",
         "--skip", "innovation,effort,topics"]


def _run(args):
    if args[0] == "report":
        return main(args)           # the report emits no warning on these campaigns
    with warnings.catch_warnings():
        # irmeta reproduce gawm on a constant matrix: numpy's "All-NaN slice" from the
        # reproduction's code (src/irmeta/reproduce, rewritten separately, issue 15)
        warnings.filterwarnings("ignore", "All-NaN slice encountered", RuntimeWarning)
        return main(args)


def test_report_one_topic(tmp_path, capsys):
    """One topic: the trust section omits significance/stability and says why."""
    qrels, runs = _write(tmp_path / "c", ["1"], ["1"])
    out = tmp_path / "r.html"
    assert _run(["report", qrels, *runs, "-o", str(out), *QUICK]) == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert "Discriminative power and stability are omitted" in page
    assert "this campaign has 1 topic(s)" in page
    lb = pd.read_csv(tmp_path / "r_files" / "leaderboard.tsv", sep="\t").set_index("run")
    assert lb.loc["a", "AP"] == pytest.approx(lb.loc["b", "AP"])


def test_report_identical_runs(tmp_path, capsys):
    """Identical runs: tau between classic measures is undefined (all runs tie)."""
    qrels, runs = _write(tmp_path / "c", ["1", "2", "3"], ["1", "2", "3"], same_run=True)
    out = tmp_path / "r.html"
    assert _run(["report", qrels, *runs, "-o", str(out), *QUICK]) == 0, capsys.readouterr().err
    tau = pd.read_csv(tmp_path / "r_files" / "trust_kendall_tau.tsv", sep="\t", index_col=0)
    assert tau.loc[["AP", "P@10", "nDCG@10"], ["AP", "P@10", "nDCG@10"]].isna().sum().sum() == 6


@pytest.mark.parametrize("spec, message", [
    (dict(topics_q=["7", "8"], topics_r=["1", "2"], runs="ab", same_run=True),
     "no run shares a topic with the qrels"),
    (dict(topics_q=["1", "2"], topics_r=["1", "2"], grade=lambda i: 0),
     "no qrels topic has a relevant document"),
])
@pytest.mark.parametrize("command", [["report"], ["reproduce", "nrg"], ["reproduce", "gawm"],
                                     ["reproduce", "innovation"]])
def test_no_topic_to_analyse(tmp_path, capsys, spec, message, command):
    qrels, runs = _write(tmp_path / "c", **spec)
    assert _run([*command, qrels, *runs, "-o", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err


def test_reproduce_needs_two_topics(tmp_path, capsys):
    qrels, runs = _write(tmp_path / "c", ["1"], ["1"])
    assert _run(["reproduce", "twist", qrels, *runs, "-o", str(tmp_path / "out")]) == 2
    assert "need at least 2 topics with a relevant document, got 1" in capsys.readouterr().err


def test_reproduce_gawm_constant_matrix(tmp_path, capsys):
    """All-zero matrix: every system ties, leave-one-topic-out tau is undefined; the page
    says so instead of crashing."""
    path = tmp_path / "zero.tsv"
    path.write_text("run\ttopic\tvalue\n" + "".join(f"s{s}\tt{t}\t0\n" for s in range(4)
                                                    for t in range(5)))
    out = tmp_path / "g"
    assert _run(["reproduce", "gawm", "--matrix", str(path), "-o", str(out)]) == 0, \
        capsys.readouterr().err
    assert "leave-one-topic-out τ is undefined" in (out / "index.html").read_text(encoding="utf-8")
