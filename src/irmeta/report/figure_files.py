"""The figures of an irmeta HTML page: saved as PNG (+ SVG ...) next to the page, in
this process or in forked children while the caller goes on (:class:`FigureFiles`), and
embedded as base64 PNG. Part of :mod:`irmeta.report.html`'s
:class:`~irmeta.report.html.ReportWriter`, which holds one and re-exports
:func:`save_figure` (issue 33, item 0; the layout: docs/report.md).
"""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any, Iterable

from irmeta.errors import ParameterError
from irmeta.io.output import bounded_file_name
from irmeta.report.blocks import Figure, file_href


class FigureFiles:
    """The figures of one writer ``w`` (a :class:`~irmeta.report.html.ReportWriter`:
    its ``assets``, ``output``, ``formats``, ``dpi``, ``background``, ``files`` and
    ``_rel``): :meth:`figure` saves one (in a child with ``w.background``),
    :meth:`wait` collects the children's files and completes their blocks."""

    def __init__(self, w: Any):
        self.w = w
        self.pending: dict = {}                 # Job -> Figure block it completes

    def figure(self, name: str, fig, caption, alt: str, width: int | None) -> Figure:
        w = self.w
        if w.background > 0:
            return self._figure_in_child(name, fig, caption, alt, width)
        written = save_figure(fig, w.assets / bounded_file_name(name), w.formats,
                              dpi=w.dpi)
        w.files.extend(written)
        return self.from_files(name, written, caption=caption, alt=alt, width=width)

    def from_files(self, name: str, paths: Iterable, *, caption="", alt: str = "",
                   width: int | None = None) -> Figure:
        w = self.w
        paths = [Path(p) for p in paths]
        png = next((p for p in paths if p.suffix.lower() == ".png"), None)
        if png is None:
            raise ParameterError(f"ReportWriter.figure_from_files: no PNG among {paths}")
        data = base64.b64encode(png.read_bytes()).decode("ascii")
        rel = [w._rel(p) if p.parent == w.assets
               else file_href(os.path.relpath(p, w.output.parent)) for p in paths]
        return Figure(name, data, rel, caption, alt or name, width)

    def _figure_in_child(self, name, fig, caption, alt, width) -> Figure:
        from irmeta.plot import style
        from irmeta.report.jobs import Job
        w = self.w
        if "svg" in w.formats:   # imported here once, not again in every child
            import matplotlib.backends.backend_svg  # noqa: F401
        while len(self.pending) >= w.background:
            self._reap(next(iter(self.pending)))
        stem = w.assets / bounded_file_name(name)
        job = Job(save_figure, fig, stem, w.formats, dpi=w.dpi)
        style.pyplot().close(fig)
        targets = [stem.with_name(f"{stem.name}.{fmt}") for fmt in w.formats]
        block = Figure(name, "", [w._rel(p) for p in targets], caption, alt or name, width)
        self.pending[job] = block
        return block

    def _reap(self, job) -> None:
        block = self.pending.pop(job)
        targets = job.result()                  # the child's exception is raised here
        png = next(p for p in targets if p.suffix == ".png")
        block.data = base64.b64encode(png.read_bytes()).decode("ascii")
        self.w.files.extend(targets)

    def wait(self) -> None:
        for job in list(self.pending):
            self._reap(job)


def _figure_files(formats) -> str:
    """How the figures are saved, for the page footer: 'a PNG file', 'a PNG and an SVG
    file', 'PNG, SVG and PDF files'."""
    names = [f.upper() for f in formats]
    if len(names) == 1:
        return f"a {names[0]} file"
    if len(names) == 2:
        return f"a {names[0]} and an {names[1]} file" if names[1][0] in "AEFHILMNORSX" \
            else f"a {names[0]} and a {names[1]} file"
    return f"{', '.join(names[:-1])} and {names[-1]} files"


def save_figure(fig, stem, formats=("png", "svg"), dpi: int = 150) -> list[Path]:
    """Save ``fig`` as ``stem.<fmt>`` for each format (PNG at ``dpi``) in the house style
    of :mod:`irmeta.plot.style` (one draw per format, layout computed once), then close
    it."""
    from irmeta.plot import style
    return style.save(fig, stem, formats, dpi=dpi)
