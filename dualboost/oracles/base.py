"""The oracle protocol ([KG] Sec 2.1, docs/math.md#edges-and-the-oracle): the weak learner of every booster.

An oracle is constructed with its options, fitted once on the training data, then asked
``best(d)`` for a distribution d over the N training examples. It returns the maximum-edge
hypothesis of its class (the "strongest oracle" that all of [KG]'s experiments use,
docs/math.md#thesis-experiments) as a :class:`Selection`:

* ``edge``: u . d with u_n = y_n h(x_n) (Def 2.1; weighted error = (1 - edge)/2 when sum d = 1),
* ``column``: u in [-1, 1]^N, the new column of the edge matrix U,
* ``predict(X)``: h(X) in [-1, 1] on new data, and ``describe()``.

Hypotheses are immutable and compare equal (with equal hashes) exactly when they are the same
member of their class (same feature, threshold and sign; same index and sign), so a driver can
detect a re-selected hypothesis. A :class:`Selection` compares as its hypothesis.

Exact ties are broken deterministically: among the hypotheses whose edge is within
``TIE_TOL * sum(|d|)`` of the largest, the first in the class's documented order wins.

Signed weights. ``best(d, signed=True)`` accepts d with entries of either sign (finite, not all
zero) and returns the hypothesis of largest ``u . d`` all the same: the pricing problem of a model
whose example weights can be negative (MDBoost's ``d = 1/D - U w``, docs/math.md#mdboost). An oracle
supports it when its search is linear in d, i.e. when it computes every member's edge ``u . d``
exactly as a linear function of d rather than by fitting to a distribution; it says so by the class
attribute :attr:`Oracle.signed_weights`. The stumps, the raw features, the linear-kernel columns and
the fixed matrices are linear (their edges are sums of ``d_n y_n h(x_n)``; their tie threshold is
``TIE_TOL * sum |d|``, which is ``TIE_TOL * sum d`` for non-negative d, bit for bit);
:class:`~dualboost.oracles.SklearnOracle` fits ``|d|`` with the labels ``sign(d_n) y_n`` (the same
edges: ``d_n y_n h = |d_n| (sign(d_n) y_n) h``). An oracle without the attribute refuses signed
weights with a ValueError.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from dualboost._validation import Matrix, binary_labels, check_features, check_weights

__all__ = [
    "Oracle",
    "Hypothesis",
    "Selection",
    "TIE_TOL",
    "tie_threshold",
    "first_max",
    "first_max_signed",
    "feature_column",
    "weight_scale",
    "check_signed_weights",
    "fields_of",
    "json_field",
    "check_sign",
    "check_feature",
]

#: Edges within ``TIE_TOL * sum(d)`` of the maximum count as ties (rounding in the cumulative sums).
TIE_TOL = 1e-12


def weight_scale(d: NDArray[np.float64]) -> float:
    """``sum |d|``: the scale of the tie threshold (``sum d`` for non-negative weights, bit for bit,
    since ``|d_n| = d_n`` then; the total mass of signed ones, module docstring).

    Parameters
    ----------
    d : ndarray of shape (N,)
        The example weights.

    Returns
    -------
    float
        ``sum |d|``.
    """
    return float(np.abs(d).sum())


def check_signed_weights(d: ArrayLike, n_samples: int, name: str = "d") -> NDArray[np.float64]:
    """Finite weights of either sign over the N training examples, not all zero (``best(d,
    signed=True)``); a ValueError naming ``name`` otherwise.

    Parameters
    ----------
    d : array-like of shape (N,)
        The weights to check.
    n_samples : int
        N, the number of training examples.
    name : str
        The name the error message gives the weights.

    Returns
    -------
    ndarray of shape (N,)
        The weights, as float64.
    """
    try:
        arr = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 1-D array") from exc
    if arr.ndim != 1 or arr.size != n_samples:
        raise ValueError(f"{name} must be a 1-D array of length N = {n_samples}; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if not np.any(arr != 0.0):
        raise ValueError(f"{name} must have a non-zero entry (signed weights over the examples)")
    return arr


def tie_threshold(top: float, scale: float) -> float:
    """The smallest edge that ties with the maximum ``top``: ``top - TIE_TOL * scale``.

    Parameters
    ----------
    top : float
        The maximum edge.
    scale : float
        The scale of the tolerance (:func:`weight_scale`).

    Returns
    -------
    float
        ``top - TIE_TOL * scale``.
    """
    return top - TIE_TOL * scale


def first_max(edges: NDArray[np.float64], scale: float) -> int:
    """Index of the first entry within ``TIE_TOL * scale`` of the maximum of ``edges``.

    Parameters
    ----------
    edges : ndarray
        The edges of the candidates, in tie-break order.
    scale : float
        The tolerance's scale (:func:`weight_scale`).

    Returns
    -------
    int
        The index of the first near-maximal edge.
    """
    return int(np.argmax(edges >= tie_threshold(edges.max(), scale)))


def first_max_signed(edges: NDArray[np.float64], scale: float, reflexive: bool = True) -> tuple[int, int]:
    """``(index, sign)`` of the max-edge member of a class with the given edges (sign +1).

    With ``reflexive`` the negations (sign -1, edge -e) are in the class too; the order for ties
    is index ascending, sign +1 before -1 (:func:`first_max`). Computed on ``|edges|`` (the maximum
    of e and -e), without forming the interleaved list of both signs: the same answer, bit for bit.

    Parameters
    ----------
    edges : ndarray
        The edges of the class's members of sign +1.
    scale : float
        Scale of the tie tolerance (:func:`weight_scale`).
    reflexive : bool
        Whether the negations belong to the class.

    Returns
    -------
    index : int
        The member's index.
    sign : int
        Its sign, +1 or -1.
    """
    if not reflexive:
        return first_max(edges, scale), 1
    size = np.abs(edges)
    threshold = tie_threshold(size.max(), scale)
    index = int(np.argmax(size >= threshold))
    return index, 1 if edges[index] >= threshold else -1


def feature_column(X: Matrix, j: int) -> NDArray[np.float64]:
    """Column j of a dense or sparse matrix as a dense 1-D array.

    Parameters
    ----------
    X : ndarray or sparse matrix
        The feature matrix.
    j : int
        The column's index.

    Returns
    -------
    ndarray of shape (n_samples,)
        The column, dense.
    """
    if sp.issparse(X) and X.format == "csc":
        out = np.zeros(X.shape[0])
        start, stop = X.indptr[j], X.indptr[j + 1]
        np.add.at(out, X.indices[start:stop], X.data[start:stop])
        return out
    if sp.issparse(X):
        return np.asarray(X[:, [j]].toarray()).ravel()
    return np.asarray(X[:, j], dtype=np.float64)


@dataclass(frozen=True)
class Hypothesis(ABC):
    """A weak hypothesis h: X -> [-1, 1] fitted on data with ``n_features`` features.

    Subclasses are frozen dataclasses whose compared fields identify the hypothesis; data needed
    only to evaluate it are declared with ``compare=False``.

    Parameters
    ----------
    n_features : int
        The number of features of the data it was fitted on.
    """

    n_features: int = field(compare=False, repr=False)

    def predict(self, X: ArrayLike | Matrix) -> NDArray[np.float64]:
        """h(X) in [-1, 1], one value per row of X (dense or scipy.sparse)."""
        return self._predict(check_features(X, "X", self.n_features))

    @abstractmethod
    def _predict(self, X: Matrix) -> NDArray[np.float64]:
        """h(X) for an already validated X."""

    @abstractmethod
    def describe(self) -> str:
        """A short human-readable description, e.g. ``x[3] > 0.5 -> +1``."""

    def to_dict(self) -> dict:
        """The fields as JSON values (for checkpoints, :mod:`dualboost.boosting.core.checkpoint`); floats
        round-trip exactly through JSON. A field that is not a bool, int, float or str raises
        ValueError: such a class overrides this and :meth:`from_dict`."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, (np.integer, np.floating, np.bool_)):
                value = value.item()
            if not isinstance(value, (bool, int, float, str)):
                raise ValueError(
                    f"{type(self).__name__} cannot be written to a checkpoint: its field {f.name!r} holds "
                    f"a {type(value).__name__}"
                )
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: dict) -> Hypothesis:
        """The hypothesis of :meth:`to_dict`'s output, read from a file (a checkpoint, a model file):
        ValueError if the fields differ, if a field's JSON value is not of the field's type (an int
        that is not a bool; a finite float; a str) or if :meth:`check` refuses the values."""
        given = fields_of(cls, data)
        values = {f.name: json_field(cls, f.name, f.type, given[f.name]) for f in fields(cls)}
        hypothesis = cls(**values)
        hypothesis.check()
        return hypothesis

    def check(self) -> None:
        """ValueError unless every field is in its range (``n_features >= 0``; a subclass adds its own).
        :meth:`from_dict` calls it, so that the values of a file are checked before they predict."""
        if self.n_features < 0:
            raise ValueError(f"{type(self).__name__}: n_features must be >= 0; got {self.n_features}")


