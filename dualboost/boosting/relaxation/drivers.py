"""Boosters for a prototyped relaxation: [SS] Fig. 1 (corrective) and its totally corrective variant (Eq. 13).

Both maximise the entropy-smoothed dual of [SS] Eq. 8 (model M7 of docs/math.md#model-catalogue) of a
:class:`~dualboost.problems.Relaxation` with regulariser f:

    D(w) = -F*(-A w),   P(d) = ||d^T A||_inf + F(d),   F = f + I_S + beta h,   beta = eps / (2 log N),

``h(d) = sum d log d + log N``. F is derived by the conjugate calculus
(:meth:`Relaxation.smoothed`); for the soft margin (f an l_inf ball) it is the capped softmax, whose
gradient is the O(N log N) entropic projection of [SS] Fig. 2
(:func:`dualboost.conjugates.entropic_project_capped_simplex`).

Round t (docs/math.md#ss-booster): ``d_t = grad F*(-A w_t)`` (Lemma 18); the oracle returns a column
``u`` (the max-|edge| column of A by default; the sign is flipped in the l1-ball form so that the edge
is >= 0, [DERIVED] in docs/math.md#ss-booster); the Lemma 11 gap ``<d_t, u - A w_t> = P(d_t) - D(w_t)``
stops the run when ``<= eps``; otherwise

* corrective (Fig. 1): ``w_{t+1} = (1 - a) w_t + a e^j`` with ``a = clip(beta <d_t, u - A w_t> /
  ||u - A w_t||_inf^2, 0, 1)``;
* totally corrective (Eq. 13): ``w_{t+1} = argmax D`` over the weights supported on the columns
  seen so far, solved and certified through the solver layer (:func:`dualboost.solvers.solve`):
  by ``method="auglag"`` warm-started from the previous round where the smoothed dual is smooth
  (always, for f + beta h of the library's form: docs/math.md#exact-restriction), else by cvxpy.

Thm 9: at most ``32 log(N) / eps^2`` rounds, and the returned w is eps-accurate for the unsmoothed
dual ``max_gamma gamma - f*([gamma - A w]_+)``. An oracle is any callable ``d -> column index``
(into the model's columns ``U``) or ``d -> column vector`` (a hypothesis outside A).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import SimpleNamespace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import check_scalar
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import NO_CHECKPOINT, RunOptions, takes_run_options
from dualboost.boosting.core.result import check_stop_reason
from dualboost.boosting.core.run import Run, warn_unconverged
from dualboost.problems.relaxation import Relaxation
from dualboost.solvers import Solution, accepts

__all__ = [
    "RelaxationBoostResult",
    "max_edge_oracle",
    "corrective_relaxation_boost",
    "totally_corrective_relaxation_boost",
    "theorem9_iterations",
]

#: the run options these boosters do not take (they write no checkpoints and keep no stages)
_NOT_TAKEN = (*NO_CHECKPOINT, "keep_stages")
#: the stopping rule, as the history's threshold description ([SS] Lemma 11)
_RULE = "gap <d_t, u - A w_t> <= eps"
#: ``d -> index into the model's columns`` or ``d -> column vector in [-1, 1]^N``
Oracle = Callable[[NDArray[np.float64]], "int | ArrayLike"]


@dataclass
class RelaxationBoostResult:
    """The run of a relaxation booster ([SS] Fig. 1 or Eq. 13).

    Attributes
    ----------
    w : ndarray or None
        The weights over the model's columns (``None`` when the oracle returned vectors; in the
        simplex form padded onto the simplex by equal weights on a column and its negation, which
        does not change ``A w``).
    history : list of dict
        One dict per round: ``iteration``, ``column``, ``sign``, ``edge``, ``gap``, ``primal`` =
        P(d_t), ``dual`` = D(w_t), ``step``, ``n_hypotheses``, and ``d``, ``w`` when asked.
    iterations : int
        Rounds run.
    converged : bool
        gap <= eps.
    eps, beta : float
        The precision and the smoothing of the run.
    columns, weights : ndarray
        The hypotheses used and their weights (signed in the l1-ball form).
    keys : list of int or None
        The index of each column in the model's U (None for a column the oracle returned as a vector).
    stop_reason : str
        ``"converged"``, ``"max_iter"`` or ``"time limit"``
        (:data:`~dualboost.boosting.core.result.STOP_REASONS`).
    rows : History
        The same rounds as every driver's history (:class:`~dualboost.boosting.core.history.History`
        of :class:`~dualboost.boosting.core.history.HistoryRow`: edge, primal, dual, their gap, the
        Lemma 11 gap as the stopping quantity, the times), the rows the ``callback`` sees, for plots
        and CSV files.
    oracle_time, solver_time, total_time : float
        Seconds, as a :class:`~dualboost.boosting.core.result.BoostResult`'s.
    """

    w: NDArray[np.float64] | None
    history: list[dict]
    iterations: int
    converged: bool
    eps: float
    beta: float
    columns: NDArray[np.float64]
    weights: NDArray[np.float64]
    keys: list[int | None] = field(default_factory=list)
    stop_reason: str = "converged"
    rows: History = field(default_factory=History)
    oracle_time: float = 0.0
    solver_time: float = 0.0
    total_time: float = 0.0

    def __post_init__(self) -> None:
        check_stop_reason(self.stop_reason)

    @property
    def margins(self) -> NDArray[np.float64]:
        """``A w``: the margin of every example under the returned combination."""
        return self.columns @ self.weights


def theorem9_iterations(n_samples: int, eps: float) -> int:
    """[SS] Thm 9's bound on the number of rounds: ``32 log(N) / eps^2``.

    Parameters
    ----------
    n_samples : int
        N.
    eps : float
        The precision.

    Returns
    -------
    int
        The bound, rounded up.
    """
    return math.ceil(32.0 * math.log(n_samples) / eps**2)


def max_edge_oracle(model: Relaxation) -> Oracle:
    """The strongest oracle over the model's columns: ``argmax_j |(d^T A)_j|`` in the l1-ball form,
    ``argmax_q (d^T U)_q`` in the simplex and edge forms (first index on ties).

    Parameters
    ----------
    model : Relaxation
        The relaxation whose columns the oracle searches.

    Returns
    -------
    callable
        A function of d returning the index of the chosen column.
    """

    def oracle(d: NDArray[np.float64]) -> int:
        edges = model.U.T @ d
        return int(np.argmax(np.abs(edges) if model.signed else edges))

    return oracle


class _Ensemble:
    """The hypotheses seen so far (columns as the oracle gave them), their weights and margins."""

    def __init__(self, model: Relaxation) -> None:
        self.model = model
        self.columns: list[NDArray[np.float64]] = []
        self.keys: list[int | None] = []
        self.weights = np.zeros(0)
        self.margins = np.zeros(model.n_samples)

    def ask(self, oracle: Oracle, d: NDArray[np.float64]) -> tuple[int | None, NDArray[np.float64]]:
        """Call the oracle and return ``(index into U or None, column)``."""
        answer = oracle(d)
        if np.ndim(answer) == 0 and float(answer) == int(answer):
            key = int(answer)
            if not 0 <= key < self.model.n_hypotheses:
                raise ValueError(f"oracle returned column {key}; the model has {self.model.n_hypotheses}")
            return key, self.model.U[:, key]
        column = np.asarray(answer, dtype=np.float64)
        if column.shape != (self.model.n_samples,) or not np.all(np.abs(column) <= 1.0 + 1e-12):
            raise ValueError(
                f"oracle must return a column index or a vector in [-1, 1]^{self.model.n_samples}; "
                f"got shape {column.shape}"
            )
        return None, column

    def position(self, key: int | None, column: NDArray[np.float64]) -> int:
        """The position of the hypothesis (appended if new)."""
        for i, (k, c) in enumerate(zip(self.keys, self.columns, strict=True)):
            if (key is not None and k == key) or (key is None and k is None and np.array_equal(c, column)):
                return i
        self.keys.append(key)
        self.columns.append(column)
        self.weights = np.r_[self.weights, 0.0]
        return len(self.keys) - 1

    def matrix(self) -> NDArray[np.float64]:
        return np.column_stack(self.columns) if self.columns else np.zeros((self.model.n_samples, 0))

    def model_weights(self) -> NDArray[np.float64] | None:
        """The weights over the model's columns U (``None`` if a hypothesis came as a vector)."""
        if any(k is None for k in self.keys):
            return None
        w = np.zeros(self.model.n_hypotheses)
        np.add.at(w, np.asarray(self.keys, dtype=np.intp), self.weights)
        if self.model.form == "simplex" and w.sum() < 1.0:  # U = [A, -A]: pad with e_0 + e_n
            half = 0.5 * (1.0 - w.sum())
            w[0] += half
            w[self.model.A.shape[1]] += half
        return w


