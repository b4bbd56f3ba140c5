"""Multiclass weak learners through the multiclass margin (docs/math.md#multiclass).

With K classes, the examples of a boosting model are the N(K-1) *pairs* (n, k) of a training example
and a class k other than its label y_n. A weak hypothesis maps x to one of the K classes, and its
column of the edge matrix U has, for the pair (n, k),

    u_(n,k) = [h(x_n) = y_n] - [h(x_n) = k]      in {-1, 0, +1}.

The vote of weights w, ``F_c(x) = sum_q w_q [h_q(x) = c]``, then has the margin
``(U w)_(n,k) = F_(y_n)(x_n) - F_k(x_n)`` on the pair (n, k): every model of the package (LPBoost,
ERLPBoost, SoftBoost, ...) applies to this U unchanged, its d a distribution over the pairs, and a
positive soft margin means a vote whose argmax is right with margin on the pairs it does not give up.
For two classes the pairs are the N examples and ``u_n = y_n h(x_n)`` with h in {-1, +1}: the binary
models exactly.

The oracle. For weights d over the pairs, with ``D_n = sum_k d_(n,k)`` and ``d_(n, y_n) = 0``, the
edge of h is ``sum_n G[n, h(x_n)]`` with the gain matrix ``G[n, c] = [y_n = c] D_n - d_(n,c)``
(linear in d, so signed weights are supported). A stump sends the examples with ``x_j > theta`` to
the class ``above`` and the others to ``below``; for a split the best pair of classes is chosen per
side, ``max_a sum_(x_nj > theta) G[n, a] + max_b sum_(x_nj <= theta) G[n, b]``, from prefix sums
of G along each feature's sort order: O(N K) per feature and call.

Order for ties (:data:`~dualboost.oracles.base.TIE_TOL`, :func:`~dualboost.oracles.base.first_max`):
the constants by class index, then features in index order, thresholds increasing; within a split the
lowest class index on each side.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import Matrix, check_features
from dualboost.oracles.base import (
    Hypothesis,
    Oracle,
    Selection,
    check_feature,
    feature_column,
    first_max,
    weight_scale,
)
from dualboost.oracles.stumps import _midpoints

__all__ = [
    "PairCoding",
    "ClassHypothesis",
    "ClassStump",
    "ClassConstant",
    "ClassStumps",
    "ClassSplits",
    "class_votes",
]


@dataclass(frozen=True, eq=False)
class PairCoding:
    """The (example, wrong class) pairs of labels ``labels`` (class indices in ``[0, n_classes)``), in
    row-major order: example by example, the wrong classes of each in increasing order."""

    labels: NDArray[np.intp]
    n_classes: int
    rows: NDArray[np.intp] = field(init=False, repr=False)
    wrong: NDArray[np.intp] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        K, N = self.n_classes, self.labels.size
        every = np.tile(np.arange(K), N)
        keep = every != np.repeat(self.labels, K)
        object.__setattr__(self, "rows", np.repeat(np.arange(N), K)[keep])
        object.__setattr__(self, "wrong", every[keep])

    @property
    def n_pairs(self) -> int:
        """N (K - 1)."""
        return int(self.rows.size)

    def column(self, predicted: NDArray[np.intp]) -> NDArray[np.float64]:
        """``u_(n,k) = [h(x_n) = y_n] - [h(x_n) = k]`` for the classes ``predicted`` = h(x_n)."""
        at = predicted[self.rows]
        return (at == self.labels[self.rows]).astype(np.float64) - (at == self.wrong)

    def gains(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``G[n, c] = [y_n = c] D_n - d_(n,c)`` (N x K): the edge of h is ``sum_n G[n, h(x_n)]``."""
        G = np.zeros((self.labels.size, self.n_classes))
        np.add.at(G, (self.rows, self.labels[self.rows]), d)
        np.subtract.at(G, (self.rows, self.wrong), d)
        return G

    def margins(self, votes: NDArray[np.float64]) -> NDArray[np.float64]:
        """``F_(y_n)(x_n) - F_k(x_n)`` per pair for the N x K votes F: ``U w`` for the votes of w."""
        return votes[self.rows, self.labels[self.rows]] - votes[self.rows, self.wrong]