def fields_of(cls: type, data: object, skip: tuple[str, ...] = ()) -> dict:
    """``data``, once it is known to be a dict of exactly the dataclass fields of ``cls`` (those in
    ``skip`` apart); ValueError naming them otherwise.

    Parameters
    ----------
    cls : type
        The dataclass.
    data : object
        The data read (from JSON).
    skip : tuple of str
        Fields that ``data`` does not carry.

    Returns
    -------
    dict
        ``data``, checked.
    """
    expected = {f.name for f in fields(cls)} - set(skip)
    if not isinstance(data, dict) or set(data) != expected:
        got = sorted(map(str, data)) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{cls.__name__} needs the fields {sorted(expected)}; got {got}")
    return data


def json_field(cls: type, name: str, kind: str, value: object) -> object:
    """The JSON ``value`` of the field ``name`` of a hypothesis class, of the field's annotated ``kind``
    (``"int"``: an int that is not a bool, of int64's range; ``"float"``: a finite number, as float;
    ``"str"``); ValueError naming the class and the field otherwise.

    Parameters
    ----------
    cls : type
        The hypothesis class (for the error message).
    name : str
        The field's name.
    kind : str
        The field's annotated kind: ``"int"``, ``"float"`` or ``"str"``.
    value : object
        The JSON value.

    Returns
    -------
    object
        The value as the field's kind.
    """
    kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**63:
        return value
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        if math.isfinite(value):
            return float(value)
    if kind == "str" and isinstance(value, str):
        return value
    raise ValueError(f"{cls.__name__}: the field {name!r} must be a finite {kind}; got {value!r}")


