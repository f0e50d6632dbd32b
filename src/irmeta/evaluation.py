"""``evaluate``: measures of every run of a campaign, per topic and aggregated.

Topic sets (``docs/conventions.md``): by default each run is evaluated on the topics
that appear both in it and in the qrels (trec_eval 9.x); with ``complete=True`` on
every qrels topic, a missing topic being scored on an empty ranking (trec_eval ``-c``).
:meth:`Results.matrix` instead uses the *campaign topic set* — every qrels topic with
at least one relevant document — for all runs, as analyses need one topic set.

Aggregation over the evaluated topics: arithmetic mean (NaN values, i.e. undefined
topics, left out) for ordinary measures; sum for the counts ``num_ret``, ``num_rel``,
``num_rel_ret``; count for ``num_q``; for ``GMAP`` the geometric mean with trec_eval's
floor of 1e-5 on each value.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from irmeta import validate
from irmeta.data.campaign import Campaign
from irmeta.data.checks import require_campaign, require_common_topics
from irmeta.data.tables import Run, is_frame
from irmeta.errors import IrmetaError, ParameterError
from irmeta.io.load import load_campaign
from irmeta.measures.parse import parse_measures
from irmeta.measures.spec import EvalContext, Measure
from irmeta.options import ReadOptions, ScoreOptions, WorkOptions

if TYPE_CHECKING:
    import pandas as pd

    from irmeta.shards.summary import CampaignSummary

GMEAN_FLOOR = 1e-5
#: the C library's log, one value at a time (see :func:`aggregate_values`)
_LIBM_LOG = np.frompyfunc(math.log, 1, 1)


def _seqsum(x: np.ndarray) -> np.ndarray:
    """Row sums accumulated in topic order, as trec_eval averages."""
    return np.cumsum(x, axis=1)[:, -1] if x.shape[1] else np.zeros(x.shape[0])


def aggregate_values(values: np.ndarray, evaluated: np.ndarray, kind: str) -> np.ndarray:
    """Aggregate ``values[R, T]`` over the evaluated topics of each run -> [R]."""
    v = np.where(evaluated, values, np.nan)
    with np.errstate(all="ignore"):
        if kind == "count":
            counts: np.ndarray = evaluated.sum(axis=1).astype(np.float64)
            return counts
        if kind == "sum":
            sums: np.ndarray = np.nansum(v, axis=1)
            return sums
        defined = evaluated & ~np.isnan(values)
        n = defined.sum(axis=1)
        if kind == "gmean":
            # trec_eval's gm_map: libm log of each value floored at 1e-5, summed in topic
            # order, libm exp of the mean. math.log/math.exp call the C library one value
            # at a time; NumPy's SIMD log/exp differ from it in the last bit, and by CPU
            # (3 of 63 DL21 runs). The values are runs x topics: cheap.
            floored = np.maximum(np.where(defined, values, 1.0), GMEAN_FLOOR)
            logs = np.where(defined, np.asarray(_LIBM_LOG(floored), np.float64), 0.0)
            means = _seqsum(logs) / np.maximum(n, 1)
            out = np.array([math.exp(x) for x in means.tolist()], dtype=np.float64)
        else:
            out = _seqsum(np.where(defined, values, 0.0)) / np.maximum(n, 1)
        return np.where(n > 0, out, np.nan)


@dataclass
class Results:
    """Per-topic values of measures for the runs of a campaign.

    ``campaign`` is the :class:`Campaign`, or, after a sharded evaluation
    (``docs/scaling.md``), a :class:`~irmeta.shards.summary.CampaignSummary`: run and
    topic names, ranking lengths and qrels grades, all that the methods below read.
    ``values[r, m, t]``: measure m of run r on topic t, computed for every (run, topic)
    (a topic absent from a run is scored on an empty ranking); ``evaluated[r, t]``
    says which topics count for run r (see module doc). ``means[r, m]`` aggregates
    over them.
    """

    campaign: Campaign | CampaignSummary   # a summary after a sharded evaluation
    measures: list[Measure]
    values: np.ndarray
    evaluated: np.ndarray
    rel_level: int = 1
    context: EvalContext | None = None
    #: ``{measure position: runs x topics strings}`` of the text measures (relstring) of
    #: a sharded evaluation, gathered from the shards (in memory they are computed from
    #: the campaign on demand)
    texts: dict[int, list[list[str]]] | None = None

    def __repr__(self) -> str:
        """A summary (never the arrays): ``Results(30 runs [a, b, c, ...] x 2 measures
        [AP, P@10] x 50 topics, rel_level=1, in memory)``."""
        from irmeta.data.campaign import names_text
        shards = getattr(self.campaign, "shards", None)
        where = ("in memory" if shards is None
                 else f"sharded ({shards} shard{'' if shards == 1 else 's'})")
        return (f"Results({names_text(self.runs, 'run')} x "
                f"{names_text(tuple(self.names), 'measure', shown=4)} x "
                f"{len(self.topics):,} topics, rel_level={self.rel_level}, {where})")

    @property
    def runs(self) -> tuple[str, ...]:
        """The run names, in the campaign's order (the first axis of ``values``)."""
        return self.campaign.runs

    @property
    def topics(self) -> tuple[str, ...]:
        """The campaign's topics, sorted (the last axis of ``values``)."""
        return self.campaign.topics

    @property
    def names(self) -> list[str]:
        """Printed names of the measures (the user's spelling of trec_eval names)."""
        return [m.display for m in self.measures]

    def _index(self, measure: str | Measure | int, func: str = "Results") -> int:
        """Position of ``measure``: its index, a :class:`Measure` or its name."""
        if not isinstance(measure, (str, Measure)):
            if isinstance(measure, bool) or not isinstance(measure, (int, np.integer)):
                raise ParameterError(f"{func}: measure must be a measure name, a Measure or "
                                     f"an index, got {measure!r}")
            return validate.integer(measure, "measure", func, low=0, high=len(self.measures) - 1)
        if isinstance(measure, Measure):
            for i, m in enumerate(self.measures):
                if m == measure:
                    return i
            measure = measure.display
        for i, m in enumerate(self.measures):
            if measure in (m.display, m.name):
                return i
        raise ParameterError(f"{func}: no measure {measure!r} (have: {', '.join(self.names)})")

    @property
    def means(self) -> np.ndarray:
        """float64 [R, M]: each measure aggregated over each run's evaluated topics."""
        out = np.empty((len(self.runs), len(self.measures)))
        for j, m in enumerate(self.measures):
            out[:, j] = aggregate_values(self.values[:, j], self.evaluated,
                                         m.definition.aggregate)
        return out

    def text(self, measure: str | Measure | int) -> list[list[str]]:
        """runs x topics strings of a measure printed as text (trec_eval ``relstring``)."""
        j = self._index(measure, "Results.text")
        m = self.measures[j]
        if m.definition.text is None:
            raise ParameterError(f"Results.text: {m.display} is a number, not a text measure")
        if self.texts is not None and j in self.texts:
            return self.texts[j]
        if not isinstance(self.campaign, Campaign):  # pragma: no cover - shards send texts
            raise ParameterError("Results.text: a sharded evaluation keeps no rankings; "
                                 f"evaluate {m.display} in memory (docs/scaling.md)")
        rows: list[list[str]] = m.definition.text(self.campaign, m,
                                                  self.context or EvalContext())
        return rows

    def aggregate(self, aggregator: str = "mean") -> pd.DataFrame:
        """runs x measures table of aggregated values.

        ``aggregator``: ``mean`` (the measure's own aggregation: mean, sums for counts),
        ``gmean`` (geometric mean with a 1e-5 floor), or any aggregator accepted by
        :func:`irmeta.aggregate.aggregate_matrix` (``gawm(...)``, ``hits``), which
        works on the campaign-topic-set matrix.

        Parameters
        ----------
        aggregator : str
            ``mean``, ``gmean``, ``hits`` or ``gawm(...)``.

        Returns
        -------
        pandas.DataFrame
            runs x measures.

        Examples
        --------
        >>> import irmeta
        >>> from irmeta.demo import toy_inputs
        >>> results = irmeta.evaluate(*toy_inputs(), measures=["AP", "P@2"])
        >>> results.aggregate("gmean").round(4)
               AP     P@2
        A  0.9129  0.5000
        B  0.0016  0.0022
        """
        if not isinstance(aggregator, str):
            raise ParameterError(f"Results.aggregate: aggregator must be a string such as "
                                 f"'mean', 'gmean', 'hits' or 'gawm(...)', got {aggregator!r}")
        import pandas as pd  # on use: evaluating files needs no pandas
        if aggregator == "mean":
            return pd.DataFrame(self.means, index=list(self.runs), columns=self.names)
        if aggregator == "gmean":
            data = np.column_stack([aggregate_values(self.values[:, j], self.evaluated, "gmean")
                                    for j in range(len(self.measures))])
            return pd.DataFrame(data, index=list(self.runs), columns=self.names)
        from irmeta.aggregate import aggregate_matrix  # noqa: PLC0415 (a lower layer, loaded on use)
        cols = {name: aggregate_matrix(self.matrix(i), aggregator)
                for i, name in enumerate(self.names)}
        return pd.DataFrame(cols).reindex(list(self.runs))

    def to_frame(self, per_topic: bool = True, aggregate: bool = True) -> pd.DataFrame:
        """Long table ``run, measure, topic, value``; the aggregate has topic ``all``.

        Parameters
        ----------
        per_topic : bool
            Include one row per evaluated (run, measure, topic).
        aggregate : bool
            Include the aggregate rows (topic ``all``).

        Returns
        -------
        pandas.DataFrame
            Columns ``run, measure, topic, value``.

        Examples
        --------
        >>> import irmeta
        >>> from irmeta.demo import toy_inputs
        >>> results = irmeta.evaluate(*toy_inputs(), measures="AP")
        >>> results.to_frame(per_topic=False)
          run measure topic     value
        0   A      AP   all  0.916667
        1   B      AP   all  0.125000
        """
        per_topic = validate.flag(per_topic, "per_topic", "Results.to_frame")
        aggregate = validate.flag(aggregate, "aggregate", "Results.to_frame")
        import pandas as pd
        parts = []
        R, M, T = self.values.shape
        if per_topic:
            r, m, t = np.nonzero(np.broadcast_to(self.evaluated[:, None, :], (R, M, T)))
            parts.append(pd.DataFrame({
                "run": np.asarray(self.runs, dtype=object)[r],
                "measure": np.asarray(self.names, dtype=object)[m],
                "topic": np.asarray(self.topics, dtype=object)[t],
                "value": self.values[r, m, t]}))
        if aggregate:
            means = self.means
            rr, mm = np.meshgrid(np.arange(R), np.arange(M), indexing="ij")
            parts.append(pd.DataFrame({
                "run": np.asarray(self.runs, dtype=object)[rr.ravel()],
                "measure": np.asarray(self.names, dtype=object)[mm.ravel()],
                "topic": "all", "value": means.ravel()}))
        if not parts:
            return pd.DataFrame(columns=["run", "measure", "topic", "value"])
        return pd.concat(parts, ignore_index=True)

    def to_ir_measures(self, run: str | None = None,
                       aggregate: bool = False) -> list[Any] | dict[Any, float]:
        """The values of one run as ir_measures gives them (``docs/ecosystem.md``).

        ``aggregate=False``: a list of ``ir_measures.Metric(query_id, measure, value)``, one
        per measure and evaluated topic (the rows of ``ir_measures.iter_calc``);
        ``aggregate=True``: ``{measure: value}`` (the dict of ``ir_measures.calc_aggregate``).
        ``measure`` is the ir_measures object when ir_measures names the same measure
        (``nDCG@10``), else irmeta's name (``NRG@10``). ``run``: the run's name, needed
        when the results hold several runs.

        Examples
        --------
        >>> import irmeta
        >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
        >>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}}
        >>> rows = irmeta.evaluate(qrels, run, ["AP", "NRG@10"]).to_ir_measures()
        >>> rows[0]   # doctest: +SKIP
        Metric(query_id='q1', measure=AP, value=0.8333333333333333)
        >>> [(r.query_id, str(r.measure), round(r.value, 4)) for r in rows]
        [('q1', 'AP', 0.8333), ('q2', 'AP', 1.0), ('q1', 'NRG@10', 0.7602), ('q2', 'NRG@10', 1.0)]
        """
        fn = "Results.to_ir_measures"
        aggregate = validate.flag(aggregate, "aggregate", fn)
        r = self._run_index(run, fn)
        from irmeta.io.ecosystem import require
        ir_measures = require("ir_measures", fn)
        measures = [_ir_measure(ir_measures, m) for m in self.measures]
        if aggregate:
            return dict(zip(measures, (float(v) for v in self.means[r])))
        topics = [t for t, ok in zip(self.topics, self.evaluated[r]) if ok]
        cols = np.flatnonzero(self.evaluated[r])
        return [ir_measures.Metric(query_id=t, measure=measures[j],
                                   value=float(self.values[r, j, c]))
                for j in range(len(measures)) for t, c in zip(topics, cols)]

    def to_dict(self, per_topic: bool = False) -> dict[str, dict[str, Any]]:
        """``{run: {measure: mean}}``, or with ``per_topic`` ``{run: {measure: {topic:
        value}}}`` over each run's evaluated topics — the shape of ranx's ``mean_scores``
        / ``scores`` per run, with irmeta's measure names.

        Examples
        --------
        >>> import irmeta
        >>> from irmeta.demo import toy_inputs
        >>> qrels, runs = toy_inputs()
        >>> irmeta.evaluate(qrels, runs, ["P@2"]).to_dict()
        {'A': {'P@2': 0.5}, 'B': {'P@2': 0.25}}
        >>> irmeta.evaluate(qrels, runs, ["P@2"]).to_dict(per_topic=True)["B"]
        {'P@2': {'q1': 0.5, 'q2': 0.0}}
        """
        per_topic = validate.flag(per_topic, "per_topic", "Results.to_dict")
        out: dict[str, dict[str, Any]] = {}
        means = self.means
        for r, run in enumerate(self.runs):
            if per_topic:
                cols = np.flatnonzero(self.evaluated[r])
                out[run] = {name: {self.topics[c]: float(self.values[r, j, c]) for c in cols}
                            for j, name in enumerate(self.names)}
            else:
                out[run] = {name: float(means[r, j]) for j, name in enumerate(self.names)}
        return out

    def _repr_html_(self) -> str:
        """A compact HTML table of the means (runs x measures) for notebooks; names are
        escaped; at most :data:`HTML_ROWS` runs are shown (the first ones, then a note)."""
        import html
        means = self.means
        shown = min(len(self.runs), HTML_ROWS)
        head = "".join(f"<th>{html.escape(n)}</th>" for n in self.names)
        rows = []
        for r in range(shown):
            cells = "".join(f"<td>{_html_number(v)}</td>" for v in means[r])
            rows.append(f"<tr><th>{html.escape(self.runs[r])}</th>{cells}</tr>")
        if shown < len(self.runs):
            rows.append(f'<tr><td colspan="{len(self.names) + 1}">... '
                        f"{len(self.runs) - shown:,} more runs (Results.aggregate() has "
                        "all)</td></tr>")
        return (f'<table class="irmeta-results"><caption>{html.escape(repr(self))}</caption>'
                f"<thead><tr><th>run</th>{head}</tr></thead>"
                f"<tbody>{''.join(rows)}</tbody></table>")

    def _run_index(self, run: str | None, fn: str) -> int:
        if run is None:
            if len(self.runs) != 1:
                raise ParameterError(f"{fn}: the results hold {len(self.runs)} runs; name one "
                                     f"with run= (one of {', '.join(self.runs[:10])})")
            return 0
        if run not in self.runs:
            raise ParameterError(f"{fn}: no run {run!r} (have: {', '.join(self.runs[:10])})")
        return self.runs.index(run)

    def wide(self, measure: str | Measure | int, evaluated_only: bool = True) -> pd.DataFrame:
        """runs x topics values of one measure (NaN where a topic is not evaluated).

        Parameters
        ----------
        measure : str, Measure or int
            The measure (name, object or position).
        evaluated_only : bool
            NaN where a topic is not evaluated for a run.

        Returns
        -------
        pandas.DataFrame
            runs x topics.

        Examples
        --------
        >>> import irmeta
        >>> from irmeta.demo import toy_inputs
        >>> irmeta.evaluate(*toy_inputs(), measures="AP").wide("AP")
                 q1   q2
        A  0.833333  1.0
        B  0.250000  0.0
        """
        j = self._index(measure, "Results.wide")
        evaluated_only = validate.flag(evaluated_only, "evaluated_only", "Results.wide")
        v = self.values[:, j]
        if evaluated_only:
            v = np.where(self.evaluated, v, np.nan)
        import pandas as pd
        return pd.DataFrame(v, index=list(self.runs), columns=list(self.topics))

    def matrix(self, measure: str | Measure | int) -> pd.DataFrame:
        """systems x topics matrix of one measure over the campaign topic set (topics
        with a relevant document); every run scored on every such topic.

        A CampaignError when that set is empty or no run has any of its topics
        (:mod:`irmeta.data.checks`): every analysis of the matrix would be meaningless.

        Parameters
        ----------
        measure : str, Measure or int
            The measure (name, object or position).

        Returns
        -------
        pandas.DataFrame
            systems x topics, index named ``run``, columns named ``topic``.

        Examples
        --------
        >>> import irmeta
        >>> from irmeta.demo import toy_inputs
        >>> irmeta.evaluate(*toy_inputs(), measures="P@2").matrix("P@2")
        topic   q1   q2
        run
        A      0.5  0.5
        B      0.5  0.0
        """
        j = self._index(measure, "Results.matrix")
        keep = require_campaign(self.campaign, self.rel_level, "campaign topic set")
        import pandas as pd
        frame = pd.DataFrame(self.values[:, j][:, keep], index=list(self.runs),
                             columns=list(np.asarray(self.topics, dtype=object)[keep]))
        frame.index.name = "run"
        frame.columns.name = "topic"
        return frame


