"""Reproducibility between an original and a reproduced run (Breuer et al., SIGIR 2020).

Definitions as repro_eval implements them (``docs/pooling.md`` has every formula):

* **Kendall's tau union (KTU)**, per topic: the top ``depth`` documents of each ranking
  (trec_eval's order); ``U`` their union sorted by document id; each ranking becomes the
  sequence of its documents' positions in ``U``; KTU is Kendall's tau-b
  (:func:`irmeta.stats.correlation.kendall_tau`, scipy's tau-b) between the two
  sequences. Rankings of different lengths are cut to the shorter (repro_eval refuses
  them); a topic the original lacks is NaN.
* **RBO**, per topic: the normalised finite variant repro_eval takes from Clarke et al.
  ``sum_{d=1..depth} p^(d-1) |A_d n B_d| / d  /  sum_{d=1..depth} p^(d-1)`` (defaults
  ``p = 0.95``, ``depth = 1000``).
  KTU and RBO are over the topics the reproduced run retrieved for (judged or not).
* **RMSE** per measure: ``sqrt(mean_t (orig_t - repro_t)^2)`` over the campaign topic
  set (qrels topics with a relevant document; a run lacking one scores 0 on it).
* **Effect ratio** (with a baseline pair): ``ER = mean_t(a'_t - b'_t) / mean_t(a_t - b_t)``
  (primes: reproduced); **delta relative improvement**
  ``DeltaRI = RI - RI'``, ``RI = (mean(a) - mean(b)) / mean(b)``. A division by 0 (no
  original effect, a baseline mean of 0) is undefined: NaN with a note, never ``inf``
  (``null`` in JSON).
* **p-values**: two-sided paired (``ttest_rel``) and unpaired (``ttest_ind``) t-tests
  between the original and reproduced per-topic scores; 1.0 when the two score vectors
  are identical (repro_eval's convention; SciPy gives NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError
from irmeta.stats._common import context_free_measures


@dataclass(frozen=True, eq=False)
class Reproducibility:
    """Ranking agreement per topic (``topics``: ``pair, topic, ktu, rbo``), score
    agreement per measure (``measures``: ``pair, measure, mean_orig, mean_repro, rmse,
    p_paired, p_unpaired``) and, with a baseline, the effects (``effects``: ``measure,
    effect_ratio, delta_ri``). ``pair`` is ``run`` or ``baseline``."""

    topics: pd.DataFrame
    measures: pd.DataFrame
    effects: pd.DataFrame | None

    def _tables(self) -> dict[str, pd.DataFrame | None]:
        return {"measures": self.measures, "effects": self.effects, "topics": self.topics}

    def __repr__(self) -> str:
        from irmeta.data.display import tables_repr
        return tables_repr("Reproducibility",
                           f"{self.topics['topic'].nunique()} topics, "
                           f"{self.measures['measure'].nunique()} measures, pairs "
                           f"{', '.join(map(str, self.topics['pair'].unique()))}",
                           self._tables())

    def _repr_html_(self) -> str:
        from irmeta.data.display import tables_html
        return tables_html(repr(self), self._tables())

    def summary(self) -> pd.DataFrame:
        """Mean KTU and RBO per pair."""
        return self.topics.groupby("pair", sort=False)[["ktu", "rbo"]].mean().reset_index()


def ktu(orig: Sequence[str], repro: Sequence[str]) -> float:
    """Kendall's tau union of two rankings (module doc)."""
    from irmeta.stats.correlation import kendall_tau
    n = min(len(orig), len(repro))
    if n < 2:
        return float("nan")
    a, b = list(orig[:n]), list(repro[:n])
    union = {d: k for k, d in enumerate(sorted(set(a) | set(b)))}
    return kendall_tau([union[d] for d in a], [union[d] for d in b])


def rbo(orig: Sequence[str], repro: Sequence[str], p: float = 0.95, depth: int = 1000) -> float:
    """The normalised finite RBO of repro_eval (module doc), vectorised: the overlap at
    depth ``d`` counts the documents whose later position in the two rankings is ``< d``."""
    first: dict[str, list[int]] = {}
    for side, ranking in enumerate((orig, repro)):
        for k, d in enumerate(ranking[:depth]):
            pos = first.setdefault(d, [depth, depth])
            pos[side] = min(pos[side], k)
    later = np.asarray([max(v) for v in first.values()], dtype=np.int64)
    overlap = np.cumsum(np.bincount(later[later < depth], minlength=depth))[:depth]
    weight = np.power(p, np.arange(depth, dtype=np.float64))
    return float(np.sum(weight * overlap / np.arange(1, depth + 1)) / np.sum(weight))


_WHO = {"orig": "original", "repro": "reproduced", "baseline_orig": "original baseline",
        "baseline_repro": "reproduced baseline"}


def _note_missing_topics(campaign: Any, evaluated: list[str], names: list[str],
                         func: str) -> None:
    """Warn (a CLI note) when a run retrieves nothing for some evaluated topics: it scores
    0 there (trec_eval -c), which moves the means, RMSE and t-tests of a partial run."""
    from irmeta.errors import warn
    col = {str(t): k for k, t in enumerate(campaign.topics)}
    has = np.asarray(campaign.has_topic)[:, [col[t] for t in evaluated]]
    for r, name in enumerate(names):
        missing = int((~has[r]).sum())
        if missing:
            warn(f"{func}: the {_WHO.get(name, name)} run retrieves nothing for "
                 f"{missing} of the {len(evaluated)} evaluated topics; it scores 0 "
                 "on them in the means, RMSE and t-tests (trec_eval -c)")


