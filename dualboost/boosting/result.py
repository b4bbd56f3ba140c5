"""The result every driver returns: the hypotheses, their weights, the history and the timing."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost.boosting.history import History
from dualboost.oracles import Hypothesis

__all__ = ["BoostResult"]


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

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f_w(X) = sum_q w_q h^q(X)`` (0 for an empty output); hypotheses with w = 0 are skipped."""
        out = None
        for weight, hypothesis in zip(self.weights, self.hypotheses, strict=True):
            if weight > 0:
                term = weight * hypothesis.predict(X)
                out = term if out is None else out + term
        if out is None:
            return np.zeros(_n_rows(X))
        return out

    def __repr__(self) -> str:
        return (
            f"BoostResult({self.algorithm}: {self.n_iter} iterations, {self.n_hypotheses} hypotheses "
            f"({self.n_nonzero} with w > 0), {self.stop_reason}, {self.total_time:.3g} s)"
        )


def _n_rows(X: ArrayLike) -> int:
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None else len(X)
