"""irmeta.report.jobs.Job: a computation in a forked child gives the in-process result,
raises the child's exception in the parent, and leaves no process behind."""

import os

import numpy as np
import pandas as pd
import pytest

from irmeta.errors import ParameterError
from irmeta.report.jobs import Job

fork_only = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


def _work(n, *, seed):
    rng = np.random.default_rng(seed)
    return os.getpid(), pd.DataFrame({"x": rng.random(n)}), {"big": rng.random(200_000)}


@fork_only
def test_child_result_equals_inline_result():
    pid, frame, extra = Job(_work, 50, seed=3).result()
    _, frame0, extra0 = Job(_work, 50, seed=3, background=False).result()
    assert pid != os.getpid()                                    # computed elsewhere
    pd.testing.assert_frame_equal(frame, frame0)
    assert np.array_equal(extra["big"], extra0["big"])            # > a pipe buffer


def _fails(message):
    raise ParameterError(message)


@pytest.mark.parametrize("background", [True, False])
def test_exception_is_raised_in_the_parent(background):
    if background and not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    job = Job(_fails, "bad parameter", background=background)
    with pytest.raises(ParameterError, match="bad parameter"):
        job.result()


def _sleeps():
    import time
    time.sleep(30)


@fork_only
def test_cancel_kills_and_reaps_the_child():
    job = Job(_sleeps)
    pid = job._pid
    job.cancel()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)                            # already reaped
    job.cancel()                                               # twice is harmless


class _Interrupt(Exception):
    pass


def _raise_interrupt(signum, frame):
    raise _Interrupt()


@fork_only
def test_interrupt_while_reading_then_cancel_closes_the_pipe_once():
    """Issue 32: Ctrl-C / SIGTERM while :meth:`Job.result` reads the pipe, then the
    caller's ``finally`` cancels the job. The descriptor was closed by the reading
    ``with`` and again by ``cancel``: EBADF (exit 1 of ``irmeta report``), or the close of
    whatever file had been given the same number in between (here: ``other``)."""
    import signal
    job = Job(_sleeps)
    previous = signal.signal(signal.SIGALRM, _raise_interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)          # arrives inside the read
        with pytest.raises(_Interrupt):
            job.result()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    pid = job._pid
    with open(os.devnull, "rb") as other:                  # takes the freed number
        job.cancel()                                       # must not close it
        os.fstat(other.fileno())                           # EBADF before the fix
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)                        # this child is reaped (not
                                                           # -1: another test's may live)


def _output_error(path):
    from irmeta.errors import OutputError
    raise OutputError(path, "No space left on device")


@fork_only
def test_a_located_error_of_the_child_arrives_whole():
    """Issue 32: an OutputError raised in the child could not be unpickled in the
    parent (``missing 1 required positional argument: 'reason'``): an internal error."""
    from irmeta.errors import OutputError
    with pytest.raises(OutputError) as info:
        Job(_output_error, "/x/r_files/a.tsv").result()
    assert str(info.value) == "cannot write /x/r_files/a.tsv: No space left on device"
    assert (info.value.path, info.value.reason) == ("/x/r_files/a.tsv",
                                                    "No space left on device")


@fork_only
def test_cancel_all_reaps_jobs_never_collected():
    """An interrupt between two Job constructions of a caller (before its ``try``)
    left the first child running for nobody, holding stderr open: the CLI's
    ``cancel_all`` on its way out kills and reaps it."""
    from irmeta.report import jobs
    job = Job(_sleeps)
    pid = job._pid
    assert job in jobs._LIVE
    jobs.cancel_all()
    assert job not in jobs._LIVE
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)


def _gone_or_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs Linux /proc")
def test_a_child_dies_with_its_parent():
    """A parent that dies without collecting its job (SIGKILL, os._exit): the child
    is killed by the kernel (PR_SET_PDEATHSIG), not left computing."""
    import subprocess
    import sys
    code = ("import os, time\nfrom irmeta.report.jobs import Job\n"
            "job = Job(time.sleep, 60)\nprint(job._pid, flush=True)\nos._exit(0)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout
    pid = int(out)
    import time
    for _ in range(200):                     # the kernel's kill is asynchronous
        if _gone_or_zombie(pid):
            break
        time.sleep(0.05)
    assert _gone_or_zombie(pid)