def _check_run(
    model: Relaxation, eps: float, beta: float | None, max_iter: int | None
) -> tuple[float, float, int]:
    if not isinstance(model, Relaxation):
        raise ValueError(f"model must be a Relaxation; got {type(model).__name__}")
    eps = check_scalar(eps, "eps")
    if eps <= 0:
        raise ValueError(f"eps must be > 0; got {eps!r}")
    if model.n_samples < 2:
        raise ValueError("the boosters need N >= 2 examples (beta = eps / (2 log N))")
    beta = eps / (2.0 * math.log(model.n_samples)) if beta is None else check_scalar(beta, "beta")
    if beta <= 0:
        raise ValueError(f"beta must be > 0; got {beta!r}")
    if max_iter is None:
        max_iter = theorem9_iterations(model.n_samples, eps) + 1
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer; got {max_iter!r}")
    return eps, beta, int(max_iter)


#: the iterations a warm-started restricted solve may take before it is repeated from scratch
#: (diabetes, stumps, eps = 0.01, ball + entropy: warm solves take 5-50; one stalled at a relative
#: gap of 1.2e-8 > 1e-8 after 3,198 iterations and 3.6 s, where a cold one took 884 and 0.5 s)
WARM_MAX_ITER = 200

Update = Callable[[_Ensemble, int, float, float], tuple[float | None, str]]


