"""method="auglag": Newton's first trial stops at the first breakpoint above ``breakpoint_eta``.

At eta > ``AuglagOptions.breakpoint_eta`` a Newton step's first trial stops where the first weight reaches 0
(``newton_polish(breakpoints=True)``; those weights are set to 0 exactly) instead of following
the clipped path past it. The warm solves of a boosting-like sequence (one column added at a time)
that go through it are checked against references that do not:

* the primal written out in cvxpy (tests/test_auglag.py's ``Case``), solved by Clarabel at 1e-12
  tolerances, where it reports "optimal" (eta ~ 1.4e3);
* the same warm solves with the clipped path (``breakpoint_eta`` raised to infinity): both certified,
  their values within the sum of their gaps, at eta = 1.4e3 and 6e3.

The Newton steps that met a breakpoint are counted by each solve (``extra["breakpoint_steps"]``).

Timing is not asserted (benchmarks/vs_adaboost.py measures it).
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost
from dualboost.solvers import AuglagOptions
from tests.solvers.test_auglag import Case


def _sequence(U, nu, eta, tol, options):
    """The warm solves of U's first 8, 9, ..., t columns (the first one cold)."""
    solution, out = None, []
    for t in range(8, U.shape[1] + 1):
        model = ERLPBoost(U[:, :t], nu=nu, eta=eta)
        solution = model.solve(method="auglag", tol=tol, warm_start=solution, options=options)
        assert solution.status == "optimal", solution
        out.append(solution)
    return out


@pytest.fixture
def bound_steps():
    """The solves' counts of Newton steps that had a breakpoint within the full step, where
    nonzero (a list, appended to by the callback of :func:`_counting`)."""
    return []


def _counting(bound_steps: list, **fields) -> AuglagOptions:
    """``AuglagOptions(**fields)`` whose callback appends each solve's nonzero count to ``bound_steps``."""

    def solved(stage):
        if stage.name == "solved" and stage.solution.extra["breakpoint_steps"]:
            bound_steps.append(stage.solution.extra["breakpoint_steps"])

    return AuglagOptions(callback=solved, **fields)


@pytest.mark.parametrize("seed", [41, 42])
def test_warm_solves_with_breakpoints_agree_with_clarabel(seed, bound_steps):
    U = random_edge_matrix(300, 24, seed=seed, binary=True)
    nu, eta = 30.0, 1.4e3
    assert eta > AuglagOptions().breakpoint_eta
    solutions = _sequence(U, nu, eta, tol=1e-8, options=_counting(bound_steps))
    assert bound_steps, "no Newton step met a breakpoint: the test does not exercise it"
    for solution in solutions[::4] + solutions[-1:]:
        t = solution.w.size
        case = Case("erlp", U[:, :t], nu, eta)
        d_star, p_star, _ = case.reference()
        scale = max(1.0, abs(p_star))
        assert abs(solution.dual_value - p_star) <= 1e-7 * scale
        assert abs(case.primal_value(solution.d) - p_star) <= 1e-7 * scale
        assert case.feasibility_violation(solution.d) <= 1e-9
        assert np.abs(solution.d - d_star).max() <= 1e-6
        assert solution.w.min() >= 0.0 and solution.w.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("eta", [1.4e3, 6e3])
def test_warm_solves_with_breakpoints_agree_with_the_clipped_path(eta, bound_steps):
    U = random_edge_matrix(300, 24, seed=43, binary=True)
    nu, tol = 30.0, 1e-6
    got = _sequence(U, nu, eta, tol, _counting(bound_steps))
    assert bound_steps
    bound_steps.clear()
    want = _sequence(U, nu, eta, tol, _counting(bound_steps, breakpoint_eta=np.inf))
    assert not bound_steps  # the clipped path: no breakpoints computed
    for a, b in zip(got, want, strict=True):
        for solution in (a, b):
            assert solution.gap <= tol * max(1.0, abs(solution.primal_value))
        slack = max(a.gap, 0.0) + max(b.gap, 0.0) + 1e-12
        assert abs(a.primal_value - b.primal_value) <= slack
        assert abs(a.dual_value - b.dual_value) <= slack
