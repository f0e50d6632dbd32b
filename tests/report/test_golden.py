"""The report's numbers did not change with its split (issue 42): today's 5-run TREC DL 2021
report against the files written by 38640cb, the last commit before the split
(``tests/report/golden/dl21_5runs/README.md``: the command and the commit).

Every golden ``matrix_*.tsv`` is compared byte for byte; ``leaderboard.tsv`` column by
column, as text: every golden column must be there with the same cells in the same
rows. Today's report may add columns (the significance markers of every measure) and
files; a changed or missing old column fails."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from irmeta.cli.main import main

from ..conftest import shared_path

GOLDEN = Path(__file__).resolve().parent / "golden" / "dl21_5runs"

#: the first five run files of trec-dl-2021-passage/runs/ in sorted order (named, so that
#: a run added to the folder does not change the campaign)
RUNS = ("input.Fast_ForwardP_2.txt.gz", "input.Fast_ForwardP_5.txt.gz",
        "input.Fast_Forward_3.txt.gz", "input.NLE_P_V1andV2.txt.gz",
        "input.NLE_P_quick.txt.gz")

#: the options of the golden command (README.md beside the files)
OPTIONS = ["-l", "2", "--seed", "0", "--skip", "innovation,effort,topics,trust",
           "--no-progress"]


def read_columns(path: Path) -> tuple[list[str], dict[str, list[str]]]:
    """(header, column -> its cells as text) of a TSV; a repeated column name fails."""
    with path.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    header, body = rows[0], rows[1:]
    assert len(set(header)) == len(header), f"{path.name}: a column name repeats: {header}"
    assert all(len(r) == len(header) for r in body), f"{path.name}: ragged rows"
    return header, {c: [r[i] for r in body] for i, c in enumerate(header)}


def leaderboard_differences(golden: Path, today: Path) -> list[str]:
    """Every golden column missing today or with another cell, one line each (the
    column, then the first column's value and both cells of every differing row)."""
    header, old = read_columns(golden)
    _, new = read_columns(today)
    key = old[header[0]]
    out = []
    for column in header:
        if column not in new:
            out.append(f"column {column!r} is missing")
        elif new[column] != old[column]:
            if len(new[column]) != len(old[column]):
                out.append(f"column {column!r}: {len(new[column])} rows, "
                           f"golden {len(old[column])}")
                continue
            rows = [f"{k}: {a!r} -> {b!r}"
                    for k, a, b in zip(key, old[column], new[column]) if a != b]
            out.append(f"column {column!r}: " + "; ".join(rows))
    return out


@pytest.fixture(scope="module")
def report_files(tmp_path_factory) -> Path:
    """Today's report with the golden command: its ``report_files`` folder."""
    base = shared_path("trec-dl-2021-passage")
    paths = [shared_path("qrels", "qrels.dl21-passage.txt", base=base)]
    paths += [shared_path("runs", name, base=base) for name in RUNS]
    out = tmp_path_factory.mktemp("golden-dl21") / "report.html"
    assert main(["report", *OPTIONS, "-o", str(out), *map(str, paths)]) == 0
    return out.parent / "report_files"


def test_golden_files_are_there():
    assert (GOLDEN / "leaderboard.tsv").is_file()
    assert len(list(GOLDEN.glob("matrix_*.tsv"))) == 14


# a whole report on real data: slow (the quick loop, pytest -m "not slow", keeps the two
# checks that need no report; docs/development.md)
@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("matrix_*.tsv")))
def test_matrix_unchanged(report_files, name):
    today = report_files / name
    assert today.is_file(), f"today's report wrote no {name}"
    assert today.read_bytes() == (GOLDEN / name).read_bytes(), \
        f"{name} differs from the golden file (written by 38640cb)"


@pytest.mark.shared_data
@pytest.mark.slow
def test_leaderboard_columns_unchanged(report_files):
    differences = leaderboard_differences(GOLDEN / "leaderboard.tsv",
                                          report_files / "leaderboard.tsv")
    assert not differences, "leaderboard.tsv against 38640cb's:\n" + "\n".join(differences)


def test_the_comparison_tells_a_change(tmp_path):
    """The leaderboard comparison allows new columns, not a changed or missing one."""
    golden = GOLDEN / "leaderboard.tsv"
    header, cols = read_columns(golden)
    runs = len(cols[header[0]])

    def write(name: str, head: list[str], columns: dict[str, list[str]]) -> Path:
        path = tmp_path / name
        lines = ["\t".join(head)] + ["\t".join(columns[c][i] for c in head)
                                     for i in range(runs)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    added = write("added.tsv", [*header, "risk"], {**cols, "risk": ["0.5"] * runs})
    assert leaderboard_differences(golden, added) == []
    changed = dict(cols, AP=[*cols["AP"][:-1], "0.9"])
    [line] = leaderboard_differences(golden, write("changed.tsv", header, changed))
    assert line == f"column 'AP': {cols['run'][-1]}: {cols['AP'][-1]!r} -> '0.9'"
    missing = [c for c in header if c != "ci_low"]
    assert leaderboard_differences(golden, write("missing.tsv", missing, cols)) == \
        ["column 'ci_low' is missing"]
