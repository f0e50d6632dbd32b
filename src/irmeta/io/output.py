"""Writing output files and folders: all or nothing, and user errors named as such.

Every file irmeta writes (``-o`` tables, TSV, JSON, figures, report pages) goes through
:func:`atomic_write`: the content is written to a hidden temporary file in the target's
own folder and renamed over the target (``os.replace``) only once it is complete. A
reader never sees a half-written file, two processes writing the same target leave one
of the two complete outputs (never a mix of lines), and an error or Ctrl-C leaves the
previous file untouched and no temporary file behind.

A report is a page plus its companion folder (``report.html`` and ``report_files/``).
:class:`StagedFolder` builds the companion folder in a hidden staging folder next to it
and :meth:`StagedFolder.publish` swaps it in as a whole (old folder renamed away, new
one renamed in, old one deleted): no file of an earlier report survives, and a failed
or interrupted report leaves the previous one intact.

Every ``OSError`` met while writing becomes an :class:`~irmeta.errors.OutputError`
naming the path and the reason (:func:`output_error`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from irmeta.errors import OutputError

#: a path argument: a string or any ``os.PathLike`` of text
StrPath = str | os.PathLike[str]

__all__ = ["StagedFolder", "atomic_path", "atomic_write", "bounded_file_name",
           "check_file_target",
           "check_folder_target", "output_error",
           "stdout_errors", "write_errors"]


# ---------------------------------------------------------------------- errors
def remove_tree(path: StrPath) -> None:
    """Remove the folder ``path`` and everything in it, errors ignored, even where
    ``shutil.rmtree`` cannot: it opens a descriptor per folder level and gives up
    silently under ``EMFILE`` (a small ``ulimit -n``: the spill folder stayed, issue 41,
    item 7). What it left is then removed by path, bottom up, which needs no descriptor
    beyond one directory listing at a time."""
    import shutil
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    for folder, dirs, files in os.walk(path, topdown=False):
        for name in files + dirs:
            target = os.path.join(folder, name)
            try:
                if os.path.isdir(target) and not os.path.islink(target):
                    os.rmdir(target)
                else:
                    os.unlink(target)
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass


def output_error(path: StrPath, exc: OSError) -> OutputError:
    """An :class:`OutputError` for ``exc`` met while writing ``path``: the path, the OS
    reason and, when it helps, which part of the path is at fault."""
    from irmeta.io.source import open_files_hint
    reason = exc.strerror or str(exc)
    hint = _hint(Path(path), exc.errno)
    return OutputError(str(path), reason + (f" ({hint})" if hint else "")
                       + open_files_hint(exc))


def _hint(path: Path, code: int | None) -> str:
    folder = path.parent
    if code == errno.ENOENT and not _exists(folder):
        missing = folder
        while not _exists(missing.parent) and missing.parent != missing:
            missing = missing.parent
        return f"the folder {missing} does not exist"
    if code in (errno.ENOTDIR, errno.EEXIST):
        blocker = next((p for p in [path, *path.parents] if p.is_file()), None)
        if blocker is not None:
            return f"{blocker} is a file, not a folder"
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"no permission to write in the folder {folder}"
    return ""


def _exists(path: Path) -> bool:
    return str(path) in ("", ".") or path.exists()


@contextlib.contextmanager
def write_errors(path: StrPath) -> Iterator[None]:
    """Turn an ``OSError`` raised inside the block into an :class:`OutputError`."""
    try:
        yield
    except OutputError:
        raise
    except OSError as exc:
        raise output_error(path, exc) from exc


# ---------------------------------------------------------------------- files
#: the longest file-name stem irmeta derives from a name it was given (a measure, a
#: group): file systems refuse names past 255 bytes, and a staging or temporary prefix
#: and a suffix are added to the stem
FILE_STEM_LIMIT = 80


def bounded_file_name(stem: str, limit: int = FILE_STEM_LIMIT) -> str:
    """``stem`` itself when it has at most ``limit`` characters; otherwise a readable
    prefix, ``~`` and the first 10 hex digits of the SHA-256 of the whole stem, ``limit``
    characters in all (``matrix_nDCG_gains=_0_0_1_1...~3f2a9c01b7``). Two stems that
    differ anywhere get different names; the same stem always the same name.

    >>> bounded_file_name("matrix_AP")
    'matrix_AP'
    >>> len(bounded_file_name("x" * 300))
    80
    """
    if len(stem) <= limit:
        return stem
    import hashlib
    digest = hashlib.sha256(stem.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return stem[:limit - 11] + "~" + digest


@contextlib.contextmanager
def atomic_write(path: StrPath, mode: str = "w", *, encoding: str | None = "utf-8",
                 newline: str | None = "\n", fsync: bool = False) -> Iterator[IO[Any]]:
    """Open ``path`` for writing, all or nothing (see the module doc).

    Yields a file object (``mode`` ``"w"`` text, ``"wb"`` bytes) on a temporary file in
    the same folder; on a normal exit it is flushed (``fsync=True``: also to disk) and
    renamed over ``path``; on any exception, ``KeyboardInterrupt`` included, it is
    deleted and ``path`` is left as it was. A new file gets the usual permissions
    (``0666`` less the umask), a replaced one keeps its own. A symbolic link is
    followed (the file it points to is replaced). A target that exists and is not a
    regular file (``/dev/null``, a FIFO) is written in place, never replaced.
    Errors are :class:`~irmeta.errors.OutputError`.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"atomic_write: mode must be 'w' or 'wb', got {mode!r}")
    kwargs: dict[str, Any] = {} if mode == "wb" else {"encoding": encoding, "newline": newline}
    target = Path(os.path.realpath(path))
    with write_errors(path):
        current = _stat(target)
        if current is not None and not stat.S_ISREG(current.st_mode):
            if stat.S_ISDIR(current.st_mode):
                raise OSError(errno.EISDIR, "it is a folder")
            with open(target, mode, **kwargs) as fh:   # a device or FIFO: stream into it
                yield fh
            return
        fd, temp = _temp_file(target)
        try:
            with open(fd, mode, **kwargs) as fh:
                yield fh
                fh.flush()
                if fsync:
                    os.fsync(fh.fileno())
            if current is not None:
                os.chmod(temp, stat.S_IMODE(current.st_mode))
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise


