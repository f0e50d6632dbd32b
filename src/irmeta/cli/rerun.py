"""The "re-run from the folder of this page" command of ``irmeta report`` and ``irmeta
reproduce``: every parameter given on the command line, in canonical form (positional
arguments last), paths relative to the page's folder, and the run files as ``DIR/*``
when they are a folder's whole listing (a short glob the shell expands, not dozens of
paths)."""

from __future__ import annotations

import glob
import os
import shlex
from pathlib import Path

import click

__all__ = ["PATH_OPTIONS", "rerun_command"]

#: options whose values are paths (written relative to the page in the re-run command)
PATH_OPTIONS = ("groups_file", "reference_runs", "output", "matrix_path", "run_info")


def _relative(path: str, base: Path) -> str:
    """``path`` relative to the folder ``base`` (as given when it cannot be: another
    drive)."""
    try:
        return os.path.relpath(os.path.abspath(path), base)
    except ValueError:
        return path


def _whole_folder(paths: list[str]) -> str | None:
    """The folder of ``paths`` when they are exactly its files in the order the shell
    expands ``DIR/*`` (sorted), else None."""
    full = [os.path.abspath(p) for p in paths]
    folders = {os.path.dirname(p) for p in full}
    if len(full) <= 3 or len(folders) != 1:
        return None
    folder = folders.pop()
    listing = sorted(glob.glob(os.path.join(glob.escape(folder), "*")))
    return folder if listing == full and all(os.path.isfile(p) for p in listing) else None


def _float(x: float) -> str:
    """``x`` short (``1``, ``0.5``) but exact: ``:g`` keeps 6 digits, so ``0.123456789``
    would re-run as ``0.123457``."""
    short = f"{x:g}"
    return short if float(short) == x else repr(x)


def _text(value) -> str:
    """An option value as the command line writes it (a tuple as ``a,b,c``), every float
    to the digit (the command re-creates the page)."""
    if isinstance(value, (tuple, list)):
        return ",".join(_float(x) if isinstance(x, float) else str(x) for x in value)
    return _float(value) if isinstance(value, float) else str(value)


def rerun_command(ctx: click.Context, words: list[str], base: Path,
                  sections: tuple[str, ...] = ()) -> str:
    """The command ``words`` (``["irmeta", "report"]``) with every parameter of ``ctx``
    given on the command line, to be run from the folder ``base`` (the page's): path
    options and arguments relative to it, the runs as ``DIR/*`` when they are a
    folder's whole listing. ``sections``: the order a set-valued option (``--skip``)
    is written in."""
    from click.core import ParameterSource

    parts, positional = list(words), []
    for p in ctx.command.params:
        # an option with no value (``--quiet``: what is said on stderr) is not repeated
        if ctx.get_parameter_source(p.name) is not ParameterSource.COMMANDLINE \
                or p.name not in ctx.params:
            continue
        value = ctx.params[p.name]
        if isinstance(p, click.Argument):
            positional.extend([value] if isinstance(value, str) else list(value or ()))
            continue
        if not isinstance(p, click.Option):   # a command's params: arguments and options
            continue
        if p.is_flag and not p.secondary_opts:
            if value:
                parts.append(p.opts[-1])
            continue
        if p.is_flag:
            parts.append(p.opts[-1] if value else p.secondary_opts[-1])
            continue
        if isinstance(value, frozenset):
            parts += [p.opts[-1], ",".join(s for s in sections if s in value)]
            continue
        if p.name in PATH_OPTIONS:
            value = [_relative(v, base) for v in value] if p.multiple else \
                _relative(value, base)
        if p.multiple:
            for v in value:
                parts += [p.opts[-1], _text(v)]
        else:
            parts += [p.opts[-1], _text(value)]
    head = shlex.join(parts + [_relative(v, base) for v in positional[:1]])
    runs = positional[1:]
    folder = _whole_folder(runs)
    if folder is not None:                      # a glob: the shell expands it
        return f"{head} {shlex.quote(_relative(folder, base))}/*"
    return " ".join([head, *(shlex.quote(_relative(v, base)) for v in runs)])
