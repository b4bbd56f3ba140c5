"""Generalized gradient boosting ([GB], Grubb & Bagnell 2011): restricted gradient descent in the
function space L²(P̂) with naive, repeated and residual gradient projection.

The objective is a pointwise risk ``R[f] = (1/N) sum_n l(f(x_n), y_n)``
(:mod:`dualboost.boosting.gradient.losses`), with inner product
``<f, g> = (1/N) sum_n <f(x_n), g(x_n)>`` (docs/math.md#function-space). A fitted
:class:`~dualboost.oracles.regression.ProjectionOracle` is the restriction set ℋ: asked for a target it
returns h ∈ ℋ (rule (3) or (4) of docs/math.md#projection-rules). Every step uses the closest point on
the line of h ([GB] (2)): ``c h`` with ``c = <h, target>/‖h‖²``. The three algorithms
(docs/math.md#naive-projection, docs/math.md#repeated-projection, docs/math.md#residual-projection,
[RECONSTRUCTED]; the choices below are ours where the available copy of the paper lost the math):

* ``"naive"`` (Alg. 1, Mason et al. / Friedman): ``f_t = f_{t-1} - η_t c h`` with h the projection of
  the subgradient ∇_t. Linear rate on strongly smooth, strongly convex R (Thm 3); can fail on
  non-smooth R (the two-point example of docs/math.md#naive-projection).
* ``"repeated"`` (Alg. 2): round t projects the fixed target ∇_t t times, each time onto the residual
  left by the previous ones (naive boosting on ½‖∇_t - h‖², whose squared residual shrinks by
  ``(1 - γ_k²)`` per inner step: docs/math.md#functional-edge), and steps ``f_t = f_{t-1} - η_t Σ_k c_k h_k``.
  Round t trains t weak learners, as in docs/math.md#repeated-projection (structure confirmed by a
  third-party code); the paper's accuracy-threshold variant is not implemented.
* ``"residual"`` (Alg. 3): carry the unprojected part forward, ``Δ' = Δ_{t-1} + ∇_t``, project Δ',
  step ``f_t = f_{t-1} - η_t c h`` and keep ``Δ_t = Δ' - c h``. **Choice**: Δ accumulates gradients,
  not η-scaled steps (the paper's prose: the residual "is increased by at most the norm of the
  gradient and then multiplicatively decreased in projection"), so that
  ``‖Δ_t‖ <= sqrt(1-γ²)/(1 - sqrt(1-γ²)) G <= 2G/γ²`` (docs/math.md#residual-projection) whatever the steps.

Steps η_t (docs/math.md#naive-projection to docs/math.md#residual-projection): ``"constant"`` (η; Thm 3
takes η = 1/Λ, e.g. 1 for the squared loss), ``"sqrt"`` (η/√t, Thms 5, 7), ``"inverse"`` (η/t, Thms 4,
6: η = 1/λ), a callable t -> η_t, or ``"auto"``: constant for the naive method on a smooth loss (Thm 3);
otherwise η/(λ t) on a λ-strongly convex loss (the squared loss, λ = 1; Thms 4, 6) and η/√t on the
others (Thms 5, 7). The residual method needs decreasing steps even on a smooth loss: the carried
residual acts like an integral term, and with a constant η = 1 on the squared loss it diverges
(measured; Thms 6, 7 are stated for decreasing steps only). The theorems' η ∝ F/G also says to scale
``learning_rate`` with the spread of the targets when the gradient is bounded by 1 (absolute, hinge
losses).

Checked against the published paper: the available copy (and the text of the paper that the search
tools reached) carries no formula, so every formula above is [RECONSTRUCTED] (docs/math.md#erratum-gb-1);
the structure of Algs. 1–3, the Δ bound and the theorems' step sizes agree with the paper's surviving
prose and proofs. Where two readings exist, the code takes: the projection coefficient c of (2) in every
step (also for rule (4) learners, where c = 1 exactly for a least-squares fit over a class closed
under scaling); Δ in gradient units (above); the mean (not the sum) over examples in R, so that
λ = Λ = 1 for the squared loss (Thm 3 exactly: docs/math.md#naive-projection). The residual method with
η_t = 1/t on the squared loss coincides with the naive method with η = 1 (Δ_t = t ∇_{t+1} by
induction; tested).

Example weights (``sample_weight``; docs/gradient.md#sample-weights): with s_n >= 0 the empirical
measure becomes ``P̂_s``, ``p_n = s_n / sum_m s_m``, so that the risk is the weighted risk
``R_s[f] = sum_n p_n l(f(x_n), y_n)`` and the inner product is ``<f, g>_s = sum_n p_n <f(x_n), g(x_n)>``
(:func:`inner` with ``weights=p``). Its gradient has the same N values (the weights appear on both sides,
:mod:`dualboost.boosting.gradient.losses`); everything measured in L²(P̂) is measured in L²(P̂_s): the
projection (rule (4) becomes the weighted least-squares fit ``argmin_h sum_n p_n ‖target_n - h(x_n)‖²``,
rule (3) ``argmax <target, h>_s/‖h‖_s``: the oracle is asked with ``sample_weight=p``), the line
coefficient c, the gradient norm of the stopping test, the edge, Δ's norm, f_0 (the best constant of R_s)
and the recorded objective R_s. The step schedules η_t do not depend on the data. Integer weights are
the rows repeated: the copies of an example share f(x_n), so ``P̂_s`` is the repeated sample's P̂ and
every quantity above is the same (up to rounding, as long as the learner's answer depends on the sample
only through P̂, as the stumps' does). A weight of 0 removes the example from every sum; the stumps'
thresholds (midpoints between training values) still see it, so the estimators drop such rows first.

The edge of Definition 1 (docs/math.md#functional-edge) is measured every round: the cosine between the
projected target and the step direction, ``<target, h>/(‖target‖ ‖h‖)``, which equals the norm form
``sqrt(1 - ‖target - c h‖²/‖target‖²)`` for the optimal line scaling c. It is recorded in the common
history (:class:`~dualboost.boosting.core.history.History`): ``edge`` = that cosine (Alg. 2: of the round's
combined step), ``primal`` = R[f_t] after the step, ``stopping`` = ‖∇_t‖ (the run stops when it is <=
``tol``), ``n_hypotheses`` = weak learners so far, ``dual`` and ``gap`` NaN (no dual is maintained). The
d-domain view (docs/math.md#gradient-d-domain): the weights on the examples are the negative functional
gradient, ``-∇_t(x_n)``; for a margin loss ``-∇_t(x_n) = y_n d_n`` with ``d_n = -phi'(z_n)`` (with example
weights, ``p_n d_n``: what the weak learner sees).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_count, check_positive, check_scalar, check_vector
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import ONLY_PROGRESS, RunOptions, takes_run_options
from dualboost.boosting.core.result import check_stop_reason
from dualboost.boosting.core.run import Run, warn_unconverged
from dualboost.boosting.gradient.losses import FunctionalLoss, make_loss
from dualboost.oracles import Hypothesis
from dualboost.oracles.regression import ProjectionOracle

__all__ = [
    "PROJECTIONS",
    "STEPS",
    "GradientBoostResult",
    "gradient_projection",
    "naive_gradient_projection",
    "repeated_gradient_projection",
    "residual_gradient_projection",
    "step_schedule",
    "inner",
    "norm",
]

#: the projection schemes of [GB] (Algs. 1, 2, 3)
PROJECTIONS = ("naive", "repeated", "residual")
#: the named step schedules
STEPS = ("auto", "constant", "sqrt", "inverse")


def inner(
    a: NDArray[np.float64], b: NDArray[np.float64], weights: NDArray[np.float64] | None = None
) -> float:
    """``<a, b>`` in L²(P̂): ``(1/N) sum_n <a_n, b_n>`` for arrays of shape (N,) or (N, K)
    (docs/math.md#function-space); with ``weights`` p (a distribution over the N examples) the inner
    product of L²(P̂_s), ``sum_n p_n <a_n, b_n>`` (module docstring).

    Parameters
    ----------
    a, b : ndarray, shape (N,) or (N, K)
        Functions on the sample.
    weights : ndarray of shape (N,), optional
        A distribution over the examples (None: uniform).

    Returns
    -------
    float
        The inner product.
    """
    if weights is None:
        return float(np.sum(a * b)) / a.shape[0]
    products = a * b
    return float(weights @ (products if products.ndim == 1 else products.sum(axis=1)))


def norm(a: NDArray[np.float64], weights: NDArray[np.float64] | None = None) -> float:
    """``‖a‖`` in L²(P̂) (or L²(P̂_s) with ``weights`` p: :func:`inner`).

    Parameters
    ----------
    a : ndarray, shape (N,) or (N, K)
        A function on the sample.
    weights : ndarray of shape (N,), optional
        A distribution over the examples (None: uniform).

    Returns
    -------
    float
        The norm.
    """
    return math.sqrt(max(inner(a, a, weights), 0.0))


def step_schedule(
    step: object, learning_rate: object, loss: FunctionalLoss, projection: str = "naive"
) -> Callable[[int], float]:
    """η_t as a function of the round t = 1, 2, ... (module docstring; ``"auto"`` depends on the
    loss and the projection).

    Parameters
    ----------
    step : str or callable
        A name of :data:`STEPS` (``"auto"``, ``"constant"``, ``"sqrt"``, ``"inverse"``) or a callable
        t -> η_t > 0 (then used as it is).
    learning_rate : float
        The scale of the named schedules, > 0.
    loss : FunctionalLoss
        The loss (its smoothness sets the ``"auto"`` step).
    projection : str, default "naive"
        The projection of :func:`gradient_projection`.

    Returns
    -------
    callable
        t -> η_t.
    """
    eta = check_positive(learning_rate, "learning_rate")
    if callable(step):

        def custom(t: int) -> float:
            value = check_scalar(step(t), "step(t)")
            if value <= 0:
                raise ValueError(f"step(t) must return a step size > 0; got {value!r} at t = {t}")
            return value

        return custom
    if step not in STEPS:
        names = ", ".join(map(repr, STEPS))
        raise ValueError(f"step must be one of {names} or a callable t -> eta_t; got {step!r}")
    if step == "auto":
        if projection == "naive" and loss.smooth:
            step = "constant"  # Thm 3
        else:  # Thms 4, 6 (η_t = 1/(λ t)) or Thms 5, 7 (η_t = 1/√t)
            step = "inverse" if loss.strong_convexity > 0 else "sqrt"
            if step == "inverse":
                return lambda t: eta / (loss.strong_convexity * t)
    if step == "constant":
        return lambda t: eta
    if step == "sqrt":
        return lambda t: eta / math.sqrt(t)
    return lambda t: eta / t


@dataclass
class GradientBoostResult:
    """The output of a run: ``f(x) = init + sum_i coefficients[i] * hypotheses[i](x)``.

    Attributes
    ----------
    projection : str
        ``"naive"``, ``"repeated"`` or ``"residual"``.
    loss : FunctionalLoss
        The loss minimised.
    init : ndarray
        f_0 (scalar, or a K-vector).
    hypotheses : list of Hypothesis
        The weak learners' answers.
    coefficients : ndarray
        Their coefficients.
    F : ndarray
        f on the training set.
    history : History
        One row per round (module docstring).
    gradient_norms, target_norms, residual_norms : ndarray
        Per round: ‖∇_t‖; ‖target‖ (∇_t, or Δ' for the residual method); what the round's projection
        left, ‖target - step direction‖ (‖Δ_t‖ for Alg. 3).
    inner_edges : list of ndarray
        The cosine of each projection of the round (Alg. 2 makes t of them).
    n_rounds, n_learners : int
        Rounds run and weak-learner calls.
    converged : bool
        The gradient norm reached ``tol``.
    stop_reason : str
        A word of :data:`~dualboost.boosting.core.result.STOP_REASONS`: ``"converged"``,
        ``"no_edge"``, ``"rounds"`` for the budget of weak learners used with ``tol = 0``,
        ``"max_iter"`` for it with ``tol > 0``.
    initial_objective : float
        R[f_0].
    oracle_time, total_time : float
        Seconds.
    params : dict
        The parameters used.
    sample_weight : ndarray or None
        The distribution p of P̂_s the run used (None: uniform), with which ``objective`` and the
        norms were measured.
    stop_detail : str
        ``stop_reason`` in words.
    """

    projection: str
    loss: FunctionalLoss
    init: NDArray[np.float64]
    hypotheses: list[Hypothesis]
    coefficients: NDArray[np.float64]
    F: NDArray[np.float64]
    history: History
    gradient_norms: NDArray[np.float64]
    target_norms: NDArray[np.float64]
    residual_norms: NDArray[np.float64]
    inner_edges: list[NDArray[np.float64]]
    n_rounds: int
    n_learners: int
    converged: bool
    stop_reason: str
    initial_objective: float
    oracle_time: float
    total_time: float
    params: dict = field(default_factory=dict)
    sample_weight: NDArray[np.float64] | None = None
    stop_detail: str = ""

    def __post_init__(self) -> None:
        check_stop_reason(self.stop_reason)

    @property
    def objective(self) -> float:
        """R[f] at the end of the run."""
        return float(self.history["primal"][-1]) if len(self.history) else self.initial_objective

    @property
    def n_distinct(self) -> int:
        """How many different hypotheses the run used (a naive run that cycles re-uses a few)."""
        return len(set(self.hypotheses))

    def staged_decision_function(self, X: ArrayLike) -> Iterator[NDArray[np.float64]]:
        """f(X) after each weak learner (the first value is f_0)."""
        n = np.shape(X)[0]
        out = np.tile(self.init, (n, 1)) if self.init.ndim else np.full(n, float(self.init))
        yield out.copy()
        for coefficient, hypothesis in zip(self.coefficients, self.hypotheses, strict=True):
            out += coefficient * hypothesis.predict(X)
            yield out.copy()

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """f(X): one value per row of X, or one row of K values for K outputs."""
        n = np.shape(X)[0]
        out = np.tile(self.init, (n, 1)) if self.init.ndim else np.full(n, float(self.init))
        for coefficient, hypothesis in zip(self.coefficients, self.hypotheses, strict=True):
            out += coefficient * hypothesis.predict(X)
        return out

    def __repr__(self) -> str:
        return (
            f"GradientBoostResult({self.projection}, {self.loss!r}: {self.n_rounds} rounds, "
            f"{self.n_learners} weak learners ({self.n_distinct} distinct), R = {self.objective:.6g}, "
            f"{self.stop_reason})"
        )


def _initial(
    loss: FunctionalLoss, y: NDArray, n_outputs: int | None, init: ArrayLike | None, weights: NDArray | None
) -> NDArray:
    """f_0 as a scalar (one output) or a K-vector (``loss.multiclass``); the loss's best constant under
    the example weights by default."""
    if loss.multiclass:
        k = check_count(n_outputs, "n_outputs")
        if init is None:
            return np.zeros(k)
        arr = np.asarray(init, dtype=np.float64)
        if arr.shape not in ((), (k,)) or not np.all(np.isfinite(arr)):
            raise ValueError(f"init must be a finite scalar or a vector of n_outputs = {k} values")
        return np.broadcast_to(arr, (k,)).copy()
    if init is None:
        return np.asarray(
            loss.baseline(y) if weights is None else loss.baseline(y, weights), dtype=np.float64
        )
    return np.asarray(check_scalar(init, "init"))


def _check_labels(y: ArrayLike, n_samples: int, loss: FunctionalLoss, n_outputs: int | None) -> NDArray:
    arr = np.asarray(y)
    if arr.ndim != 1 or arr.size != n_samples:
        shape = arr.shape
        raise ValueError(f"y must be a 1-D array with one value per example (N = {n_samples}); got {shape}")
    if loss.multiclass:
        if arr.dtype.kind not in "iu":
            if arr.dtype.kind != "f" or not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
                raise ValueError("y must hold class indices 0, ..., K-1 for a multiclass loss")
            arr = arr.astype(np.intp)
        k = check_count(n_outputs, "n_outputs")
        if arr.min() < 0 or arr.max() >= k:
            found = f"{arr.min()}..{arr.max()}"
            raise ValueError(f"y must hold class indices in [0, n_outputs) = [0, {k}); got {found}")
        return arr
    try:
        arr = arr.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError("y must be numeric") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError("y must be finite (no NaN or inf)")
    return arr


def _distribution(sample_weight: ArrayLike | None, n_samples: int) -> NDArray[np.float64] | None:
    """``p = s / sum s`` for the example weights s (N finite, non-negative, positive sum), or None."""
    if sample_weight is None:
        return None
    weights = check_vector(sample_weight, "sample_weight", n_samples)
    if np.any(weights < 0) or not weights.sum() > 0:
        raise ValueError("sample_weight must be non-negative with a positive sum")
    return weights / weights.sum()


def _risk(loss: FunctionalLoss, F: NDArray[np.float64], y: NDArray, weights: NDArray | None) -> float:
    """R[f] (unweighted) or R_s[f] (``weights`` p)."""
    return loss.objective(F, y) if weights is None else loss.objective(F, y, weights)


def _finite(gradient: NDArray[np.float64], shape: tuple[int, ...]) -> NDArray[np.float64]:
    if gradient.shape != shape:
        raise ValueError(f"the loss gradient must have the shape of F {shape}; got {gradient.shape}")
    if not np.all(np.isfinite(gradient)):
        raise ValueError(
            "the loss gradient is not finite (NaN or inf; e.g. the exponential loss overflowed): "
            "lower learning_rate"
        )
    return gradient


@takes_run_options(without=ONLY_PROGRESS)
def gradient_projection(
    oracle: ProjectionOracle,
    y: ArrayLike,
    loss: object = "squared",
    *,
    projection: str = "residual",
    n_learners: int = 100,
    step: object = "auto",
    learning_rate: float = 1.0,
    init: ArrayLike | None = None,
    n_outputs: int | None = None,
    tol: float = 0.0,
    sample_weight: ArrayLike | None = None,
    options: RunOptions,
) -> GradientBoostResult:
    """Minimise ``R[f] = mean_n l(f(x_n), y_n)`` by restricted gradient descent (module docstring).

    Parameters
    ----------
    oracle : ProjectionOracle
        A fitted :class:`~dualboost.oracles.regression.ProjectionOracle` (the restriction set, on the
        training inputs).
    y : array_like, shape (N,)
        The targets: regression values, labels in {-1, +1} for a margin loss, class indices 0..K-1
        for a multiclass loss (with ``n_outputs`` = K).
    loss : str or FunctionalLoss, default "squared"
        A name of :data:`~dualboost.boosting.gradient.losses.LOSSES` or a ``FunctionalLoss``.
    projection : {"naive", "repeated", "residual"}, default "residual"
        Alg. 1, Alg. 2 or Alg. 3.
    n_learners : int, default 100
        The budget of weak-learner calls (Alg. 2's last round may be cut short by it).
    step, learning_rate : optional
        η_t (:func:`step_schedule`).
    init : array_like, optional
        f_0 (default: the loss's best constant for one output, else 0).
    n_outputs : int, optional
        K, the outputs of a multiclass loss.
    tol : float, default 0.0
        Stop when ‖∇_t‖ <= tol.
    sample_weight : array_like of shape (N,), optional
        Non-negative example weights s with a positive sum: minimise the weighted risk
        ``sum_n s_n l(f(x_n), y_n) / sum_n s_n`` in L²(P̂_s) (module docstring).
    options : RunOptions

    Returns
    -------
    GradientBoostResult
        The learners, their steps and the history of the risk.
    """
    n_samples = _check_run(oracle, projection)
    loss, budget, tol = make_loss(loss), check_count(n_learners, "n_learners"), _check_tol(tol)
    eta = step_schedule(step, learning_rate, loss, projection)
    y, p, f0, F = _start(loss, y, n_samples, n_outputs, init, sample_weight)
    history = History(criterion="gradient norm ‖∇_t‖ <= tol", threshold=tol)
    project = oracle.project if p is None else lambda target: oracle.project(target, sample_weight=p)
    run = Run(SimpleNamespace(best=project), history, options)
    trace, initial_objective = _Trace(F=F, residual=np.zeros_like(F)), _risk(loss, F, y, p)
    # tol = 0: the budget is the run (no stopping rule asked for); tol > 0: the budget cut it short
    converged, stop_reason, t = False, "rounds" if tol == 0 else "max_iter", 0
    detail = f"budget of {budget} weak learners used"
    while len(trace.hypotheses) < budget:
        t += 1
        eta_t = eta(t)
        with run.solving():
            gradient = _finite(loss.gradient(trace.F, y), trace.F.shape)
        g_norm = norm(gradient, p)
        if g_norm <= tol:
            converged, stop_reason = True, "converged"
            detail = f"gradient norm {g_norm:.3g} <= tol at round {t}"
            break
        inner_steps = min(t, budget - len(trace.hypotheses)) if projection == "repeated" else 1
        stop = _round(run, trace, t, (gradient, g_norm), eta_t, inner_steps, (loss, y, p), projection)
        if stop:
            stop_reason, detail = stop
            break
    params = _params(projection, loss, budget, step, learning_rate, tol, p)
    return trace.result(
        projection,
        loss,
        f0,
        history,
        run,
        initial_objective,
        params,
        p,
        converged=converged,
        stop_reason=stop_reason,
        stop_detail=detail,
    )


def _start(loss: FunctionalLoss, y: ArrayLike, n_samples: int, n_outputs, init, sample_weight) -> tuple:
    """``(labels, the distribution p of the sample weights or None, f_0, F = f_0 on the N inputs)``."""
    y = _check_labels(y, n_samples, loss, n_outputs)
    p = _distribution(sample_weight, n_samples)
    f0 = _initial(loss, y, n_outputs, init, p)
    return y, p, f0, np.tile(f0, (n_samples, 1)) if f0.ndim else np.full(n_samples, float(f0))


def _params(projection: str, loss: FunctionalLoss, budget: int, step, learning_rate, tol: float, p) -> dict:
    """A run's parameters as its result reports them."""
    params = {"projection": projection, "loss": loss.name, "n_learners": budget}
    params |= {"step": step if isinstance(step, str) else "callable", "learning_rate": float(learning_rate)}
    return params | {"tol": tol, "weighted": p is not None}


def _check_run(oracle: object, projection: object) -> int:
    """The projection's name and a fitted ProjectionOracle; returns N."""
    if projection not in PROJECTIONS:
        raise ValueError(f"projection must be one of {', '.join(map(repr, PROJECTIONS))}; got {projection!r}")
    n_samples = getattr(oracle, "n_samples_", None)
    if not callable(getattr(oracle, "project", None)) or n_samples is None:
        raise ValueError(f"oracle must be a fitted ProjectionOracle (call fit(X) first); got {oracle!r}")
    return int(n_samples)


def _check_tol(tol: object) -> float:
    """The gradient-norm tolerance, >= 0."""
    tol = check_scalar(tol, "tol")
    if tol < 0:
        raise ValueError(f"tol must be >= 0; got {tol!r}")
    return tol


def _round(run: Run, trace: _Trace, t: int, gradient, eta_t: float, inner_steps: int, problem, projection):
    """Round t after the gradient test: project the target (``gradient`` and its norm), step, record the
    history row; returns the stop ``(reason, detail)`` (no edge, the time limit) or None."""
    (gradient, g_norm), (loss, y, p) = gradient, problem
    target = trace.residual + gradient if projection == "residual" else gradient
    direction, left, edges = _project(run, target, inner_steps, p, eta_t, trace)
    if not edges:
        return "no_edge", f"no weak learner has a positive edge at round {t}"
    with run.solving():
        trace.F = trace.F - eta_t * direction
        if projection == "residual":
            trace.residual = left
        objective = _risk(loss, trace.F, y, p)
    edge = trace.round(direction, target, left, g_norm, edges, p)
    run.record(t, edge, primal=objective, stopping=g_norm, n_hypotheses=len(trace.hypotheses))
    return run.out_of_time()


def _project(run: Run, target, inner_steps: int, p, eta_t: float, trace: _Trace):
    """One round's projection of ``target`` onto the restriction set (``inner_steps`` greedy steps
    for Alg. 2, one otherwise), the weak learners appended to ``trace`` with the coefficients
    ``-eta_t c``; returns ``(direction, what is left of the target, the steps' edges)``."""
    direction = np.zeros_like(target)
    left = target.copy()
    edges: list[float] = []
    for _ in range(inner_steps):
        left_norm = norm(left, p)
        if left_norm == 0.0:
            break  # the round's target is represented exactly
        answer = run.ask(left)
        h = answer.values
        hh, hl = inner(h, h, p), inner(h, left, p)
        if not (hh > 0.0 and hl > 0.0):
            break  # no hypothesis of the class has a positive edge on what is left
        c = hl / hh
        edges.append(hl / (math.sqrt(hh) * left_norm))
        with run.solving():
            direction += c * h
            left -= c * h
        trace.hypotheses.append(answer.hypothesis)
        trace.coefficients.append(-eta_t * c)
    return direction, left, edges


@dataclass
class _Trace:
    """The state of :func:`gradient_projection`: f_t on the training inputs, the residual of Alg. 3, and
    what it records of each round besides the history row."""

    F: NDArray[np.float64]
    residual: NDArray[np.float64]
    hypotheses: list[Hypothesis] = field(default_factory=list)
    coefficients: list[float] = field(default_factory=list)
    gradient_norms: list[float] = field(default_factory=list)
    target_norms: list[float] = field(default_factory=list)
    residual_norms: list[float] = field(default_factory=list)
    inner_edges: list[NDArray[np.float64]] = field(default_factory=list)

    def round(self, direction, target, left, g_norm: float, edges: list[float], p) -> float:
        """Record a round's norms and edges; returns its edge, the cosine of step and target."""
        t_norm = norm(target, p)
        self.gradient_norms.append(g_norm)
        self.target_norms.append(t_norm)
        self.residual_norms.append(norm(left, p))
        self.inner_edges.append(np.array(edges))
        return inner(direction, target, p) / (norm(direction, p) * t_norm)

    def result(self, projection, loss, f0, history, run, initial_objective, params, p, **stop):
        """The run's :class:`GradientBoostResult` (``stop``: converged, stop_reason, stop_detail), with
        :func:`~dualboost.boosting.core.run.warn_unconverged` for a run that ended before its rule."""
        if not stop["converged"] and stop["stop_reason"] != "rounds":
            warn_unconverged(
                f"gradient_projection ({projection})", stop["stop_reason"], stop["stop_detail"], stacklevel=5
            )
        return GradientBoostResult(
            projection=projection,
            loss=loss,
            init=f0,
            hypotheses=self.hypotheses,
            coefficients=np.array(self.coefficients),
            F=self.F,
            history=history,
            gradient_norms=np.array(self.gradient_norms),
            target_norms=np.array(self.target_norms),
            residual_norms=np.array(self.residual_norms),
            inner_edges=self.inner_edges,
            n_rounds=len(history),
            n_learners=len(self.hypotheses),
            initial_objective=initial_objective,
            oracle_time=run.oracle_time,
            total_time=time.perf_counter() - run.start,
            params=params,
            sample_weight=p,
            **stop,
        )


def naive_gradient_projection(oracle: ProjectionOracle, y: ArrayLike, loss: object = "squared", **kwargs):
    """Alg. 1 of [GB] (docs/math.md#naive-projection): :func:`gradient_projection` with
    ``projection="naive"``.

    Parameters
    ----------
    oracle : ProjectionOracle
        A fitted projection oracle.
    y : array_like, shape (N,)
        The targets.
    loss : str or FunctionalLoss, default "squared"
        As for :func:`gradient_projection`.
    **kwargs
        The other keywords of :func:`gradient_projection` but ``projection``.

    Returns
    -------
    GradientBoostResult
    """
    return gradient_projection(oracle, y, loss, projection="naive", **kwargs)


def repeated_gradient_projection(oracle: ProjectionOracle, y: ArrayLike, loss: object = "squared", **kwargs):
    """Alg. 2 of [GB] (docs/math.md#repeated-projection): :func:`gradient_projection` with
    ``projection="repeated"``.

    Parameters
    ----------
    oracle : ProjectionOracle
        A fitted projection oracle.
    y : array_like, shape (N,)
        The targets.
    loss : str or FunctionalLoss, default "squared"
        As for :func:`gradient_projection`.
    **kwargs
        The other keywords of :func:`gradient_projection` but ``projection``.

    Returns
    -------
    GradientBoostResult
    """
    return gradient_projection(oracle, y, loss, projection="repeated", **kwargs)


def residual_gradient_projection(oracle: ProjectionOracle, y: ArrayLike, loss: object = "squared", **kwargs):
    """Alg. 3 of [GB] (docs/math.md#residual-projection): :func:`gradient_projection` with
    ``projection="residual"``.

    Parameters
    ----------
    oracle : ProjectionOracle
        A fitted projection oracle.
    y : array_like, shape (N,)
        The targets.
    loss : str or FunctionalLoss, default "squared"
        As for :func:`gradient_projection`.
    **kwargs
        The other keywords of :func:`gradient_projection` but ``projection``.

    Returns
    -------
    GradientBoostResult
    """
    return gradient_projection(oracle, y, loss, projection="residual", **kwargs)
