"""What the scripts that generate (part of) a docs page share: the ``--check`` command line
and, for their tests, loading a script by name (``scripts/`` is no package).

A generating script defines ``TARGET`` (the page) and ``new_page(current) -> str`` (the
page as it should be, given its current text, ``""`` when absent) and ends with
``sys.exit(_generated.main(module, argv))``; its test asserts ``stale(module) is None``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from types import ModuleType

SCRIPTS = Path(__file__).resolve().parent
ROOT = SCRIPTS.parent


def load(name: str) -> ModuleType:
    """Import ``scripts/<name>.py`` (tests use it: the folder is put on ``sys.path``)."""
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    return importlib.import_module(name)


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def stale(script: ModuleType) -> str | None:
    """None when ``script.TARGET`` is what ``script`` writes, else the message saying so."""
    target: Path = script.TARGET
    current = target.read_text(encoding="utf-8") if target.exists() else ""
    if script.new_page(current) == current:
        return None
    name = Path(script.__file__ or "").name
    return f"{_rel(target)} is out of date: run python scripts/{name}"


def main(script: ModuleType, argv: list[str] | None = None) -> int:
    """Rewrite ``script.TARGET``, or with ``--check`` exit 1 when it is out of date."""
    parser = argparse.ArgumentParser(description=(script.__doc__ or "").split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when {_rel(script.TARGET)} is out of date")
    args = parser.parse_args(argv)
    if args.check:
        message = stale(script)
        if message:
            print(message, file=sys.stderr)
            return 1
        return 0
    target: Path = script.TARGET
    current = target.read_text(encoding="utf-8") if target.exists() else ""
    target.write_text(script.new_page(current), encoding="utf-8")
    print(f"wrote {_rel(target)}")
    return 0
