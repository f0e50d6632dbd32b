"""Table 3 of ``reproduce innovation`` batched over draws (issue 27): the values and run
means of many sub-campaigns at once equal those of each sub-campaign evaluated on its
own, bit for bit. The per-draw computations are the slow, obviously correct references."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.errors import CampaignError
from irmeta.evaluation import compute
from irmeta.measures.innovation import sample_values
from irmeta.measures.parse import parse_measures
from irmeta.measures.spec import EvalContext
from irmeta.stats import subsample as ss


def ragged_campaign(seed: int, n_runs: int = 7, n_topics: int = 9, n_docs: int = 30,
                    depth: int = 15):
    """Graded qrels (one topic without a relevant document) and runs with rankings of
    varying length, some topics missing from some runs, documents shared across runs."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"r{r}": {} for r in range(n_runs)}
    for t in range(n_topics):
        tid = f"q{t}"
        grades = rng.choice([0, 0, 1, 1, 2, 3], size=n_docs)
        if t == 0:
            grades[:] = 0
        qrels[tid] = {f"d{t}_{i}": int(g) for i, g in enumerate(grades)}
        for r in range(n_runs):
            if rng.random() < 0.15:
                continue                                     # topic missing from the run
            length = int(rng.integers(1, depth + 1))
            score = grades * rng.random() + rng.random(n_docs)
            top = np.argsort(-score)[:length]
            ranking = {f"d{t}_{i}": float(depth - k) for k, i in enumerate(top)}
            if rng.random() < 0.3:
                ranking[f"x{t}_{r}"] = -1.0                  # an unjudged document
            runs[f"r{r}"][tid] = ranking
    return irmeta.load_campaign(qrels, runs)


MEASURES = ["P_rare(alpha=1)@10", "AP_rare(alpha=1)@10", "P_rare(alpha=0.5)@20",
            "AP_rare(alpha=0.3)@7", "P_rare(alpha=0.7,variant=normalized)@10",
            "AP_rare(alpha=1,variant=normalized)@12", "AP_rare(alpha=0.5,depth=4)@10",
            "P_rare(alpha=0.5,depth=30)@5", "AP_rare(alpha=0.5,rel=2)@10",
            "P_rare(alpha=0)@10", "AP_rare(alpha=2.5)@100"]


def draws(rng, R: int, n: int, B: int) -> np.ndarray:
    return np.stack([np.sort(rng.choice(R, size=n, replace=False)) for _ in range(B)])


def bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("rel_level", [1, 2])
def test_sample_values_equal_each_sub_campaign(seed, rel_level):
    campaign = ragged_campaign(seed)
    ms = parse_measures(MEASURES)
    rng = np.random.default_rng(seed)
    picks = [draws(rng, campaign.num_runs, n, 6) for n in (1, 2, 3, 5, campaign.num_runs)]
    got = sample_values(campaign, ms, picks, rel_level)
    for p, values in zip(picks, got):
        assert values.shape == (len(ms), *p.shape, campaign.num_topics)
        for b, pick in enumerate(p):
            sub = campaign.select_runs(pick.tolist())
            _, ref = compute(sub, ms, EvalContext(rel_level=rel_level))    # [n, M, T]
            np.testing.assert_array_equal(bits(values[:, b]), bits(ref.transpose(1, 0, 2)))


def test_sample_values_tiny_batches(monkeypatch):
    """Batches of one draw (the cell budget) give the same values."""
    campaign = ragged_campaign(5)
    ms = parse_measures(MEASURES[:4])
    p = [draws(np.random.default_rng(5), campaign.num_runs, 4, 5)]
    whole = sample_values(campaign, ms, p, 1)[0]
    import irmeta.measures.innovation as innovation
    monkeypatch.setattr(innovation, "_SAMPLE_CELLS", 1)
    np.testing.assert_array_equal(bits(sample_values(campaign, ms, p, 1)[0]), bits(whole))


