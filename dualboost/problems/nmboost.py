"""NM-Boost, negative-margin boosting ([AFAHV25]; docs/math.md#nm-boost), as a pair of linear
programs.

The weights maximise a multiple of the summed margins minus the shortfall of each margin below a
threshold tau (colboost takes tau = 1/t for a pool of t hypotheses):

    dual (w-domain):    max_{w in S^t}  lam 1^T U w - sum_n [tau - (U w)_n]_+
    primal (d-domain):  min_{d in [0, 1]^N}  max_q (U^T (d + lam 1))_q - tau 1^T d

(the primal is the Lagrangian dual of the LP form of the w-problem, the multipliers d of its
constraints ``xi_n + (U w)_n >= tau`` lying in [0, 1]). Both are LPs: ``method="highs"`` (the
fastest: the d-domain LP grows by one row per hypothesis and is re-solved from the previous optimal
basis, :class:`NMBoostLP`) and the cvxpy methods solve either side, and d is not unique
(:meth:`NMBoost.d_from_w` returns the best point of w's complementary-slackness face).
"""

from __future__ import annotations

import cvxpy as cp
import highspy
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse
from scipy.optimize import linprog

from dualboost._validation import check_positive
from dualboost.problems.base import ColumnIndependent, CvxpyModel, KKTMultipliers, Model
from dualboost.problems.cgboost import check_example_weights
from dualboost.problems.lpboost import HIGHS_OPTIONS, PrimalLP, quiet_highs
from dualboost.problems.max_edge import DOMAIN_TOL, MaxEdgeWeights, as_array

__all__ = ["NMBoost", "NMBoostLP"]

#: relative tolerances of a tie ``(U w)_n = tau`` tried by :meth:`NMBoost.d_from_w` (w carries noise)
_TIE_TOLERANCES = (1e-9, 1e-7, 1e-5)


class NMBoostLP(PrimalLP):
    """NM-Boost's d-domain LP as a HiGHS model that grows by one row per hypothesis (as LPBoost's
    :class:`~dualboost.problems.lpboost.PrimalLP`, whose basis handling and readout it shares).

    Variables ``(d, gamma)``: minimise ``gamma - tau 1^T d`` s.t. ``0 <= d <= k`` (k the example
    weights, 1 by default) and one row ``u^q . d - gamma <= -lam u^q . k`` per column of U; w is read
    from those rows' duals. Row 0 is a free row (``sum d`` without bounds, never binding: dual 0) so
    that the rows line up with LPBoost's, whose row 0 is ``sum d = 1``.

    Parameters
    ----------
    U : ndarray of shape (N, t)
        The edge matrix of the first hypotheses.
    lam : float
        NM-Boost's lambda (the right sides' ``-lam u^q . k``).
    tau : float
        NM-Boost's tau (the objective's ``-tau 1^T d``).
    weights : ndarray of shape (N,) or None
        The example weights k (the caps of d), None for all 1.
    """

    def __init__(
        self, U: NDArray[np.float64], lam: float, tau: float, weights: NDArray[np.float64] | None = None
    ) -> None:
        n = U.shape[0]
        self.n_samples, self.nu, self.n_columns = n, None, 0
        self.lam, self.tau = float(lam), float(tau)
        self.weights = np.ones(n) if weights is None else weights
        self._highs = quiet_highs()
        for option, value in HIGHS_OPTIONS.items():
            self._highs.setOptionValue(option, value)
        inf = highspy.kHighsInf
        self._highs.addVars(n + 1, np.r_[np.zeros(n), -inf], np.r_[self.weights, inf])
        self._highs.changeColsCost(n + 1, np.arange(n + 1, dtype=np.int32), np.r_[np.full(n, -self.tau), 1.0])
        self._index = np.arange(n + 1, dtype=np.int32)
        self._highs.addRow(-inf, inf, n, self._index[:n], np.ones(n))
        self._iterations = 0
        self.add_columns(U)

    def parameters(self) -> dict[str, float]:
        """The model parameters this LP was built with (compared before a warm start)."""
        return {"lam": self.lam, "tau": self.tau}

    def built_for(self, model: NMBoost) -> bool:
        """Whether this LP has ``model``'s parameters and example weights (see
        :meth:`PrimalLP.built_for <dualboost.problems.lpboost.PrimalLP.built_for>`)."""
        return self.parameters() == model.parameters() and np.array_equal(self.weights, model.weights)

    def add_columns(self, columns: NDArray[np.float64]) -> None:
        """Append the rows ``u^q . d - gamma <= -lam u^q . 1`` of new hypotheses (columns of U, N x k)."""
        n, k = columns.shape
        if k == 0:
            return
        values = np.vstack([columns, -np.ones((1, k))]).T.ravel()
        starts = np.arange(k, dtype=np.int32) * (n + 1)
        indices = np.tile(self._index, k)
        upper = -self.lam * (self.weights @ columns)
        self._highs.addRows(k, np.full(k, -highspy.kHighsInf), upper, values.size, starts, indices, values)
        self.n_columns += k


