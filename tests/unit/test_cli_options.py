"""The CLI speaks the API's constraint vocabulary (docs/cli.md): every numeric and choice
option of every subcommand is built from an ``irmeta.constraints`` object, one name per
concept (former spellings are unknown options), and options that do not apply to the chosen
input are refused (exit 2, naming both options)."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from irmeta import constraints as C
from irmeta.cli.main import cli
from irmeta.cli.options import ConstraintChoice, ConstraintType
from irmeta.cli.tables import TABLE_FORMATS
from tests.fresh import python_output


def _commands():
    ctx = click.Context(cli)

    def walk(cmd, path):
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                yield from walk(cmd.get_command(ctx, name), [*path, name])
        else:
            yield path, cmd
    return list(walk(cli, []))


COMMANDS = _commands()
OPTIONS = [(path, cmd, p) for path, cmd in COMMANDS for p in cmd.params
           if isinstance(p, click.Option)]
CONSTRAINED = [(path, p) for path, _, p in OPTIONS if isinstance(p.type, ConstraintType)]


def _id(path, p):
    return " ".join(path) + " " + p.opts[-1]


def test_every_subcommand_is_walked():
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"eval", "explain", "aggregate", "report", "convert", "measures", "twist grid",
            "meta significance", "meta systems", "reproduce twist"} <= names
    assert len(CONSTRAINED) > 100


def _own_type(option) -> str | None:
    """Why ``option`` is not built from a constraint, or None when it is."""
    t = option.type
    if isinstance(t, (click.types.IntParamType, click.types.FloatParamType,
                      click.types._NumberRangeBase)):
        return (f"a numeric option with its own click type {t!r}; declare it with "
                "irmeta.cli.options.constrained(constraint=...)")
    if isinstance(t, click.Choice) and not isinstance(t, ConstraintChoice):
        return "a click.Choice of its own; declare it with constrained_choice(constraint=...)"
    return None


def test_numeric_and_choice_options_are_built_from_constraints():
    """One test over every option of every subcommand (a gate: it lists every offender)."""
    found = [f"{_id(path, option)}: {why}" for path, _, option in OPTIONS
             if (why := _own_type(option)) is not None]
    assert not found, "\n".join(found)


def test_the_constraint_gate_can_fail():
    assert _own_type(click.Option(["--n"], type=click.IntRange(0, 5))) is not None
    assert _own_type(click.Option(["--f"], type=click.Choice(["a", "b"]))) is not None
    assert _own_type(click.Option(["--name"])) is None


def _bad_text(constraint) -> str:
    """A command-line value the constraint refuses."""
    if isinstance(constraint, C.ListOf):
        return "1,,2"
    if isinstance(constraint, C.Integer):
        return str(constraint.low - 1) if constraint.low is not None else "1.5"
    if constraint.low is not None:
        return str(constraint.low) if constraint.low_open else str(constraint.low - 1)
    return "nan"


@pytest.mark.parametrize("path, option", CONSTRAINED, ids=[_id(*c) for c in CONSTRAINED])
def test_a_bad_value_is_a_usage_error_with_the_constraints_words(path, option):
    constraint = option.type.constraint
    res = CliRunner().invoke(cli, [*path, option.opts[-1], _bad_text(constraint)])
    assert res.exit_code == 2, res.output
    assert "Invalid value for" in res.output
    words = constraint.item.what if isinstance(constraint, C.ListOf) else constraint.what
    assert words in " ".join(res.output.split()), res.output


#: option -> the API's constraint of the same concept (identity, not equality)
SHARED = {"--seed": C.SEED, "--rel-level": C.REL_LEVEL, "--level": C.PROBABILITY,
          "--ci-level": C.PROBABILITY, "--trials": C.TRIALS, "--repeats": C.TRIALS,
          "--stability-trials": C.TRIALS, "--systems-trials": C.TRIALS,
          "--discpower-trials": C.TRIALS, "--ci-trials": C.TRIALS, "--cutoff": C.CUTOFF,
          "--rare-cutoff": C.CUTOFF, "--nrg-cutoff": C.CUTOFF, "--top-fraction": C.FRACTION,
          "--fuzziness": C.NONNEGATIVE, "--max-docs": C.DEPTH}


def test_one_concept_one_constraint():
    """Every option of a shared concept is checked by the API's own constraint object."""
    wrong = []
    for path, option in CONSTRAINED:
        name = option.opts[-1]
        if name in SHARED and option.type.constraint is not SHARED[name]:
            wrong.append(_id(path, option))
        if name == "--depth" and path[-1] != "report" and option.type.constraint is not C.DEPTH:
            wrong.append(_id(path, option))
    assert not wrong, wrong
    assert sum(option.opts[-1] in SHARED for _, option in CONSTRAINED) > 50


