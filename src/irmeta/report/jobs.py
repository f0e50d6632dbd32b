"""Computations run in a forked child process while the caller goes on.

A report has two cores' worth of work and, at its start, one core's worth of
things to do: :class:`Job` lets the campaign report compute its slowest independent
section (the significance tests and topic subsampling of *trust*) in a child process
while the parent computes the other sections. The child inherits the campaign by
``fork`` (nothing is copied up front) and sends its result back pickled through a pipe.

A child never outlives its parent (issue 32): on Linux it asks the kernel to kill it
when the parent dies (``PR_SET_PDEATHSIG``), and every child not yet collected is
known (:func:`cancel_all`, which the CLI calls on its way out), so an interrupt at any
moment, even between two ``Job`` constructions of a caller, leaves no process computing
for nobody (and holding the caller's standard error open).

Without ``fork`` (Windows) or with ``background=False``, the function runs at once in
this process: the result is the same, only the timing differs. An exception in the
child is raised again by :meth:`Job.result` in the parent.
"""

from __future__ import annotations

import os
import pickle
import sys
import traceback
from typing import Any, Callable

__all__ = ["Job", "cancel_all"]

#: jobs whose child has not been collected (by :meth:`Job.result` or :meth:`Job.cancel`)
_LIVE: set[Job] = set()


class Job:
    """``fn(*args, **kwargs)`` computed in a forked child; :meth:`result` returns it."""

    def __init__(self, fn: Callable[..., Any], *args, background: bool = True, **kwargs):
        self._pid = None
        self._fd = None
        self._value: tuple[str, Any] | None = None
        if not (background and hasattr(os, "fork")):
            self._value = _call(fn, args, kwargs)
            return
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:                                           # child: compute, send, leave
            code = 1
            try:
                _die_with(parent)
                os.close(read)
                data = _dumps(_call(fn, args, kwargs))
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                code = 0
            finally:
                os._exit(code)
        self._pid, self._fd = pid, read
        _LIVE.add(self)
        os.close(write)

    def result(self) -> Any:
        """The function's return value (waits for the child); its exception is raised
        again here."""
        if self._value is None:
            if self._fd is None or self._pid is None:
                raise RuntimeError("Job: the result was cancelled")
            # the file object owns the descriptor from here on: an interrupt while
            # reading closes it once (in ``with``), and :meth:`cancel` must not close the
            # number again (EBADF, or worse another file that got the same number since)
            fd, self._fd = self._fd, None
            with os.fdopen(fd, "rb") as src:
                data = src.read()
            _, status = os.waitpid(self._pid, 0)
            self._pid = None
            _LIVE.discard(self)
            try:
                self._value = pickle.loads(data) if status == 0 and data else None
            except Exception as exc:  # noqa: BLE001 - e.g. an exception class that cannot be rebuilt
                raise RuntimeError(f"Job: cannot read the child's result: {exc}") from exc
            if self._value is None:
                raise RuntimeError(f"Job: the child process computing the result failed "
                                   f"(status {status})")
        kind, value = self._value
        if kind == "error":
            raise value
        return value

    def cancel(self) -> None:
        """Stop waiting for a result that will not be used (kills the child)."""
        if self._pid is not None:
            import signal
            try:
                os.kill(self._pid, signal.SIGKILL)
                os.waitpid(self._pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self._pid = None
        _LIVE.discard(self)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def cancel_all() -> None:
    """Cancel every job whose child has not been collected (kill and reap it): the
    CLI's last step, whatever ended the command."""
    for job in list(_LIVE):
        job.cancel()


def _die_with(parent: int) -> None:
    """In a child: be killed when ``parent`` dies (Linux ``PR_SET_PDEATHSIG``); leave at
    once when it is already gone (it died between the fork and this call)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)     # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):   # no prctl: cancel_all still reaps the child
            pass
    if os.getppid() != parent:
        os._exit(1)


def _call(fn, args, kwargs) -> tuple[str, Any]:
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - handed to the parent, raised there
        return "error", exc


def _dumps(value: tuple[str, Any]) -> bytes:
    """Pickle the result; an exception that cannot be pickled travels as its text."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001
        kind, exc = value
        text = "".join(traceback.format_exception(exc)) if kind == "error" else repr(exc)
        return pickle.dumps(("error", RuntimeError(f"Job failed in the child:\n{text}")))
