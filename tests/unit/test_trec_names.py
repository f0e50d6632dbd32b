"""trec_eval names mean what trec_eval means (docs/conventions.md, "Measure names"), and
the differences from trec_eval 10 where it is wrong are kept on purpose."""

from __future__ import annotations

import numpy as np
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import MeasureError
from irmeta.measures.parse import trec_eval_measures, trec_nicknames
from tests.conftest import shared_path
from tests.oracles.test_classic_oracle import random_campaign


@pytest.fixture
def suite():
    base = shared_path("trec_eval_test", "v10.0_HEAD")
    return base / "qrels.test", base / "results.test"


def _labels(text):
    return [m.display for m in irmeta.parse_measure(text)]


def test_bare_trec_names_give_trec_eval_default_cutoffs():
    cut = ["5", "10", "15", "20", "30", "100", "200", "500", "1000"]
    assert _labels("P") == [f"P_{k}" for k in cut]
    assert _labels("recall") == [f"recall_{k}" for k in cut]
    assert _labels("ndcg_cut") == [f"ndcg_cut_{k}" for k in cut]
    assert _labels("map_cut") == [f"map_cut_{k}" for k in cut]
    assert _labels("success") == ["success_1", "success_5", "success_10"]
    assert _labels("unj") == ["unj_5", "unj_10", "unj_20"]
    assert _labels("Rprec_mult")[0] == "Rprec_mult_0.20"
    assert _labels("iprec_at_recall")[-1] == "iprec_at_recall_1.00"


def test_irmeta_names_keep_their_meaning():
    assert _labels("P@10") == ["P@10"]
    (m,) = irmeta.parse_measure("P()")           # set precision, as bare P was before
    assert m.cutoff is None and m.family == "P"
    assert irmeta.parse_measure("RBP")[0]["p"] == 0.8
    assert irmeta.parse_measure("rbp")[0]["p"] == 0.9


def test_trec_parameter_syntax_and_labels():
    assert _labels("ndcg.1=3,2=9,4=4.5") == ["ndcg_1=3,2=9,4=4.5"]
    assert irmeta.parse_measure("ndcg.1=3,2=9")[0]["gains"] == ((1, 3.0), (2, 9.0))
    assert _labels("rbp.p=0.8") == ["rbp_p=0.8"]
    assert irmeta.parse_measure("rbp.p=0.8")[0]["p"] == 0.8
    assert _labels("relative_P.5,10") == ["relative_P_5", "relative_P_10"]
    assert _labels("set_F.0.5") == ["set_F_0.5"]
    assert irmeta.parse_measure("set_F.0.5")[0]["beta"] == 0.5
    assert _labels("utility.2,-1,0,0") == ["utility_2,-1,0,0"]
    assert irmeta.parse_measure("utility.2,-1,0,0")[0]["coefficients"] == (2.0, -1.0, 0.0, 0.0)
    assert _labels("P_10") == ["P_10"] and _labels("Rprec_mult_1.20") == ["Rprec_mult_1.20"]
    assert _labels("ndcg_cut.10,20,23.4") == ["ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23"]


@pytest.mark.parametrize("text", ["P.0", "P.5,5", "map.5", "ndcg.x=3", "utility.1,2",
                                  "rbp.p=1.5", "prefs", "all_prefs", "qrels_jg"])
def test_bad_trec_forms_are_errors(text):
    with pytest.raises(MeasureError):
        irmeta.parse_measure(text)


def test_nicknames_in_trec_eval_order():
    nick = trec_nicknames()
    assert nick["official"] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map",
                                "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall",
                                "P"]
    assert nick["set"] == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility",
                           "set_P", "set_relative_P", "set_recall", "set_map", "set_F"]
    assert len(nick["all_trec"]) == 37 and nick["all_trec"][-1] == "unj"


def test_trec_eval_m_options_merge_as_trec_eval_does():
    ms = trec_eval_measures(["P.5", "map", "all_trec", "relstring.20", "P.10"])
    labels = [m.display for m in ms]
    assert labels.index("map") < labels.index("P_5")       # trec_eval's order, not -m's
    assert "P_10" not in labels and "relstring_20" in labels  # the first params win
    assert trec_eval_measures(["map", "P@10"]) is None        # not all trec_eval names


