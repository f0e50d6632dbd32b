"""Strict parameters (issue 22, items 7 and 2): trec_eval-style parameter strings parsed
strictly, interdependent parameters checked together, grades beyond the integer range, and
options that take exactly one measure."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import InputError, MeasureError
from irmeta.measures.parse import one_measure
from irmeta.report import ReportOptions
from tests.conftest import shared_path

#: trec_eval 10 reads each of these with atol/atof as 0 (or a leading number) and runs
BAD_TREC = [
    ("ndcg.1=x", "ndcg", "'x'"), ("ndcg.1=nan", "ndcg", "'nan'"),
    ("ndcg.1=inf", "ndcg", "'inf'"), ("ndcg.1=2x", "ndcg", "'2x'"),
    ("ndcg.1=1e999", "ndcg", "'1e999'"), ("ndcg.1=3,1=4", "ndcg", "grade 1 is given twice"),
    ("set_F.nan", "set_F", "'nan'"), ("set_F.abc", "set_F", "'abc'"),
    ("set_F.0x1", "set_F", "'0x1'"), ("set_F.0.5,2", "set_F", "takes one value"),
    ("iprec_at_recall.nan", "iprec_at_recall", "'nan'"),
    ("iprec_at_recall..1,inf", "iprec_at_recall", "'inf'"),
    ("G.1=x", "G", "'x'"), ("Rndcg.2=nan", "Rndcg", "'nan'"), ("ndcg_rel.1=x", "ndcg_rel", "'x'"),
    ("dcg.1=-inf", "dcg", "'-inf'"), ("ideal_dcg.1=", "ideal_dcg", "''"),
    ("P.5,abc", "P", "'abc'"), ("P.nan", "P", "'nan'"), ("P.5e3", "P", "'5e3'"),
    ("P.0x5", "P", "'0x5'"), ("recall.10,", "recall", "''"), ("ndcg_cut.5,x", "ndcg_cut", "'x'"),
    ("map_cut.inf", "map_cut", "'inf'"), ("success.1,x", "success", "'x'"),
    ("relative_P.x", "relative_P", "'x'"), ("unj.nan", "unj", "'nan'"),
    ("Rprec_mult.x", "Rprec_mult", "'x'"), ("Rprec_mult.nan", "Rprec_mult", "'nan'"),
    ("11pt_avg..25,x", "11pt_avg", "'x'"), ("11pt_avg.nan", "11pt_avg", "'nan'"),
    ("utility.1,x,0,0", "utility", "'x'"), ("utility.1,-1,0,nan", "utility", "'nan'"),
    ("relstring.x", "relstring", "'x'"), ("relstring.inf", "relstring", "'inf'"),
    ("rbp.p=x", "rbp", "'x'"), ("rbp.p=nan", "rbp", "'nan'"), ("rbp.p=0.8,p=0.5", "rbp", "twice"),
    ("rbp_resid.p=inf", "rbp_resid", "'inf'"),
]


@pytest.mark.parametrize("text,name,detail", BAD_TREC)
def test_bad_trec_parameters_are_refused_naming_the_measure(text, name, detail):
    with pytest.raises(MeasureError) as info:
        irmeta.parse_measure(text)
    message = str(info.value)
    assert f"trec_eval measure {name!r}" in message.split("\n")[0]
    assert detail in message


#: what trec_eval 10 accepts and computes meaningfully, and what irmeta makes of it
GOOD_TREC = [
    ("P.5,10", ["P@5", "P@10"]), ("P.10,5", ["P@5", "P@10"]), ("P.5, 10", ["P@5", "P@10"]),
    ("P.+5", ["P@5"]), ("ndcg_cut.10,20,23.4", ["nDCG@10", "nDCG@20", "nDCG@23"]),
    ("ndcg.1=0.5,2=3", ["nDCG(gains={1:0.5,2:3.0})"]), ("ndcg.-1=2", ["nDCG(gains={-1:2.0})"]),
    ("utility.1,-1,0,0", ["utility"]), ("utility.2,-1,1e1,.5", ["utility(coefficients="
                                                                "[2.0,-1.0,10.0,0.5])"]),
    ("set_F.0.5", ["SetF(beta=0.5)"]), ("set_F.1e-1", ["SetF(beta=0.1)"]),
    ("iprec_at_recall..1,.5", ["IPrec(recall=0.1)", "IPrec(recall=0.5)"]),
    ("Rprec_mult.5.0", ["Rprec_mult(mult=5.0)"]), ("relstring.20", ["relstring(length=20)"]),
    ("relstring.1e1", ["relstring"]), ("rbp.p=0.8", ["RBP(graded=True)"]),
    ("11pt_avg..25,.5", ["11pt_avg(levels=[0.25,0.5])"]), ("success.1,5", ["Success@1",
                                                                           "Success@5"]),
]


@pytest.mark.parametrize("text,names", GOOD_TREC)
def test_trec_eval_forms_that_compute_meaningfully_are_kept(text, names):
    assert [m.name for m in irmeta.parse_measure(text)] == names


def test_cli_refuses_a_bad_parameter_with_exit_2(capsys):
    base = shared_path("trec_eval_test", "v10.0_HEAD")
    assert main(["eval", "-m", "ndcg.1=3,2=x", str(base / "qrels.test"),
                 str(base / "results.test")]) == 2
    err = capsys.readouterr().err
    assert "trec_eval measure 'ndcg': the gain of grade 2" in err and "'x'" in err
    assert "internal error" not in err


# ---------------------------------------------------------------- INST, INSQ, SDCG
QRELS = {"1": {"a": 3, "b": 1, "c": 0}, "2": {"d": 2}}
RUN = {"1": {"a": 1.0, "b": 3.0, "c": 2.0}, "2": {"d": 1.0, "e": 2.0}}


@pytest.mark.parametrize("text", ["INST(min_rel=3)", "INST(min_rel=5)", "INSQ(min_rel=3)",
                                  "SDCG(min_rel=4)@10"])
def test_min_rel_is_checked_against_the_default_max_rel(text):
    """min_rel must be below max_rel whether max_rel is given (refused when parsed) or is
    the highest grade of the qrels (3 here): INST(min_rel=5) used to give 0."""
    with pytest.raises(MeasureError, match=r"min_rel must be below max_rel.*highest grade "
                                           r"of the qrels, 3"):
        irmeta.evaluate(QRELS, RUN, [text])
    with pytest.raises(MeasureError, match="max_rel must be above min_rel"):
        irmeta.parse_measure(text.replace(")", ",max_rel=2)"))


def test_min_rel_below_the_default_max_rel_computes():
    res = irmeta.evaluate(QRELS, RUN, ["INST(min_rel=2)", "INST(min_rel=2,max_rel=3)"])
    assert np.array_equal(res.values[:, 0], res.values[:, 1])
    # qrels without a positive grade: the default scale is empty, every gain 0 (as AP)
    zero = irmeta.evaluate({"1": {"a": 0}}, {"1": {"a": 1.0}}, ["INST", "SDCG@5", "AP"])
    assert zero.values.tolist() == [[[0.0], [0.0], [0.0]]]


@pytest.mark.parametrize("text", ["INST(T=1e308)", "INSQ(T=1e301)", "INST(T=0)", "INSQ(T=-1)",
                                  "INST(T=inf)", "INST(T=nan)"])
def test_t_out_of_range_is_refused(text):
    with pytest.raises(MeasureError, match=r"T must be|finite"):
        irmeta.parse_measure(text)


def test_largest_t_computes_without_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = irmeta.evaluate(QRELS, RUN, ["INST(T=1e300)", "INSQ(T=1e300)"])
    assert np.isfinite(res.values).all()


# ---------------------------------------------------------------- grades
@pytest.mark.parametrize("grade", ["12345678901234567890123", "9223372036854775808",
                                   "-99999999999999999999", "40000", "1" * 400])
def test_a_huge_grade_in_a_file_is_exit_2_naming_file_line_topic(tmp_path, capsys, grade):
    qrels = tmp_path / "q"
    qrels.write_text(f"1 0 a 1\n7 0 b {grade}\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 5 r\n7 Q0 b 1 5 r\n")
    assert main(["eval", "-m", "P@5", str(qrels), str(run)]) == 2
    err = capsys.readouterr().err
    assert f"{qrels}:2" in err and "topic '7'" in err and "[-32767, 32767]" in err
    assert "internal error" not in err and len(err) < 400
    with pytest.raises(InputError, match=r"out of range"):
        irmeta.load_qrels(qrels)


@pytest.mark.parametrize("grade", [10 ** 23, -(10 ** 23), 2 ** 63, 10 ** 400, 1e23,
                                   np.uint64(2 ** 63)])
@pytest.mark.parametrize("kind", ["dict", "frame"])
def test_a_huge_grade_in_a_frame_or_dict_is_an_input_error(grade, kind):
    qrels = {"1": {"a": grade, "b": 1}}
    if kind == "frame":
        qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"],
                              "relevance": [grade, 1]})
    with pytest.raises(InputError, match=r"topic '1'.*out of range.*\[-32767, 32767\]"):
        irmeta.evaluate(qrels, {"1": {"a": 1.0}}, ["P@5"])


# ---------------------------------------------------------------- one measure
@pytest.mark.parametrize("text,message", [
    ("P", r"P expands to 9 measures \(P_5 ... P_1000\); give one, e.g. P_10"),
    ("Rprec_mult", r"expands to 10 measures"), ("P.5,10", r"expands to 2 measures \(P_5, P_10\)"),
    ("all_trec", r"expands to \d+ measures \(runid ... unj_20\)"),
    ("relstring", "a string per topic"), ("runid", "the run's name"),
    ("num_q", "a count of topics")])
def test_one_measure_refuses_several_and_non_numeric(text, message):
    with pytest.raises(MeasureError, match=message):
        one_measure(text, "--primary")
    for field in ("primary", "gain", "matrix_measure"):
        with pytest.raises(MeasureError, match=message):
            ReportOptions(**{field: text}).validate()


@pytest.mark.parametrize("text", ["P_10", "map", "nDCG@10", "ndcg.1=3,2=9,4=4.5",
                                  "gm_map", "num_rel_ret", "yaap"])
def test_one_measure_accepts_one_numeric_measure(text):
    assert one_measure(text, "--primary").definition.text is None
    assert ReportOptions(primary=text).validate().primary == text


@pytest.mark.parametrize("option,args", [
    ("--primary", ["report", "--primary", "P"]),
    ("--primary", ["report", "--primary", "relstring"]),
    ("--primary", ["report", "--primary", "runid"]),
    ("--primary", ["report", "--primary", "all_trec"]),
    ("--gain", ["report", "--gain", "P"]),
    ("--matrix-measure", ["report", "--matrix-measure", "runid"]),
    ("--measure", ["aggregate", "-m", "P"]), ("--measure", ["aggregate", "-m", "runid"]),
    ("--by", ["meta", "correlation", "-m", "AP", "-m", "P@10", "--top-fraction", "0.5",
              "--by", "P"]),
    ("--baseline", ["meta", "correlation", "--sweep", "P_rare(alpha={alpha})@10",
                    "--baseline", "relstring"]),
    ("--nrg", ["explain", "--run", "STANDARD", "--nrg", "Rprec_mult"]),
    ("--measure", ["reproduce", "gawm", "-m", "num_q"]),
    ("--measure", ["meta", "correlation", "-m", "AP", "-m", "relstring"]),
    ("--measure", ["meta", "significance", "-m", "AP", "-m", "P"]),
    ("--gain", ["twist", "grid", "-g", "runid"])])
def test_options_taking_one_measure_exit_2_naming_the_option(option, args, capsys, tmp_path):
    base = shared_path("trec_eval_test", "v10.0_HEAD")
    inputs = [str(base / "qrels.test"), str(base / "results.test")]
    out = ["-o", str(tmp_path / "x.html")] if args[0] == "report" else []
    code = main([*args, *inputs, *out])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{option} {args[-1]}" in err and "internal error" not in err
    assert not (tmp_path / "x.html").exists()


def test_a_measure_object_is_one_measure():
    m = irmeta.parse_measure("AP")[0]
    assert one_measure(m, "x") is m


@pytest.mark.parametrize("by", ["P", "runid", "relstring", 5])
def test_filter_top_runs_by_takes_one_numeric_measure(by):
    from irmeta.demo import load_demo_campaign
    from irmeta.stats import filter_top_runs
    with pytest.raises(MeasureError, match="filter_top_runs: by"):
        filter_top_runs(load_demo_campaign(), 0.5, by=by)


@pytest.mark.parametrize("text,caret", [("set_F.-1", 6), ("SetF(beta=-1)", 5)])
def test_a_value_out_of_its_range_names_the_string(text, caret):
    """A number that parses but breaks the parameter's constraint (set_F's beta >= 0) is
    refused with the measure string and a caret, as every other bad parameter (the fuzz
    test tests/fuzz/test_fuzz_params.py found the bare message)."""
    with pytest.raises(MeasureError, match="must be a finite number >= 0") as err:
        irmeta.parse_measure(text)
    assert err.value.text == text and err.value.position == caret
    assert f"  {text}\n" in str(err.value)
