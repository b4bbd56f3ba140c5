"""Decision stumps ([KG] Ch. 5, docs/math.md#hypothesis-classes): h(x) = s if x_j > theta else -s,
s in {-1, +1}.

The class holds, for every feature j, one stump per threshold theta between consecutive distinct
training values (the midpoint), both signs (so it is reflexive, docs/math.md#thesis-experiments), and the two
constant hypotheses h = +1 and h = -1. Features with a single value give no stump.

Algorithm. With v = d * y, the stump (j, theta, +1) has edge

    u . d = sum_{x_nj > theta} v_n - sum_{x_nj <= theta} v_n = sum(v) - 2 C_j(theta),

where C_j(theta) is the cumulative sum of v over the examples with x_nj <= theta, and the
stump with sign -1 has the opposite edge. ``fit`` sorts every feature once and groups equal values
into blocks; the largest block of each feature is left implicit (for sparse data it is usually
the zeros). Each feature's other blocks form at most two *runs*: the blocks below the implicit one
in increasing order, whose running sums are C_j at the thresholds below it (edge sum(v) - 2 C),
and the blocks above it in decreasing order, whose running sums R are the sums above the
thresholds above it (C = sum(v) - R, edge -(sum(v) - 2 R)). Every threshold is the end of exactly
one prefix of one run, so the implicit block is never summed, and every run starts from an exact 0.

A call of ``best`` costs the sums of v over the explicit blocks' members (a gather for blocks with
one member, as continuous values give; a sparse product over the others: O(nnz) for sparse X and
at most O(N p) for dense X) and a segmented prefix sum over the runs, O(#blocks): runs are cut into
chunks of at most :data:`CHUNK` blocks laid out transposed (:class:`_RunScan`), so the prefix sums
of all chunks advance together, one vector addition per row, and the totals of a long run's chunks
are carried by the same scan one level down. Each running sum thus takes fewer than ``CHUNK``
additions per level instead of one per block of its feature (rounding error about
eps x ``CHUNK`` x levels x the sum of |v| over the run), and depends on its own feature only.
``best`` then needs the largest |sum(v) - 2 S| (from the extremes of S per piece of the layout:
x -> sum(v) + x is monotone in floating point) and the tied slots, searched only in the pieces
that reach the tie threshold; no per-call scatter into threshold order. Measured (per call,
``benchmarks/results/scale.txt``): news20-shaped data, 20,000 x 1,355,191 with 6.7 M non-zeros
and 6.7 M thresholds; a9a, 0.4 M block members and 122 thresholds. Dense input is converted to the
same block structure, so dense and sparse input of the same data give bit-identical results.

Where the extension is built (setup.py), ``_stump_scan.Search`` runs all of this (the slots' sums,
the scan, the extremes, the first tie in boundary order) and the chosen stump's column as C loops
that make the numpy code's products, additions and comparisons in its order: the same stump and
edge bit for bit, without a numpy call on a small array per step. The numpy code stays the
reference and runs in a tree that was not built.

Order for ties (:data:`~dualboost.oracles.base.TIE_TOL`, as
:func:`~dualboost.oracles.base.first_max_signed`): the constant +1, the constant -1, then
features in index order, thresholds in increasing order, sign +1 before -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
    tie_threshold,
    weight_scale,
)

try:  # the compiled row additions of _RunScan (setup.py); without them its numpy loop runs (the reference)
    from dualboost.oracles import _stump_scan
except ImportError:  # a source tree that was not built
    _stump_scan = None

__all__ = ["DecisionStumps", "Stump", "Constant"]

#: Blocks per chunk of the segmented prefix sum (:class:`_RunScan`): rows of its transposed layout.
CHUNK = 64
#: Slots per piece of the layout whose extremes ``best`` takes first (the ties are searched per piece).
PIECE = 1 << 15


@dataclass(frozen=True)
class Stump(Hypothesis):
    """h(x) = sign if x[feature] > threshold else -sign.

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    feature : int
        The feature compared.
    threshold : float
        The threshold.
    sign : int
        +1 or -1.
    """

    feature: int
    threshold: float
    sign: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.where(feature_column(X, self.feature) > self.threshold, self.sign, -self.sign).astype(
            np.float64
        )

    def describe(self) -> str:
        return f"x[{self.feature}] > {self.threshold:.6g} -> {self.sign:+d} (else {-self.sign:+d})"

    def check(self) -> None:
        """The feature in ``[0, n_features)``, the sign -1 or +1 (the threshold is finite: ``from_dict``)."""
        super().check()
        check_feature(self, self.feature)
        check_sign(self, self.sign)


@dataclass(frozen=True)
class Constant(Hypothesis):
    """The constant hypothesis h(x) = sign (the stump with a threshold below every value).

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    sign : int
        +1 or -1.
    """

    sign: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.full(X.shape[0], float(self.sign))

    def describe(self) -> str:
        return f"constant {self.sign:+d}"

    def check(self) -> None:
        """The sign -1 or +1."""
        super().check()
        check_sign(self, self.sign)


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
    # stored entries sorted by (feature, value, row); -0.0 is normalised to 0.0. One integer key
    # (feature, rank of the value) sorted stably keeps the rows increasing within ties (CSC order)
    e_feat = np.repeat(np.arange(p), np.diff(Xc.indptr))
    data = Xc.data + 0.0
    uniform = data.size > 0 and bool((data == data[0]).all())
    if uniform:  # one stored value (e.g. binary features): every entry's rank 0
        values, rank = data[:1], np.zeros(data.size, dtype=np.int64)
    else:
        by_value = np.argsort(data)
        sorted_values = data[by_value]
        distinct = np.ones(data.size, dtype=bool)
        distinct[1:] = sorted_values[1:] != sorted_values[:-1]
        values = sorted_values[distinct]
        rank = np.empty(data.size, dtype=np.int64)
        rank[by_value] = np.cumsum(distinct) - 1
    width = 2 * values.size + 1  # value ranks at odd offsets, 0.0 at an even one
    order = None  # (uniform: the entries are in (feature, row) order already, which the sort keeps)
    if p * width < 2**62:
        key = e_feat * width + 2 * rank + 1
        if not uniform:
            order = np.argsort(key, kind="stable")
            key = key[order]
    else:  # pragma: no cover - beyond int64 keys
        order = np.lexsort((data, e_feat))
    e_row = Xc.indices
    if order is not None:
        e_feat, data, e_row = e_feat[order], data[order], e_row[order]
    e_val, e_row = data, e_row.astype(np.intp)
    is_start = np.ones(e_feat.size, dtype=bool)
    is_start[1:] = (e_feat[1:] != e_feat[:-1]) | (e_val[1:] != e_val[:-1])
    starts = np.flatnonzero(is_start)

    # all blocks: the stored ones, then one zero block per feature that has zeros, merged into
    # (feature, value) order
    zero_count = n - np.diff(Xc.indptr)
    zero_feat = np.flatnonzero(zero_count > 0)
    feature = np.r_[e_feat[starts], zero_feat]
    value = np.r_[e_val[starts], np.zeros(zero_feat.size)]
    count = np.r_[np.diff(np.r_[starts, e_feat.size]), zero_count[zero_feat]]
    stored = np.r_[np.arange(starts.size), np.full(zero_feat.size, -1)]  # index among stored blocks
    if p * width < 2**62:
        zero_rank = 2 * np.searchsorted(values, 0.0)
        order = np.argsort(np.r_[key[starts], zero_feat * width + zero_rank], kind="stable")
    else:  # pragma: no cover
        order = np.lexsort((value, feature))
    n_distinct = np.bincount(feature, minlength=p)
    order = order[n_distinct[feature[order]] >= 2]  # a feature with one value has no threshold
    feature, value, count, stored = feature[order], value[order], count[order], stored[order]

    # the implicit block of each feature: its largest (ties: the lowest value)
    implicit = np.zeros(feature.size, dtype=bool)
    if feature.size:
        first = np.flatnonzero(np.r_[True, feature[1:] != feature[:-1]])
        largest = np.maximum.reduceat(count, first)
        is_largest = np.flatnonzero(count == np.repeat(largest, np.diff(np.r_[first, feature.size])))
        implicit[is_largest[np.r_[True, feature[is_largest][1:] != feature[is_largest][:-1]]]] = True
    explicit_rank = np.cumsum(~implicit) - 1

    # members of the explicit blocks: stored entries, and the complement rows of explicit zero blocks
    block_of_stored = np.full(starts.size, -1)
    block_of_stored[stored[stored >= 0]] = np.flatnonzero(stored >= 0)
    e_block = block_of_stored[np.cumsum(is_start) - 1]
    take = e_block >= 0
    take[take] = ~implicit[e_block[take]]
    rows, blocks = [e_row[take]], [e_block[take]]
    outside = np.ones(n, dtype=bool)  # the complement of a feature's stored rows, O(N) by a mask
    for b in np.flatnonzero((stored < 0) & ~implicit):
        j = feature[b]
        stored_rows = Xc.indices[Xc.indptr[j] : Xc.indptr[j + 1]]
        outside[stored_rows] = False
        rows.append(np.flatnonzero(outside))  # increasing, as setdiff1d's
        outside[stored_rows] = True
        blocks.append(np.full(rows[-1].size, b))
    blocks_all = np.concatenate(blocks)
    order = np.argsort(blocks_all, kind="stable")  # block order; rows stay increasing within blocks
    indices = np.concatenate(rows)[order]
    counts = np.bincount(explicit_rank[blocks_all], minlength=int((~implicit).sum()))
    members = sp.csr_matrix(
        (np.ones(indices.size), indices, np.r_[0, np.cumsum(counts)]), shape=(counts.size, n)
    )
    return _Blocks(feature, value, implicit, members)


@dataclass(frozen=True)
class _RunScan:
    """Prefix sums within runs, in place, on a flat array in a transposed ("jagged") layout.

    Runs longer than :data:`CHUNK` are cut into chunks of ``CHUNK`` slots (the last one padded with
    slots that the product fills with 0, so they repeat the run's last sum); the chunks are the
    columns of the layout, long runs' chunks first, then the short runs by decreasing length. Row
    k holds the k-th slot of every chunk with more than k slots (``rows[k]`` is its first slot,
    ``counts[k]`` its length), so the prefix sums of all chunks advance by one vector addition per
    row. The totals of a long run's chunks are then summed by ``sub`` (the same scan over runs
    of ceil(length / CHUNK) - 1 totals) and each chunk's carry is added to its column.
    """

    size: int
    rows: tuple[int, ...]
    counts: tuple[int, ...]
    n_long: int
    sub: _RunScan | None
    sub_source: NDArray[np.intp]  # slot of ``sub`` -> long column whose total it reads (n_long: 0)
    carry_source: NDArray[np.intp]  # long column -> slot of ``sub`` holding its carry (sub.size: 0)
    #: ``rows`` and ``counts`` as arrays, for the compiled additions
    row_array: NDArray[np.intp] = field(init=False, repr=False, compare=False)
    count_array: NDArray[np.intp] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "row_array", np.asarray(self.rows, dtype=np.intp))
        object.__setattr__(self, "count_array", np.asarray(self.counts, dtype=np.intp))

    def __call__(self, A: NDArray[np.float64]) -> None:
        rows, counts = self.rows, self.counts
        fast = _stump_scan is not None  # the compiled additions where built; else numpy's (the reference)
        if fast:
            _stump_scan.scan_rows(A, self.row_array, self.count_array)
        else:
            for k in range(1, len(counts)):
                lo, n, prev = rows[k], counts[k], rows[k - 1]
                np.add(A[lo : lo + n], A[prev : prev + n], out=A[lo : lo + n])
        if self.sub is not None:
            last, n = rows[-1], self.n_long
            totals = np.empty(n + 1)
            totals[:n] = A[last : last + n]
            totals[n] = 0.0
            sums = np.empty(self.sub.size + 1)
            np.take(totals, self.sub_source, out=sums[:-1], mode="clip")  # unbuffered
            self.sub(sums[:-1])
            sums[-1] = 0.0
            carry = sums[self.carry_source]
            if fast:
                _stump_scan.add_carry(A, self.row_array, carry)
            else:
                for lo in rows:
                    A[lo : lo + n] += carry


def _run_scan(
    lengths: NDArray[np.intp], chunk: int = CHUNK
) -> tuple[_RunScan, NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """The scan of runs with the given lengths (>= 1) and where their elements go.

    Returns ``(scan, slots, pad_slots, pad_elements)``: ``slots[i]`` is the slot of element i of the
    runs laid end to end (run-major), ``pad_slots`` the padding slots and ``pad_elements`` the
    element each of them repeats (its run's last).
    """
    lengths = np.asarray(lengths, dtype=np.intp)
    starts = np.r_[0, np.cumsum(lengths)]
    n_chunks = np.where(lengths > chunk, -(-lengths // chunk), 1)
    long_runs = np.flatnonzero(lengths > chunk)
    long_first = np.r_[0, np.cumsum(n_chunks[long_runs])]  # first column of each long run
    n_long = int(long_first[-1])
    short_runs = np.flatnonzero(lengths <= chunk)
    short_runs = short_runs[np.argsort(-lengths[short_runs], kind="stable")]
    column_length = np.r_[np.full(n_long, chunk), lengths[short_runs]]  # non-increasing
    n_rows = int(column_length[0]) if column_length.size else 0
    counts = np.searchsorted(-column_length, -np.arange(n_rows), side="left")  # columns longer than k
    rows = np.r_[0, np.cumsum(counts)]
    column = np.empty(lengths.size, dtype=np.intp)
    column[long_runs] = long_first[:-1]
    column[short_runs] = n_long + np.arange(short_runs.size)

    def place(run: NDArray[np.intp], element: NDArray[np.intp]) -> NDArray[np.intp]:
        chunk_index, row = np.divmod(element, chunk)
        return rows[row] + column[run] + chunk_index

    run = np.repeat(np.arange(lengths.size), lengths)
    slots = place(run, np.arange(starts[-1]) - starts[run])
    pad = n_chunks[long_runs] * chunk - lengths[long_runs]
    pad_run = np.repeat(long_runs, pad)
    pad_offset = np.arange(pad.sum()) - np.repeat(np.cumsum(pad) - pad, pad)
    pad_slots = place(pad_run, lengths[pad_run] + pad_offset)
    pad_elements = starts[pad_run] + lengths[pad_run] - 1

    sub, sub_source, carry_source = None, np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    if n_long:
        sub_lengths = n_chunks[long_runs] - 1  # a chunk's carry: the totals of the chunks before it
        sub, sub_slots, _, _ = _run_scan(sub_lengths, chunk)
        sub_run = np.repeat(np.arange(long_runs.size), sub_lengths)
        sub_column = (
            long_first[sub_run]
            + np.arange(sub_lengths.sum())
            - np.repeat(np.cumsum(sub_lengths) - sub_lengths, sub_lengths)
        )
        sub_source = np.full(sub.size, n_long, dtype=np.intp)
        sub_source[sub_slots] = sub_column
        carry_source = np.full(n_long, sub.size, dtype=np.intp)
        carry_source[sub_column + 1] = sub_slots
    scan = _RunScan(
        size=int(rows[-1]),
        rows=tuple(int(r) for r in rows[:-1]),
        counts=tuple(int(c) for c in counts),
        n_long=n_long,
        sub=sub,
        sub_source=sub_source,
        carry_source=carry_source,
    )
    return scan, slots, pad_slots, pad_elements


class DecisionStumps(Oracle):
    """The max-edge decision stump over all features and thresholds (both signs and constants).

    ``best(d)`` returns a :class:`Stump` or a :class:`Constant`; see the module docstring for the
    algorithm and the order used to break ties. Every edge is linear in d, so signed weights are
    accepted (``best(d, signed=True)``, :mod:`dualboost.oracles.base`).
    """

    signed_weights = True

    def _fit(self, X: Matrix) -> None:
        Xc = sp.csc_matrix(X, dtype=np.float64, copy=True)
        Xc.sum_duplicates()
        Xc.eliminate_zeros()
        Xc.sort_indices()
        self.X_ = Xc
        self.__dict__.pop("_buffer", None)
        self.__dict__.pop("_search", None)
        self._orders: dict[int, tuple[NDArray[np.int32], NDArray[np.float64]]] = {}
        blocks = _blocks(Xc)
        feature, implicit = blocks.feature, blocks.implicit
        first = np.flatnonzero(np.r_[True, feature[1:] != feature[:-1]]) if feature.size else feature
        kept = feature[first]  # the features with stumps, and the first block of each
        rank = np.repeat(np.arange(kept.size), np.diff(np.r_[first, feature.size]))  # of each block
        position = np.arange(feature.size) - first[rank]  # of each block within its feature
        implicit_at = position[implicit]  # one implicit block per feature
        # thresholds (boundaries), in the order of ties: after every block but the last of its feature
        boundary = np.flatnonzero(rank[1:] == rank[:-1])
        self._boundary_feature = feature[boundary].astype(np.int32 if Xc.shape[1] < 2**31 else np.intp)
        self._boundary_threshold = _midpoints(blocks.value[boundary], blocks.value[boundary + 1])
        # +1: the boundary is below the implicit block (its run sums C); -1: above (its run sums R)
        below_implicit = position[boundary] < implicit_at[rank[boundary]]
        self._boundary_sign = np.where(below_implicit, 1, -1).astype(np.int8)

        # the explicit blocks (rows of blocks.members) as elements of runs
        f, k = rank[~implicit], position[~implicit]
        below = k < implicit_at[f]
        boundary_id = (first - np.arange(kept.size))[f] + np.where(below, k, k - 1)
        run = 2 * f + ~below
        index_in_run = np.where(below, k, np.diff(np.r_[first, feature.size])[f] - 1 - k)
        lengths = np.bincount(run, minlength=2 * kept.size)
        run = (np.cumsum(lengths > 0) - 1)[run]
        lengths = lengths[lengths > 0]
        element = np.r_[0, np.cumsum(lengths)][run] + index_in_run
        scan, slots, pad_slots, pad_elements = _run_scan(lengths, CHUNK)
        self._scan = scan
        slot = slots[element]
        boundary_of_element = np.empty(element.size, dtype=np.intp)
        boundary_of_element[element] = boundary_id
        self._slot_boundary = np.empty(scan.size, dtype=np.intp)
        self._slot_boundary[slot] = boundary_id
        self._slot_boundary[pad_slots] = boundary_of_element[pad_elements]
        # the sums of v per slot: a gather for one-member blocks (continuous values), a sparse product
        # over the members of the others; padding slots read the appended 0
        n = Xc.shape[0]
        sizes = np.diff(blocks.members.indptr)
        self._single = np.full(scan.size, n, dtype=np.intp)
        self._single[slot[sizes == 1]] = blocks.members.indices[blocks.members.indptr[:-1][sizes == 1]]
        multi = np.flatnonzero(sizes > 1)
        multi = multi[np.argsort(slot[multi])]
        self._multi_slots = slot[multi]
        self._multi = blocks.members[multi]
        self._piece = PIECE
        self._pieces = np.arange(0, scan.size, PIECE)

    def _run_sums(
        self, d: NDArray[np.float64], out: NDArray[np.float64] | None = None
    ) -> tuple[float, NDArray[np.float64]]:
        """sum(v) and, per slot, -2 S with S the slot's running sum (C or R) for v = d * y: the
        edge of the slot's boundary is ``_boundary_sign * (sum(v) - 2 S)``. ``out``: an array of
        ``_scan.size`` to write into (a reused one saves the page faults of a fresh one)."""
        v = d * self.y_
        total = float(v.sum())
        sums = np.empty(self._scan.size) if out is None else out
        search = self._compiled()
        if search is not None:  # the same products and additions, and the scan, in one compiled call
            search.sums(v, sums)
        else:
            w = np.empty(v.size + 1)
            np.multiply(v, -2.0, out=w[:-1])  # -2 S exactly: scaling by 2 commutes with rounding
            w[-1] = 0.0
            np.take(w, self._single, out=sums, mode="clip")  # "clip": unbuffered (the indices are valid)
            if self._multi_slots.size:
                sums[self._multi_slots] = self._multi @ w[:-1]
            self._scan(sums)
        return total, sums

    def _edges(self, d: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """sum(d * y) (the edge of the constant +1) and the edges of the sign +1 stumps, in
        boundary order (the sign -1 stumps have the opposite edges)."""
        total, sums = self._run_sums(d)
        edges = np.empty(self._boundary_feature.size)
        signs = self._boundary_sign[self._slot_boundary]
        edges[self._slot_boundary] = signs * (total + sums)  # padding slots repeat their run's last
        return total, edges

    def _compiled(self) -> _stump_scan.Search | None:
        """The compiled loops of ``best`` over this layout (made on the first call; None without the
        extension, or beyond 2**31 examples, whose members int32 cannot hold)."""
        if _stump_scan is None:
            return None
        search = self.__dict__.get("_search")
        if search is None and self.n_samples_ < 2**31:
            multi = self._multi
            search = self._search = _stump_scan.Search(
                self.n_samples_,
                self._scan,
                self._single,
                multi.indptr.astype(np.intp),
                multi.indices.astype(np.int32, copy=False),  # rows < N: no copy of scipy's int32
                self._multi_slots.astype(np.intp, copy=False),
                self._slot_boundary,
            )
        return search

    def _best(self, d: NDArray[np.float64]) -> Selection:
        # a buffer for the sums, taken out of the instance while in use (a concurrent call makes its own)
        buffer = self.__dict__.pop("_buffer", None)
        if buffer is None:
            buffer = np.empty(self._scan.size)
        try:
            return self._best_in(d, buffer)
        finally:
            self._buffer = buffer

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_buffer", None)  # scratch space of best
        state.pop("_search", None)  # made again on demand (holds views of the arrays above)
        state["_orders"] = {}  # made again on demand
        return state

    def sort_order(self, feature: int) -> tuple[NDArray[np.int32], NDArray[np.float64]]:
        """``(order, values)``: the training rows by increasing value of ``feature`` (ties by row)
        and the values in that order, made once per feature and kept: what the implicit products
        of stump columns (:class:`~dualboost.problems.kernels.StumpColumns`) walk along."""
        orders = self.__dict__.setdefault("_orders", {})
        found = orders.get(feature)
        if found is None:
            x = feature_column(self.X_, feature)
            order = np.argsort(x, kind="stable").astype(np.int32)
            found = orders[feature] = (order, x[order])
        return found

    def _best_in(self, d: NDArray[np.float64], buffer: NDArray[np.float64]) -> Selection:
        # first_max_signed over [sum(v), edges in boundary order], without ordering the edges: the
        # largest |sum(v) - 2 S| from the extremes of S per piece of the layout (sum(v) + . is
        # monotone), then the first tied slot by boundary order, searched only in the pieces that
        # reach the threshold (compiled: Search.choose, in blocks of 256 slots)
        search = self._compiled()
        exact = search is not None and search.exact  # (N <= EXACT_SUM_MAX: the N-sums compiled too)
        if exact:
            total, scale = search.sums_exact(d, self.y_, buffer)
            sums = buffer
        else:
            total, sums = self._run_sums(d, buffer)
            scale = weight_scale(d)
        if search is not None:
            threshold, slot = search.choose(sums, total, scale, tie_threshold)
        else:
            if sums.size:
                high = total + np.maximum.reduceat(sums, self._pieces)
                low = total + np.minimum.reduceat(sums, self._pieces)
                top = max(abs(total), float(high.max()), -float(low.min()))
            else:
                high = low = np.zeros(0)
                top = abs(total)
            threshold = tie_threshold(top, scale)
        if abs(total) >= threshold:
            sign = 1 if total >= threshold else -1
            return self._select(Constant(n_features=self.n_features_, sign=sign), d, self.X_)
        if search is None:
            ties = []
            for piece in np.flatnonzero((high >= threshold) | (low <= -threshold)):
                start = int(self._pieces[piece])
                x = total + sums[start : start + self._piece]
                ties.append(start + np.flatnonzero((x >= threshold) | (x <= -threshold)))
            slots = np.concatenate(ties)
            boundaries = self._slot_boundary[slots]
            slot = int(slots[int(boundaries.argmin())])
        b = int(self._slot_boundary[slot])
        edge = float(self._boundary_sign[b]) * (total + float(sums[slot]))
        stump = Stump(
            n_features=self.n_features_,
            feature=int(self._boundary_feature[b]),
            threshold=float(self._boundary_threshold[b]),
            sign=1 if edge >= threshold else -1,
        )
        column = column_edge = None
        if search is not None:  # y * h(X) from the CSC columns, without forming the dense feature column
            X, column = self.X_, np.empty(self.n_samples_)
            column_edge = _stump_scan.stump_column(
                X.indptr,
                X.indices,
                X.data,
                stump.feature,
                stump.threshold,
                stump.sign,
                self.y_,
                column,
                d if exact else None,  # (and its edge, where numpy's sum is the compiled one)
            )
        return self._select(stump, d, self.X_, column, column_edge)