@contextlib.contextmanager
def atomic_path(path: StrPath) -> Iterator[str]:
    """A fresh temporary path next to ``path`` for writers that need a file name rather
    than a file object (``zipfile``, Arrow's Parquet and IPC writers): renamed over
    ``path`` on a normal exit, deleted on any exception. The name is unique
    (:func:`_temp_file`), so two processes writing the same target never write into,
    or rename away, each other's temporary file. Errors are
    :class:`~irmeta.errors.OutputError`."""
    target = Path(os.path.realpath(path))
    with write_errors(path):
        fd, temp = _temp_file(target)
        os.close(fd)
        try:
            yield temp
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None


def _temp_file(target: Path) -> tuple[int, str]:
    """A new hidden file next to ``target`` with the permissions a plain ``open`` would
    give (``mkstemp`` would make it private to the user)."""
    for _ in range(100):
        name = target.parent / f".{target.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), str(name)
        except FileExistsError:
            continue
    raise OSError(errno.EEXIST, "no free temporary file name")


@contextlib.contextmanager
def stdout_errors() -> Iterator[None]:
    """Errors writing standard output (``> /dev/full``): an :class:`OutputError`.
    A broken pipe (``| head``) is left to the CLI, which exits quietly."""
    try:
        yield
        sys.stdout.flush()
    except (BrokenPipeError, OutputError):
        raise
    except OSError as exc:
        err = output_error("standard output", exc)
        err.stream = True
        raise err from exc


