"""Class-valued decision stumps over row partitions: the oracle of
:class:`~dualboost.oracles.multiclass.ClassStumps` (docs/math.md#multiclass) with its block sums
reduced from the workers.

With K > 2 classes the examples of the model are the N(K-1) (example, wrong class) pairs, example by
example (:class:`~dualboost.oracles.multiclass.PairCoding`), so a row partition holds the pairs of its
own rows: the pair weights d, the columns of U and every reduction of the Dask model
(:mod:`dualboost.dask.model`) stay partitioned exactly as for two classes, with N_p (K - 1) entries
per block instead of N_p.

``fit`` bins every block by the global sorted distinct values of each feature, as
:class:`~dualboost.dask.stumps.DaskDecisionStumps` does. A call ``best(d)`` asks each partition for the
block sums of its gain matrix ``G[n, c] = [y_n = c] D_n - d_(n,c)`` (one ``bincount`` per feature over
(value, class) cells: one number per distinct value and class) and the column sums of G; the driver
adds them and chooses the stump with the in-memory oracle's rule and tie order
(:class:`~dualboost.oracles.multiclass.ClassSplits`). The chosen hypothesis's column over the pairs is
made on the workers from the bins; it never travels.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dualboost.dask.data import RowPartitions
from dualboost.dask.edges import DistributedVector
from dualboost.dask.stumps import DaskSelection, global_bins
from dualboost.oracles.multiclass import ClassConstant, ClassSplits, PairCoding

__all__ = ["DaskClassStumps"]


def _coding(labels: NDArray[np.intp], n_classes: int) -> PairCoding:
    return PairCoding(labels, n_classes)


def _block_sums(
    bins: NDArray, coding: PairCoding, d: NDArray[np.float64], lengths: NDArray[np.intp]
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """This partition's block sums of G (distinct values x K, features one after another), its column
    sums of G and ``sum |d|``."""
    G = coding.gains(d)
    K = coding.n_classes
    cells = np.arange(K)
    sums = [
        np.bincount(
            (bins[:, j, None].astype(np.intp) * K + cells).ravel(), weights=G.ravel(), minlength=m * K
        )
        for j, m in enumerate(lengths)
    ]
    sums = np.concatenate(sums).reshape(-1, K) if sums else np.zeros((0, K))
    return sums, G.sum(axis=0), float(np.abs(d).sum())


def _pair_column(
    bins: NDArray, coding: PairCoding, feature: int, bin_: int, above: int, below: int
) -> NDArray:
    return coding.column(np.where(bins[:, feature] > bin_, above, below))


def _constant_column(coding: PairCoding, label: int) -> NDArray[np.float64]:
    return coding.column(np.full(coding.labels.size, label))


class DaskClassStumps:
    """The max-edge class-valued stump (and the K constants) over the (example, wrong class) pairs of
    row-partitioned data with K > 2 classes (module docstring).

    ``fit(data)`` with :class:`~dualboost.dask.data.RowPartitions` whose labels are class indices;
    ``best(d)`` with d a :class:`~dualboost.dask.edges.DistributedVector` over the pairs (or a numpy
    array, scattered) returns a :class:`~dualboost.dask.stumps.DaskSelection` with the hypothesis of the
    in-memory :class:`~dualboost.oracles.multiclass.ClassStumps`. After fit: ``n_samples_`` (the pairs,
    N (K - 1)), ``n_examples_`` (N), ``n_features_``, ``sizes`` (the pairs of each partition),
    ``values_`` (the global sorted distinct values of every feature).
    """

    def fit(self, data: RowPartitions) -> DaskClassStumps:
        if data.classes.size < 3:
            raise ValueError(
                f"DaskClassStumps takes K > 2 classes; got {data.classes.size} "
                "(two classes: DaskDecisionStumps)"
            )
        ex = self.executor = data.executor
        K = self.n_classes_ = int(data.classes.size)
        self.sizes = [m * (K - 1) for m in data.sizes]
        self.n_examples_, self.n_features_ = data.n_samples, data.n_features
        self.n_samples_ = self.n_examples_ * (K - 1)
        self.values_, self.bins = global_bins(data)
        self.codings = [ex.submit(_coding, y, K, partition=p) for p, y in enumerate(data.y)]
        self._lengths = np.array([v.size for v in self.values_], dtype=np.intp)
        self.splits_ = ClassSplits(self.values_)
        return self

    def best(self, d) -> DaskSelection:
        """The maximum-edge class stump for the pair weights d (on the workers)."""
        if not hasattr(self, "bins"):
            raise ValueError("DaskClassStumps is not fitted: call fit(data) before best(d)")
        d = DistributedVector.weights(self.executor, d, self.sizes)
        ex = self.executor
        blocks = list(zip(self.bins, self.codings, d.blocks, strict=True))
        parts = ex.gather(ex.map(_block_sums, blocks, self._lengths))
        sums = np.sum([p[0] for p in parts], axis=0)
        total = np.sum([p[1] for p in parts], axis=0)
        scale = float(np.sum([p[2] for p in parts]))
        hypothesis, split, edge = self.splits_.choose(sums, total, scale, self.n_features_)
        if isinstance(hypothesis, ClassConstant):
            columns = [
                ex.submit(_constant_column, c, hypothesis.label, partition=p)
                for p, c in enumerate(self.codings)
            ]
        else:
            j, b = int(self.splits_.feature[split]), int(self.splits_.bin[split])
            columns = [
                ex.submit(_pair_column, bins, c, j, b, hypothesis.above, hypothesis.below, partition=p)
                for p, (bins, c) in enumerate(zip(self.bins, self.codings, strict=True))
            ]
        return DaskSelection(hypothesis, edge, columns)

    def __repr__(self) -> str:
        return "DaskClassStumps()"
