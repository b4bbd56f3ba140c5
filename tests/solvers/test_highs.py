"""method="highs": LPBoost's LP through HiGHS, both sides, the other side read from the LP
multipliers ([KG] Sec 2.2, model M2).

Independent references: the capped min-max-edge LP ([KG] Eq. 2.3) written out here in cvxpy and
solved by Clarabel at 1e-12 tolerances, and the dual objective of Eq. 2.2 evaluated in closed
form (AvgMin_nu by sorting, docs/math.md#capped-simplex-support, real nu). The raw HiGHS output (before the
certification step moves anything) is checked as well as the certified Solution.
"""

from __future__ import annotations

import copy

import cvxpy as cp
import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import BinaryERLPBoost, ERLPBoost, LPBoost, SoftBoost
from dualboost.solvers.highs import HighsState, solve_primal_lp

# HiGHS runs at 1e-10 primal/dual feasibility (lpboost.HIGHS_OPTIONS) and Clarabel at 1e-12 gap and
# feasibility, so both values are exact to ~1e-10 (observed differences <= 2e-12); 1e-8 is the
# brief's tolerance with two orders of margin. Feasibility of the read-out points: 1e-9 (HiGHS's
# tolerance 1e-10 with margin for the sum over N entries).
VALUE_TOL = 1e-8
FEAS_TOL = 1e-9


def clarabel_lp(U, nu):
    """min_{d, gamma} gamma s.t. U^T d <= gamma, sum d = 1, 0 <= d <= 1/nu (Eq. 2.3), by Clarabel."""
    n = U.shape[0]
    d = cp.Variable(n)
    gamma = cp.Variable()
    problem = cp.Problem(cp.Minimize(gamma), [U.T @ d <= gamma, cp.sum(d) == 1, d >= 0, d <= 1.0 / nu])
    problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    assert problem.status == "optimal"
    return problem.value


def avgmin(m, nu):
    """The soft-margin dual objective at margins m: the mean of the nu smallest (real nu)."""
    s = np.sort(m)
    k = int(np.floor(nu))
    return s[:k].sum() / nu + ((1.0 - k / nu) * s[k] if k < s.size else 0.0)


def assert_primal_feasible(d, nu):
    assert abs(d.sum() - 1.0) <= FEAS_TOL
    assert d.min() >= -FEAS_TOL
    assert d.max() <= 1.0 / nu + FEAS_TOL


def assert_dual_feasible(w):
    assert abs(w.sum() - 1.0) <= FEAS_TOL
    assert w.min() >= -FEAS_TOL


R = random_edge_matrix
LP_CASES = {
    "hard-margin": (lambda: R(20, 5, seed=0), 1.0),
    "nu4.5": (lambda: R(50, 8, seed=1), 4.5),
    "nu20": (lambda: R(200, 20, seed=2), 20.0),
    "stumps-nu7.3": (lambda: R(100, 10, seed=3, binary=True), 7.3),
    "duplicates": (lambda: R(60, 6, seed=4, duplicate_columns=3), 5.0),
    "nu=N": (lambda: R(40, 5, seed=5), 40.0),
    "N2000": (lambda: R(2000, 30, seed=6), 200.5),
}


@pytest.mark.parametrize("name", list(LP_CASES))
def test_highs_both_sides_are_certified_and_agree_with_clarabel(name):
    make, nu = LP_CASES[name]
    U = make()
    reference = clarabel_lp(U, nu)
    model = LPBoost(U, nu=nu)
    for side in ("primal", "dual"):
        solution = model.solve(method="highs", side=side)
        assert solution.status == "optimal"
        assert solution.method == "highs" and solution.side == side
        assert abs(solution.relative_gap) <= 1e-9
        assert solution.primal_value == pytest.approx(reference, abs=VALUE_TOL)
        assert solution.dual_value == pytest.approx(reference, abs=VALUE_TOL)
        # the certified points, evaluated here: max edge of d and AvgMin of U w
        assert_primal_feasible(solution.d, nu)
        assert_dual_feasible(solution.w)
        assert (U.T @ solution.d).max() == pytest.approx(reference, abs=VALUE_TOL)
        assert avgmin(U @ solution.w, nu) == pytest.approx(reference, abs=VALUE_TOL)


