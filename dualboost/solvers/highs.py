"""``method="highs"``: LPBoost's LP through HiGHS.

Either side is solved as an LP and the other side is read from the LP multipliers; the pair is then
certified like every method's. The d-domain side (``side="primal"``) is a
:class:`~dualboost.problems.lpboost.PrimalLP`, a HiGHS model kept in the returned Solution
(``solution.solver_state``): ``solve(warm_start=previous)`` on a model whose U extends the previous
one by new columns appends their rows to that HiGHS model and re-solves from the previous optimal
basis (dual simplex), the driver's situation after each oracle call. The w-domain side goes through
``scipy.optimize.linprog`` from scratch.
"""

from __future__ import annotations

import time

import numpy as np

from dualboost.solvers.certify import certify
from dualboost.solvers.solution import Solution

__all__ = ["solve_highs"]


def _reusable_lp(model, warm_start: Solution | None):
    """The HiGHS model of ``warm_start`` if ``model``'s U extends the U it was built on, else None.

    The model is taken over (the warm start gives it up): a second warm start from the same
    Solution builds afresh rather than solving an LP that has already grown."""
    if warm_start is None or warm_start.w is None:
        return None
    state = warm_start.solver_state
    if state is None:  # a Solution read back from a checkpoint: rebuild its LP from its basis
        return _rebuilt_lp(model, warm_start)
    lp, U_old = state
    t_old = U_old.shape[1]
    if (
        lp.n_columns != t_old
        or lp.nu != model.nu
        or U_old.shape[0] != model.n_samples
        or t_old > model.n_hypotheses
        or not np.array_equal(U_old, model.U[:, :t_old])
    ):
        return None
    warm_start.solver_state = None
    lp.add_columns(model.U[:, t_old:])
    return lp


def _rebuilt_lp(model, warm_start: Solution):
    """The LP of ``warm_start`` rebuilt from the basis saved in its ``extra`` (the first
    ``warm_start.w.size`` columns of U are taken to be the ones it was solved with), with the new
    columns appended: the re-solve then follows the path an uninterrupted run takes."""
    columns, rows = warm_start.extra.get("basis_columns"), warm_start.extra.get("basis_rows")
    t_old = warm_start.w.size
    if columns is None or rows is None or not 0 < t_old <= model.n_hypotheses:
        return None
    lp = model.primal_lp(t_old)
    if not lp.set_basis(np.asarray(columns), np.asarray(rows)):
        return None
    lp.add_columns(model.U[:, t_old:])
    return lp


def solve_highs(model, side: str, tol: float, warm_start: Solution | None = None) -> Solution:
    """Solve ``side`` of a linear-programming model with HiGHS and certify the pair."""
    solve_lp = getattr(model, "solve_linear_program", None)
    if solve_lp is None:
        raise ValueError(
            f"method='highs' solves linear programs; {model.name} is not one: use 'auglag' or a cvxpy method"
        )
    start = time.perf_counter()
    lp = None
    if side == "primal" and hasattr(model, "primal_lp"):
        lp = _reusable_lp(model, warm_start) or model.primal_lp()
        d, w, iterations = lp.solve()
    else:
        d, w, iterations = solve_lp(side)
    solution = certify(
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
    if lp is not None:
        solution.solver_state = (lp, model.U)
        # the basis travels with the result (checkpoints save ``extra``): a resumed run re-solves
        # from it and takes the same path as an uninterrupted one (LP optima are not unique)
        solution.extra["basis_columns"], solution.extra["basis_rows"] = lp.basis()
    return solution
