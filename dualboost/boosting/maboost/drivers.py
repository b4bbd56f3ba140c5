"""The MABoost family of [NP] (Naghibi & Pfister): boosting as online mirror descent
(docs/math.md#mirror-descent-boosting-maboost).

Translation (docs/math.md#symbol-crosswalk): the paper's distribution **w** is dualboost's ``d``; its
loss vector ``d_t = [-a_i h_t(x_i)]`` is ``-u_t`` with ``u_t = U[:, t]`` the new column of the edge
matrix; its ``eta_t`` are the w-domain weights of the hypotheses, whose margins are ``m_t = U eta``.
Each driver starts from the uniform ``d_1``, asks the oracle for ``h_t`` with edge
``gamma_t = u_t . d_t`` and outputs ``f = sign(sum_t eta_t h_t)`` (weights normalised to the simplex;
the sign is unchanged).

* :func:`maboost`, Alg. 1: ``eta_t = gamma_t / L`` (Thm 1; ``step="max_margin"``:
  ``gamma_t / (L sqrt t)``, Thm 2), then in mirror coordinates of R (:mod:`.geometry`)

  - active: ``grad R(z_{t+1}) = grad R(d_t) - eta_t u_t``,
  - lazy (LAMABoost, docs/math.md#lamaboost):
    ``grad R(z_{t+1}) = grad R(z_t) - eta_t u_t = grad R(d_1) - m_t``,

  and ``d_{t+1} = argmin_{d in D} B_R(d, z_{t+1})`` with D the simplex S, the capped simplex S_k
  (smooth MABoost, Thm 3) or the mixed set S_c of docs/math.md#mixed-projection-set. The lazy form is FTRL:
  ``d_{t+1} = grad F*(-m_t)``, ``F = B_R(., d_1) + I_D``. :func:`lamaboost` is ``update="lazy"``.
* :func:`sparseboost`, Alg. 2 (COMID with the double projection of Lemma 4): R = (1/2)||.||^2,
  ``eta_t = gamma_t / N``, ``alpha_t = alpha * gamma_t / 2`` (Thm 4 needs alpha_t <= gamma_t/2),
  ``y = clip(d_t - eta_t u_t - thr, 0, 1)`` with ``thr = alpha_t eta_t / 2`` (the literal objective of
  Alg. 2) or ``alpha_t eta_t`` (``threshold="half"``, the 1/2-convention;
  docs/math.md#sparseboost-threshold), ``d_{t+1} = Pi_S(y)``.
* :func:`madaboost`, Alg. 3 (double-projection LAMABoost, docs/math.md#madaboost-variant): R =
  generalised entropy, z_1 = 1, so ``y = min(1, e^{-m_t})`` (the entropic projection onto the hypercube)
  and ``d = y / ||y||_1``: MadaBoost's weighting, ``grad`` of the conjugate ``sum psi`` of the
  box-restricted entropy at -m. The paper's ``eta_t = eps_t gamma_t`` is circular
  (docs/math.md#madaboost-step): ``step="previous"`` (default) takes eps_t from ``f_{t-1}``, the
  ensemble before round t, counting margin 0 as an error (so ``eps_0 = 1``); ``step="fixed_point"``
  looks for ``eta = gamma_t eps(eta)`` with eps(eta) the error of ``f_{t-1} + eta h_t`` (the smallest
  solution; rounds without one fall back to "previous").

History (:class:`~dualboost.boosting.History`), one row per round: ``edge`` gamma_t; ``primal`` the
d-domain FTRL objective ``<d_{t+1}, m_t> + B_R(d_{t+1}, d_1)`` of the new distribution; ``dual`` the
w-domain value ``-F*(-m_t)`` of the margins (entropy on S: minus the log of the average exponential
loss; MadaBoost: 1 minus the average MadaBoost loss, both computed from m alone; MadaBoost's values are
per example, divided by N); ``gap`` their
difference (>= 0; 0 up to rounding for the lazy forms, which are the FTRL minimisers; positive for the
active forms, how far the iterate is from the lazy one); ``stopping`` the theorem's bound on the
training error after the round; the run stops when that bound is below ``nu / N`` (which guarantees
a training error below 1/k = nu/N: zero errors on S). ``keep_iterates=True`` stores ``(d^t, eta^t)``
(unnormalised eta over the hypotheses so far: the margins are ``columns @ eta^t``).

Bounds recorded (``S_T = sum_t eta_t (gamma_t - alpha_t) - (L/2) eta_t^2``, Eq. 15): entropy
``exp(-S_T)`` (9); quadratic ``1/(1 + N S_T)`` (8, published convention); SparseBoost the same, which is
(16); MadaBoost ``1 - sum_t (eta_t eps_{t-1} gamma_t - eta_t^2 / 2)`` [DERIVED], from the 1-smoothness
of psi: ``(1/N) sum psi(-m_T) <= 1 - sum_t (...)`` and every error has ``psi(-m) >= 1``; with the
default step it is ``1 - (1/2) sum_t eps_{t-1}^2 gamma_t^2``, i.e. Thm 5's ``T = O(1/(eps^2 gamma^2))``.
On S_k and S_c the bound holds while the error distribution lies in D (eps >= 1/k), Thm 3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import kl_div

from dualboost._validation import check_choice, check_distribution, check_max_iter, check_scalar
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_CHECKPOINT, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult, n_positive
from dualboost.boosting.core.run import Ensemble, Run, check_oracle
from dualboost.boosting.maboost.geometry import (
    Entropy,
    Euclidean,
    ProjectionSet,
    Regulariser,
    entropic_project_hypercube,
    make_regulariser,
    sparse_prox_hypercube,
)
from dualboost.conjugates import MadaBoostLoss, project_simplex

__all__ = [
    "MABoostResult",
    "maboost",
    "lamaboost",
    "sparseboost",
    "madaboost",
    "madaboost_fixed_point_step",
    "MABOOST_MAX_ITER",
    "UPDATES",
    "STEPS",
    "MADABOOST_STEPS",
    "THRESHOLDS",
]

#: default number of rounds (like AdaBoost's, :data:`~dualboost.boosting.core.stopping.ADABOOST_MAX_ITER`)
MABOOST_MAX_ITER = 1000
#: Alg. 1 step (c)
UPDATES = ("active", "lazy")
#: Thm 1 (``gamma/L``) and Thm 2 (``gamma/(L sqrt t)``)
STEPS = ("theory", "max_margin")
#: docs/math.md#madaboost-step: eps_t from f_{t-1}, or the fixed point eta = gamma eps(eta)
MADABOOST_STEPS = ("previous", "fixed_point")
#: SparseBoost's l1 threshold (docs/math.md#sparseboost-threshold): ``alpha eta / 2`` (literal
#: Alg. 2) or ``alpha eta``
THRESHOLDS = ("literal", "half")


@dataclass
class MABoostResult(BoostResult):
    """A :class:`~dualboost.boosting.BoostResult` with the per-round quantities of the MABoost family
    (index t-1 = round t).

    Attributes
    ----------
    steps : ndarray
        eta_t.
    training_error : ndarray
        The fraction of examples with margin ``m_t <= 0`` after round t (ties count as errors).
    bound : ndarray
        The theorem's bound on it (as in the history's ``stopping``).
    support : ndarray of int
        The number of examples with ``d_{t+1} > 0``.
    error_before : ndarray
        eps_{t-1}, the error before round t (MadaBoost's step uses it).
    eta_sum : float
        The sum of the steps (the unnormalised margins are ``eta_sum * margins``).
    region : ProjectionSet or None
        The projection set.
    """

    steps: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    training_error: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    bound: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    support: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    error_before: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    eta_sum: float = 0.0
    region: ProjectionSet | None = None

    @property
    def edges(self) -> NDArray[np.float64]:
        """gamma_t of the rounds that made a step."""
        return self.history["edge"][: self.steps.size]


class _Rule:
    """One algorithm's step size, update and bound (the loop is :func:`_run`)."""

    criterion = ""

    def __init__(self, n: int, region: ProjectionSet, d0: NDArray[np.float64] | None = None) -> None:
        self.n = n
        self.region = region
        #: the first distribution d_1 (the prior; None: uniform)
        self.prior = d0
        self.d = np.full(n, 1.0 / n) if d0 is None else d0.copy()

    def training_error(self, margins: NDArray[np.float64]) -> float:
        """The fraction of examples with margin <= 0 (weighted by the prior when there is one)."""
        wrong = margins <= 0
        return float(np.mean(wrong)) if self.prior is None else float(np.sum(self.prior[wrong]))

    @property
    def stop_threshold(self) -> float:
        """The bound below which the run stops: ``nu / N``, which guarantees a training error below
        ``1/k = nu/N`` (zero errors on S); with a prior, ``nu min_n d0_n`` (a weighted error below
        ``min d0`` is zero errors on S)."""
        nu = self.region.nu
        return nu / self.n if self.prior is None else nu * float(self.prior.min())

    def step(
        self, t: int, edge: float, u: NDArray[np.float64], margins: NDArray[np.float64], error_before: float
    ) -> float:
        raise NotImplementedError

    def update(self, eta: float, edge: float, u: NDArray[np.float64], margins: NDArray[np.float64]) -> None:
        raise NotImplementedError

    def values(self, margins: NDArray[np.float64]) -> tuple[float, float]:
        return math.nan, math.nan

    def bound(self) -> float:
        raise NotImplementedError


class _MirrorRule(_Rule):
    """Alg. 1 (and Alg. 2 through :class:`_SparseRule`): the mirror step, the projection, bound (15)."""

    def __init__(
        self,
        n: int,
        region: ProjectionSet,
        regulariser: Regulariser,
        update: str,
        step: str,
        d0: NDArray[np.float64] | None = None,
    ) -> None:
        super().__init__(n, region, d0)
        self.R = regulariser
        self.update_kind = update
        self.step_kind = step
        self.L = regulariser.dual_norm_bound(n)
        self.s = 0.0  # S_T of Eq. (15)
        self.uniform = self.d.copy()
        self.theta0 = regulariser.mirror(self.uniform)
        self.theta_d = self.theta0.copy()  # grad R(d_t)
        name = {"entropy": "(9)", "euclidean": "(8)"}.get(regulariser.name, "none")
        self.criterion = f"bound {name} on the training error < nu/N"

    def step(self, t, edge, u, margins, error_before) -> float:
        eta = edge / self.L
        if self.step_kind == "max_margin":
            eta /= math.sqrt(t)
        self.s += eta * edge - 0.5 * self.L * eta**2
        return eta

    def update(self, eta, edge, u, margins) -> None:
        if self.update_kind == "active":
            theta = self.theta_d - eta * u
        else:  # lazy: grad R(z_{t+1}) = grad R(z_1) - m_t (FTRL, docs/math.md#lamaboost)
            theta = self.theta0 - margins
        self.d, self.theta_d = self.R.project_mirror(theta, self.region)

    def values(self, margins) -> tuple[float, float]:
        # np.sum, not a BLAS dot: waking OpenBLAS's threads costs milliseconds (see Ensemble.edges)
        primal = float(np.sum(self.d * margins)) + self.R.divergence(self.d, self.uniform)
        if self.prior is not None:
            return primal, math.nan  # Regulariser.ftrl_value is the value for the uniform d_1
        return primal, self.R.ftrl_value(margins, self.region)

    def bound(self) -> float:
        if self.prior is not None and not isinstance(self.R, Entropy):
            return math.nan  # bound (8) is derived for the uniform d_1 only
        return self.R.error_bound(self.s, self.n)


class _SparseRule(_MirrorRule):
    """Alg. 2: Euclidean active step, then the l1-regularised hypercube prox and the simplex projection."""

    def __init__(self, n: int, alpha: float, threshold: str, d0: NDArray[np.float64] | None = None) -> None:
        super().__init__(n, ProjectionSet(n), Euclidean(), "active", "theory", d0)
        self.alpha = alpha
        self.threshold = threshold
        self.criterion = "bound (16) on the training error < 1/N"

    def step(self, t, edge, u, margins, error_before) -> float:
        eta = edge / self.n
        alpha_t = self.alpha * edge / 2.0
        self.s += eta * (edge - alpha_t) - 0.5 * self.n * eta**2
        self.alpha_t = alpha_t
        return eta

    def update(self, eta, edge, u, margins) -> None:
        c = self.alpha_t * eta
        y = sparse_prox_hypercube(self.d - eta * u, c / 2.0 if self.threshold == "literal" else c)
        self.y = y
        self.d = project_simplex(y)


class _MadaRule(_Rule):
    """Alg. 3: ``y = min(1, e^{-m})``, ``d = y / ||y||_1``; the bound of the module docstring."""

    criterion = "MadaBoost bound on the training error < 1/N"

    def __init__(self, n: int, step: str, d0: NDArray[np.float64] | None = None) -> None:
        super().__init__(n, ProjectionSet(n), d0)
        self.step_kind = step
        self.y = np.ones(n)
        self.potential_bound = 1.0
        self.fallbacks = 0

    def step(self, t, edge, u, margins, error_before) -> float:
        eta = error_before * edge
        if self.step_kind == "fixed_point":
            fixed = madaboost_fixed_point_step(margins, u, edge, self.prior)
            if fixed is None:
                self.fallbacks += 1
            else:
                eta = fixed
        self.potential_bound -= eta * error_before * edge - 0.5 * eta**2
        return eta

    def update(self, eta, edge, u, margins) -> None:
        self.y = entropic_project_hypercube(-margins)  # z_{t+1} = exp(-m_t), z_1 = 1
        weighted = self.y if self.prior is None else self.prior * self.y
        self.d = weighted / weighted.sum()

    def values(self, margins) -> tuple[float, float]:
        if self.prior is not None:
            return math.nan, math.nan  # the per-example values below are for the uniform d_1
        primal = (float(np.sum(self.y * margins)) + float(kl_div(self.y, 1.0).sum())) / self.n
        # -F*(-m) with F*(theta) = sum (psi(theta_n) - 1) (docs/math.md#conjugate-table), per example
        return primal, 1.0 - MadaBoostLoss().value(margins) / self.n

    def bound(self) -> float:
        return self.potential_bound


def madaboost_fixed_point_step(
    margins: ArrayLike, u: ArrayLike, edge: float, weights: NDArray[np.float64] | None = None
) -> float | None:
    """The smallest ``eta`` in (0, gamma] with ``eta = gamma * eps(eta)``, ``eps(eta)`` the fraction of
    examples with ``m_n + eta u_n <= 0`` (docs/math.md#madaboost-step, the fixed-point reading of Alg.
    3), or None when the step function eps jumps over the line (no exact solution). ``weights``: a
    distribution over the examples (the prior d_1) by which eps counts them; None: uniform.

    eps is constant between the breakpoints ``-m_n / u_n``; it is counted on every interval with two
    sorted arrays (O(N log N)), and a fixed point is ``gamma * eps_j`` inside interval j.

    Parameters
    ----------
    margins : array_like, shape (N,)
        The margins m before the step.
    u : array_like, shape (N,)
        The column of the new hypothesis.
    edge : float
        gamma, its edge.
    weights : ndarray of shape (N,), optional
        The distribution by which eps counts the examples (None: uniform).

    Returns
    -------
    float or None
        eta, or None when there is no exact solution.
    """
    m, u = np.asarray(margins, dtype=np.float64), np.asarray(u, dtype=np.float64)
    n = m.size
    p = np.ones(n) if weights is None else np.asarray(weights, dtype=np.float64)
    pos, neg, zero = u > 0, u < 0, u == 0
    const = np.count_nonzero(zero & (m <= 0)) if weights is None else p[zero & (m <= 0)].sum()
    # u > 0: error while eta <= -m/u;  u < 0: error once eta >= -m/u
    order_pos = np.argsort(-m[pos] / u[pos], kind="stable")
    order_neg = np.argsort(-m[neg] / u[neg], kind="stable")
    b_pos = (-m[pos] / u[pos])[order_pos]
    b_neg = (-m[neg] / u[neg])[order_neg]
    breaks = np.unique(np.concatenate(([0.0], b_pos[b_pos > 0], b_neg[b_neg > 0])))
    ends = np.r_[breaks[1:], np.inf]
    mids = np.where(np.isfinite(ends), 0.5 * (breaks + ends), breaks + 1.0)
    if weights is None:
        above = b_pos.size - np.searchsorted(b_pos, mids, side="left")  # b_pos >= eta
        below = np.searchsorted(b_neg, mids, side="right")  # b_neg <= eta
        candidates = edge * (const + above + below) / n
    else:
        cum_pos = np.r_[0.0, np.cumsum(p[pos][order_pos])]
        cum_neg = np.r_[0.0, np.cumsum(p[neg][order_neg])]
        above = cum_pos[-1] - cum_pos[np.searchsorted(b_pos, mids, side="left")]
        below = cum_neg[np.searchsorted(b_neg, mids, side="right")]
        candidates = edge * (const + above + below)
    inside = (candidates > breaks) & (candidates < ends)
    if not inside.any():
        return None
    return float(candidates[np.argmax(inside)])


def _run(
    oracle,
    rule: _Rule,
    algorithm: str,
    *,
    max_iter: int,
    params: dict,
    options: RunOptions,
) -> MABoostResult:
    """The loop shared by the family: oracle -> step -> update -> record (module docstring)."""
    threshold = rule.stop_threshold
    run = Run(oracle, History(rule.criterion, threshold), options)
    ensemble, rounds = Ensemble(rule.n), _Rounds(np.zeros(rule.n))
    run.keep(rule.d, rounds.eta)
    # the family runs max_iter rounds ([NP]'s T); the bound below nu/N is an early, certified stop
    converged, reason, detail = False, "rounds", f"max_iter={max_iter} rounds"
    for t in range(1, max_iter + 1):
        selection = run.ask(rule.d)
        if selection.edge <= 0:
            run.record(t, selection.edge, n_hypotheses=n_positive(rounds.eta))
            converged, reason, detail = True, "no_edge", "no hypothesis with a positive edge"
            break
        with run.solving():
            primal, dual = rounds.step(rule, ensemble, selection, t)
        bound, hypotheses = rounds.record(rule), n_positive(rounds.eta)
        run.record(t, selection.edge, primal=primal, dual=dual, stopping=bound, n_hypotheses=hypotheses)
        run.keep(rule.d, rounds.eta)
        if bound < threshold:
            converged, reason = True, "converged"
            detail = f"the training-error bound fell below nu/N = {threshold:.3g}"
            break
        timed = run.out_of_time()
        if timed:
            reason, detail = timed
            break
    eta_sum = float(rounds.eta.sum())
    weights = rounds.eta / eta_sum if eta_sum > 0 else rounds.eta
    base = run.result(
        algorithm,
        ensemble,
        weights,
        rule.d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
    )
    return rounds.result(base, eta_sum, rule.region)


@dataclass
class _Rounds:
    """The state of a mirror-descent run (the margins ``U eta``, the steps per hypothesis ``eta``, the
    training error before the round) and its per-round records."""

    margins: NDArray[np.float64]
    eta: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    error_before: float = 1.0  # f_0 = sign(0): every margin is 0, counted as an error
    steps: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    bounds: list = field(default_factory=list)
    support: list = field(default_factory=list)
    before: list = field(default_factory=list)

    def step(self, rule: _Rule, ensemble: Ensemble, selection, t: int) -> tuple[float, float]:
        """The round's step and update; returns its primal and dual values."""
        u, edge = selection.column, selection.edge
        eta = rule.step(t, edge, u, self.margins, self.error_before)
        position, is_new = ensemble.add(selection)
        if is_new:
            self.eta = np.r_[self.eta, 0.0]
        self.eta[position] += eta
        self.margins = self.margins + eta * u
        rule.update(eta, edge, u, self.margins)
        self.steps.append(eta)
        return rule.values(self.margins)

    def record(self, rule: _Rule) -> float:
        """The round's bound, training error and support; returns the bound."""
        bound, error = rule.bound(), rule.training_error(self.margins)
        self.errors.append(error)
        self.bounds.append(bound)
        self.support.append(int(np.count_nonzero(rule.d > 0)))
        self.before.append(self.error_before)
        self.error_before = error
        return bound

    def result(self, base: BoostResult, eta_sum: float, region) -> MABoostResult:
        return MABoostResult(
            **{f.name: getattr(base, f.name) for f in fields(BoostResult)},
            steps=np.array(self.steps),
            training_error=np.array(self.errors),
            bound=np.array(self.bounds),
            support=np.array(self.support, dtype=np.int64),
            error_before=np.array(self.before),
            eta_sum=eta_sum,
            region=region,
        )


def _first_distribution(d0: ArrayLike | None, n: int) -> NDArray[np.float64] | None:
    """The checked first distribution d_1 (a positive distribution over the N examples), None for
    the uniform one."""
    return None if d0 is None else check_distribution(d0, n, "d0")


@takes_run_options(without=NO_CHECKPOINT)
def maboost(
    oracle,
    *,
    regulariser: object = "entropy",
    update: str = "active",
    nu: float = 1.0,
    secondary: ArrayLike | None = None,
    step: str = "theory",
    L: float | None = None,
    max_iter: int | None = None,
    d0: ArrayLike | None = None,
    options: RunOptions,
) -> MABoostResult:
    """MABoost ([NP] Alg. 1) and its smooth (Thm 3), mixed-set (Sec 3.2) and lazy (Sec 3.4) forms.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    regulariser : str, Regulariser or ConvexFunction, default "entropy"
        ``"entropy"``, ``"euclidean"`` (alias ``"quadratic"``), a
        :class:`~dualboost.boosting.maboost.geometry.Regulariser`, or a conjugate-library function (any
        other than the relative entropies and ``HalfSquaredNorm(2)`` needs ``L``).
    update : {"active", "lazy"}, default "active"
        ``"lazy"`` is LAMABoost.
    nu : float, default 1.0
        In [1, N]: the cap ``d_n <= 1/nu`` (``nu = 1``: the simplex; [NP]'s smoothness ``k = N/nu``),
        on the examples of ``secondary`` only when it is given.
    secondary : array_like of bool, shape (N,), optional
        The set S_c of docs/math.md#mixed-projection-set.
    step : {"theory", "max_margin"}, default "theory"
        ``gamma/L`` (Thm 1) or ``gamma/(L sqrt t)`` (Thm 2).
    L : float, optional
        The bound on the squared dual norm of a column (needed for a library function other than
        the relative entropies and ``HalfSquaredNorm(2)``).
    max_iter : int, optional
        Rounds (default 1,000); the run stops earlier when the bound falls below nu/N or no
        hypothesis has a positive edge.
    d0 : array_like of shape (N,), optional
        The first distribution d_1 (a positive distribution; default uniform), which is also the
        centre of the Bregman divergence: the training error and its bound are then weighted by d0,
        and the run stops when the bound is below ``nu min d0`` (zero errors on S). The entropy bound
        (9) holds for the d0-weighted error (its proof only uses ``Delta(e, d_1) = ln(1/eps)`` for the
        error distribution e = d0 restricted to the errors); the Euclidean bound (8) assumes a
        uniform d_1 and is recorded as NaN with a prior (the run then does ``max_iter`` rounds).
    options : RunOptions

    Returns
    -------
    MABoostResult
        The hypotheses, their weights, the history with the training error and its bound.
    """
    n = check_oracle(oracle)
    update = check_choice(update, UPDATES, "update")
    step = check_choice(step, STEPS, "step")
    max_iter = check_max_iter(max_iter, MABOOST_MAX_ITER)
    region = ProjectionSet(n, nu, secondary)
    R = make_regulariser(regulariser, L)
    if L is not None and isinstance(R, (Entropy, Euclidean)):
        raise ValueError(f"L is fixed by the {R.name} regulariser ({R.dual_norm_bound(n):g}); leave L=None")
    rule = _MirrorRule(n, region, R, update, step, _first_distribution(d0, n))
    params = {
        "regulariser": R.name,
        "update": update,
        "nu": region.nu,
        "projection": region.kind,
        "step": step,
        "L": rule.L,
        "max_iter": max_iter,
    }
    name = "lamaboost" if update == "lazy" else "maboost"
    return _run(
        oracle,
        rule,
        name,
        max_iter=max_iter,
        params=params,
        options=options,
    )


def lamaboost(oracle, **options) -> MABoostResult:
    """LAMABoost (docs/math.md#lamaboost): :func:`maboost` with ``update="lazy"``, i.e. FTRL
    ``d_{t+1} = grad F*(-m_t)``.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    **options
        The keywords of :func:`maboost` but ``update``.

    Returns
    -------
    MABoostResult
        As :func:`maboost`'s.
    """
    if "update" in options:
        raise ValueError("lamaboost is maboost with update='lazy'; do not pass update")
    return maboost(oracle, update="lazy", **options)


@takes_run_options(without=NO_CHECKPOINT)
def sparseboost(
    oracle,
    *,
    alpha: float = 0.5,
    threshold: str = "literal",
    max_iter: int | None = None,
    d0: ArrayLike | None = None,
    options: RunOptions,
) -> MABoostResult:
    """SparseBoost ([NP] Alg. 2, Thm 4).

    ``result.support`` counts the examples with d > 0 after every round.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    alpha : float, default 0.5
        In [0, 1]: the l1 weight ``alpha_t = alpha * gamma_t / 2`` (Thm 4's limit is alpha = 1, where
        bound (16) is vacuous, 1; Alg. 2 writes the strict ``alpha_t < gamma_t/2``; the default 1/2
        gives ``eps <= 1 / (1 + sum gamma_t^2 / 4)``).
    threshold : {"literal", "half"}, default "literal"
        ``alpha_t eta_t/2`` (Alg. 2's objective) or ``alpha_t eta_t``; both satisfy Thm 4
        (docs/math.md#sparseboost-threshold).
    max_iter : int, optional
        Rounds (default 1,000).
    d0 : array_like of shape (N,), optional
        The first distribution (default uniform; with a prior, bound (16) is recorded as NaN: it
        assumes the uniform d_1).
    options : RunOptions

    Returns
    -------
    MABoostResult
        The hypotheses, their weights, the history with the training error and its bound.
    """
    n = check_oracle(oracle)
    alpha = check_scalar(alpha, "alpha")
    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"alpha must lie in [0, 1] (alpha_t = alpha gamma_t/2); got {alpha}")
    threshold = check_choice(threshold, THRESHOLDS, "threshold")
    max_iter = check_max_iter(max_iter, MABOOST_MAX_ITER)
    rule = _SparseRule(n, alpha, threshold, _first_distribution(d0, n))
    params = {"alpha": alpha, "threshold": threshold, "max_iter": max_iter, "nu": 1.0}
    return _run(
        oracle,
        rule,
        "sparseboost",
        max_iter=max_iter,
        params=params,
        options=options,
    )