#: runs shown by :meth:`Results._repr_html_`
HTML_ROWS = 60


def _html_number(value: float) -> str:
    return "NaN" if np.isnan(value) else f"{value:.4f}"


def _ir_measure(ir_measures: Any, measure: Measure) -> Any:
    """The ir_measures object naming exactly ``measure``, else irmeta's name."""
    try:
        obj = ir_measures.parse_measure(measure.display)
    except Exception:   # not ir_measures syntax: a trec_eval name (map), or unknown (NRG)
        try:
            found = ir_measures.parse_trec_measure(measure.display)
        except Exception:
            found = []
        if len(found) != 1:
            return measure.display
        obj = found[0]
    try:
        same = parse_measures([obj]) == [measure]
    except IrmetaError:
        same = False
    return obj if same else measure.display


def compute(campaign: Campaign, measures: str | Measure | Iterable[str | Measure],
            ctx: EvalContext | None = None) -> tuple[list[Measure], np.ndarray]:
    """Raw kernel values ``[R, M, T]`` of parsed measures for every run and topic."""
    ms = parse_measures(validate.measure_list(measures, "evaluate"))
    ctx = ctx or EvalContext()
    out = np.empty((campaign.num_runs, len(ms), campaign.num_topics))
    judged = None
    for j, m in enumerate(ms):
        source = campaign
        if m.get("judged_only"):  # ir_measures' judged_only=True: the -J campaign
            judged = campaign.judged_only() if judged is None else judged
            source = judged
        out[:, j] = m.definition.kernel(source, m, ctx)
    return ms, out