def check_sign(hypothesis: Hypothesis, sign: object) -> None:
    """ValueError unless ``sign`` (a field of ``hypothesis``) is -1 or +1.

    Parameters
    ----------
    hypothesis : Hypothesis
        The hypothesis whose field it is.
    sign : object
        The field's value.
    """
    if sign not in (-1, 1) or isinstance(sign, bool):
        raise ValueError(f"{type(hypothesis).__name__}: sign must be -1 or +1; got {sign!r}")


def check_feature(hypothesis: Hypothesis, feature: int) -> None:
    """ValueError unless ``feature`` is a column index in ``[0, n_features)`` of ``hypothesis``.

    Parameters
    ----------
    hypothesis : Hypothesis
        The hypothesis whose field it is.
    feature : int
        The column index.
    """
    if not 0 <= feature < hypothesis.n_features:
        raise ValueError(
            f"{type(hypothesis).__name__}: feature must lie in [0, {hypothesis.n_features}) "
            f"(n_features); got {feature!r}"
        )


@dataclass(frozen=True, eq=False)
class Selection:
    """The answer of ``Oracle.best(d)``: a hypothesis with its edge and its column of U.

    Compares (and hashes) as its hypothesis, so ``selection in seen`` detects a re-selection.

    Parameters
    ----------
    hypothesis : Hypothesis
        The hypothesis chosen.
    edge : float
        Its edge ``u @ d`` on the distribution it was chosen for.
    column : ndarray, shape (N,)
        Its column ``u = y * h(X_train)`` of U.
    """

    hypothesis: Hypothesis
    edge: float
    column: NDArray[np.float64] = field(repr=False)

    def predict(self, X: ArrayLike | Matrix) -> NDArray[np.float64]:
        """h(X) in [-1, 1] for new data."""
        return self.hypothesis.predict(X)

    def describe(self) -> str:
        return f"{self.hypothesis.describe()}  (edge {self.edge:+.6g})"

    def __repr__(self) -> str:
        return f"Selection({self.describe()})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Selection):
            return self.hypothesis == other.hypothesis
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.hypothesis)


