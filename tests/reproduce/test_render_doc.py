"""The four pages' ``render()`` share one docstring template (issue 24, item 10:
``duplicates`` found the same Parameters block four times)."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize("paper,cls,table", [("gawm", "GAWMAnalysis", "weights_topics"),
                                             ("innovation", "InnovationAnalysis", "table4"),
                                             ("nrg", "NRGAnalysis", "correlations"),
                                             ("twist", "TwistAnalysis", "figure14_asl")])
def test_render_docstrings(paper, cls, table):
    page = importlib.import_module(f"irmeta.reproduce.{paper}.page")
    doc = page.render.__doc__
    assert doc.startswith("Write the page of ``analysis`` into the folder ``output``.")
    assert f"analysis : {cls}" in doc and f":func:`irmeta.reproduce.{paper}.analyse`" in doc
    assert f"``{table}``" in doc and doc.rstrip().endswith("``timings``.")
    assert "{" not in doc                                  # every field filled
