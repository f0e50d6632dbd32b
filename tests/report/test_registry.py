"""The one list of the report's sections (``irmeta.report.registry.REGISTRY``, issue 33
item 0) agrees with what ``--skip`` accepts and with the analysis' fields."""

from __future__ import annotations

import dataclasses

from irmeta.report import SECTIONS, CampaignAnalysis
from irmeta.report.registry import REGISTRY


def test_the_registry_lists_every_section_in_page_order():
    names = [s.name for s in REGISTRY]
    assert names == [*SECTIONS, "inputs"]           # the inputs come last
    assert [s.skip for s in REGISTRY if s.skip is not None] == list(SECTIONS)


def test_every_section_is_a_field_of_the_analysis():
    fields = {f.name for f in dataclasses.fields(CampaignAnalysis)}
    assert {s.name for s in REGISTRY} <= fields


def test_only_the_sections_computed_apart_have_no_compute():
    """The leaderboard (every section uses it), trust (tests in a child), risk (in the
    leaderboard's child: TRisk's p-values import scipy.stats), the appendix (it shows the
    leaderboard's tests, known only once the child is read) and the inputs are computed
    by ``analyse`` itself; every other section by its registry line."""
    apart = {s.name for s in REGISTRY if s.compute is None}
    assert apart == {"leaderboard", "risk", "trust", "appendix", "inputs"}


DRAWING = ("irmeta.report.views", "irmeta.report.render", "irmeta.report.html",
           "irmeta.report.blocks", "irmeta.report.figure_files", "irmeta.report.figures",
           "irmeta.plot", "matplotlib")


def drawing_imports(source: str) -> list[str]:
    """The modules of ``source`` (any depth) that draw or write the page."""
    import ast
    found = []
    for node in ast.walk(ast.parse(source)):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        found += [n for n in names if n.startswith(DRAWING)]
    return found


def test_the_compute_modules_import_no_drawing_code():
    """docs/report.md, "One module per section": ``report/sections/`` computes and never
    imports the renderers, the writer or a plotting module (not even in a function)."""
    from pathlib import Path

    import irmeta.report.sections as sections
    folder = Path(sections.__file__).parent
    found = {p.name: drawing_imports(p.read_text(encoding="utf-8"))
             for p in sorted(folder.glob("*.py"))}
    assert len(found) >= 8 and not any(found.values()), found


def test_the_drawing_check_can_fail():
    code = "def f():\n    from irmeta.report.views.common import prose\n    import matplotlib\n"
    assert drawing_imports(code) == ["irmeta.report.views.common", "matplotlib"]


# ------------------------------------------------ one list: options, CLI, docs (issue 42)
def test_sections_are_defined_once():
    """``SECTIONS`` of the options and of the package is the tuple of the light module
    the command line reads (no second copy to keep in step)."""
    import irmeta.report
    from irmeta.report import options, section_names
    assert options.SECTIONS is section_names.SECTIONS is irmeta.report.SECTIONS


def test_skip_help_lists_exactly_the_sections_in_order():
    import re

    from click.testing import CliRunner

    from irmeta.cli.main import cli
    result = CliRunner().invoke(cli, ["report", "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    found = re.search(r"--skip SECTION\[,SECTION\] Leave sections out \(repeatable or "
                      r"comma-separated\): ([a-z_, ]+)\.", text)
    assert found, text
    assert [s.strip() for s in found.group(1).split(",")] == list(SECTIONS)


def test_skip_accepts_exactly_the_sections():
    from click.testing import CliRunner

    from irmeta.cli.main import cli
    result = CliRunner().invoke(cli, ["report", "--demo", "--skip", "nope", "-o",
                                      "/nonexistent/x.html"])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert f"known: {', '.join(SECTIONS)}" in text, text


def _docs() -> str:
    from pathlib import Path
    return (Path(__file__).resolve().parents[2] / "docs" / "report.md").read_text(
        encoding="utf-8")


def test_the_docs_skip_row_lists_every_section_in_order():
    import re
    row = next(line for line in _docs().splitlines() if line.startswith("| `--skip "))
    assert re.findall(r"`([a-z_]+)`", row.split("|")[2]) == list(SECTIONS)


def test_the_docs_name_the_sections_computed_apart():
    """docs/report.md's "computes apart: ..." sentence names the registry's sections
    without a compute function, in page order."""
    import re
    text = " ".join(_docs().split())
    sentence = text.split("`analyse` computes apart:", 1)[1].split(". A new", 1)[0]
    named = [name for name in [s.name for s in REGISTRY]
             if re.search(rf"\b{name}\b", sentence)]
    assert named == [s.name for s in REGISTRY if s.compute is None], sentence
