"""Generalized gradient boosting ([GB]; docs/math.md#gradient-boosting-in-function-space): losses,
projection learners, the three drivers and the guarantees they must satisfy on every run."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.tree import DecisionTreeRegressor

from dualboost.boosting.gradient import (
    gradient_projection,
    inner,
    naive_gradient_projection,
    norm,
    repeated_gradient_projection,
    residual_gradient_projection,
)
from dualboost.boosting.gradient.losses import LOSSES, CallableLoss, MulticlassHingeLoss, make_loss
from dualboost.conjugates.losses import ExponentialLoss, HingeLoss, LogisticLoss
from dualboost.oracles import DecisionStumps, Hypothesis, RawFeatures
from dualboost.oracles.regression import (
    ClassifierProjection,
    MulticlassStumps,
    Projection,
    ProjectionOracle,
    RegressionStumps,
    SklearnRegressorOracle,
)

# ----------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class Column(Hypothesis):
    """A member of a fixed finite class given by its values on the sample (the data are indices)."""

    index: int
    values: tuple = field(compare=False)

    def _predict(self, X):
        return np.asarray(self.values)

    def describe(self) -> str:
        return f"column {self.index}"


class Dictionary(ProjectionOracle):
    """Rule (3) over the rows of ``H`` (values of each hypothesis on the N examples)."""

    def __init__(self, H) -> None:
        self.H = np.asarray(H, dtype=float)

    def _fit(self, X) -> None:
        pass

    def _project(self, target, weights):
        scores = self.H @ target / np.linalg.norm(self.H, axis=1)
        q = int(np.argmax(scores))
        values = self.H[q].copy()
        values.setflags(write=False)
        return Projection(Column(n_features=self.n_features_, index=q, values=tuple(values)), values)


def regression_data(seed: int = 0, n: int = 120, p: int = 4):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 2)
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.2 * rng.normal(size=n)
    return X, y


def multiclass_data(seed: int = 0, n: int = 150, p: int = 5, k: int = 4):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), 2)
    y = (np.floor(2 * X[:, 0]) + np.floor(X[:, 1])).astype(int) % k
    return X, y


# ----------------------------------------------------------------------------- losses


MARGIN_PHI = [("logistic", LogisticLoss()), ("exponential", ExponentialLoss()), ("hinge", HingeLoss())]


@pytest.mark.parametrize(("name", "phi"), MARGIN_PHI)
def test_margin_derivative_is_the_conjugate_point_fenchel_young(name, phi):
    """s = phi'(z) is where phi(z) + phi*(s) = s z (Fenchel–Young equality, from the conjugate library);
    for the strictly convex losses conjugate_grad(s) maps back to z (the d <-> margin correspondence)."""
    z = np.linspace(-3, 3, 13) + 0.05  # avoid the hinge's kink
    loss = make_loss(name)
    s = loss.gradient(z, np.ones_like(z))  # y = +1: the gradient is phi'(z)
    for zi, si in zip(z, s, strict=True):
        assert phi.value([zi]) + phi.conjugate([si]) == pytest.approx(si * zi, abs=1e-10)
    if name != "hinge":
        np.testing.assert_allclose(phi.conjugate_grad(s), z, atol=1e-9)


@pytest.mark.parametrize("name", ["squared", "logistic", "exponential", "absolute", "hinge"])
def test_gradients_match_finite_differences(name):
    rng = np.random.default_rng(1)
    loss = make_loss(name)
    y = np.where(rng.uniform(size=30) < 0.5, -1.0, 1.0)
    F = rng.normal(size=30)
    if name in ("hinge", "absolute"):  # keep away from the kinks, where any subgradient is valid
        F = np.where(np.abs(y * F - 1) < 0.05, F + 0.2, F) if name == "hinge" else F + 0.01
    grad = loss.gradient(F, y)
    h = 1e-6
    for n in range(0, 30, 7):
        e = np.zeros(30)
        e[n] = h
        numeric = (loss.objective(F + e, y) - loss.objective(F - e, y)) / (2 * h)
        assert grad[n] / 30 == pytest.approx(numeric, abs=1e-7)  # R is the mean: dR/dF_n = l'/N


def test_multiclass_hinge_value_and_subgradient_by_brute_force():
    rng = np.random.default_rng(2)
    F = rng.normal(size=(25, 4))
    y = rng.integers(0, 4, size=25)
    loss = MulticlassHingeLoss()
    values = [max(0.0, 1 + max(F[n, k] for k in range(4) if k != y[n]) - F[n, y[n]]) for n in range(25)]
    assert loss.objective(F, y) == pytest.approx(np.mean(values), abs=1e-12)
    G = loss.gradient(F, y)
    # subgradient inequality l(F') >= l(F) + <G, F' - F> (per example, N times the mean)
    for _ in range(20):
        F2 = F + rng.normal(size=F.shape)
        assert loss.objective(F2, y) >= loss.objective(F, y) + inner(G, F2 - F) - 1e-12
    np.testing.assert_allclose(G.sum(axis=1), 0.0)


def test_callable_loss_checks_its_callables():
    good = CallableLoss(lambda F, y: (F - y) ** 2, lambda F, y: 2 * (F - y), smooth=True)
    assert good.objective(np.array([1.0, 2.0]), np.array([0.0, 0.0])) == pytest.approx(2.5)
    bad_value = CallableLoss(lambda F, y: np.sum(F), lambda F, y: F)
    with pytest.raises(ValueError, match="value callable"):
        bad_value.objective(np.zeros(3), np.zeros(3))
    bad_grad = CallableLoss(lambda F, y: F, lambda F, y: F[:2])
    with pytest.raises(ValueError, match="gradient callable"):
        bad_grad.gradient(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="value must be callable"):
        CallableLoss(3, lambda F, y: F)
    with pytest.raises(ValueError, match="loss must be one of"):
        make_loss("nope")
    assert set(LOSSES) >= {"squared", "absolute", "hinge", "logistic", "exponential", "multiclass_hinge"}


# ----------------------------------------------------------------------------- projection learners


def brute_force_stump_error(X, target, w):
    """The smallest weighted squared error of a stump (one split, leaf means), by enumeration."""
    T = target.reshape(len(X), -1)
    best = np.sum(w[:, None] * (T - (w @ T) / w.sum()) ** 2)
    for j in range(X.shape[1]):
        for theta in np.unique(X[:, j])[:-1]:
            right = X[:, j] > theta
            mean_right = (w[right] @ T[right]) / w[right].sum()
            fit = np.where(right[:, None], mean_right, (w[~right] @ T[~right]) / w[~right].sum())
            best = min(best, np.sum(w[:, None] * (T - fit) ** 2))
    return best


@pytest.mark.parametrize("outputs", [None, 3])
@pytest.mark.parametrize("weighted", [False, True])
def test_regression_stumps_find_the_least_squares_stump(outputs, weighted):
    rng = np.random.default_rng(3)
    X = np.round(rng.normal(size=(40, 3)), 1)  # ties in the features
    target = rng.normal(size=(40,) if outputs is None else (40, outputs))
    w = rng.uniform(0.1, 2, size=40) if weighted else np.ones(40)
    answer = RegressionStumps().fit(X).project(target, sample_weight=w if weighted else None)
    assert answer.values.shape == target.shape
    np.testing.assert_allclose(answer.predict(X), answer.values)
    error = np.sum(w[:, None] * (target.reshape(40, -1) - answer.values.reshape(40, -1)) ** 2)
    assert error == pytest.approx(brute_force_stump_error(X, target, w), rel=1e-12)
    if not weighted:  # rule (4) over a class closed under scaling: the line coefficient is 1
        assert inner(answer.values, target) / inner(answer.values, answer.values) == pytest.approx(1.0)


def test_regression_stumps_dense_and_sparse_agree_and_constant_features():
    X, y = regression_data()
    dense = RegressionStumps().fit(X).project(y)
    sparse = RegressionStumps().fit(sp.csr_matrix(X)).project(y)
    assert dense.hypothesis == sparse.hypothesis
    const = RegressionStumps().fit(np.ones((5, 2))).project(np.arange(5.0))
    np.testing.assert_allclose(const.values, 2.0)
    np.testing.assert_allclose(const.predict(np.zeros((3, 2))), 2.0)


def test_multiclass_stumps_maximise_the_inner_product():
    rng = np.random.default_rng(4)
    X = np.round(rng.normal(size=(30, 2)), 1)
    target = rng.normal(size=(30, 3))
    answer = MulticlassStumps().fit(X).project(target)
    np.testing.assert_allclose(answer.predict(X), answer.values)
    code = lambda k: np.where(np.arange(3) == k, 1.0, -0.5)  # noqa: E731 - Thm 2's coding, K = 3
    best = -np.inf
    for j in range(2):
        for theta in np.unique(X[:, j])[:-1]:
            right = X[:, j] > theta
            for a in range(3):
                for b in range(3):
                    h = np.where(right[:, None], code(b), code(a))
                    best = max(best, np.sum(h * target))
    assert np.sum(answer.values * target) == pytest.approx(best, rel=1e-12)
    norms = np.linalg.norm(answer.values, axis=1)
    np.testing.assert_allclose(norms, np.sqrt(1 + 0.25 * 2))  # every row has the same norm


def test_classifier_projection_maximises_sum_target_h_over_stumps():
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(35, 3)), 1)
    target = rng.normal(size=35)
    answer = ClassifierProjection(DecisionStumps()).fit(X).project(target)
    np.testing.assert_allclose(answer.predict(X), answer.values)
    assert set(np.unique(answer.values)) <= {-1.0, 1.0}
    best = abs(target.sum())  # the constants +-1
    for j in range(3):
        for theta in np.unique(X[:, j])[:-1]:
            h = np.where(X[:, j] > theta, 1.0, -1.0)
            best = max(best, abs(h @ target))
    assert answer.values @ target == pytest.approx(best, rel=1e-10)


def test_sklearn_regressor_oracle_weights_and_outputs():
    X, y = regression_data(1)
    rng = np.random.default_rng(1)
    w = rng.uniform(0.5, 2, size=y.size)
    tree = SklearnRegressorOracle(DecisionTreeRegressor(max_depth=1)).fit(X).project(y, sample_weight=w)
    error = np.sum(w * (y - tree.values) ** 2)
    assert error == pytest.approx(brute_force_stump_error(X, y, w), rel=1e-9)  # depth 1 = the LS stump
    multi = SklearnRegressorOracle(Ridge(alpha=1.0)).fit(X).project(np.column_stack([y, -y]))
    assert multi.values.shape == (y.size, 2)
    np.testing.assert_allclose(multi.values[:, 0], -multi.values[:, 1], atol=1e-10)


def test_learner_validation_errors():
    X, y = regression_data()
    with pytest.raises(ValueError, match="not fitted"):
        RegressionStumps().project(y)
    stumps = RegressionStumps().fit(X)
    with pytest.raises(ValueError, match="target must have shape"):
        stumps.project(y[:-1])
    with pytest.raises(ValueError, match="target must be finite"):
        stumps.project(np.r_[y[:-1], np.nan])
    with pytest.raises(ValueError, match="sample_weight"):
        stumps.project(y, sample_weight=-np.ones(y.size))
    with pytest.raises(ValueError, match="target must be 2-D"):
        MulticlassStumps().fit(X).project(y)
    with pytest.raises(ValueError, match="target must be 1-D"):
        ClassifierProjection(DecisionStumps()).fit(X).project(np.column_stack([y, y]))
    with pytest.raises(ValueError, match="X must be finite"):
        RegressionStumps().fit(np.full((3, 2), np.inf))
    with pytest.raises(ValueError, match="oracle must be a dualboost Oracle"):
        ClassifierProjection("stumps")


# ----------------------------------------------------------------------------- the drivers: guarantees


@pytest.mark.parametrize("learner", ["stumps", "decision_stumps"])
def test_squared_loss_naive_unit_step_contracts_by_exactly_one_minus_edge_squared(learner):
    """[GB] Thm 3 with λ = Λ = 1 (exact for the squared loss): R_t = (1 - γ_t²) R_{t-1}, γ_t =
    cos(∇_t, h_t)."""
    X, y = regression_data(2)
    oracle = RegressionStumps() if learner == "stumps" else ClassifierProjection(DecisionStumps())
    oracle.fit(X)
    result = naive_gradient_projection(oracle, y, "squared", n_learners=60, step="constant", init=0.0)
    R = np.r_[result.initial_objective, result.history["primal"]]
    gamma = result.history["edge"]
    np.testing.assert_allclose(R[1:], (1 - gamma**2) * R[:-1], rtol=1e-10, atol=1e-15)
    assert np.all(gamma > 0)


@pytest.mark.parametrize("loss", ["squared", "logistic", "hinge"])
def test_recorded_edge_is_definition_1_recomputed_from_the_model(loss):
    """The history's edge equals cos(∇_t, f_{t-1} - f_t) computed from the staged model alone, and
    the norm form sqrt(1 - ‖∇ - c h‖²/‖∇‖²) agrees ([GB] Definition 1)."""
    X, y = regression_data(3)
    labels = y if loss == "squared" else np.where(y > np.median(y), 1.0, -1.0)
    oracle = RegressionStumps().fit(X)
    result = naive_gradient_projection(
        oracle, labels, loss, n_learners=25, step="constant", learning_rate=0.5
    )
    stages = list(result.staged_decision_function(X))
    loss_obj = make_loss(loss)
    for t, row in enumerate(result.history, start=0):
        g = loss_obj.gradient(stages[t], labels)
        move = stages[t] - stages[t + 1]
        cosine = inner(g, move) / (norm(g) * norm(move))
        assert row.edge == pytest.approx(cosine, rel=1e-9)
        c = inner(move, g) / inner(move, move)
        assert np.sqrt(1 - norm(g - c * move) ** 2 / norm(g) ** 2) == pytest.approx(cosine, rel=1e-7)
        assert row.primal == pytest.approx(loss_obj.objective(stages[t + 1], labels), rel=1e-12)
    assert np.all(np.isnan(result.history["dual"])) and np.all(np.isnan(result.history["gap"]))
    np.testing.assert_array_equal(result.history["n_hypotheses"], np.arange(1, 26))


def test_classifier_edge_lies_between_delta_over_sqrt_n_and_delta():
    """[GB] Thm 1's scaling (docs/math.md#functional-edge): for ±1 classifiers with AdaBoost edge δ
    on weights |∇| and labels sgn ∇, the functional edge satisfies δ/√N <= γ <= δ."""
    X, y = regression_data(4)
    labels = np.where(y > np.median(y), 1.0, -1.0)
    oracle = ClassifierProjection(DecisionStumps()).fit(X)
    result = naive_gradient_projection(oracle, labels, "logistic", n_learners=30)
    stages = list(result.staged_decision_function(X))
    n = y.size
    for t, row in enumerate(result.history):
        g = make_loss("logistic").gradient(stages[t], labels)
        h = result.hypotheses[t].predict(X)
        delta = np.sum(np.abs(g) * np.sign(g) * h) / np.sum(np.abs(g))
        assert delta / np.sqrt(n) - 1e-12 <= row.edge <= delta + 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_repeated_projection_inner_residual_is_the_product_of_one_minus_edges(seed):
    """[GB] Alg. 2 (docs/math.md#repeated-projection): after k inner projections ‖∇ - h‖² = Π_k (1 -
    γ_k²) ‖∇‖² (<= with equality for the optimal line scaling used here)."""
    X, y = multiclass_data(seed)
    oracle = MulticlassStumps().fit(X)
    result = repeated_gradient_projection(oracle, y, "multiclass_hinge", n_learners=45, n_outputs=4)
    assert result.n_rounds >= 8
    rounds = zip(result.target_norms, result.residual_norms, result.inner_edges, strict=True)
    for target, left, edges in rounds:
        bound = target**2 * np.prod(1 - edges**2)
        assert left**2 <= bound * (1 + 1e-9) + 1e-15
        assert left**2 == pytest.approx(bound, rel=1e-7, abs=1e-14)
    assert [len(e) for e in result.inner_edges[:5]] == [1, 2, 3, 4, 5]  # round t trains t learners


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("case", ["multiclass", "hinge"])
def test_residual_norm_bound_holds_on_every_run(seed, case):
    """[GB] Alg. 3 (docs/math.md#residual-projection): ‖Δ_t‖ <= sqrt(1-γ²)(‖Δ_{t-1}‖ + ‖∇_t‖) each
    round, hence ‖Δ_t‖ <= sqrt(1-γ²)/(1 - sqrt(1-γ²)) G <= 2G/γ², γ the smallest realised edge, G
    the largest ‖∇_t‖."""
    if case == "multiclass":
        X, y = multiclass_data(seed)
        result = residual_gradient_projection(
            MulticlassStumps().fit(X), y, "multiclass_hinge", n_learners=80, n_outputs=4
        )
    else:
        X, y = regression_data(seed)
        labels = np.where(y > np.median(y), 1.0, -1.0)
        result = residual_gradient_projection(
            ClassifierProjection(DecisionStumps()).fit(X), labels, "hinge", n_learners=80
        )
    gamma = result.history["edge"]
    delta = result.residual_norms
    previous = np.r_[0.0, delta[:-1]]
    assert np.all(delta <= np.sqrt(1 - gamma**2) * (previous + result.gradient_norms) * (1 + 1e-9) + 1e-12)
    rho = np.sqrt(1 - gamma.min() ** 2)
    G = result.gradient_norms.max()
    assert delta.max() <= rho / (1 - rho) * G * (1 + 1e-9)
    assert rho / (1 - rho) <= 2 / gamma.min() ** 2


def two_point_problem():
    """[GB]'s non-smooth example (docs/math.md#naive-projection): R[f] = 2|f(x_1)| + |f(x_2)| (as a
    mean over the two points, weights 2 and 1) and ℋ = {±e_1, ±e_2}; sign(0) = +1 so that the
    subgradient never vanishes."""
    loss = CallableLoss(
        lambda F, w: w * np.abs(F), lambda F, w: w * np.where(F >= 0, 1.0, -1.0), name="two-point"
    )
    oracle = Dictionary([[1, 0], [-1, 0], [0, 1], [0, -1]]).fit(np.zeros((2, 1)))
    return loss, oracle, np.array([2.0, 1.0])


def test_two_point_example_naive_never_moves_x2_but_residual_and_repeated_converge():
    """[GB]'s non-smooth example: the naive method always picks an x_1 hypothesis (score 2/√2
    against 1/√2), so f(x_2) stays at its start and R stays >= 1/2; Algs. 2 and 3 drive both points
    to 0 (η_t = 1/√t)."""
    loss, oracle, weights = two_point_problem()
    X = np.zeros((2, 1))
    naive = naive_gradient_projection(oracle, weights, loss, n_learners=400, init=1.0, step="sqrt")
    assert {h.index for h in naive.hypotheses} <= {0, 1}
    assert all(stage[1] == 1.0 for stage in naive.staged_decision_function(X))
    assert naive.history["primal"].min() >= 0.5
    assert naive.history["edge"].min() == pytest.approx(2 / np.sqrt(5))  # the class has a positive edge
    residual = residual_gradient_projection(oracle, weights, loss, n_learners=400, init=1.0, step="sqrt")
    repeated = repeated_gradient_projection(oracle, weights, loss, n_learners=400, init=1.0, step="sqrt")
    for result in (residual, repeated):
        # Thms 5 and 7 bound the average optimality gap (R* = 0); the iterates oscillate around 0
        R = result.history["primal"]
        assert R[R.size // 2 :].mean() < 0.2 and R.min() < 0.02
        assert {h.index for h in result.hypotheses} & {2, 3}  # x_2 is corrected
    # four times the rounds, about half the average gap (the 1/√T rate); no plateau at 1/2
    longer = residual_gradient_projection(oracle, weights, loss, n_learners=1600, init=1.0, step="sqrt")
    first, second = residual.history["primal"], longer.history["primal"]
    assert second[second.size // 2 :].mean() < 0.6 * first[first.size // 2 :].mean()


@pytest.mark.parametrize("learner", ["stumps", "decision_stumps"])
def test_residual_with_inverse_steps_is_naive_with_unit_step_on_the_squared_loss(learner):
    """An identity of Alg. 3 on the squared loss (∇ = f - y): with η_t = 1/t, induction gives
    Δ_t = t ∇_{t+1}, so every step η_t c h = proj(∇_t): the naive method with η = 1, exactly."""
    X, y = regression_data(8)
    oracle = RegressionStumps() if learner == "stumps" else ClassifierProjection(DecisionStumps())
    oracle.fit(X)
    naive = naive_gradient_projection(oracle, y, "squared", n_learners=40, step="constant")
    residual = residual_gradient_projection(oracle, y, "squared", n_learners=40, step="inverse")
    stages = list(naive.staged_decision_function(X))
    for ours, theirs in zip(residual.staged_decision_function(X), stages, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)  # the same step every round
    for t, delta in enumerate(residual.residual_norms, start=1):
        assert delta == pytest.approx(t * norm(stages[t] - y), rel=1e-8)


def test_squared_loss_full_rank_learners_give_least_squares():
    """A closed form: with the span of all features as the learner (a linear regressor) one naive unit
    step lands on the least-squares fit; with single-feature directions (raw features, rule (3)) the
    naive method is greedy coordinate descent and converges to the same fit."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 4))
    y = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 * rng.normal(size=60)
    fit = X @ np.linalg.lstsq(X, y, rcond=None)[0]
    linear = SklearnRegressorOracle(LinearRegression(fit_intercept=False)).fit(X)
    one_step = naive_gradient_projection(linear, y, "squared", n_learners=1, init=0.0, step="constant")
    np.testing.assert_allclose(one_step.F, fit, atol=1e-10)
    coordinates = ClassifierProjection(RawFeatures()).fit(X)
    greedy = naive_gradient_projection(coordinates, y, "squared", n_learners=300, init=0.0, step="constant")
    np.testing.assert_allclose(greedy.F, fit, atol=1e-6)
    optimum = 0.5 * np.mean((fit - y) ** 2)
    assert greedy.objective == pytest.approx(optimum, rel=1e-9)


