"""The nu path and its cross-validation: :func:`path`, :class:`ERLPBoostCV` and :class:`LPBoostCV`
(as scikit-learn's ``lasso_path`` and ``LogisticRegressionCV``).

The capping nu (docs/math.md#capping-nu) is the one parameter of the soft-margin boosters that the
data must choose: at ``nu * N <= 1`` the hard margin, larger nu lets a fraction nu of the examples
lie below the soft margin. :func:`path` boosts along a grid of nu, from the largest (the most
regularised problem, which needs the fewest hypotheses) to the smallest, and each fit after the
first starts from the previous one (a *warm start*):

* **columns**: the ensemble starts with the previous output's T hypotheses and their columns of U;
* **weights**: the model of [KG] Eq. 3.10 (ERLPBoost; Eq. 2.2 for LPBoost) over those columns at
  the new nu is solved first, warm-started from the previous certified
  :class:`~dualboost.solvers.Solution` (its w, and the solver's state), and its certified pair gives
  the oracle's first distribution d and the dual value Theta that the stopping rule compares with.

The loop is then the one of [KG] Alg. 3.2
(:func:`~dualboost.boosting.totally_corrective.drivers.entropy_loop`, the practical criterion
``delta~ = min_q P^q(d^{q-1}) - Theta^{t-1} <= eps/2``, docs/math.md#erlpboost-stopping).
The criterion stays valid from any start: ``P^q(d^{q-1})`` is the full problem's primal value at
``d^{q-1}`` (the oracle's column is the max-edge one) and ``Theta^{t-1}``, a dual value of the problem
over a subset of the columns, is a lower bound of the full problem's optimum, so at the stop the
output is eps/2-optimal for the full hypothesis class, whatever columns it started with.

LPBoost runs through the same loop with the LP of [KG] Eq. 2.2 (its eta -> infinity limit,
docs/math.md#erlpboost-primal): the rule is ``min_q u^q.d^{q-1} - P_LP^{t-1} <= eps`` (the LP's
value before the last column, so the last hypothesis is discarded, as ERLPBoost's), at least as
strict as :func:`~dualboost.boosting.lpboost`'s ``min_q u^q.d^{q-1} - P_LP^t <= eps``.

``warm_start=False`` runs each nu from the empty ensemble and the uniform d: for ERLPBoost exactly
the driver :func:`~dualboost.boosting.erlpboost`, so that the path's time can be compared with
independent fits (``benchmarks/cv.py``; ``benchmarks/results/cv.txt``).

The default grid :data:`DEFAULT_NUS` is justified by ``benchmarks/cv.py`` (see its docstring).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.model_selection import check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from dualboost._validation import Matrix, binary_labels, check_choice, check_features, check_positive
from dualboost.boosting.core.history import History
from dualboost.boosting.core.options import RunOptions
from dualboost.boosting.core.result import BoostResult
from dualboost.boosting.core.run import Ensemble, Run, check_oracle
from dualboost.boosting.core.stopping import LPBOOST_MAX_ITER
from dualboost.boosting.totally_corrective.column_generation import GrowingModel
from dualboost.boosting.totally_corrective.drivers import EntropySetup, entropy_loop, entropy_setup
from dualboost.estimators.inputs import labelled_data
from dualboost.estimators.multiclass import multiclass_oracle
from dualboost.estimators.nu_selection import validation_score
from dualboost.estimators.params import (
    COUNT,
    MAX_TIME,
    METHOD,
    ORACLE,
    POSITIVE,
    check_nu_fraction,
    nu_count,
    shared_parameters,
)
from dualboost.estimators.ties import class_prior
from dualboost.estimators.totally_corrective import ERLPBoostClassifier, LPBoostClassifier
from dualboost.oracles import Selection
from dualboost.oracles.multiclass import class_votes
from dualboost.oracles.registry import make_oracle
from dualboost.problems import ERLPBoost, LPBoost
from dualboost.solvers import METHODS, Solution

__all__ = [
    "path",
    "oracle_path",
    "iter_path",
    "NuPath",
    "PathPoint",
    "ERLPBoostCV",
    "LPBoostCV",
    "DEFAULT_NUS",
    "MODELS",
]

#: the default grid of nu (fractions of the training set), fitted largest first. benchmarks/cv.py and
#: benchmarks/defaults.py (results/cv.txt, results/defaults_grid.txt; ERLPBoost, stumps, eps 0.01, 5-fold CV):
#: the best nu is 0.5 on german and diabetes (accuracy falls by 2-4 points at 0.4 and at 0.6, and to the
#: majority rate from about twice the minority fraction up) and 0.2-0.3 on a9a, where every nu <= 0.3 is
#: within 1 point; nothing above 0.5 was best. With the warm start the small nus cost a few iterations each.
DEFAULT_NUS: tuple[float, ...] = (0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01)
#: the models a path can follow, and each one's default solve method
MODELS = {"erlpboost": "auglag", "lpboost": "highs"}
#: the certificate's tolerance of LPBoost's LP solves (as :func:`~dualboost.boosting.lpboost`)
_LP_TOL = 1e-7


@dataclass
class PathPoint:
    """One nu of a path: ``nu`` (the fraction), ``result`` (the fit: hypotheses, weights, history;
    ``result.params["nu"]`` is the count ``nu_count(nu, N)``, ``result.params["eta"]`` ERLPBoost's
    eta), ``solution`` (the certified :class:`~dualboost.solvers.Solution` of the model over the
    output's columns whose w is the output's weights; None if the run stopped before any solve) and
    ``time`` (seconds of this nu, the warm-start solve included)."""

    nu: float
    result: BoostResult
    solution: Solution | None
    time: float

    @property
    def weights(self) -> NDArray[np.float64]:
        """w over ``result.hypotheses``."""
        return self.result.weights

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``f_w(X)`` of this nu's output (:func:`~dualboost.boosting.core.result.combined_decision`)."""
        return self.result.decision_function(X)


