"""SmoothBoost ([Ser03], docs/math.md#smoothboost): smooth distributions, the training-error
guarantee and the iteration bound.

Independent checks: every distribution the oracle sees is recorded by a wrapper and compared with
the bound 1/(kappa N) and with the weights M recomputed from the recorded columns; the training
error is recomputed from the hypotheses' predictions on X.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import boost
from dualboost.boosting.corrective.smoothboost import smoothboost_max_iter, smoothboost_weights
from dualboost.oracles import DecisionStumps, MatrixOracle
from dualboost.problems import LPBoost


class Recording:
    """An oracle that records every distribution it is asked about and the column it returns."""

    def __init__(self, oracle):
        self.oracle, self.seen, self.columns = oracle, [], []
        self.n_samples_ = oracle.n_samples_

    def best(self, d):
        self.seen.append(np.array(d))
        selection = self.oracle.best(d)
        self.columns.append(np.array(selection.column))
        return selection


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=300, n_features=6, n_informative=4, flip_y=0.0, random_state=1)
    return X, np.where(y == 1, 1.0, -1.0)


@pytest.mark.parametrize("kappa, gamma", [(0.2, 0.1), (0.1, 0.1), (0.1, 0.05)])
def test_smooth_distributions_and_training_error(data, kappa, gamma):
    X, y = data
    n = X.shape[0]
    oracle = Recording(DecisionStumps().fit(X, y))
    result = boost("smoothboost", oracle, kappa=kappa, gamma=gamma)
    assert result.converged and result.n_iter == len(oracle.seen)
    # smoothness: d_n <= 1/(kappa N) on every distribution the oracle saw
    for d in oracle.seen:
        assert d.sum() == pytest.approx(1.0) and d.max() <= 1.0 / (kappa * n) + 1e-15
    np.testing.assert_array_equal(result.d, oracle.seen[-1])
    # the distributions are M / sum M for the running margins N_n = sum (u_n - theta)
    theta = gamma / (2 + gamma)
    running = np.zeros(n)
    for d, column in zip(oracle.seen[1:], oracle.columns[:-1], strict=True):
        running += column - theta
        M = np.where(running < 0, 1.0, (1 - gamma) ** (running / 2))
        np.testing.assert_allclose(d, M / M.sum(), rtol=1e-12)
    # the guarantee: fewer than kappa N examples with normalised margin <= theta, so error < kappa
    f = result.decision_function(X)
    assert np.mean(y * f <= theta + 1e-12) < kappa
    assert np.mean(np.sign(f) != y) < kappa
    assert result.weights == pytest.approx(
        np.bincount([result.hypotheses.index(h) for h in _chosen(oracle, result)]) / result.n_iter
    )


def _chosen(oracle, result):
    """The hypothesis of each round, matched by its column."""
    columns = np.asarray(result.columns, dtype=np.float64)
    return [
        result.hypotheses[int(np.flatnonzero((columns == c[:, None]).all(axis=0))[0])] for c in oracle.columns
    ]


def test_the_iteration_bound_holds_when_the_weak_learner_has_its_advantage():
    """A class with hard margin rho* (LPBoost at nu = 1, HiGHS): by the minimax theorem the max-edge
    hypothesis has edge >= rho* on every distribution, so gamma = rho*/2 is a true advantage and
    [Ser03]'s bound applies."""
    rng = np.random.default_rng(2)
    U = rng.choice([-1.0, 1.0], size=(40, 60))
    full = np.hstack([U, -U])
    rho = LPBoost(full, nu=1.0).solve(method="highs").dual_value
    assert rho > 0.1
    kappa, gamma = 0.1, rho / 2
    result = boost("smoothboost", MatrixOracle(U, reflexive=True), kappa=kappa, gamma=gamma)
    assert result.converged and np.all(result.history["edge"] >= 2 * gamma - 1e-12)
    assert result.n_iter < 2 / (kappa * gamma**2 * math.sqrt(1 - gamma))
    assert smoothboost_max_iter(kappa, gamma) == math.ceil(2 / (kappa * gamma**2 * math.sqrt(1 - gamma)))
    margins = np.asarray(result.columns) @ result.weights
    assert np.mean(margins <= gamma / (2 + gamma) + 1e-12) < kappa


def test_weights_are_at_most_one_and_finite_for_large_margins():
    margins = np.array([-5.0, 0.0, 1e6, 3.0])
    M = smoothboost_weights(margins, 0.2)
    assert M[0] == 1.0 and M[1] == 1.0 and M[2] == 0.0 and M[3] == pytest.approx(0.8**1.5)
    assert np.all((M >= 0) & (M <= 1))


def test_a_weak_learner_without_the_advantage_ends_at_max_iter():
    U = np.where(np.arange(20)[:, None] % 2 == np.arange(3)[None, :] % 2, 1.0, -1.0)  # edges near 0
    with pytest.warns(ConvergenceWarning, match="smoothboost stopped at max_iter=50"):
        result = boost("smoothboost", MatrixOracle(U, reflexive=True), kappa=0.1, gamma=0.4, max_iter=50)
    assert not result.converged and result.n_iter == 50


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"kappa": 0.0}, "kappa"),
        ({"kappa": 1.0}, "kappa"),
        ({"gamma": 0.5}, "gamma"),
        ({"gamma": float("nan")}, "gamma"),
    ],
)
def test_bad_parameters_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        boost("smoothboost", MatrixOracle(np.ones((4, 1))), **kwargs)
