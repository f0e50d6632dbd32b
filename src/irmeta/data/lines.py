"""Where a row of a parsed file came from: its 1-based line in the file.

Readers skip blank and comment lines, so row ``i`` is line ``i + 1`` only in a file
without them. Instead of one integer per row, :class:`LineMap` keeps the (usually few)
skipped lines and computes a row's line when an error needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class LineMap:
    """Row (0-based, data lines only) to 1-based file line.

    ``skipped`` holds the sorted file lines that carried no data (blank and comment
    lines); ``rows`` optionally maps the rows of a subset (a run split by tag) to rows
    of the file.
    """

    skipped: np.ndarray | None = field(default_factory=lambda: np.zeros(0, np.int64))
    rows: np.ndarray | None = None
    scan: Callable[[], np.ndarray] | None = field(default=None, repr=False)

    @classmethod
    def lazy(cls, scan: Callable[[], np.ndarray]) -> "LineMap":
        """A map whose skipped lines are found by ``scan()`` the first time a line is
        asked for (a re-read of the input: valid files never pay for it)."""
        return cls(None, None, scan)

    def line(self, row: int) -> int:
        r = int(self.rows[row]) if self.rows is not None else int(row)
        if self.skipped is None:
            self.skipped = self.scan() if self.scan is not None else np.zeros(0, np.int64)
        if not len(self.skipped):
            return r + 1
        before = self.skipped - np.arange(len(self.skipped))  # data lines before + 1
        return r + 1 + int(np.searchsorted(before, r + 1, side="right"))

    def subset(self, rows: np.ndarray) -> "LineMap":
        base = self.rows[rows] if self.rows is not None else rows
        return LineMap(self.skipped, np.asarray(base, dtype=np.int64), self.scan)
