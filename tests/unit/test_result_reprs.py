"""Notebook displays of the result objects (issue 48, item 5).

Every result object of the public functions has a short ``repr`` (under 2,000
characters: what it is, its shape, where its tables are) and, where it holds tables, a
bounded ``_repr_html_`` (the head of each table), on the whole demo campaign (30 runs,
435 pairs), so a notebook cell showing a result never prints the whole table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import irmeta
import irmeta.stats as st
from irmeta.demo import demo_paths

PATHS = demo_paths()
REPR_LIMIT = 2_000
HTML_LIMIT = 30_000


@pytest.fixture(scope="module")
def campaign():
    return irmeta.load_campaign(PATHS.qrels, PATHS.runs)


@pytest.fixture(scope="module")
def results(campaign):
    return irmeta.evaluate(campaign, measures=["AP", "nDCG@10", "P@10"])


def _report(results):
    from irmeta.report.assemble import CampaignReport
    board = results.to_frame(per_topic=False)
    return CampaignReport(Path("/tmp/report.html"),
                          [Path(f"/tmp/report_files/file{i}.tsv") for i in range(300)],
                          board, {"leaderboard": (1.0, 1.0)}, zip=Path("/tmp/report.zip"))


MAKERS = {
    "Results": lambda c, r: r,
    "Comparison": lambda c, r: irmeta.compare(r),
    "CampaignReport": lambda c, r: _report(r),
    "Pool": lambda c, r: irmeta.pool(c, 20),
    "Risk": lambda c, r: irmeta.risk(None, c, ["AP", "nDCG@10"]),
    "Leaderboard": lambda c, r: st.leaderboard(r.matrix("AP"), trials=200),
    "PairedTResult": lambda c, r: st.paired_t(r.matrix("AP")),
    "PairwiseResult": lambda c, r: st.wilcoxon(r.matrix("AP")),
    "BootstrapResult": lambda c, r: st.bootstrap(r.matrix("AP"), trials=50),
    "TukeyHSDResult": lambda c, r: st.tukey_hsd(r.matrix("AP")),
    "RandomisedTukeyResult": lambda c, r: st.randomised_tukey_hsd(r.matrix("AP"), trials=20),
    "PairwiseTukeyResult": lambda c, r: st.pairwise_tukey(r.matrix("AP")),
    "StabilityResult": lambda c, r: st.buckley_voorhees(r.matrix("AP"), trials=10),
    "Reusability": lambda c, r: st.reusability(c, ["AP"], PATHS.groups, depth=10, rare=None),
    "TopicSetSize": lambda c, r: st.topic_set_size(r.matrix("AP"), [0.02, 0.05, 0.1]),
    "Agreement": lambda c, r: st.qrels_agreement(PATHS.qrels, PATHS.qrels, PATHS.runs[:5],
                                                 ["AP"]),
    "Reproducibility": lambda c, r: st.reproducibility(PATHS.qrels, PATHS.runs[0],
                                                       PATHS.runs[1], ["AP"]),
    "CheckResult": lambda c, r: irmeta.check(PATHS.runs[:1], qrels=PATHS.qrels)[0],
}
#: the objects that are no table (their repr is the whole display)
NO_TABLE = {"StabilityResult", "CheckResult"}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_repr_is_short_and_says_what_it_is(name, campaign, results):
    obj = MAKERS[name](campaign, results)
    text = repr(obj)
    assert len(text) < REPR_LIMIT, (len(text), text[:300])
    assert text.startswith(type(obj).__name__ + "(")
    assert "\n" not in text


@pytest.mark.parametrize("name", sorted(set(MAKERS) - NO_TABLE))
def test_tables_have_a_bounded_html_display(name, campaign, results):
    obj = MAKERS[name](campaign, results)
    shown = obj._repr_html_()
    assert "<table" in shown
    assert len(shown) < HTML_LIMIT, len(shown)
    # the head of each table, never all of the 435 pairs or 4,000 pooled documents
    assert shown.count("<tr") <= 80, shown.count("<tr")


def test_an_irmeta_figure_leaves_pyplot_as_it_was(results):
    """A figure of irmeta's plot functions is returned, not made pyplot's current
    figure: a ``DataFrame.plot()`` / ``plt.plot()`` after it draws into a new figure, and
    a notebook shows irmeta's figure once (its display), not again at the cell's end."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from irmeta.plot.meta import topic_set_size_plot
    plt.close("all")
    before = plt.get_fignums()
    fig = topic_set_size_plot(st.topic_set_size(results.matrix("AP"), [0.02, 0.05, 0.1]))
    assert fig is not None and len(fig.axes) >= 1
    assert plt.get_fignums() == before
    lines = len(fig.axes[0].lines)
    ax = results.matrix("AP").T.iloc[:, :3].plot()
    assert ax.figure is not fig and len(fig.axes[0].lines) == lines
    plt.close("all")
