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
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_distribution, check_eta, check_max_iter, check_nu, check_positive
from dualboost.boosting.core.checkpoint import DEFAULT_EVERY, Checkpoint
from dualboost.boosting.core.history import History
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import (
    Callback,
    Ensemble,
    Run,
    check_oracle,
    warn_unconverged,
)
from dualboost.boosting.core.stopping import corrective_max_iter
from dualboost.conjugates import (
    CappedBinaryRelativeEntropy,
    CappedRelativeEntropy,
    entropic_project_capped_simplex,
)
from dualboost.conjugates.projections import logsumexp
from dualboost.problems import CorrectiveBinaryERLPBoost, CorrectiveERLPBoost, canonical_eta
from dualboost.problems.erlpboost import prior_eta

__all__ = [
    "corrective_erlpboost",
    "corrective_binary_erlpboost",
    "CorrectiveUpdate",
    "erlpboost_update",
    "binary_erlpboost_update",
    "clipped_step",
    "exact_step",
]


@dataclass
class CorrectiveUpdate:
    """d^t and the dual quantities of one corrective update.

    ``d``: the new distribution; ``theta``: the dual value Theta^^t(w^t, psi^t) (Eq. 3.10) or
    Theta^_B^t(w^t, beta^t) (Eq. 3.26); ``psi`` (ERLPBoost; zero off the capped set C) or ``beta``
    (Binary; the multiplier of sum d = 1).
    """

    d: NDArray[np.float64]
    theta: float
    psi: NDArray[np.float64] | None = None
    beta: float = math.nan


def erlpboost_update(margins: ArrayLike, d0: ArrayLike, nu: float, eta: float) -> CorrectiveUpdate:
    """[KG] Alg. 4.1 steps (f)-(i) for the margins ``m = U w^t``.

    (f) ``log d~_n = ln d0_n - eta m_n`` (unnormalised, kept in the log domain);
    (g) d^t = the entropic projection of d~ onto ``{sum d = 1, d <= 1/nu}`` (Alg. 4.2, cap 1/nu) and
        ``C = {n : d^t_n = 1/nu}``;
    (h) ``Z = sum_{n not in C} d~_n / (1 - |C|/nu)`` (the unnormalised weights, erratum KG-13),
        with ``1 - |C|/nu`` taken as the mass ``sum_{n not in C} d^t_n`` the projection left to the
        uncapped coordinates (equal in exact arithmetic; at large eta the difference of 1 and
        |C|/nu can round to 0 while that mass is a positive 1e-190);
    (i) ``psi_n = -m_n - (1/eta) ln(Z / (d0_n nu))`` on C, 0 elsewhere;
    and ``Theta^^t = -(1/eta) ln sum_n d0_n e^{-eta (m_n + psi_n)} - (1/nu) sum psi`` (Eq. 3.10).

    If no mass is left off C (nu = N, or underflow), Z is not determined by (h); then Z is the
    largest value with psi >= 0 (for nu = N: ``psi = max(m) - m``, which makes
    ``d0 e^{-eta(m + psi)}`` proportional to d^t = d0).
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
    """
    reg = regularizer
    value, d, b = reg.conjugate_grad_and_normalizer(-np.asarray(margins, dtype=np.float64))
    theta, beta = -value, b / reg.eta  # Theta^_B = -f*(-m) (Eq. 3.26 with beta maximised out)
    return CorrectiveUpdate(d=d, theta=float(theta), beta=float(beta))


def clipped_step(x: NDArray[np.float64], d: NDArray[np.float64], eta: float) -> float:
    """``clip(x . d / (eta ||x||_inf^2), 0, 1)`` ([KG] Alg. 4.1(b) with the square, erratum KG-9)."""
    scale = float(np.abs(x).max()) ** 2
    # np.sum rather than a BLAS dot: see Ensemble.edges
    return 0.0 if scale == 0.0 else min(1.0, max(0.0, float(np.sum(x * d)) / (eta * scale)))


