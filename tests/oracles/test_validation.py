"""The oracle protocol: every bad argument is a ValueError naming it; every oracle answers alike."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.tree import DecisionTreeClassifier

from dualboost.oracles import DecisionStumps, LinearKernel, RawFeatures, Selection, SklearnOracle

ORACLES = {
    "stumps": DecisionStumps,
    "raw": RawFeatures,
    "kernel": LinearKernel,
    "sklearn": lambda: SklearnOracle(DecisionTreeClassifier(max_depth=1)),
}
X_GOOD = np.arange(12, dtype=float).reshape(6, 2) - 5
Y_GOOD = np.array([1, -1, 1, 1, -1, -1])


def with_entry(value, sparse=False):
    X = X_GOOD.copy()
    X[2, 1] = value
    return sp.csr_matrix(X) if sparse else X


BAD_X = {
    "nan": with_entry(np.nan),
    "inf": with_entry(np.inf),
    "sparse nan": with_entry(np.nan, sparse=True),
    "sparse -inf": with_entry(-np.inf, sparse=True),
    "1-D": np.arange(6.0),
    "3-D": np.zeros((6, 2, 1)),
    "no features": np.zeros((6, 0)),
    "strings": np.array([["a", "b"]] * 6),
}
BAD_Y = {
    "three classes": np.array([0, 1, 2, 0, 1, 2]),
    "one class, not +-1": np.array([3, 3, 3, 3, 3, 3]),
    "wrong length": np.array([1, -1, 1]),
    "nan": np.array([1.0, np.nan, 1, -1, 1, -1]),
    "2-D": np.ones((6, 2)),
}
BAD_D = {
    "wrong length": np.full(5, 0.2),
    "negative": np.array([0.5, 0.5, 0.5, -0.5, 0.0, 0.0]),
    "nan": np.r_[np.nan, np.full(5, 0.2)],
    "zero sum": np.zeros(6),
    "2-D": np.full((6, 1), 1 / 6),
}


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("case", BAD_X)
def test_bad_X(oracle, case):
    with pytest.raises(ValueError, match=r"\bX\b"):
        ORACLES[oracle]().fit(BAD_X[case], Y_GOOD)


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("case", BAD_Y)
def test_bad_y(oracle, case):
    with pytest.raises(ValueError, match=r"\by\b"):
        ORACLES[oracle]().fit(X_GOOD, BAD_Y[case])


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("case", BAD_D)
def test_bad_d(oracle, case):
    fitted = ORACLES[oracle]().fit(X_GOOD, Y_GOOD)
    with pytest.raises(ValueError, match=r"\bd\b"):
        fitted.best(BAD_D[case])


@pytest.mark.parametrize("oracle", ORACLES)
def test_best_before_fit(oracle):
    with pytest.raises(ValueError, match="fit"):
        ORACLES[oracle]().best(np.full(6, 1 / 6))


@pytest.mark.parametrize("oracle", ORACLES)
def test_predict_checks_X(oracle):
    selection = ORACLES[oracle]().fit(X_GOOD, Y_GOOD).best(np.full(6, 1 / 6))
    for bad in (np.zeros((3, 5)), np.array([[np.nan, 0.0]]), np.zeros(2)):
        with pytest.raises(ValueError, match=r"\bX\b"):
            selection.predict(bad)


@pytest.mark.parametrize("oracle", ORACLES)
def test_good_labels(oracle):
    """+-1 labels with one class are taken as given; two arbitrary labels map larger -> +1."""
    d = np.full(6, 1 / 6)
    one_class = ORACLES[oracle]().fit(X_GOOD, np.ones(6))
    np.testing.assert_array_equal(one_class.y_, np.ones(6))
    strings = ORACLES[oracle]().fit(X_GOOD, np.where(Y_GOOD > 0, "spam", "ham")).best(d)
    ints = ORACLES[oracle]().fit(X_GOOD, Y_GOOD).best(d)
    np.testing.assert_array_equal(strings.column, ints.column)


@pytest.mark.parametrize("oracle", ORACLES)
@pytest.mark.parametrize("sparse", [False, True])
def test_protocol(oracle, sparse):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4)) * (rng.random((30, 4)) < 0.6)
    y = np.where(X[:, 0] + rng.normal(size=30) > 0, 1, -1)
    data = sp.csr_matrix(X) if sparse else X
    instance = ORACLES[oracle]()
    assert instance.fit(data, y) is instance and instance.n_samples_ == 30 and instance.n_features_ == 4
    d = rng.dirichlet(np.ones(30))
    selection = instance.best(d)
    assert isinstance(selection, Selection) and isinstance(selection.edge, float)
    assert selection.edge == pytest.approx(selection.column @ d, abs=1e-14)
    assert np.abs(selection.column).max() <= 1.0 and not selection.column.flags.writeable
    np.testing.assert_allclose(y * selection.predict(data), selection.column, atol=1e-14)
    assert np.abs(selection.predict(10 * rng.normal(size=(5, 4)))).max() <= 1.0
    restored = pickle.loads(pickle.dumps(selection.hypothesis))
    assert restored == selection.hypothesis and hash(restored) == hash(selection)
    np.testing.assert_array_equal(restored.predict(X), selection.predict(X))
    assert isinstance(selection.describe(), str) and len(repr(selection)) < 120
