"""Fuzz: resources and operating-system errors (issue 22, "What was seen" 5 and 6).

Every case ends in the right numbers or one message with exit status 2 naming the input
and the limit or the reason — never exit 1, a traceback, an Arrow abort, a hang, or a
temporary file left behind. Classes:

* spooled input: a pipe, a device or ``-`` is copied at most ``IRMETA_SPOOL_LIMIT``
  bytes; ``/dev/zero`` stops at the first over-long line;
* decompression bombs: no line longer than ``IRMETA_MAX_LINE`` (gzip of zeros); under an
  address-space limit a compressed input whose size field lies ends at what fits;
* blank- and comment-line bombs: millions of skipped lines cost one run of the line map,
  the numbers and line numbers are the clean file's (peak memory of 100 million: ``slow``);
* SIGTERM removes the spool and the spill folder as SIGINT does (exit 143);
* the shard planner never opens a FIFO or device and refuses to partition one; a run
  file it cannot open, a bad ``--spill-dir``, ``spill_dir=`` / ``client=`` of the wrong
  kind are one message each;
* Dask: a user error with ``--workers`` prints that message alone (``slow``).

The cheap cases run in the quick loop; processes, a LocalCluster and multi-GiB bombs are
``slow``.
"""

from __future__ import annotations

import gzip
import io
import os
import resource
import signal
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

import irmeta
import irmeta.io.trec as trec
from irmeta.cli.main import main
from irmeta.errors import InputError, OutputError, ParameterError, ResourceError
from irmeta.shards import partition
from irmeta.shards import plan as planning

QRELS = b"".join(b"%d 0 d%d %d\n" % (t, d, (t + d) % 3) for t in range(1, 5) for d in range(12))
RUN = b"".join(b"%d Q0 d%d %d %.3f tagA\n" % (t, d, d + 1, 10 - d / 3)
               for t in range(1, 5) for d in range(10))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def files(tmp_path):
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_bytes(QRELS)
    r.write_bytes(RUN)
    return q, r


def _ap(results) -> np.ndarray:
    return np.asarray(results.matrix("AP"))


class _Stdin:
    """``sys.stdin`` whose bytes come from ``raw`` (a file-like object)."""

    def __init__(self, raw):
        self.buffer = raw


# ------------------------------------------------------------------ spooled input
def test_stdin_under_the_spool_limit_gives_the_files_numbers(files, monkeypatch,
                                                             tmpdir_only):
    q, r = files
    monkeypatch.setenv("IRMETA_SPOOL_LIMIT", "1M")
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(RUN)))
    piped = irmeta.evaluate(str(q), ["-"], ["AP"])
    assert np.array_equal(_ap(piped), _ap(irmeta.evaluate(str(q), [str(r)], ["AP"])))
    del piped
    import gc
    gc.collect()
    assert list(tmpdir_only.iterdir()) == []          # the spool went with the run


@pytest.mark.parametrize("limit, shown", [("1k", "1 KiB"), ("100", "100 bytes")])
def test_stdin_over_the_spool_limit_is_refused_and_removed(files, monkeypatch, tmpdir_only,
                                                           limit, shown):
    q, _ = files
    monkeypatch.setenv("IRMETA_SPOOL_LIMIT", limit)
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(RUN * 4)))
    with pytest.raises(InputError, match=rf"<stdin>: more than {shown} read from this "
                                         r"standard input.*IRMETA_SPOOL_LIMIT"):
        irmeta.read_run("-")
    assert list(tmpdir_only.iterdir()) == []


