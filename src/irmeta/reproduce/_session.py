"""Writing a reproduction page: the output folder and its HTML page (rendered by
:class:`irmeta.report.html.ReportWriter`, the machinery of ``irmeta report``), the
inputs/parameters/run-time section, and the :class:`~irmeta.reproduce.Reproduction`
returned to the caller. The paper renderers (``reproduce/<paper>/page.py``) use it;
they draw and write what an analysis computed and compute nothing themselves.

Layout of an output folder ``OUT``::

    OUT/index.html            one self-contained page (figures embedded, works offline)
    OUT/index_files/*.tsv     every table at full precision (NaN = empty cell)
    OUT/index_files/*.png     every figure (and *.svg unless formats=("png",))

``OUT`` is created if needed and never emptied (it may hold other files of yours): a
new reproduction replaces ``index.html`` and ``index_files/`` as a whole, and a failed
or interrupted one leaves them as they were (:class:`irmeta.io.output.StagedFolder`).
"""

from __future__ import annotations

import contextlib
from dataclasses import fields
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from irmeta.constraints import COUNT
from irmeta.errors import ParameterError
from irmeta.io.output import check_folder_target, write_errors
from irmeta.reproduce._common import (
    CampaignFacts,
    Progress,
    Provenance,
    Reproduction,
)

__all__ = ["Session", "campaign_rows", "check_output", "params_frame", "run_reproduction"]

HTML_NAME = "index.html"

#: the "paper vs ours" sentence beside a table with the paper's numbers, by
#: :attr:`Provenance.comparable`; ``{why}`` is the page's own reason (its ``TEXT``)
PROVENANCE = {
    "exact": "<b>Paper vs ours: reproduced exactly.</b> Paper: {paper}. Here: {ours}, the "
             "paper's own input, so every printed cell must agree (and does: tested). {why}",
    "same-measure-different-data":
        "<b>Paper vs ours: same measure, different data.</b> Paper: {paper}. Here: {ours}. "
        "The cells cannot be compared one by one: {why} Compare the trends (which measure is "
        "higher, how a value moves with a parameter), not the numbers.",
    "different-setup":
        "<b>Paper vs ours: different data and setup.</b> Paper: {paper}. Here: {ours}. The "
        "cells cannot be compared one by one: {why}",
}


def check_output(paper: str, output, formats: Iterable[str], dpi) -> tuple[Path, tuple, int]:
    """``(folder, formats, dpi)`` checked before anything is computed: an output that
    cannot be a folder, an unknown figure format or a bad ``dpi`` is an error at once."""
    formats = tuple(formats)
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad:
        raise ParameterError(f"reproduce {paper}: formats must be png, svg or pdf, got {bad!r}")
    dpi = COUNT.check(dpi, "dpi", f"reproduce {paper}")
    return check_folder_target(output), formats, dpi



def run_reproduction(paper: str, steps: int, analyse: Callable[[Progress], Any],
                     render: Callable[..., Reproduction], output, *, inputs, command,
                     progress, formats, dpi) -> Reproduction:
    """What every paper's ``reproduce`` does: check the output folder and the figure
    options before anything is computed (:func:`check_output`), then
    ``render(analyse(prog), output, ...)`` under one progress bar of ``steps`` steps."""
    check_output(paper, output, formats, dpi)
    with Progress.use(progress, paper, steps) as prog:
        return render(analyse(prog), output, inputs=inputs, command=command, progress=prog,
                      formats=formats, dpi=dpi)

