"""Input validation shared by every layer: each failure is a ``ValueError`` naming the argument.

Messages use the notation of docs/math.md#notation (N examples, t hypotheses, nu in [1, N], eta > 0).
Three groups: scalars, counts, choices and vectors (every layer; the edge matrix U, nu, eta, d0);
the conjugate library's arguments (non-zero scales, positive priors, norm orders, dimensions); the
training data of the oracles and the data loaders (X, labels, weights). The estimators declare their
parameters to scikit-learn instead (docs/architecture.md#parameters).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "CheckedEdges",
    "check_edge_matrix",
    "check_edge_column",
    "check_nu",
    "check_eta",
    "check_distribution",
    "check_vector",
    "check_scalar",
    "check_positive",
    "check_max_iter",
    "check_count",
    "check_choice",
    "check_nonzero",
    "check_positive_vector",
    "check_norm_order",
    "check_size",
    "Matrix",
    "check_features",
    "check_label_vector",
    "binary_labels",
    "check_weights",
]


def check_scalar(value: object, name: str) -> float:
    """A finite real scalar."""
    if type(value) is float:  # the common case, without the abstract isinstance test
        pass
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        arr = np.asarray(value)
        if arr.ndim != 0 or not np.issubdtype(arr.dtype, np.number):
            raise ValueError(f"{name} must be a real number; got {value!r}")
        value = float(arr.item())
    else:
        value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite; got {value!r}")
    return value


def check_positive(value: object, name: str) -> float:
    """A finite real scalar ``> 0`` (a precision eps, a tolerance, a step size)."""
    value = check_scalar(value, name)
    if value <= 0.0:
        raise ValueError(f"{name} must be > 0; got {value!r}")
    return value


def check_count(value: object, name: str, *, optional: bool = False) -> int | None:
    """A positive integer (a number of iterations, learners, partitions, features); None is
    accepted (and returned) when ``optional``."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        allowed = "a positive integer" + (" or None" if optional else "")
        raise ValueError(f"{name} must be {allowed}; got {value!r}")
    return int(value)


def check_max_iter(max_iter: object, default: int | None = None) -> int:
    """A positive integer ``max_iter``; None gives ``default`` where there is one (a driver's bound
    from its theorem), and is refused where there is none (an estimator's parameter)."""
    if max_iter is None and default is not None:
        return int(default)
    return check_count(max_iter, "max_iter", optional=default is not None)