@pytest.mark.parametrize("shape", [(1, 1), (2, 53), (64, 53), (3200, 53), (7, 8), (50, 200)])
def test_row_means_stacked_equal_per_draw(shape):
    """The run means of many draws' runs stacked in one frame equal each draw's own
    ``DataFrame.mean(axis=1)`` (the reduction of ``system_means``)."""
    rng = np.random.default_rng(shape[0])
    x = rng.random(shape) * rng.choice([1e-3, 1.0, 7.0], size=shape)
    stacked = ss._row_means(x)
    for i0 in range(0, shape[0], max(1, shape[0] // 5)):
        part = x[i0:i0 + 2].copy()
        np.testing.assert_array_equal(bits(stacked[i0:i0 + 2]),
                                      bits(pd.DataFrame(part).mean(axis=1).to_numpy()))


def per_draw_system_dependence(monkeypatch, *args, **kwargs) -> pd.DataFrame:
    """The old path: every draw evaluated on its own (``evaluate`` of the sub-campaign)."""
    with monkeypatch.context() as m:
        m.setattr(ss, "_batchable", lambda campaign, measures: None)
        return ss.system_dependence(*args, **kwargs)


@pytest.mark.parametrize("seed", [0, 7, 11])
@pytest.mark.parametrize("method", ["kendall", "spearman"])
# spearman of two runs tied under one ranking: undefined, with scipy's warning (both paths)
@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_system_dependence_batched_equals_per_draw(monkeypatch, seed, method):
    campaign = ragged_campaign(seed + 100, n_runs=9)
    ms = ["P_rare(alpha=1)@10", "AP_rare(alpha=1)@10", "AP_rare(alpha=0.5,variant=normalized)@5"]
    assert ss._batchable(campaign, ms) is not None
    kw = dict(sizes=(2, 3, 4, 8, 9, 12), trials=40, seed=seed, method=method)
    got = ss.system_dependence(campaign, ms, **kw)
    ref = per_draw_system_dependence(monkeypatch, campaign, ms, **kw)
    pd.testing.assert_frame_equal(got, ref, check_exact=True)


def test_system_dependence_mixed_measures_per_draw(small_campaign):
    """A measure the batch does not compute sends every draw through ``evaluate``."""
    assert ss._batchable(small_campaign, ["AP", "P_rare(alpha=1)@10"]) is None
    out = ss.system_dependence(small_campaign, ["AP", "P_rare(alpha=1)@10"], sizes=(2, 4),
                               trials=5)
    assert list(out["trials"]) == [5, 5, 5, 5]


def test_system_dependence_dl21_batched_equals_per_draw(monkeypatch, dl21_campaign):
    """The real campaign of Table 3, both rarity measures (fewer draws than the page)."""
    ms = ["P_rare(alpha=1)@100", "AP_rare(alpha=1)@100"]
    kw = dict(sizes=(2, 4, 8, 16, 32, 64), trials=25, seed=0)
    got = ss.system_dependence(dl21_campaign, ms, **kw)
    ref = per_draw_system_dependence(monkeypatch, dl21_campaign, ms, **kw)
    pd.testing.assert_frame_equal(got, ref, check_exact=True)


def test_system_dependence_draw_without_common_topic():
    """A draw whose runs share no topic of the campaign topic set: the same error as the
    per-draw path gives."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0}}
    runs = {"A": {"q1": {"a": 2.0, "b": 1.0}}, "B": {"q2": {"c": 1.0}},
            "C": {"q2": {"c": 1.0}}}
    campaign = irmeta.load_campaign(qrels, runs)
    ms = ["P_rare(alpha=1)@10"]
    with pytest.raises(CampaignError) as batched:
        ss.system_dependence(campaign, ms, sizes=(2,), trials=30, seed=1)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(ss, "_batchable", lambda campaign, measures: None)
        with pytest.raises(CampaignError) as per_draw:
            ss.system_dependence(campaign, ms, sizes=(2,), trials=30, seed=1)
    assert str(batched.value) == str(per_draw.value)


@pytest.mark.parametrize("n", [2, 3, 8, 33])
def test_kendall_rows_equal_kendall_tau(n):
    """Row-wise tau-b with ties, constant rows (NaN) and NaN scores, against
    ``kendall_tau`` of each row."""
    from irmeta.stats.correlation import kendall_tau, kendall_tau_rows
    rng = np.random.default_rng(n)
    x = np.round(rng.random((60, n)), 1)
    y = np.round(rng.random((60, n)), 2)
    x[3] = 0.5                                               # constant: tau undefined
    x[5, 0] = np.nan                                         # left out by kendall_tau
    y[7, -1] = np.nan
    got = kendall_tau_rows(x, y)
    ref = np.array([kendall_tau(a, b) for a, b in zip(x, y)])
    np.testing.assert_array_equal(bits(got), bits(ref))


def test_system_dependence_over_budget_per_draw(monkeypatch):
    """A campaign whose tables would not fit the budget is evaluated draw by draw, with
    the same numbers."""
    import irmeta.measures.innovation as innovation
    campaign = ragged_campaign(3)
    ms = ["P_rare(alpha=1)@10", "AP_rare(alpha=1)@10"]
    kw = dict(sizes=(2, 4), trials=10, seed=2)
    batched = ss.system_dependence(campaign, ms, **kw)
    monkeypatch.setattr(innovation, "SAMPLE_MAX_CELLS", 10)
    assert ss._batchable(campaign, ms) is None
    pd.testing.assert_frame_equal(ss.system_dependence(campaign, ms, **kw), batched,
                                  check_exact=True)