def test_stop_at_zero_gradient_and_callback_and_prediction_on_new_data():
    X, _ = regression_data(7)
    labels = np.where(X[:, 0] > 0.1, 1.0, -1.0)  # one stump separates: f = -c h has margins >= 1
    rows = []
    result = gradient_projection(
        RegressionStumps().fit(X), labels, "hinge", projection="naive", n_learners=500, callback=rows.append
    )
    assert result.converged and result.n_learners == 1  # hinge loss 0 after one step: ∇ = 0
    assert result.objective == 0.0 and result.stop_reason == "converged"
    assert "gradient norm" in result.stop_detail
    assert len(rows) == len(result.history)
    np.testing.assert_allclose(result.decision_function(X), result.F, atol=1e-9)
    assert result.n_learners == len(result.hypotheses) == result.coefficients.size
    assert "rounds" in repr(result)


def test_driver_validation_errors():
    X, y = regression_data()
    oracle = RegressionStumps().fit(X)
    with pytest.raises(ValueError, match="projection must be one of"):
        gradient_projection(oracle, y, projection="greedy")
    with pytest.raises(ValueError, match="n_learners must be a positive integer"):
        gradient_projection(oracle, y, n_learners=0)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        gradient_projection(oracle, y, learning_rate=-1.0)
    with pytest.raises(ValueError, match="step must be one of"):
        gradient_projection(oracle, y, step="linear")
    with pytest.raises(ValueError, match=r"step\(t\) must return a step size > 0"):
        gradient_projection(oracle, y, step=lambda t: -1.0)
    with pytest.raises(ValueError, match="tol must be >= 0"):
        gradient_projection(oracle, y, tol=-1.0)
    with pytest.raises(ValueError, match="y must be a 1-D array"):
        gradient_projection(oracle, y[:-1])
    with pytest.raises(ValueError, match="y must be finite"):
        gradient_projection(oracle, np.r_[y[:-1], np.nan])
    with pytest.raises(ValueError, match="oracle must be a fitted ProjectionOracle"):
        gradient_projection(RegressionStumps(), y)
    with pytest.raises(ValueError, match="n_outputs must be a positive integer"):
        gradient_projection(oracle, np.zeros(y.size, dtype=int), "multiclass_hinge")
    with pytest.raises(ValueError, match="class indices in"):
        gradient_projection(oracle, np.full(y.size, 3), "multiclass_hinge", n_outputs=3)
    with pytest.raises(ValueError, match="init must be"):
        gradient_projection(oracle, np.zeros(y.size, dtype=int), "multiclass_hinge", n_outputs=3, init=[1, 2])
    labels = np.where(y > 0, 1.0, -1.0)
    with pytest.raises(ValueError, match="loss gradient is not finite"):
        gradient_projection(oracle, labels, "exponential", step="constant", learning_rate=1e300)
