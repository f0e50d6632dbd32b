"""Tie-aware headlines and rank changes (issue 24, defects 1-2): the summary names every
run sharing a superlative, a rank change is the gap between the ranges of ranks a run
can take (tied runs share a range), and a saturated measure (most runs share one value,
Judged@10 on DL21) is left out of the rank changes."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from irmeta.report import ReportOptions
from irmeta.report.analysis import (
    board_of_means,
    highlights,
    rank_ranges,
    rank_shift,
    saturated_columns,
)
from irmeta.report.columns import Column


def _slow_ranges(values: list[float]) -> list[tuple[int, int]]:
    """Every run's smallest and largest position over all orders that sort the values
    descending (ties broken every way): the definition of the range."""
    n = len(values)
    seen: dict[int, set[int]] = {i: set() for i in range(n)}
    for perm in itertools.permutations(range(n)):
        vals = [values[i] for i in perm]
        if all(vals[j] >= vals[j + 1] for j in range(n - 1)):
            for pos, i in enumerate(perm, 1):
                seen[i].add(pos)
    return [(min(seen[i]), max(seen[i])) for i in range(n)]


@pytest.mark.parametrize("values", [[0.5, 0.5, 0.3, 0.9, 0.5], [1.0] * 4 + [0.2],
                                    [0.1, 0.2, 0.3, 0.4, 0.5]])
def test_rank_ranges_are_the_positions_ties_allow(values):
    r = rank_ranges(pd.Series(values))
    assert list(zip(r["lo"].astype(int), r["hi"].astype(int))) == _slow_ranges(values)


def test_rank_shift_is_the_gap_between_ranges():
    # run c: #5 under the primary, tied #1-4 under the other: up by 1 (5 - 4), not 4
    primary = pd.Series([0.9, 0.8, 0.7, 0.6, 0.5], index=list("abcde"))
    other = pd.Series([1.0, 1.0, 1.0, 0.2, 1.0], index=list("abcde"))
    shift = rank_shift(primary, other)
    # a: #1 vs #1-4 overlap; b: #2 vs #1-4; c: #3 vs #1-4; d: #4 vs #5 -> -1; e: #5 vs #1-4 -> +1
    assert shift.tolist() == [0, 0, 0, -1, 1]
    # a plain competition-rank difference would have said e moved up 4
    assert (primary.rank(ascending=False, method="min")
            - other.rank(ascending=False, method="min"))["e"] == 4
    # brute force on random ties: the shift is 0 iff the ranges overlap
    rng = np.random.default_rng(1)
    for _ in range(20):
        p = pd.Series(rng.integers(0, 3, 6) / 2.0)
        o = pd.Series(rng.integers(0, 3, 6) / 2.0)
        rp, ro = _slow_ranges(list(p)), _slow_ranges(list(o))
        want = [max(a[0] - b[1], 0) - max(b[0] - a[1], 0) for a, b in zip(rp, ro)]
        assert rank_shift(p, o).astype(int).tolist() == want


def test_saturated_columns_are_those_most_runs_share_one_value_of():
    means = pd.DataFrame({"A": [0.1, 0.2, 0.3, 0.4], "J": [1.0, 1.0, 1.0, 0.5],
                          "half": [1.0, 1.0, 0.5, 0.3], "N": [np.nan] * 4},
                         index=list("abcd"))
    assert saturated_columns(means) == ("J",)        # 2 of 4 is not "most"


def _board(means: pd.DataFrame):
    cols = [Column("nDCG@10", "nDCG@10", ""), Column("RR", "RR", ""),
            Column("Judged@10", "Judged@10", "", diagnostic=True),
            Column("NRG(prior=others)@10", "NRG@10", ""),
            Column("NRG(base=unique,prior=others)@100", "unique@100", "", total=True)]
    return board_of_means(cols, means, {r: r for r in means.index}, True, 100,
                          ReportOptions())


def test_highlights_name_every_tied_run_and_leave_artefacts_out():
    """The DL21 defects in miniature: three runs tie on the primary measure, most runs
    share Judged@10 = 1 (the worst run by nDCG@10 among them)."""
    runs = ["f1", "f2", "f3", "m", "low"]
    means = pd.DataFrame({"nDCG@10": [0.749, 0.749, 0.749, 0.5, 0.1],
                          "RR": [0.9, 0.8, 0.7, 0.95, 0.2],
                          "Judged@10": [1.0, 0.9, 1.0, 1.0, 1.0],
                          "NRG@10": [0.3, 0.3, 0.1, 0.2, 0.0],
                          "unique@100": [0.0, 4.0, 4.0, 1.0, 0.0]}, index=runs)
    board = _board(means)
    assert board.saturated == ("Judged@10",)
    assert board.table["delta Judged@10"].isna().all()
    h = highlights(board, 10)
    assert (h.best.runs, h.best.value, h.best.ranks, h.best.tied) == \
        (("f1", "f2", "f3"), 0.749, (1, 1, 1), True)
    assert h.best_run == "f1"
    assert h.most_new is not None and h.most_new.runs == ("f1", "f2")
    assert h.most_unique is not None and h.most_unique.runs == ("f2", "f3")
    assert h.left_out == (("Judged@10", "4 of 5 runs share 1.000"),)
    # RR: m is #4 under nDCG@10, #1 under RR: up 3; f3 is #1-3 under nDCG@10, #4 under RR:
    # ranges 1-3 and 4 do not overlap -> down 1, f1 / f2 overlap -> none
    assert [(c.run, c.measure, c.primary_ranks, c.measure_ranks, c.shift)
            for c in h.moved] == [("m", "RR", (4, 4), (1, 1), 3)]
    assert board.table["delta RR"].to_dict() == {"f1": 0, "f2": 0, "f3": -1, "m": 3,
                                                 "low": 0}


def test_highlights_without_any_change_and_with_tied_changes():
    means = pd.DataFrame({"nDCG@10": [0.3, 0.2, 0.1, 0.0], "RR": [0.1, 0.2, 0.3, 0.4],
                          "Judged@10": [1.0, 0.9, 0.8, 0.7],
                          "NRG@10": [np.nan] * 4, "unique@100": [0.0] * 4},
                         index=list("abcd"))
    h = highlights(_board(means), 10)
    assert h.most_new is None and h.most_unique is None
    # a and d move 3 places, b and c one: both largest changes are named (a tie)
    assert [(c.run, c.shift) for c in h.moved] == [("a", -3), ("d", 3)]
    # the diagnostic column is never a headline; unique@100 (all 0) is saturated
    assert h.left_out == (("Judged@10", "a diagnostic of the judgements, not of the runs"),
                          ("unique@100", "4 of 4 runs share 0.000"))
    same = means.assign(RR=means["nDCG@10"])
    assert highlights(_board(same), 10).moved == ()


def test_per_topic_tables_are_in_natural_topic_order():
    """Issue 24, defect 8: numeric ids by number (TREC's 1006728 after 2082), mixed ids by
    their numbers (t2 before t10), not in string order."""
    from irmeta.report.analysis import natural_order
    assert natural_order(["1006728", "2082", "10", "9"]) == ["9", "10", "2082", "1006728"]
    assert natural_order(["t10", "t2", "t1"]) == ["t1", "t2", "t10"]
    assert natural_order(["q1b", "q10", "q1a"]) == ["q1a", "q1b", "q10"]
    assert sorted(["1006728", "2082"]) == ["1006728", "2082"]      # what string order gave


def test_runs_named_by_file_are_said(tmp_path):
    """Issue 24, defect 7: when tags collide (CLEF eHealth: Run1 in several files) the runs
    are named by their file names, and the page says which and why."""
    import irmeta
    from irmeta.report import render
    from irmeta.report.analysis import inputs_section
    from tests.report import tiny
    q, r = tiny.qrels(), tiny.runs()
    (tmp_path / "qrels.txt").write_text("".join(f"{t} 0 {d} {g}\n" for t in q
                                                for d, g in q[t].items()))
    paths = []
    for n, tag in (("teamA_run1", "Run1"), ("teamB_run1", "Run1"), ("teamB_run2", "uniq")):
        lines = [f"{t} Q0 {d} {i + 1} {s} {tag}\n" for t in r["r1"]
                 for i, (d, s) in enumerate(sorted(r["r1"][t].items(), key=lambda x: -x[1]))]
        (tmp_path / f"{n}.txt").write_text("".join(lines))
        paths.append(str(tmp_path / f"{n}.txt"))
    c = irmeta.load_campaign(str(tmp_path / "qrels.txt"), paths)
    assert c.runs == ("teamA_run1", "teamB_run1", "teamB_run2")
    assert c.tags == ("Run1", "Run1", "uniq")
    sec = inputs_section(c, ReportOptions(), {x: x for x in c.runs}, True, "others", None,
                         None, {})
    assert sec.renamed == (("teamA_run1", "Run1", "file"), ("teamB_run1", "Run1", "file"),
                           ("teamB_run2", "uniq", "file"))
    note = render.run_names_note(sec.renamed)
    assert "the 3 runs read from files are named by their <strong>file names</strong>" in note
    # issue 47, item 5: the note counts the runs it explains (2 of the 3 share a tag)
    assert "because 2 of them share a tag with another file (1 tag: Run1 in 2 files;" in note
    # named explicitly: said as such
    given = irmeta.load_campaign(str(tmp_path / "qrels.txt"), paths, names=["a", "b", "c"])
    sec = inputs_section(given, ReportOptions(), {x: x for x in given.runs}, True, "others",
                         None, None, {})
    assert [why for _, _, why in sec.renamed] == ["given"] * 3
    assert render.run_names_note(sec.renamed).strip() == \
        "3 runs named as given (<code>--names</code>)."
    # a campaign open shard by shard says the same (its summary keeps the tags)
    with irmeta.open_shards(str(tmp_path / "qrels.txt"), paths, shard_topics=3) as sharded:
        assert sharded.summary().tags == c.tags
        sec = inputs_section(sharded.summary(), ReportOptions(), {x: x for x in c.runs}, True,
                             "others", None, None, {})
        assert sec.renamed == (("teamA_run1", "Run1", "file"), ("teamB_run1", "Run1", "file"),
                               ("teamB_run2", "uniq", "file"))
    # tags that do not collide: nothing to say
    alone = irmeta.load_campaign(str(tmp_path / "qrels.txt"), paths[2:])
    assert inputs_section(alone, ReportOptions(), {"uniq": "uniq"}, True, "others", None,
                          None, {}).renamed == ()
