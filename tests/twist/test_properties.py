"""Propositions 1-3 and the archetype properties, as property tests on random topics."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irmeta
from irmeta import effort
from irmeta.measures import twist as tw
from tests.quick import examples


@st.composite
def topics(draw, min_ratio: int = 2):
    """One topic (grade counts 1..3 plus non-relevant), a depth N >= min_ratio * RB and
    a few runs: ideal, worst, full scale and random permutations of the pool."""
    counts = [draw(st.integers(0, 6)) for _ in range(3)]
    if sum(counts) == 0:
        counts[draw(st.integers(0, 2))] = 1
    rb = sum(counts)
    n = min_ratio * rb + draw(st.integers(0, 12))
    grades = [g for g, c in zip((1, 2, 3), counts) for _ in range(c)]
    grades += [0] * (n + 5)          # enough judged non-relevant documents
    docs = [f"d{i:03d}" for i in range(len(grades))]
    qrels = {"t": dict(zip(docs, grades))}
    by_grade = sorted(zip(grades, docs), key=lambda x: -x[0])
    ideal = [d for _, d in by_grade][:n]
    rel_sorted = [d for g, d in by_grade if g > 0]
    nonrel = [d for g, d in by_grade if g == 0]
    fs = (nonrel[: n - rb] + rel_sorted[::-1])
    worst = nonrel[:n]
    runs = {"ideal": ideal, "worst": worst, "fs": fs}
    for k in range(4):
        perm = draw(st.permutations(docs))
        length = draw(st.integers(1, len(docs)))
        runs[f"r{k}"] = list(perm[:length])
    runs = {name: {"t": {d: float(len(r) - i) for i, d in enumerate(r)}}
            for name, r in runs.items()}
    return qrels, runs, n, counts


def _campaign(qrels, runs):
    return irmeta.load_campaign(qrels, list(runs.values()), names=list(runs))


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(topics())
def test_propositions_1_and_2(case):
    qrels, runs, n, counts = case
    c = _campaign(qrels, runs)
    a = effort.curve_arrays(c, depth=n)
    rb = sum(counts)
    table = tw.degree_table(c, n)
    top = max(g for g, k in zip((1, 2, 3), counts) if k)
    hi_top = table.hi[0, list(table.values).index(top)]
    # Proposition 1: RP bounds of the full-scale run, and every run inside them
    assert a.rp_fs[0].min() == -rb == a.rp_fs[0, 0]
    assert a.rp_fs[0].max() == n - hi_top == a.rp_fs[0, -1]
    assert a.rp.min() >= -rb and a.rp.max() <= n - hi_top
    # Proposition 2: CRP bounds
    deltas = [k for k in counts[::-1] if k]          # most relevant grade first ...
    deltas = deltas[::-1]                            # ... then ascending: pr, fr, hr
    upper = rb * (n - rb) - sum(d * sum(deltas[: i + 1]) for i, d in enumerate(deltas))
    assert a.crp_fs[0].min() == -rb * (rb + 1) // 2 == a.crp_fs[0, rb - 1]
    assert a.crp_fs[0].max() == upper == a.crp_fs[0, -1]
    assert a.crp.min() >= -rb * (rb + 1) // 2 and a.crp.max() <= upper
    # the full-scale run covers the most space both ways: ratios need no clipping
    comp = tw.components(c, n)
    assert np.all(comp.s_plus <= comp.s_plus_fs) and np.all(comp.s_minus <= comp.s_minus_fs)
    for v in (comp.twist, comp.rho, comp.sigma, comp.sigma_plus, comp.sigma_minus):
        assert np.all((v >= 0) & (v <= 1))


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None)
@given(topics(min_ratio=3), st.sampled_from(tw.CROSSING_RULES))
def test_archetype_properties(case, rule):
    qrels, runs, n, counts = case
    c = _campaign(qrels, runs)
    comp = tw.components(c, n, rule)
    v = dict(zip(c.runs, comp.twist[:, 0]))
    labels = dict(zip(c.runs, effort.classify(comp)[:, 0]))
    assert v["ideal"] == 1.0 and labels["ideal"] == "ideal"
    assert v["worst"] == 0.0 and labels["worst"] == "worst"
    assert labels["fs"] == "full_scale"
    fs = c.runs.index("fs")
    # Proposition 3. Its proof counts the crossing at the first positive CRP, one past
    # Definition 3's j: at N = 3 RB the bound is reached (RB = 1, N = 3: rho = 1/2).
    rb = sum(counts)
    assert comp.rho[fs, 0] <= 0.5 and comp.sigma[fs, 0] == 0.0 and v["fs"] <= 0.25
    if n > 3 * rb:
        assert comp.rho[fs, 0] < 0.5 and v["fs"] < 0.25
    never = (comp.crossing[:, 0] == 0) & ~comp.crp_zero[:, 0]
    assert np.all(comp.twist[never, 0] < 0.5)      # typical B and worst: below 1/2
    assert np.all(comp.rho[never, 0] == 0.0)
    for r, label in enumerate(effort.classify(comp)[:, 0]):
        if label == "excellent":
            assert comp.rho[r, 0] == 1.0
        if label == "typical_A":
            assert comp.rho[r, 0] <= rb / (rb + 1)
