"""irmeta.pool (module irmeta.pooling): strategies against a slow reference, depth-k against
trectools."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import irmeta
from irmeta.errors import CampaignError, InputError
from irmeta.pooling import STRATEGIES, pool


def _random_runs(seed: int, n_runs: int = 5, n_topics: int = 3, n_docs: int = 30):
    rng = np.random.default_rng(seed)
    runs = {}
    for r in range(n_runs):
        run = {}
        for t in range(n_topics):
            docs = rng.choice(n_docs, size=rng.integers(1, 15), replace=False)
            # coarse scores: ties are frequent
            run[f"q{t}"] = {f"d{d:02d}": float(rng.integers(0, 6)) for d in docs}
        runs[f"r{r}"] = run
    return runs


def _ranked(run_topic: dict) -> list[str]:
    """trec_eval order: score descending, then docid descending."""
    return [d for d, _ in sorted(run_topic.items(), key=lambda kv: (-kv[1], _neg(kv[0])))]


def _neg(s: str):
    return tuple(-b for b in s.encode())


def _reference(runs: dict, depth: int, strategy: str, groups: dict, p=0.8, k=60) -> dict:
    """{topic: set of docids}: the module doc's definitions, written plainly."""
    topics = sorted({t for run in runs.values() for t in run})
    out = {}
    for t in topics:
        ranked = {name: _ranked(run[t]) for name, run in runs.items() if t in run}
        if strategy == "depth":
            out[t] = {d for lst in ranked.values() for d in lst[:depth]}
        elif strategy == "group_depth":
            pooled = set()
            for g in set(groups.values()):
                best: dict[str, int] = {}
                for name, lst in ranked.items():
                    if groups[name] == g:
                        for i, d in enumerate(lst):
                            best[d] = min(best.get(d, i), i)
                order = sorted(best, key=lambda d: (best[d], _neg(d)))
                pooled |= set(order[:depth])
            out[t] = pooled
        else:
            val: dict[str, list[float]] = {}
            for name, lst in ranked.items():
                for i, d in enumerate(lst):
                    if strategy == "rrf":
                        v = 1.0 / (k + i + 1)
                    elif strategy.startswith("rbp"):
                        v = (1 - p) * p ** i
                    else:
                        v = runs[name][t][d]
                    val.setdefault(d, []).append(v)
            fused = {d: (max(v) if strategy.endswith("max") else
                         sum(v) * (len(v) if strategy == "comb_mnz" else 1))
                     for d, v in val.items()}
            order = sorted(fused, key=lambda d: (-fused[d], d))
            out[t] = set(order[:depth])
    return out


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_strategies_equal_the_reference(strategy, seed):
    runs = _random_runs(seed)
    groups = {f"r{r}": f"g{r % 2}" for r in range(5)}
    for depth in (1, 3, 7):
        got = pool(runs, depth, strategy=strategy, groups=groups)
        mine: dict[str, set] = {}
        for t, d in zip(got.table["topic"], got.table["docid"]):
            mine.setdefault(t, set()).add(d)
        assert mine == _reference(runs, depth, strategy, groups), (strategy, depth)
        # sorted by topic then docid
        keys = list(zip(got.table["topic"], got.table["docid"]))
        assert keys == sorted(keys)


def test_table_columns_and_statistics():
    runs = {"A": {"q1": {"d1": 3.0, "d2": 2.0}}, "B": {"q1": {"d3": 1.0, "d1": 0.5}},
            "C": {"q1": {"d1": 9.0}}}
    got = pool(runs, 2, groups={"A": "g", "B": "h", "C": "g"})
    t = got.contributors()
    assert list(t["docid"]) == ["d1", "d2", "d3"]
    assert list(t["runs"]) == ["A,B,C", "A", "B"]
    assert list(t["groups"]) == ["g,h", "g", "h"]
    assert list(t["best_rank"]) == [1, 2, 1]
    s = got.stats.iloc[0]
    assert (s.pool_size, s.runs, s.groups, s.unique_docs) == (3, 3, 2, 2)
    assert s.docs_per_group == pytest.approx((2 + 2) / 2)   # g: d1, d2; h: d1, d3
    assert got.lines() == "q1 d1\nq1 d2\nq1 d3\n"


