"""``irmeta reproduce``: each paper run once through the CLI on the demo campaign (small
trial counts, low-resolution PNG only), then the written files and the key numbers
checked against the underlying API."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.demo import demo_paths
from irmeta.io.load import read_groups

# whole paper reproductions (quick loop: pytest -m "not slow", docs/development.md)
pytestmark = pytest.mark.slow

FAST = ["--no-svg", "--dpi", "40", "--no-progress"]


@pytest.fixture(scope="module")
def demo():
    p = demo_paths()
    campaign = irmeta.load_campaign(p.qrels, [str(r) for r in p.runs])
    return campaign, read_groups(p.groups, campaign.runs)


def _run(args) -> int:
    os.environ["IRMETA_NO_PROGRESS"] = "1"
    return main(args)


def _tsv(folder, name) -> pd.DataFrame:
    return pd.read_csv(folder / "index_files" / f"{name}.tsv", sep="\t")


def _check_page(folder, titles):
    page = (folder / "index.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "data:image/png;base64," in page           # figures embedded
    assert "http://" not in page and "https://" not in page.replace("https://github", "")
    for title in titles:
        assert title in page, title
    assert "irmeta reproduce" in page                   # the command to re-run it
    assert not list((folder / "index_files").glob("*.svg"))   # --no-svg honoured
    return page


# ------------------------------------------------------------------ innovation
@pytest.fixture(scope="module")
def innovation_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro") / "innovation"
    code = _run(["reproduce", "innovation", "--demo", "-o", str(out), *FAST,
                 "--alphas", "0,0.5,1", "--stability-trials", "40", "--systems-trials", "3",
                 "--figure1-points", "4", "--seed", "7"])
    assert code == 0
    return out


def test_innovation_files_and_page(innovation_out):
    _check_page(innovation_out, ["Figure 1", "Figure 2", "Table 1", "Table 2", "Table 3",
                                 "Inputs, parameters and run time"])
    files = {p.name for p in (innovation_out / "index_files").iterdir()}
    for name in ("figure2.tsv", "table1.tsv", "table2.tsv", "table3.tsv", "figure1.tsv",
                 "parameters.tsv", "timings.tsv", "figure2_alpha_sweep.png",
                 "figure1_synthetic.png", "table3_systems.png"):
        assert name in files, name


def test_innovation_numbers_match_api(innovation_out, demo):
    from irmeta.stats import alpha_sweep, fuzziness_stability, matrices, pairwise_tukey, tukey_hsd
    campaign, _ = demo
    sweep = _tsv(innovation_out, "figure2")
    ref = alpha_sweep(campaign, {"P@100": "P_rare(alpha={alpha})@100",
                                 "AP@100": "AP_rare(alpha={alpha})@100"}, alphas=[0, 0.5, 1])
    np.testing.assert_allclose(sweep["kendall"], ref["kendall"])
    assert (sweep[sweep.alpha == 0]["kendall"] == 1.0).all()

    mats = matrices(campaign, ["P@100", "AP_rare(alpha=1)@100"])
    t1 = _tsv(innovation_out, "table1").set_index("measure")
    assert t1.loc["P@100", "per-pair Tukey 95%"] == \
        pairwise_tukey(mats["P@100"]).num_significant(0.05)
    assert t1.loc["AP_rare(alpha=1)@100", "two-way Tukey HSD 99%"] == \
        tukey_hsd(mats["AP_rare(alpha=1)@100"], level=0.05).num_significant(0.01)

    t2 = _tsv(innovation_out, "table2").set_index("measure")
    st = fuzziness_stability(mats["AP_rare(alpha=1)@100"], trials=40, fuzziness=0.05, seed=7)
    assert t2.loc["AP_rare(alpha=1)@100", "stability"] == pytest.approx(st.value, abs=0)

    t3 = _tsv(innovation_out, "table3")
    assert set(t3["n_systems"]) == {2, 4, 8, 16}         # 32 and 64 > 30 runs
    assert (t3["trials"] == 3).all()


def test_innovation_figure1_against_evaluate(innovation_out, demo):
    """At alpha = 0 the hypothetical system's score is D/K and its rank is 1 + the runs
    whose P@100 on the topic (unchanged by the extra run) is larger; both systems
    coincide there, and S_rare is never ranked below S_common."""
    campaign, _ = demo
    f1 = _tsv(innovation_out, "figure1")
    params = _tsv(innovation_out, "parameters").set_index("parameter")
    assert params.loc["seed", "value"] == "7"
    p100 = irmeta.evaluate(campaign, measures=["P@100"]).matrix(0)
    from irmeta.reproduce.innovation import figure1_topic
    topic = campaign.topics[figure1_topic(campaign, 100, 1, None)]
    real = p100[topic].to_numpy()
    a0 = f1[f1.alpha == 0]
    for row in a0.itertuples():
        assert row.score == pytest.approx(row.D / 100)
        assert row.rank == 1 + int(np.sum(real > row.D / 100 + 1e-12))
    both = a0.pivot_table(index="D", columns="system", values="rank").dropna()
    assert (both["S_rare"] == both["S_common"]).all()
    a1 = f1[f1.alpha == 1].pivot_table(index="D", columns="system", values="rank").dropna()
    assert (a1["S_rare"] <= a1["S_common"]).all()
    assert (f1["systems"] == campaign.num_runs + 1).all()


# ------------------------------------------------------------------ nrg
@pytest.fixture(scope="module")
def nrg_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro") / "nrg"
    assert _run(["reproduce", "nrg", "--demo", "-o", str(out), *FAST]) == 0
    return out


def test_nrg_values_match_api(nrg_out, demo):
    from irmeta.explain import unique_contributions
    campaign, groups = demo
    _check_page(nrg_out, ["Figure 1", "Figure 2", "Figure 3", "Figure 4", "Figure 5"])
    values = _tsv(nrg_out, "values").set_index("run")
    assert list(values.index) == list(campaign.runs)
    res = irmeta.evaluate(campaign, measures=["nDCG@10",
                                              "NRG(base=nDCG,prior=best_per_group,select='nDCG@10')",
                                              "NRG(prior=earlier)@10", "P_rare(alpha=1)@10"],
                          groups=groups)
    np.testing.assert_allclose(values["nDCG@10"], res.matrix(0).mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(values["NRG best_per_group"], res.matrix(1).mean(axis=1),
                               rtol=1e-12)
    np.testing.assert_allclose(values["NRG earlier@10"], res.matrix(2).mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(values["P_rare@10"], res.matrix(3).mean(axis=1), rtol=1e-12)
    # the first run has no earlier run: its NRG is its nDCG
    assert values["NRG earlier@10"].iloc[0] == pytest.approx(values["nDCG@10"].iloc[0])
    # unique = 10 x NRG from P@10 (same prior), and the pool counts come from explain
    np.testing.assert_allclose(values["unique best_per_group@10"],
                               10 * values["NRG(P) best_per_group@10"], rtol=1e-12)
    uc = unique_contributions(campaign, 10)
    np.testing.assert_array_equal(values["unique to the pool@10 (sum)"], uc["unique"])
    assert values["group"].to_dict() == groups


def test_nrg_without_groups_is_others(tmp_path, demo):
    from irmeta.reproduce import nrg
    campaign, _ = demo
    sub = campaign.select_runs(list(range(6)))
    r = nrg.reproduce(sub, tmp_path / "n", params=nrg.NRGParams(label_top=0), formats=("png",),
                      dpi=30, progress=False)
    v = r.tables["values"]
    others = irmeta.evaluate(sub, measures=["NRG(base=nDCG,prior=others)"]).matrix(0).mean(axis=1)
    np.testing.assert_allclose(v["NRG best_per_group"], others, rtol=1e-12)
    assert "every run is its own group" in r.path.read_text(encoding="utf-8")


# ------------------------------------------------------------------ twist
@pytest.fixture(scope="module")
def twist_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro") / "twist"
    assert _run(["reproduce", "twist", "--demo", "-o", str(out), *FAST, "--discpower-trials", "50",
                 "--seed", "3"]) == 0
    return out


def test_twist_matches_api(twist_out, demo):
    from irmeta import effort
    from irmeta.stats import (
        bootstrap_power,
        correlation_matrix,
        filter_top_runs,
        matrices,
        system_means,
    )
    campaign, _ = demo
    _check_page(twist_out, ["Table 2", "Figures 7-11", "Tables 3-4", "Figure 13", "Figure 14"])
    t2 = _tsv(twist_out, "table2").set_index("collection")
    ref = effort.archetype_table(effort.archetypes(campaign, 1000))
    assert t2.loc["this campaign", "total"] == ref["total"].iloc[0] == 30 * 50
    assert t2.loc["this campaign", "typical_A"] == pytest.approx(ref["typical_A"].iloc[0])
    assert "TREC21 (paper)" in t2.index

    top = filter_top_runs(campaign, 0.75)
    assert top.num_runs == 23                                # ceil(0.75 * 30)
    ms = ["AP", "bpref", "RBP(p=0.8)", "nDCG(discount=jk10)", "Twist@1000"]
    tau = _tsv(twist_out, "tables3_4").set_index("measure")
    ref = correlation_matrix(system_means(top, ms))
    np.testing.assert_allclose(tau.to_numpy(), ref.to_numpy(), rtol=1e-12)

    dp = _tsv(twist_out, "figure14").set_index("measure")
    summary, curves = bootstrap_power(matrices(top, ["Twist@1000"]), trials=50, seed=3)
    assert dp.loc["Twist@1000", "significant"] == summary["significant"].iloc[0]
    assert dp.loc["Twist@1000", "pairs"] == 23 * 22 // 2
    asl = _tsv(twist_out, "figure14_asl")
    np.testing.assert_allclose(asl["Twist@1000"], curves["Twist@1000"])

    down = _tsv(twist_out, "figure13")
    assert sorted(set(down["level"]), reverse=True) == [100, 90, 70, 50, 30, 10]
    assert ((down["tau"] <= 1) & (down["tau"] >= -1)).all()

    eg = _tsv(twist_out, "effort_gain").set_index("gain")
    summ, _ = effort.effort_gain_summary(campaign, ms[:4])   # the paper's nDCG, as shown
    np.testing.assert_allclose(eg["diagonal %"], summ["diagonal %"])
    grid = _tsv(twist_out, "grid_ap")
    assert grid.iloc[:, 1:].to_numpy().sum() == pytest.approx(100.0)


# ------------------------------------------------------------------ gawm
def test_gawm_campaign_and_matrix(tmp_path, demo):
    from irmeta.aggregate.analyses import correlation_table, leave_one_topic_out
    campaign, _ = demo
    out = tmp_path / "g"
    assert _run(["reproduce", "gawm", "--demo", "-o", str(out), *FAST, "-m", "nDCG@10"]) == 0
    _check_page(out, ["Table 2", "Table 3", "Figure 3", "Figure 4", "Figure 5", "Figure 6"])
    matrix = irmeta.evaluate(campaign, measures=["nDCG@10"]).matrix(0)
    t2 = _tsv(out, "table2")
    ref = correlation_table({"x": matrix})
    for col in ("Pearson(MAP,E_s)", "Pearson(AAP,W_t)", "Pearson(MAP,A(s))"):
        assert t2[col].iloc[0] == pytest.approx(ref[col].iloc[0], rel=1e-12)
    loto = _tsv(out, "figure6").set_index("aggregator")
    np.testing.assert_allclose(loto["mean_tau"], leave_one_topic_out(matrix, "B")["mean_tau"])
    for name in ("figure3_heatmap.png", "figure4_grid.png", "figure5_confidence.png",
                 "figure6_loto.png", "figure4_scores.tsv", "weights_topics.tsv"):
        assert (out / "index_files" / name).exists(), name

    # the same matrix from a file (wide CSV, systems as rows)
    path = tmp_path / "m.csv"
    small = matrix.iloc[:8, :12]
    small.columns = [f"q{c}" for c in small.columns]     # a numeric header reads as data
    small.to_csv(path)
    out2 = tmp_path / "g2"
    assert _run(["reproduce", "gawm", "--matrix", str(path), "--rows", "systems", "-o",
                 str(out2), *FAST, "--name", "tiny"]) == 0
    t2 = _tsv(out2, "table2")
    assert t2["collection"].iloc[0] == "tiny" and t2["systems"].iloc[0] == 8
    assert t2["topics"].iloc[0] == 12


def test_cli_errors(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_text("run,a,b\nx,0.1,0.2\ny,0.3,0.1\n")
    assert _run(["reproduce", "gawm", "--demo", "--matrix", str(path), "-o",
                 str(tmp_path / "o")]) == 2
    assert _run(["reproduce", "innovation", "-o", str(tmp_path / "o")]) == 2
    capsys.readouterr()
    (tmp_path / "afile").write_text("x")
    assert _run(["reproduce", "nrg", "--demo", "-o", str(tmp_path / "afile"), *FAST]) == 2
    assert "is a file" in capsys.readouterr().err


def test_parameter_validation(demo, tmp_path):
    from irmeta.errors import OutputError, ParameterError
    from irmeta.reproduce import gawm, innovation, twist
    campaign, _ = demo
    with pytest.raises(ParameterError, match="trials"):
        innovation.reproduce(campaign, tmp_path,
                             params=innovation.InnovationParams(stability_trials=0))
    with pytest.raises(ParameterError, match="top_fraction"):
        twist.reproduce(campaign, tmp_path, params=twist.TwistParams(top_fraction=1.5))
    with pytest.raises(ParameterError, match="axioms"):
        gawm.reproduce(pd.DataFrame([[0.1, 0.2], [0.3, 0.4]]), tmp_path,
                       params=gawm.GAWMParams(axioms="C"))
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutputError, match="it is a file, not a folder"):   # an output error
        twist.reproduce(campaign, tmp_path / "afile")
    with pytest.raises(ParameterError, match="figure1_topic"):
        innovation.synthetic_insertion(campaign, "no-such-topic")


def test_context_options_refused(tmp_path, capsys):
    assert _run(["reproduce", "innovation", "--demo", "--prior-runs", "lexA-bm25", "-o",
                 str(tmp_path / "o")]) == 2
    assert "do not apply" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_same_seed_same_files(tmp_path, demo):
    """Every table of a reproduction is reproduced byte for byte with the same seed
    (run times aside); another seed changes the bootstrap."""
    from irmeta.reproduce import twist
    from irmeta.stats import bootstrap_power, filter_top_runs, matrices
    campaign, _ = demo
    sub = campaign.select_runs(list(range(0, 30, 4)))
    outs = []
    for k in range(2):
        twist.reproduce(sub, tmp_path / str(k),
                        params=twist.TwistParams(discpower_trials=30, seed=5, depth=100,
                                                 gains=("AP",), levels=(50,)),
                        formats=("png",), dpi=30, progress=False)
        outs.append({p.name: p.read_bytes()
                     for p in (tmp_path / str(k) / "index_files").glob("*.tsv")
                     if p.name != "timings.tsv"})
    assert len(outs[0]) > 8 and outs[0] == outs[1]
    asl = _tsv(tmp_path / "0", "figure14_asl")["AP"].dropna().to_numpy()
    mats = matrices(filter_top_runs(sub, 0.75), ["AP"])
    assert np.array_equal(asl, bootstrap_power(mats, trials=30, seed=5)[1]["AP"])
    assert not np.array_equal(asl, bootstrap_power(mats, trials=30, seed=6)[1]["AP"])


def test_progress_bar_on_stderr(tmp_path, capsys):
    from irmeta.reproduce import gawm
    rng = np.random.default_rng(1)
    m = pd.DataFrame(rng.random((5, 6)), index=[f"s{i}" for i in range(5)],
                     columns=[f"t{j}" for j in range(6)])
    r = gawm.reproduce(m, tmp_path / "g", progress=True, formats=("png",), dpi=30)
    err = capsys.readouterr().err
    # the bar is drawn with its total (7 analysis steps, 5 drawings and the page); the
    # final 13/13 refresh depends on tqdm's timer
    assert "irmeta reproduce gawm" in err and "/13 [" in err
    assert set(r.timings) == {"table 2", "table 3", "figure 2 (weights against the means)",
                              "figure 3 (heat map)",
                              "figure 4 (ranking grid)", "figure 5 (confidence)",
                              "figure 6 (leave one topic out)", "draw figure 2", "draw figure 3",
                              "draw figure 4", "draw figure 5", "draw figure 6", "render"}
    assert all(w >= 0 and c >= 0 for w, c in r.timings.values())
