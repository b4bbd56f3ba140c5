"""``DaskERLPBoostClassifier``: the scikit-learn front-end of :func:`~dualboost.dask.dask_erlpboost`.

ERLPBoost ([KG] Alg. 3.2) with decision stumps, trained by partition reductions. ``fit`` takes a
row-chunked ``dask.array`` X (N x p) and y, or numpy arrays (split into ``n_partitions`` row blocks);
the tasks run on the default ``dask.distributed`` client (``with Client(...):`` or the last one
created), in this process when there is none. ``decision_function`` / ``predict`` of a dask X return
dask arrays (block by block), of a numpy X numpy arrays.

Parameters and fitted attributes as :class:`~dualboost.estimators.ERLPBoostClassifier` (``nu`` a
fraction in (0, 1], ``eps``, ``eta``, ``max_iter``, ``criterion``); the oracle is always decision
stumps and the solver ``"auglag"``; no checkpoints.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted

from dualboost.dask.data import is_dask_array
from dualboost.dask.driver import fit_dask_erlpboost
from dualboost.estimators import _BoostingClassifier, _check_optional_positive, binary_training_data, capping

__all__ = ["DaskERLPBoostClassifier"]


class DaskERLPBoostClassifier(_BoostingClassifier):
    """ERLPBoost with decision stumps on row-partitioned data (module docstring).

    ``n_partitions``: the row blocks a numpy X is split into (None: one per worker, at least 2);
    a dask X keeps its row chunks.
    """

    _algorithm = "erlpboost"

    def __init__(
        self,
        nu: float = 0.1,
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        criterion: str = "practical",
        n_partitions: int | None = None,
    ) -> None:
        self.nu = nu
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.criterion = criterion
        self.n_partitions = n_partitions

    def fit(self, X: Any, y: Any) -> DaskERLPBoostClassifier:
        """Boost decision stumps on (X, y): X a row-chunked dask array or a numpy array, y two classes."""
        if is_dask_array(X):
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D (N examples x p features); got shape {X.shape}")
            self.n_features_in_ = int(X.shape[1])
            labels = y
        else:
            if is_dask_array(y):
                y = y.compute()
            X, labels, classes = binary_training_data(self, X, y)
        eps = _check_optional_positive(self.eps, "eps")
        if eps is None:
            raise ValueError("eps must be > 0; got None")
        max_iter = self.max_iter
        if max_iter is not None and (
            isinstance(max_iter, bool) or not isinstance(max_iter, numbers.Integral) or max_iter < 1
        ):
            raise ValueError(f"max_iter must be a positive integer or None; got {max_iter!r}")
        result, found = fit_dask_erlpboost(
            X,
            labels,
            client=None,
            nu=capping(self.nu, int(X.shape[0])),
            eps=eps,
            eta=_check_optional_positive(self.eta, "eta"),
            max_iter=None if max_iter is None else int(max_iter),
            criterion=self.criterion,
            tol=None,
            callback=None,
            n_partitions=self.n_partitions,
        )
        # numpy input was checked and mapped to -1/+1 here; dask input's classes come from the workers
        self._store(result, found if is_dask_array(X) else classes)
        return self

    def _block_decision(self, block: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.zeros(block.shape[0])
        for weight, hypothesis in zip(self.estimator_weights_, self.hypotheses_, strict=True):
            if weight > 0:
                out += weight * hypothesis.predict(block)
        return out

    def decision_function(self, X: Any):
        """``f_w(X) = sum_q w_q h^q(X)``; a dask X gives a dask array computed block by block."""
        if not is_dask_array(X):
            return super().decision_function(X)
        check_is_fitted(self)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise ValueError(f"X must be 2-D with {self.n_features_in_} features; got shape {X.shape}")
        X = X.rechunk({1: -1})
        return X.map_blocks(self._block_decision, drop_axis=1, dtype=np.float64)

    def predict(self, X: Any):
        """The class of each row: ``classes_[1]`` where the decision function is > 0."""
        if not is_dask_array(X):
            return super().predict(X)
        classes = self.classes_
        return self.decision_function(X).map_blocks(
            lambda f: classes[(f > 0).astype(int)], dtype=classes.dtype
        )
