"""Online BBM and AdaBoost.OL ([BKL]; docs/math.md#online-boosting): closed forms, recursions,
reductions, bounds.

Independent references: the potential recursion (4) run as a dynamic programme from Phi_N,
scipy.stats.binom, plain-Python loop implementations of Alg. 1 and Alg. 2, and the guarantees of
Lemma 3 / Theorem 2 for a planted weak learner that satisfies the importance-weighted weak learning
condition (2) with equality-tight greed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dualboost.boosting.online import (
    AdaBoostOL,
    OnlineBBM,
    bbm_potential,
    bbm_weight,
    bbm_weight_table,
    logistic_weight,
)
from dualboost.oracles.online import OnlineLearners

# -- planted weak learners ---------------------------------------------------------------------------


class ScriptedLearners(OnlineLearners):
    """Predictions read from a fixed (T, N) matrix; row t is named by the example's only feature."""

    def __init__(self, H):
        self.H = np.asarray(H)

    def _init(self, X):
        self.passed = []

    def predict_row(self, indices, values):
        self._t = int(values[0]) if values.size else 0
        return self.H[self._t]

    def learn_row(self, indices, values, y, weights):
        self.passed.append(np.array(weights, dtype=float))

    def predict_matrix(self, X):
        return self.H[np.asarray(X[:, 0], dtype=int)].astype(float)


class GreedyWeakLearners(OnlineLearners):
    """The worst learner allowed by (2): WL^i errs whenever its weighted mistakes can afford it,
    i.e. iff M_i + 1 <= (1/2 - edge) P_i + S (M_i, P_i: weighted mistakes and weight received).
    Then sum_t p_t 1{error} <= (1/2 - edge) sum_t p_t + S holds after every example. The example's
    only feature is its label y, so the learner 'knows' what is correct."""

    def __init__(self, edge, excess):
        self.edge, self.excess = edge, excess

    def _init(self, X):
        self.M = np.zeros(self.n_learners)
        self.P = np.zeros(self.n_learners)

    def predict_row(self, indices, values):
        y = int(values[0])
        self._err = self.M + 1.0 <= (0.5 - self.edge) * self.P + self.excess
        return np.where(self._err, -y, y)

    def learn_row(self, indices, values, y, weights):
        self.M += weights * self._err
        self.P += weights

    def predict_matrix(self, X):
        return np.tile(np.asarray(X[:, :1], dtype=float), self.n_learners)


# -- Online BBM: closed forms ([BKL] Sec 3.1) -------------------------------------------------------------


def dp_potentials(N, gamma, smax):
    """Phi_i on s in [-smax, smax] for i = N..0 by the recursion (4) with equality from Phi_N."""
    p, q = 0.5 + gamma / 2, 0.5 - gamma / 2
    s = np.arange(-smax - N - 1, smax + N + 2)
    phi = {N: (s <= 0).astype(float)}
    for i in range(N, 0, -1):
        prev = np.zeros_like(phi[i])
        prev[1:-1] = q * phi[i][:-2] + p * phi[i][2:]
        prev[0], prev[-1] = 1.0, 0.0  # far left: always <= 0; far right: never
        phi[i - 1] = prev
    return s, phi


def test_terminal_potential_is_the_mistake_indicator():
    s = np.arange(-6, 7)
    np.testing.assert_array_equal(bbm_potential(9, s, 9, 0.3), (s <= 0).astype(float))


@pytest.mark.parametrize("N, gamma", [(7, 0.3), (16, 0.1), (25, 0.45)])
def test_potentials_match_the_recursion_dynamic_programme(N, gamma):
    s, phi = dp_potentials(N, gamma, N)
    inner = np.abs(s) <= N
    for i in range(N + 1):
        np.testing.assert_allclose(bbm_potential(i, s[inner], N, gamma), phi[i][inner], atol=1e-12)


def test_potential_recursion_holds_with_equality():
    N, gamma = 20, 0.25
    p, q = 0.5 + gamma / 2, 0.5 - gamma / 2
    s = np.arange(-N, N + 1)
    for i in range(1, N + 1):
        lhs = bbm_potential(i - 1, s, N, gamma)
        rhs = q * bbm_potential(i, s - 1, N, gamma) + p * bbm_potential(i, s + 1, N, gamma)
        np.testing.assert_allclose(lhs, rhs, atol=1e-13)