@dataclass
class NuPath:
    """The output of :func:`path`: one :class:`PathPoint` per nu, in the order fitted (nu decreasing);
    ``model``, ``warm_start`` and ``time`` (seconds for the whole path, oracle fit excluded)."""

    points: list[PathPoint]
    model: str
    warm_start: bool
    time: float

    @property
    def nus(self) -> NDArray[np.float64]:
        """The grid, in the order fitted."""
        return np.array([p.nu for p in self.points])

    def __iter__(self) -> Iterator[PathPoint]:
        return iter(self.points)

    def __len__(self) -> int:
        return len(self.points)

    def __getitem__(self, index: int) -> PathPoint:
        return self.points[index]


def check_nus(nus: object) -> NDArray[np.float64]:
    """The grid as distinct fractions in (0, 1], sorted decreasing (a ValueError naming ``nus``);
    None gives :data:`DEFAULT_NUS`."""
    if nus is None:
        return np.array(DEFAULT_NUS)
    values = np.atleast_1d(np.asarray(nus, dtype=object))
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"nus must be a non-empty 1-D sequence of fractions in (0, 1]; got {nus!r}")
    grid = np.array([check_nu_fraction(v) for v in values], dtype=np.float64)
    if np.unique(grid).size != grid.size:
        raise ValueError(f"nus must be distinct; got {nus!r}")
    return np.sort(grid)[::-1]


class _SeededRun(Run):
    """A :class:`~dualboost.boosting.core.run.Run` whose loop starts from a given state instead of a
    fresh one: :meth:`resume` (which a driver's loop calls once with the state of a fresh run) returns
    the seeded values where given. The names are those of ``entropy_loop``'s state (``d``, ``sol``,
    ``p_prev``, ``theta_prev``), the ones its checkpoints store."""

    def __init__(self, oracle, history: History, seed: dict, options: RunOptions | None = None) -> None:
        super().__init__(oracle, history, options)
        self.seed = seed

    def resume(self, ensemble, **state) -> tuple[int, list]:
        first, values = super().resume(ensemble, **state)
        unknown = set(self.seed) - set(state)
        if unknown:  # pragma: no cover - the loop's state names changed
            raise RuntimeError(f"the boosting loop has no state named {sorted(unknown)}")
        return first, [self.seed.get(name, value) for name, value in zip(state, values, strict=True)]


def _setup(
    model: str, n: int, nu: float, eps: float, eta: float | None, max_iter, method: str
) -> EntropySetup:
    """The loop's settings at the count nu: ERLPBoost's (canonical eta unless given, Thm 3.12's cap,
    tol eps/4), or LPBoost's as the eta -> infinity case (eps doubled so that the loop's ``eps/2`` is
    eps; 1,000 iterations at most, Thm 2.5; the LP certified to 1e-7)."""
    if model == "erlpboost":
        return entropy_setup(n, nu, eps, eta, max_iter, "practical", method, None)
    max_iter = LPBOOST_MAX_ITER if max_iter is None else max_iter
    return EntropySetup(nu, 2.0 * eps, math.inf, int(max_iter), "practical", method, _LP_TOL)


