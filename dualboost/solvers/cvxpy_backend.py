"""The cvxpy backend: solve either side with Clarabel, ECOS or SCS, read the other from duals.

The model builds its problem (``cvxpy_primal`` / ``cvxpy_dual``); this module only runs the
solver with tight default tolerances, reads ``(d, w)`` and hands them to the certification step.
What the solver says about optimality is recorded (``solver_status``, ``solver_value``) but not
trusted.
"""

from __future__ import annotations

import time
import warnings

import cvxpy as cp

from dualboost.solvers.certify import certify
from dualboost.solvers.contract import CvxpyForms, implements
from dualboost.solvers.solution import Solution

__all__ = ["CVXPY_METHODS", "solve_cvxpy", "accepts"]

#: method name -> (cvxpy solver name, default options: tight, so that certification decides)
CVXPY_METHODS: dict[str, tuple[str, dict]] = {
    "clarabel": (
        "CLARABEL",
        {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "max_iter": 500},
    ),
    "ecos": ("ECOS", {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10, "max_iters": 500}),
    "scs": ("SCS", {"eps_abs": 1e-9, "eps_rel": 1e-9, "max_iters": 100_000}),
}


def accepts(model, side: str) -> str | None:
    """None where the cvxpy solvers solve ``side`` of ``model`` (a
    :class:`~dualboost.solvers.contract.CvxpyForms`: both sides), else why not.

    Parameters
    ----------
    model : Model
        The candidate model.
    side : str
        The side asked for.

    Returns
    -------
    str or None
        None where cvxpy applies, else why not.
    """
    if implements(model, CvxpyForms):
        return None
    return f"the cvxpy methods build {model.name}'s problems from U in memory, which this model does not hold"


def solve_cvxpy(model, method: str, side: str, tol: float, **options) -> Solution:
    """Solve ``side`` of ``model`` with the cvxpy solver ``method`` and certify the pair.

    Parameters
    ----------
    model : CvxpyForms
        The problem to solve.
    method : str
        The cvxpy solver's name (``"clarabel"``, ...).
    side : str
        ``"primal"`` or ``"dual"``.
    tol : float
        The relative gap and feasibility tolerance of the certificate.
    **options
        cvxpy's solver arguments.

    Returns
    -------
    Solution
        The certified pair.
    """
    solver, defaults = CVXPY_METHODS[method]
    built = model.cvxpy_primal() if side == "primal" else model.cvxpy_dual()
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            # "Solution may be inaccurate": the certificate below judges every solution anyway.
            warnings.simplefilter("ignore", UserWarning)
            built.problem.solve(solver=solver, **{**defaults, **options})
        message = ""
    except cp.error.SolverError as exc:
        message = f"{solver} failed: {exc}"
    elapsed = time.perf_counter() - start
    stats = built.problem.solver_stats
    fields = {
        "iterations": None if stats is None else stats.num_iters,
        "solve_time": elapsed,
        "solver_status": str(built.problem.status),
        "solver_value": float("nan") if built.problem.value is None else float(built.problem.value),
        "message": message,
    }
    d, w = built.readout() if not message else (None, None)
    return certify(model, d, w, tol=tol, method=method, side=side, **fields)