#: keyword arguments of :func:`evaluate` that other functions forward with a Campaign
CONTEXT_ARGS = ("complete", "groups", "reference", "prior_runs")
#: arguments that shape how files are read; they cannot apply to a built Campaign
_READING_ARGS = {"max_docs": None, "names": None, "float32": False, "dedupe": False,
                 "subtopic_qrels": None}
#: what ``runs`` may be (one of them, or a list / tuple / dict of them)
_RUN_KINDS = (str, os.PathLike, Mapping, list, tuple, Run)   # or a DataFrame (is_frame)


def _irds_qrels(qrels: Any) -> Any:
    """``irds:<id>`` qrels as their local TREC file (so that a sharded evaluation can
    partition them) or, for qrels ir_datasets does not keep as a TREC file, as read
    :class:`Qrels`; any other qrels unchanged (``docs/ecosystem.md``)."""
    from irmeta.io import ecosystem
    if not ecosystem.is_irds(qrels):
        return qrels
    path = ecosystem.irds_qrels_path(qrels)
    return path if path is not None else ecosystem.irds_qrels(qrels)


def _refuse_irds_runs(runs: Any, fn: str) -> None:
    """A sharded evaluation partitions run files; an ``irds:`` run (a dataset's
    scoreddocs) is read in memory only."""
    from irmeta.io.ecosystem import is_irds
    items = runs if isinstance(runs, (list, tuple)) else [runs]
    bad = [item for item in items if is_irds(item)]
    if bad:
        raise ParameterError(f"{fn}: a sharded evaluation reads run files; {bad[0]} (an "
                             "ir_datasets scoreddocs run) is read in memory only: evaluate "
                             "without shard_topics / client (docs/ecosystem.md)")


