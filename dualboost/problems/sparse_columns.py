"""Decision-stump columns on sparse features as a sparse operator: :class:`SparseStumpColumns`, and
:func:`stump_operator`, which picks it or :class:`~dualboost.problems.kernels.StumpColumns` for a
boosting run's ensemble (docs/architecture.md#compiled-code).

A stump ``h(x) = s if x_f > theta else -s`` takes one value on the rows where ``x_f = 0`` (every row
outside the feature's nonzeros) and flips only on a subset of the nonzeros, so its column is a
constant plus a sparse indicator: ``u_j = y * (c_j + a_j b_j)`` with ``b_j`` the 0/1 indicator of
the rows where h differs from its value at ``x_f = 0`` (or of the complement, whichever is smaller),
``c_j`` the column's value there and ``a_j = +-2``. With B the N x t indicator matrix (CSC, nnz(B) <=
sum_j min(df_j, N - df_j), df the features' nonzero counts):

* ``U w = y * ((c . w) + B (a * w))`` and ``U^T d = c (y . d) + a * (B^T (y d))``: O(N + nnz(B)) per
  product instead of O(N t);
* ``U^T diag(g) U = (sum g) c c^T + c q^T + q c^T + (a a^T) * (B^T diag(g) B)``, ``q = a * (B^T g)``
  (since y^2 = 1): O(N + sum_n nnz(B_n)^2) instead of O(N t^2).

On a topic set (binary bag of words, 20,000 x 1.36M) a run's ~760 stumps are on ~750 different
words, where the sort orders of ``StumpColumns`` do not pay (one stump per feature), but B holds
~3 % of U's entries (benchmarks/results/scale.txt).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from dualboost.oracles.stumps import Constant, Stump
from dualboost.problems.kernels import (
    OTHER,
    StumpColumns,
    StumpFeatures,
    StumpOperatorBase,
    _fit,
    _room,
    _stump_feature,
)

try:  # B's products and Gram in compiled code, on its int32 rows (IndicatorPasses); else scipy's
    from dualboost.problems._stump_products import IndicatorPasses
except ImportError:  # a source tree that was not built
    IndicatorPasses = None

__all__ = ["SparseStumpColumns", "stump_operator"]


def _flipped(X: sp.csc_matrix, h: Stump) -> tuple[NDArray[np.bool_], float, float]:
    """``(mask, c, a)`` of a stump's column ``h(x) = c + a [x_f's nonzero at mask]`` (before the
    labels), the mask over the feature's stored entries (CSC order)."""
    start, stop = X.indptr[h.feature], X.indptr[h.feature + 1]
    values, s = X.data[start:stop], float(h.sign)
    if h.threshold >= 0.0:  # x_f = 0 gives -s; the nonzeros above the threshold give +s
        return values > h.threshold, -s, 2.0 * s
    return values <= h.threshold, s, -2.0 * s  # x_f = 0 gives +s; those at or below it give -s


def _column_parts(X: sp.csc_matrix, n_samples: int, h: Stump | Constant) -> tuple[int, float, float]:
    """``(size, c, a)`` of :func:`_indicator` without its rows: how many rows it has (at most half of
    them) and the column's constant and jump."""
    if type(h) is Constant:
        return 0, float(h.sign), 0.0
    mask, c, a = _flipped(X, h)
    size = int(np.count_nonzero(mask))
    return (n_samples - size, c + a, -a) if 2 * size > n_samples else (size, c, a)


def _indicator(
    X: sp.csc_matrix, n_samples: int, h: Stump | Constant
) -> tuple[NDArray[np.int32], float, float]:
    """``(rows, c, a)`` of one hypothesis's column ``h(x) = c + a [n in rows]`` (before the labels):
    rows sorted, at most half of the rows (the complement is taken where it is smaller)."""
    if type(h) is Constant:
        return np.zeros(0, dtype=np.int32), float(h.sign), 0.0
    mask, c, a = _flipped(X, h)
    rows = X.indices[X.indptr[h.feature] : X.indptr[h.feature + 1]][mask]
    if 2 * rows.size > n_samples:
        keep = np.ones(n_samples, dtype=bool)
        keep[rows] = False
        rows, c, a = np.flatnonzero(keep), c + a, -a
    return np.asarray(rows, dtype=np.int32), c, a


