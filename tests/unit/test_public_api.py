"""The public surface: __all__ is honest and importing irmeta stays cheap."""

from __future__ import annotations

import subprocess
import sys

import irmeta


def test_every_public_name_resolves():
    for name in irmeta.__all__:
        assert getattr(irmeta, name) is not None, name


def test_evaluate_is_the_function_even_after_importing_its_module():
    import irmeta.evaluation  # noqa: F401
    assert callable(irmeta.evaluate) and irmeta.evaluate.__module__ == "irmeta.evaluation"


def test_import_does_not_pull_heavy_libraries():
    code = ("import sys, irmeta, irmeta.cli.main; "
            "print(','.join(m for m in ('pandas','matplotlib','scipy','pyarrow') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_cli_help_lists_every_subcommand():
    from click.testing import CliRunner
    from irmeta.cli.main import SUBCOMMANDS, cli
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in ("eval", "measures"):
        assert name in result.output
    assert set(cli.list_commands(None)) <= set(SUBCOMMANDS)


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