def test_device_over_the_spool_limit_exits_2(files, monkeypatch, tmpdir_only, capsys):
    """/dev/urandom: random bytes hold newlines, so the spool limit (not the line limit)
    stops it."""
    q, _ = files
    monkeypatch.setenv("IRMETA_SPOOL_LIMIT", "2M")
    assert main(["eval", str(q), "/dev/urandom", "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert "/dev/urandom: more than 2 MiB read from this character device" in err
    assert "IRMETA_SPOOL_LIMIT" in err and err.count("\n") == 1
    assert list(tmpdir_only.iterdir()) == []


def test_dev_zero_stops_at_the_line_limit(files, monkeypatch, tmpdir_only, capsys):
    """/dev/zero has no newline: it stops after IRMETA_MAX_LINE bytes (it wrote 3.2 GB
    in 8 s before), naming the device and line 1."""
    q, _ = files
    monkeypatch.setenv("IRMETA_MAX_LINE", "16M")
    assert main(["eval", str(q), "/dev/zero", "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("irmeta: error: /dev/zero:1: line longer than 16 MiB")
    assert "IRMETA_MAX_LINE" in err
    assert list(tmpdir_only.iterdir()) == []


@pytest.mark.parametrize("var, value", [("IRMETA_SPOOL_LIMIT", "lots"),
                                        ("IRMETA_SPOOL_LIMIT", "-1"),
                                        ("IRMETA_MAX_LINE", "1k"),     # below 16M
                                        ("IRMETA_MAX_LINE", "12 apples")])
def test_bad_limit_values_are_refused(files, monkeypatch, capsys, var, value):
    q, r = files
    monkeypatch.setenv(var, value)
    monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(RUN)))
    assert main(["eval", str(q), "-", "-m", "AP"]) == 2
    assert f"{var}='{value}'" in capsys.readouterr().err


def test_no_limit_values(files, monkeypatch):
    q, r = files
    for value in ("none", "0", "unlimited"):
        monkeypatch.setenv("IRMETA_SPOOL_LIMIT", value)
        monkeypatch.setenv("IRMETA_MAX_LINE", value)
        monkeypatch.setattr(sys, "stdin", _Stdin(io.BytesIO(RUN)))
        assert len(irmeta.read_run("-")) == len(irmeta.read_run(r))


# ----------------------------------------------------------- decompression bombs
def _gzip_zeros(path: Path, size: int, prefix: bytes = b"") -> None:
    comp = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        out.write(comp.compress(prefix))
        block = bytes(1 << 22)
        for _ in range(size // len(block)):
            out.write(comp.compress(block))
        out.write(comp.flush())


@pytest.mark.parametrize("prefix_lines", [0, 7])
def test_gzip_of_zeros_stops_at_the_line_limit(files, tmp_path, monkeypatch, prefix_lines):
    q, _ = files
    bomb = tmp_path / "bomb.gz"
    _gzip_zeros(bomb, 40 << 20, b"".join(RUN.splitlines(keepends=True)[:prefix_lines]))
    assert bomb.stat().st_size < 100_000
    monkeypatch.setenv("IRMETA_MAX_LINE", "16M")
    with pytest.raises(InputError) as info:
        irmeta.read_run(bomb)
    assert info.value.path == str(bomb) and info.value.line == prefix_lines + 1
    assert "line longer than 16 MiB" in str(info.value)


def test_long_lines(tmp_path, monkeypatch):
    """The cap is a bound, not a change of format: a 3 MiB document id reads as the file
    says; a 20 MiB line under a 32 MiB cap is refused by the parser's own limit (4 MiB
    read at a time), over a 16 MiB cap by the cap — each naming the line."""
    path = tmp_path / "long.txt"
    path.write_bytes(RUN + b"1 Q0 " + b"x" * (3 << 20) + b" 11 0.5 tagA\n")
    assert len(irmeta.read_run(path)) == RUN.count(b"\n") + 1
    path.write_bytes(RUN + b"1 Q0 " + b"x" * (20 << 20) + b" 11 0.5 tagA\n")
    monkeypatch.setenv("IRMETA_MAX_LINE", "32M")
    with pytest.raises(InputError, match="line of 20.0 MiB: longer than the 4 MiB") as info:
        irmeta.read_run(path)
    assert info.value.line == RUN.count(b"\n") + 1
    monkeypatch.setenv("IRMETA_MAX_LINE", "16M")
    with pytest.raises(InputError, match="line longer than 16 MiB") as info:
        irmeta.read_run(path)
    assert info.value.line == RUN.count(b"\n") + 1


def _lying_gzip(path: Path, copies: int) -> bytes:
    """``copies`` copies of 600 run lines (a multiple of 1,000 above 1,000) in gzip
    members, then a tiny member: the trailer (the size of the last member) says 21
    bytes."""
    lines = b"".join(b"%d Q0 doc%d 1 %d.5 bomb\n" % (t, d, d) for t in (1, 2)
                     for d in range(300))
    per_member = min(copies, 1000)
    member = gzip.compress(lines * per_member, compresslevel=9)
    with open(path, "wb") as out:
        for _ in range(copies // per_member):
            out.write(member)
        out.write(gzip.compress(b"1 Q0 last 1 0.1 bomb\n"))
    return lines


def test_compressed_input_under_an_address_space_limit_stops_at_what_fits(tmp_path,
                                                                           monkeypatch):
    """The address-space check cannot trust gzip's size field (of the last member, mod
    4 GiB): the decompressed stream ends at what the limit leaves room for, and the
    reader says so (Arrow aborted the process 1 time in 6 before). Simulated headroom:
    the real ulimit -v case is the slow test below."""
    bomb = tmp_path / "bomb.gz"
    lines = _lying_gzip(bomb, 400)          # 400 x 13 KiB = 5 MiB decompressed
    monkeypatch.setattr(trec, "_address_space_headroom", lambda: (64 << 20) + (6 << 20))
    with pytest.raises(ResourceError, match=r"bomb.gz: decompresses to more than 1 MiB"):
        irmeta.read_run(bomb)
    # the same file with room for it reads whole (so the cap is what refused it)
    monkeypatch.setattr(trec, "_address_space_headroom", lambda: 1 << 30)
    assert len(irmeta.read_run(bomb)) == 400 * lines.count(b"\n") + 1


def test_capped_stream_keeps_the_numbers_when_it_fits(files, tmp_path, monkeypatch):
    q, r = files
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(RUN))
    expected = _ap(irmeta.evaluate(str(q), [str(r)], ["AP"]))
    monkeypatch.setattr(trec, "_address_space_headroom", lambda: 1 << 30)
    assert np.array_equal(_ap(irmeta.evaluate(str(q), [str(gz)], ["AP"])), expected)


# ----------------------------------------------------------------------- SIGTERM
def test_sigterm_removes_the_spill_folder(files, monkeypatch, tmpdir_only, capsys):
    """SIGTERM while the spill folder exists: exit 143 and the folder is gone, as after
    Ctrl-C (it was left in TMPDIR)."""
    q, r = files
    seen = []

    def load_and_terminate(path):
        seen.extend(p.name for p in tmpdir_only.iterdir())
        signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(partition, "load_qrels", load_and_terminate)
    assert main(["eval", "--shard-topics", "1", str(q), str(r), "-m", "AP"]) == 143
    assert capsys.readouterr().err == "irmeta: terminated\n"
    assert seen and seen[0].startswith("irmeta-shards-")
    assert list(tmpdir_only.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # the handler is restored


def test_sigterm_removes_the_spool(files, monkeypatch, tmpdir_only, capsys):
    q, _ = files
    seen = []

    class Slow(io.BytesIO):
        def read(self, n=-1):
            if self.tell():
                seen.extend(p.name for p in tmpdir_only.iterdir())
                signal.raise_signal(signal.SIGTERM)
            return super().read(16)

    monkeypatch.setattr(sys, "stdin", _Stdin(Slow(RUN)))
    assert main(["eval", str(q), "-", "-m", "AP"]) == 143
    assert seen and seen[0].startswith("irmeta-pipe-")
    import gc
    gc.collect()
    assert list(tmpdir_only.iterdir()) == []


def _irmeta(*args, env=None, **kwargs) -> subprocess.Popen:
    full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "irmeta.cli.main", *args], env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


@pytest.mark.slow
def test_sigterm_from_outside_cleans_up(files, tmp_path):
    """A real process blocked on a FIFO (the qrels: they are read after the spill folder
    is made) gets SIGTERM from outside."""
    q, r = files
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    proc = _irmeta("eval", "--shard-topics", "1", str(fifo), str(r), "-m", "AP",
                   env={"TMPDIR": str(tmp)})
    # wait, without a clock, until the process is inside the evaluation: it opens the
    # FIFO for reading, which completes our open for writing
    with open(fifo, "wb"):
        # the spill folder, and the spool of the FIFO if its read has begun
        assert "irmeta-shards-" in [p.name[:14] for p in tmp.iterdir()]
        proc.send_signal(signal.SIGTERM)
    # the writer is closed: a read the signal did not interrupt (Linux may deliver a
    # process's signal to any of its threads, and only that thread's system call is
    # interrupted) ends at end of file, and the handler runs at the next Python step,
    # as documented ("SIGTERM takes effect between Python steps"); once seen in CI, the
    # read went on waiting for the writer while it was held open
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert err.decode() == "irmeta: terminated\n"
    assert list(tmp.iterdir()) == []


# ---------------------------------------------------------------- shard planner
def test_planner_never_opens_a_fifo(files, tmp_path):
    """A FIFO without a writer: the plan (file sizes) returns at once; asked for shards,
    it is refused by name (it cannot be partitioned); the in-memory path is the
    reader's (which waits for the writer, as cat does)."""
    q, _ = files
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    assert planning.estimate_rows([fifo]) is None
    assert not planning.plan([str(fifo)], budget=1 << 20).sharded
    with pytest.raises(InputError, match=r"run.fifo: a pipe or FIFO cannot be partitioned"):
        irmeta.evaluate(str(q), [str(fifo)], ["AP"], shard_topics=1)


@pytest.mark.parametrize("path, kind", [("/dev/null", "a character device"),
                                        ("-", "standard input")])
def test_unsized_inputs_cannot_be_partitioned(files, capsys, path, kind):
    q, r = files
    assert main(["eval", "--shard-topics", "1", str(q), str(r), path, "-m", "AP"]) == 2
    assert f"{path}: {kind} cannot be partitioned into shards" in capsys.readouterr().err


def test_planner_reports_a_run_it_cannot_open(files, monkeypatch, capsys):
    """The planner opens a run file (its gzip trailer, its first lines) before the
    reader does: a permission error there is the reader's message (exit 1 before). As
    root a file cannot be made unreadable, so open() fails on purpose."""
    q, r = files
    real = open

    def refuse(path, *args, **kwargs):
        if os.fspath(path) == str(r):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(planning, "open", refuse, raising=False)
    assert main(["eval", "--shard-topics", "1", str(q), str(r), "-m", "AP"]) == 2
    assert capsys.readouterr().err == f"irmeta: error: {r}: permission denied\n"
    with pytest.raises(InputError, match="permission denied"):
        planning.plan([str(r)], budget=1 << 20)   # the automatic plan too


@pytest.mark.parametrize("make, reason", [
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: p.symlink_to(p.parent / "nowhere"), "no such file"),
])
def test_runs_that_are_not_files_exit_2_with_shards(files, tmp_path, capsys, make, reason):
    q, _ = files
    odd = tmp_path / "odd"
    make(odd)
    assert main(["eval", "--shard-topics", "1", str(q), str(odd), "-m", "AP"]) == 2
    assert capsys.readouterr().err == f"irmeta: error: {odd}: {reason}" + (
        ", expected a file\n" if reason == "is a directory" else "\n")


# ------------------------------------------------------------------ spill folder
@pytest.mark.parametrize("where, hint", [
    ("missing/sub", "the folder {tmp}/missing does not exist"),
    ("file.txt/sub", "{tmp}/file.txt is a file, not a folder"),   # read-only, as root
])
def test_bad_spill_dir_exits_2(files, tmp_path, capsys, where, hint):
    q, r = files
    (tmp_path / "file.txt").write_text("x")
    spill = tmp_path / where
    assert main(["eval", "--shard-topics", "1", "--spill-dir", str(spill), str(q), str(r),
                 "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"irmeta: error: cannot write the spill folder {spill}: ")
    assert hint.format(tmp=tmp_path) in err and err.count("\n") == 1


def test_full_spill_folder_exits_2_and_is_removed(files, monkeypatch, tmpdir_only, capsys):
    """Disk full while the run files are partitioned (Arrow's OSError: it was exit 1).
    Simulated: a tmpfs cannot be mounted by a test."""
    from irmeta.shards import spill

    q, r = files

    def full(*args, **kwargs):
        raise OSError("Error writing bytes to file. Detail: [errno 28] No space left on "
                      "device")

    monkeypatch.setattr(spill, "convert", full)
    assert main(["eval", "--shard-topics", "1", str(q), str(r), "-m", "AP"]) == 2
    assert capsys.readouterr().err == (f"irmeta: error: cannot write the spill folder "
                                       f"{tmpdir_only}: No space left on device (writing "
                                       "the partitioned files)\n")
    assert list(tmpdir_only.iterdir()) == []


def test_bad_spill_dir_from_the_api(files, tmp_path):
    q, r = files
    with pytest.raises(OutputError, match="spill folder"):
        irmeta.evaluate(str(q), [str(r)], ["AP"], shard_topics=1,
                        spill_dir=tmp_path / "no" / "such")
    with pytest.raises(ParameterError, match="spill_dir must be a folder path"):
        irmeta.evaluate(str(q), [str(r)], ["AP"], shard_topics=1, spill_dir=3)


@pytest.mark.parametrize("client", ["tcp://127.0.0.1:8786", 2, object()])
def test_client_of_the_wrong_kind(files, client):
    q, r = files
    with pytest.raises(ParameterError, match="client must be a dask.distributed Client"):
        irmeta.evaluate(str(q), [str(r)], ["AP"], client=client)


def test_bad_dask_log_level(files, monkeypatch, capsys):
    q, r = files
    monkeypatch.setenv("IRMETA_DASK_LOG", "loud")
    assert main(["eval", "--workers", "1", str(q), str(r), "-m", "AP"]) == 2
    assert "IRMETA_DASK_LOG='loud'" in capsys.readouterr().err


# --------------------------------------------------------------- processes (slow)
@pytest.mark.slow
def test_user_error_with_workers_prints_one_message(files, tmp_path):
    """Before, a bad line found by a worker printed Dask's 'Compute Failed' and the
    task's traceback ahead of the message."""
    pytest.importorskip("distributed")
    q, _ = files
    bad = tmp_path / "bad.txt"
    bad.write_bytes(RUN.replace(b"1 Q0 d3 4 9.000", b"1 Q0 d3 4 abc", 1))
    proc = _irmeta("eval", "--workers", "2", str(q), str(bad), "-m", "AP")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 2
    assert err.decode() == (f"irmeta: error: {bad}:4, topic '1': score 'abc' is not a "
                            "number (expected a finite number)\n")


@pytest.mark.slow
def test_ctrl_c_with_workers_prints_one_line(files, tmp_path):
    """Ctrl-C reaches the whole process group: irmeta and its LocalCluster's workers.
    The workers ignore it (they printed 69 lines of tracebacks), irmeta closes them,
    removes the spill folder and says one line."""
    pytest.importorskip("distributed")
    _, r = files
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    fifo = tmp_path / "qrels.fifo"
    os.mkfifo(fifo)
    proc = _irmeta("eval", "--workers", "2", "--shard-topics", "1", str(fifo), str(r),
                   "-m", "AP", env={"TMPDIR": str(tmp)}, start_new_session=True)
    with open(fifo, "wb"):        # opened once irmeta reads the qrels: cluster up
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert err.decode().strip() == "irmeta: aborted"    # click writes a newline first
    assert not [p for p in tmp.iterdir() if p.name.startswith("irmeta-")]


def _limit_memory(size: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
    return apply


@pytest.mark.slow
def test_bombs_under_ulimit_v(files, tmp_path):
    """The issue's cases, in real processes under an address-space limit of 3 GiB: a
    20 MB gzip of 20 GiB of zeros stops at the first line, and a gzip of repeated valid
    lines whose size field lies exits 2, every time (it aborted 1 time in 6)."""
    q, _ = files
    zeros = tmp_path / "zeros.gz"
    member = zlib.compressobj(9, zlib.DEFLATED, 31)
    one = member.compress(bytes(64 << 20)) + member.flush()   # 64 MiB of zeros, 64 KB
    with open(zeros, "wb") as out:
        for _ in range(320):                                   # 20 GiB in 20 MB
            out.write(one)
        out.write(gzip.compress(bytes(10)))   # the size field says 10 bytes
    lines = tmp_path / "lines.gz"
    _lying_gzip(lines, 90_000)                                 # ~1.2 GB decompressed
    for path, expected in ((zeros, f"{zeros}:1: line longer than 64 MiB"),
                           (lines, f"{lines}: decompresses to more than"),
                           (lines, f"{lines}: decompresses to more than")):
        proc = _irmeta("eval", str(q), str(path), "-m", "AP",
                       preexec_fn=_limit_memory(3 << 30))
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 2, err
        assert err.decode().startswith(f"irmeta: error: {expected}"), err


# ------------------------------------------------- blank- and comment-line bombs
def _line_bomb(path: Path, unit: bytes, millions: int, tail: bytes) -> int:
    """A gzip of ``millions`` x 2**20 copies of ``unit`` (a blank or comment line), then
    ``tail``: one member of 2**20 lines written ``millions`` times (gzip members
    concatenate), so a 100-million-line file is made in a moment. Returns the number of
    lines ahead of ``tail``."""
    member = gzip.compress(unit * (1 << 20), compresslevel=9)
    with open(path, "wb") as out:
        for _ in range(millions):
            out.write(member)
        out.write(gzip.compress(tail))
    return millions << 20


DUPLICATE = b"1 Q0 d0 11 0.1 tagA\n"   # d0 again for topic 1: an error naming two lines


@pytest.mark.parametrize("unit", [b"#\n", b"\n", b" \t\n", b"# note\r\n"])
def test_line_bombs_give_the_numbers_and_lines(files, tmp_path, unit):
    """Millions of blank or comment lines ahead of the data: the same numbers as the
    clean file, errors on the right lines, and the skipped lines kept as one run (the
    line map was 8 bytes a skipped line; the blank blocks were kept whole)."""
    q, r = files
    bomb = tmp_path / "bomb.gz"
    ahead = _line_bomb(bomb, unit, 2, RUN)
    assert bomb.stat().st_size < 100_000
    run = irmeta.read_run(bomb)
    assert run.lines is not None and len(run.lines.skipped_runs()) == 1
    assert run.lines.line(0) == ahead + 1 and run.lines.line(len(run) - 1) == ahead + 40
    expected = _ap(irmeta.evaluate(str(q), [str(r)], ["AP"]))
    assert np.array_equal(_ap(irmeta.evaluate(str(q), [str(bomb)], ["AP"])), expected)
    _line_bomb(bomb, unit, 2, RUN + DUPLICATE)
    with pytest.raises(InputError) as info:
        irmeta.evaluate(str(q), [str(bomb)], ["AP"])
    assert info.value.line == ahead + 41 and "also on line %d" % (ahead + 1) in str(info.value)


def test_blank_lines_after_tidy_data_are_runs_too(files, tmp_path):
    """Arrow's fast path skips blank lines itself; the scan that finds them for an error
    message keeps runs as well (and names the same line)."""
    bomb = tmp_path / "bomb.gz"
    with open(bomb, "wb") as out:
        out.write(gzip.compress(RUN))
        out.write(gzip.compress(b"\n" * (3 << 20)))
        out.write(gzip.compress(DUPLICATE))
    with pytest.raises(InputError) as info:
        irmeta.evaluate(str(files[0]), [str(bomb)], ["AP"])
    assert info.value.line == 40 + (3 << 20) + 1


PEAK_PROBE = r"""
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True)
sys.stdout.write(proc.stdout.decode() + "\0" + proc.stderr.decode() + "\0" + str(proc.returncode)
                 + "\0" + str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss << 10))
"""


def _peak(*args: str) -> tuple[str, str, int, int]:
    """Run irmeta in a fresh process and return its stdout, stderr, exit status and peak
    resident memory in bytes (a probe process of its own, so no other child counts)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    probe = subprocess.run([sys.executable, "-c", PEAK_PROBE, sys.executable, "-m",
                            "irmeta.cli.main", *args], env=env, capture_output=True,
                           timeout=600, check=True)
    out, err, code, peak = probe.stdout.decode().split("\0")
    return out, err, int(code), int(peak)


@pytest.mark.slow
@pytest.mark.parametrize("unit", [b"#\n", b"\n"])
def test_line_bombs_read_in_bounded_memory(files, tmp_path, unit):
    """A 200 KB gzip of 100 million blank or comment lines then a valid run: read in
    under 512 MiB (measured 180 MiB; before, the line map took 8 bytes a skipped line and
    blank blocks were kept whole: 1.4 and 2.5 GB at 50 million lines), with the clean
    file's numbers and the right line numbers in an error."""
    q, r = files
    bomb = tmp_path / "bomb.gz"
    ahead = _line_bomb(bomb, unit, 100, RUN)
    assert bomb.stat().st_size < 1 << 20
    clean, _, code, _ = _peak("eval", str(q), str(r), "-m", "AP")
    assert code == 0
    out, err, code, peak = _peak("eval", str(q), str(bomb), "-m", "AP")
    assert code == 0, err
    assert out.replace(str(bomb), "") == clean.replace(str(r), "")
    assert peak < 512 << 20, f"{peak / 2**20:.0f} MiB"
    _line_bomb(bomb, unit, 100, RUN + DUPLICATE)
    _, err, code, peak = _peak("eval", str(q), str(bomb), "-m", "AP")
    assert code == 2 and err.startswith(f"irmeta: error: {bomb}:{ahead + 41}, topic '1'"), err
    assert f"also on line {ahead + 1})" in err and "Traceback" not in err
    assert peak < 512 << 20, f"{peak / 2**20:.0f} MiB"


def test_qrels_after_a_comment_bomb_name_their_line(tmp_path):
    bomb = tmp_path / "qrels.gz"
    ahead = _line_bomb(bomb, b"# judged by\n", 1, QRELS + b"1 0 d99 x\n")
    with pytest.raises(InputError, match="grade 'x' is not an integer") as info:
        irmeta.read_qrels(bomb)
    assert info.value.line == ahead + QRELS.count(b"\n") + 1


def test_an_interrupt_while_a_pipe_is_spooled_removes_the_spool(tmp_path, monkeypatch):
    """Ctrl-C arrives while irmeta waits on a pipe (the read blocks there): the spool file
    is removed at once, not when the traceback holding it is collected (the Ctrl-C test
    with --workers left an irmeta-pipe-* file behind once on a loaded machine)."""
    from irmeta.io import source
    monkeypatch.setattr(source.tempfile, "tempdir", str(tmp_path))

    class Interrupted(io.RawIOBase):
        def readable(self):
            return True

        def read(self, n=-1):
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        source._spool(Interrupted(), "-")
    # the traceback is still held here, as by the command's handler while it cleans up
    assert caught.tb is not None
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("irmeta-pipe-")]


_SIGNAL_IN_ANOTHER_THREAD = """
import os, signal, sys, threading
from irmeta.io.source import open_source
ready = threading.Event()
def other():
    ready.set()
    threading.Event().wait(60)
t = threading.Thread(target=other, daemon=True)
t.start()
ready.wait()
def deliver():   # once the main thread reads the FIFO: the signal to the OTHER thread
    threading.Event().wait(0.5)
    signal.pthread_kill(t.ident, signal.SIGINT)
threading.Thread(target=deliver, daemon=True).start()
try:
    open_source(sys.argv[1])
except KeyboardInterrupt:
    print("interrupted")
"""


def test_ctrl_c_delivered_to_another_thread_interrupts_a_pipe_read(tmp_path):
    """The cause of the Ctrl-C hang with --workers (seen in CI, 2 runs in 5 here): the
    kernel gives a process-directed SIGINT to any thread (Dask's IO loop, say), and a
    blocking read of a pipe in the main thread was never interrupted, so Python's handler
    never ran while the writer stayed silent. Deterministic: the signal goes to another
    thread on purpose (pthread_kill), the writer keeps the FIFO open and writes nothing,
    and the read must end in KeyboardInterrupt (the subprocess timeout counts a hang)."""
    fifo = tmp_path / "q.fifo"
    os.mkfifo(fifo)
    script = tmp_path / "reader.py"
    script.write_text(_SIGNAL_IN_ANOTHER_THREAD)
    proc = subprocess.Popen([sys.executable, str(script), str(fifo)],
                            env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with open(fifo, "wb"):            # a writer that stays silent
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail("the pipe read ignored a SIGINT delivered to another thread")
    assert out.decode().strip() == "interrupted", err.decode()
