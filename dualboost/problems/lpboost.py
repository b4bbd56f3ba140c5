"""LPBoost: the soft-margin LP ([KG] Sec 2.2; docs/math.md#lpboost, models M1/M2;
[SS] Eqs. 2-3, 6).

    primal:  min_{d in S^N, d <= 1/nu}  max_q u^q . d                                        (Eq. 2.3)
    dual:    max_{w in S^t, psi >= 0}  min_n ((U w)_n + psi_n) - (1/nu) sum psi              (Eq. 2.2)
           = max_{w in S^t}  AvgMin_nu(U w)   (the mean of the nu smallest margins, real nu)

``nu = 1`` is the hard margin. The regulariser is the indicator of the capped simplex, whose
conjugate (the top-nu average, docs/math.md#capped-simplex-support) eliminates psi exactly. LP optima are not
unique (docs/math.md#lpboost), so ``d_from_w`` returns *a* primal optimum on the complementary-slackness face
of w, found by a small LP (HiGHS).
"""

from __future__ import annotations

import highspy
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from scipy.optimize import linprog

from dualboost._quiet import silenced_fds
from dualboost._validation import check_nu
from dualboost.conjugates import CappedSimplex
from dualboost.problems.base import ColumnIndependent, KKTMultipliers
from dualboost.problems.max_edge import MaxEdgeModel

__all__ = ["LPBoost", "PrimalLP", "min_max_edge", "max_soft_margin", "HIGHS_OPTIONS"]

#: HiGHS's default feasibility tolerances (1e-7) stop at a vertex up to 1e-7 from the optimum;
#: the certificates here are meant to hold to 1e-9.
HIGHS_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
#: HiGHS's simplex scaling off (its default, kept otherwise, is version-dependent: 1, "choose", in
#: HiGHS 1.7 and 2, equilibration, in 1.16; ``PrimalLP`` reads it before its first change). The
#: d-domain LPs from scratch without presolve (``PrimalLP.solve(presolve=False, scaled=False)``,
#: ``method="auglag"``'s cold starts from the LP limit) took 1108 ms without scaling against
#: 1549 ms with it, summed over 78 LP limits (random and a9a-stump U, N = 500-2000, t = 10-100,
#: nu = 1, N/10, N/2; best of 3 each): median 1.13x, 0.94-3.52x (random N = 1000, t = 10, nu = 1:
#: 3.57 -> 1.19 ms, 79 -> 25 dual simplex iterations). HiGHS's primal simplex took 7926 ms
#: (0.05-3.1x): the dual stays. Whole cold solves through that path (benchmarks/subproblem.py-style
#: ERLPBoost, random, +-1 and a9a-stump U, N = 500-2000, t = 10-64, nu = 1, N/10, N/4 at
#: eps = 1e-3, best of 5): 1818 ms -> 1566 ms over 108, median 1.03x, 0.95-2.13x (random N = 1000,
#: t = 10, nu = 1, eta = 13816: 6.4 -> 4.0 ms)
UNSCALED = 0


def _highs(c, a_ub, a_eq, bounds):
    """``min c.x`` s.t. ``a_ub x <= 0``, ``a_eq x = 1``, bounds, by HiGHS at tight tolerances."""
    zeros = np.zeros(a_ub.shape[0])
    return linprog(
        c, A_ub=a_ub, b_ub=zeros, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs", options=HIGHS_OPTIONS
    )


def min_max_edge(
    U: NDArray[np.float64], lower: NDArray[np.float64], upper: NDArray[np.float64]
) -> tuple[float, NDArray[np.float64], NDArray[np.float64]] | None:
    """``min_{d : sum d = 1, lower <= d <= upper} max_q u^q @ d`` by HiGHS.

    Parameters
    ----------
    U : ndarray, shape (N, t)
        The edge matrix.
    lower, upper : ndarray, shape (N,)
        The box of d.

    Returns
    -------
    tuple of (float, ndarray, ndarray) or None
        ``(value, d, w)`` with ``w`` the LP multipliers of the edge constraints (a point of the
        simplex), or ``None`` when the box and the simplex do not meet.
    """
    n, t = U.shape
    # variables (d, gamma): minimise gamma s.t. U^T d - gamma <= 0, sum d = 1
    c = np.r_[np.zeros(n), 1.0]
    a_ub = np.hstack([U.T, -np.ones((t, 1))])
    a_eq = np.r_[np.ones(n), 0.0][None, :]
    bounds = np.column_stack([np.r_[lower, -np.inf], np.r_[upper, np.inf]])
    res = _highs(c, a_ub, a_eq, bounds)
    if res.status != 0:
        return None
    return float(res.x[-1]), res.x[:n], -res.ineqlin.marginals


