"""Document fingerprints are a pure function of the id's bytes.

Regressions: fingerprints once depended on the longest id read alongside, and once
differed between ASCII and non-ASCII arrays (one non-ASCII id zeroed a whole run);
``d1\\x00`` once equalled ``d1``; padding to the longest id crashed on a 1 MB id.
The fast kernel is checked against a slow, obviously correct transcription of the
formula in the module docstring.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irmeta
from irmeta.data.fingerprint import LONG_ID, fingerprint_bytes, fingerprint_strings
from tests.quick import examples

MASK = (1 << 64) - 1


def _mix(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def reference(raw: bytes) -> int:
    """The documented formula, one id at a time."""
    if len(raw) > LONG_ID:
        return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")
    words = [int.from_bytes(raw[k:k + 8].ljust(8, b"\0"), "little")
             for k in range(0, max(len(raw), 1), 8)]
    h = words[0]
    for word in words[1:]:
        y = (h * 0xBF58476D1CE4E5B9) & MASK
        h = (y ^ (y >> 29)) ^ word
    return _mix(h ^ _mix(len(raw) ^ 0x243F6A8885A308D3))


IDS = [b"D0000001", b"a", b"", b"msmarco_passage_45_623131157", b"exactly8", b"nine_byte",
       "ünïcödé-id".encode(), b"x" * 40, b"CR#93E-1860", b"caf\xe9", b"caf\xe8", b"d1",
       b"d1\x00", b"\x00", b"y" * (LONG_ID + 1), b"z" * LONG_ID]


def test_kernel_equals_reference_on_known_ids():
    assert fingerprint_bytes(IDS).tolist() == [reference(i) for i in IDS]


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.binary(max_size=300), min_size=1, max_size=40))
def test_kernel_equals_reference_on_random_ids(ids):
    assert fingerprint_bytes(ids).tolist() == [reference(i) for i in ids]


@pytest.mark.parametrize("kind", ["string", "large_string", "binary", "large_binary",
                                  "sliced", "chunked", "dictionary"])
def test_every_array_layout_gives_the_same_values(kind):
    text = [i for i in IDS if _utf8(i)]
    expected = [reference(i) for i in text]
    strs = [i.decode() for i in text]
    arr = {
        "string": lambda: pa.array(strs, pa.string()),
        "large_string": lambda: pa.array(strs, pa.large_string()),
        "binary": lambda: pa.array(text, pa.binary()),
        "large_binary": lambda: pa.array(text, pa.large_binary()),
        "sliced": lambda: pa.array([b"pad"] + text, pa.binary()).slice(1),
        "chunked": lambda: pa.chunked_array([pa.array(text[:3], pa.binary()),
                                             pa.array(text[3:], pa.binary())]),
        "dictionary": lambda: pa.array(strs).dictionary_encode(),
    }[kind]()
    assert fingerprint_strings(arr).tolist() == expected


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode()
        return True
    except UnicodeDecodeError:
        return False


@pytest.mark.parametrize("context", [[], [b"y" * 3], [b"z" * 23], [b"w" * 64, "é".encode()],
                                     [b"\xff" * 1000]])
def test_fingerprint_independent_of_other_ids(context):
    alone = {i: fingerprint_bytes([i])[0] for i in IDS}
    mixed = fingerprint_bytes(IDS + context)
    for i, value in zip(IDS, mixed):
        assert value == alone[i], i


def test_nul_and_length_are_significant():
    fps = fingerprint_bytes([b"d1", b"d1\x00", b"d1\x00\x00", b"", b"\x00"])
    assert len(set(fps.tolist())) == 5


@pytest.mark.slow
def test_short_ids_of_one_length_never_collide():
    rng = np.random.default_rng(0)
    ids = list({bytes(rng.integers(0, 256, size=8, dtype=np.uint8)) for _ in range(200_000)})
    assert len(np.unique(fingerprint_bytes(ids))) == len(ids)


def test_a_one_megabyte_id_is_fine():
    big = b"q" * (1 << 20)
    assert fingerprint_bytes([big, b"a"]).tolist() == [reference(big), reference(b"a")]


def test_short_run_ids_match_qrels_with_longer_ids():
    qrels = {"q": {"D0000001": 1, "a-much-longer-document-id": 0}}
    run = {"q": {"D0000001": 1.0, "D0000002": 0.5}}
    res = irmeta.evaluate(qrels, run, ["P@1", "num_rel_ret"])
    assert res.values[0, :, 0].tolist() == [1.0, 1.0]


def test_one_non_ascii_id_does_not_zero_the_run(tmp_path):
    """Issue 11, class 0: trec_eval map 0.5 (a relevant at rank 2 of 3)."""
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "run"
    run.write_bytes("1 Q0 é 1 3 t\n1 Q0 a 2 2 t\n1 Q0 b 3 1 t\n".encode())
    assert irmeta.evaluate(str(qrels), str(run), ["AP"]).values[0, 0, 0] == 0.5
    # and the other way round: a non-ASCII qrels id, an ASCII run
    qrels.write_bytes("1 0 a 1\n1 0 é 0\n".encode())
    run.write_bytes(b"1 Q0 x 1 3 t\n1 Q0 a 2 2 t\n")
    assert irmeta.evaluate(str(qrels), str(run), ["AP"]).values[0, 0, 0] == 0.5
