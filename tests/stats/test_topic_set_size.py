"""Topic set size design (``irmeta.stats.topic_set_size``, ``irmeta meta
topic-set-size``): the worked example of docs/topic-set-size.md by hand, the fast
search against a plain linear scan over n with statsmodels and SciPy written from the
formulas, DL21 against V_E recomputed from ``irmeta eval -q``, and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from statsmodels.stats.power import FTestAnovaPower, TTestPower

from irmeta.cli.main import main
from irmeta.demo import toy_scores
from irmeta.errors import ParameterError
from irmeta.stats.topic_set_size import topic_set_size


def v_e(X: np.ndarray) -> float:
    """The two-way ANOVA residual mean square, by its sums of squares."""
    k, n = X.shape
    total = ((X - X.mean()) ** 2).sum()
    runs = n * ((X.mean(axis=1) - X.mean()) ** 2).sum()
    topics = k * ((X.mean(axis=0) - X.mean()) ** 2).sum()
    return (total - runs - topics) / ((n - 1) * (k - 1))


def scan(method: str, d: float, V: float, k: int, alpha: float, power: float) -> int:
    """The smallest n by a linear scan from 2 (the obviously correct search)."""
    for n in range(2, 100_000):
        if method == "ttest":
            es = d / math.sqrt(2 * V)
            p = TTestPower().power(effect_size=es, nobs=n, alpha=alpha,
                                   alternative="two-sided")
            if math.isnan(p):   # statsmodels' two-sided power: NaN at few df, large d
                c = st.t.ppf(1 - alpha / 2, n - 1)
                p = st.nct.sf(c, n - 1, es * math.sqrt(n)) + \
                    st.nct.sf(c, n - 1, -es * math.sqrt(n))
            ok = p >= power
        elif method == "anova":
            ok = FTestAnovaPower().power(effect_size=math.sqrt(d * d / (2 * k * V)),
                                         nobs=n * k, alpha=alpha, k_groups=k) >= power
        else:
            es = math.sqrt(2 * V) * math.sqrt(2 / (n - 1)) * math.exp(
                math.lgamma(n / 2) - math.lgamma((n - 1) / 2))
            ok = 2 * st.t.ppf(1 - alpha / 2, n - 1) * es / math.sqrt(n) <= d
        if ok:
            return n
    raise AssertionError("no n found")


def test_worked_example_of_the_docs():
    """docs/topic-set-size.md: the 3 x 5 toy matrix, V_E = 0.94 / 15 / 8 = 47 / 6000."""
    t = topic_set_size(toy_scores(), 0.2, method=["ttest", "anova", "ci"]).table
    assert t["variance"].iloc[0] == pytest.approx(47 / 6000, abs=1e-15)
    assert list(t["n_topics"]) == [6, 5, 9]
    assert t["power"].iloc[0] == pytest.approx(0.7611, abs=1e-4)     # 5 topics today
    assert t["topics"].iloc[0] == 5 and t["runs"].iloc[0] == 3


@pytest.mark.parametrize("seed", range(6))
def test_search_equals_a_linear_scan(seed):
    rng = np.random.default_rng(seed)
    k, n = int(rng.integers(2, 9)), int(rng.integers(2, 40))
    X = rng.beta(2, 3, size=(k, n)) + rng.normal(0, 0.1, size=(k, 1))
    m = pd.DataFrame(X, index=[f"r{i}" for i in range(k)])
    alpha, power = float(rng.choice([0.01, 0.05, 0.1])), float(rng.choice([0.7, 0.8, 0.9]))
    diffs = [float(d) for d in rng.uniform(0.05, 0.4, size=3)]
    t = topic_set_size(m, diffs, alpha=alpha, power=power,
                       method=["ttest", "anova", "ci"]).table
    V = v_e(X)
    assert np.allclose(t["variance"], V, rtol=1e-12)
    for row in t.itertuples():
        assert row.n_topics == scan(row.method, row.min_diff, V, k, alpha, power), row


def test_current_power_and_min_detectable_agree():
    """The smallest detectable D at today's topic count needs at most that many topics,
    a slightly smaller one more; the current power at D = min_detectable is the target."""
    m = pd.DataFrame(np.random.default_rng(3).uniform(size=(6, 25)))
    for method in ("ttest", "anova", "ci"):
        row = topic_set_size(m, 0.1, method=method).table.iloc[0]
        mdd = row["min_detectable"]
        above = topic_set_size(m, mdd * (1 + 1e-6), method=method).table.iloc[0]
        below = topic_set_size(m, mdd * (1 - 1e-3), method=method).table.iloc[0]
        assert above["n_topics"] <= 25 < below["n_topics"], method
        if method != "ci":
            at = topic_set_size(m, mdd, method=method).table.iloc[0]
            assert at["power"] == pytest.approx(0.8, abs=1e-8)


def test_undefined_values_are_nan():
    additive = pd.DataFrame([[1.0, 2, 3], [2, 3, 4]])       # no residual variance
    t = topic_set_size(additive, 0.1, method=["ttest", "ci"]).table
    assert t["n_topics"].isna().all() and t["power"].isna().all()
    assert t["min_detectable"].isna().all() and (t["variance"] == 0).all()
    assert t["power"].isna().all()
    ci = topic_set_size(toy_scores(), 0.1, method="ci").table
    assert ci["power"].isna().all() and ci["n_topics"].notna().all()   # ci has no power


@pytest.mark.parametrize("kwargs,phrase", [
    ({"min_diff": 0}, "min_diff must be a finite number > 0"),
    ({"min_diff": [0.1, float("nan")]}, "min_diff must be"),
    ({"min_diff": []}, "at least one min_diff"),
    ({"min_diff": 0.1, "alpha": 1.0}, "alpha must be"),
    ({"min_diff": 0.1, "power": 0.0}, "power must be"),
    ({"min_diff": 0.1, "method": "bogus"}, "method must be one of"),
])
def test_bad_arguments_are_parameter_errors(kwargs, phrase):
    with pytest.raises(ParameterError, match=phrase):
        topic_set_size(toy_scores(), **kwargs)


def test_bad_matrices_are_parameter_errors():
    with pytest.raises(ParameterError, match="at least 2 runs and 2 topics"):
        topic_set_size(toy_scores().iloc[:1], 0.1)
    with pytest.raises(ParameterError, match="at least 2 runs and 2 topics"):
        topic_set_size(toy_scores().iloc[:, :1], 0.1)
    holey = toy_scores().astype(float)
    holey.iloc[1, 2] = np.nan
    with pytest.raises(ParameterError, match="no value for run 'B' on topic 2"):
        topic_set_size(holey, 0.1)
    with pytest.raises(ParameterError, match="must be a DataFrame"):
        topic_set_size(np.zeros((3, 3)), 0.1)


@pytest.mark.parametrize("argv,phrase", [
    (["--min-diff", "0"], "Invalid value for '--min-diff'"),
    (["--min-diff", "0.1", "--alpha", "1"], "Invalid value for '--alpha'"),
    (["--min-diff", "0.1", "--power", "-0.2"], "Invalid value for '--power'"),
    (["--min-diff", "0.1", "--method", "z"], "Invalid value for '--method'"),
    (["--min-diff", "0.1", "--seed", "1"], "--seed does not apply"),
    (["--min-diff", "0.1", "--top-fraction", "0.5"], "--top-fraction does not apply"),
    ([], "Missing option '--min-diff'"),
])
def test_cli_bad_input_exits_2(capsys, argv, phrase):
    assert main(["meta", "topic-set-size", "--demo", "-m", "AP", *argv]) == 2
    assert phrase in capsys.readouterr().err


def test_cli_json_fields_and_the_matrix_file(tmp_path, capsys):
    assert main(["meta", "topic-set-size", "--demo", "-m", "AP", "--min-diff", "0.05",
                 "--min-diff", "0.1", "--method", "ttest", "--method", "anova",
                 "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 4
    assert {"measure", "method", "n_topics", "variance", "topics", "power",
            "min_detectable"} <= set(rows[0])
    # the same numbers from the score matrix written to a file (aggregate's reader)
    assert main(["eval", "--demo", "-m", "AP", "-q", "--format", "tsv", "-o",
                 str(tmp_path / "ap.tsv")]) == 0
    long = pd.read_csv(tmp_path / "ap.tsv", sep="\t", dtype=str)
    long = long[long["topic"] != "all"]
    long[["run", "topic", "value"]].to_csv(tmp_path / "m.tsv", sep="\t", index=False)
    capsys.readouterr()
    assert main(["meta", "topic-set-size", "--matrix", str(tmp_path / "m.tsv"),
                 "--min-diff", "0.05", "--min-diff", "0.1", "--method", "ttest",
                 "--method", "anova", "--format", "json"]) == 0
    again = json.loads(capsys.readouterr().out)
    for a, b in zip(rows, again):
        assert a["n_topics"] == b["n_topics"] and a["topics"] == b["topics"]
        assert a["variance"] == pytest.approx(b["variance"], rel=1e-9)


def test_cli_plot(tmp_path):
    path = tmp_path / "tss.png"
    assert main(["meta", "topic-set-size", "--demo", "-m", "nDCG@10", "--min-diff", "0.05",
                 "--method", "ttest", "--method", "ci", "--plot", str(path)]) == 0
    assert path.stat().st_size > 5_000 and path.with_suffix(".svg").is_file()


@pytest.mark.slow
def test_dl21_equals_a_statsmodels_search_from_eval_values(dl21, capsys):
    """The issue's "done when": DL21, -l 2, nDCG@10, D 0.05 and 0.1, at alpha 0.05 /
    power 0.8 and alpha 0.01 / power 0.9: ttest and anova equal a linear statsmodels
    scan with V_E recomputed from ``irmeta eval -q``."""
    qrels, runs = dl21
    files = [str(qrels), *map(str, runs)]
    assert main(["eval", *files, "-l", "2", "-m", "nDCG@10", "-q", "--format", "tsv"]) == 0
    from io import StringIO
    long = pd.read_csv(StringIO(capsys.readouterr().out), sep="\t", dtype={"topic": str})
    long = long[long["topic"] != "all"]
    X = long.pivot(index="run", columns="topic", values="value").to_numpy(float)
    assert X.shape == (63, 53) and np.isfinite(X).all()
    V = v_e(X)
    for alpha, power in ((0.05, 0.8), (0.01, 0.9)):
        assert main(["meta", "topic-set-size", *files, "-l", "2", "-m", "nDCG@10",
                     "--min-diff", "0.05", "--min-diff", "0.1", "--alpha", str(alpha),
                     "--power", str(power), "--method", "ttest", "--method", "anova",
                     "--format", "json"]) == 0
        rows = json.loads(capsys.readouterr().out)
        assert len(rows) == 4
        for row in rows:
            assert row["variance"] == pytest.approx(V, rel=1e-9)
            assert row["topics"] == 53 and row["runs"] == 63
            want = scan(row["method"], row["min_diff"], V, 63, alpha, power)
            assert row["n_topics"] == want, row
