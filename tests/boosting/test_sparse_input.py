"""Scale on one machine: sparse input end to end and the compact edge matrix.

* :class:`~dualboost.boosting.core.run.Ensemble` keeps {-1, 0, +1} columns as ``int8`` and switches to
  float64 at the first other value; ``U^T d`` and ``U w`` agree with the float64 products of a
  matrix built independently from the oracle's columns, and allocate no float64 copy of U
  (tracemalloc); the float64 mirror that ``U`` keeps beside an ``int8`` store is counted by
  ``mirror_nbytes``;
* scipy.sparse input: the drivers and estimators give the same result for dense and sparse X,
  and fitting and asking the raw-feature and stump oracles on a wide sparse matrix allocates far
  less than the dense matrix (X is never densified).
"""

from __future__ import annotations

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import boost
from dualboost.boosting.core.run import Ensemble
from dualboost.estimators import CorrectiveERLPBoostClassifier, ERLPBoostClassifier
from dualboost.oracles import Constant, DecisionStumps, RawFeature, RawFeatures, Selection, Stump


def stump_selection(n: int, j: int, rng) -> Selection:
    column = rng.choice([-1.0, 1.0], size=n)
    return Selection(Stump(n_features=10**6, feature=j, threshold=0.5, sign=1), 0.0, column)


