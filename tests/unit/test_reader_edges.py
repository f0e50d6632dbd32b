"""The files people really have (issue 11): whitespace, pipes and stdin, grades, bytes,
compression formats, big ids. Each test names the class of the issue it covers and
failed on the reader it replaced.

Values are trec_eval's: AP of the clean file, computed here by irmeta (which equals
trec_eval on the clean files, see tests/reference), or written out by hand.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irmeta
from irmeta.cli.main import main
from irmeta.errors import InputError
from irmeta.io import trec
from irmeta.io.tokens import QRELS, RUN, canonical_block, is_canonical, squeeze
from tests.quick import examples

QRELS_TEXT = "1 0 d1 1\n1 0 d2 0\n1 0 d3 1\n2 0 d4 1\n2 0 d5 0\n"
RUN_TEXT = ("1 Q0 d2 1 3.0 tagA\n1 Q0 d1 2 2.0 tagA\n1 Q0 d3 3 1.0 tagA\n"
            "2 Q0 d5 1 2.0 tagA\n2 Q0 d4 2 1.0 tagA\n")
MEASURES = ["AP", "P@2", "nDCG@3", "num_ret", "num_rel"]


def _values(qrels, run, **kw) -> pd.DataFrame:
    """Every per-topic value and mean of MEASURES (run, measure, topic, value)."""
    return irmeta.evaluate(str(qrels), str(run), MEASURES, **kw).to_frame()


def _write(path, data):
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.fixture
def clean(tmp_path):
    q = _write(tmp_path / "qrels", QRELS_TEXT)
    r = _write(tmp_path / "run", RUN_TEXT)
    return q, r, _values(q, r)


def _tabbed(text: str) -> str:
    return "\n".join("\t".join(line.split()) for line in text.splitlines()) + "\n"


# ---------------------------------------------------------------- class 1: whitespace
WHITESPACE_VARIANTS = {
    "trailing space after topic (tab file)": lambda t: _tabbed(t).replace("1\t", "1 \t"),
    "leading space before docid (tab file)": lambda t: _tabbed(t).replace("\td", "\t d"),
    "doubled tab": lambda t: _tabbed(t).replace("\t", "\t\t", 3),
    "tabs and spaces mixed": lambda t: "".join(
        (_tabbed(line + "\n") if i % 2 else line + "\n") for i, line in enumerate(t.splitlines())),
    "space before every tab": lambda t: _tabbed(t).replace("\t", " \t"),
    "trailing space on every line": lambda t: t.replace("\n", " \n"),
    "leading whitespace": lambda t: t.replace("\n", "\n \t ").rstrip(" \t"),
    "CRLF": lambda t: t.replace("\n", "\r\n"),
    "vertical tab and form feed": lambda t: t.replace(" ", "\x0b \x0c"),
    "no final newline": lambda t: t.rstrip("\n"),
    "blank and whitespace-only lines": lambda t: "\n  \n" + t.replace("\n", "\n\t\n", 2),
    "comment lines": lambda t: "# a comment\n" + t.replace("\n", "\n  # indented comment\n", 1),
    "UTF-8 byte-order mark": lambda t: "\ufeff" + t,
}


@pytest.mark.parametrize("variant", sorted(WHITESPACE_VARIANTS))
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_whitespace_is_trec_eval_tokenisation(tmp_path, clean, variant, which):
    q, r, expected = clean
    text = QRELS_TEXT if which == "qrels" else RUN_TEXT
    mutated = _write(tmp_path / f"m_{which}", WHITESPACE_VARIANTS[variant](text))
    got = _values(mutated, r) if which == "qrels" else _values(q, mutated)
    pd.testing.assert_frame_equal(got, expected)


def test_run_name_never_carries_whitespace(tmp_path, clean):
    q, _, _ = clean
    run = _write(tmp_path / "run", RUN_TEXT.replace("\n", " \n"))
    assert trec.read_run(run).name == "tagA"
    assert irmeta.evaluate(str(q), str(run), ["AP"]).runs == ("tagA",)


def test_space_before_every_tab_keeps_every_topic(tmp_path, clean):
    q, r, _ = clean
    qrels = _write(tmp_path / "q2", _tabbed(QRELS_TEXT).replace("\t", " \t"))
    assert irmeta.load_campaign(qrels, [r]).topics == ("1", "2")


def _reference_tokens(block: bytes, ncols: int, extra_ok: bool) -> list[list[bytes]]:
    """The slow, obviously correct tokeniser: Python's bytes.split() (C isspace)."""
    rows = []
    for line in block.split(b"\n"):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        assert len(fields) >= ncols and (extra_ok or len(fields) == ncols)
        rows.append(fields[:ncols])
    return rows


