"""Warnings where the user is (issue 48, item 3).

Every warning a public call emits is an ``irmeta.IrmetaWarning`` (a ``UserWarning``) and
names the line of the user's code that made the call, not a line of irmeta's own files,
however deep the call goes inside irmeta (the lazy public API, shared helpers, the
sharded path). Each case runs a small user script file and checks ``w.filename`` and
``w.lineno`` of what it warns.
"""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import pytest

import irmeta
from irmeta.errors import ConvergenceWarning, IrmetaWarning, warn

PACKAGE = Path(irmeta.__file__).resolve().parent

PRELUDE = r"""
import numpy as np
import pandas as pd
import irmeta
import irmeta.aggregate
import irmeta.stats
qrels = {"q1": {"d1": 1, "d2": 2, "d3": 1}, "q2": {"d4": 1}}
runs = {"A": {"q1": {"d1": 3.0, "d2": 2.0}, "q2": {"d4": 1.0}, "q9": {"d9": 1.0}},
        "B": {"q1": {"d2": 3.0, "d3": 2.0}, "q2": {"d5": 1.0}}}
from pathlib import Path
here = Path(__file__).parent
(here / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d4 1\n")
(here / "run.txt").write_text("q1 Q0 d1 1 3.0 A\nq2 Q0 d4 1 1.0 A\nq9 Q0 d9 1 1.0 A\n")
"""

#: (id, the one line of the user's script that warns, the warning's category, a part of
#: its message)
CASES = [
    ("load_campaign", "irmeta.load_campaign(qrels, runs)", IrmetaWarning,
     "not in the qrels"),
    ("evaluate", "irmeta.evaluate(qrels, runs, ['AP'])", IrmetaWarning, "not in the qrels"),
    ("evaluate_sharded", "irmeta.evaluate(here / 'qrels.txt', [here / 'run.txt'], ['AP'], "
                         "shard_topics=1)",
     IrmetaWarning, "not in the qrels"),
    ("twist", "irmeta.evaluate({'q1': qrels['q1']}, {'A': {'q1': runs['A']['q1']}}, "
              "['Twist@1'])", IrmetaWarning, "Twist@1"),
    ("risk", "irmeta.risk({'q1': qrels['q1'], 'q2': qrels['q2']}, "
             "{'A': runs['B'], 'B': {'q1': runs['B']['q1']}}, ['AP'])",
     IrmetaWarning, "retrieves nothing"),
    ("nan_scores", "irmeta.stats.leaderboard(pd.DataFrame([[0.5, np.nan, 0.2], "
                   "[0.3, 0.4, 0.1]], index=['A', 'B']))", IrmetaWarning, "NaN"),
    ("gawm", "irmeta.aggregate.gawm(np.random.default_rng(1).random((5, 7)), 'A', "
             "max_iter=1)", ConvergenceWarning, "did not converge"),
]


def _run_script(tmp_path: Path, line: str) -> tuple[Path, int, list[warnings.WarningMessage]]:
    script = tmp_path / "user_script.py"
    source = PRELUDE + "def analyse():\n    " + line + "\n\nanalyse()\n"
    script.write_text(source, encoding="utf-8")
    lineno = source.splitlines().index("    " + line) + 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runpy.run_path(str(script), run_name="user_script")
    return script, lineno, caught


@pytest.mark.parametrize("line, category, text", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_public_calls_warning_names_the_users_line(tmp_path, line, category, text):
    script, lineno, caught = _run_script(tmp_path, line)
    ours = [w for w in caught if text in str(w.message)]
    assert ours, f"no warning containing {text!r}: {[str(w.message) for w in caught]}"
    for w in ours:
        assert issubclass(w.category, category)
        assert issubclass(w.category, IrmetaWarning)
        assert issubclass(w.category, UserWarning)
        assert Path(w.filename) == script, (w.filename, str(w.message))
        assert w.lineno == lineno
    # and no warning at all points into irmeta's own files
    inside = [w for w in caught if Path(w.filename).resolve().is_relative_to(PACKAGE)]
    assert not inside, [(w.filename, w.lineno, str(w.message)) for w in inside]


def test_irmeta_warnings_can_be_silenced_by_their_category(tmp_path):
    script = tmp_path / "quiet_script.py"
    script.write_text(PRELUDE + "irmeta.load_campaign(qrels, runs)\n", encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=irmeta.IrmetaWarning)
        runpy.run_path(str(script), run_name="quiet_script")
    assert not [w for w in caught if "not in the qrels" in str(w.message)]


def test_the_categories_are_public():
    assert irmeta.IrmetaWarning is IrmetaWarning
    assert irmeta.ConvergenceWarning is ConvergenceWarning
    assert issubclass(ConvergenceWarning, IrmetaWarning)


def test_a_library_frame_between_irmeta_frames_counts_as_irmetas():
    """An installed library (pandas) running an irmeta function that warns: the warning
    names the user's line that called the library, not the library's."""
    import pandas as pd

    # a stand-in for an irmeta function (its module is named irmeta.*)
    namespace = {"__name__": "irmeta._probe", "warn": warn}
    exec("def probe(x):\n    warn('probe warning')\n    return x\n", namespace)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pd.Series([1]).apply(namespace["probe"]); line = _line()  # noqa: E702
    probe = [w for w in caught if str(w.message) == "probe warning"]
    assert len(probe) == 1
    assert Path(probe[0].filename) == Path(__file__)
    assert probe[0].lineno == line


def _line() -> int:
    """The line number of the caller's line."""
    import sys
    return sys._getframe(1).f_lineno


def test_a_users_module_run_as_main_gets_the_warning(tmp_path):
    """``python -m pkg.script``: the module's loader cannot give the source of
    ``__main__``, which must not turn the warning into an error."""
    import os
    import subprocess
    import sys
    pkg = tmp_path / "userpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "script.py").write_text(PRELUDE + "irmeta.load_campaign(qrels, runs)\n")
    done = subprocess.run([sys.executable, "-m", "userpkg.script"], cwd=tmp_path,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONWARNINGS": "default"})
    assert done.returncode == 0, done.stderr
    assert "script.py:" in done.stderr and "IrmetaWarning: 1 topic(s)" in done.stderr