def _ratio(num: float, den: float) -> float:
    """``num / den``; NaN when ``den`` is 0 (an effect ratio against no original effect,
    a relative improvement over a baseline scoring 0: undefined, not infinite)."""
    return num / den if den != 0 else float("nan")


def _note_undefined(measure: str, er: float, delta_ri: float) -> None:
    from irmeta.errors import warn
    undefined = [name for name, v in (("effect_ratio", er), ("delta_ri", delta_ri))
                 if np.isnan(v)]
    if undefined:
        warn(f"reproducibility: {' and '.join(undefined)} of {measure} undefined "
             "(NaN): the original pair shows no effect or a baseline scores 0 on "
             "average (a division by 0)")


def _pvalues(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    from scipy.stats import ttest_ind, ttest_rel
    if np.array_equal(x, y):
        return 1.0, 1.0
    import warnings
    with warnings.catch_warnings():
        # SciPy warns of "catastrophic cancellation" for a constant score vector (a run
        # with P@1 = 1 on every topic); its p-value is exact there, the warning is noise
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        return float(ttest_rel(x, y).pvalue), float(ttest_ind(x, y).pvalue)


def reproducibility(qrels: Any, orig: Any, repro: Any, measures: Sequence[str], *,
                    baseline_orig: Any = None, baseline_repro: Any = None,
                    rbo_p: float = 0.95, depth: int = 1000, rel_level: int = 1,
                    float32: bool = False) -> Reproducibility:
    """Compare a reproduced run with the original (and a baseline pair) — module doc.

    ``qrels`` and the runs are anything :func:`irmeta.load_campaign` reads (a path, a
    DataFrame, a dict, a Run). ``depth`` cuts the rankings for KTU and RBO; ``rbo_p`` is
    RBO's persistence.

    Examples
    --------
    >>> import irmeta
    >>> qrels = {"q1": {"d1": 1, "d2": 0}}
    >>> a = {"q1": {"d1": 2.0, "d2": 1.0, "d3": 0.5}}
    >>> b = {"q1": {"d2": 2.0, "d1": 1.0, "d3": 0.5}}
    >>> from irmeta.stats import reproducibility
    >>> res = reproducibility(qrels, a, b, ["P@1"])
    >>> round(float(res.topics["ktu"][0]), 4), float(res.measures["rmse"][0])
    (0.3333, 1.0)
    """
    from irmeta.evaluation import evaluate
    from irmeta.io.load import load_campaign, load_runs
    from irmeta.pooling import runs_campaign
    func = "reproducibility"
    measures = [str(m) for m in validate.measure_list(measures, func)]
    context_free_measures(measures, func, "two runs (an original and its reproduction) "
                          "are not the campaign that context is")
    rbo_p = validate.number(rbo_p, "rbo_p", func, low=0.0, high=1.0, low_open=True,
                            high_open=True)
    depth = validate.integer(depth, "depth", func, low=1)
    rel_level = validate.integer(rel_level, "rel_level", func, low=-32768, high=32768)
    if (baseline_orig is None) != (baseline_repro is None):
        raise ParameterError(f"{func}: give both baseline_orig and baseline_repro, or neither")
    names = ["orig", "repro"] + (["baseline_orig", "baseline_repro"]
                                 if baseline_orig is not None else [])
    items = [orig, repro] + ([baseline_orig, baseline_repro] if baseline_orig is not None
                             else [])
    runs = [load_runs(x, [n], float32=float32)[0] for x, n in zip(items, names)]
    campaign = load_campaign(qrels, runs, warn_dropped=False)
    res = evaluate(campaign, measures=measures, rel_level=rel_level)
    if len(res.measures) != len(measures):
        raise ParameterError(f"{func}: each measure string must name exactly one measure, "
                             f"got {measures!r}")
    mats = {m: res.matrix(j).to_numpy() for j, m in enumerate(measures)}
    pairs = [("run", 0, 1)] + ([("baseline", 2, 3)] if baseline_orig is not None else [])
    _note_missing_topics(campaign, [str(t) for t in res.matrix(0).columns], names, func)
    ranks = runs_campaign(runs, max_docs=depth)
    topic_rows, measure_rows = [], []
    for pair, o, r in pairs:
        for t, topic in enumerate(ranks.topics):
            if ranks.length[r, t] == 0:
                continue
            a, b = ranks.ranking(o, t), ranks.ranking(r, t)
            topic_rows.append((pair, topic, ktu(a, b) if a else float("nan"),
                               rbo(a, b, rbo_p, depth)))
        for m in measures:
            x, y = mats[m][o], mats[m][r]
            pp, pu = _pvalues(x, y)
            measure_rows.append((pair, m, float(x.mean()), float(y.mean()),
                                 float(np.sqrt(np.mean((x - y) ** 2))), pp, pu))
    effects = None
    if baseline_orig is not None:
        rows = []
        for m in measures:
            a, a2, b, b2 = (mats[m][i] for i in (0, 1, 2, 3))
            er = _ratio(float(np.mean(a2 - b2)), float(np.mean(a - b)))
            ri = _ratio(float(a.mean() - b.mean()), float(b.mean()))
            ri2 = _ratio(float(a2.mean() - b2.mean()), float(b2.mean()))
            _note_undefined(m, er, ri - ri2)
            rows.append((m, er, ri - ri2))
        effects = pd.DataFrame(rows, columns=["measure", "effect_ratio", "delta_ri"])
    return Reproducibility(
        pd.DataFrame(topic_rows, columns=["pair", "topic", "ktu", "rbo"]),
        pd.DataFrame(measure_rows, columns=["pair", "measure", "mean_orig", "mean_repro",
                                            "rmse", "p_paired", "p_unpaired"]),
        effects)
