"""The training data every estimator of the package takes: numeric features (a ValueError naming a
non-numeric column and the encoder to use), scikit-learn's validation to dense float64 or CSR/CSC,
classification labels with at least two classes (exactly two for the two-class estimators), and
sample weights (finite, non-negative, not all zero; rows of weight 0 removed)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from dualboost._validation import binary_labels

__all__ = [
    "check_numeric_features",
    "validate_features",
    "labelled_data",
    "binary_training_data",
    "check_sample_weight",
    "positive_rows",
    "uniform_or",
]


#: what to use on non-numeric features, in the message of :func:`check_numeric_features`
_ENCODE = (
    "The estimators of dualboost take numeric features: encode such columns first, e.g. with "
    "sklearn.preprocessing.OneHotEncoder (or OrdinalEncoder for ordered categories) in a "
    "sklearn.compose.ColumnTransformer before the classifier in a pipeline"
)


def check_numeric_features(X: object) -> None:
    """Refuse, with a ValueError naming each non-numeric column of ``X`` (by name for a pandas
    DataFrame, by index otherwise) and the encoder to use, features that are not numbers: string,
    categorical or object columns whose values do not convert to float64 (a categorical of numbers
    converts and passes, as scikit-learn converts it). Numeric, sparse and dask input is left to
    scikit-learn's validation (nothing is converted or computed here); so is a value that is not
    even a string (a dict: scikit-learn's TypeError).

    Parameters
    ----------
    X : object
        The features as given to ``fit`` or ``predict``.

    Raises
    ------
    ValueError
        For a column whose values do not convert to numbers.
    """
    if type(X).__module__.partition(".")[0] == "pandas" and hasattr(X, "columns"):  # a DataFrame
        other = [j for j, dtype in enumerate(X.dtypes) if getattr(dtype, "kind", "O") not in "biufc"]
        columns = [(repr(X.columns[j]), X.iloc[:, j], X.dtypes.iloc[j]) for j in other]
    elif isinstance(X, (np.ndarray, list, tuple)):
        try:
            array = np.asarray(X)
        except ValueError:  # ragged rows: scikit-learn's message
            return
        if array.dtype.kind not in "OUS" or array.ndim != 2:
            return
        columns = [(str(j), array[:, j], array.dtype) for j in range(array.shape[1])]
    else:
        return
    bad = []
    for name, column, dtype in columns:
        try:
            np.asarray(column, dtype=np.float64)
        except ValueError as error:
            bad.append(f"column {name} (dtype {dtype}: {error})")
    if bad:
        shown = "; ".join(bad[:5]) + (f"; and {len(bad) - 5} more" if len(bad) > 5 else "")
        raise ValueError(f"X has non-numeric features: {shown}. {_ENCODE}")


def validate_features(
    estimator: BaseEstimator, X: ArrayLike, y: object = "no_validation", **kwargs
) -> ArrayLike | tuple[ArrayLike, ArrayLike]:
    """``X`` (and ``y`` when given) validated as every estimator of the package takes them: non-numeric
    columns refused by :func:`check_numeric_features`, then scikit-learn's ``validate_data`` to dense
    float64 or CSR/CSC (``kwargs``: its options, e.g. ``reset=False`` in predict).

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator validating (its ``n_features_in_`` is set or checked).
    X : array-like
        The features.
    y : object, default "no_validation"
        The targets, or ``"no_validation"`` for X alone.
    **kwargs
        Further options of scikit-learn's ``validate_data``.

    Returns
    -------
    array-like or tuple
        X validated, or ``(X, y)`` when y is given.
    """
    check_numeric_features(X)
    return validate_data(estimator, X, y, accept_sparse=("csr", "csc"), dtype=np.float64, **kwargs)


def labelled_data(
    estimator: BaseEstimator, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
) -> tuple:
    """``(X, y, weights)`` for ``estimator.fit``: X validated by scikit-learn (dense float64 or
    CSR/CSC; ``n_features_in_`` set), y classification targets with at least two classes (else a
    ValueError saying so), and ``weights`` None, or with ``sample_weight`` given the weights checked
    by :func:`check_sample_weight`, the rows of weight 0 removed from X, y and the weights before the
    classes are counted (an example of weight 0 is an example removed, for every model of the
    package: module docstring of :mod:`dualboost.estimators.base`).

    Parameters
    ----------
    estimator : BaseEstimator
        The estimator being fitted.
    X : array-like
        The N x p features.
    y : array-like
        The N classification targets.
    sample_weight : array-like, optional
        The N sample weights.

    Returns
    -------
    tuple
        ``(X, y, weights)`` as described above.
    """
    X, y = validate_features(estimator, X, y)
    check_classification_targets(y)
    weights = None
    if sample_weight is not None:
        weights = check_sample_weight(sample_weight, X)
        kept = weights > 0
        if not kept.all():
            X, y, weights = X[kept], np.asarray(y)[kept], weights[kept]
    n_classes = np.unique(y).size
    if n_classes < 2:
        raise ValueError(
            "y must contain at least two classes"
            f"{' with a positive sample_weight' if sample_weight is not None else ''}; got "
            f"{n_classes} class"
        )
    return X, y, weights


def binary_training_data(
    estimator: BaseEstimator, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
) -> tuple:
    """``(X, labels, classes)`` for the ``fit`` of a two-class estimator: :func:`labelled_data`, y
    with exactly two classes (else a ValueError saying so), ``labels`` in {-1, +1} with ``classes[1]``
    as +1; with ``sample_weight`` given, ``(X, labels, classes, weights)``.

    Parameters
    ----------
    estimator, X, sample_weight
        As in :func:`labelled_data`.
    y : array-like
        The N targets, of two classes.

    Returns
    -------
    tuple
        ``(X, labels, classes)``, or ``(X, labels, classes, weights)`` with ``sample_weight``.
    """
    X, y, weights = labelled_data(estimator, X, y, sample_weight)
    n_classes = np.unique(y).size
    if n_classes != 2:
        raise ValueError(
            f"Only binary classification is supported by {type(estimator).__name__}: y must contain "
            f"exactly two classes; got {n_classes} classes (the classifiers of docs/boosting.md#multiclass "
            "take any number)"
        )
    labels, classes = binary_labels(y, X.shape[0], "y")
    return (X, labels, classes) if sample_weight is None else (X, labels, classes, weights)


def check_sample_weight(sample_weight: ArrayLike, X: ArrayLike) -> NDArray[np.float64]:
    """``sample_weight`` as float64 of length N: finite and non-negative (scikit-learn's
    ``_check_sample_weight``), with at least one positive entry (else a ValueError naming it).

    Parameters
    ----------
    sample_weight : array-like
        The N weights given to ``fit``.
    X : array-like
        The N x p features (their row count).

    Returns
    -------
    ndarray of shape (N,)
        The checked weights.
    """
    try:
        weights = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    except (TypeError, ValueError) as error:  # scikit-learn >= 1.7 rejects all-zero weights in its own words
        if "non-zero" in str(error):
            raise ValueError(
                "sample_weight must contain at least one non-zero weight; all weights are zero"
            ) from error
        if "sample_weight" in str(error):
            raise ValueError(str(error)) from error
        raise ValueError(f"sample_weight: {error}") from error  # e.g. "Sample weights must be 1D ..."
    if not np.any(weights > 0):
        raise ValueError("sample_weight must contain at least one non-zero weight; all weights are zero")
    return weights


def positive_rows(X, y: ArrayLike, sample_weight: ArrayLike | None) -> tuple:
    """``(X, y, weights)`` without the rows of weight 0, for a ``fit`` whose model has no prior to
    carry the weights (the online and gradient estimators); weights None when not given, else
    checked by :func:`check_sample_weight`.

    Parameters
    ----------
    X : array-like
        The N x p features.
    y : array-like
        The N targets.
    sample_weight : array-like or None
        The N sample weights, or None.

    Returns
    -------
    tuple
        ``(X, y, weights)`` restricted to the rows of positive weight.
    """
    if sample_weight is None:
        return X, y, None
    weights = check_sample_weight(sample_weight, X)
    kept = weights > 0
    if kept.all():
        return X, y, weights
    return X[kept], np.asarray(y)[kept], weights[kept]


def uniform_or(weights: NDArray[np.float64] | None) -> NDArray[np.float64] | None:
    """None (the unweighted fit, bit for bit) when every weight is equal, else the weights.

    Parameters
    ----------
    weights : ndarray or None
        Checked sample weights, or None.

    Returns
    -------
    ndarray or None
        None for equal (or no) weights, else ``weights``.
    """
    if weights is None or np.all(weights == weights[0]):
        return None
    return weights


# --- parameters (docs/architecture.md#parameters) ----------------------------------------------
