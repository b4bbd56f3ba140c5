"""Active-set Newton on the smooth w-domain dual: the curvature machinery of ``method="auglag"``.

The dual ``D(w)`` of the entropy-regularised models is smooth and concave in the t hypothesis
weights (docs/solvers.md). Its Hessian on a face S of columns is
``H = -scale (U_S^T diag(s) U_S - a a^T / sum s)``, ``a = U_S^T s``, with the regulariser's curvature
weights s (``Model.dual_hessian``): forming it costs O(N |S|^2), a product ``H v`` only two passes
over U_S (``Model.dual_hessian_operator``), O(N |S|).

A Newton step solves ``(r I - H) x = g - mu 1``, ``sum x = 0`` (the simplex) on the face, with a
small ridge r. It is computed by projected conjugate gradients (:func:`pcg_step`) with exact
products ``H v`` at the current point, preconditioned by the inverse of ``r I - H_kept``
for a Hessian ``H_kept`` formed at an earlier point (:class:`Curvature`): after a new column
enters a boosting run, d moves little and the kept Hessian (extended by the new column's block,
one pass over U) is close, so a few products give the exact Newton step. The Hessian is formed
anew only when conjugate gradients need more than ``NewtonOptions.pcg_max`` products (the kept one
has aged) or where forming it is cheap (``NewtonOptions.kept_min_work``). Columns that leave the
face, or that a step would push below 0, are held at 0 by equality constraints of the same
projection (Gould, Hribar & Nocedal 2001, projected preconditioned CG), so the kept inverse serves
every sub-face.

Every step is taken by a backtracking line search on D along the projected path, and every
point carries its certified duality gap (:func:`certified_point`): the solver's stopping
decisions rest on certificates, never on the step computation's own accuracy. The knobs are a
:class:`~dualboost.solvers.options.NewtonOptions` (``DualEvaluator.options``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, eigh
from scipy.linalg.lapack import dpotrf, dpotri, dpotrs

from dualboost.solvers.contract import WDomain
from dualboost.solvers.options import NewtonOptions, defaults

__all__ = ["DualEvaluator", "Curvature", "newton_polish", "certified_point", "Point"]


class DualEvaluator:
    """The model's dual ``(D(w), grad D(w), d(w))`` with evaluation counting (and a warm-started copy
    of the regulariser, whose inner root searches start from the previous evaluation's), and the
    Newton steps' ``options``.

    Parameters
    ----------
    model : SmoothDual
        The model whose dual is evaluated.
    options : NewtonOptions or None
        The Newton steps' options, None for the defaults.
    """

    def __init__(self, model, options: NewtonOptions | None = None) -> None:
        self.model = model
        self.options = defaults(NewtonOptions) if options is None else options
        self.regularizer = model.regularizer.with_warm_starts()
        #: the regulariser of the certified points: the warm copy where every evaluation is an inner
        #: solve to machine precision from any start (``SmoothDual.warm_points``: the exact
        #: restrictions, docs/math.md#exact-restriction, whose cold start costs several warm ones),
        #: else the model's own. The returned Solution is certified with the model's own (``Point.primal``).
        self.point_regularizer = self.regularizer if model.warm_points else None
        #: dual evaluations, Hessians formed (``Model.dual_hessian``) and Hessian-vector products
        self.evaluations = self.hessians = self.products = 0
        #: Hessian-vector products made in single precision; Newton directions that reach a
        #: breakpoint within the full step (counted where ``newton_polish`` computes breakpoints)
        self.single_products = self.breakpoint_steps = 0

    def __call__(self, w: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        self.evaluations += 1
        return self.model.dual_value_and_grad(w, self.regularizer)

    def point(
        self, w: NDArray[np.float64], exact_below: float = np.inf, evaluated: tuple | None = None
    ) -> Point:
        """:func:`certified_point` at w, counted (``evaluated``: the model's own evaluation at w, made
        elsewhere by the library, which it takes instead of evaluating: not counted here)."""
        if evaluated is None or self.point_regularizer is not None:
            self.evaluations += 1
            evaluated = None
        return certified_point(self.model, w, exact_below, self.point_regularizer, evaluated)

    def curvature(self, w: NDArray[np.float64], face: NDArray[np.intp], d, sum_to_one: bool) -> Curvature:
        """:meth:`Curvature.at`, counted."""
        self.hessians += 1
        return Curvature.at(self.model, w, face, d, sum_to_one)

    def operator(
        self, w: NDArray[np.float64], columns: NDArray[np.intp], d, single: bool = False
    ) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
        """``Model.dual_hessian_operator``, its products counted (``single``: in single precision)."""
        product = self.model.dual_hessian_operator(w, columns, d, single=single)

        def counted(v: NDArray[np.float64]) -> NDArray[np.float64]:
            self.products += 1
            self.single_products += single
            return product(v)

        return counted


class Point(NamedTuple):
    """A point of the w-domain with its dual value, dual gradient, ``d_from_w(w)`` and certified
    relative gap, and what its certificate computed that :func:`~dualboost.solvers.certify.certify`
    takes instead of computing it again: ``repair``, ``model.repair_primal(d)`` (None where not
    computed); ``primal``, ``primal_objective`` of the repaired d computed exactly with the model's
    own regulariser (else NaN: a bound, or another regulariser); ``dual``, ``dual_objective(w)``
    (the model's own regulariser; else NaN)."""

    w: NDArray[np.float64]
    value: float
    grad: NDArray[np.float64]
    d: NDArray[np.float64]
    gap: float
    primal: float = np.nan
    dual: float = np.nan
    repair: tuple[NDArray[np.float64], float] | None = None


def certified_point(
    model,
    w: NDArray[np.float64],
    exact_below: float = np.inf,
    regularizer=None,
    evaluated=None,
) -> Point:
    """``D(w)``, ``grad D(w)`` and the relative certified gap of ``(d(w), w)`` for ``w`` on the
    w-domain, from one dual evaluation: d is moved onto the feasible set and the primal value is
    recomputed from it, the dual value is ``D(w)`` itself (``dual_objective`` for the orthant,
    whose D carries SoftBoost's extra terms).

    On the simplex the max-edge models give the gap from the gradient alone
    (``gap_from_gradient``, exact when d(w) is the exact maximiser); it is used while it is above
    ``exact_below`` (a solver's target: such a point cannot stop the solver), and the certified
    gap computed from d itself below it, so that every stopping decision rests on a certificate.
    There the primal value comes from the gradient ``U^T d`` too; where the repair moved d (by
    rounding, ~1e-16), from an upper bound (``primal_bound_from_edges``), so the gap is an upper
    bound on the repaired pair's, still a certificate, without a pass over U. The returned
    Solution is certified by :func:`~dualboost.solvers.certify.certify`, which takes the point's
    repair and objectives where they are exactly its own (``Point.repair``, ``primal``, ``dual``) and
    evaluates them otherwise.
    ``regularizer``: a warm-started copy of the model's (``DualEvaluator.point_regularizer``), None
    for its own.

    Parameters
    ----------
    model : SmoothDual
        The model.
    w : ndarray
        A point of the w-domain.
    exact_below : float
        The gap below which the certified gap is computed from d itself.
    regularizer : object or None
        A warm-started copy of the model's regulariser, None for its own.
    evaluated : dualboost.solvers.compiled.Evaluation, optional
        ``model.dual_value_and_grad(w)`` with the model's own regulariser as the library evaluated it
        elsewhere (the compiled re-solve's last evaluation: its ``value``, ``grad`` and ``d``), taken
        instead of evaluating it here; the certificate is computed from it as from its own (only with
        ``regularizer`` None: a ValueError otherwise). Where its ``f`` is finite, d passed
        ``repair_primal``'s membership test (the capped simplex at tolerance 0) and ``f`` is f(d), both
        by the functions this certificate would call (``compiled.Evaluation``): the repair is then d
        itself and the primal value takes ``f`` (``primal_from_edges``), without a pass over d.

    Returns
    -------
    Point
        ``w`` with its dual value, gradient, d and certified relative gap.
    """
    f = None  # f(d) as the compiled evaluation computed it, with d exactly feasible (None: not known)
    if evaluated is None:
        value, grad, d = model.dual_value_and_grad(w, regularizer)
    elif regularizer is None:
        value, grad, d = evaluated[:3]
        f = evaluated.f if math.isfinite(evaluated.f) else None
    else:
        raise ValueError("evaluated is the model's own evaluation: it takes no other regularizer")
    max_edge = model.w_domain is WDomain.SIMPLEX  # with SmoothDual's max-edge members (auglag.accepts)
    if max_edge:
        dual = value
        own_dual = float(value) if regularizer is None else np.nan
        estimate = model.gap_from_gradient(w, grad)
        gap = estimate / max(1.0, abs(value + estimate))
        if gap > exact_below:
            return Point(w, float(value), grad, d, float(gap), dual=own_dual)
    else:
        d, dual = model.d_from_w(w), model.dual_objective(w)
        own_dual = float(dual)
    repair = (d, 0.0) if f is not None else model.repair_primal(d)  # (d passed its membership test)
    repaired, moved = repair
    exact = max_edge and moved == 0.0
    if exact:  # U^T d is the gradient just computed
        primal = model.primal_from_edges(d, grad, f)
    elif max_edge:  # no pass over U either: a bound (MaxEdgeModel.primal_bound_from_edges)
        primal = model.primal_bound_from_edges(d, grad, repaired)
    else:
        primal = model.primal_objective(repaired)
    gap = (primal - dual) / max(1.0, abs(primal)) if math.isfinite(primal) else np.inf
    if not max_edge:  # the certificate also bounds d(w)'s distance from the feasible set (SoftBoost's
        gap = max(gap, moved)  # edges: the repaired gap is ~1e-11 where d(w) violates one by 2e-6)
    # the certificate's exact primal objective of the repaired d (certify need not repeat it): not the
    # bound, and with the model's own regulariser (the non-max-edge primal is always its own's)
    own = (exact and regularizer is None) or not max_edge
    return Point(w, float(value), grad, d, float(gap), float(primal) if own else np.nan, own_dual, repair)


# --- inverses ---------------------------------------------------------------------------------
def _scale(H: NDArray[np.float64]) -> float:
    """The size of H that its ridge is relative to (at least 1: H = 0 where everything is capped)."""
    return max(1.0, float(np.maximum.reduce(np.abs(H.diagonal()), initial=0.0)))  # (no ndarray.max wrapper)


def _well_conditioned(pivots: NDArray[np.float64]) -> bool:
    """Whether Cholesky pivots span at most 1e5 (the factored matrix's condition below 1e10)."""
    pivots = np.abs(pivots)
    return bool(pivots.size == 0 or pivots.min() > 1e-5 * pivots.max())


def _cholesky(A: NDArray[np.float64]) -> NDArray[np.float64] | None:
    """The lower Cholesky factor of A (overwritten; LAPACK's potrf, whose upper triangle is left as
    it was), or None when A is not numerically positive definite (not positive definite, or its
    pivots spanning more than 1e5)."""
    L, info = dpotrf(A, lower=1, clean=0, overwrite_a=1)
    return L if info == 0 and _well_conditioned(np.diag(L)) else None


def definite_factor(
    H: NDArray[np.float64], damping: float = 0.0, ridges: tuple[float, ...] = NewtonOptions.ridges
) -> tuple[NDArray[np.float64], float] | None:
    """``(L, r)``: the lower Cholesky factor of ``M = r I - H`` for the smallest relative ridge r
    of ``ridges`` (``NewtonOptions.ridges``; plus ``damping``) that makes M numerically definite;
    None when none does.
    Hundreds of nearly collinear stump columns make the exact H numerically singular; the ridge
    keeps the Newton step finite along the directions in which D is flat."""
    scale = _scale(H)
    for relative in ridges:
        ridge = relative * scale + damping
        A = -H
        A.flat[:: A.shape[0] + 1] += ridge  # the diagonal
        L = _cholesky(A)
        if L is not None:
            return L, ridge
    return None


def definite_inverse(
    H: NDArray[np.float64], damping: float = 0.0, ridges: tuple[float, ...] = NewtonOptions.ridges
) -> tuple[NDArray[np.float64], float] | None:
    """``(M^-1, r)`` for the factor of :func:`definite_factor` (LAPACK's potri); None where no ridge
    makes M definite or the inverse overflows. The inverse, not the factor, is kept: a
    conjugate-gradient iteration applies it by one matrix-vector product (a quarter of the two
    triangular solves' time at |S| = 260), and a new column extends it by a border in O(|S|^2)."""
    factor = definite_factor(H, damping, ridges)
    if factor is None:
        return None
    inverse, info = dpotri(factor[0], lower=1)
    if info != 0 or not np.isfinite(inverse).all():
        return None
    return _symmetrised(inverse), factor[1]


def _symmetrised(lower: NDArray[np.float64]) -> NDArray[np.float64]:
    """The symmetric matrix whose lower triangle is ``lower``'s (LAPACK fills one triangle)."""
    full = np.tril(lower)
    full += np.tril(lower, -1).T
    return full


def _bordered_inverse(inverse: NDArray[np.float64], ridge: float, H: NDArray[np.float64], m: int):
    """``M^-1`` for ``M = ridge I - H`` from the inverse of its leading m x m block ``M11``, by the
    block inverse with the Schur complement ``S = M22 - M21 M11^-1 M12``: O(m^2) per new column.
    S >= ridge I when H is negative semidefinite; its eigenvalues are raised to the ridge where
    rounding says otherwise (the inverse preconditions: it must be definite)."""
    B = -H[:m, m:]
    C = -H[m:, m:]
    C.flat[:: C.shape[0] + 1] += ridge  # the diagonal
    X = inverse @ B
    if not np.isfinite(X).all():
        return None
    values, vectors = eigh(C - B.T @ X, check_finite=False)
    S_inv = (vectors / np.maximum(values, ridge)) @ vectors.T
    XS = X @ S_inv
    k = H.shape[0]
    out = np.empty((k, k))
    out[:m, :m] = inverse + XS @ X.T
    out[:m, m:] = -XS
    out[m:, :m] = -XS.T
    out[m:, m:] = S_inv
    return out if np.isfinite(out).all() else None


class Curvature:
    """The Hessian of D at one point ``(w, d)`` on a face of columns, and the inverse of
    ``ridge I - H`` (:func:`definite_inverse`), kept from one Newton step to the next and from one
    solve to the next (in ``method="auglag"``'s warm-start state,
    :class:`~dualboost.solvers.auglag.AuglagState`, written by checkpoints through :meth:`to_dict`),
    the preconditioner of :func:`pcg_step`.

    ``face``: the columns, in the order of H's rows (columns added later come last, so that the
    inverse is extended by a border, O(|S|^2), instead of computed anew, O(|S|^3)); every entry of H
    is the exact Hessian at ``w`` (added columns' blocks too: the Hessian depends on w only through
    ``d``), so ``ridge I - H`` stays definite as it grows. ``key``: the model's parameters other
    than t (another eta or nu: not reused). Extending it (:meth:`covering`) returns a new object.

    Parameters
    ----------
    face : ndarray of int
        The columns, in the order of H's rows.
    H : ndarray of shape (len(face), len(face))
        The exact Hessian of D at ``w`` on the face.
    key : dict
        The model's parameters other than t.
    w : ndarray
        The point of the Hessian.
    d : ndarray
        ``d(w)`` at that point.
    shift : float or None
        rho of the inverted matrix ``ridge I - H + rho 1 1^T`` (0 off the simplex); None: ``max |H_ii|``
        of this H, computed when first read (:attr:`shift`: a compiled re-solve's Hessian, whose
        next re-solve is compiled again and never reads it, 2 % of a german boosting iteration).
    inverse : tuple or None
        A computed ``(M^-1, ridge)``, None to compute it when first needed.
    factor : tuple or None
        The compiled loop's last Cholesky factor of ``ridge I - H`` on some of H's rows, ``(F, rows,
        ridge)`` (``dualboost.solvers.compiled.resolve``), which its next re-solve extends to the rows
        appended since instead of factoring anew; None (the Python path's curvatures) where none.
    """

    def __init__(
        self,
        face: NDArray[np.intp],
        H: NDArray[np.float64],
        key: dict,
        w,
        d,
        shift: float | None = 0.0,
        inverse=None,
        factor: tuple | None = None,
    ) -> None:
        self.face, self.H, self.key = np.asarray(face, dtype=np.intp), H, key
        self.w, self.d = w, d
        self._shift = shift
        self._inverse = inverse  # (M^-1, ridge), (None, nan) where none exists; None: not computed yet
        #: the compiled loop's Cholesky factor ``(F, rows, ridge)`` of ``ridge I - H`` (or None)
        self.factor = factor

    @property
    def shift(self) -> float:
        """rho of the inverted matrix ``ridge I - H + rho 1 1^T`` (see :meth:`at`)."""
        if self._shift is None:
            self._shift = _scale(self.H)
        return self._shift

    @classmethod
    def at(cls, model, w: NDArray[np.float64], face: NDArray[np.intp], d, sum_to_one: bool) -> Curvature:
        """The exact Hessian at ``(w, d)`` on ``face``, O(N |S|^2) (``Model.dual_hessian``).

        With ``sum_to_one`` the matrix inverted is ``ridge I - H + rho 1 1^T`` (``rho = max |H_ii|``):
        on ``sum x = 0``, where every step lies, it acts as ``ridge I - H``, and it stays well
        conditioned where ``1`` is a direction in which D is flat (a column and its negation:
        ``U = [u, -u]``), which would otherwise put ``1/ridge`` into the projected step."""
        H = model.dual_hessian(w, face, d)
        return cls(face, H, cls.key_of(model), w, d, _scale(H) if sum_to_one else 0.0)

    @staticmethod
    def key_of(model) -> dict:
        """N and ``Model.parameters()``: the state is reused only under equal ones."""
        return {"N": float(model.n_samples)} | {k: float(v) for k, v in model.parameters().items()}

    def to_dict(self) -> dict:
        """This Hessian, its point, its inverse (if computed) and its key, as arrays and JSON scalars
        (d only where it is a numpy array; a distributed one is evaluated again from w), so that a
        run resumed from a checkpoint takes the same steps as an uninterrupted one."""
        inverse, ridge = self._inverse if self._inverse and self._inverse[0] is not None else (None, np.nan)
        return {
            "face": self.face,
            "hessian": self.H,
            "inverse": np.zeros((0, 0)) if inverse is None else inverse,
            "ridge": float(ridge),  # nan: not computed (again when needed)
            "key": json.dumps(self.key, sort_keys=True),
            "w": np.asarray(self.w, dtype=np.float64),
            "d": self.d if isinstance(self.d, np.ndarray) else np.zeros(0),
            "shift": float(self.shift),
        } | _factor_entries(self.factor)

    @classmethod
    def from_dict(cls, data: dict) -> Curvature:
        """The Hessian written by :meth:`to_dict`."""
        inverse = None
        if np.isfinite(data["ridge"]):
            inverse = (np.asarray(data["inverse"], dtype=np.float64), float(data["ridge"]))
        face = np.asarray(data["face"], dtype=np.intp)
        H = np.asarray(data["hessian"], dtype=np.float64)
        d = np.asarray(data["d"], dtype=np.float64)
        w = np.asarray(data["w"], dtype=np.float64)
        d = d if d.size else None
        factor = None
        if "factor" in data:
            rows = np.asarray(data["factor_rows"], dtype=np.intp)
            factor = (np.asarray(data["factor"], dtype=np.float64), rows, float(data["factor_ridge"]))
        return cls(face, H, json.loads(data["key"]), w, d, float(data["shift"]), inverse, factor)

    def usable_for(self, model) -> bool:
        """Whether its point lies in ``model``'s w-space (the same columns, or columns appended
        since, which enter with weight 0) and its parameters are the model's."""
        return self.key == self.key_of(model) and self.w.size <= model.n_hypotheses

    def inverse(
        self, ridges: tuple[float, ...] = NewtonOptions.ridges
    ) -> tuple[NDArray[np.float64], float] | None:
        """``(M^-1, ridge)`` of :func:`definite_inverse`, computed once per Hessian; None where no
        ridge of ``ridges`` makes ``M = ridge I - H`` numerically definite."""
        if self._inverse is None:
            self._inverse = definite_inverse(self.shifted(self.H), ridges=ridges) or (None, np.nan)
        return None if self._inverse[0] is None else self._inverse

    def covering(
        self,
        model,
        face: NDArray[np.intp],
        ridges: tuple[float, ...] = NewtonOptions.ridges,
    ) -> Curvature:
        """This Hessian extended to every column of ``face``: the new columns' rows and columns at
        this Hessian's point (``Model.dual_hessian_block``, one pass over U) are appended, and the
        inverse is extended by their border (the compiled re-solve extends H in its loop instead,
        ``dualboost.solvers.compiled.resolve``). Columns of this face that ``face`` lacks stay (the
        step holds them at 0). ``self`` when nothing is new."""
        new = face[~_members(face, self.face, model.n_hypotheses)]
        if not new.size:
            return self
        columns = np.concatenate((self.face, new))
        m, k = self.face.size, columns.size
        w = np.zeros(model.n_hypotheses)  # appended columns: weight 0
        w[: self.w.size] = self.w
        H = np.empty((k, k))
        H[:m, :m] = self.H
        block = model.dual_hessian_block(w, columns, new, self.d)
        H[:, m:] = block
        H[m:, :m] = block[:m].T
        inverse = self.inverse(ridges)
        if inverse is not None:  # (None when the border overflowed: computed anew from H if needed)
            bordered = _bordered_inverse(inverse[0], inverse[1], self.shifted(H), m)
            inverse = None if bordered is None else (bordered, inverse[1])
        return Curvature(columns, H, self.key, w, self.d, self.shift, inverse)

    def shifted(self, H: NDArray[np.float64]) -> NDArray[np.float64]:
        """``H - rho 1 1^T`` (a copy), so that the inverted matrix is ``ridge I - H + rho 1 1^T``."""
        return H - self.shift


def _factor_entries(factor: tuple | None) -> dict:
    """A compiled Cholesky factor ``(F, rows, ridge)`` as :meth:`Curvature.to_dict` writes it (none
    without one)."""
    if factor is None:
        return {}
    F, rows, ridge = factor
    return {
        "factor": np.asarray(F, dtype=np.float64),
        "factor_rows": np.asarray(rows),
        "factor_ridge": float(ridge),
    }


def _members(items: NDArray[np.intp], of: NDArray[np.intp], size: int) -> NDArray[np.bool_]:
    """Whether each of ``items`` is one of ``of`` (column indices below ``size``): a mask lookup,
    ``np.isin`` without its sort."""
    mask = np.zeros(size, dtype=bool)
    mask[of] = True
    return mask[items]


# --- steps ------------------------------------------------------------------------------------
def _constraints(k: int, sum_to_one: bool, held: NDArray[np.intp]) -> NDArray[np.float64]:
    """B (k rows) of a Newton step's equality constraints ``B^T x = 0``: the column ``1`` (``sum x =
    0``, with ``sum_to_one``) and the unit vectors of the ``held`` rows (``x_j = 0``)."""
    B = np.zeros((k, int(sum_to_one) + held.size))
    if sum_to_one:
        B[:, 0] = 1.0
    B[held, np.arange(int(sum_to_one), B.shape[1])] = 1.0
    return B


def factored_step(
    H: NDArray[np.float64],
    g: NDArray[np.float64],
    damping: float,
    sum_to_one: bool,
    held: NDArray[np.intp] | None = None,
    factor: tuple[NDArray[np.float64], float] | None = None,
    ridges: tuple[float, ...] = NewtonOptions.ridges,
) -> tuple[NDArray[np.float64] | None, tuple[NDArray[np.float64], float] | None]:
    """``(x, factor)``: ``x = argmax g.x - x.M.x/2`` subject to ``B^T x = 0`` for ``M = r I - H`` with
    the ridge of :func:`definite_factor` (``factor``: that factor, when an earlier call made it),
    where B's columns are ``1`` (``sum x = 0``, with ``sum_to_one``) and the unit vectors of the
    ``held`` rows (``x_j = 0``): one solve with the factor for the right-hand sides ``g`` and B,
    ``x = M^-1 g - M^-1 B (B^T M^-1 B)^-1 B^T M^-1 g``. ``(None, None)`` where no ridge makes M
    definite. The step on an exact Hessian (no inverse formed: a third of the work and a handful
    of LAPACK calls, what the small instances of a boosting run spend their time on); columns
    held in a later round of :func:`face_step` reuse the factor instead of factoring the smaller
    Hessian anew (on diabetes at eta = 6e3 half the factorizations were such second rounds)."""
    factor = factor or definite_factor(H, damping, ridges)
    if factor is None:
        return None, None
    held = np.zeros(0, dtype=np.intp) if held is None else held
    B = _constraints(g.size, sum_to_one, held)
    rhs = np.empty((g.size, 1 + B.shape[1]))  # the right-hand sides g and B in one array
    rhs[:, 0], rhs[:, 1:] = g, B
    x, info = dpotrs(factor[0], rhs, lower=1, overwrite_b=1)
    if info != 0 or not np.isfinite(x).all():
        return None, None
    step, Z = x[:, 0], x[:, 1:]
    if Z.shape[1] == 1 and not held.size:  # sum x = 0 alone (most steps): 1.M^-1 1 > 0, M is definite
        step = step - (step.sum() / Z[:, 0].sum()) * Z[:, 0]
    elif Z.shape[1]:  # B^T M^-1 B is definite where B has full column rank (held rows are distinct)
        step = step - Z @ _definite_solve(B.T @ Z, B.T @ step)
        step[held] = 0.0  # zero up to rounding: exactly
    return step, factor


def _definite_solve(G: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """``G^-1 b`` for the small symmetric positive semidefinite ``G = B^T M^-1 B`` of a step's
    constraints: by its Cholesky factor where that is well conditioned (a few microseconds), else by
    least squares with a relative cutoff of 1e-14 (where M is nearly singular along a held column
    or 1, G is too, and those constraints are then nearly redundant in M's metric). On a9a's stumps
    (N = 1000, t = 58) least squares took 60-80 us a call, a fifth of a Newton step."""
    L = _cholesky(G.copy())
    if L is not None:
        y, info = dpotrs(L, b, lower=1)
        if info == 0 and np.isfinite(y).all():
            return y
    return np.linalg.lstsq(G, b, rcond=1e-14)[0]


class _Projection:
    """``z = P r``: the preconditioner ``M^-1`` projected onto ``{x : B^T x = 0}``,
    ``P = M^-1 - Y (B^T Y)^-1 Y^T`` with ``Y = M^-1 B``; B's columns are ``1`` (``sum x = 0``, the
    simplex) and the unit vectors of the held columns (``x_j = 0``). ``P r`` minimises
    ``x.M.x/2 - r.x`` under the constraints: with ``M = r I - H`` it is the constrained Newton step."""

    def __init__(self, inverse: NDArray[np.float64], sum_to_one: bool, held: NDArray[np.intp]) -> None:
        self.inverse = inverse
        parts = ([inverse.sum(axis=1)] if sum_to_one else []) + [inverse[:, j] for j in held]
        self.Y = np.column_stack(parts) if parts else None
        if self.Y is not None:
            B = _constraints(inverse.shape[0], sum_to_one, held)
            # (pseudo-inverse: where M is nearly singular along a held column or 1, G is too, and
            # those constraints are then nearly redundant in M's metric)
            G = B.T @ self.Y
            if not np.isfinite(G).all():
                raise LinAlgError("the preconditioner is not finite on the constraints")
            if G.shape == (1, 1) and G[0, 0] > 0.0:  # sum x = 0 alone (most steps): no decomposition
                self.G_inv = 1.0 / G
            else:
                self.G_inv = np.linalg.pinv(G, rcond=1e-14, hermitian=True)
            self.held = held

    def __call__(self, r: NDArray[np.float64]) -> NDArray[np.float64]:
        z = self.inverse @ r
        if self.Y is not None:
            z -= self.Y @ (self.G_inv @ (self.Y.T @ r))
            z[self.held] = 0.0  # zero up to rounding: exactly
        return z


def pcg_step(
    product: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    g: NDArray[np.float64],
    ridge: float,
    project: _Projection,
    rtol: float,
    max_products: int = NewtonOptions.pcg_max,
) -> NDArray[np.float64] | None:
    """The constrained Newton step ``argmax g.x - x.(r I - H).x/2`` subject to the projection's
    constraints, by projected preconditioned conjugate gradients (Gould, Hribar & Nocedal 2001) with
    ``product(v) = H v``: every iterate satisfies the constraints; stops when the preconditioned
    residual fell by ``rtol``. None when that takes more than ``max_products`` products, or when a
    direction of curvature below the ridge (rounding: ``r I - H >= r I``) shows up at once."""
    x = np.zeros(g.size)
    r = g.copy()
    z = project(r)
    p, rz = z.copy(), float(r @ z)
    if rz <= 0.0:
        return x if rz == 0.0 else None
    stop = max(rtol, 1e-12) ** 2 * rz  # below 1e-12 rounding decides, and CG breaks down
    for _ in range(max_products):
        Ap = ridge * p - product(p)
        curvature = float(p @ Ap)
        if not curvature > 0.5 * ridge * float(p @ p):  # below r I - H's least eigenvalue: rounding
            return x if x.any() else None  # (the Krylov space is exhausted: x is as good as it gets)
        alpha = rz / curvature
        x += alpha * p
        r -= alpha * Ap
        z = project(r)
        rz_next = float(r @ z)
        if not np.isfinite(rz_next):
            return None
        if rz_next <= stop:
            return x
        p = z + (rz_next / rz) * p
        rz = rz_next
    return None


#: what :func:`face_step` returns when the kept Hessian no longer preconditions: form the exact one
NEEDS_EXACT = object()


def face_step(
    point: Point,
    sum_to_one: bool,
    curvature: Curvature,
    face: NDArray[np.intp],
    damping: float,
    product,
    rtol: float,
    options: NewtonOptions,
):
    """The (damped) Newton direction on ``face`` (a subset of the curvature's columns; the rest are
    held at 0), with the columns at 0 that it would push below 0 held too (at most five rounds);
    None when no ascent direction is left.

    ``product``: ``v -> H v`` at the point over the curvature's columns when its Hessian is an
    older one: the undamped step is then the exact Newton step by :func:`pcg_step`, the kept inverse
    preconditioning; ``NEEDS_EXACT`` when that does not converge. ``product`` None: the curvature is
    the exact Hessian at the point, and its factor gives the step directly (:func:`factored_step`).
    ``damping`` > 0: the Levenberg-Marquardt shift, by the factor of the damped Hessian (the step is
    then a scaled gradient step, which the line search accepts)."""
    w, cols = point.w, curvature.face
    g = point.grad[cols]
    # (the exact Hessian is formed on the face itself: every column free)
    free = np.ones(cols.size, dtype=bool) if cols is face else np.isin(cols, face)
    keep = factor = None  # the columns of the first factored round and their factor
    for _ in range(5):
        if not free.any():
            return None
        held = np.flatnonzero(~free)
        inverse = None if damping > 0.0 or product is None else curvature.inverse(options.ridges)
        if inverse is None or held.size > options.max_held * cols.size:
            # the step of the (damped, exact or kept) Hessian on the free columns, by its factor
            if factor is None:
                keep = np.flatnonzero(free)
                H = curvature.H if keep.size == cols.size else curvature.H[np.ix_(keep, keep)]
                H = curvature.shifted(H)
            held_rows = np.flatnonzero(~free[keep])
            sub, factor = factored_step(H, g[keep], damping, sum_to_one, held_rows, factor, options.ridges)
            if sub is None:
                return NEEDS_EXACT if product is not None else None
            step = np.zeros(cols.size)
            step[keep] = sub
        else:
            try:
                project = _Projection(inverse[0], sum_to_one, held)
            except LinAlgError:  # the inverse lost its accuracy: form the Hessian anew
                return NEEDS_EXACT
            step = pcg_step(product, g, inverse[1], project, rtol, options.pcg_max)
            if step is None:
                return NEEDS_EXACT
        blocked = free & (w[cols] == 0) & (step < 0)
        if not blocked.any():
            break
        free &= ~blocked
    direction = np.zeros_like(w)
    direction[cols] = step
    return direction if float(point.grad @ direction) > 0 else None


def _forcing(gap: float, target: float, options: NewtonOptions) -> float:
    """Inexact Newton's forcing term at a point of certified gap ``gap``: the relative residual of
    its conjugate-gradient step, tighter near the target (``options.pcg_rtol``, ``pcg_near``)."""
    gap = max(gap, 0.0)
    return min(options.pcg_rtol, float(np.sqrt(gap)) if gap > options.pcg_near * target else gap)


def accepted(point: Point, candidate: Point, slope: float, rounding: float = NewtonOptions.rounding) -> bool:
    """Whether Newton's line search takes ``candidate`` from ``point`` (``slope``: ``grad D . (w' - w)``):
    where D rises by the Armijo fraction of the slope, or where the certified gap falls and D fell
    by no more than its rounding (``rounding``, relative). Near the optimum the predicted rise of D
    (1e-16..1e-13) drowns in its rounding (1e-11 at eta = 1e6) while the gap still drops to first
    order. A larger fall is an overshoot, not rounding: taking it let Newton cycle between two
    faces (diabetes, eta = 461: D 0.004792 -> 0.004782 -> 0.004792 ..., 36 steps)."""
    if candidate.value >= point.value + 1e-4 * slope:
        return True
    fall = point.value - candidate.value
    return candidate.gap < point.gap and fall <= rounding * max(1.0, abs(point.value))


def _clipped(w: NDArray[np.float64], sum_to_one: bool) -> NDArray[np.float64] | None:
    """``w`` clipped at 0 (and normalised on the simplex): a point of the projected Newton path;
    None where every weight is clipped."""
    w = np.clip(w, 0.0, None)
    if not sum_to_one:
        return w
    total = w.sum()
    return w / total if total > 0.0 else None


def _breakpoints(
    w: NDArray[np.float64], direction: NDArray[np.float64], negligible: float
) -> NDArray[np.float64] | None:
    """The step lengths at which the weights that ``direction`` lowers reach 0 (inf for the others),
    over the weights above ``negligible`` of their sum (``NewtonOptions.negligible_weight``: the
    clipped path takes the rest to 0 at once); None where it lowers none."""
    leaving = (direction < 0.0) & (w > negligible * float(np.abs(w).sum()))
    if not leaving.any():
        return None
    ratios = np.full(w.size, np.inf)
    ratios[leaving] = w[leaving] / -direction[leaving]
    return ratios


def _face_of(point: Point, sum_to_one: bool) -> NDArray[np.intp]:
    """The support of w plus the columns whose edge beats the current combination."""
    w, g = point.w, point.grad
    reference = (w @ g) / w.sum() if sum_to_one and w.sum() > 0 else 0.0
    return np.flatnonzero((w > 0) | (g > reference))


def newton_polish(
    evaluator: DualEvaluator,
    point: Point,
    target: float,
    *,
    sum_to_one: bool,
    max_steps: int = 50,
    kept: Curvature | None = None,
    patience: int | None = None,
    progress: float = 1.0,
    breakpoints: bool = False,
) -> tuple[Point, int, Curvature | None]:
    """Active-set Newton from ``point`` until the certified gap is below ``target``: on the face of
    w's support (plus the columns whose edge beats the current combination, minus those a step
    would push below 0), with a short backtracking line search on D along the projected path
    (Bertsekas) and Levenberg-Marquardt damping when the line search fails.

    Where the capped set changes D is C^1 but not C^2 (its curvature grows with eta), so the
    Hessian of the current piece can point past the optimum; then the step is damped
    (``H - lambda I``, lambda grows tenfold per failure and shrinks after full steps) instead of
    halved dozens of times. ``sum_to_one``: the step keeps ``sum w = 1`` (simplex) or is free in
    scale (orthant). ``kept``: a Hessian (:class:`Curvature`) from an earlier point; it
    preconditions the exact steps (:func:`pcg_step`) where forming the Hessian costs
    ``NewtonOptions.kept_min_work`` or more, else the Hessian is formed at each point. It gives up
    after ``patience`` (None: ``NewtonOptions.patience``) steps in a row that did not bring the best
    certified gap below ``progress`` times itself. ``breakpoints``: the first trial of a step stops
    where the first weight reaches 0 (the weights reaching 0 there are set to 0), instead of
    following the clipped path past it: at large eta that path bends away from the Newton direction
    and the gap rises (``AuglagOptions.breakpoint_eta``). The knobs are ``evaluator.options``.
    Returns the best certified point seen, the number of steps and the last Hessian (to keep for a
    warm start).

    Parameters
    ----------
    evaluator : DualEvaluator
        The model's dual, with the Newton options.
    point : Point
        The starting point.
    target : float
        The certified relative gap to reach.
    sum_to_one : bool
        Keep ``sum w = 1`` (simplex), else free in scale (orthant).
    max_steps : int
        The most Newton steps.
    kept : Curvature or None
        A Hessian from an earlier point, None for none.
    patience : int or None
        Steps without progress before giving up (None: ``NewtonOptions.patience``).
    progress : float
        The factor by which a step must bring the best gap down to count as progress.
    breakpoints : bool
        Stop a step's first trial where the first weight reaches 0.

    Returns
    -------
    point : Point
        The best certified point seen.
    steps : int
        The number of steps.
    curvature : Curvature or None
        The last Hessian, for a warm start.
    """
    model, options = evaluator.model, evaluator.options
    patience = options.patience if patience is None else patience
    steps = 0
    best, stalled, damping = point, 0, 0.0
    radius = options.radius
    current = product = None  # the curvature at the current point; v -> H v there (None: exact)
    fresh = False  # the exact Hessian is formed at the next point (the kept one aged)
    while best.gap > target and steps < max_steps and stalled < patience:
        steps += 1
        w = point.w
        rtol = _forcing(point.gap, target, options)
        if current is None:  # a new point: its face and curvature
            face = _face_of(point, sum_to_one)
            if not face.size:
                break
            reuse = (
                not fresh
                and kept is not None
                and model.hessian_work(face.size) >= options.kept_min_work
                and kept.usable_for(model)
            )
            if reuse:
                current = kept.covering(model, face, options.ridges)
                if np.setdiff1d(current.face, face).size > options.max_held * current.face.size:
                    reuse = False  # mostly columns that left the face: form it anew
            if reuse:
                single = (
                    rtol >= options.single_rtol
                    and model.n_samples * current.face.size >= options.single_min_work
                )
                product = evaluator.operator(w, current.face, point.d, single)
            else:
                current, product = evaluator.curvature(w, face, point.d, sum_to_one), None
            kept, fresh = current, False
            scale = _scale(current.H)
        products = evaluator.products
        direction = face_step(point, sum_to_one, current, face, damping * scale, product, rtol, options)
        # a slow conjugate-gradient step: the kept Hessian has aged, the next point forms it anew
        fresh = evaluator.products - products > options.pcg_refresh
        if direction is NEEDS_EXACT:
            current, fresh = None, True
            continue
        if direction is None:
            break
        g = point.grad
        # the first trial moves log d by at most the radius (docs/solvers.md#step-length)
        # (not a direction of the ridge's size: see NewtonOptions.singular)
        singular = np.abs(direction).max() > options.singular * max(1.0, float(np.abs(w).sum()))
        spread = 0.0
        if not singular:  # (dual_step_spread is 0 where the model has no bound)
            single = model.n_samples * model.n_hypotheses >= options.single_min_work
            spread = model.dual_step_spread(direction, point.d, single=single)
        first = alpha = min(1.0, radius / spread) if spread > 0.0 else 1.0
        # ... and stops where the first weight reaches 0 (docs/solvers.md#step-length): there those
        # weights are set to 0 exactly; beyond it the clipped path bends away from the direction
        ratios = _breakpoints(w, direction, options.negligible_weight) if breakpoints else None
        if ratios is not None and ratios.min() < 1.0:
            evaluator.breakpoint_steps += 1
        breakpoint = np.inf if singular or ratios is None else float(ratios.min())
        first = alpha = min(first, breakpoint)
        trial = None
        for _ in range(options.backtrack):  # projected Newton: backtrack along the clipped path
            trial_w = w + alpha * direction
            if alpha == breakpoint:  # (not rounding's 1e-18, which a later step would have to remove)
                trial_w[ratios == breakpoint] = 0.0
            trial_w = _clipped(trial_w, sum_to_one)
            if trial_w is None:  # every weight clipped: a shorter step
                alpha *= 0.5
                continue
            candidate = evaluator.point(trial_w, target)
            if accepted(point, candidate, float(g @ (trial_w - w))):
                trial = candidate
                break
            alpha *= 0.5
        if trial is None:
            # the piece's Hessian overshoots: damp it and try again from here
            damping = max(10.0 * damping, 1e-3)
            radius = max(options.radius_min, radius / 4.0)
            stalled += 1
            continue
        if alpha == 1.0:
            damping = damping / 10.0 if damping > 1e-3 else 0.0
        if spread > 0.0:  # the model held as far as the radius: trust it twice as far; it did not:
            # twice as far as the step the halvings took (the model held within a factor 2 beyond it)
            taken = alpha * spread
            grown, shrunk = min(options.radius_max, 2.0 * radius), max(options.radius_min, 2.0 * taken)
            radius = grown if alpha == first else shrunk
        point, current = trial, None
        stalled = 0 if point.gap < progress * best.gap else stalled + 1
        if point.gap < best.gap:  # D rises monotonically, the gap need not: keep the best point
            best = point
    return best, steps, kept