class NMBoost(ColumnIndependent, MaxEdgeWeights, Model):
    """NM-Boost over the t hypotheses in ``U`` ([AFAHV25]; the module docstring states both sides).

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1] (docs/math.md#notation).
    lam : float, default 1.0
        The weight of the summed margins, > 0.
    tau : float, optional
        The margin below which an example's shortfall counts, > 0 (None: 1/t, as colboost).
    weights : array_like of shape (N,), optional
        A positive weight k_n per example (default all 1) multiplying its margin and its shortfall,
        ``lam k^T U w - sum_n k_n [tau - (U w)_n]_+``: the box of d becomes ``0 <= d <= k`` and the
        shift ``lam k``; integer weights are the problem of the data with repeated examples.
    """

    name = "nmboost"
    #: the dual is piecewise linear: no gradient method; the cvxpy methods solve the LPs
    smooth_dual = False
    d_is_unique = False

    def __init__(
        self, U: ArrayLike, lam: float = 1.0, tau: float | None = None, weights: ArrayLike | None = None
    ) -> None:
        super().__init__(U)
        self.lam = check_positive(lam, "lam")
        self._tau_given = tau is not None
        self.tau = 1.0 / self.n_hypotheses if tau is None else check_positive(tau, "tau")
        #: ``U^T 1``: the shift ``lam U^T 1`` of every edge (once, not a pass over U per evaluation)
        self.weights = check_example_weights(weights, self.n_samples)
        self._column_sums = self.weights @ self.U

    def with_columns(self, U: ArrayLike) -> NMBoost:
        """The same model over the columns ``U`` (:class:`~dualboost.problems.ColumnIndependent`); a
        default tau (not given) is ``1/t`` of the new column count, a given tau is kept."""
        model = super().with_columns(U)
        model._column_sums = self.weights @ model.U
        if not self._tau_given:
            model.tau = 1.0 / model.n_hypotheses
        return model

    def parameters(self) -> dict[str, float]:
        return {"lam": self.lam, "tau": self.tau}

    # --- objectives --------------------------------------------------------------------------
    def _in_box(self, d: NDArray[np.float64]) -> bool:
        return bool(
            d.min() >= -DOMAIN_TOL and np.max(d - self.weights) <= DOMAIN_TOL * max(1.0, self.weights.max())
        )

    def primal_objective(self, d: ArrayLike) -> float:
        d = self._d(d)
        if not self._in_box(d):
            return np.inf
        return self.primal_from_edges(d, self.U.T @ d)

    def primal_from_edges(
        self, d: NDArray[np.float64], edges: NDArray[np.float64], f: float | None = None
    ) -> float:
        """The primal at d from ``edges = U^T d`` (the shifted edges add ``lam 1^T U``; ``f`` is not
        read: this primal has no regulariser's value)."""
        if not self._in_box(d):
            return np.inf
        return float((edges + self.lam * self._column_sums).max() - self.tau * d.sum())

    def dual_objective(self, w: ArrayLike) -> float:
        w = self._w(w)
        if not self.on_simplex(w):
            return -np.inf
        margins = self.U @ w
        return float(self.weights @ (self.lam * margins - np.maximum(self.tau - margins, 0.0)))

    # --- maps and repairs -----------------------------------------------------------------------
    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """The best primal point on w's complementary-slackness face: ``d_n = 1`` where the margin is
        below tau, 0 where above, and on the ties the d that minimises the primal (a small LP, HiGHS
        through scipy); ties are tried at a few relative tolerances (w carries solver noise) and the
        d with the smallest primal value is returned."""
        margins = self.U @ self._w(w)
        best, best_value = None, np.inf
        for tol in _TIE_TOLERANCES:
            slack = tol * max(1.0, self.tau)
            d = np.where(margins < self.tau - slack, self.weights, 0.0)
            ties = np.flatnonzero(np.abs(margins - self.tau) <= slack)
            if ties.size:
                d[ties] = self._best_on_ties(d, ties)
            value = self.primal_objective(d)
            if value < best_value:
                best, best_value = d, value
        return best

    def _best_on_ties(self, d: NDArray[np.float64], ties: NDArray[np.intp]) -> NDArray[np.float64]:
        """``argmin_{x in [0,1]^|T|} max_q (U^T d + U_T^T x + lam U^T 1)_q - tau 1^T x`` as an LP in
        ``(x, gamma)``."""
        base = self.U.T @ d + self.lam * self._column_sums
        k = ties.size
        cost = np.r_[np.full(k, -self.tau), 1.0]
        A = np.hstack([self.U[ties].T, -np.ones((self.n_hypotheses, 1))])
        bounds = [(0.0, float(c)) for c in self.weights[ties]] + [(None, None)]
        result = linprog(cost, A_ub=A, b_ub=-base, bounds=bounds, method="highs")
        if result.status != 0:
            raise RuntimeError(f"the tie LP of NMBoost.d_from_w failed: {result.message}")
        return np.clip(result.x[:k], 0.0, self.weights[ties])

    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        d = self._d(d)
        fixed = np.clip(d, 0.0, self.weights)
        return fixed, float(np.abs(fixed - d).max())

    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """w from d: on the examples strictly inside the box the margin is tau, ``U_A w = tau`` on
        them with w in the simplex on the hypotheses of maximal shifted edge (docs/math.md#kkt-recovery;
        the examples at 0 or 1 give inequalities only and are left out)."""
        from dualboost.solvers.active_set import recover_multipliers

        d = self._d(d)
        edges = self.U.T @ d + self.lam * self._column_sums

        def recover(t: float) -> KKTMultipliers:
            active = np.flatnonzero(edges >= edges.max() - t)
            inside = (d > t) & (d < self.weights - t)
            return recover_multipliers(
                self.U,
                np.full(self.n_samples, self.tau),
                active,
                np.zeros(self.n_samples, dtype=bool),
                n_weights=self.n_hypotheses,
                nonneg=True,
                sum_to_one=True,
                rows=inside,
                with_beta=False,
            )

        return self._tolerance_aware(recover, tol)

    # --- HiGHS (method="highs") -------------------------------------------------------------------
    def primal_lp(self, n_columns: int | None = None) -> NMBoostLP:
        """The d-domain LP on the first ``n_columns`` columns (all by default) as a growing HiGHS
        model (warm starts of ``method="highs"``)."""
        columns = self.U[:, : self.n_hypotheses if n_columns is None else n_columns]
        return NMBoostLP(columns, self.lam, self.tau, self.weights)

    def solve_linear_program(self, side: str) -> tuple[NDArray[np.float64], NDArray[np.float64], int | None]:
        """``(d, w, iterations)`` from HiGHS: the d-domain LP (:class:`NMBoostLP`) for ``"primal"``;
        for ``"dual"`` the w-domain LP ``max lam 1^T U w - 1^T xi`` s.t. ``xi + U w >= tau``,
        ``w in S^t``, ``xi >= 0``, with d the multipliers of the margin rows."""
        if side == "primal":
            return self.primal_lp().solve()
        n, t = self.U.shape
        # variables (w, xi): minimise -lam (U^T 1) . w + 1^T xi s.t. -U w - xi <= -tau, sum w = 1
        cost = np.r_[-self.lam * self._column_sums, self.weights]
        a_ub = sparse.hstack([sparse.csr_matrix(-self.U), -sparse.identity(n, format="csr")]).tocsr()
        a_eq = np.r_[np.ones(t), np.zeros(n)][None, :]
        result = linprog(
            cost,
            A_ub=a_ub,
            b_ub=np.full(n, -self.tau),
            A_eq=a_eq,
            b_eq=[1.0],
            bounds=[(0, None)] * (t + n),
            method="highs",
            options=HIGHS_OPTIONS,
        )
        if result.status != 0:
            raise RuntimeError(f"HiGHS failed on the NM-Boost w-domain LP: {result.message}")
        return -result.ineqlin.marginals, result.x[:t], int(result.nit)

    # --- cvxpy models ---------------------------------------------------------------------------
    def cvxpy_primal(self) -> CvxpyModel:
        d = cp.Variable(self.n_samples, name="d")
        gamma = cp.Variable(name="gamma")
        edges = self.U.T @ d + self.lam * self._column_sums <= gamma  # multipliers: w
        problem = cp.Problem(cp.Minimize(gamma - self.tau * cp.sum(d)), [edges, d >= 0, d <= self.weights])
        return CvxpyModel(problem, lambda: (d.value, edges.dual_value))

    def cvxpy_dual(self) -> CvxpyModel:
        w = cp.Variable(self.n_hypotheses, nonneg=True, name="w")
        xi = cp.Variable(self.n_samples, nonneg=True, name="xi")
        margins = self.U @ w
        shortfall = xi + margins >= self.tau  # multipliers: d
        objective = cp.Maximize(self.weights @ (self.lam * margins - xi))
        problem = cp.Problem(objective, [cp.sum(w) == 1, shortfall])
        return CvxpyModel(problem, lambda: (as_array(shortfall.dual_value), w.value))
