"""Discriminative power: how many system pairs a measure tells apart.

:func:`discriminative_power` counts the pairs a test finds significant at each level
(Zhou et al.; innovation paper Table 1 with Tukey HSD; Twist paper Figure 14 with the
paired bootstrap), per measure and test. :func:`bootstrap_power` adds, for Sakai's
(2006) paired bootstrap, the ASL curve (the ASL of every pair, sorted ascending —
the curve whose left part lies below the level holds the discriminated pairs) and
``delta``, the difference needed for significance (largest over pairs of the
``(1-level)`` quantile of the bootstrap distribution of ``|mean difference|`` under
the null).

Input: ``{measure: systems x topics matrix}`` (e.g. ``{m: results.matrix(m)}``) —
any measure — or a campaign with measure names via :func:`matrices`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError
from irmeta.stats._common import one_blas_thread
from irmeta.stats.significance import TESTS, bootstrap, options_for, pairwise_test


def matrices(campaign, measures: Sequence[str], *, rel_level: int = 1,
             **evaluate_kwargs) -> dict[str, pd.DataFrame]:
    """``{measure string: systems x topics matrix over the campaign topic set}``."""
    from irmeta.evaluation import CONTEXT_ARGS, evaluate
    validate.campaign(campaign, "matrices")
    validate.keywords(evaluate_kwargs, CONTEXT_ARGS, "matrices")
    measures = validate.measure_list(measures, "matrices")
    res = evaluate(campaign, measures=measures, rel_level=rel_level, **evaluate_kwargs)
    if len(res.measures) != len(measures):
        raise ParameterError(f"matrices: each measure string must name one measure: {measures!r}")
    return {m: res.matrix(i) for i, m in enumerate(measures)}


def as_matrices(source, measures: Sequence[str] | None = None, *, rel_level: int = 1,
                func: str = "as_matrices") -> Mapping[str, object]:
    """``source`` as ``{measure: matrix}``: a mapping is returned as is; a
    :class:`~irmeta.Campaign` is evaluated on ``measures`` (see :func:`matrices`)."""
    from irmeta.data.campaign import Campaign
    if isinstance(source, Campaign):
        if not measures:
            raise ParameterError(f"{func}: give measures= with a campaign")
        return matrices(source, measures, rel_level=rel_level)
    if isinstance(source, Mapping):
        if measures is not None:
            raise ParameterError(f"{func}: measures= only goes with a campaign")
        if not source:
            raise ParameterError(f"{func}: the {{measure: matrix}} mapping is empty")
        return source
    raise ParameterError(f"{func}: expected a {{measure: systems x topics matrix}} mapping "
                         f"or a Campaign, got {type(source).__name__}")


def discriminative_power(matrices_by_measure, measures: Sequence[str] | None = None, *,
                         tests: Sequence[str] = ("bootstrap",),
                         levels: Sequence[float] = (0.05, 0.01), seed: int = 0,
                         trials: int | None = None, correction: str | None = None,
                         rel_level: int = 1,
                         progress: bool | None = None) -> pd.DataFrame:
    """Significant pairs per measure, test and level.

    ``matrices_by_measure``: ``{measure: systems x topics matrix}``, or a campaign with
    ``measures`` (evaluated at ``rel_level``).

    Returns a DataFrame ``measure, test, level, significant, pairs, share`` (and
    ``delta`` for the bootstrap). Each test runs once per measure (with the same
    ``seed`` for every measure); the counts at each level come from its p-values
    (``p < level``). ``trials``: resamples / permutations of the random tests (default:
    each test's own, bootstrap 1,000, randomisation 10,000, randomised Tukey 5,000).
    ``seed`` and ``trials`` go to the random tests only, ``correction`` to the pairwise tests only.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> scores = toy_scores()
    >>> matrices = {"AP": scores, "P@10": scores * 0.9 + 0.05}
    >>> discriminative_power(matrices, tests=["paired_t"], levels=[0.05])
      measure      test  level  significant  pairs     share
    0      AP  paired_t   0.05            2      3  0.666667
    1    P@10  paired_t   0.05            2      3  0.666667

    From a campaign, the matrices of its measures over the campaign topic set:

    >>> from irmeta.demo import load_demo_campaign
    >>> from irmeta.stats import matrices as measure_matrices
    >>> by_measure = measure_matrices(load_demo_campaign(), ["AP", "P@10"])
    >>> by_measure["AP"].shape
    (30, 50)
    """
    func = "discriminative_power"
    matrices_by_measure = as_matrices(matrices_by_measure, measures, rel_level=rel_level,
                                      func=func)
    if isinstance(levels, (int, float)):
        levels = [levels]
    if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
        raise ParameterError(f"{func}: levels must be a list of significance levels in "
                             f"(0, 1), got {levels!r}")
    levels = [validate.probability(lv, "levels", func) for lv in levels]
    if not levels:
        raise ParameterError(f"{func}: levels is empty")
    tests = validate.strings(tests, "tests", func)
    for t in tests:
        if t not in TESTS:
            from irmeta.suggest import did_you_mean
            raise ParameterError(f"{func}: unknown test {t!r} in tests; "
                                 + did_you_mean(t, sorted(set(TESTS))))
    rows = []
    for name, mat in matrices_by_measure.items():
        for t in tests:
            kw = options_for(t, trials=trials, seed=seed, progress=progress,
                             correction=correction)
            if TESTS[t] is bootstrap:
                for lv in levels:   # delta depends on the level
                    boot = bootstrap(mat, level=lv, **kw)
                    rows.append(_row(name, t, lv, boot, delta=boot.delta))
                continue
            r = pairwise_test(mat, t, level=levels[0], **kw)
            for lv in levels:
                rows.append(_row(name, t, lv, r))
    return pd.DataFrame(rows)


def _row(name, test, level, result, delta=None) -> dict:
    sig = result.num_significant(level)
    row = {"measure": name, "test": test, "level": level, "significant": sig,
           "pairs": result.num_pairs, "share": sig / max(1, result.num_pairs)}
    if delta is not None:
        row["delta"] = delta
    return row


def asl_curve(result) -> np.ndarray:
    """The achieved significance levels of every pair, sorted ascending.

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> from irmeta.stats import paired_t
    >>> asl_curve(paired_t(toy_scores())).round(4)
    array([0.0054, 0.0086, 0.1079])
    """
    return np.sort(result.pvalues)


@one_blas_thread
def bootstrap_power(matrices_by_measure, measures: Sequence[str] | None = None, *,
                    level: float = 0.05, trials: int | None = None, seed: int = 0,
                    rel_level: int = 1, progress: bool | None = None
                    ) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Sakai's bootstrap discriminative power per measure.

    Returns ``(summary, curves)``: ``summary`` has ``measure, significant, pairs, dp``
    (share of pairs with ASL < level) and ``delta``; ``curves[measure]`` is the sorted
    ASL vector (plot with :func:`irmeta.plot.meta.asl_plot`).

    Examples
    --------
    >>> from irmeta.demo import toy_scores
    >>> summary, curves = bootstrap_power({"AP": toy_scores()}, trials=500, seed=0)
    >>> summary[["measure", "significant", "pairs", "delta"]]
      measure  significant  pairs  delta
    0      AP            2      3   0.12
    >>> curves["AP"].round(3)
    array([0.022, 0.034, 0.346])
    """
    func = "bootstrap_power"
    matrices_by_measure = as_matrices(matrices_by_measure, measures, rel_level=rel_level,
                                      func=func)
    level = validate.probability(level, "level", func)
    rows, curves = [], {}
    for name, mat in matrices_by_measure.items():
        r = bootstrap(mat, trials=trials, seed=seed, level=level, progress=progress)
        curves[name] = asl_curve(r)
        sig = r.num_significant()
        rows.append({"measure": name, "significant": sig, "pairs": r.num_pairs,
                     "dp": sig / max(1, r.num_pairs), "delta": r.delta})
    return pd.DataFrame(rows), curves
