"""Validation of training data for the oracles and the data loaders: each failure is a
``ValueError`` naming the argument (the convention of :mod:`dualboost._validation`).

* ``X``: a finite 2-D array or ``scipy.sparse`` matrix, N examples x p features;
* ``y``: N labels of exactly two classes, mapped to -1/+1 with the larger label +1 (scikit-learn's
  ``LabelBinarizer`` order), or labels already in {-1, +1} (kept as they are, one class allowed);
* ``d``: the non-negative weights over the N training examples that an oracle is asked about.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

__all__ = ["Matrix", "check_features", "check_label_vector", "binary_labels", "check_weights"]

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


def binary_labels(y: ArrayLike, n_samples: int | None = None, name: str = "y") -> tuple[
    NDArray[np.float64], NDArray
]:
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
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(arr < 0.0) or not arr.sum() > 0.0:
        raise ValueError(f"{name} must be non-negative with a positive sum (a distribution over examples)")
    return arr
