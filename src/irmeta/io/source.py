"""Open an input once, whatever it is: a file, a pipe, process substitution or ``-``.

Every reader of irmeta goes through :func:`open_source`, which

* reads a **pipe, FIFO, character device or standard input** (``-``) exactly once, into a
  temporary spool file, so that ``irmeta eval qrels <(zcat run.gz)`` sees the same bytes as
  the file itself (the spool lives as long as the data read from it may need it, for
  error line numbers, and is deleted with it);
* detects the **format by its magic bytes**, never by the file name: gzip, bzip2, xz and
  zstd are decompressed while streaming; zip archives and UTF-16 text are refused with a
  message that says what the file is and what to do;
* turns operating-system failures (missing file, directory, permission) into
  :class:`~irmeta.errors.InputError` naming the path;
* bounds what an input can make irmeta hold: at most :func:`spool_limit` bytes are
  spooled from a pipe or device (``IRMETA_SPOOL_LIMIT``), no line may be longer than
  :func:`line_limit` (``IRMETA_MAX_LINE``; checked while spooling and while
  tokenising, so ``/dev/zero`` or a decompression bomb of zeros stops early), and a
  compressed input read under an address-space limit stops with a message once it has
  produced more than the limit leaves room for (:attr:`Source.max_bytes`).

Decisions are recorded in ``docs/conventions.md`` ("Input").
"""

from __future__ import annotations

import errno
import io
import lzma
import os
import re
import secrets
import stat
import sys
import tempfile
import weakref
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import pyarrow as pa

from irmeta.errors import InputError, ParameterError, ResourceError, memory_limits

STDIN = "-"

#: the first bytes of every xz stream
XZ_MAGIC = b"\xfd7zXZ\x00"
#: magic bytes -> (format name, Arrow codec or "xz")
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gzip"),
    (b"BZh", "bzip2", "bz2"),
    (XZ_MAGIC, "xz", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd"),
)
_REFUSED = (
    (b"PK\x03\x04", "a zip archive", "unzip it and give the file inside"),
    (b"\xff\xfe", "UTF-16 text (little-endian byte-order mark)",
     "convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8"),
    (b"\xfe\xff", "UTF-16 text (big-endian byte-order mark)",
     "convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8"),
)

#: environment variable: the most bytes spooled from one pipe, FIFO, device or ``-``
SPOOL_LIMIT_VAR = "IRMETA_SPOOL_LIMIT"
#: default of :data:`SPOOL_LIMIT_VAR`: 16 GiB. A spooled input is evaluated in memory
#: (it cannot be partitioned into shards), at about twice its size, so an input this
#: large could not be evaluated on most machines anyway; the cap stops ``/dev/zero`` or
#: an endless generator before it fills the temporary folder.
DEFAULT_SPOOL_LIMIT = 16 << 30
#: environment variable: the longest line (bytes) a TREC input may have
LINE_LIMIT_VAR = "IRMETA_MAX_LINE"
#: default of :data:`LINE_LIMIT_VAR`: 64 MiB (a run line with a 1 MB document id is
#: fine; 64 MiB without a newline is a binary file or a decompression bomb)
DEFAULT_LINE_LIMIT = 64 << 20
#: the smallest line limit: lines are read in blocks of 16 MiB and checked across them
MIN_LINE_LIMIT = 16 << 20
_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _env_size(var: str, default: int, low: int = 1) -> int | None:
    """A size from the environment variable ``var`` (``64G``, ``512M``, bytes; ``0``
    or ``none``: no limit); ``default`` when unset or empty."""
    text = os.environ.get(var, "").strip()
    if not text:
        return default
    if text.lower() in ("0", "none", "unlimited"):
        return None
    match = _SIZE.fullmatch(text)
    size = int(float(match.group(1)) * _UNITS[match.group(2).lower()]) if match else -1
    if size < low:
        raise ParameterError(f"{var}={text!r}: expected a size such as 16G or 512M "
                             f"(at least {human_size(low)}), or 'none' for no limit")
    return size


