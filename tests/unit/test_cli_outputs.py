"""Every subcommand that writes: output errors are one line and exit 2 (never "internal
error"), a broken pipe exits quietly, reports are replaced whole."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from irmeta.cli.main import EXIT_BROKEN_PIPE, main

SRC = str(Path(__file__).parents[2] / "src")
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False
FAST_REPORT = ["--skip", "innovation,effort,topics,trust", "--no-progress"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> list[str]:
    """A qrels file and three runs (three topics): QRELS RUN RUN RUN."""
    folder = tmp_path_factory.mktemp("tiny")
    rng = random.Random(1)
    lines = [f"{t} 0 d{d} {rng.choice([0, 0, 1, 2])}\n" for t in (1, 2, 3) for d in range(12)]
    (folder / "qrels.txt").write_text("".join(lines))
    for name in "abc":
        rows = []
        for t in (1, 2, 3):
            for i, d in enumerate(rng.sample(range(12), 10)):
                rows.append(f"{t} Q0 d{d} {i + 1} {10 - i} run_{name}\n")
        (folder / f"run_{name}.txt").write_text("".join(rows))
    return [str(folder / "qrels.txt")] + [str(folder / f"run_{n}.txt") for n in "abc"]


#: subcommand -> argument list before the campaign files; the output goes to -o PATH
WRITERS = {
    "eval": (["eval", "-m", "AP"], []),
    "eval json": (["eval", "-m", "AP", "--format", "json"], []),
    "explain": (["explain", "-k", "5"], []),
    "aggregate": (["aggregate", "-m", "AP", "-a", "mean"], []),
    "meta": (["meta", "correlation", "-m", "AP", "-m", "P@5"], []),
    "twist": (["twist", "archetypes"], []),
    "twist points": (["twist", "grid", "--depth", "10", "-g", "AP"], ["--points"]),
}


def _args(name: str, tiny, path) -> list[str]:
    head, option = WRITERS[name]
    return [*head, *tiny, *(option or ["-o"]), str(path)]


def _one_error_line(err: str) -> str:
    assert "internal error" not in err and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("irmeta: error: cannot write ")
    return last


CASES = {
    "missing folder": (lambda t: t / "out" / "x.tsv",
                       "No such file or directory (the folder {t}/out does not exist)"),
    "under a file": (lambda t: t / "afile" / "x.tsv",
                     "Not a directory ({t}/afile is a file, not a folder)"),
    "disk full": (lambda t: Path("/dev/full"), "No space left on device"),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("writer", WRITERS)
def test_output_errors(tmp_path, capsys, tiny, writer, case):
    if case == "disk full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    (tmp_path / "afile").write_text("keep")
    make, reason = CASES[case]
    path = make(tmp_path)
    assert main(_args(writer, tiny, path)) == 2
    line = _one_error_line(capsys.readouterr().err)
    assert line == f"irmeta: error: cannot write {path}: {reason.format(t=tmp_path)}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.skipif(ROOT, reason="root ignores folder permissions")
@pytest.mark.parametrize("writer", WRITERS)
def test_read_only_folder(tmp_path, capsys, tiny, writer):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert main(_args(writer, tiny, folder / "x.tsv")) == 2
    finally:
        folder.chmod(0o755)
    assert "Permission denied (no permission to write in the folder" in \
        _one_error_line(capsys.readouterr().err)


def test_output_written_when_possible(tmp_path, capsys, tiny):
    out = tmp_path / "x.tsv"
    out.write_text("old")
    assert main(_args("eval", tiny, out)) == 0
    assert out.read_text().startswith("run_a\trunid") and sorted(os.listdir(tmp_path)) == ["x.tsv"]


def test_figure_under_a_file(tmp_path, capsys, tiny):
    (tmp_path / "afile").write_text("keep")
    assert main(["twist", "grid", *tiny, "--depth", "10", "-g", "AP", "-o", os.devnull,
                 "--plot", str(tmp_path / "afile" / "grid")]) == 2
    assert "(" + str(tmp_path / "afile") + " is a file, not a folder)" in \
        _one_error_line(capsys.readouterr().err)


# ---------------------------------------------------------------------- standard output
def _cli(args, stdout) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-m", "irmeta.cli.main", *args], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, check=False)


@pytest.mark.slow
def test_broken_pipe_is_quiet(tiny):
    """``irmeta eval ... | head -c 1``: the reader is gone before irmeta writes."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = _cli(["eval", "-q", *tiny], write)
    finally:
        os.close(write)
    assert proc.returncode == EXIT_BROKEN_PIPE == 141
    assert proc.stderr == ""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_stdout_disk_full(tiny):
    with open("/dev/full", "w") as full:
        proc = _cli(["eval", *tiny], full)
    assert proc.returncode == 2
    assert proc.stderr == ("irmeta: error: cannot write standard output: "
                           "No space left on device\n")


