"""Pool downsampling, run filtering and dependence on the set of systems."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.errors import ParameterError
from irmeta.stats import subsample as ss
from irmeta.stats.correlation import system_means


def _check_pools(campaign, rows, rel_level=1):
    j = campaign.judged
    levels = sorted(rows, reverse=True)
    for hi, lo in zip(levels, levels[1:]):
        assert set(rows[lo]) <= set(rows[hi]), "smaller pools must be subsets"
    for lv in levels:
        kept = rows[lv]
        topic, grades = j.topic[kept], j.grades[kept]
        for t in range(campaign.num_topics):
            all_t = j.topic == t
            if not all_t.any():
                continue
            n_rel = (j.grades[all_t] >= rel_level).sum()
            n_non = (j.grades[all_t] < rel_level).sum()
            assert ((grades >= rel_level) & (topic == t)).sum() >= min(1, n_rel)
            assert ((grades < rel_level) & (topic == t)).sum() >= min(10, n_non)
            for g in np.unique(j.grades[all_t]):
                n = ((j.grades == g) & all_t).sum()
                k = ((grades == g) & (topic == t)).sum()
                assert k >= max(1, int(np.floor(lv / 100 * n + 0.5)))


def test_downsampling_nested_stratified(small_campaign):
    rows = ss.downsample_rows(small_campaign, seed=3)
    _check_pools(small_campaign, rows)
    again = ss.downsample_rows(small_campaign, seed=3)
    assert all(np.array_equal(rows[k], again[k]) for k in rows)
    other = ss.downsample_rows(small_campaign, seed=4)
    assert not np.array_equal(rows[50.0], other[50.0])


@pytest.mark.slow
def test_downsampling_real_campaign(dl21_campaign):
    rows = ss.downsample_rows(dl21_campaign, seed=0)
    _check_pools(dl21_campaign, rows)
    share = len(rows[50.0]) / len(dl21_campaign.judged.grades)
    assert 0.45 < share < 0.6


def test_with_qrels_rejudges(small_campaign):
    q = ss.downsample_qrels(small_campaign, [30], seed=1)[30.0]
    sub = small_campaign.with_qrels(q)
    assert len(sub.judged.grades) == len(q)
    assert (sub.grades != -32768).sum() < (small_campaign.grades != -32768).sum()
    full = ss.qrels_of(small_campaign)
    same = small_campaign.with_qrels(full)
    assert np.array_equal(same.grades, small_campaign.grades)


def test_pool_downsampling_table(small_campaign):
    out = ss.pool_downsampling(small_campaign, ["AP", "bpref"], levels=[70, 30], seed=0)
    assert list(out["level"]) == [100.0, 70.0, 30.0] * 2
    assert (out["tau"] <= 1).all() and (out["tau"] > 0).all()
    assert out["judged"].iloc[1] > out["judged"].iloc[2]
    with pytest.raises(ParameterError, match="levels"):
        ss.downsample_rows(small_campaign, [0])


def test_filter_top_runs(small_campaign):
    top = ss.filter_top_runs(small_campaign, 0.75, by="AP")
    assert top.num_runs == 6
    means = system_means(small_campaign, ["AP"])["AP"]
    kept = means[list(top.runs)]
    dropped = means.drop(list(top.runs))
    assert kept.min() >= dropped.max()
    assert list(top.runs) == [r for r in small_campaign.runs if r in top.runs]
    with pytest.raises(ParameterError, match="fraction"):
        ss.filter_top_runs(small_campaign, 1.5)


def test_system_dependence_classic_measure_is_one(small_campaign):
    out = ss.system_dependence(small_campaign, ["AP", "P@10"], sizes=(2, 4, 8, 9), trials=15,
                               seed=0)
    assert list(out["n_systems"]) == [2, 2, 4, 4, 8, 8]      # 9 > 8 runs: skipped
    assert np.allclose(out["tau"], 1.0)
    assert out["trials"].iloc[-1] == 1                        # N = R: one sample
