"""The totally corrective drivers of [KG]: LPBoost (Alg. 2.1), SoftBoost / TotalBoost (Alg. 3.1),
ERLPBoost (Alg. 3.2) and Binary ERLPBoost (Alg. 3.3).

Each iteration t (docs/architecture.md#layers): the oracle returns the maximum-edge hypothesis h^t for
d^{t-1} (its column u^t = y * h^t(X) joins U unless h^t was selected before); the stopping rule is
tested; the model of ``dualboost.problems`` over the columns so far is re-solved, warm-started from
the previous :class:`~dualboost.solvers.Solution`, and its certified pair gives d^t and w^t. The
oracle sees only d; the driver sees the models only through ``solve`` and their objectives.

Stopping rules (docs/math.md#lpboost, docs/math.md#softboost, docs/math.md#erlpboost-stopping,
docs/math.md#binary-erlpboost):

* LPBoost: ``min_{q<=t} u^q . d^{q-1} - P_LP^t <= eps`` after the re-solve; T = t.
* SoftBoost: the problem of Eq. 3.1 is infeasible (certified by the LP value P_LP^t >
  gamma_hat_t - eps) or d^t has a zero; T = t. The history's stopping quantity is
  ``gamma_hat_t - P_LP^t``, which is < eps exactly when the problem is infeasible.
* ERLPBoost and Binary ERLPBoost, before the re-solve: the practical criterion
  ``delta~^t = min_{q<=t} P^q(d^{q-1}) - Theta^^{t-1}(w^{t-1}) <= eps/2`` (the default; inexact
  inner solves with certified gap <= eps/4 are allowed, Lemmas 3.4-3.5) or the simple criterion
  ``delta^t = min_{q<=t} P^q(d^{q-1}) - P^{t-1}(d^{t-1}) <= eps/2`` (Lemma 3.3, exact solves assumed).
  Then T = t - 1: the last hypothesis is discarded. ``P^0(d^0) = Theta^^0 = -1``
  (docs/math.md#erlpboost-primal).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dualboost._validation import (
    check_distribution,
    check_max_iter,
    check_nu,
    check_positive,
    check_vector,
)
from dualboost.boosting.core.eta import resolve_eta
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult, n_positive
from dualboost.boosting.core.run import Ensemble, Run, check_oracle, rule_or_cap
from dualboost.boosting.core.stopping import (
    CRITERIA,
    LPBOOST_MAX_ITER,
    erlpboost_max_iter,
    softboost_max_iter,
)
from dualboost.problems import (
    BinaryERLPBoost,
    ColumnIndependent,
    ERLPBoost,
    LPBoost,
    SoftBoost,
)
from dualboost.problems.lpboost import min_max_edge
from dualboost.solvers import Solution

__all__ = [
    "lpboost",
    "softboost",
    "erlpboost",
    "binary_erlpboost",
    "entropy_setup",
    "entropy_loop",
    "EntropySetup",
    "SOFTBOOST_ZERO",
    "PRACTICAL_TOL",
    "CappedLP",
    "weighted_soft_margin",
]

#: SoftBoost's "d^t contains a zero" (Alg. 3.1 step 3(c)): an entry below this fraction of d0_n
SOFTBOOST_ZERO = 1e-12
#: the certified gap of every ERLPBoost re-solve must be <= eps/4 ([KG] Sec 3.2.2, practical criterion);
#: an inexact solve is repeated, warm-started, with a tolerance this many times smaller, at most
#: ``_RESOLVES`` times
_TIGHTEN, _RESOLVES = 100.0, 3
#: the default relative tolerance of a practical-criterion re-solve, in units of eps: the bound of
#: Lemma 3.4 itself (the solver aims at half its tolerance, and :func:`_solve_certified` re-solves
#: a certified gap above eps/4). Against eps/8, the default until 2026-11 (best of 2-5 runs, one
#: process, nu = 0.1 N, eps = 0.01 unless said): german 0.263 -> 0.233 s, diabetes 0.549 -> 0.507
#: s, diabetes at nu = 0.05 N, eps = 1e-3 3.26 -> 2.72 s, german at eps = 1e-4 0.706 -> 0.682 s;
#: iterations within one (159 -> 158, 224 -> 223, 295 -> 294, 204 -> 204)
PRACTICAL_TOL = 0.25


def _uniform(n: int) -> NDArray[np.float64]:
    return np.full(n, 1.0 / n)


def _prior(d0: object, n: int) -> NDArray[np.float64] | None:
    """The checked prior d0 (a strictly positive distribution over the N examples), or None for
    the uniform one."""
    return None if d0 is None else check_distribution(d0, n)


@takes_run_options
def lpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    max_iter: int | None = None,
    method: str = "highs",
    side: str = "primal",
    tol: float = 1e-7,
    caps: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """LPBoost ([KG] Alg. 2.1): re-solve the capped min-max-edge LP (Eq. 2.3) after every oracle
    call; stop when ``min_{q<=t} u^q.d^{q-1} - P_LP^t <= eps``.

    ``oracle``: a fitted oracle (``best(d)``); ``nu`` in [1, N]: the capping (1 = hard margin);
    ``max_iter``: default 1,000 (no bound is known, Thm 2.5); ``method``/``side``: how the LP is
    solved (HiGHS on the d-domain LP by default; the LP's d is not unique, docs/math.md#lpboost); ``tol``: the
    certificate's tolerance. The output w maximises the soft margin over the T hypotheses (Eq. 2.2).
    The run options, as keywords or as one ``options=``: ``callback`` (each history row),
    ``keep_iterates`` (``(d^t, w^t)`` in ``result.iterates``), ``checkpoint``, ``checkpoint_every``,
    ``resume``, ``keep_stages`` and ``max_time`` (:class:`~dualboost.boosting.core.options.RunOptions`,
    the same on every driver).

    ``caps``: per-example caps ``d_n <= caps_n`` in place of the uniform ``1/nu`` (positive, summing
    to at least 1): the LP of Eq. 2.3 over ``{d in S^N, d <= caps}``, solved by HiGHS in the d-domain
    (:func:`~dualboost.problems.lpboost.min_max_edge`, not warm-started; ``method``/``side`` unused),
    whose dual is the soft margin with the example n's slack weighted by ``caps_n``. With
    ``caps_n = k_n / nu`` for integer k_n it is the LP of the data with example n repeated k_n times
    (the k_n copies have one margin, so their caps add up); ``nu`` then only names the capping in
    ``params``.
    """
    n = check_oracle(oracle)
    nu, eps = check_nu(nu, n), check_positive(eps, "eps")
    max_iter = check_max_iter(max_iter, LPBOOST_MAX_ITER)
    params = {"nu": nu, "eps": eps, "method": method, "side": side}
    history = History("min_q u^q.d^{q-1} - P_LP^t <= eps", eps)
    settings = params | {"max_iter": max_iter, "tol": tol}
    run = Run(oracle, history, options, algorithm="lpboost", settings=settings)
    ensemble = Ensemble(n)
    if caps is None:
        model = GrowingModel(ensemble, lambda U: LPBoost(U, nu=nu))
    else:
        caps = _check_caps(caps, n)
        params["caps"] = "weighted"

        def model() -> CappedLP:
            return CappedLP(ensemble.U, caps)

    d, min_edge, sol = _uniform(n) if caps is None else _cap_start(caps), np.inf, None
    run.keep(d, np.zeros(0))
    first, (d, min_edge, sol) = run.resume(ensemble, d=d, min_edge=min_edge, sol=sol)
    converged, timed = False, None
    for t in range(first, max_iter + 1):
        selection = run.ask(d)
        min_edge = min(min_edge, selection.edge)
        _, is_new = ensemble.add(selection)
        if is_new or sol is None:
            with run.solving():
                sol = model().solve(method=method, side=side, tol=tol, warm_start=sol)
            _require_point(sol, "lpboost", t)
        quantity = min_edge - sol.primal_value
        run.record(
            t,
            selection.edge,
            primal=sol.primal_value,
            dual=sol.dual_value,
            stopping=quantity,
            n_hypotheses=n_positive(sol.w),
        )
        d = sol.d
        run.keep(d, sol.w)
        if quantity <= eps:
            converged = True
            break
        run.save(t, ensemble, d=d, min_edge=min_edge, sol=sol)
        timed = run.out_of_time()
        if timed:
            break
    reason, detail = timed or rule_or_cap(converged, "min edge - P_LP <= eps", max_iter)
    return run.result(
        "lpboost",
        ensemble,
        sol.w,
        d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
        soft_margin=caps is None,  # the soft margin of weighted caps is not the nu-average
    )


def _check_caps(caps: object, n: int) -> NDArray[np.float64]:
    """Per-example caps: N finite positive values whose sum is at least 1 (so that the capped simplex
    is not empty)."""
    caps = check_vector(caps, "caps", n)
    if np.any(caps <= 0):
        raise ValueError("caps must be positive (an example with cap 0 is an example removed)")
    if caps.sum() < 1.0 - 1e-12:
        raise ValueError(
            f"caps must sum to at least 1 (the capped simplex is empty); they sum to {caps.sum():.6g}"
        )
    return caps


def _cap_start(caps: NDArray[np.float64]) -> NDArray[np.float64]:
    """The first distribution of a weighted-caps LPBoost run: proportional to the caps (the uniform
    d of the repeated data), which lies under them since they sum to at least 1."""
    return caps / caps.sum()


class CappedLP:
    """LPBoost's LP with per-example caps, ``min_{d in S^N, d <= c} max_q u^q . d`` (Eq. 2.3 with
    the box ``d <= c``), for :func:`lpboost`'s ``caps``: HiGHS's d and edge multipliers w, certified
    here. The primal value is ``max_q u^q . d``; the dual value is the weighted soft margin
    ``min_{d in S^N, d <= c} d . (U w)`` (the box-capped simplex's support function: the smallest
    margins take their caps in increasing order, docs/math.md#capped-simplex-support)."""

    def __init__(self, U: NDArray[np.float64], caps: NDArray[np.float64]) -> None:
        self.U, self.caps = U, caps

    def solve(self, *, tol: float = 1e-7, **_: object) -> Solution:
        """The certified LP solution (``method``, ``side`` and ``warm_start`` do not apply)."""
        found = min_max_edge(np.asarray(self.U), np.zeros(self.caps.size), self.caps)
        if found is None:  # pragma: no cover - the caps sum to >= 1
            return Solution.without_point("failed", "highs", "primal", tol, message="HiGHS failed")
        _, d, w = found
        d = np.clip(d, 0.0, self.caps)
        d /= d.sum()
        w = np.clip(w, 0.0, None)
        w /= w.sum()
        primal = float(np.max(np.asarray(self.U).T @ d))
        dual = weighted_soft_margin(np.asarray(self.U) @ w, self.caps)
        gap = primal - dual
        status = "optimal" if gap <= tol * max(1.0, abs(primal)) else "inaccurate"
        return Solution(
            d=d,
            w=w,
            primal_value=primal,
            dual_value=dual,
            gap=gap,
            status=status,
            method="highs",
            side="primal",
            tol=tol,
        )


def weighted_soft_margin(margins: NDArray[np.float64], caps: NDArray[np.float64]) -> float:
    """``min_{d in S^N, d <= caps} d . margins``: the smallest margins take their caps in increasing
    order until the mass is 1 (for equal caps ``1/nu``: the mean of the nu smallest margins)."""
    order = np.argsort(margins, kind="stable")
    c = caps[order]
    filled = np.minimum(c, np.clip(1.0 - (np.cumsum(c) - c), 0.0, None))
    return float(filled @ margins[order])


@takes_run_options
def softboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    max_iter: int | None = None,
    method: str = "auglag",
    tol: float = 1e-6,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """SoftBoost ([KG] Alg. 3.1; TotalBoost when ``nu = 1``): d^t is the relative-entropy projection
    of d^0 onto ``{d capped : u^q . d <= gamma_hat_t - eps, q <= t}`` (Eq. 3.1, the ``SoftBoost``
    model), ``gamma_hat_t = min_{q<=t} u^q . d^{q-1}``; stop when that set is empty or d^t has a zero
    (an entry below ``SOFTBOOST_ZERO * d0_n``).

    ``max_iter`` defaults to Thm 3.2's ``ceil((2/eps^2) ln(N/nu))``. Output: when the last problem is
    infeasible, w maximises the soft margin over the T hypotheses (the LP whose value P_LP^T >
    gamma_hat_T - eps >= g - eps is what Thm 3.2's proof certifies); otherwise the last problem's
    dual w, normalised ([DERIVED], docs/math.md#softboost). ``callback`` and ``keep_iterates`` as for
    :func:`lpboost` (the iterates' w are SoftBoost's unnormalised dual variables). ``d0``: the prior
    of the relative entropy (a positive distribution; default uniform), also d^0; the caps stay
    ``1/nu``.
    """
    n = check_oracle(oracle)
    nu, eps = check_nu(nu, n), check_positive(eps, "eps")
    max_iter = check_max_iter(max_iter, softboost_max_iter(n, nu, eps))
    params = {"nu": nu, "eps": eps, "method": method}
    history = History("gamma_hat_t - P_LP^t < eps (infeasible) or a zero in d^t", eps)
    settings = params | {"max_iter": max_iter, "tol": tol}
    run = Run(oracle, history, options, algorithm="softboost", settings=settings)
    ensemble = Ensemble(n)
    prior = _prior(d0, n)
    d0 = _uniform(n) if prior is None else prior
    d, gamma_hat, sol, w = d0, 1.0, None, np.zeros(0)
    run.keep(d, w)
    first, (d, gamma_hat, sol, w) = run.resume(ensemble, d=d, gamma_hat=gamma_hat, sol=sol, w=w)
    converged, reason, detail = False, "max_iter", f"max_iter={max_iter}"
    for t in range(first, max_iter + 1):
        selection = run.ask(d)
        gamma_hat = min(gamma_hat, selection.edge)
        ensemble.add(selection)
        with run.solving():
            model = SoftBoost(ensemble.U, nu=nu, gamma_hat=gamma_hat, eps=eps, d0=prior)
            new_sol = model.solve(method=method, warm_start=sol, tol=tol)
            p_lp = model.lp_value[0]  # computed (and cached) by the feasibility check of solve
        quantity = gamma_hat - p_lp
        if new_sol.status == "infeasible":
            with run.solving():
                w = LPBoost(ensemble.U, nu=nu).solve(method="highs").w
            run.record(t, selection.edge, stopping=quantity, n_hypotheses=n_positive(w))
            converged, reason, detail = True, "infeasible", "P_LP^t > gamma_hat_t - eps"
            break
        _require_point(new_sol, "softboost", t)
        sol, d = new_sol, new_sol.d
        w = sol.w / sol.w.sum() if sol.w.sum() > 0 else sol.w
        run.keep(d, sol.w)
        run.record(
            t,
            selection.edge,
            primal=sol.primal_value,
            dual=sol.dual_value,
            stopping=quantity,
            n_hypotheses=n_positive(w),
        )
        if np.any(d < SOFTBOOST_ZERO * d0):
            converged, reason, detail = True, "converged", "a zero in d^t"
            break
        run.save(t, ensemble, d=d, gamma_hat=gamma_hat, sol=sol, w=w)
        timed = run.out_of_time()
        if timed:
            reason, detail = timed
            break
    return run.result(
        "softboost",
        ensemble,
        w,
        d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
        soft_margin=True,
    )


@takes_run_options
def erlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    criterion: str = "practical",
    method: str = "auglag",
    tol: float | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """ERLPBoost ([KG] Alg. 3.2): d^t minimises ``max_q u^q.d + (1/eta) Delta(d, d^0)`` over the
    capped simplex (Eq. 3.6, the ``ERLPBoost`` model, solved in the w-domain, Eq. 3.10).

    ``eta``: default the canonical ``max((2/eps) ln(N/nu), 1/2)`` (:func:`~dualboost.problems.erlpboost_eta`,
    docs/math.md#canonical-eta), which makes the stop imply ``g - P_LP^T <= eps`` (Lemmas 3.3, 3.5);
    ``criterion``: ``"practical"`` (delta~, default) or ``"simple"`` (delta), see the module
    docstring; ``max_iter``: default Thm 3.12's (practical) or Thm 3.10's (simple) bound plus one;
    ``method``: the subproblem solver (``"auglag"``: warm-started); ``tol``: the relative tolerance of each
    re-solve, default eps/4 (practical: the certified gap must be <= eps/4, Lemma 3.4, which every
    re-solve is checked against) or
    eps/1000 (simple, which assumes exact solves); ``callback`` and ``keep_iterates`` as for
    :func:`lpboost`. The output w is the regularised dual of the T-th problem (step 4).

    ``d0``: the prior of ``Delta(d, d0)`` (a positive distribution; default uniform), also d^0; the
    caps stay ``d_n <= 1/nu`` for every example. With d0 given, the canonical eta is
    :func:`~dualboost.problems.erlpboost.prior_eta` (``ln(N/nu)`` becomes ``ln(1/(nu min d0))``),
    which keeps the stop's guarantee.
    """
    return _entropy_regularized(
        ERLPBoost,
        "erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        criterion=criterion,
        method=method,
        tol=tol,
        d0=d0,
        options=options,
    )


@takes_run_options
def binary_erlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    criterion: str = "practical",
    method: str = "auglag",
    tol: float | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """Binary ERLPBoost ([KG] Alg. 3.3): as :func:`erlpboost` with the binary relative entropy
    ``Delta_{2,nu}`` (Eq. 3.25, the ``BinaryERLPBoost`` model; ``nu < N``), whose canonical eta is
    ``max((2/eps)(ln(N/nu) + 1), 1/2)`` and whose caps are Thms 3.21 and 3.23 (with erratum KG-16,
    docs/math.md#erratum-kg-16). ``d0`` as for :func:`erlpboost` (every ``d0_n`` must be below the
    cap ``1/nu``: the binary entropy's domain)."""
    return _entropy_regularized(
        BinaryERLPBoost,
        "binary_erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        criterion=criterion,
        method=method,
        tol=tol,
        binary=True,
        d0=d0,
        options=options,
    )


def _entropy_regularized(
    model_class,
    algorithm: str,
    oracle,
    *,
    nu: float,
    eps: float,
    eta: float | None,
    max_iter: int | None,
    criterion: str,
    method: str,
    tol: float | None,
    options: RunOptions,
    binary: bool = False,
    d0: NDArray[np.float64] | None = None,
) -> BoostResult:
    """The loop of [KG] Algs. 3.2 and 3.3 for ``model_class`` (ERLPBoost or BinaryERLPBoost)."""
    n = check_oracle(oracle)
    prior = _prior(d0, n)
    setup = entropy_setup(n, nu, eps, eta, max_iter, criterion, method, tol, binary=binary, d0=prior)
    settings = setup.params | {"max_iter": setup.max_iter}
    run = Run(oracle, setup.history(), options, algorithm=algorithm, settings=settings)
    ensemble = Ensemble(n)
    d = _uniform(n) if prior is None else prior
    run.keep(d, np.zeros(0))
    model = GrowingModel(ensemble, lambda U: model_class(U, nu=setup.nu, eta=setup.eta, d0=prior))
    sol, d, converged, reason, detail = entropy_loop(run, ensemble, model, d, setup, algorithm)
    weights = np.zeros(0) if sol is None else sol.w  # T = its size: the last hypothesis is discarded
    return run.result(
        algorithm,
        ensemble,
        weights,
        d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=setup.params,
        soft_margin=True,
    )


@dataclass(frozen=True)
class EntropySetup:
    """The checked settings of an ERLPBoost-type run ([KG] Algs. 3.2, 3.3; docs/math.md#canonical-eta,
    docs/math.md#erlpboost-stopping)."""

    nu: float
    eps: float
    eta: float
    max_iter: int
    criterion: str
    method: str
    tol: float

    @property
    def practical(self) -> bool:
        return self.criterion == "practical"

    @property
    def params(self) -> dict:
        """The run's parameters as a result reports them."""
        return {
            "nu": self.nu,
            "eps": self.eps,
            "eta": self.eta,
            "criterion": self.criterion,
            "method": self.method,
            "tol": self.tol,
        }

    def history(self) -> History:
        """An empty history compared with the stopping rule ``delta~ (or delta) <= eps/2``."""
        name = "delta~ (practical)" if self.practical else "delta (simple)"
        return History(f"{name} <= eps/2", self.eps / 2.0)


class GrowingModel:
    """The model of the hypotheses so far, for a booster that re-solves one model over a growing U:
    built once by ``build(U)`` (its parameters checked then), afterwards the same model over the
    ensemble's columns (:meth:`~dualboost.problems.ColumnIndependent.with_columns`, nothing checked
    again). Calling it gives the model of ``ensemble.U``."""

    def __init__(self, ensemble, build: Callable[[NDArray[np.float64]], ColumnIndependent]) -> None:
        self.ensemble, self.build = ensemble, build
        self.model: ColumnIndependent | None = None

    def __call__(self) -> ColumnIndependent:
        U = self.ensemble.U
        self.model = self.build(U) if self.model is None else self.model.with_columns(U)
        return self.model


def entropy_setup(
    n: int,
    nu: object,
    eps: object,
    eta: object,
    max_iter: object,
    criterion: str,
    method: str,
    tol: object,
    *,
    binary: bool = False,
    d0: NDArray[np.float64] | None = None,
) -> EntropySetup:
    """Check an ERLPBoost-type run's arguments and fill in the defaults: the canonical eta
    (docs/math.md#canonical-eta; for a prior d0, :func:`~dualboost.problems.erlpboost.prior_eta`),
    Thm 3.12's / 3.10's iteration cap, the re-solve tolerance eps/4 (practical criterion: the
    certified gap must be <= eps/4, Lemma 3.4; :func:`_solve_certified` checks every re-solve
    against it and tightens the tolerance where a gap is above it) or eps/1000 (simple)."""
    nu, eps = check_nu(nu, n, strict_upper=binary), check_positive(eps, "eps")
    eta = resolve_eta(eta, n, nu, eps, d0=d0, binary=binary)
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}; got {criterion!r}")
    max_iter = check_max_iter(max_iter, erlpboost_max_iter(eta, eps, criterion))
    practical = criterion == "practical"
    tol = (PRACTICAL_TOL * eps if practical else eps / 1000.0) if tol is None else check_positive(tol, "tol")
    return EntropySetup(nu, eps, eta, max_iter, criterion, method, tol)


