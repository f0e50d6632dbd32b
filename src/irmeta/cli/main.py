"""The ``irmeta`` command: a thin layer over the public API.

Subcommands live in their own modules and are imported only when invoked, so
``irmeta --help`` starts fast. Every :class:`~irmeta.errors.IrmetaError` becomes a
one-paragraph message on stderr and exit status 2 — never a traceback. SIGINT (exit
130) and SIGTERM (exit 143) unwind the command, so its temporary files and folders are
removed either way.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import signal
import sys
import threading
import traceback
import warnings
from typing import NoReturn

import click

from irmeta import __version__
from irmeta.cli.notes import note, with_quiet
from irmeta.errors import IrmetaError, IrmetaWarning

# NumPy asks the kernel for transparent huge pages for every array of 4 MiB or more; with
# the common ``defrag=madvise`` setting a fault in such an array may first compact memory,
# and a whole 2 MiB page is zeroed at once. On a busy machine that was the largest single
# cost of ``irmeta eval`` (system time 0.9-1.1 s against 0.46-0.55 s without, same user
# time, MS MARCO-sized run; docs/performance.md, issue 27). The command is a short-lived
# process that touches each array once, so it asks NumPy not to (numpy is imported only
# after this line; the documented variable, which a user may set to 1 to keep them).
os.environ.setdefault("NUMPY_MADVISE_HUGEPAGE", "0")

#: subcommand name -> (module, attribute, one-line help)
SUBCOMMANDS = {
    "eval": ("irmeta.cli.eval", "eval_command",
             "Evaluate runs: classic and context measures, trec_eval style."),
    "convert": ("irmeta.cli.convert", "convert_command",
                "Write a campaign as topic-partitioned Parquet."),
    "measures": ("irmeta.cli.measures", "measures_command",
                 "List every measure with its parameters."),
    "explain": ("irmeta.cli.explain", "explain_command",
                "Why a run scored that: rarity, residual gain, unique documents."),
    "twist": ("irmeta.cli.twist", "twist_command",
              "Effort analysis: RP/CRP curves, archetypes, effort/gain grids."),
    "aggregate": ("irmeta.cli.aggregate", "aggregate_command",
                  "Rank systems by GAWM / HITS over a score matrix."),
    "meta": ("irmeta.cli.meta", "meta_command",
             "Meta-evaluation: correlation, significance, stability, ..."),
    "compare": ("irmeta.cli.compare", "compare_command",
                "Runs x measures with significance per measure, as text, LaTeX, ..."),
    "risk": ("irmeta.cli.risk", "risk_command",
             "Risk against the other runs: URisk, TRisk, ZRisk, GeoRisk."),
    "pool": ("irmeta.cli.pool", "pool_command",
             "The judgment pool of runs: depth-k, per group, Take@N."),
    "report": ("irmeta.cli.report", "report_command",
               "Evaluate a whole campaign into one HTML report."),
    "check": ("irmeta.cli.check", "check_command",
              "Check run files as submissions: format, topics, depth, tags."),
    "reproduce": ("irmeta.cli.reproduce", "reproduce_command",
                  "Rerun a paper's tables and figures on a campaign."),
}


class StdoutClosed(Exception):
    """The reader of standard output went away (broken pipe). Raised instead of
    ``BrokenPipeError``, which click itself would turn into ``sys.exit(1)``."""


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            raise StdoutClosed() from exc

    def resolve_command(self, ctx, args):
        try:
            return super().resolve_command(ctx, args)
        except click.exceptions.NoSuchCommand as exc:
            if exc.possibilities:
                raise
            # click suggests from ``self.commands``, empty in a lazy group: the table's
            raise click.exceptions.NoSuchCommand(exc.command_name,
                                                 possibilities=list(SUBCOMMANDS),
                                                 ctx=ctx) from None

    def list_commands(self, ctx):
        return [name for name, (module, _, _) in SUBCOMMANDS.items()
                if importlib.util.find_spec(module) is not None]

    def get_command(self, ctx, name):
        if name not in SUBCOMMANDS:
            return None
        module, attr, _ = SUBCOMMANDS[name]
        try:
            return with_quiet(getattr(importlib.import_module(module), attr))
        except ModuleNotFoundError as exc:
            if exc.name == module:
                return None
            raise

    def format_commands(self, ctx, formatter):
        rows = [(name, SUBCOMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"],
                                                "max_content_width": 100})
@click.version_option(__version__, prog_name="irmeta")
def cli():
    """irmeta: evaluate retrieval runs in the context of the runs they compete with,
    and evaluate the evaluation itself."""


with_quiet(cli)   # ``irmeta --quiet``; every subcommand gets it as LazyGroup loads it


class Terminated(BaseException):
    """SIGTERM arrived (``kill``, a job scheduler's time limit, ``timeout``). Raised in
    the main thread like ``KeyboardInterrupt`` for SIGINT, so that every ``finally`` and
    ``with`` block runs: the spool of a piped input, the spill folder of a sharded
    evaluation and a Dask cluster are removed as on Ctrl-C."""


#: exit status after SIGTERM: what a shell reports for a command killed by it (128 + 15)
EXIT_TERMINATED = 143


def _on_sigterm(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)   # a second SIGTERM kills at once
    raise Terminated()


@contextlib.contextmanager
def _sigterm_raises():
    """SIGTERM raises :class:`Terminated` inside the block (main thread only; the
    previous handler is restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):   # no signals here (an embedded interpreter)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


#: exit status after a broken pipe on standard output (``irmeta eval ... | head``): what
#: a shell reports for a command killed by SIGPIPE (128 + 13), as for ``cat big | head``
EXIT_BROKEN_PIPE = 141


def _as_note(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` of the CLI: a warning irmeta itself raises (an
    ``IrmetaWarning``, located outside the package, or a ``UserWarning`` from a module of
    the package, e.g. Twist's undefined topics) is one line ``irmeta: note: ...`` on
    stderr, without the source path and line Python prints; any other warning as Python
    shows it."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if issubclass(category, IrmetaWarning) or issubclass(category, UserWarning) and \
            os.path.abspath(str(filename)).startswith(package + os.sep):
        note(f"irmeta: note: {message}")
        return
    _SHOW_WARNING(message, category, filename, lineno, file, line)


_SHOW_WARNING = warnings.showwarning


def main(argv=None) -> int:
    """Entry point: run the CLI, turning irmeta errors into exit status 2 (and irmeta's
    own warnings into one-line notes, :func:`_as_note`)."""
    try:
        with _sigterm_raises(), warnings.catch_warnings():
            warnings.showwarning = _as_note
            # a command's own status (``irmeta check``: 3 when a run has an error) is
            # raised as click's Exit, which click returns here
            code = cli.main(args=argv, prog_name="irmeta", standalone_mode=False)
        return code if isinstance(code, int) else 0
    except Terminated:
        click.echo("irmeta: terminated", err=True)
        return EXIT_TERMINATED
    except IrmetaError as exc:
        if getattr(exc, "stream", False):
            _silence_stdout()
        click.echo(f"irmeta: error: {exc}", err=True)
        return 2
    except MemoryError:  # numpy / Arrow allocations past the machine's memory
        from irmeta.errors import memory_limits
        click.echo("irmeta: error: not enough memory for this campaign "
                   f"({memory_limits()}); give irmeta more memory or evaluate fewer runs "
                   "at once", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("irmeta: aborted", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return 2
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except (BrokenPipeError, StdoutClosed):
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        click.echo("irmeta: interrupted", err=True)
        return 130
    except Exception as exc:  # noqa: BLE001 - a bug: short message, traceback on request
        if os.environ.get("IRMETA_DEBUG"):
            traceback.print_exc()
        click.echo(f"irmeta: internal error: {type(exc).__name__}: {exc}\n"
                   "This is a bug in irmeta; rerun with IRMETA_DEBUG=1 for the traceback "
                   "and report it.", err=True)
        return 1
    finally:
        _stop_children()


def _stop_children() -> None:
    """Kill and reap the report's child jobs still running (an interrupt or an error
    between their start and their collection); only when the report module is loaded."""
    jobs = sys.modules.get("irmeta.report.jobs")
    if jobs is not None:
        jobs.cancel_all()


def _silence_stdout() -> None:
    """Point standard output at the null device: the reader is gone (broken pipe) or
    the device is full, and Python's own flush at exit would otherwise print
    "Exception ignored ... BrokenPipeError" (the recipe of the ``signal`` module docs)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):   # no real file descriptor (captured in tests)
        pass


def run(program: bool | None = None) -> NoReturn:
    """The ``irmeta`` command (console script, ``python -m irmeta``): :func:`main`, then
    exit with its status.

    As the program (``program`` True; None: when called from the ``__main__`` module,
    which the console script and ``python -m`` are) the process ends through
    :func:`leave`, without interpreter finalisation. Called from anywhere else (a test,
    a program that embeds irmeta) it raises ``SystemExit`` with the status, after
    freezing the heap (``gc.freeze``: the interpreter's exit then skips its final
    collection over every object the command made). In-process callers that want the
    status call :func:`main`, which never ends the process."""
    if program is None:
        program = called_from_main()
    code = main()
    if program:
        leave(code)
    import gc
    gc.freeze()
    sys.exit(code)


def called_from_main(depth: int = 2) -> bool:
    """Is the caller of the function calling this (``depth`` frames up) the
    ``__main__`` module: the console script's wrapper, ``python -m irmeta`` or
    ``python -c``? Then irmeta is the program and may end the process."""
    try:
        return sys._getframe(depth).f_globals.get("__name__") == "__main__"
    except ValueError:   # no such frame
        return False


def leave(code: int) -> NoReturn:
    """End the process with status ``code`` as Python's own exit would, without
    interpreter finalisation (``os._exit``).

    The command's work is over when :func:`main` returns (a failed one's temporary files
    are already removed by its ``finally`` blocks). What the interpreter's exit would
    still do that matters is done here, in its order: standard output and error are
    flushed, the ``atexit`` functions run (``weakref.finalize`` objects such as a pipe's
    spool and temporary folders, logging, Dask's), and the streams are flushed again.
    What is skipped: Python's final garbage collection and the freeing of every object
    (0.2-0.6 s of a command that loaded pandas, SciPy or matplotlib), waiting for helper
    threads still running after an error (their result is no longer wanted), and the C++
    destructors of native libraries. The last is why (issue 41, item 6): at ``exit()``,
    Arrow's CPU pool is shut down while one of its workers may still hold a task (a parse
    of the native fast path that waits on itself: the process hung after printing the
    right message, 11 runs in 100 under load) or Python-owned buffers (``terminate
    called without an active exception``, exit -6). docs/conventions.md, "The CLI"."""
    import atexit
    try:
        code = _flush_std(code)
        atexit._run_exitfuncs()   # an error in one is printed and the others run, as at exit
        code = _flush_std(code)
    except Terminated:   # SIGTERM while leaving (the CLI's handler is still installed)
        code = EXIT_TERMINATED
        _say("irmeta: terminated")
    except KeyboardInterrupt:
        code = 130
        _say("irmeta: aborted")
    os._exit(code)


def _flush_std(code: int) -> int:
    """Flush standard output and error; the status once that is done. A broken pipe on
    standard output is :data:`EXIT_BROKEN_PIPE` (as during the command, no message), any
    other write error there the located ``cannot write standard output`` (exit 2)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        code = code or EXIT_BROKEN_PIPE
    except OSError as exc:
        _silence_stdout()
        if not code:
            from irmeta.io.output import output_error
            _say(f"irmeta: error: {output_error('standard output', exc)}")
            code = 2
    except (ValueError, AttributeError):   # closed, or replaced by an object without it
        pass
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except (OSError, ValueError, AttributeError):   # nowhere left to say anything
        pass
    return code


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    run()
