"""The column-generation drivers of MDBoost, CGBoost, NM-Boost and QRLP-Boost
(:mod:`dualboost.boosting.totally_corrective.formulations`).

Each stopping rule is checked against an independent computation: the full problem over the whole
hypothesis class (a finite class, a fixed matrix, so that it can be solved) by cvxpy + Clarabel.

* MDBoost and NM-Boost: at the stop, the full dual's optimum minus the dual value of the output
  (padded with zeros over the class) is at most eps (the proof: the primal value of the model with
  the new column at the previous d is the full primal there, an upper bound);
* QRLP-Boost: the soft margin of the output is within eps of the full LP's value g (LPBoost over
  the class, Clarabel);
* CGBoost: ``D* - D(w^T) <= gap^T + M ||w*_absent||_1`` with M the largest edge of an absent column
  at a restricted optimum d (computed from the class by brute force), and M <= eps 1^T d when the run
  stopped on an absent column.

The tolerances: the drivers certify their re-solves to eps/2 and the Clarabel references to 1e-9
(relative), so 1e-7 absolute covers the references' own error.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier

from dualboost.boosting import ALGORITHMS, boost
from dualboost.boosting.totally_corrective.formulations import recentre
from dualboost.conjugates.projections import capped_simplex_support
from dualboost.oracles import DecisionStumps, MatrixOracle, SklearnOracle
from dualboost.problems import CGBoost, LPBoost, MDBoost, NMBoost

FORMULATIONS = ("mdboost", "cgboost", "nmboost", "qrlpboost")
REF_TOL = 1e-7


@pytest.fixture(scope="module")
def pool():
    """A finite reflexive class: 40 columns of +-1 (and their negations) on 60 examples, made
    learnable (the first columns agree with the labels more often than not)."""
    rng = np.random.default_rng(7)
    n, k = 60, 40
    agree = rng.random((n, k)) < np.linspace(0.75, 0.5, k)
    U = np.where(agree, 1.0, -1.0)
    return np.hstack([U, -U])


def class_columns(result, pool):
    """The indices in ``pool`` (columns then negations) of the result's hypotheses."""
    k = pool.shape[1] // 2
    return np.array([h.index + (0 if h.sign > 0 else k) for h in result.hypotheses], dtype=int)


def full_weights(result, pool, scale=1.0):
    w = np.zeros(pool.shape[1])
    np.add.at(w, class_columns(result, pool), result.weights * scale)
    return w


@pytest.mark.parametrize("D", [0.5, 2.0])
def test_mdboost_stop_certifies_the_full_problem(pool, D):
    eps = 1e-3
    result = boost("mdboost", MatrixOracle(pool[:, :40], reflexive=True), D=D, eps=eps)
    assert result.converged
    full = MDBoost(pool, D=D)
    reference = full.solve(method="clarabel", tol=1e-10)
    assert reference.optimal
    v = full_weights(result, pool)
    np.testing.assert_allclose(pool @ v, result.margins, atol=1e-12)
    loss = reference.dual_value - full.dual_objective(v)
    assert -REF_TOL <= loss <= eps + REF_TOL
    # result.d: the signed pricing vector 1/D - U v of the output v, scaled to sum |d| = 1
    signed = 1.0 / D - result.margins
    np.testing.assert_allclose(result.d, signed / np.abs(signed).sum(), atol=1e-12)
    # the D-scaled objective of [SL] is D^2 times the dual value
    assert full.paper_objective(v) == pytest.approx(D**2 * full.dual_objective(v), rel=1e-12)


def test_nmboost_stop_certifies_the_full_problem(pool):
    eps, lam, tau = 1e-3, 0.05, 0.1
    result = boost("nmboost", MatrixOracle(pool[:, :40], reflexive=True), lam=lam, tau=tau, eps=eps)
    assert result.converged
    full = NMBoost(pool, lam=lam, tau=tau)
    reference = full.solve(method="clarabel", tol=1e-10)
    loss = reference.dual_value - full.dual_objective(full_weights(result, pool))
    assert -REF_TOL <= loss <= eps + REF_TOL
    assert result.d.min() >= 0 and result.d.sum() == pytest.approx(1.0)
    assert result.params["tau"] == tau  # fixed for the run


