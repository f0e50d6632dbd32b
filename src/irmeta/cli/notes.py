"""What the CLI says besides its results, and ``--quiet``, which silences it.

A *note* is a line on stderr that informs without being a result or an error: irmeta's
own warnings (``irmeta: note: ...``, :func:`irmeta.cli.main._as_note`), ``irmeta: wrote
...``, the ``# measure: ...`` headers of the meta commands. Every one is printed through
:func:`note`, the one place that knows about ``--quiet``.

``--quiet`` is accepted by ``irmeta`` itself and by every subcommand (``irmeta --quiet
eval ...`` = ``irmeta eval --quiet ...``), declared once: :func:`with_quiet` adds it to a
command when :class:`irmeta.cli.main.LazyGroup` loads it (and to the subcommands of a
group). It sets a flag in click's context ``meta`` (shared by the whole chain of
contexts), so :func:`note` prints nothing and no progress bar is drawn: a command's
``progress`` parameter (``--progress/--no-progress``) becomes False (an explicit
``--progress`` is refused), and ``IRMETA_NO_PROGRESS`` is set for the command (restored
after), which turns off every bar whose default is "on a terminal" (child processes
inherit it). Results (stdout, ``-o`` files), errors and exit statuses are unchanged.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import click

__all__ = ["is_quiet", "note", "quiet_progress", "with_quiet"]

#: the key of ``click.Context.meta`` that ``--quiet`` sets
QUIET = "irmeta.quiet"
_NO_PROGRESS = "IRMETA_NO_PROGRESS"
_HELP = "No notes and no progress bars on stderr: only the results and the errors."


def is_quiet(ctx: click.Context | None = None) -> bool:
    """Whether ``--quiet`` was given (on the command or on ``irmeta``)."""
    ctx = ctx if ctx is not None else click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(QUIET))


def note(message: str) -> None:
    """Print ``message`` on stderr, unless ``--quiet``."""
    if not is_quiet():
        click.echo(message, err=True)


def quiet_progress(progress: bool | None) -> bool | None:
    """``progress`` (True, False, None: on a terminal), False under ``--quiet``."""
    return False if is_quiet() else progress


def _set_quiet(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value and not ctx.meta.get(QUIET):
        ctx.meta[QUIET] = True
        previous = os.environ.get(_NO_PROGRESS)
        os.environ[_NO_PROGRESS] = "1"

        def restore() -> None:
            if previous is None:
                os.environ.pop(_NO_PROGRESS, None)
            else:
                os.environ[_NO_PROGRESS] = previous
        ctx.call_on_close(restore)
    return value


def _quiet_callback(original: Any) -> Any:
    """``original`` (a command's callback) with its ``progress`` argument False under
    ``--quiet``, and ``--progress --quiet`` refused."""
    @functools.wraps(original)
    def callback(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        if is_quiet(ctx) and "progress" in kwargs:
            if kwargs["progress"]:
                raise click.UsageError("--progress does not apply with --quiet: --quiet "
                                       "draws no progress bar", ctx=ctx)
            kwargs["progress"] = False
        return original(*args, **kwargs)
    return callback


def with_quiet(command: click.Command) -> click.Command:
    """``command`` (and, for a group, its subcommands) with the ``--quiet`` option, added
    once."""
    if not any(p.name == "quiet" for p in command.params):
        command.params.append(click.Option(["--quiet"], is_flag=True, expose_value=False,
                                           is_eager=True, callback=_set_quiet, help=_HELP))
        if command.callback is not None and any(p.name == "progress"
                                                for p in command.params):
            command.callback = _quiet_callback(command.callback)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            with_quiet(sub)
    return command