def test_weight_identity_holds_with_half_and_fails_with_t():
    """Eq. (5): w = ½ C(N-i,k) p^k q^(N-i-k), k = floor((N-i-s+1)/2) = ½(Phi_i(s-1) - Phi_i(s+1));
    the printed '/t' (docs/math.md#erratum-bkl-1) does not give the finite difference."""
    N, gamma = 15, 0.2
    p = 0.5 + gamma / 2
    i, s = np.meshgrid(np.arange(1, N + 1), np.arange(-N, N + 1), indexing="ij")
    finite_difference = 0.5 * (bbm_potential(i, s - 1, N, gamma) - bbm_potential(i, s + 1, N, gamma))
    np.testing.assert_allclose(bbm_weight(i, s, N, gamma), finite_difference, atol=1e-13)
    for t in (3, 4, 10):  # the typo: k = floor((N - i - s + 1)/t)
        k_t = np.floor((N - i - s + 1) / t)
        w_t = 0.5 * binom.pmf(k_t, N - i, p)
        assert np.abs(w_t - finite_difference).max() > 1e-2
    assert bbm_weight(i, s, N, gamma).max() <= 0.5


@pytest.mark.parametrize("z", [-1, 1])
def test_lemma3_key_identity(z):
    N, gamma = 12, 0.3
    p, q = 0.5 + gamma / 2, 0.5 - gamma / 2
    i, s = np.meshgrid(np.arange(1, N + 1), np.arange(-N, N + 1), indexing="ij")
    w = bbm_weight(i, s, N, gamma)
    lhs = bbm_potential(i, s + z, N, gamma) + w * (z - gamma)
    rhs = q * bbm_potential(i, s - 1, N, gamma) + p * bbm_potential(i, s + 1, N, gamma)
    np.testing.assert_allclose(lhs, rhs, atol=1e-13)
    assert np.all(rhs <= bbm_potential(i - 1, s, N, gamma) + 1e-13)


def test_initial_potential_reference_values_and_hoeffding():
    """[BKL] Sec 3.1 (docs/math.md#online-bbm): Phi_0(0) at gamma = 0.2, and Phi_0(0) <= exp(-N gamma²/2)."""
    for N, ref in [(10, 0.3669), (50, 0.09781), (100, 0.02710), (200, 0.002635)]:
        value = float(bbm_potential(0, 0, N, 0.2))
        assert value == pytest.approx(ref, rel=2e-3)
        assert value <= math.exp(-N * 0.2**2 / 2)


def test_closed_forms_are_stable_for_a_thousand_learners():
    N, gamma = 1000, 0.1
    p = 0.5 + gamma / 2
    i = np.array([1, 2, 10, 500, 999, 1000])
    s = np.array([0, -1, 5, -40, 3, 0])
    m = N - i
    np.testing.assert_allclose(
        bbm_weight(i, s, N, gamma), 0.5 * binom.pmf(np.floor((m - s + 1) / 2), m, p), rtol=1e-9, atol=1e-300
    )
    np.testing.assert_allclose(
        bbm_potential(i, s, N, gamma), binom.cdf(np.floor((m - s) / 2), m, p), rtol=1e-9, atol=1e-300
    )
    table, bound = bbm_weight_table(N, gamma)
    assert np.all(np.isfinite(table)) and np.all(bound > 0)
    # Lemma 4: ||w^i||_inf = O(1/sqrt(N - i)); the mode bound is ½ / sqrt(2 pi m p q) to first order
    m = N - np.arange(1, N)
    ratio = bound[:-1] * np.sqrt(2 * np.pi * m * p * (1 - p)) / 0.5
    assert np.all(ratio < 1.2) and np.all(ratio[m > 50] > 0.95)


# -- Online BBM: the booster -----------------------------------------------------------------------------


