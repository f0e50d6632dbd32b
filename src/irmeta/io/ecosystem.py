"""Qrels and runs from the IR ecosystem: ir_datasets ids, ir_datasets / ir_measures
namedtuples, PyTerrier frames, ranx objects (``docs/ecosystem.md``).

Every form is converted **once** into the tables the file and DataFrame readers build
(:mod:`irmeta.io.frames`), with their checks and messages (a bad row is named by its
position in the iteration). The libraries are imported only when such an input is given;
when one is missing a :class:`~irmeta.errors.ParameterError` names the extra to install
(``pip install 'irmeta[ir_datasets]'``).

* ``"irds:<id>"`` — an ir_datasets id. As qrels: when the dataset's qrels handler is
  ir_datasets' ``TrecQrels`` (most TREC collections), its local file
  (``dataset.qrels_path()``) is read by irmeta's TREC reader, so messages name the file
  and line and a sharded evaluation can partition it; otherwise ``qrels_iter()`` is
  read row by row. As a run: the dataset's ``scoreddocs_iter()`` (one run named by the
  id). ir_datasets may download the file the first time (its own cache,
  ``IR_DATASETS_HOME``); a failed download is an :class:`~irmeta.errors.InputError`.
* An iterable (a generator or a list) of namedtuples with ``query_id, doc_id`` and
  ``relevance`` (qrels: ir_datasets ``TrecQrel``, ir_measures ``Qrel``) or ``score``
  (a run: ``ScoredDoc``).
* ranx ``Qrels`` / ``Run`` objects (a Run keeps its ``name``).
* PyTerrier frames are DataFrames and are read by :mod:`irmeta.io.frames`
  (``qid, docno, label`` / ``qid, docno, score``).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from irmeta.data.tables import Qrels, Run, is_frame
from irmeta.errors import InputError, ParameterError

#: the prefix of an ir_datasets id where a qrels or run path is accepted
IRDS_PREFIX = "irds:"

#: the extra that installs each library (``pip install 'irmeta[<extra>]'``)
EXTRAS = {"ir_datasets": "ir_datasets", "pyterrier": "pyterrier", "ranx": "ranx",
          "ir_measures": "pyterrier", "statsmodels": "pyterrier"}


def require(module: str, what: str) -> Any:
    """Import ``module`` or raise one clear :class:`ParameterError` naming the extra (as
    a missing Dask is: ``irmeta.shards.dask``)."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        extra = EXTRAS.get(package, "ecosystem")
        raise ParameterError(f"{what} needs {package}, which is not installed: "
                             f"pip install 'irmeta[{extra}]'") from None


def is_irds(obj: object) -> bool:
    """Whether ``obj`` is an ``irds:<id>`` string."""
    return isinstance(obj, str) and obj.startswith(IRDS_PREFIX)


def is_ranx(obj: object, kind: str) -> bool:
    """Whether ``obj`` is a ranx ``Qrels`` or ``Run`` (``kind``), without importing ranx."""
    cls = type(obj)
    return cls.__module__.startswith("ranx.") and cls.__name__ == kind


def _dataset(ident: str, what: str) -> Any:
    ir_datasets = require("ir_datasets", f"{what} {ident!r}")
    name = ident[len(IRDS_PREFIX):]
    try:
        return ir_datasets.load(name)
    except KeyError:
        from irmeta.suggest import did_you_mean
        hint = did_you_mean(name, _registered(ir_datasets))
        raise InputError(f"ir_datasets has no dataset {name!r}" + (f"; {hint}" if hint else ""),
                         path=ident,
                         expected="a registered ir_datasets id (ir_datasets.registry)") from None


def _registered(ir_datasets: Any) -> list[str]:
    """The ids ir_datasets' registry lists (none when it cannot say)."""
    try:
        return [str(i) for i in ir_datasets.registry]
    except Exception:   # noqa: BLE001 - only a hint: a registry without a listing gives none
        return []


def _provided(ident: str, step: Any) -> Any:
    """``step()``, a failed ir_datasets download or read as one InputError."""
    try:
        return step()
    except InputError:
        raise
    except Exception as exc:   # ir_datasets raises RuntimeError/OSError/... on downloads
        arg = exc.args[0] if exc.args else ""   # RuntimeError('All download sources failed', [...])
        text = arg if isinstance(arg, str) and arg else str(exc) or type(exc).__name__
        first = text.splitlines()[0]
        raise InputError(f"ir_datasets could not provide the data ({type(exc).__name__}: "
                         f"{first[:300]})", path=ident,
                         expected="the dataset's files downloaded or placed under "
                                  "IR_DATASETS_HOME (docs/ecosystem.md)") from None


def irds_qrels_path(ident: str) -> str | None:
    """The local TREC qrels file of ``irds:<id>`` when ir_datasets reads it as plain TREC
    qrels (``TrecQrels``; downloaded first if needed), else None."""
    ds = _dataset(ident, "qrels")
    if not ds.has_qrels():
        raise InputError(f"ir_datasets dataset {ident[len(IRDS_PREFIX):]!r} has no qrels",
                         path=ident, expected="a dataset that provides qrels")
    cls = type(ds.qrels_handler())   # exactly ir_datasets' TrecQrels, not a subclass
    if (cls.__module__, cls.__name__) != ("ir_datasets.formats.trec", "TrecQrels"):
        return None
    return str(_provided(ident, ds.qrels_path))