def _boost(
    model: Relaxation,
    eps: float,
    make_update: Callable[[Relaxation, float], Update],
    *,
    oracle: Oracle | None,
    beta: float | None,
    max_iter: int | None,
    options: RunOptions,
) -> RelaxationBoostResult:
    """The loop of [SS] Fig. 1 shared by both variants; ``make_update(smoothed model, beta)`` gives
    the weight update ``(ensemble, position, sign, gap) -> (step, status)``."""
    eps, beta, max_iter = _check_run(model, eps, beta, max_iter)
    oracle = max_edge_oracle(model) if oracle is None else oracle
    smoothed = model.smoothed(beta)  # Eq. 8: f + beta h, and F = f + I_S + beta h by the calculus
    F = smoothed.regularizer
    update = make_update(smoothed, beta)
    ensemble = _Ensemble(model)
    history: list[dict] = []
    run = Run(SimpleNamespace(best=lambda d: ensemble.ask(oracle, d)), History(_RULE, eps), options)
    converged, reason = False, "max_iter"
    for t in range(1, max_iter + 1):
        with run.solving():
            value, d = F.conjugate_and_grad(-ensemble.margins)  # d_t = grad F*(-A w_t), Lemma 18
        dual = -value  # D(w_t)
        key, column = run.ask(d)
        raw_edge = float(d @ column)
        sign = -1.0 if (model.signed and raw_edge < 0) else 1.0
        edge = sign * raw_edge
        gap = edge - float(d @ ensemble.margins)  # <d_t, A(e^j - w_t)>, Lemma 11
        row = {
            "iteration": t,
            "column": key,
            "sign": int(sign),
            "edge": edge,
            "gap": gap,
            "primal": edge + F.value(d),
            "dual": dual,
            "step": None,
            "status": None,
            "n_hypotheses": int(np.count_nonzero(ensemble.weights)),
        }
        if options.keep_iterates:
            row["d"], row["w"] = d, ensemble.model_weights()
        history.append(row)
        run.record(t, edge, primal=row["primal"], dual=dual, stopping=gap, n_hypotheses=row["n_hypotheses"])
        if gap <= eps:
            converged = True
            break
        position = ensemble.position(key, column)
        with run.solving():
            row["step"], row["status"] = update(ensemble, position, sign, gap)
        timed = run.out_of_time()
        if timed:
            reason = timed[0]
            break
    detail = f"max_iter={max_iter}" if reason == "max_iter" else f"max_time={options.max_time:g} s"
    if not converged:
        warn_unconverged("relaxation boosting", reason, detail)
    return _result(run, ensemble, history, "converged" if converged else reason, eps, beta)


