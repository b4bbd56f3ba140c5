"""The max-edge family: LPBoost, ERLPBoost and Binary ERLPBoost share one primal/dual pair.

With a regulariser ``f`` from the conjugate library (the caps and ``sum d = 1`` included in ``f``):

    primal (d-domain):  min_d  max_q (U^T d)_q + f(d)                ([KG] Eqs. 2.3, 3.6, 3.25)
    dual   (w-domain):  max_{w in simplex}  -f*(-U w)                ([KG] Eqs. 2.2, 3.10, 3.26)

by Fenchel duality ([SS] Thm 3 with g = max over the simplex): the multipliers psi and beta of
the thesis live inside ``f*`` and are maximised out exactly by the conjugate library. The KKT map
is ``d = grad f*(-U w)`` ([SS] Lemma 18; [KG] Eqs. 3.11, 3.27), and at the optimum
``sum_q w_q u^q . d = max_q u^q . d`` (complementary slackness, docs/math.md#kkt-map).
"""

from __future__ import annotations

import math

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_vector
from dualboost.conjugates import ConvexFunction, project_capped_simplex, project_simplex
from dualboost.problems.base import CvxpyModel, KKTMultipliers, Model
from dualboost.solvers.contract import WDomain

__all__ = ["MaxEdgeModel", "MaxEdgeWeights", "LastValue"]

#: feasibility tolerance of the objectives: a point farther than this is outside the domain
DOMAIN_TOL = 1e-9


class MaxEdgeWeights:
    """The w-side of the max-edge pair that needs no U in memory: the simplex of weights, the edge
    objective, the Frank-Wolfe gap from the dual gradient, the dual repair and the primal bound from
    the edges (the simplex members of :class:`~dualboost.solvers.contract.SmoothDual`). Shared by
    :class:`MaxEdgeModel` and the models that keep U elsewhere (``dualboost.dask.DaskERLPBoost``);
    a subclass provides ``primal_from_edges`` and ``n_hypotheses``."""

    w_domain: WDomain = WDomain.SIMPLEX
    n_hypotheses: int

    def on_simplex(self, w: NDArray[np.float64]) -> bool:
        """Whether w lies on the simplex within ``DOMAIN_TOL`` (the dual objective is -inf off it)."""
        return bool(w.min() >= -DOMAIN_TOL and abs(w.sum() - 1.0) <= DOMAIN_TOL * max(1, w.size))

    def primal_bound_from_edges(
        self, d: NDArray[np.float64], edges: NDArray[np.float64], repaired: NDArray[np.float64]
    ) -> float:
        """An upper bound on ``primal_objective(repaired)`` from the edges ``U^T d`` of a nearby d (a
        dual solver's d and its repair onto the feasible set): the edge objective is 1-Lipschitz in
        the max-norm of the edges (a max, or a max of absolute values), and
        ``|U^T (repaired - d)|_inf <= ||repaired - d||_1`` for entries of U in [-1, 1], so
        ``edge_objective(U^T d) + ||repaired - d||_1 + f(repaired)`` bounds it without a pass over U.
        A gap computed from it is an upper bound on the gap: still a certificate."""
        return self.primal_from_edges(repaired, edges) + float(np.abs(repaired - d).sum())

    def edge_objective(self, edges: NDArray[np.float64]) -> float:
        """The primal's hard part as a function of the edges ``U^T d``: ``max_q edges_q``."""
        return float(np.maximum.reduce(edges))  # (ndarray.max's Python-level wrapper: 0.7 us more)

    def gap_from_gradient(self, w: NDArray[np.float64], grad: NDArray[np.float64]) -> float:
        """``edge_objective(grad) - w . grad``: the duality gap at ``(d(w), w)`` when ``d(w)`` maximises
        exactly, with ``grad = U^T d(w)`` the dual gradient. By the Fenchel-Young equality
        ``f(d) = <d, -U w> + D(w)``, so ``P(d) - D(w) = max_q (U^T d)_q - w . U^T d`` (the
        Frank-Wolfe gap). A dual solver's cheap progress measure (O(t), no pass over the N
        examples); certificates recompute ``P(d)`` from d itself."""
        return self.edge_objective(grad) - float(w @ grad)

    def repair_dual(self, w: ArrayLike) -> tuple[NDArray[np.float64], float]:
        w = check_vector(w, "w", self.n_hypotheses)
        # (the ufuncs' reduce: w.min() and w.sum() without ndarray's Python-level wrappers)
        if np.minimum.reduce(w) >= 0.0 and abs(np.add.reduce(w) - 1.0) <= 1e-15 * w.size:
            return w, 0.0
        fixed = project_simplex(w)
        return fixed, float(np.abs(fixed - w).max())


