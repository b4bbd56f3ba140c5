"""Certification shared by every method: recompute values and gap from d and w.

A solver's own status and objective value are not trusted (Clarabel reports ``inf`` on the
ERLPBoost primal when d touches 0; ECOS and SCS are inaccurate on exponential cones). The model
moves the returned points onto its feasible sets, measures how far they had to move, and
evaluates ``primal_objective`` and ``dual_objective`` itself; weak duality makes
``primal_value - dual_value`` an upper bound on the error of both values.
"""

from __future__ import annotations

import math

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
        The library's own certificate of this pair (``newton.certified_point``), whose parts are
        taken where they are exactly what this function computes: its ``repair_primal(d)`` where
        ``d is evaluated.d`` (then the exact primal objective of the repaired d, where it computed
        one: ``evaluated.primal`` finite), and ``dual_objective(w)`` where ``w is evaluated.w``,
        unmoved by the repair (``evaluated.dual`` finite); everything else is evaluated here. None:
        everything evaluated here.
    **fields
        Further fields of the Solution (iterations, solver state, ...).

    Returns
    -------
    Solution
        The pair with its certified values, gap and status.
    """
    finite = np.logical_and.reduce  # (the ufunc's reduce: no ndarray.all wrapper)
    if d is None or w is None or not (finite(np.isfinite(d)) and finite(np.isfinite(w))):
        return Solution.without_point("failed", method, side, tol, **fields)
    d = np.asarray(d, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    repaired = _repaired(evaluated, d)
    d_feas, primal_infeas = repaired if repaired is not None else model.repair_primal(d)
    w_feas, dual_infeas = model.repair_dual(w)
    if repaired is not None and math.isfinite(evaluated.primal):
        primal_value = evaluated.primal
    else:
        primal_value = model.primal_objective(d_feas)
    if _own_dual(evaluated, w, dual_infeas):
        dual_value = evaluated.dual
    else:
        dual_value = model.dual_objective(w_feas)
    gap = primal_value - dual_value
    # (the scalars' tests by math's: numpy's dispatch costs ~0.5 us each, at every solve of a boosting run)
    scale = max(1.0, abs(primal_value)) if math.isfinite(primal_value) else 1.0
    ok = (
        math.isfinite(gap)
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


def _repaired(evaluated, d) -> tuple | None:
    """``repair_primal(d)`` as ``evaluated`` (a ``newton.Point`` or None) computed it for this very
    ``d`` (the same array), else None."""
    return evaluated.repair if evaluated is not None and evaluated.d is d else None


def _own_dual(evaluated, w, dual_infeas: float) -> bool:
    """Whether ``evaluated`` (a ``newton.Point`` or None) holds ``dual_objective(w)`` of exactly this
    ``w`` (the same array, not moved by its repair)."""
    return evaluated is not None and evaluated.w is w and dual_infeas == 0.0 and math.isfinite(evaluated.dual)
