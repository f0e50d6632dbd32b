"""Line ends (issue 22, item 9): ``\\n``, ``\\r\\n`` and a lone ``\\r`` (old Mac) each end a
line, in qrels and runs, plain and gzip, on the fast path (Arrow straight from disk) and the
careful path (blocks rewritten), wherever in the file they occur.

Before, a CR-only run was read as one line of 1,800 fields (its first six kept: a run of one
document) without a word, and a lone ``\\r`` was a line end after the first 64 KiB (Arrow)
but whitespace before it: the same line gave 4,000 or 3,999 documents depending on where it
was. The decision and why: docs/conventions.md, "Input".
"""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest

import irmeta
from irmeta.errors import InputError
from irmeta.io import tokens, trec
from irmeta.io.tokens import RUN, CanonicalStream, last_line_end, unify_line_ends

MEASURES = ["AP", "P@5", "nDCG@10", "num_ret", "num_rel", "num_rel_ret"]


def _qrels_lines(n_topics: int = 3, docs: int = 40) -> list[str]:
    return [f"{t} 0 d{t}_{i} {i % 3}" for t in range(1, n_topics + 1) for i in range(docs)]


def _run_lines(n_topics: int = 3, docs: int = 50, tidy: bool = True) -> list[str]:
    sep = " " if tidy else " \t "
    return [sep.join([str(t), "Q0", f"d{t}_{(i * 7) % docs}", str(i + 1), f"{docs - i}.5",
                      "tagR"]) for t in range(1, n_topics + 1) for i in range(docs)]


def _file(path, lines: list[str], end: str, compress: bool):
    data = (end.join(lines) + end).encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return str(path)


def _values(qrels: str, run: str) -> pd.DataFrame:
    return irmeta.evaluate(qrels, run, MEASURES).to_frame()


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("tidy", [True, False], ids=["fast-path", "careful-path"])
@pytest.mark.parametrize("end", ["\r", "\r\n"], ids=["CR", "CRLF"])
def test_every_line_end_gives_the_values_of_newline_files(tmp_path, end, tidy, compress):
    q_lines, r_lines = _qrels_lines(), _run_lines(tidy=tidy)
    expected = _values(_file(tmp_path / "q.nl", q_lines, "\n", False),
                       _file(tmp_path / "r.nl", r_lines, "\n", False))
    got = _values(_file(tmp_path / "q", q_lines, end, compress),
                  _file(tmp_path / "r", r_lines, end, compress))
    assert got[got.measure == "num_ret"].value.sum() == 2 * 150  # 3 topics + the mean
    pd.testing.assert_frame_equal(got, expected)


def test_a_cr_only_run_is_read_line_by_line_not_as_one_line(tmp_path):
    """The reported case: 1,800 fields on one 'line'; trec_eval reads one document."""
    run = trec.read_run(_file(tmp_path / "r", _run_lines(3, 100), "\r", False))
    assert len(run.docids) == 300
    qrels = trec.read_qrels(_file(tmp_path / "q", _qrels_lines(), "\r", True))
    assert len(qrels.docids) == 120


def test_a_lone_cr_means_the_same_anywhere_in_the_file(tmp_path):
    """A lone \\r joining two lines, in the first 64 KiB (careful path) and after it (fast
    path, Arrow): the same 4,000 documents. Before, 3,999 and 4,000."""
    lines = _run_lines(1, 4000)
    q = _file(tmp_path / "q", [f"1 0 d1_{i} 1" for i in range(4000)], "\n", False)
    counts = []
    for at in (0, 3000):
        text = "\n".join(lines[:at]) + ("\n" if at else "") + lines[at] + "\r" \
            + "\n".join(lines[at + 1:]) + "\n"
        path = tmp_path / f"r{at}"
        path.write_text(text)
        counts.append(irmeta.evaluate(q, str(path), ["num_ret"]).aggregate().iloc[0, 0])
    assert counts == [4000, 4000]


