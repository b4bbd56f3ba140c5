"""K > 2 classes on the Dask path: :class:`~dualboost.dask.multiclass.DaskClassStumps` against the
in-memory :class:`~dualboost.oracles.multiclass.ClassStumps`, ``dask_erlpboost`` against
``boost("erlpboost", ClassStumps)``, and the classifiers' Dask fit and block-by-block predictions against
the in-memory ones (docs/dask.md#k-classes)."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array")

from dualboost.boosting import boost  # noqa: E402
from dualboost.dask.data import partition_rows  # noqa: E402
from dualboost.dask.driver import dask_erlpboost  # noqa: E402
from dualboost.dask.executor import Executor  # noqa: E402
from dualboost.dask.multiclass import DaskClassStumps  # noqa: E402
from dualboost.estimators import ERLPBoostClassifier  # noqa: E402
from dualboost.estimators.dask import DaskERLPBoostClassifier  # noqa: E402
from dualboost.oracles.multiclass import ClassConstant, ClassStumps  # noqa: E402


def _data(n: int, p: int, k: int, seed: int, decimals: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Features with ties (rounded) and labels of k classes that depend on them."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), decimals)
    y = (np.floor(2 * X[:, 0] + X[:, 1 % p] + rng.normal(scale=0.7, size=n)) % k).astype(int)
    y[:k] = np.arange(k)  # every class present
    return X, y


@pytest.mark.parametrize("seed", range(8))
def test_oracle_equals_in_memory_oracle(seed):
    """The same hypothesis as ClassStumps for random pair weights (zeros included), over 1-4 partitions,
    and its edge u . d to rounding (the Dask edge comes from the reduced block sums)."""
    rng = np.random.default_rng(100 + seed)
    k = 3 + seed % 3
    X, y = _data(int(rng.integers(10, 80)), int(rng.integers(1, 5)), k, seed, decimals=int(seed % 2))
    memory = ClassStumps().fit(X, y)
    data = partition_rows(X, y, Executor(None), n_partitions=1 + seed % 4)
    dask_oracle = DaskClassStumps().fit(data)
    assert dask_oracle.n_samples_ == memory.n_samples_ == X.shape[0] * (k - 1)
    for _ in range(5):
        d = rng.random(memory.n_samples_) * (rng.random(memory.n_samples_) < 0.8)
        d /= d.sum()
        expected = memory.best(d)
        got = dask_oracle.best(d)
        assert got.hypothesis == expected.hypothesis
        assert got.edge == pytest.approx(expected.edge, abs=1e-12)
        column = np.concatenate([f.result() for f in got.columns])
        np.testing.assert_array_equal(column, expected.column)


def test_oracle_without_splits_picks_the_constant():
    """Constant features leave only the K constants; the best is the class of largest gain."""
    X = np.ones((12, 2))
    y = np.repeat([0, 1, 2], 4)
    d = np.full(24, 1.0 / 24)
    d[:8] = 0.0  # the pairs of class 0's examples carry no weight: class 0 is the best constant
    d /= d.sum()
    data = partition_rows(X, y, Executor(None), n_partitions=3)
    got = DaskClassStumps().fit(data).best(d)
    assert got.hypothesis == ClassStumps().fit(X, y).best(d).hypothesis
    assert isinstance(got.hypothesis, ClassConstant)


@pytest.mark.parametrize("nu", [1.0, 0.1, 1.0001])
def test_driver_equals_in_memory_driver(nu):
    """dask_erlpboost on 4 classes: the in-memory run's hypotheses, weights and iterations (nu = 1, a
    tenth of the pairs, and all of them)."""
    X, y = _data(90, 3, 4, seed=5)
    pairs = X.shape[0] * 3
    count = nu if nu == 1.0 else (float(pairs) if nu > 1 else nu * pairs)
    expected = boost("erlpboost", ClassStumps().fit(X, y), nu=count, eps=0.02)
    got = dask_erlpboost(X, y, nu=count, eps=0.02, n_partitions=3)
    assert got.n_iter == expected.n_iter
    assert got.hypotheses == expected.hypotheses
    np.testing.assert_allclose(got.weights, expected.weights, atol=1e-9)
    np.testing.assert_allclose(got.d, expected.d, atol=1e-9)


def test_raw_features_refuse_k_classes():
    X, y = _data(30, 2, 3, seed=1)
    with pytest.raises(ValueError, match="features='raw' gives two-class hypotheses"):
        dask_erlpboost(X, y, nu=1.0, features="raw", n_partitions=2)


@pytest.mark.filterwarnings("ignore:Class DaskERLPBoostClassifier is deprecated:FutureWarning")
@pytest.mark.parametrize("nu", [0.2, "auto"])
def test_classifier_on_numpy_equals_in_memory(nu):
    """DaskERLPBoostClassifier on a numpy X of 3 classes (string labels): the in-memory classifier's
    nu, hypotheses, predictions and probabilities."""
    X, y = _data(150, 3, 3, seed=7)
    labels = np.array(["a", "b", "c"])[y]
    memory = ERLPBoostClassifier(nu=nu, eps=0.02).fit(X, labels)
    dask_fit = DaskERLPBoostClassifier(nu=nu, eps=0.02, n_partitions=3).fit(X, labels)
    assert dask_fit.nu_fraction_ == memory.nu_fraction_
    assert dask_fit.hypotheses_ == memory.hypotheses_
    np.testing.assert_array_equal(dask_fit.classes_, memory.classes_)
    np.testing.assert_array_equal(dask_fit.predict(X), memory.predict(X))
    np.testing.assert_allclose(dask_fit.decision_function(X), memory.decision_function(X), atol=1e-9)
    np.testing.assert_allclose(dask_fit.predict_proba(X), memory.predict_proba(X), atol=1e-6)


def test_classifier_on_dask_input():
    """ERLPBoostClassifier on a row-chunked dask X and y of 4 classes at a given nu: the in-memory fit;
    predict, decision_function and margins of a dask X are dask arrays equal to the in-memory ones."""
    X, y = _data(160, 3, 4, seed=3)
    Xd, yd = da.from_array(X, chunks=40), da.from_array(y, chunks=40)
    memory = ERLPBoostClassifier(nu=0.2, eps=0.02).fit(X, y)
    dask_fit = ERLPBoostClassifier(nu=0.2, eps=0.02).fit(Xd, yd)
    assert dask_fit.hypotheses_ == memory.hypotheses_
    assert dask_fit.link_slope_ == pytest.approx(memory.link_slope_, rel=1e-6)
    votes = dask_fit.decision_function(Xd)
    assert votes.shape == (160, 4)
    np.testing.assert_allclose(votes.compute(), memory.decision_function(X), atol=1e-9)
    np.testing.assert_array_equal(dask_fit.predict(Xd).compute(), memory.predict(X))
    np.testing.assert_allclose(dask_fit.margins(Xd, yd).compute(), memory.margins(X, y), atol=1e-9)
    np.testing.assert_allclose(dask_fit.margins(Xd, y).compute(), memory.margins(X, y), atol=1e-9)
    staged = list(zip(dask_fit.staged_decision_function(X), memory.staged_decision_function(X), strict=True))
    assert len(staged) > 1  # (zip strict: as many stages as the in-memory fit)
    for got, want in staged:  # the Dask fit keeps its stages (t numbers per iteration) as in memory
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_binary_dask_fit_keeps_stages():
    """Staged predictions of a two-class Dask fit: the in-memory fit's, stage by stage."""
    X, y = _data(100, 3, 2, seed=6)
    memory = ERLPBoostClassifier(nu=0.2, eps=0.05).fit(X, y)
    dask_fit = ERLPBoostClassifier(nu=0.2, eps=0.05).fit(
        da.from_array(X, chunks=50), da.from_array(y, chunks=50)
    )
    stages = list(zip(dask_fit.staged_predict_proba(X), memory.staged_predict_proba(X), strict=True))
    assert len(stages) > 1  # (zip strict: as many stages as the in-memory fit)
    for got, want in stages:
        np.testing.assert_allclose(got, want, atol=1e-8)


