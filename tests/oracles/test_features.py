"""RawFeatures and LinearKernel ([KG] Sec 5, docs/math.md#hypothesis-classes; rescaled into [-1, 1]):
explicit products as the reference."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from dualboost.oracles import KernelColumn, LinearKernel, RawFeature, RawFeatures


def problem(seed, n=40, p=6, density=0.4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)) * (rng.random((n, p)) < density)
    X[:, 1] = 0.0  # a zero feature: dropped by RawFeatures
    X[3] = 0.0  # a zero example: dropped by LinearKernel
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return X, y, rng.dirichlet(np.ones(n))


def explicit_raw(X, y, d):
    """All members u = y * x_j / max|x_j| (and negations), edges, by explicit products."""
    scale = np.abs(X).max(axis=0)
    j = np.flatnonzero(scale > 0)
    U = y[:, None] * X[:, j] / scale[j]
    return j, scale[j], U, U.T @ d


def explicit_kernel(X, y, d):
    K = X @ X.T  # the N x N Gram matrix, fine at this size
    scale = np.abs(K).max(axis=0)
    i = np.flatnonzero(scale > 0)
    U = y[:, None] * K[:, i] / scale[i]
    return i, scale[i], U, U.T @ d


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(
    "oracle_cls, explicit", [(RawFeatures, explicit_raw), (LinearKernel, explicit_kernel)]
)
def test_edges_match_explicit_products(seed, oracle_cls, explicit):
    X, y, d = problem(seed)
    index, scale, U, edges = explicit(X, y, d)
    k = int(np.argmax(np.abs(edges)))
    sign = 1 if edges[k] >= 0 else -1
    for data in (X, sp.csr_matrix(X), sp.csc_matrix(X)):
        selection = oracle_cls().fit(data, y).best(d)
        h = selection.hypothesis
        assert selection.edge == pytest.approx(abs(edges[k]), abs=1e-12)
        assert (h.feature if isinstance(h, RawFeature) else h.index) == index[k] and h.sign == sign
        assert h.scale == pytest.approx(scale[k], rel=1e-12)
        np.testing.assert_allclose(selection.column, sign * U[:, k], atol=1e-12)
        assert np.abs(selection.column).max() <= 1.0


@pytest.mark.parametrize("oracle_cls", [RawFeatures, LinearKernel])
def test_not_reflexive_returns_the_best_positive_member(oracle_cls):
    X, y, d = problem(11)
    explicit = explicit_raw if oracle_cls is RawFeatures else explicit_kernel
    _, _, _, edges = explicit(X, y, d)
    selection = oracle_cls(reflexive=False).fit(X, y).best(d)
    assert selection.hypothesis.sign == 1
    assert selection.edge == pytest.approx(edges.max(), abs=1e-12)


def test_raw_feature_predicts_scaled_and_clipped_values():
    X = np.array([[2.0, -4.0], [-1.0, 1.0], [0.5, 0.0]])
    y = np.array([1, -1, 1])
    d = np.array([0.5, 0.25, 0.25])
    # u = y * x_j / max|x_j|: feature 0 has edge (0.5 * 1 + 0.25 * 0.5 + 0.25 * 0.25) = 0.6875
    selection = RawFeatures().fit(X, y).best(d)
    assert selection.hypothesis == RawFeature(n_features=2, feature=0, scale=2.0, sign=1)
    assert selection.edge == pytest.approx(0.6875)
    h = RawFeature(n_features=2, feature=0, scale=2.0, sign=-1)
    new = np.array([[1.0, 0.0], [10.0, 0.0], [-3.0, 9.0]])
    np.testing.assert_array_equal(h.predict(new), [-0.5, -1.0, 1.0])
    assert h == RawFeature(n_features=2, feature=0, scale=2.0, sign=-1) and h != RawFeature(2, 0, 2.0, 1)


def test_kernel_column_predicts_on_new_dense_and_sparse_data():
    X, y, d = problem(5)
    selection = LinearKernel().fit(X, y).best(d)
    h = selection.hypothesis
    assert isinstance(h, KernelColumn)
    new = np.random.default_rng(0).normal(size=(7, X.shape[1])) * 3
    expected = np.clip(h.sign * new @ X[h.index] / h.scale, -1, 1)
    np.testing.assert_allclose(h.predict(new), expected, atol=1e-12)
    np.testing.assert_allclose(h.predict(sp.csr_matrix(new)), expected, atol=1e-12)
    assert len({h, LinearKernel().fit(sp.csr_matrix(X), y).best(d).hypothesis}) == 1


def test_gram_scale_is_chunked(monkeypatch):
    from dualboost.oracles import features

    X, y, d = problem(2, n=30)
    full = LinearKernel().fit(X, y).best(d)
    monkeypatch.setattr(features, "GRAM_CHUNK_ENTRIES", 7 * 30)  # 7 rows at a time
    monkeypatch.setattr(features, "DENSE_GRAM_ENTRIES", 0)  # sparse products too
    for data in (X, sp.csr_matrix(X)):
        chunked = LinearKernel().fit(data, y).best(d)
        assert chunked == full and chunked.edge == pytest.approx(full.edge, abs=1e-14)


@pytest.mark.parametrize("oracle_cls", [RawFeatures, LinearKernel])
def test_all_zero_data_is_an_empty_class(oracle_cls):
    with pytest.raises(ValueError, match="X"):
        oracle_cls().fit(np.zeros((4, 2)), [1, -1, 1, -1])
