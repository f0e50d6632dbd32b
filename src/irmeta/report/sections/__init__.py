"""The report's sections, computed: one module per section, each holding that section's
frozen dataclass (what the page shows, what the tests read) and the function computing
it. :mod:`irmeta.report.analysis` runs them (``analyse_campaign``) and re-exports their
names; :mod:`irmeta.report.views` draws them; :mod:`irmeta.report.registry` lists them.
The layout: docs/report.md.
"""