def _show(value) -> str:
    if isinstance(value, (tuple, list, frozenset, set)):
        return ", ".join(_show(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def params_frame(params) -> pd.DataFrame:
    """``parameter, value, meaning`` rows of a parameters dataclass; the meaning comes
    from each field's ``metadata["doc"]``."""
    rows = [(f.name, _show(getattr(params, f.name)), f.metadata.get("doc", ""))
            for f in fields(params)]
    return pd.DataFrame(rows, columns=["parameter", "value", "meaning"])


def campaign_rows(facts: CampaignFacts) -> list[tuple[str, str]]:
    """(input, value) rows describing a campaign."""
    lvl = facts.rel_level
    return [("runs", f"{facts.runs}"),
            ("qrels topics", f"{facts.qrels_topics}"),
            (f"topics with a relevant document (grade ≥ {lvl}, analysed)",
             f"{facts.analysed_topics}"),
            ("judged documents", f"{facts.judged:,}"),
            (f"relevant documents (grade ≥ {lvl})", f"{facts.relevant:,}"),
            ("ranking depth (longest run)", f"{facts.depth}")]


#: the alternative text of every figure of the four pages (what it shows, for a reader
#: who cannot see it), by figure name: :meth:`Session.figure` refuses a figure without one
FIGURE_ALT = {
    "figure2a_systems": (
        "Scatter plots of every system's HITS authority and hub and GAWM "
        "effectiveness and weight against its MAP"),
    "figure2b_topics": (
        "Scatter plots of every topic's HITS authority and hub and GAWM ease "
        "and weight against its AAP"),
    "figure3_heatmap": (
        "Heat map of the systems x topics score matrix, with side bars of the "
        "means, authorities and weights"),
    "figure4_grid": (
        "Five by five grid of system rankings, one per pair of system and topic"
        " means, the MAP leader traced"),
    "figure5_confidence": (
        "Confidence that the best system beats the median and the worst system,"
        " per aggregation"),
    "figure6_loto": (
        "Mean Kendall tau of the leave-one-topic-out predictions, per "
        "aggregator"),
    "figure1_synthetic": (
        "Rank of the innovative synthetic run against the number of its unique "
        "documents D, one line per measure"),
    "figure2_alpha_sweep": (
        "Kendall tau between each measure and its rareness version against "
        "alpha"),
    "table3_systems": (
        "Mean Kendall tau against the number of systems N kept, one line per "
        "measure"),
    "figure1a_chronological": (
        "Every run's NRG with the earlier runs as the prior, in chronological "
        "order"),
    "figure1b_others": (
        "Every run's NRG with all the other runs as the prior"),
    "figure2_nrg_ndcg": (
        "Scatter plot of NRG against nDCG, one point per run coloured by group"),
    "figure3_unique": (
        "Scatter plot of NRG with base P against nDCG, one point per run"),
    "figure4_p_rare": (
        "Scatter plot of P_rare against nDCG, one point per run"),
    "figure5_tasc": (
        "Scatter plot of TaSC against nDCG, one point per run"),
    "grids_effort_gain": (
        "Four by four effort/gain grids of Twist against each gain measure, "
        "with each cell's share of the points"),
    "figure11_crp_dcg": (
        "CRP and DCG curves of the example rankings side by side"),
    "figure12_means": (
        "Every run's mean under each measure, one line per measure"),
    "figure13_downsampling": (
        "Kendall tau against the share of the pool kept, one line per measure"),
    "figure14_asl": (
        "Achieved significance level curves of every measure over the run pairs"),
}


def is_p_column(name: str) -> bool:
    """Whether a column holds p-values, by its name: ``p``, ``p (τ)``, ``p_value``,
    ``kendall_p``, ``kendall_p AP@100``, ``… p``."""
    n = name
    return (n in ("p", "p_value", "p-value") or n.startswith(("p (", "p_value", "p-value", "p vs "))
            or "kendall_p" in n or n.endswith((" p", "_p", " p-value")))


def p_text(p: float) -> str:
    """A p-value as the pages print it: three decimals, ``<0.001`` below that."""
    return "<0.001" if p < 0.001 else f"{p:.3f}"


#: the docstring every page's ``render()`` shares (:func:`render_doc` fills it in): one
#: Parameters block, not four copies of it
RENDER_DOC = """Write the page of ``analysis`` into the folder ``output``.

    Parameters
    ----------
    analysis : {analysis}
        From :func:`irmeta.reproduce.{paper}.analyse`.
    output : path
        The output folder (``index.html`` and ``index_files/``).
    inputs : list of (input, value), optional
        Rows added to the inputs table (file names, ...).
    command : str, optional
        The command line shown at the end of the page (run from the page's folder).
    progress, formats, dpi
        Progress bar; figure files written (PNG always); PNG resolution.

    Returns
    -------
    Reproduction
        ``tables``: {tables}, ``inputs``, ``parameters``, ``timings``.
    """


def render_doc(paper: str, analysis: str, tables: str):
    """Decorator: the docstring of the page ``render()`` of ``paper`` (:data:`RENDER_DOC`)
    with its analysis class and the names of the tables it keeps."""
    def deco(fn):
        fn.__doc__ = RENDER_DOC.format(paper=paper, analysis=analysis, tables=tables)
        return fn
    return deco


class Session:
    """One reproduction page being written: a :class:`ReportWriter` on
    ``OUT/index.html``, the steps of the rendering timed on ``progress`` (a
    :class:`~irmeta.reproduce._common.Progress`), and the tables kept by name.

    ``formats``: figure files written (the PNG is always written and embedded);
    ``dpi``: PNG resolution.
    """

    def __init__(self, paper: str, output, title: str, *, progress: Progress,
                 formats: Iterable[str] = ("png", "svg"), dpi: int = 150):
        from irmeta.report.html import ReportWriter

        out, formats, dpi = check_output(paper, output, formats, dpi)
        with write_errors(out):
            out.mkdir(parents=True, exist_ok=True)
        self.paper = paper
        self.writer = ReportWriter(out / HTML_NAME, title, formats=formats, dpi=dpi)
        self.tables: dict[str, pd.DataFrame] = {}
        self.progress = progress

    # ------------------------------------------------------------------ steps
    def write_sections(self, sections, analysis) -> list[str]:
        """Write a page's sections in order: ``sections`` holds ``(step, writers)`` pairs,
        each writer ``write(session, analysis, summary)`` adding its lines to the page's
        summary, each step timed (:meth:`step`). Returns the summary lines."""
        summary: list[str] = []
        for step, writers in sections:
            with self.step(step):
                for write in writers:
                    write(self, analysis, summary)
        return summary

    @contextlib.contextmanager
    def step(self, name: str):
        """Time a step (wall and CPU seconds) and advance the progress bar. An error or
        Ctrl-C in a step deletes what was written: the previous output stays as it was."""
        try:
            with self.progress.step(name):
                yield
        except BaseException:
            self.writer.discard()
            raise

    def section(self, id: str, title: str, intro=""):
        return self.writer.section(id, title, intro)

    def table(self, name: str, frame: pd.DataFrame, **kwargs):
        """Keep ``frame`` as ``tables[name]`` and make a page table (+ TSV) of it; its
        p-value columns (:func:`is_p_column`) print as ``<0.001`` below 0.001 (never
        0.000; the TSV keeps every digit)."""
        self.tables[name] = frame
        formats = {str(c): p_text for c in frame.columns if is_p_column(str(c))}
        if formats:
            kwargs["formats"] = {**formats, **(kwargs.get("formats") or {})}
        return self.writer.table(name, frame, **kwargs)

    def tsv(self, name: str, frame: pd.DataFrame, *, kept: pd.DataFrame | None = None,
            index: bool = False) -> None:
        """Write ``frame`` as ``<name>.tsv`` (no page table) and keep ``kept`` (default
        ``frame``) as ``tables[name]``."""
        self.writer.write_tsv(name, frame, index=index)
        self.tables[name] = frame if kept is None else kept

    def provenance(self, sec, record: Provenance, why: str) -> None:
        """Add the "paper vs ours" sentence of ``record`` (:data:`PROVENANCE`) to the
        section ``sec``; ``why``: the page's reason, from its ``TEXT`` block."""
        from irmeta.report.html import markup
        sec.text(markup(PROVENANCE[record.comparable], paper=record.paper, ours=record.ours,
                        why=why))

    def figure(self, name: str, fig, **kwargs):
        """A page figure (PNG, SVG) with its descriptive alternative text
        (:data:`FIGURE_ALT`)."""
        alt = kwargs.pop("alt", None) or FIGURE_ALT.get(name)
        if not alt:   # pragma: no cover - a new figure without its text: a bug here
            from irmeta.errors import IrmetaError
            raise IrmetaError(f"internal error: figure {name!r} has no alternative text "
                              "(irmeta.reproduce._session.FIGURE_ALT)")
        return self.writer.figure(name, fig, alt=alt, **kwargs)

    # ------------------------------------------------------------------ finish
    def finish(self, *, analysis, inputs: list[tuple[str, str]], command: str | None,
               subtitle: str = "", summary: list | None = None,
               notes: Iterable[str] = ()) -> Reproduction:
        """Add the inputs/parameters/timings section first and render the page; return
        the :class:`Reproduction`. The run-time table lists the analysis' steps
        (``analysis.timings``), then the rendering's own."""
        from irmeta import __version__
        from irmeta.report.html import Row

        with self.step("render"):
            w = self.writer
            sec = w.section("inputs", "Inputs, parameters and run time",
                            "What this page was computed from, every parameter of the "
                            "procedure, and the time each step took (wall clock and CPU "
                            "time of this process; the machine may be shared).")
            w.sections.insert(0, w.sections.pop())
            frame = pd.DataFrame(inputs, columns=["input", "value"])
            ptab = params_frame(analysis.params)
            sec.add(Row([w.table("inputs", frame, caption="Inputs.", sortable=False,
                                 compact=True, classes={"value": ["wrap"] * len(frame)}),
                         w.table("parameters", ptab, sortable=False, compact=True,
                                 classes={"meaning": ["wrap"] * len(ptab)},
                                 caption="Parameters (the paper's values unless "
                                         "overridden on the command line).")]))
            for note in notes:
                sec.text(note)
            self.tables["inputs"] = frame
            self.tables["parameters"] = ptab
            timing = _timing_frame(self._timings(analysis))
            sec.add(w.table("timings", timing, digits=2, sortable=False, compact=True,
                            caption="Run time per step (seconds; the page rendering is "
                                    "not included)."))
            self.tables["timings"] = timing
            path = w.render(subtitle=subtitle, summary=summary or [],
                            version=__version__,
                            command=command or f"irmeta reproduce {self.paper} ...")
        return Reproduction(self.paper, path, list(self.writer.files), self.tables,
                            self._timings(analysis), analysis)

    def _timings(self, analysis) -> dict[str, tuple[float, float]]:
        return {**analysis.timings, **self.progress.timings}


def _timing_frame(timings: Mapping[str, tuple[float, float]]) -> pd.DataFrame:
    """One row per step and a ``total`` row: the sum of the steps (every computation
    of a reproduction runs inside a step)."""
    rows = [(k, w, c) for k, (w, c) in timings.items() if k != "render"]
    rows.append(("total", sum(r[1] for r in rows), sum(r[2] for r in rows)))
    return pd.DataFrame(rows, columns=["step", "wall s", "CPU s"])