_FIELD = st.binary(min_size=1, max_size=6).map(
    lambda b: bytes(c for c in b if c not in b" \t\n\r\x0b\x0c") or b"x")
_SEP = st.text(alphabet=" \t\x0b\x0c\r", min_size=1, max_size=3).map(str.encode)
_PAD = st.text(alphabet=" \t\x0b\x0c\r", max_size=2).map(str.encode)


@st.composite
def _messy_block(draw, ncols, extra_ok):
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["data", "data", "data", "blank", "comment"]))
        if kind == "blank":
            lines.append(draw(_PAD))
            continue
        n = ncols + (draw(st.integers(0, 2)) if extra_ok else 0)
        fields = [draw(_FIELD) for _ in range(n)]
        if kind == "comment":
            fields[0] = b"#" + fields[0]
        line = draw(_PAD)
        for k, f in enumerate(fields):
            line += f + (draw(_SEP) if k < n - 1 else b"")
        lines.append(line + draw(_PAD))
    return b"\n".join(lines) + b"\n"


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_canonical_block_equals_python_split(data):
    layout = data.draw(st.sampled_from([RUN, QRELS]))
    block = data.draw(_messy_block(layout.ncols, layout.extra_ok))
    out, skipped = canonical_block(block, layout, b"\t", 1, "x")
    got = [line.split(b"\t") for line in out.split(b"\n")[:-1]] if out else []
    assert got == _reference_tokens(block, layout.ncols, layout.extra_ok)
    expected_skipped = [i + 1 for i, line in enumerate(block.split(b"\n")[:-1])
                        if not line.split() or line.split()[0].startswith(b"#")]
    assert skipped.tolist() == expected_skipped


@pytest.mark.slow
@settings(max_examples=examples(300), deadline=None)
@given(st.data())
def test_squeezed_blocks_that_look_canonical_have_the_reference_tokens(data):
    layout = data.draw(st.sampled_from([RUN, QRELS]))
    block = data.draw(_messy_block(layout.ncols, layout.extra_ok))
    delim = data.draw(st.sampled_from([b"\t", b" "]))
    out = squeeze(block, delim)
    if is_canonical(out, layout.ncols, delim):
        got = [line.split(delim) for line in out.split(b"\n")[:-1]]
        assert got == _reference_tokens(block, layout.ncols, layout.extra_ok)


# --------------------------------------------------------- class 2: pipes and stdin
def _cli(args, stdin=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "irmeta.cli.main", *args], input=stdin,
                          capture_output=True, env=env)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="process substitution needs bash")
def test_process_substitution_gives_the_file_values(tmp_path, clean):
    q, r, _ = clean
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(RUN_TEXT.encode()))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    piped = subprocess.run(["bash", "-c", f'"{sys.executable}" -m irmeta.cli.main eval -q '
                            f'{q} <(zcat {gz}) -m AP -m num_ret'],
                           capture_output=True, env=env)
    direct = _cli(["eval", "-q", str(q), str(r), "-m", "AP", "-m", "num_ret"])
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout


@pytest.mark.slow
def test_stdin_dash_is_read(tmp_path, clean):
    q, r, _ = clean
    piped = _cli(["eval", str(q), "-", "-m", "AP"], stdin=RUN_TEXT.encode())
    direct = _cli(["eval", str(q), str(r), "-m", "AP"])
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == direct.stdout


def test_fifo_is_read_once(tmp_path, clean):
    q, _, expected = clean
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = subprocess.Popen(["sh", "-c", f"cat > {fifo}"], stdin=subprocess.PIPE)
    writer.stdin.write(RUN_TEXT.encode())
    writer.stdin.close()
    pd.testing.assert_frame_equal(_values(q, fifo), expected)
    writer.wait()


@pytest.mark.slow
def test_error_line_numbers_survive_a_pipe(tmp_path, clean):
    q, _, _ = clean
    bad = "\n# c\n" + RUN_TEXT + "1 Q0 d1 9 0.5 tagA\n"
    out = _cli(["eval", str(q), "-", "-m", "AP"], stdin=bad.encode())
    assert out.returncode == 2
    assert b"<stdin>:8" in out.stderr and b"appears twice" in out.stderr


