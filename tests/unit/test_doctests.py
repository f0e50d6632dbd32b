"""The Examples of the public API's docstrings run as doctests (issue 15, item 4).

One test per module, so that ``-n auto`` spreads them and a failure names its module;
``doctest.testmod`` runs inside the test, so pytest's warnings-as-errors applies to the
examples too. A module listed here with no example at all fails (the list would rot).
"""

from __future__ import annotations

import doctest
import importlib

import pytest

#: modules whose public functions carry Examples (keep in step with scripts/api_reference.py)
MODULES = [
    "irmeta.evaluation",
    "irmeta.io.load",
    "irmeta.demo",
    "irmeta.explain",
    "irmeta.aggregate",
    "irmeta.aggregate.gawm",
    "irmeta.aggregate.hits",
    "irmeta.stats.significance",
    "irmeta.stats.correlation",
    "irmeta.stats.discriminative",
    "irmeta.stats.stability",
    "irmeta.effort",
    "irmeta.pyterrier",
]

FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def run_examples(module) -> tuple[int, int, str]:
    """``(attempted, failed, report)`` of the module's doctests."""
    report: list[str] = []
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for test in doctest.DocTestFinder().find(module, module.__name__):
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    return result.attempted, result.failed, "".join(report)


@pytest.mark.parametrize("name", MODULES)
def test_examples_run(name):
    attempted, failed, report = run_examples(importlib.import_module(name))
    assert attempted > 0, f"{name} has no doctest example"
    assert failed == 0, f"{failed} of {attempted} examples of {name} fail:\n{report}"


def test_a_wrong_example_fails():
    import types
    module = types.ModuleType("planted")
    exec('def f():\n    """\n    >>> 1 + 1\n    3\n    """\n', module.__dict__)
    attempted, failed, report = run_examples(module)
    assert (attempted, failed) == (1, 1) and "Expected:" in report
