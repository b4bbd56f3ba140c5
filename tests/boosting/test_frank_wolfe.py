"""The Frank-Wolfe step rules of the corrective drivers (docs/math.md#frank-wolfe-steps).

Independent checks: every rule's step is compared, from the same point, with a brute-force search
over a grid of 2,001 steps of the regularised dual as the model of ``dualboost.problems`` evaluates
it (``ERLPBoost.dual_objective``, ``BinaryERLPBoost.dual_objective``); the exact line search with the
solve of the corrective subproblem (auglag); each run's stop with the optimum of the regularised
problem over the whole class computed by Clarabel.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dualboost.boosting import boost
from dualboost.boosting.corrective.drivers import exact_step
from dualboost.boosting.corrective.frank_wolfe import (
    STEPS,
    away_hypothesis,
    check_step,
    classic_step,
    clipped_step,
    line_search,
    segment_slope,
    short_step,
)
from dualboost.conjugates import CappedBinaryRelativeEntropy, CappedRelativeEntropy
from dualboost.oracles import MatrixOracle
from dualboost.problems import BinaryERLPBoost, CorrectiveERLPBoost, ERLPBoost

N, NU, ETA = 30, 4.0, 6.0
#: the grid of the brute-force line search: the exact step's value must be within the value change of
#: half a grid step of the grid's best, |D'| <= ||U||_max * 2 <= 2 per unit of alpha, i.e. 2 / 2000 / 2
GRID = np.linspace(0.0, 1.0, 2001)
GRID_TOL = 1e-3


def _instance(seed: int, k: int = 6, binary: bool = False):
    """A state of a corrective run: k columns with weights w in the simplex, the max-edge column u of
    a larger class on d_w, and the dual D(w) of the model over [U, u]."""
    rng = np.random.default_rng(seed)
    full = rng.uniform(-1.0, 1.0, size=(N, 40))
    U = full[:, :k]
    w = rng.dirichlet(np.ones(k))
    d0 = np.full(N, 1.0 / N)
    reg = (CappedBinaryRelativeEntropy if binary else CappedRelativeEntropy)(d0, NU, ETA)
    d = reg.conjugate_grad(-(U @ w))
    u = full[:, int(np.argmax(full.T @ d))]
    model = (BinaryERLPBoost if binary else ERLPBoost)(np.column_stack([U, u]), nu=NU, eta=ETA)
    return U, w, u, d, reg, model


def _dual(model, w_old, alpha, away=None):
    """D at ``(1 - alpha) [w_old, 0] + alpha e_new``, or with ``away`` at
    ``[w_old, 0] + alpha (e_new - e_away)``."""
    w = np.r_[w_old, 0.0]
    if away is None:
        w = (1.0 - alpha) * w
        w[-1] += alpha
    else:
        w[away] -= alpha
        w[-1] += alpha
    return model.dual_objective(np.clip(w, 0.0, None))


def _rule_steps(U, w, u, d, reg, t=4):
    m = U @ w
    x = u - m
    gap = float(x @ d)
    return {
        "clipped": clipped_step(x, d, ETA),
        "classic": classic_step(t),
        "short": short_step(gap, 0.0, ETA),
        "line": line_search(segment_slope(lambda mm: reg.conjugate_grad(-mm), m, x), 1.0),
    }


@pytest.mark.parametrize("binary", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_the_exact_step_beats_every_rule_and_the_brute_force_grid(seed, binary):
    U, w, u, d, reg, model = _instance(seed, binary=binary)
    steps = _rule_steps(U, w, u, d, reg)
    values = {rule: _dual(model, w, alpha) for rule, alpha in steps.items()}
    grid = np.array([_dual(model, w, a) for a in GRID])
    best = float(grid.max())
    assert values["line"] >= best - 1e-10  # no grid point is better than the exact step
    assert abs(steps["line"] - GRID[int(np.argmax(grid))]) <= 1.5 * (GRID[1] - GRID[0]) + 1e-9 or (
        values["line"] - best <= GRID_TOL
    )
    for rule, value in values.items():
        assert value <= values["line"] + 1e-10, rule
    # the clipped and the short step maximise lower bounds that are 0 at alpha = 0: D never decreases
    start = _dual(model, w, 0.0)
    assert values["clipped"] >= start - 1e-12 and values["short"] >= start - 1e-12
    # the short step is the more conservative one: ||x||_inf <= ||e_h - w||_1 = 2
    assert steps["short"] <= steps["clipped"] + 1e-15


def test_the_scalar_line_search_is_the_subproblem_solvers_exact_step():
    """step='line' without a method finds the maximiser that the corrective subproblem M8 gives."""
    U, w, u, d, reg, _ = _instance(7)
    scalar = _rule_steps(U, w, u, d, reg)["line"]
    d0 = np.full(N, 1.0 / N)
    solved = exact_step(CorrectiveERLPBoost, U, w, u, d, NU, ETA, d0, "auglag")
    assert 0.0 < scalar < 1.0
    assert scalar == pytest.approx(solved, abs=1e-6)


@pytest.mark.parametrize("seed", range(3))
def test_pairwise_step_is_the_best_on_its_segment_and_keeps_the_simplex(seed):
    U, w, u, d, reg, model = _instance(seed)
    m = U @ w
    edges = np.r_[U.T @ d, u @ d]
    wide = np.r_[w, 0.0]
    away = away_hypothesis(wide, edges, exclude=U.shape[1])
    assert away == int(np.argmin(U.T @ d))  # the smallest edge of the support (all of w > 0 here)
    x = u - U[:, away]
    alpha = line_search(segment_slope(lambda mm: reg.conjugate_grad(-mm), m, x), float(w[away]))
    assert 0.0 <= alpha <= w[away]
    segment = np.linspace(0.0, w[away], 2001)
    values = np.array([_dual(model, w, a, away=away) for a in segment])
    assert _dual(model, w, alpha, away=away) >= values.max() - 1e-10
    moved = wide.copy()
    moved[away] -= alpha
    moved[-1] += alpha
    assert np.all(moved >= 0) and moved.sum() == pytest.approx(1.0, abs=1e-15)
    # the pairwise direction has the larger slope at 0: edge_h - edge_a >= edge_h - m . d
    assert float(x @ d) >= float((u - m) @ d) - 1e-15


def test_pairwise_drops_a_hypothesis():
    """A hypothesis with a tiny weight and the worst edge is dropped: its weight becomes exactly 0."""
    rng = np.random.default_rng(3)
    full = rng.uniform(-1, 1, size=(N, 12))
    full[:, 0] = -np.abs(full[:, 0])  # a bad hypothesis: edge < 0 on every d
    oracle = MatrixOracle(full)
    result = boost("corrective_erlpboost", oracle, nu=NU, eps=0.05, step="pairwise", keep_stages=True)
    assert result.converged
    hypotheses = [h.index for h in result.hypotheses]
    weights = [result.stages.weights(s, len(hypotheses)) for s in range(1, len(result.stages) + 1)]
    for stage in weights:
        assert np.all(stage >= 0) and stage.sum() == pytest.approx(1.0, abs=1e-12)
    dropped = [q for q in range(len(hypotheses)) if any(s[q] > 0 for s in weights) and weights[-1][q] == 0.0]
    zeroed_later = any(np.any((weights[s - 1] > 0) & (weights[s] == 0.0)) for s in range(1, len(weights)))
    assert zeroed_later and dropped


@pytest.mark.parametrize("algorithm", ["corrective_erlpboost", "corrective_binary_erlpboost"])
@pytest.mark.parametrize("step", STEPS)
def test_every_rule_stops_with_the_certified_criterion(algorithm, step):
    """The stop certifies ``P* - D(w_out) <= eps/2`` for the regularised problem over the whole
    class; P* from Clarabel on all 40 columns, D(w_out) from the model over the output's columns."""
    rng = np.random.default_rng(11)
    full = rng.uniform(-1.0, 1.0, size=(N, 40))
    eps = 0.1
    result = boost(algorithm, MatrixOracle(full), nu=NU, eps=eps, eta=ETA, step=step)
    assert result.converged and result.history["stopping"][-1] <= eps / 2
    assert result.params.get("step", "clipped") == step
    assert np.all(result.weights >= 0) and result.weights.sum() == pytest.approx(1.0, abs=1e-12)
    family = BinaryERLPBoost if "binary" in algorithm else ERLPBoost
    optimum = family(full, nu=NU, eta=ETA).solve(method="clarabel")
    assert optimum.status == "optimal"
    value = family(np.asarray(result.columns, dtype=np.float64), nu=NU, eta=ETA).dual_objective(
        result.weights
    )
    assert optimum.primal_value - value <= eps / 2 + 1e-6
    assert value <= optimum.primal_value + 1e-6  # weak duality