def spool_limit() -> int | None:
    """The most bytes spooled from one pipe, FIFO, character device or standard input:
    ``IRMETA_SPOOL_LIMIT`` (``16G``, ``512M``; ``none``: no limit), default
    :data:`DEFAULT_SPOOL_LIMIT`."""
    return _env_size(SPOOL_LIMIT_VAR, DEFAULT_SPOOL_LIMIT)


def line_limit() -> int | None:
    """The longest line of a TREC input, in bytes: ``IRMETA_MAX_LINE`` (at least
    16M; ``none``: no limit), default :data:`DEFAULT_LINE_LIMIT`."""
    return _env_size(LINE_LIMIT_VAR, DEFAULT_LINE_LIMIT, MIN_LINE_LIMIT)


def human_size(n: int) -> str:
    """``17179869184`` -> ``16 GiB`` (for messages)."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} byte{'s' if n != 1 else ''}"


def line_too_long(name: str, line: int, limit: int) -> InputError:
    """The message for a line longer than :func:`line_limit`."""
    return InputError(f"line longer than {human_size(limit)} (the limit {LINE_LIMIT_VAR}): "
                      "not a TREC text file, or a compressed file that expands without "
                      "end", path=name, line=line,
                      expected=f"text lines; a larger {LINE_LIMIT_VAR} if this is really "
                               "one line")


class _Spool:
    """A temporary copy of a pipe's bytes; the file is removed when the object dies."""

    def __init__(self, path: str):
        self.path = path
        self._finalizer = weakref.finalize(self, _remove, path)

    def remove(self) -> None:
        """Delete the file now (once)."""
        self._finalizer()


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


@dataclass(eq=False)
class Source:
    """An input ready to be read (and re-read): ``name`` for messages, ``path`` on disk.

    ``path`` is the file itself, or the spool holding a pipe's bytes; ``codec`` is the
    compression found by magic bytes (None, ``gzip``, ``bz2``, ``xz``, ``zstd``).
    """

    name: str
    path: str
    codec: str | None
    spool: _Spool | None = field(default=None, repr=False)
    #: the most decompressed bytes a stream may produce: it ends there and sets
    #: ``over_limit``, and the reader raises :meth:`limit_error` (set by the reader under
    #: an address-space limit, where Arrow would abort the process on a failed
    #: allocation); None: no cap
    max_bytes: int | None = field(default=None, repr=False)
    #: a stream of this source was cut at ``max_bytes`` (what was read is incomplete)
    over_limit: bool = field(default=False, repr=False)

    def open(self) -> pa.NativeFile:
        """A binary, decompressed, readable stream over the whole input (a new one each
        call). Errors of the compressed data surface on read as :func:`read_error`.

        xz and a capped stream are Python-backed (``pa.PythonFile``): the reader parses
        them without Arrow's threads (:func:`irmeta.io.trec.arrow_threads`)."""
        try:
            if self.codec == "xz":
                stream = pa.PythonFile(io.BufferedReader(_StrictXz(self.path)), mode="r")
            else:
                stream = pa.input_stream(self.path, compression=self.codec)
        except OSError as exc:
            raise os_error(exc, self.name) from None
        if self.max_bytes is None:
            return stream
        return pa.PythonFile(_Capped(stream, self), mode="r")

    def limit_error(self) -> ResourceError:
        """The message for an input cut at :attr:`max_bytes`."""
        return ResourceError(
            f"{self.name}: decompresses to more than {human_size(self.max_bytes or 0)}, more "
            f"than can be parsed under the memory limit ({memory_limits()}); raise the "
            "limit (ulimit -v) or give fewer runs at once")

    def read_error(self, exc: BaseException) -> InputError:
        """The message for a failure while reading the (decompressed) stream."""
        hint = open_files_hint(exc)
        if hint:   # no fault of the data
            return InputError(f"cannot read: too many open files{hint}", path=self.name)
        if self.codec is not None:
            return InputError(f"unreadable {_FORMAT_NAME[self.codec]} data ({exc})",
                              path=self.name)
        return InputError(f"cannot read: {exc}", path=self.name)


