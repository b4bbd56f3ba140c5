"""The totally corrective drivers of [KG]: LPBoost (Alg. 2.1), SoftBoost / TotalBoost (Alg. 3.1),
ERLPBoost (Alg. 3.2) and Binary ERLPBoost (Alg. 3.3).

Each iteration t (docs/architecture.md#layers): the oracle returns the maximum-edge hypothesis h^t for
d^{t-1} (its column u^t = y * h^t(X) joins U unless h^t was selected before); the stopping rule is
tested; the model of ``dualboost.problems`` over the columns so far is re-solved, warm-started from
the previous :class:`~dualboost.solvers.Solution`, and its certified pair gives d^t and w^t. The
oracle sees only d; the driver sees the models only through ``solve`` and their objectives. Each
algorithm is a :class:`~dualboost.boosting.totally_corrective.column_generation.Formulation`
(:class:`EntropyRegularized` for the two entropy models) of the one loop
:func:`~dualboost.boosting.totally_corrective.column_generation.column_generation`, which the
formulations of :mod:`~dualboost.boosting.totally_corrective.formulations` run too.

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
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Ensemble, Run, check_oracle
from dualboost.boosting.core.stopping import (
    CRITERIA,
    LPBOOST_MAX_ITER,
    erlpboost_max_iter,
    softboost_max_iter,
)
from dualboost.boosting.totally_corrective.column_generation import (
    RESOLVES,
    TIGHTEN,
    Formulation,
    GrowingModel,
    Stop,
    column_generation,
    solve_certified,
)
from dualboost.problems import (
    BinaryERLPBoost,
    ERLPBoost,
    LPBoost,
    MaxEdgeModel,
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
#: the default relative tolerance of a practical-criterion re-solve, in units of eps: the bound of
#: Lemma 3.4 itself (the solver aims at half its tolerance, and :func:`solve_certified` re-solves
#: a certified gap above eps/4). A tighter eps/8 costs 4-17 % more time on german and diabetes
#: (nu = 0.1 N and 0.05 N, eps from 1e-2 to 1e-4) for iteration counts within one of these
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

    The output w maximises the soft margin over the T hypotheses (Eq. 2.2).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu`` (1 is the hard margin).
    eps : float, default 0.01
        The precision of the stop.
    max_iter : int, optional
        Default 1,000 (no bound is known, Thm 2.5).
    method : str, default "highs"
        How the LP is solved (HiGHS on the d-domain LP, warm-started from the previous basis; the
        LP's d is not unique, docs/math.md#lpboost).
    side : {"primal", "dual"}, default "primal"
        The side the method solves.
    tol : float, default 1e-7
        The certificate's tolerance.
    caps : ndarray of shape (N,), optional
        Per-example caps ``d_n <= caps_n`` in place of the uniform ``1/nu`` (positive, summing to at
        least 1): the LP of Eq. 2.3 over ``{d in S^N, d <= caps}``, solved by HiGHS in the d-domain
        (:func:`~dualboost.problems.lpboost.min_max_edge`, not warm-started; ``method``/``side``
        unused), whose dual is the soft margin with the example n's slack weighted by ``caps_n``.
        With ``caps_n = k_n / nu`` for integer k_n it is the LP of the data with example n repeated
        k_n times (the k_n copies have one margin, so their caps add up); ``nu`` then only names the
        capping in ``params``.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    n = check_oracle(oracle)
    nu, eps = check_nu(nu, n), check_positive(eps, "eps")
    max_iter = check_max_iter(max_iter, LPBOOST_MAX_ITER)
    params = {"nu": nu, "eps": eps, "method": method, "side": side}
    settings = params | {"max_iter": max_iter, "tol": tol}  # (a checkpoint's header: caps are not in it)
    ensemble = Ensemble(n)
    form = _LPBoost(ensemble, eps=eps, method=method, tol=tol, nu=nu, side=side)
    if caps is not None:
        form.caps, params["caps"] = _check_caps(caps, n), "weighted"
    run = Run(oracle, History(form.rule, eps), options, algorithm="lpboost", settings=settings)
    end = column_generation(run, ensemble, form, form.start(n), max_iter)
    return run.result(
        "lpboost",
        ensemble,
        end.sol.w,
        end.d,
        converged=end.converged,
        stop_reason=end.reason,
        stop_detail=end.detail,
        params=params,
        soft_margin=caps is None,  # the soft margin of weighted caps is not the nu-average
    )


class _LPBoost(Formulation):
    """LPBoost ([KG] Alg. 2.1) for :func:`column_generation`: the LP re-solved after every new
    hypothesis (a re-selected one leaves it unchanged), stop on ``min_q u^q.d^{q-1} - P_LP^t <= eps``
    after the re-solve."""

    name, rule = "lpboost", "min_q u^q.d^{q-1} - P_LP^t <= eps"

    def __init__(self, ensemble: Ensemble, *, nu: float, side: str, **kw) -> None:
        super().__init__(ensemble, **kw)
        self.nu, self.side, self.ensemble = nu, side, ensemble
        self.caps: NDArray[np.float64] | None = None  # per-example caps (lpboost's caps)
        self.min_edge = np.inf

    def state(self) -> dict:
        return {"min_edge": self.min_edge}

    def build(self, U):
        return LPBoost(U, nu=self.nu)

    def start(self, n: int) -> NDArray[np.float64]:
        return _uniform(n) if self.caps is None else _cap_start(self.caps)

    def seen(self, selection, is_new: bool) -> None:
        self.min_edge = min(self.min_edge, selection.edge)

    def model(self, d):
        return self.growing() if self.caps is None else CappedLP(self.ensemble.U, self.caps)

    def solve(self, model, sol: Solution | None, is_new: bool) -> Solution:
        if not is_new and sol is not None:
            return sol  # the same LP
        return model.solve(method=self.method, side=self.side, tol=self.tol, warm_start=sol)

    def after(self, model, d, selection, position, is_new, sol):
        quantity = self.min_edge - sol.primal_value
        met = quantity <= self.eps
        return quantity, Stop(quantity, "converged", "min edge - P_LP <= eps") if met else None


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
    margins take their caps in increasing order, docs/math.md#capped-simplex-support).

    Parameters
    ----------
    U : ndarray of shape (N, Q)
        The hypotheses' columns.
    caps : ndarray of shape (N,)
        The per-example caps c.
    """

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
    order until the mass is 1 (for equal caps ``1/nu``: the mean of the nu smallest margins).

    Parameters
    ----------
    margins : ndarray of shape (N,)
        The margins.
    caps : ndarray of shape (N,)
        The per-example caps.

    Returns
    -------
    float
        The weighted soft margin.
    """
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

    Output: when the last problem is infeasible, w maximises the soft margin over the T hypotheses
    (the LP whose value P_LP^T > gamma_hat_T - eps >= g - eps is what Thm 3.2's proof certifies);
    otherwise the last problem's dual w, normalised ([DERIVED], docs/math.md#softboost).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N] (1 is TotalBoost).
    eps : float, default 0.01
        The precision: the edges are bounded by ``gamma_hat_t - eps``.
    max_iter : int, optional
        Default Thm 3.2's ``ceil((2/eps^2) ln(N/nu))``.
    method : str, default "auglag"
        The subproblem solver.
    tol : float, default 1e-6
        The relative tolerance of each projection.
    d0 : ndarray of shape (N,), optional
        The prior of the relative entropy (a positive distribution; default uniform), also d^0; the
        caps stay ``1/nu``.
    options : RunOptions
        The iterates' w are SoftBoost's unnormalised dual variables.

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    n = check_oracle(oracle)
    nu, eps = check_nu(nu, n), check_positive(eps, "eps")
    max_iter = check_max_iter(max_iter, softboost_max_iter(n, nu, eps))
    params = {"nu": nu, "eps": eps, "method": method}
    settings = params | {"max_iter": max_iter, "tol": tol}
    ensemble = Ensemble(n)
    form = _SoftBoost(ensemble, eps=eps, method=method, tol=tol, nu=nu, prior=_prior(d0, n))
    run = Run(oracle, History(form.rule, eps), options, algorithm="softboost", settings=settings)
    end = column_generation(run, ensemble, form, form.d0, max_iter)
    return run.result(
        "softboost",
        ensemble,
        form.w,
        end.d,
        converged=end.converged,
        stop_reason=end.reason,
        stop_detail=end.detail,
        params=params,
        soft_margin=True,
    )


class _SoftBoost(Formulation):
    """SoftBoost ([KG] Alg. 3.1) for :func:`column_generation`: the projection of Eq. 3.1 at the
    running ``gamma_hat``, stop when it is infeasible (then w is the LP's, over the T hypotheses) or
    d^t has a zero; the output w is the last dual w normalised (:attr:`w`)."""

    name, rule = "softboost", "gamma_hat_t - P_LP^t < eps (infeasible) or a zero in d^t"

    def __init__(self, ensemble: Ensemble, *, nu: float, prior: NDArray[np.float64] | None, **kw) -> None:
        super().__init__(ensemble, **kw)
        self.nu, self.prior, self.ensemble = nu, prior, ensemble
        self.d0 = _uniform(ensemble.stored.shape[0]) if prior is None else prior
        self.gamma_hat, self.w = 1.0, np.zeros(0)
        self.quantity = np.nan  # gamma_hat_t - P_LP^t of the last re-solve

    def state(self) -> dict:
        return {"gamma_hat": self.gamma_hat, "w": self.w}

    def seen(self, selection, is_new: bool) -> None:
        self.gamma_hat = min(self.gamma_hat, selection.edge)

    def model(self, d):
        return SoftBoost(self.ensemble.U, nu=self.nu, gamma_hat=self.gamma_hat, eps=self.eps, d0=self.prior)

    def solve(self, model, sol: Solution | None, is_new: bool) -> Solution:
        found = model.solve(method=self.method, warm_start=sol, tol=self.tol)
        self.quantity = self.gamma_hat - model.lp_value[0]  # computed (cached) by solve's feasibility check
        return found

    def ended(self, model, sol: Solution) -> Stop | None:
        if sol.status != "infeasible":
            return None
        self.w = LPBoost(self.ensemble.U, nu=self.nu).solve(method="highs").w
        return Stop(self.quantity, "infeasible", "P_LP^t > gamma_hat_t - eps")

    def after(self, model, d, selection, position, is_new, sol):
        self.w = sol.w / sol.w.sum() if sol.w.sum() > 0 else sol.w
        zero = np.any(sol.d < SOFTBOOST_ZERO * self.d0)
        return self.quantity, Stop(self.quantity, "converged", "a zero in d^t") if zero else None

    def weights(self, sol: Solution | None) -> NDArray[np.float64]:
        return self.w

    def kept(self, sol: Solution) -> NDArray[np.float64]:
        return sol.w  # SoftBoost's unnormalised dual variables


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

    The output w is the regularised dual of the T-th problem (step 4).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu`` (docs/math.md#capping-nu).
    eps : float, default 0.01
        The precision of the stop.
    eta : float, optional
        The regularisation; default the canonical ``max((2/eps) ln(N/nu), 1/2)``
        (:func:`~dualboost.problems.erlpboost_eta`, docs/math.md#canonical-eta), which makes the stop
        imply ``g - P_LP^T <= eps`` (Lemmas 3.3, 3.5).
    max_iter : int, optional
        Default Thm 3.12's (practical) or Thm 3.10's (simple) bound plus one.
    criterion : {"practical", "simple"}, default "practical"
        delta~ (inexact re-solves allowed) or delta (exact solves assumed); see the module docstring.
    method : str, default "auglag"
        The subproblem solver (``"auglag"``: warm-started; or a cvxpy method).
    tol : float, optional
        The relative tolerance of each re-solve, default eps/4 (practical: the certified gap must be
        <= eps/4, Lemma 3.4, which every re-solve is checked against) or eps/1000 (simple).
    d0 : ndarray of shape (N,), optional
        The prior of the relative entropy (a positive distribution; default uniform), also d^0; the
        caps stay ``d_n <= 1/nu``. With d0 given, the canonical eta is
        :func:`~dualboost.problems.erlpboost.prior_eta` (``ln(N/nu)`` becomes ``ln(1/(nu min d0))``),
        which keeps the stop's guarantee.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
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
    docs/math.md#erratum-kg-16).

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu`` (docs/math.md#capping-nu), below N.
    eps : float, default 0.01
        The precision of the stop.
    eta : float, optional
        The regularisation; default the canonical ``max((2/eps)(ln(N/nu) + 1), 1/2)``
        (:func:`~dualboost.problems.erlpboost_eta`, docs/math.md#canonical-eta), which makes the stop
        imply ``g - P_LP^T <= eps`` (Lemmas 3.3, 3.5).
    max_iter : int, optional
        Default Thm 3.23's (practical) or Thm 3.21's (simple) bound plus one.
    criterion : {"practical", "simple"}, default "practical"
        delta~ (inexact re-solves allowed) or delta (exact solves assumed); see the module docstring.
    method : str, default "auglag"
        The subproblem solver (``"auglag"``: warm-started; or a cvxpy method).
    tol : float, optional
        The relative tolerance of each re-solve, default eps/4 (practical: the certified gap must be
        <= eps/4, Lemma 3.4, which every re-solve is checked against) or eps/1000 (simple).
    d0 : ndarray of shape (N,), optional
        The prior of the relative entropy (a positive distribution; default uniform), also d^0; the
        caps stay ``d_n <= 1/nu``. Every ``d0_n`` must be below the cap ``1/nu``: the binary
        entropy's domain.
    options : RunOptions

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
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
    model = GrowingModel(ensemble, lambda U: model_class(U, nu=setup.nu, eta=setup.eta, d0=prior))
    d = _uniform(n) if prior is None else prior
    form = EntropyRegularized(ensemble, setup, algorithm, model)
    end = column_generation(run, ensemble, form, d, setup.max_iter)
    weights = np.zeros(0) if end.sol is None else end.sol.w  # T = its size: the last hypothesis is discarded
    return run.result(
        algorithm,
        ensemble,
        weights,
        end.d,
        converged=end.converged,
        stop_reason=end.reason,
        stop_detail=end.detail,
        params=setup.params,
        soft_margin=True,
    )


@dataclass(frozen=True)
class EntropySetup:
    """The checked settings of an ERLPBoost-type run ([KG] Algs. 3.2, 3.3; docs/math.md#canonical-eta,
    docs/math.md#erlpboost-stopping).

    Parameters
    ----------
    nu, eps, eta : float
        The capping, the precision and the regularisation.
    max_iter : int
        The iteration cap.
    criterion : {"practical", "simple"}
        The stopping criterion.
    method : str
        The subproblem solver.
    tol : float
        The tolerance of each re-solve.
    """

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
    certified gap must be <= eps/4, Lemma 3.4; :func:`solve_certified` checks every re-solve
    against it and tightens the tolerance where a gap is above it) or eps/1000 (simple).

    Parameters
    ----------
    n : int
        N.
    nu, eps, eta, max_iter, criterion, method, tol : object
        As given to :func:`erlpboost` (checked here).
    binary : bool, default False
        Binary ERLPBoost's canonical eta and caps.
    d0 : ndarray of shape (N,), optional
        The prior.

    Returns
    -------
    EntropySetup
    """
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
    """The iterations of [KG] Algs. 3.2/3.3 on ``run`` and ``ensemble`` from ``d``
    (:class:`EntropyRegularized` in :func:`column_generation`), for the Dask driver and the nu path:
    ``make_model()`` gives the model of the hypotheses so far, ``next_d(model, solution)`` the
    distribution the oracle sees next (default ``solution.d``; the Dask driver keeps it on the
    workers). Returns ``(last solution, last d, converged, stop reason, its detail)``.

    Parameters
    ----------
    run : Run
        The run (history, time, options).
    ensemble : Ensemble
        The hypotheses and their columns.
    make_model : callable
        () -> the model of the hypotheses so far.
    d : ndarray or DistributedVector
        d^0.
    setup : EntropySetup
        The checked settings.
    algorithm : str
        The driver's name.
    next_d : callable, optional
        (model, solution) -> the distribution the oracle sees next (default ``solution.d``).

    Returns
    -------
    tuple
        ``(last solution, last d, converged, stop reason, its detail)``.
    """
    form = EntropyRegularized(ensemble, setup, algorithm, make_model, next_d)
    end = column_generation(run, ensemble, form, d, setup.max_iter)
    return end.sol, end.d, end.converged, end.reason, end.detail


class EntropyRegularized(Formulation):
    """ERLPBoost and Binary ERLPBoost ([KG] Algs. 3.2, 3.3) for :func:`column_generation`: stop on
    ``delta~`` (``delta``) ``<= eps/2`` before the re-solve (then T = t - 1), else re-solve warm-started
    and certified (the practical criterion's gap eps/4, Lemma 3.4). A re-selected hypothesis leaves
    the problem unchanged, and then delta~^t <= the certified gap of the previous solve: the criterion
    fires unless that solve missed eps/4. So the same problem is solved again, more precisely (the
    tolerance divided by ``TIGHTEN`` per repetition); after ``RESOLVES`` such iterations in a row the
    run ends with the reason ``"precision_floor"``."""

    def __init__(
        self,
        ensemble,
        setup: EntropySetup,
        algorithm: str,
        make_model: Callable[[], object],
        next_d: Callable[[object, Solution], object] | None = None,
    ) -> None:
        super().__init__(ensemble, setup.eps, setup.method, setup.tol)
        self.setup, self.name, self.make_model, self.follow = setup, algorithm, make_model, next_d
        self.certified_pricing = next_d is None  # the oracle sees the certified solution's d itself
        self.rule = setup.history().criterion
        self.p_min = math.inf  # min_{q<=t} P^q(d^{q-1})
        self.p_prev = self.theta_prev = -1.0  # P^0(d^0) = Theta^^0 = -1 (docs/math.md#erlpboost-primal)
        self.repeats = 0  # re-selected hypotheses in a row

    def state(self) -> dict:
        names = ("p_min", "p_prev", "theta_prev", "repeats")
        return {name: getattr(self, name) for name in names}

    def model(self, d):
        return self.make_model()

    def growing_models(self) -> list[GrowingModel]:
        return [self.make_model] if isinstance(self.make_model, GrowingModel) else []

    def before(self, model, d, selection, position, is_new, sol):
        practical, eps = self.setup.practical, self.eps
        value = self._grown_primal(model, d, position, is_new, sol)
        if value is None:  # (d^0, or a d the formulation did not certify)
            value = model.primal_objective(d)
        self.p_min = min(self.p_min, value)  # P^t(d^{t-1}) includes the new column
        quantity = self.p_min - (self.theta_prev if practical else self.p_prev)
        if quantity <= eps / 2.0:
            return Stop(quantity, "converged", self.rule)
        self.repeats = 0 if is_new else self.repeats + 1
        if self.repeats > RESOLVES:
            detail = (
                f"re-selected hypothesis {RESOLVES + 1} times: the subproblem solver cannot reach the "
                f"precision eps/4 = {eps / 4:.3g} (certified gap {sol.gap:.3g})"
            )
            return Stop(quantity, "precision_floor", detail, converged=False)
        return quantity

    def solve(self, model, sol: Solution | None, is_new: bool) -> Solution:
        max_gap = self.eps / 4.0 if self.setup.practical else None
        return solve_certified(model, self.method, sol, self.tol / TIGHTEN**self.repeats, max_gap)

    def _grown_primal(self, model, d, position: int, is_new: bool, sol: Solution | None) -> float | None:
        """``P^t(d^{t-1})`` from the last re-solve's certified ``P^{t-1}(d^{t-1})`` and the new column
        alone, where d is that solve's d and the model its model with at most one column appended;
        else None.

        The max-edge primal is ``max_q u^q . d + f(d)`` (docs/math.md#erlpboost-stopping) and rounding
        is monotone, so ``fl(max(a, b) + f) = max(fl(a + f), fl(b + f))``: with the new column u,
        ``P^t(d) = max(P^{t-1}(d), u . d + f(d))``, one pass over the new column instead of t. A
        re-selected hypothesis leaves the model as it was: ``P^t(d) = P^{t-1}(d)``.
        ``sol.primal_value`` is the certificate's ``primal_objective(sol.d)`` (f(d) kept with it,
        ``MaxEdgeModel.regularizer_value``) for a model of this formulation (``make_model``: the same
        parameters) over the first ``sol.w.size`` columns of this one: the loop's last re-solve, or
        the one a checkpoint saved (then d is an equal copy of sol.d), or a seeded run's start."""
        if not (self.certified_pricing and sol is not None and sol.w is not None):
            return None
        if not isinstance(model, MaxEdgeModel):
            return None
        t = sol.w.size
        if model.n_hypotheses != t + is_new or (is_new and position != t):
            return None
        if d is not sol.d and not np.array_equal(d, sol.d):  # (equal after a resume: a copy)
            return None
        if not is_new:
            return sol.primal_value
        edge = np.dot(model.U[:, t], d)  # (U's column, checked when the ensemble took it)
        return max(sol.primal_value, model.primal_from_edges(d, edge.reshape(1)))

    def after(self, model, d, selection, position, is_new, sol):
        self.p_prev, self.theta_prev = sol.primal_value, sol.dual_value
        return None, None

    def next_d(self, model, sol: Solution):
        return sol.d if self.follow is None else self.follow(model, sol)
