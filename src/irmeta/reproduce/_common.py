"""What every paper reproduction shares: the output folder and its HTML page (rendered
by :class:`irmeta.report.html.ReportWriter`, the machinery of ``irmeta report``), the
progress bar, wall and CPU time per step, the inputs/parameters section, and the
:class:`Reproduction` returned to the caller.

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
import os
import sys
import time
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Iterable

import numpy as np
import pandas as pd

from irmeta.errors import ParameterError
from irmeta.io.output import check_folder_target, write_errors

__all__ = ["Reproduction", "Session", "check_fraction", "check_positive", "check_seed",
           "params_frame"]

HTML_NAME = "index.html"


@dataclass
class Reproduction:
    """What a reproduction wrote and computed.

    ``paper``: ``innovation``, ``nrg``, ``twist`` or ``gawm``; ``path``: the HTML page;
    ``files``: every file written next to it (TSV, PNG, SVG); ``tables``: the tables by
    name (the DataFrames behind the TSV files); ``timings``: ``{step: (wall s, CPU s)}``.
    """

    paper: str
    path: Path
    files: list[Path]
    tables: dict[str, pd.DataFrame]
    timings: dict[str, tuple[float, float]]

    @property
    def folder(self) -> Path:
        """The output folder."""
        return self.path.parent


def check_positive(value, name: str, func: str) -> int:
    """``value`` as a positive int, else :class:`ParameterError` naming it."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{func}: {name} must be a positive integer, got {value!r}")
    return int(value)


def check_seed(value, func: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ParameterError(f"{func}: seed must be a non-negative integer, got {value!r}")
    return int(value)


def check_fraction(value, name: str, func: str, *, low_open: bool = True) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{func}: {name} must be a number in (0, 1], got {value!r}") from None
    if not (0.0 < v <= 1.0 if low_open else 0.0 <= v <= 1.0):
        raise ParameterError(f"{func}: {name} must be in {'(0, 1]' if low_open else '[0, 1]'}, "
                             f"got {value!r}")
    return v


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


def campaign_rows(campaign, rel_level: int) -> list[tuple[str, str]]:
    """(input, value) rows describing a campaign."""
    keep = campaign.topic_set(rel_level)
    nrel = campaign.num_rel(rel_level)
    rows = [("runs", f"{campaign.num_runs}"),
            ("qrels topics", f"{campaign.num_topics}"),
            (f"topics with a relevant document (grade ≥ {rel_level}, analysed)",
             f"{int(keep.sum())}"),
            ("judged documents", f"{len(campaign.judged.grades):,}"),
            (f"relevant documents (grade ≥ {rel_level})", f"{int(nrel.sum()):,}"),
            ("ranking depth (longest run)", f"{campaign.depth}")]
    return rows


def _progress_enabled(progress: bool | None) -> bool:
    if progress is None:
        return sys.stderr.isatty() and not os.environ.get("IRMETA_NO_PROGRESS")
    return bool(progress)


class Session:
    """One reproduction being written: a :class:`ReportWriter` on ``OUT/index.html``,
    a tqdm progress bar over ``steps`` named steps, wall/CPU time per step, and the
    tables kept by name.

    ``formats``: figure files written (the PNG is always written and embedded);
    ``dpi``: PNG resolution.
    """

    def __init__(self, paper: str, output, title: str, steps: int, *,
                 progress: bool | None = None, formats: Iterable[str] = ("png", "svg"),
                 dpi: int = 150):
        from tqdm.auto import tqdm

        from irmeta.report.html import ReportWriter

        formats = tuple(formats)
        bad = [f for f in formats if f not in ("png", "svg", "pdf")]
        if bad:
            raise ParameterError(f"reproduce {paper}: formats must be png, svg or pdf, got {bad!r}")
        dpi = check_positive(dpi, "dpi", f"reproduce {paper}")
        out = check_folder_target(output)
        with write_errors(out):
            out.mkdir(parents=True, exist_ok=True)
        self.paper = paper
        self.writer = ReportWriter(out / HTML_NAME, title, formats=formats, dpi=dpi)
        self.tables: dict[str, pd.DataFrame] = {}
        self._w0, self._c0 = time.perf_counter(), time.process_time()
        enabled = _progress_enabled(progress)
        #: progress_bar argument for the long inner loops (their own bar below this one)
        self.inner = enabled
        self.bar = tqdm(total=steps, desc=f"irmeta reproduce {paper}", disable=not enabled,
                        file=sys.stderr, leave=False, dynamic_ncols=True, unit="step")
        from irmeta.report.html import StepClock
        self.clock = StepClock(self.bar)
        self.timings = self.clock.timings

    # ------------------------------------------------------------------ steps
    @contextlib.contextmanager
    def step(self, name: str):
        """Time a step (wall and CPU seconds) and advance the progress bar. An error or
        Ctrl-C in a step deletes what was written: the previous output stays as it was."""
        try:
            with self.clock.step(name):
                yield
        except BaseException:
            self.writer.discard()
            raise

    def section(self, id: str, title: str, intro=""):
        return self.writer.section(id, title, intro)

    def table(self, name: str, frame: pd.DataFrame, **kwargs):
        """Keep ``frame`` as ``tables[name]`` and make a page table (+ TSV) of it."""
        self.tables[name] = frame
        return self.writer.table(name, frame, **kwargs)

    def figure(self, name: str, fig, **kwargs):
        return self.writer.figure(name, fig, **kwargs)

    # ------------------------------------------------------------------ finish
    def finish(self, *, inputs: list[tuple[str, str]], params, command: str | None,
               subtitle: str = "", summary: list | None = None, notes: Iterable[str] = ()
               ) -> Reproduction:
        """Add the inputs/parameters/timings section first, render the page, close the
        bar; return the :class:`Reproduction`."""
        from irmeta import __version__
        from irmeta.report.html import Row

        try:
            with self.step("render"):
                w = self.writer
                sec = w.section("inputs", "Inputs, parameters and run time",
                                "What this page was computed from, every parameter of the "
                                "procedure, and the time each step took (wall clock and CPU "
                                "time of this process; the machine may be shared).")
                w.sections.insert(0, w.sections.pop())
                frame = pd.DataFrame(inputs, columns=["input", "value"])
                ptab = params_frame(params)
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
                timing = self._timing_frame()
                sec.add(w.table("timings", timing, digits=2, sortable=False, compact=True,
                                caption="Run time per step (seconds; the page rendering is "
                                        "not included)."))
                self.tables["timings"] = timing
                path = w.render(subtitle=subtitle, summary=summary or [],
                                version=__version__,
                                command=command or f"irmeta reproduce {self.paper} ...")
        finally:
            self.bar.close()
        return Reproduction(self.paper, path, list(self.writer.files), self.tables,
                            self.timings)

    def _timing_frame(self) -> pd.DataFrame:
        rows = [(k, w, c) for k, (w, c) in self.timings.items()]
        rows.append(("total", time.perf_counter() - self._w0, time.process_time() - self._c0))
        return pd.DataFrame(rows, columns=["step", "wall s", "CPU s"])


def doc(text: str, **kwargs):
    """A dataclass field with a default and its one-line meaning (shown in the page)."""
    default = kwargs.pop("default")
    if isinstance(default, (list, dict, set)):
        return field(default_factory=lambda: type(default)(default), metadata={"doc": text})
    return field(default=default, metadata={"doc": text})


def tau_b(x, y) -> float:
    """Kendall's tau-b between two aligned score vectors (:func:`irmeta.stats.kendall_tau`)."""
    from irmeta.stats import kendall_tau
    return float(kendall_tau(np.asarray(x, float), np.asarray(y, float)))