class Oracle(ABC):
    """A max-edge weak learner over a hypothesis class: ``fit(X, y)`` once, then ``best(d)``.

    After ``fit``: ``n_samples_`` (N), ``n_features_``, ``y_`` (labels in {-1, +1}) and
    ``classes_`` (the original labels mapped to -1 and +1).
    """

    #: whether ``best(d, signed=True)`` is supported (the search is linear in d: module docstring)
    signed_weights: bool = False

    def fit(self, X: ArrayLike | Matrix, y: ArrayLike) -> Oracle:
        """Validate and store the training data (X dense or scipy.sparse, y with two classes)."""
        X = check_features(X, "X")
        self.y_, self.classes_ = binary_labels(y, X.shape[0], "y")
        self.n_samples_, self.n_features_ = X.shape
        self._fit(X)
        return self

    @abstractmethod
    def _fit(self, X: Matrix) -> None:
        """Precompute what ``best`` needs from the validated X (labels are in ``self.y_``)."""

    def best(self, d: ArrayLike, signed: bool = False, *, checked: bool = False) -> Selection:
        """The maximum-edge hypothesis for the weights d over the N training examples: non-negative
        with a positive sum, or, with ``signed=True``, of either sign (oracles whose
        :attr:`signed_weights` is True; module docstring).

        ``checked=True`` is a driver's internal entry (docs/architecture.md#layers): d is a float64
        array of N non-negative finite weights with a positive sum that the library made and
        certified itself (a totally corrective re-solve's d, on the capped simplex: ``certify``
        moved it there), so it is not checked again (N passes saved per iteration). Weights from
        anywhere else, a user's above all, are always checked (the default)."""
        if checked:
            return self._best(d)
        if not hasattr(self, "n_samples_"):
            raise ValueError(f"{type(self).__name__} is not fitted: call fit(X, y) before best(d)")
        if signed:
            if not self.signed_weights:
                raise ValueError(
                    f"{type(self).__name__} does not take signed weights (best(d, signed=True)): its search "
                    "is not linear in d; use decision stumps, raw features, linear-kernel columns or a matrix"
                )
            d = check_signed_weights(d, self.n_samples_, "d")
        else:
            d = check_weights(d, self.n_samples_, "d")
        return self._best(d)

    @abstractmethod
    def _best(self, d: NDArray[np.float64]) -> Selection:
        """``best`` for validated weights."""

    def _select(
        self,
        hypothesis: Hypothesis,
        d: NDArray[np.float64],
        X: Matrix,
        column: NDArray[np.float64] | None = None,
        edge: float | None = None,
    ) -> Selection:
        """The selection of ``hypothesis``: its column u = y * h(X_train) (``column``: already
        computed, equal to ``y * h(X)``) and edge u . d (``edge``: already computed with ``column``,
        equal to ``np.sum(column * d)`` bit for bit)."""
        if column is None:
            column = self.y_ * hypothesis._predict(X)
        column.setflags(write=False)
        if edge is None:
            # np.sum (pairwise) rather than a BLAS dot: waking OpenBLAS threads for one short dot
            # product costs milliseconds, more than the whole stump search on a9a
            edge = float(np.sum(column * d))
        return Selection(hypothesis, edge, column)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
