"""The vectorised kernel against the slow reference (tests/twist/reference.py) on random
campaigns: grades -1..3, unjudged documents, short and missing rankings, tied scores,
topics without relevant documents and topics with RB > N."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import irmeta
from irmeta import effort
from irmeta.measures import kernel
from irmeta.measures import twist as tw
from tests.quick import sampled
from tests.twist import reference


def random_campaign(seed: int, n_runs: int = 5, n_topics: int = 7):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"run{r}": {} for r in range(n_runs)}
    for t in range(n_topics):
        topic = f"q{t}"
        n_judged = int(rng.integers(1, 30))
        if t == 0:      # no relevant document
            grades = rng.choice([-1, 0], n_judged)
        else:
            grades = rng.choice([-1, 0, 0, 0, 1, 1, 2, 3], n_judged)
        pool = [f"{topic}-d{i}" for i in range(n_judged + int(rng.integers(0, 20)))]
        qrels[topic] = {pool[i]: int(grades[i]) for i in range(n_judged)}
        for name in runs:
            if rng.random() < 0.15:
                continue                                   # topic missing from the run
            length = int(rng.integers(1, len(pool) + 1))
            docs = rng.choice(pool, length, replace=False)
            scores = rng.integers(0, 6, length).astype(float)   # many ties
            runs[name][topic] = {str(d): float(s) for d, s in zip(docs, scores)}
    runs = {k: v for k, v in runs.items() if v}
    return irmeta.load_campaign(qrels, list(runs.values()), names=list(runs)), qrels


@pytest.mark.parametrize("seed", sampled(range(10)))
@pytest.mark.parametrize("depth", [5, 20, 60])
def test_kernel_matches_reference(seed, depth):
    campaign, qrels = random_campaign(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        comps = {rule: tw.components(campaign, depth, rule) for rule in tw.CROSSING_RULES}
    labels = {rule: effort.classify(c) for rule, c in comps.items()}
    curves = effort.curve_arrays(campaign, depth=depth)
    for r, run in enumerate(campaign.runs):
        for t, topic in enumerate(campaign.topics):
            ranking = campaign.ranking(r, t)
            grades = [qrels[topic].get(d) for d in ranking]
            q = list(qrels[topic].values())
            for rule, comp in comps.items():
                ref = reference.twist(grades, q, depth, rule)
                got = (comp.twist[r, t], comp.rho[r, t], comp.sigma[r, t])
                want = (ref["twist"], ref["rho"], ref["sigma"])
                if math.isnan(want[0]):
                    assert all(math.isnan(g) for g in got)
                    assert labels[rule][r, t] is None
                    continue
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-12,
                                           err_msg=f"{run} {topic} {rule}")
                assert labels[rule][r, t] == ref["archetype"], (run, topic, rule)
                x = comp.crossing[r, t]
                assert (x if x > 0 else math.inf) == ref["crossing"]
                assert curves.rp[r, t].tolist() == ref["rp"]
                assert curves.crp[r, t].tolist() == ref["crp"]
                assert curves.crp_fs[t].tolist() == ref["crp_fs"]


def test_undefined_topics_warn_and_nan():
    campaign, qrels = random_campaign(3)
    rb = campaign.num_rel(1)
    with pytest.warns(UserWarning, match="more relevant documents than the depth"):
        comp = tw.components(campaign, 5)
    assert np.all(np.isnan(comp.twist[:, (rb == 0) | (rb > 5)]))
    assert not np.any(np.isnan(comp.twist[:, (rb > 0) & (rb <= 5)]))
    res = irmeta.evaluate(campaign, measures=["Twist@1000"])
    assert np.all(np.isnan(res.values[:, 0, rb == 0]))
    assert not np.any(np.isnan(res.means[:, 0]))     # NaN topics left out of the mean


def test_blocks_give_the_same_values(monkeypatch):
    campaign, _ = random_campaign(5)
    whole = tw.components(campaign, 40)
    monkeypatch.setattr(kernel, "CELLS_PER_BLOCK", 1)       # one topic per block
    parts = tw.components(campaign, 40)
    np.testing.assert_array_equal(whole.twist, parts.twist)
    np.testing.assert_array_equal(whole.crossing, parts.crossing)


def test_rel_level_collapses_lower_grades():
    campaign, qrels = random_campaign(7)
    res = irmeta.evaluate(campaign, measures=["Twist(rel=2)@60"])
    plain = irmeta.evaluate(campaign, measures=["Twist@60"], rel_level=2)
    np.testing.assert_array_equal(res.values, plain.values)
    for t, topic in enumerate(campaign.topics):
        ranking = campaign.ranking(0, t)
        ref = reference.twist([qrels[topic].get(d) for d in ranking],
                              list(qrels[topic].values()), 60, level=2)
        got = res.values[0, 0, t]
        assert ((math.isnan(got) and math.isnan(ref["twist"]))
                or got == pytest.approx(ref["twist"], abs=1e-12))


@pytest.mark.parametrize("bad", ["Twist(crossing=loose)", "Twist@0", "Twist(rel=0)"])
def test_bad_measure_strings(bad):
    with pytest.raises(irmeta.MeasureError):
        irmeta.parse_measure(bad)


def test_bad_arguments():
    campaign, _ = random_campaign(1)
    with pytest.raises(irmeta.ParameterError, match="depth"):
        tw.components(campaign, 0)
    with pytest.raises(irmeta.ParameterError, match="crossing"):
        tw.components(campaign, 10, "sometimes")
    with pytest.raises(irmeta.ParameterError, match="rel_level"):
        effort.archetypes(campaign, 10, rel_level=0)
