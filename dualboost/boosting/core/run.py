"""The bookkeeping every driver shares: the hypotheses found so far and the clock of a run.

* :class:`Ensemble`: the distinct hypotheses returned by the oracle, in order, and their columns of
  U (a growing column-major buffer, so that appending a column costs O(N) amortised; ``int8`` while
  every entry is -1, 0 or +1, with a float64 mirror once a driver asks for ``U``). A re-selected
  hypothesis is recognised (hypotheses compare equal exactly when they are the same member of
  their class, :mod:`dualboost.oracles.base`) and gets no second column.
* :class:`Run`: asks the oracle and times it, times the solver, appends history rows, calls the
  progress callback, writes and restores checkpoints (:mod:`dualboost.boosting.core.checkpoint`) and
  assembles the :class:`~dualboost.boosting.core.result.BoostResult`.
* :func:`check_oracle`: the drivers' check of the oracle (the other argument checks are in
  :mod:`dualboost._validation`);
  :func:`warn_unconverged`: the warning when a run ends before its stopping rule is met (max_iter,
  a precision floor, a re-selected hypothesis: :data:`~dualboost.boosting.core.result.STOP_REASONS`),
  which :meth:`Run.result` gives every such run; :func:`warn_weak_soft_margin`
  (:class:`SoftMarginWarning`): the warning when a soft-margin booster's output has a soft margin
  <= 0 or below eps, where its guarantee says nothing about the model.
"""

from __future__ import annotations

import time
import warnings
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from dualboost._validation import CheckedEdges, check_edge_column
from dualboost.boosting.core.history import History, HistoryRow
from dualboost.boosting.core.options import Callback, RunOptions
from dualboost.boosting.core.result import (
    STOP_REASONS,
    TIE_TOL,
    BoostResult,
    StageRecorder,
    check_stop_reason,
)
from dualboost.oracles import Hypothesis, Selection

if TYPE_CHECKING:
    from dualboost.boosting.core.checkpoint import Checkpoint

__all__ = [
    "Ensemble",
    "Run",
    "check_oracle",
    "warn_unconverged",
    "rule_or_cap",
    "warn_weak_soft_margin",
    "SoftMarginWarning",
    "Callback",
]

#: matrix-vector products with fewer columns than this avoid BLAS (see ``Ensemble.edges``)
_BLAS_MIN_COLUMNS = 64


def check_oracle(oracle: object) -> int:
    """A fitted oracle (``best(d)`` and ``n_samples_``); returns N.

    Parameters
    ----------
    oracle : object
        The weak learner given to a driver.

    Returns
    -------
    int
        The number N of training examples.
    """
    if not callable(getattr(oracle, "best", None)):
        raise ValueError(f"oracle must be a dualboost oracle with a best(d) method; got {oracle!r}")
    n = getattr(oracle, "n_samples_", None)
    if n is None:
        raise ValueError(f"oracle must be fitted (call oracle.fit(X, y) first); got {oracle!r}")
    return int(n)


#: what to do about a run that ended unconverged, by its stop reason
_ADVICE = {
    "max_iter": "raise max_iter or eps for a run that meets it",
    "time limit": "raise max_time for a run that meets its stopping rule",
    "precision_floor": "raise eps (the subproblems cannot be solved to the precision it needs)",
    "reselected": "the run would repeat the same iteration: change the parameters (see the reason)",
    "no_edge": "the oracle cannot improve the model: a richer oracle, or a larger tolerance",
}


def rule_or_cap(converged: bool, rule: str, max_iter: int) -> tuple[str, str]:
    """``(stop_reason, stop_detail)`` for :meth:`Run.result` of a loop that ends either on its stopping
    ``rule`` (``"converged"``, the rule in words) or at the cap (``"max_iter"``, ``"max_iter=N"``, the
    form :func:`warn_unconverged` reads).

    Parameters
    ----------
    converged : bool
        Whether the stopping rule was met.
    rule : str
        The rule in words.
    max_iter : int
        The iteration cap.

    Returns
    -------
    tuple of str
        ``(stop_reason, stop_detail)``.
    """
    return ("converged", rule) if converged else ("max_iter", f"max_iter={max_iter}")


