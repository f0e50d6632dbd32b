"""The resampling's numbers do not depend on how many threads BLAS may use (issue 27).

OpenBLAS may split a matrix product over its threads in a way that changes the last bits
of a sum: the bootstrap test's p-values and intervals once differed between one BLAS
thread (the report's) and two (the API's default on two cores). The resampling functions
now run their products on one thread whatever the caller allows (``stats._common.
one_blas_thread``), which also halves their CPU: a second thread only spins.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from threadpoolctl import threadpool_limits

from irmeta import stats
from irmeta.stats.significance import bootstrap, randomisation


@pytest.fixture(scope="module")
def wide_scores():
    """A score matrix big enough for OpenBLAS to use its threads (40 runs x 400 topics)."""
    rng = np.random.default_rng(11)
    values = np.clip(rng.random((40, 1)) * 0.3 + rng.normal(0, 0.2, (40, 400)), 0, 1)
    return pd.DataFrame(values, index=[f"run{i}" for i in range(40)],
                        columns=[f"t{j}" for j in range(400)])


def _both(fn):
    with threadpool_limits(limits=2, user_api="blas"):
        two = fn()
    with threadpool_limits(limits=1, user_api="blas"):
        one = fn()
    return one, two


def _table(result) -> str:
    if isinstance(result, tuple):
        return "\n".join(_table(part) for part in result)
    frame = result.to_frame() if hasattr(result, "to_frame") else result
    if isinstance(frame, (pd.DataFrame, pd.Series)):
        return frame.to_csv(float_format="%r")
    return repr(frame)


@pytest.mark.parametrize("test", [bootstrap, randomisation])
def test_significance_tests_ignore_the_blas_threads(wide_scores, test):
    one, two = _both(lambda: test(wide_scores.iloc[:15], trials=2000, seed=5))
    assert _table(one) == _table(two)


def test_discpower_and_stability_ignore_the_blas_threads(wide_scores):
    mats = {"A": wide_scores, "B": wide_scores ** 2}
    one, two = _both(lambda: stats.bootstrap_power(mats, trials=200, seed=2, progress=False))
    assert _table(one) == _table(two)
    one, two = _both(lambda: stats.stability_table(mats, trials=200, seed=2, progress=False))
    assert _table(one) == _table(two)
