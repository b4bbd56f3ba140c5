"""Warm starts of ``method="auglag"`` after several appended columns, and after removed ones
(docs/solvers.md#growing-a-model, :func:`dualboost.solvers.auglag.warm_start_weights`).

A booster that adds k >= 1 hypotheses per round re-solves ``model.with_columns(U)`` from the previous
Solution; the warm start must take them all (the new weights at 0), run its warm stage (reported to
``AuglagOptions.callback``) and reach the optimum a cold solve reaches. Both results are certified:
each dual value lies within its own gap below the common optimum, so the two dual values differ by
at most the sum of the two gaps (the tolerance below, plus rounding).
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost import problems
from dualboost.solvers import AuglagOptions, NewtonOptions
from dualboost.solvers.auglag import AuglagState, _without_columns

RNG = np.random.default_rng(7)
U = RNG.uniform(-1, 1, size=(80, 15))
#: eta = 20: the warm start's Newton and L-BFGS-B rounds; eta = 5e4: above continuation_eta and
#: lp_first_eta, where the LP limit's HiGHS state (grown by the appended rows) is reused as well
CASES = {
    "erlpboost": lambda V: problems.ERLPBoost(V, nu=8, eta=20),
    "binary_erlpboost": lambda V: problems.BinaryERLPBoost(V, nu=8, eta=20),
    "erlpboost_large_eta": lambda V: problems.ERLPBoost(V, nu=8, eta=5e4),
}


def solve(model, warm_start=None, removed=None):
    """A certified auglag solve and the names of the stages it went through."""
    stages: list[str] = []
    # the Python stages (the compiled re-solve's warm starts: tests/solvers/test_compiled.py)
    python = NewtonOptions(compiled=False)
    options = AuglagOptions(newton=python, callback=lambda stage: stages.append(stage.name))
    solution = model.solve(method="auglag", tol=1e-7, warm_start=warm_start, removed=removed, options=options)
    return solution, stages


def agree(warm, cold) -> None:
    assert warm.optimal and cold.optimal
    # both dual values lie in [optimum - gap, optimum]: they differ by at most the sum of the gaps
    assert abs(warm.dual_value - cold.dual_value) <= warm.gap + cold.gap + 1e-12


@pytest.mark.parametrize("case", CASES)
def test_three_appended_columns_warm_start(case):
    build = CASES[case]
    previous, _ = solve(build(U[:, :12]))
    assert isinstance(previous.solver_state, AuglagState)
    grown = build(U[:, :12]).with_columns(U)  # three new columns at once
    warm, stages = solve(grown, warm_start=previous)
    assert stages[0] in ("warm_start", "warm_newton")  # the warm stage ran first: no cold start
    assert np.all(np.isfinite(warm.w)) and warm.w.size == 15
    cold, cold_stages = solve(build(U))
    assert cold_stages[0] not in ("warm_start", "warm_newton")
    agree(warm, cold)


@pytest.mark.parametrize("case", ["erlpboost", "binary_erlpboost"])
def test_removed_and_appended_columns_warm_start(case):
    build = CASES[case]
    previous, _ = solve(build(U[:, :12]))
    removed = [1, 5]
    V = np.delete(U, removed, axis=1)  # 10 old columns, then the 3 new ones
    warm, stages = solve(build(V), warm_start=previous, removed=removed)
    assert stages[0] == "warm_start"
    agree(warm, solve(build(V))[0])


def test_without_columns_is_the_hessian_of_the_smaller_model():
    """The kept Hessian with columns taken out equals the smaller model's Hessian at the same d
    (computed anew by ``Model.dual_hessian``), on the renumbered face."""
    model = problems.ERLPBoost(U, nu=8, eta=20)
    curvature = solve(model)[0].solver_state.curvature
    removed = curvature.face[[0, 2]]  # two columns of the face, so rows and columns go
    smaller = _without_columns(curvature, removed)
    reduced = problems.ERLPBoost(np.delete(U, removed, axis=1), nu=8, eta=20)
    expected = reduced.dual_hessian(smaller.w, smaller.face, curvature.d)
    # the same floating-point products on the same columns: equal to rounding
    np.testing.assert_allclose(smaller.H, expected, rtol=1e-12, atol=1e-12)
    assert smaller.face.size == curvature.face.size - 2
