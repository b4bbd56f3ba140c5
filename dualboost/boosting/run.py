"""The bookkeeping every driver shares: the hypotheses found so far and the clock of a run.

* :class:`Ensemble`: the distinct hypotheses returned by the oracle, in order, and their columns of
  U (a growing column-major buffer, so that appending a column costs O(N) amortised and ``U`` is a
  view). A re-selected hypothesis is recognised (hypotheses compare equal exactly when they are the
  same member of their class, :mod:`dualboost.oracles.base`) and gets no second column.
* :class:`Run`: asks the oracle and times it, times the solver, appends history rows, calls the
  progress callback and assembles the :class:`~dualboost.boosting.result.BoostResult`.
* :func:`check_oracle`, :func:`check_positive`: the argument checks of the drivers;
  :func:`warn_unconverged`: the warning when ``max_iter`` ends a run.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from contextlib import contextmanager

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from dualboost._validation import check_scalar
from dualboost.boosting.history import History, HistoryRow
from dualboost.boosting.result import BoostResult
from dualboost.oracles import Selection

__all__ = ["Ensemble", "Run", "check_oracle", "check_positive", "warn_unconverged", "Callback"]

#: matrix-vector products with fewer columns than this avoid BLAS (see ``Ensemble.edges``)
_BLAS_MIN_COLUMNS = 64
#: called with each history row as it is recorded (progress display)
Callback = Callable[[HistoryRow], None]


def check_oracle(oracle: object) -> int:
    """A fitted oracle (``best(d)`` and ``n_samples_``); returns N."""
    if not callable(getattr(oracle, "best", None)):
        raise ValueError(f"oracle must be a dualboost oracle with a best(d) method; got {oracle!r}")
    n = getattr(oracle, "n_samples_", None)
    if n is None:
        raise ValueError(f"oracle must be fitted (call oracle.fit(X, y) first); got {oracle!r}")
    return int(n)


def check_positive(value: object, name: str) -> float:
    """A real number > 0 (the precision eps, a tolerance), named ``name`` in the error."""
    value = check_scalar(value, name)
    if value <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}")
    return value


def warn_unconverged(algorithm: str, max_iter: int) -> None:
    """A scikit-learn ``ConvergenceWarning``: the run ended at ``max_iter``, not by its stopping rule."""
    warnings.warn(
        f"{algorithm} stopped at max_iter={max_iter} before its stopping rule was met",
        ConvergenceWarning,
        stacklevel=3,
    )


class Ensemble:
    """The distinct hypotheses selected so far and their columns ``U`` (N x k)."""

    def __init__(self, n_samples: int) -> None:
        self._buffer = np.empty((n_samples, 16), order="F")
        self.selections: list[Selection] = []
        self._position: dict[Selection, int] = {}

    def add(self, selection: Selection) -> tuple[int, bool]:
        """``(position, is_new)``: the hypothesis's column index, appending it if it is new."""
        position = self._position.get(selection)
        if position is not None:
            return position, False
        k = len(self.selections)
        if k == self._buffer.shape[1]:
            grown = np.empty((self._buffer.shape[0], 2 * k), order="F")
            grown[:, :k] = self._buffer
            self._buffer = grown
        self._buffer[:, k] = selection.column
        self.selections.append(selection)
        self._position[selection] = k
        return k, True

    def __len__(self) -> int:
        return len(self.selections)

    def edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """The edges ``U^T d`` of the hypotheses so far.

        Few columns go through ``einsum`` rather than BLAS: waking OpenBLAS's threads for a
        matrix-vector product with a handful of columns costs milliseconds (measured 3 ms for one
        column of a9a's 29,305 rows against 0.02 ms), more than the product itself.
        """
        U = self.U
        return np.einsum("nk,n->k", U, d) if U.shape[1] < _BLAS_MIN_COLUMNS else U.T @ d

    @property
    def U(self) -> NDArray[np.float64]:
        """The columns so far (a view of the buffer)."""
        return self._buffer[:, : len(self.selections)]


class Run:
    """Clock, history and result assembly of one driver run."""

    def __init__(
        self, oracle, history: History, callback: Callback | None = None, keep_iterates: bool = False
    ) -> None:
        self.oracle = oracle
        self.history = history
        self.callback = callback
        self.iterates: list | None = [] if keep_iterates else None
        self.start = time.perf_counter()
        self.oracle_time = 0.0
        self.solver_time = 0.0
        self._iteration_oracle = 0.0
        self._iteration_solve = 0.0

    def ask(self, d: NDArray[np.float64]) -> Selection:
        """The oracle's maximum-edge hypothesis for d, timed."""
        start = time.perf_counter()
        selection = self.oracle.best(d)
        self._iteration_oracle = time.perf_counter() - start
        self.oracle_time += self._iteration_oracle
        return selection

    @contextmanager
    def solving(self):
        """Time a block as solver work of the current iteration."""
        start = time.perf_counter()
        try:
            yield
        finally:
            elapsed = time.perf_counter() - start
            self._iteration_solve += elapsed
            self.solver_time += elapsed

    def keep(self, d: NDArray[np.float64], w: NDArray[np.float64]) -> None:
        """Store the iterate ``(d^t, w^t)`` when the run keeps iterates."""
        if self.iterates is not None:
            self.iterates.append((np.array(d, dtype=np.float64), np.array(w, dtype=np.float64)))

    def record(
        self,
        iteration: int,
        edge: float,
        *,
        primal: float = np.nan,
        dual: float = np.nan,
        stopping: float = np.nan,
        n_hypotheses: int = 0,
    ) -> HistoryRow:
        """Append the iteration's row (the gap is ``primal - dual``) and call the callback."""
        row = HistoryRow(
            iteration=int(iteration),
            edge=float(edge),
            primal=float(primal),
            dual=float(dual),
            gap=float(primal - dual),
            stopping=float(stopping),
            oracle_time=self._iteration_oracle,
            solve_time=self._iteration_solve,
            time=time.perf_counter() - self.start,
            n_hypotheses=int(n_hypotheses),
        )
        self._iteration_oracle = self._iteration_solve = 0.0
        self.history.append(row)
        if self.callback is not None:
            self.callback(row)
        return row

    def result(
        self,
        algorithm: str,
        selections: list[Selection],
        weights: NDArray[np.float64],
        d: NDArray[np.float64],
        *,
        converged: bool,
        stop_reason: str,
        params: dict,
    ) -> BoostResult:
        """The run's :class:`BoostResult` for the output hypotheses ``selections`` and ``weights``."""
        weights = np.asarray(weights, dtype=np.float64)
        if len(selections) != weights.size:
            raise RuntimeError(f"{len(selections)} hypotheses but {weights.size} weights")  # pragma: no cover
        n = np.asarray(d).size
        columns = np.column_stack([s.column for s in selections]) if selections else np.zeros((n, 0))
        return BoostResult(
            algorithm=algorithm,
            hypotheses=[s.hypothesis for s in selections],
            weights=weights,
            columns=columns,
            d=np.asarray(d, dtype=np.float64),
            history=self.history,
            n_iter=len(self.history),
            converged=converged,
            stop_reason=stop_reason,
            oracle_time=self.oracle_time,
            solver_time=self.solver_time,
            total_time=time.perf_counter() - self.start,
            params=params,
            iterates=self.iterates,
        )
