"""The names of the report's sections that ``--skip`` leaves out, in page order: the one
list (:data:`SECTIONS`, re-exported as :data:`irmeta.report.options.SECTIONS` and
:data:`irmeta.report.SECTIONS`) that :class:`~irmeta.report.options.ReportOptions`
validates ``skip`` against, that ``irmeta report --skip`` accepts and lists in its help,
and that :data:`irmeta.report.registry.REGISTRY` follows (a test keeps the two in step;
the always-shown inputs come after them).

A module of its own that imports nothing, so that the command line reads the names
without loading the report (pandas, matplotlib: seconds; ``irmeta.report`` imports its
public names lazily).
"""

from __future__ import annotations

__all__ = ["SECTIONS"]

#: the report's sections, in page order (each can be skipped, ``ReportOptions.skip``)
SECTIONS: tuple[str, ...] = ("leaderboard", "risk", "innovation", "nrg", "effort", "topics",
                             "trust", "appendix")
