"""The MABoost drivers ([NP]; docs/math.md#mirror-descent-boosting-maboost): closed forms of the iterates,
the FTRL (lazy) form, and the training-error guarantees (8), (9), (16) and Theorems 3-5 checked at
every round of a randomized suite. The guarantees are theorems: any violation is a bug."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.datasets import make_classification

from dualboost.boosting.maboost import (
    lamaboost,
    maboost,
    madaboost,
    madaboost_fixed_point_step,
    sparseboost,
)
from dualboost.conjugates import (
    CappedRelativeEntropy,
    HalfSquaredNorm,
    MadaBoostLoss,
    NormBall,
    UnnormalisedRelativeEntropy,
    entropic_project_capped_simplex,
    project_capped_simplex,
    project_simplex,
)
from dualboost.oracles import DecisionStumps, MatrixOracle, Oracle, Selection
from dualboost.oracles.matrix import MatrixColumn

SUITE_SEEDS = range(8)


class RandomPositiveEdgeOracle(Oracle):
    """A weak learner that is not greedy: a random column (or its negation) of a fixed real-valued
    matrix among those with edge >= half the best one. The bounds hold for any positive edges."""

    def __init__(self, U: np.ndarray, seed: int) -> None:
        self.U = U
        self.rng = np.random.default_rng(seed)
        self.n_samples_ = U.shape[0]

    def _fit(self, X) -> None:  # pragma: no cover - constructed fitted
        pass

    def _best(self, d: np.ndarray) -> Selection:
        edges = np.r_[self.U.T @ d, -(self.U.T @ d)]
        good = np.flatnonzero(edges >= 0.5 * edges.max())
        j = int(self.rng.choice(good))
        index, sign = j % self.U.shape[1], 1 if j < self.U.shape[1] else -1
        column = sign * self.U[:, index]
        return Selection(MatrixColumn(1, index, sign, column), float(column @ d), column)


def _oracles(seed: int):
    """A greedy stump oracle on noisy data, a greedy real-valued matrix oracle, a random one."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 120))
    X, y = make_classification(n_samples=n, n_features=5, n_informative=3, flip_y=0.15, random_state=seed)
    U = np.tanh(rng.normal(scale=1.5, size=(n, 25)))
    return [
        ("stumps", DecisionStumps().fit(X, y)),
        ("matrix", MatrixOracle(U, reflexive=True)),
        ("random", RandomPositiveEdgeOracle(U, seed)),
    ]


@dataclass
class Trace:
    """Per round, recomputed independently of the driver from its iterates and columns."""

    edges: np.ndarray
    steps: np.ndarray
    margins: list[np.ndarray]  # m_t after round t
    errors: np.ndarray  # mean(m_t <= 0)
    distributions: list[np.ndarray]  # d_{t+1} after round t


def _trace(result) -> Trace:
    columns = result.columns.astype(np.float64)
    margins, ds = [], []
    for d, eta in result.iterates[1:]:
        margins.append(columns[:, : eta.size] @ eta)
        ds.append(d)
    steps = np.diff(np.r_[0.0, [eta.sum() for _, eta in result.iterates[1:]]])
    errors = np.array([np.mean(m <= 0) for m in margins])
    np.testing.assert_allclose(errors, result.training_error)
    edges = result.history["edge"][: len(margins)]
    return Trace(edges, steps, margins, errors, ds)


def _check_no_round_stalled(result):
    assert result.n_iter >= 1
    assert np.all(result.history["edge"][: result.steps.size] > 0)


# -- closed forms -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def stumps():
    X, y = make_classification(n_samples=150, n_features=6, flip_y=0.1, random_state=4)
    return DecisionStumps().fit(X, y)


