"""``--run-info FILE`` (issue 24, item 3): run attributes as leaderboard columns, filters
and figure colours, validated like every input (a located error, exit 2)."""

from __future__ import annotations

import pandas as pd
import pytest

from irmeta.cli.main import main
from irmeta.errors import InputError, ParameterError
from irmeta.io.runinfo import check_run_info, read_run_info
from irmeta.report import ReportOptions, analyse_campaign
from irmeta.report import render as R
from tests.report import tiny

RUNS = tiny.RUNS            # ideal, r1 ... r4
GOOD = "run\ttype\tmodel\n" + "".join(
    f"{r}\t{'reranking' if i % 2 else 'full ranking'}\tbert {i}\n" for i, r in enumerate(RUNS))


def _file(tmp_path, text: str, name: str = "info.tsv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_read_run_info(tmp_path):
    info = read_run_info(_file(tmp_path, "# attributes\n" + GOOD + "\n"), list(reversed(RUNS)))
    assert list(info.index) == list(reversed(RUNS))           # campaign order
    assert list(info.columns) == ["type", "model"]
    assert info.loc["r1", "type"] == "reranking" and info.loc["r2", "model"] == "bert 2"


@pytest.mark.parametrize("text,where,what", [
    ("name\ttype\n" + GOOD.split("\n", 1)[1], ":1", "bad header"),
    ("run\n" + "".join(f"{r}\n" for r in RUNS), ":1", "bad header"),
    ("run\ttype\ttype\n", ":1", "attribute 'type' named twice"),
    (GOOD + "r1\treranking\tbert 9\n", ":7", "run 'r1' is given twice (first on line 3)"),
    (GOOD + "r9\treranking\tx\n", ":7", "run 'r9' is not a run of the campaign"),
    (GOOD.replace("r3\t", "r3 ").replace("\tbert 3", " bert 3"), ":5", "1 fields"),
    ("".join(GOOD.splitlines(keepends=True)[:-1]), "info.tsv:", "no row for run(s) r4"),
    ("# nothing\n", "info.tsv:", "no header row"),
])
def test_bad_run_info_is_a_located_error(tmp_path, text, where, what):
    path = _file(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_run_info(path, RUNS)
    assert f"{path}{where}" in str(err.value) or where == "info.tsv:", str(err.value)
    assert what in str(err.value)


def test_cli_exit_2_and_frames(tmp_path, capsys):
    path = _file(tmp_path, GOOD.replace("r2\t", "rX\t"))
    code = main(["report", "--demo", "--run-info", str(path), "-o",
                 str(tmp_path / "r.html"), "--no-progress"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"irmeta: error: {path}:2:") and "not a run of the campaign" in err
    frame = pd.DataFrame({"type": ["a", "b"]}, index=["x", "x"])
    with pytest.raises(ParameterError, match="names run 'x' twice"):
        check_run_info(frame, ["x", "y"], "report")
    with pytest.raises(ParameterError, match="run_info must be a path"):
        ReportOptions(run_info=42).validate()


def test_attributes_are_columns_filters_and_colours(tmp_path):
    opts = ReportOptions(progress=False, background=0, discpower_trials=20,
                         stability_trials=10, ci_trials=50, rare_cutoff=10,
                         skip=frozenset({"innovation", "effort", "topics", "trust"}))
    a = analyse_campaign(tiny.campaign(), opts, run_info=_file(tmp_path, GOOD))
    lb = a.leaderboard
    assert list(lb.attributes.columns) == ["type", "model"]
    t = lb.table
    assert list(t.columns[:3]) == ["run", "type", "model"]
    assert t.loc["r1", "type"] == "reranking" and t.loc["ideal", "model"] == "bert 0"
    assert a.nrg.colour_by == "type"
    assert a.nrg.points["colour"].to_dict() == lb.attributes["type"].to_dict()
    assert ("run_info", "info.tsv") in a.inputs.parameters
    assert ("run info file", "info.tsv") in a.inputs.files
    view = R.leaderboard(lb)
    filters = [b for b in view.blocks if isinstance(b, R.Filters)]
    assert filters and filters[0].columns == [
        ("type", ["full ranking", "reranking"]),
        ("model", [f"bert {i}" for i in range(5)])]
    table = next(b for b in view.blocks if isinstance(b, R.TableView))
    assert list(table.frame.columns[:4]) == ["#", "run", "type", "model"]
    # without run info: no attribute columns, no filters
    plain = analyse_campaign(tiny.campaign(), opts)
    assert plain.leaderboard.attributes is None and plain.nrg.colour_by is None
    assert not [b for b in R.leaderboard(plain.leaderboard).blocks
                if isinstance(b, R.Filters)]