def test_report_options_are_the_report_api_constraints():
    from irmeta.report.options import OPTION_CONSTRAINTS
    report = next(cmd for path, cmd in COMMANDS if path == ["report"])
    checked = 0
    for p in report.params:
        if p.name in OPTION_CONSTRAINTS and p.name not in ("correction", "progress"):
            assert p.type.constraint == OPTION_CONSTRAINTS[p.name], p.name
            checked += 1
    assert checked >= 14
    correction = next(p for p in report.params if p.name == "correction")
    assert correction.type.constraint.options == (*OPTION_CONSTRAINTS["correction"].options,
                                                  "none")


# ------------------------------------------------------------------ one name per concept
RETIRED = {"--samples", "--bootstrap", "--rare-k", "--nrg-k"}


def test_retired_spellings_are_not_declared():
    for path, _, p in OPTIONS:
        spellings = set(p.opts) | set(p.secondary_opts)
        assert not spellings & RETIRED, _id(path, p)
        # the report names Twist's depth after its analysis, as its trials and cutoffs
        assert ("--twist-depth" in spellings) == (path == ["report"] and p.name == "twist_depth")
        if path == ["report"]:
            assert "--depth" not in spellings, _id(path, p)
        if path[0] != "eval":       # trec_eval's -N (collection size) stays on eval
            assert "-N" not in spellings, _id(path, p)
        if "progress" in p.name:
            assert p.opts == ["--progress"] and p.secondary_opts == ["--no-progress"], \
                _id(path, p)


def test_table_formats_are_the_same_everywhere():
    for path, _, p in OPTIONS:
        if p.name != "fmt" or path == ["check"]:   # check prints problems: text or json
            continue
        assert set(TABLE_FORMATS) <= set(p.type.choices), _id(path, p)
        # eval (trec_eval's layout) and pool (`topic docid` lines) default to their own
        assert p.default == ("text" if path not in (["eval"], ["pool"]) else None), \
            _id(path, p)


#: spellings that were renamed before the first release: refused like any unknown option
OLD_SPELLINGS = [
    (["meta", "significance"], ["--samples", "7"], "--samples"),
    (["meta", "discpower"], ["--samples", "7"], "--samples"),
    (["twist", "grid"], ["-N", "15"], "-N"),
    (["twist", "curve"], ["-N15", "--run", "a", "--topic", "1"], "-N"),
    (["report"], ["--bootstrap", "9"], "--bootstrap"),
    (["report"], ["--trials", "9"], "--trials"),
    (["report"], ["--rare-k", "9"], "--rare-k"),
    (["report"], ["--nrg-k=9"], "--nrg-k"),
    (["report"], ["--depth", "9"], "--depth"),
    (["reproduce", "innovation"], ["--trials", "9"], "--trials"),
    (["reproduce", "innovation"], ["--samples", "9"], "--samples"),
    (["reproduce", "twist"], ["--samples", "9"], "--samples"),
    (["reproduce", "twist"], ["--trials", "9"], "--trials"),
    (["eval"], ["--demo", "--aggregate", "gmean"], "--aggregate"),
    (["eval"], ["--demo", "--subtopics", __file__], "--subtopics"),
    (["meta", "significance"], ["--demo", "-m", "AP", "--pairs"], "--pairs"),
]


@pytest.mark.parametrize("path, args, old", OLD_SPELLINGS,
                         ids=[" ".join(a[0]) + " " + a[2] for a in OLD_SPELLINGS])