@dataclass(frozen=True)
class ClassHypothesis(Hypothesis):
    """A weak hypothesis h: X -> {0, ..., K-1} (class indices, as floats from :meth:`predict`)."""

    n_classes: int = field(compare=False, repr=False)

    def check(self) -> None:
        """``n_classes >= 2`` (and the subclass's own fields)."""
        super().check()
        if isinstance(self.n_classes, bool) or self.n_classes < 2:
            raise ValueError(f"{type(self).__name__}: n_classes must be >= 2; got {self.n_classes!r}")

    def _check_class(self, name: str, value: int) -> None:
        if isinstance(value, bool) or not 0 <= value < self.n_classes:
            raise ValueError(
                f"{type(self).__name__}: {name} must be a class index in [0, {self.n_classes}); got {value!r}"
            )


@dataclass(frozen=True)
class ClassStump(ClassHypothesis):
    """h(x) = above if x[feature] > threshold else below."""

    feature: int
    threshold: float
    above: int
    below: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.where(feature_column(X, self.feature) > self.threshold, self.above, self.below).astype(
            np.float64
        )

    def describe(self) -> str:
        return f"x[{self.feature}] > {self.threshold:.6g} -> class {self.above}, else class {self.below}"

    def check(self) -> None:
        """A feature index in range and two class indices in range."""
        super().check()
        check_feature(self, self.feature)
        self._check_class("above", self.above)
        self._check_class("below", self.below)


@dataclass(frozen=True)
class ClassConstant(ClassHypothesis):
    """The constant hypothesis h(x) = label."""

    label: int

    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        return np.full(X.shape[0], float(self.label))

    def describe(self) -> str:
        return f"constant class {self.label}"

    def check(self) -> None:
        """A class index in range."""
        super().check()
        self._check_class("label", self.label)


def class_labels(y: ArrayLike, n_samples: int, name: str = "y") -> tuple[NDArray[np.intp], NDArray]:
    """``(indices, classes)``: the labels as indices into ``classes`` (``np.unique`` order, as
    scikit-learn's ``classes_``); ValueError naming ``name`` for a shape other than N labels or fewer
    than two classes."""
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1 or arr.size != n_samples:
        raise ValueError(f"{name} must be a 1-D array of N = {n_samples} labels; got shape {arr.shape}")
    classes, indices = np.unique(arr, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"{name} must hold at least two classes; got {classes.size}")
    return indices.astype(np.intp), classes


class ClassSplits:
    """The splits of class-valued stumps over features with the sorted distinct values ``values[j]``
    (one list entry per feature), and the choice of the max-edge stump from block sums of the gain
    matrix (module docstring): :class:`ClassStumps` sums the blocks in memory, the Dask oracle
    (:mod:`dualboost.dask.multiclass`) reduces them from the workers, and both choose here, in the
    tie order of the module docstring.

    A feature's blocks are its distinct values in increasing order (block ``b`` of feature ``j`` is
    global row ``starts[j] + b`` of the block sums); a split after block ``b`` (``bin[s] = b``) sends
    ``x_j > threshold[s]`` (the midpoint of values ``b`` and ``b + 1``) to ``above``.

    Parameters
    ----------
    values : list of ndarray
        Each feature's sorted distinct values.
    """

    def __init__(self, values: list[NDArray[np.float64]]) -> None:
        sizes = np.array([v.size for v in values], dtype=np.intp)
        self.starts = np.r_[0, np.cumsum(sizes)].astype(np.intp)
        splits = np.maximum(sizes - 1, 0)
        self.feature = np.repeat(np.arange(sizes.size), splits)
        self.bin = np.concatenate([np.arange(n) for n in splits]) if values else np.zeros(0, np.intp)
        self.threshold = (
            np.concatenate([_midpoints(v[:-1], v[1:]) for v in values]) if values else np.zeros(0)
        )

    def below(self, sums: NDArray[np.float64]) -> NDArray[np.float64]:
        """The sums of G over ``x_j <= theta`` for every split (splits x K) from the block sums
        (blocks x K): per feature, the running sums of its block sums (each from an exact 0)."""
        out = np.empty((self.threshold.size, sums.shape[1]))
        at = 0
        for start, stop in zip(self.starts[:-1], self.starts[1:], strict=True):
            if stop - start > 1:
                np.cumsum(sums[start : stop - 1], axis=0, out=out[at : at + stop - start - 1])
                at += stop - start - 1
        return out

    def choose(
        self, sums: NDArray[np.float64], total: NDArray[np.float64], scale: float, n_features: int
    ) -> tuple[ClassHypothesis, int, float]:
        """``(hypothesis, split, edge)``: the max-edge hypothesis, a constant (edge ``total[c]``,
        ``split`` -1) or the stump of split ``split`` with the best class on each side, from the block
        sums of G (blocks x K) and its column sums ``total`` (K); ``scale``: ``sum |d|``, the scale of
        the tie threshold; ``edge``: its edge from these sums.

        Parameters
        ----------
        sums : ndarray of shape (blocks, K)
            The block sums of G.
        total : ndarray of shape (K,)
            G's column sums.
        scale : float
            ``sum |d|``.
        n_features : int
            The features of the hypotheses.

        Returns
        -------
        hypothesis : ClassHypothesis
            The chosen constant or stump.
        split : int
            Its index among the splits, -1 for a constant.
        edge : float
            Its edge.
        """
        K = total.size
        below = self.below(sums)
        edges = np.concatenate([total, below.max(axis=1) + (total - below).max(axis=1)])
        index = first_max(edges, scale)  # the constants first, then the splits in order
        if index < K:
            return ClassConstant(n_features, K, index), -1, float(edges[index])
        split = index - K
        stump = ClassStump(
            n_features,
            K,
            int(self.feature[split]),
            float(self.threshold[split]),
            int(np.argmax(total - below[split])),
            int(np.argmax(below[split])),
        )
        return stump, split, float(edges[index])


