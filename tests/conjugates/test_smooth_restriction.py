"""The exact conjugate of f + I_S for a strictly convex f (dualboost.conjugates.smooth_restriction,
docs/math.md#exact-restriction) and the relaxations it makes solvable by ``method="auglag"``.

* the inner solve's d against an independent brute force (scalar Brent roots per coordinate and per
  multiplier, no Wright omega, no Newton) at 1e-9, and against Clarabel;
* the gradient against finite differences of the value, Hessian-vector products against finite
  differences of the gradient, the low-rank Hessian against the product;
* extremes: entropy weight 1e-6, N = 10 and N = 100,000;
* every built-in relaxation with a smooth dual (and a ball + uniform entropy): auglag agrees with
  Clarabel to 1e-8 in value and 1e-6 in d, certified; warm starts across a boosting run;
* honest errors: the form "abs", no strictly convex part; bad input names the argument.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import brentq

from dualboost import conjugates as cj
from dualboost.boosting import totally_corrective_relaxation_boost
from dualboost.conjugates.simplex import restrict_to_simplex
from dualboost.instances import random_edge_matrix
from dualboost.problems import Relaxation
from dualboost.problems.relaxation_report import BUILTIN_RELAXATIONS, builtin_relaxation
from dualboost.solvers import accepts

N = 40
RNG = np.random.default_rng(7)
PRIOR = RNG.dirichlet(np.full(N, 5.0))


# --- an independent brute force ---------------------------------------------------------------------
def brute_force_d(theta, alpha, kappa, linear, cap, centre=None, radius=None):
    """``argmax_{d in S, d <= cap, ||d - centre|| <= radius} <theta, d> - alpha sum d ln d - (kappa/2)
    ||d||^2 - <linear, d>`` by scalar Brent roots: each d_n(beta, lam) solves ``alpha ln x + K x = y_n``
    on (0, cap] (increasing in x), beta the root of ``sum d = 1``, lam that of ``||d - c|| = r``."""
    n = theta.size
    centre = np.zeros(n) if centre is None else centre

    def coordinate(y, K):
        if alpha == 0.0:
            return min(max(y / K, 0.0), cap)
        h = lambda x: alpha * np.log(x) + K * x - y  # noqa: E731
        if h(cap) <= 0.0:
            return cap
        lo = cap
        while h(lo) > 0.0:
            lo *= 1e-3
            if lo < 1e-300:
                return 0.0
        return brentq(h, lo, cap, xtol=1e-300, rtol=1e-15, maxiter=500)

    def d_of(beta, lam):
        K = kappa + lam
        y = theta - linear - alpha - beta + lam * centre
        return np.array([coordinate(v, K) for v in y])

    def beta_of(lam):
        lo, hi = -1.0, 1.0
        while d_of(lo, lam).sum() < 1.0:
            lo = 2.0 * lo - 1.0
        while d_of(hi, lam).sum() > 1.0:
            hi = 2.0 * hi + 1.0
        return brentq(lambda b: d_of(b, lam).sum() - 1.0, lo, hi, xtol=1e-300, rtol=1e-15, maxiter=500)

    d = d_of(beta_of(0.0), 0.0)
    if radius is None or np.linalg.norm(d - centre) <= radius:
        return d

    def excess(lam):
        return np.linalg.norm(d_of(beta_of(lam), lam) - centre) - radius

    hi = 1.0
    while excess(hi) > 0.0:
        hi *= 4.0
    lam = brentq(excess, 0.0, hi, xtol=1e-300, rtol=1e-15, maxiter=500)
    return d_of(beta_of(lam), lam)


#: name -> (f, the brute force's parameters written out by hand)
CASES = {
    "ball+entropy": (
        cj.NormBall(p=2, radius=1.2 / np.sqrt(N)) + 0.05 * cj.RelativeEntropy(PRIOR),
        dict(alpha=0.05, kappa=0.0, linear=-0.05 * np.log(PRIOR), cap=1.0, radius=1.2 / np.sqrt(N)),
    ),
    "ball + uniform entropy": (
        cj.NormBall(p=2, radius=2 / np.sqrt(N)) + (1 / 200) * cj.RelativeEntropy(),
        dict(alpha=1 / 200, kappa=0.0, linear=np.full(N, np.log(N) / 200), cap=1.0, radius=2 / np.sqrt(N)),
    ),
    "ball+entropy+cap": (
        cj.NormBall(p=2, radius=1.1 / np.sqrt(N)) + 0.02 * cj.RelativeEntropy(PRIOR)
        + cj.NormBall(p=np.inf, radius=3.0 / N),
        dict(alpha=0.02, kappa=0.0, linear=-0.02 * np.log(PRIOR), cap=3.0 / N, radius=1.1 / np.sqrt(N)),
    ),
    "shifted ball+entropy": (
        cj.NormBall(p=2, radius=0.5 / np.sqrt(N)).shifted(-PRIOR) + 0.01 * cj.RelativeEntropy(),
        dict(alpha=0.01, kappa=0.0, linear=np.full(N, 0.01 * np.log(N)), cap=1.0, centre=PRIOR,
             radius=0.5 / np.sqrt(N)),
    ),
    "quadratic+ball+cap": (
        0.3 * cj.HalfSquaredNorm(2) + cj.NormBall(p=2, radius=1.1 / np.sqrt(N)) + cj.CappedSimplex(N / 4),
        dict(alpha=0.0, kappa=0.3, linear=np.zeros(N), cap=4.0 / N, radius=1.1 / np.sqrt(N)),
    ),
    "tilted quadratic+entropy": (
        (0.5 * cj.HalfSquaredNorm(2) + 0.1 * cj.UnnormalisedRelativeEntropy(2 * PRIOR)).tilted(PRIOR),
        dict(alpha=0.1, kappa=0.5, linear=PRIOR - 0.1 * np.log(2 * PRIOR), cap=1.0),
    ),
    "tiny entropy (eta = 1e6)": (
        cj.NormBall(p=2, radius=1.2 / np.sqrt(N)) + 1e-6 * cj.RelativeEntropy(PRIOR),
        dict(alpha=1e-6, kappa=0.0, linear=-1e-6 * np.log(PRIOR), cap=1.0, radius=1.2 / np.sqrt(N)),
    ),
}


def exact(f, n=N):
    F = restrict_to_simplex(f, n)
    assert isinstance(F, cj.ExactRestrictionMixin), F
    return F


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("scale", [0.1, 1.0, 5.0])
def test_d_matches_an_independent_brute_force(name, scale):
    f, params = CASES[name]
    F = exact(f)
    theta = np.random.default_rng(int(scale * 10)).standard_normal(N) * scale
    value, d = F.conjugate_and_grad(theta)
    reference = brute_force_d(theta, **params)
    assert np.abs(d - reference).max() <= 1e-9, name
    assert abs(d.sum() - 1.0) <= 1e-14 and d.min() >= 0.0 and d.max() <= params["cap"] * (1 + 1e-12)
    if "radius" in params:
        centre = params.get("centre", np.zeros(N))
        assert np.linalg.norm(d - centre) <= params["radius"] * (1 + 1e-12)
    # the value is <theta, d> - f(d): Fenchel-Young holds with equality at d, and no point does better
    assert F.fenchel_young_gap(d, theta) == pytest.approx(0.0, abs=1e-13)
    assert value >= float(theta @ reference) - F.value(reference) - 1e-12


@pytest.mark.parametrize("name", ["ball+entropy", "ball + uniform entropy", "shifted ball+entropy",
                                  "quadratic+ball+cap"])
def test_value_and_d_agree_with_clarabel(name):
    f = CASES[name][0]
    F = exact(f)
    theta = np.random.default_rng(3).standard_normal(N)
    import cvxpy as cp

    x = cp.Variable(N)
    expr, cons = F.cvxpy_value(x)
    problem = cp.Problem(cp.Maximize(theta @ x - expr), cons)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cj.solve_cvxpy(problem)
    point = np.clip(x.value, 0.0, None) / np.clip(x.value, 0.0, None).sum()
    value, d = F.conjugate_and_grad(theta)
    assert np.abs(d - x.value).max() <= 1e-6
    # Clarabel's point (normalised onto S; in the ball up to its 1e-10 feasibility, which the ball's
    # 1e-9 membership test accepts) cannot beat the exact maximum beyond that slack; at its
    # tolerances it falls short by ~1e-8 at most
    shortfall = value - (float(theta @ point) - F.value(point))
    assert -1e-9 <= shortfall <= 1e-7


@pytest.mark.parametrize("name", ["ball+entropy", "ball+entropy+cap", "quadratic+ball+cap",
                                  "tilted quadratic+entropy"])
def test_gradient_and_hessian_products_against_finite_differences(name):
    F = exact(CASES[name][0])
    rng = np.random.default_rng(11)
    theta = rng.standard_normal(N)
    d = F.conjugate_grad(theta)
    hessian = F.conjugate_hessian(theta)
    h = 1e-5
    for _ in range(3):
        v = rng.standard_normal(N)
        slope = (F.conjugate(theta + h * v) - F.conjugate(theta - h * v)) / (2 * h)
        assert slope == pytest.approx(float(d @ v), rel=1e-7, abs=1e-9)
        fd = (F.conjugate_grad(theta + h * v) - F.conjugate_grad(theta - h * v)) / (2 * h)
        hv = F.conjugate_hessian_product(theta, v)
        assert np.abs(hv - fd).max() <= 1e-5 * max(1.0, np.abs(fd).max())
        assert np.allclose(hessian.product(v), hv, rtol=1e-12, atol=1e-14)
    # the Hessian is symmetric negative... positive semidefinite, with 1 in its kernel (sum d = 1)
    dense = np.diag(hessian.g) - hessian.V @ hessian.M @ hessian.V.T
    assert np.allclose(dense, dense.T, atol=1e-12)
    assert np.linalg.eigvalsh(dense).min() >= -1e-9 * np.abs(dense).max()
    assert np.abs(dense @ np.ones(N)).max() <= 1e-9 * max(1.0, np.abs(dense).max())


def test_the_curvature_is_found_from_a_returned_d_alone():
    F = exact(CASES["ball+entropy"][0])
    theta = np.random.default_rng(2).standard_normal(N)
    _, d = F.conjugate_and_grad(theta)
    assert F.remembers(d) and not F.remembers(d.copy())
    v = np.random.default_rng(3).standard_normal(N)
    from_d = F.conjugate_hessian(None, d).product(v)
    assert np.allclose(from_d, F.conjugate_hessian_product(theta, v), rtol=1e-12, atol=1e-15)
    warm = F.with_warm_starts()
    _, d_warm = warm.conjugate_and_grad(theta + 1e-3)
    assert F.remembers(d_warm)  # shared with the warm copy (the dual solvers ask the model's own)


def test_warm_starts_give_the_same_values():
    F = exact(CASES["ball + uniform entropy"][0])
    warm = F.with_warm_starts()
    rng = np.random.default_rng(5)
    theta = rng.standard_normal(N)
    for _ in range(10):
        theta = theta + 0.05 * rng.standard_normal(N)
        cold_value, cold_d = F.conjugate_and_grad(theta)
        warm_value, warm_d = warm.conjugate_and_grad(theta)
        assert warm_value == pytest.approx(cold_value, abs=1e-14)
        assert np.abs(warm_d - cold_d).max() <= 1e-13
    assert F.multipliers(theta)[1] > 0  # the ball binds: both multipliers were searched


@pytest.mark.parametrize("n", [10, 100_000])
def test_extreme_sizes(n):
    rng = np.random.default_rng(n)
    prior = rng.dirichlet(np.ones(n))
    f = cj.NormBall(p=2, radius=1.5 / np.sqrt(n)) + 1e-3 * cj.RelativeEntropy(prior)
    F = exact(f, n)
    theta = rng.standard_normal(n)
    value, d = F.conjugate_and_grad(theta)
    assert abs(d.sum() - 1.0) <= 1e-13 and d.min() >= 0.0
    assert np.linalg.norm(d) <= 1.5 / np.sqrt(n) * (1 + 1e-12)
    assert F.fenchel_young_gap(d, theta) == pytest.approx(0.0, abs=1e-12)
    beta, lam = F.multipliers(theta)
    # stationarity on every coordinate: theta - alpha (ln(d/d0) + 1) - lam d - beta = 0 (no caps here)
    rows = d > 1e-300
    residual = theta[rows] - 1e-3 * (np.log(d[rows] / prior[rows]) + 1.0) - lam * d[rows] - beta
    assert np.abs(residual).max() <= 1e-9 * max(1.0, np.abs(theta).max())
    if n == 10:
        params = dict(alpha=1e-3, kappa=0.0, linear=-1e-3 * np.log(prior), cap=1.0, radius=1.5 / np.sqrt(n))
        assert np.abs(d - brute_force_d(theta, **params)).max() <= 1e-9


# --- the relaxations ----------------------------------------------------------------------------
def smooth_builtins():
    names = [name for name in BUILTIN_RELAXATIONS
             if accepts(builtin_relaxation(name, form="simplex"), "auglag", "dual") is None]
    assert {"entropy", "linf-ball+entropy", "l2-ball+entropy"} <= set(names)
    return names


def ball_entropy_relaxation(form: str, n: int = 200, t: int = 30) -> Relaxation:
    A = random_edge_matrix(n, t, 1, binary=True)
    f = cj.NormBall(p=2, radius=2 / np.sqrt(n)) + (1 / 200) * cj.RelativeEntropy()
    return Relaxation(A, f, form=form)


@pytest.mark.parametrize("form", ["simplex", "edge"])
@pytest.mark.parametrize("name", [*smooth_builtins(), "ball+uniform-entropy"])
def test_auglag_agrees_with_clarabel_and_is_certified(name, form):
    if name == "ball+uniform-entropy":
        rel = ball_entropy_relaxation(form)
    else:
        rel = builtin_relaxation(name, form=form)
    assert rel.smooth_dual and accepts(rel, "auglag", "dual") is None
    fast = rel.solve(method="auglag", tol=1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = rel.solve(method="clarabel", side="primal", tol=1e-9)  # (its d: the primal variable)
    assert fast.optimal and reference.optimal
    assert fast.relative_gap <= 1e-9 and fast.primal_infeasibility <= 1e-9
    assert abs(fast.dual_value - reference.dual_value) <= 1e-8
    assert abs(fast.primal_value - reference.primal_value) <= 1e-8
    assert np.abs(fast.d - reference.d).max() <= 1e-6
    assert np.abs(rel.d_from_w(fast.w) - fast.d).max() <= 1e-9  # the d-map at the solution


def test_the_ball_entropy_relaxation_at_its_size_is_solved_by_auglag():
    n = 5000
    rel = ball_entropy_relaxation("simplex", n=n, t=100)
    assert "auglag" not in rel.nonsmooth_reason() and rel.smooth_dual
    sol = rel.solve(method="auglag")
    assert sol.optimal and sol.extra["evaluations"] < 100
    # the value is the abs form's (docs/math.md#signed-weights): its dual objective at the folded w
    folded = sol.w[:100] - sol.w[100:]
    same = Relaxation(rel.A, rel.f, form="abs")
    assert same.dual_objective(folded) == pytest.approx(sol.dual_value, abs=1e-12)


def test_a_warm_start_after_a_new_column():
    rel = ball_entropy_relaxation("edge")
    first = Relaxation(rel.A[:, :-1], rel.f, form="edge").solve(method="auglag")
    warm = rel.solve(method="auglag", warm_start=first)
    cold = rel.solve(method="auglag")
    assert warm.optimal and cold.optimal
    assert warm.dual_value == pytest.approx(cold.dual_value, abs=2e-6 * max(1.0, abs(cold.dual_value)))


def test_totally_corrective_boosting_uses_auglag_and_matches_cvxpy():
    A = random_edge_matrix(120, 40, 3, binary=True)
    for form in ("abs", "edge"):
        rel = Relaxation(A, cj.NormBall(p=2, radius=1.5 / np.sqrt(120)), form=form)  # smoothed: + beta h
        fast = totally_corrective_relaxation_boost(rel, 0.05)
        slow = totally_corrective_relaxation_boost(rel, 0.05, methods=("clarabel", "ecos"))
        statuses = {row["status"] for row in fast.history if row["status"]}
        assert statuses == {"optimal (auglag/dual)"}, statuses
        assert fast.converged and slow.converged
        assert fast.iterations == slow.iterations
        assert rel.dual_objective(fast.w) == pytest.approx(rel.dual_objective(slow.w), abs=1e-6)


# --- honest errors and bad input ---------------------------------------------------------------
def test_auglag_on_the_abs_form_solves_it_through_the_simplex_form():
    """(auglag used to refuse the abs form, naming form='simplex'; it now solves it through
    that form.) The same value as the simplex form's, certified by the abs model itself."""
    rel = builtin_relaxation("l2-ball+entropy", form="abs")
    sol = rel.solve(method="auglag")
    same = builtin_relaxation("l2-ball+entropy", form="simplex").solve(method="auglag")
    assert sol.optimal and np.abs(sol.w).sum() <= 1 + 1e-9
    # both certified to a relative gap of 1e-6: both values lie within 1e-6 of the optimum
    assert sol.dual_value == pytest.approx(same.dual_value, abs=2e-6)


