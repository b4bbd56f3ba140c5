"""``method="highs"``: the linear programs (LPBoost, NM-Boost) and the convex QPs (CGBoost) through HiGHS.

Either side is solved as an LP and the other side is read from the LP multipliers; the pair is then
certified like every method's. The d-domain side (``side="primal"``) is a
:class:`~dualboost.problems.lpboost.PrimalLP`, a HiGHS model kept in the returned Solution with its
optimal basis (:class:`HighsState`, ``solution.solver_state``): ``solve(warm_start=previous)`` on a
model whose U extends the previous one by new columns appends their rows to that HiGHS model and
re-solves from the previous optimal basis (dual simplex), the driver's situation after each oracle
call. The w-domain side goes through ``scipy.optimize.linprog`` from scratch.

A model is solved here when it is a :class:`~dualboost.solvers.contract.LinearProgram`, or offers
what this method uses of one without LPBoost's capping (:class:`HighsProgram`: NM-Boost, whose
growing LP compares its parameters, not nu), or is a :class:`QuadraticProgram` (CGBoost): a convex
QP with a diagonal Hessian, which HiGHS's QP solver (an active-set method) solves on either side from
scratch, :func:`solve_diagonal_qp`. Either way the pair is certified by the model, never by HiGHS's
status. (The two Protocols are declared here until the solver contract,
:mod:`dualboost.solvers.contract`, takes them.)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import highspy
import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from dualboost._quiet import silenced_fds
from dualboost.solvers.certify import certify
from dualboost.solvers.contract import Certifiable, LinearProgram, implements
from dualboost.solvers.solution import Solution
from dualboost.solvers.state import SolverState

__all__ = [
    "solve_highs",
    "solve_primal_lp",
    "solve_diagonal_qp",
    "HighsState",
    "HighsProgram",
    "QuadraticProgram",
    "accepts",
    "QP_OPTIONS",
]

#: HiGHS's QP solver: first at its default tolerances, then at tight ones (1e-10); each attempt is
#: capped at ``QP_ITERATIONS_PER_ROW`` iterations per row and column (at 1e-10 the active-set method
#: cycled on a 60 x 66 CGBoost instance that the defaults solve in one iteration)
QP_OPTIONS = ({}, {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
QP_ITERATIONS_PER_ROW = 20


@runtime_checkable
class HighsProgram(Certifiable, Protocol):
    """A linear program that HiGHS solves on either side, with a d-domain LP that grows by rows
    (:class:`~dualboost.solvers.contract.LinearProgram` without LPBoost's ``nu``: the growing LP's
    ``parameters()`` are compared with the model's instead)."""

    U: Any

    def solve_linear_program(self, side: str) -> tuple[Any, Any, int | None]:
        """``(d, w, iterations)`` from HiGHS on ``side``."""

    def primal_lp(self, n_columns: int | None = None) -> Any:
        """The d-domain LP as a HiGHS model that grows by rows, for warm starts."""


@runtime_checkable
class QuadraticProgram(Certifiable, Protocol):
    """A convex QP that HiGHS solves from scratch (no basis is kept), on the sides listed in the
    model's ``highs_sides`` (``Model``'s default: both)."""

    highs_sides: tuple[str, ...]

    def solve_quadratic_program(self, side: str) -> tuple[Any, Any, int | None]:
        """``(d, w, iterations)`` from HiGHS's QP solver on ``side``; RuntimeError unless optimal."""


def solve_diagonal_qp(
    cost: NDArray[np.float64],
    lower: NDArray[np.float64],
    upper: NDArray[np.float64],
    rows: sparse.spmatrix,
    row_lower: NDArray[np.float64],
    row_upper: NDArray[np.float64],
    hessian: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
    """``min cost . x + (1/2) sum_j hessian_j x_j^2`` s.t. ``lower <= x <= upper`` and
    ``row_lower <= rows x <= row_upper`` by HiGHS (``hessian >= 0``: a convex QP; an LP where it is
    0). Returns ``(x, row duals, iterations)`` with HiGHS's sign convention (a row's dual is the
    derivative of the optimal value in its bound: <= 0 for a binding upper bound of a minimisation);
    Tried with the options of :data:`QP_OPTIONS` in turn, until HiGHS reports an optimum; where it
    never does, its last point is returned (its QP solver "claims optimality" with a primal
    infeasibility of 5e-6 on a 240 x 77 CGBoost instance, calls that a solve error and flags the
    point invalid; the model certified that point's gap at 4.8e-6): the model's certificate, never
    HiGHS's status, decides whether it is optimal. RuntimeError when HiGHS has no point.

    Parameters
    ----------
    cost : ndarray
        The linear cost of x.
    lower, upper : ndarray
        The bounds of x.
    rows : sparse matrix
        The constraint rows.
    row_lower, row_upper : ndarray
        The bounds of ``rows x``.
    hessian : ndarray
        The diagonal of the (nonnegative) Hessian.

    Returns
    -------
    x : ndarray
        The point.
    duals : ndarray
        The row duals, in HiGHS's sign convention.
    iterations : int
        HiGHS's iteration count.
    """
    model = _qp_model(cost, lower, upper, rows, row_lower, row_upper, hessian)
    m, n = rows.shape
    for options in QP_OPTIONS:
        with silenced_fds():
            highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("qp_iteration_limit", QP_ITERATIONS_PER_ROW * (m + n) + 1000)
        for option, value in options.items():
            highs.setOptionValue(option, value)
        highs.passModel(model)
        with silenced_fds():  # HiGHS 1.7's QP solver prints "dimension mismatch" despite output_flag
            highs.run()
        if highs.getModelStatus() == highspy.HighsModelStatus.kOptimal:
            break
    solution, info = highs.getSolution(), highs.getInfo()
    if len(solution.col_value) != n or len(solution.row_dual) != m:
        raise RuntimeError(f"HiGHS failed on the QP: {highs.getModelStatus()}")
    iterations = int(info.qp_iteration_count) + int(info.simplex_iteration_count)
    return np.asarray(solution.col_value), np.asarray(solution.row_dual), iterations


def _qp_model(cost, lower, upper, rows, row_lower, row_upper, hessian) -> highspy.HighsModel:
    """The HiGHS model of :func:`solve_diagonal_qp`'s QP (infinite bounds as HiGHS's infinity)."""
    inf = highspy.kHighsInf
    m, n = rows.shape
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = np.asarray(cost, dtype=np.float64)
    lp.col_lower_ = np.where(np.isfinite(lower), lower, -inf)
    lp.col_upper_ = np.where(np.isfinite(upper), upper, inf)
    lp.row_lower_ = np.where(np.isfinite(row_lower), row_lower, -inf)
    lp.row_upper_ = np.where(np.isfinite(row_upper), row_upper, inf)
    matrix = sparse.csc_matrix(rows)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = matrix.indptr.astype(np.int32)
    lp.a_matrix_.index_ = matrix.indices.astype(np.int32)
    lp.a_matrix_.value_ = matrix.data.astype(np.float64)
    lp.a_matrix_.num_col_, lp.a_matrix_.num_row_ = n, m
    model = highspy.HighsModel()
    model.lp_ = lp
    diagonal = np.flatnonzero(hessian)
    if diagonal.size:
        hess = highspy.HighsHessian()
        hess.dim_ = n
        hess.format_ = highspy.HessianFormat.kTriangular
        counts = np.zeros(n, dtype=np.int32)
        counts[diagonal] = 1
        hess.start_ = np.r_[0, np.cumsum(counts)].astype(np.int32)
        hess.index_ = diagonal.astype(np.int32)
        hess.value_ = np.asarray(hessian, dtype=np.float64)[diagonal]
        model.hessian_ = hess
    return model


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
        """Whether ``model``'s U extends the U of this state (the same parameters, as the growing LP's
        ``built_for(model)`` says: nu for LPBoost's LP, the parameters and example weights for
        NM-Boost's; the same examples, these columns first)."""
        t_old = self.U.shape[1]
        return (
            self.lp.built_for(model)
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
    model: LinearProgram, state: HighsState | None = None, presolve: bool = True, scaled: bool = True
) -> tuple[NDArray[np.float64], NDArray[np.float64], int, HighsState]:
    """``(d, w, simplex iterations, state)``: the d-domain LP of ``model`` by HiGHS, from the model
    and basis of ``state`` (a solve of the first ``state.n_columns`` columns) extended by the new
    columns where that applies (:func:`_extended_lp`), else built afresh; ``state``: the new one. Used by
    ``method="highs"`` and by ``method="auglag"``'s start from the LP limit at large eta;
    ``presolve``, ``scaled``: see ``PrimalLP.solve``. RuntimeError unless HiGHS reports the LP optimal.

    Parameters
    ----------
    model : LinearProgram
        The linear program.
    state : HighsState or None
        The state of a solve of the model's first columns, None to build afresh.
    presolve : bool
        Use HiGHS's presolve.
    scaled : bool
        Scale the LP (see ``PrimalLP.solve``).

    Returns
    -------
    d : ndarray
        The distribution.
    w : ndarray
        The hypothesis weights.
    iterations : int
        The simplex iterations.
    state : HighsState
        The state of this solve, for the next.
    """
    lp = _extended_lp(model, state) or model.primal_lp()
    d, w, iterations = lp.solve(presolve, scaled)
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
    :class:`~dualboost.solvers.contract.LinearProgram`, a :class:`HighsProgram` or a
    :class:`QuadraticProgram`: both sides), else why not.

    Parameters
    ----------
    model : Model
        The candidate model.
    side : str
        Either side: HiGHS solves both.

    Returns
    -------
    str or None
        None where HiGHS applies, else why not.
    """
    if implements(model, QuadraticProgram):
        sides = model.highs_sides
        if side in sides:
            return None
        return f"method='highs' solves the {' and '.join(sides)} side of {model.name}: use side={sides[0]!r}"
    if implements(model, LinearProgram) or implements(model, HighsProgram):
        return None
    return (
        f"method='highs' solves linear programs and convex QPs with a diagonal Hessian; {model.name} is "
        "not one in dualboost: use 'auglag' or a cvxpy method"
    )


def solve_highs(model: LinearProgram, side: str, tol: float, warm_start: Solution | None = None) -> Solution:
    """Solve ``side`` of a linear-programming model with HiGHS and certify the pair (the caller
    checked :func:`accepts`).

    Parameters
    ----------
    model : LinearProgram
        The linear-programming model.
    side : str
        ``"primal"`` or ``"dual"``.
    tol : float
        The relative gap and feasibility tolerance of the certificate.
    warm_start : Solution or None
        A previous solution whose HiGHS model and basis start the solve (primal side).

    Returns
    -------
    Solution
        The certified pair.
    """
    start = time.perf_counter()
    state = None
    if implements(model, QuadraticProgram):
        d, w, iterations = model.solve_quadratic_program(side)
    elif side == "primal":
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