# ------------------------------------------------------------------ class 4: grades
@pytest.mark.parametrize("grade", ["nan", "NA", "null", "N/A", "1e3", "0x2", "2.5", "one",
                                   "40000", "-40000", "1,0"])
def test_bad_grades_name_file_and_line(tmp_path, grade):
    qrels = _write(tmp_path / "qrels", QRELS_TEXT.replace("2 0 d4 1", f"2 0 d4 {grade}"))
    with pytest.raises(InputError) as err:
        trec.read_qrels(qrels)
    assert err.value.line == 4 and err.value.topic == "2" and err.value.path == str(qrels)


@pytest.mark.parametrize("spelling,value", [("+1", 1), ("1.0", 1), ("01", 1), ("-1", -1),
                                            ("2.00", 2)])
def test_integer_grade_spellings(tmp_path, spelling, value):
    qrels = _write(tmp_path / "qrels", f"1 0 d1 {spelling}\n")
    assert trec.read_qrels(qrels).grades.tolist() == [value]


@pytest.mark.parametrize("line", ["2 0 d4", "2 0 d4 1 extra", "2 0 d4 1 extra more"])
def test_qrels_lines_need_exactly_four_fields_anywhere(tmp_path, line):
    qrels = _write(tmp_path / "qrels", QRELS_TEXT.replace("2 0 d4 1", line))
    with pytest.raises(InputError) as err:
        trec.read_qrels(qrels)
    assert err.value.line == 4 and "fields" in str(err.value)


# ------------------------------------------------------------------- class 5: bytes
def test_latin1_ids_stay_distinct(tmp_path):
    qrels = _write(tmp_path / "qrels", b"1 0 caf\xe9 1\n1 0 caf\xe8 0\n")
    run = _write(tmp_path / "run", b"1 Q0 caf\xe8 1 2 t\n1 Q0 caf\xe9 2 1 t\n")
    assert irmeta.evaluate(str(qrels), str(run), ["AP"]).values[0, 0, 0] == 0.5
    assert trec.read_run(run).to_frame()["doc_id"].tolist() == ["caf\\xe8", "caf\\xe9"]


def test_latin1_ids_are_not_false_duplicates(tmp_path):
    run = _write(tmp_path / "run", b"1 Q0 caf\xe9 1 2 t\n1 Q0 caf\xe8 2 1 t\n")
    qrels = _write(tmp_path / "qrels", b"1 0 caf\xe9 1\n")
    campaign = irmeta.load_campaign(str(qrels), [str(run)])
    assert campaign.ranking(0, 0) == ["caf\\xe9", "caf\\xe8"]


def test_latin1_in_qrels_is_read(tmp_path):
    qrels = _write(tmp_path / "qrels", b"1 0 caf\xe9 1\n1 0 d2 0\n")
    assert trec.read_qrels(qrels).docids.to_pylist() == [b"caf\xe9", b"d2"]


def test_nul_is_significant_through_the_api():
    res = irmeta.evaluate({"1": {"d1": 1}}, {"1": {"d1\x00": 1.0}}, ["AP"])
    assert res.values[0, 0, 0] == 0.0


def test_tie_order_is_byte_order_for_non_utf8_ids(tmp_path):
    run = _write(tmp_path / "run", b"1 Q0 a\xff 1 1 t\n1 Q0 a\x7f 2 1 t\n1 Q0 b 3 1 t\n")
    qrels = _write(tmp_path / "qrels", b"1 0 b 1\n")
    campaign = irmeta.load_campaign(str(qrels), [str(run)])
    assert campaign.ranking(0, 0) == ["b", "a\\xff", "a\x7f"]


# ---------------------------------------------------------------- class 10: formats
@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress,
                                      lambda b: _zstd(b)],
                         ids=["gzip", "bzip2", "xz", "zstd"])
def test_compressed_formats_are_read(tmp_path, clean, compress):
    q, _, expected = clean
    run = _write(tmp_path / "run.x", compress(RUN_TEXT.encode()))
    qrels = _write(tmp_path / "qrels.x", compress(QRELS_TEXT.encode()))
    pd.testing.assert_frame_equal(_values(qrels, run), expected)


def _zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


