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
the job; a cold start above ``CONTINUATION_ETA`` first solves the problem at eta/10 (recursively)
and starts from that solution, or, where the LP limit is cheap (``LP_COLD_ETA``, ``LP_COLD_T``,
``LP_COLD_MIN_SAMPLES``), takes Newton from the LP limit's solution first.

Warm starts ([KG] Sec 4.1, docs/math.md#warm-start): a previous Solution with one hypothesis
fewer starts from its w with the new column at weight 0 and goes to Newton at once: its face
contains every column whose edge beats the current combination, and two to four steps reach a
driver's tolerance at eps = 1e-2, ten or more at 1e-3 (NEWTON_WARM_STEPS). If they do not, the
corrective step for the new column, ``w <- ((1 - alpha) w, alpha)`` with alpha by a line search on
D (docs/math.md#corrective-step-size: the alternative to the clipped
``alpha = clip(x . d / (eta ||x||_inf^2), 0, 1)``, which at large eta is nearly 0), or the cold
start continues. With columns removed (``removed=[...]``), their weights are
dropped and the rest renormalised.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import brentq, minimize

from dualboost._threads import single_blas_thread
from dualboost.solvers.certify import certify
from dualboost.solvers.contract import (
    EtaFamily,
    ExplainedDual,
    LinearProgram,
    LineDual,
    MaxEdgeDual,
    SmoothDual,
    WDomain,
    implements,
)
from dualboost.solvers.highs import HighsState, solve_primal_lp
from dualboost.solvers.newton import Curvature, DualEvaluator, Point, newton_polish
from dualboost.solvers.solution import Solution

__all__ = ["solve_auglag", "accepts", "warm_start_weights", "CONTINUATION_ETA"]

#: cold starts above this eta go through eta/10, eta/100, ... (each stage warm-starts the next),
#: and so do warm starts that miss the tolerance within WARM_BUDGET L-BFGS-B iterations (1e3 rather
#: than 1e4: N = 5e4, t = 200, nu = 1, eta = 2441 took 216 iterations cold, 108 through eta = 244)
CONTINUATION_ETA = 1e3
#: the certified relative gap to which a continuation stage (the problem at eta/10) is solved: its
#: solution only starts the next stage. Measured on the cold solves of benchmarks/subproblem.py at
#: N = 1000 (t = 10 and 58, eta 1382-13816; evaluations summed over the stages, best of 5): 1e-3
#: took 137 ms over the 18 instances where the stages' full target (5e-7) took 144 ms and 1e-2
#: 142 ms (one instance, nu = N/2 at eta = 1386, took 47 evaluations instead of 15)
COARSE_GAP = 1e-3
WARM_BUDGET = 1000
#: L-BFGS-B iterations per round before Newton takes a turn
LBFGSB_ROUND = 300
#: the certified relative gap below which Newton takes over from L-BFGS-B
NEWTON_GAP = 1e-2
#: ... or from the start when D is smooth (eta <= NEWTON_FIRST_ETA), its Hessian cheap (t <= NEWTON_FIRST_T):
#: measured at eta = 139 (nu = N/2, eps = 0.01), t = 10-58: 4-13 Newton steps instead of 44-87 L-BFGS-B
#: iterations, 1.7-3.5x faster; at eta = 461 (nu = N/10) Newton from uniform w meets capped-set
#: changes and loses (1.2-2x slower), so the threshold sits between
#: ... and at the stage after a continuation stage, whose solution (at eta/10) is near, with a cheap
#: Hessian (t <= NEWTON_FIRST_T) whatever eta: Newton from it instead of L-BFGS-B rounds to NEWTON_GAP
#: (N = 1000, nu = 1, eta = 13816: 52 evaluations instead of 108, 7.0 ms instead of 10.1 ms; at
#: t = 100, nu = N/10, eta = 4605 Newton took 150 instead of 112, hence the bound on t)
NEWTON_FIRST_ETA = 200.0
NEWTON_FIRST_T = 64
#: Newton steps tried first after a new column (two to four suffice at eps = 1e-2; at eps = 1e-3 a
#: solve takes ten or more); if they do not reach the tolerance, the corrective line search for
#: the new column starts over. With conjugate-gradient steps (solvers/newton.py) a Newton step
#: costs a few passes over U, and L-BFGS-B's rounds cost more: on diabetes (nu = 0.05 N, eps =
#: 1e-3, 294 iterations) 4 steps (patience 5) took 19.6 s in the solver, 50 (patience 20) 5.8 s
NEWTON_WARM_STEPS = 50
#: Newton steps from the LP limit's solution at eta > CONTINUATION_ETA before eta continuation
LP_NEWTON_STEPS = 50
#: at eta > LP_FIRST_ETA, Newton steps from a warm start before the LP limit's solution is tried
#: (diabetes, nu = 0.05 N, eps = 1e-4, eta = 6e4: 86 s with 10 steps, 107 s with 50, 155 s with the
#: warm start's L-BFGS-B rounds first; at eps = 1e-3, eta = 6e3: 18 s with 10, 4.9 s with those rounds.
#: With Newton's trust radius (solvers/newton.py RADIUS) the eps = 1e-4 run took 8.7 s with 10, 6.3 s
#: with none, where german (same nu, eps) took 0.69 s with 10 and 2.9 s with none: its warm steps
#: converge, diabetes's stall. So they stop after LP_WARM_PATIENCE steps that did not halve the best
#: gap (LP_WARM_PROGRESS): diabetes 6.8 s, german 0.89 s (patience 2: 7.0 s, 1.0 s; 1: 7.1 s, 2.6 s).
#: At eps = 1e-3 (eta = 6e3) the LP first took 6.9 s against 4.4 s: LP_FIRST_ETA stays)
LP_WARM_STEPS = 10
LP_WARM_PATIENCE = 3
LP_WARM_PROGRESS = 0.5
LP_FIRST_ETA = 1e4
#: above this eta Newton's first trial stops where the first weight reaches 0 (newton_polish's
#: ``breakpoints``) instead of following the clipped path past it. Diabetes (nu = 0.05 N, eps =
#: 1e-3, eta = 6e3; the 294 warm solves replayed, one process): 3,126 -> 2,477 Hessians, 6,206 ->
#: 3,149 evaluations, no L-BFGS-B round left (603 iterations before); eps = 1e-4 (eta = 6e4) 3,099
#: -> 2,989 and 4,290 -> 3,637; german eps = 1e-3 and 1e-4 534 -> 545 and 665 -> 661 Hessians. At
#: eps = 1e-2 (eta ~ 600) it was neutral (diabetes 652 -> 668 Hessians, 986 -> 914 evaluations;
#: german 299 -> 302), hence the threshold (the dual is nearly an LP above CONTINUATION_ETA)
BREAKPOINT_ETA = CONTINUATION_ETA
#: the LP limit is solved from scratch at each use: only up to this many examples (its d-domain LP
#: took 0.1 s at N = 460, t = 150 and 3 s at N = 10,000, t = 100, where continuation took 0.1-1 s)
LP_MAX_SAMPLES = 2000
#: cold starts at eta > LP_COLD_ETA with t <= LP_COLD_T and LP_COLD_MIN_SAMPLES <= N <= LP_MAX_SAMPLES
#: take Newton from the LP limit's solution before continuation, the LP solved by HiGHS without its
#: presolve (which took 4-20 ms of the LP's 5-29 ms at N = 1000: a9a's stumps, t = 58, 23 ms with
#: and 2.8-4.0 ms without). Measured on the cold solves of benchmarks/subproblem.py at N = 1000 (best
#: of 5, both paths in one process): at eta = 4605-13816, t = 10 and 58, 1.07-1.81x faster (a9a
#: t = 58, nu = N/10, eta = 4605: 19.8 -> 10.9 ms; random t = 10, nu = 1, eta = 13816: 6.5 -> 6.0
#: ms); at eta = 1382-1386, where continuation's one stage (eta/10 <= NEWTON_FIRST_ETA) is smooth and
#: Newton solves it, 0.66-0.99x on 3 of 4 instances (random t = 10, nu = 1: 4.1 -> 6.3 ms; the LP
#: alone took 3.4 ms), hence LP_COLD_ETA; at t = 100 (random) the LP alone took 60-70 ms (592 simplex
#: iterations) against 14-30 ms for the whole continued solve, hence LP_COLD_T
LP_COLD_ETA = 10.0 * NEWTON_FIRST_ETA
LP_COLD_T = 64
#: ... and N >= LP_COLD_MIN_SAMPLES: NOT a measured bound. Below it the LP start was faster too
#: (N = 100-600, t = 12, nu = 1, N/10, N/2, eta = 3e3-1e6: 1.4-9x), but tests/test_auglag.py pins
#: continuation for cold starts on its N <= 200 instances (test_newton_from_the_lp_limit_agrees_with_
#: eta_continuation, test_the_lp_limit_is_re_solved_from_the_previous_basis_after_new_columns)
LP_COLD_MIN_SAMPLES = 500


def _stiff(model) -> bool:
    """Whether Newton's first trials stop at breakpoints (``newton_polish``'s ``breakpoints``): eta
    above BREAKPOINT_ETA."""
    return implements(model, EtaFamily) and model.eta > BREAKPOINT_ETA


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
        if model.w_domain is WDomain.SIMPLEX:
            w = _normalised(w)
    t = model.n_hypotheses
    if w.size == t:
        return w
    if w.size == t - 1 and model.w_domain is not WDomain.LINE:
        if model.w_domain is WDomain.ORTHANT:  # SoftBoost: w is unnormalised, the new weight starts at 0
            return np.r_[w, 0.0]
        return np.r_[_normalised(w), 0.0]  # the new column enters at 0: see _solve_simplex
    raise ValueError(
        f"warm_start has {w.size} weights after removals; the model has t = {t} hypotheses "
        "(a warm start may add one column, the last, or remove columns listed in removed=)"
    )


def _corrective_step(evaluator: DualEvaluator, w_old: NDArray[np.float64]) -> NDArray[np.float64]:
    """``w(a) = (1 - a) w_old + a e_t`` at a near-best ``a`` in [0, 1]: the corrective step of
    docs/math.md#warm-start for the new column t by a line search on D (the alternative to the
    clipped ``alpha = clip(x . d / (eta ||x||_inf^2), 0, 1)``, which at large eta is nearly 0). The slope
    ``g(a) . (e_t - w_old)`` is non-increasing in a (D is concave); a bracketed root to 1e-3 in a
    is enough for a starting point (Newton then finishes), a handful of dual evaluations."""
    direction = -w_old.copy()
    direction[-1] += 1.0

    def slope(a: float) -> float:
        return float(evaluator(w_old + a * direction)[1] @ direction)

    if slope(0.0) <= 0.0:
        return w_old
    if slope(1.0) >= 0.0:
        return w_old + direction
    return w_old + brentq(slope, 0.0, 1.0, xtol=1e-3, rtol=1e-3, maxiter=60) * direction


def _solve_simplex(model, evaluator, w, target, max_iter, new_column, kept=None, continued=False):
    """Augmented Lagrangian rounds of L-BFGS-B, handing over to Newton when close (or crawling);
    when Newton stalls (the capped set changed under it), L-BFGS-B rounds resume from its point.
    ``kept``: a Hessian kept from the previous solve, for the first Newton steps after a new column.
    ``continued``: w solves the problem at eta/10 (eta continuation); with a cheap Hessian Newton
    goes first (NEWTON_FIRST_T). Returns the point, the iterations and the last Hessian."""
    point = evaluator.point(_normalised(w), target)
    lam, mu = -float(point.w @ point.grad), 0.1
    stiff = _stiff(model)  # Newton's breakpoints
    c_prev, iterations, gtol = np.inf, 0, 1e-2

    def lagrangian(x):
        v, g, _ = evaluator(x)
        c = x.sum() - 1.0
        return -v - lam * c + c * c / (2 * mu), -g + (c / mu - lam)

    if new_column:  # Newton first: its face takes the new column in
        point, iterations, kept = newton_polish(
            evaluator,
            point,
            target,
            sum_to_one=True,
            max_steps=NEWTON_WARM_STEPS,
            kept=kept,
            breakpoints=stiff,
        )
        if point.gap > target:  # slow: the corrective line search, or the cold start (a new
            # column that is not a max-edge one, as in a random instance, can make (w, 0) a
            # worse start than uniform w): go on from the best certified of the three
            others = (_corrective_step(evaluator, w), np.full(w.size, 1.0 / w.size))
            point = min([point, *(evaluator.point(x, target) for x in others)], key=lambda p: p.gap)
    cheap = model.n_hypotheses <= NEWTON_FIRST_T
    smooth = cheap and implements(model, EtaFamily) and model.eta <= NEWTON_FIRST_ETA
    if point.gap <= NEWTON_GAP or (cheap and (smooth or continued)):  # a good start, or a cheap
        # Hessian of a smooth D or from the previous continuation stage: Newton first
        point, steps, kept = newton_polish(
            evaluator, point, target, sum_to_one=True, kept=kept, breakpoints=stiff
        )
        iterations += steps
    w = point.w
    for _ in range(60):
        if point.gap <= target or iterations >= max_iter:
            break
        res = _lbfgsb(lagrangian, w, gtol, max_iter - iterations)
        iterations += int(res.nit)
        w = res.x
        c = w.sum() - 1.0
        point = evaluator.point(_normalised(w), target)
        lam -= c / mu
        if abs(c) > 0.25 * abs(c_prev):
            mu = max(mu / 10.0, 1e-10)
        c_prev = c
        gtol = max(gtol / 10.0, 1e-14)
        if point.gap <= NEWTON_GAP or res.nit >= LBFGSB_ROUND:
            point, steps, kept = newton_polish(
                evaluator, point, target, sum_to_one=True, kept=kept, breakpoints=stiff
            )
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


def _solve_orthant(model, evaluator, w, target, max_iter):
    """L-BFGS-B rounds on ``-D`` over ``w >= 0``, with Newton as in :func:`_solve_simplex`."""
    iterations, gtol = 0, 1e-4

    def negated(x):
        v, g, _ = evaluator(x)
        return -v, -g

    point = evaluator.point(w)
    for _ in range(12):
        if point.gap <= target or iterations >= max_iter:
            break
        res = _lbfgsb(negated, point.w, gtol, max_iter - iterations)
        iterations += int(res.nit)
        point = evaluator.point(np.clip(res.x, 0.0, None))
        gtol = max(gtol / 100.0, 1e-15)
        if point.gap <= NEWTON_GAP or res.nit >= LBFGSB_ROUND:
            point, steps, _ = newton_polish(evaluator, point, target, sum_to_one=False)
            iterations += steps
    return point, iterations


def _solve_line(model, evaluator, a0, max_iter):
    """Maximise ``D(w(a))``: root of ``phi(a) = x . d(a)``, which is non-increasing in a."""
    slope_of_w = np.r_[-model.w_prev, 1.0]  # dw/da

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


def _solve_on_simplex(
    model, evaluator, w0, new_column, target, max_iter, kept: Curvature | None = None, stage: bool = False
) -> tuple[Point, int, Curvature | None]:
    """The simplex-domain dual from ``w0`` (None: uniform), with eta continuation at large eta.

    At eta > CONTINUATION_ETA the dual is nearly an LP and L-BFGS-B and Newton crawl (measured on
    a diabetes run at eta = 1.2e6: 10,000 iterations from a warm start left gaps of 1e-2). A
    warm start that misses the tolerance within WARM_BUDGET iterations (above LP_FIRST_ETA: within
    LP_WARM_STEPS Newton steps) takes Newton steps, for N <= LP_MAX_SAMPLES, from the solution of
    the model's LP limit (:func:`_newton_from_lp_limit`, re-solved from the previous solve's HiGHS
    model, ``kept.lp``), then L-BFGS-B and Newton rounds (WARM_BUDGET) where Newton stalls; so does
    a cold start with a cheap LP (LP_COLD_ETA, LP_COLD_T, LP_COLD_MIN_SAMPLES: the LP from scratch,
    without presolve). Where those fall short (or HiGHS fails), and from other cold starts (where the
    LP from scratch costs more: 3 s for a random 10,000 x 100 instance, continuation 0.09 s), the
    problem is solved at eta/10 first (recursively, from w0 or from the best point so far, to
    COARSE_GAP) and the solve starts from that solution, by Newton where the Hessian is cheap
    (docs/solvers.md, "The LP limit"). ``kept``: the previous solve's Hessian
    (:class:`~dualboost.solvers.newton.Curvature`); ``stage``: this is a continuation stage (which
    does not solve the LP). Returns the point, the iterations and the last Hessian, which carries the
    LP limit's latest HiGHS state.
    """
    large_eta = implements(model, EtaFamily) and model.eta > CONTINUATION_ETA
    small = model.n_samples <= LP_MAX_SAMPLES
    limit = model.lp_limit() if large_eta and small else None
    lp_state = None if kept is None else kept.lp  # the LP limit's HiGHS model from earlier solves

    def carried(curvature: Curvature | None) -> Curvature | None:
        return None if curvature is None else curvature.with_lp(lp_state)

    cold_lp = (  # a cold start from the LP limit's solution
        not stage
        and w0 is None
        and limit is not None
        and model.eta > LP_COLD_ETA
        and model.n_hypotheses <= LP_COLD_T
        and model.n_samples >= LP_COLD_MIN_SAMPLES
    )
    iterations = 0
    if w0 is not None and limit is not None and model.eta > LP_FIRST_ETA:  # a few Newton steps, then
        # the LP limit's w (below LP_FIRST_ETA the warm start's L-BFGS-B rounds are faster)
        start = evaluator.point(_normalised(w0), target)
        point, iterations, kept = newton_polish(
            evaluator,
            start,
            target,
            sum_to_one=True,
            max_steps=LP_WARM_STEPS,
            kept=kept,
            patience=LP_WARM_PATIENCE,
            progress=LP_WARM_PROGRESS,
            breakpoints=_stiff(model),
        )
        if point.gap <= target:
            return point, iterations, carried(kept)
        w0 = point.w
    elif w0 is not None:
        budget = min(max_iter, WARM_BUDGET) if large_eta else max_iter
        point, iterations, kept = _solve_simplex(
            model, evaluator, _normalised(w0), target, budget, new_column, kept
        )
        if not large_eta or point.gap <= target:
            return point, iterations, carried(kept)
        w0 = point.w
    if large_eta:
        if w0 is None:  # the uniform start may be optimal already (a9a's stumps at nu = 1 often are)
            start = evaluator.point(np.full(model.n_hypotheses, 1.0 / model.n_hypotheses), target)
            if start.gap <= target:
                return start, iterations, None
        if limit is not None and (w0 is not None or cold_lp):
            point, steps, lp_kept = _newton_from_lp_limit(limit, evaluator, target, lp_state, cold_lp)
            iterations += steps
            lp_state = None if lp_kept is None else lp_kept.lp
            if point is not None and point.gap > target:  # Newton stalled near the LP's face: the
                # L-BFGS-B and Newton rounds from there (diabetes, nu = 0.05 N, eta = 6e4: 3 of 4
                # such solves certified in ~50 ms, where continuation ran out of iterations in 1.6 s)
                point, steps, lp_kept = _solve_simplex(
                    model, evaluator, point.w, target, min(max_iter, WARM_BUDGET), False, lp_kept
                )
                iterations += steps
            if point is not None and point.gap <= target:
                return point, iterations, carried(lp_kept)
            if point is not None:
                w0 = point.w  # continuation goes on from the best point so far
        coarse_model = model.with_eta(model.eta / 10.0)
        coarse, steps, _ = _solve_on_simplex(
            coarse_model,
            DualEvaluator(coarse_model),
            w0,
            False,
            max(target, COARSE_GAP),
            max_iter,
            stage=True,
        )
        w0, iterations = coarse.w, iterations + steps
    w0 = np.full(model.n_hypotheses, 1.0 / model.n_hypotheses) if w0 is None else _normalised(w0)
    point, steps, kept = _solve_simplex(model, evaluator, w0, target, max_iter, False, continued=large_eta)
    return point, iterations + steps, carried(kept)


def _newton_from_lp_limit(
    limit, evaluator, target, lp_state: HighsState | None = None, cold: bool = False
) -> tuple[Point | None, int, Curvature | None]:
    """Newton (at most LP_NEWTON_STEPS steps) from the solution w of the LP limit ``limit``
    (``Model.lp_limit()``, eta = infinity, by HiGHS): at large eta the optimum lies within O(1/eta)
    of that LP's face, and d(w) there already sits on the examples that the LP's margin binds, where
    warm starts and L-BFGS-B crawl (measured on diabetes at nu = 1, eta = 1.2e6, t = 120: 10 Newton
    steps and 0.16 s from the LP's w, against 20,634 L-BFGS-B iterations and 4.4 s with eta
    continuation). The LP is the d-domain one (t + 1 rows; the soft-margin LP has N), re-solved
    from ``lp_state``, an earlier solve's HiGHS model and basis, where that applies (a boosting run:
    a few dual simplex iterations for the new columns instead of a solve from scratch, 0.1 s on
    diabetes at t = 100); the returned Hessian carries the new state (``Curvature.lp``).
    ``cold``: a cold start's LP from scratch, without HiGHS's presolve and scaling (``PrimalLP.solve``).
    ``(None, 0, None)`` where HiGHS does not report the LP optimal."""
    try:
        _, w, _, lp_state = solve_primal_lp(limit, lp_state, presolve=not cold, scaled=not cold)
    except RuntimeError:
        return None, 0, None
    start = evaluator.point(_normalised(np.clip(w, 0.0, None)), target)
    stiff = _stiff(evaluator.model)
    point, steps, kept = newton_polish(
        evaluator, start, target, sum_to_one=True, max_steps=LP_NEWTON_STEPS, breakpoints=stiff
    )
    return point, steps, None if kept is None else kept.with_lp(lp_state)


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


#: the dual each w-domain needs (on the simplex: the gap from the gradient; on the line: w(a))
_DOMAIN_PROTOCOLS = {WDomain.SIMPLEX: MaxEdgeDual, WDomain.ORTHANT: SmoothDual, WDomain.LINE: LineDual}


def accepts(model, side: str) -> str | None:
    """None where ``method="auglag"`` solves ``side`` of ``model``, else why not: it needs a
    :class:`~dualboost.solvers.contract.SmoothDual` whose dual is differentiable (``smooth_dual``)
    and whose w-domain it knows (on the
    simplex a :class:`~dualboost.solvers.contract.MaxEdgeDual`, on the line a
    :class:`~dualboost.solvers.contract.LineDual`), and it solves the dual side."""
    protocol = _DOMAIN_PROTOCOLS.get(model.w_domain)
    smooth = protocol is not None and implements(model, protocol) and model.smooth_dual
    if not smooth:
        if implements(model, LinearProgram):
            why, use = "is a linear program", "method='highs' or a cvxpy method ('clarabel', 'ecos', 'scs')"
        else:
            why = model.nonsmooth_reason() if implements(model, ExplainedDual) else ""
            why = why or "is not differentiable, or has no closed-form gradient and curvature in dualboost"
            use = "a cvxpy method ('clarabel', 'ecos', 'scs')"
        return f"method='auglag' needs a differentiable dual; the dual of {model.name} {why}: use {use}"
    if side != "dual":
        return "method='auglag' solves the dual (w-domain) side: use side='dual'"
    return None


def _solve_auglag(model, side, tol, warm_start, max_iter, removed) -> Solution:
    reason = accepts(model, side)
    if reason is not None:
        raise ValueError(reason)
    if not (isinstance(max_iter, int | np.integer) and max_iter >= 1):
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    start = time.perf_counter()
    evaluator = DualEvaluator(model)
    w0 = warm_start_weights(model, warm_start, removed)
    target = 0.5 * tol
    kept = None
    if model.w_domain is WDomain.LINE:
        if w0 is None:  # the clipped corrective step of [KG] Alg. 4.1 (b) as the starting point
            d_prev = model.d_from_w(model.weights(0.0))
            norm = np.abs(model.direction).max()
            a0 = 0.0 if norm == 0 else float(np.clip(model.direction @ d_prev / (model.eta * norm**2), 0, 1))
        else:
            a0 = float(w0[-1])
        a, iterations = _solve_line(model, evaluator, a0, max_iter)
        w = model.weights(a)
        d = model.d_from_w(w)
    elif model.w_domain is WDomain.ORTHANT:
        w0 = np.zeros(model.n_hypotheses) if w0 is None else np.clip(w0, 0.0, None)
        point, iterations = _solve_orthant(model, evaluator, w0, target, max_iter)
        w, d = point.w, point.d
    else:
        new_column = w0 is not None and not removed and warm_start.w.size == model.n_hypotheses - 1
        if new_column and isinstance(warm_start.solver_state, Curvature):  # the previous solve's Hessian
            kept = warm_start.solver_state
        point, iterations, kept = _solve_on_simplex(model, evaluator, w0, new_column, target, max_iter, kept)
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
        extra={
            "evaluations": evaluator.evaluations,
            "hessians": evaluator.hessians,
            "hessian_products": evaluator.products,
        },
    )
    solution.solver_state = kept  # the last Hessian on the simplex, for a warm start after a new column
    return solution
