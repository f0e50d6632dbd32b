"""The inputs-and-parameters section, drawn. Part of :mod:`irmeta.report.render` (issue 33,
item 0; the layout: docs/report.md). A renderer computes no number the page shows.
"""

from __future__ import annotations

import pandas as pd

from irmeta.report.html import Row, Text
from irmeta.report.sections.inputs import InputsSection
from irmeta.report.views.common import TITLES, SectionView, TableView, prose


def inputs(sec: InputsSection) -> SectionView:
    """The inputs and the parameters, side by side."""
    rows = list(sec.files) + [
        ("runs", f"{sec.runs}"),
        ("groups", "none given: every run is its own group" if sec.groups is None
         else f"{sec.groups}"),
        ("qrels topics", f"{sec.qrels_topics}"),
        ("topics with a relevant document (analysed)", f"{sec.analysed_topics}"),
        ("judged documents", f"{sec.judged:,}"),
        (f"relevant documents (grade ≥ {sec.rel_level})",
         f"{sec.relevant:,} ({sec.relevant_per_topic:.1f} per analysed topic)"
         if sec.analysed_topics else "0"),
        ("ranking depth (longest run)", f"{sec.depth}"),
        ("NRG prior set", sec.nrg_prior if sec.nrg_prior != "list" else
         "list: " + ", ".join(sec.prior_runs or ())),
    ]
    if sec.reference_runs is not None:
        rows.append(("rarity reference runs (P_rare, AP_rare)", f"{sec.reference_runs}"))
    if sec.dropped_topics is not None:
        rows.append(("run topics absent from the qrels (ignored)", f"{sec.dropped_topics}"))
    by_file = [(r, t) for r, t, why in sec.renamed if why == "file"]
    given = [(r, t) for r, t, why in sec.renamed if why == "given"]
    if by_file:
        rows.append(("runs named by their file names (tags collide)", ", ".join(
            f"{r} (tag {t})" for r, t in by_file)))
    if given:
        rows.append(("runs named as given (--names)", ", ".join(
            f"{r} (tag {t})" for r, t in given)))
    rows += provenance_rows(sec)
    frame = pd.DataFrame(rows, columns=["input", "value"])
    campaign = [(f"campaign {label}", text) for label, text in
                (sec.campaign.items() if sec.campaign is not None else ())]
    params = pd.DataFrame(campaign + list(sec.parameters), columns=["parameter", "value"])
    blocks: list = [
        Row([TableView("inputs", frame, dict(caption=prose("inputs_caption"), sortable=False,
                                              compact=True,
                                              classes={"value": ["wrap"] * len(frame)})),
             TableView("parameters", params, dict(
                 sortable=False, compact=True, caption=prose("parameters_caption"),
                 classes={"value": ["wrap"] * len(params)}))]),
        Text(prose("inputs_topic_set", topics=sec.analysed_topics))]
    if sec.run_files:
        files = pd.DataFrame(list(sec.run_files), columns=["run", "file", "SHA-256"])
        files["SHA-256"] = files["SHA-256"].fillna("no file")
        blocks.append(TableView("run_files", files, dict(
            caption=prose("run_files_caption"), compact=True,
            classes={"SHA-256": ["mono"] * len(files)})))
    return SectionView("inputs", TITLES["inputs"], prose("inputs_intro"), blocks)


def provenance_rows(sec: InputsSection) -> list[tuple[str, str]]:
    """The rows that tell which qrels version produced the page: its SHA-256, its
    judged documents per grade and the irmeta version (issue 33, item 2)."""
    if sec.qrels_sha256 is None:
        digest = "not computed (a campaign open shard by shard from a Parquet folder)"
    elif sec.qrels_digest == "file":
        digest = f"{sec.qrels_sha256} (of the file, as sha256sum prints it)"
    else:
        digest = (f"{sec.qrels_sha256} (of its canonical TREC text, sorted: the qrels "
                  "came from no file; docs/report.md)")
    grades = " · ".join(f"grade {g}: {n:,}" for g, n in sec.grade_counts) or "none"
    return [("qrels SHA-256", digest), ("judged documents by grade", grades),
            ("irmeta version", sec.version)]
