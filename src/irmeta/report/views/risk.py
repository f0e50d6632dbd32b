"""The risk section, drawn: the win/loss figure against the baseline (when one is given)
and the table of every run's wins, losses, ties, URisk, TRisk, ZRisk and GeoRisk. Part of
:mod:`irmeta.report.render` (the layout: docs/report.md). A renderer computes no number
the page shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irmeta.report.html import Text
from irmeta.report.sections.risk import RiskSection
from irmeta.report.views.common import TITLES, FigureView, SectionView, TableView, p_value, prose


def risk(sec: RiskSection) -> SectionView:
    """Against the baseline (``sec.baseline``): the wins-up / losses-down figure of every
    run and the table's wins, losses, ties, URisk, TRisk and its p-value; against every
    run: ZRisk and GeoRisk (with its rank beside the mean's)."""
    from irmeta.plot.risk import wins_losses_plot

    view = SectionView("risk", TITLES["risk"], prose(
        "risk_intro", measure=sec.measure, alpha=sec.alpha, baseline=sec.baseline,
        topics=sec.topics, dropped=sec.dropped))
    if sec.reason is not None:
        view.blocks.append(Text(prose("risk_undefined", reason=sec.reason)))
        return view
    t = sec.table
    if sec.baseline is not None:
        a = sec.against
        fig = wins_losses_plot(list(a["run"]), list(a["wins"]), list(a["losses"]),
                               baseline=sec.baseline, measure=sec.measure)
        view.blocks.append(FigureView(
            "risk_wins_losses", fig, width=720,
            alt=f"topics won and lost by every run against {sec.baseline}",
            caption=prose("risk_figure_caption", measure=sec.measure,
                          baseline=sec.baseline, topics=sec.topics)))
    frame = pd.DataFrame({"#": t["rank mean"].astype(int).to_numpy(),
                          "run": t["run"].to_numpy(), sec.measure: t["mean"].to_numpy()})
    digits: dict[str, int] = {sec.measure: 3, "ZRisk": 2, "GeoRisk": 3, "rank GeoRisk": 0}
    classes: dict[str, list[str]] = {}
    notes: dict[str, list[str]] = {}
    if sec.baseline is not None:
        for name in ("wins", "losses", "ties"):
            frame[name] = t[name].to_numpy()
        frame["URisk"] = t["URisk"].to_numpy()
        frame["TRisk"] = t["TRisk"].to_numpy()
        frame["TRisk p"] = t["TRisk_p"].to_numpy()
        digits.update({"URisk": 4, "TRisk": 2})
        classes["TRisk"] = ["down" if v < -2 else "up" if v > 2 else ""
                            for v in t["TRisk"].to_numpy(dtype=np.float64)]
        notes["run"] = ["baseline" if r == sec.baseline else "" for r in t["run"]]
    frame["ZRisk"] = t["ZRisk"].to_numpy()
    frame["GeoRisk"] = t["GeoRisk"].to_numpy()
    frame["rank GeoRisk"] = t["rank GeoRisk"].astype(int).to_numpy()
    base = sec.baseline or "the baseline"
    tips = {"#": f"rank by the mean {sec.measure}",
            "wins": f"topics where the run scores above {base}",
            "losses": f"topics where the run scores below {base}",
            "ties": f"topics where the run scores exactly as {base}",
            "URisk": f"mean of delta = run − {base}, a loss weighted 1 + α = {1 + sec.alpha:g}",
            "TRisk": "URisk / standard error (one-sample t); < −2: significantly riskier "
                     "than the baseline, > 2: significantly less risky",
            "TRisk p": "two-sided p-value of TRisk (Student t, topics − 1 degrees of freedom)",
            "ZRisk": "sum of the run's standardised per-topic deviations from what the "
                     "whole field expects of it, a shortfall weighted 1 + α",
            "GeoRisk": "sqrt(mean × Φ(ZRisk / topics)): effectiveness and robustness "
                       "against every run at once",
            "rank GeoRisk": "rank by GeoRisk (1 = best)"}
    view.blocks.append(TableView("risk", frame, dict(
        digits=digits, classes=classes, notes=notes, stacked=bool(notes),
        tips={k: v for k, v in tips.items() if k in frame}, tsv=t,
        formats={"TRisk p": p_value}, lower=["losses"],
        caption=prose("risk_table_caption", measure=sec.measure, alpha=sec.alpha,
                      baseline=sec.baseline))))
    return view