def test_qrlpboost_soft_margin_is_within_eps_of_the_lp(pool):
    eps, nu = 0.02, 6.0
    result = boost("qrlpboost", MatrixOracle(pool[:, :40], reflexive=True), nu=nu, eps=eps)
    assert result.converged
    g = LPBoost(pool, nu=nu).solve(method="clarabel", tol=1e-10).dual_value
    soft = -capped_simplex_support(-result.margins, nu)
    assert soft == pytest.approx(result.soft_margin, abs=1e-12)
    assert g - eps - REF_TOL <= soft <= g + REF_TOL
    assert result.params["eta"] == pytest.approx(2 / eps * np.log(60 / nu))  # ERLPBoost's canonical eta
    last = result.history[-1]
    assert last.stopping <= eps


def test_cgboost_stop_bounds_the_full_problem(pool):
    eps, C = 0.01, 0.2
    result = boost("cgboost", MatrixOracle(pool[:, :40], reflexive=True), C=C, eps=eps)
    assert result.converged
    raw = full_weights(result, pool, result.params["w_sum"])
    full = CGBoost(pool, C=C)
    reference = full.solve(method="clarabel", tol=1e-10)
    present = np.zeros(pool.shape[1], dtype=bool)
    present[class_columns(result, pool)] = True
    restricted = CGBoost(pool[:, present], C=C)
    solved = restricted.solve(method="clarabel", tol=1e-10)
    np.testing.assert_allclose(solved.w, raw[present], atol=1e-5)  # the w-domain optimum is unique
    d = solved.d
    gap = restricted.primal_objective(d) - full.dual_objective(raw)
    absent_edges = pool[:, ~present].T @ d
    M = max(0.0, float(absent_edges.max())) if absent_edges.size else 0.0
    loss = reference.dual_value - full.dual_objective(raw)
    assert loss >= -REF_TOL
    assert loss <= gap + M * np.abs(reference.w[~present]).sum() + 1e-6
    if "new hypothesis" in result.stop_detail:
        assert M <= eps * d.sum() + 1e-6
    assert result.weights.sum() == pytest.approx(1.0) and result.params["w_sum"] > 0


@pytest.fixture(scope="module")
def stumps():
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3, random_state=2)
    return X, np.where(y == 1, 1.0, -1.0)


@pytest.mark.parametrize("algorithm", FORMULATIONS)
def test_history_stages_iterates_and_max_iter(algorithm, stumps):
    X, y = stumps
    params = {"qrlpboost": {"nu": 12.0}}.get(algorithm, {}) | {"eps": 0.01}
    rows = []
    result = boost(algorithm, DecisionStumps().fit(X, y), callback=rows.append, keep_stages=True, **params)
    assert rows == list(result.history) and result.converged
    history = result.history
    solved = np.isfinite(history["gap"])
    assert np.all(history["gap"][solved] >= -1e-9)  # certified pairs: weak duality
    assert history["stopping"][-1] <= result.params["eps"]
    last = result.stages.weights(len(result.stages), result.n_hypotheses)
    np.testing.assert_allclose(last, result.weights, atol=1e-12)
    T = result.n_hypotheses
    assert T == (result.n_iter if algorithm == "qrlpboost" else result.n_iter - 1)
    kept = boost(algorithm, DecisionStumps().fit(X, y), keep_iterates=True, **params)
    assert len(kept.iterates) == kept.n_iter + (1 if algorithm == "qrlpboost" else 0)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        capped = boost(algorithm, DecisionStumps().fit(X, y), max_iter=2, **params)
    assert not capped.converged and capped.n_iter == 2 and capped.stop_reason == "max_iter"