@takes_run_options(without=NO_CHECKPOINT)
def madaboost(
    oracle,
    *,
    step: str = "previous",
    max_iter: int | None = None,
    d0: ArrayLike | None = None,
    options: RunOptions,
) -> MABoostResult:
    """The MadaBoost variant of [NP] (Alg. 3, Thm 5).

    ``result.params["fallbacks"]``: fixed-point rounds that had no exact solution.

    Parameters
    ----------
    oracle : Oracle
        A fitted oracle.
    step : str, default "previous"
        How the circular step of docs/math.md#madaboost-step is resolved (:data:`MADABOOST_STEPS`;
        module docstring).
    max_iter : int, optional
        Rounds (default 1,000).
    d0 : array_like of shape (N,), optional
        A prior over the examples (default uniform): ``d`` is proportional to ``d0 min(1, e^{-m})``,
        the gradient of the d0-weighted MadaBoost loss, and eps counts the errors by d0 (so integer
        d0 proportions act as repeated examples); the bound is that of the weighted loss (1-smooth as
        the uniform one); the history's primal and dual values are NaN with a prior.
    options : RunOptions

    Returns
    -------
    MABoostResult
        The hypotheses, their weights, the history with the training error and its bound.
    """
    n = check_oracle(oracle)
    step = check_choice(step, MADABOOST_STEPS, "step")
    max_iter = check_max_iter(max_iter, MABOOST_MAX_ITER)
    rule = _MadaRule(n, step, _first_distribution(d0, n))
    params = {"step": step, "max_iter": max_iter, "nu": 1.0}
    result = _run(
        oracle,
        rule,
        "madaboost",
        max_iter=max_iter,
        params=params,
        options=options,
    )
    result.params["fallbacks"] = rule.fallbacks
    return result
