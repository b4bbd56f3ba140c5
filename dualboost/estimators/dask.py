"""scikit-learn estimators on dask arrays: ERLPBoost's Dask fit and block-by-block predictions.

* :func:`fit_partitioned`: the fit that :class:`~dualboost.estimators.ERLPBoostClassifier` (with
  ``oracle="stumps"``, ``method="auglag"``) runs on dask input and :class:`DaskERLPBoostClassifier`
  on any input: ERLPBoost ([KG] Alg. 3.2) with decision stumps by
  :func:`~dualboost.dask.driver.fit_dask_erlpboost` with the estimator's ``nu``, ``eps``, ``eta``,
  ``max_iter`` and ``criterion``, stored as by an in-memory fit (``BoostingClassifier._store``);
* :func:`dask_decision_function`, :func:`dask_predict`, :func:`dask_margins`: a fitted boosting
  classifier on a row-chunked dask X, as dask arrays computed block by block (the hypotheses travel
  to the workers, X does not travel back);
* :class:`DaskERLPBoostClassifier` (deprecated): ERLPBoost that always fits on the Dask path (a numpy
  X is split into ``n_partitions`` row blocks); the one way into the Dask fit is
  :class:`~dualboost.estimators.ERLPBoostClassifier` on a dask X (docs/dask.md).

The tasks run on the default ``dask.distributed`` client (``with Client(...):`` or the last one
created), in this process when there is none.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import _fit_context
from sklearn.utils import deprecated
from sklearn.utils._param_validation import StrOptions

from dualboost._validation import binary_labels, check_label_vector
from dualboost.boosting.core.options import RunOptions
from dualboost.boosting.core.result import combined_decision
from dualboost.boosting.core.stopping import CRITERIA
from dualboost.dask.data import is_dask_array
from dualboost.dask.driver import fit_dask_erlpboost
from dualboost.estimators.base import BoostingClassifier
from dualboost.estimators.dask_input import dask_kind
from dualboost.estimators.inputs import labelled_data
from dualboost.estimators.nu_selection import (
    SEED,
    VALIDATION_SIZE,
    NuSelection,
    ScorePath,
    select_nu,
    validation_score,
)
from dualboost.estimators.params import COUNT, MAX_TIME, NU, POSITIVE, auto_nu, nu_count
from dualboost.estimators.probability import fit_softmax_slope
from dualboost.estimators.ties import class_prior, predicted_classes
from dualboost.oracles.multiclass import class_votes

__all__ = [
    "DaskERLPBoostClassifier",
    "fit_partitioned",
    "choose_nu_partitioned",
    "block_split",
    "dask_decision_function",
    "dask_predict",
    "dask_margins",
]


def _known_rows(a: Any) -> Any:
    """A dask array with its row-chunk sizes known (after boolean indexing they are NaN until
    computed: one pass over the blocks, only the sizes travel)."""
    return a.compute_chunk_sizes() if a.ndim >= 1 and any(np.isnan(c) for c in a.chunks[0]) else a


def _dask_X(X: Any, n_features: int | None = None) -> Any:
    """A 2-D dask X with known row chunks and one column chunk (ValueErrors name X)."""
    if not is_dask_array(X):
        raise ValueError(
            "X must be a dask array (a Dask DataFrame: X.to_dask_array(lengths=True)); "
            f"got {type(X).__name__}"
        )
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (N examples x p features); got shape {X.shape}")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X must have {n_features} features (as in training); got shape {X.shape}")
    return _known_rows(X).rechunk({1: -1})


def fit_partitioned(
    estimator: BoostingClassifier, X: Any, y: Any, *, n_partitions: int | None = None
) -> None:
    """Fit ``estimator`` (an ERLPBoost classifier: ``nu``, ``eps``, ``eta``, ``max_iter``, ``criterion``)
    on row partitions of (X, y) by :func:`~dualboost.dask.driver.fit_dask_erlpboost` ([KG] Alg. 3.2 with
    decision stumps, the auglag dual solver) and store the fitted attributes of an in-memory fit.

    ``X``: a row-chunked dask array (its row chunks are the partitions; it stays on the workers) or an
    in-memory array (validated here and split into ``n_partitions`` row blocks); ``y``: N labels with two
    or more classes, dask or in-memory (a dask y with an in-memory X is computed: it is smaller than X).
    K > 2 classes: the model over the N (K - 1) (example, wrong class) pairs with class-valued stumps
    (docs/boosting.md#multiclass), ``nu`` a fraction of the pairs, and the softmax link of the votes
    fitted on the training votes (N x K numbers gathered once).

    Parameters
    ----------
    estimator : BoostingClassifier
        The ERLPBoost classifier to fit (its fitted attributes are set in place).
    X : dask array or array-like
        The N x p features.
    y : dask array or array-like
        The N labels.
    n_partitions : int, optional
        The row blocks an in-memory X is split into (None: one per worker, at least 2).
    """
    if dask_kind(X) is not None:
        X = _dask_X(X)
        estimator.n_features_in_ = int(X.shape[1])
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_  # a dask array has no column names
        labels, classes = (_known_rows(y) if is_dask_array(y) else y), None  # checked on the workers
    else:
        X, labels, classes = _training_data(estimator, X, y.compute() if is_dask_array(y) else y)
    n_classes = class_prior(labels).size  # (a dask y: one reduction)
    choose_nu_partitioned(estimator, X, labels)
    examples = labels.shape[0] * (n_classes - 1 if n_classes > 2 else 1)  # the pairs for K > 2
    loop = estimator._loop_params(np.broadcast_to(0, (examples,)))  # (their number is read)
    result, found = _fit_blocks(estimator, X, labels, n_partitions, **loop)
    given = classes is None  # labels as given (dask y): their classes came from the workers
    classes = found if given else classes
    estimator._store(result, classes, labels)
    if n_classes > 2:
        indices = labels  # the class indices of _training_data, or the labels as given:
        if given:
            indices = np.searchsorted(
                classes, np.asarray(labels.compute() if is_dask_array(labels) else labels)
            )
        estimator.link_slope_ = fit_softmax_slope(np.asarray(_votes(estimator, X)), indices)


def _training_data(estimator: BoostingClassifier, X: Any, y: Any) -> tuple:
    """``(X, labels, classes)`` of an in-memory X: validated as in memory; ``labels`` -1/+1 for two
    classes (``classes[1]`` as +1), class indices into ``classes`` for more."""
    X, y, _ = labelled_data(estimator, X, y)
    classes = np.unique(y)
    if classes.size == 2:
        labels, classes = binary_labels(y, X.shape[0], "y")
        return X, labels, classes
    return X, np.searchsorted(classes, y), classes


def _votes(estimator: BoostingClassifier, X: Any) -> Any:
    """The fitted estimator's decision function on the training X (computed if X is a dask array)."""
    return (
        dask_decision_function(estimator, X).compute()
        if dask_kind(X) is not None
        else estimator._block_decision(X)
    )


def _fit_blocks(
    estimator: BoostingClassifier, X: Any, labels: Any, n_partitions: int | None, **loop
) -> tuple:
    """:func:`~dualboost.dask.driver.fit_dask_erlpboost` with the estimator's eta and criterion."""
    return fit_dask_erlpboost(
        X,
        labels,
        client=None,
        eta=estimator.eta,
        criterion=estimator.criterion,
        tol=None,
        n_partitions=n_partitions,
        options=RunOptions(max_time=estimator.max_time, keep_stages=True),
        **loop,
    )


def choose_nu_partitioned(estimator: BoostingClassifier, X: Any, labels: Any) -> None:
    """``nu_selection_`` and ``nu_fraction_`` of a Dask fit: a given nu, or ``"auto"`` for an in-memory
    X as in memory (:meth:`BoostingClassifier._choose_nu`, along the warm-started path: the same model);
    for a dask X the rule of :mod:`~dualboost.estimators.nu_selection` on a holdout of whole row blocks
    (:func:`block_split`: no rows move between workers; not stratified), each grid nu an independent
    Dask fit of the other blocks; with a single row block, the closed form
    :func:`~dualboost.estimators.params.auto_nu` (``how = "class balance"``).

    Parameters
    ----------
    estimator : BoostingClassifier
        The classifier being fitted (``nu_selection_`` and ``nu_fraction_`` are set on it).
    X : dask array or array-like
        The N x p features.
    labels : dask array or array-like
        The N labels in {-1, +1} (or class indices for K > 2 classes).
    """
    if not isinstance(estimator.nu, str) or dask_kind(X) is None:
        estimator._choose_nu(X, labels, None)
        return
    split = block_split(X)
    if split is None:
        selection = NuSelection("class balance", auto_nu(labels))
    else:
        selection = select_nu(labels, auto_nu(labels), _block_scores(estimator, X, labels), split=split)
    estimator.nu_selection_ = selection
    estimator.nu_fraction_ = selection.fraction


def block_split(X: Any) -> tuple[NDArray[np.intp], NDArray[np.intp]] | None:
    """``(train, test)`` row indices of a dask X whose test rows are whole row blocks, about
    ``VALIDATION_SIZE`` of them (at least one, chosen with seed ``SEED``); None for a single block.

    Parameters
    ----------
    X : dask array
        The row-chunked features.

    Returns
    -------
    tuple of ndarray or None
        The ``(train, test)`` row indices, or None for a single row block.
    """
    sizes = [int(c) for c in X.chunks[0]]
    if len(sizes) < 2:
        return None
    held = max(1, min(len(sizes) - 1, round(VALIDATION_SIZE * len(sizes))))
    test_blocks = np.random.default_rng(SEED).permutation(len(sizes))[:held]
    starts = np.concatenate([[0], np.cumsum(sizes)])
    rows = [np.arange(starts[b], starts[b + 1]) for b in range(len(sizes))]
    test = np.concatenate([rows[b] for b in sorted(test_blocks)])
    train = np.setdiff1d(np.arange(starts[-1]), test)
    return train, test


def _block_scores(estimator: BoostingClassifier, X: Any, labels: Any) -> ScorePath:
    """The validation accuracies of independent Dask fits of the training blocks, one per grid nu (a
    vote per class scored by its argmax for K > 2 classes, whose fits count nu over the pairs)."""
    n_classes = class_prior(labels).size
    pairs = n_classes - 1 if n_classes > 2 else 1

    def scores(train, test, grid):
        X_test, y_test = X[test], labels[test]
        y_test = np.asarray(y_test.compute() if is_dask_array(y_test) else y_test)
        prior = class_prior(labels[train])  # what a fit on the training blocks predicts at f = 0
        for nu in grid:
            loop = {"nu": nu_count(float(nu), train.size * pairs), "eps": float(estimator.eps)}
            loop["max_iter"] = None if estimator.max_iter is None else int(estimator.max_iter)
            result, found = _fit_blocks(estimator, X[train], labels[train], None, **loop)
            f = _map_decision(result.weights, result.hypotheses, X_test, found.size).compute()
            if found.size > 2:
                yield validation_score(f, np.searchsorted(found, y_test), None, prior)
            else:
                yield validation_score(f, np.where(y_test == found[1], 1.0, -1.0), None, prior)

    return scores


def _map_rows(block_function: Any, X: Any, n_classes: int) -> Any:
    """``block_function`` on each row block of a row-chunked X (one column chunk): N values for two
    classes, N x K votes for K > 2."""
    if n_classes > 2:
        return X.map_blocks(block_function, chunks=(X.chunks[0], (n_classes,)), dtype=np.float64)
    return X.map_blocks(block_function, drop_axis=1, dtype=np.float64)


def _map_decision(weights, hypotheses, X: Any, n_classes: int) -> Any:
    """The decision values of the hypotheses with ``weights`` on a row-chunked X, block by block:
    ``f_w`` (N) for two classes, the votes (N x K) for K > 2."""

    def decide(block: NDArray) -> NDArray[np.float64]:
        if n_classes > 2:
            return class_votes(weights, hypotheses, block, n_classes)
        return combined_decision(weights, hypotheses, block)

    return _map_rows(decide, X, n_classes)


def dask_decision_function(estimator: BoostingClassifier, X: Any) -> Any:
    """``f_w(X)`` of a fitted boosting classifier on a dask X: a dask array, one block per row chunk
    (each block validated and evaluated by ``estimator._block_decision`` on a worker): N values, or the
    N x K votes of a classifier fitted on K > 2 classes.

    Parameters
    ----------
    estimator : BoostingClassifier
        A fitted boosting classifier.
    X : dask array
        The row-chunked features.

    Returns
    -------
    dask array
        The N decision values (N x K votes for K > 2 classes).
    """
    return _map_rows(estimator._block_decision, _dask_X(X, estimator.n_features_in_), len(estimator.classes_))


def dask_predict(estimator: BoostingClassifier, f: Any) -> Any:
    """The classes of the dask decision function ``f`` block by block, as ``predict`` gives them
    (:func:`~dualboost.estimators.ties.predicted_classes`: by sign, a tie f = 0 the training majority;
    K votes by their argmax, ties by the prior).

    Parameters
    ----------
    estimator : BoostingClassifier
        A fitted boosting classifier.
    f : dask array
        Its decision values (N, or N x K).

    Returns
    -------
    dask array
        The N predicted classes.
    """
    prior = getattr(estimator, "class_prior_", None)
    drop = {"drop_axis": 1} if f.ndim == 2 else {}
    return f.map_blocks(predicted_classes, estimator.classes_, prior, dtype=estimator.classes_.dtype, **drop)


def dask_margins(estimator: BoostingClassifier, X: Any, y: Any) -> Any:
    """The margins ``y_n f_w(x_n)`` on a dask X (and y, dask or in-memory, aligned to X's row chunks)
    as a dask array (K > 2 classes: ``F_y - max_(k != y) F_k``); the labels are checked
    (``estimator._block_margins``) when it is computed.

    Parameters
    ----------
    estimator, X
        As in :func:`dask_decision_function`.
    y : dask array or array-like
        The N labels, aligned to X's row chunks.

    Returns
    -------
    dask array
        The N margins.
    """
    import dask.array as da

    f = dask_decision_function(estimator, X)
    if not is_dask_array(y):
        y = da.from_array(check_label_vector(np.asarray(y), f.shape[0]), chunks=(f.chunks[0],))
    else:
        y = check_label_vector(_known_rows(y), f.shape[0]).rechunk((f.chunks[0],))
    if f.ndim == 2:  # the votes' row blocks beside y's as a column (blockwise aligns the last axes)
        return da.map_blocks(_vote_margins, f, y[:, None], estimator, drop_axis=1, dtype=np.float64)
    return da.map_blocks(estimator._block_margins, f, y, dtype=np.float64)


def _vote_margins(
    votes: NDArray[np.float64], y: NDArray, estimator: BoostingClassifier
) -> NDArray[np.float64]:
    return estimator._block_margins(votes, y.ravel())


#: the deprecation message of :class:`DaskERLPBoostClassifier` (the one way into the Dask fit)
DEPRECATION = (
    "it will be removed in dualboost 0.3: fit "
    "ERLPBoostClassifier on a dask array instead, the same fit (ERLPBoostClassifier().fit("
    "dask.array.from_array(X, chunks=(rows, X.shape[1])), y)); unlike DaskERLPBoostClassifier it can be "
    "saved to a model file. With nu='auto' it validates on whole row blocks (docs/dask.md)."
)


@deprecated(DEPRECATION)
class DaskERLPBoostClassifier(BoostingClassifier):
    """ERLPBoost ([KG] Alg. 3.2) with decision stumps, always trained by partition reductions
    (:func:`fit_partitioned`); :class:`~dualboost.estimators.ERLPBoostClassifier` does the same on dask
    input. Parameters and fitted attributes as ERLPBoostClassifier (``nu`` a fraction in (0, 1],
    ``eps``, ``eta``, ``max_iter``, ``criterion``); the oracle is always decision stumps and the solver
    ``"auglag"``; no checkpoints.

    .. deprecated:: 0.2
        Fit :class:`~dualboost.estimators.ERLPBoostClassifier` on a dask X instead: the same fit, and
        it can be saved to a model file. This class is removed in 0.3.

    ``n_partitions``: the row blocks a numpy X is split into (None: one per worker, at least 2);
    a dask X keeps its row chunks.

    Parameters
    ----------
    nu, eps, eta, max_iter, criterion, max_time
        As in :class:`~dualboost.estimators.ERLPBoostClassifier`.
    n_partitions : int, optional
        The row blocks a numpy X is split into (None: one per worker, at least 2).

    See Also
    --------
    dualboost.estimators.ERLPBoostClassifier : the same model, with the shared parameters described.
    """

    _algorithm = "erlpboost"
    _parameter_constraints = {
        "nu": NU,
        "eps": POSITIVE,
        "eta": [*POSITIVE, None],
        "max_iter": [*COUNT, None],
        "criterion": [StrOptions(set(CRITERIA))],
        "n_partitions": [*COUNT, None],
        "max_time": MAX_TIME,
    }

    def __init__(
        self,
        nu: float | str = "auto",
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        criterion: str = "practical",
        n_partitions: int | None = None,
        max_time: float | None = None,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.criterion = criterion
        self.n_partitions = n_partitions
        self.max_time = max_time

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: Any, y: Any) -> DaskERLPBoostClassifier:
        """Boost decision stumps on (X, y): X a row-chunked dask array or a numpy array, y two or more
        classes (K > 2: class-valued stumps over the (example, wrong class) pairs)."""
        fit_partitioned(self, X, y, n_partitions=self.n_partitions)
        return self
