"""The result every driver returns: the hypotheses, their weights, the history and the timing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost.boosting.core.history import History
from dualboost.conjugates.projections import capped_simplex_support
from dualboost.oracles import Hypothesis

__all__ = [
    "BoostResult",
    "Stages",
    "StageRecorder",
    "combined_decision",
    "staged_decisions",
    "TIE_TOL",
    "STOP_REASONS",
    "check_stop_reason",
    "n_positive",
]


def n_positive(w: ArrayLike | None) -> int:
    """The number of hypotheses with weight > 0 in ``w`` (0 for None: no solution yet): a result's
    :attr:`BoostResult.n_nonzero` and the ``n_hypotheses`` of a history row.

    Parameters
    ----------
    w : array-like or None
        The hypothesis weights.

    Returns
    -------
    int
        The count of positive weights.
    """
    return 0 if w is None else int(np.count_nonzero(np.asarray(w) > 0))


#: |f_w(x)| at or below this is a tie, reported as exactly 0 (:func:`combined_decision`)
TIE_TOL = 1e-9

#: why a run ended: the fixed vocabulary of :attr:`BoostResult.stop_reason` (and of the estimators'
#: ``stop_reason_``), each with what it means; the run's own words are in ``stop_detail``. Every run
#: that ends with ``converged`` False warns (a scikit-learn ``ConvergenceWarning`` naming the reason,
#: :func:`~dualboost.boosting.core.run.warn_unconverged`) except one of ``"rounds"``, an algorithm
#: without a stopping rule that ran the rounds it was asked for.
STOP_REASONS: dict[str, str] = {
    "converged": "the algorithm's stopping rule was met (its certified bound holds)",
    "infeasible": "SoftBoost's problem (Eq. 3.1) became infeasible: its stopping rule was met",
    "rounds": "an algorithm without a stopping rule ran the number of rounds it was asked for",
    "no_edge": "no hypothesis has a positive edge: the oracle cannot improve the model",
    "max_iter": "the iteration cap max_iter ended the run before its stopping rule was met",
    "time limit": "the time limit max_time ended the run (at an iteration boundary) before its stopping rule",
    "precision_floor": "the subproblem solver cannot reach the precision the stopping rule needs",
    "reselected": "the oracle re-selected a hypothesis of the model and the run cannot progress",
}


def check_stop_reason(reason: str) -> str:
    """``reason`` if it is a word of :data:`STOP_REASONS`, else a ValueError listing them (a driver's
    bug: every driver reports one of these).

    Parameters
    ----------
    reason : str
        A driver's stop reason.

    Returns
    -------
    str
        ``reason``, checked.
    """
    if reason not in STOP_REASONS:
        raise ValueError(f"stop_reason must be one of {sorted(STOP_REASONS)}; got {reason!r}")
    return reason


def combined_decision(
    weights: NDArray[np.float64], hypotheses: list[Hypothesis], X: ArrayLike
) -> NDArray[np.float64]:
    """``f_w(X) = sum_q w_q h^q(X)`` over the hypotheses with w > 0 (0 for an empty output), with
    every value of magnitude ``<= TIE_TOL`` set to exactly 0.

    At a degenerate optimum the weights cancel: two complementary stumps with weight 1/2 each give
    ``f ~ 1e-12`` of either sign, set by rounding and by the solver's own tolerances (1e-10 for
    HiGHS). Such values carry no information, so they are ties; a classifier predicts the majority
    class of its training data on a tie (:mod:`dualboost.estimators.ties`), the same on every
    machine. 1e-9 is above the rounding of a sum of thousands of terms of magnitude <= 1
    and below any margin a booster certifies (eps >= 1e-6 in practice).

    Parameters
    ----------
    weights : ndarray of shape (Q,)
        The hypothesis weights.
    hypotheses : list of Hypothesis
        The Q hypotheses.
    X : array-like
        The N x p features.

    Returns
    -------
    ndarray of shape (N,)
        The decision values.
    """
    out = np.zeros(_n_rows(X))
    for weight, hypothesis in zip(weights, hypotheses, strict=True):
        if weight > 0:
            out += weight * hypothesis.predict(X)
    return _ties_to_zero(out)


def _ties_to_zero(f: NDArray[np.float64]) -> NDArray[np.float64]:
    """``f`` with every value of magnitude ``<= TIE_TOL`` set to exactly 0 (in place)."""
    f[np.abs(f) <= TIE_TOL] = 0.0
    return f


@dataclass(frozen=True)
class Stages:
    """The output weights ``w^1, ..., w^S`` of every stage of a run, stored as updates:
    ``w^s = scale_s w^{s-1} + sum_j values_j e_{indices_j}`` over the entries ``indptr[s-1]:indptr[s]``
    (``w^0 = 0``). Each w^s is in the simplex over the hypotheses (normalised as the output is).

    A totally corrective stage is a fresh solution: scale 0 and the nonzero entries of w^s (a row of
    a CSR matrix, 12 bytes per nonzero, not a dense vector per iteration); a corrective or MABoost
    stage moves the weight by one hypothesis: scale ``1 - alpha`` and one entry. :attr:`nbytes`
    reports the memory held.
    """

    scale: NDArray[np.float64]
    indptr: NDArray[np.int64]
    indices: NDArray[np.int32]
    values: NDArray[np.float64]

    def __len__(self) -> int:
        return int(self.scale.size)

    @property
    def nbytes(self) -> int:
        """Bytes held by the four arrays."""
        return int(self.scale.nbytes + self.indptr.nbytes + self.indices.nbytes + self.values.nbytes)

    def weights(self, stage: int, size: int) -> NDArray[np.float64]:
        """The dense w^stage (1-based) over the first ``size`` hypotheses."""
        if not 1 <= stage <= len(self):
            raise ValueError(f"stage must lie in [1, {len(self)}]; got {stage!r}")
        w = np.zeros(size)
        for s in range(stage):
            w *= self.scale[s]
            lo, hi = self.indptr[s], self.indptr[s + 1]
            np.add.at(w, self.indices[lo:hi], self.values[lo:hi])
        return w


class StageRecorder:
    """Builds :class:`Stages` during a run (:class:`~dualboost.boosting.core.run.Run` holds one when
    asked to keep stages): :meth:`full` for a fresh w^t, :meth:`step` for ``(1 - alpha) w + alpha e_q``."""

    def __init__(self) -> None:
        self._scale: list[float] = []
        self._indptr: list[int] = [0]
        self._indices: list[NDArray[np.int32]] = []
        self._values: list[NDArray[np.float64]] = []
        self._last: NDArray[np.float64] = np.zeros(0)

    def full(self, w: NDArray[np.float64]) -> None:
        """A stage whose weights are w (normalised to sum 1); no stage is added for an empty or zero
        w (before the first hypothesis)."""
        w = np.asarray(w, dtype=np.float64)
        total = float(w.sum())
        if w.size == 0 or total <= 0:
            return
        w = w / total if total != 1.0 else w
        nonzero = w.nonzero()[0]
        self._append(0.0, nonzero, w[nonzero])
        self._last = w

    def step(self, alpha: float, position: int, size: int) -> None:
        """A corrective stage ``w <- (1 - alpha) w + alpha e_position`` over ``size`` hypotheses."""
        self._append(1.0 - alpha, np.array([position]), np.array([alpha]))
        last = np.zeros(size)
        last[: self._last.size] = self._last
        last *= 1.0 - alpha
        last[position] += alpha
        self._last = last

    def _append(self, scale: float, indices: NDArray, values: NDArray) -> None:
        self._scale.append(float(scale))
        self._indices.append(np.asarray(indices, dtype=np.int32))
        self._values.append(np.asarray(values, dtype=np.float64))
        self._indptr.append(self._indptr[-1] + len(indices))

    def finish(self, weights: NDArray[np.float64]) -> Stages:
        """The stages, with the output ``weights`` as the last one (appended when the driver's
        output is not the last recorded stage, e.g. SoftBoost's final LP)."""
        w = np.asarray(weights, dtype=np.float64)
        total = float(w.sum())
        if w.size and total > 0:
            last = np.zeros(max(w.size, self._last.size))
            last[: self._last.size] = self._last
            if last.size != w.size or np.max(np.abs(last - w / total)) > 1e-12:
                self.full(w)
        return Stages(
            scale=np.asarray(self._scale, dtype=np.float64),
            indptr=np.asarray(self._indptr, dtype=np.int64),
            indices=np.concatenate(self._indices) if self._indices else np.zeros(0, dtype=np.int32),
            values=np.concatenate(self._values) if self._values else np.zeros(0),
        )


def staged_decisions(
    stages: Stages, hypotheses: list[Hypothesis], X: ArrayLike, n_outputs: int | None = None
) -> Iterator[NDArray[np.float64]]:
    """``f_{w^s}(X)`` for s = 1, ..., S (ties exactly 0, as :func:`combined_decision`): each stage
    updates the previous decision by its scale and entries; every hypothesis is evaluated on X once,
    when a stage first uses it. ``n_outputs``: hypotheses whose ``predict`` gives N x n_outputs
    values (the class indicators of a K-class vote), None for one value per row.

    Parameters
    ----------
    stages : Stages
        The stored weights of the stages.
    hypotheses : list of Hypothesis
        The hypotheses they weigh.
    X : array-like
        The N x p features.
    n_outputs : int, optional
        The outputs of each hypothesis (None: one per row).

    Yields
    ------
    ndarray
        The decision values of each stage (N, or N x n_outputs).
    """
    f = np.zeros(_n_rows(X) if n_outputs is None else (_n_rows(X), n_outputs))
    cache: dict[int, NDArray[np.float64]] = {}
    for s in range(len(stages)):
        f = stages.scale[s] * f if stages.scale[s] != 0.0 else np.zeros_like(f)
        lo, hi = stages.indptr[s], stages.indptr[s + 1]
        for q, weight in zip(stages.indices[lo:hi].tolist(), stages.values[lo:hi].tolist(), strict=True):
            if q not in cache:
                cache[q] = np.asarray(hypotheses[q].predict(X), dtype=np.float64)
            if weight > 0:
                f = f + weight * cache[q]
        yield _ties_to_zero(f.copy())


@dataclass
class BoostResult:
    """The output of a boosting run: ``f_w(x) = sum_q w_q h^q(x)`` ([KG] Def 2.2).

    Attributes
    ----------
    algorithm : str
        The driver's name.
    hypotheses : list of Hypothesis
        The T hypotheses of the output (the last oracle answer of ERLPBoost-type runs is discarded,
        [KG] Alg. 3.2 step 3(c)).
    weights : ndarray, shape (T,)
        w in the simplex over them (AdaBoost's and SoftBoost's weights normalised).
    columns : ndarray, shape (N, T)
        Their columns of U on the training set (``int8`` when every entry is -1, 0 or +1, e.g. for
        stumps, else float64).
    d : ndarray, shape (N,)
        The last distribution over the examples.
    history : History
        One row per iteration.
    n_iter : int
        Iterations run (oracle calls).
    converged : bool
        Whether the stopping rule fired (rather than ``max_iter``).
    stop_reason : str
        Why the run ended, a word of :data:`STOP_REASONS`.
    oracle_time, solver_time, total_time : float
        Seconds.
    params : dict
        The parameters used (nu in [1, N], eps, eta, ...).
    iterates : list of (ndarray, ndarray) or None
        With ``keep_iterates=True`` (totally corrective drivers), the pairs ``(d^t, w^t)`` for
        t = 0, 1, ..., w^t over the first columns of ``columns`` (``(d^0, [])`` first).
    stages : Stages or None
        With ``keep_stages=True``, the output weights after every iteration (the last stage is
        ``weights``).
    stop_detail : str
        ``stop_reason`` in the run's own words, e.g. which rule fired.
    """

    algorithm: str
    hypotheses: list[Hypothesis]
    weights: NDArray[np.float64]
    columns: NDArray[np.float64] | NDArray[np.int8]
    d: NDArray[np.float64]
    history: History
    n_iter: int
    converged: bool
    stop_reason: str
    oracle_time: float
    solver_time: float
    total_time: float
    params: dict = field(default_factory=dict)
    iterates: list[tuple[NDArray[np.float64], NDArray[np.float64]]] | None = None
    stages: Stages | None = None
    stop_detail: str = ""

    def __post_init__(self) -> None:
        check_stop_reason(self.stop_reason)

    @property
    def n_hypotheses(self) -> int:
        """T, the number of hypotheses in the output."""
        return len(self.hypotheses)

    @property
    def n_nonzero(self) -> int:
        """Hypotheses with w > 0."""
        return n_positive(self.weights)

    @property
    def margins(self) -> NDArray[np.float64]:
        """The training margins ``y_n f_w(x_n) = (U w)_n`` (``int8`` columns without a float64 copy)."""
        if self.columns.dtype != np.float64:
            return np.einsum("nk,k->n", self.columns, self.weights)
        return self.columns @ self.weights

    @property
    def soft_margin(self) -> float:
        """The soft margin of the output ([KG] Eq. 2.2 at w): the mean of the ``nu`` smallest training
        margins ``AvgMin_nu(U w) = -max_{d capped} <d, -U w>`` (real nu: the support function of the
        capped simplex, :func:`~dualboost.conjugates.projections.capped_simplex_support`), with
        ``nu = params["nu"]`` (1, the hard margin ``min_n (U w)_n``, for a run without one); 0 for
        an empty output."""
        return -capped_simplex_support(-self.margins, float(self.params.get("nu", 1.0)))

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f_w(X) = sum_q w_q h^q(X)`` (:func:`combined_decision`: ties exactly 0)."""
        return combined_decision(self.weights, self.hypotheses, X)

    def __repr__(self) -> str:
        return (
            f"BoostResult({self.algorithm}: {self.n_iter} iterations, {self.n_hypotheses} hypotheses "
            f"({self.n_nonzero} with w > 0), {self.stop_reason}, {self.total_time:.3g} s)"
        )


def _n_rows(X: ArrayLike) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None else len(X)