def _is_ecosystem_run(runs: Any) -> bool:
    """A ranx ``Run`` or an iterator of ``ScoredDoc`` rows (:mod:`irmeta.io.ecosystem`)."""
    from irmeta.io.ecosystem import is_ranx, is_rows
    return is_ranx(runs, "Run") or is_rows(runs, "run")


def evaluate(qrels: Any, runs: Any = None,
             measures: str | Measure | Iterable[str | Measure] = ("AP", "P@10", "nDCG@10"), *,
             complete: bool = False, rel_level: int = 1, max_docs: int | None = None,
             names: Sequence[str] | None = None, float32: bool = False, dedupe: bool = False,
             groups: Mapping[str, str] | str | os.PathLike[str] | None = None,
             reference: Campaign | None = None,
             prior_runs: Iterable[str] | None = None, subtopic_qrels: Any = None,
             judged_only: bool = False, collection_size: int = 0,
             memory_budget: Any = None, shard_topics: int | None = None, client: Any = None,
             spill_dir: Any = None) -> Results:
    """Evaluate runs against qrels.

    ``qrels``: a path, DataFrame, dict or :class:`~irmeta.data.tables.Qrels` — or an
    already built :class:`~irmeta.data.campaign.Campaign` (then ``runs`` is None, and
    ``max_docs``, ``names``, ``float32``, ``dedupe`` — which say how files are read —
    are errors: give them to :func:`irmeta.load_campaign`).
    ``runs``: a path, DataFrame, dict, or a list of those. Both also take the IR
    ecosystem's forms (``docs/ecosystem.md``): ``"irds:<id>"`` (ir_datasets), PyTerrier
    frames (``qid, docno, label`` / ``qid, docno, score``), ``qrels_iter()`` /
    ``ScoredDoc`` rows, ranx ``Qrels`` / ``Run``. ``measures``: one measure
    string or a list of them (``"AP"``, ``"P@10"``, ``"map"``, ``"ndcg_cut.10,20"`` ...).
    ``complete``: score every qrels topic (trec_eval ``-c``). ``rel_level``: binary
    relevance threshold (``-l``). ``max_docs``: keep the top ``max_docs`` documents per
    topic (``-M``). ``float32``: read scores as 32-bit floats (trec_eval 9.x ties).
    ``groups``, ``reference``, ``prior_runs``: context for the cross-run measures;
    ``groups`` is ``{run: group}`` or the path of a groups file (``run group`` lines,
    :func:`irmeta.read_groups`, the CLI's ``--groups FILE``).
    ``subtopic_qrels``: diversity judgments (``topic subtopic docid grade``) for the
    diversity measures (``docs/diversity.md``); with them ``qrels`` may be None.
    ``measures`` may also hold ``ir_measures`` measure objects (``ir_measures.ERR@20``).
    ``judged_only``: drop unjudged documents from every ranking first (trec_eval ``-J``;
    :meth:`~irmeta.data.campaign.Campaign.judged_only`); the topics evaluated stay those
    the run retrieved for. ``collection_size``: documents in the collection (trec_eval
    ``-N``, read by ``utility``).

    Campaigns larger than memory (``docs/scaling.md``): when the run files would need
    more than ``memory_budget`` (bytes or ``"4G"``; default half the available memory),
    or ``shard_topics`` (topics per shard) or a ``dask.distributed`` ``client`` is
    given, or ``qrels`` is a Parquet campaign folder (``irmeta convert``; ``runs`` None),
    the campaign is evaluated shard by shard (:mod:`irmeta.shards`), with the same
    values; ``spill_dir`` holds the partitioned files. The Results then hold a
    :class:`~irmeta.shards.summary.CampaignSummary` instead of the campaign.

    The arguments are checked once, into the frozen option values of
    :mod:`irmeta.options` (``ReadOptions``, ``ScoreOptions``, ``WorkOptions``) that the
    in-memory and sharded paths take whole (``docs/scaling.md``).
    Bad arguments raise :class:`~irmeta.errors.ParameterError` (see
    ``docs/conventions.md``, "The Python API: errors").
    Without ``complete``, a campaign where no run shares a topic with the qrels is a
    :class:`~irmeta.errors.CampaignError` (nothing would be evaluated); with it, every
    qrels topic is scored on an empty ranking, as ``trec_eval -c`` does.

    Parameters
    ----------
    qrels : path, DataFrame, dict, Qrels or Campaign
        The judgments, or a built campaign (then ``runs`` is None).
    runs : path, DataFrame, dict, or a list of those
        The runs to evaluate.
    measures : str, Measure or a sequence of them
        Measure strings in ir_measures or trec_eval syntax.

    Returns
    -------
    Results
        Per-topic values ``[runs, measures, topics]`` and their aggregates.

    Examples
    --------
    >>> import irmeta
    >>> from irmeta.demo import toy_inputs
    >>> results = irmeta.evaluate(*toy_inputs(), measures=["AP", "P@2"])
    >>> results.aggregate()
             AP   P@2
    A  0.916667  0.50
    B  0.125000  0.25

    The demo campaign shipped with irmeta (30 simulated runs, 50 topics):

    >>> from irmeta.demo import load_demo_campaign
    >>> demo = irmeta.evaluate(load_demo_campaign(), measures="nDCG@10")
    >>> demo.values.shape
    (30, 1, 50)
    """
    fn = "evaluate"
    if isinstance(qrels, Campaign):
        if runs is not None:
            raise ParameterError(f"{fn}: runs must be None when qrels is a Campaign "
                                 "(the campaign already holds its runs)")
        used = [k for k, v in (("max_docs", max_docs), ("names", names),
                               ("float32", float32), ("dedupe", dedupe),
                               ("subtopic_qrels", subtopic_qrels))
                if v is not _READING_ARGS[k]]
        if used:
            raise ParameterError(f"{fn}: {', '.join(used)} only take effect when reading files; "
                                 "the Campaign is already built (pass them to "
                                 "irmeta.load_campaign instead)")
        if (memory_budget is not None or shard_topics is not None or client is not None
                or spill_dir is not None):
            raise ParameterError(f"{fn}: memory_budget, shard_topics, client and spill_dir "
                                 "apply to files (a sharded evaluation reads them shard by "
                                 "shard); the Campaign is already in memory")
        score = ScoreOptions.checked(fn, complete=complete, rel_level=rel_level,
                                     judged_only=judged_only, collection_size=collection_size,
                                     groups=groups, reference=reference, prior_runs=prior_runs)
        return evaluate_campaign(qrels, measures, score, fn)
    read = ReadOptions.checked(fn, max_docs=max_docs, names=names, float32=float32,
                               dedupe=dedupe, subtopic_qrels=subtopic_qrels)
    score = ScoreOptions.checked(fn, complete=complete, rel_level=rel_level,
                                 judged_only=judged_only, collection_size=collection_size,
                                 groups=groups, reference=reference, prior_runs=prior_runs)
    work = WorkOptions.checked(fn, memory_budget=memory_budget, shard_topics=shard_topics,
                               client=client, spill_dir=spill_dir)
    from irmeta.shards.route import sharded_plan  # noqa: PLC0415 (same layer, on use)
    qrels = _irds_qrels(qrels)
    if work.asks_for_shards:
        _refuse_irds_runs(runs, fn)
    plan = sharded_plan(qrels, runs, work, subtopic_qrels=subtopic_qrels)
    if plan is not None:
        return evaluate_in_shards(qrels, runs, measures, plan, read, score, work)
    if runs is None:
        raise ParameterError(f"{fn}: runs is required unless a Campaign is given")
    if qrels is None and subtopic_qrels is None:
        raise ParameterError(f"{fn}: qrels is required (or subtopic_qrels to derive "
                             "them from)")
    if not (isinstance(runs, _RUN_KINDS) or is_frame(runs) or _is_ecosystem_run(runs)) \
            or isinstance(runs, Campaign):
        raise ParameterError(f"{fn}: runs must be a path, a DataFrame, a dict, a ranx Run, "
                             f"ScoredDoc rows or a list of those, got {type(runs).__name__}")
    if isinstance(runs, (list, tuple)) and not runs:
        raise ParameterError(f"{fn}: runs is an empty list")
    campaign = load_campaign(qrels, runs, names=read.names, max_docs=read.max_docs,
                             float32=read.float32, dedupe=read.dedupe,
                             subtopic_qrels=read.subtopic_qrels)
    return evaluate_campaign(campaign, measures, score, fn)


