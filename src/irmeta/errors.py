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

Warnings are :class:`IrmetaWarning` s (a ``UserWarning``), emitted by :func:`warn` at
the line of the user's code that called irmeta. ``ConvergenceWarning`` is one:
iterative procedures (GAWM) report non-convergence in their result object and also
emit it.
"""

from __future__ import annotations

import os
from types import FrameType
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


class IrmetaWarning(UserWarning):
    """Base class of every warning irmeta emits (:func:`warn`): filter them all with
    ``warnings.filterwarnings("ignore", category=irmeta.IrmetaWarning)``. Each points at
    the line of the caller's code that called irmeta, not into irmeta's own files
    (docs/conventions.md, "The Python API: warnings")."""


class ConvergenceWarning(IrmetaWarning):
    """An iterative procedure stopped at its iteration limit without converging."""


def _in_package(frame: FrameType) -> bool:
    """``frame`` runs irmeta's code: a module named ``irmeta.*``, or a file of the package
    run as ``__main__`` (``python -m irmeta``)."""
    name = frame.f_globals.get("__name__")
    if isinstance(name, str) and (name == "irmeta" or name.startswith("irmeta.")):
        return True
    return name == "__main__" and frame.f_code.co_filename.startswith(_PACKAGE_DIR)


_PACKAGE_DIR = os.path.join(os.path.dirname(__file__), "")


_LIBRARY_DIRS: tuple[str, ...] | None = None


def _in_library(frame: FrameType) -> bool:
    """``frame`` runs code of the standard library or of an installed package (pandas
    calling back into irmeta, a thread's bootstrap), not the user's."""
    global _LIBRARY_DIRS
    if _LIBRARY_DIRS is None:
        import sysconfig
        paths = sysconfig.get_paths()
        _LIBRARY_DIRS = tuple(sorted({os.path.join(os.path.realpath(paths[key]), "")
                                      for key in ("stdlib", "platstdlib", "purelib",
                                                  "platlib") if key in paths}))
    filename = frame.f_code.co_filename
    if filename.startswith("<frozen "):
        return True
    return os.path.realpath(filename).startswith(_LIBRARY_DIRS)


def _user_frame(frame: FrameType | None) -> FrameType | None:
    """The frame a warning raised in ``frame`` should name: walking out of the call stack,
    the first frame outside the irmeta package that is the user's code, not the standard
    library's or an installed package's (pandas' ``apply`` running an irmeta function,
    click running the CLI); when there is none (a thread), the first frame outside irmeta."""
    first = None
    while frame is not None:
        if not _in_package(frame):
            if not _in_library(frame):
                return frame
            if first is None:
                first = frame
        frame = frame.f_back
    return first


def warn(message: str, category: type[Warning] = IrmetaWarning) -> None:
    """Emit ``message`` as a warning of ``category`` located at the user's line: the first
    frame of the user's code (outside irmeta, the standard library and installed packages)
    that led to this call, however deep irmeta's own calls go (what a fixed
    ``stacklevel`` cannot know through the lazy public API and shared helpers).

    Warnings from irmeta are :class:`IrmetaWarning` s; silence them with
    ``warnings.filterwarnings("ignore", category=irmeta.IrmetaWarning)``."""
    import sys
    import warnings
    caller = sys._getframe(1)
    frame = _user_frame(caller) or caller
    module_globals = frame.f_globals
    registry = module_globals.setdefault("__warningregistry__", {})
    # what ``warnings.warn(stacklevel=...)`` does for the frame it finds; without
    # ``module_globals``, which makes linecache ask the module's loader for its source
    # and fails for a module run as ``__main__`` (``python -m pkg.script``)
    warnings.warn_explicit(message, category, frame.f_code.co_filename, frame.f_lineno,
                           module=module_globals.get("__name__", "<string>"),
                           registry=registry)
