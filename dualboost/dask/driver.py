"""``dask_erlpboost``: ERLPBoost ([KG] Alg. 3.2) with decision stumps or raw features on row-partitioned
data.

The loop is the one of :func:`dualboost.boosting.erlpboost` (``entropy_setup`` and ``entropy_loop`` of
:mod:`dualboost.boosting.totally_corrective`: same checks, stopping rule, tolerances, re-solve policy,
history and result); what changes is where
the N-sized objects live. X, y, the bins of the oracle, U and d stay on the workers:

* the oracle call is one reduction (per partition: a vector of weighted sums per feature and
  distinct value, :mod:`dualboost.dask.stumps`; or ``X_p^T (d_p * y_p)``, p numbers, for raw
  features, :mod:`dualboost.dask.features`), and the new column is made on the workers;
* ``P^t(d^{t-1})`` is one reduction (``U^T d`` and four scalars);
* the re-solve is ``DaskERLPBoost.solve(method="auglag")``: each dual evaluation is one reduction for
  ``nu = 1`` and 2 + ~5 for ``nu > 1`` (the threshold search, :mod:`dualboost.dask.softmax`), each
  returning t numbers and a few scalars per partition; the Newton steps reduce |S| x |S| matrices;
* once per solve, d is gathered for the certified Solution and its repaired copy sent back (2 N numbers).

Why a separate entry instead of dask arrays in :func:`~dualboost.boosting.erlpboost`: the in-memory
driver builds U as a numpy matrix on the driver (``Ensemble``) and hands the oracle a numpy d, which is
exactly what this path must avoid; the hook that would let the shared driver do both is described in
``docs/dask.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dualboost.boosting.core.options import NO_CHECKPOINT, NO_ITERATES, RunOptions, takes_run_options
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Run
from dualboost.boosting.totally_corrective.drivers import entropy_loop, entropy_setup
from dualboost.dask.data import partition_rows
from dualboost.dask.edges import DistributedVector, PartitionedEdges
from dualboost.dask.executor import Executor
from dualboost.dask.features import DaskRawFeatures
from dualboost.dask.model import DaskERLPBoost
from dualboost.dask.multiclass import DaskClassStumps
from dualboost.dask.stumps import DaskDecisionStumps, DaskSelection

__all__ = ["dask_erlpboost", "fit_dask_erlpboost", "DaskEnsemble"]

#: the oracles of ``features=`` and the dtype their columns are returned in (stumps: -1 or +1)
_ORACLES = {"stumps": (DaskDecisionStumps, np.int8), "raw": (DaskRawFeatures, np.float64)}


def _uniform_block(n_rows: int, n: int) -> np.ndarray:
    return np.full(n_rows, 1.0 / n)


def _typed_columns(block, count: int, dtype: type) -> np.ndarray:
    return block.matrix[:, :count].astype(dtype)


class DaskEnsemble:
    """The distinct hypotheses so far and their columns U on the workers (a
    :class:`~dualboost.dask.edges.PartitionedEdges`); a re-selected hypothesis gets no new column.
    ``dtype``: the dtype :meth:`columns` returns (``int8`` for stumps' ±1 columns, float64 for raw
    features); the blocks on the workers are float64 either way.

    Parameters
    ----------
    executor : Executor
        Runs the partition tasks (a client, or this process).
    sizes : list of int
        The rows of each partition.
    dtype : type, default numpy.int8
        The dtype :meth:`columns` returns.
    """

    def __init__(self, executor: Executor, sizes: list[int], dtype: type = np.int8) -> None:
        self.U = PartitionedEdges.empty(executor, sizes)
        self.dtype = np.dtype(dtype)
        self.hypotheses: list = []
        self._position: dict = {}

    def add(self, selection: DaskSelection, unit: bool = False) -> tuple[int, bool]:
        """``(position, is_new)``: the hypothesis's column index, appending its column (on the workers)
        if it is new. ``unit`` is :meth:`dualboost.boosting.core.run.Ensemble.add`'s, taken for the
        same call and not used: the columns are made and stored on the workers."""
        position = self._position.get(selection.hypothesis)
        if position is not None:
            return position, False
        self.U = self.U.append(selection.columns)
        self.hypotheses.append(selection.hypothesis)
        self._position[selection.hypothesis] = len(self.hypotheses) - 1
        return len(self.hypotheses) - 1, True

    def __len__(self) -> int:
        return len(self.hypotheses)

    def columns(self, count: int | None = None):
        """The first ``count`` columns as a row-chunked ``dask.array`` of :attr:`dtype`, lazily read
        from the workers."""
        import dask.array as da

        count = len(self) if count is None else count
        ex = self.U.executor
        futures = [
            ex.submit(_typed_columns, b, count, self.dtype, partition=p) for p, b in enumerate(self.U.blocks)
        ]
        if not ex.distributed:
            return da.concatenate([da.from_array(f.result()) for f in futures])
        return da.concatenate(
            [
                da.from_delayed(f, shape=(n, count), dtype=self.dtype)
                for f, n in zip(futures, self.U.sizes, strict=True)
            ]
        )


@takes_run_options(without=(*NO_ITERATES, *NO_CHECKPOINT))
def dask_erlpboost(
    X: Any,
    y: Any,
    *,
    client: Any = None,
    nu: float = 1.0,
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    criterion: str = "practical",
    tol: float | None = None,
    n_partitions: int | None = None,
    features: str = "stumps",
    options: RunOptions,
) -> BoostResult:
    """ERLPBoost ([KG] Alg. 3.2) with decision stumps or raw features on (X, y) split into row partitions.

    The result equals that of :func:`dualboost.boosting.erlpboost` to rounding (hypotheses, weights,
    history values); docs/dask.md says what travels over the network per iteration.

    Parameters
    ----------
    X : dask.array.Array or ndarray, shape (N, p)
        Row-chunked (the chunks are the partitions), or a numpy array (split into ``n_partitions``
        blocks).
    y : dask.array.Array or ndarray, shape (N,)
        Labels with two or more classes, aligned to X's row chunks (K > 2 classes: the model's examples
        are the N (K - 1) (example, wrong class) pairs and the hypotheses class-valued stumps,
        docs/math.md#multiclass; ``nu`` in [1, N (K - 1)]).
    client : distributed.Client, optional
        None: the default client if there is one, else in-process execution of the same tasks.
    nu, eps, eta, max_iter, criterion, tol : optional
        As for :func:`dualboost.boosting.erlpboost` (``nu`` in [1, N]).
    n_partitions : int, optional
        The blocks of a numpy X: default one per worker and at least 2.
    features : {"stumps", "raw"}, default "stumps"
        The hypothesis class: :class:`~dualboost.oracles.DecisionStumps`' or
        :class:`~dualboost.oracles.RawFeatures`' (h_j(x) = ±x_j / max_n |X[n, j]|).
    options : RunOptions

    Returns
    -------
    BoostResult
        Its ``d`` is a numpy array; its ``columns`` a ``dask.array`` (int8 for stumps, float64 for raw).
    """
    return fit_dask_erlpboost(
        X,
        y,
        client=client,
        nu=nu,
        eps=eps,
        eta=eta,
        max_iter=max_iter,
        criterion=criterion,
        tol=tol,
        n_partitions=n_partitions,
        features=features,
        options=options,
    )[0]


def fit_dask_erlpboost(
    X: Any,
    y: Any,
    *,
    client: Any,
    nu: float,
    eps: float,
    eta: float | None,
    max_iter: int | None,
    criterion: str,
    tol: float | None,
    n_partitions: int | None,
    features: str = "stumps",
    options: RunOptions | None = None,
) -> tuple[BoostResult, np.ndarray]:
    """:func:`dask_erlpboost` and the classes of y in sorted order (two: negative, positive), for the
    estimator.

    Parameters
    ----------
    X, y, client, nu, eps, eta, max_iter, criterion, tol, n_partitions, features, options
        As in :func:`dask_erlpboost`.

    Returns
    -------
    tuple
        ``(result, classes)``: the :class:`~dualboost.boosting.core.result.BoostResult` and the sorted
        classes of y.
    """
    if not isinstance(features, str) or features not in _ORACLES:
        raise ValueError(f"features must be one of {sorted(_ORACLES)}; got {features!r}")
    oracle_class, column_dtype = _ORACLES[features]
    executor = Executor(client)
    data = partition_rows(X, y, executor, n_partitions)
    if data.classes.size > 2:  # the (example, wrong class) pairs of docs/math.md#multiclass
        if features != "stumps":
            raise ValueError(
                f"features={features!r} gives two-class hypotheses; y has {data.classes.size} classes, which "
                "need features='stumps' (class-valued decision stumps, docs/boosting.md#multiclass)"
            )
        oracle_class = DaskClassStumps
    oracle = oracle_class().fit(data)
    n = oracle.n_samples_  # the examples of the model: N, or the N (K - 1) pairs
    setup = entropy_setup(n, nu, eps, eta, max_iter, criterion, "auglag", tol)
    classes = data.classes
    del data  # the oracle keeps what it needs (the stumps' bins, the raw features' X blocks)
    run = Run(oracle, setup.history(), options)
    ensemble = DaskEnsemble(executor, oracle.sizes, column_dtype)
    d = DistributedVector(
        executor,
        [executor.submit(_uniform_block, m, n, partition=p) for p, m in enumerate(oracle.sizes)],
        oracle.sizes,
    )
    sol, d, converged, reason, detail = entropy_loop(
        run,
        ensemble,
        lambda: DaskERLPBoost(ensemble.U, nu=setup.nu, eta=setup.eta),
        d,
        setup,
        "erlpboost",
        next_d=lambda model, solution: model.distributed(solution.d),
    )
    params = setup.params
    weights = np.zeros(0) if sol is None else sol.w
    d_out = np.full(n, 1.0 / n) if sol is None else sol.d
    result = run.result(
        "erlpboost",
        ensemble,
        weights,
        d_out,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
        soft_margin=True,
    )
    return result, classes