def test_multi_member_gzip(tmp_path, clean):
    q, _, expected = clean
    half = RUN_TEXT.index("2 Q0")
    run = _write(tmp_path / "run.gz", gzip.compress(RUN_TEXT[:half].encode())
                 + gzip.compress(RUN_TEXT[half:].encode()))
    pd.testing.assert_frame_equal(_values(q, run), expected)


@pytest.mark.parametrize("data,phrase", [
    (RUN_TEXT.encode("utf-16"), "UTF-16"),
    (RUN_TEXT.encode("utf-16-le"), "UTF-16"),
    (b"PK\x03\x04" + b"\0" * 40, "zip"),
    (gzip.compress(RUN_TEXT.encode(), mtime=0)[:-12], "gzip"),
    (b"\x28\xb5\x2f\xfd" + b"garbage" * 5, "zstd"),
], ids=["utf16-bom", "utf16-no-bom", "zip", "truncated-gzip", "corrupt-zstd"])
def test_unreadable_formats_say_what_they_are(tmp_path, clean, data, phrase):
    q, _, _ = clean
    run = _write(tmp_path / "run", data)
    with pytest.raises(InputError) as err:
        trec.read_run(run)
    assert phrase in str(err.value) and str(run) in str(err.value)
    assert main(["eval", str(q), str(run), "-m", "AP"]) == 2


# ----------------------------------------------------- class 3: big ids, big files
def test_a_one_megabyte_docid_in_qrels(tmp_path, clean):
    _, r, expected = clean
    qrels = _write(tmp_path / "qrels", QRELS_TEXT + "2 0 " + "x" * (1 << 20) + " 0\n")
    pd.testing.assert_frame_equal(_values(qrels, r), expected)


def test_many_blank_lines_before_the_data(tmp_path, monkeypatch, clean):
    """Blank lines past the first block (and past the 64 KiB head) are not an empty file."""
    from irmeta.io import tokens
    q, _, expected = clean
    monkeypatch.setattr(tokens, "BLOCK", 1 << 10)
    run = _write(tmp_path / "run", "\n" * 70_000 + RUN_TEXT)
    pd.testing.assert_frame_equal(_values(q, run), expected)
    with pytest.raises(InputError) as err:
        trec.read_run(_write(tmp_path / "blank", "\n \t\n" * 30_000))
    assert "empty run file" in str(err.value)


def test_blocks_boundaries_do_not_split_lines(tmp_path, monkeypatch, clean):
    from irmeta.io import tokens
    q, _, expected = clean
    monkeypatch.setattr(tokens, "BLOCK", 7)  # every line crosses a block boundary
    run = _write(tmp_path / "run", RUN_TEXT.replace(" ", "  "))  # careful path
    pd.testing.assert_frame_equal(_values(q, run), expected)
    bad = _write(tmp_path / "bad", RUN_TEXT + "\n\n2 Q0 d9 1\n")
    with pytest.raises(InputError) as err:
        trec.read_run(bad)
    assert err.value.line == 8


MEMORY_PROBE = r"""
import resource, sys
from irmeta.cli.main import main
import irmeta.io.trec, numpy, pandas, pyarrow.csv  # imports before the limit
vm = int([l for l in open('/proc/self/status') if l.startswith('VmSize')][0].split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + (96 << 20), resource.RLIM_INFINITY))
sys.exit(main(['eval', sys.argv[1], sys.argv[2], '-m', 'AP']))
"""


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_running_out_of_memory_is_a_clear_error(tmp_path):
    """Class 3: under a memory limit, exit 2 naming the limit, never a crash."""
    rng = np.random.default_rng(0)
    n = 3_000_000
    docs = np.char.add("doc-with-a-long-id-", rng.integers(0, 10**9, n).astype(str))
    topics = np.repeat(np.arange(n // 1000), 1000).astype(str)
    run = tmp_path / "run"
    with open(run, "w") as fh:
        for t, d, k in zip(topics, docs, range(n)):
            fh.write(f"{t} Q0 {d} {k % 1000 + 1} {-(k % 1000)} big\n")
    qrels = _write(tmp_path / "qrels", "0 0 x 1\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(qrels), str(run)],
                         capture_output=True, env=env, timeout=300)
    assert out.returncode == 2, out.stderr[-2000:]
    assert b"not enough memory" in out.stderr and b"ulimit -v" in out.stderr
    assert b"Traceback" not in out.stderr
