"""Fuzz: measure parameters, grades and one-measure options (issue 22, "Parameters and
grades"). Every random input gives either a value that the strict rules allow (finite
parameters, every number spelled as a number) or one ``IrmetaError`` naming the measure /
file and line / option — never another exception, a NaN parameter or a garbage number read
as 0. Cheap (no files but tiny ones): in the quick loop (``examples``)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from irmeta.errors import InputError, IrmetaError, MeasureError
from irmeta.evaluation import aggregate_values
from irmeta.measures.parse import one_measure, trec_names, trec_nicknames
from tests.quick import examples

SETTINGS = settings(max_examples=examples(200), deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

#: the spellings the strict rules accept (docs/conventions.md, "Measure names")
REAL = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")
CUTOFF = re.compile(r"\s*[-+]?\d+(\.\d*)?\s*")
FRAGMENTS = ["0", "1", "2", "5", "10", ".5", "0.25", "1e1", "1e-2", "1e999", "-1", "+3",
             "nan", "inf", "-inf", "x", "2x", "0x1", "", " ", ".", "e", "=", ",", "1=", "=1",
             "2=0.5", "p=0.8", "p=", "1.5.2"]
PARAMETERISED = sorted(n for n, (_, t) in trec_names().items() if t.form != "single")
QRELS = {"1": {"a": 3, "b": 1, "c": 0, "d": 2}, "2": {"e": 1}}
RUN = {"1": {"a": 1.0, "b": 3.0, "c": 2.0, "x": 2.5}, "2": {"e": 1.0, "f": 2.0}}


def _numbers(value):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, tuple):
        return [x for v in value for x in _numbers(v)]
    return []


@SETTINGS
@given(name=st.sampled_from(PARAMETERISED),
       parts=st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=5))
def test_trec_parameter_strings_are_read_strictly(name, parts):
    text = f"{name}.{''.join(parts)}"
    try:
        measures = irmeta.parse_measure(text)
    except MeasureError as exc:
        first = str(exc).split("\n")[0]
        assert name in first or text in str(exc) or "cutoff" in first, first
        return
    form = trec_names()[name][1].form
    params = text.split(".", 1)[1]
    for item in params.split(","):
        value = item.split("=", 1)[1] if form == "pairs" else item
        pattern = CUTOFF if form == "cutoffs" else REAL
        assert pattern.fullmatch(value), (text, value)   # nothing else is read as a number
    for m in measures:
        for _, v in m.params:
            assert all(math.isfinite(x) for x in _numbers(v)), (text, m.params)
        assert m.cutoff is None or m.cutoff >= 1


@SETTINGS
@given(template=st.sampled_from(["INST(T={})", "INSQ(T={})", "RBP(p={})", "SetF(beta={})",
                                 "nDCG(gains={{1:{}}})@10", "ERR_IA(alpha={})@5",
                                 "rbp_resid(p={})", "utility(coefficients=[1,{},0,0])"]),
       number=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                        st.sampled_from(["1e308", "1e300", "-0", "0", "nan", "inf", "x"])))
def test_numeric_parameters_are_finite_and_in_range_or_refused(template, number):
    text = template.format(number if isinstance(number, str) else repr(number))
    try:
        res = irmeta.evaluate(QRELS, RUN, [text])
    except MeasureError:
        return
    except IrmetaError as exc:       # e.g. ERR-IA without subtopic qrels
        assert "subtopic" in str(exc)
        return
    m = res.measures[0]
    assert all(math.isfinite(x) for _, v in m.params for x in _numbers(v))
    assert np.isfinite(res.values).all(), (text, res.values)


@SETTINGS
@given(family=st.sampled_from(["INST", "INSQ", "SDCG"]),
       lo=st.one_of(st.none(), st.integers(-2, 6)), hi=st.one_of(st.none(), st.integers(-2, 6)),
       top=st.integers(0, 4))
def test_inst_gain_scale_is_checked_together(family, lo, hi, top):
    qrels = {"1": {"a": top, "b": min(1, top), "c": 0}}
    params = ",".join(f"{k}={v}" for k, v in (("min_rel", lo), ("max_rel", hi)) if v is not None)
    text = family + (f"({params})" if params else "") + ("@5" if family == "SDCG" else "")
    low, high = (0 if lo is None else lo), (top if hi is None else hi)
    try:
        res = irmeta.evaluate(qrels, {"1": {"a": 1.0, "b": 2.0, "c": 3.0}}, [text])
    except MeasureError as exc:
        assert "min_rel" in str(exc) or "max_rel" in str(exc)
        assert high <= low and not (hi is None and lo in (None, 0) and top == 0)
        return
    assert high > low or (hi is None and low == 0 and top == 0)
    assert np.all((res.values >= 0) & (res.values <= 1))


@SETTINGS
@given(grade=st.one_of(st.integers(-(10 ** 30), 10 ** 30), st.integers(-40000, 40000),
                       st.sampled_from([2 ** 63, -(2 ** 63) - 1, 10 ** 400, 32767, -32767,
                                        32768])),
       spelling=st.sampled_from(["{}", "+{}", "{}.0", "{}.00"]))
def test_grades_beyond_the_range_are_input_errors(tmp_path_factory, grade, spelling):
    path = tmp_path_factory.mktemp("q") / "qrels"
    text = spelling.format(grade) if grade >= 0 or spelling == "{}" else str(grade)
    path.write_text(f"1 0 a 1\n2 0 b {text}\n")
    try:
        qrels = irmeta.load_qrels(path)
    except InputError as exc:
        assert abs(grade) > 32767
        assert f"{path}:2" in str(exc) and "topic '2'" in str(exc) and len(str(exc)) < 400
        return
    assert abs(grade) <= 32767 and int(qrels.grades.max(initial=0)) <= 32767
    for kind in ("dict",):
        try:
            irmeta.evaluate({"1": {"a": grade}}, {"1": {"a": 1.0}}, ["P@5"])
        except InputError:
            raise AssertionError(f"{kind}: grade {grade} refused") from None


@SETTINGS
@given(text=st.one_of(st.sampled_from(sorted(trec_names()) + sorted(trec_nicknames())),
                      st.sampled_from(["P.5,10", "P_10", "AP", "nDCG@10", "relstring.5",
                                       "Rprec_mult.0.5", "Rprec_mult.0.5,1", "ndcg.1=x",
                                       "", " ", "P(", "yaap", "INST(T=2)", "NRG@10"])))
def test_one_measure_options(text):
    try:
        expected = irmeta.parse_measure(text)
    except MeasureError:
        expected = None
    try:
        m = one_measure(text, "--primary")
    except MeasureError as exc:
        ok = (expected is not None and len(expected) == 1 and expected[0].definition.text is None
              and expected[0].definition.aggregate != "count")
        assert not ok, (text, str(exc))
        assert "--primary" in str(exc) or expected is None
        return
    assert expected is not None and len(expected) == 1 and m == expected[0]
    assert m.definition.text is None and m.definition.aggregate != "count"


@SETTINGS
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_gmean_is_the_c_loop(seed):
    rng = np.random.default_rng(seed)
    values = rng.random((3, int(rng.integers(1, 40)))) ** rng.uniform(0.5, 8)
    values[rng.random(values.shape) < 0.1] = 0.0
    values[rng.random(values.shape) < 0.05] = np.nan
    evaluated = rng.random(values.shape) < 0.9
    got = aggregate_values(values, evaluated, "gmean")
    for r in range(3):
        total, n = 0.0, 0
        for v, ok in zip(values[r].tolist(), evaluated[r].tolist()):
            if ok and not math.isnan(v):
                total += math.log(max(v, 1e-5))
                n += 1
        assert (math.isnan(got[r]) and n == 0) or got[r] == math.exp(total / n)


@pytest.mark.parametrize("name", PARAMETERISED)
def test_every_parameterised_trec_name_refuses_nan(name):
    """The class of the issue, on every family: ``name.nan`` is refused (trec_eval reads 0)."""
    form = trec_names()[name][1].form
    text = f"{name}.1=nan" if form == "pairs" else f"{name}.nan"
    with pytest.raises(MeasureError, match=re.escape(f"trec_eval measure {name!r}")):
        irmeta.parse_measure(text)
