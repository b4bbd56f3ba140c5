"""``method="highs"``: LPBoost's LP through HiGHS (``scipy.optimize.linprog``).

Either side is solved as an LP and the other side is read from the LP multipliers
(``res.ineqlin.marginals``); the pair is then certified like every method's.
"""

from __future__ import annotations

import time

from dualboost.solvers.certify import certify
from dualboost.solvers.solution import Solution

__all__ = ["solve_highs"]


def solve_highs(model, side: str, tol: float) -> Solution:
    """Solve ``side`` of a linear-programming model with HiGHS and certify the pair."""
    solve_lp = getattr(model, "solve_linear_program", None)
    if solve_lp is None:
        raise ValueError(
            f"method='highs' solves linear programs; {model.name} is not one: use 'auglag' or a cvxpy method"
        )
    start = time.perf_counter()
    d, w, iterations = solve_lp(side)
    return certify(
        model,
        d,
        w,
        tol=tol,
        method="highs",
        side=side,
        iterations=iterations,
        solve_time=time.perf_counter() - start,
        solver_status="optimal",
    )
