"""``irmeta compare`` / ``irmeta.compare``: values against SciPy and statsmodels, markers,
outputs, the LaTeX writer (compiled when pdflatex is installed) and the CLI."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from scipy import stats

import irmeta
from irmeta.cli.main import cli, main
from irmeta.errors import ParameterError
from irmeta.io.latex import escape, latex_table
from irmeta.stats.comparison import PAIR_COLUMNS, compare_matrices, key_ranges
from irmeta.stats.significance import pairwise_test as significance_test

TSV_COLUMNS = ["measure", "run_a", "run_b", "mean_a", "mean_b", "p_value", "p_adjusted",
               "significant"]


def matrices(n_runs=7, n_topics=20, seed=3, spread=0.3):
    rng = np.random.default_rng(seed)
    runs = [f"run_{i}" for i in range(n_runs)]
    topics = [f"t{j}" for j in range(n_topics)]
    out = {}
    for k, m in enumerate(["nDCG@10", "AP", "RR"]):
        X = (rng.random((n_runs, n_topics)) * 0.5 + np.linspace(spread, 0, n_runs)[:, None]
             + rng.random(n_topics)[None, :] * 0.2)
        X = np.round(X, 2 + k)           # rounding makes tied topics, as real measures have
        out[m] = pd.DataFrame(X, index=runs, columns=topics)
    return out


def pvalues_by_pair(c, measure):
    t = c.pairs[c.pairs["measure"] == measure]
    return {(a, b): p for a, b, p in zip(t["run_a"], t["run_b"], t["p_value"])}


# ---------------------------------------------------------------------- values
def check_against_scipy(mats, c, test):
    """Every pair's p-value equals SciPy's on the same per-topic values (a loop over
    pairs: the obviously correct reference)."""
    checked = 0
    for m, mat in mats.items():
        for (a, b), p in pvalues_by_pair(c, m).items():
            x, y = mat.loc[a].to_numpy(), mat.loc[b].to_numpy()
            if np.all(x == y):
                assert p == 1.0
                continue
            ref = (stats.ttest_rel(x, y) if test == "paired_t" else stats.wilcoxon(x, y))
            assert p == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300), (m, a, b)
            checked += 1
    return checked


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon"])
def test_pvalues_equal_scipy(test):
    mats = matrices()
    c = compare_matrices(mats, test=test)
    assert check_against_scipy(mats, c, test) == 3 * 21


def test_pvalues_check_can_fail():
    mats = matrices()
    c = compare_matrices(mats, test="paired_t")
    broken = c.pairs.copy()
    broken.loc[3, "p_value"] *= 1.001
    with pytest.raises(AssertionError):
        check_against_scipy(mats, type(c)(**{**c.__dict__, "pairs": broken}), "paired_t")


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "fdr_bh"])
def test_corrections_equal_statsmodels_within_each_measure(correction):
    from statsmodels.stats.multitest import multipletests
    mats = matrices(n_runs=9, spread=0.3)
    c = compare_matrices(mats, correction=correction)
    assert c.correction == correction
    for m in mats:
        t = c.pairs[c.pairs["measure"] == m]
        reject, adjusted, _, _ = multipletests(t["p_value"].to_numpy(), alpha=0.05,
                                               method=correction)
        np.testing.assert_allclose(t["p_adjusted"].to_numpy(), adjusted, rtol=1e-12)
        assert (t["significant"].to_numpy() == reject).all()
        assert reject.any() and not reject.all()       # the family decides something


def test_default_is_holm_and_none_is_the_raw_pvalue():
    mats = matrices()
    assert compare_matrices(mats).correction == "holm"
    c = compare_matrices(mats, correction=None)
    assert c.correction is None
    assert (c.pairs["p_adjusted"] == c.pairs["p_value"]).all()
    assert (c.pairs["significant"] == (c.pairs["p_value"] < 0.05)).all()
    assert "no correction" in c.describe()


@pytest.mark.parametrize("test", ["paired_t", "wilcoxon", "randomisation", "bootstrap",
                                  "tukey_hsd", "randomised_tukey_hsd"])
def test_same_values_as_meta_significance(test):
    mats = matrices(n_runs=5)
    c = compare_matrices(mats, test=test, trials=300 if test != "paired_t" and
                         test != "wilcoxon" and test != "tukey_hsd" else None)
    for m, mat in mats.items():
        order = mat.mean(axis=1).sort_values(ascending=False, kind="stable").index
        kwargs = {} if test in ("tukey_hsd", "randomised_tukey_hsd") else {"correction": "holm"}
        if test in ("randomisation", "bootstrap", "randomised_tukey_hsd"):
            kwargs.update(trials=300, seed=0)
        ref = significance_test(mat.loc[order], test, **kwargs).table
        got = c.pairs[c.pairs["measure"] == m]
        np.testing.assert_array_equal(got["p_value"].to_numpy(), ref["p_value"].to_numpy())
        np.testing.assert_array_equal(got["effect"].to_numpy(), ref["effect"].to_numpy())
        assert list(got["run_a"]) == list(ref["a"]) and list(got["run_b"]) == list(ref["b"])


@pytest.mark.parametrize("test", ["randomisation", "bootstrap"])
def test_random_tests_reproduce_bit_for_bit(test):
    mats = matrices()
    one = compare_matrices(mats, test=test, trials=500, seed=7)
    two = compare_matrices(mats, test=test, trials=500, seed=7)
    other = compare_matrices(mats, test=test, trials=500, seed=8)
    pd.testing.assert_frame_equal(one.pairs, two.pairs)
    assert one.to_json() == two.to_json()
    assert not one.pairs["p_value"].equals(other.pairs["p_value"])
    assert one.trials == 500 and one.seed == 7


def test_baseline_pairs_and_win_tie_loss():
    mats = matrices()
    c = compare_matrices(mats, baseline="run_3")
    assert (c.pairs["run_b"] == "run_3").all() and len(c.pairs) == 3 * 6
    for m, a, w, t, l_ in c.pairs[["measure", "run_a", "wins", "ties", "losses"]].itertuples(
            index=False):
        d = mats[m].loc[a].to_numpy() - mats[m].loc["run_3"].to_numpy()
        assert (w, t, l_) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())
    assert (c.pairs["ties"] > 0).any()
    v = c.versus_baseline()
    sig = c.pairs[c.pairs["significant"]]
    assert sum((v != 0).sum()) == len(sig)
    text = c.to_text()
    assert "run_3 (baseline)" in text and "W/T/L" in text


def test_bad_baseline_and_arguments():
    mats = matrices()
    with pytest.raises(ParameterError, match="unknown baseline run 'nope'"):
        compare_matrices(mats, baseline="nope")
    with pytest.raises(ParameterError, match="controls the family-wise error"):
        compare_matrices(mats, test="tukey_hsd", correction="holm")
    assert compare_matrices(mats, test="tukey_hsd").correction is None
    with pytest.raises(ParameterError, match="test"):
        compare_matrices(mats, test="pairwise_tukey")
    with pytest.raises(ParameterError, match="other runs"):
        compare_matrices({"a": mats["AP"], "b": mats["RR"].iloc[:-1]})


# ---------------------------------------------------------------------- markers
def separated(n_runs, n_topics=15):
    """Runs far apart: every pair significantly different."""
    rng = np.random.default_rng(0)
    X = np.arange(n_runs, 0, -1)[:, None] * 1.0 + rng.normal(0, 0.01, (n_runs, n_topics))
    return pd.DataFrame(X, index=[f"r{i:02d}" for i in range(n_runs)],
                        columns=[f"t{j}" for j in range(n_topics)])


def test_markers_scale_past_26_runs():
    c = compare_matrices({"AP": separated(40)})
    marks = c.markers()["AP"]
    assert list(c.keys) == list(range(1, 41))
    assert marks.iloc[0] == "2-40" and marks.iloc[26] == "28-40" and marks.iloc[39] == ""
    assert c.pairs["significant"].all()
    # a marker lists exactly the significant wins
    mats = matrices(n_runs=30, spread=0.4)
    c = compare_matrices(mats)
    beaten = c.better_than()
    for m in mats:
        t = c.pairs[(c.pairs["measure"] == m) & c.pairs["significant"]]
        wins = {(a if d > 0 else b, b if d > 0 else a) for a, b, d in
                zip(t["run_a"], t["run_b"], t["diff"])}
        got = {(r, c.runs[k - 1]) for r in c.runs for k in beaten.loc[r, m]}
        assert got == wins and len(wins) > 26


def test_key_ranges():
    assert key_ranges([1, 2, 3, 5, 27, 28, 63]) == "1-3,5,27-28,63"
    assert key_ranges([4], dash="--") == "4"


def test_best_in_bold_ties_all():
    mat = separated(4)
    mat.loc["r01"] = mat.loc["r00"]          # two best runs, equal
    c = compare_matrices({"AP": mat})
    assert c.best()["AP"].tolist() == [True, True, False, False]
    tex = c.to_latex()
    assert tex.count(r"\textbf{") == 2
    assert c.to_markdown().count("**") == 4
    assert c.to_html().count("<b>") == 2


# ---------------------------------------------------------------------- outputs
def test_outputs_text_markdown_html_json():
    mats = matrices()
    c = compare_matrices(mats)
    assert str(c) == c.to_text()
    assert repr(c).startswith("Comparison(7 runs [run_0, run_1, run_2, ...] x 3 measures "
                              "[nDCG@10, AP, RR], paired_t, holm, level 0.05, ")
    for r in c.runs:
        assert r in c.to_text() and escape(r) in c.to_latex()
        assert r.replace("_", r"\_") in c.to_markdown()
    html = c._repr_html_()
    assert html.startswith("<table") and html.count("<tr>") == len(c.runs) + 1
    doc = json.loads(c.to_json())
    assert len(doc["pairs"]) == len(c.pairs) == 3 * 21
    assert doc["runs"][0]["run"] == c.runs[0] and doc["correction"] == "holm"
    assert list(c.to_frame().columns) == list(PAIR_COLUMNS)


def check_latex_text(tex: str, runs, long: bool = False) -> None:
    """What a LaTeX table must hold without compiling it."""
    depth = 0
    for ch in re.sub(r"\\[{}]", "", tex):
        depth += (ch == "{") - (ch == "}")
        assert depth >= 0
    assert depth == 0
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert rule in tex
    assert r"\caption{" in tex and r"\label{tab:" in tex
    assert (r"\begin{longtable}" in tex) == long
    assert (r"\begin{table" in tex) == (not long)
    body = tex.split(r"\endlastfoot" if long else r"\midrule", 1)[1]
    rows = [line for line in body.splitlines() if line.endswith(r"\\")]
    assert len(rows) == len(runs)
    for run, row in zip(runs, rows):
        assert row.split(" & ")[1].startswith(escape(run))


NASTY = ["a_b", "c&d", "50%", "#1", "$x", "{y}", "t~n", "x^2", "back\\slash", "<p|q>"]


def test_latex_escapes_and_structure():
    mats = {m: mat.set_axis(NASTY, axis=0) for m, mat in matrices(n_runs=10).items()}
    c = compare_matrices(mats, baseline="c&d")
    tex = c.to_latex()
    check_latex_text(tex, c.runs)
    for raw, esc in [("a_b", r"a\_b"), ("c&d", r"c\&d"), ("50%", r"50\%"), ("#1", r"\#1"),
                     ("$x", r"\$x"), ("{y}", r"\{y\}"), ("t~n", r"t\textasciitilde{}n"),
                     ("x^2", r"x\textasciicircum{}2"),
                     ("back\\slash", r"back\textbackslash{}slash")]:
        assert esc in tex, raw
    assert "Holm" in tex and "level 0.05" in tex and "normalised discounted" in tex


def test_latex_check_catches_a_missing_escape():
    bad = latex_table(["#", "run"], [["1", "ok"]], caption="c", label="tab:x", align="rl")
    bad = bad.replace("1 & ok", "1 & a_b{")
    with pytest.raises(AssertionError):
        check_latex_text(bad, ["a_b{"])


def test_longtable_past_40_rows():
    c = compare_matrices({"AP": separated(45)})
    tex = c.to_latex()
    check_latex_text(tex, c.runs, long=True)
    assert r"\endhead" in tex and "continued" in tex
    check_latex_text(c.to_latex(long_after=100), c.runs)


def test_leaderboard_latex_uses_the_writer():
    from irmeta.stats import leaderboard
    from irmeta.stats.leaderboard import to_latex
    board = leaderboard(separated(5), trials=50)
    tex = to_latex(board, measure="AP")
    check_latex_text(tex, list(board.table.index))
    assert r"\textbf{" in tex and r"\label{tab:leaderboard-AP}" in tex


def compile_latex(tmp_path, tables: str | list[str]) -> str:
    """Compile in an article with only the packages each table names in its leading
    ``% \\usepackage`` lines; skips without pdflatex, fails instead in CI
    (tests/stats/test_latex_fit.py, ``compile_tables``)."""
    from tests.stats.test_latex_fit import compile_tables
    return compile_tables(tmp_path, [tables] if isinstance(tables, str) else tables)


def test_latex_compiles_and_fits_the_page(tmp_path):
    from irmeta.stats import leaderboard
    from irmeta.stats.leaderboard import to_latex
    mats = {m: mat.set_axis(NASTY, axis=0) for m, mat in matrices(n_runs=10).items()}
    tables = [compare_matrices(mats).to_latex(), compare_matrices(mats, baseline="#1").to_latex(),
              compare_matrices({"AP": separated(45)}).to_latex(),
              to_latex(leaderboard(separated(50), trials=50), measure="AP")]
    log = compile_latex(tmp_path, tables)
    assert "Overfull \\hbox" not in log
    assert (tmp_path / "t.pdf").stat().st_size > 0


# ---------------------------------------------------------------------- API and CLI
def test_api_on_the_demo_and_results():
    from irmeta.demo import demo_paths
    p = demo_paths()
    c = irmeta.compare(p.qrels, p.runs[:5], ["nDCG@10", "AP"], rel_level=1)
    res = irmeta.evaluate(p.qrels, p.runs[:5], ["nDCG@10", "AP"])
    d = irmeta.compare(res)
    pd.testing.assert_frame_equal(c.pairs, d.pairs)
    assert c.rel_level == 1 and c.topics == {"nDCG@10": 50, "AP": 50}
    with pytest.raises(ParameterError, match="measures"):
        irmeta.compare(p.qrels, p.runs[:5])


def cli_out(args):
    result = CliRunner().invoke(cli, ["compare", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_cli_tsv_columns_and_rows():
    out = cli_out(["--demo", "-m", "nDCG@10", "-m", "AP", "--format", "tsv"])
    frame = pd.read_csv(io.StringIO(out), sep="\t")
    assert list(frame.columns[:8]) == TSV_COLUMNS
    assert list(frame.columns) == list(PAIR_COLUMNS)
    assert len(frame) == 2 * 30 * 29 // 2
    assert frame.groupby("measure").size().to_dict() == {"AP": 435, "nDCG@10": 435}


def test_cli_formats(tmp_path):
    text = cli_out(["--demo", "-m", "AP", "--baseline", "expD-prf"])
    assert "expD-prf (baseline)" in text and "Holm" in text
    tex = cli_out(["--demo", "-m", "AP", "--format", "latex", "--label", "tab:mine"])
    assert r"\label{tab:mine}" in tex and r"\begin{table}" in tex
    page = cli_out(["--demo", "-m", "AP", "--format", "html", "--digits", "2"])
    assert page.startswith("<!DOCTYPE html>") and '<html lang="en">' in page
    assert 'name="viewport"' in page and "<title>" in page and "<table" in page
    html = cli_out(["--demo", "-m", "AP", "--format", "html-fragment", "--digits", "2"])
    assert html.startswith("<table") and "<html" not in html
    doc = json.loads(cli_out(["--demo", "-m", "AP", "--test", "randomisation", "--trials",
                              "200", "--seed", "3", "--format", "json"]))
    assert doc["trials"] == 200 and doc["seed"] == 3


def test_cli_bad_baseline_is_exit_2(capsys):
    assert main(["compare", "--demo", "-m", "AP", "--baseline", "no_such_run"]) == 2
    err = capsys.readouterr().err
    assert "unknown baseline run 'no_such_run'" in err and "Traceback" not in err


@pytest.mark.parametrize("args, option", [
    (["--trials", "10"], "--trials"),
    (["--test", "tukey_hsd", "--correction", "holm"], "--correction"),
    (["--format", "tsv", "--digits", "2"], "--digits"),
    (["--label", "tab:x"], "--label"),
])
def test_cli_refuses_options_that_do_not_apply(args, option, capsys):
    assert main(["compare", "--demo", "-m", "AP", *args]) == 2
    assert option in capsys.readouterr().err



@pytest.mark.parametrize("label, shown", [("tab_a%1", "%"), ("a{b", "{"), (r"a\b", "\\"),
                                          ("  ", "is empty")])
def test_latex_label_that_breaks_the_source_is_refused(label, shown, capsys):
    """``\\label{tab_a%1}`` used to be written as it is: ``%`` comments out the closing
    brace and the table no longer compiles."""
    assert main(["compare", "--demo", "-m", "AP", "--format", "latex", "--label", label]) == 2
    err = capsys.readouterr().err
    assert f"LaTeX label {label!r}" in err and shown in err and "Traceback" not in err
    with pytest.raises(ParameterError):
        latex_table(["a"], [["x"]], caption="c", label=label, align="l")


def test_caption_words_for_a_rarity_measure_and_one_pair():
    """The caption said "rareness-based precision at K at cut-off 10" (the registry
    writes P_rare's cut-off as K, not k) and "(1 pairs)"."""
    rng = np.random.default_rng(1)
    mats = {"P_rare(alpha=0.5)@10": pd.DataFrame(rng.random((2, 6)), index=["a", "b"])}
    c = compare_matrices(mats)
    assert c.definitions() == {"P_rare(alpha=0.5)@10": "rareness-based precision at 10"}
    assert "(1 pair)" in c.describe()
    assert "(1 comparison with the baseline a)" in compare_matrices(mats, baseline="a").describe()

# ---------------------------------------------------------------------- DL21
@pytest.mark.slow
@pytest.mark.shared_data
def test_dl21_63_runs_pvalues_equal_scipy(dl21_campaign, tmp_path):
    measures = ["nDCG@10", "AP", "RR"]
    res = irmeta.evaluate(dl21_campaign, measures=measures)
    mats = {m: res.matrix(m) for m in measures}
    for test in ("paired_t", "wilcoxon"):
        c = compare_matrices(mats, test=test)
        assert len(c.pairs) == 3 * 63 * 62 // 2 == 5859
        assert check_against_scipy(mats, c, test) > 5000
    c = compare_matrices(mats)
    assert len(c.runs) == 63 and c.keys.max() == 63
    tex = c.to_latex()
    check_latex_text(tex, c.runs, long=True)
    log = compile_latex(tmp_path, tex)
    assert "Overfull \\hbox" not in log


def test_html_and_markdown_escape_names():
    mats = {m: mat.set_axis(NASTY, axis=0) for m, mat in matrices(n_runs=10).items()}
    c = compare_matrices(mats)
    html = c.to_html()
    assert "&lt;p|q&gt;" in html and "c&amp;d" in html and "<p|q>" not in html
    md = c.to_markdown()
    assert r"\<p\|q>" in md and r"a\_b" in md and "<p|q>" not in md
    for line in md.splitlines()[2:12]:          # every row has exactly its cells
        assert line.replace(r"\|", "").count("|") == 6


def test_cli_markdown_and_csv():
    md = cli_out(["--demo", "-m", "AP", "-m", "RR", "--format", "markdown", "--digits", "2"])
    assert md.startswith("| # | run | AP | RR |") and md.count("\n| ") == 31
    frame = pd.read_csv(io.StringIO(cli_out(["--demo", "-m", "AP", "--format", "csv"])))
    assert list(frame.columns[:8]) == TSV_COLUMNS and len(frame) == 435