def test_vectorised_bbm_matches_a_loop_implementation_of_algorithm_1():
    rng = np.random.default_rng(3)
    T, N, gamma = 200, 9, 0.3
    H = np.where(rng.random((T, N)) < 0.6, 1, -1)
    y = np.where(rng.random(T) < 0.5, 1, -1)
    booster = OnlineBBM(ScriptedLearners(H * y[:, None]), N, gamma=gamma).start(1)
    p = 0.5 + gamma / 2
    for t in range(T):
        booster.learn_row(np.array([0]), np.array([float(t)]), int(y[t]))
        s, expected = 0, []
        for i in range(1, N + 1):
            k = (N - i - s + 1) // 2  # Alg. 1 line 7 (with /2)
            c = math.comb(N - i, k) if 0 <= k <= N - i else 0
            expected.append(0.5 * c * p**k * (1 - p) ** (N - i - k))
            s += y[t] * H[t, i - 1] * y[t]
        np.testing.assert_allclose(booster.last_weights, expected, rtol=1e-12, atol=1e-15)
    passed = np.array(booster.learners.passed)
    assert passed.min() >= 0 and passed.max() <= 1 + 1e-12
    assert np.all(passed[:, -1] * 2 % 1 == 0)  # p^N in {0, 1}


@pytest.mark.parametrize("edge, excess, N", [(0.15, 3.0, 40), (0.1, 5.0, 60)])
def test_planted_weak_learner_reduction_and_theorem_2_bound(edge, excess, N):
    """Importance weights + a learner satisfying (2) give (3) for every learner (the reduction of
    Sec. 2.1 replacing Lemma 1), hence Lemma 3 deterministically: mistakes <= Phi_0(0) T +
    2 S sum_i ||w^i||_inf, and Theorem 2's exp(-N gamma²/2) T + 2 S sum_i ||w^i||_inf, with the
    booster's gamma = 2 * edge (Lemma 1's edge)."""
    T, gamma = 3000, 2 * edge
    y = np.where(np.random.default_rng(0).random(T) < 0.5, 1.0, -1.0)
    booster = OnlineBBM(GreedyWeakLearners(edge, excess), N, gamma=gamma).start(1)
    W = np.zeros((T, N))
    Z = np.zeros((T, N))
    for t in range(T):
        booster.learn_row(np.array([0]), np.array([y[t]]), int(y[t]))
        W[t], Z[t] = booster.last_weights, y[t] * booster.last_predictions
    bound = booster.bound  # the ||w^i||_inf used for p = w / ||w||_inf
    assert np.all(W.max(axis=0) <= bound + 1e-15)
    # (3): w.z >= 2 edge ||w||_1 - 2 S ||w||_inf, for every learner
    assert np.all((W * Z).sum(axis=0) >= 2 * edge * W.sum(axis=0) - 2 * excess * bound - 1e-9)
    # the weak learners really are weak: each errs on about (1/2 - edge) of its weight
    single_error = np.mean(Z[:, 0] < 0)
    assert single_error > 0.5 - edge - 0.05
    lemma3 = float(bbm_potential(0, 0, N, gamma)) * T + 2 * excess * bound.sum()
    theorem2 = math.exp(-N * gamma**2 / 2) * T + 2 * excess * bound.sum()
    assert booster.mistakes <= lemma3 <= theorem2 < single_error * T  # a non-trivial bound
    assert booster.mistakes / T < single_error


def test_sampling_passes_examples_with_probability_p_and_is_reproducible():
    rng = np.random.default_rng(1)
    T, N = 3000, 6
    H = np.where(rng.random((T, N)) < 0.7, 1, -1)
    runs = []
    for seed in (5, 5, 6):
        booster = OnlineBBM(ScriptedLearners(H), N, gamma=0.2, weighting="sampling", random_state=seed).start(
            1
        )
        probabilities = []
        for t in range(T):
            booster.learn_row(np.array([0]), np.array([float(t)]), 1)
            probabilities.append(booster.last_probabilities)
        passed = np.array(booster.learners.passed)
        assert set(np.unique(passed)) <= {0.0, 1.0}
        probabilities = np.array(probabilities)
        # E[passed] = p: the mean difference is within 5 standard errors
        diff = (passed - probabilities).mean(axis=0)
        se = np.sqrt((probabilities * (1 - probabilities)).sum(axis=0)) / T
        assert np.all(np.abs(diff) <= 5 * se + 1e-12)
        runs.append(passed)
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


