"""Generic numerical conjugates: the independent computation the library's closed forms are tested against.

* :func:`numerical_conjugate` ``f*(theta) = sup_x <x, theta> - f(x)`` (docs/math.md#fenchel-duality,
  [SS] Eq. 1), by a conic solve of the cvxpy form of ``f`` or by ``scipy.optimize`` over a box;
* :func:`numerical_biconjugate` ``f**(x) = sup_theta <x, theta> - f*(theta)`` (``= f(x)`` for closed
  convex f), by L-BFGS-B on ``f.conjugate`` with its exact gradient ``x - conjugate_grad(theta)``
  ([SS] Lemma 18) or by a conic solve of the cvxpy form of ``f*``;
* :func:`solve_cvxpy`: the tight-tolerance solve with fallback shared by the above and by the
  conic infimal convolution of :class:`~dualboost.conjugates.calculus.Sum`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Literal

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import minimize

from dualboost._validation import check_vector
from dualboost.conjugates.base import ConvexFunction, CvxpyForm

__all__ = ["numerical_conjugate", "numerical_biconjugate", "solve_cvxpy"]

Method = Literal["auto", "cvxpy", "scipy"]
Bounds = Sequence[tuple[float | None, float | None]] | None

#: Tolerances well below the 1e-6 the tests ask of numerical agreement.
_SOLVER_OPTIONS: dict[str, dict[str, float]] = {
    "CLARABEL": {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10},
    "ECOS": {"abstol": 1e-10, "reltol": 1e-10, "feastol": 1e-10},
    "SCS": {"eps": 1e-9},
}
_DEFINITE = (cp.OPTIMAL, cp.UNBOUNDED, cp.INFEASIBLE)


def solve_cvxpy(problem: cp.Problem, solvers: Sequence[str] = ("CLARABEL", "ECOS", "SCS")) -> str:
    """Solve ``problem`` with the first of ``solvers`` that returns a definite status; return the status.

    If none does, the first solver that returned anything (e.g. ``optimal_inaccurate``) is re-run so
    that the variables hold its solution.

    Parameters
    ----------
    problem : cvxpy.Problem
        The problem, solved in place.
    solvers : sequence of str, default ("CLARABEL", "ECOS", "SCS")
        The solvers, in the order tried.

    Returns
    -------
    str
        The status.
    """

    def run(name: str) -> bool:
        try:
            with warnings.catch_warnings():  # inaccuracy is read from the status instead
                warnings.simplefilter("ignore", UserWarning)
                problem.solve(solver=name, **_SOLVER_OPTIONS.get(name, {}))
        except (cp.error.SolverError, ValueError):
            return False
        return True

    fallback: str | None = None
    for name in solvers:
        if run(name):
            if problem.status in _DEFINITE:
                return problem.status
            fallback = fallback or name
    if fallback is None or not run(fallback):
        raise RuntimeError(f"no cvxpy solver among {list(solvers)} could solve the problem")
    return problem.status


def _has_form(method: Callable[[cp.Expression], CvxpyForm], n: int) -> bool:
    try:
        method(cp.Variable(n))
    except NotImplementedError:
        return False
    return True


def _sup_linear_minus(form: Callable[[cp.Expression], CvxpyForm], y: NDArray[np.float64]) -> float:
    """``sup_v <y, v> - h(v)`` where ``form(v)`` is the cvxpy form of h."""
    v = cp.Variable(y.size)
    expr, constraints = form(v)
    problem = cp.Problem(cp.Maximize(y @ v - expr), constraints)
    status = solve_cvxpy(problem)
    if status in (cp.UNBOUNDED, cp.UNBOUNDED_INACCURATE):
        return np.inf
    if status in (cp.INFEASIBLE, cp.INFEASIBLE_INACCURATE):
        return -np.inf
    return float(problem.value)


def _lbfgsb(
    objective: Callable[[NDArray[np.float64]], float],
    start: NDArray[np.float64],
    bounds: Bounds,
    jac: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
) -> float:
    """``min objective`` by L-BFGS-B at tight tolerances; returns the minimum value."""
    if not np.isfinite(objective(start)):
        raise ValueError("the starting point must give a finite objective (choose x0 / theta0 in the domain)")
    result = minimize(
        objective,
        start,
        jac=jac,
        method="L-BFGS-B",
        bounds=bounds,
        options={"maxiter": 20000, "maxfun": 200000, "ftol": 1e-15, "gtol": 1e-11},
    )
    return float(result.fun)


def numerical_conjugate(
    f: ConvexFunction,
    theta: ArrayLike,
    x0: ArrayLike | None = None,
    *,
    method: Method = "auto",
    bounds: Bounds = None,
) -> float:
    """``f*(theta) = sup_x <x, theta> - f(x)`` computed numerically from ``f`` alone.

    ``method="cvxpy"`` maximises over ``f.cvxpy_value`` with Clarabel (falling back to ECOS, SCS):
    ``+inf`` when the problem is unbounded. ``method="scipy"`` runs L-BFGS-B (finite-difference
    gradients) on ``f.value`` from ``x0`` (default 0) inside ``bounds``; it suits functions that are
    finite and smooth enough on that box. ``"auto"`` uses cvxpy when ``f`` has a cvxpy form.

    Parameters
    ----------
    f : ConvexFunction
        The function.
    theta : array_like, shape (N,)
        The point of the conjugate.
    x0 : array_like of shape (N,), optional
        The start of the L-BFGS-B search (default 0).
    method : {"auto", "cvxpy", "scipy"}, default "auto"
        As above.
    bounds : sequence of (float, float), optional
        The box of the L-BFGS-B search (``method="scipy"``).

    Returns
    -------
    float
        The value (``+inf`` when unbounded).
    """
    theta = check_vector(theta, "theta", f.n)
    if method not in ("auto", "cvxpy", "scipy"):
        raise ValueError(f"method must be 'auto', 'cvxpy' or 'scipy'; got {method!r}")
    if method == "cvxpy" or (method == "auto" and _has_form(f.cvxpy_value, theta.size)):
        return _sup_linear_minus(f.cvxpy_value, theta)
    start = np.zeros_like(theta) if x0 is None else check_vector(x0, "x0", theta.size)
    return -_lbfgsb(lambda x: f.value(x) - x @ theta, start, bounds)


def numerical_biconjugate(
    f: ConvexFunction,
    x: ArrayLike,
    theta0: ArrayLike | None = None,
    *,
    method: Method = "auto",
    bounds: Bounds = None,
) -> float:
    """``f**(x) = sup_theta <x, theta> - f*(theta)``, which equals ``f(x)`` for closed convex f.

    ``method="scipy"`` runs L-BFGS-B on ``f.conjugate`` with the exact gradient
    ``conjugate_grad(theta) - x`` from ``theta0`` (default 0) inside ``bounds`` (a box inside
    ``dom f*`` where the sup is attained); it tests the Python conjugate itself. ``method="cvxpy"``
    maximises over ``f.cvxpy_conjugate`` (auxiliary variables are minimised jointly, which is
    exact). ``"auto"`` uses scipy when ``f.conjugate_is_differentiable``, cvxpy otherwise.

    Parameters
    ----------
    f : ConvexFunction
        The function.
    x : array_like, shape (N,)
        The point of the biconjugate.
    theta0 : array_like of shape (N,), optional
        The start of the L-BFGS-B search (default 0).
    method : {"auto", "cvxpy", "scipy"}, default "auto"
        As above.
    bounds : sequence of (float, float), optional
        The box of the L-BFGS-B search (``method="scipy"``).

    Returns
    -------
    float
        The value (``+inf`` when unbounded).
    """
    x = check_vector(x, "x", f.n)
    if method not in ("auto", "cvxpy", "scipy"):
        raise ValueError(f"method must be 'auto', 'cvxpy' or 'scipy'; got {method!r}")
    if method == "cvxpy" or (method == "auto" and not f.conjugate_is_differentiable):
        return _sup_linear_minus(f.cvxpy_conjugate, x)
    start = np.zeros_like(x) if theta0 is None else check_vector(theta0, "theta0", x.size)
    return -_lbfgsb(lambda t: f.conjugate(t) - x @ t, start, bounds, jac=lambda t: f.conjugate_grad(t) - x)
