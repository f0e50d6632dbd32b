"""The analyses of the GAWM paper (section 4), each one call returning a DataFrame.

=============================  =====================================================
function                       paper
=============================  =====================================================
:func:`correlation_table`      Table 2: Pearson of MAP/AAP with E_s, A(s), E_t, A(t),
                               W_s, W_t, per collection
:func:`mean_function_table`    Table 3: Pearson (MAP, W_s), (AAP, W_t) for each M_t
:func:`grid_scores`            Figure 4 data: E_s for all 5 x 5 (M_s, M_t)
:func:`ranking_grid`           Figure 4 summary: leader and MAP leader's rank per cell
:func:`winner_confidence`      Figure 5: P(best > median), P(best > worst)
:func:`leave_one_topic_out`    Figure 6: Kendall tau with the held-out topic
:func:`heatmap_bars`           Figure 3 data: orders and side bars of the heat map
=============================  =====================================================

``matrices`` arguments take one DataFrame (rows = systems, columns = topics) or a
mapping ``{collection name: DataFrame}``. Pearson coefficients are NaN when a vector is
constant (e.g. uniform weights). ``axioms``, ``tol``, ``max_iter`` and ``floor`` are passed
to :func:`~irmeta.aggregate.gawm.gawm`; its ConvergenceWarning is silenced here because
every table reports convergence in a column.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd

from irmeta.aggregate._matrix import as_matrix
from irmeta.aggregate.gawm import DEFAULT_MAX_ITER, DEFAULT_TOL, GAWMResult, gawm
from irmeta.aggregate.hits import hits
from irmeta.aggregate.means import MEAN_FUNCTIONS, canonical_mean
from irmeta.errors import ConvergenceWarning, ParameterError


def pearson(x, y) -> float:
    """Pearson's r of two equal-length vectors; NaN if either is constant."""
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    dx, dy = x - x.mean(), y - y.mean()
    den = np.sqrt(np.dot(dx, dx) * np.dot(dy, dy))
    scale = max(np.abs(x).max(initial=0.0), np.abs(y).max(initial=0.0), 1e-300)
    if den <= (1e-12 * scale) ** 2 * len(x):
        return float("nan")
    return float(np.clip(np.dot(dx, dy) / den, -1.0, 1.0))


def _collections(matrices) -> dict[str, pd.DataFrame]:
    if isinstance(matrices, pd.DataFrame):
        return {"matrix": matrices}
    if isinstance(matrices, Mapping) and matrices:
        return dict(matrices)
    raise ParameterError(f"matrices must be a DataFrame or a non-empty mapping name -> "
                         f"DataFrame, got {type(matrices).__name__}")


