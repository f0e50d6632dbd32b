"""LaTeX tables that fit the text block (issue 47, item 4): ``irmeta compare --format latex``
(``Comparison.to_latex``) and the leaderboard's ``to_latex`` (the report's
``leaderboard.tex``), compiled with pdfLaTeX for 63 runs and 8 measure columns in a
one-column ``article``, a ``twocolumn`` article and an ACM-like two-column layout; the log
must hold no ``Overfull \\hbox`` (and no "Float too large"). The preamble is the class and
the table's own leading ``% \\usepackage{...}`` lines, nothing else: the lines are tested
to be enough. Run names in Greek, CJK and emoji compile (docs/compare.md).

pdflatex missing: the tests skip with a message, except where
``IRMETA_REQUIRE_SHARED_DATA=1`` (``.ci/run``, which installs TeX Live): there they fail,
so CI never passes by skipping.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from irmeta.stats import leaderboard
from irmeta.stats.comparison import LATEX_LAYOUTS, compare_matrices, latex_text
from irmeta.stats.leaderboard import to_latex

#: document classes under test: (options, extra preamble lines)
CLASSES = {
    "article": [r"\documentclass{article}"],
    "twocolumn": [r"\documentclass[twocolumn]{article}"],
    # ACM sigconf's text block: 506pt wide, two 241pt columns 24pt apart, 10-pt text
    "acm-like": [r"\documentclass[twocolumn,10pt,letterpaper]{article}",
                 r"\setlength{\textwidth}{506pt}\setlength{\columnsep}{24pt}",
                 r"\setlength{\oddsidemargin}{-18pt}\setlength{\evensidemargin}{-18pt}",
                 r"\setlength{\textheight}{666pt}\setlength{\topmargin}{-40pt}"],
}
#: the packages a table may use without a ``% \usepackage`` line of its own (issue 47);
#: all in Debian's texlive-latex-base / texlive-latex-recommended
ASSUMED = {"booktabs", "longtable", "pdflscape", "graphicx", "array"}
MEASURES = ["nDCG@10", "AP", "RR", "P@10", "R@100", "nDCG@100", "AP@100", "R@1000"]


def pdflatex_or_skip() -> str:
    """The pdflatex executable; without one a skip with a message, or a failure where
    ``IRMETA_REQUIRE_SHARED_DATA=1`` (CI: ``.ci/run`` installs TeX Live)."""
    exe = shutil.which("pdflatex")
    if exe is None:
        message = ("pdflatex not installed (apt-get install texlive-latex-base "
                   "texlive-latex-recommended; .ci/run installs them)")
        if os.environ.get("IRMETA_REQUIRE_SHARED_DATA", "").strip() == "1":
            pytest.fail(f"{message}; IRMETA_REQUIRE_SHARED_DATA=1 forbids skipping",
                        pytrace=False)
        pytest.skip(message)
    return exe


def packages(tex: str) -> list[str]:
    """The packages a table names in its leading ``% \\usepackage{...}`` lines."""
    out = []
    for line in tex.splitlines():
        if not line.startswith("%"):
            break
        out += re.findall(r"\\usepackage(?:\[[^]]*\])?\{([^}]*)\}", line)
    return out


def compile_tables(tmp_path, tables: list[str], cls: str = "article",
                   engine: str | None = None) -> str:
    """Compile ``tables`` in ``cls`` with only the packages they name; the log."""
    exe = engine or pdflatex_or_skip()
    used = sorted({p for t in tables for p in packages(t)})
    pre = CLASSES[cls] + [f"\\usepackage{{{p}}}" for p in used]
    doc = "\n".join([*pre, r"\begin{document}", "\n\\clearpage\n".join(tables),
                     r"\end{document}", ""])
    (tmp_path / "t.tex").write_text(doc, encoding="utf-8")
    done = subprocess.run([exe, "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    log = (tmp_path / "t.log").read_text(encoding="utf-8", errors="replace")
    assert done.returncode == 0, log[-3000:]
    return log


def overfull(log: str) -> list[str]:
    return re.findall(r"Overfull \\hbox \([\d.]+pt too wide\)[^\n]*", log)


def campaign_matrices(n_runs: int = 63, n_topics: int = 53, seed: int = 7):
    """8 measures x ``n_runs`` runs named as DL21's (``input.pass_full_1000e``), spread
    so that most pairs differ: the longest marker lists of all-pairs tables."""
    rng = np.random.default_rng(seed)
    stems = ["pass_full_1000e", "ielab-robertav2", "bl_bcai_p_nn_rt", "mono_electra_h3",
             "WLUPassage", "TUW-DeepCT"]
    runs = [f"input.{stems[i % len(stems)]}{i:02d}" for i in range(n_runs)]
    topics = [f"q{j}" for j in range(n_topics)]
    out = {}
    for k, m in enumerate(MEASURES):
        quality = np.linspace(0.75, 0.15, n_runs)[rng.permutation(n_runs) if k else slice(None)]
        X = np.clip(quality[:, None] + rng.normal(0, 0.12, (n_runs, n_topics)), 0, 1)
        out[m] = pd.DataFrame(np.round(X, 4), index=runs, columns=topics)
    return out


@pytest.fixture(scope="module")
def tables():
    """The tables of issue 47 at 63 runs: compare with 3 and 8 measures (all pairs and
    against a baseline), compare of 10 runs x 8 measures (floats), the leaderboard of 63
    and of 10 runs."""
    mats = campaign_matrices()
    small = {m: v.iloc[:10] for m, v in mats.items()}
    first3 = {m: mats[m] for m in MEASURES[:3]}
    return {
        "compare 63 x 3": compare_matrices(first3).to_latex(),
        "compare 63 x 8": compare_matrices(mats).to_latex(),
        "compare 63 x 8 baseline": compare_matrices(
            mats, baseline=list(mats["AP"].index)[5]).to_latex(),
        "compare 10 x 8": compare_matrices(small).to_latex(),
        "compare 10 x 8 baseline": compare_matrices(
            small, baseline=list(small["AP"].index)[3]).to_latex(),
        "leaderboard 63": to_latex(leaderboard(mats["nDCG@10"], trials=200),
                                   measure="nDCG@10"),
        "leaderboard 10": to_latex(leaderboard(small["nDCG@10"], trials=200),
                                   measure="nDCG@10"),
    }


def test_tables_name_only_assumed_packages(tables):
    for name, tex in tables.items():
        assert tex.startswith("% \\usepackage{booktabs}"), name
        assert set(packages(tex)) <= ASSUMED, name
    assert r"\begin{longtable}" in tables["compare 63 x 8"]
    assert r"\begin{table" in tables["compare 10 x 8"]


@pytest.mark.parametrize("cls", list(CLASSES))
def test_tables_fit_the_text_block(tables, cls, tmp_path):
    log = compile_tables(tmp_path, list(tables.values()), cls)
    assert overfull(log) == []
    assert "Float too large" not in log


@pytest.mark.parametrize("cls", ["article", "twocolumn"])
@pytest.mark.parametrize("layout", [x for x in LATEX_LAYOUTS if x != "auto"])
def test_every_layout_fits_its_width(layout, cls, tmp_path):
    """Every layout keeps to the width (floats of 63 rows are too tall for a page: that
    is why ``auto`` takes a longtable there; here 30 rows)."""
    mats = {m: v.iloc[:30] for m, v in campaign_matrices().items()}
    tex = [compare_matrices(mats).to_latex(layout=layout),
           to_latex(leaderboard(mats["AP"], trials=100), measure="AP", layout=layout)]
    log = compile_tables(tmp_path, tex, cls)
    assert overfull(log) == []


UNICODE = ["bm25-αβγ", "Ωmega_run", "ελληνικά", "检索-中文", "日本語ラン", "🔍search",
           "👍🏽ok", "café-ñ", "Ørsted-ß", "ąę-đ"]


def test_non_ascii_run_names_compile_with_pdflatex(tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.random((len(UNICODE), 12)), index=UNICODE)
    c = compare_matrices({"nDCG@10": frame, "AP": frame * 0.9})
    tex = [c.to_latex(), compare_matrices({"AP": frame}, baseline="检索-中文").to_latex(),
           to_latex(leaderboard(frame, trials=50), measure="α-nDCG")]
    log = compile_tables(tmp_path, tex)
    assert "Unicode character" not in log and "Missing character" not in log
    assert overfull(log) == []
    assert r"\ensuremath{\alpha}" in tex[0] and "[U+68C0]" in tex[0] and "café" in tex[0]
    assert "[U+1F50D]" in tex[0]


def test_latex_text():
    assert latex_text("a_b & 50%") == r"a\_b \& 50\%"
    assert latex_text("αΑ") == r"\ensuremath{\alpha}A"
    assert latex_text("中") == "[U+4E2D]"
    assert latex_text("❤️") == "[U+2764]"          # the variation selector is dropped
    assert latex_text("ą") == "a" and latex_text("é") == "é"


def test_unknown_layout_is_refused():
    from irmeta.errors import ParameterError
    mats = {m: v.iloc[:5] for m, v in campaign_matrices().items()}
    with pytest.raises(ParameterError, match="layout"):
        compare_matrices(mats).to_latex(layout="sideways")
    with pytest.raises(ParameterError, match="layout"):
        to_latex(leaderboard(mats["AP"], trials=50), layout="sideways")


@pytest.mark.slow
@pytest.mark.shared_data
def test_dl21_tables_fit(dl21_campaign, tmp_path):
    """DL21 (63 runs): compare with 3 and 8 measures and the leaderboard, in every class."""
    import irmeta
    res = irmeta.evaluate(dl21_campaign, measures=MEASURES)
    mats = {m: res.matrix(m) for m in MEASURES}
    tex = [compare_matrices({m: mats[m] for m in MEASURES[:3]}).to_latex(),
           compare_matrices(mats).to_latex(),
           to_latex(leaderboard(mats["nDCG@10"], trials=200), measure="nDCG@10")]
    for cls in CLASSES:
        folder = tmp_path / cls
        folder.mkdir()
        log = compile_tables(folder, tex, cls)
        assert overfull(log) == [], cls
        assert "Float too large" not in log, cls
