"""Generate docs/api.md, the API reference, from the public names and their docstrings.

    python scripts/api_reference.py            # rewrite docs/api.md
    python scripts/api_reference.py --check    # exit 1 when docs/api.md is out of date

No Sphinx: the public names are read from each module's ``__all__`` (``irmeta.effort``,
which has none, from its public definitions), signatures from :func:`inspect.signature`
and text from :func:`inspect.getdoc`. Numpydoc sections (Parameters, Returns, Raises ...)
are shown as preformatted blocks, Examples as ``pycon`` blocks (they run as doctests in
``tests/unit/test_doctests.py``). ``tests/unit/test_api_reference.py`` fails when the page
differs from what this script writes, so a docstring change comes with its page.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = ROOT / "docs" / "api.md"

#: (module, title) in page order; each module's public names are documented in order
SECTIONS = [
    ("irmeta", "Evaluating runs"),
    ("irmeta.demo", "The demo campaign"),
    ("irmeta.aggregate", "Aggregating a score matrix"),
    ("irmeta.stats", "Meta-evaluation: correlation, significance, discriminative power"),
    ("irmeta.explain", "Explaining context scores per document"),
    ("irmeta.effort", "Effort analysis (Twist)"),
    ("irmeta.pyterrier", "PyTerrier: pt.Experiment as one campaign"),
    ("irmeta.errors", "Errors and warnings"),
]

_NUMPYDOC = ("Parameters", "Returns", "Yields", "Raises", "Warns", "See Also", "Notes",
             "Attributes", "Other Parameters")
_SKIPPED_ROOT = {"__version__"}


def public_names(module_name: str) -> list[str]:
    """The names a module makes public: its ``__all__``, else its own public functions and
    classes in source order."""
    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, obj in vars(module).items()
                 if not n.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
                 and obj.__module__ == module_name]
    return [n for n in names if n not in _SKIPPED_ROOT]


def _signature(obj: object) -> str:
    try:
        return str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""


def _docstring(text: str) -> list[str]:
    """Markdown of a docstring: prose as is, numpydoc sections preformatted, Examples
    as pycon blocks."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        underline = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"-{3,}", underline.strip()):
            header = line.strip()
            i += 2
            block: list[str] = []
            while i < len(lines) and not (lines[i].strip() and i + 1 < len(lines)
                                          and re.fullmatch(r"-{3,}", lines[i + 1].strip())):
                block.append(lines[i])
                i += 1
            while block and not block[-1].strip():
                block.pop()
            out.append(f"**{header}**")
            out.append("")
            if header == "Examples":
                out.extend(_examples(block))
            else:
                out.extend(["```text", *block, "```", ""])
            continue
        out.append(line)
        i += 1
    while out and not out[-1].strip():
        out.pop()
    return out


def _examples(block: list[str]) -> list[str]:
    """Doctest runs as ``pycon`` blocks, the prose between them as paragraphs."""
    out: list[str] = []
    code: list[str] = []
    in_code = False
    for line in block + [""]:
        if line.startswith(">>>") or (in_code and line.strip()):
            in_code = True
            code.append(line)
            continue
        if in_code:
            out.extend(["```pycon", *code, "```", ""])
            code, in_code = [], False
        if line.strip() or (out and out[-1].strip()):
            out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out + [""]


def _entry(qualname: str, obj: object, level: int = 3) -> list[str]:
    kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "constant"
    head = "#" * level + f" `{qualname}`"
    out = [head, ""]
    if kind in ("class", "function"):
        out += ["```python", f"{'class ' if kind == 'class' else ''}{qualname}"
                f"{_signature(obj)}", "```", ""]
        doc = inspect.getdoc(obj)
        out += (_docstring(doc) if doc else ["*(no docstring)*"]) + [""]
    else:
        value = re.sub(r" at 0x[0-9a-fA-F]+", "", repr(obj))   # no memory addresses
        if len(value) > 200:
            value = value[:200] + " ..."
        out += ["```python", f"{qualname} = {value}", "```", ""]
    if inspect.isclass(obj) and not issubclass(obj, BaseException):
        out += _members(qualname, obj)
    return out


def _documented_classes() -> set[type]:
    """The classes the page documents under their own heading."""
    return {obj for module_name, _ in SECTIONS for name in public_names(module_name)
            if inspect.isclass(obj := getattr(importlib.import_module(module_name), name))}


def _own_and_mixin_members(cls: type) -> dict[str, object]:
    """``vars`` of the class and of its irmeta mixins (bases the page does not document on
    their own, such as ``RunTopicShape``), mixins first; members of documented bases are
    documented there."""
    documented = _documented_classes()
    members: dict[str, object] = {}
    for base in reversed(cls.__mro__[1:]):
        if base.__module__.startswith("irmeta") and base not in documented:
            members.update(vars(base))
    members.update(vars(cls))
    return members


def _members(qualname: str, cls: type) -> list[str]:
    """Public methods and properties defined on the class itself and on its irmeta mixins
    (not those inherited from a documented class or from outside irmeta)."""
    out: list[str] = []
    for name, member in _own_and_mixin_members(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(member, property):
            doc = inspect.getdoc(member)
            out += [f"#### `{qualname}.{name}` (property)", ""]
            out += (_docstring(doc) if doc else ["*(no docstring)*"]) + [""]
        elif inspect.isfunction(member):
            out += [f"#### `{qualname}.{name}`", "", "```python",
                    f"{qualname}.{name}{_signature(member)}", "```", ""]
            doc = inspect.getdoc(member)
            out += (_docstring(doc) if doc else ["*(no docstring)*"]) + [""]
    return out


def render() -> str:
    """The whole page."""
    out = ["# API reference", "",
           "Generated by `python scripts/api_reference.py` from the public names and their",
           "docstrings; do not edit by hand (`tests/unit/test_api_reference.py` fails when",
           "this page is out of date). The Examples run as doctests "
           "(`tests/unit/test_doctests.py`).", ""]
    out += ["## Contents", ""]
    for module_name, title in SECTIONS:
        anchor = re.sub(r"[^a-z0-9 -]", "", f"{module_name} {title}".lower()).replace(" ", "-")
        out.append(f"* [`{module_name}`: {title}](#{anchor})")
    out.append("")
    for module_name, title in SECTIONS:
        module = importlib.import_module(module_name)
        out += [f"## `{module_name}`: {title}", ""]
        for name in public_names(module_name):
            out += _entry(f"{module_name}.{name}", getattr(module, name))
    text = "\n".join(out)
    return re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"


def new_page(current: str) -> str:
    """The page as this script writes it (``_generated`` protocol): all of it."""
    return render()


if __name__ == "__main__":
    import _generated
    sys.exit(_generated.main(sys.modules[__name__]))
