"""Document fingerprints depend only on the id itself (a regression: they once depended
on the longest id read alongside, so ids of a short-id run silently missed a qrels
holding longer ids)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import irmeta
from irmeta.data.fingerprint import _fingerprint_gather, fingerprint_strings

IDS = ["D0000001", "a", "", "msmarco_passage_45_623131157", "exactly8", "nine_byte",
       "ünïcödé-id", "x" * 40, "CR#93E-1860"]


@pytest.mark.parametrize("context", [[], ["y" * 3], ["z" * 23], ["w" * 64, "é"]])
def test_fingerprint_independent_of_other_ids(context):
    alone = {i: fingerprint_strings(pa.array([i]))[0] for i in IDS}
    mixed = fingerprint_strings(pa.array(IDS + context))
    for i, value in zip(IDS, mixed):
        assert value == alone[i], i


def test_fast_and_general_paths_agree():
    ascii_ids = [i for i in IDS if i.isascii()]
    arr = pa.array(ascii_ids)
    assert np.array_equal(fingerprint_strings(arr), _fingerprint_gather(arr))


def test_distinct_ids_distinct_fingerprints():
    rng = np.random.default_rng(0)
    ids = sorted({"".join(rng.choice(list("abc01"), size=rng.integers(1, 20))) for _ in range(5000)})
    assert len(np.unique(fingerprint_strings(pa.array(ids)))) == len(ids)


def test_short_run_ids_match_qrels_with_longer_ids():
    qrels = {"q": {"D0000001": 1, "a-much-longer-document-id": 0}}
    run = {"q": {"D0000001": 1.0, "D0000002": 0.5}}
    res = irmeta.evaluate(qrels, run, ["P@1", "num_rel_ret"])
    assert res.values[0, :, 0].tolist() == [1.0, 1.0]
