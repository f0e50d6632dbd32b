"""``irmeta eval`` in shards, ``irmeta convert`` and ``irmeta eval FOLDER``: the same
output as the in-memory command, byte for byte."""

from __future__ import annotations

import pytest

import irmeta
from irmeta.cli.main import main
from tests.shards.conftest import write_campaign

MEASURES = ["-m", "AP", "-m", "nDCG@10", "-m", "NRG(prior=best_per_group)@10",
            "-m", "P_rare(alpha=0.5)@10", "-m", "num_ret"]


@pytest.fixture
def campaign(tmp_path):
    qrels, runs = write_campaign(tmp_path, 21)
    groups = tmp_path / "groups.txt"
    groups.write_text("run0 a\nrun1 a\nrun2 b\nrun3 b\n")
    return qrels, runs, str(groups)


def _eval(capsys, *args) -> str:
    assert main(["eval", "-q", "--format", "tsv", *MEASURES, *args]) == 0
    return capsys.readouterr().out


def test_shards_and_parquet_campaigns_print_the_same_numbers(tmp_path, capsys, campaign):
    qrels, runs, groups = campaign
    expected = _eval(capsys, qrels, *runs, "--groups", groups)
    assert _eval(capsys, qrels, *runs, "--groups", groups, "--shard-topics", "2") == expected
    out = tmp_path / "campaign.parquet"
    assert main(["convert", qrels, *runs, "-o", str(out), "--block-topics", "3"]) == 0
    assert "4 run(s), 9 topic(s) in 3 block(s)" in capsys.readouterr().err
    assert _eval(capsys, str(out), "--groups", groups) == expected
    assert _eval(capsys, str(out), "--groups", groups, "--shard-topics", "2") == expected
    assert _eval(capsys, str(out), "--groups", groups, "--shard-topics", "5") == expected


def test_trec_output_and_budget_option(capsys, campaign):
    qrels, runs, _ = campaign
    assert main(["eval", "-m", "AP", "-m", "P@5", qrels, *runs]) == 0
    expected = capsys.readouterr().out
    assert main(["eval", "-m", "AP", "-m", "P@5", qrels, *runs, "--shard-topics", "4"]) == 0
    assert capsys.readouterr().out == expected
    assert main(["eval", "-m", "AP", qrels, *runs, "--memory-budget", "lots"]) == 2
    assert "Invalid value for '--memory-budget': must be a size" in capsys.readouterr().err
    assert main(["eval", "-m", "AP", qrels, *runs, "--memory-budget", "1K"]) == 2
    assert "'--memory-budget': must be at least 1M" in capsys.readouterr().err


def test_a_parquet_folder_with_run_files_is_refused_by_name(tmp_path, capsys, campaign):
    """A converted folder holds its own runs: with run files beside it the command says
    so (it once said only "is a directory")."""
    qrels, runs, _ = campaign
    out = tmp_path / "campaign.parquet"
    assert main(["convert", qrels, *runs, "-o", str(out)]) == 0
    capsys.readouterr()
    for command in (["eval", "-m", "AP"], ["meta", "leaderboard", "-m", "AP"]):
        assert main([*command, str(out), runs[0]]) == 2
        err = capsys.readouterr().err
        assert f"{out}: a Parquet campaign folder (irmeta convert) holds its own runs" in err
    import pandas as pd
    frame = pd.DataFrame({"query_id": ["1"], "doc_id": ["d"], "score": [1.0]})
    for runs in ([runs[0]], frame):                  # a DataFrame has no truth value
        with pytest.raises(irmeta.ParameterError, match="holds its own runs"):
            irmeta.evaluate(str(out), runs, ["AP"])


def test_convert_refuses_a_folder_in_use_and_bad_lines(tmp_path, capsys, campaign):
    qrels, runs, _ = campaign
    out = tmp_path / "full"
    out.mkdir()
    (out / "x").write_text("mine")
    assert main(["convert", qrels, *runs, "-o", str(out)]) == 2
    assert "not empty" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("t01 Q0 d1 1 1.0 bad\nt01 Q0 d2 2\n")
    assert main(["convert", qrels, str(bad), "-o", str(tmp_path / "new")]) == 2
    assert f"{bad}:2" in capsys.readouterr().err


@pytest.mark.slow
def test_meta_works_on_sharded_matrices(tmp_path, capsys, campaign):
    qrels, runs, _ = campaign
    for command in (["correlation", "-m", "AP", "-m", "nDCG@10"],
                    ["significance", "-m", "AP"],
                    ["stability", "-m", "AP", "--trials", "20"],
                    ["leaderboard", "-m", "AP", "-m", "P@5", "--trials", "50"]):
        assert main(["meta", *command, qrels, *runs, "--no-progress"]) == 0
        expected = capsys.readouterr().out
        out = ["meta", *command, qrels, *runs, "--no-progress", "--shard-topics", "2"]
        assert main(out) == 0
        assert capsys.readouterr().out == expected
    assert main(["meta", "downsample", "-m", "AP", qrels, *runs, "--shard-topics", "2"]) == 2
    assert "needs the whole campaign in memory" in capsys.readouterr().err


@pytest.mark.parametrize("flags", [["-J"], ["-N", "5000", "-m", "utility.1,-1,0,1"]])
def test_trec_eval_options_print_the_same_in_shards(capsys, campaign, flags):
    """trec_eval's -J (judged documents only) and -N (collection size) shard by shard."""
    qrels, runs, _ = campaign
    args = ["eval", "-m", "AP", "-m", "bpref", *flags, qrels, *runs]
    assert main(args) == 0
    expected = capsys.readouterr().out
    assert main([*args, "--shard-topics", "2"]) == 0
    assert capsys.readouterr().out == expected


def test_a_missing_folder_and_a_folder_a_command_cannot_read(tmp_path, capsys, campaign):
    qrels, runs, _ = campaign
    assert main(["eval", str(tmp_path / "nowhere.parquet")]) == 2
    assert "no such file or Parquet campaign folder" in capsys.readouterr().err
    folder = str(tmp_path / "c.parquet")
    assert main(["convert", qrels, *runs, "-o", folder]) == 0
    capsys.readouterr()
    assert main(["twist", "archetypes", folder]) == 2
    assert "is a folder: this command reads QRELS and RUN files" in capsys.readouterr().err
