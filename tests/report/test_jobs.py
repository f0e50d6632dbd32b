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