def test_old_spellings_are_unknown_options(path, args, old):
    """Nothing was released, so there is no deprecation layer: a former spelling is
    click's usage error for an unknown option (exit 2), and the help does not list it."""
    res = CliRunner().invoke(cli, [*path, *args])
    assert res.exit_code == 2, res.output
    assert "No such option" in res.output and old in res.output, res.output
    assert "deprecated" not in res.output
    help_text = CliRunner().invoke(cli, [*path, "--help"]).output
    assert old + " " not in help_text and old + "," not in help_text


# ------------------------------------------------------------------ refused combinations
REFUSED = [
    (["aggregate", "--matrix", "m.csv", "--prior-runs", "a"], "--prior-runs", "--matrix"),
    (["aggregate", "--matrix", "m.csv", "-l", "2"], "--rel-level", "--matrix"),
    (["aggregate", "--matrix", "m.csv", "--groups", __file__], "--groups", "--matrix"),
    (["aggregate", "--demo", "--rows", "topics"], "--rows", "--matrix"),
    (["aggregate", "--demo", "--axioms", "B"], "--axioms", "--analysis"),
    (["aggregate", "--demo", "--analysis", "grid", "-a", "mean"], "--aggregator",
     "--analysis"),
    (["aggregate", "--demo", "--format", "tsv", "--digits", "2"], "--digits", "--format"),
    (["reproduce", "gawm", "--matrix", __file__, "--prior-runs", "a"], "--prior-runs",
     "--matrix"),
    (["reproduce", "gawm", "--demo", "--rows", "topics"], "--rows", "--matrix"),
    (["reproduce", "innovation", "--demo", "--no-figure1", "--figure1-points", "3"],
     "--figure1-points", "--no-figure1"),
    (["eval", "--demo", "-m", "AP", "--wide", "--format", "trec"], "--wide", "--format"),
    (["eval", "--demo", "-m", "AP", "--digits", "2"], "--digits", "--format"),
    (["eval", "--demo", "-m", "AP", "--prior-runs", "a"], "--prior-runs", "-m"),
    (["eval", "--demo", "-m", "AP", "-q", "-n", "--aggregator", "gmean"], "--aggregator",
     "--no-summary"),
    (["eval", "--demo", "-m", "AP", "--reference-runs", __file__], "--reference-runs", "-m"),
    (["eval", "--demo", "-m", "AP", "--groups", __file__], "--groups", "-m"),
    (["explain", "--demo", "--topic", "301"], "--topic", "--run"),
    (["explain", "--demo", "--all-docs"], "--all-docs", "--run"),
    (["explain", "--demo", "--run", "x", "--per-topic"], "--per-topic", "--run"),
    (["twist", "curve", "--demo", "--run", "a", "--topic", "1", "--crossing", "formal"],
     "--crossing", "twist curve"),
    (["twist", "curve", "--demo", "--run", "a", "--topic", "1", "--max-rank", "5"],
     "--max-rank", "--plot"),
    (["twist", "grid", "--demo", "--title", "t"], "--title", "--plot"),
    (["twist", "archetypes", "--demo", "--prior-runs", "a"], "--prior-runs", "twist"),
    (["meta", "significance", "--demo", "-m", "AP", "--trials", "5"], "--trials", "--test"),
    (["meta", "significance", "--demo", "-m", "AP", "--test", "tukey_hsd", "--correction",
      "holm"], "--correction", "--test"),
    (["meta", "significance", "--demo", "-m", "AP", "--plot", "x.png"], "--plot",
     "significance"),
    (["meta", "stability", "--demo", "-m", "AP", "--by", "P@10"], "--by", "--top-fraction"),
    (["meta", "correlation", "--demo", "-m", "AP", "-m", "P@10", "--seed", "3"], "--seed",
     "correlation"),
    (["meta", "correlation", "--demo", "-m", "AP", "-m", "P@10", "--alphas", "0,1"],
     "--alphas", "--sweep"),
    (["meta", "systems", "--demo", "-m", "AP", "--prior-runs", "a"], "--prior-runs",
     "systems"),
    (["meta", "stability", "--demo", "-m", "AP", "--format", "latex"], "--format latex",
     "leaderboard"),
    (["report", "--demo", "-c"], "--complete", "report"),
    (["convert", __file__, __file__, "-o", "x", "--workers", "2", "--scheduler", "tcp://h"],
     "--workers", "--scheduler"),
]