def warn_unconverged(algorithm: str, reason: str, detail: str = "", *, stacklevel: int = 3) -> None:
    """A scikit-learn ``ConvergenceWarning``: the run ended before its stopping rule was met, with its
    stop ``reason`` (a word of :data:`~dualboost.boosting.core.result.STOP_REASONS`) and ``detail``
    (for ``"max_iter"``: ``"max_iter=N"``).

    Parameters
    ----------
    algorithm : str
        The driver's name.
    reason : str
        The stop reason.
    detail : str, default ""
        Its detail.
    stacklevel : int, default 3
        As in :func:`warnings.warn`.
    """
    check_stop_reason(reason)
    where = f"at {detail}" if reason == "max_iter" and detail else "early"
    said = f": {detail}" if detail and reason != "max_iter" else ""
    warnings.warn(
        f"{algorithm} stopped {where} before its stopping rule was met (stop_reason {reason!r}, "
        f"{STOP_REASONS[reason]}{said}); {_ADVICE.get(reason, 'see stop_reason')}",
        ConvergenceWarning,
        stacklevel=stacklevel + 1,
    )


class SoftMarginWarning(UserWarning):
    """A soft-margin booster's output has a soft margin <= 0 or below eps (:func:`warn_weak_soft_margin`)."""


def warn_weak_soft_margin(result: BoostResult) -> None:
    """Warn (:class:`SoftMarginWarning`) when the soft margin of ``result`` (the mean of its ``nu``
    smallest training margins, :attr:`BoostResult.soft_margin`) is <= 0 or below ``eps``.

    The soft-margin boosters stop when their output's soft margin is within eps of the best one over
    the hypothesis class ([KG] Thm 2.5, Lemmas 3.3 and 3.5). That guarantee says nothing about a
    model whose soft margin is <= 0: the LP's optimum is then degenerate (e.g. two complementary
    stumps with weight 1/2 each, a decision function ~1e-12 everywhere). Below eps, the stopping
    rule cannot tell the model from an empty one (raw word features whose edges are all below eps
    stop after a few iterations). A smaller eps lets the run go on (on such a text-like set, eps =
    0.001 instead of 0.01 took the training accuracy from 0.81 to 0.9995); the soft margin grows with
    nu (more examples may lie below it: at nu = N it is the mean margin).

    Parameters
    ----------
    result : BoostResult
        A soft-margin booster's result.
    """
    margin, eps = result.soft_margin, float(result.params["eps"])
    nu, n = float(result.params["nu"]), result.d.size
    if margin >= eps:
        return
    sign = " (<= 0: the model may be no better than a constant)" if margin <= 0 else ""
    if result.weights.size == 0 or np.all(np.abs(result.margins) <= TIE_TOL):
        sign = (
            " (f = 0: this model is a constant: its decision function is 0 on every training example, "
            "so it predicts the majority class of the training data everywhere)"
        )
    warnings.warn(
        f"{result.algorithm}: the soft margin of the output (the mean of its nu = {nu:g} smallest "
        f"training margins, N = {n}) is {margin:.3g}, below eps = {eps:g}{sign}. The stop guarantees "
        "only a soft margin within eps of the best one, so it cannot tell this model from an empty "
        "one. Lower eps below the margin you need, or raise nu (let more examples lie below the "
        "margin: the soft margin grows with nu).",
        SoftMarginWarning,
        stacklevel=4,
    )


