"""The rendering machinery: number formatting, TSV writing, figure embedding, escaping."""

from __future__ import annotations

import base64
import math

import numpy as np
import pandas as pd
import pytest

from irmeta.errors import ParameterError
from irmeta.report.html import ReportWriter, Row, fmt_number, markup


@pytest.mark.parametrize("value, digits, text", [
    (0.12345, 3, "0.123"), (0.9999, 3, "1.000"), (12, 3, "12"), (12345, 3, "12,345"),
    (np.int64(7), 2, "7"), (float("nan"), 3, "–"), (None, 3, "–"), (True, 3, "yes"),
    (np.float32(0.5), 1, "0.5"), (-0.25, 2, "-0.25"), (float("inf"), 3, "∞"), ("abc", 3, "abc"),
])
def test_fmt_number(value, digits, text):
    assert fmt_number(value, digits) == text


def test_markup_escapes_values():
    out = markup("run <b>{r}</b>", r="<script>x</script>")
    assert str(out) == "run <b>&lt;script&gt;x&lt;/script&gt;</b>"


def _image(path):
    """The image at ``path``, loaded and its file closed (an open file left to the
    garbage collector is a ResourceWarning, an error in this suite)."""
    from PIL import Image
    with Image.open(path) as image:
        image.load()
        return image


@pytest.fixture
def writer():
    """``ReportWriter`` for tests that never render: the staging folder is discarded at
    teardown, as the report and reproductions do after an error (otherwise the garbage
    collector cleans it up with a ResourceWarning, an error in this suite)."""
    made = []

    def make(*args, **kwargs):
        made.append(ReportWriter(*args, **kwargs))
        return made[-1]
    yield make
    for w in made:
        w.discard()


def test_output_must_be_html(tmp_path):
    with pytest.raises(ParameterError, match="ReportWriter: output must end in .html"):
        ReportWriter(tmp_path / "report.txt")


def test_table_tsv_full_precision_and_cells(tmp_path, writer):
    w = writer(tmp_path / "r.html")
    frame = pd.DataFrame({"run": ["a", "b<i>"], "x": [1 / 3, np.nan], "n": [3, 1234]})
    t = w.table("t", frame, digits={"x": 2}, notes={"x": ["#1", ""]}, max_rows=1)
    back = pd.read_csv(w.assets / "t.tsv", sep="\t")        # staged until render()
    assert back["x"][0] == 1 / 3                     # repr precision survives
    assert math.isnan(back["x"][1])
    assert t.total_rows == 2 and len(t.rows) == 1
    assert [c.text for c in t.rows[0]] == ["a", "0.33", "3"]
    assert t.rows[0][1].note == "#1" and t.rows[0][1].sort == pytest.approx(1 / 3)
    assert t.numeric == [False, True, True]
    assert t.tsv == "./r_files/t.tsv"


def test_render_escapes_and_embeds(tmp_path):
    from irmeta.plot import style
    w = ReportWriter(tmp_path / "r.html", title="T <&>")
    sec = w.section("s1", "First <section>", intro=markup("intro <em>{x}</em>", x="<b>"))
    frame = pd.DataFrame({"run": ["<script>alert(1)</script>"], "v": [0.5]})
    fig, ax = style.figure(2, 2)
    ax.plot([0, 1], [0, 1])
    sec.add(Row([w.table("t", frame)]), w.figure("f", fig, caption="cap & more"))
    path = w.render(version="0", command="irmeta x 'a b'", subtitle="", summary=[])
    page = path.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "First &lt;section&gt;" in page and "intro <em>&lt;b&gt;</em>" in page
    assert "cap &amp; more" in page
    start = page.index("data:image/png;base64,") + len("data:image/png;base64,")
    data = base64.b64decode(page[start:page.index('"', start)])
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "r_files" / "f.png").is_file() and (tmp_path / "r_files" / "f.svg").is_file()
    assert data == (tmp_path / "r_files" / "f.png").read_bytes()
    assert 'class="sortable"' in page and "<th" in page


def test_figure_files_are_reproducible(tmp_path, writer):
    """No dates in PNG/SVG metadata: the same figure gives the same bytes."""
    from irmeta.plot import style
    out = []
    for k in range(2):
        w = writer(tmp_path / f"r{k}.html")
        fig, ax = style.figure(2, 2)
        ax.plot([0, 1], [1, 0])
        w.figure("f", fig)
        out.append(((w.assets / "f.png").read_bytes(), (w.assets / "f.svg").read_bytes()))
    assert out[0] == out[1]


def test_public_names():
    """``irmeta.report.__all__`` is honest and the ``html`` submodule stays reachable."""
    import importlib

    import irmeta.report as rp
    for name in rp.__all__:
        assert hasattr(rp, name), name
    mod = importlib.import_module("irmeta.report.html")
    assert hasattr(mod, "ReportWriter") and hasattr(mod, "save_figure")


def _labelled_figure(style):
    """A figure whose labels need the constrained layout (long tick labels, colorbar)."""
    fig, ax = style.figure(3, 2.2)
    image = ax.imshow(np.arange(12.0).reshape(3, 4))
    ax.set_yticks(range(3), ["a rather long run name", "b", "c"])
    ax.set_title("title")
    fig.colorbar(image, ax=ax, label="score")
    return fig