# -- AdaBoost.OL ([BKL] Sec 4) -----------------------------------------------------------------------------


def test_logistic_loss_difference_identity_and_gradient():
    rng = np.random.default_rng(0)
    s, alpha = rng.normal(scale=3, size=50), rng.uniform(-2, 2, size=50)
    z = np.where(rng.random(50) < 0.5, 1.0, -1.0)
    loss = lambda m: np.logaddexp(0.0, -m)  # noqa: E731
    w = logistic_weight(s)
    assert np.all((w > 0) & (w < 1))
    np.testing.assert_allclose(loss(s + alpha * z) - loss(s), np.log1p(w * np.expm1(-alpha * z)), atol=1e-13)
    # f_t(alpha) = loss(s^{i-1} + alpha z): f' = -z / (1 + exp(s^i)), s^i = s^{i-1} + alpha z
    h = 1e-6
    numeric = (loss(s + (alpha + h) * z) - loss(s + (alpha - h) * z)) / (2 * h)
    np.testing.assert_allclose(numeric, -z * logistic_weight(s + alpha * z), atol=1e-8)


def test_vectorised_adaboost_ol_matches_a_loop_implementation_of_algorithm_2():
    rng = np.random.default_rng(7)
    T, N = 400, 8
    H = np.where(rng.random((T, N)) < np.linspace(0.8, 0.45, N), 1, -1)
    y = np.where(rng.random(T) < 0.5, 1, -1)
    booster = AdaBoostOL(ScriptedLearners(H * y[:, None]), N, random_state=0).start(1)
    alpha, v = np.zeros(N), np.ones(N)
    for t in range(1, T + 1):
        booster.learn_row(np.array([0]), np.array([float(t - 1)]), int(y[t - 1]))
        eta, s, alpha_t = 4 / math.sqrt(t), 0.0, alpha.copy()
        for i in range(N):
            wl = H[t - 1, i] * y[t - 1]
            z = y[t - 1] * wl
            expert = 1 if sum(alpha_t[j] * H[t - 1, j] * y[t - 1] for j in range(i + 1)) > 0 else -1
            w = 1 / (1 + math.exp(s))
            assert booster.last_weights[i] == pytest.approx(w, rel=1e-12)
            s += alpha[i] * z
            alpha[i] = max(-2.0, min(2.0, alpha[i] + eta * z / (1 + math.exp(s))))
            v[i] *= math.exp(-float(expert != y[t - 1]))
        np.testing.assert_allclose(booster.alpha, alpha, atol=1e-12)
        np.testing.assert_allclose(booster.v, v / v.sum(), rtol=1e-10)
        assert booster.v.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.abs(booster.alpha) <= 2.0)


def test_alpha_stays_in_the_box_when_the_gradient_pushes_out():
    T, N = 2000, 5
    H = np.ones((T, N), dtype=int)
    H[:, 2] = -1  # learner 3 is always wrong: its alpha is pushed to -2
    booster = AdaBoostOL(ScriptedLearners(H), N, random_state=0).start(1)
    trajectory = []
    for t in range(T):
        booster.learn_row(np.array([0]), np.array([float(t)]), 1)
        trajectory.append(booster.alpha.copy())
    trajectory = np.array(trajectory)
    assert np.all(np.abs(trajectory) <= 2.0)
    assert trajectory[:, 0].max() == 2.0 and trajectory[:, 2].min() == -2.0
    assert np.all((booster.last_weights > 0) & (booster.last_weights < 1))
    assert booster.v.sum() == pytest.approx(1.0)


def test_hedge_weights_are_the_softmax_of_minus_the_expert_mistakes():
    rng = np.random.default_rng(11)
    T, N = 3000, 6
    H = np.where(rng.random((T, N)) < 0.7, 1, -1)
    booster = AdaBoostOL(ScriptedLearners(H), N, random_state=2).start(1)
    mistakes = np.zeros(N)
    for t in range(T):
        partial = np.cumsum(booster.alpha * H[t])
        mistakes += np.where(partial > 0, 1, -1) != 1
        booster.learn_row(np.array([0]), np.array([float(t)]), 1)
    expected = np.exp(-(mistakes - mistakes.min()))
    np.testing.assert_allclose(booster.v, expected / expected.sum(), rtol=1e-9, atol=1e-300)