class Ensemble:
    """The distinct hypotheses selected so far and their columns ``U`` (N x k).

    Columns whose entries are all in {-1, 0, +1} (stumps, constants, raw binary features: the
    common case) are stored as ``int8``, 1 byte per entry; the first column with another value
    converts the buffer to float64 once (8 bytes per entry from then on). :meth:`edges`
    (``U^T d``) and :meth:`margins` (``U w``) work on the stored buffer without a float64 copy
    (``einsum`` casts in small blocks): the corrective drivers use only these and keep 1 byte per
    entry (their exact line search, ``method=``, builds a float64 copy for the step's subproblem
    and drops it).

    :attr:`U` is the float64 matrix the subproblem models take (the solvers slice it, index it
    and form Gram products, so it must be an ndarray). For an ``int8`` buffer it is a float64
    mirror, built on the first call and kept (extended by the new columns) beside the ``int8``
    store, both at the buffer's capacity: a totally-corrective driver, which asks for U every
    iteration, holds 9 bytes per entry, e.g. 1.84 GB for N = 200,000 and t = 1,000 (capacity
    1,024), not the 0.2 GB of the ``int8`` store alone. The mirror stays: the solvers need it,
    and the compact products are no faster than a float64 GEMV on one BLAS thread, ``U^T d``
    1.7-3.3x and ``U w`` 1.0-2.4x its time for N = 20,000 and 200,000, t = 100 and 1,000 (the
    larger ratios at N = 20,000, t = 100; ``benchmarks/results/ensemble_memory.txt``).
    :attr:`nbytes` and :attr:`mirror_nbytes` report the two buffers. The oracle's
    :class:`Selection` (and its float64 column) is not kept.

    Parameters
    ----------
    n_samples : int
        The number N of rows of each column.
    """

    def __init__(self, n_samples: int) -> None:
        self._buffer = np.empty((n_samples, 16), dtype=np.int8, order="F")
        #: float64 copies of the int8 columns converted so far (:attr:`U`), grown with the buffer
        self._float = np.empty((n_samples, 0), order="F")
        self._converted = 0
        #: the read-only CheckedEdges view of the whole float64 storage (the buffer, or the mirror of an
        #: ``int8`` one) that :attr:`U` slices, made again where that storage was replaced (grown)
        self._whole: CheckedEdges | None = None
        self.hypotheses: list[Hypothesis] = []
        self._position: dict[Hypothesis, int] = {}

    def add(self, selection: Selection, unit: bool = False) -> tuple[int, bool]:
        """``(position, is_new)``: the hypothesis's column index, appending it if it is new.

        ``unit``: the caller knows the column to be N float64 entries that are all -1 or +1 (the
        selection of a :class:`~dualboost.oracles.DecisionStumps`, made by the library: ``y_n h(x_n)``
        with labels and stump values in {-1, +1}); it is stored without checking it again (its int8
        cast, by the assignment into the buffer, is exact)."""
        hypothesis = selection.hypothesis
        position = self._position.get(hypothesis)
        if position is not None:
            return position, False
        k, n = len(self.hypotheses), self._buffer.shape[0]
        if unit:
            column = selection.column
        else:
            column = _unit_column(selection.column, n) if self.compact else None  # (checked and compacted)
        if column is None:
            # checked once here (finite, in [-1, 1]), so that U is a CheckedEdges that models take unscanned
            column = _checked_column(selection.column, n, hypothesis)
            if self.compact:
                # in [-1, 1] now, so the cast (which truncates towards 0) keeps exactly the -1, 0, +1 entries
                compact = column.astype(np.int8)
                if (compact == column).all():
                    column = compact
                else:
                    self._buffer = self._buffer.astype(np.float64, order="F")
                    self._float, self._converted = np.empty((n, 0), order="F"), 0  # unused
        if k == self._buffer.shape[1]:
            grown = np.empty((self._buffer.shape[0], 2 * k), dtype=self._buffer.dtype, order="F")
            grown[:, :k] = self._buffer
            self._buffer = grown
        self._buffer[:, k] = column
        self.hypotheses.append(hypothesis)
        self._position[hypothesis] = k
        return k, True

    def __len__(self) -> int:
        return len(self.hypotheses)

    @property
    def compact(self) -> bool:
        """Whether the columns are stored as ``int8`` (all entries so far in {-1, 0, +1})."""
        return self._buffer.dtype == np.int8

    @property
    def stored(self) -> NDArray:
        """The columns as stored (``int8`` or float64; a view of the buffer)."""
        return self._buffer[:, : len(self.hypotheses)]

    @property
    def nbytes(self) -> int:
        """Bytes held by the column buffer (its capacity, not only the k columns in use; without
        the float64 mirror of :attr:`U`, :attr:`mirror_nbytes`)."""
        return int(self._buffer.nbytes)

    @property
    def mirror_nbytes(self) -> int:
        """Bytes held by the float64 mirror of an ``int8`` buffer that :attr:`U` keeps (0 until
        :attr:`U` is first asked, and once the buffer is float64; its capacity is the buffer's)."""
        return int(self._float.nbytes)

    def edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """The edges ``U^T d`` of the hypotheses so far.

        ``int8`` columns and few float64 columns go through ``einsum``: it casts in small blocks
        (no float64 copy of U; measured 0.35 s for 10^6 x 100 against 0.22 s for a float64 GEMV),
        and waking OpenBLAS's threads for a matrix-vector product with a handful of columns costs
        milliseconds (measured 3 ms for one column of a9a's 29,305 rows against 0.02 ms).
        """
        U = self.stored
        if self.compact or U.shape[1] < _BLAS_MIN_COLUMNS:
            return np.einsum("nk,n->k", U, d)
        return U.T @ d

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """The margins ``U w`` of the combination w of the hypotheses so far (as :meth:`edges`)."""
        U = self.stored
        if self.compact or U.shape[1] < _BLAS_MIN_COLUMNS:
            return np.einsum("nk,k->n", U, np.asarray(w, dtype=np.float64))
        return U @ w

    def columns(self, count: int | None = None) -> NDArray:
        """A copy of the first ``count`` columns (default all) in the stored dtype."""
        return np.array(self._buffer[:, : len(self.hypotheses) if count is None else count], order="F")

    @property
    def U(self) -> NDArray[np.float64]:
        """The columns so far as float64, read-only: a view of a float64 buffer, or of the float64
        copy of an ``int8`` one, kept and extended by the columns added since the last call (a
        driver asks every iteration: converting all of U each time cost 17 % of an iteration at
        N = 20,000, t = 800). Columns are only ever appended, so the view never changes; a
        subproblem model takes it without a copy, and without scanning it again: its columns were
        checked as they were added (a :class:`~dualboost._validation.CheckedEdges`)."""
        U, k = self._buffer, len(self.hypotheses)
        if U.dtype == np.int8:
            done = self._converted
            if done < k:
                if self._float.shape[1] < k:  # grown like the int8 buffer
                    grown = np.empty((U.shape[0], self._buffer.shape[1]), order="F")
                    grown[:, :done] = self._float[:, :done]
                    self._float = grown
                self._float[:, done:k] = U[:, done:k]
                self._converted = k
            U = self._float
        # (every column was checked by add; the view of the whole buffer is sliced, so that it spans
        # the buffer: what Ensemble.nbytes / mirror_nbytes count; kept, the slice alone is made)
        whole = self._whole
        if whole is None or whole.base is not U:
            whole = self._whole = U.view(CheckedEdges)
            whole.flags.writeable = False
        return whole[:, :k]