@pytest.mark.slow
def test_one_draw_save_equals_savefig(tmp_path):
    """style.save draws each file once; the pixels and the SVG are those of matplotlib's
    own savefig (which lays out in a dry draw first), and every label is inside."""
    import io
    import pickle

    from irmeta.plot import style
    plt = style.pyplot()
    fig = _labelled_figure(style)
    twin = pickle.loads(pickle.dumps(fig))
    style.save(fig, tmp_path / "ours", ("png", "svg"), dpi=120)
    png, svg = io.BytesIO(), io.BytesIO()
    with plt.rc_context({**style.RC, "svg.hashsalt": "irmeta"}):
        twin.savefig(png, format="png", dpi=120, metadata={"Software": None})
        twin.set_layout_engine("none")
        twin.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(twin)
    ours = np.asarray(_image(tmp_path / "ours.png"))      # RGB: opaque background
    theirs = np.asarray(_image(png))                       # RGBA
    assert ours.shape == (round(2.2 * 120), 3 * 120, 3) and theirs.shape[:2] == ours.shape[:2]
    assert (theirs[..., 3] == 255).all() and np.array_equal(ours, theirs[..., :3])
    # pHYs: per metre
    assert _image(tmp_path / "ours.png").info["dpi"] == pytest.approx((120, 120), abs=0.05)
    assert (tmp_path / "ours.svg").read_bytes() == svg.getvalue()
    ink = (ours < 250).any(axis=2)
    assert ink[:, :2].sum() == 0 and ink[:, -2:].sum() == 0     # nothing cut at the edges


@pytest.mark.slow
def test_wide_title_is_not_cut(tmp_path):
    """The constrained layout ignores a title's width; a title wider than the figure
    makes style.save grow the canvas around it (bbox_inches='tight'), in every file."""
    from irmeta.plot import style
    fig, ax = style.figure(2, 1.5)
    ax.plot([0, 1], [0, 1])
    ax.set_title("a title much wider than this small figure can hold, by far")
    png, svg = style.save(fig, tmp_path / "wide", ("png", "svg"), dpi=100)
    assert _image(png).size[0] > 2 * 100 + 100          # grown well beyond 2 inches
    assert 'width="144pt"' not in svg.read_text()          # the SVG grew too
    fig, ax = style.figure(2, 1.5)
    ax.plot([0, 1], [0, 1])
    ax.set_title("short")
    png, _ = style.save(fig, tmp_path / "short", ("png", "svg"), dpi=100)
    assert _image(png).size == (200, 150)               # the one-draw path


@pytest.mark.parametrize("formats, phrase", [
    (("png", "svg"), "every figure a PNG and an SVG file"),
    (("png",), "every figure a PNG file"),
    (("png", "svg", "pdf"), "every figure PNG, SVG and PDF files")])
def test_footer_names_the_figure_formats_written(tmp_path, formats, phrase):
    w = ReportWriter(tmp_path / "r.html", formats=formats)
    w.section("s", "S").text("body")
    assert phrase in w.render().read_text()


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_background_figure_error_reaches_the_parent(tmp_path, writer):
    """A figure that fails to save in its child process raises in the parent, with the
    child's own exception, when the page is rendered."""
    from irmeta.plot import style
    w = writer(tmp_path / "r.html", formats=("png", "bmpx"), background=1)
    fig, ax = style.figure(2, 2)
    ax.plot([0, 1], [1, 0])
    w.section("s", "S").add(w.figure("f", fig))
    with pytest.raises(ValueError, match="bmpx"):
        w.render()


#: the template's loop over the cells before ``html.table_rows`` replaced it: the
#: reference the filter must reproduce byte for byte
_LOOP = """{% for row in t.rows %}
      <tr>{% for c in row %}<td{% if t.numeric[loop.index0] or c.cls %} class="{{ 'num ' if t.numeric[loop.index0] else '' }}{{ c.cls }}"{% endif %}{% if c.sort is not none %} data-sort="{{ c.sort }}"{% endif %}>{% if c.href %}<a href="{{ c.href }}">{{ c.text }}</a>{% else %}{{ c.text }}{% endif %}{% if c.note %} <span class="note">{{ c.note }}</span>{% endif %}</td>{% endfor %}</tr>
{% endfor %}"""  # noqa: E501


def _cells():
    from markupsafe import Markup

    from irmeta.report.html import Cell
    odd = "a&b <i> 'q' \"d\""
    return [[Cell("0.125", 0.125), Cell(odd, odd, note=odd, cls="best", href="#x&y"),
             Cell("–", None), Cell("7", 7, note=Markup("<b>tie</b>"))],
            [Cell("0", 0.0), Cell("", "", cls=odd), Cell("1e-07", 1e-07, href="a b"),
             Cell(Markup("<em>x</em>"), np.float64(0.5))]]


def test_table_rows_writes_what_the_template_loop_wrote():
    import jinja2

    from irmeta.report.html import Table, environment, table_rows
    env = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)
    for numeric in ([True, False, True, False], [False, True, False, True]):
        t = Table("t", list("abcd"), _cells(), numeric=numeric)
        expected = env.from_string(_LOOP).render(t=t)
        assert str(table_rows(t)) == expected
        # and through the report's environment, as the page's template uses it
        assert environment().from_string("{{ t|table_rows }}").render(t=t) == expected
    assert "&amp;b &lt;i&gt; &#39;q&#39; &#34;d&#34;" in expected and "<b>tie</b>" in expected
