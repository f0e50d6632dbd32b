"""One house style for every irmeta figure, and saving to PNG + SVG.

matplotlib is imported inside the functions: importing irmeta never pulls it in.
"""

from __future__ import annotations

from pathlib import Path

#: colour cycle (colour-blind safe, Okabe-Ito)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
           "#000000"]

RC = {
    "figure.dpi": 110, "savefig.dpi": 200, "font.size": 9, "axes.titlesize": 10,
    "axes.labelsize": 9, "legend.fontsize": 8, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True,
    "grid.alpha": 0.3, "grid.linewidth": 0.5, "lines.linewidth": 1.4,
    "svg.fonttype": "none", "figure.constrained_layout.use": True,
}


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


def figure(width: float = 5.0, height: float = 3.5, **kwargs):
    """A new (fig, ax) in the house style."""
    plt = pyplot()
    from cycler import cycler
    with plt.rc_context({**RC, "axes.prop_cycle": cycler(color=PALETTE)}):
        fig, ax = plt.subplots(figsize=(width, height), **kwargs)
    fig.set_layout_engine("constrained")
    return fig, ax


def warm_up(formats=("png", "svg")) -> None:
    """Draw a tiny figure once in each format and throw it away.

    The first draw of a process loads the fonts, the backends and the image encoders
    (about 0.2 s). A process that forks children to draw (``ReportWriter(background=)``)
    calls this first, so that every child inherits the loaded state instead of paying
    for it again: on the demo report this halves the CPU time of the children."""
    import io
    plt = pyplot()
    with plt.rc_context({**RC, "svg.hashsalt": "irmeta"}):
        fig, ax = plt.subplots(figsize=(2, 1.5), layout="constrained")
        ax.plot([0, 1], [0, 1], marker="o", label="τ α")
        ax.set_title("x")
        ax.text(0.5, 0.5, "0.5", fontsize=6.5)
        ax.legend()
        fig.colorbar(ax.imshow([[0.0, 1.0]]), ax=ax, label="y")
        for fmt in formats:
            fig.savefig(io.BytesIO(), format=fmt, metadata=_METADATA.get(fmt))
    plt.close(fig)


def save(fig, path, formats=("png", "svg"), *, dpi: int | None = None) -> list[Path]:
    """Save ``fig`` as ``path`` with each suffix in ``formats`` (the path's own suffix
    is ignored; PNG at ``dpi``, default the house ``savefig.dpi``); returns the written
    paths and closes the figure.

    The figure is drawn once per format, at its own size: its layout engine
    (constrained layout, see :func:`figure`) already fits every label inside the
    figure, so no ``bbox_inches="tight"`` pass (a second full draw) is needed. The
    layout computed for the first format is frozen for the others: same geometry in
    every file, and one layout pass instead of one per file. The files carry no
    creation date or software version, so a figure is reproduced byte for byte.
    """
    plt = pyplot()
    stem = Path(path)
    if stem.suffix.lower() in (".png", ".svg", ".pdf"):
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    try:
        with plt.rc_context({**RC, "svg.hashsalt": "irmeta"}):
            for k, fmt in enumerate(formats):
                target = stem.with_name(f"{stem.name}.{fmt}")
                fig.savefig(target, format=fmt, dpi=dpi if fmt == "png" else None,
                            metadata=_METADATA.get(fmt))
                out.append(target)
                if k == 0:
                    fig.set_layout_engine("none")
    finally:
        plt.close(fig)
    return out


#: no creation dates or versions in the files (byte-identical reruns)
_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None},
             "pdf": {"CreationDate": None, "Producer": None, "Creator": None}}
