"""The trust section, drawn (and its reusability part). Part of :mod:`irmeta.report.render`
(issue 33, item 0; the layout: docs/report.md). A renderer computes no number the page
shows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from irmeta.report.html import Text
from irmeta.report.sections.trust import TrustSection
from irmeta.report.views.common import TITLES, FigureView, SectionView, TableView, prose


def trust(sec: TrustSection) -> SectionView:
    """Discriminative power, stability and the Kendall tau matrix of the measures."""
    from irmeta.report.figures import bars, correlation_heatmap

    tau = FigureView("trust_kendall_tau",
                     correlation_heatmap(sec.tau,
                                         title="Kendall's τ between the rankings of the runs"),
                     alt="Kendall tau matrix", width=620, data=sec.tau, data_index=True,
                     caption=prose("trust_tau_caption", most_different=sec.most_different))
    view = SectionView("trust", TITLES["trust"], prose("trust_intro"))
    if sec.tested and sec.primary_rank is not None:
        row = sec.measures.iloc[sec.primary_rank - 1]
        view.blocks.append(Text(prose(
            "trust_primary", primary=sec.primary, rank=sec.primary_rank,
            measures=len(sec.measures), power=float(row["disc. power"]),
            delta=float(row["Δ needed"]), stability=float(row.get("stability", np.nan)),
            level=sec.level)))
    if not sec.tested:
        view.blocks += [Text(prose("trust_untested", topics=sec.analysed_topics)), tau]
        return view
    fig = bars(sec.power.set_index("measure")["dp"],
               xlabel=f"share of run pairs with p < {sec.level:g}",
               title=f"discriminative power (paired bootstrap, B = {sec.discpower_trials})")
    view.blocks += [
        FigureView("trust_discriminative_power", fig, alt="discriminative power", width=560,
                   caption=prose("trust_power_caption", pairs=sec.pairs,
                                 discpower_trials=sec.discpower_trials, level=sec.level)),
        TableView("trust_measures", sec.measures, dict(
            lower=("Δ needed", "BV error", "BV swaps"),
            digits={"disc. power": 3, "Δ needed": 3, "stability": 3,
                    "stability ties": 3, "BV error": 3, "BV ties": 3, "BV swaps": 3},
            tips={"disc. power": "share of run pairs significantly different",
                  "Δ needed": "largest difference in means a pair needed to be "
                              "significant (bootstrap)",
                  "stability": f"fuzziness stability (Türkmen et al.): {sec.stability_trials} "
                               f"random halves of the topics; higher = more stable",
                  "stability ties": f"share of decisions where two runs differ by at "
                                    f"most {sec.fuzziness:g}",
                  "BV error": "Buckley-Voorhees error rate over pairs of disjoint topic "
                              "halves; lower = more stable",
                  "BV swaps": "share of (pair, trial) where the two halves disagree"},
            caption=prose("trust_measures_caption", stability_trials=sec.stability_trials,
                          fuzziness=sec.fuzziness))),
        tau]
    if sec.topic_set_size is not None:
        view.blocks += topic_set_size_blocks(sec)
    if sec.reusability is not None:
        view.blocks += reusability_blocks(sec.reusability)
    return view


def topic_set_size_blocks(sec: TrustSection) -> list:
    """The trust section's "Topics for the next round" part: the primary measure's topic
    set size design (paired t-test and ANOVA) as a figure of topics needed against D,
    with its table as the figure's data (docs/topic-set-size.md)."""
    from irmeta.plot.meta import topic_set_size_plot
    from irmeta.stats.topic_set_size import TopicSetSize
    t = sec.topic_set_size
    if t is None or t.empty:
        return []
    ttest = t[t["method"] == "ttest"]
    first = ttest.iloc[0]
    at = {float(d): n for d, n in zip(ttest["min_diff"], ttest["n_topics"])}
    fig = topic_set_size_plot(TopicSetSize(t))
    return [
        Text(prose("trust_topic_set_size", primary=sec.primary, topics=int(first["topics"]),
                   variance=float(first["variance"]), level=float(first["alpha"]),
                   power=float(first["target_power"]),
                   detectable=float(first["min_detectable"]),
                   needed=[(d, None if pd.isna(n) else int(n))
                           for d, n in at.items() if d in (0.05, 0.1)])),
        FigureView("trust_topic_set_size", fig, alt="topics needed against the difference "
                   "to detect", width=560, data=t,
                   caption=prose("trust_topic_set_size_caption", level=float(first["alpha"]),
                                 power=float(first["target_power"])))]


def reusability_blocks(part) -> list:
    """The trust section's "Reusability" part: the leave-one-group-out of the primary
    measure, a figure (score with vs without each group's unique documents) and the
    per-group table (docs/pooling.md)."""
    from irmeta.report.figures import scatter_by_group
    s = part.scores.set_index("run")
    fig = scatter_by_group(s["score"], s["score_without"], s["group"],
                           xlabel=f"{part.measure} (all judgments)",
                           ylabel=f"{part.measure} without the group's unique documents",
                           title="Reusability: leave-one-group-out")
    return [
        Text(prose("trust_reusability", measure=part.measure, depth=part.depth,
                   tau=part.tau, tau_ap=part.tau_ap, worst=part.worst)),
        FigureView("trust_reusability", fig, alt="score with and without the group's "
                   "unique documents", width=620, data=part.scores,
                   caption=prose("trust_reusability_caption", depth=part.depth)),
        TableView("trust_reusability_groups", part.groups, dict(
            digits={"mean AP_rare": 3, "largest drop": 4},
            tips={"unique relevant": f"relevant documents only this group's runs retrieved "
                                     f"within rank {part.depth}",
                  "largest drop": "largest score drop of the group's runs without them"}))]
