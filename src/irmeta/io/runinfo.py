"""Run attributes for the campaign report (``irmeta report --run-info FILE``): a TSV
whose header row is ``run`` then the attribute names (``group``, ``type``, ``model``,
...), then one row per run. Validated like every input: a bad header, a row with the
wrong number of fields, a run given twice, a run the campaign does not have and a run
of the campaign the file lacks are each an :class:`~irmeta.errors.InputError` naming
the file and the line (exit 2 from the CLI)."""

from __future__ import annotations

import os
from collections.abc import Sequence

import pandas as pd

from irmeta.data.tables import decode_id
from irmeta.errors import InputError, ParameterError
from irmeta.io import trec
from irmeta.io.tokens import unify_line_ends

__all__ = ["check_run_info", "read_run_info"]


def read_run_info(path: str | os.PathLike[str], runs: Sequence[str] | None = None
                  ) -> pd.DataFrame:
    """Read a run-info TSV into a frame indexed by run (campaign order with ``runs``),
    one string column per attribute (header order). Blank lines and lines starting
    with ``#`` are skipped; fields are separated by tabs (an attribute value may hold
    spaces). With ``runs``, the file must name exactly the campaign's runs."""
    where = str(path)
    raw = unify_line_ends(trec.read_bytes(path)).split(b"\n")
    header: list[str] | None = None
    rows: dict[str, list[str]] = {}
    line_of: dict[str, int] = {}
    for lineno, line in enumerate(raw, 1):
        text = decode_id(line).rstrip("\r")
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        fields = [f.strip() for f in text.split("\t")]
        if header is None:
            if fields[0].lower() != "run" or len(fields) < 2:
                raise InputError(f"bad header {text!r}", path=where, line=lineno,
                                 expected="a header row: run<TAB>attribute[<TAB>attribute "
                                          "...], e.g. run<TAB>group<TAB>type")
            names = fields[1:]
            bad = [n for n in names if not n]
            dupes = sorted({n for n in names if names.count(n) > 1})
            if bad or dupes:
                raise InputError("bad header: " + ("an empty attribute name" if bad else
                                 f"attribute {dupes[0]!r} named twice"), path=where,
                                 line=lineno, expected="distinct, non-empty attribute names")
            header = fields
            continue
        if len(fields) != len(header):
            raise InputError(f"{len(fields)} fields", path=where, line=lineno,
                             expected=f"{len(header)} tab-separated fields: "
                                      + ", ".join(header))
        run = fields[0]
        if run in rows:
            raise InputError(f"run {run!r} is given twice (first on line {line_of[run]})",
                             path=where, line=lineno, expected="one row per run")
        rows[run] = fields[1:]
        line_of[run] = lineno
    if header is None:
        raise InputError("no header row", path=where,
                         expected="a header row: run<TAB>attribute ...")
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=header[1:], dtype=object)
    frame.index.name = "run"
    if runs is not None:
        unknown = [r for r in frame.index if r not in set(runs)]
        if unknown:
            raise InputError(f"run {unknown[0]!r} is not a run of the campaign"
                             + (f" ({len(unknown)} such runs)" if len(unknown) > 1 else ""),
                             path=where, line=line_of[unknown[0]],
                             expected="the campaign's run names (after naming by file)")
        missing = [r for r in runs if r not in rows]
        if missing:
            raise InputError(f"no row for run(s) {', '.join(missing[:5])}"
                             + (f" and {len(missing) - 5} more" if len(missing) > 5 else ""),
                             path=where, expected="one row for every run of the campaign")
        frame = frame.reindex(list(runs))
    return frame


def check_run_info(info: object, runs: Sequence[str], func: str) -> pd.DataFrame | None:
    """``info`` (None, a path, or a frame indexed by run with one column per attribute)
    as a frame of the campaign's runs in campaign order; a path is read with
    :func:`read_run_info`."""
    if info is None:
        return None
    if isinstance(info, (str, os.PathLike)):
        return read_run_info(info, runs)
    if not isinstance(info, pd.DataFrame) or info.shape[1] < 1:
        raise ParameterError(f"{func}: run_info must be a path or a DataFrame indexed by run "
                             "with one column per attribute")
    index = [str(r) for r in info.index]
    dupes = sorted({r for r in index if index.count(r) > 1})
    unknown = [r for r in index if r not in set(runs)]
    missing = [r for r in runs if r not in set(index)]
    if dupes or unknown or missing:
        raise ParameterError(f"{func}: run_info " + (
            f"names run {dupes[0]!r} twice" if dupes else
            f"names run {unknown[0]!r}, not a run of the campaign" if unknown else
            f"has no row for run(s) {', '.join(missing[:5])}"))
    frame = info.copy()
    frame.index = index
    frame.index.name = "run"
    return frame.reindex(list(runs)).astype(str).astype(object)
