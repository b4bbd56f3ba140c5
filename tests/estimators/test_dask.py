"""DaskERLPBoostClassifier (deprecated): scikit-learn's estimator checks, agreement with
ERLPBoostClassifier, and its replacement (ERLPBoostClassifier on a dask X) as the same fit.

No cluster here (in-process execution of the partition tasks: the same code path as on a
cluster, see dualboost/dask/executor.py); tests/dask/test_driver.py runs the LocalCluster.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("dask")

import dask.array as da  # noqa: E402
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from dualboost.estimators import ERLPBoostClassifier  # noqa: E402
from dualboost.estimators.dask import DaskERLPBoostClassifier  # noqa: E402
from dualboost.estimators.persistence import load, save  # noqa: E402

#: the deprecated class still works as before; its warning is asserted once, below
pytestmark = pytest.mark.filterwarnings("ignore:Class DaskERLPBoostClassifier is deprecated:FutureWarning")

with warnings.catch_warnings():  # built at collection, outside the mark above
    warnings.simplefilter("ignore", FutureWarning)
    CHECKED = DaskERLPBoostClassifier(max_iter=5)


def test_the_class_is_deprecated_and_its_replacement_is_the_same_fit(tmp_path):
    """Building a DaskERLPBoostClassifier warns, naming the replacement; the replacement the message
    gives (ERLPBoostClassifier on ``da.from_array(X, chunks=(rows, F))``, y in memory) is the same fit
    as the deprecated class on numpy X split into as many blocks, and it is saved and loaded."""
    X, y = make_classification(n_samples=120, n_features=5, random_state=3)
    with pytest.warns(FutureWarning, match="ERLPBoostClassifier on a dask array"):
        old = DaskERLPBoostClassifier(nu=0.2, eps=0.1, n_partitions=3)
    old.fit(X, y)
    new = ERLPBoostClassifier(nu=0.2, eps=0.1).fit(da.from_array(X, chunks=(40, 5)), y)
    assert new.hypotheses_ == old.hypotheses_ and new.n_iter_ == old.n_iter_
    np.testing.assert_allclose(new.estimator_weights_, old.estimator_weights_, atol=1e-12)
    save(new, tmp_path / "model.dbm")
    np.testing.assert_array_equal(load(tmp_path / "model.dbm").predict(X), old.predict(X))
    with pytest.raises(ValueError, match="DaskERLPBoostClassifier"):  # why users move: it cannot be saved
        save(old, tmp_path / "old.dbm")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=5, for speed
@parametrize_with_checks([CHECKED])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_dask_input_matches_the_in_memory_classifier():
    """Same hypotheses and weights as the in-memory classifier. (Each dual evaluation agrees to
    rounding; a run agrees while the subproblem solver takes the same discrete decisions, which a
    degenerate subproblem can flip: see the report of dualboost/dask in docs/dask.md.)"""
    rng = np.random.default_rng(2)
    X = np.round(rng.normal(size=(240, 6)), 1)
    y = (X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=240) > 0).astype(int)
    labels = np.where(y == 1, "spam", "ham")
    want = ERLPBoostClassifier(nu=0.1, eps=0.1).fit(X, labels)
    Xd = da.from_array(X, chunks=(70, 6))
    got = DaskERLPBoostClassifier(nu=0.1, eps=0.1).fit(Xd, da.from_array(labels, chunks=70))
    assert list(got.classes_) == ["ham", "spam"]
    assert got.hypotheses_ == want.hypotheses_
    np.testing.assert_allclose(got.estimator_weights_, want.estimator_weights_, atol=1e-8)
    assert got.nu_ == want.nu_ and got.eta_ == want.eta_ and got.n_iter_ == want.n_iter_
    f = got.decision_function(Xd)
    assert isinstance(f, da.Array)
    np.testing.assert_allclose(f.compute(), want.decision_function(X), atol=1e-8)
    np.testing.assert_array_equal(got.predict(Xd).compute(), want.predict(X))
    np.testing.assert_array_equal(got.predict(X), want.predict(X))


def test_estimator_errors():
    X, y = make_classification(n_samples=60, n_features=4, random_state=1)
    with pytest.raises(ValueError, match="nu"):
        DaskERLPBoostClassifier(nu=1.5).fit(X, y)
    with pytest.raises(ValueError, match="eps"):
        DaskERLPBoostClassifier(eps=-1).fit(X, y)
    with pytest.raises(ValueError, match="max_iter"):
        DaskERLPBoostClassifier(max_iter=0).fit(X, y)
    with pytest.raises(ValueError, match="two classes"):  # one class (K > 2: tests/dask/test_multiclass.py)
        DaskERLPBoostClassifier().fit(da.from_array(X, chunks=20), da.from_array(np.full(60, 3), chunks=20))
    clf = DaskERLPBoostClassifier(eps=0.2).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.decision_function(da.from_array(X[:, :3], chunks=20))