class _PrimalLP(LPBoost):
    """LPBoost's LP solved on its d-domain side whatever side is asked (the loop asks for the dual):
    HiGHS warm-starts the d-domain LP from the previous basis, as :func:`~dualboost.boosting.lpboost`
    does (on german, nu = 0.1 N: 3.5 s against 26 s for the w-domain LP)."""

    def solve(self, method: str = "highs", side: str = "dual", warm_start=None, tol: float = 1e-6, **options):
        return super().solve(method=method, side="primal", warm_start=warm_start, tol=tol, **options)


def _build(model: str, setup: EntropySetup):
    if model == "erlpboost":
        return lambda U: ERLPBoost(U, nu=setup.nu, eta=setup.eta)
    return lambda U: _PrimalLP(U, nu=setup.nu)


def _fit_one(
    oracle,
    model: str,
    setup: EntropySetup,
    eps: float,
    previous: PathPoint | None,
    max_time: float | None = None,
) -> tuple[BoostResult, Solution | None]:
    """One nu: the loop of [KG] Alg. 3.2 from the empty ensemble, or seeded by ``previous`` (its
    columns, and the model over them solved warm from its solution); ``max_time``: its time limit."""
    n = check_oracle(oracle)
    if model == "erlpboost":
        history = setup.history()
        params = setup.params
    else:
        history = History("min_q u^q.d^{q-1} - P_LP^{t-1} <= eps", eps)
        params = {"nu": setup.nu, "eps": eps, "method": setup.method}
    ensemble = Ensemble(n)
    grow = GrowingModel(ensemble, _build(model, setup))
    d, seed = np.full(n, 1.0 / n), {}
    if previous is not None and previous.solution is not None and previous.result.n_hypotheses:
        columns = previous.result.columns
        for k, hypothesis in enumerate(previous.result.hypotheses):
            ensemble.add(Selection(hypothesis, math.nan, np.asarray(columns[:, k], dtype=np.float64)))
        start = grow().solve(method=setup.method, side="dual", warm_start=previous.solution, tol=setup.tol)
        if start.d is not None and start.w is not None:
            d = start.d
            seed = {"d": d, "sol": start, "p_prev": start.primal_value, "theta_prev": start.dual_value}
    run = _SeededRun(oracle, history, seed, RunOptions(max_time=max_time))
    sol, d, converged, reason, detail = entropy_loop(run, ensemble, grow, d, setup, model)
    weights = np.zeros(0) if sol is None else sol.w
    result = run.result(
        model,
        ensemble,
        weights,
        d,
        converged=converged,
        stop_reason=reason,
        stop_detail=detail,
        params=params,
    )
    return result, sol


def iter_path(
    oracle,
    nus: Sequence[float] | None = None,
    *,
    model: str = "erlpboost",
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    warm_start: bool = True,
    max_time: float | None = None,
) -> Iterator[PathPoint]:
    """The points of :func:`oracle_path`, fitted lazily one nu at a time (largest first): a caller that
    stops consuming stops the path (the early stop of ``nu="auto"``,
    :mod:`dualboost.estimators.nu_selection`). Arguments as :func:`oracle_path`.

    Parameters
    ----------
    oracle, nus, model, eps, eta, max_iter, method, warm_start, max_time
        As in :func:`oracle_path`.

    Yields
    ------
    PathPoint
        The fitted point of each nu, largest nu first.
    """
    n = check_oracle(oracle)
    model = check_choice(model, tuple(MODELS), "model")
    grid = check_nus(nus)
    eps = check_positive(eps, "eps")
    method = MODELS[model] if method is None else check_choice(method, tuple(METHODS), "method")
    previous: PathPoint | None = None
    for nu in grid:
        tick = time.perf_counter()
        setup = _setup(model, n, nu_count(nu, n), eps, eta, max_iter, method)
        result, sol = _fit_one(oracle, model, setup, eps, previous if warm_start else None, max_time)
        previous = PathPoint(float(nu), result, sol, time.perf_counter() - tick)
        yield previous


