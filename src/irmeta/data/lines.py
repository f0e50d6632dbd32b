"""Where a row of a parsed file came from: its 1-based line in the file.

Readers skip blank and comment lines, so row ``i`` is line ``i + 1`` only in a file
without them. Instead of one integer per row, :class:`LineMap` keeps the skipped lines as
*runs* ``(first line, count)`` and computes a row's line when an error needs it. Its size
is the number of runs of skipped lines, never the number of skipped lines: a file of
millions of comment lines (a decompression bomb of ``#\\n``) costs one run
(docs/conventions.md, "Input").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


def no_runs() -> np.ndarray:
    """int64 [0, 2]: no skipped line."""
    return np.zeros((0, 2), np.int64)


def runs_of(lines: np.ndarray) -> np.ndarray:
    """int64 [k, 2]: the sorted 1-based ``lines`` as runs ``(first line, count)`` of
    consecutive lines."""
    lines = np.asarray(lines, dtype=np.int64)
    if not len(lines):
        return no_runs()
    cut = np.flatnonzero(np.diff(lines) != 1) + 1
    bounds = np.concatenate(([0], cut, [len(lines)]))
    return np.stack([lines[bounds[:-1]], np.diff(bounds)], axis=1)


class RunsBuilder:
    """Skipped lines fed in file order, block by block (as arrays of lines or as runs),
    kept as runs: a run that goes on in the next block is merged, so memory is the
    number of runs, not of lines."""

    def __init__(self) -> None:
        self._done: list[np.ndarray] = []
        self._last: tuple[int, int] | None = None   # the run that may go on

    def add_lines(self, lines: np.ndarray) -> None:
        """Sorted 1-based lines, after every line fed before."""
        if len(lines):
            self.add_runs(runs_of(lines))

    def add_run(self, start: int, count: int) -> None:
        if count > 0:
            self.add_runs(np.array([[start, count]], np.int64))

    def add_runs(self, runs: np.ndarray) -> None:
        if not len(runs):
            return
        runs = np.array(runs, dtype=np.int64)          # a copy: merged in place below
        if self._last is not None:
            start, count = self._last
            if start + count == runs[0, 0]:            # the previous block's run goes on
                runs[0] = (start, count + runs[0, 1])
            else:
                self._done.append(np.array([self._last], np.int64))
        if len(runs) > 1:
            self._done.append(runs[:-1])
        self._last = (int(runs[-1, 0]), int(runs[-1, 1]))

    def runs(self) -> np.ndarray:
        """int64 [k, 2]: every run so far."""
        parts = self._done + ([np.array([self._last], np.int64)] if self._last else [])
        return np.concatenate(parts) if parts else no_runs()


def row_lines(runs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """int64: the 1-based file line of each data row (0-based) given the skipped
    ``runs``. A row's line is its row + 1 plus the lines of every run that starts
    before it, i.e. every run with at most ``row`` data lines before it."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(runs):
        return rows + 1
    starts, counts = runs[:, 0], runs[:, 1]
    through = np.cumsum(counts)                        # skipped lines through run i
    data_before = starts - 1 - (through - counts)      # data lines ahead of run i
    k = np.searchsorted(data_before, rows, side="right")
    return rows + 1 + np.concatenate(([0], through))[k]


@dataclass
class LineMap:
    """Row (0-based, data lines only) to 1-based file line.

    ``runs`` (int64 [k, 2]) holds the file lines that carried no data (blank and
    comment lines) as sorted runs ``(first line, count)``; ``rows`` optionally maps the
    rows of a subset (a run split by tag) to rows of the file.
    """

    runs: np.ndarray | None = field(default_factory=no_runs)
    rows: np.ndarray | None = None
    scan: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    @classmethod
    def lazy(cls, scan: Callable[[], np.ndarray]) -> "LineMap":
        """A map whose skipped runs are found by ``scan()`` the first time a line is
        asked for (a re-read of the input: valid files never pay for it)."""
        return cls(None, None, scan)

    def skipped_runs(self) -> np.ndarray:
        """The runs, scanned for first if the map is lazy."""
        if self.runs is None:
            self.runs = self.scan() if self.scan is not None else no_runs()
        return self.runs

    def line(self, row: int) -> int:
        r = int(self.rows[row]) if self.rows is not None else int(row)
        return int(row_lines(self.skipped_runs(), np.array([r]))[0])

    def subset(self, rows: np.ndarray) -> "LineMap":
        base = self.rows[rows] if self.rows is not None else rows
        return LineMap(self.runs, np.asarray(base, dtype=np.int64), self.scan)