def test_ensemble_int8_until_a_fractional_column():
    rng = np.random.default_rng(0)
    n = 1000
    ensemble = Ensemble(n)
    columns = []
    for j in range(40):  # more than the initial capacity of 16: the buffer grows as int8
        s = stump_selection(n, j, rng)
        ensemble.add(s)
        columns.append(s.column)
    zero = Selection(Constant(n_features=10**6, sign=1), 0.0, np.where(rng.random(n) < 0.5, 0.0, 1.0))
    ensemble.add(zero)
    columns.append(zero.column)
    assert ensemble.compact and ensemble.stored.dtype == np.int8
    assert ensemble.nbytes == n * 64  # 1 byte per entry, capacity 64
    assert ensemble.add(stump_selection(n, 3, rng)) == (3, False)  # a re-selection: no new column
    U = np.column_stack(columns)  # independent float64 matrix
    d = rng.random(n)
    w = rng.random(len(columns))
    np.testing.assert_allclose(ensemble.edges(d), U.T @ d, rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(ensemble.margins(w), U @ w, rtol=1e-13, atol=1e-12)
    assert ensemble.mirror_nbytes == 0  # no float64 mirror until U is asked
    np.testing.assert_array_equal(ensemble.U, U)
    assert ensemble.mirror_nbytes == n * 64 * 8  # then 8 more bytes per entry, at the capacity
    assert ensemble.U.dtype == np.float64
    # a fractional column converts the buffer to float64 once, keeping the earlier columns
    frac = Selection(RawFeature(n_features=10**6, feature=1, scale=2.0, sign=1), 0.0, rng.uniform(-1, 1, n))
    assert ensemble.add(frac) == (len(columns), True)
    columns.append(frac.column)
    assert not ensemble.compact and ensemble.stored.dtype == np.float64
    np.testing.assert_array_equal(ensemble.U, np.column_stack(columns))
    assert ensemble.mirror_nbytes == 0  # the mirror is dropped: U is a view of the buffer
    assert np.shares_memory(ensemble.U, ensemble.stored)  # float64 storage: U is a view


def test_ensemble_checks_each_column_and_names_its_hypothesis():
    """A column with NaN, inf or an entry beyond [-1, 1] is refused with the hypothesis named; rounding
    up to 1e-12 beyond is clipped (the column stays int8 where the rest is -1, 0, +1); one entry
    strictly between the integers makes the store float64 with the exact values."""
    rng = np.random.default_rng(4)
    n = 50
    stump = Stump(n_features=3, feature=1, threshold=0.25, sign=-1)
    refused = ((np.nan, "must be finite"), (np.inf, "must be finite"), (1.5, r"must lie in \[-1, 1\]"))
    for bad, message in refused:
        column = rng.choice([-1.0, 1.0], size=n)
        column[7] = bad
        with pytest.raises(ValueError, match=rf"the column of Stump\(.*feature=1.*\) {message}"):
            Ensemble(n).add(Selection(stump, 0.0, column))
    with pytest.raises(ValueError, match="the column of Stump.* must have length 50"):
        Ensemble(n).add(Selection(stump, 0.0, np.ones(n + 1)))
    ensemble = Ensemble(n)
    near = rng.choice([-1.0, 0.0, 1.0], size=n)
    near[near == 1.0] += 1e-13
    ensemble.add(Selection(stump, 0.0, near))
    assert ensemble.compact
    np.testing.assert_array_equal(ensemble.U[:, 0], np.clip(near, -1.0, 1.0))
    for fraction in (0.5, -0.999, 1e-300):
        ensemble = Ensemble(n)
        column = rng.choice([-1.0, 0.0, 1.0], size=n)
        column[11] = fraction
        ensemble.add(Selection(stump, 0.0, column))
        assert not ensemble.compact
        np.testing.assert_array_equal(ensemble.U[:, 0], column)


def test_ensemble_U_is_a_read_only_float64_view_that_models_take_without_a_copy():
    """Ensemble.U keeps the float64 copy of the int8 columns and extends it by the new ones: views
    handed out earlier keep their values while columns are appended and the buffers grow, writing
    through them is refused, and a subproblem model takes the view as it is (no per-iteration
    copy of U) while a writable array given by a user is still copied."""
    from dualboost.problems import ERLPBoost

    rng = np.random.default_rng(3)
    n = 300
    ensemble = Ensemble(n)
    columns, views = [], []
    for j in range(40):  # past the initial capacity of 16 twice
        s = stump_selection(n, j, rng)
        ensemble.add(s)
        columns.append(s.column)
        views.append((ensemble.U, np.column_stack(columns)))
    for view, expected in views:
        np.testing.assert_array_equal(view, expected)
        assert view.dtype == np.float64 and not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        views[-1][0][0, 0] = 0.5
    U = ensemble.U
    assert np.shares_memory(ERLPBoost(U, nu=10.0, eta=5.0).U, U)
    mine = np.column_stack(columns)
    assert not np.shares_memory(ERLPBoost(mine, nu=10.0, eta=5.0).U, mine)


def test_compact_products_allocate_no_float64_copy():
    rng = np.random.default_rng(1)
    n, t = 200_000, 40
    ensemble = Ensemble(n)
    for j in range(t):
        ensemble.add(stump_selection(n, j, rng))
    d, w = np.full(n, 1.0 / n), np.full(t, 1.0 / t)
    float64_copy = n * t * 8  # 64 MB
    tracemalloc.start()
    try:
        ensemble.edges(d)
        edges_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        ensemble.margins(w)
        margins_peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert edges_peak < float64_copy / 20
    assert margins_peak < n * 8 + float64_copy / 20  # the result itself is N floats


@pytest.mark.parametrize(
    "algorithm, params",
    [
        ("erlpboost", {"nu": 20.0, "eps": 0.05}),
        ("corrective_erlpboost", {"nu": 20.0, "eps": 0.05, "max_iter": 200}),
        ("adaboost", {"max_iter": 30}),
    ],
)
@pytest.mark.parametrize("oracle", [DecisionStumps, RawFeatures])
def test_sparse_and_dense_input_give_the_same_run(algorithm, params, oracle):
    rng = np.random.default_rng(2)
    Xs = sp.random(200, 300, density=0.05, format="csr", random_state=rng)
    y = np.where(Xs[:, :10] @ rng.standard_normal(10) + 0.05 * rng.standard_normal(200) > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        dense = boost(algorithm, oracle().fit(Xs.toarray(), y), **params)
        sparse = boost(algorithm, oracle().fit(Xs, y), **params)
    assert sparse.hypotheses == dense.hypotheses
    np.testing.assert_allclose(sparse.weights, dense.weights, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        sparse.decision_function(Xs), dense.decision_function(Xs.toarray()), atol=1e-12
    )
    if oracle is DecisionStumps:
        assert dense.columns.dtype == np.int8


@pytest.mark.parametrize("estimator", [ERLPBoostClassifier, CorrectiveERLPBoostClassifier])
def test_estimators_take_sparse_input(estimator):
    rng = np.random.default_rng(3)
    Xs = sp.random(150, 80, density=0.1, format="csc", random_state=rng)
    y = np.where(Xs[:, :5].sum(axis=1).A.ravel() > 0.1, "a", "b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = estimator(nu=0.1, eps=0.05, max_iter=50, oracle="raw").fit(Xs, y)
        b = estimator(nu=0.1, eps=0.05, max_iter=50, oracle="raw").fit(Xs.toarray(), y)
    assert a.hypotheses_ == b.hypotheses_
    np.testing.assert_array_equal(a.predict(Xs.tocsr()), b.predict(Xs.toarray()))


@pytest.mark.parametrize("oracle", [RawFeatures, DecisionStumps])
def test_wide_sparse_data_is_never_densified(oracle):
    """2,000 x 500,000 at 0.02 % non-zeros: dense it is 8 GB; fitting, two oracle calls and a
    prediction must stay far below (the stored matrix is about 2.4 MB)."""
    rng = np.random.default_rng(4)
    n, p = 2000, 500_000
    X = sp.random(n, p, density=2e-4, format="csr", random_state=rng)
    y = np.where(rng.random(n) < 0.5, 1, -1)
    tracemalloc.start()
    try:
        fitted = oracle().fit(X, y)
        first = fitted.best(np.full(n, 1.0 / n))
        second = fitted.best(np.where(first.column > 0, 0.5, 1.5) / n)
        second.predict(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200e6, f"peak {peak / 1e6:.0f} MB"  # a dense copy would be 8,000 MB
    assert -1.0 <= second.edge <= 1.0


def test_ensemble_checks_each_column_once_and_models_take_its_U_unscanned():
    """Ensemble.add checks every column (finite, in [-1, 1]; rounding up to 1e-12 beyond is clipped,
    as check_edge_matrix does); U is then a CheckedEdges that check_edge_matrix takes as it is (no
    copy, no scan). A writable CheckedEdges (a copy someone could change) is scanned as usual."""
    from dualboost._validation import CheckedEdges, check_edge_matrix
    from dualboost.problems import ERLPBoost

    rng = np.random.default_rng(3)
    n = 50
    ensemble = Ensemble(n)
    for j in range(3):
        ensemble.add(stump_selection(n, j, rng))
    for bad, message in [(np.full(n, np.nan), "finite"), (np.full(n, 1.5), r"\[-1, 1\]")]:
        with pytest.raises(ValueError, match=message):
            ensemble.add(Selection(RawFeature(n_features=10**6, feature=9, scale=2.0, sign=1), 0.0, bad))
    assert len(ensemble) == 3  # nothing was added
    rounded = np.where(rng.random(n) < 0.5, 1.0 + 1e-13, -0.25)
    ensemble.add(Selection(RawFeature(n_features=10**6, feature=8, scale=2.0, sign=1), 0.0, rounded))
    U = ensemble.U
    assert type(U) is CheckedEdges and not U.flags.writeable and np.abs(U).max() == 1.0
    model = ERLPBoost(U, nu=2.0, eta=5.0)
    assert type(model.U) is np.ndarray and np.shares_memory(model.U, U)
    writable = np.array(U).view(CheckedEdges)
    writable[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        check_edge_matrix(writable)
    # read-only CheckedEdges that are not an ensemble's checked float64 columns: checked as any array
    with pytest.raises(ValueError, match="no columns"):
        check_edge_matrix(U[:, :0])
    as_row = U[:, 0]  # 1-D: one column
    assert check_edge_matrix(as_row).shape == (n, 1)
    single = (2.0 * np.array(U)).astype(np.float32).view(CheckedEdges)  # float32: converted, scanned
    single.flags.writeable = False
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        check_edge_matrix(single)