class LastValue:
    """The value of a regulariser at the last d it was asked for, kept with a copy of that d's bytes:
    a boosting run evaluates ``f(d^{t-1})`` twice, in the certificate of the re-solve of iteration
    t - 1 (``primal_from_edges(d, grad)``, docs/math.md#erlpboost-stopping) and in the stopping rule
    of iteration t (``P^t(d^{t-1}) = max_q u^q . d^{t-1} + f(d^{t-1})``, the model with the new
    column), at the same d: the second is the first's value, the same bits, without a pass over the
    N examples (``value`` is a function of the regulariser and d only, and a d of the same dtype,
    shape and bytes is the same input). A d changed in place since has other bytes, and is
    evaluated again (so is an equal d with other bits: ``-0.0`` for ``0.0``, another dtype). The
    bytes are compared, not the entries: one ``memcmp`` of a copy instead of an elementwise
    comparison and its reduction (3.3 -> 1 us at N = 1,000).
    """

    __slots__ = ("entry",)

    def __init__(self) -> None:
        #: ``(regulariser, (dtype, shape, bytes) of d, f(d))`` of the last evaluation, or None
        self.entry: tuple | None = None

    def value(self, regularizer: ConvexFunction, d: NDArray[np.float64]) -> float:
        """``regularizer.value(d)``, kept for the next call (one tuple, replaced whole).

        Parameters
        ----------
        regularizer : ConvexFunction
            The regulariser (compared by identity: a model made by ``with_eta`` has its own).
        d : ndarray of shape (N,)
            The point (anything else is evaluated and not kept).

        Returns
        -------
        float
            ``f(d)``.
        """
        if not isinstance(d, np.ndarray):
            return regularizer.value(d)
        key = _bytes_key(d)
        entry = self.entry
        if entry is not None and entry[0] is regularizer and entry[1] == key:
            return entry[2]
        value = regularizer.value(d)
        self.entry = (regularizer, key, value)
        return value

    def keep(self, regularizer: ConvexFunction, d: NDArray[np.float64], value: float) -> None:
        """Keeps ``value`` as ``regularizer.value(d)``, computed by the caller with the regulariser's
        own kernel (the same bits), for the next :meth:`value` at this d."""
        self.entry = (regularizer, _bytes_key(d), value)


def _bytes_key(d: NDArray[np.float64]) -> tuple:
    """What :class:`LastValue` compares: d's dtype, shape and bytes."""
    return (d.dtype, d.shape, d.tobytes())


