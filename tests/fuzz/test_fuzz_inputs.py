"""Fuzz: mutate real and random TREC files; every mutation gives either the clean
file's values (which equal trec_eval's: tests/reference) or exit status 2 with the
file and the line of the mutation — never exit 1, never another number.

Mutations that keep trec_eval's tokens (and so its values): runs of mixed whitespace
between fields, leading and trailing whitespace, CRLF, blank / whitespace-only /
comment lines, fields after the sixth of a run line, compression, a byte-order mark,
a common non-UTF-8 prefix on every document id, other spellings of an integer grade.
Mutations that break a line: a field removed (or, in qrels, added), a score or a grade
that is not a number, a document repeated in a topic, a second run tag.

Real inputs: trec_eval's own test files, one CLEF eHealth run and one TREC DL 2021 run
(cut to a few topics to keep each example fast), plus random campaigns.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeta
from irmeta.cli.main import main
from irmeta.errors import IrmetaError
from tests.conftest import shared_path

# Hypothesis fuzzing of whole files (quick loop: pytest -m "not slow", docs/development.md)
pytestmark = pytest.mark.slow

MEASURES = ["AP", "P@5", "nDCG@10", "RR", "bpref", "num_ret", "num_rel_ret"]
WS = b" \t\x0b\x0c"  # not \r: a lone \r ends a line (docs/conventions.md, "Input")
#: examples per test and campaign; IRMETA_FUZZ_EXAMPLES=500 for a deep run by hand
SETTINGS = settings(max_examples=int(os.environ.get("IRMETA_FUZZ_EXAMPLES", "25")),
                    deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


def _first_topics(lines: list[bytes], n: int) -> list[bytes]:
    keep, seen = [], []
    for line in lines:
        t = line.split()[0]
        if t not in seen:
            seen.append(t)
        if len(seen) > n:
            break
        keep.append(line)
    return keep


def _lines(path, topics=None) -> list[bytes]:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    lines = [ln for ln in raw.split(b"\n") if ln.strip()]
    return _first_topics(lines, topics) if topics else lines


def _random_case(seed: int) -> tuple[list[bytes], list[bytes]]:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(3):
        docs = [f"d{t}-{k}" for k in rng.choice(60, size=25, replace=False)]
        for d in docs[:15]:
            qrels.append(f"{t} 0 {d} {rng.integers(0, 3)}".encode())
        scores = rng.choice(1000, size=20, replace=False) / 7
        for rank, (d, s) in enumerate(zip(docs[5:], scores)):
            run.append(f"{t} Q0 {d} {rank + 1} {s:.4f} rnd".encode())
    return qrels, run


@pytest.fixture(scope="module", params=["trec_eval", "ehealth", "dl21", "random"])
def case(request, tmp_path_factory):
    """(qrels lines, run lines, clean values) of one real or random campaign."""
    if request.param == "trec_eval":
        base = shared_path("trec_eval_test", "v10.0_HEAD")
        qrels, run = _lines(base / "qrels.test"), _lines(base / "results.test", 3)
    elif request.param == "ehealth":
        base = shared_path("clef-ehealth-2016-irtask2")
        qrels = _lines(base / "qrels" / "task2.qrels")
        run = _lines(sorted((base / "runs").glob("*.gz"))[0], 2)
    elif request.param == "dl21":
        base = shared_path("trec-dl-2021-passage")
        qrels = _lines(base / "qrels" / "qrels.dl21-passage.txt")
        run = _lines(sorted((base / "runs").glob("*.gz"))[0], 40)
    else:
        qrels, run = _random_case(7)
    judged = {line.split()[0] for line in qrels}
    run = [line for line in run if line.split()[0] in judged]  # the rest is never read
    ranked = {line.split()[0] for line in run}
    qrels = [line for line in qrels if line.split()[0] in ranked]  # so is this
    folder = tmp_path_factory.mktemp(request.param)
    expected = _evaluate(_save(folder / "q", qrels), _save(folder / "r", run))
    return Case(request.param, qrels, run, expected)


class Case(tuple):
    """(qrels lines, run lines, clean values), shown by name in Hypothesis reports."""

    def __new__(cls, name, qrels, run, expected):
        obj = super().__new__(cls, (qrels, run, expected))
        obj.name = name
        return obj

    def __repr__(self) -> str:
        return f"<{self.name} campaign>"


def _save(path, lines, *, end=b"\n", compress=None) -> str:
    data = end.join(lines) + end
    path.write_bytes(compress(data) if compress else data)
    return str(path)


def _evaluate(qrels: str, run: str) -> pd.DataFrame:
    return irmeta.evaluate(qrels, run, MEASURES).to_frame()


# ------------------------------------------------------ mutations that keep tokens
def _ws(rng, lo: int, hi: int) -> bytes:
    return bytes(WS[c] for c in rng.integers(0, len(WS), size=rng.integers(lo, hi + 1)))


def _respace(rng, line: bytes) -> bytes:
    fields = line.split()
    return _ws(rng, 0, 2) + b"".join(f + (_ws(rng, 1, 3) if k < len(fields) - 1 else b"")
                                     for k, f in enumerate(fields)) + _ws(rng, 0, 2)


def _keeping(rng, lines: list[bytes], kind: str, prefix: bytes, rate: float) -> bytes:
    """A token-preserving mutation of one file's lines (document ids get ``prefix``);
    ``rate``: the share of lines touched by each kind of change."""
    out = []
    for line in lines:
        f = line.split()
        f[2] = prefix + f[2]
        if kind == "qrels" and rng.random() < rate / 3:
            f[3] = f[3] + b".0" if f[3].startswith(b"-") else b"+0" + f[3]
        line = b" ".join(f)
        if kind == "run" and rng.random() < rate / 3:
            line += b" extra fields\tignored"
        if rng.random() < rate:
            line = _respace(rng, line)
        if rng.random() < rate / 5:
            out.append([b"", b"  ", b"\t", b"# comment", b" \t# x y z w"][rng.integers(5)])
        out.append(line + (b"\r" if rng.random() < rate / 2 else b""))
    head = b"\xef\xbb\xbf" if rng.random() < 0.2 else b""
    return head + b"\n".join(out) + [b"\n", b"", b"\n\n"][rng.integers(3)]


def _zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


_CODECS = [None, gzip.compress, bz2.compress, lzma.compress, _zstd]


@SETTINGS
@given(data=st.data())
def test_token_preserving_mutations_keep_every_value(case, tmp_path, data):
    qrels, run, expected = case
    # a common prefix keeps the byte order of document ids, hence trec_eval's tie order
    prefix = data.draw(st.sampled_from([b"", b"\xe9", b"caf\xe8-", "ü".encode()]), "prefix")
    rate = data.draw(st.sampled_from([0.01, 0.3, 1.0]), "rate")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
    q_bytes = _keeping(rng, qrels, "qrels", prefix, rate)
    r_bytes = _keeping(rng, run, "run", prefix, rate)
    codec = data.draw(st.sampled_from(_CODECS), "codec")
    q = tmp_path / "q"
    r = tmp_path / "r"
    q.write_bytes(codec(q_bytes) if codec else q_bytes)
    r.write_bytes(codec(r_bytes) if codec else r_bytes)
    pd.testing.assert_frame_equal(_evaluate(str(q), str(r)), expected)


# -------------------------------------------------------- mutations that break a line
def _drop_field(line, kind, draw):
    f = line.split()
    if kind == "run" and len(f) > 6:
        f = f[:6]
    del f[draw(st.integers(0, len(f) - 1))]
    return [b" ".join(f)], "field"


def _bad_value(line, kind, draw):
    f = line.split()
    if kind == "run":
        f[4] = draw(st.sampled_from([b"abc", b"nan", b"inf", b"-inf", b"1e999", b"0x1p3",
                                     b"1,5", b"--1"]))
        return [b" ".join(f)], "score"
    f[3] = draw(st.sampled_from([b"1e3", b"0x2", b"nan", b"NA", b"null", b"N/A", b"2.5",
                                 b"one", b"99999", b"1,0"]))
    return [b" ".join(f)], "grade"


def _extra_qrels_field(line, kind, draw):
    return [line + b" " + draw(st.sampled_from([b"x", b"0", b"1 2"]))], "field"


BREAKERS = {"run": [_drop_field, _bad_value], "qrels": [_drop_field, _bad_value,
                                                        _extra_qrels_field]}


@SETTINGS
@given(data=st.data())
def test_breaking_a_line_is_exit_2_with_file_and_line(case, tmp_path, data, capsys):
    qrels, run, _ = case
    kind = data.draw(st.sampled_from(["qrels", "run"]), "kind")
    lines = list(qrels if kind == "qrels" else run)
    k = data.draw(st.integers(0, len(lines) - 1), "line")
    breaker = data.draw(st.sampled_from(BREAKERS[kind]), "breaker")
    lines[k:k + 1], word = breaker(lines[k], kind, data.draw)
    q = _save(tmp_path / "q", lines if kind == "qrels" else qrels)
    r = _save(tmp_path / "r", lines if kind == "run" else run)
    bad = q if kind == "qrels" else r
    assert main(["eval", q, r, "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:{k + 1}" in err and word in err, err
    with pytest.raises(IrmetaError):
        irmeta.evaluate(q, r, ["AP"])


@SETTINGS
@given(data=st.data())
def test_repeated_document_and_second_tag_name_their_line(case, tmp_path, data, capsys):
    qrels, run, _ = case
    lines = list(run)
    k = data.draw(st.integers(0, len(lines) - 1), "line")
    f = lines[k].split()
    if data.draw(st.booleans(), "duplicate"):
        lines.insert(k + 1, b" ".join(f[:4] + [b"-99999", f[5]]))  # same topic, same doc
        word, line = "appears twice", k + 2
    else:
        lines[k] = b" ".join(f[:5] + [f[5] + b"_other"])
        # the first line's tag names the run: then the second line is the first to differ
        word, line = "mixes run tags", (k + 1 if k else 2)
    r = _save(tmp_path / "r", lines)
    q = _save(tmp_path / "q", qrels)
    assert main(["eval", q, r, "-m", "AP"]) == 2
    err = capsys.readouterr().err
    assert f"{r}:{line}" in err and word in err, err