def test_default_methods_agree_with_clarabel(stumps):
    """The fastest method (each driver's default) and cvxpy + Clarabel give the same values on the
    restricted models a run meets (its d may differ where the optimum is not unique, so the two
    runs' paths may part; the models are compared, to 1e-8)."""
    X, y = stumps
    for algorithm, params, build in (
        ("nmboost", {"lam": 0.01, "tau": 0.01}, lambda U: NMBoost(U, lam=0.01, tau=0.01)),
        ("cgboost", {"C": 1.0}, lambda U: CGBoost(U, C=1.0)),
        ("mdboost", {"D": 1.0}, lambda U: MDBoost(U, D=1.0)),
    ):
        fast = boost(algorithm, DecisionStumps().fit(X, y), eps=0.01, **params)
        assert fast.converged and fast.params["method"] != "clarabel"
        for size in (1, fast.n_hypotheses // 2, fast.n_hypotheses):
            model = build(fast.columns[:, :size].astype(np.float64))
            ours = model.solve(method=fast.params["method"], side="dual", tol=1e-10)
            reference = model.solve(method="clarabel", tol=1e-10)
            assert ours.dual_value == pytest.approx(reference.dual_value, rel=1e-8, abs=1e-8)
            assert ours.gap <= 1e-8 * max(1.0, abs(ours.primal_value))


def test_signed_pricing_and_refusals(stumps):
    X, y = stumps
    tree = SklearnOracle(DecisionTreeClassifier(max_depth=1)).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = boost("mdboost", tree, D=1.0, eps=0.01, max_iter=20)  # signed weights: |d|, flipped labels
    assert result.n_hypotheses >= 1

    class Unsigned(MatrixOracle):
        signed_weights = False

    with pytest.raises(ValueError, match="signed weights"):
        boost("mdboost", Unsigned(np.ones((4, 1))), D=1.0)
    oracle = DecisionStumps().fit(X, y)
    for algorithm, bad, name in (
        ("mdboost", {"D": 0.0}, "D"),
        ("cgboost", {"C": -1.0}, "C"),
        ("nmboost", {"lam": np.nan}, "lam"),
        ("nmboost", {"tau": 0.0}, "tau"),
        ("qrlpboost", {"nu": 0.5}, "nu"),
        ("qrlpboost", {"eta": -1.0}, "eta"),
        ("cgboost", {"eps": 0.0}, "eps"),
    ):
        with pytest.raises(ValueError, match=name):
            boost(algorithm, oracle, **bad)


def test_recentre_keeps_a_positive_distribution():
    d = np.array([0.5, 0.5, 0.0, 0.0])
    c = recentre(d, floor=1e-3)
    assert c.min() > 0 and c.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(c, np.array([0.5, 0.5, 2.5e-4, 2.5e-4]) / 1.0005)


def test_registered():
    assert set(FORMULATIONS) <= set(ALGORITHMS)


@pytest.mark.parametrize("extreme", [False, True])
@pytest.mark.parametrize("family", ["nmboost", "cgboost"])
def test_highs_equals_clarabel_on_the_verify_instances(family, extreme):
    """``method="highs"`` (NM-Boost's LP on both sides, CGBoost's w-domain QP) against cvxpy + Clarabel
    on the instances of ``dualboost verify``: the certified values agree to 1e-8 (relative to the
    value's size), and HiGHS's pair is certified to 1e-8 (its w can be 3e-9 below 0)."""
    from dualboost.verify import default_instances, extreme_instances

    for factory in (extreme_instances if extreme else default_instances)(0)[family]:
        model = factory()
        reference = model.solve(method="clarabel", side="dual", tol=1e-10)
        for side in ("primal", "dual") if family == "nmboost" else ("dual",):
            ours = model.solve(method="highs", side=side, tol=1e-8)
            assert ours.optimal, (model, side, ours.gap)
            scale = max(1.0, abs(reference.dual_value))
            assert abs(ours.primal_value - reference.primal_value) <= 1e-8 * scale
            assert abs(ours.dual_value - reference.dual_value) <= 1e-8 * scale


def test_highs_refuses_cgboost_primal_and_nmboost_warm_start_is_the_cold_solve():
    rng = np.random.default_rng(5)
    U = np.where(rng.random((50, 12)) < 0.6, 1.0, -1.0)
    with pytest.raises(ValueError, match="side='dual'"):
        CGBoost(U).solve(method="highs", side="primal")
    first = NMBoost(U[:, :6], lam=0.1, tau=0.05).solve(method="highs", side="primal", tol=1e-10)
    grown = NMBoost(U, lam=0.1, tau=0.05)
    warm = grown.solve(method="highs", side="primal", warm_start=first, tol=1e-10)
    cold = grown.solve(method="highs", side="primal", tol=1e-10)
    assert warm.optimal and cold.optimal
    assert warm.primal_value == pytest.approx(cold.primal_value, abs=1e-12)
    assert warm.iterations < cold.iterations  # the previous basis: a few pivots


def test_example_weights_are_repeated_examples():
    """CGBoost and NM-Boost with integer example weights k: the model of the data with example n
    repeated k_n times (the same optimal values; CGBoost's w is unique, so it is the same too)."""
    rng = np.random.default_rng(9)
    U = np.where(rng.random((30, 8)) < 0.6, 1.0, -1.0)
    k = rng.integers(1, 4, size=30)
    repeated = np.repeat(U, k, axis=0)
    for weighted, plain in (
        (CGBoost(U, C=0.3, weights=k), CGBoost(repeated, C=0.3)),
        (NMBoost(U, lam=0.05, tau=0.1, weights=k), NMBoost(repeated, lam=0.05, tau=0.1)),
    ):
        ours = weighted.solve(method="highs", side="dual", tol=1e-10)
        reference = plain.solve(method="clarabel", tol=1e-10)
        assert ours.optimal
        assert ours.dual_value == pytest.approx(reference.dual_value, rel=1e-8, abs=1e-8)
        clarabel = weighted.solve(method="clarabel", side="primal", tol=1e-10)
        assert clarabel.primal_value == pytest.approx(reference.dual_value, rel=1e-8, abs=1e-8)
        if isinstance(weighted, CGBoost):
            np.testing.assert_allclose(ours.w, reference.w, atol=1e-6)
    assert NMBoost(U, lam=0.05, tau=0.1, weights=k).solve(method="highs", side="primal").optimal
    unit, unweighted = MDBoost(U, weights=np.ones(30)), MDBoost(U)  # unit weights: the plain regulariser
    assert type(unit.regularizer) is type(unweighted.regularizer)
    assert unit.regularizer.value(np.full(30, 0.1)) == unweighted.regularizer.value(np.full(30, 0.1))
    with pytest.raises(ValueError, match="weights must be positive"):
        CGBoost(U, weights=np.r_[0.0, np.ones(29)])
    with pytest.raises(ValueError, match="weights"):
        NMBoost(U, weights=np.ones(3))


def test_mdboost_example_weights_are_repeated_examples():
    """MDBoost with integer example weights k against the data with example n repeated k_n times
    (Clarabel): equal optimal values to 1e-8 by auglag's dual and both cvxpy sides; d is unique, and
    d_from_w is the closed form ``k (1/D - U v)``, the copies' d summed; [SL]'s objective at D v is
    D^2 times the dual value, weighted as the repeated data's; KKT recovery gives a certified w."""
    rng = np.random.default_rng(4)
    U = rng.uniform(-1, 1, size=(40, 9))
    k = rng.integers(1, 5, size=40)
    D = 2.5
    weighted, plain = MDBoost(U, D=D, weights=k), MDBoost(np.repeat(U, k, axis=0), D=D)
    reference = plain.solve(method="clarabel", side="dual", tol=1e-10)
    ours = weighted.solve(method="auglag", side="dual", tol=1e-10)
    assert ours.optimal and reference.optimal
    assert ours.dual_value == pytest.approx(reference.dual_value, rel=1e-8, abs=1e-8)
    for side in ("primal", "dual"):
        clarabel = weighted.solve(method="clarabel", side=side, tol=1e-10)
        assert clarabel.primal_value == pytest.approx(reference.dual_value, rel=1e-8, abs=1e-8)
    d = weighted.d_from_w(ours.w)
    np.testing.assert_allclose(d, k * (1 / D - U @ ours.w), atol=1e-12)
    copies = np.add.reduceat(plain.d_from_w(reference.w), np.r_[0, np.cumsum(k)[:-1]])
    np.testing.assert_allclose(d, copies, atol=1e-6)
    assert weighted.paper_objective(ours.w) == pytest.approx(D**2 * ours.dual_value, rel=1e-10)
    assert weighted.paper_objective(ours.w) == pytest.approx(plain.paper_objective(ours.w), rel=1e-12)
    recovered = weighted.w_from_d(d)
    assert weighted.dual_objective(recovered) == pytest.approx(ours.dual_value, abs=1e-6)
    with pytest.raises(ValueError, match="weights must be positive"):
        MDBoost(U, weights=np.r_[0.0, np.ones(39)])