def test_boosters_reject_bad_parameters():
    bank = ScriptedLearners(np.ones((1, 2)))
    with pytest.raises(ValueError, match="gamma"):
        OnlineBBM(bank, 2, gamma=0.0)
    with pytest.raises(ValueError, match="gamma"):
        OnlineBBM(bank, 2, gamma=float("nan"))
    with pytest.raises(ValueError, match="n_learners"):
        AdaBoostOL(bank, 0)
    with pytest.raises(ValueError, match="weighting"):
        AdaBoostOL(bank, 2, weighting="both")
    with pytest.raises(ValueError, match="learners"):
        AdaBoostOL(object(), 2)
    with pytest.raises(ValueError, match="i must"):
        bbm_potential(5, 0, 3, 0.2)


# -- the vectorised machinery ---------------------------------------------------------------------------


def test_strict_prefix_matrix_gives_exclusive_prefix_sums_and_total():
    from dualboost.boosting.online.drivers import _strict_prefix_matrix

    rng = np.random.default_rng(4)
    for N in (1, 2, 7, 30):
        v = rng.normal(size=N)
        expected = np.concatenate([[0.0], np.cumsum(v)])  # entry i = sum_{j<i} v_j, i = 0..N
        np.testing.assert_allclose(v @ _strict_prefix_matrix(N), expected, atol=1e-12)


class BooleanScriptedLearners(ScriptedLearners):
    """The same scripted predictions returned as booleans (True = +1), as OnlineLinear does."""

    def predict_row(self, indices, values):
        return super().predict_row(indices, values) > 0


@pytest.mark.parametrize("booster_cls", [OnlineBBM, AdaBoostOL])
def test_boolean_and_signed_predictions_give_the_same_run(booster_cls):
    rng = np.random.default_rng(5)
    T, N = 300, 7
    H = np.where(rng.random((T, N)) < 0.6, 1, -1)
    y = np.where(rng.random(T) < 0.5, 1, -1)
    runs = []
    for bank in (ScriptedLearners(H), BooleanScriptedLearners(H)):
        booster = booster_cls(bank, N, random_state=3).start(1)
        weights = []
        for t in range(T):
            booster.learn_row(np.array([0]), np.array([float(t)]), int(y[t]))
            np.testing.assert_array_equal(booster.last_predictions, H[t])
            weights.append(booster.last_weights.copy())
        runs.append((booster.mistakes, np.array(weights), np.array(bank.passed)))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    np.testing.assert_array_equal(runs[0][2], runs[1][2])


@pytest.mark.parametrize("booster_cls", [OnlineBBM, AdaBoostOL])
def test_edges_equal_the_weighted_edge_of_the_recorded_stream(booster_cls):
    """gamma_i = w^i.z^i / (2||w^i||_1) from the per-example weights and predictions, across the
    block boundary of the buffered statistics (T > 1024)."""
    rng = np.random.default_rng(6)
    T, N = 1500, 5
    H = np.where(rng.random((T, N)) < np.linspace(0.7, 0.5, N), 1, -1)
    y = np.where(rng.random(T) < 0.5, 1, -1)
    booster = booster_cls(ScriptedLearners(H * y[:, None]), N, random_state=0).start(1)
    W, Z = np.zeros((T, N)), np.zeros((T, N))
    for t in range(T):
        booster.learn_row(np.array([0]), np.array([float(t)]), int(y[t]))
        W[t], Z[t] = booster.last_weights, y[t] * booster.last_predictions
        if t in (10, 1023, 1024):
            expected = (W[: t + 1] * Z[: t + 1]).sum(0) / (2 * W[: t + 1].sum(0))
            np.testing.assert_allclose(booster.edges, expected, rtol=1e-10)
    np.testing.assert_allclose(booster.edges, (W * Z).sum(0) / (2 * W.sum(0)), rtol=1e-10)