class _Indicators:
    """The CSC arrays of a growing B (row indices, column pointers, data all ones) with room to
    grow: a run's operator is extended by the new columns only (O(their nonzeros) at each boosting
    iteration, not O(nnz(B))), the arrays doubled when full (as the Ensemble's columns). Each
    operator's B is a read-only view of the first columns, which later columns leave as they are."""

    def __init__(self) -> None:
        self.indices = np.empty(0, dtype=np.int32)
        self.indptr = np.zeros(1, dtype=np.intp)
        #: the columns written so far
        self.n_columns = 0
        #: the hypothesis of each column written
        self.hypotheses: list = []

    def extended(self, n_columns: int, hypotheses: list, find: Callable) -> _Indicators:
        """The indicators of the first ``n_columns`` columns and then those of ``hypotheses``
        (``find(h)``: the sorted rows of h's column): these, as they are where their next columns
        are those hypotheses already (written for a later operator, found first), appended to in
        place where ``n_columns`` are all the columns written so far, else a copy of those columns
        so extended (an older operator extended again)."""
        total = n_columns + len(hypotheses)
        written = self.hypotheses[n_columns:total]
        if len(written) == len(hypotheses) and all(a is b for a, b in zip(written, hypotheses, strict=True)):
            return self
        grown = self
        if n_columns != self.n_columns:
            nnz = self.indptr[n_columns]
            grown = _Indicators()
            grown.indices, grown.indptr = self.indices[:nnz].copy(), self.indptr[: n_columns + 1].copy()
            grown.n_columns, grown.hypotheses = n_columns, self.hypotheses[:n_columns]
        grown._append([find(h) for h in hypotheses])
        grown.hypotheses.extend(hypotheses)
        return grown

    def _append(self, rows: list[NDArray[np.int32]]) -> None:
        t, nnz = self.n_columns, int(self.indptr[self.n_columns])
        ends = nnz + np.cumsum([r.size for r in rows], dtype=np.intp)
        total = int(ends[-1]) if ends.size else nnz
        if self.indptr.size < t + len(rows) + 1:
            self.indptr = np.resize(self.indptr, max(t + len(rows) + 1, 2 * self.indptr.size))
        if self.indices.size < total:
            self.indices = np.resize(self.indices, max(total, 2 * self.indices.size))
        self.indptr[t + 1 : t + 1 + len(rows)] = ends
        if rows:
            np.concatenate(rows, out=self.indices[nnz:total])
        self.n_columns = t + len(rows)

    def arrays(self, n_columns: int) -> tuple[NDArray[np.int32], NDArray[np.intp], None]:
        """``(indices, indptr, None)`` of the first ``n_columns`` columns (an operator's ``source``):
        read-only views of the arrays (O(1), no copy of the nonzeros)."""
        views = self.indices[: self.indptr[n_columns]], self.indptr[: n_columns + 1]
        for view in views:
            view.flags.writeable = False
        return views[0], views[1], None


