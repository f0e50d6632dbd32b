"""The public surface: __all__ is honest and importing irmeta stays cheap."""

from __future__ import annotations

import irmeta
from tests.fresh import python_output


def test_every_public_name_resolves():
    for name in irmeta.__all__:
        assert getattr(irmeta, name) is not None, name


def test_evaluate_is_the_function_even_after_importing_its_module():
    import irmeta.evaluation  # noqa: F401
    assert callable(irmeta.evaluate) and irmeta.evaluate.__module__ == "irmeta.evaluation"


def test_no_public_name_is_also_a_submodule():
    """A lazy name that is also a module of the package (``irmeta.check`` and the
    former irmeta/check.py) becomes that module as soon as anything imports it: then
    ``irmeta.check(...)`` is "module is not callable", and docs/api.md differs by where
    the package is installed."""
    import pkgutil
    modules = {m.name for m in pkgutil.iter_modules(irmeta.__path__)}
    assert modules.isdisjoint(irmeta.__all__), sorted(modules & set(irmeta.__all__))


def test_import_does_not_pull_heavy_libraries():
    code = ("import sys, irmeta, irmeta.cli.main; "
            "print(','.join(m for m in ('pandas','matplotlib','scipy','pyarrow') "
            "if m in sys.modules))")
    assert python_output(code).stdout.strip() == ""


def _cli_subcommand_problems() -> list[str]:
    """What is wrong between ``irmeta --help`` and the SUBCOMMANDS table: the help's
    Commands section must list exactly the table's names, and each must answer --help."""
    from click.testing import CliRunner

    from irmeta.cli.main import SUBCOMMANDS, cli
    runner = CliRunner()
    result = runner.invoke(cli, ["--help"])
    if result.exit_code != 0:
        return [f"irmeta --help: exit {result.exit_code}"]
    section = result.output.split("Commands:", 1)[1] if "Commands:" in result.output else ""
    listed = [line.split()[0] for line in section.splitlines() if line.startswith("  ")]
    problems = []
    if listed != list(SUBCOMMANDS):
        problems.append(f"help lists {listed}, SUBCOMMANDS has {list(SUBCOMMANDS)}")
    for name in SUBCOMMANDS:
        sub = runner.invoke(cli, [name, "--help"])
        if sub.exit_code != 0 or f"Usage: cli {name}" not in sub.output:
            problems.append(f"irmeta {name} --help: exit {sub.exit_code}: {sub.output[:200]!r}")
    return problems


def test_cli_help_lists_every_subcommand():
    assert _cli_subcommand_problems() == []


def test_cli_help_check_catches_a_missing_subcommand_module(monkeypatch):
    from irmeta.cli import main
    monkeypatch.setitem(main.SUBCOMMANDS, "bogus", ("irmeta.cli.no_such_module", "cmd", "Gone."))
    problems = _cli_subcommand_problems()
    assert any("help lists" in p and "'bogus'" in p for p in problems)
    assert any(p.startswith("irmeta bogus --help: exit 2") for p in problems)


def test_cli_help_check_catches_a_missing_command_attribute(monkeypatch):
    from irmeta.cli import main
    monkeypatch.setitem(main.SUBCOMMANDS, "eval", ("irmeta.cli.eval", "no_such_command", "x"))
    assert any(p.startswith("irmeta eval --help") for p in _cli_subcommand_problems())


def test_measures_listing_covers_the_registry():
    from click.testing import CliRunner

    from irmeta.cli.main import cli
    from irmeta.measures.registry import names
    result = CliRunner().invoke(cli, ["measures"])
    assert result.exit_code == 0
    for name in names():
        assert name in result.output
    for new in ("P_rare", "AP_rare", "NRG", "Twist", "Twist.rho", "Twist.sigma"):
        assert new in names()


def test_new_measure_names_parse():
    for text in ("P_rare(alpha=0.5)@100", "NRG(base=nDCG,prior=best_per_group)@10",
                 "Twist.rho@1000", "AP_rare(alpha=1,variant=normalized)@100"):
        assert irmeta.parse_measure(text)[0].family in ("P_rare", "NRG", "Twist.rho", "AP_rare")