class _Solving:
    """:meth:`Run.solving`'s context manager: the block's time added to the run's solver time."""

    __slots__ = ("run", "start")

    def __init__(self, run: Run) -> None:
        self.run = run

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        elapsed = time.perf_counter() - self.start
        self.run._iteration_solve += elapsed
        self.run.solver_time += elapsed


def _unit_column(column: object, n_samples: int) -> NDArray[np.int8] | None:
    """A float64 column of N entries that are all -1 or +1 (a decision stump's, a constant's) as
    int8, or None for any other column: what :func:`_checked_column` and the int8 compaction of
    :meth:`Ensemble.add` make of it (such a column is finite and in [-1, 1], and its int8 cast is
    exact), in one pass instead of four (7 to 2.5 us at N = 1,000)."""
    if type(column) is not np.ndarray or column.dtype != np.float64 or column.shape != (n_samples,):
        return None
    if not (np.abs(column) == 1.0).all():
        return None
    return column.astype(np.int8)


def _checked_column(column: object, n_samples: int, hypothesis: Hypothesis) -> NDArray[np.float64]:
    """``check_edge_column`` of an oracle's column, whose error names the hypothesis (its repr made
    only for the message: it cost as much as the check)."""
    try:
        return check_edge_column(column, n_samples, "the column")
    except ValueError:
        check_edge_column(column, n_samples, f"the column of {hypothesis!r}")  # the same error, named
        raise