# ---------------------------------------------------------------------- report
def test_report_output_errors(tmp_path, capsys, tiny):
    (tmp_path / "afile").write_text("keep")
    assert main(["report", *tiny, "-o", str(tmp_path / "afile" / "r.html"), *FAST_REPORT]) == 2
    assert f"({tmp_path / 'afile'} is a file, not a folder)" in \
        _one_error_line(capsys.readouterr().err)
    (tmp_path / "r_files").write_text("keep")
    assert main(["report", *tiny, "-o", str(tmp_path / "r.html"), *FAST_REPORT]) == 2
    assert _one_error_line(capsys.readouterr().err) == \
        f"irmeta: error: cannot write {tmp_path / 'r_files'}: it is a file, not a folder"
    assert sorted(os.listdir(tmp_path)) == ["afile", "r_files"]


@pytest.mark.slow
def test_second_report_replaces_the_first_whole(tmp_path, capsys, tiny):
    out = tmp_path / "r.html"
    assert main(["report", "--demo", "-o", str(out), *FAST_REPORT]) == 0
    assets = tmp_path / "r_files"
    first = {p.relative_to(assets) for p in assets.rglob("*")}
    assert main(["report", *tiny, "-o", str(out), *FAST_REPORT, "--skip", "nrg"]) == 0
    files = {p.relative_to(assets) for p in assets.rglob("*")}
    assert first - files                                   # the demo wrote more files
    assert any(p.parent.name == "runs" for p in files)     # the appendix pages too
    for name in files:                                     # none names a demo run
        if (assets / name).is_file():
            assert "lexA" not in (assets / name).read_text(errors="replace")
    assert "run_a" in out.read_text() and "lexA" not in out.read_text()
    assert sorted(os.listdir(tmp_path)) == ["r.html", "r.zip", "r_files"]


@pytest.mark.slow
def test_interrupted_report_keeps_the_previous_one(tmp_path, monkeypatch, tiny):
    from irmeta.io.load import load_campaign
    from irmeta.report import ReportOptions, assemble, campaign_report
    out = tmp_path / "r.html"
    opts = ReportOptions(progress=False, skip=frozenset({"innovation", "effort", "topics",
                                                          "trust"}))
    campaign = load_campaign(tiny[0], tiny[1:])
    campaign_report(campaign, out, options=opts)
    def files():
        assets = sorted(p for p in (tmp_path / "r_files").rglob("*") if p.is_file())
        return {str(p.relative_to(tmp_path)): p.read_bytes() for p in [out, *assets]}
    before = files()
    assert any("/runs/" in name for name in before)        # the appendix pages too

    import dataclasses

    def interrupted(st):
        raise KeyboardInterrupt
    registry = tuple(dataclasses.replace(s, render=interrupted) if s.name == "nrg" else s
                     for s in assemble.REGISTRY)   # rendered after the leaderboard
    assert registry != assemble.REGISTRY
    monkeypatch.setattr(assemble, "REGISTRY", registry)
    with pytest.raises(KeyboardInterrupt):
        campaign_report(load_campaign(tiny[0], tiny[1:3]), out, options=opts)
    assert files() == before
    # no staging folder left; the zip of the page (issue 14) is the first report's
    assert sorted(os.listdir(tmp_path)) == ["r.html", "r.zip", "r_files"]


# ---------------------------------------------------------------------- reproduce
@pytest.mark.slow
def test_reproduce_replaces_its_files_keeps_yours(tmp_path, capsys):
    matrix = tmp_path / "m.csv"
    matrix.write_text("run,t1,t2,t3\nx,0.1,0.2,0.4\ny,0.3,0.1,0.2\nz,0.5,0.6,0.1\n")
    out = tmp_path / "out"
    args = ["reproduce", "gawm", "--matrix", str(matrix), "--rows", "systems", "-o", str(out),
            "--no-svg", "--dpi", "40", "--no-progress"]
    assert main(args) == 0
    (out / "mine.txt").write_text("my notes")
    (out / "index_files" / "stale.tsv").write_text("from an older version")
    assert main(args) == 0
    assert (out / "mine.txt").read_text() == "my notes"
    assert not (out / "index_files" / "stale.tsv").exists()
    assert sorted(os.listdir(out)) == ["index.html", "index_files", "mine.txt"]
    (tmp_path / "afile").write_text("x")
    args[args.index("-o") + 1] = str(tmp_path / "afile" / "sub")
    assert main(args) == 2
    assert "is a file, not a folder" in _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("command", [["eval", "-m", "AP"], ["explain"], ["aggregate"],
                                     ["twist", "curve"], ["meta", "correlation"]])
def test_output_folder_is_checked_before_any_work(tmp_path, command, capsys):
    """A typo in -o is reported at once, before the (here missing) inputs are read."""
    from irmeta.cli.main import main
    target = str(tmp_path / "no-such-folder" / "out.tsv")
    code = main([*command, str(tmp_path / "missing-qrels"), str(tmp_path / "missing-run"),
                 "-o", target])
    err = capsys.readouterr().err
    assert code == 2 and "no-such-folder does not exist" in err, err
    assert "missing-qrels" not in err and "missing-run" not in err, err