def evaluate_campaign(campaign: Campaign, measures: Any, score: ScoreOptions,
                      fn: str = "evaluate") -> Results:
    """:func:`evaluate` of a campaign in memory, with checked :class:`ScoreOptions`."""
    measures = validate.measure_list(measures, fn)
    ctx = EvalContext(rel_level=score.rel_level, groups=score.groups,
                      reference=score.reference, prior_runs=score.prior_runs,
                      collection_size=score.collection_size)
    if not score.complete:
        require_common_topics(campaign, "evaluate")
    evaluated = (np.ones_like(campaign.has_topic) if score.complete
                 else campaign.has_topic.copy())
    if score.judged_only:
        campaign = campaign.judged_only()
    ms, values = compute(campaign, measures, ctx)
    return Results(campaign, ms, values, evaluated, score.rel_level, ctx)


def evaluate_in_shards(qrels: Any, runs: Any, measures: Any, plan: Any,
                       read: ReadOptions | None = None, score: ScoreOptions | None = None,
                       work: WorkOptions | None = None) -> Results:
    """:func:`evaluate` through :mod:`irmeta.shards` with the plan ``plan``
    (:func:`irmeta.shards.route.sharded_plan`) and the options objects of
    :mod:`irmeta.options`, checked where they were built (:func:`evaluate`, the CLI)."""
    from irmeta.shards.local import evaluate_sharded  # noqa: PLC0415 (same layer, on use)
    score = score or ScoreOptions()
    out = evaluate_sharded(qrels, runs, validate.measure_list(measures, "evaluate"),
                           plan=plan, read=read, score=score, work=work)
    summary = out.summary
    if not score.complete:
        require_common_topics(summary, "evaluate")
    evaluated = np.ones_like(summary.has_topic) if score.complete else summary.has_topic.copy()
    return Results(summary, out.measures, out.values, evaluated, score.rel_level,
                   texts=out.texts)


