"""The test gates themselves (docs/development.md): a missing ../shared/data fails in CI."""

from __future__ import annotations

import re

import pytest

from ..conftest import REQUIRE_SHARED_DATA, shared_path


def test_missing_shared_data_skips_by_default(tmp_path, monkeypatch):
    monkeypatch.delenv(REQUIRE_SHARED_DATA, raising=False)
    monkeypatch.setenv("CI", "true")              # CI=true alone does not make it required
    with pytest.raises(pytest.skip.Exception, match="shared data not available"):
        shared_path("trec_eval_test", base=tmp_path / "absent")


@pytest.mark.parametrize("value", ["1", " 1 "])
def test_missing_shared_data_fails_when_required(tmp_path, monkeypatch, value):
    monkeypatch.setenv(REQUIRE_SHARED_DATA, value)
    with pytest.raises(pytest.fail.Exception, match=f"{REQUIRE_SHARED_DATA}=1 forbids skipping"):
        shared_path("trec_eval_test", base=tmp_path / "absent")


@pytest.mark.parametrize("value", ["0", ""])
def test_other_values_keep_the_skip(tmp_path, monkeypatch, value):
    monkeypatch.setenv(REQUIRE_SHARED_DATA, value)
    with pytest.raises(pytest.skip.Exception):
        shared_path("x", base=tmp_path)


def test_present_shared_data_is_returned_when_required(tmp_path, monkeypatch):
    monkeypatch.setenv(REQUIRE_SHARED_DATA, "1")
    (tmp_path / "trec_eval_test").mkdir()
    assert shared_path("trec_eval_test", base=tmp_path) == tmp_path / "trec_eval_test"


def test_ci_script_requires_shared_data_before_the_readme_command():
    from ..conftest import ROOT
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    marker = next(i for i, line in enumerate(lines) if "--- the README's test command" in line)
    assert f"export {REQUIRE_SHARED_DATA}=1" in lines[:marker]
    readme = (ROOT / "README.md").read_text()
    assert lines[marker + 1] in readme                # the README command, unchanged


def test_ci_script_lints_after_the_readme_command():
    """The ruff gate runs in .ci/run, after the tests (the README command stays as it is)."""
    from ..conftest import ROOT
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    marker = next(i for i, line in enumerate(lines) if "--- the README's test command" in line)
    assert any(line.startswith("ruff check ") for line in lines[marker + 2:])


def test_ci_script_type_checks_after_lint():
    """The mypy gate is switched on in .ci/run (not commented out), after ruff, and
    measures/ is among the strict modules of [tool.mypy] (docs/development.md)."""
    import tomllib

    from ..conftest import ROOT
    lines = (ROOT / ".ci" / "run").read_text().splitlines()
    ruff = next(i for i, line in enumerate(lines) if line.startswith("ruff check "))
    assert "mypy" in [line.strip() for line in lines[ruff + 1:]]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    strict = [o for o in config["mypy"]["overrides"] if o.get("disallow_untyped_defs")]
    assert len(strict) == 1
    assert {"irmeta.measures.*", "irmeta.data.*", "irmeta.evaluation"} <= set(strict[0]["module"])


#: a clock read in a test: the start of a wall-clock assertion (speed belongs in benchmarks/)
CLOCK = re.compile(r"\b(time\.(perf_counter|monotonic|process_time|time)(_ns)?\s*\(|tim[e]it\b)")


def _clock_reads(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if CLOCK.search(line)]


def test_no_test_reads_a_clock():
    from ..conftest import ROOT
    found = {str(p.relative_to(ROOT)): _clock_reads(p.read_text(encoding="utf-8"))
             for p in (ROOT / "tests").rglob("*.py")}
    assert {k: v for k, v in found.items() if v} == {}


def test_clock_scan_finds_clock_reads():
    # the planted lines are assembled from pieces, so this file itself holds no clock read
    clock, bench = "time." + "perf_counter()", "time" + "it." + "time" + "it(f)"
    planted = f"start = {clock}\nrun()\nstop = {clock}\nx = {bench}"
    assert _clock_reads(planted) == [1, 3, 4]
    pause = "time." + "sleep(1)"            # waiting is not reading a clock
    assert _clock_reads(f"{pause}\nn = counter()") == []


@pytest.mark.slow
def test_no_assert_in_library_code():
    """``python -O`` strips ``assert``: library code raises typed errors instead."""
    import ast

    from ..conftest import ROOT
    found = [f"{p.relative_to(ROOT)}:{node.lineno}"
             for p in (ROOT / "src" / "irmeta").rglob("*.py")
             for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(node, ast.Assert)]
    assert found == []
