"""Issue 48, items 1 and 2: "did you mean" for a misspelt name, and ``--quiet``.

* A misspelt measure, measure parameter, subcommand (of ``irmeta`` and of a group), paper
  of ``reproduce``, ``--format`` value, report section, aggregator and ``irds:`` id is
  answered with the closest candidates (:mod:`irmeta.suggest`, or click's own for
  subcommands), and a successful command never loads the helper.
* ``--quiet``, on ``irmeta`` or on any subcommand, removes the notes on stderr and
  nothing else: the same standard output, ``-o`` file and exit status.
"""

from __future__ import annotations

import ast
import os

import click
import pytest

from irmeta.cli.main import cli, main
from irmeta.suggest import close_matches, did_you_mean, unknown
from tests.fresh import python_output

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n"
# topic 9 is not in the qrels: "irmeta: note: 1 run topic(s) absent from the qrels ..."
RUN = ("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d3 1 1.0 r\n9 Q0 d9 1 1.0 r\n")


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r)


def run(capsys, args):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


# ---------------------------------------------------------------------- the helper
def test_did_you_mean_forms():
    assert close_matches("ndgc", ["AP", "nDCG", "P"]) == ["nDCG"]
    assert close_matches("tsv", ["TSV", "tsvx"]) == ["TSV"]          # case first
    assert did_you_mean("tvs", ["text", "tsv", "csv"], noun="choices") == \
        "did you mean 'tsv'? (choices: text, tsv, csv)"
    assert did_you_mean("zzz", ["text", "tsv"], noun="choices") == "choices: text, tsv"
    many = [f"name{i:03d}" for i in range(100)]
    hint = did_you_mean("name0077", many)      # three, the best first; no list of 100
    assert hint.startswith("did you mean one of 'name077', ") and hint.count("'") == 6
    assert did_you_mean("zzz", many, elsewhere="see the docs") == "see the docs"
    assert did_you_mean("zzz", many) == ""
    assert unknown("section", "trst", ["trust", "risk"]) == \
        "unknown section 'trst'; did you mean 'trust'? (known: trust, risk)"


# ---------------------------------------------------------------------- did you mean
@pytest.mark.parametrize("args,expected", [
    (["eval", "--demo", "-m", "nDGC@10"], "did you mean one of 'nDCG'"),
    (["eval", "--demo", "-m", "RBP(pp=0.8)"], "RBP has no parameter 'pp'; did you mean 'p'?"),
    (["eval", "--demo", "-m", "ndcg_cutt.10"], "did you mean 'ndcg_cut'?"),
    (["eval", "--demo", "-m", "AP", "--format", "tvs"], "did you mean 'tsv'?"),
    (["eval", "--demo", "-m", "AP", "--aggregator", "gawn"], "did you mean one of 'gawm'"),
    (["evl", "--demo"], "No such command 'evl'. Did you mean 'eval'?"),
    (["meta", "corelation", "--demo"], "Did you mean 'correlation'?"),
    (["reproduce", "gawn"], "Did you mean 'gawm'?"),
    (["report", "--demo", "--skip", "trst"], "did you mean 'trust'?"),
])
def test_misspelt_names_get_the_closest_candidate(capsys, args, expected):
    code, out, err = run(capsys, args)
    assert code == 2 and out == ""
    assert expected in err, err


def test_a_long_list_is_not_printed_whole(capsys):
    code, _, err = run(capsys, ["eval", "--demo", "-m", "nDGC@10"])
    assert code == 2 and "known measures" not in err and "GMAP" not in err
    code, _, err = run(capsys, ["eval", "--demo", "-m", "xyzzy"])
    assert code == 2 and "every measure: `irmeta measures`" in err


def test_misspelt_irds_id(capsys, files):
    pytest.importorskip("ir_datasets")
    code, _, err = run(capsys, ["eval", "irds:antque/test", files[1], "-m", "AP"])
    assert code == 2
    assert "ir_datasets has no dataset 'antque/test'; did you mean one of 'antique/test'" \
        in err, err


def test_success_path_does_no_suggestion_work():
    """A successful ``irmeta eval`` never imports :mod:`irmeta.suggest` (click itself
    imports ``difflib`` while parsing short options, so that module is no witness)."""
    code = (
        "import sys\n"
        "from irmeta.demo import demo_paths\n"
        "from irmeta.cli.main import main\n"
        "p = demo_paths()\n"
        "code = main(['eval', '-m', 'AP', '-m', 'nDCG@10', '--format', 'tsv', "
        "'--aggregator', 'gmean', str(p.qrels), str(p.runs[0])])\n"
        "sys.stderr.write('LOADED ' + repr([code, 'irmeta.suggest' in sys.modules]))\n"
    )
    done = python_output(code)
    assert ast.literal_eval(done.stderr.rsplit("LOADED ", 1)[1]) == [0, False]


# ---------------------------------------------------------------------- --quiet
def _commands():
    ctx = click.Context(cli)
    out = []

    def walk(cmd, path):
        out.append((" ".join(path), cmd))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                walk(cmd.get_command(ctx, name), [*path, name])
    walk(cli, [])
    return out