def test_errors_in_a_cr_only_file_name_the_line_an_editor_shows(tmp_path):
    lines = _run_lines(1, 6)
    lines[4] = "1 Q0 d1_9 5 abc tagR"
    path = _file(tmp_path / "r", lines, "\r", False)
    with pytest.raises(InputError, match=r"r:5, .*score 'abc'"):
        trec.read_run(path)
    q_lines = _qrels_lines(1, 5)
    q_lines[2] = "1 0 d1_2"
    with pytest.raises(InputError, match=r"q:3, .*3 fields"):
        trec.read_qrels(_file(tmp_path / "q", q_lines, "\r", True))


def test_a_stray_cr_inside_a_line_is_a_located_error_not_a_silent_value(tmp_path):
    """trec_eval reads a \\r inside a line as whitespace; irmeta ends the line there, so
    the halves have too few fields and the line is named (never a different number)."""
    lines = _qrels_lines(1, 5)
    lines[3] = "1 0\rd1_3 1"
    with pytest.raises(InputError, match=r"q:4, .*2 fields"):
        trec.read_qrels(_file(tmp_path / "q", lines, "\n", False))


def test_last_line_end_leaves_a_final_cr_for_the_next_read():
    assert last_line_end(b"a\nb\rc") == 3
    assert last_line_end(b"a\nb\r") == 1          # may be the \r of a \r\n
    assert last_line_end(b"a\r\nb") == 2
    assert last_line_end(b"abc") == -1
    assert unify_line_ends(b"a\r\nb\rc\n\r") == b"a\nb\nc\n\n"
    assert unify_line_ends(b"a\nb") == b"a\nb"


@pytest.mark.parametrize("block", [5, 7, 13, 64])
def test_a_crlf_split_between_two_reads_is_one_line_end(monkeypatch, block):
    """Small reads put the \\r and the \\n of a \\r\\n in different reads: still one line
    end (no blank line, so line numbers stay right)."""
    import io
    monkeypatch.setattr(tokens, "BLOCK", block)
    text = b"1 Q0 a 1 2 t\r\n1 Q0 b 2 1 t\r1 Q0 c 3 0 t\r\n\r\n1 Q0 d 4 0 t"
    stream = CanonicalStream(io.BytesIO(text), RUN, "x")
    got = list(stream.raw_blocks())
    joined = b"".join(b for _, b in got)
    assert joined == b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n1 Q0 c 3 0 t\n\n1 Q0 d 4 0 t\n"
    starts = [first for first, _ in got]
    assert starts == sorted(starts) and starts[0] == 1
    ends = np.cumsum([b.count(b"\n") for _, b in got])
    assert ends[-1] == 5


def test_a_cr_only_groups_file_is_read_line_by_line(tmp_path):
    from irmeta.io.load import read_groups
    path = tmp_path / "groups"
    path.write_bytes(b"runA g1\rrunB g2\r")
    assert read_groups(path) == {"runA": "g1", "runB": "g2"}


@pytest.mark.parametrize("end", [b"\r", b"\n", b"\r\n"])
def test_the_longest_line_cap_sees_every_line_end(monkeypatch, end):
    """The longest-line cap (IRMETA_MAX_LINE, a decompression bomb's guard) measures lines
    as the reader splits them: 100 short CR-only lines are not one 1,400-byte line, and
    one line over the cap is named with its number."""
    import io
    monkeypatch.setattr(tokens, "BLOCK", 64)
    lines = end.join(b"1 Q0 d%d 1 2 t" % i for i in range(100)) + end
    stream = CanonicalStream(io.BytesIO(lines), RUN, "x")
    stream._max_line = 200
    assert sum(b.count(b"\n") for _, b in stream.raw_blocks()) == 100
    long = lines + b"1 Q0 " + b"x" * 300 + b" 1 2 t" + end
    stream = CanonicalStream(io.BytesIO(long), RUN, "x")
    stream._max_line = 200
    with pytest.raises(InputError, match="x:101: line longer than"):
        list(stream.raw_blocks())
