"""The report's sections, in page order: ONE list (:data:`REGISTRY`) of what each section
is called, how it is computed, how it is drawn and which ``--skip`` key leaves it out
(issue 33, item 0).

Adding a section is one compute module (``report/sections/<name>.py``: a frozen dataclass
and a function with the signature of :attr:`Section.compute`), one render module
(``report/views/<name>.py``) and one line here; its name goes into
:data:`irmeta.report.options.SECTIONS` (what ``--skip`` accepts; a test keeps the two in
step) and its dataclass into :class:`~irmeta.report.analysis.CampaignAnalysis` (a typed
field). The layout: docs/report.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from irmeta.report.sections.effort import effort_section
from irmeta.report.sections.innovation import innovation
from irmeta.report.sections.nrg import nrg
from irmeta.report.sections.topics import topics
from irmeta.report.views import appendix as appendix_view
from irmeta.report.views import effort as effort_view
from irmeta.report.views import innovation as innovation_view
from irmeta.report.views import inputs as inputs_view
from irmeta.report.views import leaderboard as leaderboard_view
from irmeta.report.views import nrg as nrg_view
from irmeta.report.views import risk as risk_view
from irmeta.report.views import topics as topics_view
from irmeta.report.views import trust as trust_view
from irmeta.report.views.common import SectionView

__all__ = ["REGISTRY", "Section"]


@dataclass(frozen=True)
class Section:
    """One section of the page.

    ``name``: its anchor and the :class:`~irmeta.report.analysis.CampaignAnalysis`
    field holding its data. ``compute(source, opts, results, board, groups, prior,
    context)``: its dataclass (None when :func:`~irmeta.report.analysis.analyse`
    computes it apart: the leaderboard, which every section uses; trust, whose tests run
    in a child process; risk, computed in the leaderboard's child beside its tests
    (TRisk's p-values import scipy.stats, which the main process never imports); the
    appendix, which shows the leaderboard's tests; the inputs, which describe the whole
    run). ``render(analysis)``:
    its :class:`~irmeta.report.views.common.SectionView`. ``skip``: the ``--skip`` key
    leaving it out (None: always shown).
    """

    name: str
    compute: Callable[..., Any] | None
    render: Callable[[Any], SectionView]
    skip: str | None


#: every section in page order (the inputs come last)
REGISTRY: tuple[Section, ...] = (
    Section("leaderboard", None, lambda a: leaderboard_view.leaderboard(
        a.leaderboard, a.per_topic, a.defaults), "leaderboard"),
    Section("risk", None, lambda a: risk_view.risk(a.risk), "risk"),
    Section("innovation", innovation, lambda a: innovation_view.innovation(a.innovation),
            "innovation"),
    Section("nrg", nrg, lambda a: nrg_view.nrg(a.nrg), "nrg"),
    Section("effort", effort_section, lambda a: effort_view.effort(a.effort), "effort"),
    Section("topics", topics, lambda a: topics_view.topics(a.topics), "topics"),
    Section("trust", None, lambda a: trust_view.trust(a.trust), "trust"),
    Section("appendix", None, lambda a: appendix_view.appendix(a.appendix), "appendix"),
    Section("inputs", None, lambda a: inputs_view.inputs(a.inputs), None),
)
