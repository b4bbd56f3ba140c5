"""The result every driver returns: the hypotheses, their weights, the history and the timing."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost.boosting.core.history import History
from dualboost.conjugates.projections import capped_simplex_support
from dualboost.oracles import Hypothesis

__all__ = ["BoostResult", "combined_decision", "TIE_TOL"]

#: |f_w(x)| at or below this is a tie, reported as exactly 0 (:func:`combined_decision`)
TIE_TOL = 1e-9


def combined_decision(
    weights: NDArray[np.float64], hypotheses: list[Hypothesis], X: ArrayLike
) -> NDArray[np.float64]:
    """``f_w(X) = sum_q w_q h^q(X)`` over the hypotheses with w > 0 (0 for an empty output), with
    every value of magnitude ``<= TIE_TOL`` set to exactly 0.

    At a degenerate optimum the weights cancel: two complementary stumps with weight 1/2 each give
    ``f ~ 1e-12`` of either sign, set by rounding and by the solver's own tolerances (1e-10 for
    HiGHS). Such values carry no information, so they are ties; a classifier predicts its
    ``classes_[0]`` on a tie (the scikit-learn convention ``f > 0`` for ``classes_[1]``), the same
    on every machine. 1e-9 is above the rounding of a sum of thousands of terms of magnitude <= 1
    and below any margin a booster certifies (eps >= 1e-6 in practice).
    """
    out = np.zeros(_n_rows(X))
    for weight, hypothesis in zip(weights, hypotheses, strict=True):
        if weight > 0:
            out += weight * hypothesis.predict(X)
    out[np.abs(out) <= TIE_TOL] = 0.0
    return out


@dataclass
class BoostResult:
    """The output of a boosting run: ``f_w(x) = sum_q w_q h^q(x)`` ([KG] Def 2.2).

    ``hypotheses``: the T hypotheses of the output (the last oracle answer of ERLPBoost-type runs
    is discarded, [KG] Alg. 3.2 step 3(c)); ``weights``: w in the simplex over them (AdaBoost's
    and SoftBoost's weights normalised); ``columns``: their columns of U on the training set
    (N x T; ``int8`` when every entry is -1, 0 or +1, e.g. for stumps, else float64); ``d``: the
    last distribution over the examples; ``history``: one row per iteration;
    ``n_iter``: iterations run (oracle calls); ``converged``: whether the stopping rule fired
    (rather than ``max_iter``); ``stop_reason``: why the run ended; ``oracle_time``,
    ``solver_time``, ``total_time``: seconds; ``params``: the parameters used (nu in [1, N], eps,
    eta, ...); ``iterates``: with ``keep_iterates=True`` (totally corrective drivers), the pairs
    ``(d^t, w^t)`` for t = 0, 1, ..., w^t over the first columns of ``columns`` (``(d^0, [])`` first).
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

    @property
    def n_hypotheses(self) -> int:
        """T, the number of hypotheses in the output."""
        return len(self.hypotheses)

    @property
    def n_nonzero(self) -> int:
        """Hypotheses with w > 0."""
        return int(np.count_nonzero(self.weights > 0))

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