def test_rbp_is_trec_evals_on_binary_qrels(suite):
    res = irmeta.evaluate(*suite, ["rbp", "RBP", "rbp.p=0.8"])
    assert [f"{v:.4f}" for v in res.means[0]] == ["0.3234", "0.3077", "0.3077"]


def test_graded_rbp_divides_by_the_largest_grade():
    qrels = {"a": {"x": 3, "y": 1, "z": 0}, "b": {"u": 1}}
    run = {"a": {"y": 2.0, "x": 1.0}, "b": {"u": 1.0}}
    res = irmeta.evaluate(qrels, run, ["rbp"])
    # topic b's grade 1 is worth 1/3, as on topic a: one scale for the whole qrels
    assert res.values[0, 0].tolist() == pytest.approx([0.1 * (1 / 3 + 0.9 * 1.0), 0.1 / 3])


def test_fractional_gains_are_sorted_by_value(suite):
    """trec_eval 10 sorts gains by their integer-truncated difference: Rndcg.1=0.5 prints
    nan on its own test data. irmeta sorts by value: scaling every gain changes nothing."""
    res = irmeta.evaluate(*suite, ["Rndcg.1=0.5", "Rndcg", "ndcg.1=0.5", "ndcg"])
    v = res.values[0]
    assert np.isfinite(v).all()
    np.testing.assert_allclose(v[0], v[1], rtol=1e-12)
    np.testing.assert_allclose(v[2], v[3], rtol=1e-12)


def test_complete_num_rel_total_is_the_sum_at_the_level():
    """trec_eval 10 with -c recounts grades > 0 for the total, ignoring -l 2."""
    base = shared_path("trec_eval_test", "v10.0_HEAD")
    res = irmeta.evaluate(base / "qrels.rel_level", base / "results.trunc", ["num_rel"],
                          complete=True, rel_level=2)
    assert res.means[0, 0] == res.values[0, 0].sum()


def test_judged_only_option_and_parameter_agree():
    qrels, runs = random_campaign(4, n_runs=2)
    plain = irmeta.evaluate(qrels, runs, ["P@10", "nDCG@10", "AP", "num_ret"],
                            judged_only=True)
    param = irmeta.evaluate(qrels, runs, ["P(judged_only=true)@10", "nDCG(judged_only=true)@10",
                                          "AP(judged_only=true)"])
    np.testing.assert_array_equal(plain.values[:, :3], param.values)
    campaign = irmeta.load_campaign(qrels, runs)
    judged = campaign.judged_only()
    assert (judged.grades[judged.valid] >= 0).all()
    assert plain.values[:, 3].sum() == judged.length.sum()
    r, t = np.argwhere(judged.length > 0)[0]
    kept = [d for d in campaign.ranking(r, t) if qrels[campaign.topics[t]].get(d, -1) >= 0]
    assert judged.ranking(r, t) == kept


def test_collection_size_reaches_utility():
    qrels, runs = random_campaign(2, n_runs=1)
    res = irmeta.evaluate(qrels, runs, ["utility.0,0,0,1", "num_ret", "num_rel",
                                        "num_rel_ret"], collection_size=1000)
    u, n, n_rel, r = res.values[0]
    np.testing.assert_allclose(u, 1000 + r - n - n_rel)


def test_cli_refuses_preference_formats(suite, capsys):
    assert main(["eval", "-R", "prefs", str(suite[0]), str(suite[1])]) != 0
    assert "preference" in capsys.readouterr().err


def test_cli_judged_only_matches_the_api(suite, capsys):
    assert main(["eval", "-J", "-m", "P.10", "-m", "set_P", str(suite[0]), str(suite[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    res = irmeta.evaluate(*suite, ["P_10", "set_P"], judged_only=True)
    assert out == [f"P_10                  \tall\t{res.means[0, 0]:.4f}",
                   f"set_P                 \tall\t{res.means[0, 1]:.4f}"]


def test_exp_log2_gains_are_two_to_the_grade_minus_one():
    qrels, runs = random_campaign(5)
    res = irmeta.evaluate(qrels, runs, ["nDCG(dcg=exp-log2)@10", "nDCG(gains={1:1,2:3,3:7})@10"])
    np.testing.assert_array_equal(res.values[:, 0], res.values[:, 1])
