"""The layering of docs/architecture.md, enforced.

Every module of ``src/irmeta`` is parsed with :mod:`ast` (never imported): every
``import`` and ``from ... import`` statement, at module level or inside a function,
absolute or relative, is resolved to the irmeta module it names and mapped to its
layer. A module may import its own layer and the layers below it, never a layer above
it, and never the package root ``irmeta`` (whose lazy ``__getattr__`` hides which
layer a name comes from). A failure names the module, the line and the import.

``LAYERS`` below is the table of docs/architecture.md; keep the two in step.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "irmeta"

# bottom to top; a name is the first component after ``irmeta.`` (a module or a package)
LAYERS: list[tuple[str, ...]] = [
    ("errors", "constraints", "suggest"),
    ("data",),
    ("measures",),
    ("validate",),
    ("io",),
    ("aggregate",),
    ("evaluation", "explain", "effort", "demo", "shards", "options", "pooling",
     "submissions"),
    ("stats", "pyterrier"),
    ("plot",),
    ("report",),
    ("reproduce",),
    ("cli", "__main__"),
]
LAYER_OF = {name: level for level, names in enumerate(LAYERS) for name in names}

# Names a library module may import from the package root. ``__version__`` is a
# constant of irmeta/__init__.py, which eagerly imports only irmeta.errors (the bottom
# layer), so reading it can neither form a cycle nor hide a layer.
ROOT_NAMES_ALLOWED = {"__version__"}


@dataclass(frozen=True)
class Import:
    module: str     # the importing module, e.g. "irmeta.stats.correlation"
    line: int
    target: str     # the imported irmeta module, "irmeta" for the package root
    names: tuple[str, ...]  # the names of a ``from`` import, () for ``import x``
    text: str       # the statement as written

    def __str__(self) -> str:
        return f"{self.module} line {self.line}: {self.text}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_package(path: Path) -> bool:
    return path.name == "__init__.py"


def exists(module: str) -> bool:
    """``module`` (dotted) is a module or package of src/."""
    base = SRC.joinpath(*module.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(path: Path, source: str | None = None) -> list[Import]:
    """Every import of an irmeta module in ``path`` (or in ``source``, read as if it
    were that file), at any depth of the syntax tree."""
    if source is None:      # the three checks below read every file: parse it once
        return list(_imports_of_file(path))
    return _imports_of_source(path, source)


@functools.cache
def _imports_of_file(path: Path) -> tuple[Import, ...]:
    return tuple(_imports_of_source(path, path.read_text(encoding="utf-8")))


def _statements(body: list) -> Iterator[ast.stmt]:
    """Every statement of ``body``, nested ones included (an import is a statement, so
    expressions need not be walked: a tenth of the nodes of ``ast.walk``)."""
    for node in body:
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _imports_of_source(path: Path, source: str) -> list[Import]:
    module = module_name(path)
    package = module if is_package(path) else module.rpartition(".")[0]
    lines = source.splitlines()
    found = []
    for node in _statements(ast.parse(source, filename=str(path)).body):
        # the statement's first line (ast.get_source_segment re-splits the whole source
        # at every call: quadratic on a long module)
        text = lines[node.lineno - 1].strip() if isinstance(
            node, (ast.Import, ast.ImportFrom)) else None
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "irmeta" or alias.name.startswith("irmeta."):
                    found.append(Import(module, node.lineno, alias.name, (), text))
        elif isinstance(node, ast.ImportFrom):
            if node.level:      # relative: resolved against the importing package
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target != "irmeta" and not target.startswith("irmeta."):
                continue
            names = tuple(a.name for a in node.names)
            for name in names:  # ``from irmeta.x import y``: y may be a submodule
                sub = f"{target}.{name}"
                found.append(Import(module, node.lineno, sub if exists(sub) else target,
                                    (name,), text))
    return found


def layer(module: str) -> int | None:
    """The layer of ``irmeta.<name>...``; None for the package root."""
    parts = module.split(".")
    if len(parts) == 1:
        return None
    return LAYER_OF[parts[1]]


def library_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def violations(paths, source: str | None = None) -> list[str]:
    out = []
    for path in paths:
        for imp in imports_of(path, source):
            own, theirs = layer(imp.module), layer(imp.target)
            if theirs is None:
                if not imp.names or not set(imp.names) <= ROOT_NAMES_ALLOWED:
                    out.append(f"{imp}  (imports the package root 'irmeta': import the "
                               f"module that defines the name)")
            elif theirs > own:
                out.append(f"{imp}  ({LAYERS[own][0]} layer {own} imports "
                           f"{imp.target}, layer {theirs})")
    return out


def test_every_top_level_name_has_a_layer():
    """A new module or package must be placed in LAYERS (and docs/architecture.md)."""
    names = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir()
             if (p.suffix == ".py" and p.stem != "__init__")
             or (p.is_dir() and (p / "__init__.py").is_file())}
    assert sorted(names - set(LAYER_OF)) == []
    assert sorted(set(LAYER_OF) - names) == []


def test_no_upward_import_and_no_import_of_the_package_root():
    found = violations(library_modules())
    assert not found, "imports against docs/architecture.md:\n" + "\n".join(found)


def import_cycles(paths, sources: dict | None = None) -> list[list[str]]:
    """Cycles of the graph "module -> module it imports" (every explicit import, at any
    depth; the implicit import of a parent package is not an edge). ``sources``: code
    to read instead of some of the files, ``{path: code}``."""
    graph: dict[str, set[str]] = {}
    for path in paths:
        for imp in imports_of(path, (sources or {}).get(path)):
            if imp.target != imp.module:
                graph.setdefault(imp.module, set()).add(imp.target)
    state: dict[str, int] = {}      # 1: on the current path, 2: done
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return cycles


def test_no_import_cycle():
    """Upward imports are refused above, so a cycle could only run inside one layer
    (e.g. evaluation <-> effort); none may."""
    cycles = import_cycles(library_modules() + [PACKAGE / "__init__.py"])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_cycle_finder_can_fail():
    """Two modules of one layer importing each other (one of them in a function, one
    relatively) form a cycle."""
    a, b = PACKAGE / "stats" / "correlation.py", PACKAGE / "stats" / "significance.py"
    code = {a: "from irmeta.stats import significance\n",
            b: "def f():\n    from . import correlation\n"}
    assert import_cycles([a, b], code) == [
        ["irmeta.stats.correlation", "irmeta.stats.significance", "irmeta.stats.correlation"]]


# (importer, imported) pairs of one layer refused all the same: the edge points up the
# data flow. ``options`` is built and checked before anything runs and is passed whole
# to ``shards`` (and ``evaluation``); ``shards.plan`` re-exports ``parse_size`` from it.
SAME_LAYER_REFUSED: set[tuple[str, str]] = {("options", "shards")}


def same_layer_violations(paths, source: str | None = None) -> list[str]:
    """Imports of a refused edge inside one layer (:data:`SAME_LAYER_REFUSED`)."""
    out = []
    for path in paths:
        for imp in imports_of(path, source):
            a, b = imp.module.split("."), imp.target.split(".")
            if len(a) > 1 and len(b) > 1 and (a[1], b[1]) in SAME_LAYER_REFUSED:
                out.append(f"{imp}  (irmeta.{a[1]} may not import irmeta.{b[1]})")
    return out


def test_no_refused_edge_inside_a_layer():
    found = same_layer_violations(library_modules())
    assert not found, "refused imports:\n" + "\n".join(found)


def test_the_same_layer_check_can_fail():
    """The import this check was added for (``options`` importing ``shards.plan`` on
    use) is named; the other direction is fine."""
    code = "def f():\n    from irmeta.shards.plan import parse_size\n"
    found = same_layer_violations([PACKAGE / "options.py"], code)
    assert found == ["irmeta.options line 2: from irmeta.shards.plan import parse_size  "
                     "(irmeta.options may not import irmeta.shards)"]
    assert same_layer_violations([PACKAGE / "shards" / "plan.py"],
                                 "from irmeta.options import parse_size\n") == []


# (importer, private module) pairs allowed across packages: none any more
PRIVATE_IMPORTS_ALLOWED: set[tuple[str, str]] = set()


def private_violations(paths, source: str | None = None) -> list[str]:
    """Imports of a private module (a name starting with ``_``) from outside the package
    that holds it."""
    out = []
    for path in paths:
        for imp in imports_of(path, source):
            parts = imp.target.split(".")
            private = [i for i, p in enumerate(parts) if p.startswith("_") and i > 0]
            if not private:
                continue
            owner = ".".join(parts[:private[0]])
            if imp.module != owner and not imp.module.startswith(owner + ".") \
                    and (imp.module, imp.target) not in PRIVATE_IMPORTS_ALLOWED:
                out.append(f"{imp}  ({imp.target} is private to {owner})")
    return out


def test_private_modules_stay_in_their_package():
    found = private_violations(library_modules())
    assert not found, "private modules imported from outside:\n" + "\n".join(found)


def test_the_private_check_can_fail():
    found = private_violations([PACKAGE / "plot" / "x.py"],
                               "from irmeta.stats._common import progress\n")
    assert found == ["irmeta.plot.x line 1: from irmeta.stats._common import progress  "
                     "(irmeta.stats._common is private to irmeta.stats)"]
    assert private_violations([PACKAGE / "stats" / "x.py"],
                              "from ._common import progress\n") == []


def test_the_layering_is_documented():
    doc = (SRC.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for names in LAYERS:
        for name in names:
            assert f"`{name}`" in doc, f"docs/architecture.md does not place `{name}`"


# ------------------------------------------------------------ the checker can fail
@pytest.mark.parametrize("module_path, code, expected", [
    ("stats/x.py", "def f():\n    import irmeta\n", "line 2: import irmeta"),
    ("stats/x.py", "from irmeta import evaluate\n", "package root"),
    ("data/x.py", "from irmeta.io.trec import read_bytes\n", "imports irmeta.io.trec"),
    ("data/x.py", "from irmeta import io\n", "imports irmeta.io"),
    ("plot/x.py", "def f():\n    from ..report import html\n", "imports irmeta.report.html"),
    ("plot/x.py", "from .. import cli\n", "imports irmeta.cli"),
    ("aggregate/x.py", "import irmeta.evaluation as ev\n", "imports irmeta.evaluation"),
])
def test_the_checker_names_an_upward_import(module_path, code, expected):
    """A planted upward import is reported with its module and line (the planted code
    is read as if it were a new file at ``module_path``)."""
    found = violations([PACKAGE / module_path], code)
    assert len(found) == 1 and expected in found[0], found
    assert found[0].startswith(f"irmeta.{module_path[:-3].replace('/', '.')} line ")


def test_the_checker_accepts_downward_and_allowed_imports():
    code = ("from irmeta import __version__, validate\nfrom . import style\n"
            "import irmeta.errors\n"
            "def f():\n    from irmeta.aggregate.analyses import grid_scores\n")
    assert violations([PACKAGE / "plot" / "x.py"], code) == []
