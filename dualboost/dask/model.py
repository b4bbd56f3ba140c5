"""``DaskERLPBoost``: the ERLPBoost model ([KG] Sec 3.2, Eqs. 3.6 / 3.10) over a row-partitioned U.

It implements the smooth-dual side of the solver contract only
(:class:`~dualboost.solvers.contract.SmoothDual` on the simplex, an eta family,
docs/architecture.md#the-solver-contract), with the methods that touch N-sized data run as partition
reductions (:mod:`dualboost.dask.softmax`), so ``solve(method="auglag")`` and the certification work
as for the in-memory :class:`~dualboost.problems.ERLPBoost`; the w-side that needs no U is shared
with it (:class:`~dualboost.problems.max_edge.MaxEdgeWeights`):

* ``dual_value_and_grad(w)`` returns ``(D(w), U^T d, d)`` with d a
  :class:`~dualboost.dask.edges.DistributedVector`-backed :class:`~dualboost.dask.softmax.Evaluation`
  (it stays on the workers); ``repair_primal`` and ``primal_from_edges`` accept it and use its
  reduced scalars (sum, min, max, the regulariser's value);
* ``dual_hessian(w, S)`` reduces the |S| x |S| Gram matrices of the partitions,
  ``dual_hessian_block(w, R, S)`` their |R| x |S| blocks (a kept Hessian's new columns), and
  ``dual_hessian_operator(w, S)`` gives ``v -> H v`` by one reduction per product;
* ``d_from_w(w)`` returns d as a numpy array: the one gather of a solve (the Solution holds d);
  ``primal_objective`` of that array reuses the evaluation's ``U^T d``; any other numpy d is
  scattered once to compute ``U^T d`` on the workers.

The prior d0 is uniform. Only the dual side with ``method="auglag"`` is available: the cvxpy forms,
the LP and the active-set recovery need U on one machine, and this model does not offer them.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_eta, check_nu, check_vector
from dualboost.conjugates import project_capped_simplex
from dualboost.conjugates.stable import entropy_excess
from dualboost.dask.edges import DistributedVector, PartitionedEdges
from dualboost.dask.softmax import Evaluation, evaluate
from dualboost.problems.base import SmoothDualDefaults
from dualboost.problems.max_edge import DOMAIN_TOL, MaxEdgeWeights
from dualboost.solvers import Solution, solve

__all__ = ["DaskERLPBoost"]

#: evaluations kept per model (the solver asks for the Hessian, d and the primal at recent points)
_CACHE = 8
#: a distributed d within this of the capped simplex counts as feasible (the rounding of its sums)
ROUNDING_TOL = 1e-12


class _UniformCappedEntropy:
    """The regulariser ``(1/eta) KL(d || 1/N)`` on the capped simplex, for numpy d on the driver (the
    value and domain test of :class:`~dualboost.conjugates.CappedRelativeEntropy` without an N-sized
    d0). ``with_warm_starts`` is the identity, as for the in-memory regulariser."""

    def __init__(self, n: int, nu: float, eta: float) -> None:
        self.n, self.nu, self.eta = n, nu, eta
        self.d0 = 1.0 / n

    def in_domain(self, x: NDArray[np.float64], tol: float = DOMAIN_TOL) -> bool:
        return bool(
            x.min() >= -tol and x.max() <= 1.0 / self.nu + tol and abs(x.sum() - 1.0) <= tol * max(1, x.size)
        )

    def value(self, x: NDArray[np.float64]) -> float:
        if not self.in_domain(x):
            return np.inf
        return float(entropy_excess(np.clip(x, 0.0, None), self.d0).sum() / self.eta)

    def with_warm_starts(self) -> _UniformCappedEntropy:
        return self


class DaskERLPBoost(MaxEdgeWeights, SmoothDualDefaults):
    """ERLPBoost over the columns of a :class:`~dualboost.dask.edges.PartitionedEdges` U.

    Same values as :class:`~dualboost.problems.ERLPBoost` for ``solve(method="auglag")``,
    ``dual_objective``, ``primal_objective``, ``d_from_w``; see the module docstring. The prior is
    uniform.

    Parameters
    ----------
    U : PartitionedEdges
        The edge matrix, N x t, in row blocks on the workers.
    nu : float, default 1.0
        The capping in [1, N].
    eta : float, default 1.0
        The regularisation, > 0.
    """

    name = "erlpboost"
    #: its dual, gradient and Hessian are evaluated over the partitions (below), not by the
    #: regulariser's conjugate
    smooth_dual = True
    #: the capped softmax is a closed form: points are certified with the model's regulariser
    warm_points = False
    #: eta continuation at large eta (``with_eta``; no LP limit: ``lp_limit`` is None)
    eta_family = True
    d_is_unique = True
    #: no stump operator: U's products run over the partitions
    stump_columns = None

    def __init__(self, U: PartitionedEdges, nu: float = 1.0, eta: float = 1.0) -> None:  # noqa: D107
        if not isinstance(U, PartitionedEdges):
            raise ValueError(
                f"U must be a PartitionedEdges (row blocks on the workers); got {type(U).__name__}"
            )
        n, t = U.shape
        if t == 0:
            raise ValueError("U has no columns: the hypothesis set is empty")
        self.U_parts = U
        self.n_samples, self.n_hypotheses = n, t
        self.nu, self.eta = check_nu(nu, n), check_eta(eta)
        self.d0 = None  # uniform
        self.regularizer = _UniformCappedEntropy(n, self.nu, self.eta)
        self._evaluations: OrderedDict[bytes, Evaluation] = OrderedDict()
        self._on_driver: list[tuple[NDArray[np.float64], DistributedVector, NDArray[np.float64] | None]] = []

    def parameters(self) -> dict[str, float]:
        return {"nu": self.nu, "eta": self.eta}

    def describe(self) -> dict[str, float]:
        return {"N": self.n_samples, "t": self.n_hypotheses, **self.parameters()}

    def is_feasible(self) -> bool:
        """True: nu in [1, N] leaves the capped simplex non-empty."""
        return True

    def __repr__(self) -> str:
        return f"DaskERLPBoost(N={self.n_samples}, t={self.n_hypotheses}, nu={self.nu:g}, eta={self.eta:g})"

    def lp_limit(self) -> None:
        """None: the LP limit would gather U on the driver (large eta takes eta continuation)."""
        return None

    # --- evaluations -------------------------------------------------------------------------
    def evaluation(self, w: ArrayLike) -> Evaluation:
        """The capped softmax at w and its reductions (cached for the last few w)."""
        w = np.ascontiguousarray(w, dtype=np.float64)
        key = w.tobytes()
        found = self._evaluations.get(key)
        if found is not None:
            self._evaluations.move_to_end(key)
            return found
        if w.shape != (self.n_hypotheses,) or not np.all(np.isfinite(w)):
            check_vector(w, "w", self.n_hypotheses)
        ev = evaluate(self.U_parts, w, self.nu, self.eta)
        ev.on_gather = self._gathered
        self._evaluations[key] = ev
        if len(self._evaluations) > _CACHE:
            self._evaluations.popitem(last=False)
        return ev

    def dual_value_and_grad(self, w: NDArray[np.float64], regularizer=None):
        """``(D(w), U^T d(w), d(w))`` by partition reductions; d is the :class:`Evaluation` (on the
        workers). ``regularizer`` is accepted for the solver protocol (this regulariser has no state)."""
        ev = self.evaluation(w)
        return -ev.conjugate, ev.edges.copy(), ev

    def dual_hessian(self, w: NDArray[np.float64], columns: NDArray[np.intp], d=None) -> NDArray[np.float64]:
        """As :meth:`Model.dual_hessian`, from the partitions' |S| x |S| Gram matrices (the in-memory
        path also drops weights below 1e-17 of the largest; they change H by less than that). ``d`` is
        not needed: the evaluation at w is cached on the workers."""
        return self.evaluation(w).hessian(np.asarray(columns, dtype=np.intp))

    def dual_hessian_operator(
        self, w: NDArray[np.float64], columns: NDArray[np.intp], d=None, single: bool = False
    ):
        """As :meth:`Model.dual_hessian_operator`, one reduction over the partitions per product
        (the conjugate-gradient Newton steps of ``method="auglag"`` take a few). ``single`` is
        accepted and ignored: the partitions' products stay in float64."""
        return self.evaluation(w).hessian_operator(np.asarray(columns, dtype=np.intp))

    def dual_step_spread(self, direction: NDArray[np.float64], d, single: bool = False) -> float:
        """As :meth:`Model.dual_step_spread` (the trust radius of Newton's steps), by two reductions
        over the partitions of the evaluation ``d``: the solver takes the same steps as in memory
        (``single`` is ignored: in float64, as the in-memory model below
        ``NewtonOptions.single_min_work``)."""
        return d.step_spread(np.asarray(direction, dtype=np.float64))

    def dual_hessian_block(
        self, w: NDArray[np.float64], rows: NDArray[np.intp], columns: NDArray[np.intp], d=None
    ) -> NDArray[np.float64]:
        """As :meth:`Model.dual_hessian_block` (the new columns' block of a kept Hessian), by one
        reduction over the partitions: the solver takes the same steps as in memory."""
        rows, columns = np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp)
        return self.evaluation(w).hessian_block(rows, columns)

    def dual_objective(self, w: ArrayLike) -> float:
        w = self._w(w)
        if not self.on_simplex(w):
            return -np.inf
        return -self.evaluation(w).conjugate

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """d(w) gathered on the driver (once per solve: the Solution's d)."""
        return np.asarray(self.evaluation(self._w(w)))

    def _gathered(self, d: NDArray[np.float64], ev: Evaluation) -> None:
        self._remember(d, ev.distribution(), ev.edges if ev.edges_of is self.U_parts else None)

    # --- the primal side ---------------------------------------------------------------------
    def distributed(self, d: NDArray[np.float64] | DistributedVector | Evaluation) -> DistributedVector:
        """d on the workers: an evaluation's own blocks, the blocks of a d this model gathered or
        scattered before, or ``d`` scattered now."""
        if isinstance(d, Evaluation):
            return d.distribution()
        if isinstance(d, DistributedVector):
            return d
        for array, blocks, _ in self._on_driver:
            if array is d:
                return blocks
        blocks = DistributedVector.scatter(self.U_parts.executor, self._d(d), self.U_parts.sizes)
        self._remember(d, blocks, None)
        return blocks

    def _remember(self, d, blocks, edges) -> None:
        self._on_driver = [(d, blocks, edges), *self._on_driver[:3]]

    def _edges_and_reg(self, d) -> tuple[NDArray[np.float64], float]:
        if isinstance(d, Evaluation) and d.edges_of is self.U_parts:
            in_domain = (
                d.d_min >= -DOMAIN_TOL
                and d.d_max <= 1.0 / self.nu + DOMAIN_TOL
                and abs(d.d_sum - 1.0) <= DOMAIN_TOL * max(1, self.n_samples)
            )
            return d.edges, d.reg if in_domain else np.inf
        if isinstance(d, Evaluation | DistributedVector):
            stats = self.U_parts.primal_stats(self.distributed(d), 1.0 / self.n_samples)
            in_domain = (
                stats.min >= -DOMAIN_TOL
                and stats.max <= 1.0 / self.nu + DOMAIN_TOL
                and abs(stats.sum - 1.0) <= DOMAIN_TOL * max(1, self.n_samples)
            )
            return stats.edges, stats.kl / self.eta if in_domain else np.inf
        d = self._d(d)
        for array, _, edges in self._on_driver:
            if array is d and edges is not None:
                return edges, self.regularizer.value(d)
        stats = self.U_parts.primal_stats(self.distributed(d), 1.0 / self.n_samples)
        return stats.edges, self.regularizer.value(d)

    def primal_objective(self, d) -> float:
        """``max_q (U^T d)_q + (1/eta) KL(d || d0)`` (Eq. 3.6) for d on the driver or on the workers."""
        edges, reg = self._edges_and_reg(d)
        return float(edges.max() + reg) if np.isfinite(reg) else np.inf

    def primal_from_edges(self, d, edges: NDArray[np.float64], f: float | None = None) -> float:
        """``max_q edges_q + f(d)``: ``f`` where given (the regulariser's value at d), else from d."""
        if f is not None:
            reg = f
        elif isinstance(d, Evaluation):
            reg = self._edges_and_reg(d)[1] if d.edges_of is self.U_parts else np.inf
        else:
            reg = self.regularizer.value(self._d(d))
        return float(edges.max() + reg) if np.isfinite(reg) else np.inf

    def repair_primal(self, d) -> tuple:
        """A numpy d: as :meth:`MaxEdgeModel.repair_primal` (the capped-simplex projection on the driver).
        A distributed d: itself when its reduced sum, min and max are within ``ROUNDING_TOL`` of the
        capped simplex (the capped softmax always is), with that distance; projecting it would
        need the gather this path avoids."""
        if isinstance(d, Evaluation):
            violation = max(abs(d.d_sum - 1.0), -d.d_min, d.d_max - 1.0 / self.nu, 0.0)
            if violation > ROUNDING_TOL:
                raise RuntimeError(f"a distributed capped softmax is {violation:.3g} off the capped simplex")
            return d, 0.0
        d = self._d(d)
        if self.regularizer.in_domain(d, tol=0.0):
            return d, 0.0
        fixed = project_capped_simplex(d, self.nu)
        return fixed, float(np.abs(fixed - d).max())

    def with_eta(self, eta: float) -> DaskERLPBoost:
        return DaskERLPBoost(self.U_parts, nu=self.nu, eta=eta)

    def _d(self, d: ArrayLike) -> NDArray[np.float64]:
        return check_vector(d, "d", self.n_samples)

    def _w(self, w: ArrayLike) -> NDArray[np.float64]:
        return check_vector(w, "w", self.n_hypotheses)

    def solve(
        self, method: str = "auglag", side: str = "dual", warm_start=None, tol: float = 1e-6, **options
    ) -> Solution:
        """``solve(method="auglag", side="dual")`` as for :class:`~dualboost.problems.ERLPBoost` (the
        only method here: the others need U on one machine)."""
        if method != "auglag" or side != "dual":
            raise ValueError(
                "DaskERLPBoost solves only with method='auglag', side='dual' (the cvxpy forms, the LP and "
                f"the active-set recovery need U on one machine); got method={method!r}, side={side!r}"
            )
        return solve(self, method=method, side=side, warm_start=warm_start, tol=tol, **options)