def oracle_path(
    oracle,
    nus: Sequence[float] | None = None,
    *,
    model: str = "erlpboost",
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    warm_start: bool = True,
    max_time: float | None = None,
) -> NuPath:
    """:func:`path` for a fitted oracle (``oracle.fit(X, labels)`` done): the grid ``nus`` (fractions,
    fitted in decreasing order), ``model`` ``"erlpboost"`` or ``"lpboost"``, the booster's ``eps``,
    ``eta`` (None: the canonical eta of each nu, docs/math.md#canonical-eta), ``max_iter`` per nu,
    the subproblem ``method`` (default :data:`MODELS`' ``"auglag"`` / ``"highs"``), ``max_time`` the time
    limit of each nu's run (:class:`~dualboost.boosting.core.options.RunOptions`).

    Parameters
    ----------
    oracle : Oracle
        A fitted weak learner (``oracle.fit(X, labels)`` done).
    nus : sequence of float, optional
        The grid of fractions in (0, 1] (None: the default grid of :func:`path`).
    model : {"erlpboost", "lpboost"}, default "erlpboost"
        The booster fitted at each nu.
    eps : float, default 0.01
        The booster's precision.
    eta : float, optional
        The entropy regularisation of ERLPBoost (None: the canonical eta of each nu).
    max_iter : int, optional
        A cap on the iterations of each nu's run.
    method : str, optional
        The subproblem solver (None: the model's default in :data:`MODELS`).
    warm_start : bool, default True
        Start each nu's run from the previous nu's hypotheses.
    max_time : float, optional
        A time limit in seconds for each nu's run.

    Returns
    -------
    NuPath
        The fitted points, the model, whether warm-started and the total time.
    """
    start = time.perf_counter()
    options = {"eps": eps, "eta": eta, "max_iter": max_iter, "method": method, "warm_start": warm_start}
    options["max_time"] = max_time
    points = list(iter_path(oracle, nus, model=model, **options))
    model = check_choice(model, tuple(MODELS), "model")
    return NuPath(points, model, bool(warm_start), time.perf_counter() - start)


def path(
    X: ArrayLike | Matrix,
    y: ArrayLike,
    nus: Sequence[float] | None = None,
    *,
    model: str = "erlpboost",
    oracle: object = "stumps",
    eps: float = 0.01,
    eta: float | None = None,
    max_iter: int | None = None,
    method: str | None = None,
    warm_start: bool = True,
    max_time: float | None = None,
) -> NuPath:
    """Boost (X, y) along a grid of nu, each fit warm-started from the previous one (module docstring).

    ``X``: dense or sparse (N x p); ``y``: two classes (the larger is +1); ``nus``: fractions of the
    training set in (0, 1], as the classifiers take nu (default :data:`DEFAULT_NUS`), fitted from the
    largest to the smallest; ``oracle``: as the classifiers' (a name, an Oracle or a scikit-learn
    classifier); the rest as :func:`oracle_path`. Returns a :class:`NuPath` whose points hold each nu's
    output and certified solution.

    Parameters
    ----------
    X : array_like or sparse matrix, shape (N, p)
        The features.
    y : array_like, shape (N,)
        Two classes (the larger is +1).
    nus : sequence of float, optional
        Fractions of the training set in (0, 1], as the classifiers take nu (default
        :data:`DEFAULT_NUS`), fitted from the largest to the smallest.
    model : {"erlpboost", "lpboost"}, default "erlpboost"
        The booster.
    oracle : str, Oracle or classifier, default "stumps"
        As the classifiers' (a name, an Oracle or a scikit-learn classifier).
    eps : float, default 0.01
        The booster's precision.
    eta : float, optional
        None: the canonical eta of each nu (docs/math.md#canonical-eta).
    max_iter : int, optional
        A cap on the iterations of each nu.
    method : str, optional
        The subproblem solver (default :data:`MODELS`' ``"auglag"`` / ``"highs"``).
    warm_start : bool, default True
        Start each nu from the previous one's solution.
    max_time : float, optional
        The time limit in seconds of each nu's run.

    Returns
    -------
    NuPath
        One point per nu, each with its output and certified solution.
    """
    X = check_features(X, "X")
    labels, _ = binary_labels(y, X.shape[0], "y")
    fitted = make_oracle(oracle).fit(X, labels)
    options = {"eps": eps, "eta": eta, "max_iter": max_iter, "method": method, "warm_start": warm_start}
    return oracle_path(fitted, nus, model=model, max_time=max_time, **options)