class ClassStumps(Oracle):
    """Decision stumps with a class on each side, and the K constants, as columns over the
    (example, wrong class) pairs (module docstring). After ``fit``: ``n_samples_`` is the number of
    pairs N(K-1) (the length of d and of every column), ``n_examples_`` N, ``classes_`` the K labels,
    ``coding_`` the :class:`PairCoding`."""

    signed_weights = True

    def fit(self, X: ArrayLike | Matrix, y: ArrayLike) -> ClassStumps:
        """Validate and store the training data (X dense or scipy.sparse, y with at least two classes)."""
        X = check_features(X, "X")
        labels, self.classes_ = class_labels(y, X.shape[0], "y")
        self.coding_ = PairCoding(labels, int(self.classes_.size))
        self.n_examples_, self.n_features_ = X.shape
        self.n_samples_ = self.coding_.n_pairs
        self._fit(X)
        return self

    def _fit(self, X: Matrix) -> None:
        self.X_ = X
        N, F = X.shape
        values, blocks = [], []
        for j in range(F):
            distinct, rank = np.unique(feature_column(X, j), return_inverse=True)
            values.append(distinct)
            blocks.append(rank.ravel())
        self.splits_ = ClassSplits(values)
        # row n lies in one block (a run of equal values) of each feature: the block sums of G are
        # one sparse product, N F multiply-adds, whatever the number of thresholds
        starts = self.splits_.starts
        members = (
            np.concatenate([starts[j] + b for j, b in enumerate(blocks)]) if blocks else np.zeros(0, np.intp)
        )
        self._members = sp.csr_matrix(
            (np.ones(members.size), (members, np.tile(np.arange(N), F))), shape=(starts[-1], N)
        )

    def _best(self, d: NDArray[np.float64]) -> Selection:
        G = self.coding_.gains(d)
        hypothesis = self.splits_.choose(self._members @ G, G.sum(axis=0), weight_scale(d), self.n_features_)[
            0
        ]
        return self._select(hypothesis, d, self.X_)

    def _select(self, hypothesis: Hypothesis, d: NDArray[np.float64], X: Matrix) -> Selection:
        """The selection of ``hypothesis``: its column over the pairs and edge u . d."""
        column = self.coding_.column(hypothesis._predict(X).astype(np.intp))
        column.setflags(write=False)
        return Selection(hypothesis, float(np.sum(column * d)), column)


def class_votes(
    weights: NDArray[np.float64], hypotheses: list[Hypothesis], X: ArrayLike | Matrix, n_classes: int
) -> NDArray[np.float64]:
    """The N x K votes ``F_c(x) = sum_q w_q [h_q(x) = c]`` of class hypotheses with weights w > 0.

    Parameters
    ----------
    weights : ndarray of shape (Q,)
        The hypotheses' weights (> 0).
    hypotheses : list of Hypothesis
        The class hypotheses, each predicting a class index.
    X : array-like or sparse matrix of shape (N, p)
        The examples.
    n_classes : int
        K, the number of classes.

    Returns
    -------
    ndarray of shape (N, K)
        The weighted votes of each class.
    """
    X = check_features(X, "X")
    votes = np.zeros((X.shape[0], n_classes))
    rows = np.arange(X.shape[0])
    for weight, hypothesis in zip(weights, hypotheses, strict=True):
        if weight > 0:
            votes[rows, hypothesis.predict(X).astype(np.intp)] += weight
    return votes
