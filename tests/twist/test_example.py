"""The paper's worked example (Section 'Definition of the Twist Measure'), exactly."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from irmeta import effort
from irmeta.measures import twist as tw
from tests.twist import example, reference

RP = {
    "ideal": [0] * 15,
    "worst": [-7, -6, -5, -4, -3, -2, -1] + [0] * 8,
    "fs": [-7, -6, -5, -4, -3, -2, -1, 0, 2, 3, 4, 8, 9, 12, 13],
    "a": [0, 0, 0, -4, 0, 2, -1, 0, 0, 3, 0, 0, 0, 0, 0],
    "b": [0, -6, -2, -4, 1, -2, -1, 0, 5, 3, 0, 0, 11, 7, 0],
}
CRP = {
    "ideal": [0] * 15,
    "worst": [-7, -13, -18, -22, -25, -27, -28] + [-28] * 8,
    "fs": [-7, -13, -18, -22, -25, -27, -28, -28, -26, -23, -19, -11, -2, 10, 23],
    "a": [0, 0, 0, -4, -4, -2, -3, -3, -3, 0, 0, 0, 0, 0, 0],
    "b": [0, -6, -8, -12, -11, -13, -14, -14, -9, -6, -6, -6, 5, 12, 12],
}
# (rho, sigma, Twist) by crossing rule, from docs/twist.md
EXPECTED = {
    ("matters", "a"): (0.0, 0.8598, 0.4299),
    ("matters", "b"): (7 / 12, 0.4674, 0.5254),
    ("formal", "a"): (1.0, 0.8598, 0.9299),
    ("formal", "b"): (1.0, 0.4674, 0.7337),
}


@pytest.fixture(scope="module")
def campaign():
    qrels, runs = example.qrels_and_runs()
    return irmeta.load_campaign(qrels, list(runs.values()), names=list(runs))


def test_relevance_vectors_realised(campaign):
    for r, name in enumerate(campaign.runs):
        assert campaign.grades[r, 0].tolist() == example.grades_of(name)


def test_min_max_ranks(campaign):
    table = tw.degree_table(campaign, 15)
    assert table.values.tolist() == [1, 2, 3]
    # columns pr, fr, hr, nr
    assert table.lo[0].tolist() == [5, 3, 1, 8]
    assert table.hi[0].tolist() == [7, 4, 2, 15]
    assert table.rb.tolist() == [7]


@pytest.mark.parametrize("name", list(RP))
def test_rp_and_crp_vectors(campaign, name):
    a = effort.curve_arrays(campaign, [name], ["t1"], depth=15)
    assert a.rp[0, 0].tolist() == RP[name]
    assert a.crp[0, 0].tolist() == CRP[name]
    assert a.rp_fs[0].tolist() == RP["fs"]
    assert a.crp_fs[0].tolist() == CRP["fs"]
    ref = reference.twist(example.grades_of(name), list(campaign.judged.grades), 15)
    assert ref["rp"] == RP[name] and ref["crp"] == CRP[name]


def test_bounds_propositions_1_and_2(campaign):
    comp = tw.components(campaign, 15)
    assert comp.crp_min_fs.tolist() == [-28] and comp.crp_max_fs.tolist() == [23]
    assert -7 * 8 // 2 == -28 and 7 * (15 - 7) - (2 * 2 + 2 * 4 + 3 * 7) == 23
    assert min(RP["fs"]) == -7 and max(RP["fs"]) == 15 - 2


def test_spaces(campaign):
    comp = tw.components(campaign, 15)
    i = {n: k for k, n in enumerate(campaign.runs)}
    assert comp.s_plus_fs.tolist() == [51] and comp.s_minus_fs.tolist() == [28]
    assert comp.s_plus[i["a"], 0] == 5 and comp.s_minus[i["a"], 0] == 5
    assert comp.s_plus[i["b"], 0] == 27 and comp.s_minus[i["b"], 0] == 15


@pytest.mark.parametrize("rule,name", list(EXPECTED))
def test_rho_sigma_twist(campaign, rule, name):
    rho, sigma, value = EXPECTED[(rule, name)]
    measures = [f"Twist(crossing={rule})@15", f"Twist.rho(crossing={rule})@15",
                f"Twist.sigma(crossing={rule})@15"]
    res = irmeta.evaluate(campaign, measures=measures)
    got = res.values[campaign.runs.index(name), :, 0]
    assert got[1] == pytest.approx(rho, abs=1e-12)
    assert got[2] == pytest.approx(sigma, abs=5e-5)
    assert got[0] == pytest.approx(value, abs=5e-5)
    assert got[0] == pytest.approx((got[1] + got[2]) / 2, abs=1e-15)
    ref = reference.twist(example.grades_of(name), list(campaign.judged.grades), 15, rule)
    np.testing.assert_allclose(got, [ref["twist"], ref["rho"], ref["sigma"]], rtol=0, atol=1e-12)


def test_crossing_rules_differ_on_b(campaign):
    b = campaign.runs.index("b")
    assert tw.components(campaign, 15, "formal").crossing[b, 0] == 1
    assert tw.components(campaign, 15, "matters").crossing[b, 0] == 12


def test_reference_runs(campaign):
    comp = tw.components(campaign, 15)
    i = {n: k for k, n in enumerate(campaign.runs)}
    assert comp.twist[i["ideal"], 0] == 1.0 and comp.twist[i["worst"], 0] == 0.0
    assert comp.sigma[i["fs"], 0] == 0.0
    assert comp.rho[i["fs"], 0] == pytest.approx(7 / 13)   # crosses at 13 (N < 3 RB here)
    labels = dict(zip(campaign.runs, effort.classify(comp)[:, 0]))
    assert labels == {"ideal": "ideal", "worst": "worst", "fs": "full_scale",
                      "a": "typical_B", "b": "typical_A"}
    formal = effort.classify(tw.components(campaign, 15, "formal"))[:, 0]
    assert dict(zip(campaign.runs, formal))["a"] == "excellent"


def test_default_depth_is_1000(campaign):
    m = irmeta.parse_measure("Twist")[0]
    assert m.cutoff == 1000 and m.name == "Twist"
    assert irmeta.parse_measure("Twist@15")[0].name == "Twist@15"
    # at N = 1000 the ideal run is still perfect and the worst run still 0
    res = irmeta.evaluate(campaign, measures=["Twist"])
    v = dict(zip(campaign.runs, res.values[:, 0, 0]))
    assert v["ideal"] == 1.0 and v["worst"] == 0.0


def test_normalised_curves_in_unit_interval(campaign):
    f = effort.curves(campaign, "b", "t1", depth=15, normalised=True)
    assert f["crp_fs_norm"].min() == -1.0 and f["crp_fs_norm"].max() == 1.0
    assert f["crp_norm"].between(-1, 1).all() and f["rp_norm"].between(-1, 1).all()
    assert f.attrs["rb"] == 7 and f.attrs["crp_min_fs"] == -28 and f.attrs["crp_max_fs"] == 23
    assert f["dcg"].iloc[0] == 3.0 and f["docid"].iloc[0] == "h1"


def test_linear_normalisation_as_matters(campaign):
    f = effort.curves(campaign, "b", "t1", depth=15, normalised=True, method="linear")
    crp = np.array(CRP["b"], float)
    np.testing.assert_allclose(f["crp_norm"], (2 * crp - 23 + 28) / (23 + 28))
    assert f["crp_fs_norm"].min() == -1.0 and f["crp_fs_norm"].max() == 1.0
    with pytest.raises(irmeta.ParameterError, match="method"):
        effort.curves(campaign, "b", "t1", depth=15, normalised=True, method="log")