class _StrictXz(io.RawIOBase):
    """Decompressed bytes of an xz file, concatenated streams and stream padding (null
    bytes) included, as ``xz -d`` reads it — but data after the last stream that is not
    another stream is an ``LZMAError``, as ``xz -d`` says "Unexpected end of input" (and
    gzip, bzip2 and zstd refuse it), where Python's ``lzma.open`` ignores it silently."""

    CHUNK = 1 << 16

    def __init__(self, path: str):
        self._fh = open(path, "rb")
        self._dec = lzma.LZMADecompressor(lzma.FORMAT_XZ)
        self._pending = b""          # compressed bytes not yet given to the decompressor
        self._done = False
        self._pos = 0                # decompressed bytes given out

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while not self._done:
            if self._dec.eof:
                self._next_stream()
                continue
            raw = self._pending or self._fh.read(self.CHUNK)
            self._pending = b""
            if not raw and self._dec.needs_input:
                raise lzma.LZMAError("Unexpected end of input (the xz stream is cut short)")
            data = self._dec.decompress(raw, max_length=len(view))
            if data:
                view[:len(data)] = data
                self._pos += len(data)
                return len(data)
        return 0

    def _next_stream(self) -> None:
        rest = self._dec.unused_data
        while True:
            stripped = rest.lstrip(b"\0")           # stream padding between streams
            if len(stripped) >= len(XZ_MAGIC):
                break
            more = self._fh.read(self.CHUNK)
            if not more:
                break
            rest = stripped + more
        if not stripped:
            self._done = True
            return
        if not stripped.startswith(XZ_MAGIC):
            raise lzma.LZMAError("Unexpected data after the end of the xz stream (trailing "
                                 "bytes that are not another xz stream)")
        self._dec = lzma.LZMADecompressor(lzma.FORMAT_XZ)
        self._pending = stripped

    def close(self) -> None:
        self._fh.close()
        super().close()


class _Capped:
    """A read-only stream over ``inner`` (a decompressing stream) that ends once
    ``source.max_bytes`` bytes came out of it and marks ``source.over_limit``; the reader
    then raises :meth:`Source.limit_error`. It never raises itself: an exception raised
    inside Arrow's read-ahead threads could leave them waiting forever at exit (it is
    Python-backed, so it is parsed without them anyway: :func:`irmeta.io.trec.arrow_threads`)."""

    def __init__(self, inner: pa.NativeFile, source: Source):
        self._inner = inner
        self._left = source.max_bytes or 0
        self._source = source
        self.closed = False

    def read(self, n: int = -1) -> bytes:
        if self._source.over_limit:
            return b""
        data: bytes = self._inner.read() if n is None or n < 0 else self._inner.read(n)
        self._left -= len(data)
        if self._left < 0:
            self._source.over_limit = True
            return b""
        return data

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def close(self) -> None:
        self.closed = True
        self._inner.close()


_FORMAT_NAME = {"gzip": "gzip", "bz2": "bzip2", "xz": "xz", "zstd": "zstd"}


def os_error(exc: OSError, name: str) -> InputError:
    """The reader's message for an operating-system failure to open ``name``."""
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", path=name)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, expected a file", path=name)
    if isinstance(exc, PermissionError):
        return InputError("permission denied", path=name)
    return InputError(f"cannot read file: {exc.strerror or exc}{open_files_hint(exc)}",
                      path=name)


