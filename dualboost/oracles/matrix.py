"""A fixed finite hypothesis class given by its edge matrix (e.g. docs/math.md#lpboost-lower-bound).

``MatrixOracle(U)`` holds the whole class as the columns of U in [-1, 1]^{N x n}
(U[n, q] = y_n h_q(x_n)). ``best(d)`` returns the column with the largest edge u^q . d; ties go
to the lowest index (:data:`~dualboost.oracles.base.TIE_TOL`). The class is not reflexive by
default, as in the LPBoost lower-bound instance of [KG] Thm 2.5 (whose max-edge oracle must pick
columns 1, ..., N/2 + 1 in order); ``reflexive=True`` adds the negated columns (sign -1 after +1).

The examples are the N rows of U: there is no feature space, so the "data" of ``predict`` are
example indices, and labels ``y`` (all +1 unless given) turn u back into h: h_q(x_n) = y_n U[n, q].
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import binary_labels, check_edge_matrix
from dualboost.oracles.base import (
    Hypothesis,
    Oracle,
    Selection,
    check_sign,
    fields_of,
    first_max_signed,
    json_field,
    weight_scale,
)

__all__ = ["MatrixOracle", "MatrixColumn"]


@dataclass(frozen=True)
class MatrixColumn(Hypothesis):
    """Column ``index`` of a fixed edge matrix, negated when ``sign`` is -1.

    ``values`` holds h(x_n) = sign * y_n U[n, index] for the N examples (not compared).

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    index : int
        The column of U.
    sign : int
        +1 or -1.
    values : ndarray, shape (N,)
        h(x_n) on the N examples.
    """

    index: int
    sign: int
    values: NDArray[np.float64] = field(compare=False, repr=False)

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """h at the examples with the given indices (integers in [0, N))."""
        idx = np.asarray(X)
        if idx.dtype.kind not in "iu" or np.any(idx < 0) or np.any(idx >= self.values.size):
            raise ValueError(f"X must hold example indices in [0, {self.values.size}) for a matrix class")
        return self.values[idx].ravel() if idx.ndim > 1 else self.values[idx]

    def _predict(self, X: object) -> NDArray[np.float64]:
        return self.values

    def to_dict(self) -> dict:
        """The fields as JSON values (``values`` as a list of floats)."""
        return {
            "n_features": int(self.n_features),
            "index": int(self.index),
            "sign": int(self.sign),
            "values": np.asarray(self.values, dtype=np.float64).tolist(),
        }

    @classmethod
    def from_dict(cls, data: dict) -> MatrixColumn:
        """The hypothesis of :meth:`to_dict`'s output (ValueError for fields of other types or out of
        range, as :meth:`Hypothesis.from_dict`; ``values``: a list of numbers in [-1, 1])."""
        given = fields_of(cls, data)
        scalars = {f.name: json_field(cls, f.name, f.type, given[f.name]) for f in fields(cls)[:-1]}
        items = given["values"] if isinstance(given["values"], list) else [None]
        values = np.array([json_field(cls, "values entry", "float", v) for v in items], dtype=np.float64)
        if np.any(np.abs(values) > 1.0):
            raise ValueError("MatrixColumn: values must lie in [-1, 1] (h(x_n) = sign y_n U[n, index])")
        values.setflags(write=False)
        hypothesis = cls(**scalars, values=values)
        hypothesis.check()
        return hypothesis

    def check(self) -> None:
        """The sign -1 or +1, a column index >= 0."""
        super().check()
        check_sign(self, self.sign)
        if self.index < 0:
            raise ValueError(f"MatrixColumn: index must be >= 0; got {self.index}")

    def describe(self) -> str:
        return f"{'' if self.sign > 0 else '-'}column {self.index}"


class MatrixOracle(Oracle):
    """The max-edge column of a fixed edge matrix ``U`` (N x n); fitted at construction.

    Edges ``U^T d`` are linear in d: signed weights are accepted (``best(d, signed=True)``).

    Parameters
    ----------
    U : array_like, shape (N, n)
        The edge matrix of the class, entries in [-1, 1].
    y : array_like of shape (N,), optional
        Labels of the N examples (default all +1), used only by ``predict``.
    reflexive : bool, default False
        Include the negated columns.
    """

    signed_weights = True

    def __init__(self, U: ArrayLike, *, y: ArrayLike | None = None, reflexive: bool = False) -> None:
        self.U = check_edge_matrix(U, "U")
        self.reflexive = reflexive
        self.n_samples_, self.n_hypotheses_ = self.U.shape
        self.y_, self.classes_ = binary_labels(
            np.ones(self.n_samples_) if y is None else y, self.n_samples_, "y"
        )

    def fit(self, X: object = None, y: object = None) -> MatrixOracle:
        """Nothing to learn: the class is U. Accepted for the protocol; X (if given) must have N rows."""
        if X is not None and np.shape(X)[0] != self.n_samples_:
            raise ValueError(f"X must have N = {self.n_samples_} rows (the rows of U); got {np.shape(X)[0]}")
        return self

    def _fit(self, X: object) -> None:  # pragma: no cover - fit is overridden
        pass

    def _best(self, d: NDArray[np.float64]) -> Selection:
        q, sign = first_max_signed(self.U.T @ d, weight_scale(d), self.reflexive)
        values = sign * self.y_ * self.U[:, q]
        values.setflags(write=False)
        return self._select(MatrixColumn(n_features=0, index=q, sign=sign, values=values), d, None)

    def __repr__(self) -> str:
        return f"MatrixOracle(U of shape {self.U.shape}, reflexive={self.reflexive})"