def _result(
    run: Run, ensemble: _Ensemble, history: list[dict], stop_reason: str, eps: float, beta: float
) -> RelaxationBoostResult:
    """The result of a finished run of :func:`_boost`."""
    return RelaxationBoostResult(
        w=ensemble.model_weights(),
        history=history,
        iterations=len(history),
        converged=stop_reason == "converged",
        eps=eps,
        beta=beta,
        columns=ensemble.matrix(),
        weights=ensemble.weights.copy(),
        keys=list(ensemble.keys),
        stop_reason=stop_reason,
        rows=run.history,
        oracle_time=run.oracle_time,
        solver_time=run.solver_time,
        total_time=time.perf_counter() - run.start,
    )


@takes_run_options(without=_NOT_TAKEN)
def corrective_relaxation_boost(
    model: Relaxation,
    eps: float,
    *,
    oracle: Oracle | None = None,
    beta: float | None = None,
    max_iter: int | None = None,
    options: RunOptions,
) -> RelaxationBoostResult:
    """[SS] Fig. 1 on ``model``: ``w_1 = 0``, the closed-form step, the Lemma 11 stop at ``eps``.

    Parameters
    ----------
    model : Relaxation
        The relaxation (:class:`~dualboost.problems.Relaxation`).
    eps : float
        The precision of the Lemma 11 stop (gap <= eps).
    oracle : callable, optional
        A function of d returning a column index of the model's U or a column in [-1, 1]^N; None:
        the strongest over the model's columns (:func:`max_edge_oracle`).
    beta : float, optional
        The smoothing, default ``eps / (2 log N)`` ([SS] Eq. 8; pass ``1/eta`` to run [KG]'s
        Corrective ERLPBoost, docs/math.md#corrective-erlpboost).
    max_iter : int, optional
        Default Thm 9's bound plus one.
    options : RunOptions
        Here the callback sees the rows of ``result.rows`` and the iterates are kept in the dicts of
        ``result.history`` (a relaxation result has no ``iterates``).

    Returns
    -------
    RelaxationBoostResult
        The weights, the per-round history and the stop reason.
    """

    def make_update(smoothed: Relaxation, beta: float) -> Update:
        def step(ensemble: _Ensemble, position: int, sign: float, gap: float) -> tuple[float, str]:
            u = sign * ensemble.columns[position]
            x = u - ensemble.margins  # A(e^j - w_t)
            scale = float(np.abs(x).max()) ** 2
            a = 0.0 if scale == 0.0 else min(1.0, max(0.0, beta * gap / scale))
            ensemble.weights *= 1.0 - a
            ensemble.weights[position] += a * sign
            ensemble.margins = (1.0 - a) * ensemble.margins + a * u
            return a, "corrective"

        return step

    return _boost(model, eps, make_update, oracle=oracle, beta=beta, max_iter=max_iter, options=options)


def _signed_pairs(C: NDArray[np.float64]) -> NDArray[np.float64]:
    """``[c_1, -c_1, c_2, -c_2, ...]``: the simplex form of the l1-ball weights over C
    (docs/math.md#signed-weights), each new hypothesis appending its pair at the end."""
    pairs = np.empty((C.shape[0], 2 * C.shape[1]))
    pairs[:, 0::2], pairs[:, 1::2] = C, -C
    return pairs


def _auglag_restricted(
    smoothed: Relaxation, C: NDArray[np.float64], signed: bool, warm: Solution | None, tol: float
) -> tuple[Solution, NDArray[np.float64]] | None:
    """The restricted dual by ``method="auglag"`` warm-started from the previous round's solution, or
    None where auglag does not apply. The l1-ball form is solved as the edge form over
    :func:`_signed_pairs` (the same values, so its certificate is the l1-ball form's) and folded back,
    ``w = v_even - v_odd``. A new hypothesis appends one column (two in the l1-ball form: the first
    enters the warm start at weight 0, the second as auglag's new column); a warm-started solve that
    is not certified is repeated from scratch."""
    sub = smoothed.with_columns(_signed_pairs(C) if signed else C, form="edge")
    if accepts(sub, "auglag", "dual") is not None:
        return None
    t = sub.n_hypotheses
    if warm is not None and warm.w is not None and warm.w.size == t - 2:
        warm = replace(warm, w=np.r_[warm.w, 0.0])
    if warm is None or warm.w is None or warm.w.size not in (t - 1, t):
        warm = None
    options = {} if warm is None else {"max_iter": WARM_MAX_ITER}
    sol = sub.solve(method="auglag", side="dual", tol=tol, warm_start=warm, **options)
    if not sol.optimal and warm is not None:  # a warm start that stalled: from scratch
        sol = sub.solve(method="auglag", side="dual", tol=tol)
    if sol.w is None:
        return None
    return sol, (sol.w[0::2] - sol.w[1::2] if signed else sol.w)