def test_entropy_active_equals_lazy_on_the_simplex(stumps):
    """[NP] Alg. 1 (docs/math.md#maboost): normalisation commutes with the multiplicative update:
    identical d_t every round."""
    active = maboost(stumps, max_iter=60, keep_iterates=True)
    lazy = maboost(stumps, update="lazy", max_iter=60, keep_iterates=True)
    assert active.n_iter == lazy.n_iter == 60
    for (d_a, eta_a), (d_l, eta_l) in zip(active.iterates, lazy.iterates, strict=True):
        np.testing.assert_allclose(d_a, d_l, rtol=1e-10, atol=1e-15)
        np.testing.assert_allclose(eta_a, eta_l, rtol=1e-12)


def test_entropy_weights_are_adaboost_weights_with_step_gamma(stumps):
    """docs/math.md#maboost: ``d_{t+1} ∝ exp(-m_t)`` (AdaBoost's weights) with ``eta_t = gamma_t`` (L = 1)."""
    result = maboost(stumps, max_iter=40, keep_iterates=True)
    trace = _trace(result)
    np.testing.assert_allclose(trace.steps, trace.edges, rtol=1e-12)
    for m, d in zip(trace.margins, trace.distributions, strict=True):
        w = np.exp(-(m - m.min()))
        np.testing.assert_allclose(d, w / w.sum(), rtol=1e-9, atol=1e-15)


def test_lazy_iterates_are_the_ftrl_conjugate_gradients(stumps):
    """docs/math.md#lamaboost: lazy MABoost is ``d_{t+1} = grad F*(-m_t)``: ``Pi_S(u - m)`` for the quadratic
    (eta = gamma/N), the capped softmax ``grad (KL + I_{S_k})*(-m)`` of the library for the entropy."""
    n = stumps.n_samples_
    quad = lamaboost(stumps, regulariser="euclidean", max_iter=30, keep_iterates=True)
    trace = _trace(quad)
    np.testing.assert_allclose(trace.steps, trace.edges / n, rtol=1e-12)
    for m, d in zip(trace.margins, trace.distributions, strict=True):
        np.testing.assert_allclose(d, project_simplex(np.full(n, 1.0 / n) - m), atol=1e-14)
    nu = n / 5.0
    smooth = lamaboost(stumps, nu=nu, max_iter=30, keep_iterates=True)
    conjugate = CappedRelativeEntropy(np.full(n, 1.0 / n), nu=nu)
    for m, d in zip(_trace(smooth).margins, _trace(smooth).distributions, strict=True):
        np.testing.assert_allclose(d, conjugate.conjugate_grad(-m), rtol=1e-9, atol=1e-15)
    # the FTRL pair of the history: primal = dual for the lazy forms (certified by the closed forms)
    for result in (quad, smooth):
        assert np.all(np.abs(result.history["gap"]) <= 1e-10)


def test_active_quadratic_is_projected_gradient(stumps):
    """docs/math.md#maboost: ``d_{t+1} = Pi_{S_k}(d_t - (gamma_t/N) u_t)``; the FTRL gap is >= 0
    (d_{t+1} in D)."""
    n = stumps.n_samples_
    result = maboost(stumps, regulariser="euclidean", nu=n / 4, max_iter=30, keep_iterates=True)
    columns = result.columns.astype(np.float64)
    for t in range(result.n_iter):
        d, eta = result.iterates[t]
        d_next, eta_next = result.iterates[t + 1]
        u = columns[:, : eta_next.size] @ (eta_next - np.r_[eta, np.zeros(eta_next.size - eta.size)])
        np.testing.assert_allclose(d_next, project_capped_simplex(d - u, n / 4), atol=1e-14)
    assert np.all(result.history["gap"] >= -1e-12)


def test_smooth_entropy_active_is_the_capped_softmax_of_the_previous_iterate(stumps):
    n = stumps.n_samples_
    result = maboost(stumps, nu=n / 3, max_iter=25, keep_iterates=True)
    columns = result.columns.astype(np.float64)
    for t in range(result.n_iter):
        d, eta = result.iterates[t]
        d_next, eta_next = result.iterates[t + 1]
        step = columns[:, : eta_next.size] @ (eta_next - np.r_[eta, np.zeros(eta_next.size - eta.size)])
        np.testing.assert_allclose(
            d_next, entropic_project_capped_simplex(np.log(d) - step, n / 3), rtol=1e-9, atol=1e-15
        )


