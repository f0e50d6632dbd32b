"""The re-run command of a page writes every option value so that it parses back to the
same value (review of the report area: ``:g`` cut a float list to 6 digits)."""

from __future__ import annotations

from pathlib import Path

import click

from irmeta.cli.rerun import _text, rerun_command


def test_floats_are_short_but_exact():
    assert _text((0.5, 1.0, 2.0)) == "0.5,1,2"
    assert _text((0.5, 0.123456789)) == "0.5,0.123456789"
    assert _text(1e-7) == "1e-07" and _text(0.1 + 0.2) == repr(0.1 + 0.2)
    assert _text(("a", 3)) == "a,3"


def _round_trip(value: str) -> tuple:
    """``irmeta report --alphas value`` parsed, written as the page's command, and the
    written value parsed again by the same option."""
    from irmeta.cli.main import cli
    report = cli.get_command(click.Context(cli), "report")
    ctx = report.make_context("report", ["--demo", "--alphas", value])
    line = rerun_command(ctx, ["irmeta", "report"], Path.cwd())
    written = line.split("--alphas ", 1)[1].split()[0]
    again = report.make_context("report", ["--demo", "--alphas", written])
    assert ctx.params["alphas"] == again.params["alphas"], (value, written)
    return again.params["alphas"]


def test_the_command_parses_back_to_the_same_floats():
    assert _round_trip("0.5,0.123456789") == (0.5, 0.123456789)
    assert _round_trip("0.3333333333333333,1") == (1 / 3, 1.0)
