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


class IrmetaError(Exception):
    """Base class of every error irmeta raises on purpose."""


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