@contextlib.contextmanager
def open_shards(qrels: Any, runs: Any = None, *, memory_budget: Any = None,
                shard_topics: int | None = None, client: Any = None, spill_dir: Any = None,
                max_docs: int | None = None, names: Sequence[str] | None = None,
                float32: bool = False, dedupe: bool = False, split_tags: bool = False,
                progress: bool | None = None, subtopic_qrels: Any = None) -> Iterator[Any]:
    """A campaign read shard by shard, open for a ``with`` block: what
    :func:`irmeta.report.campaign_report` / :func:`~irmeta.report.analyse_campaign` and
    :func:`irmeta.explain_documents`, :func:`~irmeta.unique_contributions`,
    :func:`~irmeta.unique_documents` take in place of a Campaign that would not fit in
    memory (``docs/scaling.md``). Their results are those of the campaign in memory.

    ``qrels`` and ``runs`` are paths (TREC files, partitioned into ``spill_dir``, deleted
    on exit), or ``qrels`` is a Parquet campaign folder (``irmeta convert``) and ``runs``
    None. Shards hold ``shard_topics`` topics, or as many as fit in ``memory_budget``
    (default: half the available memory; a campaign that fits is one shard); ``client``:
    a ``dask.distributed`` Client whose workers evaluate the shards.
    ``subtopic_qrels``: diversity judgments, as for :func:`evaluate` (read once, given to
    every shard; with ``qrels`` None the qrels are derived from them). The other
    arguments say how files are read, as for :func:`evaluate`.

    Examples
    --------
    >>> import irmeta
    >>> from irmeta.demo import demo_paths
    >>> p = demo_paths()
    >>> with irmeta.open_shards(str(p.qrels), [str(r) for r in p.runs],
    ...                         shard_topics=10) as campaign:
    ...     frame = irmeta.unique_contributions(campaign, 10)
    >>> len(frame)
    30
    """
    from irmeta.shards.local import open_sharded  # noqa: PLC0415 (same layer)
    from irmeta.shards.route import sharded_plan  # noqa: PLC0415 (same layer)
    fn = "open_shards"
    if isinstance(qrels, Campaign):
        raise ParameterError(f"{fn}: the Campaign is already in memory; give file paths or "
                             "a Parquet campaign folder")
    read = ReadOptions.checked(fn, max_docs=max_docs, names=names, float32=float32,
                               dedupe=dedupe, split_tags=split_tags,
                               subtopic_qrels=subtopic_qrels)
    work = WorkOptions.checked(fn, memory_budget=memory_budget, shard_topics=shard_topics,
                               client=client, spill_dir=spill_dir, progress=progress)
    qrels = _irds_qrels(qrels)
    _refuse_irds_runs(runs, fn)
    plan = sharded_plan(qrels, runs, work, force=True, subtopic_qrels=subtopic_qrels)
    if plan is None:  # pragma: no cover - force=True always plans shards
        raise ParameterError(f"{fn}: no shard plan for these inputs")
    with open_sharded(qrels, runs, plan=plan, read=read, work=work) as sharded:
        yield sharded