class MaxEdgeModel(MaxEdgeWeights, Model):
    """``min_d max_q (U^T d)_q + f(d)`` and its dual ``max_{w in simplex} -f*(-U w)``.

    Subclasses choose the regulariser ``f`` (attribute ``regularizer``), the cap ``1/nu`` of the
    feasible set and the gradient of the smooth part of ``f`` used by the active-set recovery.

    Parameters
    ----------
    U : array_like, shape (N, t)
        The edge matrix, ``U[n, q] = y_n h_q(x_n)`` in [-1, 1].
    """

    regularizer: ConvexFunction
    nu: float = 1.0
    #: the regulariser's last value (:class:`LastValue`), shared by the copies a boosting run makes of
    #: the model (``with_columns``, ``with_eta``); None: none kept (this default)
    regularizer_values: LastValue | None = None

    def regularizer_value(self, d: NDArray[np.float64]) -> float:
        """``f(d)``: ``regularizer.value(d)``, or the value kept in :attr:`regularizer_values` where it
        is that of this regulariser at a d equal to this one, entry for entry (the same bits)."""
        values = self.regularizer_values
        if values is None:
            return self.regularizer.value(d)
        return values.value(self.regularizer, d)

    # --- objectives and maps -------------------------------------------------------------
    def primal_objective(self, d: ArrayLike) -> float:
        d = self._d(d)
        return self.primal_from_edges(d, self._edges(d))

    def primal_from_edges(
        self, d: NDArray[np.float64], edges: NDArray[np.float64], f: float | None = None
    ) -> float:
        """``max_q edges_q + f(d)`` with ``edges = U^T d`` computed by the caller (a dual solver has
        it: it is the gradient of D at the w that gave d, docs/math.md#augmented-lagrangian). ``f(d)``
        is ``f`` where given (the caller computed it with this model's regulariser by the kernel of
        its ``value``: the compiled re-solve's ``Evaluation.f``), kept in :attr:`regularizer_values`
        for the stopping rule's evaluation at this d; else taken from :attr:`regularizer_values`
        where it holds this very d (:class:`LastValue`), else computed."""
        if f is None:
            reg = self.regularizer_value(d)
        else:
            reg = f
            if self.regularizer_values is not None:
                self.regularizer_values.keep(self.regularizer, d, f)
        if not math.isfinite(reg):  # (a scalar: math's test, without numpy's dispatch)
            return np.inf
        return float(self.edge_objective(edges) + reg)

    def dual_objective(self, w: ArrayLike) -> float:
        w = self._w(w)
        if not self.on_simplex(w):
            return -np.inf
        return -self.regularizer.conjugate(-self._margins(w))

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """``d = grad f*(-U w)`` ([KG] Eq. 3.11 / 3.27)."""
        return self.regularizer.conjugate_grad(-self._margins(self._w(w)))

    # --- feasibility ---------------------------------------------------------------------
    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        d = self._d(d)
        if self.regularizer.in_domain(d, tol=0.0):
            return d, 0.0
        fixed = project_capped_simplex(d, self.nu)
        return fixed, float(np.abs(fixed - d).max())

    # --- cvxpy models --------------------------------------------------------------------
    def cvxpy_primal(self) -> CvxpyModel:
        d = cp.Variable(self.n_samples, name="d")
        gamma = cp.Variable(name="gamma")
        reg, cons = self.regularizer.cvxpy_value(d)
        edges = self.U.T @ d <= gamma  # multipliers: w
        problem = cp.Problem(cp.Minimize(gamma + reg), [edges, *cons])
        return CvxpyModel(problem, lambda: (d.value, edges.dual_value))

    def cvxpy_dual(self) -> CvxpyModel:
        w = cp.Variable(self.n_hypotheses, nonneg=True, name="w")
        objective, cons, link = self._dual_objective_expr(self.U @ w)
        problem = cp.Problem(cp.Maximize(objective), [cp.sum(w) == 1, *cons])
        return CvxpyModel(problem, lambda: (as_array(link.dual_value), w.value))

    # --- active-set recovery ---------------------------------------------------------------
    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """Recover (w, psi, beta) from d (docs/math.md#kkt-recovery): ``A_w = {q : u^q.d >= max edge - tol}``,
        ``A_psi`` = the capped coordinates; least squares with ``w >= 0``, ``sum w = 1``.
        ``tol=None`` tries several tolerances and keeps the best certified w."""
        d = self._d(d)
        edges = self.U.T @ d

        def recover(t: float) -> KKTMultipliers:
            active = np.flatnonzero(edges >= edges.max() - t)
            return self._stationarity_multipliers(d, self.U, active, tol=t, nonneg=True, sum_to_one=True)

        return self._tolerance_aware(recover, tol)


def as_array(x):
    return None if x is None else np.asarray(x, dtype=np.float64)
