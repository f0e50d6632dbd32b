"""64-bit fingerprints of document ids, computed column-wise with NumPy.

A fingerprint is a **pure function of the id's bytes** — the same bytes give the same
value whatever file, column, array type or neighbouring ids they are read with:

    h_1     = word_0
    h_{k+1} = step(h_k) XOR word_k         k = 1 .. K - 1,  K = max(1, ceil(len/8))
    fp(id)  = mix(h_K XOR mix(len(id) XOR SEED))

where ``word_k`` is bytes ``8k .. 8k+7`` of the id read as a little-endian uint64 (the
last word zero-filled), ``mix`` is the splitmix64 finaliser and ``step(x) = y XOR (y >>
29)`` with ``y = x * M1 mod 2^64`` (both bijections of uint64; all arithmetic mod 2^64).
Ids longer than :data:`LONG_ID` bytes (rare: a malformed file, a URL) are hashed one by
one with BLAKE2b (8-byte digest) instead of word by word.

Consequences (``docs/conventions.md``, "Document identity"):

* the length is part of the value, so ``d1`` and ``d1\\x00`` differ (NUL is significant);
* two distinct ids of the same length of at most 8 bytes never collide (``fp`` is then a
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

from irmeta.data.threads import map_threads

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_SEED = np.uint64(0x243F6A8885A308D3)
#: ids longer than this many bytes are hashed individually (BLAKE2b)
LONG_ID = 256
_CHUNK = 1 << 18


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: a bijection on uint64 with good avalanche (returns a new
    array; the work is done in place on it to spare temporaries)."""
    return _mix_in_place(np.array(x, dtype=np.uint64, copy=True))


def _mix_in_place(x: np.ndarray) -> np.ndarray:
    """:func:`_mix` of a uint64 array the caller owns, written over it (returned)."""
    x ^= x >> np.uint64(30)
    x *= _M1
    x ^= x >> np.uint64(27)
    x *= _M2
    x ^= x >> np.uint64(31)
    return x


def _step(x: np.ndarray) -> None:
    """``x = y ^ (y >> 29)`` with ``y = x * M1``, in place (a bijection of uint64)."""
    x *= _M1
    x ^= x >> np.uint64(29)


def _flat(arr: pa.Array | pa.ChunkedArray) -> pa.Array:
    """One binary or string array without nulls (chunks joined, dictionary decoded)."""
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
    return arr


