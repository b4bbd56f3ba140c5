"""method="auglag": cold solves that start from the LP limit's solution (docs/solvers.md, item 3).

A cold start at eta > ``lp_cold_eta`` with t <= ``lp_cold_t`` and ``lp_cold_min_samples`` <= N <=
``lp_max_samples`` (``AuglagOptions``) solves the LP limit by HiGHS (without presolve) and takes
Newton steps from its w before eta continuation (the stage ``"lp_limit"`` that the options'
``callback`` reports). The answers are checked against references that do not go through this path:

* the smoothing sandwich ``P_LP <= V_eta <= P_LP + ln(N/nu)/eta`` with the capped LP value written out
  for HiGHS in tests/references.py (exact bounds: the slack is the certified gap and 1e-12 of
  rounding, as in tests/test_auglag_continuation.py);
* the same solve by eta continuation (``lp_cold_eta = inf``, the path before the LP start): both
  certified, their values within the sum of their gaps (each value is within its gap of the optimum);
* where HiGHS fails, the solve goes on by continuation and is certified.

Timing is not asserted (benchmarks/subproblem.py measures it).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost, LPBoost
from dualboost.solvers import AuglagOptions
from tests.references import lp_eq23

R = random_edge_matrix
DEFAULTS = AuglagOptions()
N = 600  # within [lp_cold_min_samples, lp_max_samples]
#: (U, nu): random entries and +-1 entries (as stumps give), nu = 1, N/10, N/2, t <= lp_cold_t
INSTANCES = {
    "random-nu1": (lambda: R(N, 12, seed=41), 1.0),
    "random-nu60": (lambda: R(N, 12, seed=42), 60.0),
    "stumps-nu60": (lambda: R(N, 30, seed=43, binary=True), 60.0),
    "stumps-nu300": (lambda: R(N, 12, seed=44, binary=True), 300.0),
}


def recorded_lp_starts() -> tuple[list[tuple[float, int]], AuglagOptions]:
    """The (gap, Newton steps) of each start from the LP limit (gap inf where HiGHS failed), recorded
    as the solver runs with the options returned."""
    calls = []

    def recorded(stage):
        if stage.name == "lp_limit":
            calls.append((stage.gap, stage.steps))

    return calls, AuglagOptions(callback=recorded)


@pytest.mark.parametrize("eta", [5e3, 1e5])
@pytest.mark.parametrize("name", list(INSTANCES))
def test_cold_solve_from_the_lp_limit_lies_in_the_sandwich_and_agrees_with_continuation(name, eta):
    make, nu = INSTANCES[name]
    U = make()
    assert eta > DEFAULTS.lp_cold_eta and U.shape[1] <= DEFAULTS.lp_cold_t
    assert DEFAULTS.lp_cold_min_samples <= U.shape[0] <= DEFAULTS.lp_max_samples
    model = ERLPBoost(U, nu=nu, eta=eta)
    calls, options = recorded_lp_starts()
    solution = model.solve(method="auglag", options=options)
    assert len(calls) == 1 and calls[0][1] <= DEFAULTS.lp_newton_steps  # the LP start was taken, once
    assert solution.status == "optimal", f"relative gap {solution.relative_gap:.2e}"
    p_lp = lp_eq23(U, nu)[0]
    bound = np.log(U.shape[0] / nu) / eta
    assert p_lp - max(solution.gap, 0.0) - 1e-12 <= solution.dual_value <= p_lp + bound + 1e-12
    assert p_lp - 1e-12 <= solution.primal_value <= p_lp + bound + max(solution.gap, 0.0) + 1e-12
    assert solution.w.min() >= 0.0 and solution.w.sum() == pytest.approx(1.0, abs=1e-12)

    # the path before: eta continuation
    continued = model.solve(method="auglag", options=dataclasses.replace(options, lp_cold_eta=np.inf))
    assert len(calls) == 1 and continued.status == "optimal"
    assert abs(continued.dual_value - solution.dual_value) <= max(continued.gap, 0.0) + max(solution.gap, 0.0)


def test_a_failed_lp_limit_on_a_cold_start_falls_back_to_continuation(monkeypatch):
    """Where HiGHS does not solve the LP limit (RuntimeError), the cold solve takes eta continuation
    and is certified, with the value of the solve from the LP within their gaps."""
    make, nu = INSTANCES["random-nu60"]
    model = ERLPBoost(make(), nu=nu, eta=5e3)
    want = model.solve(method="auglag")

    def fail(self, n_columns=None):
        raise RuntimeError("HiGHS failed on the capped min-max-edge LP: kInfeasible")

    monkeypatch.setattr(LPBoost, "primal_lp", fail)
    calls, options = recorded_lp_starts()
    got = model.solve(method="auglag", options=options)
    assert calls == [(np.inf, 0)]  # tried once (not again in the continuation stages)
    assert got.status == want.status == "optimal"
    assert abs(got.dual_value - want.dual_value) <= max(got.gap, 0.0) + max(want.gap, 0.0)
