"""Discriminative power tables and the bootstrap ASL curve."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.errors import ParameterError
from irmeta.stats import discriminative as dp
from irmeta.stats import significance as sg


def test_discriminative_power_counts(scores):
    mats = {"m1": scores, "m2": scores[::-1] * 2}
    out = dp.discriminative_power(mats, tests=("paired_t", "bootstrap", "pairwise_tukey"),
                                  levels=(0.05, 0.01), seed=0, trials=200)
    assert len(out) == 2 * 3 * 2
    row = out[(out.measure == "m1") & (out.test == "paired_t") & (out.level == 0.05)].iloc[0]
    assert row["significant"] == sg.paired_t(scores).num_significant()
    assert row["pairs"] == 21
    b = out[(out.measure == "m1") & (out.test == "bootstrap")]
    assert b["significant"].iloc[0] >= b["significant"].iloc[1]
    assert b["delta"].iloc[1] >= b["delta"].iloc[0]
    # pairwise differences scale by 2 -> same significance for scale-free tests
    t = out[out.test == "paired_t"].groupby("measure")["significant"].sum()
    assert t["m1"] == t["m2"]
    with pytest.raises(ParameterError, match="unknown test"):
        dp.discriminative_power(mats, tests=("anova",))


def test_bootstrap_power_and_asl(scores):
    summary, curves = dp.bootstrap_power({"m": scores}, trials=300, seed=1)
    asl = curves["m"]
    assert np.all(np.diff(asl) >= 0) and len(asl) == 21
    assert summary["significant"].iloc[0] == int((asl < 0.05).sum())
    assert summary["dp"].iloc[0] == pytest.approx((asl < 0.05).mean())


def test_campaign_with_measures(small_campaign):
    from irmeta.stats import stability_table
    out = dp.discriminative_power(small_campaign, ["AP", "P@10"], tests=("paired_t",),
                                  levels=(0.05,))
    assert list(out["measure"]) == ["AP", "P@10"] and (out["pairs"] == 28).all()
    assert len(stability_table(small_campaign, ["AP"], trials=20)) == 1
    with pytest.raises(ParameterError, match="measures"):
        dp.discriminative_power(small_campaign)