def check_choice(value: object, choices: tuple[str, ...], name: str) -> str:
    """One of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value


def check_vector(x: ArrayLike, name: str, size: int | None = None) -> NDArray[np.float64]:
    """A finite float64 1-D array, of length ``size`` when given."""
    arr = _vector(x, name, size)
    # (the ufunc's reduce: np.all's dispatch and ndarray.all's Python-level wrapper, ~0.7 us each,
    # cost as much as the pass at N = 500)
    if not np.logical_and.reduce(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def _vector(x: ArrayLike, name: str, size: int | None) -> NDArray[np.float64]:
    """:func:`check_vector` but for the finiteness of the entries."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 1-D array") from exc
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array; got shape {arr.shape}")
    if size is not None and arr.size != size:
        raise ValueError(f"{name} must have length {size}; got {arr.size}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    return arr


class CheckedEdges(np.ndarray):
    """A read-only float64 edge matrix whose entries were checked to be finite and in [-1, 1] when
    its columns were added (the drivers' ``Ensemble.U``, :func:`check_edge_column` per column):
    :func:`check_edge_matrix` takes it without scanning it again (two passes over U per model, 11 ms
    at N = 20,000, t = 1,000, at every iteration of a driver)."""


def _in_edge_range(arr: NDArray[np.float64], name: str) -> NDArray[np.float64]:
    """``arr`` if every entry is finite and in [-1, 1]; clipped (a copy) where rounding put entries at
    most 1e-12 beyond; else a ValueError naming ``name``."""
    lo, hi = arr.min(), arr.max()  # NaN and inf propagate: two passes check everything
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if max(-lo, hi) > 1.0 + 1e-12:
        raise ValueError(
            f"{name} must lie in [-1, 1] (U[n, q] = y_n h_q(x_n)); max |entry| is "
            f"{max(-lo, hi):.6g}: rescale the hypotheses"
        )
    return np.clip(arr, -1.0, 1.0) if max(-lo, hi) > 1.0 else arr


def check_edge_column(column: ArrayLike, n_samples: int, name: str = "column") -> NDArray[np.float64]:
    """One column ``u = y * h(X)`` of the edge matrix: finite float64 of length N in [-1, 1] (rounding
    up to 1e-12 beyond is clipped). The range check finds NaN and inf too (with :func:`check_vector`'s
    message): no separate pass for them."""
    return _in_edge_range(_vector(column, name, n_samples), name)


#: the float64 dtype (a :class:`CheckedEdges` of it is taken as it is by :func:`check_edge_matrix`)
_FLOAT64 = np.dtype(np.float64)


def check_edge_matrix(U: ArrayLike, name: str = "U") -> NDArray[np.float64]:
    """The edge matrix U in [-1, 1]^{N x t}, N >= 1 examples, t >= 1 hypotheses, as a private float64
    array: a copy of a writable array, the array itself when it is read-only float64 (a model keeps
    it: its owner must not make it writable and change it; the drivers' ``Ensemble.U`` never does,
    and its entries were checked as its columns were added: a :class:`CheckedEdges`)."""
    if type(U) is CheckedEdges and U.dtype is _FLOAT64 and U.ndim == 2 and U.size and not U.flags.writeable:
        return U.view(np.ndarray)  # (what the checks below come to for it, without their conversions)
    try:
        arr = np.asarray(U, dtype=np.float64)
        # a conversion (an int8 store, a list) already made a private array, and a read-only float64
        # array is one its owner promised not to change (the drivers' Ensemble.U): no copy
        fresh = (arr is not U and not np.may_share_memory(arr, U)) or not arr.flags.writeable
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 2-D array (N examples x t hypotheses)") from exc
    if arr.ndim == 1:
        arr = arr[:, None]
    if arr.ndim != 2:
        raise ValueError(f"{name} must be 2-D (N examples x t hypotheses); got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} has no rows: at least one example is needed")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} has no columns: the hypothesis set is empty")
    if type(U) is CheckedEdges and not arr.flags.writeable:
        return arr.view(np.ndarray)  # checked column by column already
    checked = _in_edge_range(arr, name)
    if checked is not arr:  # rounding beyond +-1 clipped: a private copy already
        return checked
    return arr if fresh else arr.copy(order="K")  # a private copy, in the caller's memory layout


def check_nu(nu: object, n_samples: int, *, strict_upper: bool = False) -> float:
    """The capping parameter nu in [1, N] (or [1, N) when ``strict_upper``)."""
    nu = check_scalar(nu, "nu")
    upper_ok = nu < n_samples if strict_upper else nu <= n_samples
    if nu < 1.0 or not upper_ok:
        bracket = ")" if strict_upper else "]"
        raise ValueError(f"nu must lie in [1, N{bracket} = [1, {n_samples}{bracket}; got {nu!r}")
    return nu


def check_eta(eta: object) -> float:
    """The entropy regularisation eta > 0."""
    eta = check_scalar(eta, "eta")
    if eta <= 0.0:
        raise ValueError(f"eta must be > 0; got {eta!r}")
    return eta