def test_groups_are_checked():
    runs = {"A": {"q1": {"d1": 1.0}}, "B": {"q1": {"d2": 1.0}}}
    with pytest.raises(CampaignError, match="no group for run"):
        pool(runs, 1, groups={"A": "g"})
    with pytest.raises(CampaignError, match="not in the campaign: C"):
        pool(runs, 1, groups={"A": "g", "B": "g", "C": "h"})


def test_pool_of_a_campaign_is_its_qrels_topics():
    runs = {"A": {"q1": {"d1": 1.0}, "q9": {"d5": 1.0}}}
    c = irmeta.load_campaign({"q1": {"d1": 1}}, runs, warn_dropped=False)
    assert pool(c, 5).lines() == "q1 d1\n"
    with pytest.raises(irmeta.ParameterError, match="scores"):
        pool(c, 5, strategy="comb_sum")


# ------------------------------------------------------------ trectools oracle
def _trectools_pool(files, depth):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from trectools import TrecPoolMaker, TrecRun
        runs = [TrecRun(str(f)) for f in files]
        tp = TrecPoolMaker().make_pool(runs, strategy="topX", topX=depth)
    return {str(k): set(map(str, v)) for k, v in tp.pool.items()}, runs


def _straddles(runs_tt, topic: str, depth: int) -> bool:
    """Some run ties the scores at ranks depth and depth + 1 on topic (the one place
    trectools' ascending-docid tie order can change the pool)."""
    for r in runs_tt:
        s = r.run_data[r.run_data["query"] == topic]["score"].to_numpy()
        if len(s) > depth and s[depth - 1] == s[depth]:
            return True
    return False


def _ours(files, depth):
    got = pool([str(f) for f in files], depth)
    mine: dict[str, set] = {}
    for t, d in zip(got.table["topic"], got.table["docid"]):
        mine.setdefault(t, set()).add(d)
    return mine


@pytest.mark.parametrize("depth", [10])
def test_depth_pool_equals_trectools_up_to_ties(dl21, depth):
    pytest.importorskip("trectools")
    _, files = dl21
    files = files[:3]
    mine = _ours(files, depth)
    theirs, runs_tt = _trectools_pool(files, depth)
    assert set(mine) == set(theirs)
    differ = sorted(t for t in mine if mine[t] != theirs[t])
    # every difference is a tie across the cut, and there is one (the test can fail)
    assert differ and all(_straddles(runs_tt, t, depth) for t in differ)
    assert len(differ) == 1
    for t in differ:   # same size: a tie swaps documents, it never adds one
        assert len(mine[t]) == len(theirs[t])


@pytest.mark.slow
@pytest.mark.parametrize("depth,differing", [(10, 345), (100, 0)])
def test_depth_pool_of_all_dl21_runs_equals_trectools_up_to_ties(dl21, depth, differing):
    pytest.importorskip("trectools")
    _, files = dl21
    mine = _ours(files, depth)
    theirs, runs_tt = _trectools_pool(files, depth)
    differ = [t for t in mine if mine[t] != theirs[t]]
    assert len(differ) == differing
    assert all(_straddles(runs_tt, t, depth) for t in differ)


def test_trectools_strips_leading_zeros(tmp_path):
    """trectools reads numeric document ids as numbers: 0042 becomes 42. irmeta keeps
    the bytes. The documented difference, shown."""
    pytest.importorskip("trectools")
    f = tmp_path / "run.txt"
    f.write_text("1 Q0 0042 1 2.0 x\n1 Q0 0007 2 1.0 x\n")
    mine = _ours([f], 2)
    theirs, _ = _trectools_pool([f], 2)
    assert mine == {"1": {"0042", "0007"}}
    assert theirs == {"1": {"42", "7"}}


