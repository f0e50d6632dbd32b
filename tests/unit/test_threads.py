"""irmeta's helper threads follow Arrow's CPU budget (irmeta.data.threads)."""

from __future__ import annotations

import threading

import pyarrow as pa
import pytest

from irmeta.data.threads import background, map_threads, thread_budget


@pytest.fixture
def one_cpu():
    before = pa.cpu_count()
    pa.set_cpu_count(1)
    yield
    pa.set_cpu_count(before)


def test_a_budget_of_one_thread_runs_everything_in_the_calling_thread(one_cpu):
    assert thread_budget(4) == 1
    me = threading.get_ident()
    assert map_threads(lambda x: (x, threading.get_ident()), [1, 2, 3, 4]) == [
        (1, me), (2, me), (3, me), (4, me)]


def test_with_two_cpus_helpers_run_on_other_threads_in_order():
    before = pa.cpu_count()
    pa.set_cpu_count(2)
    try:
        assert thread_budget(4) == 4
        assert thread_budget(0) == 1
        barrier = threading.Barrier(2, timeout=30)
        # both items wait for each other: this finishes only on two threads at once
        got = map_threads(lambda x: (barrier.wait(), x)[1], ["a", "b"])
        assert got == ["a", "b"]
    finally:
        pa.set_cpu_count(before)


def test_the_first_exception_in_item_order_is_raised(one_cpu):
    def fail(x):
        raise ValueError(f"item {x}")

    with pytest.raises(ValueError, match="item 0"):
        map_threads(fail, [0, 1])


@pytest.mark.parametrize("cpus, threaded, other_thread", [(2, True, True), (2, False, False),
                                                          (1, True, False)])
def test_background_runs_on_a_helper_thread_only_when_allowed(cpus, threaded, other_thread):
    """``background``: a helper thread with two CPUs; in the calling thread with one, or
    when the caller says the work is too small; its exception comes out of ``result``."""
    before = pa.cpu_count()
    pa.set_cpu_count(cpus)
    try:
        me = threading.get_ident()
        ident = background(threading.get_ident, threaded=threaded).result(timeout=30)
        assert (ident != me) == other_thread

        def fail() -> None:
            raise ValueError("in the background")

        failed = background(fail, threaded=threaded)
        with pytest.raises(ValueError, match="in the background"):
            failed.result(timeout=30)
    finally:
        pa.set_cpu_count(before)
