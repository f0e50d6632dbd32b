"""Every class of bad input gives one clear message (file, line, topic, expectation):
a typed exception from the API, exit status 2 and no traceback from the CLI."""

from __future__ import annotations

import gzip

import pytest

import irmeta
from irmeta.cli.main import main
from irmeta.errors import CampaignError, InputError, MeasureError

QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"
GOOD_RUN = "1 Q0 d1 1 2.0 tag\n1 Q0 d2 2 1.0 tag\n2 Q0 d3 1 3.0 tag\n"


def _write(tmp_path, name, text, gz=False):
    path = tmp_path / name
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


BAD_RUNS = {
    # name: (content, expected line, expected topic, phrase in the message)
    "too_few_fields": ("1 Q0 d1 1 2.0 tag\n1 Q0 d2 2 1.0\n", 2, "1", "5 fields"),
    "non_numeric_score": ("1 Q0 d1 1 2.0 tag\n2 Q0 d3 1 high tag\n", 2, "2", "not a number"),
    "infinite_score": ("1 Q0 d1 1 inf tag\n", 1, "1", "score inf is not finite"),
    "nan_score": ("1 Q0 d1 1 2.0 tag\n1 Q0 d2 1 nan tag\n", 2, "1", "score nan is not finite"),
    "duplicate_doc": ("1 Q0 d1 1 2.0 tag\n1 Q0 d2 2 1.5 tag\n1 Q0 d1 3 1.0 tag\n", 3, "1",
                      "appears twice"),
    "two_tags": ("1 Q0 d1 1 2.0 tagA\n1 Q0 d2 2 1.0 tagB\n", 2, "1", "mixes run tags"),
}


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bad_run_api_message(tmp_path, case):
    content, line, topic, phrase = BAD_RUNS[case]
    qrels = _write(tmp_path, "qrels", QRELS)
    run = _write(tmp_path, "run.txt", content)
    with pytest.raises(InputError) as err:
        irmeta.evaluate(qrels, run, ["AP"])
    exc = err.value
    assert exc.path == str(run)
    assert exc.line == line
    assert exc.topic == topic
    assert phrase in str(exc)
    assert f"{run}:{line}" in str(exc) and "expected" in str(exc)


@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bad_run_cli_exit_status(tmp_path, case, capsys):
    content, line, _, phrase = BAD_RUNS[case]
    qrels = _write(tmp_path, "qrels", QRELS)
    run = _write(tmp_path, "run.txt", content)
    assert main(["eval", str(qrels), str(run), "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"{run}:{line}" in err and phrase in err


def test_bad_line_numbers_count_comment_and_blank_lines(tmp_path):
    run = _write(tmp_path, "run.txt", "# a comment\n\n1 Q0 d1 1 2.0 t\n1 Q0 d1 2 1.0 t\n")
    with pytest.raises(InputError) as err:
        irmeta.evaluate(_write(tmp_path, "q", QRELS), run, ["AP"])
    assert err.value.line == 4


def test_line_numbers_after_blank_lines_without_comments(tmp_path):
    run = _write(tmp_path, "run.txt", "1 Q0 d1 1 2.0 t\n\n\n1 Q0 d1 2 1.0 t\n")
    with pytest.raises(InputError) as err:
        irmeta.evaluate(_write(tmp_path, "q", QRELS), run, ["AP"])
    assert err.value.line == 4


def test_dedupe_keeps_first_occurrence(tmp_path):
    run = _write(tmp_path, "run.txt", "1 Q0 d2 1 3.0 t\n1 Q0 d1 2 2.0 t\n1 Q0 d2 3 9.0 t\n")
    res = irmeta.evaluate(_write(tmp_path, "q", QRELS), run, ["num_ret", "RR"], dedupe=True)
    # d2 kept with score 3.0 (first occurrence), so d2 (non-relevant) ranks above d1
    assert res.values[0, 0, 0] == 2 and res.values[0, 1, 0] == 0.5


def test_split_tags_gives_one_run_per_tag(tmp_path):
    run = _write(tmp_path, "run.txt", "1 Q0 d1 1 2.0 A\n1 Q0 d2 1 2.0 B\n")
    runs = irmeta.load_runs(run, split_tags=True)
    assert sorted(r.name for r in runs) == ["A", "B"]


def test_empty_run_file(tmp_path):
    with pytest.raises(InputError, match="empty run file"):
        irmeta.evaluate(_write(tmp_path, "q", QRELS), _write(tmp_path, "run", "\n \n"), ["AP"])


def test_unreadable_gzip(tmp_path):
    path = tmp_path / "run.gz"
    path.write_bytes(gzip.compress(GOOD_RUN.encode())[:25])
    with pytest.raises(InputError, match="unreadable gzip"):
        irmeta.evaluate(_write(tmp_path, "q", QRELS), path, ["AP"])


def test_gzip_detected_by_magic_not_name(tmp_path):
    run = _write(tmp_path, "run.txt", GOOD_RUN, gz=True)  # gzip content, plain name
    res = irmeta.evaluate(_write(tmp_path, "q", QRELS), run, ["num_ret"])
    assert res.values.sum() == 3


def test_missing_file(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "nope"), str(tmp_path / "run")]) == 2
    assert "no such file" in capsys.readouterr().err


