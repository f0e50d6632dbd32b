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
  :class:`~irmeta.errors.InputError` naming the path.

Decisions are recorded in ``docs/conventions.md`` ("Input").
"""

from __future__ import annotations

import lzma
import os
import shutil
import stat
import sys
import tempfile
import weakref
from dataclasses import dataclass, field
from typing import BinaryIO

import pyarrow as pa

from irmeta.errors import InputError

STDIN = "-"

#: magic bytes -> (format name, Arrow codec or "xz")
_COMPRESSED = (
    (b"\x1f\x8b", "gzip", "gzip"),
    (b"BZh", "bzip2", "bz2"),
    (b"\xfd7zXZ\x00", "xz", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd"),
)
_REFUSED = (
    (b"PK\x03\x04", "a zip archive", "unzip it and give the file inside"),
    (b"\xff\xfe", "UTF-16 text (little-endian byte-order mark)",
     "convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8"),
    (b"\xfe\xff", "UTF-16 text (big-endian byte-order mark)",
     "convert it to UTF-8, e.g. iconv -f UTF-16 -t UTF-8"),
)


class _Spool:
    """A temporary copy of a pipe's bytes; the file is removed when the object dies."""

    def __init__(self, path: str):
        self.path = path
        self._finalizer = weakref.finalize(self, _remove, path)


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

    def open(self) -> pa.NativeFile:
        """A binary, decompressed, readable stream over the whole input (a new one each
        call). Errors of the compressed data surface on read as :func:`read_error`."""
        try:
            if self.codec == "xz":
                return pa.PythonFile(lzma.open(self.path, "rb"), mode="r")
            return pa.input_stream(self.path, compression=self.codec)
        except OSError as exc:
            raise _os_error(exc, self.name) from None

    def read_error(self, exc: BaseException) -> InputError:
        """The message for a failure while reading the (decompressed) stream."""
        if self.codec is not None:
            return InputError(f"unreadable {_FORMAT_NAME[self.codec]} data ({exc})",
                              path=self.name)
        return InputError(f"cannot read: {exc}", path=self.name)


_FORMAT_NAME = {"gzip": "gzip", "bz2": "bzip2", "xz": "xz", "zstd": "zstd"}


def _os_error(exc: OSError, name: str) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", path=name)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, expected a file", path=name)
    if isinstance(exc, PermissionError):
        return InputError("permission denied", path=name)
    return InputError(f"cannot read file: {exc.strerror or exc}", path=name)


def _spool(fh: BinaryIO, name: str) -> _Spool:
    """Copy a non-seekable stream into a temporary file, once."""
    fd, path = tempfile.mkstemp(prefix="irmeta-pipe-")
    spool = _Spool(path)
    try:
        with os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(fh, out, 1 << 22)
    except OSError as exc:
        raise InputError(f"cannot buffer the piped input in {tempfile.gettempdir()}: "
                         f"{exc.strerror or exc}", path=name,
                         expected="room in the temporary folder (TMPDIR)") from None
    return spool


def _is_regular(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # let open() produce the precise error


def open_source(path: str | os.PathLike[str]) -> Source:
    """Resolve ``path`` to a :class:`Source`: check it can be read, spool a pipe or
    standard input once, and detect the compression by magic bytes."""
    name = os.fspath(path)
    if not isinstance(name, str):
        name = os.fsdecode(name)
    spool = None
    if name == STDIN:
        spool, name = _spool(sys.stdin.buffer, "<stdin>"), "<stdin>"
        disk = spool.path
    elif not _is_regular(name):
        try:
            with open(name, "rb") as fh:
                spool = _spool(fh, name)
        except OSError as exc:
            raise _os_error(exc, name) from None
        disk = spool.path
    else:
        disk = name
    try:
        with open(disk, "rb") as fh:
            magic = fh.read(8)
    except OSError as exc:
        raise _os_error(exc, name) from None
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
    accepts). For small inputs (groups files, matrices); TREC files are streamed."""
    source = open_source(path)
    try:
        with source.open() as fh:
            data: bytes = fh.read()
            return data
    except InputError:
        raise
    except (OSError, EOFError, pa.ArrowException, lzma.LZMAError) as exc:
        raise source.read_error(exc) from None