def corrective_erlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    callback: Callback | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int = DEFAULT_EVERY,
    resume: bool = False,
    d0: NDArray[np.float64] | None = None,
    keep_stages: bool = False,
) -> BoostResult:
    """Corrective ERLPBoost ([KG] Alg. 4.1): only the newest hypothesis's weight is chosen, by the
    clipped step (``method=None``) or by solving the corrective subproblem M8 with ``method``
    (e.g. ``"auglag"``); d^t by the entropic projection, psi^t in closed form.

    ``eta``: default the canonical ``max((2/eps) ln(N/nu), 1/2)``; ``max_iter``: default
    ``32 eta/eps + 1`` (:func:`~dualboost.boosting.core.stopping.corrective_max_iter`); ``callback``:
    called with each history row; ``checkpoint``, ``checkpoint_every``, ``resume``: save the state
    every so many iterations and continue a killed run (:mod:`dualboost.boosting.core.checkpoint`);
    ``d0``: the prior of the relative entropy (a positive distribution; default uniform), also d^0, with
    the caps ``1/nu`` unchanged and the canonical eta of
    :func:`~dualboost.problems.erlpboost.prior_eta`; ``keep_stages``: the weights after
    every iteration in ``result.stages`` (one ``(position, step)`` update each).
    """
    return _corrective(
        "corrective_erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        method=method,
        callback=callback,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        resume=resume,
        binary=False,
        d0=d0,
        keep_stages=keep_stages,
    )


