"""The ``irmeta`` console script: the smallest module, so that a signal during start-up
is answered like one later.

Importing the CLI (click, irmeta's modules) takes a few hundred milliseconds; a Ctrl-C
or SIGTERM in that window used to kill the interpreter with the signal's default action
(exit -2 / -15, no message). Here both are caught around the import: exit 130 with
``irmeta: aborted`` and 143 with ``irmeta: terminated``, as :func:`irmeta.cli.main.main`
answers them once it runs (nothing exists yet that would need removing).
"""

from __future__ import annotations

import signal
import sys


class _TerminatedAtStart(BaseException):
    pass


def _on_sigterm(signum, frame):  # pragma: no cover - exercised through a subprocess
    raise _TerminatedAtStart()


def run() -> None:
    """Import the CLI, then :func:`irmeta.cli.main.run` (which installs its own handlers).
    Called from the ``__main__`` module (the console script, ``python -m irmeta``) it is
    the program, which ends through :func:`irmeta.cli.main.leave` (``os._exit`` once the
    outputs are flushed and the ``atexit`` functions ran); called from elsewhere, it
    raises ``SystemExit``."""
    program = _called_from_main()
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):   # no signals here (an embedded interpreter)
        previous = None
    try:
        from irmeta.cli import main as cli
    except KeyboardInterrupt:
        sys.stderr.write("irmeta: aborted\n")
        sys.exit(130)
    except _TerminatedAtStart:
        sys.stderr.write("irmeta: terminated\n")
        sys.exit(143)
    if previous is not None:   # until main() installs its own: raise what main() answers
        signal.signal(signal.SIGTERM, cli._on_sigterm)
    cli.run(program)


def _called_from_main() -> bool:
    """Is the caller of :func:`run` the ``__main__`` module? (As
    :func:`irmeta.cli.main.called_from_main`, which is not imported yet.)"""
    try:
        return sys._getframe(2).f_globals.get("__name__") == "__main__"
    except ValueError:
        return False