def test_madaboost_weights_are_the_box_restricted_entropy_gradient(stumps):
    """[NP] Alg. 3 (docs/math.md#madaboost-variant): ``d ∝ min(1, exp(-m))``; the same vector is the
    gradient of the conjugate of the box-restricted entropy at -m, computed by the conjugate
    calculus (a numerical infimal convolution, independent of the driver)."""
    result = madaboost(stumps, max_iter=30, keep_iterates=True)
    trace = _trace(result)
    for m, d in zip(trace.margins, trace.distributions, strict=True):
        y = np.minimum(1.0, np.exp(-np.maximum(m, -50.0)))
        np.testing.assert_allclose(d, y / y.sum(), rtol=1e-12)
    box_entropy = UnnormalisedRelativeEntropy(np.ones(stumps.n_samples_)) + NormBall(np.inf, 1.0)
    y = box_entropy.conjugate_grad(-trace.margins[-1])
    np.testing.assert_allclose(trace.distributions[-1], y / y.sum(), atol=1e-5)
    # the history's dual is 1 - (average MadaBoost loss), the potential of the w-domain
    loss = MadaBoostLoss().value(trace.margins[-1]) / stumps.n_samples_
    assert result.history["dual"][-1] == pytest.approx(1.0 - loss, abs=1e-12)
    assert np.all(np.abs(result.history["gap"]) <= 1e-10)


def test_madaboost_default_step_uses_the_previous_ensembles_error(stumps):
    """docs/math.md#madaboost-step, documented choice: ``eta_t = eps(f_{t-1}) gamma_t`` with eps_0 =
    1 (sign(0) is an error), so the first step is gamma_1."""
    result = madaboost(stumps, max_iter=20, keep_iterates=True)
    trace = _trace(result)
    before = np.r_[1.0, trace.errors[:-1]]
    np.testing.assert_allclose(trace.steps, before * trace.edges, rtol=1e-12)


def test_madaboost_fixed_point_step_solves_its_equation():
    """The alternative: ``eta = gamma eps(eta)``, checked by evaluating eps at the returned eta."""
    rng = np.random.default_rng(2)
    found = 0
    for _ in range(100):
        n = 40
        m = rng.normal(scale=0.3, size=n)
        u = rng.choice([-1.0, 1.0], size=n)
        gamma = float(rng.uniform(0.05, 0.6))
        eta = madaboost_fixed_point_step(m, u, gamma)
        if eta is None:
            continue
        found += 1
        assert 0 < eta <= gamma
        assert eta == pytest.approx(gamma * np.mean(m + eta * u <= 0), abs=1e-12)
        # the smallest solution: no grid point below eta solves it
        grid = np.linspace(0, eta, 200, endpoint=False)[1:]
        errors = np.array([np.mean(m + g * u <= 0) for g in grid])
        assert not np.any(np.abs(grid - gamma * errors) <= 1e-15)
    assert found > 25


# -- guarantees, every round of a randomized suite ---------------------------------------------------

MIRROR_VARIANTS = [
    dict(regulariser="entropy", update="active"),
    dict(regulariser="entropy", update="lazy"),
    dict(regulariser="euclidean", update="active"),
    dict(regulariser="euclidean", update="lazy"),
]


def _s(trace: Trace, L: float, alpha: np.ndarray | float = 0.0) -> np.ndarray:
    """``S_t = sum_{s<=t} eta_s (gamma_s - alpha_s) - (L/2) eta_s^2`` (Eq. 15)."""
    return np.cumsum(trace.steps * (trace.edges - alpha) - 0.5 * L * trace.steps**2)