def test_auglag_without_a_strictly_convex_part_says_why():
    rel = builtin_relaxation("l2-ball", form="simplex")
    assert not rel.smooth_dual
    with pytest.raises(ValueError, match=r"no strictly convex part.*not differentiable.*use a cvxpy method"):
        rel.solve(method="auglag")


def test_pieces_without_an_inner_solve_are_named():
    two_balls = cj.NormBall(p=2, radius=1.0) + cj.NormBall(p=2, radius=2.0).shifted(-PRIOR)
    pieces, reason = cj.simplex_pieces(two_balls + cj.RelativeEntropy(), N)
    assert pieces is None and "more than one l2 ball" in reason
    pieces, reason = cj.simplex_pieces(cj.Norm(p=2, radius=0.5) + cj.RelativeEntropy(), N)
    assert pieces is None and "Norm" in reason
    f, _ = cj.exact_restriction(cj.CappedRelativeEntropy(np.full(N, 1 / N), nu=2.0, eta=5.0), N)
    assert isinstance(f, cj.CappedRelativeEntropy)  # the closed forms stay


def test_bad_input_names_the_argument():
    F = exact(CASES["ball+entropy"][0])
    with pytest.raises(ValueError, match="theta"):
        F.conjugate(np.ones(N + 1))
    with pytest.raises(ValueError, match="theta"):
        F.conjugate_grad(np.full(N, np.nan))
    with pytest.raises(ValueError, match="v"):
        F.conjugate_hessian_product(np.zeros(N), np.ones(3))
    with pytest.raises(ValueError, match="theta"):
        F.conjugate_hessian(None, np.ones(N))
    missing = cj.NormBall(p=2, radius=0.5 / np.sqrt(N)) + cj.RelativeEntropy()  # misses the simplex
    with pytest.raises(ValueError, match=r"^f: the l2 ball"):
        Relaxation(random_edge_matrix(N, 5, 0), missing)


