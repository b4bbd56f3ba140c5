"""``method="highs"``: LPBoost's LP through HiGHS.

Either side is solved as an LP and the other side is read from the LP multipliers; the pair is then
certified like every method's. The d-domain side (``side="primal"``) is a
:class:`~dualboost.problems.lpboost.PrimalLP`, a HiGHS model kept in the returned Solution with its
optimal basis (:class:`HighsState`, ``solution.solver_state``): ``solve(warm_start=previous)`` on a
model whose U extends the previous one by new columns appends their rows to that HiGHS model and
re-solves from the previous optimal basis (dual simplex), the driver's situation after each oracle
call. The w-domain side goes through ``scipy.optimize.linprog`` from scratch.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dualboost.solvers.certify import certify
from dualboost.solvers.contract import LinearProgram, implements
from dualboost.solvers.solution import Solution
from dualboost.solvers.state import SolverState

__all__ = ["solve_highs", "solve_primal_lp", "HighsState", "accepts"]


@dataclass
class HighsState(SolverState):
    """HiGHS's warm-start state for the d-domain LP: the live HiGHS model ``lp`` (a
    :class:`~dualboost.problems.lpboost.PrimalLP`, None in a state read back from a checkpoint), the
    U it was built on, and its optimal basis (the statuses of its columns and rows, what checkpoints
    write: a resumed run re-solves from it and takes the same path as an uninterrupted one; LP optima
    are not unique).

    A warm start extends the live model in place (appending rows costs less than building it
    anew); ``n_columns`` records its size when this state was made, so that a second warm start
    from the same Solution, finding the model grown, rebuilds it from the basis instead."""

    kind = "highs"
    lp: object | None
    U: NDArray[np.float64] | None
    basis_columns: NDArray[np.int8]
    basis_rows: NDArray[np.int8]
    n_columns: int

    @property
    def live(self) -> bool:
        """Whether the live HiGHS model is here and as this state left it (not grown since)."""
        return self.lp is not None and self.lp.n_columns == self.n_columns

    def fits(self, model) -> bool:
        """Whether ``model``'s U extends the U of this state (the same nu, the same examples, these
        columns first)."""
        t_old = self.U.shape[1]
        return (
            self.lp.nu == model.nu
            and self.U.shape[0] == model.n_samples
            and t_old <= model.n_hypotheses
            and np.array_equal(self.U, model.U[:, :t_old])
        )

    def to_dict(self) -> dict:
        return {"basis_columns": self.basis_columns, "basis_rows": self.basis_rows}

    @classmethod
    def from_dict(cls, data: dict) -> HighsState:
        columns = np.asarray(data["basis_columns"], dtype=np.int8)
        rows = np.asarray(data["basis_rows"], dtype=np.int8)
        return cls(None, None, columns, rows, rows.size - 1)


def solve_primal_lp(
    model: LinearProgram, state: HighsState | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64], int, HighsState]:
    """``(d, w, simplex iterations, state)``: the d-domain LP of ``model`` by HiGHS, from the model
    and basis of ``state`` (a solve of the first ``state.n_columns`` columns) extended by the new
    columns where that applies (:func:`_extended_lp`), else built afresh; ``state``: the new one. Used by
    ``method="highs"`` and by ``method="auglag"``'s start from the LP limit at large eta.
    RuntimeError unless HiGHS reports the LP optimal."""
    lp = _extended_lp(model, state) or model.primal_lp()
    d, w, iterations = lp.solve()
    columns, rows = lp.basis()
    return d, w, iterations, HighsState(lp, model.U, columns, rows, lp.n_columns)


def _extended_lp(model, state: HighsState | None):
    """The HiGHS model of ``state`` extended by ``model``'s new columns: the live one
    (:attr:`HighsState.live`) if ``model`` extends its U, None if it does not (the LP is then built
    afresh); rebuilt from the saved basis where the state was read back from a checkpoint or its
    model has grown since (a second warm start from one Solution)."""
    if not isinstance(state, HighsState):
        return None
    if state.live:
        if not state.fits(model):
            return None
        state.lp.add_columns(model.U[:, state.n_columns :])
        return state.lp
    return _rebuilt_lp(model, state)


def _rebuilt_lp(model, state: HighsState):
    """The LP of a warm start rebuilt from the basis in ``state`` (the first ``state.n_columns``
    columns of U are taken to be the ones it was solved with), with the new columns appended: the
    re-solve then follows the path an uninterrupted run takes."""
    t_old = state.n_columns
    if not 0 < t_old <= model.n_hypotheses or state.basis_rows.size != t_old + 1:
        return None
    lp = model.primal_lp(t_old)
    if not lp.set_basis(state.basis_columns, state.basis_rows):
        return None
    lp.add_columns(model.U[:, t_old:])
    return lp


def accepts(model, side: str) -> str | None:
    """None where HiGHS solves ``side`` of ``model`` (a
    :class:`~dualboost.solvers.contract.LinearProgram`: both sides), else why not."""
    if implements(model, LinearProgram):
        return None
    return f"method='highs' solves linear programs; {model.name} is not one: use 'auglag' or a cvxpy method"


def solve_highs(model: LinearProgram, side: str, tol: float, warm_start: Solution | None = None) -> Solution:
    """Solve ``side`` of a linear-programming model with HiGHS and certify the pair (the caller
    checked :func:`accepts`)."""
    start = time.perf_counter()
    state = None
    if side == "primal":
        previous = None if warm_start is None or warm_start.w is None else warm_start.solver_state
        d, w, iterations, state = solve_primal_lp(model, previous)
    else:
        d, w, iterations = model.solve_linear_program(side)
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
    solution.solver_state = state
    return solution