def _offsets_and_bytes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Start offsets (n+1, the array's own int32 or int64, not copied) and the byte
    buffer of a flat binary or string array."""
    large = pa.types.is_large_binary(arr.type) or pa.types.is_large_string(arr.type)
    bufs = arr.buffers()
    offsets = np.frombuffer(bufs[1], dtype=np.int64 if large else np.int32)
    offsets = offsets[arr.offset: arr.offset + len(arr) + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else np.zeros(0, np.uint8)
    return offsets, data


def fingerprint_strings(arr: pa.Array) -> np.ndarray:
    """uint64 fingerprint of each id of an Arrow binary or string array (see module doc)."""
    arr = _flat(arr)
    offsets, data = _offsets_and_bytes(arr)
    n = len(offsets) - 1
    if n == 0:
        return np.empty(0, dtype=np.uint64)
    out = np.empty(n, dtype=np.uint64)
    long_ids: list[np.ndarray] = []

    def fold(part: range) -> None:
        # offsets are widened to int64 one chunk at a time: no run-sized temporaries
        # (7 M ids: two 56 MB arrays of fresh pages the kernel had to zero, issue 27)
        scratch = np.empty(0, dtype=np.uint8)
        for lo in part:  # bounded, reused scratch memory; cache-sized work
            hi = min(n, lo + _CHUNK)
            off = offsets[lo:hi + 1].astype(np.int64)
            first, last = int(off[0]), int(off[-1])
            starts = off[:-1]
            lengths = off[1:] - starts
            far = np.flatnonzero(lengths > LONG_ID)
            if len(far):
                long_ids.append(far + lo)
            words = _padded_words(arr, lo, hi, lengths)
            if words is not None:
                out[lo:hi] = _fold_padded(words, lengths)
                continue
            size = last - first + 8      # room for an 8-byte load at the last byte
            if len(scratch) < size:
                scratch = np.empty(max(size, 2 * len(scratch)), dtype=np.uint8)
            scratch[:last - first] = data[first:last]
            scratch[last - first:size] = 0
            out[lo:hi] = _fold_words(_byte_words(scratch, size), starts - first, lengths)

    chunks = range(0, n, _CHUNK)
    if len(chunks) < 4:
        fold(chunks)
    else:  # two halves on two threads: Arrow and NumPy release the GIL for this work
        map_threads(fold, (chunks[0::2], chunks[1::2]))
    for far in long_ids:
        for i in far.tolist():
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            out[i] = _hash_long(data[lo:hi].tobytes())
    return out


def fingerprint_bytes(ids: list[bytes]) -> np.ndarray:
    """The fingerprints of a few ids given as Python bytes (same values as
    :func:`fingerprint_strings`)."""
    return fingerprint_strings(pa.array(ids, type=pa.binary()))


def _hash_long(raw: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(raw, digest_size=8).digest(), "little")


_MASKS = np.array([(1 << (8 * r)) - 1 for r in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_LEN_SEEDS: np.ndarray | None = None


def _len_seed(lengths: np.ndarray) -> np.ndarray:
    """``mix(len XOR SEED)`` by table lookup (lengths above LONG_ID share one entry:
    those ids are hashed apart anyway)."""
    global _LEN_SEEDS
    if _LEN_SEEDS is None:
        _LEN_SEEDS = _mix(np.arange(LONG_ID + 2, dtype=np.uint64) ^ _SEED)
    seeds: np.ndarray = _LEN_SEEDS[np.minimum(lengths, LONG_ID + 1)]
    return seeds


def _byte_words(buffer: np.ndarray, size: int) -> np.ndarray:
    """A uint64 view of ``buffer[:size]`` with a stride of one byte: element ``p`` is the
    little-endian word of bytes ``p .. p+7`` (one unaligned load; the last 7 bytes of
    ``buffer[:size]`` must be zeros, as they start no word)."""
    return np.ndarray(shape=(size - 7,), dtype="<u8", buffer=buffer, strides=(1,))


def _words_at(words: np.ndarray, pos: np.ndarray, remaining: np.ndarray) -> np.ndarray:
    """The little-endian uint64 of the (at most 8) bytes left at each byte position
    ``pos`` (``remaining`` bytes belong to the id; later ones read as 0): one load from
    the :func:`_byte_words` view, then masked."""
    word: np.ndarray = words[pos]
    word &= _MASKS[np.minimum(remaining, 8)]
    return word


def _padded_words(arr: pa.Array, lo: int, hi: int, lengths: np.ndarray) -> np.ndarray | None:
    """Ids ``lo:hi`` (``lengths``: theirs) as a ``[n, W]`` uint64 matrix, each id
    NUL-padded to ``8 W`` bytes, by Arrow's padding kernel (C++; no gather). Only for
    ASCII ids of at most :data:`LONG_ID` bytes, some longer than 8 (the kernel pads
    characters, not bytes); None otherwise."""
    longest = int(lengths.max(initial=0))
    if longest > LONG_ID or longest <= 8:
        # ids of one word (MS MARCO passage numbers, most TREC docids) fold in one step:
        # one unaligned load in :func:`_fold_words` costs less than Arrow's UTF-8 check,
        # ASCII check and padding (issue 27); same values, the function of the bytes
        return None
    import pyarrow.compute as pc  # here: ids of one word never need it (start-up, issue 27)
    part = arr.slice(lo, hi - lo)
    try:
        text = part if pa.types.is_string(part.type) else part.cast(pa.string())
    except pa.ArrowInvalid:
        return None  # not UTF-8
    if not pc.all(pc.string_is_ascii(text)).as_py():
        return None
    width = max(8, (longest + 7) // 8 * 8)
    padded = pc.utf8_rpad(text, width=width, padding="\x00")
    offsets = np.frombuffer(padded.buffers()[1], dtype=np.int32)
    start = int(offsets[padded.offset])
    data = np.frombuffer(padded.buffers()[2], dtype=np.uint8, count=(hi - lo) * width,
                         offset=start)
    return data.view("<u8").reshape(hi - lo, width // 8)


def _fold_padded(words: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """:func:`_fold_words` on a NUL-padded word matrix (each id folds only its own
    words: the padding words beyond them are never folded)."""
    h = words[:, 0].copy()
    nwords = (lengths + 7) // 8
    for k in range(1, words.shape[1]):
        more = nwords > k
        nxt = h.copy()
        _step(nxt)
        nxt ^= words[:, k]
        h = np.where(more, nxt, h)
    h ^= _len_seed(lengths)
    return _mix(h)


def _fold_words(words: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Word-by-word fold of every id up to :data:`LONG_ID` bytes (longer ids are
    overwritten by the caller). Only the ids that still have a word take part in each
    step, so nothing is padded. ``words``: the :func:`_byte_words` view of the bytes,
    with at least 7 bytes of zeros after the data."""
    nwords = (np.minimum(lengths, LONG_ID) + 7) // 8
    h = _words_at(words, starts, lengths)            # word 0 (0 for an empty id)
    active = np.flatnonzero(nwords > 1)
    w = 1
    while len(active):
        word = _words_at(words, starts[active] + 8 * w, lengths[active] - 8 * w)
        hk = h[active]
        _step(hk)
        hk ^= word
        h[active] = hk
        w += 1
        active = active[nwords[active] > w]
    h ^= _len_seed(lengths)
    return _mix_in_place(h)


def combine(topic_codes: np.ndarray, fingerprints: np.ndarray) -> np.ndarray:
    """Fingerprint of a (topic, document) pair."""
    return _mix(fingerprints ^ _mix(topic_codes.astype(np.uint64) + _GOLDEN))
