"""The hand-written dual path: augmented Lagrangian around L-BFGS-B ([KG] Ch. 4.1).

docs/math.md#augmented-lagrangian has the formulas, docs/solvers.md the design and measurements.

The w-domain dual ``D(w)`` of ERLPBoost, Binary ERLPBoost, SoftBoost and the corrective
subproblems has its auxiliary multipliers eliminated exactly by the conjugate library (psi by the
capped softmax, beta by a safeguarded 1-D root), so it is a smooth concave function of the t
hypothesis weights alone, with gradient ``U^T d(w)`` (docs/math.md#erratum-kg-7). By w-domain:

* **simplex** (ERLPBoost, Binary ERLPBoost): minimise
  ``L_A(w) = -D(w) - lam c(w) + c(w)^2 / (2 mu)``, ``c(w) = sum w - 1``, over ``w >= 0`` with
  scipy's L-BFGS-B (Eq. 4.1, with the sign of docs/math.md#erratum-kg-8: -D is minimised); then
  ``lam <- lam - c/mu``, and ``mu`` shrinks tenfold when ``|c|`` did not drop fourfold;
* **orthant** (SoftBoost, w unnormalised): L-BFGS-B on ``-D`` over ``w >= 0``;
* **line** (the corrective subproblems M8, M9): ``a -> D(w(a))`` is concave in one variable, so
  its maximiser is the root of the monotone derivative ``x . d(a)`` (bracketed, Brent).

Every outer iteration normalises w onto its domain and computes the certified gap
``primal_objective(d_from_w(w)) - dual_objective(w)``; the solver stops when it is below the
target, so the returned pair is certified by construction (and certified again by
:func:`~dualboost.solvers.certify.certify`, like every method's).

Large eta: near the optimum L-BFGS-B crawls (the capped set changes where D is only C^1, and the
curvature grows with eta), so active-set Newton steps (:mod:`dualboost.solvers.newton`) finish
the job; a cold start above ``continuation_eta`` first solves the problem at eta/10 (recursively)
and starts from that solution, or, where the LP limit is cheap (``lp_cold_eta``, ``lp_cold_t``,
``lp_cold_min_samples``), takes Newton from the LP limit's solution first. The knobs are an
:class:`~dualboost.solvers.options.AuglagOptions` (docs/solvers.md#options).

Warm starts ([KG] Sec 4.1, docs/math.md#warm-start): a previous Solution with k >= 1 hypotheses
fewer (appended as U's last columns, or where ``SmoothDual.warm_columns`` places the previous
ones: a simplex relaxation's [A, -A]) starts from its w with the new columns at weight 0 and goes to
Newton at once: its face contains every column whose edge beats the current combination, and two
to four steps reach a driver's tolerance at eps = 1e-2, ten or more at 1e-3 (``newton_warm_steps``).
If they do not, the corrective step towards the new columns, ``w <- ((1 - alpha) w, alpha / k, ...,
alpha / k)`` with alpha by a line search on D (docs/math.md#corrective-step-size: the alternative to
the clipped ``alpha = clip(x . d / (eta ||x||_inf^2), 0, 1)``, which at large eta is nearly 0), or
the cold start continues. With columns removed (``removed=[...]``), their weights are dropped and
the rest renormalised; the kept Hessian loses their rows and columns (:func:`_without_columns`).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq, minimize

from dualboost._threads import single_blas_thread
from dualboost.solvers import compiled
from dualboost.solvers.certify import certify
from dualboost.solvers.contract import LinearProgram, SmoothDual, WDomain, implements
from dualboost.solvers.highs import HighsState, solve_primal_lp
from dualboost.solvers.newton import Curvature, DualEvaluator, Point, newton_polish
from dualboost.solvers.options import AuglagOptions, Stage, options_for
from dualboost.solvers.solution import Solution
from dualboost.solvers.state import SolverState, StateDict

__all__ = ["solve_auglag", "accepts", "warm_start_weights", "AuglagState"]

#: the LP entries of a state without an LP-limit state (:meth:`AuglagState.to_dict`)
_NO_LP = {"basis_columns": np.zeros(0, dtype=np.int8), "basis_rows": np.zeros(0, dtype=np.int8)}


@dataclass(frozen=True)
class AuglagState(SolverState):
    """``method="auglag"``'s warm-start state (``Solution.solver_state``, docs/solvers.md#warm-start-state):
    what a warm start after appended (or removed) columns reuses.

    ``curvature``: the last Newton Hessian on the simplex, its point and inverse
    (:class:`~dualboost.solvers.newton.Curvature`), which preconditions the next solve's first
    Newton steps; ``lp``: the LP limit's HiGHS model and basis from a solve at large eta
    (:class:`~dualboost.solvers.highs.HighsState`), from which the next start from the LP limit
    re-solves after the new columns instead of from scratch; ``start``: the compiled loop's last
    evaluation where the solve ended on it (:class:`~dualboost.solvers.compiled.Evaluation`, at the
    solution's w before certification), which the next compiled re-solve takes instead of evaluating
    its start again. Any may be None. Checkpoints write it by :meth:`to_dict`: the curvature's
    entries, the LP's basis as ``lp_*`` and the evaluation as ``start_*``."""

    kind: ClassVar[str] = "auglag"
    curvature: Curvature | None = None
    lp: HighsState | None = None
    start: compiled.Evaluation | None = None

    def to_dict(self) -> StateDict:
        """The curvature's entries (:meth:`Curvature.to_dict`, none without one), the LP's basis and
        the compiled evaluation (``start_*``, where there is one)."""
        entries = {} if self.curvature is None else self.curvature.to_dict()
        entries |= {f"lp_{k}": v for k, v in (self.lp.to_dict() if self.lp else _NO_LP).items()}
        if self.start is not None:  # (not f: a start is never certified from, f(d) is evaluated again)
            fields = self.start._asdict()
            entries |= {f"start_{k}": np.asarray(fields[k]) for k in _START_FIELDS}
        return entries

    @classmethod
    def from_dict(cls, data: StateDict) -> AuglagState:
        """The state written by :meth:`to_dict` (the LP's live model is rebuilt from its basis)."""
        curvature = Curvature.from_dict(data) if "hessian" in data else None
        lp = {k: data.get(f"lp_{k}", v) for k, v in _NO_LP.items()}
        start = None
        if "start_value" in data:
            value, grad, d, capped, w = (np.asarray(data[f"start_{k}"]) for k in _START_FIELDS)
            start = compiled.Evaluation(
                float(value),
                grad.astype(np.float64),
                d.astype(np.float64),
                capped.astype(np.uint8),
                w.astype(np.float64),
            )
        return cls(curvature, HighsState.from_dict(lp) if np.asarray(lp["basis_rows"]).size else None, start)


#: the fields of a compiled start (``compiled.Evaluation``) that a checkpoint keeps
_START_FIELDS = ("value", "grad", "d", "capped", "w")


def _state(
    curvature: Curvature | None, lp: HighsState | None, start: compiled.Evaluation | None = None
) -> AuglagState | None:
    """The state to keep: none without a curvature. (The LP's state alone would serve the next LP
    start, but keeping it changes which vertex a degenerate LP's re-solve returns, and with it the
    iterations; the solver keeps the choice it made when the LP state rode on the curvature.)"""
    return None if curvature is None else AuglagState(curvature, lp, start)


#: no new columns (a cold start, a re-solve, a stage after the warm start)
_NONE = np.zeros(0, dtype=np.intp)


def _carried_state(state, removed: Sequence[int] | None, new: NDArray[np.intp], t: int) -> AuglagState | None:
    """What a warm start reuses of the previous solve's state: all of it after appended columns
    (``new``: the new columns, U's last); after removed ones (``removed``) the Hessian without their
    rows and columns (:func:`_without_columns`) and no LP state (its HiGHS model has their rows);
    nothing from a warm start with neither (the same columns: a re-solve, which starts from w
    alone), nor where the new columns are not U's last (``SmoothDual.warm_columns``: the kept
    columns are renumbered)."""
    if not isinstance(state, AuglagState) or (new.size and new[0] != t - new.size):
        return None
    if not removed:
        return state if new.size else None
    curvature = None if state.curvature is None else _without_columns(state.curvature, np.asarray(removed))
    return _state(curvature, None)


def _stiff(model, options: AuglagOptions) -> bool:
    """Whether Newton's first trials stop at breakpoints (``newton_polish``'s ``breakpoints``): eta
    above ``options.breakpoint_eta``."""
    return model.eta_family and _eta(model) > options.breakpoint_eta


def _normalised(w: NDArray[np.float64]) -> NDArray[np.float64]:
    # (np.clip(w, 0.0, None)'s entries, 0.0 for -0.0 too, and w.sum(), without numpy's wrappers)
    w = np.maximum(w, 0.0)
    total = np.add.reduce(w)
    return w / total if total > 0 else np.full(w.size, 1.0 / w.size)


def warm_start_weights(
    model, warm_start: Solution | None, removed: Sequence[int] | None
) -> NDArray[np.float64] | None:
    """The starting w for ``model`` from a previous solution (see the module docstring), or None.

    Parameters
    ----------
    model : SmoothDual
        The model to be solved.
    warm_start : Solution or None
        A previous solution, None for none.
    removed : sequence of int or None
        The columns removed since ``warm_start``.

    Returns
    -------
    ndarray or None
        The starting weights, None where there is no usable warm start.
    """
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
        if model.w_domain is WDomain.SIMPLEX:
            w = _normalised(w)
    t = model.n_hypotheses
    if w.size == t:
        return w
    if w.size < t and model.w_domain is not WDomain.LINE:
        placed = np.zeros(t)  # the new columns enter at 0: see _solve_simplex
        # the previous columns where the model says (U's first ones but for a simplex relaxation)
        placed[model.warm_columns(w.size)] = w if model.w_domain is WDomain.ORTHANT else _normalised(w)
        return placed  # (SoftBoost's w on the orthant is unnormalised)
    raise ValueError(
        f"warm_start has {w.size} weights after removals; the model has t = {t} hypotheses "
        "(a warm start may append columns, U's last, or remove columns listed in removed="
        + (
            "; a corrective step's model has exactly the weights of its warm start)"
            if model.w_domain is WDomain.LINE
            else ")"
        )
    )


def _without_columns(curvature: Curvature, removed: NDArray[np.intp]) -> Curvature | None:
    """The kept Hessian of a warm start with the columns ``removed`` (indices into its point's w)
    taken out: their rows and columns of H dropped, the face renumbered, w without their weights.
    Its entries stay the Hessian at the kept d (a preconditioner of the next Newton steps, as after
    appended columns); the inverse is formed again on first use. None where the curvature's point
    does not have the columns ``removed`` names."""
    removed = np.unique(removed)
    if removed.size and removed.max() >= curvature.w.size:
        return None
    keep = ~np.isin(curvature.face, removed)
    face = curvature.face[keep]
    face = face - np.searchsorted(removed, face)  # each index less the removed columns before it
    H = curvature.H[np.ix_(keep, keep)]
    w = np.delete(curvature.w, removed)
    return Curvature(face, H, curvature.key, w, curvature.d, curvature.shift)


def _corrective_step(
    evaluator: DualEvaluator, w_old: NDArray[np.float64], new: NDArray[np.intp]
) -> NDArray[np.float64]:
    """``w(a) = (1 - a) w_old + a e`` at a near-best ``a`` in [0, 1], ``e`` uniform on the ``new``
    columns: the corrective step of docs/math.md#warm-start for the new columns (for
    one, the column t) by a line search on D (the alternative to the
    clipped ``alpha = clip(x . d / (eta ||x||_inf^2), 0, 1)``, which at large eta is nearly 0). The slope
    ``g(a) . (e_t - w_old)`` is non-increasing in a (D is concave); a bracketed root to 1e-3 in a
    is enough for a starting point (Newton then finishes), a handful of dual evaluations."""
    direction = -w_old.copy()
    direction[new] += 1.0 / new.size

    def slope(a: float) -> float:
        return float(evaluator(w_old + a * direction)[1] @ direction)

    if slope(0.0) <= 0.0:
        return w_old
    if slope(1.0) >= 0.0:
        return w_old + direction
    return w_old + brentq(slope, 0.0, 1.0, xtol=1e-3, rtol=1e-3, maxiter=60) * direction


def _solve_simplex(model, evaluator, w, target, max_iter, new, options, kept=None, continued=False):
    """Augmented Lagrangian rounds of L-BFGS-B, handing over to Newton when close (or crawling);
    when Newton stalls (the capped set changed under it), L-BFGS-B rounds resume from its point.
    ``new``: the columns new since the warm start (none: a re-solve, or a cold start);
    ``kept``: a Hessian kept from the previous solve, for the first Newton steps after new columns.
    ``continued``: w solves the problem at eta/10 (eta continuation); with a cheap Hessian Newton
    goes first (``options.newton_after_stage_t``). Returns the point, the iterations and the last
    Hessian."""
    point = evaluator.point(_normalised(w), target)
    lam, mu = -float(point.w @ point.grad), 0.1
    stiff = _stiff(model, options)  # Newton's breakpoints
    c_prev, iterations, gtol = np.inf, 0, 1e-2

    def lagrangian(x):
        v, g, _ = evaluator(x)
        c = x.sum() - 1.0
        return -v - lam * c + c * c / (2 * mu), -g + (c / mu - lam)

    if new.size:  # Newton first: its face takes the new columns in
        point, iterations, kept = newton_polish(
            evaluator,
            point,
            target,
            sum_to_one=True,
            max_steps=options.newton_warm_steps,
            kept=kept,
            breakpoints=stiff,
        )
        if point.gap > target:  # slow: the corrective line search, or the cold start (a new
            # column that is not a max-edge one, as in a random instance, can make (w, 0) a
            # worse start than uniform w): go on from the best certified of the three
            others = (_corrective_step(evaluator, w, new), np.full(w.size, 1.0 / w.size))
            point = min([point, *(evaluator.point(x, target) for x in others)], key=lambda p: p.gap)
    t = model.n_hypotheses
    smooth = t <= options.newton_first_t and model.eta_family
    smooth = smooth and _eta(model) <= options.newton_first_eta
    after_stage = continued and t <= options.newton_after_stage_t
    if point.gap <= options.newton_gap or smooth or after_stage:  # a good start, or a cheap Hessian
        # of a smooth D or from the previous continuation stage: Newton first
        point, steps, kept = newton_polish(
            evaluator, point, target, sum_to_one=True, kept=kept, breakpoints=stiff
        )
        iterations += steps
    w = point.w
    for _ in range(60):
        if point.gap <= target or iterations >= max_iter:
            break
        res = _lbfgsb(lagrangian, w, gtol, max_iter - iterations, options.lbfgsb_round)
        iterations += int(res.nit)
        w = res.x
        c = w.sum() - 1.0
        point = evaluator.point(_normalised(w), target)
        lam -= c / mu
        if abs(c) > 0.25 * abs(c_prev):
            mu = max(mu / 10.0, 1e-10)
        c_prev = c
        gtol = max(gtol / 10.0, 1e-14)
        if point.gap <= options.newton_gap or res.nit >= options.lbfgsb_round:
            point, steps, kept = newton_polish(
                evaluator, point, target, sum_to_one=True, kept=kept, breakpoints=stiff
            )
            iterations += steps
    return point, iterations, kept


def _lbfgsb(fun, x0, gtol, budget, round_length):
    """One round of L-BFGS-B on ``w >= 0`` (at most ``round_length`` iterations)."""
    return minimize(
        fun,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * x0.size,
        options={"maxiter": max(1, min(round_length, budget)), "maxcor": 20, "ftol": 0.0, "gtol": gtol},
    )


def _solve_orthant(model, evaluator, w, target, max_iter, options):
    """L-BFGS-B rounds on ``-D`` over ``w >= 0``, with Newton as in :func:`_solve_simplex`."""
    iterations, gtol = 0, 1e-4

    def negated(x):
        v, g, _ = evaluator(x)
        return -v, -g

    point = evaluator.point(w)
    for _ in range(12):
        if point.gap <= target or iterations >= max_iter:
            break
        res = _lbfgsb(negated, point.w, gtol, max_iter - iterations, options.lbfgsb_round)
        iterations += int(res.nit)
        point = evaluator.point(np.clip(res.x, 0.0, None))
        gtol = max(gtol / 100.0, 1e-15)
        if point.gap <= options.newton_gap or res.nit >= options.lbfgsb_round:
            point, steps, _ = newton_polish(evaluator, point, target, sum_to_one=False)
            iterations += steps
    return point, iterations


def _solve_line(model, evaluator, a0, max_iter):
    """Maximise ``D(w(a))``: root of ``phi(a) = x . d(a)``, which is non-increasing in a."""
    slope_of_w = model.weights(1.0) - model.weights(0.0)  # dw/da = (-w_prev, 1)

    def phi(a: float) -> float:
        return float(evaluator(model.weights(a))[1] @ slope_of_w)

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


@dataclass
class _Run:
    """A simplex-domain solve under way, what its stages share: the evaluator, the target gap, the
    iteration budget, the next stage's start ``w`` (None: uniform), the last Hessian ``kept`` and the
    LP limit's HiGHS state ``lp`` (both from the previous solve at first), the point a stage
    reached and the iterations so far."""

    evaluator: DualEvaluator
    target: float
    max_iter: int
    w: NDArray[np.float64] | None
    kept: Curvature | None = None
    lp: HighsState | None = None
    start: compiled.Evaluation | None = None
    point: Point | None = None
    iterations: int = 0

    @property
    def done(self) -> bool:
        """Whether the last stage reached the target."""
        return self.point is not None and self.point.gap <= self.target

    def took(
        self, point: Point, steps: int, kept: Curvature | None, start: compiled.Evaluation | None = None
    ) -> None:
        """A stage's end: its point (the next stage's start), its steps, its last Hessian and the
        compiled loop's evaluation at the point (None: the stage was not the compiled loop)."""
        self.point, self.kept, self.w, self.start = point, kept, point.w, start
        self.iterations += steps

    def report(self, options: AuglagOptions, name: str, steps: int) -> None:
        """The stage ``name`` that ended at ``self.point`` to ``options.callback``."""
        _report(options, name, self.evaluator.model, self.point.gap, steps)

    def result(self) -> tuple[Point, int, AuglagState | None]:
        return self.point, self.iterations, _state(self.kept, self.lp, self.start)


def _solve_on_simplex(
    model,
    evaluator,
    w0,
    new,
    target,
    max_iter,
    options: AuglagOptions,
    state: AuglagState | None = None,
    stage: bool = False,
) -> tuple[Point, int, AuglagState | None]:
    """The simplex-domain dual from ``w0`` (None: uniform), as a sequence of stages, each ending the
    solve where it reaches the target (docs/solvers.md#the-hand-written-dual-path-methodauglag):

    1. a warm start: Newton on the face of the ``new`` columns, then augmented Lagrangian rounds
       (:func:`_warm_start`); above ``lp_first_eta``, where the LP limit applies, a few Newton
       steps instead (:func:`_warm_newton`). Below ``continuation_eta`` it finishes the solve.
    2. at eta > continuation_eta, where the dual is nearly an LP and L-BFGS-B and Newton crawl
       (a diabetes run at eta = 1.2e6: 10,000 iterations from a warm start left gaps of 1e-2):
       the uniform start, which may be optimal (:func:`_uniform_start`, cold starts); then, for
       N <= lp_max_samples, after a warm start or for a cold start with a cheap LP (lp_cold_eta,
       lp_cold_t, lp_cold_min_samples), Newton from the LP limit's solution (:func:`_lp_limit_start`,
       re-solved from the previous solve's HiGHS model, ``state.lp``); where that falls short (or
       HiGHS fails), and from other cold starts (where the LP from scratch costs more: 3 s for a
       random 10,000 x 100 instance, continuation 0.09 s), the problem at eta/10
       (:func:`_continuation`, recursively, to coarse_gap);
    3. augmented Lagrangian rounds with Newton from the point reached (:func:`_augmented_lagrangian`),
       Newton first after a continuation stage where the Hessian is cheap.

    ``state``: the previous solve's :class:`AuglagState`; ``stage``: this is a continuation stage
    (whose cold start does not solve the LP). Returns the point, the iterations and the state to
    keep (the last Hessian and the LP limit's latest HiGHS state).
    """
    large = model.eta_family and _eta(model) > options.continuation_eta
    run = _Run(evaluator, target, max_iter, w0, *((state.curvature, state.lp, state.start) if state else ()))
    warm = w0 is not None
    if warm and _compiled_pays(model, evaluator, options):
        _compiled_start(model, run, options)
        if run.done:
            return run.result()
    if not (warm or stage) and _compiled_cold_pays(model, evaluator):
        if large:
            _uniform_start(model, run, options)
            if run.done:
                return run.result()
            run.point = None
        _compiled_cold_start(model, run, options)
        if run.done:
            return run.result()
        if run.point is not None:  # near: the last stage finishes from the compiled point
            _augmented_lagrangian(model, run, options, continued=True)
            return run.result()
    # the LP limit (a model over U, checked when made) only where a stage below may use it
    limit = model.lp_limit() if large and model.n_samples <= options.lp_max_samples else None
    if warm:
        if limit is not None and _eta(model) > options.lp_first_eta:
            _warm_newton(model, run, options)
        else:
            _warm_start(model, run, options, new, large)
        if run.done or not large:
            return run.result()
    if large:
        if not warm:
            _uniform_start(model, run, options)
            if run.done:
                return run.result()
        cold_lp = not (stage or warm) and limit is not None and _cheap_lp(model, options)
        if limit is not None and (warm or cold_lp):
            _lp_limit_start(model, run, options, limit, cold_lp)
            if run.done:
                return run.result()
        _continuation(model, run, options)
    _augmented_lagrangian(model, run, options, continued=large)
    return run.result()


def _cheap_lp(model, options: AuglagOptions) -> bool:
    """Whether a cold start solves the LP limit (from scratch, without presolve) before continuation:
    eta above lp_cold_eta, t <= lp_cold_t and N >= lp_cold_min_samples."""
    return (
        _eta(model) > options.lp_cold_eta
        and model.n_hypotheses <= options.lp_cold_t
        and model.n_samples >= options.lp_cold_min_samples
    )


def _warm_start(model, run: _Run, options: AuglagOptions, new: NDArray[np.intp], large: bool) -> None:
    """Stage 1: from the previous solution, Newton on the new columns' face, then augmented
    Lagrangian rounds (:func:`_solve_simplex`), within warm_budget iterations at large eta."""
    budget = min(run.max_iter, options.warm_budget) if large else run.max_iter
    w = _normalised(run.w)
    point, steps, kept = _solve_simplex(model, run.evaluator, w, run.target, budget, new, options, run.kept)
    run.took(point, steps, kept)
    run.report(options, "warm_start", steps)


def _compiled_pays(model, evaluator: DualEvaluator, options: AuglagOptions) -> bool:
    """Whether a warm solve starts with the compiled re-solve: where it applies
    (``compiled.applies``), at eta <= lp_first_eta (above, the LP limit's stages), and while
    forming a Hessian on every column costs at most ``NewtonOptions.kept_min_work`` multiply-adds
    (``SmoothDual.hessian_work``: N t^2, or a stump operator's Gram; above, the Python path's
    conjugate-gradient steps with a kept Hessian form fewer: the compiled loop forms one at every
    step; docs/solvers.md#options-the-compiled-re-solve)."""
    newton = evaluator.options
    return (
        compiled.applies(model, newton.compiled)
        and _eta(model) <= options.lp_first_eta
        and model.hessian_work(model.n_hypotheses) <= newton.kept_min_work
    )


#: a cold solve starts with the compiled loop where t is at most COLD_COMPILED_MAX_T and N at most
#: COLD_COMPILED_SAMPLES; above that N, where t is also at least COLD_COMPILED_MIN_T and N t^2 (the
#: multiply-adds of a Hessian on every column) at most COLD_COMPILED_LARGE_WORK (elsewhere the Python
#: path was as fast or faster: docs/solvers.md#options-the-compiled-re-solve)
COLD_COMPILED_MAX_T = 100
COLD_COMPILED_SAMPLES = 2000
COLD_COMPILED_MIN_T = 30
COLD_COMPILED_LARGE_WORK = 1e8


def _compiled_cold_pays(model, evaluator: DualEvaluator) -> bool:
    """Whether a cold solve starts with the compiled loop (:func:`_compiled_cold_start`): where it
    applies (``compiled.applies`` under ``NewtonOptions.compiled``) and t is at most
    :data:`COLD_COMPILED_MAX_T`, for N up to :data:`COLD_COMPILED_SAMPLES`; for a larger N, where t
    is also at least :data:`COLD_COMPILED_MIN_T` and N t^2 at most :data:`COLD_COMPILED_LARGE_WORK`."""
    n, t = model.n_samples, model.n_hypotheses
    size = t <= COLD_COMPILED_MAX_T
    if n > COLD_COMPILED_SAMPLES:
        size = size and t >= COLD_COMPILED_MIN_T and n * t**2 <= COLD_COMPILED_LARGE_WORK
    return size and compiled.applies(model, evaluator.options.compiled, cold=True)


def _compiled_cold_start(model, run: _Run, options: AuglagOptions) -> None:
    """Stage 1 of a cold solve where the compiled loop pays (:func:`_compiled_cold_pays`): from
    uniform w, the compiled loop (:func:`dualboost.solvers.compiled.resolve`) through the eta
    continuation of the Python path (eta/10, eta/100, ... down to ``continuation_eta``, each solved to
    ``coarse_gap`` and starting the next), then at eta to the target; the first trial of each step is
    the projected (clipped) Newton step where the Python path's is (eta <= ``breakpoint_eta``), else
    it stops at the first weight that reaches 0, with the Python path's first ridge and rounding
    (``NewtonOptions.ridges[0]``, ``rounding``; a warm re-solve keeps the loop's own, 1e-12 and
    1e-15: from uniform w they stalled at gaps of 1e-6 to 1e-1 on a9a's stumps). Its w is certified
    here like every other stage's point (from the loop's last evaluation, as :func:`_compiled_start`
    does, but for t = 1; reported as the stage "compiled"), and the last Hessian it
    formed at eta is the state kept for the next (warm) solve. Where the certificate
    misses the target but lies within ``newton_gap``, the caller's last Python stage finishes from
    that point; farther, the Python stages run from uniform w as without the compiled loop
    (``run.point`` stays None)."""
    eta, t = _eta(model), model.n_hypotheses
    etas = [eta]
    while etas[-1] > options.continuation_eta:
        etas.append(etas[-1] / 10.0)
    w, steps, newton = np.full(t, 1.0 / t), 0, run.evaluator.options
    # the loop reads U in Fortran order (compiled.resolve copies any other layout, on every call):
    # one copy shared by every stage's model (0.9 ms a stage at N = 10,000, t = 100); the last
    # stage's model is the model itself (its stump operator included) over that copy
    fortran = np.asfortranarray(model.U)
    for stage_eta in reversed(etas):
        stage_model = copy.copy(model) if stage_eta == eta else model.with_eta(stage_eta)
        stage_model.U = fortran
        gap = run.target if stage_eta == eta else max(run.target, options.coarse_gap)
        w, counts, formed, evaluated = compiled.resolve(
            stage_model,
            w,
            gap,
            projected=not _stiff(stage_model, options),
            ridge=newton.ridges[0],
            rounding=newton.rounding,
            patience=newton.patience,
        )
        steps += _counted(run, counts)
    # the last Hessian formed at eta, at its point: the state for the next solve; the certificate from
    # the last stage's (at eta) evaluation, but at t = 1 (w = (1), a boosting run's first solve) from
    # the Python one: that run's first d then is the Python path's bit for bit, as a Dask fit's is
    formed = _formed_curvature(model, formed)
    _take_compiled(model, run, options, w, steps, formed, options.newton_gap, evaluated, from_loop=t > 1)


def _compiled_start(model, run: _Run, options: AuglagOptions) -> None:
    """Stage 0 of a warm solve where the compiled loop applies (``compiled.applies``): a whole Newton
    re-solve in compiled code (:func:`dualboost.solvers.compiled.resolve`), its w certified here
    like every other stage's point (``DualEvaluator.point``, from the loop's last evaluation at w:
    the library's compiled evaluation, not the loop's own gap), and reported as the stage
    "compiled". Where the certificate misses the target the next stages start from the previous
    solution as before (``run.w`` unchanged)."""
    kept = run.kept if run.kept is not None and run.kept.usable_for(model) else None
    start = _start(run.start, run.w, model) if kept is not None else None
    # the kept Hessian, extended in the loop to the new columns and those with weight (at its point)
    w, counts, formed, evaluated = compiled.resolve(
        model,
        _normalised(run.w) if start is None else _padded(start.w, model.n_hypotheses),
        run.target,
        None if kept is None else (kept.H, kept.face, kept.w, _own_d(kept, model), kept.factor),
        start=start,
    )
    # the last Hessian formed or extended: the state kept (the model's key: the kept Hessian's, equal)
    formed = _formed_curvature(model, formed, None if kept is None else kept.key)
    # (where the loop took no step from a given start, its evaluation is the earlier one: not certified from)
    from_loop = start is None or counts["steps"] > 0
    steps = _counted(run, counts)
    _take_compiled(model, run, options, w, steps, formed or run.kept, run.target, evaluated, from_loop)


#: the largest difference between a warm start's w and the compiled evaluation's point kept with it
#: for which the evaluation is taken as the start's (the warm start normalises w again: ~1e-16)
START_MATCH = 1e-13


def _start(start: compiled.Evaluation | None, w0: NDArray[np.float64], model) -> compiled.Evaluation | None:
    """The previous solve's compiled evaluation (``AuglagState.start``) where it is the evaluation at
    this warm start ``w0``: its point is w0's first columns (to :data:`START_MATCH`: w0 is the
    solution's w, normalised again where columns were appended), the columns appended since are at
    0, and its d is an N-vector; else None. (The caller takes it only with a kept Hessian usable for
    the model: the same N and parameters.)"""
    if start is None or start.d.shape != (model.n_samples,) or start.w.size > w0.size:
        return None
    m = start.w.size
    # (the ufuncs' reduce: np.any's and np.max's dispatch cost more than the passes over t entries)
    moved = np.maximum.reduce(np.abs(w0[:m] - start.w), initial=0.0)
    if np.logical_or.reduce(w0[m:]) or not moved <= START_MATCH:
        return None
    return start


def _padded(w: NDArray[np.float64], t: int) -> NDArray[np.float64]:
    """``w`` followed by zeros up to t entries (the columns appended since)."""
    placed = np.zeros(t)
    placed[: w.size] = w
    return placed


def _own_d(kept: Curvature, model) -> NDArray[np.float64] | None:
    """The kept Hessian's d (``d(kept.w)``) where it is an N-vector of float64 (a Curvature read back
    from a checkpoint may have none), else None: the compiled loop evaluates it."""
    d = kept.d
    ok = isinstance(d, np.ndarray) and d.dtype == np.float64 and d.shape == (model.n_samples,)
    return d if ok else None


def _counted(run: _Run, counts: dict[str, int]) -> int:
    """Adds a compiled call's evaluations and formed Hessians to the run's counters; its steps."""
    run.evaluator.evaluations += counts["evaluations"]
    run.evaluator.hessians += counts["hessians"]
    return counts["steps"]


def _formed_curvature(model, formed: tuple | None, key: dict | None = None) -> Curvature | None:
    """The state kept for the next solve from the last Hessian a compiled call formed, ``(H, face,
    w, d, factor)`` at its point with the loop's Cholesky factor of it (``compiled.resolve``); None
    where it formed none. ``key``: ``Curvature.key_of(model)`` where the caller has it (a kept
    Hessian's that was ``usable_for`` the model); None: computed here."""
    if formed is None:
        return None
    H, face, w_H, d_H, factor = formed
    key = Curvature.key_of(model) if key is None else key
    return Curvature(face, H, key, w_H, d_H, None, factor=factor)  # (its shift: computed when read)


def _take_compiled(
    model,
    run: _Run,
    options: AuglagOptions,
    w: NDArray[np.float64],
    steps: int,
    kept: Curvature | None,
    accept: float,
    evaluated: compiled.Evaluation,
    from_loop: bool = True,
) -> None:
    """The compiled loop's w certified like every other stage's point (``DualEvaluator.point``, from
    ``evaluated``, the loop's last evaluation at w, where ``from_loop``; else evaluated here): taken,
    with ``kept`` as the Hessian state and ``evaluated`` as the next re-solve's start (where
    ``from_loop``: an evaluation not certified from is not kept either), and reported as the stage
    "compiled" where its gap is at most ``accept``; else only its steps counted and the stage reported
    with the gap it missed by (the run's point unchanged)."""
    point = run.evaluator.point(w, run.target, evaluated if from_loop else None)
    if point.gap <= accept:
        run.took(point, steps, kept, evaluated if from_loop else None)
        run.report(options, "compiled", steps)
    else:
        run.iterations += steps
        _report(options, "compiled", model, point.gap, steps)


def _warm_newton(model, run: _Run, options: AuglagOptions) -> None:
    """Stage 1 above lp_first_eta: at most lp_warm_steps Newton steps from the previous solution,
    stopping after lp_warm_patience steps that did not bring the best gap below lp_warm_progress
    times itself (below lp_first_eta the warm start's L-BFGS-B rounds are faster)."""
    start = run.evaluator.point(_normalised(run.w), run.target)
    polished = newton_polish(
        run.evaluator,
        start,
        run.target,
        sum_to_one=True,
        max_steps=options.lp_warm_steps,
        kept=run.kept,
        patience=options.lp_warm_patience,
        progress=options.lp_warm_progress,
        breakpoints=_stiff(model, options),
    )
    run.took(*polished)
    run.report(options, "warm_newton", polished[1])


def _uniform_start(model, run: _Run, options: AuglagOptions) -> None:
    """Stage 2, cold: the uniform w, which may be optimal already (a9a's stumps at nu = 1 often are)."""
    t = model.n_hypotheses
    run.point = run.evaluator.point(np.full(t, 1.0 / t), run.target)
    run.report(options, "uniform_start", 0)


def _lp_limit_start(model, run: _Run, options: AuglagOptions, limit, cold: bool) -> None:
    """Stage 2: Newton from the LP limit's solution (:func:`_newton_from_lp_limit`); where Newton
    stalls near the LP's face, augmented Lagrangian rounds from there, within warm_budget (diabetes,
    nu = 0.05 N, eta = 6e4: 3 of 4 such solves certified in ~50 ms, where continuation ran out of
    iterations in 1.6 s). Where HiGHS fails the next stage starts from where this one did."""
    point, steps, kept, lp = _newton_from_lp_limit(limit, run.evaluator, run.target, options, run.lp, cold)
    run.lp = None if kept is None else lp  # (see _state)
    run.iterations += steps
    if point is None:
        return
    run.took(point, 0, kept)
    if not run.done:
        budget = min(run.max_iter, options.warm_budget)
        point, steps, kept = _solve_simplex(
            model, run.evaluator, point.w, run.target, budget, _NONE, options, kept
        )
        run.took(point, steps, kept)
        run.report(options, "lp_limit_rounds", steps)


def _continuation(model, run: _Run, options: AuglagOptions) -> None:
    """Stage 2: the problem at eta/10 from the point reached (recursively, to coarse_gap: its
    solution only starts the next stage)."""
    coarse_model = model.with_eta(_eta(model) / 10.0)
    coarse, steps, _ = _solve_on_simplex(
        coarse_model,
        DualEvaluator(coarse_model, options.newton),
        run.w,
        _NONE,
        max(run.target, options.coarse_gap),
        run.max_iter,
        options,
        stage=True,
    )
    run.w, run.iterations = coarse.w, run.iterations + steps
    _report(options, "continuation", coarse_model, coarse.gap, steps)


def _augmented_lagrangian(model, run: _Run, options: AuglagOptions, continued: bool) -> None:
    """Stage 3: augmented Lagrangian rounds with Newton (:func:`_solve_simplex`) from the point
    reached (uniform w if none), with a Hessian of its own; ``continued``: that point solves the
    problem at eta/10."""
    t = model.n_hypotheses
    w = np.full(t, 1.0 / t) if run.w is None else _normalised(run.w)
    point, steps, kept = _solve_simplex(
        model, run.evaluator, w, run.target, run.max_iter, _NONE, options, continued=continued
    )
    run.took(point, steps, kept)
    run.report(options, "augmented_lagrangian", steps)


def _newton_from_lp_limit(
    limit, evaluator, target, options: AuglagOptions, lp_state: HighsState | None = None, cold: bool = False
) -> tuple[Point | None, int, Curvature | None, HighsState | None]:
    """Newton (at most ``options.lp_newton_steps`` steps) from the solution w of the LP limit ``limit``
    (``Model.lp_limit()``, eta = infinity, by HiGHS): at large eta the optimum lies within O(1/eta)
    of that LP's face, and d(w) there already sits on the examples that the LP's margin binds, where
    warm starts and L-BFGS-B crawl (measured on diabetes at nu = 1, eta = 1.2e6, t = 120: 10 Newton
    steps and 0.16 s from the LP's w, against 20,634 L-BFGS-B iterations and 4.4 s with eta
    continuation). The LP is the d-domain one (t + 1 rows; the soft-margin LP has N), re-solved
    from ``lp_state``, an earlier solve's HiGHS model and basis, where that applies (a boosting run:
    a few dual simplex iterations for the new columns instead of a solve from scratch, 0.1 s on
    diabetes at t = 100). Returns the best point, the Newton steps, the last Hessian and the LP's
    new HiGHS state. ``cold``: a cold start's LP from scratch, without HiGHS's presolve and scaling
    (``PrimalLP.solve``). ``(None, 0, None, None)`` where HiGHS does not report the LP optimal.
    Reported to ``options.callback`` as the stage ``"lp_limit"``."""
    try:
        _, w, _, lp_state = solve_primal_lp(limit, lp_state, presolve=not cold, scaled=not cold)
    except RuntimeError:
        _report(options, "lp_limit", evaluator.model, np.inf, 0)
        return None, 0, None, None
    start = evaluator.point(_normalised(np.clip(w, 0.0, None)), target)
    stiff = _stiff(evaluator.model, options)
    point, steps, kept = newton_polish(
        evaluator, start, target, sum_to_one=True, max_steps=options.lp_newton_steps, breakpoints=stiff
    )
    _report(options, "lp_limit", evaluator.model, point.gap, steps)
    return point, steps, kept, lp_state


def _report(options: AuglagOptions, name: str, model, gap: float, steps: int, solution=None) -> None:
    """``options.callback`` (if any) with the :class:`~dualboost.solvers.options.Stage` that ended."""
    if options.callback is not None:
        options.callback(Stage(name, model, float(gap), int(steps), solution))


def solve_auglag(
    model,
    side: str,
    tol: float,
    warm_start: Solution | None = None,
    *,
    max_iter: int = 10_000,
    removed: Sequence[int] | None = None,
    options: AuglagOptions | None = None,
) -> Solution:
    """Solve ``model``'s dual with the hand-written path and certify the pair.

    ``max_iter`` bounds the L-BFGS-B iterations summed over the outer loop; ``removed`` lists
    the columns removed since ``warm_start`` was computed; ``options``: an
    :class:`~dualboost.solvers.options.AuglagOptions` (None: the defaults, or those of the enclosing
    :func:`~dualboost.solvers.options.default_options` block). BLAS runs on one thread
    (:mod:`dualboost._threads` says why: measured 20x faster on small problems, and 16x on a
    large Gram matrix when the machine is busy).

    Parameters
    ----------
    model : SmoothDual
        The model to be solved.
    side : str
        The side asked for (only ``"dual"`` is accepted).
    tol : float
        The relative certified gap to reach.
    warm_start : Solution or None
        A previous solution whose w and curvature start the solve.
    max_iter : int
        The bound on the L-BFGS-B iterations, summed over the outer loop.
    removed : sequence of int or None
        The columns removed since ``warm_start`` was computed.
    options : AuglagOptions or None
        The solver's options, None for the defaults.

    Returns
    -------
    Solution
        The certified pair.
    """
    reason = accepts(model, side)
    if reason is not None:
        raise ValueError(reason)
    return run(model, side, tol, warm_start, options, max_iter=max_iter, removed=removed)


def run(
    model,
    side: str,
    tol: float,
    warm_start: Solution | None = None,
    options: AuglagOptions | None = None,
    *,
    max_iter: int = 10_000,
    removed: Sequence[int] | None = None,
) -> Solution:
    """:func:`solve_auglag` for a model that :func:`accepts` (``dualboost.solvers.solve`` checked it:
    the check runs once per solve)."""
    options = options_for(AuglagOptions, options)
    with single_blas_thread():
        if model.w_domain is WDomain.L1_BALL:
            return _solve_signed(model, side, tol, warm_start, max_iter, removed, options)
        return _solve_auglag(model, side, tol, warm_start, max_iter, removed, options)


def _solve_signed(model, side, tol, warm_start, max_iter, removed, options: AuglagOptions) -> Solution:
    """The l1-ball dual through the model's simplex form over ``[U, -U]`` (``SmoothDual.simplex_form``,
    docs/math.md#signed-weights): v on the simplex folds to ``w = v+ - v-``, and a warm start's w to
    ``v = (w+, w-)`` plus its slack ``1 - ||w||_1`` spread evenly over both halves (which folds to
    nothing); a removed column i of U is v's columns i and t + i. The pair ``(d, w)`` is certified
    by the model itself; the solver state is the simplex form's (its next warm start)."""
    start = time.perf_counter()
    simplex = model.simplex_form()
    warm, removed_v = None, None
    if warm_start is not None:
        w = np.asarray(warm_start.w, dtype=np.float64)
        slack = max(1.0 - float(np.abs(w).sum()), 0.0) / (2 * w.size)
        v = np.r_[np.clip(w, 0.0, None), np.clip(-w, 0.0, None)] + slack
        warm = replace(warm_start, w=v)
        if removed:
            idx = np.asarray(removed, dtype=int)
            if idx.size and (idx.min() < 0 or idx.max() >= w.size):
                raise ValueError(
                    f"removed must list distinct column indices of warm_start.w (0..{w.size - 1})"
                )
            removed_v = [*idx.tolist(), *(idx + w.size).tolist()]
    inner = _solve_auglag(simplex, side, tol, warm, max_iter, removed_v, options)
    t = model.n_hypotheses
    solution = certify(
        model,
        inner.d,
        None if inner.w is None else inner.w[:t] - inner.w[t:],
        tol=tol,
        method="auglag",
        side=side,
        iterations=inner.iterations,
        solve_time=time.perf_counter() - start,
        solver_status="",
        extra=inner.extra,
    )
    solution.solver_state = inner.solver_state
    return solution


#: the w-domains auglag solves on (the simplex with the max-edge members, the orthant, the line with
#: w(a): the optional capabilities of SmoothDual)
DOMAINS = (WDomain.SIMPLEX, WDomain.ORTHANT, WDomain.LINE)


def _eta(model) -> float:
    """An eta family's eta (``SmoothDual.eta_family``: ``parameters()`` holds it)."""
    return model.parameters()["eta"]


def accepts(model, side: str) -> str | None:
    """None where ``method="auglag"`` solves ``side`` of ``model``, else why not: it needs a
    :class:`~dualboost.solvers.contract.SmoothDual` whose dual is differentiable (``smooth_dual``)
    on a w-domain it knows (:data:`DOMAINS`, with the capabilities SmoothDual lists for it; the l1
    ball through the model's ``simplex_form()``), and it solves the dual side.

    Parameters
    ----------
    model : Model
        The candidate model.
    side : str
        The side asked for (auglag solves the dual).

    Returns
    -------
    str or None
        None where auglag applies, else why not.
    """
    if model.w_domain is WDomain.L1_BALL and implements(model, SmoothDual):
        simplex = model.simplex_form()  # the signed weights as a simplex over [U, -U]
        if simplex is not None and accepts(simplex, side) is None:
            return None
    smooth = model.w_domain in DOMAINS and implements(model, SmoothDual) and model.smooth_dual
    if not smooth:
        if implements(model, LinearProgram):
            why, use = "is a linear program", "method='highs' or a cvxpy method ('clarabel', 'ecos', 'scs')"
        else:
            why = model.nonsmooth_reason() if implements(model, SmoothDual) else ""
            why = why or "is not differentiable, or has no closed-form gradient and curvature in dualboost"
            use = "a cvxpy method ('clarabel', 'ecos', 'scs')"
        return f"method='auglag' needs a differentiable dual; the dual of {model.name} {why}: use {use}"
    if side != "dual":
        return "method='auglag' solves the dual (w-domain) side: use side='dual'"
    return None


def _solve_auglag(model, side, tol, warm_start, max_iter, removed, options: AuglagOptions) -> Solution:
    if not (isinstance(max_iter, int | np.integer) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    start = time.perf_counter()
    evaluator = DualEvaluator(model, options.newton)
    w0 = warm_start_weights(model, warm_start, removed)
    target = 0.5 * tol
    state = point = None
    if model.w_domain is WDomain.LINE:
        a0 = model.line_start() if w0 is None else float(w0[-1])
        a, iterations = _solve_line(model, evaluator, a0, max_iter)
        w = model.weights(a)
        d = model.d_from_w(w)
    elif model.w_domain is WDomain.ORTHANT:
        w0 = np.zeros(model.n_hypotheses) if w0 is None else np.clip(w0, 0.0, None)
        point, iterations = _solve_orthant(model, evaluator, w0, target, max_iter, options)
        w, d = point.w, point.d
    else:
        new = _NONE
        if w0 is not None:  # the columns new since the warm start (after the removed ones)
            kept = warm_start.w.size - (0 if removed is None else len(removed))
            carried = np.zeros(model.n_hypotheses, dtype=bool)
            carried[model.warm_columns(kept)] = True
            new = np.flatnonzero(~carried)
            state = _carried_state(warm_start.solver_state, removed, new, model.n_hypotheses)
        point, iterations, state = _solve_on_simplex(
            model, evaluator, w0, new, target, max_iter, options, state
        )
        w, d = point.w, point.d
    solution = certify(
        model,
        d,
        w,
        tol=tol,
        method="auglag",
        side=side,
        evaluated=point,  # its objectives where they are exactly the certificate's (certify)
        iterations=iterations,
        solve_time=time.perf_counter() - start,
        solver_status="",
        extra={
            "evaluations": evaluator.evaluations,
            "hessians": evaluator.hessians,
            "hessian_products": evaluator.products,
            "single_products": evaluator.single_products,
            "breakpoint_steps": evaluator.breakpoint_steps,
        },
    )
    solution.solver_state = state  # on the simplex, for a warm start after new columns
    _report(options, "solved", model, solution.relative_gap, iterations, solution)
    return solution
