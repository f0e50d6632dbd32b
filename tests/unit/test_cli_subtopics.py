"""``--subtopic-qrels`` that nothing reads is refused, in every command that takes it (issue
22, item 9; docs/cli.md, "Options that do not apply are refused"). Before, ``irmeta eval
--subtopic-qrels S Q R -m AP`` read S and ignored it, exit 0."""

from __future__ import annotations

import pytest

from irmeta.cli.main import main

QRELS = "".join(f"{t} 0 d{t}{i} {i % 3}\n" for t in (1, 2, 3) for i in range(6))
SUBTOPICS = "".join(f"{t} {s} d{t}{i} {int(i % 2 == s % 2)}\n"
                    for t in (1, 2, 3) for s in (1, 2) for i in range(6))


def _run(name: str, shift: int) -> str:
    return "".join(f"{t} Q0 d{t}{(i + shift) % 6} {i + 1} {10 - i} {name}\n"
                   for t in (1, 2, 3) for i in range(6))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "sub").write_text(SUBTOPICS)
    runs = []
    for k, name in enumerate(["ra", "rb", "rc"]):
        (tmp_path / name).write_text(_run(name, k))
        runs.append(str(tmp_path / name))
    return str(tmp_path / "q"), str(tmp_path / "sub"), runs, tmp_path


#: every command that takes --subtopic-qrels, with what it needs besides the inputs
COMMANDS = {
    "eval": ["eval", "-m", "AP"],
    "eval default measures": ["eval"],
    "eval sharded": ["eval", "--shard-topics", "1", "-m", "AP"],
    "aggregate": ["aggregate", "-m", "AP"],
    "meta correlation": ["meta", "correlation", "-m", "AP", "-m", "P@5"],
    "meta significance": ["meta", "significance", "-m", "AP"],
    "meta leaderboard": ["meta", "leaderboard", "-m", "AP"],
    "meta discpower": ["meta", "discpower", "-m", "AP"],
    "meta stability": ["meta", "stability", "-m", "AP"],
    "meta downsample": ["meta", "downsample", "-m", "AP"],
    "meta systems": ["meta", "systems", "-m", "AP", "--sizes", "2"],
    "explain": ["explain"],
    "report": ["report", "--no-progress", "-o", "{tmp}/r.html"],
    "twist curve": ["twist", "curve", "--run", "ra", "--topic", "1"],
    "twist archetypes": ["twist", "archetypes"],
    "twist grid": ["twist", "grid"],
    "reproduce innovation": ["reproduce", "innovation", "-o", "{tmp}/i.html"],
    "reproduce nrg": ["reproduce", "nrg", "-o", "{tmp}/n.html"],
    "reproduce twist": ["reproduce", "twist", "-o", "{tmp}/t.html"],
    "reproduce gawm": ["reproduce", "gawm", "-o", "{tmp}/g.html"],
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_subtopics_without_a_diversity_measure_is_refused(files, capsys, command):
    qrels, sub, runs, tmp = files
    args = [a.format(tmp=tmp) for a in COMMANDS[command]]
    code = main([*args, "--subtopic-qrels", sub, qrels, *runs])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "--subtopic-qrels does not apply" in err and "diversity measures" in err
    assert not list(tmp.glob("*.html"))                     # refused before any work


def test_the_message_names_the_measures(files, capsys):
    qrels, sub, runs, _ = files
    assert main(["eval", "-m", "AP", "-m", "P@5", "--subtopic-qrels", sub, qrels, *runs]) == 2
    assert "with these measures (AP, P@5)" in capsys.readouterr().err


@pytest.mark.parametrize("args", [
    ["eval", "-m", "alpha_nDCG@5"],
    ["eval", "-m", "AP", "-m", "ERR_IA@5"],
    ["eval", "--shard-topics", "1", "-m", "alpha_nDCG@5"],
    ["meta", "correlation", "-m", "AP", "-m", "alpha_nDCG@5"],
    ["aggregate", "-m", "nERR_IA@5"],
])
def test_subtopics_with_a_diversity_measure_is_read(files, capsys, args):
    qrels, sub, runs, _ = files
    code = main([*args, "--subtopic-qrels", sub, qrels, *runs])
    assert code == 0, capsys.readouterr().err


def test_subtopics_given_as_qrels_too_applies_without_a_diversity_measure(files, capsys):
    """The file is then the ad hoc qrels' source: it is read, so it applies."""
    _, sub, runs, _ = files
    assert main(["eval", "-m", "AP", "--subtopic-qrels", sub, sub, *runs]) == 0, \
        capsys.readouterr().err
