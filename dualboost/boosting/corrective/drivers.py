"""The corrective drivers of [KG] Ch. 4: Corrective ERLPBoost (Alg. 4.1, the [SS] Fig. 1 algorithm
with a stopping criterion) and Corrective Binary ERLPBoost (Alg. 4.3), with the errata of
docs/math.md#errata applied (KG-9 to KG-14).

Iteration t, with the margins ``m = U w^{t-1}`` of the current combination:

(a) the oracle returns u^t for d^{t-1};
(b) ``x = u^t - m`` and the step ``w_t = clip(x . d^{t-1} / (eta ||x||_inf^2), 0, 1)`` (the squared
    norm, erratum KG-9; [SS] Eq. 10 with beta = 1/eta, erratum KG-10); or, with ``method`` given, the
    exact step: the maximiser over [0, 1] of the corrective subproblem's dual (models M8/M9, [KG] Eqs.
    4.7, 4.13, the ``CorrectiveERLPBoost`` / ``CorrectiveBinaryERLPBoost`` models; an exact line search
    is a legitimate alternative, docs/math.md#corrective-step-size);
(c) ``w_q <- (1 - w_t) w_q`` (a re-selected hypothesis adds w_t to its weight);
(d)-(e) the practical criterion ``delta~^t = min_{q<=t} P^q(d^{q-1}) - Theta^{t-1} <= eps/2`` with the
    max-form P^t of Eq. 3.6 (erratum KG-11); then T = t - 1 and the last hypothesis is discarded;
(f)-(i) ERLPBoost: the unnormalised weights ``d0 exp(-eta m)``, their entropic projection onto the
    capped simplex in [KG] units (Alg. 4.2 with erratum KG-12), and psi in closed form (erratum KG-13):
    :func:`erlpboost_update`. Binary: beta from the root of ``sum d = 1`` (Alg. 4.4 with erratum KG-14,
    found by the conjugate library's normaliser) and Eq. 4.11: :func:`binary_erlpboost_update`.

[DERIVED] w^0 = 0 is not in the simplex, and ``Theta^^(w, psi)`` bounds ``min P`` from below only for
w in the simplex (the derivative in gamma of the Lagrangian, Eq. 3.12, forces sum w = 1); so the
first step is w^1 = e_1, the only point of S^1 (the clipped step would leave a combination of
total weight < 1). From then on w stays in the simplex.

Step (b) is one rule of the Frank-Wolfe algorithm on the regularised dual ([MHT22]); ``step=`` picks
another (:mod:`~dualboost.boosting.corrective.frank_wolfe`, docs/math.md#frank-wolfe-steps): the
pairwise rule moves weight from the away hypothesis instead of rescaling all of w (c). MLPBoost
(:func:`mlpboost`, docs/math.md#mlpboost) adds to (b)-(c) the solution of LPBoost's LP over the
hypotheses so far and keeps whichever has the larger dual; (d)-(i) are unchanged for every rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_max_iter, check_nu, check_positive
from dualboost.boosting.core.eta import resolve_eta
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_ITERATES, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult, n_positive
from dualboost.boosting.core.run import (
    Ensemble,
    Run,
    check_oracle,
    rule_or_cap,
)
from dualboost.boosting.core.stopping import corrective_max_iter
from dualboost.boosting.corrective.frank_wolfe import (
    away_hypothesis,
    check_step,
    classic_max_iter,
    classic_step,
    clipped_step,
    line_search,
    segment_slope,
    short_step,
)
from dualboost.boosting.totally_corrective.column_generation import GrowingModel
from dualboost.conjugates import (
    CappedBinaryRelativeEntropy,
    CappedRelativeEntropy,
    entropic_project_capped_simplex,
)
from dualboost.conjugates.projections import logsumexp
from dualboost.problems import CorrectiveBinaryERLPBoost, CorrectiveERLPBoost, LPBoost

__all__ = [
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "mlpboost",
    "CorrectiveUpdate",
    "erlpboost_update",
    "binary_erlpboost_update",
    "clipped_step",
    "exact_step",
]


@dataclass
class CorrectiveUpdate:
    """d^t and the dual quantities of one corrective update.

    Parameters
    ----------
    d : ndarray, shape (N,)
        The new distribution.
    theta : float
        The dual value Theta^^t(w^t, psi^t) (Eq. 3.10) or Theta^_B^t(w^t, beta^t) (Eq. 3.26).
    psi : ndarray of shape (N,), optional
        ERLPBoost's multipliers of the cap (zero off the capped set C).
    beta : float, default nan
        Binary ERLPBoost's multiplier of ``sum d = 1``.
    """

    d: NDArray[np.float64]
    theta: float
    psi: NDArray[np.float64] | None = None
    beta: float = math.nan


def erlpboost_update(margins: ArrayLike, d0: ArrayLike, nu: float, eta: float) -> CorrectiveUpdate:
    """[KG] Alg. 4.1 steps (f)-(i) for the margins ``m = U w^t``.

    Steps, with ``C = {n : d^t_n = 1/nu}`` the capped set:

    (f) ``log d~_n = ln d0_n - eta m_n`` (unnormalised, kept in the log domain);
    (g) d^t = the entropic projection of d~ onto ``{sum d = 1, d <= 1/nu}`` (Alg. 4.2, cap 1/nu);
    (h) ``Z = sum_{n not in C} d~_n / (1 - |C|/nu)`` (the unnormalised weights, erratum KG-13),
        with ``1 - |C|/nu`` taken as the mass ``sum_{n not in C} d^t_n`` the projection left to the
        uncapped coordinates (equal in exact arithmetic; at large eta the difference of 1 and
        |C|/nu can round to 0 while that mass is a positive 1e-190);
    (i) ``psi_n = -m_n - (1/eta) ln(Z / (d0_n nu))`` on C, 0 elsewhere;

    and ``Theta^^t = -(1/eta) ln sum_n d0_n e^{-eta (m_n + psi_n)} - (1/nu) sum psi`` (Eq. 3.10).

    If no mass is left off C (nu = N, or underflow), Z is not determined by (h); then Z is the
    largest value with psi >= 0 (for nu = N: ``psi = max(m) - m``, which makes
    ``d0 e^{-eta(m + psi)}`` proportional to d^t = d0).

    Parameters
    ----------
    margins : array_like, shape (N,)
        The margins ``m = U w^t`` of the combined hypothesis.
    d0 : array_like, shape (N,)
        The prior distribution (uniform in [KG]).
    nu : float
        The capping, ``d <= 1/nu`` (docs/math.md#capping-nu).
    eta : float
        The entropy regularisation.

    Returns
    -------
    CorrectiveUpdate
        ``d``: d^t; ``theta``: Theta^^t; ``psi``: the multipliers of the cap.
    """
    m = np.asarray(margins, dtype=np.float64)
    log_d0 = np.log(np.asarray(d0, dtype=np.float64))
    log_weights = log_d0 - eta * m
    d = entropic_project_capped_simplex(log_weights, nu)
    capped = d >= 1.0 / nu
    psi = np.zeros(m.size)
    if capped.any():
        free_mass = float(d[~capped].sum())  # = 1 - |C|/nu, as the projection left it
        if free_mass > 0:
            log_z = logsumexp(log_weights[~capped]) - math.log(free_mass)
        else:  # every uncapped weight underflowed (or nu = N): the largest Z with psi >= 0
            log_z = float(log_weights[capped].min()) + math.log(nu)
        # psi_n = -m_n - (1/eta) ln(Z/(d0_n nu)) = (ln d~_n + ln nu - ln Z) / eta
        psi[capped] = (log_weights[capped] + math.log(nu) - log_z) / eta
    theta = -logsumexp(log_weights - eta * psi) / eta - psi.sum() / nu
    return CorrectiveUpdate(d=d, theta=float(theta), psi=psi)


def binary_erlpboost_update(margins: ArrayLike, regularizer: CappedBinaryRelativeEntropy) -> CorrectiveUpdate:
    """[KG] Alg. 4.3 steps (f)-(g) for the margins ``m = U w^t``.

    (f) beta: the root of ``sum_n d_n(beta) = 1`` (Alg. 4.4, erratum KG-14), found by the
        regulariser's normaliser (``b = eta beta``, a safeguarded Newton iteration on the bracket);
    (g) ``d_n = d0_n e^{-eta(m_n + beta)} / (1 - nu d0_n + nu d0_n e^{-eta(m_n + beta)})`` (Eq. 4.11),
        computed as ``(1/nu) expit(logit(nu d0_n) - eta (m_n + beta))``;

    and ``Theta^_B^t = -(1/(eta nu)) sum_n ln(1 - nu d0_n + nu d0_n e^{-eta(m_n + beta)}) - beta``
    (Eq. 3.26).

    Parameters
    ----------
    margins : array_like, shape (N,)
        The margins ``m = U w^t`` of the combined hypothesis.
    regularizer : CappedBinaryRelativeEntropy
        The binary relative entropy to d0 with its nu and eta (docs/math.md#binary-erlpboost).

    Returns
    -------
    CorrectiveUpdate
        ``d``: d^t; ``theta``: Theta^_B^t; ``beta``: the multiplier of ``sum d = 1``.
    """
    reg = regularizer
    value, d, b = reg.conjugate_grad_and_normalizer(-np.asarray(margins, dtype=np.float64))
    theta, beta = -value, b / reg.eta  # Theta^_B = -f*(-m) (Eq. 3.26 with beta maximised out)
    return CorrectiveUpdate(d=d, theta=float(theta), beta=float(beta))


@takes_run_options(without=NO_ITERATES)
def corrective_erlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    step: str | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """Corrective ERLPBoost ([KG] Alg. 4.1): only the newest hypothesis's weight is chosen, by the
    clipped step (``method=None``) or by solving the corrective subproblem M8 with ``method``
    (e.g. ``"auglag"``); d^t by the entropic projection, psi^t in closed form.

    The stopping rule (the practical criterion ``delta~ <= eps/2``) and its certificate are the same
    for every step rule.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N]: ``d_n <= 1/nu``.
    eps : float, default 0.01
        The precision of the stop.
    eta : float, optional
        The regularisation; default the canonical ``max((2/eps) ln(N/nu), 1/2)``.
    max_iter : int, optional
        Default ``32 eta/eps + 1`` (:func:`~dualboost.boosting.core.stopping.corrective_max_iter`;
        ``108 eta/eps + 1`` for the classic step, ``64 eta/eps + 2`` for the pairwise one,
        docs/math.md#frank-wolfe-steps).
    method : str, optional
        The subproblem solver of the exact step (e.g. ``"auglag"``); given alone, it means
        ``step="line"``.
    step : str, optional
        The Frank-Wolfe step rule ([MHT22], docs/math.md#frank-wolfe-steps): ``"clipped"`` (the
        default, Alg. 4.1(b)), ``"classic"`` (``2/(t+1)``), ``"short"`` (the short step for the
        smoothness constant eta), ``"line"`` (the exact line search on the dual: by a scalar root
        finder, or by ``method``) or ``"pairwise"`` (weight moved from the away hypothesis to the new
        one).
    d0 : ndarray of shape (N,), optional
        The prior of the relative entropy (a positive distribution; default uniform), also d^0, with
        the caps ``1/nu`` unchanged and the canonical eta of
        :func:`~dualboost.problems.erlpboost.prior_eta`.
    options : RunOptions
        Each stage is one ``(position, step)`` update.

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    return _corrective(
        "corrective_erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        method=method,
        step=step,
        binary=False,
        d0=d0,
        options=options,
    )


@takes_run_options(without=NO_ITERATES)
def corrective_binary_erlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    step: str | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """Corrective Binary ERLPBoost ([KG] Alg. 4.3): as :func:`corrective_erlpboost` with the binary
    relative entropy (``nu < N``): no projection, beta by the root of ``sum d = 1``; canonical eta
    ``max((2/eps)(ln(N/nu) + 1), 1/2)``; the exact step solves M9.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu : float, default 1.0
        The capping in [1, N).
    eps : float, default 0.01
        The precision of the stop.
    eta : float, optional
        The regularisation; default the canonical ``max((2/eps)(ln(N/nu) + 1), 1/2)``.
    max_iter, method, step : optional
        As for :func:`corrective_erlpboost`.
    d0 : ndarray of shape (N,), optional
        The prior (a positive distribution below the cap, ``d0 < 1/nu``; default uniform).
    options : RunOptions
        Each stage is one ``(position, step)`` update.

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    return _corrective(
        "corrective_binary_erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        method=method,
        step=step,
        binary=True,
        d0=d0,
        options=options,
    )


@takes_run_options(without=NO_ITERATES)
def mlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    step: str | None = None,
    d0: NDArray[np.float64] | None = None,
    options: RunOptions,
) -> BoostResult:
    """MLPBoost ([MHT22]; docs/math.md#mlpboost): Corrective ERLPBoost whose every iteration
    also solves LPBoost's LP over the hypotheses so far (:class:`~dualboost.problems.LPBoost`, HiGHS,
    warm-started) and keeps whichever of the Frank-Wolfe iterate and the LP's w has the larger
    regularised dual value ``-f*(-U w)``.

    ``result.params["lp_steps"]`` counts the iterations that took the LP's w.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle (``best(d)``; :mod:`dualboost.oracles`).
    nu, eps, eta, d0 : optional
        As for :func:`corrective_erlpboost` (the same regularised dual, canonical eta and stopping
        rule: the practical criterion ``delta~ <= eps/2``, so the output's soft margin is within eps of
        the best one).
    max_iter : int, optional
        Default the bound of the step rule, ``32 eta/eps + 1`` for the clipped one: O(ln(N/nu)/eps^2),
        as [MHT22] prove (an iteration can only do better than its Frank-Wolfe step).
    step : str, optional
        The Frank-Wolfe rule (default ``"clipped"``;
        :data:`~dualboost.boosting.corrective.frank_wolfe.STEPS`).
    options : RunOptions
        Each stage is one ``(position, step)`` update.

    Returns
    -------
    BoostResult
        The hypotheses, their weights w, the per-iteration history, the stop reason and the times.
    """
    return _corrective(
        "mlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        method=None,
        step=step,
        binary=False,
        d0=d0,
        options=options,
        secondary=True,
    )


def exact_step(
    model_class,
    U_old: NDArray[np.float64],
    w_old: NDArray[np.float64],
    u: NDArray[np.float64],
    d_prev: NDArray[np.float64],
    nu: float,
    eta: float,
    d0: NDArray[np.float64],
    method: str,
) -> float:
    """The weight of the new hypothesis maximising the corrective dual over [0, 1] (concave in it):
    the subproblem's optimum clipped to [0, 1]; when the subproblem is infeasible (the new hypothesis
    beats, or loses to, the old combination on every capped d) the dual increases without bound
    towards the new hypothesis, or away from it.

    Parameters
    ----------
    model_class : type
        :class:`~dualboost.problems.CorrectiveERLPBoost` or
        :class:`~dualboost.problems.CorrectiveBinaryERLPBoost`.
    U_old : ndarray, shape (N, t - 1)
        The columns of the previous hypotheses.
    w_old : ndarray, shape (t - 1,)
        Their weights.
    u : ndarray, shape (N,)
        The new column.
    d_prev : ndarray, shape (N,)
        The previous distribution: where the subproblem is infeasible, the sign of the direction's
        edge on it says towards which end the dual increases.
    nu, eta : float
        The capping and the regularisation.
    d0 : ndarray, shape (N,)
        The prior.
    method : str
        The subproblem solver.

    Returns
    -------
    float
        The weight of the new hypothesis, in [0, 1].
    """
    model = model_class(np.column_stack([U_old, u]), w_old, nu=nu, eta=eta, d0=d0)
    sol = model.solve(method=method, side="dual", tol=1e-10)
    if sol.w is None:
        return 1.0 if float(model.direction @ d_prev) > 0 else 0.0
    return float(np.clip(sol.w[-1], 0.0, 1.0))


def _step_max_iter(step: str, eta: float, eps: float) -> int:
    """The iteration cap of a step rule (docs/math.md#frank-wolfe-steps)."""
    if step == "classic":
        return classic_max_iter(eta, eps)
    if step == "pairwise":  # at most one drop step per hypothesis added by a full step
        return 2 * corrective_max_iter(eta, eps)
    return corrective_max_iter(eta, eps)


def _root(regularizer: CappedRelativeEntropy | CappedBinaryRelativeEntropy) -> float:
    """The binary entropy's last normaliser root (:attr:`CappedBinaryRelativeEntropy.last_root
    <dualboost.conjugates.CappedBinaryRelativeEntropy.last_root>`), which starts its next solve;
    NaN for the relative entropy, whose normaliser is in closed form."""
    return regularizer.last_root if isinstance(regularizer, CappedBinaryRelativeEntropy) else math.nan


@dataclass(frozen=True)
class _Setup:
    """The checked settings of a corrective run and its regulariser (module docstring)."""

    nu: float
    eps: float
    eta: float
    max_iter: int
    step: str
    method: str | None
    binary: bool
    d0: NDArray[np.float64]
    regularizer: CappedRelativeEntropy | CappedBinaryRelativeEntropy
    model_class: type

    def update(self, margins: NDArray[np.float64]) -> CorrectiveUpdate:
        """Steps (f)-(i) of Alg. 4.1 (4.3 for the binary entropy) at ``margins``."""
        if self.binary:
            return binary_erlpboost_update(margins, self.regularizer)
        return erlpboost_update(margins, self.d0, self.nu, self.eta)

    def distribution(self, margins: NDArray[np.float64]) -> NDArray[np.float64]:
        """``d = grad f*(-m)``, for the line searches."""
        return self.regularizer.conjugate_grad(-margins)

    def params(self) -> dict:
        params = {"nu": self.nu, "eps": self.eps, "eta": self.eta}
        params["method"] = self.method or f"{self.step} step"
        return params if self.step == "clipped" else params | {"step": self.step}


def _setup(n: int, nu, eps, eta, max_iter, method, binary: bool, d0, step) -> _Setup:
    """Check a corrective run's arguments and fill in the defaults (canonical eta, the step rule's cap)."""
    nu, eps = check_nu(nu, n, strict_upper=binary), check_positive(eps, "eps")
    step = check_step(step, method)
    prior = None if d0 is None else check_distribution(d0, n)
    eta = resolve_eta(eta, n, nu, eps, d0=prior, binary=binary)
    max_iter = check_max_iter(max_iter, _step_max_iter(step, eta, eps))
    d0 = check_distribution(None, n) if prior is None else prior
    if binary:
        regularizer, model_class = CappedBinaryRelativeEntropy(d0, nu, eta), CorrectiveBinaryERLPBoost
        regularizer = regularizer.with_warm_starts()
    else:
        regularizer, model_class = CappedRelativeEntropy(d0, nu, eta), CorrectiveERLPBoost
    return _Setup(nu, eps, eta, max_iter, step, method, binary, d0, regularizer, model_class)


@dataclass
class _State:
    """The loop state of a corrective run (what a checkpoint saves): d^{t-1}, the margins ``U w`` and
    w; the practical criterion's ``min_q P^q(d^{q-1})`` and Theta^{t-1} (Theta^0 = -1, [KG] Alg. 4.1
    step 2); ``max_q<t u^q . d^{t-1}`` (empty: -inf) and ``(1/eta) Delta(d^{t-1})``; the binary
    entropy's last normaliser root (NaN: none); MLPBoost's last LP solution and its LP steps."""

    d: NDArray[np.float64]
    margins: NDArray[np.float64]
    w: NDArray[np.float64]
    p_min: float = math.inf
    theta_prev: float = -1.0
    max_edge: float = -math.inf
    reg_value: float = 0.0
    root: float = math.nan
    sol: object = None
    lp_steps: int = 0

    def values(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _corrective(
    algorithm: str,
    oracle,
    *,
    nu: float,
    eps: float,
    eta: float | None,
    max_iter: int | None,
    method: str | None,
    binary: bool,
    options: RunOptions,
    d0: NDArray[np.float64] | None = None,
    step: str | None = None,
    secondary: bool = False,
) -> BoostResult:
    """The loop of [KG] Algs. 4.1 and 4.3 with the step rule ``step``; ``secondary``: MLPBoost's
    comparison with LPBoost's solution over the hypotheses so far ([MHT22])."""
    n = check_oracle(oracle)
    setup = _setup(n, nu, eps, eta, max_iter, method, binary, d0, step)
    params, eps = setup.params(), setup.eps
    history = History("delta~ (practical) <= eps/2", eps / 2.0)
    run = Run(oracle, history, options, algorithm=algorithm, settings=params | {"max_iter": setup.max_iter})
    ensemble = Ensemble(n)
    lp = GrowingModel(ensemble, lambda U: LPBoost(U, nu=setup.nu)) if secondary else None
    s = _State(setup.d0, np.zeros(n), np.zeros(0), root=_root(setup.regularizer))
    first, values = run.resume(ensemble, **s.values())
    s = _State(*values)
    if binary:
        setup.regularizer.last_root = s.root
    converged, timed = False, None
    for t in range(first, setup.max_iter + 1):
        selection = run.ask(s.d)
        s.p_min = min(s.p_min, max(s.max_edge, selection.edge) + s.reg_value)  # P^t(d^{t-1}), max form
        quantity = s.p_min - s.theta_prev
        if quantity <= eps / 2.0:
            run.record(t, selection.edge, stopping=quantity, n_hypotheses=n_positive(s.w))
            converged = True
            break
        with run.solving():
            theta = _advance(run, ensemble, setup, s, selection, t, lp)
        primal, hypotheses = s.max_edge + s.reg_value, n_positive(s.w)  # P^t(d^t)
        run.record(t, selection.edge, primal=primal, dual=theta, stopping=quantity, n_hypotheses=hypotheses)
        s.theta_prev, s.root = theta, _root(setup.regularizer)
        run.save(t, ensemble, **s.values())
        timed = run.out_of_time()
        if timed:
            break
    if secondary:
        params["lp_steps"] = s.lp_steps
    reason, detail = timed or rule_or_cap(converged, "delta~ (practical) <= eps/2", setup.max_iter)
    return run.result(
        algorithm,
        ensemble,
        s.w,
        s.d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
        soft_margin=True,
    )


def _advance(run: Run, ensemble: Ensemble, setup: _Setup, s: _State, selection, t: int, lp) -> float:
    """Steps (b)-(i) of iteration t on ``s`` (the new hypothesis's weight by the step rule, then d^t
    and what the next criterion needs); returns Theta^t."""
    u = selection.column
    alpha = 1.0  # w^1 = e_1 (module docstring)
    if t > 1 and setup.step == "line" and setup.method is not None:
        alpha = exact_step(
            setup.model_class, ensemble.stored, s.w, u, s.d, setup.nu, setup.eta, setup.d0, setup.method
        )
    position, is_new = ensemble.add(selection)
    s.w = np.r_[s.w, 0.0] if is_new else s.w
    away = None
    if t > 1 and setup.step == "pairwise":
        away = away_hypothesis(s.w, ensemble.edges(s.d), position)
    if away is not None:  # w + alpha (e_h - e_a), alpha in [0, w_a]
        x = u - ensemble.stored[:, away]
        alpha = line_search(segment_slope(setup.distribution, s.margins, x), float(s.w[away]))
        s.w[position] += alpha
        s.w[away] = 0.0 if alpha >= s.w[away] else s.w[away] - alpha
        s.margins = s.margins + alpha * x
        if lp is None:
            run.keep(s.d, s.w)
    else:  # w + alpha (e_h - w)
        if t > 1 and setup.method is None:
            x = u - s.margins
            alpha = _fw_step(setup.step, t, x, s.d, s.w[position], setup.eta, setup.distribution, s.margins)
        s.w *= 1.0 - alpha
        s.w[position] += alpha
        s.margins = (1.0 - alpha) * s.margins + alpha * u
        if lp is None:
            run.keep_step(alpha, position, s.w.size)
    step_update = setup.update(s.margins)
    if lp is not None:
        step_update = _lp_step(run, ensemble, setup, s, lp, step_update)
    s.d = step_update.d
    s.max_edge, s.reg_value = float(ensemble.edges(s.d).max()), setup.regularizer.value(s.d)
    return step_update.theta


def _lp_step(run: Run, ensemble: Ensemble, setup: _Setup, s: _State, lp, step_update: CorrectiveUpdate):
    """MLPBoost ([MHT22]): LPBoost's LP over the hypotheses so far, warm-started; its w replaces the
    Frank-Wolfe iterate when its regularised dual is larger. Returns the update kept."""
    s.sol = lp().solve(method="highs", side="primal", warm_start=s.sol)
    w_lp = _simplex_point(s.sol.w, s.w.size)
    margins_lp = ensemble.margins(w_lp) if w_lp is not None else None
    lp_update = setup.update(margins_lp) if margins_lp is not None else None
    if lp_update is not None and lp_update.theta > step_update.theta:
        s.w, s.margins, step_update, s.lp_steps = w_lp, margins_lp, lp_update, s.lp_steps + 1
    run.keep(s.d, s.w)
    return step_update


def _fw_step(
    step: str,
    t: int,
    x: NDArray[np.float64],
    d: NDArray[np.float64],
    weight: float,
    eta: float,
    distribution,
    margins: NDArray[np.float64],
) -> float:
    """alpha of the Frank-Wolfe step ``w + alpha (e_h - w)`` by the rule ``step`` (``x = u - U w``,
    ``weight = w_h``; docs/math.md#frank-wolfe-steps)."""
    if step == "classic":
        return classic_step(t)
    if step == "short":
        return short_step(float(np.sum(x * d)), weight, eta)
    if step in ("line", "pairwise"):  # pairwise without an away hypothesis: a full Frank-Wolfe step
        return line_search(segment_slope(distribution, margins, x), 1.0)
    return clipped_step(x, d, eta)


def _simplex_point(w: NDArray[np.float64] | None, size: int) -> NDArray[np.float64] | None:
    """An LP solution's w over the ``size`` hypotheses, clipped at 0 and normalised (None if absent)."""
    if w is None or np.asarray(w).size != size:
        return None
    w = np.clip(np.asarray(w, dtype=np.float64), 0.0, None)
    total = float(w.sum())
    return w / total if total > 0 else None