def irds_qrels(ident: str) -> Qrels:
    """Qrels of ``irds:<id>`` (see module doc)."""
    path = irds_qrels_path(ident)
    if path is not None:
        from irmeta.io import trec
        return trec.read_qrels(path)
    ds = _dataset(ident, "qrels")
    rows = _provided(ident, lambda: list(ds.qrels_iter()))
    return qrels_from_rows(rows, source=ident)


def irds_run(ident: str) -> Run:
    """The run of ``irds:<id>``: its ``scoreddocs``, named by the id."""
    ds = _dataset(ident, "run")
    if not ds.has_scoreddocs():
        raise InputError(f"ir_datasets dataset {ident[len(IRDS_PREFIX):]!r} has no scoreddocs",
                         path=ident, expected="a dataset that provides scoreddocs "
                                              "(or give its qrels as the qrels)")
    rows = _provided(ident, lambda: list(ds.scoreddocs_iter()))
    return run_from_rows(rows, name=ident[len(IRDS_PREFIX):].replace(" ", "_"), source=ident)


def _peek(obj: Iterable[Any]) -> tuple[Any, Iterable[Any]]:
    """The first item of an iterable and the iterable with that item still in it."""
    if isinstance(obj, (list, tuple)):
        return (obj[0] if obj else None), obj
    it = iter(obj)
    try:
        first = next(it)
    except StopIteration:
        return None, []
    return first, itertools.chain([first], it)


def _fields(item: object) -> tuple[str, ...]:
    fields = getattr(type(item), "_fields", None)
    return tuple(fields) if isinstance(fields, tuple) else ()


def row_kind(item: object) -> str | None:
    """``"qrels"`` or ``"run"`` for an ir_datasets / ir_measures namedtuple, else None."""
    f = _fields(item)
    if "query_id" not in f or "doc_id" not in f:
        return None
    if "relevance" in f:
        return "qrels"
    if "score" in f:
        return "run"
    return None


def is_rows(obj: object, kind: str) -> bool:
    """Whether ``obj`` is a list/tuple whose first item is a namedtuple of ``kind``, or an
    iterator (a generator such as ``qrels_iter()``): generators are taken as rows."""
    if isinstance(obj, (list, tuple)):
        return bool(obj) and row_kind(obj[0]) == kind
    return isinstance(obj, Iterator)


def _frame(rows: Iterable[Any], value: str, what: str, source: str) -> Any:
    import pandas as pd
    first, rows = _peek(rows)
    if first is None:
        raise InputError(f"{what}: no rows", path=source,
                         expected=f"at least one (query_id, doc_id, {value}) row")
    data: dict[str, list[Any]] = {"query_id": [], "doc_id": [], value: []}
    for i, row in enumerate(rows):
        try:
            data["query_id"].append(row.query_id)
            data["doc_id"].append(row.doc_id)
            data[value].append(getattr(row, value))
        except AttributeError:
            raise InputError(f"{what}: row {i} is {type(row).__name__}, not a namedtuple "
                             f"with query_id, doc_id, {value}", path=source,
                             expected=f"(query_id, doc_id, {value}) rows (row {i})") from None
    return pd.DataFrame(data, dtype=object)


def qrels_from_rows(rows: Iterable[Any], source: str = "<rows>") -> Qrels:
    """Qrels from namedtuples with ``query_id, doc_id, relevance``."""
    from irmeta.io import frames
    return frames.qrels_from_frame(_frame(rows, "relevance", "qrels", source), source=source)


def run_from_rows(rows: Iterable[Any], name: str = "run", source: str = "<rows>") -> Run:
    """A run from namedtuples with ``query_id, doc_id, score``."""
    from irmeta.io import frames
    return frames.run_from_frame(_frame(rows, "score", "run", source), name, source=source)


def ranx_qrels(obj: Any) -> Qrels:
    """Qrels from a ranx ``Qrels``."""
    from irmeta.io import frames
    return frames.qrels_from_dict(_ranx_dict(obj), source="<ranx Qrels>")


def ranx_run(obj: Any, name: str | None = None, default: str = "run") -> Run:
    """A run from a ranx ``Run``, named ``name``, else the Run's ``name``, else
    ``default``."""
    from irmeta.io import frames
    given = name or getattr(obj, "name", None) or default
    return frames.run_from_dict(_ranx_dict(obj), str(given), source=f"<ranx Run {given}>")


def _ranx_dict(obj: Any) -> Mapping[Any, Any]:
    data = obj.to_dict()
    return {q: dict(docs) for q, docs in data.items()}


def load_qrels(obj: object) -> Qrels | None:
    """Qrels from an ecosystem form, or None when ``obj`` is none of them."""
    if is_irds(obj):
        return irds_qrels(obj)  # type: ignore[arg-type]
    if is_ranx(obj, "Qrels"):
        return ranx_qrels(obj)
    if not is_frame(obj) and not isinstance(obj, (Mapping, str, bytes)) \
            and is_rows(obj, "qrels"):
        return qrels_from_rows(obj)  # type: ignore[arg-type]
    return None


def load_run(obj: object, name: str | None, default: str = "run") -> Run | None:
    """One run from an ecosystem form, or None when ``obj`` is none of them; named
    ``name``, else by its own name (an ir_datasets id, a ranx Run's ``name``), else
    ``default``."""
    if is_irds(obj):
        run = irds_run(obj)  # type: ignore[arg-type]
        return run.renamed(name) if name else run
    if is_ranx(obj, "Run"):
        return ranx_run(obj, name, default)
    if not is_frame(obj) and not isinstance(obj, (Mapping, str, bytes)) \
            and is_rows(obj, "run"):
        return run_from_rows(obj, name or default)  # type: ignore[arg-type]
    return None
