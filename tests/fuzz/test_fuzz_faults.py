"""Fuzz: resource limits and Dask faults (issue 41, item 7).

Each case ends in the right numbers or one located message with exit status 2, never a
traceback, exit 1 or a hang, and leaves nothing behind (no ``irmeta-*`` file in TMPDIR,
no process of the command alive):

* a small limit on open files (``ulimit -n``, RLIMIT_NOFILE) on ``irmeta eval`` with many
  run files, in memory and in shards; a LocalCluster the limit cannot hold is refused
  before it starts (Dask's event loop printed its ``EMFILE`` traceback in a loop, and hung);
* a Dask worker killed (SIGKILL, mid-task) once: the scheduler re-runs its task, the
  numbers are the same; killed every time: the located "a Dask worker died" error;
* a scheduler address with nothing behind it: a located error at once (the Client retried
  the refused connection for 30 s).

(``ulimit -v``, bombs, FIFOs and huge lines: ``test_fuzz_resources.py``.) Subprocesses
and clusters are ``slow``; the in-process cases run in the quick loop.
"""

from __future__ import annotations

import errno
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irmeta.cli.main import main
from irmeta.errors import ResourceError
from irmeta.io.source import os_error

ROOT = Path(__file__).resolve().parents[2]
RUNS = 40


def _campaign(folder: Path, runs: int = RUNS) -> tuple[Path, list[Path]]:
    qrels = folder / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 5)
                             for d in range(12)))
    paths = []
    for i in range(runs):
        path = folder / f"run{i:02d}.txt"
        path.write_text("".join(f"{t} Q0 d{(d + i) % 12} {d + 1} {10 - d / 3:.3f} tag{i}\n"
                                for t in range(1, 5) for d in range(10)))
        paths.append(path)
    return qrels, paths


def _ours(folder: Path) -> list[str]:
    """What irmeta left in ``folder`` (Dask's own ``dask-scratch-space`` aside)."""
    return sorted(p.name for p in folder.iterdir() if p.name != "dask-scratch-space")


def _session(sid: int) -> list[int]:
    """Live processes of session ``sid`` (zombies aside)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            alive.append(int(stat.parent.name))
    return alive


def _no_process_left(sid: int, polls: int = 75) -> list[int]:
    """The session's processes still alive after up to ``polls`` looks 0.2 s apart (a
    bounded count, not a clock: tests read no clock, tests/unit/test_gates.py)."""
    alive = _session(sid)
    for _ in range(polls):
        if not alive:
            break
        time.sleep(0.2)
        alive = _session(sid)
    return alive


def _irmeta(*args: str, tmp: Path, env: dict | None = None, nofile: int | None = None,
            timeout: float = 120) -> tuple[int, str, str]:
    """Run ``python -m irmeta ARGS`` in a session of its own; (status, stdout, stderr),
    after checking that no process of the session survives it."""
    full = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp), **(env or {})}

    def limit():
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    proc = subprocess.Popen([sys.executable, "-m", "irmeta", *args], env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=limit)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        pytest.fail(f"irmeta {' '.join(args)} still running after {timeout} s")
    assert _no_process_left(proc.pid) == [], "a process of the command survived it"
    return proc.returncode, out.decode(), err.decode()


# ------------------------------------------------------------ ulimit -n
def test_too_many_open_files_names_the_limit():
    message = str(os_error(OSError(errno.EMFILE, "Too many open files"), "run.txt"))
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    assert message.startswith("run.txt: cannot read file: Too many open files (the limit "
                              f"on open files, ulimit -n, is {soft}")


@pytest.mark.slow
@pytest.mark.parametrize("shards", [False, True], ids=["memory", "shards"])
def test_few_open_files_give_the_numbers_or_one_located_error(tmp_path, shards):
    """40 run files under limits from 5 open files up: every run is the numbers of the
    unlimited run or one ``irmeta: error: FILE: ... open files ...`` line, exit 2."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    qrels, runs = _campaign(tmp_path)
    args = [*(["--shard-topics", "1"] if shards else []), str(qrels), *map(str, runs),
            "-m", "AP", "-m", "P@5"]
    env = {"OMP_NUM_THREADS": "2"}   # files read at once (a Dask test may leave 1 here)
    code, expected, err = _irmeta("eval", *args, tmp=tmp, env=env)
    assert code == 0 and err == "", err
    seen = set()
    for nofile in (5, 6, 7, 8, 9, 10, 12, 16, 32):
        code, out, err = _irmeta("eval", *args, tmp=tmp, env=env, nofile=nofile)
        if code == 0:
            assert out == expected, nofile
            seen.add("numbers")
        else:
            assert code == 2, (nofile, err)
            # the file that could not be opened: an input, or a partitioned file
            assert err.startswith("irmeta: error: ") and err.count("\n") == 1, err
            assert f"{tmp_path}/" in err   # names an input, or a partitioned file
            assert "open files" in err and f"ulimit -n, is {nofile}" in err, err
            seen.add("error")
        assert _ours(tmp) == [], nofile
    assert seen == {"numbers", "error"}   # the sweep crossed the limit


