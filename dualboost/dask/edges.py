"""The row-partitioned edge matrix U and distributed vectors over the examples.

* :class:`PartitionedEdges`: U (N x t) as one block per row partition, each a growing float64
  column buffer on its worker (appending a column writes N_p numbers; earlier views keep their
  own column count, so a model built on t columns is not changed by a later append).
* :class:`DistributedVector`: an N-vector (a distribution d over the examples) as per-partition
  blocks on the workers, with the reductions of :meth:`DistributedVector.primal_stats`.

Only t-sized vectors and scalars come back to the driver from these reductions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from dualboost.conjugates.stable import entropy_excess
from dualboost.dask.executor import Executor

__all__ = ["PartitionedEdges", "DistributedVector", "ColumnBlock", "PrimalStats"]


class ColumnBlock:
    """A row block of U on a worker: ``buffer[:, :count]`` (float64, column-major).

    Parameters
    ----------
    buffer : ndarray of shape (n, capacity)
        The column-major storage of the block's rows.
    count : int
        The number of columns in use.
    """

    __slots__ = ("buffer", "count")

    def __init__(self, buffer: NDArray[np.float64], count: int) -> None:
        self.buffer = buffer
        self.count = count

    @property
    def matrix(self) -> NDArray[np.float64]:
        return self.buffer[:, : self.count]

    def appended(self, column: NDArray[np.float64]) -> ColumnBlock:
        """A block with ``column`` appended; shares the buffer while it has room (the new column
        goes beyond this block's ``count``, which this block never reads)."""
        buffer = self.buffer
        if self.count == buffer.shape[1]:
            buffer = np.empty((buffer.shape[0], max(8, 2 * self.count)), order="F")
            buffer[:, : self.count] = self.buffer[:, : self.count]
        buffer[:, self.count] = column
        return ColumnBlock(buffer, self.count + 1)


def _empty_block(n: int) -> ColumnBlock:
    return ColumnBlock(np.empty((n, 8), order="F"), 0)


def _append(block: ColumnBlock, column: NDArray[np.float64]) -> ColumnBlock:
    return block.appended(column)


def _as_block(U: NDArray[np.float64]) -> ColumnBlock:
    U = np.asfortranarray(U, dtype=np.float64)
    return ColumnBlock(U, U.shape[1])


def _primal_block(block: ColumnBlock, d: NDArray[np.float64], d0: float) -> tuple:
    """``(U_p^T d_p, sum d_p, min d_p, max d_p, sum_n entropy_excess(d_n, d0))`` for one block."""
    kl = float(entropy_excess(d, d0).sum())
    return block.matrix.T @ d, float(d.sum()), float(d.min()), float(d.max()), kl


def _column_of(block: ColumnBlock, q: int) -> NDArray[np.float64]:
    return np.array(block.matrix[:, q])


@dataclass
class PrimalStats:
    """The reductions of a distributed d that the primal objective needs: ``edges = U^T d`` and
    ``sum``, ``min``, ``max`` and ``kl = sum_n (d_n ln(d_n/d0_n) - d_n + d0_n)``, the relative entropy
    KL(d, d0) in its kl form, accurate also where d ~ d0 (a small eta,
    :func:`~dualboost.conjugates.stable.entropy_excess`, docs/math.md#stable-evaluation)."""

    edges: NDArray[np.float64]
    sum: float
    min: float
    max: float
    kl: float


@dataclass(eq=False)
class PartitionedEdges:
    """U as row blocks (futures of :class:`ColumnBlock`) of ``sizes[p]`` rows, t columns.

    Parameters
    ----------
    executor : Executor
        Runs the partition tasks (a client, or this process).
    blocks : list
        Futures of the :class:`ColumnBlock` of each partition.
    sizes : list of int
        The rows of each partition.
    n_hypotheses : int, default 0
        t, the columns so far.
    """

    executor: Executor
    blocks: list
    sizes: list[int]
    n_hypotheses: int = 0

    @classmethod
    def empty(cls, executor: Executor, sizes: list[int]) -> PartitionedEdges:
        """U with no columns yet, for the row blocks ``sizes``."""
        blocks = [executor.submit(_empty_block, int(n), partition=p) for p, n in enumerate(sizes)]
        return cls(executor, blocks, [int(n) for n in sizes], 0)

    @classmethod
    def from_array(cls, executor: Executor, U: NDArray[np.float64], sizes: list[int]) -> PartitionedEdges:
        """U given on the driver (tests, small problems), split into row blocks of ``sizes``."""
        U = np.asarray(U, dtype=np.float64)
        if U.ndim != 2 or U.shape[0] != sum(sizes):
            raise ValueError(f"U must be 2-D with {sum(sizes)} rows; got shape {U.shape}")
        bounds = np.r_[0, np.cumsum(sizes)]
        parts = executor.scatter([U[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)])
        blocks = [executor.submit(_as_block, b, partition=p) for p, b in enumerate(parts)]
        return cls(executor, blocks, [int(n) for n in sizes], int(U.shape[1]))

    @property
    def shape(self) -> tuple[int, int]:
        return int(sum(self.sizes)), self.n_hypotheses

    def append(self, columns: list) -> PartitionedEdges:
        """U with one more column, given as per-partition futures of its blocks."""
        ex = self.executor
        blocks = [
            ex.submit(_append, b, c, partition=p)
            for p, (b, c) in enumerate(zip(self.blocks, columns, strict=True))
        ]
        return PartitionedEdges(ex, blocks, self.sizes, self.n_hypotheses + 1)

    def column(self, q: int) -> DistributedVector:
        """Column q of U, distributed."""
        ex = self.executor
        return DistributedVector(
            ex, [ex.submit(_column_of, b, q, partition=p) for p, b in enumerate(self.blocks)], self.sizes
        )

    def primal_stats(self, d: DistributedVector, d0: float) -> PrimalStats:
        """:class:`PrimalStats` of d against these columns: one round, t + 4 numbers per partition."""
        ex = self.executor
        parts = ex.gather(ex.map(_primal_block, list(zip(self.blocks, d.blocks, strict=True)), d0))
        return PrimalStats(
            edges=np.sum([p[0] for p in parts], axis=0) if self.n_hypotheses else np.zeros(0),
            sum=float(np.sum([p[1] for p in parts])),
            min=float(min(p[2] for p in parts)),
            max=float(max(p[3] for p in parts)),
            kl=float(np.sum([p[4] for p in parts])),
        )

    def to_numpy(self) -> NDArray[np.float64]:
        """U gathered on the driver (N x t): for tests and small problems only."""
        return np.vstack(self.executor.gather(self.executor.map(_matrix_copy, [(b,) for b in self.blocks])))


def _matrix_copy(block: ColumnBlock) -> NDArray[np.float64]:
    return np.array(block.matrix)


@dataclass(eq=False)
class DistributedVector:
    """An N-vector as per-partition blocks (futures of 1-D float64 arrays).

    Parameters
    ----------
    executor : Executor
        Runs the partition tasks (a client, or this process).
    blocks : list
        Futures of the 1-D float64 blocks, one per partition.
    sizes : list of int
        The length of each block.
    """

    executor: Executor
    blocks: list
    sizes: list[int]
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def scatter(cls, executor: Executor, x: NDArray[np.float64], sizes: list[int]) -> DistributedVector:
        """``x`` (on the driver) split into the row blocks ``sizes`` and sent to the workers."""
        bounds = np.r_[0, np.cumsum(sizes)]
        return cls(
            executor,
            executor.scatter([x[lo:hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]),
            sizes,
        )

    @classmethod
    def weights(cls, executor: Executor, d, sizes: list[int]) -> DistributedVector:
        """An oracle's weights d: as they are when already on the workers, else checked (N
        non-negative finite numbers, :func:`~dualboost._validation.check_weights`) and scattered."""
        if isinstance(d, DistributedVector):
            return d
        from dualboost._validation import check_weights

        return cls.scatter(executor, check_weights(d, int(sum(sizes)), "d"), sizes)

    @property
    def size(self) -> int:
        return int(sum(self.sizes))

    def gather(self) -> NDArray[np.float64]:
        """The vector on the driver (N numbers travel: done once per solve, for the Solution)."""
        return np.concatenate(self.executor.gather(self.blocks))
