"""Paper reproductions: rerun the tables and figures of a paper on any campaign.

``irmeta reproduce innovation|nrg|twist|gawm`` (CLI) and, per paper, a package:

* :mod:`irmeta.reproduce.innovation` — Türkmen et al. (ECIR 2023), P_rare / AP_rare;
* :mod:`irmeta.reproduce.nrg` — Bigdeli et al. (SIGIR-AP 2024), normalised residual gain;
* :mod:`irmeta.reproduce.twist` — Twist / effort (archetypes, effort/gain, meta-evaluation);
* :mod:`irmeta.reproduce.gawm` — GAWM / HITS (Tables 2-3, Figures 3-6).

Each package has the same three parts, computing first and rendering second:

* ``<paper>.analysis``: its parameters dataclass (the paper's values as defaults; all
  four are declared in :mod:`irmeta.reproduce.params`, where each field is also the
  ``irmeta reproduce`` option that fills it), a frozen ``<Paper>Analysis`` holding one
  DataFrame (or number) per table and figure, and ``analyse(campaign or matrix,
  params) -> <Paper>Analysis`` — no file, no HTML, no matplotlib;
* ``<paper>.page``: ``render(analysis, output) -> Reproduction``, which draws the
  figures and writes the page (its prose in one ``TEXT`` block);
* ``<paper>.reproduce(...)`` = ``render(analyse(...), output)``.

``render`` writes ``OUT/index.html`` (self-contained) with its tables as TSV and figures
as PNG (+ SVG) in ``OUT/index_files/``, and returns a :class:`Reproduction` (which also
carries the analysis).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irmeta.reproduce._common import Reproduction

PAPERS = ("innovation", "nrg", "twist", "gawm")

__all__ = ["PAPERS", "Reproduction"]


def __getattr__(name: str) -> Any:
    """:class:`Reproduction` is loaded on first use: :mod:`irmeta.reproduce.params` (which
    the CLI reads to build its options) must not pull in NumPy and pandas."""
    if name == "Reproduction":
        from irmeta.reproduce._common import Reproduction
        return Reproduction
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