def check_file_target(path: StrPath) -> Path:
    """``path`` as a file that can be written: its folder exists, is a folder and can be
    written in, and the path itself is not a folder. Checked when the command starts, so
    that a typo in ``-o`` is not found after minutes of computing; the write itself still
    reports what may happen meanwhile (a full disk)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(str(path), "it is a folder, not a file")
    if not _exists(folder) or not folder.is_dir():
        code = errno.ENOENT if not _exists(folder) else errno.ENOTDIR
        raise output_error(path, OSError(code, os.strerror(code)))
    if not path.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise output_error(path, OSError(errno.EACCES, os.strerror(errno.EACCES)))
    return path


# ---------------------------------------------------------------------- folders
def check_folder_target(path: StrPath) -> Path:
    """``path`` as a folder that can be replaced whole: absent, or a folder. A regular
    file (or a path under one) is an :class:`OutputError`, found before any work."""
    path = Path(path)
    if _is_non_folder(path):
        raise OutputError(str(path), "it is a file, not a folder")
    blocker = next((p for p in path.parents if _is_non_folder(p)), None)
    if blocker is not None:
        raise OutputError(str(path), f"Not a directory ({blocker} is a file, not a folder)")
    return path


def _is_non_folder(path: Path) -> bool:
    """``path`` exists and is not a folder, read in one ``stat``: ``exists()`` then
    ``is_dir()`` is two reads, and another process renaming the folder away in between
    (two ``irmeta report -o same`` at once) made a folder look like a file."""
    try:
        return not stat.S_ISDIR(path.stat().st_mode)
    except OSError as exc:                       # what ``Path.exists`` reads as absent
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP):
            return False
        raise


def _make_parents(folder: Path, made: list[Path]) -> None:
    """``folder.mkdir(parents=True, exist_ok=True)``, appending each folder it made to
    ``made`` (outermost first) as soon as it exists, so that an interrupt in between still
    leaves the list right for the cleanup."""
    missing = []
    for part in (folder, *folder.parents):
        if part.is_dir():
            break
        missing.append(part)
    for part in reversed(missing):
        try:
            part.mkdir()
        except FileExistsError:
            if not part.is_dir():
                raise
            continue                             # another process made it: not ours
        made.append(part)


class StagedFolder:
    """A folder built aside and swapped in whole.

    ``StagedFolder(final)`` creates the parents of ``final`` and a hidden staging
    folder next to it; files are written into :attr:`path` (same base name as
    ``final``, so relative links made from it stay right). :meth:`publish` replaces
    ``final`` by it; :meth:`discard` (also run when the object is garbage collected or
    at interpreter exit) deletes the staging folder. ``sidecars``: files written into
    :attr:`root` that :meth:`publish` renames next to ``final`` afterwards (the HTML
    page of a report). The parents of ``final`` that did not exist are made; a
    :meth:`discard` before :meth:`publish` (an error, Ctrl-C, SIGTERM) removes those
    again when they are empty, so a failed ``-o new/folder/report.html`` leaves no
    empty ``new/folder`` behind.
    """

    def __init__(self, final: StrPath) -> None:
        self.final = check_folder_target(final)
        self._made: list[Path] = []
        self._published = False
        try:
            with write_errors(self.final):
                _make_parents(self.final.parent, self._made)
                self._tmp = tempfile.TemporaryDirectory(prefix=f".{self.final.name}.",
                                                        suffix=".tmp", dir=self.final.parent)
                self.root = Path(self._tmp.name)
                self.path = self.root / self.final.name
                self.path.mkdir()
        except BaseException:
            self.discard()                       # the parents made above, again
            raise

    def publish(self, sidecars: Iterable[StrPath] = ()) -> Path:
        """Swap the staged folder in for ``final`` (then move ``sidecars``, paths inside
        :attr:`root`, next to it); returns ``final``."""
        check_folder_target(self.final)
        with write_errors(self.final):
            self._swap_in()
        for item in sidecars:
            target = self.final.parent / Path(item).name
            with write_errors(target):
                os.replace(item, target)
        self._published = True
        self.discard()
        return self.final

    def _swap_in(self) -> None:
        """Rename the staged folder to ``final``, moving a folder already there into the
        staging folder (deleted with it). Another process publishing the same target
        at the same moment (two ``irmeta report -o same``) can put its folder at
        ``final`` between the two renames, or take the one seen there: each such race
        is retried, and the last publisher's folder stays, whole."""
        for attempt in range(100):
            old = self.root / f".previous{attempt}"
            try:
                os.rename(self.final, old)
            except FileNotFoundError:
                pass                       # nothing there (or another process took it)
            try:
                os.rename(self.path, self.final)
                return
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                    if old.exists() and not self.final.exists():
                        os.rename(old, self.final)   # put the previous folder back
                    raise
                # another process published between the two renames: move it aside too
        raise OSError(errno.EBUSY, "other processes keep replacing this folder")

    def discard(self) -> None:
        """Delete the staging folder (and the previous folder once replaced); before
        :meth:`publish`, also the parents of ``final`` this object made, when empty."""
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            tmp.cleanup()
        if not self._published:
            made, self._made = self._made, []
            for folder in reversed(made):        # the deepest first
                try:
                    folder.rmdir()
                except OSError:                  # not empty (another writer), or gone
                    break

    def __enter__(self) -> StagedFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.discard()

