"""The numerical kernels of the models' smooth duals (docs/solvers.md): Gram products of the
columns of U with curvature weights, the Hessian of ``D(w) = -f*(-U w)`` from its parts in the one
form ``hess f* = scale (diag(g) - V S^+ V^T)`` (:class:`~dualboost.conjugates.traits.LowRankHessian`),
and the float32 copies of U that inexact Newton steps read (docs/solvers.md#single-precision-products).

The parts add up over row blocks, so the in-memory :class:`~dualboost.problems.Model` and the Dask
partitions (:mod:`dualboost.dask.softmax`) share them. The model base (:mod:`dualboost.problems.base`)
holds the model and calls these; the trust radius's measure of a step is the regulariser's
(:meth:`~dualboost.conjugates.traits.SmoothConjugate.step_spread`).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from dualboost.conjugates.traits import small_inverse
from dualboost.oracles.stumps import Constant, Stump

try:
    from dualboost.problems._stump_products import StumpPasses, stump_gram
except ImportError:  # a source tree that was not built: the explicit products run (StumpColumns.of)
    StumpPasses = stump_gram = None

__all__ = [
    "gram_parts",
    "cross_gram_parts",
    "low_rank_hessian",
    "low_rank_term",
    "low_rank_product",
    "centred_hessian",
    "over_all_rows",
    "single_extension",
    "single_product",
    "ColumnProducts",
    "StumpOperator",
    "StumpOperatorBase",
    "StumpColumns",
    "StumpFeatures",
]


def gram_parts(
    C: NDArray[np.float64], s: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    """``(C^T diag(s) C, C^T s, sum s)`` for columns C (a private copy: scaled in place) and curvature
    weights s: the parts of the dual Hessian, which add up over row blocks (the Dask partitions).

    Parameters
    ----------
    C : ndarray of shape (n, k)
        The columns (a block of rows).
    s : ndarray of shape (n,)
        The curvature weights of those rows.

    Returns
    -------
    gram : ndarray of shape (k, k)
        ``C^T diag(s) C``.
    a : ndarray of shape (k,)
        ``C^T s``.
    total : float
        ``sum s``.
    """
    a = C.T @ s
    C *= np.sqrt(s)[:, None]
    return C.T @ C, a, float(s.sum())


def single_extension(
    U: NDArray[np.float64], cached: tuple | None
) -> tuple[NDArray[np.float64], NDArray[np.float32], NDArray[np.float32]]:
    """``(U, float32 copy of U, its buffer)``: the ``cached`` triple of an earlier matrix extended by
    U's new columns where that matrix is U's first columns in the same memory (both read-only, the
    same start and strides: a boosting run's ``Ensemble.U``, whose columns are only appended; at
    N = 20,000, t ~ 400 converting all of U at every iteration cost 8 s of a 100 s topic-set run), else a
    fresh copy. The buffer is column-major with room to grow (doubled when full), like the Ensemble's.

    Parameters
    ----------
    U : ndarray of shape (N, t)
        The matrix.
    cached : tuple or None
        The triple returned for an earlier matrix, None for none.

    Returns
    -------
    U : ndarray
        The matrix itself.
    single : ndarray of float32
        Its float32 copy (a view of the buffer).
    buffer : ndarray of float32
        The column-major buffer holding the copy.
    """
    if cached is not None:
        old, _, buffer = cached
        prefix = (
            not old.flags.writeable
            and not U.flags.writeable
            and old.shape[0] == U.shape[0]
            and old.shape[1] <= U.shape[1]
            and old.strides == U.strides
            and old.__array_interface__["data"][0] == U.__array_interface__["data"][0]
        )
        if prefix:
            done, k = old.shape[1], U.shape[1]
            if buffer.shape[1] < k:
                grown = np.empty((U.shape[0], max(k, 2 * buffer.shape[1])), dtype=np.float32, order="F")
                grown[:, :done] = buffer[:, :done]
                buffer = grown
            buffer[:, done:k] = U[:, done:k]
            return U, buffer[:, :k], buffer
    buffer = np.asarray(U, dtype=np.float32, order="F")
    return U, buffer, buffer


def single_product(A: NDArray[np.float32], x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``A @ x`` in single precision for a float32 ``A`` (:meth:`Model.single_precision_U` or its
    columns): x is divided by its largest entry before the cast, so that none underflows, and the
    float64 result is scaled back (relative error of order 1e-6).

    Parameters
    ----------
    A : ndarray of float32
        The single-precision matrix.
    x : ndarray
        The vector.

    Returns
    -------
    ndarray
        ``A @ x``, in float64.
    """
    top = float(np.abs(x).max(initial=0.0)) or 1.0
    return (A @ (x / top).astype(A.dtype)).astype(np.float64) * top


