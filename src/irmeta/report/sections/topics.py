"""The topics-and-systems section, computed (:class:`TopicsSection`): GAWM and HITS on the runs
x topics matrix. Part of :mod:`irmeta.report.analysis` (issue 33, item 0; the layout:
docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from irmeta import validate
from irmeta.aggregate.analyses import HeatmapBars
from irmeta.aggregate.gawm import GAWMResult
from irmeta.aggregate.hits import HITSResult
from irmeta.report.options import ReportOptions
from irmeta.report.sections.common import _no_group, _results_of, _rule, _Source, ranks
from irmeta.report.sections.leaderboard import LeaderboardSection, rank_shift


@dataclass(frozen=True)
class TopicAggregation:
    """GAWM and HITS on a runs x topics matrix.

    ``matrix``: the matrix, topics with an undefined value dropped; ``gawm`` (axioms A,
    arithmetic means), ``hits``; ``map``: per-run mean of the matrix; ``bars``: the heat
    map's orders and side bars (:func:`irmeta.aggregate.analyses.heatmap_bars`).
    ``systems``: per run MAP, GAWM E_s, HITS A(s), W_s, their ranks and ``rank change``
    (the tie-aware shift from MAP to GAWM, :func:`rank_shift`), by GAWM rank; ``topics``:
    per topic the relevant documents, AAP, E_t, W_t, A(t) and the standard deviation over
    runs, by weight. ``moved``: runs whose rank changes; ``tau``: Kendall's tau between
    the MAP and GAWM rankings.
    """

    matrix: pd.DataFrame
    gawm: GAWMResult
    hits: HITSResult
    map: pd.Series
    bars: HeatmapBars
    systems: pd.DataFrame
    topics: pd.DataFrame
    moved: int
    tau: float


@dataclass(frozen=True)
class TopicsSection:
    """The runs x topics matrix of ``measure`` aggregated (``aggregation``), None when
    fewer than 2 runs or topics have defined values. ``measure_rule``: why ``measure``
    (the primary measure unless ``--matrix-measure`` gave another)."""

    measure: str
    aggregation: TopicAggregation | None
    measure_rule: str = ""


def topics(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
           groups: dict, prior: str, context: dict) -> TopicsSection:
    """The :class:`TopicsSection`: GAWM and HITS on the ``matrix_measure`` matrix (from
    the pieces when it is not a leaderboard column)."""
    from irmeta.aggregate import gawm, hits
    from irmeta.aggregate.analyses import heatmap_bars
    from irmeta.measures.parse import parse_measures
    from irmeta.stats import kendall_tau

    c = source.view
    labels = [col.measure for col in board.columns]
    if opts.matrix_measure in labels:
        i = labels.index(opts.matrix_measure)
        name, matrix = board.columns[i].label, results.matrix(i)
    else:   # evaluate(c, [matrix_measure], groups=groups, complete=True), from the pieces
        first = parse_measures(validate.measure_list([opts.matrix_measure], "evaluate"))[0]
        res = _results_of(c, [first], source.pieces.matrix[:, None, :], opts.rel_level)
        name, matrix = first.display, res.matrix(0)
    matrix = matrix.dropna(axis=1, how="any")
    if matrix.shape[0] < 2 or matrix.shape[1] < 2:
        return TopicsSection(name, None, _rule(opts, opts.matrix_measure, "--matrix-measure"))
    # non-convergence is stated in the report (TopicsSection.gawm.converged): no warning
    g = gawm(matrix, "A", "arithmetic", "arithmetic", warn=False)
    h = hits(matrix)
    MAP = matrix.mean(axis=1)
    systems = pd.DataFrame({"run": matrix.index, "group": [groups[r] for r in matrix.index],
                            "MAP": MAP.values, "rank MAP": ranks(MAP).values,
                            "GAWM E_s": g.E_s.values, "rank GAWM": ranks(g.E_s).values,
                            "HITS A(s)": h.authority_s.values,
                            "rank HITS": ranks(h.authority_s).values,
                            "weight W_s": g.W_s.values})
    # tie-aware, as the leaderboard's: the gap between the rank ranges (0 when they overlap)
    systems["rank change"] = rank_shift(pd.Series(MAP.to_numpy(), index=systems.index),
                                        pd.Series(g.E_s.reindex(MAP.index).to_numpy(),
                                                  index=systems.index)).to_numpy()
    systems = _no_group(board.own_groups, systems.sort_values(["rank GAWM", "run"]))
    nrel = pd.Series(c.num_rel(opts.rel_level), index=list(c.topics)).reindex(matrix.columns)
    topic_frame = pd.DataFrame({"topic": matrix.columns, "relevant": nrel.values.astype(int),
                                "AAP": matrix.mean(axis=0).values, "ease E_t": g.E_t.values,
                                "weight W_t": g.W_t.values,
                                "HITS A(t)": h.authority_t.values,
                                "std over runs": matrix.std(axis=0, ddof=0).values})
    topic_frame = topic_frame.sort_values(["weight W_t", "topic"], ascending=[False, True])
    bars = heatmap_bars(matrix, "A", ("arithmetic",), results={"arithmetic": g},
                        hits_result=h)
    return TopicsSection(name, TopicAggregation(
        matrix, g, h, MAP, bars, systems, topic_frame,
        moved=int((systems["rank change"] != 0).sum()),
        tau=kendall_tau(MAP, g.E_s.reindex(MAP.index))),
        _rule(opts, opts.matrix_measure, "--matrix-measure"))