@pytest.mark.parametrize("content,line,phrase", [
    ("1 0 d1 1\n1 0 d2\n", 2, "3 fields"),
    ("1 0 d1 1\n1 0 d2 x\n", 2, "not an integer"),
    ("1 0 d1 1\n1 0 d2 1.5\n", 2, "not an integer"),
    ("1 0 d1 1\n1 0 d1 0\n", 2, "judged twice"),
])
def test_bad_qrels(tmp_path, content, line, phrase):
    qrels = _write(tmp_path, "qrels", content)
    with pytest.raises(InputError) as err:
        irmeta.evaluate(qrels, _write(tmp_path, "run", GOOD_RUN), ["AP"])
    assert err.value.line == line and phrase in str(err.value) and err.value.topic == "1"


def test_empty_qrels(tmp_path):
    with pytest.raises(InputError, match="empty qrels file"):
        irmeta.evaluate(_write(tmp_path, "q", ""), _write(tmp_path, "run", GOOD_RUN), ["AP"])


@pytest.mark.parametrize("text,position,phrase", [
    ("APP@10", 0, "unknown measure 'APP'"),
    ("P(rell=2)@10", 2, "no parameter 'rell'"),
    ("P@", 2, "positive integer cutoff"),
    ("RBP(p=1.5)", None, "p must be in (0, 1)"),
    ("nDCG(gains={1:x})", 14, "expected a number"),
    ("P@10)", 4, "unexpected ')'"),
])
def test_measure_errors_show_string_and_position(text, position, phrase):
    with pytest.raises(MeasureError) as err:
        irmeta.parse_measure(text)
    message = str(err.value)
    assert phrase in message and text in message
    if position is not None:
        assert err.value.position == position
        assert "\n  " + " " * position + "^" in message


def test_unknown_measure_names_the_closest_ones():
    """Issue 48: the closest names, not the list of every measure."""
    with pytest.raises(MeasureError) as err:
        irmeta.parse_measure("MAPP")
    first = str(err.value).split("\n")[0]
    assert first == "unknown measure 'MAPP'; did you mean one of 'MAP', 'GMAP', 'AP'?"
    assert "known measures:" not in str(err.value)
    with pytest.raises(MeasureError, match="every measure: `irmeta measures`"):
        irmeta.parse_measure("xyzzy")


def test_cli_unknown_measure_exit_2(tmp_path, capsys):
    code = main(["eval", str(_write(tmp_path, "q", QRELS)), str(_write(tmp_path, "r", GOOD_RUN)),
                 "-m", "APP"])
    assert code == 2
    err = capsys.readouterr().err
    assert "unknown measure" in err and "Traceback" not in err


def test_colliding_names_fall_back_to_file_names(tmp_path):
    a = _write(tmp_path, "first.txt", GOOD_RUN)
    b = _write(tmp_path, "second.txt.gz", GOOD_RUN, gz=True)
    res = irmeta.evaluate(_write(tmp_path, "q", QRELS), [a, b], ["AP"])
    assert res.runs == ("first", "second")


def test_names_collide_even_by_file_name(tmp_path):
    (tmp_path / "x").mkdir()
    a = _write(tmp_path, "run.txt", GOOD_RUN)
    b = _write(tmp_path / "x", "run.txt", GOOD_RUN)
    with pytest.raises(CampaignError, match="pass names explicitly"):
        irmeta.evaluate(_write(tmp_path, "q", QRELS), [a, b], ["AP"])