def max_soft_margin(
    U: NDArray[np.float64], nu: float
) -> tuple[float, NDArray[np.float64], NDArray[np.float64], float, NDArray[np.float64], int]:
    """The soft-margin LP (Eq. 2.2) by HiGHS: ``max_{w in S^t, rho, psi >= 0} rho - (1/nu) sum psi``
    s.t. ``U w + psi >= rho``.

    Returns ``(value, w, psi, rho, d, iterations)``; ``d`` is the LP multiplier vector of the
    margin constraints, a primal (d-domain) optimum. The constraint matrix is sparse (the psi
    block is an identity), so N may be large.

    Parameters
    ----------
    U : ndarray of shape (N, t)
        The edge matrix.
    nu : float
        The capping parameter.

    Returns
    -------
    value : float
        The LP's optimal value.
    w : ndarray of shape (t,)
        The hypothesis weights.
    psi : ndarray of shape (N,)
        The slacks.
    rho : float
        The soft margin.
    d : ndarray of shape (N,)
        The margin constraints' multipliers (a d-domain optimum).
    iterations : int
        HiGHS's simplex iterations.
    """
    n, t = U.shape
    # variables (w, psi, rho): minimise -rho + (1/nu) sum psi s.t. -U w - psi + rho <= 0, sum w = 1
    c = np.r_[np.zeros(t), np.full(n, 1.0 / nu), -1.0]
    a_ub = sparse.hstack(
        [sparse.csr_matrix(-U), -sparse.identity(n, format="csr"), sparse.csr_matrix(np.ones((n, 1)))]
    ).tocsr()
    a_eq = np.r_[np.ones(t), np.zeros(n), 0.0][None, :]
    bounds = [(0, None)] * (t + n) + [(None, None)]
    res = _highs(c, a_ub, a_eq, bounds)
    if res.status != 0:
        raise RuntimeError(f"HiGHS failed on the soft-margin LP: {res.message}")
    w, psi, rho = res.x[:t], res.x[t : t + n], float(res.x[-1])
    return -float(res.fun), w, psi, rho, -res.ineqlin.marginals, int(res.nit)


def quiet_highs() -> highspy.Highs:
    """A ``highspy.Highs`` object that prints nothing: built with stdout and stderr silenced
    (highspy 1.16 prints its banner in the constructor, before any option can be set), then
    ``output_flag`` off for everything it does afterwards."""
    with silenced_fds():
        highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    return highs