def test_the_exact_rules_need_fewer_iterations_than_the_classic_one():
    rng = np.random.default_rng(5)
    full = rng.uniform(-1.0, 1.0, size=(N, 40))
    runs = {s: boost("corrective_erlpboost", MatrixOracle(full), nu=NU, eps=0.05, step=s) for s in STEPS}
    assert runs["line"].n_iter <= runs["clipped"].n_iter <= runs["short"].n_iter
    assert all(r.converged for r in runs.values())


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"step": "fast"}, "step must be one of"),
        ({"step": 1}, "step must be one of"),
        ({"step": "clipped", "method": "auglag"}, "method='auglag'.*step='clipped'"),
        ({"method": 3}, "method must be None"),
    ],
)
def test_bad_step_arguments_name_them(kwargs, match):
    oracle = MatrixOracle(np.random.default_rng(0).uniform(-1, 1, size=(10, 4)))
    with pytest.raises(ValueError, match=match):
        boost("corrective_erlpboost", oracle, nu=2.0, eps=0.1, **kwargs)
    with pytest.raises(ValueError, match=match):
        boost("mlpboost", oracle, nu=2.0, eps=0.1, **kwargs) if "method" not in kwargs else check_step(
            kwargs.get("step"), kwargs["method"]
        )


def test_method_alone_is_the_line_step_and_the_default_is_clipped():
    assert check_step(None, None) == "clipped" and check_step(None, "auglag") == "line"
    assert check_step("line", "auglag") == "line"
    assert classic_step(1) == 1.0 and classic_step(3) == pytest.approx(0.5)
    assert short_step(0.5, 1.0, ETA) == 0.0 and short_step(100.0, 0.0, 1.0) == 1.0
    assert math.isclose(short_step(0.4, 0.5, 2.0), 0.4 / (2.0 * 1.0))