@pytest.mark.parametrize("name", list(LP_CASES))
def test_the_other_side_read_from_the_lp_marginals_is_optimal(name):
    """Raw HiGHS output (model.solve_linear_program, before certify() repairs anything): d read
    from the dual LP's marginals is primal-feasible and optimal (its max edge is P_LP); w read from
    the primal LP's marginals is dual-feasible and optimal (its AvgMin is P_LP). The variables of
    each side are optimal too."""
    make, nu = LP_CASES[name]
    U = make()
    reference = clarabel_lp(U, nu)
    model = LPBoost(U, nu=nu)

    d_marginals, w_variables, _ = model.solve_linear_program("dual")
    assert_primal_feasible(d_marginals, nu)
    assert (U.T @ d_marginals).max() == pytest.approx(reference, abs=VALUE_TOL)
    assert_dual_feasible(w_variables)
    assert avgmin(U @ w_variables, nu) == pytest.approx(reference, abs=VALUE_TOL)

    d_variables, w_marginals, _ = model.solve_linear_program("primal")
    assert_dual_feasible(w_marginals)
    assert avgmin(U @ w_marginals, nu) == pytest.approx(reference, abs=VALUE_TOL)
    assert_primal_feasible(d_variables, nu)
    assert (U.T @ d_variables).max() == pytest.approx(reference, abs=VALUE_TOL)
    # complementary slackness of the marginal w: its support only has hypotheses of maximal edge
    edges = U.T @ d_variables
    assert np.all(edges[w_marginals > 1e-9] >= edges.max() - 1e-8)


def test_nu_equal_n_forces_the_uniform_d():
    """nu = N ([KG] Sec 2.2): the capped simplex is the single point d0; the value is the best column mean."""
    U = R(40, 5, seed=5)
    for side in ("primal", "dual"):
        solution = LPBoost(U, nu=40.0).solve(method="highs", side=side)
        np.testing.assert_allclose(solution.d, np.full(40, 1.0 / 40), rtol=0, atol=FEAS_TOL)
        assert solution.primal_value == pytest.approx(U.mean(axis=0).max(), abs=VALUE_TOL)


def test_highs_is_only_for_linear_programs():
    U = R(30, 5, seed=0)
    for model in (ERLPBoost(U, nu=3.0, eta=5.0), BinaryERLPBoost(U, nu=3.0, eta=5.0)):
        with pytest.raises(ValueError, match="highs"):
            model.solve(method="highs")
    g = 0.5 * (clarabel_lp(U, 3.0) + U.mean(axis=0).max())  # a feasible SoftBoost instance
    with pytest.raises(ValueError, match="highs"):
        SoftBoost(U, nu=3.0, gamma_hat=g).solve(method="highs")
    with pytest.raises(ValueError, match="options"):
        LPBoost(U, nu=3.0).solve(method="highs", time_limit=1.0)


def test_auglag_is_not_for_linear_programs_and_solves_the_dual_only():
    U = R(30, 5, seed=0)
    with pytest.raises(ValueError, match="highs"):
        LPBoost(U, nu=3.0).solve(method="auglag")
    with pytest.raises(ValueError, match="side='dual'"):
        ERLPBoost(U, nu=3.0, eta=5.0).solve(method="auglag", side="primal")
    with pytest.raises(ValueError, match="method must be one of"):
        LPBoost(U, nu=3.0).solve(method="simplex")


@pytest.mark.parametrize("nu", [1.0, 7.5])
def test_warm_started_primal_lp_grows_by_rows_and_matches_a_cold_solve(nu):
    """A driver's sequence: each re-solve after new columns reuses the HiGHS model and basis of the
    previous solution; every value equals a cold solve's and Clarabel's (VALUE_TOL)."""
    U = random_edge_matrix(120, 24, seed=5)
    sol = None
    for t in (3, 4, 5, 8, 12, 13, 20, 24):
        model = LPBoost(U[:, :t], nu=nu)
        sol = model.solve(method="highs", side="primal", warm_start=sol)
        assert sol.optimal
        assert isinstance(sol.solver_state, HighsState) and sol.solver_state.lp.n_columns == t
        reference = clarabel_lp(U[:, :t], nu)
        assert abs(sol.primal_value - reference) <= VALUE_TOL
        assert abs(sol.dual_value - reference) <= VALUE_TOL
    assert sol.iterations is not None