class PrimalLP:
    """LPBoost's d-domain LP (Eq. 2.3) as a HiGHS model that grows by one row per hypothesis.

    Variables ``(d, gamma)``: minimise gamma s.t. ``sum d = 1``, ``0 <= d <= 1/nu`` and one row
    ``u^q . d - gamma <= 0`` per column of U; w is read from the row duals (``w_q = -dual_q``).
    :meth:`add_columns` appends rows and the next :meth:`solve` starts HiGHS's dual simplex from
    the previous optimal basis, which stays dual feasible: a boosting driver's re-solve after one
    new hypothesis then takes a few pivots instead of a solve from scratch.

    Parameters
    ----------
    U : ndarray of shape (N, t)
        The edge matrix of the first hypotheses.
    nu : float
        The capping parameter (``d <= 1/nu``).
    """

    #: HiGHS's default ``simplex_scale_strategy``, read by the first :meth:`solve` (None: not yet)
    _scaling: int | None = None

    def __init__(self, U: NDArray[np.float64], nu: float) -> None:
        n = U.shape[0]
        self.n_samples, self.nu, self.n_columns = n, float(nu), 0
        self._highs = quiet_highs()
        for option, value in HIGHS_OPTIONS.items():
            self._highs.setOptionValue(option, value)
        inf = highspy.kHighsInf
        self._highs.addVars(n + 1, np.r_[np.zeros(n), -inf], np.r_[np.full(n, 1.0 / nu), inf])
        self._highs.changeColsCost(1, np.array([n], dtype=np.int32), np.array([1.0]))
        self._index = np.arange(n + 1, dtype=np.int32)
        self._highs.addRow(1.0, 1.0, n, self._index[:n], np.ones(n))
        self._iterations = 0
        self.add_columns(U)

    def built_for(self, model) -> bool:
        """Whether this LP has ``model``'s parameters (LPBoost's nu), so that a warm start may
        extend it by ``model``'s new columns (:meth:`~dualboost.solvers.highs.HighsState.fits`)."""
        return self.nu == model.nu

    def add_columns(self, columns: NDArray[np.float64]) -> None:
        """Append the edge rows of new hypotheses (columns of U, N x k)."""
        n, k = columns.shape
        if k == 0:
            return
        values = np.vstack([columns, -np.ones((1, k))]).T.ravel()  # row q: (u^q, -1)
        starts = np.arange(k, dtype=np.int32) * (n + 1)
        indices = np.tile(self._index, k)
        lower, upper = np.full(k, -highspy.kHighsInf), np.zeros(k)
        self._highs.addRows(k, lower, upper, values.size, starts, indices, values)
        self.n_columns += k

    def basis(self) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """The current simplex basis as ``(column statuses, row statuses)`` (HiGHS's codes)."""
        basis = self._highs.getBasis()
        return (
            np.fromiter((int(b) for b in basis.col_status), np.int8, self.n_samples + 1),
            np.fromiter((int(b) for b in basis.row_status), np.int8, self.n_columns + 1),
        )

    def set_basis(self, columns: NDArray[np.integer], rows: NDArray[np.integer]) -> bool:
        """Start the next solve from a saved :meth:`basis`; False (nothing changed) if its sizes do
        not fit this LP or HiGHS rejects it."""
        if len(columns) != self.n_samples + 1 or len(rows) != self.n_columns + 1:
            return False
        basis = highspy.HighsBasis()
        basis.col_status = [highspy.HighsBasisStatus(int(b)) for b in columns]
        basis.row_status = [highspy.HighsBasisStatus(int(b)) for b in rows]
        basis.valid = True
        return self._highs.setBasis(basis) == highspy.HighsStatus.kOk

    def solve(
        self, presolve: bool = True, scaled: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], int]:
        """``(d, w, simplex iterations of this solve)``; RuntimeError unless HiGHS reports optimal.
        ``presolve=False``: without HiGHS's presolve (it does not run from a basis anyway), which
        costs more than the simplex on the small d-domain LPs of ``method="auglag"``'s cold starts;
        ``scaled=False``: without the simplex's scaling of the matrix (:data:`UNSCALED`)."""
        self._highs.setOptionValue("presolve", "choose" if presolve else "off")
        # HiGHS's default, read before the first change (here, not in __init__: NMBoostLP builds its own)
        if self._scaling is None:
            self._scaling = self._highs.getOptionValue("simplex_scale_strategy")[1]
        self._highs.setOptionValue("simplex_scale_strategy", self._scaling if scaled else UNSCALED)
        self._highs.run()
        if self._highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            raise RuntimeError(f"HiGHS failed on the capped min-max-edge LP: {self._highs.getModelStatus()}")
        solution = self._highs.getSolution()
        total = int(self._highs.getInfo().simplex_iteration_count)
        iterations, self._iterations = max(0, total - self._iterations), total
        d = np.asarray(solution.col_value)[: self.n_samples]
        w = -np.asarray(solution.row_dual)[1:]
        return d, w, iterations