def open_files_hint(exc: BaseException) -> str:
    """`` (the limit on open files, ulimit -n, is N: ...)`` when ``exc`` is ``EMFILE``
    (an ``OSError``, or Arrow's error of a pipe or file it could not open), else ``""``."""
    if getattr(exc, "errno", None) != errno.EMFILE and "Too many open files" not in str(exc):
        return ""
    try:
        import resource
        limit = f", is {resource.getrlimit(resource.RLIMIT_NOFILE)[0]}"
    except (ImportError, OSError, ValueError):   # pragma: no cover - not POSIX
        limit = ""
    return (f" (the limit on open files, ulimit -n{limit}: raise it or give fewer "
            "files at once)")


#: seconds a read of a pipe waits for data before it looks for a signal again
PIPE_POLL = 0.25


def _read_some(fh: BinaryIO, size: int) -> bytes:
    """The next bytes of the stream ``fh`` (at most ``size``; ``b""`` at its end), waiting
    for them in slices of :data:`PIPE_POLL` seconds (``select``) when ``fh`` has a file
    descriptor. A blocking ``read`` of a pipe that gets no data is not interrupted by a
    Ctrl-C or SIGTERM the kernel delivers to another thread (Dask's, Arrow's: the signal
    goes to any thread), so Python's handler, which runs in the main thread, would wait
    for the writer for ever; between two slices it runs. The stream is a fresh ``open``
    of a FIFO or standard input, with nothing buffered yet: ``read1`` then returns what
    one read of the descriptor gives."""
    import select
    try:
        fd = fh.fileno()
    except (AttributeError, OSError, ValueError):   # no descriptor (a test's BytesIO)
        return fh.read(size)
    read1 = getattr(fh, "read1", None)
    if read1 is None:
        return fh.read(size)
    while True:
        try:
            ready, _, _ = select.select([fd], [], [], PIPE_POLL)
        except (OSError, ValueError):        # not selectable: a plain blocking read
            return bytes(read1(size))
        if ready:
            return bytes(read1(size))


def _spool(fh: BinaryIO, name: str, kind: str = "pipe") -> _Spool:
    """Copy a non-seekable stream into a temporary file, once: at most
    :func:`spool_limit` bytes, and (for text that is not compressed) no line longer
    than :func:`line_limit`, so that ``/dev/zero`` stops at once."""
    limit, max_line = spool_limit(), line_limit()
    spool, fd = _new_spool(name)
    total = lines = since_newline = 0
    plain: bool | None = None
    head = b""
    try:
        with os.fdopen(fd, "wb") as out:
            while chunk := _read_some(fh, 1 << 22):
                if plain is None:          # decided on the first 8 bytes (the magic)
                    head += chunk
                    if len(head) < 8:
                        continue
                    chunk, head = head, b""
                    plain = not any(chunk.startswith(m) for m, _, _ in _COMPRESSED)
                total += len(chunk)
                if limit is not None and total > limit:
                    spool.remove()
                    raise InputError(
                        f"more than {human_size(limit)} read from this {kind}, the limit "
                        f"on spooled input ({SPOOL_LIMIT_VAR})", path=name,
                        expected=f"a regular file, or a larger {SPOOL_LIMIT_VAR} "
                                 "(e.g. 64G; 'none': no limit)")
                if plain and max_line is not None:
                    cut = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
                    if cut < 0:
                        since_newline += len(chunk)
                    else:
                        lines += chunk.count(b"\n")
                        since_newline = len(chunk) - cut - 1
                    if since_newline > max_line:
                        spool.remove()
                        raise line_too_long(name, lines + 1, max_line)
                out.write(chunk)
            out.write(head)               # an input of fewer than 8 bytes
    except OSError as exc:
        spool.remove()
        raise _no_spool(exc, name) from None
    except BaseException:
        # Ctrl-C or SIGTERM while the pipe is read (it blocks there): the spool goes now,
        # not when the traceback that holds it is collected (an exit may never collect it)
        spool.remove()
        raise
    return spool


