"""Class-valued stumps over (example, wrong class) pairs (dualboost.oracles.multiclass,
docs/math.md#multiclass): the oracle against a brute force over the whole class, and a boosting run
over the pairs against the linear program over every stump at once."""

import itertools

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.datasets import load_iris

from dualboost.boosting import erlpboost, lpboost
from dualboost.oracles.multiclass import ClassConstant, ClassStump, ClassStumps, PairCoding, class_votes


def _every_hypothesis(X, n_classes):
    """Every member of the class: the constants and, per feature and midpoint, every pair of classes."""
    F = X.shape[1]
    out = [ClassConstant(F, n_classes, c) for c in range(n_classes)]
    for j in range(F):
        values = np.unique(X[:, j])
        for low, high in zip(values[:-1], values[1:], strict=True):
            for above, below in itertools.product(range(n_classes), repeat=2):
                out.append(ClassStump(F, n_classes, j, (low + high) / 2, above, below))
    return out


@pytest.mark.parametrize("seed", range(40))
def test_best_is_the_brute_force_maximum(seed):
    rng = np.random.default_rng(seed)
    N, F, K = int(rng.integers(4, 14)), int(rng.integers(1, 4)), int(rng.integers(2, 5))
    X = rng.integers(0, 4, (N, F)).astype(float)
    y = rng.permutation(np.r_[np.arange(K), rng.integers(0, K, N - K)]) if N >= K else np.arange(N)
    oracle = ClassStumps().fit(X, y)
    signed = seed % 2 == 0
    d = rng.normal(size=oracle.n_samples_) if signed else rng.random(oracle.n_samples_)
    chosen = oracle.best(d, signed=signed)
    edges = [oracle.coding_.column(h.predict(X).astype(np.intp)) @ d for h in _every_hypothesis(X, K)]
    # the oracle sums G in a different order than the brute force: rounding of ~N K terms of size <= 1
    assert chosen.edge == pytest.approx(max(edges), abs=1e-12)
    assert np.sum(chosen.column * d) == chosen.edge  # the edge is the column's, summed as the oracles sum it
    assert set(np.unique(chosen.column)) <= {-1.0, 0.0, 1.0}


def test_pairs_columns_and_margins():
    coding = PairCoding(np.array([0, 2, 1]), 3)
    assert coding.n_pairs == 6
    assert coding.rows.tolist() == [0, 0, 1, 1, 2, 2] and coding.wrong.tolist() == [1, 2, 0, 1, 0, 2]
    # h predicts 0, 1, 1: right on example 0 and 2, on example 1 it votes for the wrong class 1
    assert coding.column(np.array([0, 1, 1])).tolist() == [1, 1, 0, -1, 1, 1]
    votes = np.array([[3.0, 1.0, 0.0], [0.0, 2.0, 5.0], [1.0, 1.0, 4.0]])
    assert coding.margins(votes).tolist() == [2, 3, 5, 3, 0, -3]
    d = np.arange(1.0, 7.0)
    G = coding.gains(d)
    for predicted in itertools.product(range(3), repeat=3):  # edge = sum_n G[n, h(x_n)] for every h
        assert coding.column(np.array(predicted)) @ d == pytest.approx(G[[0, 1, 2], list(predicted)].sum())


def test_two_classes_are_the_binary_model():
    """With K = 2 the pairs are the examples and the column of a stump is y h(x) (h = +-1)."""
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 3)), rng.integers(0, 2, 30)
    oracle = ClassStumps().fit(X, y)
    assert oracle.n_samples_ == 30
    selection = oracle.best(np.full(30, 1 / 30))
    h = 2.0 * selection.predict(X) - 1.0  # class index 1 is +1
    assert np.array_equal(selection.column, (2.0 * y - 1.0) * h)


def test_hypotheses_round_trip_and_check_their_fields():
    stump = ClassStump(4, 3, 2, 0.5, 1, 0)
    assert type(stump).from_dict(stump.to_dict()) == stump
    with pytest.raises(ValueError, match="above must be a class index in \\[0, 3\\)"):
        ClassStump.from_dict(stump.to_dict() | {"above": 3})
    with pytest.raises(ValueError, match="n_classes must be >= 2"):
        ClassConstant.from_dict({"n_features": 2, "n_classes": 1, "label": 0})


def test_bad_labels_and_weights_are_refused():
    X = np.zeros((5, 2))
    with pytest.raises(ValueError, match="y must hold at least two classes"):
        ClassStumps().fit(X, np.zeros(5))
    with pytest.raises(ValueError, match="N = 5 labels"):
        ClassStumps().fit(X, np.arange(4))
    oracle = ClassStumps().fit(X, np.array([0, 1, 2, 0, 1]))
    with pytest.raises(ValueError, match="length N = 10"):
        oracle.best(np.ones(5))


@pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")
def test_lpboost_over_pairs_reaches_the_lp_over_every_stump():
    """LPBoost's column generation on the pairs ends within eps of the soft-margin LP over the whole
    finite class (every class-valued stump of a subsample of iris), solved at once by HiGHS."""
    X, y = load_iris(return_X_y=True)
    rows = np.r_[0:50:5, 50:100:5, 100:150:5]
    X, y = X[rows][:, :2], y[rows]
    oracle = ClassStumps().fit(X, y)
    P, nu, eps = oracle.n_samples_, 4.0, 1e-4
    result = lpboost(oracle, nu=nu, eps=eps)
    every = _every_hypothesis(X, 3)
    U = np.column_stack([oracle.coding_.column(h.predict(X).astype(np.intp)) for h in every])
    # max rho - (1/nu) sum xi  s.t.  U w >= rho - xi, w in the simplex, xi >= 0   (variables w, xi, rho)
    T = U.shape[1]
    c = np.r_[np.zeros(T), np.full(P, 1.0 / nu), -1.0]
    A_ub = np.hstack([-U, -np.eye(P), np.ones((P, 1))])
    A_eq = np.r_[np.ones(T), np.zeros(P), 0.0][None, :]
    bounds = [(0, None)] * (T + P) + [(None, None)]
    lp = linprog(c, A_ub=A_ub, b_ub=np.zeros(P), A_eq=A_eq, b_eq=[1.0], bounds=bounds, method="highs")
    assert lp.status == 0
    best = -lp.fun
    margins = oracle.coding_.margins(class_votes(result.weights, result.hypotheses, X, 3))
    soft = np.mean(np.sort(margins)[: int(nu)])  # integer nu: the soft margin, the mean of the nu smallest
    assert best - eps - 1e-9 <= soft <= best + 1e-9


@pytest.mark.filterwarnings("ignore::dualboost.boosting.core.run.SoftMarginWarning")
def test_erlpboost_over_pairs_classifies_iris():
    X, y = load_iris(return_X_y=True)
    oracle = ClassStumps().fit(X, y)
    result = erlpboost(oracle, nu=0.05 * oracle.n_samples_, eps=0.01)
    assert result.converged
    votes = class_votes(result.weights, result.hypotheses, X, 3)
    assert np.mean(votes.argmax(axis=1) == y) >= 0.95
    assert np.allclose(oracle.coding_.margins(votes), result.margins, atol=1e-12)
