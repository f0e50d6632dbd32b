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


def save(fig, path, formats=("png", "svg")) -> list[Path]:
    """Save ``fig`` as ``path`` with each suffix in ``formats`` (path's own suffix
    ignored); returns the written paths. The figure is closed afterwards."""
    plt = pyplot()
    stem = Path(path)
    if stem.suffix.lower() in (".png", ".svg", ".pdf"):
        stem = stem.with_suffix("")
    stem.parent.mkdir(parents=True, exist_ok=True)
    out = []
    with plt.rc_context(RC):
        for fmt in formats:
            target = stem.with_suffix("." + fmt)
            fig.savefig(target, format=fmt, bbox_inches="tight")
            out.append(target)
    plt.close(fig)
    return out