def test_at_every_iteration_of_a_run_the_exact_step_is_the_best_rule():
    """Along a run (clipped steps), from each iterate w^{t-1}: the exact step's dual value is at least
    every other rule's and the best of a 501-point grid of steps."""
    rng = np.random.default_rng(17)
    full = rng.uniform(-1.0, 1.0, size=(N, 40))
    oracle = MatrixOracle(full)
    result = boost("corrective_erlpboost", oracle, nu=NU, eps=0.05, eta=ETA, keep_stages=True)
    columns = np.asarray(result.columns, dtype=np.float64)
    K = columns.shape[1]
    reg = CappedRelativeEntropy(np.full(N, 1.0 / N), NU, ETA)
    index = {h: q for q, h in enumerate(result.hypotheses)}
    grid = np.linspace(0.0, 1.0, 501)
    checked = 0
    for s in range(1, min(len(result.stages), 25)):
        w = result.stages.weights(s, K)
        m = columns @ w
        d = reg.conjugate_grad(-m)
        q = index[oracle.best(d).hypothesis]
        u = columns[:, q]
        model = ERLPBoost(np.column_stack([columns, u]), nu=NU, eta=ETA)  # u again as a last column
        steps = _rule_steps(columns, w, u, d, reg, t=s + 1)
        steps["short"] = short_step(float((u - m) @ d), float(w[q]), ETA)
        values = {rule: _dual(model, w, alpha) for rule, alpha in steps.items()}
        best = max(_dual(model, w, a) for a in grid)
        assert values["line"] >= best - 1e-10
        assert all(value <= values["line"] + 1e-10 for value in values.values())
        checked += 1
    assert checked >= 10


@pytest.mark.parametrize("step", ["classic", "pairwise", "line"])
def test_the_corrective_classifiers_take_the_step_rule(step):
    """``CorrectiveERLPBoostClassifier(step=...)`` runs the driver with that rule: its weights are
    the driver's on the same stumps; a step outside the rules is scikit-learn's ValueError naming it."""
    from sklearn.datasets import make_classification

    from dualboost import CorrectiveERLPBoostClassifier
    from dualboost.oracles import DecisionStumps

    X, y = make_classification(n_samples=120, n_features=5, random_state=3)
    clf = CorrectiveERLPBoostClassifier(nu=0.2, eps=0.1, max_iter=300, step=step).fit(X, y)
    labels = np.where(y == 1, 1.0, -1.0)
    driver = boost(
        "corrective_erlpboost", DecisionStumps().fit(X, labels), nu=24.0, eps=0.1, max_iter=300, step=step
    )
    assert clf.n_iter_ == driver.n_iter
    np.testing.assert_array_equal(clf.decision_function(X), driver.decision_function(X))
    with pytest.raises(ValueError, match="'step' parameter"):
        CorrectiveERLPBoostClassifier(step="away").fit(X, y)
