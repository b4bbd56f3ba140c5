"""Raw features over row partitions: the oracle of :class:`~dualboost.oracles.RawFeatures`
([KG] Ch. 5, docs/math.md#hypothesis-classes: h_j(x) = x_j / s_j with s_j = max_n |X[n, j]|) with
its edges reduced from the workers.

``fit`` asks each partition for its per-feature ``max |X_p[:, j]|`` (p numbers) and takes the
maximum on the driver: the scales s_j; features with s_j = 0 are dropped, as in memory. A call
``best(d)`` is one reduction: each partition sends ``X_p^T (d_p * y_p)`` (p numbers) and
``sum d_p``; the driver adds them, divides by the scales and picks the member with
:func:`~dualboost.oracles.base.first_max_signed`, the tie order of the in-memory oracle (feature
ascending, sign +1 before -1). The hypothesis is the in-memory class's
:class:`~dualboost.oracles.RawFeature`, and its column ``y * h(X)`` is made on the workers by that
hypothesis's own prediction, so the two paths agree hypothesis by hypothesis. N-sized data never
travels; the columns are float64 (raw features are not ternary in general).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dualboost.dask.data import RowPartitions
from dualboost.dask.edges import DistributedVector
from dualboost.dask.stumps import DaskSelection
from dualboost.oracles.base import first_max_signed
from dualboost.oracles.features import RawFeature

__all__ = ["DaskRawFeatures"]


def _abs_max(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``max_n |X[n, j]|`` per column, without an N_p x p temporary."""
    return np.maximum(X.max(axis=0), -X.min(axis=0))


def _weighted_sums(
    X: NDArray[np.float64], y: NDArray[np.float64], d: NDArray[np.float64]
) -> tuple[NDArray[np.float64], float]:
    return X.T @ (d * y), float(d.sum())


def _raw_column(X: NDArray[np.float64], y: NDArray[np.float64], hypothesis: RawFeature) -> NDArray:
    return y * hypothesis._predict(X)


class DaskRawFeatures:
    """The max-edge raw feature h_j(x) = x_j / max_n |X[n, j]| (and its negation if ``reflexive``)
    over row-partitioned data.

    ``fit(data)`` with :class:`~dualboost.dask.data.RowPartitions`; ``best(d)`` with d a
    :class:`~dualboost.dask.edges.DistributedVector` (or a numpy array, scattered) returns a
    :class:`~dualboost.dask.stumps.DaskSelection` with the hypothesis of the in-memory
    :class:`~dualboost.oracles.RawFeatures`. After fit: ``n_samples_``, ``n_features_``,
    ``features_`` (the features with a non-zero scale) and ``scales_`` (their scales).

    Parameters
    ----------
    reflexive : bool, default True
        Also offer the negation of every feature.
    """

    def __init__(self, *, reflexive: bool = True) -> None:
        self.reflexive = reflexive

    def fit(self, data: RowPartitions) -> DaskRawFeatures:
        ex = self.executor = data.executor
        self.sizes = data.sizes
        self.X, self.y = data.X, data.y
        self.n_samples_, self.n_features_ = data.n_samples, data.n_features
        scale = np.max(ex.gather(ex.map(_abs_max, [(x,) for x in data.X])), axis=0)
        self.features_ = np.flatnonzero(scale > 0)
        self.scales_ = scale[self.features_]
        if self.features_.size == 0:
            raise ValueError("X has no non-zero feature: the raw-feature class is empty")
        return self

    def best(self, d) -> DaskSelection:
        """The maximum-edge raw feature for the weights d (one reduction over the partitions)."""
        if not hasattr(self, "scales_"):
            raise ValueError("DaskRawFeatures is not fitted: call fit(data) before best(d)")
        d = DistributedVector.weights(self.executor, d, self.sizes)
        ex = self.executor
        parts = ex.gather(ex.map(_weighted_sums, list(zip(self.X, self.y, d.blocks, strict=True))))
        edges = np.sum([p[0] for p in parts], axis=0)[self.features_] / self.scales_
        k, sign = first_max_signed(edges, float(np.sum([p[1] for p in parts])), self.reflexive)
        j, scale = int(self.features_[k]), float(self.scales_[k])
        hypothesis = RawFeature(n_features=self.n_features_, feature=j, scale=scale, sign=sign)
        columns = [
            ex.submit(_raw_column, x, y, hypothesis, partition=p)
            for p, (x, y) in enumerate(zip(self.X, self.y, strict=True))
        ]
        return DaskSelection(hypothesis, float(sign * edges[k]), columns)

    def __repr__(self) -> str:
        return f"DaskRawFeatures(reflexive={self.reflexive})"
