"""Signed weights in the oracles (``Oracle.best(d, signed=True)``, :mod:`dualboost.oracles.base`):
the maximum-edge member of the class for weights of either sign, checked against a brute force over
every member of the class (the stumps enumerated from the sorted feature values, the raw features,
the linear-kernel columns and the matrix columns), and the tie threshold on ``sum |d|``."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier

from dualboost.oracles import DecisionStumps, LinearKernel, MatrixOracle, RawFeatures, SklearnOracle
from dualboost.oracles.base import TIE_TOL

#: the edges of the brute force and the oracle's are sums of the same N terms in another order
EDGE_TOL = 1e-12


def brute_stumps(X, y, d):
    """Every stump (j, theta, s) and the two constants, with their edges sum_n d_n y_n h(x_n)."""
    members = [((), 1.0 * (y @ d)), ((), -1.0 * (y @ d))]
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:], strict=True):
            h = np.where(X[:, j] > (low + high) / 2, 1.0, -1.0)
            edge = float((y * h) @ d)
            members += [((j, 1), edge), ((j, -1), -edge)]
    return members


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(40, 4)), 1)  # repeated values: blocks of equal values
    y = np.where(rng.random(40) < 0.5, 1.0, -1.0)
    return X, y


def signed_weights(n, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=n)


@pytest.mark.parametrize("seed", range(6))
def test_stumps_signed_equal_the_brute_force(data, seed):
    X, y = data
    d = signed_weights(X.shape[0], seed)
    selection = DecisionStumps().fit(X, y).best(d, signed=True)
    best = max(edge for _, edge in brute_stumps(X, y, d))
    assert selection.edge == pytest.approx(best, abs=EDGE_TOL)
    np.testing.assert_array_equal(selection.column, y * selection.predict(X))
    assert selection.edge == pytest.approx(float(selection.column @ d), abs=EDGE_TOL)
    sparse = DecisionStumps().fit(sp.csr_matrix(X), y).best(d, signed=True)
    assert sparse.hypothesis == selection.hypothesis  # the same search on sparse input


@pytest.mark.parametrize("seed", range(4))
def test_features_kernel_and_matrix_signed_equal_the_brute_force(data, seed):
    X, y = data
    d = signed_weights(X.shape[0], seed)
    scale = np.abs(X).max(axis=0)
    raw = (y[:, None] * X / scale).T @ d
    assert RawFeatures().fit(X, y).best(d, signed=True).edge == pytest.approx(np.abs(raw).max(), abs=EDGE_TOL)
    assert RawFeatures(reflexive=False).fit(X, y).best(d, signed=True).edge == pytest.approx(
        raw.max(), abs=EDGE_TOL
    )
    G = X @ X.T
    kernel = (y[:, None] * G / np.abs(G).max(axis=0)).T @ d
    assert LinearKernel().fit(X, y).best(d, signed=True).edge == pytest.approx(
        np.abs(kernel).max(), abs=1e-10
    )
    U = np.where(np.random.default_rng(seed).random((40, 7)) < 0.5, 1.0, -1.0)
    matrix = MatrixOracle(U).best(d, signed=True)
    assert matrix.edge == pytest.approx((U.T @ d).max(), abs=EDGE_TOL)
    assert matrix.hypothesis.index == int(np.argmax(U.T @ d))


def test_tie_threshold_uses_the_total_mass(data):
    """Two columns whose edges differ by less than TIE_TOL * sum |d| tie (the first wins) although
    ``sum d`` is 0: a threshold on sum d would separate them."""
    U = np.array([[1.0, 1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]])
    d = np.array([0.5, -0.5, 1e-14, 0.0])  # sum d ~ 0, sum |d| = 1
    edges = U.T @ d  # column 1 beats column 0 by 2e-14 < TIE_TOL * 1
    assert edges[1] - edges[0] == pytest.approx(2e-14) and 2e-14 < TIE_TOL
    assert MatrixOracle(U).best(d, signed=True).hypothesis.index == 0
    far = np.array([0.5, -0.5, -1e-3, 0.0])
    assert MatrixOracle(U).best(far, signed=True).hypothesis.index == 0  # edge 1e-3 > -1e-3
    assert MatrixOracle(U).best(-far, signed=True).hypothesis.index == 1


def test_non_negative_weights_are_unchanged(data):
    """For d >= 0, best(d, signed=True) is best(d): sum |d| = sum d bit for bit."""
    X, y = data
    d = np.abs(signed_weights(X.shape[0], 9))
    stumps = DecisionStumps().fit(X, y)
    assert stumps.best(d, signed=True).hypothesis == stumps.best(d).hypothesis


def test_sklearn_oracle_fits_abs_weights_with_flipped_labels(data):
    X, y = data
    d = signed_weights(X.shape[0], 2)
    oracle = SklearnOracle(DecisionTreeClassifier(max_depth=2, random_state=0)).fit(X, y)
    selection = oracle.best(d, signed=True)
    labels = np.where(d < 0, -y, y)
    tree = DecisionTreeClassifier(max_depth=2, random_state=0).fit(
        X, labels, sample_weight=np.abs(d) * 40 / np.abs(d).sum()
    )
    expected = tree.predict(X).astype(float)
    sign = -1.0 if float((y * expected) @ d) < 0 else 1.0
    np.testing.assert_array_equal(selection.predict(X), sign * expected)
    assert selection.edge == pytest.approx(float((y * sign * expected) @ d)) and selection.edge >= 0
    proba = SklearnOracle(DecisionTreeClassifier(max_depth=1), output="proba").fit(X, y)
    one_class = np.where(y > 0, -1.0, 1.0)  # every flipped label is -1
    h = proba.best(one_class, signed=True)
    assert np.all(np.abs(h.predict(X)) == 1.0)


@pytest.mark.parametrize(
    "d, message",
    [
        (np.zeros(40), "non-zero entry"),
        (np.r_[np.nan, np.ones(39)], "finite"),
        (np.ones(39), "length N = 40"),
    ],
)
def test_bad_signed_weights(data, d, message):
    X, y = data
    with pytest.raises(ValueError, match=message):
        DecisionStumps().fit(X, y).best(d, signed=True)
    with pytest.raises(ValueError, match="non-negative"):
        DecisionStumps().fit(X, y).best(-np.ones(40))  # unsigned: a distribution


def test_an_oracle_without_signed_search_refuses(data):
    X, y = data

    class Plain(DecisionStumps):
        signed_weights = False

    with pytest.raises(ValueError, match="does not take signed weights"):
        Plain().fit(X, y).best(np.ones(40), signed=True)
