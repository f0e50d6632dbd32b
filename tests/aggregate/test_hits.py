"""HITS: against an eigen-decomposition, a plain power iteration on the graph, and the
orientation property (system authority ~ MAP)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irmeta.aggregate import hits
from irmeta.aggregate.analyses import pearson
from irmeta.io.matrix import read_matrix

from ..conftest import shared_path
from .reference import ref_hits_power


def _matrix(seed=0, m=12, n=9):
    """A realistic matrix: system skill x topic ease plus noise, in [0, 1]."""
    rng = np.random.default_rng(seed)
    skill, ease = rng.random(m), rng.random(n)
    return np.clip(np.outer(skill, ease) + 0.15 * rng.standard_normal((m, n)), 0, 1)


def _same_direction(u, v):
    u, v = np.asarray(u), np.asarray(v)
    return np.allclose(u, v, atol=1e-8)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_authorities_are_the_leading_eigenvectors(seed):
    P = _matrix(seed)
    MAP, AAP = P.mean(axis=1), P.mean(axis=0)
    Y, X = P - AAP, P - MAP[:, None]
    h = hits(P)
    # a_s: top eigenvector of Y Y^T; a_t: top eigenvector of X^T X (eigh, not SVD)
    for M, got, ref in ((Y @ Y.T, h.authority_s, MAP), (X.T @ X, h.authority_t, AAP)):
        vals, vecs = np.linalg.eigh(M)
        v = vecs[:, -1]
        v = v * np.sign(pearson(v, ref))
        assert _same_direction(got, v)
    assert h.sigma_s ** 2 == pytest.approx(np.linalg.eigvalsh(Y @ Y.T)[-1])
    # hubs from the HITS equations
    ht = Y.T @ h.authority_s.to_numpy()
    assert _same_direction(h.hub_t, ht / np.linalg.norm(ht))
    hs = X @ h.authority_t.to_numpy()
    assert _same_direction(h.hub_s, hs / np.linalg.norm(hs))
    for s in (h.authority_s, h.hub_s, h.authority_t, h.hub_t):
        assert np.linalg.norm(s) == pytest.approx(1.0)


def test_equals_power_iteration_on_the_explicit_graph():
    P = _matrix(5, m=6, n=5)
    a_s, h_s, a_t, h_t = ref_hits_power(P.tolist(), iterations=3000)
    h = hits(P)
    np.testing.assert_allclose(h.authority_s, a_s, atol=1e-7)
    np.testing.assert_allclose(h.authority_t, a_t, atol=1e-7)
    np.testing.assert_allclose(h.hub_s, h_s, atol=1e-7)
    np.testing.assert_allclose(h.hub_t, h_t, atol=1e-7)


def test_orientation_on_a_synthetic_matrix():
    P = _matrix(3, m=40, n=30)
    h = hits(pd.DataFrame(P))
    assert pearson(P.mean(axis=1), h.authority_s) > 0.95
    assert pearson(P.mean(axis=0), h.authority_t) > 0.95


def _reversed_system_authority(P):
    """The wrong orientation: system authority from the row-centred matrix."""
    X = P - P.mean(axis=1, keepdims=True)
    return np.linalg.svd(X, full_matrices=False)[0][:, 0]


@pytest.mark.slow
def test_orientation_on_real_data_catches_the_reversed_graph():
    base = shared_path("trec-dl-2021-passage", "score-matrices")
    for name, low in (("dl20.ndcg_cut10.csv", 0.99), ("dl21.ndcg_cut10.csv", 0.99)):
        m = read_matrix(base / name)
        P = m.to_numpy()
        h = hits(m)
        assert pearson(P.mean(axis=1), h.authority_s) > low
        assert pearson(P.mean(axis=0), h.authority_t) > low
        # the reversed construction is far from MAP (0.68 on DL20, 0.29 on DL21)
        assert abs(pearson(P.mean(axis=1), _reversed_system_authority(P))) < 0.8
    web = read_matrix(shared_path("trec-2010-web-adhoc-score-matrices", "web2010ap.csv"))
    assert pearson(web.mean(axis=1), hits(web).authority_s) > 0.95


def test_labels_and_undefined_cases():
    frame = pd.DataFrame(_matrix(1, 5, 4), index=list("abcde"),
                         columns=["001", "002", "003", "004"])
    h = hits(frame)
    assert list(h.authority_s.index) == list("abcde")
    assert list(h.hub_t.index) == ["001", "002", "003", "004"]
    same = pd.DataFrame(np.tile([0.2, 0.4, 0.9], (4, 1)))
    h = hits(same)        # every system identical: system side undefined
    assert h.authority_s.isna().all() and h.hub_t.isna().all()
    assert np.isfinite(h.authority_t).all()
