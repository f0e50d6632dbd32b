"""docs/cli.md's table of options and the API arguments they feed is generated
(scripts/cli_api_table.py) and current; every option of every subcommand is classified;
an option named otherwise than its argument says why (issue 23: API and CLI agree)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import _generated  # noqa: E402  (scripts/ is no package)


@pytest.fixture(scope="module")
def table():
    return _generated.load("cli_api_table")


def test_cli_page_table_is_current(table):
    assert _generated.stale(table) is None, _generated.stale(table)


def test_check_fails_on_a_stale_page_and_passes_once_rewritten(table, monkeypatch, tmp_path,
                                                                capsys):
    page = tmp_path / "cli.md"
    page.write_text("intro\n" + table.BEGIN + "\n| old row |\n" + table.END + "\nrest\n",
                    encoding="utf-8")
    monkeypatch.setattr(table, "TARGET", page)
    assert _generated.main(table, ["--check"]) == 1
    assert "cli.md is out of date: run python scripts/cli_api_table.py" in capsys.readouterr().err
    assert _generated.main(table, []) == 0
    assert _generated.main(table, ["--check"]) == 0
    text = page.read_text(encoding="utf-8")
    assert text.startswith("intro\n") and text.endswith("rest\n") and "| old row |" not in text


def test_every_command_has_its_api_functions(table):
    paths = {path for path, _ in table.commands()}
    assert paths == set(table.FEEDS), "add the new command to FEEDS"
    for fns in table.FEEDS.values():
        for fn in fns:
            assert table.parameters(fn), fn


def test_the_lists_name_existing_options(table):
    """An exception for an option that no longer exists (renamed, removed) is stale."""
    spelled: dict[str, set[str]] = {}
    for path, cmd in table.commands():
        longs = {table._long(p) for p in cmd.params if isinstance(p, click.Option)}
        for key in (path, path.split()[0] + " *", "*"):
            spelled.setdefault(key, set()).update(longs)
    for key in [*table.DIFFERENT, *table.CLI_ONLY]:
        command, option = key
        assert option in spelled.get(command, set()), f"stale entry {key}"


def test_an_unclassified_option_fails(table, monkeypatch):
    """A new option named after no argument of its command's API functions, and in no
    exception list, is an error naming it (so the table cannot silently lose a row)."""
    option = click.Option(["--sample-count"], type=int)
    with pytest.raises(ValueError, match="irmeta meta systems --sample-count: no API"):
        table.classify("meta systems", option)
    renamed = click.Option(["--trials"], type=int)       # the API's own name: found
    assert table.classify("meta systems", renamed)[0] == "`stats.system_dependence(trials=)`"


def test_a_differs_entry_must_differ(table, monkeypatch):
    monkeypatch.setitem(table.DIFFERENT, ("meta systems", "--trials"),
                        ("irmeta.stats.system_dependence", "trials", "same"))
    with pytest.raises(ValueError, match="the same name"):
        table.classify("meta systems", click.Option(["--trials"], type=int))
    monkeypatch.setitem(table.DIFFERENT, ("meta systems", "--trials"),
                        ("irmeta.stats.system_dependence", "samples", "gone"))
    with pytest.raises(ValueError, match="has no argument 'samples'"):
        table.classify("meta systems", click.Option(["--trials"], type=int))