def test_a_local_cluster_the_open_files_limit_cannot_hold_is_refused(tmp_path, tmpdir_only,
                                                                     monkeypatch, capsys):
    pytest.importorskip("distributed")
    qrels, runs = _campaign(tmp_path, 3)
    real = resource.getrlimit

    def small(which):
        return (40, 40) if which == resource.RLIMIT_NOFILE else real(which)

    monkeypatch.setattr(resource, "getrlimit", small)
    assert main(["eval", "--workers", "2", str(qrels), *map(str, runs), "-m", "AP"]) == 2
    assert capsys.readouterr().err == (
        "irmeta: error: a Dask LocalCluster of 2 worker(s) needs about 96 open files, the "
        "limit is 40 (ulimit -n): raise the limit or give fewer --workers\n")
    assert _ours(tmpdir_only) == []


@pytest.mark.slow
def test_workers_under_a_small_open_files_limit_exit_2_at_once(tmp_path):
    """Before, Dask's event loop printed 220,000 tracebacks in 40 s and hung."""
    pytest.importorskip("distributed")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    qrels, runs = _campaign(tmp_path)
    # a hang is the subprocess timeout (a failure), not a clock read here
    code, out, err = _irmeta("eval", "--workers", "2", str(qrels), *map(str, runs), "-m",
                             "AP", tmp=tmp, nofile=40, timeout=60)
    assert code == 2 and err.startswith("irmeta: error: a Dask LocalCluster of 2 worker(s) "
                                        "needs about 96 open files, the limit is 40"), err
    assert _ours(tmp) == []


# ------------------------------------------------------- a Dask worker killed
#: a worker preload: the worker kills itself (SIGKILL) when a task starts executing; with
#: KILL_MARKER set only the first time (across the restarted workers), else every time
KILLER = """
import os, signal

class Kill:
    def setup(self, worker):
        pass

    def teardown(self, worker):
        pass

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing":
            return
        marker = os.environ.get("KILL_MARKER")
        if marker:
            try:
                os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
        os.kill(os.getpid(), signal.SIGKILL)

def dask_setup(worker):
    worker.plugins["irmeta-test-kill"] = Kill()
"""


def _killing(tmp_path: Path, **env: str) -> dict:
    preload = tmp_path / "kill_worker.py"
    preload.write_text(KILLER)
    return {"DASK_DISTRIBUTED__WORKER__PRELOAD": f'["{preload}"]', **env}


@pytest.mark.slow
def test_a_worker_killed_mid_task_gives_the_same_numbers(tmp_path):
    pytest.importorskip("distributed")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    qrels, runs = _campaign(tmp_path, 4)
    args = [str(qrels), *map(str, runs), "-m", "AP", "-m", "nDCG@10"]
    code, expected, _ = _irmeta("eval", *args, tmp=tmp)
    assert code == 0
    marker = tmp_path / "killed"
    code, out, err = _irmeta("eval", "--workers", "2", "--shard-topics", "1", *args, tmp=tmp,
                             env=_killing(tmp_path, KILL_MARKER=str(marker)))
    assert marker.exists()    # a worker did die
    assert (code, err) == (0, "")
    assert out == expected
    assert _ours(tmp) == []


@pytest.mark.slow
def test_workers_killed_every_time_are_one_located_error(tmp_path):
    pytest.importorskip("distributed")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    qrels, runs = _campaign(tmp_path, 4)
    env = _killing(tmp_path, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")
    code, out, err = _irmeta("eval", "--workers", "2", "--shard-topics", "1", str(qrels),
                             *map(str, runs), "-m", "AP", tmp=tmp, env=env)
    assert code == 2, err
    assert err.startswith("irmeta: error: a Dask worker died while running a shard, as "
                          "often as the scheduler allows") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""
    assert _ours(tmp) == []


# ------------------------------------------------ a scheduler with nothing behind it
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_scheduler_address_with_nothing_behind_it_exits_2_at_once(tmp_path, tmpdir_only,
                                                                    capsys):
    pytest.importorskip("distributed")
    qrels, runs = _campaign(tmp_path, 2)
    address = f"tcp://127.0.0.1:{_free_port()}"
    # the message is the one-connection probe's (the Client's own retries took 30 s and
    # said "timed out"): no clock is read in a test
    assert main(["eval", "--scheduler", address, str(qrels), *map(str, runs),
                 "-m", "AP"]) == 2
    port = address.rsplit(":", 1)[1]
    assert capsys.readouterr().err == (
        f"irmeta: error: cannot start or reach the Dask scheduler at {address}: connection "
        f"refused: nothing listens there (127.0.0.1:{port})\n")
    assert _ours(tmpdir_only) == []


def test_unreachable_tells_only_what_it_can():
    from irmeta.shards.dask import unreachable
    port = _free_port()
    assert unreachable(f"127.0.0.1:{port}") == \
        f"connection refused: nothing listens there (127.0.0.1:{port})"
    assert unreachable("inproc://127.0.0.1/1/2") is None     # not TCP: the Client decides
    assert unreachable("tcp://no port here:x") is None        # the Client names the error
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        assert unreachable("tcp://127.0.0.1:%d" % server.getsockname()[1]) is None


def test_the_cluster_check_is_a_resource_error(monkeypatch):
    from irmeta.shards import dask as shards_dask
    real = resource.getrlimit
    monkeypatch.setattr(resource, "getrlimit",
                        lambda which: (10, 10) if which == resource.RLIMIT_NOFILE
                        else real(which))
    with pytest.raises(ResourceError, match="needs about 80 open files, the limit is 10"):
        shards_dask._check_open_files(1)
