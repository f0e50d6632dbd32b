"""LineMap keeps skipped lines as runs; the line of every row is the same as with the
one-integer-per-skipped-line map it replaced (kept here as the reference)."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.data.lines import LineMap, RunsBuilder, row_lines, runs_of


def _reference_line(skipped: np.ndarray, row: int) -> int:
    """The former LineMap.line: ``skipped`` holds every skipped line, sorted."""
    if not len(skipped):
        return row + 1
    before = skipped - np.arange(len(skipped))  # data lines before + 1
    return row + 1 + int(np.searchsorted(before, row + 1, side="right"))


def _slow_lines(skipped: set[int], nrows: int) -> list[int]:
    """Obviously correct: walk the file line by line."""
    out, line = [], 0
    while len(out) < nrows:
        line += 1
        if line not in skipped:
            out.append(line)
    return out


def _random_file(rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Sorted skipped lines of a random file and its number of data rows."""
    nlines = int(rng.integers(0, 300))
    p = rng.choice([0.0, 0.05, 0.5, 0.95, 1.0])
    skipped = np.flatnonzero(rng.random(nlines) < p).astype(np.int64) + 1
    return skipped, nlines - len(skipped)


def _blocks(rng: np.random.Generator, skipped: np.ndarray) -> list[np.ndarray]:
    cuts = np.sort(rng.integers(0, len(skipped) + 1, size=int(rng.integers(0, 6))))
    return np.split(skipped, cuts)


@pytest.mark.parametrize("seed", range(200))
def test_runs_give_the_lines_of_the_reference(seed):
    rng = np.random.default_rng(seed)
    skipped, nrows = _random_file(rng)
    builder = RunsBuilder()
    for part in _blocks(rng, skipped):   # as the reader feeds it, block by block
        if rng.random() < 0.3 and len(part):
            for start, count in runs_of(part):
                builder.add_run(int(start), int(count))
        else:
            builder.add_lines(part)
    runs = builder.runs()
    assert runs.shape == runs_of(skipped).shape          # adjacent runs are merged
    assert np.array_equal(runs, runs_of(skipped))
    assert runs[:, 1].sum() == len(skipped)
    rows = np.arange(nrows + 3)   # rows past the end too: same formula as before
    want = [_reference_line(skipped, int(r)) for r in rows]
    assert want[:nrows] == _slow_lines(set(skipped.tolist()), nrows)
    lmap = LineMap(runs)
    assert [lmap.line(int(r)) for r in rows] == want
    assert row_lines(runs, rows).tolist() == want
    pick = rng.permutation(nrows)[: nrows // 2]
    sub = lmap.subset(pick)
    assert [sub.line(i) for i in range(len(pick))] == [want[r] for r in pick]
    lazy = LineMap.lazy(lambda: runs).subset(pick)
    assert [lazy.line(i) for i in range(len(pick))] == [want[r] for r in pick]


def test_a_million_comment_lines_are_one_run():
    builder = RunsBuilder()
    for first in range(1, 1_000_001, 1000):
        builder.add_lines(np.arange(first, first + 1000))
    builder.add_run(1_000_001, 5)
    assert builder.runs().tolist() == [[1, 1_000_005]]
    assert LineMap(builder.runs()).line(0) == 1_000_006


def test_the_reference_catches_an_off_by_one():
    """The comparison above can fail: a map that forgets the last line of each run."""
    skipped = np.array([2, 3, 4, 9])
    broken = runs_of(skipped) - np.array([0, 1])
    assert row_lines(broken, np.arange(6)).tolist() != \
        [_reference_line(skipped, r) for r in range(6)]
