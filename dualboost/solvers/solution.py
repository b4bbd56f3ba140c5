"""The result object every solver returns (docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from dualboost.solvers.state import SolverState

__all__ = ["Solution", "STATUSES"]

#: ``optimal``: certified gap and infeasibilities within tolerance; ``inaccurate``: a pair was
#: returned but its certificate exceeds the tolerance; ``infeasible``: the model has no feasible
#: d (certified independently); ``failed``: the solver returned no usable point.
STATUSES = ("optimal", "inaccurate", "infeasible", "failed")


@dataclass
class Solution:
    """A primal-dual pair certified by the model itself.

    ``primal_value``, ``dual_value`` and ``gap`` are recomputed by the model from ``d`` and ``w``
    (``primal_objective(d)``, ``dual_objective(w)``), never copied from the solver, and ``status``
    is ``"optimal"`` only when ``gap <= tol * max(1, |primal_value|)`` and both infeasibilities are
    ``<= tol``. ``d`` and ``w`` are the certified points: the solver's output moved onto the
    model's feasible sets (the move is ``primal_infeasibility`` / ``dual_infeasibility``).
    """

    d: NDArray[np.float64] | None
    w: NDArray[np.float64] | None
    primal_value: float
    dual_value: float
    gap: float
    status: str
    method: str
    side: str
    iterations: int | None = None
    solve_time: float = 0.0
    tol: float = 1e-6
    primal_infeasibility: float = np.nan
    dual_infeasibility: float = np.nan
    solver_status: str = ""
    solver_value: float = np.nan
    message: str = ""
    extra: dict = field(default_factory=dict)
    #: what the method keeps for a warm start from this solution (:mod:`dualboost.solvers.state`:
    #: auglag's Newton curvature, HiGHS's model and basis); not compared, written by checkpoints
    solver_state: SolverState | None = field(default=None, compare=False, repr=False)

    @classmethod
    def without_point(cls, status: str, method: str, side: str, tol: float, **fields) -> Solution:
        """A result that carries no primal-dual pair (``failed`` or ``infeasible``)."""
        values = {"primal_value": np.nan, "dual_value": np.nan, "gap": np.inf}
        if status == "infeasible":  # the primal minimum over an empty set is +inf
            values = {"primal_value": np.inf, "dual_value": np.inf, "gap": np.nan}
        return cls(d=None, w=None, status=status, method=method, side=side, tol=tol, **values, **fields)

    @property
    def relative_gap(self) -> float:
        """``gap / max(1, |primal_value|)``, the quantity compared with ``tol``."""
        if not np.isfinite(self.gap):
            return np.inf
        return self.gap / max(1.0, abs(self.primal_value))

    @property
    def optimal(self) -> bool:
        return self.status == "optimal"

    def __repr__(self) -> str:
        return (
            f"Solution(status={self.status!r}, method={self.method!r}, side={self.side!r}, "
            f"primal_value={self.primal_value:.10g}, dual_value={self.dual_value:.10g}, "
            f"gap={self.gap:.3g}, iterations={self.iterations}, solve_time={self.solve_time:.3g}s)"
        )