def test_in_memory_model_predicts_dask_blocks():
    """A classifier fitted in memory on 3 classes predicts a dask X block by block as it predicts the
    numpy X (a vote per class per row; the block's rows, not the first axis of the votes)."""
    X, y = _data(120, 2, 3, seed=11)
    model = ERLPBoostClassifier(nu=0.2, eps=0.05).fit(X, y)
    Xd = da.from_array(X, chunks=25)
    np.testing.assert_array_equal(model.predict(Xd).compute(), model.predict(X))
    np.testing.assert_allclose(model.decision_function(Xd).compute(), model.decision_function(X))


def test_dask_auto_nu_on_blocks_is_a_fit_at_the_chosen_nu():
    """nu='auto' on a dask X of 3 classes (a holdout of whole blocks): the fit is the in-memory fit at
    the chosen fraction, and the chosen fraction is one of the searched grid's."""
    X, y = _data(200, 3, 3, seed=2)
    Xd, yd = da.from_array(X, chunks=40), da.from_array(y, chunks=40)
    dask_fit = ERLPBoostClassifier(nu="auto", eps=0.05).fit(Xd, yd)
    selection = dask_fit.nu_selection_
    assert selection.how == "validation" and dask_fit.nu_fraction_ in selection.grid
    memory = ERLPBoostClassifier(nu=dask_fit.nu_fraction_, eps=0.05).fit(X, y)
    assert dask_fit.hypotheses_ == memory.hypotheses_


def test_distributed_fit(dask_client):
    """The same fit on a two-worker LocalCluster as in this process (8 iterations: each costs scheduler
    round trips, ~1 s on a loaded two-core machine)."""
    X, y = _data(60, 3, 3, seed=4)
    Xd, yd = da.from_array(X, chunks=30), da.from_array(y, chunks=30)
    local = ERLPBoostClassifier(nu=0.2, eps=0.05, max_iter=8).fit(X, y)
    remote = ERLPBoostClassifier(nu=0.2, eps=0.05, max_iter=8).fit(Xd, yd)
    assert remote.n_iter_ == local.n_iter_ == 8
    assert remote.hypotheses_ == local.hypotheses_
    np.testing.assert_array_equal(remote.predict(Xd).compute(), local.predict(X))