def _new_spool(name: str) -> tuple[_Spool, int]:
    """A new empty spool file in the temporary folder, opened for writing.

    Race-free against SIGINT / SIGTERM (issue 32): the :class:`_Spool` that removes the
    file is made *before* the file is created (``O_CREAT | O_EXCL`` at the path it
    names), so a signal at any moment leaves either no file or a file that its
    finaliser removes. (``tempfile.mkstemp`` followed by ``_Spool(path)`` left an
    ``irmeta-pipe-*`` file behind when the signal arrived in between.)"""
    folder = tempfile.gettempdir()
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | \
        getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        spool = _Spool(os.path.join(folder, f"irmeta-pipe-{secrets.token_hex(6)}"))
        try:
            return spool, os.open(spool.path, flags, 0o600)
        except FileExistsError:            # another process's file: not ours to remove
            spool._finalizer.detach()
            continue
        except OSError as exc:
            spool._finalizer.detach()
            raise _no_spool(exc, name) from None
    raise _no_spool(FileExistsError(errno.EEXIST, "no free spool name"), name)


def _no_spool(exc: OSError, name: str) -> InputError:
    return InputError(f"cannot buffer the piped input in {tempfile.gettempdir()}: "
                      f"{exc.strerror or exc}", path=name,
                      expected="room in the temporary folder (TMPDIR)")


def input_kind(path: str) -> str | None:
    """What ``path`` is when it is not a regular file or a folder (``"pipe or FIFO"``,
    ``"character device"``, ``"socket"``, ...): an input that must be read once, in
    order, and whose size cannot be known; None for a regular file, a folder or a path
    that cannot be stat'ed (open() then gives the precise error). Never opens ``path``."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "pipe or FIFO"
    if stat.S_ISCHR(mode):
        return "character device"
    if stat.S_ISBLK(mode):
        return "block device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"


def open_source(path: str | os.PathLike[str]) -> Source:
    """Resolve ``path`` to a :class:`Source`: check it can be read, spool a pipe or
    standard input once, and detect the compression by magic bytes."""
    name = os.fspath(path)
    if not isinstance(name, str):
        name = os.fsdecode(name)
    spool = None
    if name == STDIN:
        spool, name = _spool(sys.stdin.buffer, "<stdin>", "standard input"), "<stdin>"
        disk = spool.path
    elif (kind := input_kind(name)) is not None:
        try:
            with open(name, "rb") as fh:
                spool = _spool(fh, name, kind)
        except OSError as exc:
            raise os_error(exc, name) from None
        disk = spool.path
    else:
        disk = name
    try:
        with open(disk, "rb") as fh:
            magic = fh.read(8)
    except OSError as exc:
        raise os_error(exc, name) from None
    return Source(name, disk, _codec(magic, name), spool)


def _codec(magic: bytes, name: str) -> str | None:
    for prefix, _, codec in _COMPRESSED:
        if magic.startswith(prefix):
            return codec
    for prefix, what, todo in _REFUSED:
        if magic.startswith(prefix):
            raise InputError(f"this is {what}, not a text file", path=name, expected=todo)
    if len(magic) >= 4 and magic[1:4:2] == b"\x00\x00" and magic[0:4:2].count(0) == 0:
        raise InputError("this looks like UTF-16 text without a byte-order mark", path=name,
                         expected="UTF-8 or ASCII text (iconv -f UTF-16LE -t UTF-8)")
    return None


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The whole decompressed content of an input (any format :func:`open_source`
    accepts), without a leading UTF-8 byte-order mark (it is not data: the TREC readers
    skip it too). For small inputs (groups, run-info and matrix files); TREC files are
    streamed."""
    source = open_source(path)
    try:
        with source.open() as fh:   # in blocks: an xz stream has no size to read to
            data = b"".join(iter(lambda: fh.read(1 << 20), b""))
        return data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    except InputError:
        raise
    except (OSError, EOFError, pa.ArrowException, lzma.LZMAError) as exc:
        raise source.read_error(exc) from None
