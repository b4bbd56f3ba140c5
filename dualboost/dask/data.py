"""Row partitions of the training data: X and y split into row blocks that live on the workers.

:func:`partition_rows` takes a row-chunked ``dask.array`` X (N x p) and y (N,) — or numpy arrays,
which it splits and scatters — and returns :class:`RowPartitions`: futures of the validated
blocks, the block sizes and the two classes. Validation runs on the workers (a block with NaN or
inf raises the ValueError of :func:`~dualboost._validation.check_features` there, re-raised by
``gather``); only the per-block shapes and label sets travel to the driver.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dualboost._validation import binary_labels, check_count, check_features, check_label_vector
from dualboost.dask.executor import Executor

__all__ = ["RowPartitions", "partition_rows", "is_dask_array"]


def is_dask_array(x: object) -> bool:
    """Whether ``x`` is a ``dask.array.Array`` (without importing dask when it is not loaded).

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
    """
    return type(x).__module__.startswith("dask.array") and hasattr(x, "chunks")


@dataclass
class RowPartitions:
    """Futures of the row blocks ``X[p]`` (float64, N_p x p) and ``y[p]`` (-1/+1 floats for two
    classes; class indices into ``classes`` for K > 2).

    Parameters
    ----------
    executor : Executor
        Runs the partition tasks (a client, or this process).
    X, y : list
        Futures of the row blocks.
    sizes : list of int
        The rows of each partition.
    n_features : int
        p.
    classes : ndarray
        The classes of y in sorted order (two: the larger one +1).
    """

    executor: Executor
    X: list
    y: list
    sizes: list[int]
    n_features: int
    classes: NDArray

    @property
    def n_samples(self) -> int:
        return int(sum(self.sizes))

    @property
    def n_partitions(self) -> int:
        return len(self.sizes)


def _check_block(X: NDArray, y: NDArray, n_features: int) -> tuple[NDArray, NDArray, NDArray]:
    X = check_features(X, "X", n_features)
    if hasattr(X, "toarray"):
        X = X.toarray()
    y = check_label_vector(np.asarray(y), X.shape[0], column=True)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y must be finite (no NaN or inf)")
    return np.ascontiguousarray(X, dtype=np.float64), y, np.unique(y)


def _first(pair: tuple) -> Any:
    return pair[0]


def _second(pair: tuple) -> Any:
    return pair[1]


def _classes(pair: tuple) -> Any:
    return pair[2]


def _signed_labels(y: NDArray, classes: NDArray, keep: bool) -> NDArray[np.float64]:
    if keep:
        return y.astype(np.float64)
    return np.where(y == classes[1], 1.0, -1.0)


def _class_indices(y: NDArray, classes: NDArray) -> NDArray[np.intp]:
    return np.searchsorted(classes, y).astype(np.intp)


def _label_coding(union: NDArray) -> tuple[NDArray, Any, tuple]:
    """``(classes, block function, extra arguments)`` turning a block of labels into the labels the
    oracles take: -1/+1 floats for two classes (the in-memory path's checks and class order,
    :func:`~dualboost._validation.binary_labels`), class indices for K > 2 (scikit-learn's check of
    classification targets on the distinct labels)."""
    if union.size > 2:
        from sklearn.utils.multiclass import check_classification_targets

        check_classification_targets(union)
        return union, _class_indices, (union,)
    _, classes = binary_labels(union, None, "y")
    keep = bool(union.dtype.kind in "biuf" and np.all(np.isin(union, (-1, 1))))
    return classes, _signed_labels, (classes, keep)


def partition_rows(X: Any, y: Any, executor: Executor, n_partitions: int | None = None) -> RowPartitions:
    """Validate and place (X, y) on the workers as row blocks.

    ``X``: a 2-D ``dask.array`` chunked by rows (column chunks are merged) or a numpy array (split
    into ``n_partitions`` row blocks, default one per worker and at least 2); ``y``: a 1-D dask or
    numpy array of N labels with two or more classes (aligned to X's row chunks).

    Parameters
    ----------
    X : dask.array.Array or ndarray, shape (N, p)
        The features.
    y : dask.array.Array or ndarray, shape (N,)
        The labels.
    executor : Executor
        Where the blocks go.
    n_partitions : int, optional
        The row blocks of a numpy X.

    Returns
    -------
    RowPartitions
        The futures of the blocks.
    """
    if is_dask_array(X):
        blocks_X, blocks_y, sizes, n_features = _dask_blocks(X, y, executor)
    else:
        blocks_X, blocks_y, sizes, n_features = _numpy_blocks(X, y, executor, n_partitions)
    checked = [
        executor.submit(_check_block, bx, by, n_features, partition=p)
        for p, (bx, by) in enumerate(zip(blocks_X, blocks_y, strict=True))
    ]
    label_sets = executor.gather([executor.submit(_classes, c) for c in checked])
    classes, coded, extra = _label_coding(np.unique(np.concatenate(label_sets)))
    X_futures = [executor.submit(_first, c, partition=p) for p, c in enumerate(checked)]
    y_futures = [
        executor.submit(coded, executor.submit(_second, c), *extra, partition=p)
        for p, c in enumerate(checked)
    ]
    return RowPartitions(executor, X_futures, y_futures, sizes, n_features, classes)


def _dask_blocks(X: Any, y: Any, executor: Executor) -> tuple[list, list, list[int], int]:
    import dask
    import dask.array as da

    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (N examples x p features); got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    n, p = X.shape
    if n == 0 or p == 0:
        raise ValueError(f"X must have at least one example and one feature; got shape {X.shape}")
    X = X.rechunk({1: -1})
    if not is_dask_array(y):
        y = da.from_array(check_label_vector(np.asarray(y), n), chunks=(X.chunks[0],))
    else:
        y = check_label_vector(y, n, column=True).rechunk((X.chunks[0],))
    keep = [i for i, size in enumerate(X.chunks[0]) if size > 0]
    sizes = [int(X.chunks[0][i]) for i in keep]
    dx = [X.to_delayed()[i, 0] for i in keep]
    dy = [y.to_delayed()[i] for i in keep]
    if executor.distributed:
        futures = executor.client.compute(dx + dy)
        return futures[: len(keep)], futures[len(keep) :], sizes, int(p)
    values = dask.compute(*dx, *dy, scheduler="sync")
    return executor.scatter(values[: len(keep)]), executor.scatter(values[len(keep) :]), sizes, int(p)


def _numpy_blocks(
    X: Any, y: Any, executor: Executor, n_partitions: int | None
) -> tuple[list, list, list[int], int]:
    X = check_features(X, "X")
    if hasattr(X, "toarray"):
        X = X.toarray()
    y = check_label_vector(np.asarray(y), X.shape[0], column=True)
    if n_partitions is None:
        n_partitions = max(2, len(executor.workers))
    check_count(n_partitions, "n_partitions")
    bounds = np.linspace(0, X.shape[0], min(int(n_partitions), X.shape[0]) + 1).astype(int)
    parts = [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]
    blocks_X = executor.scatter([np.ascontiguousarray(X[lo:hi]) for lo, hi in parts])
    blocks_y = executor.scatter([y[lo:hi] for lo, hi in parts])
    return blocks_X, blocks_y, [hi - lo for lo, hi in parts], int(X.shape[1])
