"""Packaging hygiene (issue 15, item 6): one version source, every import declared,
the files a release needs. See docs/packaging.md."""

import ast
import importlib.metadata
import json
import re
import sys
import tomllib
from pathlib import Path

import pytest

import irmeta

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "irmeta"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# import name -> distribution name, where the two differ
IMPORT_TO_DIST = {"PIL": "pillow", "yaml": "pyyaml", "sklearn": "scikit-learn",
                  "dateutil": "python-dateutil", "zstd": "zstandard"}


def _dist_name(requirement):
    """'numpy>=1.26' -> 'numpy' (PEP 503 normalised)."""
    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement).group(1)
    return re.sub(r"[-_.]+", "-", name).lower()


def _declared():
    return {_dist_name(r) for r in PYPROJECT["project"]["dependencies"]}


def _is_guarded(node, parents):
    """True when the import sits in the body of a try whose handlers catch ImportError
    (or ModuleNotFoundError, or everything): an optional import."""
    child = node
    for parent in parents:
        if isinstance(parent, ast.Try) and child in parent.body:
            for handler in parent.handlers:
                names = ([] if handler.type is None else
                         [n.id for n in ast.walk(handler.type) if isinstance(n, ast.Name)])
                if handler.type is None or {"ImportError", "ModuleNotFoundError",
                                            "Exception"} & set(names):
                    return True
        child = parent
    return False