def _quiet_gawm(matrix, axioms, ms, mt, tol, max_iter, floor=0.0) -> GAWMResult:
    """gawm() with the ConvergenceWarning suppressed: callers report ``converged``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return gawm(matrix, axioms, ms, mt, tol=tol, max_iter=max_iter, floor=floor)


def correlation_table(matrices, axioms: str = "A", ms="arithmetic", mt="arithmetic", *,
                      tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER,
                      floor: float = 0.0) -> pd.DataFrame:
    """Table 2: per collection, Pearson's r of (MAP, E_s), (MAP, A(s)), (AAP, E_t),
    (AAP, A(t)), (MAP, W_s), (AAP, W_t).

    ``MAP``/``AAP`` are the row/column means, ``E``/``W`` come from :func:`gawm` with the
    given axioms and means (the paper: A, arithmetic, arithmetic), ``A(s)``/``A(t)``
    from :func:`hits`. Extra columns: ``systems``, ``topics``, ``iterations``,
    ``converged``. One row per collection.
    """
    rows = {}
    for name, matrix in _collections(matrices).items():
        P, _, _ = as_matrix(matrix, "correlation_table", min_shape=(2, 2))
        MAP, AAP = P.mean(axis=1), P.mean(axis=0)
        g = _quiet_gawm(matrix, axioms, ms, mt, tol, max_iter, floor)
        h = hits(matrix)
        rows[name] = {
            "systems": P.shape[0], "topics": P.shape[1],
            "Pearson(MAP,E_s)": pearson(MAP, g.E_s),
            "Pearson(MAP,A(s))": pearson(MAP, h.authority_s),
            "Pearson(AAP,E_t)": pearson(AAP, g.E_t),
            "Pearson(AAP,A(t))": pearson(AAP, h.authority_t),
            "Pearson(MAP,W_s)": pearson(MAP, g.W_s), "Pearson(AAP,W_t)": pearson(AAP, g.W_t),
            "iterations": g.iterations, "converged": g.converged}
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "collection"
    return frame


def mean_function_table(matrices, axioms: str = "A", ms="arithmetic", *,
                        tol: float = DEFAULT_TOL,
                        max_iter: int = DEFAULT_MAX_ITER, floor: float = 0.0) -> pd.DataFrame:
    """Table 3: with ``M_s = ms`` (the paper: arithmetic), for each of the five topic
    means ``M_t``: Pearson's r of (MAP, W_s) and (AAP, W_t).

    Index: (collection, M_t) in the paper's order min, harmonic, geometric,
    arithmetic, max; extra columns ``iterations``, ``converged``.
    """
    records = []
    for name, matrix in _collections(matrices).items():
        P, _, _ = as_matrix(matrix, "mean_function_table", min_shape=(2, 2))
        MAP, AAP = P.mean(axis=1), P.mean(axis=0)
        for mt in MEAN_FUNCTIONS:
            g = _quiet_gawm(matrix, axioms, ms, mt, tol, max_iter, floor)
            records.append({"collection": name, "M_t": mt,
                            "Pearson(MAP,W_s)": pearson(MAP, g.W_s),
                            "Pearson(AAP,W_t)": pearson(AAP, g.W_t),
                            "iterations": g.iterations, "converged": g.converged})
    return pd.DataFrame.from_records(records).set_index(["collection", "M_t"])


def grid_results(matrix, axioms: str = "A", *, tol: float = DEFAULT_TOL,
                 max_iter: int = DEFAULT_MAX_ITER,
                 floor: float = 0.0) -> dict[tuple[str, str], GAWMResult]:
    """:func:`gawm` for each of the 5 x 5 pairs ``(M_s, M_t)``, keyed by the pair."""
    return {(a, b): _quiet_gawm(matrix, axioms, a, b, tol, max_iter, floor)
            for a in MEAN_FUNCTIONS for b in MEAN_FUNCTIONS}


def cell_label(ms: str, mt: str) -> str:
    """The paper's label of a grid cell: ``S1T2`` for (min, harmonic)."""
    return f"S{MEAN_FUNCTIONS.index(ms) + 1}T{MEAN_FUNCTIONS.index(mt) + 1}"


def grid_scores(matrix, axioms: str = "A", *, tol: float = DEFAULT_TOL,
                max_iter: int = DEFAULT_MAX_ITER, floor: float = 0.0, results=None) -> pd.DataFrame:
    """Figure 4 data: systems x 26 columns — ``MAP`` then ``E_s`` of every
    ``(M_s, M_t)`` pair labelled ``S1T1`` .. ``S5T5`` (S = system mean, T = topic mean,
    numbered min, harmonic, geometric, arithmetic, max) — rows sorted by MAP (best
    first, stable). ``results``: a :func:`grid_results` dict to reuse."""
    P, runs, _ = as_matrix(matrix, "grid_scores")
    results = results or grid_results(matrix, axioms, tol=tol, max_iter=max_iter, floor=floor)
    data = {"MAP": P.mean(axis=1)}
    for (a, b), g in results.items():
        data[cell_label(a, b)] = g.E_s.to_numpy()
    frame = pd.DataFrame(data, index=runs)
    return frame.iloc[np.argsort(-frame["MAP"].to_numpy(), kind="stable")]


def _ranks(values: np.ndarray) -> np.ndarray:
    """Competition ranks, 1 = highest; tied systems share the best rank of the tie."""
    return pd.Series(values).rank(ascending=False, method="min").to_numpy().astype(int)


def ranking_grid(matrix, axioms: str = "A", *, tol: float = DEFAULT_TOL,
                 max_iter: int = DEFAULT_MAX_ITER, floor: float = 0.0,
                 results=None) -> pd.DataFrame:
    """Figure 4 summary: one row per ``(M_s, M_t)`` (and a first row ``MAP``).

    Columns: ``label`` (S1T1..S5T5), ``leader`` (the best system by ``E_s``; first in
    matrix order on ties), ``map_leader_rank`` (rank of the MAP leader by ``E_s``;
    competition ranking, 1 + the number of systems strictly better), ``map_last_rank``
    (same for MAP's last system), ``kendall_tau`` (tau-b between ``E_s`` and MAP),
    ``iterations``, ``converged``.
    """
    from scipy.stats import kendalltau
    P, runs, _ = as_matrix(matrix, "ranking_grid", min_shape=(2, 1))
    results = results or grid_results(matrix, axioms, tol=tol, max_iter=max_iter, floor=floor)
    MAP = P.mean(axis=1)
    best, last = int(np.argmax(MAP)), int(np.argmin(MAP))
    records = [{"M_s": "MAP", "M_t": "", "label": "MAP", "leader": runs[best],
                "map_leader_rank": 1, "map_last_rank": int(_ranks(MAP)[last]),
                "kendall_tau": 1.0, "iterations": 0, "converged": True}]
    for (a, b), g in results.items():
        e = g.E_s.to_numpy()
        ranks = _ranks(e)
        # no warning to silence: kendalltau returns NaN (no warning) for a constant input
        tau = kendalltau(e, MAP).statistic
        records.append({"M_s": a, "M_t": b, "label": cell_label(a, b),
                        "leader": runs[int(np.argmax(e))],
                        "map_leader_rank": int(ranks[best]), "map_last_rank": int(ranks[last]),
                        "kendall_tau": float(tau), "iterations": g.iterations,
                        "converged": g.converged})
    return pd.DataFrame.from_records(records).set_index(["M_s", "M_t"])