def corrective_binary_erlpboost(
    oracle,
    *,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    callback: Callback | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int = DEFAULT_EVERY,
    resume: bool = False,
    d0: NDArray[np.float64] | None = None,
    keep_stages: bool = False,
) -> BoostResult:
    """Corrective Binary ERLPBoost ([KG] Alg. 4.3): as :func:`corrective_erlpboost` with the binary
    relative entropy (``nu < N``): no projection, beta by the root of ``sum d = 1``; canonical eta
    ``max((2/eps)(ln(N/nu) + 1), 1/2)``; the exact step solves M9. ``d0`` and ``keep_stages`` as for
    :func:`corrective_erlpboost` (``d0 < 1/nu``)."""
    return _corrective(
        "corrective_binary_erlpboost",
        oracle,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        method=method,
        callback=callback,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        resume=resume,
        binary=True,
        d0=d0,
        keep_stages=keep_stages,
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
    towards the new hypothesis, or away from it."""
    model = model_class(np.column_stack([U_old, u]), w_old, nu=nu, eta=eta, d0=d0)
    sol = model.solve(method=method, side="dual", tol=1e-10)
    if sol.w is None:
        return 1.0 if float(model.direction @ d_prev) > 0 else 0.0
    return float(np.clip(sol.w[-1], 0.0, 1.0))


def _corrective(
    algorithm: str,
    oracle,
    *,
    nu: float,
    eps: float,
    eta: float | None,
    max_iter: int | None,
    method: str | None,
    callback: Callback | None,
    checkpoint: str | os.PathLike | None,
    checkpoint_every: int,
    resume: bool,
    binary: bool,
    d0: NDArray[np.float64] | None = None,
    keep_stages: bool = False,
) -> BoostResult:
    """The loop of [KG] Algs. 4.1 and 4.3."""
    n = check_oracle(oracle)
    nu, eps = check_nu(nu, n, strict_upper=binary), check_positive(eps, "eps")
    prior = None if d0 is None else check_distribution(d0, n)
    if eta is not None:
        eta = check_eta(eta)
    elif prior is None:
        eta = canonical_eta(n, nu, eps, binary=binary)
    else:
        eta = prior_eta(prior, nu, eps, binary=binary)
    max_iter = check_max_iter(max_iter, corrective_max_iter(eta, eps))
    if method is not None and not isinstance(method, str):
        raise ValueError(f"method must be None (the clipped step) or a solver name; got {method!r}")
    d0 = check_distribution(None, n) if prior is None else prior
    if binary:
        regularizer = CappedBinaryRelativeEntropy(d0, nu, eta).with_warm_starts()
        model_class = CorrectiveBinaryERLPBoost

        def update(m):
            return binary_erlpboost_update(m, regularizer)
    else:
        regularizer = CappedRelativeEntropy(d0, nu, eta)
        model_class = CorrectiveERLPBoost

        def update(m):
            return erlpboost_update(m, d0, nu, eta)

    params = {"nu": nu, "eps": eps, "eta": eta, "method": method or "clipped step"}
    saving = Checkpoint.create(
        checkpoint, checkpoint_every, resume, algorithm, params | {"max_iter": max_iter}
    )
    run = Run(
        oracle,
        History("delta~ (practical) <= eps/2", eps / 2.0),
        callback,
        checkpoint=saving,
        keep_stages=keep_stages,
    )
    ensemble = Ensemble(n)
    d, margins, w = d0, np.zeros(n), np.zeros(0)
    p_min, theta_prev = math.inf, -1.0  # Theta^0 = -1 ([KG] Alg. 4.1 step 2)
    max_edge, reg_value = -math.inf, 0.0  # max_{q<t} u^q . d^{t-1} (empty: -inf) and (1/eta) Delta(d^{t-1})
    # the binary entropy's normaliser starts from its previous root: part of the state
    root = getattr(regularizer, "_last_root", math.nan)
    first, (d, margins, w, p_min, theta_prev, max_edge, reg_value, root) = run.resume(
        ensemble,
        d=d,
        margins=margins,
        w=w,
        p_min=p_min,
        theta_prev=theta_prev,
        max_edge=max_edge,
        reg_value=reg_value,
        root=root,
    )
    if binary:
        regularizer._last_root = root
    converged = False
    for t in range(first, max_iter + 1):
        selection = run.ask(d)
        u, edge = selection.column, selection.edge
        p_min = min(p_min, max(max_edge, edge) + reg_value)  # P^t(d^{t-1}), max form
        quantity = p_min - theta_prev
        if quantity <= eps / 2.0:
            run.record(t, edge, stopping=quantity, n_hypotheses=int(np.count_nonzero(w > 0)))
            converged = True
            break
        with run.solving():
            if t == 1:
                alpha = 1.0  # w^1 = e_1 (module docstring)
            elif method is None:
                alpha = clipped_step(u - margins, d, eta)
            else:
                alpha = exact_step(model_class, ensemble.stored, w, u, d, nu, eta, d0, method)
            position, is_new = ensemble.add(selection)
            w = np.r_[w, 0.0] if is_new else w
            w *= 1.0 - alpha
            w[position] += alpha
            run.keep_step(alpha, position, w.size)
            margins = (1.0 - alpha) * margins + alpha * u
            step = update(margins)
            d = step.d
            edges = ensemble.edges(d)
            max_edge, reg_value = float(edges.max()), regularizer.value(d)
        primal = max_edge + reg_value  # P^t(d^t)
        run.record(
            t,
            edge,
            primal=primal,
            dual=step.theta,
            stopping=quantity,
            n_hypotheses=int(np.count_nonzero(w > 0)),
        )
        theta_prev = step.theta
        state = {"p_min": p_min, "theta_prev": theta_prev, "max_edge": max_edge, "reg_value": reg_value}
        root = getattr(regularizer, "_last_root", math.nan)
        run.save(t, ensemble, d=d, margins=margins, w=w, root=root, **state)
    if not converged:
        warn_unconverged(algorithm, max_iter)
    reason = "delta~ (practical) <= eps/2" if converged else "max_iter reached"
    return run.result(
        algorithm, ensemble, w, d, converged=converged, stop_reason=reason, params=params, soft_margin=True
    )