@pytest.mark.parametrize("seed", SUITE_SEEDS)
def test_theorem_1_bounds_8_and_9_hold_every_round(seed):
    """(9): entropy ``eps_t <= (1/N) sum e^{-m} <= exp(-(1/2) sum gamma^2)``; (8): quadratic
    ``eps_t <= 1/(1 + (1/2) sum gamma^2)`` and the corrected ``1/(1 + sum gamma^2)``
    (docs/math.md#erratum-np-2); Thm 2's step ``gamma/(L sqrt t)`` with the general form of (15)."""
    for _, oracle in _oracles(seed):
        n = oracle.n_samples_
        for variant in MIRROR_VARIANTS:
            result = maboost(oracle, max_iter=50, keep_iterates=True, **variant)
            _check_no_round_stalled(result)
            trace = _trace(result)
            gamma2 = np.cumsum(trace.edges**2)
            if variant["regulariser"] == "entropy":
                bound = np.exp(-0.5 * gamma2)
                exp_loss = np.array([np.mean(np.exp(-m)) for m in trace.margins])
                assert np.all(trace.errors <= exp_loss + 1e-12)
                assert np.all(exp_loss <= bound * (1 + 1e-9))
            else:
                bound = 1.0 / (1.0 + 0.5 * gamma2)
                assert np.all(trace.errors <= 1.0 / (1.0 + gamma2) + 1e-12)
            assert np.all(trace.errors <= bound + 1e-12)
            np.testing.assert_allclose(result.bound, bound, rtol=1e-9)
        for regulariser, L in (("entropy", 1.0), ("euclidean", float(n))):
            result = maboost(
                oracle, regulariser=regulariser, step="max_margin", max_iter=40, keep_iterates=True
            )
            trace = _trace(result)
            np.testing.assert_allclose(
                trace.steps, trace.edges / (L * np.sqrt(np.arange(1, trace.steps.size + 1)))
            )
            s = _s(trace, L)
            bound = np.exp(-s) if regulariser == "entropy" else np.where(s > 0, 1 / (1 + n * s), 1.0)
            assert np.all(trace.errors <= bound + 1e-12)


@pytest.mark.parametrize("seed", SUITE_SEEDS)
def test_theorem_3_smooth_maboost_caps_and_bounds(seed):
    """Thm 3 (docs/math.md#smooth-maboost): ``max d_t <= k/N`` at every round; while ``eps >= 1/k``
    the bounds (8), (9) hold, so once (9) is below 1/k (``sum gamma^2 > 2 ln k``) the error is below
    1/k."""
    rng = np.random.default_rng(seed)
    for _, oracle in _oracles(seed):
        n = oracle.n_samples_
        k = float(rng.uniform(1.5, 8.0))
        nu = n / k
        for variant in MIRROR_VARIANTS:
            result = maboost(oracle, nu=nu, max_iter=50, keep_iterates=True, **variant)
            trace = _trace(result)
            for d, _ in result.iterates:
                assert d.max() <= (k / n) * (1 + 1e-12)
                assert d.min() >= 0 and d.sum() == pytest.approx(1.0, abs=1e-12)
            gamma2 = np.cumsum(trace.edges**2)
            bound = np.exp(-0.5 * gamma2) if variant["regulariser"] == "entropy" else 1 / (1 + 0.5 * gamma2)
            valid = trace.errors >= 1.0 / k
            assert np.all(trace.errors[valid] <= bound[valid] + 1e-12)
            assert np.all(trace.errors[bound < 1.0 / k] < 1.0 / k)