def test_a_warm_start_that_does_not_match_builds_afresh():
    """Another U (not an extension), another nu, or a Solution already used as a warm start: the
    solve builds a new HiGHS model and stays right; a stale model is never re-used."""
    U = random_edge_matrix(80, 10, seed=6)
    first = LPBoost(U[:, :6], nu=2.0).solve(method="highs", side="primal")
    lp = first.solver_state.lp
    other = U[:, ::-1]  # same shape family, different columns
    for model in (LPBoost(other[:, :7], nu=2.0), LPBoost(U[:, :7], nu=3.0)):
        sol = model.solve(method="highs", side="primal", warm_start=first)
        assert sol.optimal and sol.solver_state.lp is not lp
        assert abs(sol.primal_value - clarabel_lp(model.U, model.nu)) <= VALUE_TOL
    state = first.solver_state
    grown = LPBoost(U[:, :7], nu=2.0).solve(method="highs", side="primal", warm_start=first)
    # the live model was extended; the warm start's Solution and state are unchanged
    assert grown.solver_state.lp is lp and first.solver_state is state and state.n_columns == 6
    again = LPBoost(U[:, :8], nu=2.0).solve(method="highs", side="primal", warm_start=first)
    assert again.solver_state.lp is not lp  # the model has grown: rebuilt from the saved basis
    assert abs(again.primal_value - clarabel_lp(U[:, :8], 2.0)) <= VALUE_TOL


def test_a_solution_without_its_highs_model_restarts_from_its_saved_basis():
    """What a checkpoint keeps (d, w, extra; not the HiGHS model): the re-solve rebuilds the LP,
    sets the saved basis and appends the new column, and lands on the same vertex as the
    uninterrupted warm start (LP optima are not unique, so a cold solve need not)."""
    U = random_edge_matrix(150, 30, seed=8)
    sol = None
    for t in range(2, 21):
        sol = LPBoost(U[:, :t], nu=3.0).solve(method="highs", side="primal", warm_start=sol)
    saved = copy.copy(sol)
    saved.solver_state = HighsState.from_dict(sol.solver_state.to_dict())  # as a checkpoint reads it
    assert saved.solver_state.lp is None
    assert saved.solver_state.basis_rows.size == 21 and saved.solver_state.basis_columns.size == 151
    model = LPBoost(U[:, :21], nu=3.0)
    uninterrupted = model.solve(method="highs", side="primal", warm_start=sol)
    resumed = model.solve(method="highs", side="primal", warm_start=saved)
    assert resumed.optimal and resumed.solver_state is not None
    # the same vertex: equal up to the rounding of a fresh LU factorisation
    np.testing.assert_allclose(resumed.d, uninterrupted.d, rtol=0, atol=1e-12)
    np.testing.assert_allclose(resumed.w, uninterrupted.w, rtol=0, atol=1e-12)


@pytest.mark.parametrize("nu", [1.0, 7.5])
@pytest.mark.parametrize("binary", [False, True])
def test_the_lp_without_presolve_and_scaling_matches_clarabel(nu, binary):
    """method="auglag"'s cold starts solve the d-domain LP without HiGHS's presolve and scaling
    (``PrimalLP.solve(presolve=False, scaled=False)``): the same optimum as Clarabel's (VALUE_TOL),
    read from d's max edge and w's soft margin (Eq. 2.2) computed here, and feasible d and w."""
    U = random_edge_matrix(300, 12, seed=9, binary=binary)
    d, w, _, _ = solve_primal_lp(LPBoost(U, nu=nu), None, presolve=False, scaled=False)
    assert_primal_feasible(d, nu)
    assert_dual_feasible(w)
    reference = clarabel_lp(U, nu)
    assert abs(float((U.T @ d).max()) - reference) <= VALUE_TOL
    assert abs(avgmin(U @ w, nu) - reference) <= VALUE_TOL
