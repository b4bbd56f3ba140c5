"""Solvers: cvxpy (Clarabel, ECOS, SCS), active-set recovery and certification.

:func:`solve` is what ``model.solve(...)`` calls: it validates the request, runs the method on
one side, maps to the other side and certifies the pair (:mod:`dualboost.solvers.certify`).
"""

from __future__ import annotations

from dualboost._validation import check_scalar
from dualboost.solvers.auglag import solve_auglag
from dualboost.solvers.certify import certify
from dualboost.solvers.cvxpy_backend import CVXPY_METHODS, solve_cvxpy
from dualboost.solvers.highs import solve_highs
from dualboost.solvers.solution import STATUSES, Solution
from dualboost.solvers.state import SolverState

__all__ = ["solve", "certify", "Solution", "SolverState", "STATUSES", "METHODS", "SIDES"]

#: every method: the cvxpy solvers, the hand-written dual path, HiGHS for LPs
METHODS = (*CVXPY_METHODS, "auglag", "highs")
SIDES = ("primal", "dual")


def solve(
    model, method: str = "clarabel", side: str = "dual", warm_start=None, tol: float = 1e-6, **options
) -> Solution:
    """Solve ``model`` (a :class:`~dualboost.problems.Model`) and return a certified Solution.

    ``method``: one of ``METHODS``; ``side``: ``"primal"`` or ``"dual"``; ``tol``: the relative
    gap and feasibility tolerance of the certificate. ``warm_start`` (a previous Solution, of the
    model before columns were appended) is used by ``"auglag"`` (its w) and by ``"highs"`` on the
    primal side (its HiGHS model and basis); the interior-point methods accept and ignore it.
    Models that can be infeasible (SoftBoost, the corrective subproblems) are checked first by an
    independent computation and return ``status="infeasible"``.
    """
    if not isinstance(method, str) or method.lower() not in METHODS:
        raise ValueError(f"method must be one of {', '.join(map(repr, METHODS))}; got {method!r}")
    if side not in SIDES:
        raise ValueError(f"side must be 'primal' or 'dual'; got {side!r}")
    tol = check_scalar(tol, "tol")
    if tol <= 0:
        raise ValueError(f"tol must be > 0; got {tol!r}")
    if warm_start is not None and not isinstance(warm_start, Solution):
        raise ValueError("warm_start must be None or a Solution returned by an earlier solve")
    method = method.lower()
    is_feasible = getattr(model, "is_feasible", None)
    if is_feasible is not None and not is_feasible():
        return Solution.without_point(
            "infeasible", method, side, tol, message="the primal feasible set is empty"
        )
    if method == "auglag":
        return solve_auglag(model, side, tol, warm_start, **options)
    if method == "highs":
        if options:
            raise ValueError(f"method='highs' takes no options; got {sorted(options)}")
        return solve_highs(model, side, tol, warm_start)
    return solve_cvxpy(model, method, side, tol, **options)