class Run:
    """Clock, history, checkpoints, time limit and result assembly of one driver run, carrying the
    run's :class:`~dualboost.boosting.core.options.RunOptions`.

    Checkpoints (``options.checkpoint``, opened here for ``algorithm`` and its ``settings``, which a
    resumed file must match): a driver calls :meth:`resume` once before its loop with its loop state
    as keywords (the values of a fresh run) and gets the first iteration and the state to continue
    from; at the end of each iteration it calls :meth:`save` with the same keywords (written every
    ``checkpoint_every`` iterations), then :meth:`out_of_time`.

    ``options.keep_stages``: record the output weights of every iteration (:meth:`keep` and
    :meth:`keep_step` add a stage; :class:`~dualboost.boosting.core.result.Stages` in the result). A
    run resumed from a checkpoint has no stages before the checkpoint, so its result has none
    (``stages`` None).

    Parameters
    ----------
    oracle : object
        The fitted weak learner.
    history : History
        The history the run records.
    options : RunOptions, optional
        The run options (None: the defaults).
    algorithm : str, default ""
        The algorithm's name (checkpoints, results).
    settings : dict, optional
        The parameters a resumed checkpoint must match.
    """

    def __init__(
        self,
        oracle,
        history: History,
        options: RunOptions | None = None,
        *,
        algorithm: str = "",
        settings: dict | None = None,
    ) -> None:
        options = RunOptions() if options is None else options
        self.options = options
        self.oracle = oracle
        self.history = history
        self.callback = options.callback
        self.checkpoint: Checkpoint | None = options.open_checkpoint(algorithm, settings or {})
        self.iterates: list | None = [] if options.keep_iterates else None
        self.stages: StageRecorder | None = StageRecorder() if options.keep_stages else None
        self.deadline = options.deadline()  # not restored from a checkpoint: a resumed run's budget is fresh
        self.start = time.perf_counter()
        self.oracle_time = 0.0
        self.solver_time = 0.0
        self._iteration_oracle = 0.0
        self._iteration_solve = 0.0

    def resume(self, ensemble: Ensemble, **state) -> tuple[int, list]:
        """``(first iteration, state values in the order given)``: 1 and the given values, or, when
        the checkpoint resumes, the iteration after the saved one and the saved values (the
        ensemble, history, clock and random state are restored too)."""
        if self.checkpoint is None or not self.checkpoint.resume:
            return 1, list(state.values())
        iteration, saved = self.checkpoint.load(self, ensemble, list(state))
        self.stages = None  # the stages before the checkpoint are not saved
        return iteration + 1, [saved[name] for name in state]

    def save(self, iteration: int, ensemble: Ensemble, **state) -> None:
        """Write the checkpoint after ``iteration`` if it is due (every ``checkpoint.every``)."""
        if self.checkpoint is not None and iteration % self.checkpoint.every == 0:
            self.checkpoint.save(iteration, self, ensemble, state)

    def out_of_time(self) -> tuple[str, str] | None:
        """``(stop_reason, stop_detail)`` = ``("time limit", "max_time=... s")`` once the clock has passed
        ``options.max_time`` since the run began (the driver calls it at the end of an iteration, after
        :meth:`save`, and stops with the certified result of that iteration), else None."""
        if self.options.clock() < self.deadline:
            return None
        return "time limit", f"max_time={self.options.max_time:g} s"

    def ask(self, d: NDArray[np.float64], signed: bool = False, checked: bool = False) -> Selection:
        """The oracle's maximum-edge hypothesis for d, timed; ``signed``: d is a signed pricing vector
        (MDBoost's, ``Oracle.best(d, signed=True)``); ``checked``: d is a certified distribution the
        oracle (an :class:`~dualboost.oracles.Oracle` whose ``best`` is that class's) need not check
        again (``Oracle.best(d, checked=True)``, the drivers' internal entry)."""
        start = time.perf_counter()
        if checked:
            selection = self.oracle.best(d, checked=True)
        else:
            selection = self.oracle.best(d, signed=True) if signed else self.oracle.best(d)
        self._iteration_oracle = time.perf_counter() - start
        self.oracle_time += self._iteration_oracle
        return selection

    def solving(self) -> _Solving:
        """Time a block as solver work of the current iteration (a context manager; a class, not a
        generator: the totally corrective loop enters three per iteration)."""
        return _Solving(self)

    def keep(self, d: NDArray[np.float64], w: NDArray[np.float64]) -> None:
        """Store the iterate ``(d^t, w^t)`` when the run keeps iterates."""
        if self.iterates is not None:
            self.iterates.append((np.array(d, dtype=np.float64), np.array(w, dtype=np.float64)))
        if self.stages is not None:
            self.stages.full(w)

    def keep_step(self, alpha: float, position: int, size: int) -> None:
        """Record the corrective stage ``w <- (1 - alpha) w + alpha e_position`` (over ``size``
        hypotheses) when the run keeps stages."""
        if self.stages is not None:
            self.stages.step(alpha, position, size)

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
        ensemble: Ensemble,
        weights: NDArray[np.float64],
        d: NDArray[np.float64],
        *,
        converged: bool,
        stop_reason: str,
        params: dict,
        soft_margin: bool = False,
        stop_detail: str = "",
    ) -> BoostResult:
        """The run's :class:`BoostResult` for the first ``weights.size`` hypotheses of ``ensemble``
        (their columns in the ensemble's compact dtype). ``stop_reason``: a word of
        :data:`~dualboost.boosting.core.result.STOP_REASONS` (``stop_detail``: the run's own words);
        a run that did not converge warns (:func:`warn_unconverged`) unless its reason is
        ``"rounds"``. ``soft_margin``: the algorithm maximises the soft margin at ``params["nu"]`` to
        precision ``params["eps"]``; warn when the output's is <= 0 or below eps
        (:func:`warn_weak_soft_margin`)."""
        weights = np.asarray(weights, dtype=np.float64)
        if weights.size > len(ensemble):
            raise RuntimeError(f"{len(ensemble)} hypotheses but {weights.size} weights")  # pragma: no cover
        result = BoostResult(
            algorithm=algorithm,
            hypotheses=ensemble.hypotheses[: weights.size],
            weights=weights,
            columns=ensemble.columns(weights.size),
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
            stages=None if self.stages is None else self.stages.finish(weights),
            stop_detail=stop_detail,
        )
        if not converged and stop_reason != "rounds":
            warn_unconverged(algorithm, stop_reason, stop_detail, stacklevel=4)
        if soft_margin:
            warn_weak_soft_margin(result)
        return result