def third_party_imports(src=SRC):
    """{top-level module: [(file, line, guarded)]} for every absolute import under src
    that is neither the standard library nor irmeta itself."""
    found = {}
    for path in sorted(src.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        parents = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                parents[child] = parent

        def chain(node):
            while node in parents:
                node = parents[node]
                yield node

        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                if top in sys.stdlib_module_names or top == "irmeta":
                    continue
                found.setdefault(top, []).append(
                    (str(path.relative_to(src.parent)), node.lineno,
                     _is_guarded(node, chain(node))))
    return found


def undeclared(found, declared):
    """Modules imported unguarded somewhere but not declared as a dependency."""
    return {top: [f"{f}:{n}" for f, n, guarded in where if not guarded]
            for top, where in found.items()
            if _dist_name(IMPORT_TO_DIST.get(top, top)) not in declared
            and not all(guarded for _, _, guarded in where)}


@pytest.mark.slow
def test_every_third_party_import_is_declared():
    missing = undeclared(third_party_imports(), _declared())
    assert not missing, f"imported but not in pyproject dependencies: {missing}"


def test_the_import_scan_sees_imports_and_guards(tmp_path):
    """The scan itself: an undeclared import is reported, a guarded one is not, the
    standard library and irmeta are ignored, distribution names are mapped."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "a.py").write_text(
        "import os, json\nimport numpy as np\nfrom irmeta import errors\n"
        "from yaml import safe_load\nimport PIL.Image\nfrom . import b\n"
        "def f():\n    import requests\n"
        "try:\n    import zstandard\nexcept ImportError:\n    zstandard = None\n")
    found = third_party_imports(pkg)
    assert set(found) == {"numpy", "yaml", "PIL", "requests", "zstandard"}
    assert found["zstandard"][0][2] is True and found["requests"][0][2] is False
    missing = undeclared(found, {"numpy", "pillow"})
    assert set(missing) == {"yaml", "requests"}
    assert set(undeclared(found, {"numpy", "pillow", "pyyaml", "requests"})) == set()


def test_version_has_one_source():
    """pyproject takes the version from irmeta.__version__; it writes none itself."""
    project = PYPROJECT["project"]
    assert "version" not in project, "pyproject.toml must not write the version"
    assert "version" in project.get("dynamic", [])
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "irmeta.__version__"}


def _static_version():
    """What setuptools resolves `attr = "irmeta.__version__"` to: it reads the literal
    assignment in src/irmeta/__init__.py without importing the package."""
    tree = ast.parse((SRC / "__init__.py").read_text(encoding="utf-8"))
    values = [node.value.value for node in tree.body
              if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
              and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)]
    assert len(values) == 1, "__version__ must be assigned once, as a string literal"
    return values[0]


def test_resolved_version_is_the_package_version():
    version = _static_version()
    assert version == irmeta.__version__
    # PEP 440 public version (a release, optionally pre/post/dev)
    assert re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", version)


def _installed_from_here():
    try:
        dist = importlib.metadata.distribution("irmeta")
    except importlib.metadata.PackageNotFoundError:
        return None
    url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    return dist if url.rstrip("/") == ROOT.as_uri() else None


def test_installed_metadata_version_is_the_package_version():
    """`pip install (-e) .` from this checkout (the README's and .ci/run's command)
    writes metadata whose version is irmeta.__version__. A distribution installed from
    another checkout has its own, possibly stale, metadata: nothing to check then."""
    dist = _installed_from_here()
    if dist is None:
        pytest.skip("irmeta is not installed from this checkout (its metadata would be "
                    "another tree's)")
    assert importlib.metadata.version("irmeta") == irmeta.__version__ == _static_version()
    assert dist.metadata["License-Expression"] in (None, "MIT")


def test_release_files_are_there():
    assert PYPROJECT["project"]["license"] == "MIT"
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License") and "irmeta developers" in license_text
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    assert f"## [{irmeta.__version__}]" in changelog
    assert (ROOT / "CITATION.cff").is_file()


def test_citation_names_the_tool_version_and_four_papers():
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    assert re.search(r"^title: irmeta$", text, re.M)
    assert re.search(rf'^version: "?{re.escape(irmeta.__version__)}"?$', text, re.M)
    assert re.search(r"^license: MIT$", text, re.M)
    assert len(re.findall(r"^  - type: ", text, re.M)) == 4
    for title in ("New Metrics to Encourage Innovation and Diversity",
                  "Normalized Residual Gain", "The Twist Measure for IR Evaluation",
                  "Generalized Adaptive-weight Mean"):
        assert title in text


def test_package_data_files_exist():
    """Every package-data pattern matches a file (py.typed was declared and missing)."""
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        base = ROOT / "src" / package
        for pattern in patterns:
            assert any(p.is_file() for p in base.glob(pattern)), f"{package}: {pattern}"


def test_py_typed_is_shipped():
    """The mypy gate is on, so irmeta marks itself typed (PEP 561) for users' checkers."""
    assert (SRC / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["irmeta"]


def test_generated_examples_are_not_committed():
    """docs/examples/ is rebuilt by scripts/reproduce_examples.sh and ignored by git."""
    ignore = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert "/docs/examples/" in ignore
    assert (ROOT / "scripts" / "reproduce_examples.sh").is_file()


def test_doc_links_resolve():
    """Every relative link of README, CHANGELOG and docs/*.md points to a committed file;
    a link into the generated docs/examples/ only from a page that says how to build it."""
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            if (ROOT / "docs" / "examples") in path.parents:
                if "scripts/reproduce_examples.sh" not in text:
                    broken.append(f"{page.name}: {target} (generated, build step not named)")
            elif not path.exists():
                broken.append(f"{page.name}: {target}")
    assert not broken, broken


@pytest.mark.parametrize("argv,status", [(["--version"], 0), (["eval", "/no/such/qrels"], 2)])
def test_the_console_script_exits_with_the_status_of_main(monkeypatch, capsys, argv, status):
    """``irmeta`` is ``irmeta.cli.entry:run`` (start-up signals answered, then
    ``irmeta.cli.main:run``): main()'s status, the heap frozen first."""
    import gc

    from irmeta.cli.entry import run
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"irmeta": "irmeta.cli.entry:run"}
    monkeypatch.setattr(sys, "argv", ["irmeta", *argv])
    try:
        with pytest.raises(SystemExit) as exc:
            run()
    finally:
        gc.unfreeze()
    assert exc.value.code == status