def test_with_columns_is_the_relaxation_on_the_new_matrix():
    A = random_edge_matrix(60, 12, 4, binary=True)
    f = cj.NormBall(p=2, radius=1.5 / np.sqrt(60)) + 0.01 * cj.RelativeEntropy()
    base = Relaxation(A[:, :5], f, form="abs")
    for form in ("simplex", "edge"):
        grown, fresh = base.with_columns(A, form=form), Relaxation(A, f, form=form)
        assert grown.form == form and grown.U.shape == fresh.U.shape and grown.regularizer is base.regularizer
        assert grown.solve(method="auglag").dual_value == pytest.approx(
            fresh.solve(method="auglag").dual_value, abs=2e-6)
    with pytest.raises(ValueError, match="A has 59 rows"):
        base.with_columns(A[:-1])
    with pytest.raises(ValueError, match="form"):
        base.with_columns(A, form="signed")


def test_the_simplex_form_hessian_from_the_distinct_columns():
    from dualboost.problems.base import Model

    A = random_edge_matrix(300, 12, 6, binary=True)
    f = cj.NormBall(p=2, radius=1.5 / np.sqrt(300)) + 0.01 * cj.RelativeEntropy()
    rel = Relaxation(A, f, form="simplex")
    w = np.random.default_rng(1).dirichlet(np.ones(24))
    for columns in (np.arange(24), np.r_[0:12, 12:20], np.r_[2, 14, 5]):
        expected = Model.dual_hessian(rel, w, columns)  # the Gram matrix on the columns as given
        np.testing.assert_allclose(rel.dual_hessian(w, columns), expected, rtol=1e-12, atol=1e-15)


def test_the_collected_pieces_are_the_ones_written():
    F = exact(CASES["ball+entropy+cap"][0])
    params = CASES["ball+entropy+cap"][1]
    pieces = F.pieces
    assert pieces.alpha == pytest.approx(params["alpha"]) and pieces.kappa == 0.0
    assert pieces.cap == pytest.approx(params["cap"]) and len(pieces.balls) == 1
    assert pieces.balls[0][1] == pytest.approx(params["radius"])
    np.testing.assert_allclose(pieces.linear, params["linear"], rtol=1e-12)