class _PathCV(ClassifierMixin, BaseEstimator):
    """Choose nu by cross-validated accuracy along a warm-started path, then refit at that nu."""

    _model: str = ""
    _classifier: type  # the classifier refitted at the chosen nu (set by the subclasses)

    _parameter_constraints: dict = {
        "nus": ["array-like", None],
        "cv": ["cv_object"],
        "eps": POSITIVE,
        "max_iter": [*COUNT, None],
        "oracle": ORACLE,
        "method": [*METHOD, None],
        "warm_start": ["boolean"],
        "max_time": MAX_TIME,
    }

    def _classifier_params(self) -> dict:
        params = {"eps": self.eps, "max_iter": self.max_iter, "oracle": self.oracle, "method": self._method()}
        return params | {"max_time": self.max_time}

    def _method(self) -> str:
        return MODELS[self._model] if self.method is None else self.method

    def _path_params(self) -> dict:
        params = {"eps": self.eps, "max_iter": self.max_iter, "method": self._method()}
        return params | {"max_time": self.max_time}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X: ArrayLike, y: ArrayLike) -> _PathCV:
        """For each split of ``cv`` (stratified K-fold, 5 folds by default), the path on the training
        part (over the (example, wrong class) pairs for K > 2 classes, docs/boosting.md#multiclass),
        scored by accuracy on the held-out part; ``best_nu_`` has the best mean accuracy (ties:
        the largest nu, the most regularised); ``best_estimator_`` is the classifier refitted on all of
        (X, y) at ``best_nu_``."""
        X_checked, y_checked, _ = labelled_data(self, X, y)
        classes, indices = np.unique(y_checked, return_inverse=True)
        K = classes.size  # K > 2: the paths run over the (example, wrong class) pairs
        labels = indices.ravel() if K > 2 else binary_labels(y_checked, X_checked.shape[0], "y")[0]
        grid = check_nus(self.nus)
        splitter = check_cv(self.cv, labels, classifier=True)
        splits = list(splitter.split(X_checked, labels))
        scores = np.empty((len(splits), grid.size))
        times = np.empty(len(splits))
        for k, (train, test) in enumerate(splits):
            learner = make_oracle(self.oracle) if K == 2 else multiclass_oracle(self.oracle, K)
            oracle = learner.fit(X_checked[train], labels[train])
            nu_path = oracle_path(
                oracle, grid, model=self._model, warm_start=self.warm_start, **self._path_params()
            )
            times[k] = nu_path.time
            prior = class_prior(labels[train])  # a fit on ``train`` predicts its majority at f = 0
            for j, point in enumerate(nu_path):
                if K > 2:
                    f = class_votes(point.weights, point.result.hypotheses, X_checked[test], K)
                else:
                    f = point.decision_function(X_checked[test])
                scores[k, j] = validation_score(f, labels[test], None, prior)
        mean = scores.mean(axis=0)
        best = int(np.argmax(mean))  # the first of the ties: the largest nu
        self.nus_ = grid
        self.scores_ = scores
        self.mean_scores_ = mean
        self.path_times_ = times
        self.best_nu_ = float(grid[best])
        self.best_score_ = float(mean[best])
        self.best_estimator_ = self._classifier(nu=self.best_nu_, **self._classifier_params()).fit(X, y)
        fitted = self.best_estimator_
        self.classes_ = fitted.classes_
        self.hypotheses_ = fitted.hypotheses_
        self.estimator_weights_ = fitted.estimator_weights_
        self.nu_ = fitted.nu_
        self.n_iter_ = fitted.n_iter_
        self.stop_reason_ = fitted.stop_reason_
        if hasattr(fitted, "eta_"):
            self.eta_ = fitted.eta_
        return self

    def decision_function(self, X: ArrayLike) -> NDArray[np.float64]:
        """``best_estimator_.decision_function(X)``."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)

    def predict(self, X: ArrayLike) -> NDArray:
        """``best_estimator_.predict(X)``."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def _has_proba(self) -> bool:
        return hasattr(self._classifier, "predict_proba")

    @available_if(_has_proba)
    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """``best_estimator_.predict_proba(X)``."""
        check_is_fitted(self)
        return self.best_estimator_.predict_proba(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = True
        return tags


@shared_parameters
class ERLPBoostCV(_PathCV):
    """ERLPBoost ([KG] Alg. 3.2) with nu chosen by cross-validation along a warm-started path.

    ``nus``: the grid of fractions (default :data:`DEFAULT_NUS`); ``cv``: as scikit-learn's (an int:
    stratified K-fold; a splitter; an iterable of splits); ``eps``, ``eta``, ``max_iter``, ``oracle``,
    ``method``: as :class:`~dualboost.estimators.ERLPBoostClassifier`'s (``eta=None``: the canonical
    eta of each nu); ``warm_start``: False fits each nu of each fold independently (the same result
    up to the solver's precision, more time); ``max_time``: the time limit of each run (each nu of each
    fold, and the refit), as the classifiers'.

    Fitted attributes: ``nus_`` (the grid, decreasing), ``scores_`` (accuracy, folds x nus),
    ``mean_scores_``, ``best_nu_`` (the chosen fraction), ``best_score_``, ``path_times_`` (seconds
    per fold), ``best_estimator_`` (the :class:`~dualboost.estimators.ERLPBoostClassifier` refitted
    on all the data at ``best_nu_``), and its ``classes_``, ``hypotheses_``, ``estimator_weights_``,
    ``nu_`` (the count ``max(1, best_nu_ * N)`` as every classifier's), ``eta_``, ``n_iter_``,
    ``stop_reason_``.

    Parameters
    ----------
    nus : sequence of float, optional
        The grid of fractions of the training set in (0, 1] (default :data:`DEFAULT_NUS`).
    cv : int, splitter or iterable, default 5
        As scikit-learn's: an int (stratified K-fold), a splitter, or an iterable of splits.
    eta : float, optional
        The regularisation; None: the canonical eta of each nu.
    max_iter : int, optional
        A cap on the iterations of each run.
    method : str, optional
        The subproblem solver (None: ``"auglag"``).
    warm_start : bool, default True
        False fits each nu of each fold independently (the same result up to the solver's precision, more
        time).
    max_time : float, optional
        The time limit in seconds of each run (each nu of each fold, and the refit).
    """

    _model = "erlpboost"
    _classifier = ERLPBoostClassifier
    _parameter_constraints = {**_PathCV._parameter_constraints, "eta": [*POSITIVE, None]}

    def __init__(
        self,
        nus: Sequence[float] | None = None,
        cv: object = 5,
        eps: float = 0.01,
        eta: float | None = None,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str | None = None,
        warm_start: bool = True,
        max_time: float | None = None,
    ) -> None:
        self.nus = nus
        self.cv = cv
        self.eps = eps
        self.eta = eta
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.warm_start = warm_start
        self.max_time = max_time

    def _classifier_params(self) -> dict:
        return super()._classifier_params() | {"eta": self.eta}

    def _path_params(self) -> dict:
        return super()._path_params() | {"eta": self.eta}


@shared_parameters
class LPBoostCV(_PathCV):
    """LPBoost ([KG] Alg. 2.1) with nu chosen by cross-validation along a warm-started path; the
    parameters and fitted attributes of :class:`ERLPBoostCV` but eta (``method`` default ``"highs"``),
    ``best_estimator_`` a :class:`~dualboost.estimators.LPBoostClassifier`. The path's stopping rule is
    LPBoost's with the LP value before the last column (module docstring).

    Parameters
    ----------
    nus : sequence of float, optional
        The grid of fractions of the training set in (0, 1] (default :data:`DEFAULT_NUS`).
    cv : int, splitter or iterable, default 5
        As scikit-learn's: an int (stratified K-fold), a splitter, or an iterable of splits.
    max_iter : int, optional
        A cap on the iterations of each run.
    method : str, optional
        The LP solver (None: ``"highs"``).
    warm_start : bool, default True
        False fits each nu of each fold independently (the same result up to the solver's precision, more
        time).
    max_time : float, optional
        The time limit in seconds of each run (each nu of each fold, and the refit).
    """

    _model = "lpboost"
    _classifier = LPBoostClassifier

    def __init__(
        self,
        nus: Sequence[float] | None = None,
        cv: object = 5,
        eps: float = 0.01,
        max_iter: int | None = None,
        oracle: object = "stumps",
        method: str | None = None,
        warm_start: bool = True,
        max_time: float | None = None,
    ) -> None:
        self.nus = nus
        self.cv = cv
        self.eps = eps
        self.max_iter = max_iter
        self.oracle = oracle
        self.method = method
        self.warm_start = warm_start
        self.max_time = max_time
