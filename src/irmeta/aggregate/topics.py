"""Per-topic views of a systems x topics matrix: the layout of TREC's appendix pages.

For a topic ``t`` over the runs of the campaign::

    best(t) = max_r x[r, t]     median(t) = median_r x[r, t]     worst(t) = min_r x[r, t]

:func:`topic_summary` gives these per topic (with the run reaching the best, the first
in campaign order on ties, and how many runs reach it); :func:`run_topics` puts one
run's value beside them with its rank among the runs on that topic (1 = best; ties share
the smaller rank) and its difference from the median. Undefined (NaN) cells are left out
of a topic's statistics; a topic where every run is NaN has NaN statistics.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.aggregate._matrix import as_matrix
from irmeta.errors import ParameterError


def _nan_stats(P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column-wise nanmax, nanmedian, nanmin without the all-NaN RuntimeWarning (an
    all-NaN topic is NaN, as documented)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice encountered", RuntimeWarning)
        return np.nanmax(P, axis=0), np.nanmedian(P, axis=0), np.nanmin(P, axis=0)


def topic_summary(matrix) -> pd.DataFrame:
    """Best, median and worst value of every topic over the runs.

    Parameters
    ----------
    matrix : DataFrame
        systems x topics (``Results.matrix(measure)``); NaN cells are left out.

    Returns
    -------
    DataFrame indexed by topic: ``best``, ``best_run`` (first in campaign order on ties),
    ``runs_at_best``, ``median``, ``worst``, ``runs`` (runs with a defined value);
    statistics are NaN and ``best_run`` missing (NA) where no run defines the topic.
    """
    P, runs, topics = as_matrix(matrix, "topic_summary", allow_nan=True)
    best, median, worst = _nan_stats(P)
    filled = np.where(np.isnan(P), -np.inf, P)
    at_best = (P == best[None, :])
    best_run = np.where(np.isnan(best), None,
                        np.asarray(runs, dtype=object)[np.argmax(filled, axis=0)])
    return pd.DataFrame({"best": best, "best_run": best_run,
                         "runs_at_best": at_best.sum(axis=0), "median": median,
                         "worst": worst, "runs": (~np.isnan(P)).sum(axis=0)},
                        index=pd.Index(topics, name="topic"))


def run_topics(matrix, run) -> pd.DataFrame:
    """One run's per-topic values beside the topic's best, median and worst.

    Returns
    -------
    DataFrame indexed by topic: ``value``, ``best``, ``median``, ``worst``, ``rank``
    (among the runs with a defined value on the topic; NaN where the run's value is NaN),
    ``vs_median`` (``value - median``), ``is_best``.
    """
    P, runs, topics = as_matrix(matrix, "run_topics", allow_nan=True)
    run = validate.strings(run, "run", "run_topics")
    if len(run) != 1:
        raise ParameterError(f"run_topics: run must be one run name, got {run!r}")
    names = [str(r) for r in runs]
    if run[0] not in names:
        raise ParameterError(f"run_topics: no run {run[0]!r} in the matrix "
                             f"(have: {', '.join(names[:10])}{'...' if len(names) > 10 else ''})")
    x = P[names.index(run[0])]
    best, median, worst = _nan_stats(P)
    above = np.sum(np.where(np.isnan(P), False, P > x[None, :]), axis=0)
    rank = np.where(np.isnan(x), np.nan, above + 1.0)
    return pd.DataFrame({"value": x, "best": best, "median": median, "worst": worst,
                         "rank": rank, "vs_median": x - median, "is_best": x == best},
                        index=pd.Index(topics, name="topic"))