@pytest.mark.parametrize("args, option, other", REFUSED, ids=[" ".join(r[0]) for r in REFUSED])
def test_options_that_do_not_apply_are_refused(args, option, other):
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert option in text and other in text, text


# ------------------------------------------------------------------ documented commands
def _documented_commands():
    """Every ``irmeta ...`` line of the bash blocks of README.md and docs/*.md."""
    import shlex
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    out = []
    for page in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        block, joined = False, ""
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("```"):
                block = line.strip() in ("```bash", "```sh", "```")
                continue
            line = line.strip()
            if not block or not (joined or line.startswith("irmeta ")):
                continue
            joined += line.rstrip("\\").strip() + " "
            if not line.endswith("\\"):
                try:
                    out.append((page.name, shlex.split(joined, comments=True)))
                except ValueError:
                    pass
                joined = ""
    return out


def test_documented_commands_use_declared_options_and_no_old_spelling():
    commands = {tuple(path): cmd for path, cmd in COMMANDS}
    checked = 0
    for page, words in _documented_commands():
        args = words[1:]
        path = next((p for p in sorted(commands, key=len, reverse=True)
                     if tuple(args[:len(p)]) == p), None)
        if path is None:
            continue
        cmd, rest = commands[path], args[len(path):]
        ctx = click.Context(cmd, info_name=" ".join(path))
        try:
            cmd.make_parser(ctx).parse_args(rest)
        except click.UsageError as exc:
            pytest.fail(f"{page}: irmeta {' '.join(args)}: {exc}")
        used = {a.partition("=")[0] for a in rest} | {a[:2] for a in rest if a[:2] == "-N"}
        old = used & set(getattr(cmd, "aliases", {}))
        assert not old, f"{page}: irmeta {' '.join(args)} uses the former spelling {old}"
        checked += 1
    assert checked > 60


def _choices(path, name):
    cmd = next(c for p, c in COMMANDS if p == path)
    return tuple(next(p for p in cmd.params if p.name == name).type.constraint.options)


def test_choice_options_are_the_api_choices():
    """The CLI declares its choices without importing the computing layers (startup
    time); this test keeps them equal to the API's tuples."""
    from irmeta.measures.twist import CROSSING_RULES
    from irmeta.stats.correlation import METHODS
    from irmeta.stats.leaderboard import LEADERBOARD_TESTS
    from irmeta.stats.significance import CORRECTIONS, TESTS
    for path in (["twist", "grid"], ["twist", "archetypes"], ["reproduce", "twist"]):
        assert _choices(path, "crossing") == tuple(CROSSING_RULES)
    assert _choices(["meta", "correlation"], "method") == tuple(METHODS)
    assert _choices(["meta", "leaderboard"], "test") == tuple(LEADERBOARD_TESTS)
    assert _choices(["meta", "leaderboard"], "correction") == (*CORRECTIONS, "none")
    assert _choices(["meta", "significance"], "correction") == tuple(CORRECTIONS)
    assert set(_choices(["meta", "significance"], "test")) <= set(TESTS)
    assert set(_choices(["meta", "discpower"], "tests")) <= set(TESTS)


def test_subcommand_modules_load_no_computing_library():
    """Declaring options from constraints must not make ``irmeta X --help`` pay for NumPy,
    pandas, SciPy or the report (seconds on a loaded machine): checked in a fresh
    interpreter, structurally (no timing)."""
    code = ("import sys\n"
            "for m in ('eval', 'explain', 'twist', 'aggregate', 'meta', 'report', 'reproduce',"
            " 'convert', 'measures'):\n"
            "    __import__('irmeta.cli.' + m)\n"
            "heavy = ('numpy', 'pandas', 'scipy', 'matplotlib', 'pyarrow', 'irmeta.report',"
            " 'irmeta.stats')\n"
            "print(sorted(h for h in heavy if h in sys.modules))\n")
    out = python_output(code).stdout.strip()
    assert out == "[]"
