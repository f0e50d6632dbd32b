"""irmeta.io.output: atomic files, folders replaced whole, OS errors named."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from irmeta.errors import IrmetaError, OutputError
from irmeta.io.output import StagedFolder, atomic_write, check_folder_target

ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_write_creates_and_replaces(tmp_path):
    path = tmp_path / "x.tsv"
    with atomic_write(path) as fh:
        fh.write("one\n")
    with atomic_write(path) as fh:
        fh.write("two\n")
    assert path.read_text() == "two\n"
    assert _listing(tmp_path) == ["x.tsv"]


@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_interrupted_write_keeps_old_file_and_no_temp(tmp_path, error):
    path = tmp_path / "x.tsv"
    path.write_text("old\n")
    with pytest.raises(error), atomic_write(path) as fh:
        fh.write("partial")
        fh.flush()
        raise error()
    assert path.read_text() == "old\n"
    assert _listing(tmp_path) == ["x.tsv"]


def test_permissions_new_and_kept(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    new = tmp_path / "new.txt"
    with atomic_write(new) as fh:
        fh.write("x")
    assert stat.S_IMODE(new.stat().st_mode) == 0o666 & ~umask
    old = tmp_path / "old.txt"
    old.write_text("x")
    old.chmod(0o640)
    with atomic_write(old, "wb") as fh:
        fh.write(b"y")
    assert stat.S_IMODE(old.stat().st_mode) == 0o640 and old.read_bytes() == b"y"


def test_symlink_followed(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with atomic_write(link) as fh:
        fh.write("new")
    assert link.is_symlink() and real.read_text() == "new"


def test_device_written_in_place_not_replaced():
    with atomic_write(os.devnull) as fh:
        fh.write("nothing")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


@pytest.mark.parametrize("make, hint", [
    (lambda t: t / "missing" / "x.tsv", "(the folder {t}/missing does not exist)"),
    (lambda t: t / "missing" / "deeper" / "x.tsv", "(the folder {t}/missing does not exist)"),
    (lambda t: t / "afile" / "x.tsv", "Not a directory ({t}/afile is a file, not a folder)"),
    (lambda t: t / "adir", "it is a folder"),
])
def test_os_errors_name_path_and_reason(tmp_path, make, hint):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "adir").mkdir()
    path = make(tmp_path)
    with pytest.raises(OutputError) as info, atomic_write(path) as fh:
        fh.write("x")
    hint = hint.format(t=tmp_path)
    assert str(info.value).startswith(f"cannot write {path}: ")
    assert hint in str(info.value)
    assert isinstance(info.value, IrmetaError) and "\n" not in str(info.value)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_disk_full():
    full = r"^cannot write /dev/full: No space left on device"
    with pytest.raises(OutputError, match=full), atomic_write("/dev/full") as fh:
        fh.write("x" * 10)


@pytest.mark.skipif(ROOT, reason="root ignores folder permissions")
def test_read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        denied = "Permission denied .no permission to write"
        with pytest.raises(OutputError, match=denied), atomic_write(folder / "x.tsv") as fh:
            fh.write("x")
    finally:
        folder.chmod(0o755)


# ---------------------------------------------------------------------- concurrency
_WRITER = textwrap.dedent("""
    import sys
    from irmeta.io.output import atomic_write
    path, letter = sys.argv[1], sys.argv[2]
    for _ in range(60):
        with atomic_write(path) as fh:
            for i in range(4000):
                fh.write(letter * 40 + "\\n")
""")


@pytest.mark.slow
def test_concurrent_writers_never_tear(tmp_path):
    """Two processes rewrite the same file again and again while this one reads it:
    every read and the final file are one writer's complete output."""
    path = tmp_path / "same.tsv"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), letter], env=env)
             for letter in "AB"]
    complete = {c: (c * 40 + "\n") * 4000 for c in "AB"}
    seen = set()
    while any(p.poll() is None for p in procs):
        try:
            text = path.read_text()
        except FileNotFoundError:
            continue
        assert text in complete.values(), f"torn file: {len(text)} characters"
        seen.add(text[0])
    assert all(p.wait() == 0 for p in procs)
    assert path.read_text() in complete.values()
    assert _listing(tmp_path) == ["same.tsv"]                 # no temporary file left


# ---------------------------------------------------------------------- folders
def test_staged_folder_replaces_whole(tmp_path):
    final = tmp_path / "r_files"
    final.mkdir()
    (final / "stale.tsv").write_text("old campaign")
    stage = StagedFolder(final)
    (stage.path / "new.tsv").write_text("new campaign")
    assert (final / "stale.tsv").exists()                      # untouched until publish
    stage.publish()
    assert _listing(final) == ["new.tsv"]
    assert _listing(tmp_path) == ["r_files"]                   # staging folder gone


def test_staged_folder_discarded_keeps_previous(tmp_path):
    final = tmp_path / "r_files"
    final.mkdir()
    (final / "a.tsv").write_text("a")
    with pytest.raises(KeyboardInterrupt), StagedFolder(final) as stage:
        (stage.path / "half.tsv").write_text("half")
        raise KeyboardInterrupt
    assert _listing(final) == ["a.tsv"] and _listing(tmp_path) == ["r_files"]


def test_folder_target_that_is_a_file(tmp_path):
    (tmp_path / "r_files").write_text("x")
    with pytest.raises(OutputError, match=r"r_files: it is a file, not a folder"):
        check_folder_target(tmp_path / "r_files")
    with pytest.raises(OutputError, match=r"r_files/sub: Not a directory \(.*r_files is a file"):
        StagedFolder(tmp_path / "r_files" / "sub")
    assert _listing(tmp_path) == ["r_files"]


# ------------------------------------------ concurrent writers (issue 22, item 9)
def test_atomic_path_names_are_unique_and_cleaned(tmp_path):
    """Two writers of one target at once get two temporary names (a fixed name made two
    reports rename each other's archive away); an error leaves neither behind."""
    from irmeta.io.output import atomic_path
    target = tmp_path / "r.zip"
    with atomic_path(target) as a, atomic_path(target) as b:
        assert a != b and Path(a).parent == Path(b).parent == tmp_path
        Path(a).write_text("a")
        Path(b).write_text("b")
    assert target.read_text() == "a" and _listing(tmp_path) == ["r.zip"]   # a renamed last
    with pytest.raises(RuntimeError), atomic_path(target) as c:
        Path(c).write_text("partial")
        raise RuntimeError("stop")
    assert target.read_text() == "a" and _listing(tmp_path) == ["r.zip"]


def test_staged_folder_retries_when_another_process_publishes_meanwhile(tmp_path,
                                                                       monkeypatch):
    """Another publisher puts its folder at the target between our two renames: ours
    still goes in, whole, and nothing is left over (before: 'Directory not empty')."""
    final = tmp_path / "r_files"
    ours, theirs = StagedFolder(final), StagedFolder(final)
    (ours.path / "ours.tsv").write_text("ours")
    (theirs.path / "theirs.tsv").write_text("theirs")
    real_rename, raced = os.rename, []

    def rename(src, dst):
        if Path(dst) == final and Path(src) == ours.path and not raced:
            raced.append(True)
            real_rename(theirs.path, final)          # the other process wins the race
        return real_rename(src, dst)
    monkeypatch.setattr(os, "rename", rename)
    ours.publish()
    monkeypatch.undo()
    theirs.discard()
    assert raced and _listing(final) == ["ours.tsv"]
    assert _listing(tmp_path) == ["r_files"]