class _ColumnValues:
    """The ``c`` and ``a`` of a run's operators made by :meth:`SparseStumpColumns.of`, with room to
    grow (doubled when full, as the Ensemble's columns): a boosting iteration writes its new column's
    in place where the operator extended is the latest made (its entries are all those written so
    far), and copies that operator's first otherwise (an older one extended again). Each operator
    holds views of the first entries, which later ones leave as they are (np.concatenate of the t
    entries at every iteration cost ~3.5 us of german's)."""

    def __init__(self, c: ArrayLike, a: ArrayLike) -> None:
        c, a = np.asarray(c, dtype=np.float64), np.asarray(a, dtype=np.float64)
        self.c, self.a, self.size = _room(c), _room(a), c.size

    def extended(
        self, c: NDArray[np.float64], a: NDArray[np.float64], new_c: list[float], new_a: list[float]
    ) -> _ColumnValues:
        """The values of the operator whose ``c`` and ``a`` are given (views of these, or its own)
        followed by ``new_c`` and ``new_a``: these, appended to in place where that operator's are
        all the entries written so far, else a copy of its entries, so extended."""
        grown = self if c.size == self.size else _ColumnValues(c, a)
        start, end = grown.size, grown.size + len(new_c)
        if grown.c.size < end or grown.a.size < end:
            grown.c, grown.a = _fit(grown.c, end), _fit(grown.a, end)
        if end == start + 1:  # (a boosting iteration's one new column, by scalars)
            grown.c[start], grown.a[start] = new_c[0], new_a[0]
        else:
            grown.c[start:end], grown.a[start:end] = new_c, new_a
        grown.size = end
        return grown

    def views(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(c, a)`` of the entries written so far (views)."""
        return self.c[: self.size], self.a[: self.size]


class SparseStumpColumns(StumpOperatorBase):
    """The columns ``u_j = y * (c_j + a_j b_j)`` of decision stumps and constants on sparse features
    (module docstring) as an operator with the products of
    :class:`~dualboost.problems.kernels.StumpColumns` (the models use either through
    :attr:`~dualboost.problems.Model.stump_columns`, a
    :class:`~dualboost.problems.kernels.StumpOperator`). Exact up to the order of summation.

    Parameters
    ----------
    y : ndarray of shape (N,)
        The labels, -1 or +1.
    c : ndarray of shape (t,)
        Each column's value (before the labels) on the rows outside ``b_j``.
    a : ndarray of shape (t,)
        Each column's jump on the rows of ``b_j`` (0 for a constant).
    B : scipy.sparse.csc_matrix of shape (N, t) or None
        The 0/1 indicators ``b_j`` (data all ones, indices sorted); None where :meth:`of` dropped
        them (the operator then only counts them, ``nnz``, and never pays), or where ``source``
        gives them.
    nnz : int or None
        nnz(B) where B is None.
    source : tuple or None
        ``(indices, indptr, columns)``: B's rows as CSC arrays, column l being column
        ``columns[l]`` of them (None: column l), read without a copy (:meth:`of`,
        :meth:`restricted`); B is then made from them on first use.
    pending : tuple or None
        ``(oracle, hypotheses, written)`` (:meth:`of`): B's rows are those of the first ``written``
        columns of ``grown`` and then those of ``hypotheses`` (stumps and constants of ``oracle``),
        found on first use (``source`` is then made): an operator that neither :meth:`pays` nor
        :meth:`gram_pays`, as at every iteration of german's and diabetes' runs before the sort
        orders pay, never finds them (:meth:`pays` and :meth:`gram_pays` read ``nnz`` only).
    """

    #: the largest share of U's entries that B may hold for the products to pay. The compiled passes
    #: (``IndicatorPasses``) cost 1.7-3.3 dense (BLAS dgemv) multiply-adds per nonzero of B where U
    #: is out of cache (a9a, N = 29,305; a Gaussian set, N = 30,000) and 5-7 where it is in cache
    #: (german, diabetes), benchmarks/results/sparse_columns.txt: at a quarter of U's entries they
    #: are as fast as BLAS or faster out of cache (a9a, B at 0.14-0.19 of U: 1.5-3.8x as fast; the
    #: Gaussian set, B at 0.27-0.28: 1.3-2.2x, left out to stay on the safe side)
    MAX_DENSITY = 0.25
    #: nor below this many entries of U (N t), where a dense U sits in cache (german, diabetes: the
    #: passes 0.4-1.1x BLAS's speed below it, benchmarks/results/sparse_columns.txt)
    MIN_ENTRIES = 4e5
    #: a pair of a row's nonzeros in the Gram ``B^T diag(g) B`` (``IndicatorPasses.weighted_gram``,
    #: one scattered add into a t x t block) costs about as much as this many multiply-adds of the
    #: dense Gram ``N t^2`` (the compiled re-solve's row scaling and dsyrk): 17-30 on a9a, 13-32 on
    #: german, diabetes and the Gaussian set (benchmarks/results/sparse_columns.txt); the upper end,
    #: so that the Gram is asked for only where it is the faster (a9a: 1.1-2.9x the dense one's speed)
    SPARSE_MADD_COST = 30.0
    #: :meth:`of` keeps no indicators while B would hold more than this many times
    #: :attr:`MAX_DENSITY` of U's entries (dense features: 0.21-0.28 of them on german, diabetes and
    #: the Gaussian set of benchmarks/sparse_columns.py, 0.26-0.48 in ERLPBoost runs on
    #: benchmarks/scale.py's dense set, where the rows kept would reach ~N/4 int32 per column)
    DROP_MARGIN = 1.5
    #: the run's ``c`` and ``a`` with room to grow whose first entries are this operator's (:meth:`of`
    #: extends them), or None (an operator given its own)
    _values: _ColumnValues | None = None

    def __init__(
        self,
        y: NDArray[np.float64],
        c: NDArray[np.float64],
        a: NDArray[np.float64],
        B: sp.csc_matrix | None,
        *,
        grown: _Indicators | None = None,
        nnz: int | None = None,
        source: tuple[NDArray[np.int32], NDArray[np.intp], NDArray[np.intp] | None] | None = None,
        pending: tuple | None = None,
    ) -> None:
        self.y, self.c, self.a = y, c, a
        self.n_samples, self.n_columns = y.size, c.size
        #: ``(oracle, hypotheses, written)`` whose rows :meth:`_found` appends to ``grown``'s first
        #: ``written`` columns (then None); None: the rows are known (or dropped)
        self._pending = pending
        #: ``(indices, indptr, columns)``: B's column l is column ``columns[l]`` of the CSC arrays
        #: ``indices``, ``indptr`` (None: column l), B then made on first use only (the compiled
        #: products read these arrays): the growing arrays of :meth:`of`, or a :meth:`restricted`
        #: operator's parent's; None: B as given
        self._source = source
        if pending is not None:
            self.nnz = nnz
        elif source is None:
            self.B = B
            self.nnz = B.nnz if B is not None else nnz
        elif source[2] is None:
            self.nnz = int(source[1][-1] - source[1][0])
        else:
            indptr, columns = source[1], source[2]
            self.nnz = int((indptr[columns + 1] - indptr[columns]).sum())
        #: the growing arrays whose first columns B's are (:meth:`of` extends them), or None
        self._grown = grown
        #: whether B's rows are known to lie in [0, N) (made by :meth:`of` from the oracle's features,
        #: or restricted from such an operator): the compiled passes skip their O(nnz) check
        self._rows_known = grown is not None

    @functools.cached_property
    def B(self) -> sp.csc_matrix:  # (made from ``_source``; an operator given B sets it in __init__)
        """The 0/1 indicators, N x t CSC (on the source arrays where they are all of its columns)."""
        indices, indptr, columns = self._found()
        whole = sp.csc_matrix(
            (np.ones(indices.size), indices, indptr), shape=(self.n_samples, indptr.size - 1)
        )
        if self._rows_known:  # (made by ``of``: each column's rows increasing, as _indicator gives them)
            whole.has_sorted_indices = True
        return whole if columns is None else whole[:, columns]

    def _found(self) -> tuple[NDArray[np.int32], NDArray[np.intp], NDArray[np.intp] | None] | None:
        """``_source``, the pending rows found first (``pending`` in the class docstring): those of
        the hypotheses not written yet appended to the growing arrays (:meth:`_Indicators.extended`)."""
        pending = self._pending
        if pending is not None:
            oracle, hypotheses, written = pending
            X, n = oracle.X_, oracle.n_samples_
            self._grown = self._grown.extended(written, hypotheses, lambda h: _indicator(X, n, h)[0])
            self._source = self._grown.arrays(self.n_columns)
            self._pending = None
        return self._source

    @property
    def _has_rows(self) -> bool:
        """Whether B's rows are kept (not dropped by :meth:`of`), found or pending."""
        return self._source is not None or self._pending is not None or self.__dict__.get("B") is not None

    @property
    def _csc(self) -> tuple[NDArray[np.int32], NDArray[np.intp], NDArray[np.intp]]:
        """``(indices, indptr, columns)`` of the compiled products (``_source``, or B's own with
        ``columns = 0 .. t - 1``)."""
        if self._found() is not None:
            indices, indptr, columns = self._source
            return indices, indptr, np.arange(self.n_columns, dtype=np.intp) if columns is None else columns
        B = self.B
        columns = np.arange(self.n_columns, dtype=np.intp)
        return np.asarray(B.indices, dtype=np.int32), np.asarray(B.indptr, dtype=np.intp), columns

    def __getstate__(self) -> dict:
        self._found()  # (the rows, not the oracle)
        state = self.__dict__.copy()
        state.pop("_passes", None)  # compiled, made again on first use
        state.pop("_values", None)  # the run's values with room to grow: its own views are pickled
        return state

    def passes(self) -> IndicatorPasses:
        """The compiled passes and Gram of these columns (``_stump_products.IndicatorPasses``), made
        on first use: :meth:`margins`, :meth:`edges` and :meth:`weighted_gram` call them, and a
        compiled solver calls the same passes without the GIL (:meth:`compiled_passes`)."""
        made = self.__dict__.get("_passes")
        if made is None:
            c, a = (
                np.ascontiguousarray(self.c, dtype=np.float64),
                np.ascontiguousarray(self.a, dtype=np.float64),
            )
            y = np.ascontiguousarray(self.y, dtype=np.float64)
            made = self._passes = IndicatorPasses(y, c, a, *self._csc, check_rows=not self._rows_known)
        return made

    def compiled_passes(self) -> object | None:
        """:meth:`StumpOperatorBase.compiled_passes`: ``IndicatorPasses.capsule`` of :meth:`passes`
        (None where the module is not built, or B's rows were dropped)."""
        if IndicatorPasses is None or not self._has_rows:
            return None
        return self.passes().capsule()

    @classmethod
    def of(
        cls, oracle, hypotheses: list, previous: SparseStumpColumns | None = None
    ) -> SparseStumpColumns | None:
        """The operator of the columns of ``hypotheses`` (:class:`~dualboost.oracles.stumps.Stump` and
        :class:`~dualboost.oracles.stumps.Constant` of a fitted
        :class:`~dualboost.oracles.DecisionStumps` ``oracle``; None for any other hypothesis),
        extending ``previous`` (the operator of a prefix of the same list) by the new columns.

        Parameters
        ----------
        oracle : DecisionStumps
            The fitted oracle (its training features ``X_``, CSC, and labels ``y_``).
        hypotheses : list
            The ensemble's hypotheses, in column order.
        previous : SparseStumpColumns or None
            The operator of the first ``previous.n_columns`` of them, made by this method.

        Returns
        -------
        SparseStumpColumns or None
            The operator, or None where a hypothesis is not a stump or a constant.
        """
        # extended: an operator made by this method (a restricted one is not)
        extend = previous is not None and (previous._grown is not None or not previous._has_rows)
        done = previous.n_columns if extend else 0
        new = hypotheses[done:]
        if any(_stump_feature(h) == OTHER for h in new):
            return None
        parts = [_column_parts(oracle.X_, oracle.n_samples_, h) for h in new]
        y = np.asarray(oracle.y_, dtype=np.float64)
        new_c, new_a = [p[1] for p in parts], [p[2] for p in parts]
        if not extend:
            values = _ColumnValues(new_c, new_a)
        else:  # (an operator unpickled has no values with room to grow: its own copied once)
            values = previous._values or _ColumnValues(previous.c, previous.a)
            values = values.extended(previous.c, previous.a, new_c, new_a)
        c, a = values.views()
        nnz = (previous.nnz if extend else 0) + sum([p[0] for p in parts])
        if nnz > cls.DROP_MARGIN * cls.MAX_DENSITY * oracle.n_samples_ * len(hypotheses):
            # B too dense to pay (dense features, before the sort orders take over): its rows are
            # not kept, only counted. Its density can come back under MAX_DENSITY only after
            # nnz / (MAX_DENSITY N) > DROP_MARGIN t columns in all, i.e. more than t / 2 further
            # columns even if none of them had an indicator; a run on dense features does not
            # get there (each further stump there flips ~N/4 rows). Should it all the same, the
            # rows are found again below (O(nnz(B)) once): the operator pays exactly where it
            # did with its rows kept, and its products are the same
            operator = cls(y, c, a, None, nnz=nnz)
            operator._values = values
            return operator
        if extend and not previous._has_rows:  # dropped, and now it may pay: the rows again
            return cls.of(oracle, hypotheses)
        # the rows found on first use (``pending``): those of previous's pending hypotheses too
        if not extend:
            grown, written, waiting = _Indicators(), 0, new
        elif previous._pending is not None:
            grown, (_, earlier, written) = previous._grown, previous._pending
            waiting = earlier + new
        else:
            grown, written, waiting = previous._grown, done, new
        operator = cls(y, c, a, None, grown=grown, nnz=nnz, pending=(oracle, waiting, written))
        operator._values = values
        return operator

    def restricted(self, columns: NDArray[np.intp]) -> SparseStumpColumns:
        """The operator of the columns ``columns``, on this one's rows of B (no copy: O(|columns|))."""
        columns = np.asarray(columns, dtype=np.intp)
        if not self._has_rows:
            return SparseStumpColumns(self.y, self.c[columns], self.a[columns], None, nnz=0)
        indices, indptr, mine = self._csc
        part = SparseStumpColumns(
            self.y, self.c[columns], self.a[columns], None, source=(indices, indptr, mine[columns])
        )
        part._rows_known = self._rows_known
        return part

    def pays(self, n_columns: int) -> bool:
        """:meth:`~dualboost.problems.kernels.StumpOperatorBase.pays`: U has at least
        :attr:`MIN_ENTRIES` entries and B at most :attr:`MAX_DENSITY` of them (never where B's rows
        were dropped by :meth:`of`: it has no products then)."""
        entries = self.n_samples * n_columns
        density = self.nnz / max(self.n_samples * self.n_columns, 1)
        return self._has_rows and entries >= self.MIN_ENTRIES and density <= self.MAX_DENSITY

    def gram_work(self, n_columns: int) -> float:
        """:meth:`~dualboost.problems.kernels.StumpOperatorBase.gram_work`: the pairs
        ``sum_n k_n (k_n + 1) / 2`` of the rows' k_n nonzeros in B_S, estimated as
        ``nnz(B_S)^2 / (2 N) + nnz(B_S) / 2`` (B_S's nonzeros at the mean count per column, spread
        evenly over the rows: 0.94 of the pairs of a9a's run), at :attr:`SPARSE_MADD_COST` each, plus
        a pass over the rows and the dense t x t terms."""
        nonzeros = self.nnz / max(self.n_columns, 1) * n_columns
        pairs = nonzeros**2 / (2.0 * self.n_samples) + nonzeros / 2.0
        return self.n_samples + self.SPARSE_MADD_COST * pairs + 10.0 * n_columns**2

    def gram_pays(self, n_columns: int) -> bool:
        """:meth:`~dualboost.problems.kernels.StumpOperatorBase.gram_pays`: where B's rows are kept and
        :meth:`gram_work` is below the dense Gram's ``N n_columns^2``, even below the products' floor
        :attr:`MIN_ENTRIES` (a compiled re-solve's faces on a9a, 10-20 columns: the estimate 0.6-0.9
        of the dense work; on german, diabetes and the Gaussian set, B at 0.25-0.28 of U, above 1)."""
        return self._has_rows and self.gram_work(n_columns) < self.n_samples * n_columns**2

    def margins(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U w = y * ((c . w) + B (a * w))`` (``IndicatorPasses.margins``)."""
        if IndicatorPasses is not None:
            return self.passes().margins(w)
        out = self.B @ (self.a * np.asarray(w, dtype=np.float64))
        out += float(self.c @ w)
        out *= self.y
        return out

    def edges(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``U^T d = c (y . d) + a * (B^T (y d))`` (``IndicatorPasses.edges``)."""
        if IndicatorPasses is not None:
            return self.passes().edges(d)
        v = self.y * np.asarray(d, dtype=np.float64)
        out = self.B.T @ v
        out *= self.a
        out += self.c * float(v.sum())
        return out

    def weighted_gram(self, weights: NDArray[np.float64] | float) -> NDArray[np.float64]:
        """``U^T diag(weights) U`` (module docstring), dense t x t; ``weights`` one per row or a
        scalar: ``IndicatorPasses.weighted_gram``, ``B^T diag(g) B`` row by row (each row's pairs of
        columns, the rows of weight 0 skipped), then the rank-one terms."""
        g = np.broadcast_to(np.asarray(weights, dtype=np.float64), (self.n_samples,))
        if IndicatorPasses is not None:
            return self.passes().weighted_gram(g)
        weighted = sp.csc_matrix((g[self.B.indices], self.B.indices, self.B.indptr), shape=self.B.shape)
        inner = (self.B.T @ weighted).toarray()
        q = self.a * (self.B.T @ g)
        out = inner * np.outer(self.a, self.a)
        out += float(g.sum()) * np.outer(self.c, self.c)
        out += np.outer(self.c, q)
        out += np.outer(q, self.c)
        return out


def stump_operator(
    oracle,
    hypotheses: list,
    previous: StumpOperatorBase | tuple[StumpOperatorBase, ...] | None = None,
    *,
    features: StumpFeatures | None = None,
) -> StumpColumns | SparseStumpColumns | None:
    """The implicit operator of a run's stump columns: :class:`~dualboost.problems.kernels.StumpColumns`
    (through the features' sort orders) where it pays, which is where the stumps are many per
    feature, and below :class:`SparseStumpColumns`' floor of entries where their Gram pays
    (``StumpColumns.gram_pays``: a compiled solver's Hessians), else :class:`SparseStumpColumns`
    (None where the hypotheses are not stumps).

    Parameters
    ----------
    oracle : DecisionStumps
        The fitted oracle of the run.
    hypotheses : list
        The ensemble's hypotheses, in column order.
    previous : StumpColumns or SparseStumpColumns or tuple of them, or None
        An operator returned for a prefix of ``hypotheses``, or several (a run's last of each kind:
        when the choice goes back to a kind, its last operator is extended instead of made again);
        the one of the kind chosen is extended.
    features : StumpFeatures or None
        The census of the features of ``hypotheses`` (this very list, grown since the census was made;
        another list's is not read): where it rules the sort orders out, :meth:`StumpColumns.of` is
        not asked (it would read the hypotheses added since its last operator, all of them before
        the first).

    Returns
    -------
    StumpColumns or SparseStumpColumns or None
        The operator.
    """
    earlier = previous if isinstance(previous, tuple) else (previous,)
    last = _last(earlier, StumpColumns)
    # the census where StumpColumns.of would read more than one hypothesis (none or an older operator)
    asks = features is not None and (last is None or len(hypotheses) - last.n_columns > 1)
    if asks and features.hypotheses is hypotheses and features.rules_out(oracle.n_samples_):
        by_order = None  # (what StumpColumns.of gives, known from the hypotheses added since last asked)
    else:
        by_order = StumpColumns.of(oracle, hypotheses, last)
    entries = oracle.n_samples_ * len(hypotheses)
    if by_order is not None and (entries < SparseStumpColumns.MIN_ENTRIES or by_order.pays(len(hypotheses))):
        return by_order  # (below the sparse one's floor: the sort orders for their Gram alone)
    return SparseStumpColumns.of(oracle, hypotheses, _last(earlier, SparseStumpColumns))


def _last(operators: tuple, kind: type) -> StumpOperatorBase | None:
    """The first of ``operators`` that is a ``kind`` (None if none is)."""
    for operator in operators:
        if isinstance(operator, kind):
            return operator
    return None
