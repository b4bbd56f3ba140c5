"""The base of every problem family (docs/architecture.md).

A model declares its primal (d-domain) and dual (w-domain) side by side: the public contract
(``primal_problem``, ``dual_problem``, ``primal_objective``, ``dual_objective``, ``d_from_w``,
``w_from_d``, ``solve``). What each solver method needs of it is written down once, as the
Protocols of :mod:`dualboost.solvers.contract` (docs/architecture.md#the-solver-contract):
:class:`Model` implements ``Certifiable`` and ``CvxpyForms`` for every family, and ``SmoothDual``
for ``D(w) = -f*(-U w)`` where the regulariser is a ``SmoothConjugate`` (``smooth_dual``).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_edge_matrix, check_vector
from dualboost.conjugates.traits import LowRankHessian, SmoothConjugate
from dualboost.problems.kernels import (
    ColumnProducts,
    StumpOperator,
    cross_gram_parts,
    gram_parts,
    low_rank_hessian,
    low_rank_product,
    over_all_rows,
    single_extension,
    single_product,
)
from dualboost.solvers.contract import CvxpyModel, KKTMultipliers, WDomain, implements

if TYPE_CHECKING:
    from typing import Self

    from dualboost.solvers.options import AuglagOptions
    from dualboost.solvers.solution import Solution

__all__ = [
    "Model",
    "SmoothDualDefaults",
    "ColumnIndependent",
    "CvxpyModel",
    "KKTMultipliers",
]


class SmoothDualDefaults:
    """The defaults of the optional members of the solver contract's
    :class:`~dualboost.solvers.contract.SmoothDual` (its docstring lists them): a model overrides
    those its w-domain or family needs (the max-edge members on the simplex come from
    :class:`~dualboost.problems.max_edge.MaxEdgeWeights`, the line's from the corrective models,
    the eta family's from :class:`~dualboost.problems.erlpboost.EntropyRegularised`). ``Model`` and
    the Dask model inherit them."""

    name: str
    #: whether the model is one of a family indexed by its eta (``with_eta``, ``lp_limit``)
    eta_family: bool = False
    #: whether D(w) is exactly ``-f*(-U w)`` with ``regularizer`` over a numpy U, on the simplex with
    #: the max-edge members (the compiled re-solve, docs/architecture.md#compiled-code)
    conjugate_dual: bool = False

    def nonsmooth_reason(self) -> str:
        """Why the dual is not smooth (``""`` when it is): what ``method="auglag"`` says when it refuses."""
        if self.smooth_dual:  # type: ignore[attr-defined]
            return ""
        return "is not differentiable, or has no closed-form gradient and curvature in dualboost"

    def hessian_work(self, n_columns: int) -> float:
        """The multiply-adds of forming the Hessian on ``n_columns`` columns, N |S|^2 (``Model``:
        fewer through its stump operator): what a Newton step weighs against keeping an older
        Hessian (``NewtonOptions.kept_min_work``).

        Parameters
        ----------
        n_columns : int
            The number of columns |S| of the Hessian.

        Returns
        -------
        float
            The multiply-adds.
        """
        return float(self.n_samples) * n_columns**2  # type: ignore[attr-defined]

    def _not_here(self, what: str) -> NotImplementedError:
        return NotImplementedError(f"{self.name}: {what} (docs/architecture.md#the-solver-contract)")

    def gap_from_gradient(self, w: NDArray[np.float64], grad: NDArray[np.float64]) -> float:
        """The max-edge models' gap from the gradient (on the simplex only)."""
        raise self._not_here("the gap from the gradient is the max-edge models' (w_domain 'simplex')")

    def primal_from_edges(
        self, d: NDArray[np.float64], edges: NDArray[np.float64], f: float | None = None
    ) -> float:
        """The max-edge models' primal value from ``U^T d`` (on the simplex only)."""
        raise self._not_here("the primal value from the edges is the max-edge models' (w_domain 'simplex')")

    def primal_bound_from_edges(
        self, d: NDArray[np.float64], edges: NDArray[np.float64], repaired: NDArray[np.float64]
    ) -> float:
        """The max-edge models' primal bound from ``U^T d`` (on the simplex only)."""
        raise self._not_here("the primal bound from the edges is the max-edge models' (w_domain 'simplex')")

    def weights(self, a: float) -> NDArray[np.float64]:
        """The point ``w(a)`` of a corrective step's line (w_domain 'line' only)."""
        raise self._not_here("w(a) is the corrective steps' (w_domain 'line')")

    def line_start(self) -> float:
        """The cold start on a corrective step's line (w_domain 'line' only)."""
        raise self._not_here("the line's start is the corrective steps' (w_domain 'line')")

    def warm_columns(self, n_previous: int) -> NDArray[np.intp]:
        """The previous columns are U's first ``n_previous`` (new ones appended)."""
        return np.arange(n_previous)

    def simplex_form(self) -> None:
        """None: no simplex form of signed weights."""
        return None

    def with_eta(self, eta: float) -> Self:
        """The same model at another eta (an eta family only)."""
        raise ValueError(f"{self.name} is not a family indexed by eta")

    def lp_limit(self) -> None:
        """None: no linear program in memory as the limit eta -> infinity."""
        return None


class Model(SmoothDualDefaults, ABC):
    """Common state and behaviour: the edge matrix ``U`` (N x t) and the solve entry point.

    Parameters
    ----------
    U : array-like of shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)``.
    """

    #: short name used in tables and errors
    name: str = "model"
    #: the w-domain of the dual (:class:`~dualboost.solvers.contract.WDomain`)
    w_domain: WDomain = WDomain.SIMPLEX
    #: the sides ``method="highs"`` solves a :class:`~dualboost.solvers.highs.QuadraticProgram` on
    highs_sides: tuple[str, ...] = ("primal", "dual")
    #: ``(U, float32 copy, its buffer)`` made by :meth:`single_precision_U` (:func:`single_extension`;
    #: None: not made yet)
    _single_U: tuple[NDArray[np.float64], NDArray[np.float32], NDArray[np.float32]] | None = None
    #: U's columns as an implicit operator where they are decision stumps and constants (a boosting
    #: run's ensemble, set by its driver; :class:`~dualboost.problems.kernels.StumpOperator`: the
    #: sort-order or the sparse one): the products ``U w``, ``U^T d``, the Hessian-vector products and
    #: the formed Hessians go through it where it
    #: :meth:`~dualboost.problems.kernels.StumpOperator.pays`; None: U only
    stump_columns: StumpOperator | None = None

    def __init__(self, U: ArrayLike) -> None:
        self.U = check_edge_matrix(U)
        self.n_samples, self.n_hypotheses = self.U.shape

    def _margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U w``: by :attr:`stump_columns` where it pays, else the explicit product."""
        implicit = self.stump_columns
        if implicit is not None and implicit.pays(self.n_hypotheses):
            return implicit.margins(w)
        return self.U @ w

    def _edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T d``: by :attr:`stump_columns` where it pays, else the explicit product."""
        implicit = self.stump_columns
        if implicit is not None and implicit.pays(self.n_hypotheses):
            return implicit.edges(d)
        return self.U.T @ d

    # --- the public contract -------------------------------------------------------------
    def primal_problem(self) -> cp.Problem:
        """The explicit d-domain ``cvxpy.Problem``."""
        return self.cvxpy_primal().problem

    def dual_problem(self) -> cp.Problem:
        """The explicit w-domain ``cvxpy.Problem``."""
        return self.cvxpy_dual().problem

    @abstractmethod
    def primal_objective(self, d: ArrayLike) -> float:
        """The d-domain objective; ``+inf`` when ``d`` is infeasible beyond 1e-9."""

    @abstractmethod
    def dual_objective(self, w: ArrayLike) -> float:
        """The w-domain objective with the auxiliary multipliers maximised out exactly;
        ``-inf`` when ``w`` is infeasible beyond 1e-9."""

    def dual_value_and_grad(
        self, w: NDArray[np.float64], regularizer=None
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        """``(D(w), grad D(w), d(w))`` in one pass, for gradient-based dual solvers: the gradient is
        ``U^T d(w)`` (docs/math.md#erratum-kg-7, the envelope theorem). ``regularizer`` replaces the model's
        own (a warm-started copy, see ``ConvexFunction.with_warm_starts``). Defined for every w
        in R^t, not only on the w-domain. This default is ``D(w) = -f*(-U w)``, the max-edge and
        corrective duals."""
        value, d = (regularizer or self.regularizer).conjugate_and_grad(-self._margins(w))
        return -value, self._edges(d), d

    def dual_hessian(
        self, w: NDArray[np.float64], columns: NDArray[np.intp], d: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """The Hessian of ``D(w) = -f*(-U w)`` (plus linear terms) restricted to ``columns``:
        ``-U_S^T hess f*(-U w) U_S`` with the regulariser's ``hess f* = scale (diag(g) - V S^+ V^T)``
        (:class:`~dualboost.conjugates.traits.LowRankHessian`), i.e.
        ``-scale (U_S^T diag(g) U_S - P S^+ P^T)``
        with ``P = U_S^T V``, O(N |S|^2) (only the examples whose curvature weight is not negligible
        count). ``d``: ``d(w)`` when the caller has it (a dual solver does: ``dual_value_and_grad``
        returned it), saving an evaluation."""
        H, rows = self._curvature(w, d)
        implicit = self.stump_columns
        if implicit is not None and implicit.pays(columns.size):  # O(N F^2 + |S|^2), not O(N |S|^2)
            C = _ImplicitProducts(implicit.restricted(columns), rows, H.g)
            P = np.column_stack([C.left(H.V[:, j]) for j in range(H.V.shape[1])])
            if H.S.shape == (1, 1):  # the capped softmax's a a^T / sum s, in the Gram's pass
                return C.columns.rank_one_hessian(C.weights, P[:, 0], float(H.S[0, 0]), H.scale)
            return low_rank_hessian(C.weighted_gram(), P, P, H.S, H.scale)
        if rows is not None:
            C = self.U[rows][:, columns]
        else:
            C = self.U[:, columns] if columns.size < self.n_hypotheses else self.U.copy(order="K")
        P = np.column_stack([C.T @ H.V[:, j] for j in range(H.V.shape[1])])
        return low_rank_hessian(gram_parts(C, H.g)[0], P, P, H.S, H.scale)

    def hessian_work(self, n_columns: int) -> float:
        """:meth:`SmoothDualDefaults.hessian_work`, through :attr:`stump_columns` where it pays
        (:meth:`~dualboost.problems.kernels.StumpOperator.gram_work`, as :meth:`dual_hessian` forms it).

        Parameters
        ----------
        n_columns : int
            The number of columns |S| of the Hessian.

        Returns
        -------
        float
            The multiply-adds.
        """
        implicit = self.stump_columns
        if implicit is not None and implicit.pays(n_columns):
            return implicit.gram_work(n_columns)
        return super().hessian_work(n_columns)

    def dual_hessian_operator(
        self,
        w: NDArray[np.float64],
        columns: NDArray[np.intp],
        d: NDArray[np.float64] | None = None,
        single: bool = False,
    ) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
        """``v -> H v`` for the Hessian ``H`` of :meth:`dual_hessian` on ``columns``, without forming
        it: ``-scale (C^T (g * (C v)) - P S^+ P^T v)`` with ``C = U_S``, ``P = C^T V`` (the same factors), two
        passes over U_S, O(N |S|), per product instead of O(N |S|^2) once: for solvers that need a
        few products (the conjugate-gradient Newton steps of ``method="auglag"``). ``C`` is a copy of
        the columns (and of the rows that count) when they are at most half of U, else U itself with
        v padded by zeros (no copy). ``single``: the passes in single precision, on
        :meth:`single_precision_U` (relative error of order 1e-6; :class:`ColumnProducts`). Where
        :attr:`stump_columns` pays for ``columns``, the passes go through it instead, in float64
        whatever ``single`` says (O(N F) per pass; the rows that do not count get weight 0)."""
        columns = np.asarray(columns, dtype=np.intp)
        H, rows = self._curvature(w, d)
        implicit = self.stump_columns
        if implicit is not None and implicit.pays(columns.size):
            C = _ImplicitProducts(implicit.restricted(columns), rows, H.g)
        else:
            C = ColumnProducts(self.single_precision_U() if single else self.U, columns, rows, H.g)
        P = np.column_stack([C.left(H.V[:, j]) for j in range(H.V.shape[1])])
        S, scale = H.S, H.scale

        def product(v: NDArray[np.float64]) -> NDArray[np.float64]:
            out = C.gram(v)
            out -= low_rank_product(P, S, v)
            return -scale * out

        return product

    def single_precision_U(self) -> NDArray[np.float32]:
        """A float32 copy of U, made once per model (shared by its ``with_eta`` copies, and extended
        by the new columns only for its ``with_columns`` copies over an append-only U: a boosting
        run's ``Ensemble.U``): the Hessian-vector products of inexact Newton steps read half the
        memory (2-4x faster at N |S| >= 4e5 on this project's 2-core machine,
        docs/solvers.md#single-precision-products). The rounding of U's entries (relative 6e-8) is
        part of the products' error."""
        cached = self._single_U
        if cached is None or cached[0] is not self.U:
            cached = single_extension(self.U, None)
            self._single_U = cached
        return cached[1]

    def dual_hessian_block(
        self,
        w: NDArray[np.float64],
        rows: NDArray[np.intp],
        columns: NDArray[np.intp],
        d: NDArray[np.float64] | None = None,
    ) -> NDArray[np.float64]:
        """The block ``(rows, columns)`` of the Hessian of :meth:`dual_hessian`, O(N |rows| |columns|):
        what a solver that keeps an older Hessian computes for the columns it has not seen (the
        active-set Newton step of ``method="auglag"`` after a column was appended). Where
        :attr:`stump_columns` pays, by its passes instead: O((|columns| + k) (N F + t))."""
        H, kept = self._curvature(w, d)
        implicit = self.stump_columns
        if implicit is not None and implicit.pays(self.n_hypotheses):
            # passes over all t columns, read at rows and columns: a column's U^T x is its own sums
            # (the same as through an operator of fewer columns); U's columns are exact (+-1)
            g = over_all_rows(H.g, kept)
            P = np.column_stack([implicit.edges(over_all_rows(v, kept)) for v in H.V.T])
            cross = np.column_stack([implicit.edges(g * self.U[:, j])[rows] for j in columns])
            return low_rank_hessian(cross, P[rows], P[columns], H.S, H.scale)
        U = self.U if kept is None else self.U[kept]
        return low_rank_hessian(*cross_gram_parts(U, H.g, H.V, rows, columns), H.S, H.scale)

    def dual_step_spread(
        self, direction: NDArray[np.float64], d: NDArray[np.float64], single: bool = False
    ) -> float:
        """The largest first-order change of ``log d_n`` when w moves by ``direction`` (the solver
        contract's ``SmoothDual.dual_step_spread``, docs/solvers.md#step-length): theta = -U w moves
        by ``-U x``, and the regulariser measures that move (``SmoothConjugate.step_spread``; 0, no bound,
        where its steps are not measured in these units, or for other regularisers). ``single``:
        ``U x`` in single precision (:meth:`single_precision_U`; a trust radius needs no
        more), except where :attr:`stump_columns` pays (its float64 pass, O(N F + t), is the cheaper)."""
        if not implements(self.regularizer, SmoothConjugate):
            return 0.0
        implicit = self.stump_columns
        single = single and not (implicit is not None and implicit.pays(self.n_hypotheses))

        def move() -> NDArray[np.float64]:
            return -(
                single_product(self.single_precision_U(), direction) if single else self._margins(direction)
            )

        return self.regularizer.step_spread(move, d)

    def _curvature(
        self, w: NDArray[np.float64], d: NDArray[np.float64] | None
    ) -> tuple[LowRankHessian, NDArray[np.bool_] | None]:
        """``hess f*(-U w) = scale (diag(g) - V S^+ V^T)`` (the regulariser's ``conjugate_hessian``;
        theta is computed only when the regulariser cannot tell the curvature from d alone) on the
        examples that count, and those examples: a mask when most are negligible (large eta, small
        nu: d sits on the smallest margins; gathering the few that count is cheaper than the products
        it saves), else None, with the negligible weights (below 1e-17 of the largest) set to 0 (V
        is 0 there too). For k = 1, ``S = sum_n V_n`` over the rows that count (``V = g 1``: the
        exact restrictions' ``1^T G 1``, the softmax's ``sum s``)."""
        reg = self.regularizer
        theta = None if d is not None and reg.remembers(d) else -self._margins(w)
        g, V, S, scale = reg.conjugate_hessian(theta, d)
        rows = g > 1e-17 * g.max(initial=0.0)
        kept = None
        if 2 * np.count_nonzero(rows) < rows.size:
            g, V, kept = g[rows], V[rows], rows
        elif not rows.all():
            g, V = np.where(rows, g, 0.0), np.where(rows[:, None], V, 0.0)
        if S.shape == (1, 1):
            S = np.array([[float(V[:, 0].sum())]])
        return LowRankHessian(g, V, S, scale), kept

    @abstractmethod
    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """The KKT map from the w-domain to the d-domain."""

    @abstractmethod
    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """Active-set recovery of all dual variables from a primal point; ``tol`` is the active-set
        tolerance, None for a tolerance-aware choice."""

    def w_from_d(self, d: ArrayLike, tol: float | None = None) -> NDArray[np.float64]:
        """KKT active-set recovery of w from a primal solution d (docs/math.md#kkt-recovery and
        docs/math.md#active-set-method)."""
        return self.kkt_from_d(d, tol).w

    def solve(
        self,
        method: str = "clarabel",
        side: str = "dual",
        warm_start=None,
        tol: float = 1e-6,
        *,
        options: AuglagOptions | None = None,
        **kwargs,
    ) -> Solution:
        """Solve one side with ``method``, map to the other side and certify the pair.

        Every method returns a :class:`~dualboost.solvers.Solution` whose values, infeasibilities and
        gap the model computed itself from ``(d, w)`` (``status="optimal"`` only where the relative
        gap and both infeasibilities are within ``tol``); a method that does not apply to this model
        or side is a ValueError saying why and what applies (:func:`dualboost.solvers.accepts`).
        The methods (docs/solvers.md):

        * ``"clarabel"`` (default), ``"ecos"``, ``"scs"``: the explicit cvxpy problem of ``side``
          (``primal_problem()`` / ``dual_problem()``), the other side read from the constraints'
          multipliers; every in-memory model. No warm start (accepted and ignored). ``kwargs`` go to
          cvxpy's ``solve`` (``verbose=True``, solver settings).
        * ``"auglag"``: the hand-written path on the dual side of the models with a smooth dual
          (``smooth_dual``: ERLPBoost, Binary ERLPBoost, the corrective steps, SoftBoost, QRLPBoost,
          MDBoost, [SS] relaxations with a strictly convex f, the ``"abs"`` form through its simplex
          form). Augmented Lagrangian rounds of L-BFGS-B hand over to active-set Newton steps near the
          optimum or at large eta; above ``AuglagOptions.continuation_eta`` an eta family is solved by
          eta continuation, or, where the LP limit is cheap, from LPBoost's HiGHS solution (the LP
          path). ``warm_start``: a Solution of this model with columns appended since (any number:
          ``with_columns``) or removed (``removed=[...]``, kwargs), whose w and kept Hessian start
          the solve; ``max_iter`` (kwargs) bounds the L-BFGS-B iterations.
          ``options``: an :class:`~dualboost.solvers.AuglagOptions` (its Newton steps'
          :class:`~dualboost.solvers.NewtonOptions` in ``AuglagOptions(newton=...)``), each field
          with its reason (docs/solvers.md#options); :func:`~dualboost.solvers.default_options` sets
          them for a block of code.
        * ``"highs"``: HiGHS on the linear programs (LPBoost, NMBoost; either side) and the
          quadratic program of CGBoost (on the sides in ``highs_sides``: its dual).
          ``warm_start`` on LPBoost's primal side: its HiGHS model and basis, grown by the new
          columns' rows. No options.

        ``side``: ``"primal"`` (d-domain) or ``"dual"`` (w-domain). ``tol``: the relative gap and
        feasibility tolerance of the certificate. ``options``: the method's options object, None
        for its defaults (only ``"auglag"`` has one; another type is a ValueError naming it).
        """
        from dualboost.solvers import solve as _solve  # problems do not import solvers eagerly

        return _solve(
            self, method=method, side=side, warm_start=warm_start, tol=tol, options=options, **kwargs
        )

    # --- the solver protocol -------------------------------------------------------------
    @abstractmethod
    def cvxpy_primal(self) -> CvxpyModel:
        """The primal cvxpy problem; ``readout`` gives d from the variable, w from duals."""

    @abstractmethod
    def cvxpy_dual(self) -> CvxpyModel:
        """The dual cvxpy problem; ``readout`` gives w from the variable, d from duals."""

    @abstractmethod
    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        """The nearest primal-feasible point to ``d`` and the max-norm violation of ``d``."""

    @abstractmethod
    def repair_dual(self, w: ArrayLike) -> tuple[NDArray[np.float64], float]:
        """The nearest dual-feasible point to ``w`` and the max-norm violation of ``w``."""

    @property
    def d_is_unique(self) -> bool:
        """Whether the primal optimum is unique (strictly convex regulariser)."""
        return True

    @property
    def smooth_dual(self) -> bool:
        """Whether the dual is differentiable with its curvature (``method="auglag"``,
        docs/architecture.md#the-solver-contract): for ``D(w) = -f*(-U w)`` as computed below, where
        the regulariser is a :class:`~dualboost.conjugates.traits.SmoothConjugate`."""
        return implements(self.regularizer, SmoothConjugate)

    @property
    def warm_points(self) -> bool:
        """Whether a dual solver certifies its intermediate points with the warm-started copy of the
        regulariser (``SmoothConjugate.warm_copy_certifies``: an inner solve to machine precision at
        every evaluation, the exact restrictions); the result is certified with the model's own."""
        reg = self.regularizer
        return implements(reg, SmoothConjugate) and reg.warm_copy_certifies

    def parameters(self) -> dict[str, float]:
        """The model's numeric parameters other than U (nu, eta, ...; none here): a solver reuses a
        warm-start state only under equal parameters."""
        return {}

    def is_feasible(self) -> bool:
        """Whether the primal feasible set is non-empty (True here; the models that can be
        infeasible check it by an independent computation)."""
        return True

    def describe(self) -> dict[str, float]:
        """The instance parameters shown in tables: N, t and the model's own (:meth:`parameters`)."""
        return {"N": self.n_samples, "t": self.n_hypotheses, **self.parameters()}

    # --- shared helpers ------------------------------------------------------------------
    #: the active-set tolerances tried when none is given (d from a solver carries noise of
    #: unknown size: [KG] App. A warns that the active set is then ambiguous)
    ACTIVE_SET_TOLERANCES = (1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)

    def _tolerance_aware(self, recover, tol: float | None) -> KKTMultipliers:
        """``recover(tol)`` at the given tolerance, or, when ``tol`` is None, at each of
        ``ACTIVE_SET_TOLERANCES`` keeping the multipliers whose w has the best dual objective: the
        certificate itself judges which active set fits d's noise."""
        if tol is not None:
            return recover(tol)
        candidates = [recover(t) for t in self.ACTIVE_SET_TOLERANCES]
        return max(candidates, key=lambda kkt: self.dual_objective(kkt.w))

    def _dual_objective_expr(
        self, margins_expr: cp.Expression
    ) -> tuple[cp.Expression, list[cp.Constraint], cp.Constraint]:
        """``-f*(-m)`` in cvxpy for the margins ``m = margins_expr`` ([SS] Thm 3 dual).

        The margins are a variable tied to ``margins_expr`` by an equality constraint; that
        constraint's multiplier is the KKT map's d (``grad f*(-m)``), which is how the dual side
        reads d from the solver. Returns the objective, the constraints and the link.
        """
        margins = cp.Variable(self.n_samples, name="margins")
        link = margins == margins_expr
        conj, cons = self.regularizer.cvxpy_conjugate(-margins)
        return -conj, [link, *cons], link

    def _stationarity_multipliers(
        self,
        d: NDArray[np.float64],
        columns: NDArray[np.float64],
        active: NDArray[np.intp],
        *,
        offset: NDArray[np.float64] | float = 0.0,
        tol: float,
        nonneg: bool,
        sum_to_one: bool,
    ) -> KKTMultipliers:
        """Active-set recovery for a model whose ``regularizer`` is a
        :class:`~dualboost.conjugates.traits.SmoothPart`: solve
        ``grad f(d) + offset + columns[:, active] c + psi + beta = 0`` (docs/math.md#kkt-recovery) with
        the regulariser's gradient and capped set, rows weighted by d."""
        from dualboost.solvers.active_set import recover_multipliers

        grad, rows = self.regularizer.smooth_gradient(d)
        return recover_multipliers(
            columns,
            -(grad + offset),
            active,
            self.regularizer.active_caps(d, tol),
            n_weights=columns.shape[1],
            nonneg=nonneg,
            sum_to_one=sum_to_one,
            rows=rows,
            row_weights=d,
        )

    def _d(self, d: ArrayLike) -> NDArray[np.float64]:
        return check_vector(d, "d", self.n_samples)

    def _w(self, w: ArrayLike) -> NDArray[np.float64]:
        return check_vector(w, "w", self.n_hypotheses)

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v:g}" for k, v in self.describe().items())
        return f"{type(self).__name__}({params})"


class _ImplicitProducts:
    """:class:`~dualboost.problems.kernels.ColumnProducts`'s ``left`` and ``gram`` by a
    :class:`~dualboost.problems.kernels.StumpOperator` of the columns U_S: the rows that do not count
    (``rows`` a mask) get weight 0, in float64 (the implicit passes read no copy of U)."""

    def __init__(
        self, columns: StumpOperator, rows: NDArray[np.bool_] | None, weights: NDArray[np.float64] | float
    ) -> None:
        self.columns, self.rows = columns, rows
        self.weights = weights if rows is None else over_all_rows(weights, rows)

    def left(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U_S^T x`` (x over the rows that count)."""
        return self.columns.edges(over_all_rows(x, self.rows))

    def gram(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U_S^T (weights * (U_S v))``."""
        return self.columns.gram(v, self.weights)

    def weighted_gram(self) -> NDArray[np.float64]:
        """``U_S^T diag(weights) U_S`` (:meth:`~dualboost.problems.kernels.StumpOperator.weighted_gram`)."""
        return self.columns.weighted_gram(self.weights)


class ColumnIndependent:
    """A model whose parameters do not depend on U's columns (LPBoost, ERLPBoost, Binary ERLPBoost):
    a booster re-solves the same model over a growing U, and :meth:`with_columns` gives it without
    checking the parameters again (they were checked once, when the first model was built)."""

    U: NDArray[np.float64]
    n_samples: int
    _single_U: tuple[NDArray[np.float64], NDArray[np.float32], NDArray[np.float32]] | None

    def with_columns(self, U: ArrayLike) -> Self:
        """The same model, with the same parameters, over the columns ``U`` (N x t', the same N
        examples, e.g. the ensemble after another oracle call); only U is checked."""
        model = copy.copy(self)
        model.U = U = check_edge_matrix(U)
        rows, model.n_hypotheses = U.shape
        if rows != self.n_samples:
            raise ValueError(f"U must have the model's {self.n_samples} rows; got {rows}")
        model.stump_columns = None  # the driver sets the operator of the new columns
        cached = self._single_U  # extended by the new columns where U only grew
        model._single_U = None if cached is None else single_extension(U, cached)
        return model
