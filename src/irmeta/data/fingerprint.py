"""64-bit fingerprints of document ids, computed column-wise with NumPy.

Hashing millions of Python strings one by one (or through a general hash table) costs
seconds; a run file's document ids arrive as one Arrow string column (an offsets array
and one byte buffer). We right-pad every id with NUL bytes to a multiple of 8 bytes
(Arrow's ``utf8_rpad``, or a NumPy gather for non-ASCII ids), and fold the words with a multiply-xorshift
mixer, one vectorised pass per word. An id of at most 8 bytes maps to a distinct value
by construction (its bytes are the value); longer ids collide with probability about n^2 / 2^65 for n distinct ids of one topic,
i.e. below 1e-9 for a topic with 100,000 distinct documents. Document identity inside
irmeta is (topic, fingerprint); ``docs/conventions.md`` records this decision.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_CHUNK = 1 << 20


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
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.large_string())
    if arr.null_count:
        arr = arr.fill_null("")
    off_type = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=off_type)[arr.offset: arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offsets.astype(np.int64), data


def fingerprint_strings(arr: pa.Array) -> np.ndarray:
    """uint64 fingerprint per string of an Arrow string array (same string, same value).

    Ids of at most 8 bytes are packed into one little-endian word and used as is (exact:
    distinct NUL-free ids give distinct values); longer ids are folded word by word
    with the splitmix64 mixer.
    """
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if pa.types.is_dictionary(arr.type):
        arr = arr.dictionary_decode()
    n = len(arr)
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    words = _fixed_width_words(arr)
    if words is None:
        return _fingerprint_gather(arr)
    if words.shape[1] == 1:  # every id fits one word: the word is the fingerprint
        return words[:, 0].copy()
    import pyarrow.compute as pc
    lengths = pc.binary_length(arr.fill_null("") if arr.null_count else arr)
    return _fold(words, lengths.to_numpy(zero_copy_only=False).astype(np.int64))


def _fold(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Fold each id's own 8-byte words (never the padding beyond them), so that an id's
    fingerprint depends only on its bytes, not on the longest id it is read with."""
    own = np.maximum(1, (lengths + 7) // 8)
    if own.min() == words.shape[1]:  # every id fills every word: no masking needed
        h = words[:, 0].copy()
        for w in range(1, words.shape[1]):
            h += _GOLDEN
            h = _mix(h)
            h ^= words[:, w]
        return _mix(h)
    h = words[:, 0].copy()
    for w in range(1, words.shape[1]):
        folded = _mix(h + _GOLDEN)
        folded ^= words[:, w]
        h = np.where(own > w, folded, h)  # ids shorter than w+1 words keep their value
    return np.where(own > 1, _mix(h), h)


def _fixed_width_words(arr: pa.Array) -> np.ndarray | None:
    """The ids right-padded with NULs to a multiple of 8 bytes, as uint64 words [n, W];
    None when the padding is not byte-exact (non-ASCII ids)."""
    import pyarrow.compute as pc
    if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)):
        arr = arr.cast(pa.string())
    if arr.null_count:
        arr = arr.fill_null("")
    width = int(pc.max(pc.binary_length(arr)).as_py() or 0)
    width = max(8, (width + 7) // 8 * 8)
    padded = pc.utf8_rpad(arr, width=width, padding="\x00")
    buf = padded.buffers()[2]
    if buf is None or len(padded) * width > buf.size:
        return None
    offsets, _ = _offsets_and_bytes(padded)
    if offsets[-1] - offsets[0] != len(padded) * width:
        return None
    start = int(offsets[0])
    data = np.frombuffer(buf, dtype=np.uint8, count=len(padded) * width, offset=start)
    return data.view(np.uint64).reshape(len(padded), width // 8)


def _fingerprint_gather(arr: pa.Array) -> np.ndarray:
    """General path (any bytes): gather each id's bytes into fixed-width words."""
    offsets, data = _offsets_and_bytes(arr)
    n = len(offsets) - 1
    out = np.empty(n, dtype=np.uint64)
    lengths = np.diff(offsets)
    padded = np.concatenate([data, np.zeros(8, np.uint8)])
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        out[lo:hi] = _fingerprint_chunk(padded, offsets[lo:hi], lengths[lo:hi])
    return out


def _fingerprint_chunk(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    width = int(lengths.max()) if len(lengths) else 0
    words = max(1, (width + 7) // 8)
    cols = np.arange(words * 8)
    idx = starts[:, None] + cols[None, :]
    valid = cols[None, :] < lengths[:, None]
    np.minimum(idx, len(data) - 1, out=idx)
    raw = np.where(valid, data[idx], 0).astype(np.uint8)
    packed = np.ascontiguousarray(raw).view(np.uint64)  # (n, words), little-endian words
    return _fold(packed, lengths)


def combine(topic_codes: np.ndarray, fingerprints: np.ndarray) -> np.ndarray:
    """Fingerprint of a (topic, document) pair."""
    return _mix(fingerprints ^ _mix(topic_codes.astype(np.uint64) + _GOLDEN))
