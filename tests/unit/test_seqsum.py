"""The in-order sums every kernel uses (issue 27): ``seqsum`` and ``seqcumsum`` add one
rank slice at a time on large float64 blocks, and must give exactly the bits of NumPy's
``cumsum`` (the obviously-in-order reference), on both of their paths."""

from __future__ import annotations

import numpy as np
import pytest

from irmeta.measures.kernel import _SLICE_ADDS, _SLICE_MAX, seqcumsum, seqsum

SHAPES = [(2, 5, 10), (16, 53, 100), (1, 700, 300), (3, 0, 5), (300, 1), (1000,),
          (5, 400, 3), (600, 2)]


def _data(shape: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 9, size=shape)
    x[rng.random(shape) < 0.4] = 0.0
    if x.size:
        x.flat[rng.integers(0, x.size, 3)] = -0.0
        if x.size > 20:
            x.flat[7], x.flat[11], x.flat[13] = np.nan, np.inf, -np.inf
    return x


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and bool(
        (np.ascontiguousarray(a).view(np.uint64) == np.ascontiguousarray(b).view(np.uint64)).all())


@pytest.mark.parametrize("shape", SHAPES)
@np.errstate(invalid="ignore", over="ignore")   # inf + -inf: NaN on both sides
def test_seqsum_is_cumsum_bit_for_bit(shape):
    x = _data(shape, 1)
    for axis in range(x.ndim):
        if x.shape[axis] == 0:
            continue
        expected = np.take(np.cumsum(x, axis=axis), -1, axis=axis)
        assert _same_bits(seqsum(x, axis), expected), (shape, axis)


@pytest.mark.parametrize("shape", SHAPES)
@np.errstate(invalid="ignore", over="ignore")
def test_seqcumsum_is_cumsum_bit_for_bit(shape):
    x = _data(shape, 2)
    assert _same_bits(seqcumsum(x), np.cumsum(x, axis=-1)), shape


def test_both_paths_are_taken():
    """The shapes above reach the slice-by-slice path and the cumsum path."""
    big = [s for s in SHAPES if len(s) > 1 and 0 < s[-1] <= _SLICE_MAX
           and np.prod(s) >= _SLICE_ADDS * s[-1]]
    small = [s for s in SHAPES if len(s) > 1 and np.prod(s) < _SLICE_ADDS * s[-1]]
    assert big and small


def test_the_check_sees_a_pairwise_sum():
    """NumPy's ``sum`` (pairwise) differs in the last bits on one of these blocks: a
    seqsum that summed that way would fail the tests above."""
    x = np.nan_to_num(_data((16, 53, 100), 1), nan=0.0, posinf=0.0, neginf=0.0)
    assert not _same_bits(x.sum(axis=-1), seqsum(x))


def test_integers_keep_cumsums_dtype():
    x = np.arange(2 * 300 * 4, dtype=np.int32).reshape(2, 300, 4)
    assert seqsum(x).dtype == np.cumsum(x, axis=-1).dtype
    assert (seqsum(x) == np.cumsum(x, axis=-1)[..., -1]).all()


@pytest.mark.parametrize("seed", range(20))
def test_g_cost_equals_the_full_running_sum(seed):
    """G's cost C_i at the judged ranks (measures.gain._cost_at) equals the running sum
    over all D ranks bit for bit: the closed form past the ideal's width for integer
    gains, the full sum for fractional ones (issue 27)."""
    from irmeta.measures.gain import _cost_at
    rng = np.random.default_rng(seed)
    T, W, D = int(rng.integers(1, 6)), int(rng.integers(1, 8)), int(rng.integers(1, 40))
    ideal = -np.sort(-rng.integers(0, 4, size=(T, W)).astype(float), axis=1)
    if seed % 2:
        ideal = ideal * 0.1 + rng.random((T, W)) * (ideal > 0)   # fractional gains
    pos = rng.integers(0, D, size=(2, T, 5))
    full = np.zeros((T, D))
    w = min(D, W)
    full[:, :w] = ideal[:, :w]
    cost = np.cumsum(np.maximum(full, 1.0), axis=1)
    want = cost[np.arange(T)[None, :, None], pos]
    got = _cost_at(ideal, pos, D)
    assert got.tobytes() == want.tobytes()
