"""The appendix made cheap (issue 44: at most 30% on the 63-run DL21 report) without
changing what it shows: the bar chart drawn over a background kept from one full draw
has the pixels of a full draw, the same values give the same PNG bytes whatever was drawn
before, and the cell formatting of a float column at once is the value-by-value one."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

from irmeta.report import blocks


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


@pytest.fixture
def bars():
    from irmeta.plot.meta import VsMedianBars
    chart = VsMedianBars([f"t{i}" for i in range(30)], "nDCG@10", 0.6)
    yield chart
    chart.close()


def _values(seed: int, n: int = 30) -> np.ndarray:
    v = np.random.default_rng(seed).uniform(-0.5, 0.5, n)
    v[3] = np.nan                         # no bar
    v[4] = 0.0
    return v


def test_a_page_drawn_over_the_background_is_a_full_draw(bars):
    from irmeta.plot import style
    for seed in range(3):                                   # a few runs drawn before
        bars.png(_values(seed), f"run{seed}")
    fast = np.asarray(bars.canvas.buffer_rgba()).copy()
    with style.pyplot().rc_context(style.RC):
        bars.canvas.draw()                                  # everything, drawn again
    full = np.asarray(bars.canvas.buffer_rgba())
    assert (fast != full).any(axis=2).sum() <= 10           # antialiasing at most


def test_the_same_values_give_the_same_bytes_after_any_other_run(bars):
    from irmeta.plot.meta import VsMedianBars
    first = bars.png(_values(7), "run7")
    bars.png(_values(1), "a much longer run name than the first one")
    again = bars.png(_values(7), "run7")
    other = VsMedianBars([f"t{i}" for i in range(30)], "nDCG@10", 0.6)
    try:
        alone = other.png(_values(7), "run7")
    finally:
        other.close()
    assert first == again == alone
    assert first.startswith(b"\x89PNG") and b"Software" not in first


def test_the_bars_and_the_title_are_drawn(bars):
    image = _pixels(bars.png(_values(2), "runA")).astype(int)
    h, w, _ = image.shape
    blue = (np.abs(image - [0x00, 0x72, 0xB2]).sum(axis=2) < 30).sum()
    orange = (np.abs(image - [0xD5, 0x5E, 0x00]).sum(axis=2) < 30).sum()
    assert blue > 100 and orange > 100                       # bars of both signs
    top = image[: h // 10]                                   # the title's band
    assert (top.sum(axis=2) < 300).sum() > 50
    empty = _pixels(bars.png(np.full(30, np.nan), "runB")).astype(int)
    assert (np.abs(empty - [0x00, 0x72, 0xB2]).sum(axis=2) < 30).sum() == 0


def test_a_wrong_number_of_values_is_refused(bars):
    with pytest.raises(ValueError, match="30 topics"):
        bars.png(np.zeros(29), "run")


def test_save_writes_the_png(bars, tmp_path):
    path = bars.save(_values(3), "run3", tmp_path / "x.png")
    assert path.read_bytes() == bars.png(_values(3), "run3")


def _generic(frame: pd.DataFrame, **options) -> list:
    """The cells as :func:`blocks.table_block` made them value by value before."""
    cols = list(frame.columns)
    numeric = [pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c]) for c in cols]
    digits = options.get("digits", 3)
    formats = options.get("formats") or {}
    out = []
    for j, c in enumerate(cols):
        d = digits.get(c, 3) if isinstance(digits, dict) else digits
        texts, sorts = blocks._cells(frame.iloc[:, j], d, numeric[j], formats.get(c))
        out.append(list(zip(texts, sorts)))
    return [list(r) for r in zip(*out)]


def test_float_columns_at_once_are_formatted_as_value_by_value():
    frame = pd.DataFrame({
        "run": ["a", "b", "c", "d", "e"],
        "x": [0.12345, math.nan, math.inf, -math.inf, -0.0],
        "n": [1.0, 2.0, 1e16, math.nan, 3.5],
        "f32": np.array([0.5, 1.25, np.nan, 2.0, -1.0], dtype=np.float32),
        "k": [1, 2, 3, 4, 5],
        "f": [0.1, 0.2, 0.3, math.nan, 1.0],
    })
    options = dict(digits={"n": 0, "x": 2}, formats={"f": lambda v: f"{v:.0%}"},
                   notes={"x": ["†", "", "", "", ""]}, classes={"n": ["up"] * 3},
                   links={"run": ["#a", "#b", "#c", "#d", "#e"]})
    table = blocks.table_block("t", frame, None, **options)
    got = [[(c.text, c.sort) for c in row] for row in table.rows]
    assert got == _generic(frame, **options)
    assert table.rows[0][1].note == "†" and table.rows[0][0].href == "#a"
    assert table.rows[3][2].cls == "" and table.rows[2][2].cls == "up"   # padded
    assert [c.text for c in table.rows[1]][:3] == ["b", "–", "2"]
    assert blocks.table_block("t", frame.iloc[:0], None).rows == []
    assert len(blocks.table_block("t", frame, None, max_rows=2).rows) == 2


def test_the_fast_escape_is_markupsafes():
    from markupsafe import Markup, escape

    from irmeta.report.html import _escape
    values = ["plain", "", "a&b", "<td>", "it's", 'say "x"', "1.5", "–", "∞ é",
              Markup("<b>trusted</b>"), 0.1, -0.0, math.nan, math.inf, 3, -7, True,
              np.float64(0.25), np.int64(4), None, 10**20, 1e-300]
    for v in values:
        assert _escape(v) == str(escape(v)), v
