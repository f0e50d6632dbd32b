"""PyTerrier's ``pt.Experiment``, evaluated as one campaign (``docs/ecosystem.md``).

:func:`Experiment` takes ``pt.Experiment``'s arguments and returns its table (one row per
system; with a ``baseline`` the ``<measure> +``, ``<measure> -`` and ``<measure>
p-value`` columns; with a ``correction`` the ``<measure> reject`` and ``<measure> p-value
corrected`` columns), but the systems are run (or their result frames taken) first and
evaluated **together**, so ``eval_metrics`` may hold irmeta's cross-run measures
(``NRG@10``, ``P_rare(alpha=1)@100``, ``TaSC@10``): each system is scored against the
others of the experiment. ``pt.Experiment`` cannot do this: it scores each system on its
own.

:func:`measure` goes the other way: an ir_measures ``Measure`` whose context is fixed in
advance (NRG against given prior runs, rareness against a ``reference`` campaign such as
the TREC DL 2021 participants), usable in PyTerrier's own ``pt.Experiment`` ("how
innovative is my system against TREC DL 2021's runs?").

PyTerrier, ir_measures, SciPy and statsmodels are imported when a function is called;
without PyTerrier the module still works on DataFrames (``pip install
'irmeta[pyterrier]'`` for the rest).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from irmeta.constraints import DIGITS, PROBABILITY, REL_LEVEL
from irmeta.data.campaign import Campaign, build_campaign
from irmeta.data.tables import is_frame
from irmeta.errors import ParameterError
from irmeta.evaluation import evaluate
from irmeta.io.ecosystem import require
from irmeta.io.load import load_campaign, load_qrels, load_runs
from irmeta.measures.parse import is_ir_measures_object, parse_measures

FN = "irmeta.pyterrier.Experiment"
#: the multiple-testing corrections of ``statsmodels.stats.multitest.multipletests``,
#: every spelling it accepts (case-insensitive) -> the name shown in messages
CORRECTIONS = {
    **dict.fromkeys(["b", "bonf", "bonferroni"], "bonferroni"),
    **dict.fromkeys(["s", "sidak"], "sidak"),
    **dict.fromkeys(["hs", "holm-sidak"], "holm-sidak"),
    **dict.fromkeys(["h", "holm"], "holm"),
    **dict.fromkeys(["sh", "simes-hochberg"], "simes-hochberg"),
    **dict.fromkeys(["ho", "hommel"], "hommel"),
    **dict.fromkeys(["fdr_bh", "fdr_i", "fdr_p", "fdri", "fdrp"], "fdr_bh"),
    **dict.fromkeys(["fdr_by", "fdr_n", "fdr_c", "fdrn", "fdrcorr"], "fdr_by"),
    **dict.fromkeys(["fdr_tsbky", "fdr_2sbky", "fdr_twostage"], "fdr_tsbky"),
    **dict.fromkeys(["fdr_tsbh", "fdr_2sbh"], "fdr_tsbh"),
    "fdr_gbs": "fdr_gbs",
}

#: ``pt.Experiment`` arguments with no meaning here; only their defaults are accepted
_UNSUPPORTED = {"save_dir": None, "save_mode": "warn", "save_format": "trec",
                "highlight": None, "precompute_prefix": False, "plan": "linear",
                "batch_size": None}


def Experiment(retr_systems: Sequence[Any] | Mapping[str, Any], topics: Any, qrels: Any,
               eval_metrics: Sequence[Any], names: Sequence[str] | None = None,
               perquery: bool | str = False, dataframe: bool = True,
               filter_by_qrels: bool = False, filter_by_topics: bool = True,
               baseline: int | str | None = None, test: str | Callable[..., Any] = "t",
               correction: str | None = None, correction_alpha: float = 0.05,
               round: int | Mapping[str, int] | None = None,
               verbose: Any = False, validate: Any = "warn", *,
               rel_level: int = 1, groups: Mapping[str, str] | None = None,
               reference: Campaign | None = None, prior_runs: Iterable[str] | None = None,
               **kwargs: Any) -> Any:
    """``pt.Experiment`` with the systems evaluated together as one irmeta campaign.

    Parameters
    ----------
    retr_systems : list or dict of PyTerrier transformers or result frames
        Each transformer is run on ``topics`` (``transform``); a DataFrame
        (``qid, docno, score``) is taken as it is; any run irmeta reads (a path, a ranx
        ``Run``) is read. A dict gives the names.
    topics : DataFrame
        ``qid, query`` (only ``qid`` is read, and the transformers get it whole).
    qrels : DataFrame, path, ``irds:<id>``, ranx Qrels ...
        ``qid, docno, label`` or anything :func:`irmeta.load_campaign` reads.
    eval_metrics : list
        Measure strings (``"map"``, ``"nDCG@10"``, ``"NRG@10"``), ir_measures objects
        (``nDCG@10``), and ir_measures measures defined at run time (such as those of
        :func:`measure`), which are computed per system by ir_measures, as PyTerrier does.
    names, perquery, dataframe, filter_by_qrels, filter_by_topics, baseline, round
        As ``pt.Experiment``. ``test``: ``"t"`` (``scipy.stats.ttest_rel``), ``"wilcoxon"``
        (``scipy.stats.wilcoxon``) or a function returning ``(statistic, p)``;
        ``correction`` (with ``correction_alpha``): a method of
        ``statsmodels.stats.multitest.multipletests`` (``"bonferroni"``, ``"holm"``,
        ``"fdr_bh"`` ...) applied per measure to the p-values of the systems other than
        the baseline. Every argument is checked as the CLI checks its options
        (``correction``: a name ``multipletests`` accepts, ``correction_alpha`` in
        (0, 1), ``round`` an integer 0-17 or a mapping of column to one): a
        :class:`~irmeta.errors.ParameterError` naming it.
    rel_level, groups, reference, prior_runs
        irmeta's campaign options (:func:`irmeta.evaluate`).
    verbose, validate
        Accepted for pt.Experiment's signature; irmeta shows no progress bar and checks
        every frame (a bad row is an :class:`~irmeta.errors.InputError`).

    Returns
    -------
    DataFrame
        ``pt.Experiment``'s table (columns in the order of ``eval_metrics``), or its
        per-query table (``name, qid, measure, value``) with ``perquery=True``, or both
        with ``perquery="both"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from irmeta.pyterrier import Experiment
    >>> topics = pd.DataFrame({"qid": ["1", "2"], "query": ["a", "b"]})
    >>> qrels = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d3"],
    ...                       "label": [1, 0, 2]})
    >>> bm25 = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d3"],
    ...                      "score": [2.0, 1.0, 1.0]})
    >>> dense = pd.DataFrame({"qid": ["1", "2"], "docno": ["d2", "d3"], "score": [1.0, 1.0]})
    >>> Experiment([bm25, dense], topics, qrels, ["map", "NRG@10"], names=["bm25", "dense"])
        name  map  NRG@10
    0   bm25  1.0     0.5
    1  dense  0.5     0.0
    """
    bad = [k for k in kwargs if k not in _UNSUPPORTED]
    if bad:
        raise ParameterError(f"{FN}: unknown argument(s) {', '.join(sorted(bad))}")
    odd = [k for k, v in kwargs.items() if v != _UNSUPPORTED[k]]
    if odd:
        raise ParameterError(f"{FN}: {', '.join(sorted(odd))} not supported (irmeta "
                             "evaluates result frames; run pt.Experiment for them)")
    if perquery not in (False, True, "both"):
        raise ParameterError(f"{FN}: perquery must be False, True or 'both', got {perquery!r}")
    _check_options(correction, correction_alpha, round, rel_level)
    test_fn = _test(test)
    qrels_frame = _qrels_frame(qrels, topics, filter_by_topics)
    if filter_by_qrels and topics is not None and "qid" in getattr(topics, "columns", ()):
        topics = topics[topics["qid"].astype(str).isin(set(qrels_frame["query_id"]))]
    frames, names = _systems(retr_systems, names, topics)
    base = _baseline(baseline, names)
    if correction is not None and base is None:
        raise ParameterError(f"{FN}: a correction needs a baseline")
    irmeta_items, runtime, columns = _measures(eval_metrics)
    campaign = load_campaign(qrels_frame, frames, names=names, warn_dropped=False)
    per_query: dict[str, np.ndarray] = {}   # column -> systems x topics
    topics_axis = list(campaign.topics)
    if irmeta_items:
        res = evaluate(campaign, measures=[m for _, m in irmeta_items], complete=True,
                       rel_level=rel_level, groups=groups, reference=reference,
                       prior_runs=prior_runs)
        for (col, _), j in zip(irmeta_items, range(len(res.measures))):
            per_query[col] = res.values[:, j, :]
    for col, obj in runtime:
        per_query[col] = _runtime_values(obj, qrels_frame, frames, topics_axis)
    means = {col: _means(per_query[col], col) for col in columns}
    if round is not None:
        means = {c: _rounded(v, c, round) for c, v in means.items()}
    table = _table(names, columns, means, per_query, base, test_fn, correction,
                   correction_alpha)
    if not dataframe:
        table = {n: {c: float(means[c][i]) for c in columns} for i, n in enumerate(names)}
    if perquery is False:
        return table
    pq = _per_query(names, columns, per_query, topics_axis, round)
    if not dataframe:   # pt's dict form: {name: {qid: {measure: value}}}
        pq = {n: {q: dict(zip(g["measure"], g["value"])) for q, g in part.groupby("qid")}
              for n, part in pq.groupby("name", sort=False)}
    return (table, pq) if perquery == "both" else pq


def measure(text: str, *, prior: Any = None, reference: Campaign | None = None,
            rel_level: int = 1, name: str | None = None) -> Any:
    """An ir_measures ``Measure`` computing the irmeta measure ``text`` for one system in
    a context fixed in advance, for PyTerrier's own ``pt.Experiment`` (or
    ``ir_measures.calc_aggregate``).

    ``prior``: runs in any form irmeta reads (paths, frames, ranx Runs), read once; the
    scored system is evaluated in the campaign of these runs plus itself, so ``NRG@10``
    (``prior=others``) is its novelty against them and ``P_rare(alpha=1)@100`` its
    rareness among them. ``reference``: a rarity reference :class:`Campaign`
    (:func:`irmeta.load_campaign`) for ``P_rare`` instead. Every qrels topic is scored (a
    topic the system did not retrieve for scores on an empty ranking, as ``pt.Experiment``
    scores ir_measures' measures). The measure's name (its column in ``pt.Experiment``)
    is ``name``, default ``text``.

    Examples
    --------
    >>> import ir_measures, pandas as pd
    >>> from irmeta.pyterrier import measure
    >>> prior = pd.DataFrame({"qid": ["1"], "docno": ["d1"], "score": [1.0]})
    >>> nrg = measure("NRG@10", prior=prior)
    >>> qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"],
    ...                       "relevance": [1, 1]})
    >>> run = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["d1", "d2"],
    ...                     "score": [2.0, 1.0]})
    >>> nrg, round(ir_measures.calc_aggregate([nrg], qrels, run)[nrg], 4)
    (NRG@10, 0.6309)
    """
    ir_measures = require("ir_measures", "irmeta.pyterrier.measure")
    parsed = parse_measures(text)
    if len(parsed) != 1:
        raise ParameterError(f"irmeta.pyterrier.measure: {text!r} names {len(parsed)} "
                             "measures; give one")
    wanted = parsed[0]
    priors = load_runs(prior) if prior is not None else []
    taken = {r.name for r in priors}
    scored = "scored"
    while scored in taken:
        scored = "_" + scored

    def impl(qrels: Any, run: Any) -> Iterable[tuple[str, float]]:
        q = load_qrels(qrels[["query_id", "doc_id", "relevance"]])
        runs = [*priors, *load_runs([run[["query_id", "doc_id", "score"]]], [scored])]
        campaign = build_campaign(q, runs, warn_dropped=False)
        res = evaluate(campaign, measures=[wanted], complete=True, rel_level=rel_level,
                       reference=reference)
        r = campaign.runs.index(scored)
        return [(t, float(res.values[r, 0, i])) for i, t in enumerate(campaign.topics)]

    obj = ir_measures.define(impl, name=name or text, support_cutoff=False)
    obj.irmeta_measure = wanted
    return obj


def _systems(systems: Any, names: Sequence[str] | None, topics: Any) -> tuple[list[Any], list[str]]:
    if isinstance(systems, Mapping):
        if names is not None:
            raise ParameterError(f"{FN}: names come from the dict of systems; drop names=")
        names = [str(k) for k in systems]
        systems = list(systems.values())
    elif not isinstance(systems, (list, tuple)) or not systems:
        raise ParameterError(f"{FN}: retr_systems must be a non-empty list or dict of systems")
    if names is not None:
        if len(names) != len(systems):
            raise ParameterError(f"{FN}: {len(names)} names for {len(systems)} systems")
        names = [str(n) for n in names]
    else:
        names = [str(s) for s in systems]
        ok = all(n and not any(c.isspace() for c in n) for n in names)
        if not ok or len(set(names)) != len(names):
            names = [f"run{i + 1}" for i in range(len(systems))]
    frames = [s if is_frame(s) or not callable(getattr(s, "transform", None))
              else s.transform(topics) for s in systems]
    return frames, list(names)


def _baseline(baseline: int | str | None, names: list[str]) -> int | None:
    if baseline is None:
        return None
    if isinstance(baseline, str):
        if baseline not in names:
            raise ParameterError(f"{FN}: unknown baseline {baseline!r} (systems: "
                                 f"{', '.join(names)})")
        return names.index(baseline)
    if isinstance(baseline, bool) or not isinstance(baseline, (int, np.integer)) \
            or not 0 <= baseline < len(names):
        raise ParameterError(f"{FN}: baseline must be a system's position (0 to "
                             f"{len(names) - 1}) or name, got {baseline!r}")
    return int(baseline)


def _check_options(correction: Any, alpha: Any, digits: Any, rel_level: Any) -> None:
    """The arguments the CLI would check, checked alike: a :class:`ParameterError` naming
    the argument (``round=-1`` printed every mean as 0.0, ``correction_alpha=2`` rejected
    every hypothesis)."""
    if correction is not None and (not isinstance(correction, str)
                                   or correction.lower() not in CORRECTIONS):
        names = ", ".join(sorted(set(CORRECTIONS.values())))
        raise ParameterError(f"{FN}: correction must be None or a method of statsmodels' "
                             f"multipletests ({names}), got {correction!r}")
    PROBABILITY.check(alpha, "correction_alpha", FN)
    REL_LEVEL.check(rel_level, "rel_level", FN)
    if isinstance(digits, Mapping):
        for column, value in digits.items():
            DIGITS.check(value, f"round[{column!r}]", FN)
    elif digits is not None:
        DIGITS.check(digits, "round", FN)


def _test(test: Any) -> Callable[..., Any]:
    from scipy import stats
    if test == "t":
        return stats.ttest_rel
    if test == "wilcoxon":
        return stats.wilcoxon
    if callable(test):
        return test  # type: ignore[no-any-return]
    raise ParameterError(f"{FN}: test must be 't', 'wilcoxon' or a function, got {test!r}")


def _qrels_frame(qrels: Any, topics: Any, by_topics: bool) -> Any:
    """The qrels as one ir_measures frame, restricted to the topics' qids
    (``filter_by_topics``, as pt.Experiment)."""
    frame = load_qrels(qrels).to_frame()
    if by_topics and topics is not None and "qid" in getattr(topics, "columns", ()):
        qids = {str(q) for q in topics["qid"]}
        frame = frame[frame["query_id"].isin(qids)]
        if not len(frame):
            raise ParameterError(f"{FN}: no qid of the topics is in the qrels")
    return frame


def _measures(items: Any) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]], list[str]]:
    """(column, irmeta measure) pairs, (column, run-time ir_measures object) pairs, and
    the columns in the given order; columns are named as pt.Experiment names them."""
    if isinstance(items, str) or not isinstance(items, Iterable):
        items = [items]
    irmeta_items: list[tuple[str, Any]] = []
    runtime: list[tuple[str, Any]] = []
    columns: list[str] = []
    for item in items:
        if is_ir_measures_object(item) and hasattr(item, "runtime_impl"):
            runtime.append((str(item), item))
            columns.append(str(item))
            continue
        parsed = parse_measures([item])
        if is_ir_measures_object(item):
            named = [(str(item), parsed[0])]
        elif isinstance(item, str) and len(parsed) == 1:
            named = [(item, parsed[0])]
        else:
            named = [(m.display, m) for m in parsed]
        for col, m in named:
            if col in columns:
                raise ParameterError(f"{FN}: measure {col!r} is given twice")
            irmeta_items.append((col, m))
            columns.append(col)
    if not columns:
        raise ParameterError(f"{FN}: eval_metrics is empty")
    return irmeta_items, runtime, columns


def _runtime_values(obj: Any, qrels: Any, frames: list[Any], topics: list[str]) -> np.ndarray:
    """systems x topics of an ir_measures measure computed per system (NaN where it
    gives no value)."""
    import pandas as pd
    ir_measures = require("ir_measures", FN)
    out = np.full((len(frames), len(topics)), np.nan)
    where = {t: i for i, t in enumerate(topics)}
    for s, frame in enumerate(frames):
        run = load_runs([frame], ["run"])[0].to_frame()
        for metric in ir_measures.iter_calc([obj], pd.DataFrame(qrels), run):
            i = where.get(str(metric.query_id))
            if i is not None:
                out[s, i] = metric.value
    return out


_SUMS = {"num_q", "num_rel", "num_ret", "num_rel_ret", "NumQ", "NumRel", "NumRet",
         "NumRelRet"}


def _means(values: np.ndarray, column: str) -> np.ndarray:
    """pt.Experiment's aggregate: the sum over topics divided by their number (a sum
    for the counts); a NaN topic value makes the mean NaN, as there."""
    total = values.sum(axis=1)
    return total if column in _SUMS else total / max(values.shape[1], 1)


def _rounded(values: np.ndarray, column: str, digits: Any) -> np.ndarray:
    if isinstance(digits, Mapping):
        if column not in digits:
            return values
        digits = digits[column]
    return np.array([builtins.round(float(v), int(digits)) for v in values])


def _table(names: list[str], columns: list[str], means: dict[str, np.ndarray],
           per_query: dict[str, np.ndarray], base: int | None, test_fn: Callable[..., Any],
           correction: str | None, alpha: float) -> Any:
    import pandas as pd
    table = pd.DataFrame({"name": names, **{c: means[c] for c in columns}})
    if base is None:
        return table
    for c in columns:
        b = per_query[c][base]
        plus = np.full(len(names), np.nan)
        minus = np.full(len(names), np.nan)
        p = np.full(len(names), np.nan)
        for i in range(len(names)):
            if i == base:
                continue
            v = per_query[c][i]
            plus[i] = int((v > b).sum())
            minus[i] = int((v < b).sum())
            p[i] = test_fn(v, b)[1]
        table[f"{c} +"] = plus
        table[f"{c} -"] = minus
        table[f"{c} p-value"] = p
        if correction is not None:
            multitest = require("statsmodels.stats.multitest", f"{FN}(correction=...)")
            others = np.delete(p, base)
            reject, corrected, _, _ = multitest.multipletests(others, alpha=alpha,
                                                              method=correction)
            table[f"{c} reject"] = np.insert(reject, base, False)
            table[f"{c} p-value corrected"] = np.insert(corrected, base, np.nan)
    return table


def _per_query(names: list[str], columns: list[str], per_query: dict[str, np.ndarray],
               topics: list[str], digits: Any) -> Any:
    import pandas as pd
    rows = [(n, t, c, float(per_query[c][i, k])) for i, n in enumerate(names)
            for k, t in enumerate(topics) for c in columns]
    frame = pd.DataFrame(rows, columns=["name", "qid", "measure", "value"])
    if isinstance(digits, int):
        frame["value"] = frame["value"].round(digits)
    return frame.sort_values(["name", "qid"], kind="stable").reset_index(drop=True)


__all__ = ["Experiment", "measure"]