def _prob_better(s_i, v_i, s_j, v_j) -> float:
    """``P(S_i > S_j) = Phi((s_i - s_j) / sqrt(v_i + v_j))`` for independent Gaussians."""
    from scipy.stats import norm
    var = v_i + v_j
    if var <= 0:
        return 1.0 if s_i > s_j else (0.5 if s_i == s_j else 0.0)
    return float(norm.cdf((s_i - s_j) / np.sqrt(var)))


def winner_confidence(matrix, axioms: str = "A", mt="arithmetic", *,
                      tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER,
                      floor: float = 0.0) -> pd.DataFrame:
    """Figure 5: confidence that the best system beats the median and the worst one.

    Each system is a Gaussian with mean ``s_i`` and variance ``v_i``:

    * under ``MAP``: ``s_i`` = row mean, ``v_i = (1/n) sum_j (P[i,j] - s_i)^2``;
    * under GAWM with ``M_s`` (each of the five, ``M_t = mt``): ``s_i = E_s[i]`` and
      ``v_i = sum_j W_t[j] (P[i,j] - E_s[i])^2`` (the same formula with the adaptive
      topic weights; uniform weights give the MAP case).

    ``P(S_i > S_j) = Phi((s_i - s_j) / sqrt(v_i + v_j))``. Best / median / worst are the
    systems at positions 0, ``m // 2`` and ``m - 1`` of the ordering by ``s`` (highest
    first, ties in matrix order). One row per aggregator (``MAP``, then the five
    ``M_s``), columns ``best``, ``median``, ``worst``, ``P(best>median)``,
    ``P(best>worst)``, ``converged``.
    """
    P, runs, _ = as_matrix(matrix, "winner_confidence", min_shape=(2, 1))
    mt = canonical_mean(mt, "winner_confidence", "mt")
    m, n = P.shape
    cases = [("MAP", P.mean(axis=1), np.full(n, 1.0 / n), True)]
    for a in MEAN_FUNCTIONS:
        g = _quiet_gawm(matrix, axioms, a, mt, tol, max_iter, floor)
        cases.append((f"gawm(ms={a})", g.E_s.to_numpy(), g.W_t.to_numpy(), g.converged))
    records = []
    for label, s, w, conv in cases:
        v = ((P - s[:, None]) ** 2) @ w
        order = np.argsort(-s, kind="stable")
        b, md, wr = order[0], order[m // 2], order[-1]
        records.append({"aggregator": label, "best": runs[b], "median": runs[md],
                        "worst": runs[wr],
                        "P(best>median)": _prob_better(s[b], v[b], s[md], v[md]),
                        "P(best>worst)": _prob_better(s[b], v[b], s[wr], v[wr]),
                        "converged": conv})
    return pd.DataFrame.from_records(records).set_index("aggregator")


def leave_one_topic_out(matrix, axioms: str = "B", mt="arithmetic", ms=MEAN_FUNCTIONS, *,
                        tol: float = DEFAULT_TOL, max_iter: int = DEFAULT_MAX_ITER,
                      floor: float = 0.0) -> pd.DataFrame:
    """Figure 6: how well each aggregate over n-1 topics predicts the held-out topic.

    For each topic j: ``tau_j`` = Kendall's tau-b between the systems' aggregate over the
    other n-1 topics (MAP, or ``E_s`` of :func:`gawm` with ``axioms``, ``M_t = mt`` and
    each ``M_s`` in ``ms``) and their scores on topic j alone. A topic on which every
    system scores the same (tau undefined) is left out. One row per aggregator;
    columns ``mean_tau``, ``std_tau`` (over topics), ``topics`` (number of defined taus),
    ``not_converged`` (GAWM runs that hit ``max_iter``).
    """
    from scipy.stats import kendalltau
    P, runs, topics = as_matrix(matrix, "leave_one_topic_out", min_shape=(2, 2))
    mt = canonical_mean(mt, "leave_one_topic_out", "mt")
    names = ["MAP"] + [f"gawm(ms={canonical_mean(a, 'leave_one_topic_out', 'ms')})" for a in ms]
    taus: dict[str, list[float]] = {k: [] for k in names}
    failures = dict.fromkeys(names, 0)
    n = P.shape[1]
    for j in range(n):
        held = P[:, j]
        if np.all(held == held[0]):
            continue
        rest = np.delete(P, j, axis=1)
        preds = {"MAP": rest.mean(axis=1)}
        for a, name in zip(ms, names[1:]):
            g = _quiet_gawm(rest, axioms, a, mt, tol, max_iter, floor)
            preds[name] = g.E_s.to_numpy()
            failures[name] += not g.converged
        # kendalltau gives NaN without a warning when a prediction is constant (a tie
        # of every system); those taus are dropped below, nothing needs silencing
        for name, pred in preds.items():
            taus[name].append(kendalltau(pred, held).statistic)
    records = []
    for name in names:
        t = np.asarray(taus[name], dtype=np.float64)
        t = t[np.isfinite(t)]
        records.append({"aggregator": name,
                        "mean_tau": float(t.mean()) if t.size else float("nan"),
                        "std_tau": float(t.std()) if t.size else float("nan"),
                        "topics": int(t.size), "not_converged": failures[name]})
    return pd.DataFrame.from_records(records).set_index("aggregator")


# ------------------------------------------------------------------ Figure 3
_SHORT_MEAN = {"arithmetic": "ari", "geometric": "geo", "harmonic": "har", "min": "min",
               "max": "max"}


@dataclass(frozen=True)
class HeatmapBars:
    """Everything Figure 3 shows, computed (:func:`irmeta.plot.gawm.plot_matrix_heatmap`
    only draws it).

    ``values``: the systems x topics matrix; ``row_order`` / ``col_order``: systems by
    MAP (best first) and topics by AAP (easiest first), stable for ties;
    ``system_bars`` / ``topic_bars``: ``(label, one value per system / topic in matrix
    order, is_weight)`` — ``is_weight`` bars are drawn in grey.
    """

    values: np.ndarray
    runs: list
    topics: list
    row_order: np.ndarray
    col_order: np.ndarray
    system_bars: list[tuple[str, np.ndarray, bool]]
    topic_bars: list[tuple[str, np.ndarray, bool]]


def heatmap_bars(matrix, axioms: str = "A", means=("arithmetic", "geometric"), *,
                 results: Mapping[str, GAWMResult] | None = None, hits_result=None,
                 func: str = "heatmap_bars") -> HeatmapBars:
    """Figure 3 data: MAP, A(s) (HITS authority), ``E_s`` for each mean in ``means``
    (GAWM with ``M_s = M_t`` = that mean), the weights ``W_s`` of the first mean and
    the uniform weight of MAP per system; the same per topic (AAP, A(t), ``E_t``,
    ``W_t``, uniform). ``results``: ``{mean: GAWMResult}`` to reuse; ``hits_result``:
    a HITSResult to reuse."""
    P, runs, topics = as_matrix(matrix, func, min_shape=(2, 2))
    results = dict(results or {})
    for mean in means:
        if mean not in results:
            results[mean] = gawm(matrix, axioms, mean, mean)
    h = hits_result or hits(matrix)
    MAP, AAP = P.mean(axis=1), P.mean(axis=0)
    sys_bars = [("MAP", MAP, False), ("A(s)", h.authority_s.to_numpy(), False)]
    top_bars = [("AAP", AAP, False), ("A(t)", h.authority_t.to_numpy(), False)]
    for mean in means:
        r = results[mean]
        sys_bars.append((f"E_s {_SHORT_MEAN.get(mean, mean)}", r.E_s.to_numpy(), False))
        top_bars.append((f"E_t {_SHORT_MEAN.get(mean, mean)}", r.E_t.to_numpy(), False))
    if means:
        first, short = results[means[0]], _SHORT_MEAN.get(means[0], means[0])
        sys_bars.append((f"W_s {short}", first.W_s.to_numpy(), True))
        top_bars.append((f"W_t {short}", first.W_t.to_numpy(), True))
    sys_bars.append(("uniform", np.full(len(runs), 1.0), True))
    top_bars.append(("uniform", np.full(len(topics), 1.0), True))
    return HeatmapBars(values=P, runs=runs, topics=topics,
                       row_order=np.argsort(-MAP, kind="stable"),
                       col_order=np.argsort(-AAP, kind="stable"),
                       system_bars=sys_bars, topic_bars=top_bars)