class LPBoost(ColumnIndependent, MaxEdgeModel):
    """The capped min-max-edge LP of LPBoost ([KG] Eqs. 2.1-2.3; docs/math.md#lpboost).

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu`` (1 is the hard margin).
    """

    name = "lpboost"

    def __init__(self, U: ArrayLike, nu: float = 1.0):
        super().__init__(U)
        self.nu = check_nu(nu, self.n_samples)
        self.regularizer = CappedSimplex(self.nu)

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu}

    #: the dual is piecewise linear: no gradient method; ``method="highs"`` solves the LP
    smooth_dual = False

    @property
    def d_is_unique(self) -> bool:
        return False

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """A primal optimum consistent with w: the best d on w's complementary-slackness face.

        With margins m = U w and threshold tau = the ceil(nu)-th smallest margin, KKT forces
        ``d_n = 1/nu`` where ``m_n < tau`` and ``d_n = 0`` where ``m_n > tau`` ([KG] Eq. 2.2 slacks);
        the LP over the remaining coordinates picks an optimal d. Margins within a tie tolerance
        of tau count as free; since w carries solver noise, the tolerances 1e-9, 1e-7 and 1e-5
        (relative) are tried and the d with the smallest max edge is returned.
        """
        m = self.U @ self._w(w)
        cap = 1.0 / self.nu
        k = min(int(np.ceil(self.nu - 1e-12)), self.n_samples) - 1
        tau = np.partition(m, k)[k]
        best = self.regularizer.conjugate_grad(-m)  # the greedy maximiser: always on the face
        best_value = self.primal_objective(best)
        for tie_tol in (1e-9, 1e-7, 1e-5):
            scale = tie_tol * max(1.0, np.abs(m).max())
            lower = np.where(m < tau - scale, cap, 0.0)
            upper = np.where(m > tau + scale, 0.0, cap)
            found = min_max_edge(self.U, lower, upper)
            if found is not None and found[0] < best_value:
                best, best_value = np.clip(found[1], 0.0, cap), found[0]
        return best

    def primal_lp(self, n_columns: int | None = None) -> PrimalLP:
        """The d-domain LP (Eq. 2.3) on the first ``n_columns`` columns (all by default) as a
        growing HiGHS model (warm starts of ``method="highs"``)."""
        return PrimalLP(self.U[:, : self.n_hypotheses if n_columns is None else n_columns], self.nu)

    def solve_linear_program(self, side: str) -> tuple[NDArray[np.float64], NDArray[np.float64], int | None]:
        """Solve one side's LP with HiGHS; return ``(d, w, iterations)``, the other side read from the
        LP multipliers (solver protocol of ``method="highs"``)."""
        cap = 1.0 / self.nu
        if side == "primal":
            found = min_max_edge(self.U, np.zeros(self.n_samples), np.full(self.n_samples, cap))
            if found is None:
                raise RuntimeError("HiGHS failed on the capped min-max-edge LP")
            return found[1], found[2], None
        _, w, _, _, d, iterations = max_soft_margin(self.U, self.nu)
        return d, w, iterations

    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """w from d: the best soft margin over the hypotheses active at d (``u^q . d >= max - tol``;
        ``tol=None``: 1e-7, the restricted LP needs no tuning: extra columns only add freedom).

        By complementary slackness every optimal w lives on that active set; the restricted LP
        ``max_{w, rho, psi >= 0} rho - (1/nu) sum psi s.t. U_A w + psi >= rho`` (Eq. 2.2) gives it,
        with psi and rho (reported as beta = -rho, the multiplier of sum d = 1).
        """
        d = self._d(d)
        edges = self.U.T @ d
        active = np.flatnonzero(edges >= edges.max() - (1e-7 if tol is None else tol))
        value, w_active, psi, rho, _, _ = max_soft_margin(self.U[:, active], self.nu)
        w = np.zeros(self.n_hypotheses)
        w[active] = w_active
        residual = float(abs(value - self.primal_objective(np.clip(d, 0, None) / d.sum())))
        return KKTMultipliers(
            w=w,
            psi=psi,
            beta=-float(rho),
            residual=residual,
            active_w=active,
            active_psi=np.flatnonzero(psi > 0),
        )
