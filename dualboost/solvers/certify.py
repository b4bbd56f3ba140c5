"""Certification shared by every method: recompute values and gap from d and w.

A solver's own status and objective value are not trusted (Clarabel reports ``inf`` on the
ERLPBoost primal when d touches 0; ECOS and SCS are inaccurate on exponential cones). The model
moves the returned points onto its feasible sets, measures how far they had to move, and
evaluates ``primal_objective`` and ``dual_objective`` itself; weak duality makes
``primal_value - dual_value`` an upper bound on the error of both values.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dualboost.solvers.solution import Solution

__all__ = ["certify"]


def certify(
    model,
    d: NDArray[np.float64] | None,
    w: NDArray[np.float64] | None,
    *,
    tol: float,
    method: str,
    side: str,
    evaluated=None,
    **fields,
) -> Solution:
    """Build a :class:`Solution` for the pair ``(d, w)`` of ``model`` with certified values.

    Parameters
    ----------
    model : Model
        The model the pair belongs to.
    d : ndarray or None
        The distribution (primal side), None where the method gave none.
    w : ndarray or None
        The hypothesis weights (dual side), None where the method gave none.
    tol : float
        The relative gap and feasibility tolerance of the certificate.
    method : str
        The method that produced the pair.
    side : str
        The side it solved.
    evaluated : Point, optional
        The library's own certificate of this very pair (``newton.certified_point``: ``d is
        evaluated.d``, ``w is evaluated.w``), whose objectives ``(evaluated.primal,
        evaluated.value)`` are taken where it computed them exactly as ``primal_objective(d)`` and
        ``dual_objective(w)`` would (``evaluated.primal`` finite) and neither point needed a repair;
        otherwise both objectives are evaluated here. None: evaluated here.
    **fields
        Further fields of the Solution (iterations, solver state, ...).

    Returns
    -------
    Solution
        The pair with its certified values, gap and status.
    """
    if d is None or w is None or not (np.all(np.isfinite(d)) and np.all(np.isfinite(w))):
        return Solution.without_point("failed", method, side, tol, **fields)
    d = np.asarray(d, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    if _unmoved(evaluated, d):  # its certificate repaired this very d, which did not move
        d_feas, primal_infeas = d, 0.0
    else:
        d_feas, primal_infeas = model.repair_primal(d)
    w_feas, dual_infeas = model.repair_dual(w)
    if _own_objectives(evaluated, d, w, primal_infeas, dual_infeas):
        primal_value, dual_value = evaluated.primal, evaluated.value
    else:
        primal_value = model.primal_objective(d_feas)
        dual_value = model.dual_objective(w_feas)
    gap = primal_value - dual_value
    scale = max(1.0, abs(primal_value)) if np.isfinite(primal_value) else 1.0
    ok = (
        np.isfinite(gap)
        and -tol * scale <= gap <= tol * scale
        and primal_infeas <= tol
        and dual_infeas <= tol
    )
    return Solution(
        d=d_feas,
        w=w_feas,
        primal_value=float(primal_value),
        dual_value=float(dual_value),
        gap=float(gap),
        status="optimal" if ok else "inaccurate",
        method=method,
        side=side,
        tol=tol,
        primal_infeasibility=float(primal_infeas),
        dual_infeasibility=float(dual_infeas),
        **fields,
    )


def _unmoved(evaluated, d) -> bool:
    """Whether ``evaluated`` (a ``newton.Point`` or None) certified exactly this ``d`` with its primal
    objective computed from it: ``certified_point`` does so only where ``repair_primal`` left d where
    it was (moved by 0), so its repair here would be d itself, by 0."""
    return evaluated is not None and evaluated.d is d and bool(np.isfinite(evaluated.primal))


def _own_objectives(evaluated, d, w, primal_infeas: float, dual_infeas: float) -> bool:
    """Whether ``evaluated`` (a ``newton.Point`` or None) holds the primal and dual objectives of
    exactly ``(d, w)``: the same arrays, neither moved by its repair, the primal computed."""
    return (
        evaluated is not None
        and evaluated.d is d
        and evaluated.w is w
        and primal_infeas == 0.0
        and dual_infeas == 0.0
        and bool(np.isfinite(evaluated.primal))
    )