def cross_gram_parts(
    U: NDArray[np.float64],
    g: NDArray[np.float64],
    V: NDArray[np.float64],
    rows: NDArray[np.intp],
    columns: NDArray[np.intp],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """``(U_R^T diag(g) U_C, U_R^T V, U_C^T V)`` for the rows R and columns C of a Hessian block, by
    one pass over U (``[g U_C, V]^T U``; no copy of the |R| columns; ``U_C^T V`` by sums over the
    examples, as ``U_C^T s`` always was); adds up over row blocks like :func:`gram_parts`.

    Parameters
    ----------
    U : ndarray of shape (n, t)
        The edge matrix (a block of rows).
    g : ndarray of shape (n,)
        The diagonal curvature weights.
    V : ndarray of shape (n, k)
        The low-rank factor.
    rows : ndarray of int
        The Hessian block's rows R (columns of U).
    columns : ndarray of int
        The Hessian block's columns C (columns of U).

    Returns
    -------
    gram : ndarray of shape (len(rows), len(columns))
        ``U_R^T diag(g) U_C``.
    P_rows : ndarray of shape (len(rows), k)
        ``U_R^T V``.
    P_columns : ndarray of shape (len(columns), k)
        ``U_C^T V``.
    """
    k = V.shape[1]
    UC = U[:, columns]
    products = np.column_stack([UC * g[:, None], V]).T @ U
    P_columns = np.column_stack([(UC * V[:, [j]]).sum(axis=0) for j in range(k)])
    return products[:-k, rows].T, products[-k:, rows].T, P_columns


def over_all_rows(values: NDArray[np.float64], rows: NDArray[np.bool_] | None) -> NDArray[np.float64]:
    """``values`` given on the rows that count (``rows``, a mask; None: on all) as a vector over every
    row, 0 elsewhere (what an implicit operator's passes read).

    Parameters
    ----------
    values : ndarray
        One value per row that counts.
    rows : ndarray of bool or None
        The rows that count, or None: ``values`` is over every row already.

    Returns
    -------
    ndarray of shape (N,)
        The vector over every row.
    """
    if rows is None:
        return values
    full = np.zeros(rows.size)
    full[rows] = values
    return full


def low_rank_term(P_rows: NDArray[np.float64], S: NDArray[np.float64], P_columns: NDArray[np.float64]):
    """``P_rows S^+ P_columns^T`` (``S^+``: :func:`~dualboost.conjugates.traits.small_inverse`), for
    k = 1 as ``outer(p, q) / S`` (0 where S = 0), the rounding of the capped softmax's
    ``a b^T / sum s``.

    Parameters
    ----------
    P_rows : ndarray of shape (r, k)
        The left factor.
    S : ndarray of shape (k, k)
        The small matrix inverted.
    P_columns : ndarray of shape (c, k)
        The right factor.

    Returns
    -------
    ndarray of shape (r, c)
        ``P_rows S^+ P_columns^T``.
    """
    if S.shape == (1, 1):
        total = float(S[0, 0])
        return np.outer(P_rows[:, 0], P_columns[:, 0]) / total if total > 0 else 0.0
    return P_rows @ small_inverse(S) @ P_columns.T


def low_rank_product(P: NDArray[np.float64], S: NDArray[np.float64], v: NDArray[np.float64]):
    """``P S^+ P^T v`` (as :func:`low_rank_term`; for k = 1, ``p (p . v) / S``).

    Parameters
    ----------
    P : ndarray of shape (n, k)
        The factor.
    S : ndarray of shape (k, k)
        The small matrix, pseudo-inverted.
    v : ndarray of shape (n,)
        The vector.

    Returns
    -------
    ndarray of shape (n,)
        ``P S^+ P^T v``.
    """
    if S.shape == (1, 1):
        total, p = float(S[0, 0]), P[:, 0]
        return p * (float(p @ v) / total) if total > 0 else 0.0
    return P @ (small_inverse(S) @ (P.T @ v))


def low_rank_hessian(
    gram: NDArray[np.float64],
    P_rows: NDArray[np.float64],
    P_columns: NDArray[np.float64],
    S: NDArray[np.float64],
    scale: float,
) -> NDArray[np.float64]:
    """``-scale (gram - P_rows S^+ P_columns^T)``: the dual Hessian (block) ``-U_R^T hess f* U_C``
    from its summed parts, with ``hess f* = scale (diag(g) - V S^+ V^T)``
    (:class:`~dualboost.conjugates.traits.LowRankHessian`), ``gram = U_R^T diag(g) U_C``,
    ``P = U^T V`` on the rows and on the columns.

    Parameters
    ----------
    gram : ndarray of shape (r, c)
        ``U_R^T diag(g) U_C``, summed over row blocks.
    P_rows : ndarray of shape (r, k)
        ``U_R^T V``.
    P_columns : ndarray of shape (c, k)
        ``U_C^T V``.
    S : ndarray of shape (k, k)
        The low-rank term's middle matrix.
    scale : float
        The Hessian's scale.

    Returns
    -------
    ndarray of shape (r, c)
        The dual Hessian block.
    """
    return -scale * (gram - low_rank_term(P_rows, S, P_columns))


def centred_hessian(
    gram: NDArray[np.float64], a: NDArray[np.float64], b: NDArray[np.float64], total: float, scale: float
) -> NDArray[np.float64]:
    """:func:`low_rank_hessian` of the rank-one case ``hess f* = scale (diag s - s s^T / sum s)``
    (:meth:`~dualboost.conjugates.traits.LowRankHessian.rank_one`) from the parts summed over row blocks
    (the Dask partitions): ``gram = U_R^T diag(s) U_C``, ``a = U_R^T s``, ``b = U_C^T s``,
    ``total = sum s``.

    Parameters
    ----------
    gram : ndarray of shape (r, c)
        ``U_R^T diag(s) U_C``.
    a : ndarray of shape (r,)
        ``U_R^T s``.
    b : ndarray of shape (c,)
        ``U_C^T s``.
    total : float
        ``sum s``.
    scale : float
        The scale of ``hess f*``.

    Returns
    -------
    ndarray of shape (r, c)
        The dual Hessian block.
    """
    return low_rank_hessian(gram, a[:, None], b[:, None], np.array([[total]]), scale)


class ColumnProducts:
    """Products with the columns ``U_S`` (and only the rows that count, ``rows`` a mask or None) and
    the curvature ``weights`` (one per row that counts, or a scalar) for the Hessian-vector products
    of the dual, two passes over U_S each: a copy of the columns (and rows) when they are at most
    half of U, else U itself with the vector padded by zeros (no copy).

    ``U`` may be a single-precision copy (:meth:`Model.single_precision_U`): the products are then
    computed in float32 on float32 vectors (the weights divided by their largest once, so that none
    underflows) and returned in float64, with a relative error of order 1e-6 (measured 5e-7 to 2e-6
    at N = 1000-20000): what the inexact Newton steps of ``method="auglag"`` use where their forcing
    term allows (docs/solvers.md#single-precision-products).

    Parameters
    ----------
    U : ndarray of shape (N, t)
        The edge matrix, float64 or a float32 copy.
    columns : ndarray of int
        The columns S.
    rows : ndarray of bool or None
        The mask of the rows that count, None for all.
    weights : ndarray or float
        The curvature weights, one per row that counts, or a scalar.
    """

    def __init__(
        self,
        U: NDArray[np.floating],
        columns: NDArray[np.intp],
        rows: NDArray[np.bool_] | None,
        weights: NDArray[np.float64] | float,
    ) -> None:
        self.columns = columns
        self.dtype = U.dtype
        if rows is not None:
            self.C, self.pad = U[np.ix_(np.flatnonzero(rows), columns)], None
        elif 2 * columns.size <= U.shape[1]:
            self.C, self.pad = U[:, columns], None
        else:
            self.C, self.pad = U, np.zeros(U.shape[1], dtype=U.dtype)
        self.top = 1.0  # the weights are stored divided by top (single precision: their largest)
        if self.dtype != np.float64:
            self.top = float(np.abs(weights).max(initial=0.0)) or 1.0
            weights = (np.asarray(weights, dtype=np.float64) / self.top).astype(self.dtype)
        self.weights = weights

    def left(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U_S^T x`` (x a vector or a matrix over the rows)."""
        out = self.C.T @ x if self.dtype == np.float64 else single_product(self.C.T, x)
        return out if self.pad is None else out[self.columns]

    def gram(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U_S^T (weights * (U_S v))``."""
        if self.dtype == np.float64:
            return self._gram(v)
        return self._gram(v.astype(self.dtype)).astype(np.float64) * self.top

    def _gram(self, v: NDArray[np.floating]) -> NDArray[np.floating]:
        if self.pad is None:
            return self.C.T @ (self.weights * (self.C @ v))
        self.pad[self.columns] = v
        return (self.C.T @ (self.weights * (self.C @ self.pad)))[self.columns]


@runtime_checkable
class StumpOperator(Protocol):
    """What a model needs of the implicit operator of its stump columns
    (:attr:`~dualboost.problems.Model.stump_columns`): :class:`StumpColumns` (through the features'
    sort orders) or :class:`~dualboost.problems.sparse_columns.SparseStumpColumns` (a sparse
    indicator matrix), both on :class:`StumpOperatorBase`."""

    #: N, the rows of U
    n_samples: int
    #: t, the columns of U
    n_columns: int

    def restricted(self, columns: NDArray[np.intp]) -> StumpOperator:
        """The operator of the columns ``columns``."""
        ...

    def pays(self, n_columns: int) -> bool:
        """Whether the implicit products beat the explicit ones for ``n_columns`` of these columns."""
        ...

    def gram_work(self, n_columns: int) -> float:
        """The cost of :meth:`weighted_gram` on ``n_columns`` columns, in dense multiply-adds."""
        ...

    def gram_pays(self, n_columns: int) -> bool:
        """Whether a compiled solver asks :meth:`weighted_gram` for ``n_columns`` of these columns."""
        ...

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U w``."""
        ...

    def edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T d``."""
        ...

    def gram(
        self, v: NDArray[np.float64], weights: NDArray[np.float64] | float, other: StumpOperator | None = None
    ) -> NDArray[np.float64]:
        """``U^T (weights * (V v))``, V the columns of ``other`` (default U)."""
        ...

    def cross_gram(self, other: StumpOperator, weights: NDArray[np.float64] | float) -> NDArray[np.float64]:
        """``U^T diag(weights) V``, V the columns of ``other``."""
        ...

    def weighted_gram(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T diag(weights) U``."""
        ...

    def rank_one_hessian(
        self, weights: NDArray[np.float64], a: NDArray[np.float64], total: float, scale: float
    ) -> NDArray[np.float64]:
        """``-scale (U^T diag(weights) U - a a^T / total)``."""
        ...

    def compiled_passes(self) -> object | None:
        """:meth:`margins` and :meth:`edges` for a compiled solver, or None."""
        ...

    def compiled_gram(self) -> object | None:
        """:meth:`weighted_gram` of any face for a compiled solver, where :meth:`gram_pays`, or None."""
        ...


class StumpOperatorBase(ABC):
    """The products of an implicit operator of columns U (N x t) that follow from its passes
    :meth:`margins` (``U w``), :meth:`edges` (``U^T d``) and :meth:`weighted_gram`: the Gram-vector
    products and the capped softmax's Hessian (the :class:`StumpOperator` a model reads). A subclass
    sets ``n_samples`` and ``n_columns`` and writes the passes, :meth:`restricted`, :meth:`pays` and
    :meth:`gram_work`."""

    n_samples: int
    n_columns: int

    @abstractmethod
    def restricted(self, columns: NDArray[np.intp]) -> StumpOperatorBase:
        """The operator of the columns ``columns``.

        Parameters
        ----------
        columns : ndarray of int
            Column indices.

        Returns
        -------
        StumpOperatorBase
            The operator of those columns, of the same kind.
        """

    @abstractmethod
    def pays(self, n_columns: int) -> bool:
        """Whether the implicit products beat the explicit ones for ``n_columns`` of these columns.

        Parameters
        ----------
        n_columns : int
            The number of columns the product would read.

        Returns
        -------
        bool
            True where the operator should be used.
        """

    @abstractmethod
    def gram_work(self, n_columns: int) -> float:
        """The cost of :meth:`weighted_gram` on ``n_columns`` of these columns, in dense multiply-adds
        (what the explicit Gram's N |S|^2 is compared with).

        Parameters
        ----------
        n_columns : int
            The number of columns |S|.

        Returns
        -------
        float
            The estimated cost.
        """

    def gram_pays(self, n_columns: int) -> bool:
        """Whether a compiled solver, which forms a Hessian by BLAS on U where it does not ask this
        operator, asks :meth:`weighted_gram` for ``n_columns`` of these columns (this default: where
        the operator pays, :meth:`pays`).

        Parameters
        ----------
        n_columns : int
            The columns |S| of the Gram.

        Returns
        -------
        bool
            True where the solver should ask for the Gram.
        """
        return self.pays(n_columns)

    def compiled_passes(self) -> object | None:
        """:meth:`margins` and :meth:`edges` as a compiled solver calls them without the GIL: a
        PyCapsule of the ``Passes`` struct of ``dualboost/solvers/_passes.pxd`` (valid while this
        operator lives), or None (this default: the solver calls the methods).

        Returns
        -------
        PyCapsule or None
            The passes, or None.
        """
        return None

    def compiled_gram(self) -> object | None:
        """:meth:`weighted_gram` of the columns of any face as a compiled solver calls it without the
        GIL: a PyCapsule of the ``Gram`` struct of ``dualboost/solvers/_passes.pxd`` (valid while this
        operator lives), asked only for faces where :meth:`gram_pays`, or None (this default: the
        solver calls :meth:`restricted` and :meth:`weighted_gram`).

        Returns
        -------
        PyCapsule or None
            The Gram, or None.
        """
        return None

    @abstractmethod
    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U w`` (of shape (N,)) for a vector w over the columns (of shape (t,))."""

    @abstractmethod
    def edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T d`` (of shape (t,)) for a vector d over the rows (of shape (N,))."""

    @abstractmethod
    def weighted_gram(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T diag(weights) U``, dense t x t.

        Parameters
        ----------
        weights : ndarray of shape (N,)
            One weight per row.

        Returns
        -------
        ndarray of shape (t, t)
            The weighted Gram matrix.
        """

    def gram(
        self, v: NDArray[np.float64], weights: NDArray[np.float64] | float, other: StumpOperator | None = None
    ) -> NDArray[np.float64]:
        """``U^T (weights * (V v))``, V the columns of ``other`` (default U itself): two passes.

        Parameters
        ----------
        v : ndarray
            A vector over the columns of V.
        weights : ndarray of shape (N,) or float
            One weight per row, or a scalar.
        other : StumpOperator or None
            The operator of V (the same rows); None for these columns.

        Returns
        -------
        ndarray of shape (t,)
            The product.
        """
        return self.edges(weights * (self if other is None else other).margins(v))

    def cross_gram(self, other: StumpOperator, weights: NDArray[np.float64] | float) -> NDArray[np.float64]:
        """``U^T diag(weights) V`` for the columns V of ``other`` (the same rows): a :meth:`gram` per
        column of V.

        Parameters
        ----------
        other : StumpOperator
            The operator of V.
        weights : ndarray of shape (N,) or float
            One weight per row, or a scalar.

        Returns
        -------
        ndarray of shape (t, other.n_columns)
            The block.
        """
        unit = np.eye(other.n_columns)
        return np.column_stack([self.gram(e, weights, other) for e in unit])

    def rank_one_hessian(
        self, weights: NDArray[np.float64], a: NDArray[np.float64], total: float, scale: float
    ) -> NDArray[np.float64]:
        """``-scale (U^T diag(weights) U - a a^T / total)`` (0 for the rank-one term where ``total``
        is not positive, as :func:`low_rank_term`): the capped softmax's Hessian on these columns,
        :func:`centred_hessian` on :meth:`weighted_gram` (a subclass may form both in one pass).

        Parameters
        ----------
        weights : ndarray of shape (N,)
            The curvature weight of each row (0 on the rows that do not count).
        a : ndarray of shape (t,)
            ``U^T s`` on these columns.
        total : float
            ``sum s``.
        scale : float
            The regulariser's curvature scale (eta for the capped entropy).

        Returns
        -------
        ndarray of shape (t, t)
            The dual Hessian on these columns, dense.
        """
        a = np.asarray(a, dtype=np.float64)
        return centred_hessian(self.weighted_gram(weights), a, a, total, scale)


def _cuts(
    oracle, hypotheses: list, slots: dict[int, int], n: int
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """:class:`StumpColumns`' ``cut`` and ``sign`` of ``hypotheses`` (stumps and constants) on the feature
    slots ``slots`` (each feature's slot): each stump's rows at or below its threshold in its feature's
    sort order, found for the stumps of one feature at once."""
    cut = np.full(len(hypotheses), -1, dtype=np.intp)
    sign = np.empty(len(hypotheses))
    by_feature: dict[int, tuple[list[int], list[float]]] = {}
    for i, h in enumerate(hypotheses):
        sign[i] = h.sign
        if type(h) is Stump:
            columns, thresholds = by_feature.setdefault(h.feature, ([], []))
            columns.append(i)
            thresholds.append(h.threshold)
    for f, (columns, thresholds) in by_feature.items():
        below = oracle.sort_order(f)[1].searchsorted(np.array(thresholds, dtype=np.float64), side="right")
        cut[columns] = slots[f] * (n + 1) + below
    return cut, sign


def _cut(oracle, h: Stump | Constant, slots: dict[int, int], n: int) -> int:
    """:func:`_cuts` of one hypothesis, as an int (a boosting iteration's one new column)."""
    if type(h) is not Stump:
        return -1
    below = oracle.sort_order(h.feature)[1].searchsorted(h.threshold, side="right")
    return int(slots[h.feature] * (n + 1) + below)


#: :func:`_stump_feature` of a constant and of a hypothesis that is neither a stump nor a constant
CONSTANT, OTHER = -1, -2


def _stump_feature(h: object) -> int:
    """The feature of a stump hypothesis, :data:`CONSTANT` for a constant, :data:`OTHER` for any other
    hypothesis (the exact classes: a subclass may make other columns)."""
    kind = type(h)
    if kind is Stump:
        return h.feature
    return CONSTANT if kind is Constant else OTHER


def _added_features(new: list, known: Collection[int], pays: Callable[[int], bool]) -> set[int] | None:
    """The features of the stumps of ``new`` that are not in ``known`` (distinct features: a set, or
    the slots of an operator's); None where a hypothesis is neither a stump nor a constant, or where
    ``pays(len(known) + the features so far)`` fails: at the first feature too many, since a feature
    slot more never makes the operator pay (before the sort orders pay, a run's columns are read up
    to there only, not all of them every iteration)."""
    added = set()
    for h in new:
        feature = _stump_feature(h)
        if feature == OTHER:
            return None
        if feature >= 0 and feature not in known and feature not in added:
            added.add(feature)
            if not pays(len(known) + len(added)):
                return None
    return added if pays(len(known) + len(added)) else None


class StumpFeatures:
    """The features of the stumps among a boosting run's hypotheses, gathered as the list grows, for
    :func:`~dualboost.problems.sparse_columns.stump_operator`: whether :meth:`StumpColumns.of` gives
    no operator of the list (:meth:`rules_out`) is then known from the hypotheses added since it was
    last asked (german's run makes none for its first ~65 iterations, and :meth:`StumpColumns.of`,
    extending no operator, read all the hypotheses so far at each of them).

    Parameters
    ----------
    hypotheses : list
        The run's hypotheses (an ``Ensemble``'s list), which are only ever appended to: the census
        counts this list (its identity) and reads each entry once.
    """

    def __init__(self, hypotheses: list) -> None:
        self.hypotheses = hypotheses
        #: how many of the hypotheses were read
        self.read = 0
        #: the features of the stumps read
        self.features: set[int] = set()
        #: whether a hypothesis read is neither a stump nor a constant
        self.other = False

    def rules_out(self, n_samples: int) -> bool:
        """Whether :meth:`StumpColumns.of` of the hypotheses so far (extending any operator of their
        first columns that it made) is None for their stumps' features: a hypothesis that is neither a
        stump nor a constant, or feature slots that do not pay (``StumpColumns._slots_pay``, which
        fails for a slot more once it fails: :func:`_added_features` stops at that slot, this census
        asks of all the slots; of one where there is no feature, as :meth:`StumpColumns.of` asks
        first).

        Parameters
        ----------
        n_samples : int
            The rows N of the columns.

        Returns
        -------
        bool
            True where no :class:`StumpColumns` is made (False: it may be, :meth:`StumpColumns.of` tells).
        """
        hypotheses, features = self.hypotheses, self.features
        for h in hypotheses[self.read :]:
            feature = _stump_feature(h)
            if feature >= 0:
                features.add(feature)
            elif feature == OTHER:
                self.other = True
        t = self.read = len(hypotheses)
        return self.other or not StumpColumns._slots_pay(n_samples, t, max(len(features), 1))


def _sort_orders(
    oracle, features: tuple[int, ...], previous: StumpColumns | None
) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """:class:`StumpColumns`' ``order`` and ``position`` of the feature slots ``features``: the rows of
    each feature by increasing value and each row's place in that order (the feature slots of
    ``previous`` copied from it)."""
    n = oracle.n_samples_
    order = np.array([oracle.sort_order(f)[0] for f in features], dtype=np.int32).reshape(len(features), n)
    position = np.empty_like(order)
    known = {} if previous is None else {f: k for k, f in enumerate(previous.features)}
    rows = np.arange(n, dtype=np.int32)
    for k, f in enumerate(features):
        if f in known:
            position[k] = previous.position[known[f]]
        else:
            position[k, order[k]] = rows
    return order, position


#: :meth:`StumpColumns._fewest_paying` by (class, N, feature slots, the class's thresholds)
_FEWEST_PAYING: dict[tuple, int] = {}
#: the most columns of a face that the compiled Gram is formed on (2^26: far beyond any run's t, and
#: small enough that the work estimates' k^2 are exact, so that ``gram_pays`` only grows with k)
FACE_LIMIT = 2**26


class _GrowingColumns:
    """The index arrays of a run's :class:`StumpColumns` (``cut``, ``sign`` per column; ``stumps``,
    ``stump_cut`` per stump; ``constants``) with room to grow, doubled when full (as the Ensemble's
    columns): a boosting iteration appends its new column in place, O(1), where the operator
    extended is the latest made, and copies the operator's entries first otherwise (an older one
    extended again). Each operator holds views of the first entries, which later ones leave as they
    are (entries are only appended)."""

    def __init__(self, operator: StumpColumns) -> None:
        self.sizes = (operator.n_columns, operator.stumps.size, operator.constants.size)
        self.cut, self.sign = _room(operator.cut), _room(operator.sign)
        self.stumps, self.stump_cut = _room(operator.stumps), _room(operator.stump_cut)
        self.constants = _room(operator.constants)

    def extended(
        self,
        n_columns: int,
        n_stumps: int,
        n_constants: int,
        cut: NDArray[np.intp] | int,
        sign: NDArray[np.float64] | float,
    ) -> _GrowingColumns:
        """The arrays of the operator of ``n_columns`` columns (``n_stumps`` stumps, ``n_constants``
        constants) with the columns ``cut``, ``sign`` appended (arrays, or one column's int and sign):
        these arrays where that operator's entries are all those written so far, else a copy of its
        entries, so extended."""
        grown = self
        if (n_columns, n_stumps, n_constants) != self.sizes:
            grown = object.__new__(_GrowingColumns)
            grown.sizes = (n_columns, n_stumps, n_constants)
            grown.cut, grown.sign = _room(self.cut[:n_columns]), _room(self.sign[:n_columns])
            grown.stumps, grown.stump_cut = _room(self.stumps[:n_stumps]), _room(self.stump_cut[:n_stumps])
            grown.constants = _room(self.constants[:n_constants])
        grown._append(cut, sign)
        return grown

    def _append(self, cut: NDArray[np.intp] | int, sign: NDArray[np.float64] | float) -> None:
        t, s, c = self.sizes
        if type(cut) is int:  # (a boosting iteration's one new column, by scalars; room checked first)
            if self.cut.size <= t or self.sign.size <= t:
                self.cut, self.sign = _fit(self.cut, t + 1), _fit(self.sign, t + 1)
            self.cut[t], self.sign[t] = cut, sign
            if cut >= 0:
                if self.stumps.size <= s or self.stump_cut.size <= s:
                    self.stumps, self.stump_cut = _fit(self.stumps, s + 1), _fit(self.stump_cut, s + 1)
                self.stumps[s], self.stump_cut[s] = t, cut
                self.sizes = (t + 1, s + 1, c)
            else:
                self.constants = _fit(self.constants, c + 1)
                self.constants[c] = t
                self.sizes = (t + 1, s, c + 1)
            return
        is_stump = cut >= 0
        new_stumps = int(np.count_nonzero(is_stump))
        self.cut, self.sign = _fit(self.cut, t + cut.size), _fit(self.sign, t + cut.size)
        self.stumps, self.stump_cut = _fit(self.stumps, s + new_stumps), _fit(self.stump_cut, s + new_stumps)
        self.constants = _fit(self.constants, c + cut.size - new_stumps)
        self.cut[t : t + cut.size], self.sign[t : t + cut.size] = cut, sign
        self.stumps[s : s + new_stumps] = is_stump.nonzero()[0] + t
        self.stump_cut[s : s + new_stumps] = cut[is_stump]
        self.constants[c : c + cut.size - new_stumps] = (~is_stump).nonzero()[0] + t
        self.sizes = (t + cut.size, s + new_stumps, c + cut.size - new_stumps)

    def views(self) -> tuple[NDArray, ...]:
        """``(cut, sign, stumps, constants, stump_cut)`` of the entries written so far (views)."""
        t, s, c = self.sizes
        return self.cut[:t], self.sign[:t], self.stumps[:s], self.constants[:c], self.stump_cut[:s]


def _room(entries: NDArray) -> NDArray:
    """A copy of ``entries`` in an array of twice their size (at least 16)."""
    out = np.empty(max(2 * entries.size, 16), dtype=entries.dtype)
    out[: entries.size] = entries
    return out


def _fit(array: NDArray, size: int) -> NDArray:
    """``array``, or a copy of it twice as large where it is smaller than ``size``."""
    if array.size >= size:
        return array
    out = np.empty(max(size, 2 * array.size), dtype=array.dtype)
    out[: array.size] = array
    return out


class StumpColumns(StumpOperatorBase):
    """The edge matrix of decision stumps and constants, ``u_j = y * s_j * (+1 if x_{f_j} > theta_j
    else -1)`` (constants: ``y * s_j``), as an operator (docs/architecture.md#compiled-code): each
    feature's sort order is known once (:meth:`~dualboost.oracles.DecisionStumps.sort_order`), so

    * ``U w = y * (2 sum_f A_f - sum_stumps s_j w_j + sum_constants s_j w_j)``, with ``A_f`` at each
      row the sum of ``s_j w_j`` over the stumps of feature f whose threshold lies below the row's
      value: the weights dropped at their cut in f's sort order, a running sum along it, a gather
      per row: O(N F + t) instead of O(N t);
    * ``U^T d``, per stump, ``s_j (sum(v) - 2 C_j)``, ``C_j`` the running sum of ``v = y d`` along
      its feature's sort order up to its cut: O(N F + t).

    The products equal the explicit ones up to the order of summation (relative differences of
    order 1e-15, tests/problems/test_stump_columns.py). ``cut[j]`` is the flat slot ``f * (N + 1) + p`` of a
    stump on feature slot f with p rows at or below its threshold, -1 for a constant. The passes are
    compiled (``dualboost/problems/_stump_products.pyx``).

    Parameters
    ----------
    y : ndarray of shape (N,)
        The labels, -1 or +1.
    order : ndarray of int32, shape (F, N)
        The rows by increasing value, per feature slot.
    position : ndarray of int32, shape (F, N)
        Each row's slot in the running sums of each feature slot.
    cut : ndarray of int
        Each column's flat cut slot ``f * (N + 1) + p``, -1 for a constant.
    sign : ndarray
        Each column's sign s_j.
    features : tuple of int
        The feature of each feature slot.
    """

    #: below this many columns per feature slot the explicit products (BLAS on a U that fits in cache)
    #: are faster (benchmarks/results/stump_products.txt, N = 4000, F = 20, one BLAS thread: the
    #: implicit U^T (g U v) 0.39x the dense speed at t = 50, 1.5x at t = 100, 3.6x at t = 200)
    MIN_COLUMNS_PER_FEATURE = 4
    #: nor below this many entries of U (N t), where a dense U sits in cache. With the products alone
    #: 4e5 (german and diabetes ran 0.84x as fast through the operator); with its Gram
    #: (:meth:`weighted_gram`, O(N F^2 + |S|^2) against N |S|^2) diabetes runs 1.6-1.7x as fast from
    #: 5e4 on and german 1.05x (benchmarks/results/vs_adaboost.txt)
    MIN_ENTRIES = 5e4
    #: the arrays with room to grow whose first entries are this operator's (:meth:`_extended`), or
    #: None (made by :meth:`__init__`: its own arrays)
    _store: _GrowingColumns | None = None
    #: a compiled solver forms the Gram of |S| columns from the histograms (:meth:`weighted_gram`)
    #: where :meth:`gram_work` is at most this share of the dense Gram's N |S|^2 multiply-adds, even
    #: where the products do not pay (their random reads cost several dense multiply-adds each)
    GRAM_SHARE = 1 / 16

    def __init__(
        self,
        y: NDArray[np.float64],
        order: NDArray[np.int32],
        position: NDArray[np.int32],
        cut: NDArray[np.intp],
        sign: NDArray[np.float64],
        features: tuple[int, ...],
    ) -> None:
        self.y, self.order, self.position, self.features = y, order, position, features
        self.cut, self.sign = cut, sign
        is_stump = cut >= 0
        self.stumps = is_stump.nonzero()[0]
        self.constants = (~is_stump).nonzero()[0]
        self.stump_cut = cut[self.stumps]  # (a fresh contiguous array)
        self.n_samples, self.n_columns = y.size, cut.size

    @classmethod
    def of(cls, oracle, hypotheses: list, previous: StumpColumns | None = None) -> StumpColumns | None:
        """The operator of the columns of ``hypotheses`` (:class:`~dualboost.oracles.stumps.Stump` and
        :class:`~dualboost.oracles.stumps.Constant` of a fitted
        :class:`~dualboost.oracles.DecisionStumps` ``oracle``; None for any other hypothesis),
        extending ``previous`` (the operator of a prefix of the same list) by the new columns. None
        too where neither its products nor its Gram pay (:meth:`pays`, :meth:`gram_pays`: nothing is
        sorted or stacked then, e.g. for the many features of a topic set, one or two stumps each),
        or where the compiled passes are not built (docs/architecture.md#compiled-code)."""
        n, t = oracle.n_samples_, len(hypotheses)
        if StumpPasses is None:
            return None
        if previous is not None and t == previous.n_columns + 1:  # (a boosting iteration's one new column)
            h, slots = hypotheses[-1], previous.slots
            feature = _stump_feature(h)
            if feature == CONSTANT or feature in slots:  # no slot added: what
                # the steps below come to (the slots pay for one where they pay for more, or for none)
                if not cls._slots_pay(n, t, max(len(slots), 1)):
                    return None
                return previous._extended(_cut(oracle, h, slots, n), h.sign)
        if not cls._slots_pay(n, t, 1):
            return None  # (at least one feature slot: too few entries or columns for any, found in O(1))
        done = 0 if previous is None else previous.n_columns
        slots = {} if previous is None else previous.slots
        new = hypotheses[done:]
        added = _added_features(new, slots, lambda count: cls._slots_pay(n, t, count))
        if added is None:
            return None
        if previous is not None and not added:
            return previous._extended(*_cuts(oracle, new, slots, n))
        # the feature slots in increasing feature order, every cut placed in them: the products'
        # order of summation depends on the columns only, not on the order they came in (a resumed
        # run sums as the uninterrupted one did)
        features = tuple(sorted(added.union(slots)))
        slots = {f: k for k, f in enumerate(features)}
        order, position = _sort_orders(oracle, features, previous)
        if previous is None:
            return cls(oracle.y_, order, position, *_cuts(oracle, hypotheses, slots, n), features)
        # the previous columns' cuts moved to the new slots of their features (their rows unchanged)
        moved = np.array([slots[f] for f in previous.features], dtype=np.intp)
        cut = previous.cut.copy()
        is_stump = cut >= 0
        slot = cut[is_stump] // (n + 1)
        cut[is_stump] += (moved[slot] - slot) * (n + 1)
        new_cut, new_sign = _cuts(oracle, new, slots, n)
        cut, sign = np.concatenate((cut, new_cut)), np.concatenate((previous.sign, new_sign))
        return cls(oracle.y_, order, position, cut, sign, features)

    @functools.cached_property
    def slots(self) -> dict[int, int]:
        """Each feature's slot (its index in ``features``), made on first use (:meth:`of`, which
        places the new columns' cuts) and shared by the operators :meth:`of` extends this one to."""
        return {f: k for k, f in enumerate(self.features)}

    def _extended(self, cut: NDArray[np.intp] | int, sign: NDArray[np.float64] | float) -> StumpColumns:
        """This operator with the columns ``cut``, ``sign`` appended (arrays, or one column's int and
        sign; on the same feature slots): the index arrays of :meth:`__init__` extended by the new
        columns' in the arrays with room to grow that the operators of a run share
        (:class:`_GrowingColumns`; no pass over ``cut >= 0`` of every column, no copy of the t
        columns' entries)."""
        store = self._store if self._store is not None else _GrowingColumns(self)
        store = store.extended(self.n_columns, self.stumps.size, self.constants.size, cut, sign)
        grown = object.__new__(type(self))  # (its attributes set in __init__'s order: a shared-key dict)
        grown.y, grown.order, grown.position = self.y, self.order, self.position
        grown.features = self.features
        grown.cut, grown.sign, grown.stumps, grown.constants, grown.stump_cut = store.views()
        grown.n_samples, grown.n_columns = self.n_samples, grown.cut.size
        grown.slots, grown._store = self.slots, store
        return grown

    def restricted(self, columns: NDArray[np.intp]) -> StumpColumns:
        """The operator of the columns ``columns`` (the sort orders shared)."""
        return StumpColumns(
            self.y, self.order, self.position, self.cut[columns], self.sign[columns], self.features
        )

    def pays(self, n_columns: int) -> bool:
        """Whether the implicit products beat the explicit ones for ``n_columns`` of these columns."""
        return self._pays(self.n_samples, n_columns, len(self.features))

    def gram_work(self, n_columns: int) -> float:
        """The multiply-adds of :meth:`weighted_gram` on ``n_columns`` of these columns: a histogram
        entry per row and pair of feature slots, and the Gram's entries.

        Parameters
        ----------
        n_columns : int
            How many of these columns the Gram is formed on.

        Returns
        -------
        float
            ``N F (F + 1) / 2 + n_columns^2``, F the feature slots.
        """
        return self._gram_work(self.n_samples, n_columns, len(self.features))

    def gram_pays(self, n_columns: int) -> bool:
        """:meth:`StumpOperatorBase.gram_pays`: where the products pay, and where :meth:`gram_work` is
        at most :attr:`GRAM_SHARE` of the dense Gram's N |S|^2."""
        return self.pays(n_columns) or self._gram_pays(self.n_samples, n_columns, len(self.features))

    @staticmethod
    def _gram_work(n_samples: int, n_columns: int, n_features: int) -> float:
        return n_samples * n_features * (n_features + 1) / 2 + n_columns**2

    @classmethod
    def _gram_pays(cls, n_samples: int, n_columns: int, n_features: int) -> bool:
        work = cls._gram_work(n_samples, n_columns, n_features)
        return work <= cls.GRAM_SHARE * n_samples * n_columns**2

    @classmethod
    def _pays(cls, n_samples: int, n_columns: int, n_features: int) -> bool:
        return (
            n_columns >= cls.MIN_COLUMNS_PER_FEATURE * max(n_features, 1)
            and n_samples * n_columns >= cls.MIN_ENTRIES
        )

    @classmethod
    def _slots_pay(cls, n_samples: int, n_columns: int, n_features: int) -> bool:
        """Whether the products or the Gram of ``n_columns`` columns on ``n_features`` feature slots
        pay (what :meth:`of` asks of the slots it would make; never again with a slot more): from the
        fewest columns on which they do (:meth:`_fewest_paying`, found once; a boosting iteration
        asked the rules' three calls again)."""
        if not 0 < n_columns <= FACE_LIMIT:  # (outside the search)
            return cls._pays(n_samples, n_columns, n_features) or cls._gram_pays(
                n_samples, n_columns, n_features
            )
        return n_columns >= cls._fewest_paying(n_samples, n_features)

    @classmethod
    def _fewest_paying(cls, n_samples: int, n_features: int) -> int:
        """The fewest columns k on which the products or the Gram of ``n_features`` feature slots pay
        (``_pays`` or ``_gram_pays``; :meth:`gram_pays` of an operator): it depends on N, the feature
        slots and the class's thresholds only, and holds from k on (more columns only pay more), so it
        is found once (a doubling, then a bisection; every boosting iteration's operator searched
        [1, t + 1] again, ~13 us at t ~ 300) and kept; :data:`FACE_LIMIT` + 1 where none up to
        :data:`FACE_LIMIT` does."""
        key = (cls, n_samples, n_features, cls.MIN_COLUMNS_PER_FEATURE, cls.MIN_ENTRIES, cls.GRAM_SHARE)
        found = _FEWEST_PAYING.get(key)
        if found is None:

            def pays(k: int) -> bool:
                return cls._pays(n_samples, k, n_features) or cls._gram_pays(n_samples, k, n_features)

            high = 1  # (searched up to FACE_LIMIT columns, where k^2 is exact in float64)
            while high < FACE_LIMIT and not pays(high):
                high *= 2
            low = high // 2 + 1 if high > 1 else 1  # the fewest lie in [low, high] (or none do)
            while low < high:
                middle = (low + high) // 2
                if pays(middle):
                    high = middle
                else:
                    low = middle + 1
            found = _FEWEST_PAYING[key] = low if pays(low) else FACE_LIMIT + 1
        return found

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_passes", None)  # compiled, made again on first use
        state.pop("_store", None)  # the run's arrays with room to grow: its own views are pickled
        return state

    def passes(self) -> StumpPasses:
        """The compiled passes of these columns (``_stump_products.StumpPasses``), made on first use:
        :meth:`margins` and :meth:`edges` call them, and a compiled solver calls the same functions
        without the GIL (``StumpPasses.capsule``, dualboost/solvers/_passes.pxd)."""
        made = self.__dict__.get("_passes")
        if made is None:
            made = self._passes = StumpPasses(  # (column_cut: ``cut`` itself, -1 for the constants)
                self.y,
                self.order,
                self.position,
                self.stump_cut,
                self.sign,
                self.stumps,
                self.constants,
                np.ascontiguousarray(self.cut, dtype=np.intp),
            )
        return made

    def compiled_passes(self) -> object:
        """:meth:`StumpOperatorBase.compiled_passes`: ``StumpPasses.capsule`` of :meth:`passes`."""
        return self.passes().capsule()

    def compiled_gram(self) -> object:
        """:meth:`StumpOperatorBase.compiled_gram`: ``StumpPasses.gram_capsule`` of :meth:`passes`
        (``stump_gram`` on the face's columns, as ``restricted(face).weighted_gram``), for faces of at
        least the fewest columns on which :meth:`gram_pays` (it grows with the columns), at most
        ``n_columns + 1`` (none of these columns' faces) and :data:`FACE_LIMIT` + 1."""
        return self.passes().gram_capsule(min(self._fewest_gram_columns(), self.n_columns + 1))

    def _fewest_gram_columns(self) -> int:
        """The fewest columns k on which :meth:`gram_pays` (:meth:`_fewest_paying` of these rows and
        feature slots)."""
        return self._fewest_paying(self.n_samples, len(self.features))

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U w`` (w a vector over the columns): ``y * (2 sum_f A_f + sum_constants s_j w_j -
        sum_stumps s_j w_j)``, ``A_f`` the running sums of the stumps' ``s_j w_j`` placed at their cuts
        (``StumpPasses.margins``)."""
        return self.passes().margins(w)

    def edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T d`` (d a vector over the rows): per stump ``s_j (sum(v) - 2 C_j)`` with ``C_j`` the
        running sum of ``v = y d`` up to its cut, per constant ``s_j sum(v)`` (``StumpPasses.edges``)."""
        return self.passes().edges(d)

    def weighted_gram(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T diag(weights) U`` (weights one per row), O(N F_S^2 + t^2) for the F_S feature slots
        of these columns' stumps, instead of O(N t^2): with ``a_j = [x_{f_j} > theta_j]``,
        ``u_i u_j = s_i s_j (4 a_i a_j - 2 a_i - 2 a_j + 1)`` (``y^2 = 1``; a constant's ``a`` is 1),
        so the Gram is ``s_i s_j (4 A_ij - 2 A_ii - 2 A_jj + sum weights)`` with
        ``A_ij = sum_n weights_n a_i a_j``: on one feature the weight above the higher threshold, on
        two the weight in a quadrant, read from the 2D histograms of the rows' buckets (between the
        sorted cuts of each feature slot) summed from the top (``_stump_products.stump_gram``).
        Equal to the explicit Gram up to rounding relative to ``sum |weights|``."""
        out = np.empty((self.n_columns, self.n_columns))
        stump_gram(self.position, self.cut, self.sign, np.asarray(weights, dtype=np.float64), out)
        return out

    def rank_one_hessian(
        self, weights: NDArray[np.float64], a: NDArray[np.float64], total: float, scale: float
    ) -> NDArray[np.float64]:
        """:meth:`StumpOperatorBase.rank_one_hessian` in the Gram's pass: ``stump_gram`` (as
        :meth:`weighted_gram`) adds the rank-one term and scales each entry as it writes it."""
        out = np.empty((self.n_columns, self.n_columns))
        inverse = 1.0 / total if total > 0 else 0.0
        weights = np.asarray(weights, dtype=np.float64)
        a = np.ascontiguousarray(a, dtype=np.float64)
        stump_gram(self.position, self.cut, self.sign, weights, out, a, inverse, -scale)
        return out
