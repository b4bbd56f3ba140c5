"""The hand-written dual path: augmented Lagrangian around L-BFGS-B (spec B.10, [KG] Ch. 4.1).

The w-domain dual ``D(w)`` of ERLPBoost, Binary ERLPBoost, SoftBoost and the corrective
subproblems has its auxiliary multipliers eliminated exactly by the conjugate library (psi by the
capped softmax, beta by a safeguarded 1-D root), so it is a smooth concave function of the t
hypothesis weights alone, with gradient ``U^T d(w)`` (spec Part D item 7). By w-domain:

* **simplex** (ERLPBoost, Binary ERLPBoost): minimise
  ``L_A(w) = -D(w) - lam c(w) + c(w)^2 / (2 mu)``, ``c(w) = sum w - 1``, over ``w >= 0`` with
  scipy's L-BFGS-B (Eq. 4.1, with the sign of Part D item 8: -D is minimised); then
  ``lam <- lam - c/mu``, and ``mu`` shrinks tenfold when ``|c|`` did not drop fourfold;
* **orthant** (SoftBoost, w unnormalised): L-BFGS-B on ``-D`` over ``w >= 0``;
* **line** (the corrective subproblems M8, M9): ``a -> D(w(a))`` is concave in one variable, so
  its maximiser is the root of the monotone derivative ``x . d(a)`` (bracketed, Brent).

Every outer iteration normalises w onto its domain and computes the certified gap
``primal_objective(d_from_w(w)) - dual_objective(w)``; the solver stops when it is below the
target, so the returned pair is certified by construction (and certified again by
:func:`~dualboost.solvers.certify.certify`, like every method's).

Large eta: near the optimum L-BFGS-B crawls (the capped set changes where D is only C^1, and the
curvature grows with eta), so an active-set Newton step with the model's exact Hessian finishes
the job; a cold start above ``CONTINUATION_ETA`` first solves the problem at eta/10 (recursively)
and starts from that solution.

Warm starts ([KG] B.10): a previous Solution with one hypothesis fewer starts from its w with a
corrective step for the new column, ``w <- ((1 - alpha) w, alpha)``, alpha by a line search on D
(B.11's alternative to the clipped ``alpha = clip(x . d / (eta ||x||_inf^2), 0, 1)``, which at
large eta is nearly 0), and goes to Newton at once: its face contains every column whose edge
beats the current combination, and one to four steps reach a driver's tolerance (measured on the
a9a, german and diabetes runs). With columns removed (``removed=[...]``), their weights are
dropped and the rest renormalised.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, LinAlgWarning, cho_factor, cho_solve, solve, solve_triangular
from scipy.optimize import brentq, minimize

from dualboost._threads import single_blas_thread
from dualboost.solvers.certify import certify
from dualboost.solvers.solution import Solution

__all__ = ["solve_auglag", "warm_start_weights", "CONTINUATION_ETA"]

#: cold starts above this eta go through eta/10, eta/100, ... (each stage warm-starts the next),
#: and so do warm starts that miss the tolerance within WARM_BUDGET L-BFGS-B iterations (1e3 rather
#: than 1e4: N = 5e4, t = 200, nu = 1, eta = 2441 took 216 iterations cold, 108 through eta = 244)
CONTINUATION_ETA = 1e3
WARM_BUDGET = 1000
#: L-BFGS-B iterations per round before Newton takes a turn
LBFGSB_ROUND = 300
#: the certified relative gap below which Newton takes over from L-BFGS-B
NEWTON_GAP = 1e-2
#: ... or from the start when D is smooth (eta <= NEWTON_FIRST_ETA), its Hessian cheap (t <= NEWTON_FIRST_T):
#: measured at eta = 139 (nu = N/2, eps = 0.01), t = 10-58: 4-13 Newton steps instead of 44-87 L-BFGS-B
#: iterations, 1.7-3.5x faster; at eta = 461 (nu = N/10) Newton from uniform w meets capped-set
#: changes and loses (1.2-2x slower), so the threshold sits between
NEWTON_FIRST_ETA = 200.0
NEWTON_FIRST_T = 64
#: Newton steps without a better certified gap before L-BFGS-B takes over again
NEWTON_PATIENCE = 5
#: Newton steps tried first after a new column (one to four suffice in boosting runs); if they do
#: not reach the tolerance, the corrective line search for the new column starts over
NEWTON_WARM_STEPS = 4
#: step halvings of Newton's line search before the step is damped instead (Levenberg-Marquardt)
NEWTON_BACKTRACK = 6
#: a Newton step with a kept (older) Hessian must cut the certified gap by this factor, else the next
#: step computes the exact Hessian
CHORD_RATE = 0.25
#: ... and only where an exact Hessian costs at least this many multiply-adds (N |S|^2): a failed
#: chord step costs up to NEWTON_BACKTRACK evaluations (2 N t each), so small Hessians are cheaper
#: computed anew (measured: on random instances with t = 30 and on a N = 500 stump run to t = 140
#: the chord steps cost more than they saved; at N = 20,000, |S| = 800 they halve the solve)
CHORD_MIN_WORK = 1e8


class _Counter:
    """The dual oracle with evaluation counting."""

    def __init__(self, model) -> None:
        self.model = model
        self.regularizer = model.regularizer.with_warm_starts()
        self.evaluations = 0

    def __call__(self, w: NDArray[np.float64]) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        self.evaluations += 1
        return self.model.dual_value_and_grad(w, self.regularizer)

    def point(self, w: NDArray[np.float64], exact_below: float = np.inf) -> _Point:
        """:func:`_certified_point` at w, counted."""
        self.evaluations += 1
        return _certified_point(self.model, w, exact_below)


class _Curvature:
    """A Hessian of D on a face of columns, kept in ``Solution.solver_state`` (and ``extra``) for the next
    warm start.

    After a column is appended the Hessian at the new optimum differs from the previous one by the
    change of d, which is small when the new column's weight is small (boosting at large t). Its
    entries over the old columns are reused and only the block of the new (or newly active) columns
    is computed, O(N |S|) instead of O(N |S|^2): measured on a news20-shaped run at t = 800 the
    exact Hessian was 73 % of the solve. The Newton step with it is a chord step: the line search
    still decides, and the exact Hessian replaces it when a step fails or converges slowly
    (:data:`CHORD_RATE`). The Cholesky factor of the Newton system is kept with it (chord steps
    reuse it; appended columns extend it). ``key``: the model's parameters other than t (another
    eta or nu: not reused).
    """

    def __init__(
        self, face: NDArray[np.intp], H: NDArray[np.float64], key: dict, factor=None, singular: bool = False
    ) -> None:
        self.face, self.H, self.key = face, H, key
        self._factor = factor  # (L, ridge), L None where singular; None: not computed yet
        #: whether the Hessian it was made from was numerically singular (so will this one, likely)
        self.singular = singular

    @staticmethod
    def key_of(model) -> dict:
        return {k: float(v) for k, v in model.describe().items() if k != "t"}

    #: the entries of ``Solution.extra`` that carry it (checkpoints save ``extra``, so that a resumed
    #: run takes the same steps as an uninterrupted one)
    EXTRA = ("kept_face", "kept_hessian", "kept_factor", "kept_ridge", "kept_singular", "kept_key")

    def to_extra(self, extra: dict) -> None:
        """Write this Hessian, its factor (if computed) and its key into ``extra``."""
        L, ridge = self._factor or (None, np.nan)  # ridge nan: not factored yet
        extra["kept_face"], extra["kept_hessian"] = self.face, self.H
        extra["kept_factor"] = np.zeros((0, 0)) if L is None else L
        extra["kept_ridge"] = float(ridge)
        extra["kept_singular"] = bool(self.singular)
        extra["kept_key"] = json.dumps(self.key, sort_keys=True)

    @classmethod
    def from_extra(cls, extra: dict) -> _Curvature | None:
        """The Hessian written by :meth:`to_extra` (a Solution read back from a checkpoint), or None."""
        if not all(name in extra for name in cls.EXTRA):
            return None
        factor = None
        if np.isfinite(extra["kept_ridge"]):
            L = np.asarray(extra["kept_factor"], dtype=np.float64)
            factor = (L if L.size else None, float(extra["kept_ridge"]))
        face = np.asarray(extra["kept_face"], dtype=np.intp)
        H = np.asarray(extra["kept_hessian"], dtype=np.float64)
        return cls(face, H, json.loads(extra["kept_key"]), factor, bool(extra["kept_singular"]))

    def usable_for(self, model) -> bool:
        return getattr(model, "dual_hessian_block", None) is not None and self.key == self.key_of(model)

    def factor(self) -> tuple:
        """``(L, ridge)``: the Cholesky factor of ``ridge I - H`` (:func:`_definite_factor`, None where
        it is numerically singular), computed once per Hessian: chord steps reuse it."""
        if self._factor is None:
            self._factor = _regularised_factor(self.H, singular=self.singular)
            self.singular = self._factor[0] is None
        return self._factor

    def on(self, model, w, face: NDArray[np.intp], d) -> _Curvature:
        """The Hessian on ``face``: kept entries where both columns are known, exact blocks for the
        columns that are not. When the kept face is a prefix of ``face`` (columns appended) its
        Cholesky factor is extended by the new rows, O(|S|^2) instead of O(|S|^3)."""
        if np.array_equal(face, self.face):
            return self
        pos = np.minimum(np.searchsorted(self.face, face), self.face.size - 1)
        known = self.face[pos] == face
        H = np.empty((face.size, face.size))
        kept = pos[known]
        H[np.ix_(known, known)] = self.H[np.ix_(kept, kept)]
        fresh = np.flatnonzero(~known)
        if fresh.size:
            block = model.dual_hessian_block(w, face, face[fresh], d)
            H[:, fresh] = block
            H[fresh, :] = block.T
        m = self.face.size
        factor = None
        appended = face.size > m and np.array_equal(face[:m], self.face)
        if appended and self._factor is not None and self._factor[0] is not None:
            factor = _bordered_factor(self._factor, H, m)
        return _Curvature(face, H, self.key, factor, self.singular)


def _ridge(H: NDArray[np.float64]) -> float:
    """The ridge that makes ``ridge I - H`` definite for a negative semidefinite H."""
    return 1e-12 * max(1.0, float(np.abs(np.diag(H)).max(initial=0.0)))


def _definite_factor(H: NDArray[np.float64], ridge: float) -> NDArray[np.float64] | None:
    """The lower Cholesky factor of ``A = ridge I - H``, or None when A is not numerically positive
    definite (not positive definite, or its pivots spanning more than 1e5: condition above 1e10)."""
    A = -H
    A[np.diag_indices_from(A)] += ridge
    try:
        L, _ = cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
    except LinAlgError:
        return None
    return L if _well_conditioned(np.diag(L)) else None


def _well_conditioned(pivots: NDArray[np.float64]) -> bool:
    """Whether Cholesky pivots span at most 1e5 (the factored matrix's condition below 1e10)."""
    pivots = np.abs(pivots)
    return bool(pivots.min() > 1e-5 * pivots.max())


def _regularised_factor(H: NDArray[np.float64], damping: float = 0.0, singular: bool = False) -> tuple:
    """``(L, ridge)`` for ``A = ridge I - H`` with the smallest ridge (plus ``damping``); L None when
    A is numerically singular (the Newton step then solves the KKT system), or without trying when
    ``singular`` (the previous Hessian of this face was: hundreds of nearly collinear stump columns
    of a news20-shaped run make every one singular, and a failed Cholesky costs as much as the
    LDL^T that follows it). A larger ridge instead was measured to slow the solves at large eta
    (random N = 1000, t = 100, eta = 13,816: 752 iterations instead of 448)."""
    ridge = _ridge(H) + damping
    return (None if singular else _definite_factor(H, ridge)), ridge


def _bordered_factor(factor, H: NDArray[np.float64], m: int):
    """``(L, ridge)`` of ``ridge I - H`` from that of its leading m x m block: the new rows are
    ``L21 = B^T L11^-T`` and the Cholesky factor of the Schur complement ``C - L21 L21^T``; None where
    that complement is not numerically definite."""
    L11, ridge = factor
    B = -H[:m, m:]
    C = -H[m:, m:]
    C[np.diag_indices_from(C)] += ridge
    L21 = solve_triangular(L11, B, lower=True, check_finite=False).T
    try:
        L22 = np.linalg.cholesky(C - L21 @ L21.T)
    except np.linalg.LinAlgError:
        return None  # computed anew when needed
    if not _well_conditioned(np.r_[np.diag(L11), np.diag(L22)]):
        return None
    k = H.shape[0]
    L = np.zeros((k, k))
    L[:m, :m] = L11
    L[m:, :m] = L21
    L[m:, m:] = L22
    return L, ridge


class _Point(NamedTuple):
    """A point of the w-domain with its dual value, dual gradient, ``d_from_w(w)`` and certified
    relative gap."""

    w: NDArray[np.float64]
    value: float
    grad: NDArray[np.float64]
    d: NDArray[np.float64]
    gap: float


def _certified_point(model, w: NDArray[np.float64], exact_below: float = np.inf) -> _Point:
    """``D(w)``, ``grad D(w)`` and the relative certified gap of ``(d(w), w)`` for ``w`` on the
    w-domain, from one dual evaluation: d is moved onto the feasible set and the primal value is
    recomputed from it, the dual value is ``D(w)`` itself (``dual_objective`` for the orthant,
    whose D carries SoftBoost's extra terms).

    On the simplex the max-edge models give the gap from the gradient alone
    (``gap_from_gradient``, exact when d(w) is the exact maximiser); it is used while it is above
    ``exact_below`` (a solver's target: such a point cannot stop the solver), and the certified
    gap computed from d itself below it, so that every stopping decision rests on a certificate.
    """
    value, grad, d = model.dual_value_and_grad(w)
    if model.w_domain == "simplex":
        dual = value
        if hasattr(model, "gap_from_gradient"):
            estimate = model.gap_from_gradient(w, grad)
            gap = estimate / max(1.0, abs(value + estimate))
            if gap > exact_below:
                return _Point(w, float(value), grad, d, float(gap))
    else:
        d, dual = model.d_from_w(w), model.dual_objective(w)
    repaired, moved = model.repair_primal(d)
    if moved == 0.0 and hasattr(model, "primal_from_edges"):  # U^T d is the gradient just computed
        primal = model.primal_from_edges(d, grad)
    else:
        primal = model.primal_objective(repaired)
    gap = (primal - dual) / max(1.0, abs(primal)) if np.isfinite(primal) else np.inf
    return _Point(w, float(value), grad, d, float(gap))


def _normalised(w: NDArray[np.float64]) -> NDArray[np.float64]:
    w = np.clip(w, 0.0, None)
    total = w.sum()
    return w / total if total > 0 else np.full(w.size, 1.0 / w.size)


def warm_start_weights(
    model, warm_start: Solution | None, removed: Sequence[int] | None
) -> NDArray[np.float64] | None:
    """The starting w for ``model`` from a previous solution (see the module docstring), or None."""
    if warm_start is None:
        if removed:
            raise ValueError("removed= needs warm_start= (the solution before the columns were removed)")
        return None
    w = np.asarray(warm_start.w, dtype=np.float64)
    if removed:
        idx = np.asarray(removed, dtype=int)
        if idx.size and (idx.min() < 0 or idx.max() >= w.size or np.unique(idx).size != idx.size):
            raise ValueError(f"removed must list distinct column indices of warm_start.w (0..{w.size - 1})")
        w = np.delete(w, idx)
        if model.w_domain == "simplex":
            w = _normalised(w)
    t = model.n_hypotheses
    if w.size == t:
        return w
    if w.size == t - 1 and model.w_domain != "line":
        if model.w_domain == "orthant":  # SoftBoost: w is unnormalised, the new weight starts at 0
            return np.r_[w, 0.0]
        return np.r_[_normalised(w), 0.0]  # the new column enters at 0: see _solve_simplex
    raise ValueError(
        f"warm_start has {w.size} weights after removals; the model has t = {t} hypotheses "
        "(a warm start may add one column, the last, or remove columns listed in removed=)"
    )


def _corrective_step(oracle: _Counter, w_old: NDArray[np.float64]) -> NDArray[np.float64]:
    """``w(a) = (1 - a) w_old + a e_t`` at a near-best ``a`` in [0, 1]: the corrective step of
    [KG] B.10 for the new column t by a line search on D (B.11's alternative to the clipped
    ``alpha = clip(x . d / (eta ||x||_inf^2), 0, 1)``, which at large eta is nearly 0). The slope
    ``g(a) . (e_t - w_old)`` is non-increasing in a (D is concave); a bracketed root to 1e-3 in a
    is enough for a starting point (Newton then finishes), a handful of dual evaluations."""
    direction = -w_old.copy()
    direction[-1] += 1.0

    def slope(a: float) -> float:
        return float(oracle(w_old + a * direction)[1] @ direction)

    if slope(0.0) <= 0.0:
        return w_old
    if slope(1.0) >= 0.0:
        return w_old + direction
    return w_old + brentq(slope, 0.0, 1.0, xtol=1e-3, rtol=1e-3, maxiter=60) * direction


def _solve_simplex(model, oracle, w, target, max_iter, new_column, kept=None):
    """Augmented Lagrangian rounds of L-BFGS-B, handing over to Newton when close (or crawling);
    when Newton stalls (the capped set changed under it), L-BFGS-B rounds resume from its point.
    ``kept``: a Hessian kept from the previous solve, for the first Newton steps after a new column.
    Returns the point, the iterations and the last Hessian."""
    point = oracle.point(_normalised(w), target)
    lam, mu = -float(point.w @ point.grad), 0.1
    c_prev, iterations, gtol = np.inf, 0, 1e-2

    def lagrangian(x):
        v, g, _ = oracle(x)
        c = x.sum() - 1.0
        return -v - lam * c + c * c / (2 * mu), -g + (c / mu - lam)

    if new_column:  # Newton first: its face takes the new column in
        point, iterations, kept = _newton_polish(
            oracle, point, target, sum_to_one=True, max_steps=NEWTON_WARM_STEPS, kept=kept
        )
        if point.gap > target:  # slow: the corrective line search, or the cold start (a new
            # column that is not a max-edge one, as in a random instance, can make (w, 0) a
            # worse start than uniform w): go on from the best certified of the three
            others = (_corrective_step(oracle, w), np.full(w.size, 1.0 / w.size))
            point = min([point, *(oracle.point(x, target) for x in others)], key=lambda p: p.gap)
    smooth = model.n_hypotheses <= NEWTON_FIRST_T and getattr(model, "eta", np.inf) <= NEWTON_FIRST_ETA
    if point.gap <= NEWTON_GAP or smooth:  # a good start, or a cheap Hessian of a smooth D: Newton first
        point, steps, kept = _newton_polish(oracle, point, target, sum_to_one=True, kept=kept)
        iterations += steps
    w = point.w
    for _ in range(60):
        if point.gap <= target or iterations >= max_iter:
            break
        res = _lbfgsb(lagrangian, w, gtol, max_iter - iterations)
        iterations += int(res.nit)
        w = res.x
        c = w.sum() - 1.0
        point = oracle.point(_normalised(w), target)
        lam -= c / mu
        if abs(c) > 0.25 * abs(c_prev):
            mu = max(mu / 10.0, 1e-10)
        c_prev = c
        gtol = max(gtol / 10.0, 1e-14)
        if point.gap <= NEWTON_GAP or res.nit >= LBFGSB_ROUND:
            point, steps, kept = _newton_polish(oracle, point, target, sum_to_one=True, kept=kept)
            iterations += steps
    return point, iterations, kept


def _lbfgsb(fun, x0, gtol, budget):
    """One round of L-BFGS-B on ``w >= 0`` (at most LBFGSB_ROUND iterations)."""
    return minimize(
        fun,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * x0.size,
        options={"maxiter": max(1, min(LBFGSB_ROUND, budget)), "maxcor": 20, "ftol": 0.0, "gtol": gtol},
    )


def _newton_step(
    H: NDArray[np.float64],
    g: NDArray[np.float64],
    sum_to_one: bool,
    damping: float = 0.0,
    factor: tuple | None = None,
) -> NDArray[np.float64]:
    """The step maximising ``g.s + s.H.s/2 - damping s.s/2`` (H negative semidefinite; a tiny
    ridge makes it definite), subject to ``sum s = 0`` when ``sum_to_one``. With ``A = ridge I - H``
    (positive definite) the step is ``A^-1 (g - mu 1)``, ``mu = 1.A^-1 g / 1.A^-1 1``: one Cholesky
    factorisation and two triangular solves (half the cost of an LDL^T of the KKT system);
    ``factor``: ``(L, ridge)`` when the caller has it (damping 0; L None: A is singular). When A
    is numerically singular (its Cholesky pivots span more than 1e5, or it is not positive
    definite), the symmetric KKT system by LDL^T (``scipy.linalg.solve``), least squares if that
    is singular too. ``damping`` > 0 is the Levenberg-Marquardt shift: large values turn the step
    into a short (projected) gradient step."""
    k = g.size
    L, ridge = _regularised_factor(H, damping) if factor is None else factor
    if L is not None:
        if not sum_to_one:
            return cho_solve((L, True), g, check_finite=False)
        x, y = cho_solve((L, True), np.column_stack([g, np.ones(k)]), check_finite=False).T
        return x - (x.sum() / y.sum()) * y
    shifted = H - ridge * np.eye(k)
    if sum_to_one:
        kkt = np.zeros((k + 1, k + 1))
        kkt[:k, :k] = shifted
        kkt[:k, k] = kkt[k, :k] = 1.0
        rhs = np.r_[-g, 0.0]
    else:
        kkt, rhs = shifted, -g
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", LinAlgWarning)
            step = solve(kkt, rhs, assume_a="sym", check_finite=False)
    except (LinAlgError, LinAlgWarning):
        step = np.linalg.lstsq(kkt, rhs, rcond=None)[0]
    return step[:k]


def _face_step(point: _Point, sum_to_one: bool, curvature: _Curvature, damping: float):
    """The (damped) Newton direction on the face of ``curvature`` (its columns and Hessian), with
    the columns at 0 that it would push below 0 dropped from the face (at most five rounds); None
    when no ascent direction is left. Undamped on the whole face, the Hessian's kept Cholesky
    factor is used."""
    w, g = point.w, point.grad
    H, face = curvature.H, curvature.face
    keep = np.ones(face.size, dtype=bool)
    for _ in range(5):
        cols = face[keep]
        if not cols.size:
            return None
        if damping == 0.0 and keep.all():
            step = _newton_step(H, g[cols], sum_to_one, factor=curvature.factor())
        else:
            step = _newton_step(H[np.ix_(keep, keep)], g[cols], sum_to_one, damping)
        blocked = (w[cols] == 0) & (step < 0)
        if not blocked.any():
            break
        keep[np.flatnonzero(keep)[blocked]] = False
    direction = np.zeros_like(w)
    direction[cols] = step
    return direction if float(g @ direction) > 0 else None


def _newton_polish(
    oracle: _Counter, point: _Point, target, *, sum_to_one, max_steps=50, kept: _Curvature | None = None
) -> tuple[_Point, int, _Curvature | None]:
    """Active-set Newton on the face of w's support (plus the columns whose edge beats the current
    combination, minus those the step would push below 0), with the model's exact Hessian
    (``Model.dual_hessian``), a short backtracking line search on D along the projected path
    (Bertsekas) and Levenberg-Marquardt damping when the line search fails.

    Where the capped set changes D is C^1 but not C^2 (its curvature grows with eta), so the
    Hessian of the current piece can point past the optimum; then the step is damped
    (``H - lambda I``, lambda grows tenfold per failure and shrinks after full steps, the same
    Hessian reused) instead of halved dozens of times: a damped step is a scaled gradient step,
    which always rises. ``sum_to_one``: the step keeps ``sum w = 1`` (simplex) or is free in
    scale (orthant). ``kept``: an older Hessian (:class:`_Curvature`) to start with. Where a Hessian
    costs CHORD_MIN_WORK or more it is kept for the next step while the steps cut the gap
    by CHORD_RATE (chord steps, Shamanskii's variant of Newton), and computed anew at the next point
    when one fails or converges slowly. Returns the best certified point seen, the number of steps
    and the last Hessian (to keep for a warm start).
    """
    model = oracle.model
    steps = 0
    best, stalled, damping = point, 0, 0.0
    current = None  # the Hessian at the current point (a _Curvature)
    chord = kept is not None
    while best.gap > target and steps < max_steps and stalled < NEWTON_PATIENCE:
        steps += 1
        w, g = point.w, point.grad
        if current is None:  # a new point: its face and Hessian
            support = w > 0
            reference = (w @ g) / w.sum() if sum_to_one and w.sum() > 0 else 0.0
            support |= g > reference  # columns whose edge beats the current combination enter the face
            face = np.flatnonzero(support)
            if not face.size:
                break
            chord = chord and model.n_samples * face.size**2 >= CHORD_MIN_WORK and kept.usable_for(model)
            if chord:
                current = kept.on(model, w, face, point.d)
            else:
                H = model.dual_hessian(w, face, point.d)
                singular = kept is not None and kept.singular
                current = _Curvature(face, H, _Curvature.key_of(model), singular=singular)
            kept = current
            scale = max(1e-300, float(np.abs(np.diag(current.H)).max(initial=0.0)))
        direction = _face_step(point, sum_to_one, current, damping * scale)
        if direction is None:
            break
        alpha, trial = 1.0, None
        for _ in range(NEWTON_BACKTRACK):  # projected Newton: backtrack along the clipped path
            trial_w = np.clip(w + alpha * direction, 0.0, None)
            if sum_to_one:
                trial_w /= trial_w.sum()
            candidate = oracle.point(trial_w, target)
            # Near the optimum the predicted rise of D (1e-16..1e-13) drowns in its rounding
            # (1e-11 at eta = 1e6) while the certified gap still drops to first order: accept a
            # step that improves either.
            if candidate.value >= point.value + 1e-4 * float(g @ (trial_w - w)) or candidate.gap < point.gap:
                trial = candidate
                break
            alpha *= 0.5
        if trial is None:
            if chord:  # the kept Hessian is too old: the exact one, from here
                chord, current = False, None
                continue
            # the piece's Hessian overshoots: damp it and try again from here
            damping = max(10.0 * damping, 1e-3)
            stalled += 1
            continue
        if alpha == 1.0:
            damping = damping / 10.0 if damping > 1e-3 else 0.0
        # fast convergence: the next step keeps this Hessian (exact or kept), else computes it anew
        chord = trial.gap <= CHORD_RATE * point.gap
        point, current = trial, None
        if point.gap < best.gap:  # D rises monotonically, the gap need not: keep the best point
            best, stalled = point, 0
        else:
            stalled += 1
    return best, steps, kept


def _solve_orthant(model, oracle, w, target, max_iter):
    """L-BFGS-B rounds on ``-D`` over ``w >= 0``, with Newton as in :func:`_solve_simplex`."""
    iterations, gtol = 0, 1e-4

    def negated(x):
        v, g, _ = oracle(x)
        return -v, -g

    point = oracle.point(w)
    for _ in range(12):
        if point.gap <= target or iterations >= max_iter:
            break
        res = _lbfgsb(negated, point.w, gtol, max_iter - iterations)
        iterations += int(res.nit)
        point = oracle.point(np.clip(res.x, 0.0, None))
        gtol = max(gtol / 100.0, 1e-15)
        if point.gap <= NEWTON_GAP or res.nit >= LBFGSB_ROUND:
            point, steps, _ = _newton_polish(oracle, point, target, sum_to_one=False)
            iterations += steps
    return point, iterations


def _solve_line(model, oracle, a0, max_iter):
    """Maximise ``D(w(a))``: root of ``phi(a) = x . d(a)``, which is non-increasing in a."""
    slope_of_w = np.r_[-model.w_prev, 1.0]  # dw/da

    def phi(a: float) -> float:
        return float(oracle(model.weights(a))[1] @ slope_of_w)

    f0 = phi(a0)
    if f0 == 0.0:
        return a0, 1
    step, lo, hi = 1.0, a0, a0
    for _ in range(200):  # expand until phi changes sign (it does: the problem is feasible)
        if f0 > 0:
            hi = a0 + step
            if phi(hi) <= 0:
                break
            lo = hi
        else:
            lo = a0 - step
            if phi(lo) >= 0:
                break
            hi = lo
        step *= 2.0
    else:
        raise RuntimeError("could not bracket the corrective step: the derivative never changes sign")
    a, info = brentq(
        phi, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=max_iter, full_output=True
    )
    return a, info.iterations


def _solve_on_simplex(
    model, oracle, w0, new_column, target, max_iter, kept: _Curvature | None = None
) -> tuple[_Point, int, _Curvature | None]:
    """The simplex-domain dual from ``w0`` (None: uniform), with eta continuation at large eta.

    At eta > CONTINUATION_ETA the dual is nearly an LP and L-BFGS-B and Newton crawl (measured on
    a diabetes run at eta = 1.2e6: 10,000 iterations from a warm start left gaps of 1e-2). A cold
    start, and a warm start that misses the tolerance within WARM_BUDGET iterations, first solve
    the problem at eta/10 (recursively, from w0 or from where the warm start got to) and start
    from that solution. ``kept``: the previous solve's Hessian (:class:`_Curvature`). Returns the
    point, the iterations and the last Hessian.
    """
    large_eta = getattr(model, "eta", 0.0) > CONTINUATION_ETA
    iterations = 0
    if w0 is not None:
        budget = min(max_iter, WARM_BUDGET) if large_eta else max_iter
        point, iterations, kept = _solve_simplex(
            model, oracle, _normalised(w0), target, budget, new_column, kept
        )
        if not large_eta or point.gap <= target:
            return point, iterations, kept
        w0 = point.w
    if large_eta:
        if w0 is None:  # the uniform start may be optimal already (a9a's stumps at nu = 1 often are)
            start = oracle.point(np.full(model.n_hypotheses, 1.0 / model.n_hypotheses), target)
            if start.gap <= target:
                return start, iterations, None
        coarse_model = model.with_eta(model.eta / 10.0)
        coarse, steps, _ = _solve_on_simplex(
            coarse_model, _Counter(coarse_model), w0, False, target, max_iter
        )
        w0, iterations = coarse.w, iterations + steps
    w0 = np.full(model.n_hypotheses, 1.0 / model.n_hypotheses) if w0 is None else _normalised(w0)
    point, steps, kept = _solve_simplex(model, oracle, w0, target, max_iter, False)
    return point, iterations + steps, kept


def solve_auglag(
    model,
    side: str,
    tol: float,
    warm_start: Solution | None = None,
    *,
    max_iter: int = 10_000,
    removed: Sequence[int] | None = None,
) -> Solution:
    """Solve ``model``'s dual with the hand-written path and certify the pair.

    ``max_iter`` bounds the L-BFGS-B iterations summed over the outer loop; ``removed`` lists
    the columns removed since ``warm_start`` was computed. BLAS runs on one thread
    (:mod:`dualboost._threads` says why: measured 20x faster on small problems, and 16x on a
    large Gram matrix when the machine is busy).
    """
    with single_blas_thread():
        return _solve_auglag(model, side, tol, warm_start, max_iter, removed)


def _solve_auglag(model, side, tol, warm_start, max_iter, removed) -> Solution:
    if not getattr(model, "smooth_dual", False):
        if hasattr(model, "solve_linear_program"):
            why, use = "is a linear program", "method='highs' or a cvxpy method ('clarabel', 'ecos', 'scs')"
        else:
            why, use = (
                "is not differentiable, or has no closed-form gradient and curvature in dualboost",
                ("a cvxpy method ('clarabel', 'ecos', 'scs')"),
            )
        raise ValueError(
            f"method='auglag' needs a differentiable dual; the dual of {model.name} {why}: use {use}"
        )
    if side != "dual":
        raise ValueError("method='auglag' solves the dual (w-domain) side: use side='dual'")
    if not (isinstance(max_iter, int | np.integer) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    start = time.perf_counter()
    oracle = _Counter(model)
    w0 = warm_start_weights(model, warm_start, removed)
    target = 0.5 * tol
    if model.w_domain == "line":
        if w0 is None:  # the clipped corrective step of [KG] Alg. 4.1 (b) as the starting point
            d_prev = model.d_from_w(model.weights(0.0))
            norm = np.abs(model.direction).max()
            a0 = 0.0 if norm == 0 else float(np.clip(model.direction @ d_prev / (model.eta * norm**2), 0, 1))
        else:
            a0 = float(w0[-1])
        a, iterations = _solve_line(model, oracle, a0, max_iter)
        w = model.weights(a)
    elif model.w_domain == "orthant":
        w0 = np.zeros(model.n_hypotheses) if w0 is None else np.clip(w0, 0.0, None)
        point, iterations = _solve_orthant(model, oracle, w0, target, max_iter)
    else:
        new_column = w0 is not None and not removed and warm_start.w.size == model.n_hypotheses - 1
        kept = None
        if new_column:  # the previous solve's Hessian (rebuilt from extra after a checkpoint)
            kept = warm_start.solver_state
            kept = kept if isinstance(kept, _Curvature) else _Curvature.from_extra(warm_start.extra)
        point, iterations, kept = _solve_on_simplex(model, oracle, w0, new_column, target, max_iter, kept)
    if model.w_domain == "line":
        d = model.d_from_w(w)
    else:
        w, d = point.w, point.d
    solution = certify(
        model,
        d,
        w,
        tol=tol,
        method="auglag",
        side=side,
        iterations=iterations,
        solve_time=time.perf_counter() - start,
        solver_status="",
        extra={"evaluations": oracle.evaluations},
    )
    if model.w_domain == "simplex" and kept is not None:
        solution.solver_state = kept  # the last Hessian, for a warm start after a new column
        kept.to_extra(solution.extra)
    return solution
