"""Raw-data and linear-kernel ("SVM") hypotheses ([KG] Ch. 5), rescaled into [-1, 1].

The thesis uses h_j(x) = x_j (raw data) and h_i(x) = <x, x_i> (one hypothesis per training
example) without scaling. The analysis needs u in [-1, 1] (docs/math.md#hypothesis-classes, [DERIVED]), so
dualboost divides each hypothesis by its largest absolute value on the training data:

* raw data:       h_j(x) = x_j / s_j,        s_j = max_n |X[n, j]|;
* linear kernel:  h_i(x) = <x, x_i> / s_i,   s_i = max_n |<x_n, x_i>|  (computed in row chunks of
  the Gram matrix at fit time; the N x N matrix is never stored).

Hypotheses with s = 0 (all-zero features, all-zero examples) are dropped. On new data the values
are clipped to [-1, 1]. Both classes are reflexive by default (the negations are included,
``reflexive=False`` removes them). Edges are linear in d: raw, X^T (d * y) / s; kernel,
X (X^T (d * y)) / s; a call costs O(nnz) for sparse X and O(N p) for dense X.

Order for ties: index ascending (feature j, or example i), sign +1 before -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from dualboost._validation import Matrix
from dualboost.oracles.base import (
    Hypothesis,
    Oracle,
    Selection,
    check_feature,
    check_sign,
    feature_column,
    fields_of,
    first_max_signed,
    json_field,
    weight_scale,
)

__all__ = ["RawFeatures", "RawFeature", "LinearKernel", "KernelColumn"]

#: Entries of one chunk of the Gram matrix computed at a time by ``LinearKernel.fit``.
GRAM_CHUNK_ENTRIES = 1 << 22
#: Sparse X with at most this many entries when densified is multiplied as a dense matrix.
DENSE_GRAM_ENTRIES = 1 << 26


def _clipped(values: NDArray[np.float64], sign: int, scale: float) -> NDArray[np.float64]:
    return np.clip(sign * values / scale, -1.0, 1.0)


def _dense_1d(values: object) -> NDArray[np.float64]:
    return np.asarray(values.toarray() if sp.issparse(values) else values, dtype=np.float64).ravel()


@dataclass(frozen=True)
class RawFeature(Hypothesis):
    """h(x) = clip(sign * x[feature] / scale, -1, 1).

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    feature : int
        The feature.
    scale : float
        ``max_n |X[n, feature]|`` on the training data.
    sign : int
        +1 or -1.
    """

    feature: int
    scale: float
    sign: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return _clipped(feature_column(X, self.feature), self.sign, self.scale)

    def describe(self) -> str:
        return f"{'+' if self.sign > 0 else '-'}x[{self.feature}] / {self.scale:.6g}"

    def check(self) -> None:
        """The feature in ``[0, n_features)``, a scale > 0, the sign -1 or +1."""
        super().check()
        check_feature(self, self.feature)
        check_sign(self, self.sign)
        _check_scale(self)


def _check_scale(hypothesis: RawFeature | KernelColumn) -> None:
    if not hypothesis.scale > 0:
        raise ValueError(f"{type(hypothesis).__name__}: scale must be > 0; got {hypothesis.scale!r}")


@dataclass(frozen=True)
class KernelColumn(Hypothesis):
    """h(x) = clip(sign * <x, x_i> / scale, -1, 1) for the training example i = ``index``.

    ``support`` holds x_i as a sparse p x 1 column (not compared: ``index`` identifies it).

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    index : int
        The training example i.
    scale : float
        ``max_n |<x_n, x_i>|`` on the training data.
    sign : int
        +1 or -1.
    support : scipy.sparse.csc_matrix
        x_i, a p x 1 column.
    """

    index: int
    scale: float
    sign: int
    support: sp.csc_matrix = field(compare=False, repr=False)

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return _clipped(_dense_1d(X @ self.support), self.sign, self.scale)

    def to_dict(self) -> dict:
        """The fields as JSON values, ``support`` as its row indices and values (x_i's non-zeros)."""
        support = sp.csc_matrix(self.support)
        return {
            "n_features": int(self.n_features),
            "index": int(self.index),
            "scale": float(self.scale),
            "sign": int(self.sign),
            "support": {"indices": support.indices.tolist(), "data": support.data.tolist()},
        }

    @classmethod
    def from_dict(cls, data: dict) -> KernelColumn:
        """The hypothesis of :meth:`to_dict`'s output (ValueError for fields of other types or out of
        range, as :meth:`Hypothesis.from_dict`; ``support``: finite values at increasing row indices in
        ``[0, n_features)``, as many of each)."""
        given = fields_of(cls, data)
        scalars = {f.name: json_field(cls, f.name, f.type, given[f.name]) for f in fields(cls)[:-1]}
        support = fields_of(_Support, given["support"])
        parts = {}
        for name, kind in (("indices", "int"), ("data", "float")):
            items = support[name] if isinstance(support[name], list) else [None]
            parts[name] = [json_field(cls, f"support[{name!r}] entry", kind, item) for item in items]
        rows, n = parts["indices"], scalars["n_features"]
        increasing = all(a < b for a, b in zip([-1, *rows], [*rows, n], strict=True))
        if len(rows) != len(parts["data"]) or not increasing:
            raise ValueError(f"KernelColumn: support needs as many values as increasing rows in [0, {n})")
        values, indices = np.asarray(parts["data"], dtype=np.float64), np.asarray(rows, dtype=np.int64)
        matrix = (values, indices, [0, len(rows)])
        hypothesis = cls(**scalars, support=sp.csc_matrix(matrix, shape=(n, 1), dtype=np.float64))
        hypothesis.check()
        return hypothesis

    def check(self) -> None:
        """A scale > 0, the sign -1 or +1, an example index >= 0."""
        super().check()
        check_sign(self, self.sign)
        _check_scale(self)
        if self.index < 0:
            raise ValueError(f"KernelColumn: index must be >= 0; got {self.index}")

    def describe(self) -> str:
        return f"{'+' if self.sign > 0 else '-'}<x, x_{self.index}> / {self.scale:.6g}"


@dataclass(frozen=True)
class _Support:
    """The fields of ``KernelColumn.to_dict()["support"]``."""

    indices: list
    data: list


class RawFeatures(Oracle):
    """The max-edge raw feature h_j(x) = x_j / max_n |X[n, j]| (and its negation if ``reflexive``).

    Edges are linear in d: signed weights are accepted (``best(d, signed=True)``).

    Parameters
    ----------
    reflexive : bool, default True
        Also offer the negation of every hypothesis.
    """

    signed_weights = True

    def __init__(self, *, reflexive: bool = True) -> None:
        self.reflexive = reflexive

    def _fit(self, X: Matrix) -> None:
        self.X_ = sp.csc_matrix(X) if sp.issparse(X) else X
        scale = _dense_1d(abs(self.X_).max(axis=0))
        self.features_ = np.flatnonzero(scale > 0)
        self.scales_ = scale[self.features_]
        if self.features_.size == 0:
            raise ValueError("X has no non-zero feature: the raw-feature class is empty")

    def _best(self, d: NDArray[np.float64]) -> Selection:
        edges = _dense_1d(self.X_.T @ (d * self.y_))[self.features_] / self.scales_
        k, sign = first_max_signed(edges, weight_scale(d), self.reflexive)
        j, scale = int(self.features_[k]), float(self.scales_[k])
        hypothesis = RawFeature(n_features=self.n_features_, feature=j, scale=scale, sign=sign)
        return self._select(hypothesis, d, self.X_)

    def __repr__(self) -> str:
        return f"RawFeatures(reflexive={self.reflexive})"


def gram_abs_max(X: Matrix) -> NDArray[np.float64]:
    """s_i = max_n |<x_n, x_i>| for every row i of X, by chunks of rows of the Gram matrix."""
    n = X.shape[0]
    if sp.issparse(X) and n * X.shape[1] <= DENSE_GRAM_ENTRIES:
        X = X.toarray()
    step = max(1, GRAM_CHUNK_ENTRIES // n)
    out = np.empty(n)
    for start in range(0, n, step):
        block = X @ X[start : start + step].T
        out[start : start + step] = _dense_1d(abs(block).max(axis=0))
    return out


class LinearKernel(Oracle):
    """The max-edge linear-kernel ("SVM") hypothesis h_i(x) = <x, x_i> / max_n |<x_n, x_i>|.

    One hypothesis per training example with a non-zero row (and its negation if ``reflexive``).
    Edges are linear in d: signed weights are accepted (``best(d, signed=True)``).

    Parameters
    ----------
    reflexive : bool, default True
        Also offer the negation of every hypothesis.
    """

    signed_weights = True

    def __init__(self, *, reflexive: bool = True) -> None:
        self.reflexive = reflexive

    def _fit(self, X: Matrix) -> None:
        self.X_ = sp.csr_matrix(X) if sp.issparse(X) else X
        scale = gram_abs_max(self.X_)
        self.indices_ = np.flatnonzero(scale > 0)
        self.scales_ = scale[self.indices_]
        if self.indices_.size == 0:
            raise ValueError("X has only zero rows: the linear-kernel class is empty")

    def _best(self, d: NDArray[np.float64]) -> Selection:
        X = self.X_
        margin_direction = _dense_1d(X.T @ (d * self.y_))  # sum_n d_n y_n x_n
        edges = _dense_1d(X @ margin_direction)[self.indices_] / self.scales_
        k, sign = first_max_signed(edges, weight_scale(d), self.reflexive)
        i = int(self.indices_[k])
        hypothesis = KernelColumn(
            n_features=self.n_features_,
            index=i,
            scale=float(self.scales_[k]),
            sign=sign,
            support=sp.csc_matrix(X[[i]]).T.tocsc(),
        )
        return self._select(hypothesis, d, X)

    def __repr__(self) -> str:
        return f"LinearKernel(reflexive={self.reflexive})"
