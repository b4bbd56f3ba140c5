"""Decision stumps ([KG] Sec 5, spec B.14.3): h(x) = s if x_j > theta else -s, s in {-1, +1}.

The class holds, for every feature j, one stump per threshold theta between consecutive distinct
training values (the midpoint), both signs (so it is reflexive, spec B.14.2), and the two
constant hypotheses h = +1 and h = -1. Features with a single value give no stump.

Algorithm. With v = d * y, the stump (j, theta, +1) has edge

    u . d = sum_{x_nj > theta} v_n - sum_{x_nj <= theta} v_n = sum(v) - 2 C_j(theta),

where C_j(theta) is the cumulative sum of v over the examples with x_nj <= theta, and the
stump with sign -1 has the opposite edge. ``fit`` sorts every feature once and groups equal values
into blocks; the largest block of each feature is left implicit (for sparse data it is usually
the zeros). A call of ``best`` then costs one sparse product over the other blocks' members,
O(nnz) for sparse X and at most O(N p) for dense X, plus O(#blocks) for the cumulative sums
(a9a: about 0.4 M block members and 250 blocks, whether X is given dense or sparse). Dense input
is converted to the same block structure, so dense and sparse input of the same data give
bit-identical results.

Order for ties (:data:`~dualboost.oracles.base.TIE_TOL`): the constant +1, the constant -1, then
features in index order, thresholds in increasing order, sign +1 before -1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from dualboost.oracles._inputs import Matrix
from dualboost.oracles.base import Hypothesis, Oracle, Selection, feature_column, first_max_signed

__all__ = ["DecisionStumps", "Stump", "Constant"]


@dataclass(frozen=True)
class Stump(Hypothesis):
    """h(x) = sign if x[feature] > threshold else -sign."""

    feature: int
    threshold: float
    sign: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.where(feature_column(X, self.feature) > self.threshold, self.sign, -self.sign).astype(
            np.float64
        )

    def describe(self) -> str:
        return f"x[{self.feature}] > {self.threshold:.6g} -> {self.sign:+d} (else {-self.sign:+d})"


@dataclass(frozen=True)
class Constant(Hypothesis):
    """The constant hypothesis h(x) = sign (the stump with a threshold below every value)."""

    sign: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.full(X.shape[0], float(self.sign))

    def describe(self) -> str:
        return f"constant {self.sign:+d}"


def _midpoints(low: NDArray[np.float64], high: NDArray[np.float64]) -> NDArray[np.float64]:
    """Thresholds theta with low <= theta < high (the midpoint unless rounding reaches high)."""
    mid = np.clip(low / 2 + high / 2, low, high)
    return np.where(mid < high, mid, low)


@dataclass(frozen=True)
class _Blocks:
    """Groups of equal values of every feature with >= 2 distinct values, in (feature, value) order.

    ``implicit`` marks the largest block of each feature (ties: the lowest value); ``members``
    is the 0/1 matrix (explicit blocks x N) of the examples in each other block.
    """

    feature: NDArray[np.intp]
    value: NDArray[np.float64]
    implicit: NDArray[np.bool_]
    members: sp.csr_matrix


def _blocks(Xc: sp.csc_matrix) -> _Blocks:
    """The block structure of a canonical CSC matrix (sorted indices, no stored zeros)."""
    n, p = Xc.shape
    # stored entries sorted by (feature, value, row); -0.0 is normalised to 0.0
    e_feat = np.repeat(np.arange(p), np.diff(Xc.indptr))
    order = np.lexsort((Xc.indices, Xc.data + 0.0, e_feat))
    e_feat, e_val, e_row = e_feat[order], Xc.data[order] + 0.0, Xc.indices[order].astype(np.intp)
    is_start = np.ones(e_feat.size, dtype=bool)
    is_start[1:] = (e_feat[1:] != e_feat[:-1]) | (e_val[1:] != e_val[:-1])
    starts = np.flatnonzero(is_start)

    # all blocks: the stored ones, then one zero block per feature that has zeros
    zero_count = n - np.diff(Xc.indptr)
    zero_feat = np.flatnonzero(zero_count > 0)
    feature = np.r_[e_feat[starts], zero_feat]
    value = np.r_[e_val[starts], np.zeros(zero_feat.size)]
    count = np.r_[np.diff(np.r_[starts, e_feat.size]), zero_count[zero_feat]]
    stored = np.r_[np.arange(starts.size), np.full(zero_feat.size, -1)]  # index among stored blocks
    order = np.lexsort((value, feature))
    n_distinct = np.bincount(feature, minlength=p)
    order = order[n_distinct[feature[order]] >= 2]  # a feature with one value has no threshold
    feature, value, count, stored = feature[order], value[order], count[order], stored[order]

    by_size = np.lexsort((np.arange(feature.size), -count, feature))
    first_of_feature = np.ones(feature.size, dtype=bool)
    first_of_feature[1:] = feature[by_size][1:] != feature[by_size][:-1]
    implicit = np.zeros(feature.size, dtype=bool)
    implicit[by_size[first_of_feature]] = True
    explicit_rank = np.cumsum(~implicit) - 1

    # members of the explicit blocks: stored entries, and the complement rows of explicit zero blocks
    block_of_stored = np.full(starts.size, -1)
    block_of_stored[stored[stored >= 0]] = np.flatnonzero(stored >= 0)
    e_block = block_of_stored[np.cumsum(is_start) - 1]
    take = e_block >= 0
    take[take] = ~implicit[e_block[take]]
    rows, blocks = [e_row[take]], [e_block[take]]
    for b in np.flatnonzero((stored < 0) & ~implicit):
        j = feature[b]
        rows.append(np.setdiff1d(np.arange(n), Xc.indices[Xc.indptr[j] : Xc.indptr[j + 1]]))
        blocks.append(np.full(rows[-1].size, b))
    blocks_all = np.concatenate(blocks)
    order = np.argsort(blocks_all, kind="stable")  # block order; rows stay increasing within blocks
    indices = np.concatenate(rows)[order]
    counts = np.bincount(explicit_rank[blocks_all], minlength=int((~implicit).sum()))
    members = sp.csr_matrix(
        (np.ones(indices.size), indices, np.r_[0, np.cumsum(counts)]), shape=(counts.size, n)
    )
    return _Blocks(feature, value, implicit, members)


class DecisionStumps(Oracle):
    """The max-edge decision stump over all features and thresholds (both signs and constants).

    ``best(d)`` returns a :class:`Stump` or a :class:`Constant`; see the module docstring for the
    algorithm and the order used to break ties.
    """

    def _fit(self, X: Matrix) -> None:
        Xc = sp.csc_matrix(X, dtype=np.float64, copy=True)
        Xc.sum_duplicates()
        Xc.eliminate_zeros()
        Xc.sort_indices()
        self.X_ = Xc
        blocks = _blocks(Xc)
        self._members = blocks.members
        # layout of the per-call vector F: each feature's blocks in value order, then a sentinel
        # -sum(v) that brings the running sum back to ~0 (keeps the cumulative sums accurate)
        n_blocks = blocks.feature.size
        kept, rank = np.unique(blocks.feature, return_inverse=True)
        pos = np.arange(n_blocks) + rank
        seg_start = np.searchsorted(rank, np.arange(kept.size)) + np.arange(kept.size)  # in F
        self._length = n_blocks + kept.size
        self._pos_explicit = pos[~blocks.implicit]
        self._pos_implicit = pos[blocks.implicit]
        self._pos_sentinel = seg_start + np.bincount(rank, minlength=kept.size)
        self._explicit_starts = np.searchsorted(rank[~blocks.implicit], np.arange(kept.size))
        # boundaries: after every block but the last of its feature
        boundary = np.flatnonzero(rank[1:] == rank[:-1])
        self._boundary_end = pos[boundary] + 1  # index in G = [0, cumsum(F)] just after the block
        self._boundary_base = seg_start[rank[boundary]]
        self._boundary_feature = blocks.feature[boundary]
        self._boundary_threshold = _midpoints(blocks.value[boundary], blocks.value[boundary + 1])

    def _edges(self, d: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """sum(d * y) (the edge of the constant +1) and the edges of the sign +1 stumps, in
        boundary order (the sign -1 stumps have the opposite edges)."""
        v = d * self.y_
        total = float(v.sum())
        block_sums = self._members @ v
        F = np.empty(self._length)
        F[self._pos_explicit] = block_sums
        if block_sums.size:
            F[self._pos_implicit] = total - np.add.reduceat(block_sums, self._explicit_starts)
        F[self._pos_sentinel] = -total
        G = np.r_[0.0, np.cumsum(F)]
        return total, total - 2.0 * (G[self._boundary_end] - G[self._boundary_base])

    def _best(self, d: NDArray[np.float64]) -> Selection:
        total, E = self._edges(d)
        k, sign = first_max_signed(np.r_[total, E], float(d.sum()))
        if k == 0:
            hypothesis: Hypothesis = Constant(n_features=self.n_features_, sign=sign)
        else:
            hypothesis = Stump(
                n_features=self.n_features_,
                feature=int(self._boundary_feature[k - 1]),
                threshold=float(self._boundary_threshold[k - 1]),
                sign=sign,
            )
        return self._select(hypothesis, d, self.X_)
