"""Short notebook displays of result objects: a one-line ``repr`` naming what the object
is, its shape and where its tables are, and an HTML block with the head of each table
(pandas' own ``to_html``, bounded), so that a notebook cell showing a result prints a
few hundred characters, never the whole table (issue 48, item 5)."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

#: table rows / columns shown by :func:`tables_html`
MAX_ROWS = 10
MAX_COLS = 12


def shape(frame: Any) -> str:
    """``rows x columns`` of a DataFrame (``rows`` of a Series)."""
    dims = getattr(frame, "shape", None) or (len(frame),)
    return " x ".join(f"{n:,}" for n in dims)


def tables_repr(name: str, head: str, tables: Mapping[str, Any]) -> str:
    """``Name(head; .table 30 x 8, .stats 50 x 4)``: the tables that are not None."""
    where = ", ".join(f".{attr} {shape(t)}" for attr, t in tables.items() if t is not None)
    return f"{name}({head}" + (f"; {where}" if where else "") + ")"


def tables_html(title: str, tables: Mapping[str, Any], max_rows: int = MAX_ROWS) -> str:
    """An HTML block: ``title``, then each table (attribute name, shape) by its first
    ``max_rows`` rows and :data:`MAX_COLS` columns."""
    parts = [f"<div><p><b>{html.escape(title)}</b></p>"]
    for attr, table in tables.items():
        if table is None:
            continue
        parts.append(f"<p><code>.{html.escape(attr)}</code> ({shape(table)})</p>")
        frame = table.to_frame() if hasattr(table, "to_frame") and table.ndim == 1 else table
        parts.append(frame.to_html(max_rows=max_rows, max_cols=MAX_COLS, show_dimensions=False))
    parts.append("</div>")
    return "\n".join(parts)