@takes_run_options(without=_NOT_TAKEN)
def totally_corrective_relaxation_boost(
    model: Relaxation,
    eps: float,
    *,
    oracle: Oracle | None = None,
    beta: float | None = None,
    max_iter: int | None = None,
    methods: tuple[str, ...] = ("auglag", "clarabel", "ecos"),
    tol: float = 1e-8,
    options: RunOptions,
) -> RelaxationBoostResult:
    """[SS] Eq. 13 on ``model``: after each oracle call, ``w`` maximises the smoothed dual over the
    columns seen so far (the l1 ball in the abs form, the simplex otherwise). With ``"auglag"`` in
    ``methods`` (first, by default) and a smooth smoothed dual, by ``method="auglag"`` warm-started
    from the previous round (:func:`_auglag_restricted`; the l1-ball form through its simplex form);
    where that does not apply or is not certified ``optimal``, by
    ``Relaxation(columns, f + beta h, form).solve(method, side, tol)`` (:meth:`Relaxation.with_columns`:
    f~ is derived once per run): the dual side with each of the
    other ``methods`` in turn, then the primal side, until a certificate says ``optimal``
    (interior-point solvers occasionally fail on the exponential cones of a large ``1/beta``); the
    history's ``status`` is the certificate's status and the method/side used.

    Parameters
    ----------
    model : Relaxation
        The relaxation (:class:`~dualboost.problems.Relaxation`).
    eps : float
        The precision of the Lemma 11 stop (gap <= eps).
    oracle : callable, optional
        A function of d returning a column index of the model's U or a column in [-1, 1]^N; None:
        the strongest over the model's columns (:func:`max_edge_oracle`).
    beta : float, optional
        The smoothing, default ``eps / (2 log N)`` ([SS] Eq. 8; pass ``1/eta`` to run [KG]'s
        Corrective ERLPBoost, docs/math.md#corrective-erlpboost).
    max_iter : int, optional
        Default Thm 9's bound plus one.
    methods : tuple of str, default ("auglag", "clarabel", "ecos")
        The methods tried on each re-solve, in order.
    tol : float, default 1e-8
        The tolerance of each re-solve.
    options : RunOptions
        Here the callback sees the rows of ``result.rows`` and the iterates are kept in the dicts of
        ``result.history`` (a relaxation result has no ``iterates``).

    Returns
    -------
    RelaxationBoostResult
        The weights, the per-round history and the stop reason.
    """
    sub_form = "abs" if model.signed else "edge"
    conic = tuple(m for m in methods if m != "auglag")
    attempts = [(method, side) for side in ("dual", "primal") for method in conic]

    def make_update(smoothed: Relaxation, beta: float) -> Update:
        previous: list[Solution] = []  # the last auglag solution (the warm start)

        def resolve(ensemble: _Ensemble, position: int, sign: float, gap: float) -> tuple[None, str]:
            best = None
            if "auglag" in methods:
                fast = _auglag_restricted(
                    smoothed, ensemble.matrix(), model.signed, previous[-1] if previous else None, tol
                )
                if fast is not None:
                    previous[:] = [fast[0]]
                    best = (fast[0], fast[1], "auglag/dual")
            if best is None or not best[0].optimal:
                sub = smoothed.with_columns(ensemble.matrix(), form=sub_form)
                for method, side in attempts:
                    sol = sub.solve(method=method, side=side, tol=tol)
                    closer = best is None or abs(sol.relative_gap) < abs(best[0].relative_gap)
                    if sol.w is not None and closer:
                        best = (sol, sol.w, f"{method}/{side}")
                    if sol.optimal:
                        break
            if best is None:
                raise RuntimeError(f"no method in {methods} solved the restricted dual")
            sol, w, used = best
            ensemble.weights = np.asarray(w, dtype=np.float64).copy()
            ensemble.margins = ensemble.matrix() @ ensemble.weights
            return None, f"{sol.status} ({used})"

        return resolve

    return _boost(model, eps, make_update, oracle=oracle, beta=beta, max_iter=max_iter, options=options)
