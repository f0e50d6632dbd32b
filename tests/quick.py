"""The quick loop: the same tests on fewer random cases (docs/development.md).

``pytest -m "not slow"`` is the developer's loop (under 30 s on 2 cores); ``.ci/run`` runs
everything. Three tools keep a test in the quick loop while its many random cases stay in
the full suite:

* ``sampled(cases, keep)``: the first ``keep`` parametrised cases run in both loops, the
  others are marked ``slow``. Use it on seeds of random campaigns: every code path of the
  test still runs in the quick loop, on fewer campaigns.
* ``examples(n)``: Hypothesis runs ``n`` examples in the full suite and ``n // 8`` (at
  least 5) in the quick loop. ``tests/conftest.py`` sets ``QUICK`` before collection.
* ``pytest.mark.slow`` on a whole test: subprocesses, Dask clusters, pages built on real
  data, browser tests; the full suite runs them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

#: True when the session deselects slow tests (``-m "not slow"``); set by conftest.py
QUICK = False


def examples(n: int) -> int:
    """Hypothesis ``max_examples``: ``n`` in the full suite, ``max(5, n // 8)`` quick."""
    return max(5, n // 8) if QUICK else n


def sampled(cases: Iterable[Any], keep: int = 2) -> list[Any]:
    """``cases`` with every case after the first ``keep`` marked ``slow``.

    For a parametrisation with one argname: a case is a value or a ``pytest.param``
    (whose id and marks are kept).
    """
    out = []
    for i, case in enumerate(cases):
        if i < keep:
            out.append(case)
        elif isinstance(case, type(pytest.param(None))):
            out.append(pytest.param(*case.values, marks=(*case.marks, pytest.mark.slow),
                                    id=case.id))
        else:
            out.append(pytest.param(case, marks=pytest.mark.slow))
    return out