def entropy_loop(
    run: Run,
    ensemble,
    make_model: Callable[[], object],
    d,
    setup: EntropySetup,
    algorithm: str,
    next_d: Callable[[object, Solution], object] | None = None,
) -> tuple[Solution | None, object, bool, str, str]:
    """The iterations of [KG] Algs. 3.2/3.3 on ``run`` and ``ensemble``: ask the oracle for ``d``,
    build the model of the hypotheses so far (``make_model()``), stop on ``delta~`` (``delta``)
    ``<= eps/2``, else re-solve warm-started and certified. ``next_d(model, solution)`` gives the
    distribution the oracle sees next (default ``solution.d``; the Dask driver keeps it on the
    workers). Returns ``(last solution, last d, converged, stop reason, its detail)``: the reason
    ``"converged"``, ``"max_iter"`` or ``"precision_floor"`` (the subproblem solver cannot certify
    the gap eps/4 that the practical criterion needs, :data:`~dualboost.boosting.core.result.STOP_REASONS`);
    the caller's :meth:`~dualboost.boosting.core.run.Run.result` warns for the last two."""
    eps, practical = setup.eps, setup.practical
    name = "delta~ (practical)" if practical else "delta (simple)"
    sol: Solution | None = None
    p_min = math.inf  # min_{q<=t} P^q(d^{q-1})
    p_prev = theta_prev = -1.0  # P^0(d^0) = Theta^^0 = -1 (docs/math.md#erlpboost-primal)
    converged, reason, detail, repeats = False, "max_iter", f"max_iter={setup.max_iter}", 0
    first, (d, sol, p_min, p_prev, theta_prev, repeats) = run.resume(
        ensemble, d=d, sol=sol, p_min=p_min, p_prev=p_prev, theta_prev=theta_prev, repeats=repeats
    )
    for t in range(first, setup.max_iter + 1):
        selection = run.ask(d)
        _, is_new = ensemble.add(selection)
        with run.solving():
            model = make_model()
            p_min = min(p_min, model.primal_objective(d))  # P^t(d^{t-1}) includes the new column
        quantity = p_min - (theta_prev if practical else p_prev)
        if quantity <= eps / 2.0:
            weights = np.zeros(0) if sol is None else sol.w
            run.record(t, selection.edge, stopping=quantity, n_hypotheses=n_positive(weights))
            converged, reason, detail = True, "converged", f"{name} <= eps/2"
            break
        # A re-selected hypothesis leaves the problem unchanged, and then delta~^t <= the certified
        # gap of the previous solve: the criterion fires unless that solve missed eps/4. So solve
        # the same problem again, more precisely; give up after _RESOLVES such iterations in a row.
        repeats = 0 if is_new else repeats + 1
        if repeats > _RESOLVES:
            run.record(t, selection.edge, stopping=quantity, n_hypotheses=n_positive(sol.w))
            reason = "precision_floor"
            detail = (
                f"re-selected hypothesis {_RESOLVES + 1} times: the subproblem solver cannot reach the "
                f"precision eps/4 = {eps / 4:.3g} (certified gap {sol.gap:.3g})"
            )
            break
        with run.solving():
            sol = _solve_certified(
                model, setup.method, sol, setup.tol / _TIGHTEN**repeats, eps / 4.0 if practical else None
            )
            _require_point(sol, algorithm, t)
            d = sol.d if next_d is None else next_d(model, sol)
        run.record(
            t,
            selection.edge,
            primal=sol.primal_value,
            dual=sol.dual_value,
            stopping=quantity,
            n_hypotheses=n_positive(sol.w),
        )
        p_prev, theta_prev = sol.primal_value, sol.dual_value
        run.keep(d, sol.w)
        state = {"p_min": p_min, "p_prev": p_prev, "theta_prev": theta_prev, "repeats": repeats}
        run.save(t, ensemble, d=d, sol=sol, **state)
        timed = run.out_of_time()
        if timed:
            reason, detail = timed
            break
    return sol, d, converged, reason, detail


def _solve_certified(
    model, method: str, warm: Solution | None, tol: float, max_gap: float | None
) -> Solution:
    """``model.solve`` warm-started from ``warm``; while the certified gap exceeds ``max_gap``, solve
    again from the result with a tolerance ``_TIGHTEN`` times smaller (at most ``_RESOLVES`` times).
    Only a solve that reached its tolerance is tightened (its relative gap met ``tol`` but the
    absolute gap did not meet ``max_gap``): a solve that missed its tolerance would only be asked
    for more of what it could not do (at eta = 1.2e6 that took minutes for nothing)."""
    sol = model.solve(method=method, side="dual", warm_start=warm, tol=tol)
    for _ in range(_RESOLVES):
        if max_gap is None or sol.w is None or sol.gap <= max_gap or sol.status != "optimal":
            break
        tol /= _TIGHTEN
        sol = model.solve(method=method, side="dual", warm_start=sol, tol=tol)
    return sol


def _require_point(sol: Solution, algorithm: str, t: int) -> None:
    if sol.d is None or sol.w is None:
        raise RuntimeError(
            f"{algorithm}: the subproblem of iteration {t} returned no primal-dual pair "
            f"(status {sol.status!r}, method {sol.method!r}): {sol.message}"
        )
