"""The innovation section, computed (:class:`InnovationSection`): rareness curves over alpha
and the relevant documents few runs found. Part of :mod:`irmeta.report.analysis` (issue 33,
item 0; the layout: docs/report.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from irmeta import validate
from irmeta.errors import ParameterError
from irmeta.report.options import ReportOptions
from irmeta.report.sections.common import _no_group, _results_of, _Source, _sweep_families
from irmeta.report.sections.leaderboard import LeaderboardSection


@dataclass(frozen=True)
class InnovationSection:
    """Rareness and unique documents at cutoff ``rare_cutoff``.

    ``sweep``: :func:`irmeta.stats.alpha_sweep` (``baseline, measure, alpha, kendall,
    tau_ap``); ``lowest_tau``: its smallest Kendall tau per baseline. ``documents``:
    every unique relevant document (:func:`irmeta.explain.unique_documents`).
    ``unique``: one row per run (most unique documents first): ``run``, ``group`` (with
    groups), ``unique`` (count), ``topics`` (with at least one), ``share`` (unique /
    relevant documents the run retrieved in its top K; NaN when it retrieved none),
    ``examples``. ``runs_with_unique``: runs with at least one; ``num_runs``: all runs.
    """

    rare_cutoff: int
    sweep: pd.DataFrame
    lowest_tau: pd.Series
    documents: pd.DataFrame
    unique: pd.DataFrame
    runs_with_unique: int
    num_runs: int


def innovation(source: _Source, opts: ReportOptions, results, board: LeaderboardSection,
               groups: dict, prior: str, context: dict) -> InnovationSection:
    """The :class:`InnovationSection`: rareness curves and unique documents, from the
    pieces (:mod:`irmeta.report.pieces`): the sweep measures' per-topic values, the
    unique documents and their counts per (run, topic)."""
    from irmeta.stats.correlation import sweep_table

    c, pieces, K = source.view, source.pieces, opts.rare_cutoff
    # the sweep's means as irmeta.stats.alpha_sweep takes them (system_means)
    sweep_values = _results_of(c, [_one_measure(m) for m in source.spec.sweep], pieces.sweep,
                               opts.rel_level)
    means = pd.DataFrame({m: sweep_values.matrix(i).mean(axis=1)
                          for i, m in enumerate(source.spec.sweep)})
    alphas = [validate.number(a, "alphas", "alpha_sweep") for a in opts.alphas]
    sweep = sweep_table(means, _sweep_families(K), alphas, ("kendall", "tau_ap"))
    # unique relevant documents: in the run's top K, grade >= rel, no other run's top K
    docs = pieces.documents
    per, found = pieces.unique, pieces.found
    rows = []
    for r, run in enumerate(c.runs):
        total = int(per[r].sum())
        rel_total = int(found[r].sum())
        rows.append({"run": run, "group": groups[run], "unique": total,
                     "topics": int((per[r] > 0).sum()),
                     "share": total / rel_total if rel_total else np.nan,
                     "examples": _examples(c, docs[docs["run"] == run], per[r], opts.examples)
                     if total else ""})
    table = _no_group(board.own_groups, pd.DataFrame(rows).sort_values(
        ["unique", "run"], ascending=[False, True]))
    return InnovationSection(K, sweep, sweep.groupby("baseline")["kendall"].min(), docs,
                             table, int((table["unique"] > 0).sum()), c.num_runs)


def _one_measure(measure: str):
    """The measure a string names (system_means' rule: exactly one)."""
    from irmeta.measures.parse import parse_measures
    parsed = parse_measures(validate.measure_list([measure], "evaluate"))
    if len(parsed) != 1:
        raise ParameterError("system_means: each measure string must name exactly one "
                             f"measure, got {[measure]!r}")
    return parsed[0]


def _examples(c, docs: pd.DataFrame, per_topic: np.ndarray, n: int) -> str:
    """Up to ``n`` topics of one run with most unique documents, per topic up to ``n``
    documents, highest grade first: ``topic T: doc (rank r, grade g), ... +more; ...``."""
    out = []
    for t in np.argsort(-per_topic, kind="stable")[:n]:
        if per_topic[t] == 0:
            break
        dt = docs[docs["topic"] == c.topics[t]].sort_values(["grade", "rank"],
                                                            ascending=[False, True])
        items = ", ".join(f"{x.docid} (rank {x.rank}, grade {x.grade})"
                          for x in dt.head(n).itertuples())
        more = f" +{len(dt) - n}" if len(dt) > n else ""
        out.append(f"topic {c.topics[t]}: {items}{more}")
    return "; ".join(out)