def check_distribution(
    d: ArrayLike | None, n_samples: int, name: str = "d0", *, positive: bool = True
) -> NDArray[np.float64]:
    """A probability vector of length N (uniform when ``None``); strictly positive if asked."""
    if d is None:
        return np.full(n_samples, 1.0 / n_samples)
    arr = check_vector(d, name, n_samples)
    if positive and np.any(arr <= 0.0):
        raise ValueError(f"{name} must be strictly positive (a prior distribution over examples)")
    if np.any(arr < 0.0):
        raise ValueError(f"{name} must be non-negative")
    if abs(arr.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1; sums to {arr.sum():.12g}")
    return arr / arr.sum()


# --- the conjugate library's arguments ---------------------------------------------------------
def check_nonzero(value: object, name: str) -> float:
    """A finite real scalar ``!= 0``."""
    value = check_scalar(value, name)
    if value == 0.0:
        raise ValueError(f"{name} must be non-zero; got {value!r}")
    return value


def check_positive_vector(x: ArrayLike, name: str, size: int | None = None) -> NDArray[np.float64]:
    """A finite 1-D array with strictly positive entries (a prior ``d0``, not necessarily normalised)."""
    arr = check_vector(x, name, size)
    if np.any(arr <= 0.0):
        raise ValueError(f"{name} must be strictly positive")
    return arr


def check_norm_order(p: object) -> float:
    """The order of an l_p norm, one of ``1``, ``2``, ``inf`` (also the string ``"inf"``)."""
    if isinstance(p, str) and p.lower() == "inf":
        return np.inf
    try:
        value = float(p)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        value = np.nan
    if value not in (1.0, 2.0, np.inf):
        raise ValueError(f"p must be 1, 2 or inf; got {p!r}")
    return value


def check_size(n: int | None, other: int | None, name: str) -> int | None:
    """The common dimension of two objects whose dimension may be unknown (``None``)."""
    if n is not None and other is not None and n != other:
        raise ValueError(f"{name} has dimension {other}, expected {n}")
    return n if n is not None else other


# --- training data for the oracles and the data loaders --------------------------------------------
# X: a finite 2-D array or scipy.sparse matrix (N examples x p features); y: N labels of exactly two
# classes, mapped to -1/+1 with the larger label +1 (scikit-learn's LabelBinarizer order), or labels in
# {-1, +1} already (kept, one class allowed); d: the non-negative weights over the N examples.
#: Feature matrices: dense float64 arrays or scipy.sparse matrices / arrays.
Matrix = NDArray[np.float64] | sp.spmatrix | sp.sparray


def check_features(X: object, name: str = "X", n_features: int | None = None) -> Matrix:
    """A finite float64 matrix (dense ndarray, or scipy.sparse in CSR/CSC form), N >= 1 rows."""
    if sp.issparse(X):
        fmt = X.format if X.format in ("csr", "csc") else "csr"
        try:
            X = X.asformat(fmt).astype(np.float64, copy=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must hold real numbers") from exc
        values = X.data
    else:
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a numeric 2-D array or a scipy.sparse matrix") from exc
        values = X
    if X.ndim != 2:
        raise ValueError(f"{name} must be 2-D (N examples x p features); got shape {X.shape}")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{name} must have at least one example and one feature; got shape {X.shape}")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{name} must have {n_features} features (as in training); got {X.shape[1]}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return X


def check_label_vector(y, n_rows: int, *, column: bool = False):
    """``y`` as a 1-D array of ``n_rows`` labels, one per row of X. Only ``y``'s shape is read, so
    a numpy or a dask array passes unchanged (nothing is computed); ``column``: a (n, 1) or (1, n)
    ``y`` is raveled first."""
    if column and y.ndim == 2 and 1 in y.shape:
        y = y.ravel()
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y must be a 1-D array with one label per row of X ({n_rows}); got shape {y.shape}")
    return y


def binary_labels(
    y: ArrayLike, n_samples: int | None = None, name: str = "y"
) -> tuple[NDArray[np.float64], NDArray]:
    """Labels as -1/+1 floats and the two original classes ``(negative, positive)``.

    Labels already in {-1, +1} are kept (even if one class is absent); otherwise there must be
    exactly two classes and the larger one (in ``np.unique`` order) becomes +1, as scikit-learn does.
    """
    arr = np.asarray(y)
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.ravel()
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of labels; got shape {arr.shape}")
    if n_samples is not None and arr.size != n_samples:
        raise ValueError(f"{name} must have one label per example ({n_samples}); got {arr.size}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if arr.dtype.kind == "O":
        arr = arr.astype(str)
    classes = np.unique(arr)
    if arr.dtype.kind in "biuf" and np.all(np.isin(classes, (-1, 1))):
        return arr.astype(np.float64), np.array([-1, 1], dtype=arr.dtype)
    if classes.size != 2:
        shown = ", ".join(map(str, classes[:5])) + (", ..." if classes.size > 5 else "")
        raise ValueError(f"{name} must have exactly two classes; got {classes.size} ({shown})")
    return np.where(arr == classes[1], 1.0, -1.0), classes


def check_weights(d: ArrayLike, n_samples: int, name: str = "d") -> NDArray[np.float64]:
    """Non-negative finite weights over the N training examples with a positive sum."""
    try:
        arr = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric 1-D array") from exc
    if arr.ndim != 1 or arr.size != n_samples:
        raise ValueError(f"{name} must be a 1-D array of length N = {n_samples}; got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if (arr < 0.0).any() or not arr.sum() > 0.0:
        raise ValueError(f"{name} must be non-negative with a positive sum (a distribution over examples)")
    return arr
