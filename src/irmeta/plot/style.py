"""One house style for every irmeta figure, and saving to PNG + SVG.

matplotlib is imported inside the functions: importing irmeta never pulls it in.
"""

from __future__ import annotations

from pathlib import Path

#: colour cycle (colour-blind safe, Okabe-Ito)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000"]

RC: dict[str, object] = {
    "figure.dpi": 110, "savefig.dpi": 200, "font.size": 9, "axes.titlesize": 10,
    "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
    "grid.alpha": 0.3, "grid.linewidth": 0.5, "lines.linewidth": 1.4,
    "svg.fonttype": "none", "figure.constrained_layout.use": True,
}
#: the house resolution of saved raster images (RC's ``savefig.dpi``)
_DEFAULT_DPI = 200


def pyplot():
    """matplotlib.pyplot with a non-interactive backend unless one is already chosen."""
    import matplotlib
    if matplotlib.get_backend().lower() not in ("agg", "svg", "pdf", "module://matplotlib_inline.backend_inline"):
        try:
            matplotlib.use("Agg", force=False)
        except Exception:  # noqa: BLE001 - a backend already in use is fine
            pass
    import matplotlib.pyplot as plt
    return plt


#: the longest axis or tick label drawn as given; a longer one (a parameterised measure
#: such as ``nDCG(gains={0:0,...,59:59})@10``) would leave the axes no room at all
LABEL_LIMIT = 40


def short_label(text: object, limit: int = LABEL_LIMIT) -> str:
    """``text`` as a label of at most ``limit`` characters: itself, or its start and end
    around an ellipsis (the tables and TSVs keep the whole name).

    >>> short_label("nDCG@10")
    'nDCG@10'
    >>> short_label("nDCG(gains={" + "0:0," * 30 + "1:1})@10")
    'nDCG(gains={0:0,0:0,0:0,0:…,0:0,1:1})@10'
    """
    text = str(text)
    if len(text) <= limit:
        return text
    tail = limit // 3
    return text[:limit - tail - 1] + "…" + text[-tail:]


def figure(width: float = 5.0, height: float = 3.5, **kwargs):
    """A new (fig, ax) in the house style; ``kwargs`` as :meth:`Figure.subplots`.

    The figure is made without pyplot (a :class:`~matplotlib.figure.Figure` on an Agg
    canvas): pyplot's current figure and list of figures stay as they were, so a
    ``plt.plot()`` or ``DataFrame.plot()`` after an irmeta figure draws into a new
    figure, not into irmeta's, and a notebook shows the returned figure once (its
    display), not a second time at the end of the cell."""
    plt = pyplot()
    from cycler import cycler
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    with plt.rc_context({**RC, "axes.prop_cycle": cycler(color=PALETTE)}):
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)
        ax = fig.subplots(**kwargs)
    fig.set_layout_engine("constrained")
    return fig, ax


def save(fig, path, formats=("png", "svg"), *, dpi: int | None = None) -> list[Path]:
    """Save ``fig`` as ``path`` with each suffix in ``formats`` (the path's own suffix
    is ignored; PNG at ``dpi``, default the house ``savefig.dpi``); returns the written
    paths and closes the figure.

    Each file costs one draw. ``Figure.savefig`` draws twice whenever a layout engine
    is set (a dry draw to lay out, then the real one), and ``bbox_inches="tight"``
    would add a third; here the first file's draw also runs the constrained layout,
    and the layout is then frozen for the other files: same geometry in every file,
    half the drawing. The constrained layout fits every label inside the figure except
    the width of titles; when a title sticks out after the first draw, the files are
    written again with ``bbox_inches="tight"``, which grows the canvas around it (the
    rare slow path). The files carry no creation date or software version, so a figure
    is reproduced byte for byte. Missing folders are created; each file is written all
    or nothing (:func:`irmeta.io.output.atomic_write`), and a file that cannot be
    written is an :class:`~irmeta.errors.OutputError`.
    """
    from irmeta.io.output import write_errors
    plt = pyplot()
    stem = Path(path)
    if stem.suffix.lower() in (".png", ".svg", ".pdf"):
        stem = stem.with_suffix("")
    out = []
    try:
        with write_errors(stem.parent):
            stem.parent.mkdir(parents=True, exist_ok=True)
        with plt.rc_context({**RC, "svg.hashsalt": "irmeta"}):
            targets = [stem.with_name(f"{stem.name}.{fmt}") for fmt in formats]
            for k, (fmt, target) in enumerate(zip(formats, targets)):
                _write(_WRITERS.get(fmt, _save_other), fig, target, fmt, dpi or _DEFAULT_DPI)
                out.append(target)
                if k == 0:
                    fig.set_layout_engine("none")
                    if _title_outside(fig):
                        for f, t in zip(formats, targets):
                            _write(_save_other, fig, t, f, dpi or _DEFAULT_DPI, tight=True)
                        return targets
    finally:
        plt.close(fig)
    return out


def save_png(fig, target, dpi: int) -> Path:
    """Write ``fig`` as the PNG ``target`` (one draw, the figure left open and its layout
    as it is): for a figure drawn again and again with new data (the appendix's bars)."""
    from irmeta.io.output import write_errors
    target = Path(target)
    with write_errors(target), pyplot().rc_context(RC):
        _write(_save_png, fig, target, "png", dpi)
    return target


def _write(writer, fig, target: Path, fmt: str, dpi: int, **kwargs) -> None:
    """Run one of the writers below on ``target``, all or nothing."""
    from irmeta.io.output import atomic_write
    with atomic_write(target, "wb") as fh:
        writer(fig, fh, fmt, dpi, **kwargs)


def _save_png(fig, target, fmt: str, dpi: int) -> None:
    """One Agg draw at ``dpi`` (laying out the figure), its pixels encoded as PNG: RGB
    when the figure background is opaque (a quarter less to compress, and zlib level
    3, which on these flat-coloured plots compresses as well as the default 6 and
    about 40% faster), RGBA otherwise."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from PIL import Image
    fig.set_dpi(dpi)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    image = Image.frombuffer("RGBA", canvas.get_width_height(physical=True),
                             canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    if fig.patch.get_visible() and fig.patch.get_facecolor()[3] == 1.0:
        image = image.convert("RGB")
    image.save(target, format="png", compress_level=3, dpi=(dpi, dpi))


def _save_svg(fig, target, fmt: str, dpi: int) -> None:
    """One SVG draw; raster images inside at the house ``savefig.dpi``, as savefig."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    fig.set_dpi(RC["savefig.dpi"])
    FigureCanvasSVG(fig).print_svg(target, metadata=_METADATA["svg"])


def _save_other(fig, target, fmt: str, dpi: int, tight: bool = False) -> None:
    fig.savefig(target, format=fmt, dpi=dpi if fmt == "png" else None,
                metadata=_METADATA.get(fmt), bbox_inches="tight" if tight else None)


def _title_outside(fig) -> bool:
    """A title (axes titles, suptitle) reaches beyond the figure after the layout: the
    constrained layout counts only their height, so that a wide title does not squeeze
    its axes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()
    width = fig.bbox.width
    titles = [getattr(ax, name, None) for ax in fig.axes
              for name in ("title", "_left_title", "_right_title")]
    titles.append(getattr(fig, "_suptitle", None))
    for text in titles:
        if text is not None and text.get_visible() and text.get_text():
            box = text.get_window_extent(renderer)
            if box.x0 < -0.5 or box.x1 > width + 0.5:
                return True
    return False


_WRITERS = {"png": _save_png, "svg": _save_svg}


#: no creation dates or versions in the files (byte-identical reruns)
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
             "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}
