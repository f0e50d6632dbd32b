"""64-bit fingerprints of document ids, computed column-wise with NumPy.

A fingerprint is a **pure function of the id's bytes** — the same bytes give the same
value whatever file, column, array type or neighbouring ids they are read with:

    h_0     = mix(len(id) XOR SEED)
    h_{k+1} = mix(h_k XOR word_k)          k = 0 .. ceil(len/8) - 1
    fp(id)  = mix(h_K + GOLDEN)

where ``word_k`` is bytes ``8k .. 8k+7`` of the id read as a little-endian uint64 (the
last word zero-filled) and ``mix`` is the splitmix64 finaliser (a bijection of uint64).
Ids longer than :data:`LONG_ID` bytes (rare: a malformed file, a URL) are hashed one by
one with BLAKE2b (8-byte digest) instead of word by word.

Consequences (``docs/conventions.md``, "Document identity"):

* the length is part of the value, so ``d1`` and ``d1\\x00`` differ (NUL is significant);
* two distinct ids of the same length of at most 8 bytes never collide (every step is a
  bijection of the single word);
* other distinct ids collide with probability about n^2 / 2^65 for n distinct ids of a
  topic: below 1e-9 for a topic with 100,000 documents;
* nothing is padded to the longest id, so there is no size ceiling (a 1 MB id costs what
  its bytes cost).

Document identity inside irmeta is ``(topic, fingerprint)``.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SEED = np.uint64(0x243F6A8885A308D3)
#: ids longer than this many bytes are hashed individually (BLAKE2b)
LONG_ID = 256


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a bijection on uint64 with good avalanche (returns a new
    array; the work is done in place on it to spare temporaries)."""
    x = np.array(x, dtype=np.uint64, copy=True)
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def _offsets_and_bytes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets (int64, n+1) and the byte buffer of a binary or string array."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if not (pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)
            or pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.large_binary())
    if arr.null_count:
        arr = arr.fill_null(b"" if pa.types.is_binary(arr.type)
                            or pa.types.is_large_binary(arr.type) else "")
    large = pa.types.is_large_binary(arr.type) or pa.types.is_large_string(arr.type)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)
    offsets = offsets[arr.offset: arr.offset + len(arr) + 1].astype(np.int64)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offsets, data


def fingerprint_strings(arr: pa.Array) -> np.ndarray:
    """uint64 fingerprint of each id of an Arrow binary or string array (see module doc)."""
    offsets, data = _offsets_and_bytes(arr)
    n = len(offsets) - 1
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    starts = offsets[:-1]
    lengths = offsets[1:] - starts
    out = _fold_words(data, starts, lengths)
    long = np.flatnonzero(lengths > LONG_ID)
    if len(long):
        out[long] = [_hash_long(data[starts[i]:starts[i] + lengths[i]].tobytes()) for i in long]
    return out


def fingerprint_bytes(ids: list[bytes]) -> np.ndarray:
    """The fingerprints of a few ids given as Python bytes (same values as
    :func:`fingerprint_strings`)."""
    return fingerprint_strings(pa.array(ids, type=pa.binary()))


def _hash_long(raw: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")


def _words_at(views: list[np.ndarray], pos: np.ndarray) -> np.ndarray:
    """The little-endian uint64 read at each byte position ``pos``: unaligned loads,
    grouped by alignment (``views[k]`` is the buffer seen as uint64 from byte k)."""
    out = np.empty(len(pos), dtype=np.uint64)
    align = pos & 7
    for k in range(8):
        sel = np.flatnonzero(align == k)
        if len(sel):
            out[sel] = views[k][pos[sel] >> 3]
    return out


def _fold_words(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Word-by-word fold of every id up to :data:`LONG_ID` bytes (longer ids are
    overwritten by the caller). Only the ids that still have a word take part in each
    step, so nothing is padded."""
    h = _mix(lengths.astype(np.uint64) ^ _SEED)
    nwords = (np.minimum(lengths, LONG_ID) + 7) // 8
    active = np.flatnonzero(nwords > 0)
    if not len(active):
        return _mix(h + _GOLDEN)
    padded = np.zeros(len(data) + 16, dtype=np.uint8)  # every 8-byte load stays inside
    padded[:len(data)] = data
    views = [np.frombuffer(padded.data, dtype="<u8", offset=k, count=(len(padded) - k) // 8)
             for k in range(8)]
    w = 0
    while len(active):
        pos = starts[active] + 8 * w
        word = _words_at(views, pos)
        remaining = lengths[active] - 8 * w
        short = remaining < 8
        if short.any():  # zero the bytes beyond the id's end
            keep = np.left_shift(np.uint64(1), (8 * remaining[short]).astype(np.uint64)) - np.uint64(1)
            word[short] &= keep
        h[active] = _mix(h[active] ^ word)
        w += 1
        active = active[nwords[active] > w]
    h += _GOLDEN
    return _mix(h)


def combine(topic_codes: np.ndarray, fingerprints: np.ndarray) -> np.ndarray:
    """Fingerprint of a (topic, document) pair."""
    return _mix(fingerprints ^ _mix(topic_codes.astype(np.uint64) + _GOLDEN))
