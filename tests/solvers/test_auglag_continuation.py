"""method="auglag": cold solves through eta continuation with a small t (docs/solvers.md, item 3).

Above ``continuation_eta`` a cold solve first solves the problem at eta/10 (recursively) to
``coarse_gap`` and, with a cheap Hessian (t <= ``newton_after_stage_t``), starts Newton from that
solution (``AuglagOptions``; the cold start from the LP limit is switched off, ``lp_cold_eta = inf``,
so that every solve here takes continuation). The answers are checked against references that do
not go through this path:

* the primal written out in cvxpy (tests/test_auglag.py's ``Case``), solved by Clarabel at 1e-12
  tolerances, where it reports "optimal" (eta ~ 1.4e3 here; at larger eta conic solvers fail,
  docs/solvers.md#certification);
* the smoothing sandwich ``P_LP <= V_eta <= P_LP + ln(N/nu)/eta`` with the capped LP value from
  HiGHS (tests/references.py), at eta up to 1e5;
* the same solve with the stages solved to the full target and L-BFGS-B first after them (the path
  before ``coarse_gap``: ``coarse_gap = 0``, ``newton_after_stage_t = 0``): both certified, their
  values within the sum of their gaps.

Timing is not asserted (benchmarks/subproblem.py measures it).
"""

from __future__ import annotations

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost
from dualboost.solvers import AuglagOptions
from tests.references import lp_eq23
from tests.solvers.test_auglag import Case

R = random_edge_matrix
DEFAULTS = AuglagOptions()
#: cold starts by eta continuation (not from the LP limit)
CONTINUATION = AuglagOptions(lp_cold_eta=np.inf)
#: (U, nu) with t <= newton_after_stage_t: random entries and +-1 entries (as stumps give), nu = 1, N/10, N/2
INSTANCES = {
    "random-nu1": (lambda: R(300, 10, seed=31), 1.0),
    "random-nu30": (lambda: R(300, 10, seed=32), 30.0),
    "random-nu150": (lambda: R(300, 10, seed=33), 150.0),
    "stumps-nu1": (lambda: R(300, 12, seed=34, binary=True), 1.0),
    "stumps-nu30": (lambda: R(300, 12, seed=35, binary=True), 30.0),
    "stumps-nu150": (lambda: R(300, 40, seed=36, binary=True), 150.0),
}


@pytest.mark.parametrize("name", list(INSTANCES))
def test_continued_cold_solve_agrees_with_clarabel(name):
    make, nu = INSTANCES[name]
    U = make()
    eta = 1.4e3  # above CONTINUATION_ETA: one stage at eta/10
    assert eta > DEFAULTS.continuation_eta and U.shape[1] <= DEFAULTS.newton_after_stage_t
    case = Case("erlp", U, nu, eta)
    d_star, p_star, _ = case.reference()
    scale = max(1.0, abs(p_star))
    solution = ERLPBoost(U, nu=nu, eta=eta).solve(method="auglag", tol=1e-8, options=CONTINUATION)
    assert solution.status == "optimal", solution
    assert abs(solution.dual_value - p_star) <= 1e-7 * scale
    assert abs(case.primal_value(solution.d) - p_star) <= 1e-7 * scale
    assert np.abs(solution.d - d_star).max() <= 1e-6
    assert solution.w.min() >= 0.0 and solution.w.sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("eta", [5e3, 1e5])
@pytest.mark.parametrize("name", list(INSTANCES))
def test_continued_cold_solve_lies_in_the_smoothing_sandwich(name, eta):
    make, nu = INSTANCES[name]
    U = make()
    model = ERLPBoost(U, nu=nu, eta=eta)
    solution = model.solve(method="auglag", options=CONTINUATION)
    assert solution.status == "optimal", f"relative gap {solution.relative_gap:.2e}"
    p_lp = lp_eq23(U, nu)[0]
    bound = np.log(U.shape[0] / nu) / eta
    assert p_lp - max(solution.gap, 0.0) - 1e-12 <= solution.dual_value <= p_lp + bound + 1e-12
    assert p_lp - 1e-12 <= solution.primal_value <= p_lp + bound + max(solution.gap, 0.0) + 1e-12

    # the path before coarse_gap: every stage to the full target, L-BFGS-B rounds after each stage
    full = AuglagOptions(lp_cold_eta=np.inf, coarse_gap=0.0, newton_after_stage_t=0)
    before = model.solve(method="auglag", options=full)
    assert before.status == "optimal"
    assert abs(before.dual_value - solution.dual_value) <= max(before.gap, 0.0) + max(solution.gap, 0.0)