@pytest.mark.parametrize("seed", SUITE_SEEDS)
def test_mixed_set_caps_the_secondary_examples_and_bounds_the_primary_error(seed):
    """[NP] Sec 3.2 (docs/math.md#mixed-projection-set): d <= k/N on B only; the comparator uniform
    on the primary errors always lies in S_c, so ``#errors on A / N`` obeys (8)/(9); the whole error
    does while ``eps >= 1/k``."""
    rng = np.random.default_rng(seed)
    for _, oracle in _oracles(seed)[1:]:
        n = oracle.n_samples_
        secondary = rng.random(n) < 0.4
        secondary[0] = True
        k = float(rng.uniform(1.5, 6.0))
        for variant in MIRROR_VARIANTS:
            result = maboost(
                oracle, nu=n / k, secondary=secondary, max_iter=40, keep_iterates=True, **variant
            )
            trace = _trace(result)
            for d, _ in result.iterates:
                assert d[secondary].max() <= (k / n) * (1 + 1e-12)
                assert d.sum() == pytest.approx(1.0, abs=1e-12)
            gamma2 = np.cumsum(trace.edges**2)
            bound = np.exp(-0.5 * gamma2) if variant["regulariser"] == "entropy" else 1 / (1 + 0.5 * gamma2)
            primary_errors = np.array([np.sum((m <= 0) & ~secondary) / n for m in trace.margins])
            assert np.all(primary_errors <= bound + 1e-12)
            valid = trace.errors >= 1.0 / k
            assert np.all(trace.errors[valid] <= bound[valid] + 1e-12)


@pytest.mark.parametrize("seed", SUITE_SEEDS)
def test_theorem_4_sparseboost_bound_16(seed):
    """Thm 4: with ``alpha_t <= gamma_t / 2``, ``eps <= 1/(sum (1/2) gamma_t (gamma_t - 2 alpha_t) + 1)``,
    for both thresholds of the l1 prox (docs/math.md#sparseboost-threshold); d stays in the simplex."""
    rng = np.random.default_rng(seed)
    for _, oracle in _oracles(seed):
        for threshold in ("literal", "half"):
            alpha = float(rng.uniform(0.0, 1.0))
            result = sparseboost(oracle, alpha=alpha, threshold=threshold, max_iter=50, keep_iterates=True)
            trace = _trace(result)
            np.testing.assert_allclose(trace.steps, trace.edges / oracle.n_samples_, rtol=1e-12)
            alpha_t = alpha * trace.edges / 2
            bound = 1.0 / (np.cumsum(0.5 * trace.edges * (trace.edges - 2 * alpha_t)) + 1.0)
            assert np.all(trace.errors <= bound + 1e-12)
            for d, _ in result.iterates:
                assert d.min() >= 0 and d.sum() == pytest.approx(1.0, abs=1e-12)
            np.testing.assert_array_equal(
                result.support, [np.count_nonzero(d > 0) for d in trace.distributions]
            )


@pytest.mark.parametrize("seed", SUITE_SEEDS)
def test_theorem_5_madaboost_bound(seed):
    """Thm 5 [D]: the MadaBoost potential ``(1/N) sum psi(-m_T)`` bounds the error and is at most
    ``1 - sum_t (eta_t eps_{t-1} gamma_t - eta_t^2/2)`` for any step; with the documented step this is
    ``1 - (1/2) sum eps_{t-1}^2 gamma_t^2``, so ``sum_t eps_{t-1}^2 gamma_t^2 <= 2``: at most
    ``2/(eps^2 gamma^2)`` rounds with error >= eps and edge >= gamma."""
    for _, oracle in _oracles(seed):
        n = oracle.n_samples_
        for step in ("previous", "fixed_point"):
            result = madaboost(oracle, step=step, max_iter=60, keep_iterates=True)
            trace = _trace(result)
            before = np.r_[1.0, trace.errors[:-1]]
            bound = 1.0 - np.cumsum(trace.steps * before * trace.edges - 0.5 * trace.steps**2)
            potential = np.array([MadaBoostLoss().value(m) / n for m in trace.margins])
            assert np.all(trace.errors <= potential + 1e-12)
            assert np.all(potential <= bound + 1e-12)
            np.testing.assert_allclose(result.bound, bound, rtol=1e-9, atol=1e-12)
            if step == "previous":
                assert np.sum(before**2 * trace.edges**2) <= 2.0 + 1e-12


