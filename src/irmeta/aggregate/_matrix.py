"""Validation of a systems x topics score matrix handed to an aggregator."""

from __future__ import annotations

import numpy as np
import pandas as pd

from irmeta.errors import ParameterError


def as_matrix(matrix, func: str, *, allow_nan: bool = False, min_shape=(1, 1)):
    """``(P, runs, topics)``: float64 array [S, T] and its labels as pandas Indexes.

    ``matrix``: a DataFrame (rows = systems/runs, columns = topics), or any 2-D array
    (labels become 0..S-1 and 0..T-1). Infinite values are always an error; NaN is an
    error unless ``allow_nan``. The message names ``func`` and the first bad cell.
    """
    runs: pd.Index
    topics: pd.Index
    if isinstance(matrix, pd.DataFrame):
        runs, topics = matrix.index, matrix.columns
        try:
            P = matrix.to_numpy(dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ParameterError(f"{func}: matrix must hold numbers ({exc})") from None
    else:
        try:
            P = np.asarray(matrix, dtype=np.float64)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ParameterError(f"{func}: matrix must be a DataFrame or a 2-D array of "
                                 f"numbers ({exc})") from None
        if P.ndim != 2:
            raise ParameterError(f"{func}: matrix must be 2-D (systems x topics), got "
                                 f"shape {P.shape}")
        runs, topics = pd.RangeIndex(P.shape[0]), pd.RangeIndex(P.shape[1])
    if P.shape[0] < min_shape[0] or P.shape[1] < min_shape[1]:
        raise ParameterError(f"{func}: matrix needs at least {min_shape[0]} systems and "
                             f"{min_shape[1]} topics, got {P.shape[0]} x {P.shape[1]}")
    bad = np.isinf(P) if allow_nan else ~np.isfinite(P)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        what = "infinite" if allow_nan else "missing or infinite"
        raise ParameterError(
            f"{func}: matrix has {int(bad.sum())} {what} value(s), first at system "
            f"{runs[i]!r}, topic {topics[j]!r} ({P[i, j]}); GAWM and HITS need a complete "
            f"matrix: drop those topics or systems, or fill the cells")
    return P, runs, topics
