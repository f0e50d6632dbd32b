"""Exceptions raised by irmeta.

Every error a user can cause is an :class:`IrmetaError`; the CLI prints its message and
exits with status 2, never a traceback. The hierarchy::

    IrmetaError
     +-- InputError          bad qrels / run / matrix input: carries path, line, topic
     +-- MeasureError        a measure string that does not parse, or an unknown parameter
     +-- ParameterError      a bad argument to a public function (names function and value)
     +-- CampaignError       inputs that are individually valid but do not fit together
                             (no common topics, unknown run in a groups file, ...)
     +-- ResourceError       the machine ran out of something the input needs (memory,
                             threads): names the input and the limit in force
     +-- OutputError         an output that cannot be written (missing folder, a file in
                             the way, no permission, disk full): carries path and reason

``ConvergenceWarning`` is a warning, not an error: iterative procedures (GAWM) report
non-convergence in their result object and also emit it.
"""

from __future__ import annotations

from typing import Any


class IrmetaError(Exception):
    """Base class of every error irmeta raises on purpose.

    Every subclass survives a pickle round trip (a report's child process, a Dask
    worker): the copy has the same type, message (``args``) and attributes, whatever the
    subclass's ``__init__`` takes (:meth:`__reduce__`).
    """

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # the default, ``cls(*self.args)``, calls ``__init__`` with the formatted message
        # only: OutputError(path, reason) then failed with "missing 1 required positional
        # argument: 'reason'" in the parent, an internal error instead of the located one
        return _rebuild, (type(self), self.args, self.__dict__)


class InputError(IrmetaError, ValueError):
    """Malformed input data.

    Attributes ``path``, ``line`` (1-based) and ``topic`` locate the problem when known;
    ``expected`` says what was expected there.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 topic: str | None = None, expected: str | None = None):
        self.path = path
        self.line = line
        self.topic = topic
        self.expected = expected
        self.reason = message
        super().__init__(self._format())

    def _format(self) -> str:
        where = []
        if self.path is not None:
            where.append(str(self.path) + (f":{self.line}" if self.line is not None else ""))
        elif self.line is not None:
            where.append(f"line {self.line}")
        if self.topic is not None:
            where.append(f"topic {self.topic!r}")
        text = (", ".join(where) + ": " if where else "") + self.reason
        if self.expected:
            text += f" (expected {self.expected})"
        return text


class MeasureError(IrmetaError, ValueError):
    """A measure string that does not parse, names an unknown measure or parameter."""

    def __init__(self, message: str, *, text: str | None = None, position: int | None = None,
                 known: list[str] | None = None):
        self.text = text
        self.position = position
        self.known = known
        parts = [message]
        if text is not None:
            parts.append(f"  {text}")
            if position is not None:
                parts.append("  " + " " * position + "^")
        if known:
            parts.append("known measures: " + ", ".join(known))
        super().__init__("\n".join(parts))


class ParameterError(IrmetaError, ValueError):
    """A public function was called with an invalid argument."""


class CampaignError(IrmetaError, ValueError):
    """Inputs that cannot be combined (e.g. no topic in common, unknown run names)."""


class ResourceError(IrmetaError, MemoryError):
    """Not enough memory (or threads) for the input; the message names the input and the
    limit in force (see :func:`memory_limits`)."""


def _rebuild(cls: type[BaseException], args: tuple[Any, ...],
             state: dict[str, Any]) -> BaseException:
    """An exception of type ``cls`` with ``args`` and attributes ``state``, made without
    calling its ``__init__`` (the other half of :meth:`IrmetaError.__reduce__`)."""
    exc: BaseException | None = None
    # the ``__new__`` that the type's own construction uses: which built-in base's it is
    # depends on the bases (OSError's for OutputError, Exception's for ResourceError, not
    # MemoryError's, which ``cls.__new__`` finds); the others refuse with a TypeError
    for base in cls.__mro__:
        if "__new__" in vars(base):
            try:
                exc = base.__new__(cls)  # type: ignore[call-overload]
                break
            except TypeError:
                continue
    if exc is None:   # pragma: no cover - every exception type has one
        exc = cls(*args)
    exc.args = args
    exc.__dict__.update(state)
    return exc


def memory_limits() -> str:
    """The memory limits in force, for messages: the address-space limit (``ulimit -v``)
    when one is set, and the memory this machine has available."""
    parts = []
    try:
        import resource
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft not in (resource.RLIM_INFINITY, -1):
            parts.append(f"address-space limit (ulimit -v) {soft / 2**30:.1f} GiB")
    except (ImportError, OSError, ValueError):
        pass
    try:
        import os
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        parts.append(f"{avail / 2**30:.1f} GiB of memory available")
    except (ValueError, OSError, AttributeError):
        pass
    return "; ".join(parts) or "limits unknown"
class OutputError(IrmetaError, OSError):
    """An output file or folder that cannot be written.

    ``path``: what was being written (``"standard output"`` for stdout); ``reason``: the
    operating system's reason, with a hint naming the part of the path at fault.
    ``stream`` is true for standard output (the CLI then stops writing to it).
    """

    stream = False

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"cannot write {path}: {reason}")

    def __str__(self) -> str:
        return str(self.args[0])


class ConvergenceWarning(UserWarning):
    """An iterative procedure stopped at its iteration limit without converging."""
