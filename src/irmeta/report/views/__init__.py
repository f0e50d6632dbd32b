"""The report's sections, drawn: one module per section, each holding the renderer that
turns that section's dataclass (:mod:`irmeta.report.sections`) into a
:class:`~irmeta.report.views.common.SectionView`; ``common.py`` holds the views and the
prose every renderer uses. :mod:`irmeta.report.render` re-exports their names;
:mod:`irmeta.report.registry` lists them. The layout: docs/report.md.
"""
