"""What the campaign report takes from the rankings, as per-topic pieces.

Beyond the score matrices of its measures, the report reads the rankings in four
places: the innovation section's alpha sweep (P_rare / AP_rare over a grid of alpha)
and its unique relevant documents, the effort section's archetypes (and its gain
measure), and the topics section's matrix measure when it is not a leaderboard column.
Each is a function of one topic's rankings across the runs, so :func:`topic_pieces`
computes them on any campaign — the whole one, or one topic shard
(:mod:`irmeta.shards`) — and :func:`gather_pieces` joins the shards' pieces in topic
order into exactly what the whole campaign gives:

* per-topic arrays ``[R, ..., T_k]`` are concatenated along the topic axis;
* per-document and per-(run, topic) tables, which the library orders by run, then
  topic (then rank), are concatenated and stably re-sorted by run (the shards come in
  topic order, so topics stay in order inside a run).

:func:`irmeta.report.analysis.analyse` computes the pieces on the campaign in memory,
or gathers them from the shards' hook (:attr:`irmeta.shards.shard.ShardTask.extra`), and
computes every section from them the same way: the same numbers either way.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["PieceSpec", "TopicPieces", "gather_pieces", "topic_pieces"]


@contextlib.contextmanager
def twist_undefined_stated():
    """Silence exactly one warning: Twist's "topics with more relevant documents than
    the depth are undefined". With Twist's depth at the runs' depth this is expected on
    deep-judged topics, and the page states it (``EffortSection.undefined_topics``);
    the library functions called here (``evaluate``, ``effort.archetypes``) have no
    ``warn=False``. Every other warning still surfaces."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"Twist@\d+: \d+ topic\(s\) have more relevant",
                                UserWarning)
        yield


@dataclass(frozen=True)
class PieceSpec:
    """Which pieces to compute (plain data: it is shipped to the shards' tasks).

    ``sweep``: measure strings of the alpha sweep, evaluated with ``reference`` and
    ``prior_runs`` as :func:`irmeta.stats.alpha_sweep` does; ``documents``: unique
    relevant documents at ``rare_cutoff`` (:func:`irmeta.explain.unique_documents`) and
    their counts per (run, topic); ``archetypes``: :func:`irmeta.effort.archetypes` at
    Twist's depth ``depth``; ``gain``: the effort grid's gain measure (no context) and
    ``matrix``: the GAWM/HITS measure (with ``groups``), when they are not leaderboard
    columns."""

    rel_level: int = 1
    rare_cutoff: int = 100
    depth: int = 1000
    sweep: tuple[str, ...] = ()
    documents: bool = False
    archetypes: bool = False
    gain: str | None = None
    matrix: str | None = None
    groups: Mapping[str, str] | None = None
    prior_runs: tuple[str, ...] | None = None


@dataclass
class TopicPieces:
    """The pieces of one campaign or shard (None: not asked for).

    ``sweep``: float64 ``[R, len(spec.sweep), T]``; ``unique`` / ``found``: int
    ``[R, T]`` unique relevant documents and relevant documents in each run's top K
    (:func:`irmeta.explain.unique_contributions`); ``documents``: those documents, one
    row each; ``archetypes``: one row per (run, defined topic); ``gain`` / ``matrix``:
    float64 ``[R, T]``."""

    sweep: np.ndarray
    unique: np.ndarray | None = None
    found: np.ndarray | None = None
    documents: pd.DataFrame | None = None
    archetypes: pd.DataFrame | None = None
    gain: np.ndarray | None = None
    matrix: np.ndarray | None = None
    runs: tuple[str, ...] = field(default=())


def topic_pieces(campaign, spec: PieceSpec, reference=None) -> TopicPieces:
    """The pieces ``spec`` asks for, computed on ``campaign`` (a whole
    :class:`~irmeta.data.campaign.Campaign` or a topic shard's; ``reference``: the
    rarity reference campaign). The hook of a sharded report: a module-level function
    of plain data."""
    from irmeta import effort
    from irmeta.evaluation import compute
    from irmeta.explain import unique_counts, unique_documents
    from irmeta.measures.spec import EvalContext

    R, T = campaign.num_runs, campaign.num_topics
    rel = spec.rel_level
    sweep = np.empty((R, 0, T))
    if spec.sweep:   # as alpha_sweep evaluates them (evaluate's context, no groups)
        ctx = EvalContext(rel_level=rel, reference=reference, prior_runs=spec.prior_runs)
        sweep = compute(campaign, list(spec.sweep), ctx)[1]
    out = TopicPieces(sweep, runs=tuple(campaign.runs))
    if spec.documents:
        out.unique, out.found = unique_counts(campaign, spec.rare_cutoff, rel_level=rel)
        out.documents = unique_documents(campaign, spec.rare_cutoff, rel_level=rel)
    if spec.archetypes:
        with twist_undefined_stated():
            out.archetypes = effort.archetypes(campaign, spec.depth, rel_level=rel)
    if spec.gain is not None:
        out.gain = compute(campaign, [spec.gain], EvalContext(rel_level=rel))[1][:, 0]
    if spec.matrix is not None:
        groups = dict(spec.groups) if spec.groups else None
        out.matrix = compute(campaign, [spec.matrix],
                             EvalContext(rel_level=rel, groups=groups))[1][:, 0]
    return out


def _axis(parts: list, axis: int):
    return None if parts[0] is None else np.concatenate(parts, axis=axis)


def gather_pieces(pieces: list[TopicPieces]) -> TopicPieces:
    """The pieces of consecutive topic shards, in topic order, joined into the pieces
    of the whole campaign (see the module doc)."""
    from irmeta.shards.explain import by_run
    if len(pieces) == 1:
        return pieces[0]
    first = pieces[0]
    out = TopicPieces(np.concatenate([p.sweep for p in pieces], axis=2), runs=first.runs)
    out.unique = _axis([p.unique for p in pieces], 1)
    out.found = _axis([p.found for p in pieces], 1)
    out.gain = _axis([p.gain for p in pieces], 1)
    out.matrix = _axis([p.matrix for p in pieces], 1)
    if first.documents is not None:
        out.documents = by_run([p.documents for p in pieces if p.documents is not None],
                               first.runs)
    if first.archetypes is not None:
        out.archetypes = by_run([p.archetypes for p in pieces if p.archetypes is not None],
                                first.runs)
    return out
