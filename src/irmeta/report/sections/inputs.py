"""The inputs-and-parameters section, computed (:class:`InputsSection`). Part of
:mod:`irmeta.report.analysis` (issue 33, item 0; the layout: docs/report.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from irmeta.io.campaign_info import CampaignInfo
from irmeta.report.options import ReportOptions


@dataclass(frozen=True)
class InputsSection:
    """What the report was computed from. ``files``: (label, value) pairs of the named
    inputs (campaign, qrels file, run files, groups file), as given; ``groups``: number
    of groups, None when none were given; ``relevant_per_topic``: mean relevant
    documents per analysed topic (NaN without one); ``prior_runs``: the explicit NRG
    prior set (``nrg_prior == "list"``); ``reference_runs``: rarity reference runs, None
    without; ``dropped_topics``: run topics absent from the qrels, None when none were
    dropped; ``parameters``: (name, value) of every option, as printed.

    Provenance (issue 33, item 2): ``campaign``: the campaign information
    (``--campaign-info``), None without; ``qrels_sha256`` and ``qrels_digest``: the
    qrels' SHA-256 and what it is of (``"file"``: the file's bytes, what ``sha256sum``
    prints; ``"text"``: the canonical TREC text of judgments that came from no file,
    :func:`irmeta.io.digest.qrels_text_sha256`, the same in memory and shard by shard;
    None when the judgments are unknown); ``grade_counts``: (grade, judged documents) in grade
    order; ``run_files``: (run, file name, SHA-256 or None) per run in campaign order;
    ``version``: the irmeta version that computed the page."""

    files: tuple[tuple[str, str], ...]
    runs: int
    groups: int | None
    qrels_topics: int
    analysed_topics: int
    judged: int
    relevant: int
    relevant_per_topic: float
    rel_level: int
    depth: int
    nrg_prior: str
    prior_runs: tuple[str, ...] | None
    reference_runs: int | None
    dropped_topics: int | None
    parameters: tuple[tuple[str, str], ...]
    renamed: tuple[tuple[str, str, str], ...] = ()
    campaign: CampaignInfo | None = None
    qrels_sha256: str | None = None
    qrels_digest: str | None = None
    grade_counts: tuple[tuple[int, int], ...] = ()
    run_files: tuple[tuple[str, str, str | None], ...] = ()
    version: str = ""


def inputs_section(campaign, opts: ReportOptions, groups: dict, own_groups: bool,
                   prior: str, prior_runs, reference, inputs,
                   sharded=None) -> InputsSection:
    """The :class:`InputsSection`: the campaign's size and the options (``campaign``:
    a Campaign, or the summary of ``sharded``, the open sharded campaign it stands
    for)."""
    c = campaign
    keep = c.topic_set(opts.rel_level)
    nrel = c.num_rel(opts.rel_level)
    inputs = dict(inputs or {})
    files = []
    if inputs.get("campaign"):
        files.append(("campaign", str(inputs["campaign"])))
    if inputs.get("qrels"):
        files.append(("qrels file", os.path.basename(str(inputs["qrels"]))))
    if inputs.get("runs"):
        names = [os.path.basename(str(p)) for p in inputs["runs"]]
        files.append(("run files", ", ".join(names[:4])
                      + (f", … ({len(names)} files)" if len(names) > 4 else "")))
    if inputs.get("groups"):
        files.append(("groups file", os.path.basename(str(inputs["groups"]))))
    if isinstance(opts.run_info, (str, os.PathLike)):
        files.append(("run info file", os.path.basename(os.fspath(opts.run_info))))
    dropped = getattr(c, "dropped_topics", None)
    renamed = []
    tags, sources = getattr(c, "tags", ()) or (), getattr(c, "sources", ()) or ()
    if tags:
        from irmeta.io.trec import run_name_from_path
        for i, run in enumerate(c.runs):
            if tags[i] is not None and tags[i] != run:
                by_file = i < len(sources) and sources[i] is not None and \
                    run_name_from_path(sources[i]) == run
                renamed.append((str(run), str(tags[i]), "file" if by_file else "given"))
    return InputsSection(
        files=tuple(files), runs=c.num_runs,
        groups=None if own_groups else len(set(groups.values())),
        qrels_topics=c.num_topics, analysed_topics=int(keep.sum()),
        judged=len(c.judged.grades), relevant=int(nrel.sum()),
        relevant_per_topic=float(nrel[keep].mean()) if keep.any() else float("nan"),
        rel_level=opts.rel_level, depth=c.depth, nrg_prior=prior,
        prior_runs=prior_runs if prior == "list" else None,
        reference_runs=None if reference is None else reference.num_runs,
        dropped_topics=sum(dropped.values()) if dropped else None,
        parameters=tuple(opts.items()), renamed=tuple(renamed),
        campaign=opts.campaign_info, **provenance(c, inputs, sharded))


def provenance(c, inputs: dict, sharded=None) -> dict:
    """The digests of :class:`InputsSection` (``qrels_sha256``, ``qrels_digest``,
    ``grade_counts``, ``run_files``, ``version``) of campaign ``c`` read from
    ``inputs``' files (``sharded``: the open sharded campaign ``c`` summarises, whose
    Parquet qrels give the text digest)."""
    from irmeta import __version__
    from irmeta.io.digest import file_sha256, qrels_text_sha256
    qrels = inputs.get("qrels")
    digest = file_sha256(qrels) if qrels else None
    kind = "file" if digest else None
    judged = getattr(c, "judged", None)
    if digest is None and sharded is not None:
        digest, kind = sharded.qrels_text_sha256(), "text"
    elif digest is None and judged is not None and getattr(judged, "docids", None) is not None:
        digest, kind = qrels_text_sha256(judged.topic, judged.docids, judged.grades,
                                         c.topics), "text"
    grades = np.asarray(judged.grades) if judged is not None else np.zeros(0, np.int64)
    levels, counts = np.unique(grades, return_counts=True)
    sources = tuple(getattr(c, "sources", ()) or ())
    paths = [str(p) for p in inputs.get("runs") or ()]
    run_files = []
    for i, run in enumerate(c.runs):
        path = sources[i] if i < len(sources) and sources[i] else (
            paths[i] if len(paths) == c.num_runs else None)
        run_files.append((str(run), os.path.basename(path) if path else "",
                          file_sha256(path) if path else None))
    return dict(qrels_sha256=digest, qrels_digest=kind,
                grade_counts=tuple((int(g), int(n)) for g, n in zip(levels, counts)),
                run_files=tuple(run_files), version=__version__)