def test_generic_library_regulariser_runs_mabooost_like_its_closed_form():
    """Any conjugate-library R: ``(1/2)||d||^2 + <a, d>`` (L = N) gives the same run as the Euclidean
    closed form, active and lazy (the projections come from the conjugate calculus)."""
    X, y = make_classification(n_samples=30, n_features=4, random_state=1)
    oracle = DecisionStumps().fit(X, y)
    a = np.random.default_rng(0).normal(size=30)
    for update in ("active", "lazy"):
        generic = maboost(oracle, regulariser=HalfSquaredNorm(2).tilted(a), L=30.0, update=update, max_iter=8)
        closed = maboost(oracle, regulariser="euclidean", update=update, max_iter=8)
        np.testing.assert_allclose(generic.d, closed.d, atol=1e-5)
        np.testing.assert_allclose(generic.steps, closed.steps, rtol=1e-6)
        assert np.all(np.isnan(generic.bound))


# -- history, result, stopping, validation -------------------------------------------------------------


def test_history_and_result_fields(stumps):
    result = maboost(stumps, max_iter=15)
    history = result.history
    assert len(history) == result.n_iter == 15
    np.testing.assert_allclose(history["stopping"], result.bound)
    np.testing.assert_allclose(history["gap"], history["primal"] - history["dual"])
    assert result.weights.sum() == pytest.approx(1.0)
    assert result.params["regulariser"] == "entropy" and result.params["projection"] == "simplex"
    assert history.threshold == pytest.approx(1.0 / stumps.n_samples_)
    np.testing.assert_allclose(
        result.margins * result.eta_sum, result.columns @ (result.weights * result.eta_sum)
    )
    # the sign of the normalised combination is the sign of sum eta_t h_t: same training error
    assert np.mean(result.margins <= 0) == pytest.approx(result.training_error[-1])


def test_stops_when_the_bound_certifies_zero_training_error():
    """A separable class: (9) falls below 1/N, which certifies zero training errors."""
    U = np.ones((20, 1))
    U[:5, 0] = 0.5
    result = maboost(MatrixOracle(U), max_iter=500)
    assert result.converged and result.n_iter < 500
    assert result.bound[-1] < 1 / 20 and result.training_error[-1] == 0.0
    assert result.bound[-2] >= 1 / 20  # it stopped at the first round whose bound was below 1/N


def test_stops_without_a_positive_edge():
    U = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for driver in (maboost, sparseboost, madaboost):
        result = driver(MatrixOracle(U), max_iter=10)
        assert result.converged and result.stop_reason == "no_edge"
        assert result.n_iter == 1 and result.n_hypotheses == 0


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda o: maboost(o, update="eager"), "update"),
        (lambda o: maboost(o, step="big"), "step"),
        (lambda o: maboost(o, regulariser="l3"), "regulariser"),
        (lambda o: maboost(o, nu=0.5), "nu"),
        (lambda o: maboost(o, nu=1e6), "nu"),
        (lambda o: maboost(o, nu=float("nan")), "nu"),
        (lambda o: maboost(o, nu=2.0, secondary=[True, False]), "secondary"),
        (lambda o: maboost(o, L=3.0), "L"),
        (lambda o: maboost(o, regulariser=HalfSquaredNorm(2).tilted(np.ones(150))), "L"),
        (lambda o: maboost(o, max_iter=0), "max_iter"),
        (lambda o: lamaboost(o, update="active"), "update"),
        (lambda o: sparseboost(o, alpha=1.5), "alpha"),
        (lambda o: sparseboost(o, alpha=float("inf")), "alpha"),
        (lambda o: sparseboost(o, threshold="full"), "threshold"),
        (lambda o: madaboost(o, step="current"), "step"),
        (lambda o: maboost(object()), "oracle"),
        (lambda o: maboost(DecisionStumps()), "oracle"),
    ],
)
def test_bad_arguments_raise_value_errors_naming_them(stumps, call, match):
    with pytest.raises(ValueError, match=match):
        call(stumps)
