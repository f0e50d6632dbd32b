"""Rank correlation between system rankings.

Rankings are induced by per-system scores (higher is better): a pandas Series indexed
by system (aligned by name) or a 1-D array (aligned by position).

* :func:`kendall_tau` — Kendall's tau-b, which corrects for ties:
  ``tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2))`` with ``n0 = n(n-1)/2`` and ``n1``,
  ``n2`` the tied pairs in each ranking. NaN when a ranking is constant. Up to
  :data:`PAIRWISE_MAX` systems it is computed from the signs of all pairwise
  differences, ``C - D = sum_{i<j} sign(x_j - x_i) sign(y_j - y_i)`` and
  ``n0 - n1 = sum_{i<j} sign(x_j - x_i)^2``, which gives a whole measures x measures
  matrix in one matrix product (:func:`correlation_matrix`) and spares importing
  ``scipy.stats`` (a second of start-up) for the small rankings of an evaluation
  campaign; beyond that, ``scipy.stats.kendalltau`` (O(n log n)). Both are exact
  integer counts divided the same way, and the tests check them against scipy.
* :func:`kendall_test` — tau-b and its two-sided p-value under H0 "no association"
  (``scipy.stats.kendalltau``, variant ``b``, method ``auto``: the exact null
  distribution when neither ranking has ties and n <= 33, else the normal approximation
  with the tie-corrected variance); :func:`kendall_pvalues` — the p-values of a
  :func:`correlation_matrix`.
* :func:`tau_ap` — the AP rank correlation of Yilmaz, Aslam & Robertson (2008),
  which weights swaps near the top: with the systems ordered by ``x`` (the ranking
  under test, best first), ``tau_AP = 2/(n-1) sum_{i=2..n} C(i)/(i-1) - 1`` where
  ``C(i)`` is the number of systems above position ``i`` that ``y`` (the reference)
  also ranks above it. Ties (our decision; the paper assumes none): systems tied in
  ``x`` keep their input order (stable sort); a pair above-below in ``x`` counts 1/2 in
  ``C(i)`` when tied in ``y``; a pair tied in ``x`` counts 1 when also tied in ``y``
  (so ``tau_AP(x, x) = 1`` with ties) and 1/2 otherwise.
  ``symmetric=True`` averages both directions.
* :func:`correlation_matrix` — a measures x measures matrix of any of these (Twist
  paper, Tables 3-4).
* :func:`alpha_sweep` — tau between a baseline measure and a parametrised family,
  ``template.format(alpha=a)``, over a grid (innovation paper, Figure 2).
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError

METHODS = ("kendall", "tau_ap", "tau_ap_sym", "spearman", "pearson")


def _aligned(x, y, func: str) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(x, pd.Series) and isinstance(y, pd.Series):
        if set(x.index) != set(y.index):
            raise ParameterError(f"{func}: the two score series index different systems")
        y = y.reindex(x.index)
    try:
        a = np.asarray(x, dtype=np.float64).ravel()
        b = np.asarray(y, dtype=np.float64).ravel()
    except (TypeError, ValueError, OverflowError):
        raise ParameterError(f"{func}: x and y must be sequences of numbers") from None
    if a.shape != b.shape:
        raise ParameterError(f"{func}: x and y must have the same length, "
                             f"got {a.size} and {b.size}")
    if a.size < 2:
        raise ParameterError(f"{func}: need at least 2 systems, got {a.size}")
    ok = ~(np.isnan(a) | np.isnan(b))
    return a[ok], b[ok]


#: largest number of systems for which Kendall's tau is computed from the pairwise
#: signs (O(n^2) memory and time); larger rankings go to ``scipy.stats.kendalltau``
PAIRWISE_MAX = 2000


def _pair_signs(values: np.ndarray) -> np.ndarray:
    """``[..., n(n-1)/2]`` float matrix of ``sign(v_j - v_i)`` over the pairs ``i < j``
    of the last axis (exact small integers, so products and sums are exact)."""
    i, j = np.triu_indices(values.shape[-1], 1)
    return np.sign(values[..., j] - values[..., i])


def _tau_b(num: np.ndarray, da: np.ndarray, db: np.ndarray) -> np.ndarray:
    """tau-b from ``C - D`` and the untied pair counts of each ranking, divided as
    scipy does (``num / sqrt(da) / sqrt(db)``); NaN when a ranking is constant."""
    with np.errstate(divide="ignore", invalid="ignore"):
        tau = num / np.sqrt(da) / np.sqrt(db)
    return np.where((da > 0) & (db > 0), np.clip(tau, -1.0, 1.0), np.nan)


def kendall_tau(x, y) -> float:
    """Kendall's tau-b between the rankings induced by scores ``x`` and ``y`` (see the
    module doc; systems with a NaN score in either are left out).

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.Series([0.3, 0.2, 0.5, 0.1], index=list("abcd"))
    >>> y = pd.Series([0.25, 0.3, 0.4, 0.05], index=list("abcd"))
    >>> round(kendall_tau(x, y), 4)
    0.6667
    """
    a, b = _aligned(x, y, "kendall_tau")
    if a.size < 2:
        return float("nan")
    if a.size > PAIRWISE_MAX:
        from scipy.stats import kendalltau
        return float(kendalltau(a, b).statistic)
    sa, sb = _pair_signs(a), _pair_signs(b)
    return float(_tau_b(np.dot(sa, sb), np.dot(sa, sa), np.dot(sb, sb)))


def kendall_test(x, y) -> tuple[float, float]:
    """Kendall's tau-b of ``x`` and ``y`` (:func:`kendall_tau`) and its two-sided p-value
    for H0 "the rankings are independent": ``scipy.stats.kendalltau(x, y, variant="b",
    method="auto")`` — the exact permutation distribution when neither ranking has ties
    and n <= 33 (or nearly all pairs agree or disagree), else the normal approximation of
    ``C - D`` with the tie-corrected variance. ``(nan, nan)`` when tau is undefined
    (a constant ranking, fewer than 2 systems).

    Examples
    --------
    >>> tau, p = kendall_test([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])
    >>> round(tau, 3), round(p, 4)
    (0.8, 0.0833)
    """
    a, b = _aligned(x, y, "kendall_test")
    tau = kendall_tau(a, b) if a.size >= 2 else float("nan")
    if np.isnan(tau):
        return float("nan"), float("nan")
    from scipy.stats import kendalltau
    return tau, float(kendalltau(a, b, variant="b", method="auto").pvalue)


def kendall_pvalues(scores) -> pd.DataFrame:
    """Measures x measures p-values of :func:`kendall_test` between the columns of a
    systems x measures DataFrame (the p-values of ``correlation_matrix(scores)``);
    on the diagonal, a ranking against itself (p near 0; NaN when it is constant)."""
    frame = pd.DataFrame(scores) if isinstance(scores, Mapping) else scores
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError("kendall_pvalues: scores must be a systems x measures DataFrame")
    cols = list(frame.columns)
    out = pd.DataFrame(np.nan, index=cols, columns=cols)
    for i, m1 in enumerate(cols):
        for m2 in cols[i:]:
            p = kendall_test(frame[m1], frame[m2])[1]
            out.loc[m1, m2] = out.loc[m2, m1] = p
    return out


#: pairs of systems per block of :func:`_kendall_matrix` (bounded memory: a block of
#: signs is ``measures x 2^18`` doubles, 2 MiB per measure)
_PAIRS_PER_BLOCK = 1 << 18


def _kendall_matrix(values: np.ndarray) -> np.ndarray:
    """measures x measures tau-b of the columns of a NaN-free systems x measures
    array: ``G = S S^T`` with ``S`` the measures x pairs matrix of pairwise signs
    (accumulated over blocks of pairs; exact integer sums)."""
    i, j = np.triu_indices(values.shape[0], 1)
    cols = values.T
    G = np.zeros((cols.shape[0], cols.shape[0]))
    for start in range(0, len(i), _PAIRS_PER_BLOCK):
        sl = slice(start, start + _PAIRS_PER_BLOCK)
        S = np.sign(cols[:, j[sl]] - cols[:, i[sl]])            # [M, block]
        G += S @ S.T                                            # C - D, and untied pairs
    d = np.diag(G).copy()
    tau = _tau_b(G, d[:, None], d[None, :])
    # the upper triangle divides as kendall_tau(column i, column j) does; mirror it so
    # that the matrix is exactly symmetric and equal to the pairwise values bit for bit
    return np.where(np.tri(len(d), k=-1, dtype=bool), tau.T, tau)


def tau_ap(x, y, *, symmetric: bool = False) -> float:
    """AP rank correlation (Yilmaz et al. 2008) of ranking ``x`` against reference ``y``.

    ``tau_AP = 2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1`` (see module doc for ties);
    ``symmetric=True`` returns ``(tau_AP(x, y) + tau_AP(y, x)) / 2``.

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.Series([0.3, 0.2, 0.5, 0.1], index=list("abcd"))
    >>> y = pd.Series([0.25, 0.3, 0.4, 0.05], index=list("abcd"))
    >>> round(tau_ap(x, y), 4)
    0.6667
    """
    a, b = _aligned(x, y, "tau_ap")
    n = a.size
    if n < 2:
        return float("nan")
    if symmetric:
        return 0.5 * (tau_ap(a, b) + tau_ap(b, a))
    order = np.argsort(-a, kind="stable")
    yb = b[order]
    # agree[i, j] for j above i (j < i): reference ranks j above i (1), tied (1/2)
    above = np.tril(np.ones((n, n), dtype=bool), k=-1)
    xb = a[order]
    ytie = yb[None, :] == yb[:, None]
    agree = np.where(yb[None, :] > yb[:, None], 1.0, np.where(ytie, 0.5, 0.0))
    # a pair tied in x agrees fully when also tied in y, half otherwise
    agree = np.where(xb[None, :] == xb[:, None], np.where(ytie, 1.0, 0.5), agree)
    C = (agree * above).sum(axis=1)[1:]
    i = np.arange(2, n + 1)
    return float(2.0 / (n - 1) * np.sum(C / (i - 1)) - 1.0)


def rank_correlation(x, y, method: str = "kendall") -> float:
    """Correlation of two system scorings by ``method``: ``kendall`` (tau-b),
    ``tau_ap`` (x against reference y), ``tau_ap_sym``, ``spearman``, ``pearson``.

    Examples
    --------
    >>> import pandas as pd
    >>> x = pd.Series([0.3, 0.2, 0.5, 0.1], index=list("abcd"))
    >>> y = pd.Series([0.25, 0.3, 0.4, 0.05], index=list("abcd"))
    >>> round(rank_correlation(x, y, "spearman"), 4)
    0.8
    """
    method = validate.choice(method, "method", "rank_correlation", METHODS)
    if method == "kendall":
        return kendall_tau(x, y)
    if method == "tau_ap":
        return tau_ap(x, y)
    if method == "tau_ap_sym":
        return tau_ap(x, y, symmetric=True)
    if method in ("spearman", "pearson"):
        from scipy import stats
        a, b = _aligned(x, y, "rank_correlation")
        if method == "spearman":
            return float(stats.spearmanr(a, b).statistic)
        return float(stats.pearsonr(a, b).statistic)
    raise ParameterError(f"rank_correlation: method must be one of {', '.join(METHODS)}, "
                         f"got {method!r}")


def correlation_matrix(scores, method: str = "kendall") -> pd.DataFrame:
    """Measures x measures matrix of rank correlations between the system rankings.

    ``scores``: a systems x measures DataFrame of per-system scores (e.g.
    ``irmeta.evaluate(...).aggregate()``) or a mapping ``{measure: Series}``. Entry
    ``[m1, m2]`` is ``rank_correlation(scores[m1], scores[m2], method)`` — for
    ``tau_ap``, ranking ``m1`` against reference ``m2`` (not symmetric).

    Examples
    --------
    >>> import pandas as pd
    >>> means = pd.DataFrame({"AP": [0.3, 0.2, 0.5, 0.1], "P@10": [0.25, 0.3, 0.4, 0.05]},
    ...                      index=list("abcd"))
    >>> correlation_matrix(means).round(4)
                 AP    P@10
    measure
    AP       1.0000  0.6667
    P@10     0.6667  1.0000
    """
    if isinstance(scores, Mapping):
        scores = pd.DataFrame({k: pd.Series(v) if not isinstance(v, pd.Series) else v
                               for k, v in scores.items()})
    if not isinstance(scores, pd.DataFrame):
        raise ParameterError("correlation_matrix: scores must be a systems x measures "
                             "DataFrame or a {measure: scores} mapping")
    method = validate.choice(method, "method", "correlation_matrix", METHODS)
    cols = list(scores.columns)
    values = scores.to_numpy(dtype=np.float64)
    if method == "kendall" and 2 <= len(values) <= PAIRWISE_MAX and not np.isnan(values).any():
        tau = _kendall_matrix(values)
        np.fill_diagonal(tau, 1.0)
        out = pd.DataFrame(tau, index=cols, columns=cols)
        out.index.name = "measure"
        return out
    out = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    for i, a in enumerate(cols):
        for j, b in enumerate(cols):
            if i != j and (method == "tau_ap" or j > i):
                v = rank_correlation(scores[a], scores[b], method)
                out.iloc[i, j] = v
                if method != "tau_ap":
                    out.iloc[j, i] = v
    out.index.name = "measure"
    return out


def system_means(campaign, measures: Sequence[str], *, rel_level: int = 1,
                 **evaluate_kwargs) -> pd.DataFrame:
    """systems x measures DataFrame: each measure's mean over the campaign topic set
    (every qrels topic with a relevant document; a run lacking a topic scores it on an
    empty ranking; undefined values left out). Columns are named as given."""
    from irmeta.evaluation import CONTEXT_ARGS, evaluate
    validate.campaign(campaign, "system_means")
    validate.keywords(evaluate_kwargs, CONTEXT_ARGS, "system_means")
    measures = validate.measure_list(measures, "system_means")
    res = evaluate(campaign, measures=measures, rel_level=rel_level, **evaluate_kwargs)
    if len(res.measures) != len(measures):
        raise ParameterError("system_means: each measure string must name exactly one "
                             f"measure, got {measures!r}")
    return pd.DataFrame({m: res.matrix(i).mean(axis=1) for i, m in enumerate(measures)})


def alpha_sweep(campaign, families: Mapping[str, str] | None = None, *,
                alphas: Iterable[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                methods: Sequence[str] = ("kendall", "tau_ap"), rel_level: int = 1,
                progress: bool | None = None, pvalues: bool = False,
                **evaluate_kwargs) -> pd.DataFrame:
    """Rank correlation between a baseline measure and a parametrised family.

    ``families`` maps a baseline measure to a template with ``{alpha}``, by default the
    innovation paper's Figure 2: ``{"P@100": "P_rare(alpha={alpha})@100",
    "AP@100": "AP_rare(alpha={alpha})@100"}``. Any measure works (e.g.
    ``{"RBP(p=0.5)": "RBP(p={alpha})"}``). For each alpha, systems are ranked by their
    mean over the campaign topic set; ``tau_ap`` ranks the family against the baseline
    as reference. Returns a long DataFrame ``baseline, measure, alpha, <method>...``;
    with ``pvalues``, also ``kendall_p``, the p-value of Kendall's tau-b
    (:func:`kendall_test`).
    """
    if families is None:
        families = {"P@100": "P_rare(alpha={alpha})@100", "AP@100": "AP_rare(alpha={alpha})@100"}
    from irmeta.evaluation import CONTEXT_ARGS
    func = "alpha_sweep"
    validate.campaign(campaign, func)
    validate.keywords(evaluate_kwargs, CONTEXT_ARGS, func)
    if isinstance(alphas, (int, float)):
        alphas = [alphas]
    if isinstance(alphas, (str, bytes)) or not isinstance(alphas, Iterable):
        raise ParameterError(f"{func}: alphas must be a list of numbers, got {alphas!r}")
    alphas = [validate.number(a, "alphas", func) for a in alphas]
    if not alphas:
        raise ParameterError(f"{func}: alphas is empty")
    methods = [validate.choice(m, "methods", func, METHODS)
               for m in validate.strings(methods, "methods", func)]
    if not isinstance(families, Mapping) or not families:
        raise ParameterError(f"{func}: families must be a non-empty {{baseline: template}} "
                             f"mapping, got {families!r}")
    measures = sweep_measures(families, alphas)
    from irmeta.stats._common import progress_bar
    parts = []
    with progress_bar(len(measures), "alpha_sweep", progress) as bar:
        for m in measures:      # one measure at a time, for the progress bar
            parts.append(system_means(campaign, [m], rel_level=rel_level, **evaluate_kwargs))
            bar.update(1)
    return sweep_table(pd.concat(parts, axis=1), families, alphas, methods, pvalues)


def sweep_measures(families: Mapping[str, str], alphas: Iterable[float]) -> list[str]:
    """The measure strings of an :func:`alpha_sweep`: each baseline, then its template at
    every alpha (repeats dropped)."""
    measures: list[str] = []
    for base, template in families.items():
        if "{alpha}" not in template:
            raise ParameterError(f"alpha_sweep: template {template!r} has no '{{alpha}}'")
        measures.append(base)
        for a in alphas:
            measures.append(template.format(alpha=_fmt(a)))
    return list(dict.fromkeys(measures))


def sweep_table(means: pd.DataFrame, families: Mapping[str, str], alphas: Iterable[float],
                methods: Sequence[str] = ("kendall", "tau_ap"),
                pvalues: bool = False) -> pd.DataFrame:
    """The table of :func:`alpha_sweep` from ``means`` (systems x :func:`sweep_measures`,
    each the mean over the campaign topic set), however they were computed (in memory,
    or gathered from topic shards by the report)."""
    rows = []
    for base, template in families.items():
        for a in alphas:
            name = template.format(alpha=_fmt(a))
            row = {"baseline": base, "measure": name, "alpha": a}
            for m in methods:
                row[m] = rank_correlation(means[name], means[base], m)
            if pvalues:
                row["kendall_p"] = kendall_test(means[name], means[base])[1]
            rows.append(row)
    return pd.DataFrame(rows)


def _fmt(a: float) -> str:
    """Alpha printed as the measure grammar reads it (``0.5``, ``1``, ``0.25``)."""
    text = f"{a:.10g}"
    return text


def kendall_tau_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """float64 [B]: ``kendall_tau(x[b], y[b])`` for each row, bit for bit: the same pair
    signs and the same tau-b division, the sums of sign products exact (small integers)
    in any order; a row with a NaN (which ``kendall_tau`` leaves out) or more than
    ``PAIRWISE_MAX`` systems goes to ``kendall_tau`` itself."""
    out = np.empty(len(x))
    plain = ~(np.isnan(x).any(axis=1) | np.isnan(y).any(axis=1))
    if x.shape[1] > PAIRWISE_MAX:
        plain[:] = False
    rows = np.flatnonzero(plain)
    step = max(1, (1 << 20) // max(1, x.shape[1] ** 2))
    for i0 in range(0, len(rows), step):
        r = rows[i0:i0 + step]
        sa, sb = _pair_signs(x[r]), _pair_signs(y[r])
        out[r] = _tau_b(np.einsum("ij,ij->i", sa, sb), np.einsum("ij,ij->i", sa, sa),
                        np.einsum("ij,ij->i", sb, sb))
    for i in np.flatnonzero(~plain):
        out[i] = kendall_tau(x[i], y[i])
    return out
