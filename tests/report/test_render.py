"""The renderers' prose (templates/prose.html.j2): escaped values, single spaces, and
every macro the renderers call exists."""

from __future__ import annotations

import re
from pathlib import Path

from markupsafe import Markup

from irmeta.report import render


def test_prose_escapes_values_and_joins_lines():
    text = render.prose("summary_best", primary="AP", runs=("<run&1>",), value=0.56789,
                        tied=None)
    assert isinstance(text, Markup)
    assert text == ("Best run by AP (the primary measure): <strong>&lt;run&amp;1&gt;</strong> "
                    "(AP 0.568).")
    text = render.prose("summary_best", primary="nDCG@10", runs=("r",), value=0.5, tied=3)
    assert text.endswith("(nDCG@10 0.500); 2 more runs are not significantly below it.")
    # issue 47, item 5: tied = the runs not significantly below the first, the tied best
    # ones included; the sentence counts the others, and says when there is none
    text = render.prose("summary_best", primary="P", runs=("a", "b", "c"), value=0.5, tied=5)
    assert text.endswith("(3 runs tied, P 0.500); 2 more runs are not significantly below "
                         "them.")
    text = render.prose("summary_best", primary="P", runs=("a", "b"), value=0.5, tied=2)
    assert text.endswith("; every other run is significantly below them.")
    text = render.prose("summary_best", primary="P", runs=("a",), value=0.5, tied=2)
    assert text.endswith("; 1 more run is not significantly below it.")
    intro = render.prose("leaderboard_intro", primary="AP", rule="")
    assert "\n" not in intro and "  " not in intro
    assert "<strong>Click a column header to sort</strong>" in intro


def test_headlines_say_ties():
    """Issue 24, defect 1-2: a tied superlative names every run and says "tied"; a rank
    change shows the tied ranges; left-out saturated measures are named."""
    from irmeta.report.analysis import Highlights, RankChange, Superlative
    best = Superlative(("pash_f1", "pash_f2", "pash_f3"), 0.7491, (1, 1, 1))
    moved = (RankChange("a", "RR", (5, 5), (1, 3), 2),)
    h = Highlights("nDCG@10", best, None, 10, Superlative(("x",), 0.25, (4,)),
                   Superlative(("u", "v"), 7.0, (2, 9)), moved,
                   (("Judged@10", "39 of 63 runs share 1.000"),))
    best_line, new, unique, move = render.summary(h)
    assert best_line == ("Best run by nDCG@10 (the primary measure): <strong>pash_f1, pash_f2, "
                         "pash_f3</strong> (3 runs tied, nDCG@10 0.749).")
    assert new == ("Most new relevant material (NRG@10): <strong>x</strong> (NRG@10 0.250; "
                   "rank 4 by the primary measure).")
    assert unique == ("Most relevant documents no other run found: <strong>u, v</strong> "
                      "(2 runs tied, 7 each).")
    assert move.startswith("Largest rank change against nDCG@10: <strong>a</strong> is #5 "
                           "under nDCG@10 and #1–3 (tied) under RR. Left out of the rank "
                           "changes (their ranks are mostly ties, or say nothing of the "
                           "runs): Judged@10 (39 of 63 runs share 1.000).")
    many = tuple(f"r{i}" for i in range(10))
    assert "<strong>r0, r1, r2, r3, r4, r5, r6, r7</strong> and 2 more (10 runs tied," in \
        render.prose("summary_best", primary="AP", runs=many, value=1.0, tied=None)
    two = moved + (RankChange("b", "RR", (1, 1), (3, 3), -2),)
    assert render.prose("summary_moved", primary="AP", changes=two, left_out=()).startswith(
        "Largest rank change against AP (2 tied): <strong>a</strong>")
    assert render.prose("summary_moved", primary="AP", changes=(), left_out=()) == \
        "No run changes rank against AP once ties are accounted for."


def test_prose_conditional_parts():
    assert render.prose("subtitle", runs=3, groups=None, topics=2, judged=12345) == \
        "3 runs · 2 topics with relevant documents · 12,345 judged documents"
    assert render.prose("subtitle", runs=3, groups=2, topics=2, judged=5).startswith(
        "3 runs from 2 groups · 2 topics")
    own = render.prose("nrg_scatter_caption", k=10, own_groups=True)
    assert own.startswith("One point per run, coloured by group (no groups given: one "
                          "colour per run); the five runs with the highest NRG@10")
    assert render.prose("nrg_scatter_caption", k=10, own_groups=False).startswith(
        "One point per run, coloured by group; the five")
    # no most different pair: the caption ends with its last sentence, no stray space
    assert render.prose("trust_tau_caption", most_different=None).endswith("every run.")
    assert render.prose("trust_tau_caption", most_different=("AP", "RR", 0.25)).endswith(
        "The most different pair here: AP vs RR (τ = 0.250).")
    assert render.prose("innovation_sweep_caption", k=100,
                        lowest=[("AP@100", 0.5), ("P@100", 0.25)]).count(
        "here its lowest value is AP@100: 0.500, P@100: 0.250. The TSV") == 1


def test_every_called_macro_exists():
    # every renderer (report/views/*.py, issue 33 item 0) and render.py itself
    views = Path(render.__file__).parent / "views"
    source = "".join(p.read_text(encoding="utf-8")
                     for p in [Path(render.__file__), *sorted(views.glob("*.py"))])
    called = set(re.findall(r'prose\("([a-z_]+)"', source))
    macros = set(dir(render._prose_macros()))
    assert called and called <= macros, called - macros
