"""The general relaxation scheme of [SS] Sec. 4.2 from any conjugate-library regulariser
(docs/math.md#general-relaxation; models M3, M7 of docs/math.md#model-catalogue).

With A in [-1, 1]^{N x n} (N examples, n hypotheses) and a convex regulariser f on d:

    primal (Def. 6):  min_{d in S^N}  max_j |(A^T d)_j| + f(d)
    dual   (Thm 3):   max_{w in B_1^n}  -(f + I_S)*(-A w)
                    = max_{w in B_1^n, gamma}  gamma - f*([gamma - A w]_+)      (Thm 7, under (i)-(iii))

``form`` picks the weight set: ``"abs"`` (above), ``"simplex"`` (the columns [A, -A], w in the
simplex of 2n entries; the same values, docs/math.md#signed-weights) or ``"edge"`` (the columns of A as they
are, no absolute values, w in the simplex: the max-edge form of LPBoost and ERLPBoost, [KG] Eqs.
2.2-2.3, 3.6, 3.10).

``f~ = f + I_S`` is derived by the conjugate calculus, never written by hand:

* (:mod:`dualboost.conjugates.simplex`) when f satisfies the conditions of Thm 7
  (:func:`~dualboost.conjugates.simplex.theorem7_conditions`), by Lemma 8
  (:class:`~dualboost.conjugates.SimplexRestriction`): the dual is then Thm 7's hinge form;
* otherwise by the library's closed forms where the simplex can be absorbed (an l_inf or l1 ball
  on the simplex is a capped simplex; an entropy plus a capped simplex is the capped softmax,
  docs/math.md#capped-softmax), else by the infimal convolution ``(f + I_S)* = f* [] max_i`` (:class:`Sum`).

The KKT map is ``d = grad f~*(-A w)`` ([SS] Lemma 18). :meth:`Relaxation.smoothed` gives the
entropy-smoothed pair of Eq. 8 (model M7) that the boosters of :mod:`dualboost.boosting.relaxation`
optimise.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_edge_matrix, check_scalar
from dualboost.conjugates import (
    ConvexFunction,
    RelativeEntropy,
    SimplexRestriction,
    project_capped_simplex,
    project_simplex,
    solve_cvxpy,
)
from dualboost.conjugates.simplex import (
    Theorem7Conditions,
    restrict,
    strictly_convex,
    theorem7_conditions,
)
from dualboost.conjugates.traits import SmoothPart
from dualboost.problems.base import CvxpyModel, KKTMultipliers
from dualboost.problems.max_edge import DOMAIN_TOL, MaxEdgeModel, as_array
from dualboost.solvers.contract import WDomain, implements

if TYPE_CHECKING:
    from dualboost.problems.relaxation_report import RelaxationReport

__all__ = ["Relaxation", "FORMS"]

#: ``"abs"``: w in the l1 ball over A ([SS]); ``"simplex"``: w in the simplex over [A, -A];
#: ``"edge"``: w in the simplex over A, edges without absolute values ([KG]).
FORMS = ("abs", "simplex", "edge")
#: membership tolerance of the primal repair (rounding of a projection's sum is ~1e-16 N)
_REPAIR_TOL = 1e-12
#: relative slacks of the face constraint in :meth:`Relaxation.d_from_w` when d is not unique
_FACE_SLACKS = (1e-9, 1e-7, 1e-5)
#: active-set tolerance of :meth:`Relaxation.kkt_from_d` without a smooth regulariser
_FACE_TOL = 1e-6


def _project_l1_ball(w: NDArray[np.float64]) -> NDArray[np.float64]:
    """Euclidean projection onto ``{||w||_1 <= 1}``: ``sign(w) * project_simplex(|w|)`` outside."""
    if np.abs(w).sum() <= 1.0:
        return w
    return np.sign(w) * project_simplex(np.abs(w))


# --- the model ---------------------------------------------------------------------------------
class Relaxation(MaxEdgeModel):
    """[SS] Def. 6 with the regulariser ``f`` (any :class:`~dualboost.conjugates.ConvexFunction` on R^N).

    The primal is ``min_{d in S} max_j |(A^T d)_j| + f(d)``, the dual ``max_{||w||_1 <= 1}
    -(f + I_S)*(-A w)``, derived by the conjugate calculus (docs/math.md#general-relaxation,
    docs/new-relaxation.md).

    Parameters
    ----------
    A : array_like, shape (N, n)
        The edge matrix, ``A[i, j] = y_i h_j(x_i)`` in [-1, 1].
    f : ConvexFunction
        The regulariser on d, of dimension N or free.
    form : str, default "abs"
        One of :data:`FORMS`: ``"abs"`` (weights in the l1 ball, edges in absolute value),
        ``"simplex"`` (the same problem over ``[A, -A]`` with weights in the simplex) or ``"edge"``
        (weights in the simplex over A, signed edges).

    Attributes
    ----------
    regularizer : ConvexFunction
        f~ = f + I_S, as the calculus derived it.
    conditions : Theorem7Conditions
        [SS] Thm 7's conditions on f.
    dual_form : str
        ``"theorem7"`` (the relaxed margin with hinge losses) or ``"general"``.
    U : ndarray
        The columns the weights act on: A, or [A, -A] in the simplex form.
    """

    name = "relaxation"

    def __init__(self, A: ArrayLike, f: ConvexFunction, form: str = "abs") -> None:
        if not isinstance(form, str) or form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(map(repr, FORMS))}; got {form!r}")
        A = check_edge_matrix(A, "A")
        if not isinstance(f, ConvexFunction):
            raise ValueError(f"f must be a ConvexFunction from dualboost.conjugates; got {type(f).__name__}")
        if f.n is not None and f.n != A.shape[0]:
            raise ValueError(f"f has dimension {f.n}, but A has N = {A.shape[0]} rows (one per example)")
        super().__init__(np.hstack([A, -A]) if form == "simplex" else A)
        self.A, self.f, self.form = A, f, form
        quick = theorem7_conditions(f, self.n_samples, full=False)
        self._conditions = quick if quick.hold else None
        self.regularizer, self._no_exact_conjugate = restrict(f, self.n_samples, quick.hold)
        if quick.hold:  # Lemma 8 finds out lazily when dom f misses the simplex: say it now
            try:
                self.regularizer.conjugate(np.zeros(self.n_samples))
            except ValueError as exc:
                raise ValueError(f"f: {exc}") from exc
        self.nu = float(getattr(self.regularizer, "nu", 1.0))
        self._anchor: NDArray[np.float64] | None = None
        self._simplex: Relaxation | None = None  # the simplex form of the abs form (simplex_form)
        #: the w-domain for the solver layer; the l1 ball of the abs form is none of the simplex,
        #: orthant and line that ``method="auglag"`` knows
        self.w_domain = WDomain.L1_BALL if form == "abs" else WDomain.SIMPLEX

    # --- description -------------------------------------------------------------------------
    @property
    def conditions(self) -> Theorem7Conditions:
        """[SS] Thm 7's conditions on f, all three checked (computed on first use)."""
        if self._conditions is None:
            self._conditions = theorem7_conditions(self.f, self.n_samples)
        return self._conditions

    @property
    def dual_form(self) -> str:
        """``"theorem7"`` (hinge form via Lemma 8) or ``"general"`` (``-(f + I_S)*(-A w)``)."""
        return "theorem7" if isinstance(self.regularizer, SimplexRestriction) else "general"

    @property
    def smooth_dual(self) -> bool:
        """``method="auglag"`` (the differentiable dual path) applies to the simplex forms with a
        strictly convex f~ (an entropy, ``(1/2)||.||_2^2``), whose conjugate has a gradient and a
        curvature: the capped softmax, or the exact inner solve of docs/math.md#exact-restriction."""
        return self.form != "abs" and super().smooth_dual

    def nonsmooth_reason(self) -> str:
        """Why ``method="auglag"`` does not apply (``""`` where it does): the ``"abs"`` form's l1-ball
        weights, or an f~ whose conjugate is not differentiable (no strictly convex part) or has no
        exact inner solve in the library."""
        if self.smooth_dual:
            return ""
        if self.form == "abs" and super().smooth_dual:
            return (
                "has its weights in the l1 ball (form 'abs'): auglag solves it through its simplex form "
                "over [A, -A] (simplex_form(), docs/math.md#signed-weights)"
            )
        why = self._no_exact_conjugate or "f~ has no gradient and curvature in the library"
        return f"is not smooth: {why}"

    @property
    def signed(self) -> bool:
        """Whether the weights carry signs (the l1 ball of the ``"abs"`` form)."""
        return self.form == "abs"

    @property
    def d_is_unique(self) -> bool:
        return strictly_convex(self.regularizer)

    def parameters(self) -> dict[str, float]:
        """The columns n of A (f is not a number: a warm-start state is reused only on the same A)."""
        return {"n": self.A.shape[1]}

    def describe(self) -> dict[str, float]:
        return {"N": self.n_samples, **self.parameters()}

    def __repr__(self) -> str:
        return f"Relaxation(A=<{self.n_samples} x {self.A.shape[1]}>, f={self.f!r}, form={self.form!r})"

    def with_columns(self, A: ArrayLike, form: str | None = None) -> Relaxation:
        """The same f (and f~, derived once) on another matrix A with the same N rows, in ``form``
        (default: this one's): what a totally corrective booster re-solves as columns arrive, without
        deriving f~ and checking Thm 7's conditions again (they depend on f and N only)."""
        form = self.form if form is None else form
        if not isinstance(form, str) or form not in FORMS:
            raise ValueError(f"form must be one of {', '.join(map(repr, FORMS))}; got {form!r}")
        A = check_edge_matrix(A, "A")
        if A.shape[0] != self.n_samples:
            raise ValueError(f"A has {A.shape[0]} rows; the relaxation has N = {self.n_samples}")
        other = copy.copy(self)
        MaxEdgeModel.__init__(other, np.hstack([A, -A]) if form == "simplex" else A)
        other.A, other.form, other._simplex = A, form, None
        other.w_domain = WDomain.L1_BALL if form == "abs" else WDomain.SIMPLEX
        return other

    def simplex_form(self) -> Relaxation | None:
        """The abs form as the simplex form over ``[A, -A]`` (docs/math.md#signed-weights: the same
        values), which ``method="auglag"`` solves where that form is smooth; None in the other forms
        or where it is not (made once per model)."""
        if self.form != "abs":
            return None
        if self._simplex is None:
            self._simplex = self.with_columns(self.A, form="simplex")
        return self._simplex if self._simplex.smooth_dual else None

    def warm_columns(self, n_previous: int) -> NDArray[np.intp]:
        """Where a warm start's weights go: in the simplex form, U = [A, -A], so the previous k columns
        of A (``n_previous = 2 k``) are U's columns ``0..k-1`` and ``n..n+k-1`` (n: A's columns now);
        a new column of A enters in both halves."""
        if self.form != "simplex" or n_previous % 2:
            return super().warm_columns(n_previous)
        k, n = n_previous // 2, self.A.shape[1]
        return np.r_[np.arange(k), n + np.arange(k)]

    def smoothed(self, beta: float) -> Relaxation:
        """The entropy-smoothed relaxation of [SS] Eq. 8 (model M7): f replaced by ``f + beta h``,
        ``h(d) = sum d log d + log N`` (the relative entropy to uniform), on the same A and form."""
        beta = check_scalar(beta, "beta")
        if beta <= 0:
            raise ValueError(f"beta must be > 0; got {beta!r}")
        uniform = np.full(self.n_samples, 1.0 / self.n_samples)
        return Relaxation(self.A, self.f + beta * RelativeEntropy(uniform), self.form)

    # --- curvature -----------------------------------------------------------------------------
    def dual_hessian(
        self, w: NDArray[np.float64], columns: NDArray[np.intp], d: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """:meth:`Model.dual_hessian`; in the simplex form, where the face holds a column and its
        negation (U = [A, -A]: a face of all 2n columns, from uniform w), from the Hessian on the
        distinct columns of A, ``H[i, j] = s_i s_j H_A[j(i), j(j)]`` with the signs s: a quarter of
        the O(N |S|^2) work."""
        columns = np.asarray(columns, dtype=np.intp)
        n = self.A.shape[1]
        if self.form != "simplex" or columns.size < 2:
            return super().dual_hessian(w, columns, d)
        base, inverse = np.unique(columns % n, return_inverse=True)
        if 2 * base.size > columns.size + base.size // 2:  # few pairs: nothing to save
            return super().dual_hessian(w, columns, d)
        H = super().dual_hessian(w, base, d)[np.ix_(inverse, inverse)]
        signs = np.where(columns < n, 1.0, -1.0)
        H *= signs[:, None]
        H *= signs[None, :]
        return H

    # --- objectives ----------------------------------------------------------------------------
    def edge_term(self, d: ArrayLike) -> float:
        """``max_j |(A^T d)_j|`` (``max_q (U^T d)_q`` in the edge form): the g(d^T A) of [SS] Thm 3."""
        return self.edge_objective(self.U.T @ self._d(d))

    def edge_objective(self, edges: NDArray[np.float64]) -> float:
        """``max_j |edges_j|`` (edge form: ``max_q edges_q``), ``edges = A^T d``."""
        return float(np.abs(edges).max() if self.signed else edges.max())

    def dual_objective(self, w: ArrayLike) -> float:
        """``-f~*(-U w)``: Thm 7's ``max_gamma gamma - f*([gamma - A w]_+)`` or the general form."""
        w = self._w(w)
        if self.signed:
            if np.abs(w).sum() > 1.0 + DOMAIN_TOL * max(1, w.size):
                return -np.inf
            return -self.regularizer.conjugate(-(self.U @ w))
        return super().dual_objective(w)

    def d_from_w(self, w: ArrayLike) -> NDArray[np.float64]:
        """``d = grad f~*(-U w)`` ([SS] Lemma 18). When f~ is not strictly convex (norm balls: an LP
        or SOCP), the maximisers of ``<-U w, d> - f~(d)`` form a face and not all of them are primal
        optimal; then, as for LPBoost, the best primal point on that face is returned (the primal
        with the face constraint ``f~(d) + <U w, d> <= -f~*(-U w) + slack``, slacks 1e-9, 1e-7, 1e-5
        relative)."""
        theta = -(self.U @ self._w(w))
        best = self.regularizer.conjugate_grad(theta)
        if self.d_is_unique:
            return best
        best_value = self.primal_objective(best)
        bound = -self.regularizer.conjugate(theta)
        for slack in _FACE_SLACKS:
            built = self.cvxpy_primal()
            d = next(v for v in built.problem.variables() if v.name() == "d")
            reg, cons = self.regularizer.cvxpy_value(d)
            face = reg - theta @ d <= bound + slack * max(1.0, abs(bound))
            problem = cp.Problem(built.problem.objective, [*built.problem.constraints, *cons, face])
            if solve_cvxpy(problem) not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE) or d.value is None:
                continue
            candidate, _ = self.repair_primal(d.value)
            value = self.primal_objective(candidate)
            if value < best_value:
                best, best_value = candidate, value
            if best_value - bound <= 1e-12 * max(1.0, abs(bound)):  # closes the gap with w: optimal
                break
        return best

    # --- feasibility ---------------------------------------------------------------------------
    def _domain_anchor(self) -> NDArray[np.float64] | None:
        """A point of dom f~ to pull points into the domain: the uniform d, else ``argmin f~ =
        grad f~*(0)``; ``None`` if neither passes the membership test (computed once)."""
        if self._anchor is None:
            uniform = np.full(self.n_samples, 1.0 / self.n_samples)
            candidates = [uniform, lambda: self.regularizer.conjugate_grad(np.zeros(self.n_samples))]
            self._anchor = np.full(self.n_samples, np.nan)
            for candidate in candidates:
                point = candidate() if callable(candidate) else candidate
                if self.regularizer.in_domain(point, tol=_REPAIR_TOL):
                    self._anchor = point
                    break
        return None if np.isnan(self._anchor).any() else self._anchor

    def repair_primal(self, d: ArrayLike) -> tuple[NDArray[np.float64], float]:
        """Project onto the (capped) simplex; if f~ has further constraints (e.g. an l2 ball), move
        towards a point of dom f~ (:meth:`_domain_anchor`) by bisection until inside (dom f~ is
        convex). Membership is tested to 1e-12, well inside the 1e-9 the objectives accept."""
        d = self._d(d)
        if self.regularizer.in_domain(d, tol=0.0):
            return d, 0.0
        fixed = project_capped_simplex(d, self.nu)
        anchor = None if self.regularizer.in_domain(fixed, tol=_REPAIR_TOL) else self._domain_anchor()
        if anchor is not None:
            lo, hi = 0.0, 1.0
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if self.regularizer.in_domain((1 - mid) * fixed + mid * anchor, tol=_REPAIR_TOL):
                    hi = mid
                else:
                    lo = mid
            fixed = (1 - hi) * fixed + hi * anchor
        return fixed, float(np.abs(fixed - d).max())

    def repair_dual(self, w: ArrayLike) -> tuple[NDArray[np.float64], float]:
        if not self.signed:
            return super().repair_dual(w)
        w = self._w(w)
        fixed = _project_l1_ball(w)
        return fixed, float(np.abs(fixed - w).max())

    # --- cvxpy models --------------------------------------------------------------------------
    def _signed_columns(self) -> NDArray[np.float64]:
        """[A, -A] in the abs and simplex forms, A in the edge form: max edge = max |edge|."""
        return np.hstack([self.A, -self.A]) if self.signed else self.U

    def _fold(self, v: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
        """Weights over :meth:`_signed_columns` -> weights over U (``w = v+ - v-`` in the abs form)."""
        if v is None or not self.signed:
            return as_array(v)
        v = np.asarray(v, dtype=np.float64)
        n = self.A.shape[1]
        return v[:n] - v[n:]

    def cvxpy_primal(self) -> CvxpyModel:
        """``min_{d, s} s + f~(d)`` s.t. ``+-A^T d <= s``; the multipliers fold to w in the l1 ball."""
        d = cp.Variable(self.n_samples, name="d")
        s = cp.Variable(name="s")
        reg, cons = self.regularizer.cvxpy_value(d)
        edges = self._signed_columns().T @ d <= s
        problem = cp.Problem(cp.Minimize(s + reg), [edges, *cons])
        return CvxpyModel(problem, lambda: (d.value, self._fold(edges.dual_value)))

    def cvxpy_dual(self) -> CvxpyModel:
        """``max -f~*(-A w)`` over the weight set, f~* from the library's cvxpy forms."""
        if not self.signed:
            return super().cvxpy_dual()
        w = cp.Variable(self.n_hypotheses, name="w")
        objective, cons, link = self._dual_objective_expr(self.U @ w)
        problem = cp.Problem(cp.Maximize(objective), [cp.norm1(w) <= 1, *cons])
        return CvxpyModel(problem, lambda: (as_array(link.dual_value), w.value))

    # --- w from d ----------------------------------------------------------------------------
    def kkt_from_d(self, d: ArrayLike, tol: float | None = None) -> KKTMultipliers:
        """w from d on the active set ``{q : edge_q >= max edge - tol}`` of the signed columns.

        With a smooth regulariser (entropies) by the linear stationarity system (docs/math.md#kkt-recovery;
        ``tol=None`` tries several tolerances, as every model); otherwise by maximising the dual
        over the active face, where every optimal w lives by complementary slackness (``tol=None``
        means 1e-6: a larger face only helps the maximisation; ``psi = 0``, ``beta = nan`` and
        ``residual`` is the relative gap ``P(d) - D(w)``).
        """
        d = self._d(d)
        columns = self._signed_columns()
        edges = columns.T @ d

        def active(t: float) -> NDArray[np.intp]:
            return np.flatnonzero(edges >= edges.max() - t)

        if implements(self.regularizer, SmoothPart):

            def recover(t: float) -> KKTMultipliers:
                kkt = self._stationarity_multipliers(
                    d, columns, active(t), tol=t, nonneg=True, sum_to_one=True
                )
                kkt.w = self._fold(kkt.w)
                return kkt

            return self._tolerance_aware(recover, tol)
        face = active(_FACE_TOL if tol is None else tol)
        v = cp.Variable(face.size, nonneg=True, name="w_active")
        objective, cons, _ = self._dual_objective_expr(columns[:, face] @ v)
        problem = cp.Problem(cp.Maximize(objective), [cp.sum(v) == 1, *cons])
        solve_cvxpy(problem)
        full = np.zeros(columns.shape[1])
        if v.value is not None:
            weights = np.clip(v.value, 0.0, None)
            full[face] = weights / max(weights.sum(), 1e-300)
        w = self._fold(full)
        primal = self.primal_objective(d)
        residual = abs(primal - self.dual_objective(w)) / max(1.0, abs(primal))
        return KKTMultipliers(
            w=w,
            psi=np.zeros(self.n_samples),
            beta=float("nan"),
            residual=float(residual),
            active_w=face,
            active_psi=np.array([], dtype=np.intp),
        )

    def verify(
        self,
        methods: Iterable[str] = ("clarabel", "ecos", "scs"),
        sides: Iterable[str] = ("primal", "dual"),
        **kwargs,
    ) -> RelaxationReport:
        """Solve both sides with each method and report values, gaps, maps, Fenchel-Young residuals
        and Thm 7's conditions (:func:`dualboost.problems.relaxation_report.verify_relaxation`)."""
        from dualboost.problems.relaxation_report import verify_relaxation

        return verify_relaxation(self, methods=methods, sides=sides, **kwargs)
