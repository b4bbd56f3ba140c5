"""Decision stumps over row partitions: the oracle of :class:`~dualboost.oracles.DecisionStumps`
([KG] Ch. 5, docs/math.md#hypothesis-classes) with its weighted sums reduced from the workers.

``fit`` computes the *global* sorted distinct values of every feature once (each partition sends its
distinct values per feature; the driver merges them) and bins every block on its worker: a row's
bin in feature j is the rank of ``x_nj`` among those values. A call ``best(d)`` then asks each
partition for ``F_p[j, b] = sum_{n in p, bin_j(n) = b} d_n y_n`` (one ``bincount`` per feature), adds
the vectors on the driver and scans them exactly as the in-memory oracle does: the edge of the stump
(j, theta between values b and b + 1, +1) is ``sum(v) - 2 C_j(b)`` with C_j the cumulative sum of F
over feature j's bins, thresholds are the same midpoints, and ties are broken in the same order
(:func:`~dualboost.oracles.base.first_max_signed`). The chosen stump's column ``y * h(X)`` is made
on the workers from the bins; it never travels.

Per call, each partition sends one number per (feature, distinct value): the oracle is meant for
features with a moderate number of distinct values (binned or categorical data); a feature with a
distinct value in every row sends N numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dualboost.dask.data import RowPartitions
from dualboost.dask.edges import DistributedVector
from dualboost.oracles.base import Hypothesis, first_max_signed
from dualboost.oracles.stumps import Constant, Stump, _midpoints

__all__ = ["DaskDecisionStumps", "DaskSelection", "global_bins"]


@dataclass(frozen=True, eq=False)
class DaskSelection:
    """The answer of :meth:`DaskDecisionStumps.best`: the hypothesis, its edge u . d, and its column
    of U as per-partition futures (``columns``).

    Parameters
    ----------
    hypothesis : Hypothesis
        The hypothesis chosen.
    edge : float
        Its edge ``u @ d``.
    columns : list
        Its column of U, one future per partition.
    """

    hypothesis: Hypothesis
    edge: float
    columns: list

    def describe(self) -> str:
        return f"{self.hypothesis.describe()}  (edge {self.edge:+.6g})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DaskSelection):
            return self.hypothesis == other.hypothesis
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.hypothesis)


def _distinct(X: NDArray[np.float64]) -> list[NDArray[np.float64]]:
    return [np.unique(X[:, j] + 0.0) for j in range(X.shape[1])]  # + 0.0: -0.0 is 0.0


def _bins(X: NDArray[np.float64], values: list[NDArray[np.float64]]) -> NDArray:
    dtype = np.uint16 if max(v.size for v in values) <= np.iinfo(np.uint16).max else np.int32
    out = np.empty(X.shape, dtype=dtype, order="F")
    for j, v in enumerate(values):
        out[:, j] = np.searchsorted(v, X[:, j] + 0.0)
    return out


def _sums(bins: NDArray, y: NDArray[np.float64], d: NDArray[np.float64], lengths: NDArray[np.intp]) -> tuple:
    v = d * y
    F = np.concatenate([np.bincount(bins[:, j], weights=v, minlength=m) for j, m in enumerate(lengths)])
    return F, float(v.sum()), float(d.sum())


def global_bins(data: RowPartitions) -> tuple[list[NDArray[np.float64]], list]:
    """``(values, bins)``: the global sorted distinct values of every feature (each partition sends its
    own, the driver merges them) and, per partition, the futures of its rows' bins (a row's bin in
    feature j is the rank of ``x_nj`` among those values), made on the workers."""
    ex = data.executor
    distinct = ex.gather(ex.map(_distinct, [(x,) for x in data.X]))
    values = [np.unique(np.concatenate([part[j] for part in distinct])) for j in range(data.n_features)]
    shared = ex.broadcast(values)
    return values, [ex.submit(_bins, x, shared, partition=p) for p, x in enumerate(data.X)]


def _stump_column(bins: NDArray, y: NDArray[np.float64], feature: int, bin_: int, sign: int) -> NDArray:
    return y * np.where(bins[:, feature] > bin_, float(sign), float(-sign))


def _constant_column(y: NDArray[np.float64], sign: int) -> NDArray[np.float64]:
    return y * float(sign)


def _n_rows(X: NDArray) -> int:
    return int(X.shape[0])


class DaskDecisionStumps:
    """The max-edge decision stump (both signs, and the constants ±1) over row-partitioned data.

    ``fit(data)`` with :class:`~dualboost.dask.data.RowPartitions`; ``best(d)`` with d a
    :class:`~dualboost.dask.edges.DistributedVector` (or a numpy array, scattered) returns a
    :class:`DaskSelection` with the hypothesis of the in-memory oracle. After fit: ``n_samples_``,
    ``n_features_``, ``values_`` (the global sorted distinct values of every feature).
    """

    def fit(self, data: RowPartitions) -> DaskDecisionStumps:
        self.executor = data.executor
        self.sizes = data.sizes
        self.y = data.y
        self.n_samples_, self.n_features_ = data.n_samples, data.n_features
        self.values_, self.bins = global_bins(data)
        self._lengths = np.array([v.size for v in self.values_], dtype=np.intp)
        offsets = np.r_[0, np.cumsum(self._lengths)]
        feature, index = [], []
        for j, v in enumerate(self.values_):  # boundaries after every value but the last, in order
            feature.append(np.full(v.size - 1, j))
            index.append(np.arange(v.size - 1))
        self._feature = np.concatenate(feature).astype(np.intp)
        self._bin = np.concatenate(index).astype(np.intp)
        self._end = offsets[self._feature] + self._bin + 1  # in G = [0, cumsum(F)]
        self._start = offsets[self._feature]
        self._threshold = (
            np.concatenate([_midpoints(v[:-1], v[1:]) for v in self.values_])
            if self._feature.size
            else np.zeros(0)
        )
        return self

    def best(self, d) -> DaskSelection:
        """The maximum-edge stump for the weights d (on the workers)."""
        if not hasattr(self, "bins"):
            raise ValueError("DaskDecisionStumps is not fitted: call fit(data) before best(d)")
        d = DistributedVector.weights(self.executor, d, self.sizes)
        ex = self.executor
        blocks = list(zip(self.bins, self.y, d.blocks, strict=True))
        parts = ex.gather(ex.map(_sums, blocks, self._lengths))
        F = np.sum([p[0] for p in parts], axis=0)
        total = float(np.sum([p[1] for p in parts]))
        G = np.r_[0.0, np.cumsum(F)]
        E = total - 2.0 * (G[self._end] - G[self._start])
        edges = np.r_[total, E]
        k, sign = first_max_signed(edges, float(np.sum([p[2] for p in parts])))
        if k == 0:
            hypothesis: Hypothesis = Constant(n_features=self.n_features_, sign=sign)
            columns = [ex.submit(_constant_column, y, sign, partition=p) for p, y in enumerate(self.y)]
        else:
            j, b = int(self._feature[k - 1]), int(self._bin[k - 1])
            hypothesis = Stump(
                n_features=self.n_features_, feature=j, threshold=float(self._threshold[k - 1]), sign=sign
            )
            columns = [
                ex.submit(_stump_column, bins, y, j, b, sign, partition=p)
                for p, (bins, y) in enumerate(zip(self.bins, self.y, strict=True))
            ]
        return DaskSelection(hypothesis, float(sign * edges[k]), columns)

    def __repr__(self) -> str:
        return "DaskDecisionStumps()"