def test_every_command_takes_quiet():
    missing = [path or "irmeta" for path, cmd in _commands()
               if not any("--quiet" in getattr(p, "opts", ()) for p in cmd.params)]
    assert missing == []


@pytest.mark.parametrize("where", ["root", "command"])
def test_quiet_drops_the_notes_and_nothing_else(capsys, files, tmp_path, where):
    args = ["eval", *files, "-m", "AP", "-q"]
    code, out, err = run(capsys, args)
    assert code == 0 and "irmeta: note: 1 run topic(s) absent from the qrels" in err
    quiet = ["--quiet", *args] if where == "root" else [*args, "--quiet"]
    assert run(capsys, quiet) == (0, out, "")
    # the same -o file
    loud_file, quiet_file = tmp_path / "loud.tsv", tmp_path / "quiet.tsv"
    assert run(capsys, [*args, "-o", str(loud_file)])[0] == 0
    assert run(capsys, [*quiet, "-o", str(quiet_file)]) == (0, "", "")
    assert quiet_file.read_text() == loud_file.read_text() != ""


def test_quiet_keeps_errors_and_their_status(capsys, files):
    assert run(capsys, ["eval", *files, "-m", "APP"])[:2] == \
        run(capsys, ["--quiet", "eval", *files, "-m", "APP"])[:2]
    code, out, err = run(capsys, ["--quiet", "eval", *files, "-m", "APP"])
    assert code == 2 and out == "" and "irmeta: error: unknown measure 'APP'" in err


def test_quiet_meta_headers_and_progress(capsys):
    args = ["meta", "significance", "--demo", "-m", "AP", "--test", "paired_t"]
    code, out, err = run(capsys, args)
    assert code == 0 and err.startswith("# AP: ")
    assert run(capsys, ["--quiet", *args]) == (0, out, "")
    code, _, err = run(capsys, [*args, "--quiet", "--progress"])
    assert code == 2 and "--progress does not apply with --quiet" in err
    assert run(capsys, [*args, "--quiet", "--no-progress"]) == (0, out, "")


def test_quiet_turns_progress_off_for_the_command_only(capsys, monkeypatch):
    """``IRMETA_NO_PROGRESS`` is set while the command runs and restored after."""
    monkeypatch.delenv("IRMETA_NO_PROGRESS", raising=False)
    seen = []
    import irmeta.cli.measures as measures_cli
    original = measures_cli.measures_command.callback

    def spy(*args, **kwargs):
        seen.append(os.environ.get("IRMETA_NO_PROGRESS"))
        return original(*args, **kwargs)
    monkeypatch.setattr(measures_cli.measures_command, "callback", spy)
    assert run(capsys, ["--quiet", "measures", "--short"])[0] == 0
    assert seen == ["1"] and "IRMETA_NO_PROGRESS" not in os.environ


def test_rerun_command_leaves_quiet_out(tmp_path):
    """The command line a report or reproduction prints to rerun it (``irmeta.cli.rerun``)
    skips ``--quiet``, which has no value (it crashed with a KeyError)."""
    from irmeta.cli.notes import with_quiet
    from irmeta.cli.rerun import rerun_command

    @click.command("t")
    @click.option("--seed", type=int, default=0)
    def command(seed):
        pass
    with_quiet(command)
    with command.make_context("t", ["--quiet", "--seed", "3"]) as ctx:
        assert rerun_command(ctx, ["irmeta", "t"], tmp_path) == "irmeta t --seed 3"


@pytest.mark.slow
def test_quiet_report(capsys, tmp_path):
    args = ["report", "--demo", "--skip", "trust,effort,appendix,risk,innovation,nrg,topics",
            "-o", str(tmp_path / "report.html")]
    assert run(capsys, [*args, "--quiet"]) == (0, "", "")
    page = (tmp_path / "report.html").read_text()
    assert "irmeta report --demo" in page and "--quiet" not in page   # the rerun command


def test_python_api_names_the_closest_choice():
    """The same helper answers the Python API: a ``Choice`` constraint, a test name."""
    import numpy as np

    from irmeta.constraints import Choice, Invalid
    from irmeta.errors import ParameterError
    from irmeta.stats import pairwise_test

    with pytest.raises(Invalid) as err:
        Choice(("paired_t", "wilcoxon")).coerce("wilcoxn")
    assert err.value.detail == "must be one of paired_t, wilcoxon, got 'wilcoxn'; did you " \
                               "mean 'wilcoxon'?"
    with pytest.raises(Invalid) as err:          # nothing close: the message as before
        Choice(("paired_t", "wilcoxon")).coerce("zzz")
    assert err.value.detail == ""
    with pytest.raises(ParameterError, match="unknown test 'wilcoxn'; did you mean "
                                             "'wilcoxon'?"):
        pairwise_test(np.random.default_rng(0).random((3, 5)), "wilcoxn")
