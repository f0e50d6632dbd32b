"""``irmeta report`` on the command line."""

from __future__ import annotations

import pandas as pd
import pytest

from irmeta.cli.main import main

# whole report generation (quick loop: pytest -m "not slow", docs/development.md)
pytestmark = pytest.mark.slow

FAST = ["--skip", "innovation,effort,topics,trust"]


def test_demo_cli(tmp_path, capsys):
    out = tmp_path / "demo.html"
    assert main(["report", "--demo", "-o", str(out), "--no-progress", *FAST,
                 "--title", "Demo <test>"]) == 0
    page = out.read_text(encoding="utf-8")
    assert "<title>Demo &lt;test&gt;</title>" in page
    # paths relative to the page's folder (the command runs from there)
    assert ("irmeta report --demo --output demo.html --title &#39;Demo &lt;test&gt;&#39; "
            "--skip innovation,effort,topics,trust --no-progress") in page
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
                 "--no-progress", *FAST, "--nrg-cutoff", "5"]) == 0
    lb = pd.read_csv(tmp_path / "sub" / "r_files" / "leaderboard.tsv", sep="\t")
    assert len(lb) == 5 and "NRG(prior=others)@5" in lb.columns      # measure strings
    page = out.read_text(encoding="utf-8")
    assert "every run is its own group" in page


@pytest.mark.parametrize("args, msg", [
    (["--skip", "bogus"], "unknown section"),
    (["--alphas", "0.5"], "at least 2 values"),
    (["--discpower-trials", "0"], "discpower-trials"),
])
def test_bad_options(tmp_path, capsys, args, msg):
    assert main(["report", "--demo", "-o", str(tmp_path / "x.html"), *args]) == 2
    assert msg in capsys.readouterr().err


def test_needs_inputs(capsys):
    assert main(["report", "--no-progress"]) == 2
    assert "QRELS" in capsys.readouterr().err


def test_reference_and_prior_runs(tmp_path):
    """--reference-runs changes the rarity of P_rare/AP_rare; --prior-runs makes the
    NRG prior an explicit list."""
    from irmeta.demo import demo_paths
    p = demo_paths()
    runs = list(map(str, p.runs[:4]))
    base = ["report", str(p.qrels), *runs, "--no-progress", *FAST, "--skip", "nrg"]
    assert main([*base, "-o", str(tmp_path / "a.html")]) == 0
    assert main([*base, "-o", str(tmp_path / "b.html"), "--reference-runs", str(p.runs[10]),
                 "--reference-runs", str(p.runs[20]), "--prior-runs", "expD-prf"]) == 0
    a = pd.read_csv(tmp_path / "a_files" / "leaderboard.tsv", sep="\t").set_index("run")
    b = pd.read_csv(tmp_path / "b_files" / "leaderboard.tsv", sep="\t").set_index("run")
    assert (a["AP"] == b["AP"]).all()
    assert not (a["P_rare(alpha=1)@100"] == b["P_rare(alpha=1)@100"]).all()
    page = (tmp_path / "b.html").read_text(encoding="utf-8")
    assert "NRG(prior=list)@10" in page and "list: expD-prf" in page
    assert "rarity reference runs (P_rare, AP_rare)" in page


def test_short_relative_command_and_zip(tmp_path):
    """The re-run command names the files relative to the page, a whole folder of runs
    as DIR/*; the page and its files are also one reproducible .zip."""
    import re
    import shutil
    import zipfile

    from irmeta.demo import demo_paths
    p = demo_paths()
    runs = tmp_path / "data" / "runs"
    runs.mkdir(parents=True)
    for f in p.runs[:6]:
        shutil.copy(f, runs)
    qrels = shutil.copy(p.qrels, tmp_path / "data")
    files = sorted(str(f) for f in runs.iterdir())
    out = tmp_path / "site" / "r.html"
    zips = []
    for _ in range(2):
        assert main(["report", str(qrels), *files, "-o", str(out), "--no-progress",
                     *FAST]) == 0
        zips.append((tmp_path / "site" / "r.zip").read_bytes())
    page = out.read_text(encoding="utf-8")
    command = re.search(r'<pre class="command">([^<]*)</pre>', page).group(1)
    assert command == ("irmeta report --output r.html --skip innovation,effort,topics,trust "
                       "--no-progress ../data/qrels.txt ../data/runs/*")
    assert zips[0] == zips[1]                               # byte-reproducible
    with zipfile.ZipFile(tmp_path / "site" / "r.zip") as z:
        names = z.namelist()
        assert names[0] == "r.html" and "r_files/leaderboard.tsv" in names
        assert z.read("r.html") == out.read_bytes()
    assert 'href="./r.zip"' in page
    # the runs in another order than the folder's listing: listed one by one
    assert main(["report", str(qrels), *files[::-1], "-o", str(out), "--no-progress",
                 *FAST]) == 0
    command = re.search(r'<pre class="command">([^<]*)</pre>', out.read_text()).group(1)
    assert command.endswith(" ".join(f"../data/runs/{f.rsplit('/', 1)[1]}"
                                     for f in files[::-1]))