def test_cli_pool_lines_and_bad_groups(tmp_path):
    from irmeta.cli.main import main
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 d1 1 2.0 a\nq1 Q0 d2 2 1.0 a\n")
    out = tmp_path / "pool.txt"
    assert main(["pool", str(run), "--depth", "1", "-o", str(out)]) == 0
    assert out.read_text() == "q1 d1\n"
    groups = tmp_path / "groups"
    groups.write_text("a g\nzz h\n")
    assert main(["pool", str(run), "--depth", "1", "--groups", str(groups)]) == 2
    with pytest.raises(InputError, match=r"groups:2: names run\(s\)"):
        from irmeta.cli.pool import located_groups
        with located_groups(str(groups)):
            pool([str(run)], 1, groups={"a": "g", "zz": "h"})


def test_irmeta_pool_is_the_function_after_importing_every_module():
    """The module is irmeta.pooling: a module irmeta/pool.py would replace the lazy
    function irmeta.pool on import (the bug bench_pools.py met first)."""
    import irmeta.pooling  # noqa: F401
    import irmeta.stats.reusability  # noqa: F401
    assert callable(irmeta.pool) and irmeta.pool.__module__ == "irmeta.pooling"


def test_ids_that_are_not_utf8_are_kept_and_shown_escaped(tmp_path):
    f = tmp_path / "run.txt"
    f.write_bytes(b"q1 Q0 caf\xe9 1 2.0 x\nq1 Q0 cafe 2 1.0 x\n")
    got = pool([str(f)], 2)
    assert list(got.table["docid"]) == ["cafe", "caf\\xe9"]     # byte order: e < \xe9


@pytest.mark.parametrize("strategy,tt", [("rrf", {"strategy": "rrf", "rrf_den": 60}),
                                         ("rbp_sum", {"strategy": "rbp", "rbp_strategy": "sum",
                                                      "rbp_p": 0.8}),
                                         ("rbp_max", {"strategy": "rbp", "rbp_strategy": "max",
                                                      "rbp_p": 0.8})])
def test_take_n_equals_trectools_up_to_ties(tmp_path, strategy, tt):
    """trectools' rrf / rbp pools read the file's rank column: files written with
    trec_eval's ranks give the same pools, except where fused values tie at the cut."""
    pytest.importorskip("trectools")
    runs = {}
    rng = np.random.default_rng(5)
    for r in range(6):
        runs[f"r{r}"] = {f"{t + 1}": {f"d{d:03d}": float(rng.random())
                                      for d in rng.choice(200, 40, replace=False)}
                         for t in range(4)}
    files = []
    for name, run in runs.items():
        f = tmp_path / name
        f.write_text("".join(f"{t} Q0 {d} {i + 1} {run[t][d]!r} {name}\n"
                             for t in run for i, d in enumerate(_ranked(run[t]))))
        files.append(str(f))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from trectools import TrecPoolMaker, TrecRun
        tp = TrecPoolMaker().make_pool([TrecRun(f) for f in files], topX=15, **tt)
    theirs = {str(k): set(map(str, v)) for k, v in tp.pool.items()}
    got = pool(files, 15, strategy=strategy)
    mine: dict[str, set] = {}
    for t, d in zip(got.table["topic"], got.table["docid"]):
        mine.setdefault(t, set()).add(d)
    assert set(mine) == set(theirs)
    for t in mine:
        if mine[t] != theirs[t]:     # only a tie of fused values at the cut may differ
            vals = sorted(_reference_values(runs, t, strategy).values(), reverse=True)
            assert vals[14] == pytest.approx(vals[15], abs=1e-12), t
    assert sum(mine[t] == theirs[t] for t in mine) >= 3


def _reference_values(runs, topic, strategy, p=0.8, k=60):
    val: dict[str, list[float]] = {}
    for run in runs.values():
        for i, d in enumerate(_ranked(run[topic])):
            v = 1.0 / (k + i + 1) if strategy == "rrf" else (1 - p) * p ** i
            val.setdefault(d, []).append(v)
    return {d: (max(v) if strategy.endswith("max") else sum(v)) for d, v in val.items()}
