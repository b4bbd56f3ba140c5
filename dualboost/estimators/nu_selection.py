"""``nu="auto"``: the capping nu chosen by validation along a descending grid (docs/math.md#capping-nu,
docs/boosting.md#the-default-nuauto).

The capping nu of the soft-margin boosters ([KG] Eq. 2.2, 3.10) is the one parameter the data must
choose: a loose capping (large nu) is right under label noise, a tight one (nu * N -> 1, the hard
margin) on clean data, and no fixed value serves both (benchmarks/results/defaults.txt). The rule,
shared by every capped classifier of the package, :func:`~dualboost.estimators.reweight.reweight` and
``dualboost boost --nu auto``:

1. **grid** (:func:`nu_grid`): :data:`GRID_POINTS` fractions, geometric, from the largest sensible
   capping ``top = AUTO_NU_SHARE * 2 min(N+, N-) / N`` (:func:`~dualboost.estimators.params.auto_nu`:
   above ``2 min(N+, N-) / N`` the models collapse towards the majority class) down to
   ``max(NU_FLOOR, 1 / N_train)``, the first step divided into :data:`FIRST_STEP_SPLIT` (10 fractions:
   a noisy set's best nu lies near ``top``, where the accuracy changes fastest);
2. **split** (:func:`validation_split`): one stratified holdout of :data:`VALIDATION_SIZE` of the rows
   (seed 0, so that ``fit`` is deterministic); with sample weights the validation score is the weighted
   accuracy;
3. **search** (:func:`search`): the grid is fitted on the training part from the largest nu down
   (along the warm-started path of :func:`~dualboost.estimators.cv.iter_path` where the model has one,
   by independent fits otherwise) and scored on the held-out part; the search stops early when
   :data:`PATIENCE` grid points have scored below the best score since it was found (ties do not
   count: Corrective ERLPBoost scores its first three grid points alike on breast cancer, and the
   fourth 7 points higher; nor do the points of the fine first step), so a noisy set, whose best nu is
   large, costs a few fits;
4. **choice** (after the *one-standard-error rule* of Breiman et al.'s CART, Hastie, Tibshirani &
   Friedman, *The Elements of Statistical Learning*, Sec. 7.10, with :data:`SE_SHARE` of it): the
   largest nu (the most regularised model) whose score is within ``SE_SHARE`` binomial standard errors
   ``sqrt(a (1 - a) / n)`` of the best score ``a`` (n the held-out rows; with weights, their effective
   number ``(sum w)^2 / sum w^2``). A 25 % holdout of a few hundred rows scores each point with a
   standard error of 2-4 points: on noisy sets the argmax often lands on a smaller nu by chance, while
   a whole standard error keeps too large a nu on clean sets (benchmarks/results/defaults.txt);
5. the estimator is then refitted on all its training rows at the chosen fraction.

The choice is recorded in a :class:`NuSelection` (the estimators' ``nu_selection_``). With too few
examples for a stratified holdout (fewer than :data:`MIN_CLASS` of a class) the rule is ``top`` itself
(``how = "class balance"``, today's closed form).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedShuffleSplit

from dualboost.boosting.core.result import TIE_TOL
from dualboost.boosting.core.run import SoftMarginWarning
from dualboost.estimators.ties import SIGNS, class_prior, classes_by_sign, votes_to_classes

__all__ = [
    "GRID_POINTS",
    "FIRST_STEP_SPLIT",
    "NU_FLOOR",
    "VALIDATION_SIZE",
    "PATIENCE",
    "SE_SHARE",
    "MIN_CLASS",
    "NuSelection",
    "nu_grid",
    "validation_split",
    "validation_score",
    "search",
    "within_standard_error",
    "select_nu",
    "estimator_scores",
]

#: grid points from ``top`` down to the floor (geometric; ratio about 0.5 from top 0.65 to 0.01)
GRID_POINTS = 7
#: the first step of the grid (``top`` to its second point) is divided into this many: a noisy set's
#: accuracy changes fastest near ``top`` (estimators.params.AUTO_NU_SHARE); measured with the other
#: constants of the rule in benchmarks/results/defaults.txt
FIRST_STEP_SPLIT = 4
#: the smallest fraction searched (above 1/N_train): below it the capping is the hard margin in effect
NU_FLOOR = 0.01
#: the held-out share of the rows
VALIDATION_SIZE = 0.25
#: stop after this many grid points scored below the best (ties, and the points of the fine first step,
#: do not count: on a clean set of 240 rows, a dip of 4 held-out rows between two of them stopped the
#: search near the top)
PATIENCE = 2
#: the share of a standard error by which a larger nu may score below the best and still be chosen
#: (measured by benchmarks/defaults_suite.py: 0 (the argmax), 0.5 and 1 were tried)
SE_SHARE = 0.5
#: the fewest examples of a class for which a stratified holdout is made
MIN_CLASS = 8
#: the seed of the holdout (a fixed one: ``fit`` is deterministic, as scikit-learn expects)
SEED = 0

#: what produces the validation scores of a grid: ``(train, test, grid) -> scores``, one per grid
#: point in order, lazily (the search stops consuming at the early stop)
ScorePath = Callable[[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]], Iterable[float]]


@dataclass(frozen=True)
class NuSelection:
    """How a fitted estimator's capping was chosen: ``how`` (``"given"``: the nu passed,
    ``"validation"``: the rule of the module docstring, ``"class balance"``: too few examples to
    validate, ``top`` taken), ``fraction`` (the chosen fraction of the training rows), ``grid`` (the
    fractions searched, largest first: the searched prefix of the grid) and ``scores`` (their validation
    accuracies)."""

    how: str
    fraction: float
    grid: tuple[float, ...] = field(default=())
    scores: tuple[float, ...] = field(default=())

    def as_dict(self) -> dict:
        """Plain values (for model files and reports)."""
        return {"how": self.how, "fraction": self.fraction, "grid": [*self.grid], "scores": [*self.scores]}


def nu_grid(
    top: float, n_train: int, points: int = GRID_POINTS, split: int = FIRST_STEP_SPLIT
) -> NDArray[np.float64]:
    """The fractions searched, largest first: ``points`` geometric from ``top`` down to
    ``max(NU_FLOOR, 1/n_train)``, with the first step (``top`` to the second point) divided into
    ``split`` geometric steps (``points + split - 1`` fractions; a single point when ``top`` is at or
    below the floor).

    Parameters
    ----------
    top : float
        The largest fraction.
    n_train : int
        The number of training rows (the floor is at least ``1/n_train``).
    points : int, default GRID_POINTS
        The geometric points of the coarse grid.
    split : int, default FIRST_STEP_SPLIT
        The steps the first coarse step is divided into.

    Returns
    -------
    ndarray
        The fractions, decreasing.
    """
    floor = max(NU_FLOOR, 1.0 / max(n_train, 1))
    if top <= floor:
        return np.array([float(top)])
    coarse = np.geomspace(top, floor, points)
    if points < 2:
        return coarse
    return np.concatenate([np.geomspace(coarse[0], coarse[1], split + 1)[:-1], coarse[1:]])


def validation_split(
    labels: ArrayLike, size: float = VALIDATION_SIZE
) -> tuple[NDArray[np.intp], NDArray[np.intp]] | None:
    """``(train, test)`` row indices of one stratified holdout of ``size`` of the rows (seed
    :data:`SEED`), or None when a class has fewer than :data:`MIN_CLASS` examples.

    Parameters
    ----------
    labels : array-like of shape (N,)
        The training labels.
    size : float, default VALIDATION_SIZE
        The held-out share of the rows.

    Returns
    -------
    tuple of ndarray or None
        The ``(train, test)`` row indices, or None.
    """
    labels = np.asarray(labels)
    counts = np.unique(labels, return_counts=True)[1]
    if counts.size < 2 or counts.min() < MIN_CLASS:
        return None
    splitter = StratifiedShuffleSplit(n_splits=1, test_size=size, random_state=SEED)
    train, test = next(splitter.split(np.zeros((labels.size, 1)), labels))
    return np.sort(train), np.sort(test)


def validation_score(
    decision: NDArray[np.float64],
    labels: NDArray[np.float64],
    weights: NDArray[np.float64] | None,
    prior: NDArray[np.float64] | None = None,
) -> float:
    """The (weighted) accuracy of the decision values on ±1 ``labels``, each row predicted as every
    classifier's ``predict`` predicts it (:func:`~dualboost.estimators.ties.classes_by_sign`): ``f > 0``
    +1, ``f < 0`` -1, and ``f = 0`` the class ``prior`` (the training rows' ``class_prior``) favours,
    -1 without one. Values within ``TIE_TOL`` of 0 are ties, as in
    :func:`~dualboost.boosting.core.result.combined_decision`. A vote per class (N x K decision
    values, ``labels`` class indices) predicts as :func:`~dualboost.estimators.ties.votes_to_classes`.

    Parameters
    ----------
    decision : ndarray
        The N decision values (or N x K votes) of the held-out rows.
    labels : ndarray
        Their labels: ±1, or class indices for votes.
    weights : ndarray or None
        Their sample weights, or None (unweighted).
    prior : ndarray, optional
        The class prior that breaks ties.

    Returns
    -------
    float
        The held-out accuracy.
    """
    decision = np.asarray(decision)
    if decision.ndim == 2:
        predicted = votes_to_classes(decision, np.arange(decision.shape[1]), prior)
    else:
        predicted = classes_by_sign(np.where(np.abs(decision) <= TIE_TOL, 0.0, decision), SIGNS, prior)
    correct = (predicted == labels).astype(np.float64)
    return float(np.average(correct, weights=weights))


def search(scores: Iterable[float], patience: int = PATIENCE, free: int = 0) -> list[float]:
    """The scores consumed from ``scores`` (in order, largest nu first): the search stops after
    ``patience`` scores below the best so far since it was found (ties with it do not count: on a
    plateau the search goes on; neither do the first ``free`` scores, the fine first step of the grid,
    whose close points differ by a few held-out rows; a generator's path stops there: it is closed).
    The warnings of the grid's fits (a ConvergenceWarning, a SoftMarginWarning of a nu that may not be
    chosen) are silenced: the refit at the chosen nu warns.

    Parameters
    ----------
    scores : iterable of float
        The held-out scores along the grid, largest nu first.
    patience : int, default PATIENCE
        The scores below the best after which the search stops.
    free : int, default 0
        The first scores that do not count against the patience.

    Returns
    -------
    list of float
        The scores consumed.
    """
    seen: list[float] = []
    best, since = 0, 0
    iterator: Iterator[float] = iter(scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", SoftMarginWarning)
        for score in iterator:
            seen.append(float(score))
            if seen[-1] > seen[best]:
                best, since = len(seen) - 1, 0
            elif seen[-1] < seen[best] and len(seen) > free:  # a tie is no evidence either way
                since += 1
                if since >= patience:
                    break
        close = getattr(iterator, "close", None)
        if close is not None:
            close()
    return seen


def within_standard_error(scores: Sequence[float], n_eff: float, share: float = SE_SHARE) -> int:
    """The index of the first (largest-nu) score within ``share`` binomial standard errors
    ``sqrt(a (1 - a) / n_eff)`` of the best score ``a`` (module docstring, step 4).

    Parameters
    ----------
    scores : sequence of float
        The scores along the grid, largest nu first.
    n_eff : float
        The effective number of held-out rows.
    share : float, default SE_SHARE
        The number of standard errors allowed below the best.

    Returns
    -------
    int
        The index of the chosen score.
    """
    values = np.asarray(scores, dtype=np.float64)
    best = float(values.max())
    margin = share * np.sqrt(best * (1.0 - best) / n_eff) if n_eff > 0 else 0.0
    return int(np.flatnonzero(values >= best - margin - 1e-12)[0])


def select_nu(
    labels: ArrayLike,
    top: float,
    score_path: ScorePath,
    *,
    split: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
    weights: NDArray[np.float64] | None = None,
    patience: int = PATIENCE,
) -> NuSelection:
    """The rule of the module docstring for N training ``labels`` whose largest sensible capping is
    ``top``: the holdout (``split``: given row indices ``(train, test)``; None: :func:`validation_split`
    of the labels), the grid, the early-stopped search of ``score_path(train, test, grid)`` and the
    standard-error choice (``weights``: the N sample weights, for the held-out rows' effective
    number; None: unweighted).

    Parameters
    ----------
    labels : array-like of shape (N,)
        The training labels.
    top : float
        The largest fraction of the grid.
    score_path : ScorePath
        The held-out scores of a grid for given train and test rows.
    split : tuple of ndarray, optional
        The ``(train, test)`` row indices (None: :func:`validation_split`).
    weights : ndarray, optional
        The N sample weights (None: unweighted).
    patience : int, default PATIENCE
        As in :func:`search`.

    Returns
    -------
    NuSelection
        The chosen fraction and how it was chosen.
    """
    if split is None:
        split = validation_split(labels)
    if split is None:
        return NuSelection("class balance", float(top))
    train, test = split
    grid = nu_grid(top, train.size)
    scores = search(score_path(train, test, grid), patience, free=FIRST_STEP_SPLIT)
    if weights is None:
        n_eff = float(test.size)
    else:
        held = weights[test]
        n_eff = float(held.sum() ** 2 / np.sum(held**2))
    chosen = within_standard_error(scores, n_eff)
    searched = tuple(float(nu) for nu in grid[: len(scores)])
    return NuSelection("validation", float(grid[chosen]), searched, tuple(scores))


def estimator_scores(
    estimator, X, labels: NDArray[np.float64], weights: NDArray[np.float64] | None
) -> ScorePath:
    """The :data:`ScorePath` of a capped classifier: along the warm-started nu path
    (:func:`~dualboost.estimators.cv.iter_path`) for ERLPBoost (criterion ``"practical"``) and LPBoost
    without sample weights, otherwise one fit per grid fraction of a clone of ``estimator`` with that
    fixed ``nu`` (checkpoints off), each scored on the held-out rows.

    Parameters
    ----------
    estimator : BoostingClassifier
        The capped classifier whose nu is chosen.
    X : array-like
        The N x p training features.
    labels : ndarray of shape (N,)
        The training labels.
    weights : ndarray or None
        The N sample weights, or None.

    Returns
    -------
    ScorePath
        The function that scores a grid on given train and test rows.
    """
    from dualboost.estimators.cv import MODELS, iter_path  # lazily: cv imports the classifiers
    from dualboost.oracles.registry import make_oracle

    def weights_of(rows):
        return None if weights is None else weights[rows]

    two_classes = np.unique(labels).size == 2  # the path runs two-class oracles
    path_model = getattr(estimator, "_algorithm", "") in MODELS and weights is None and two_classes
    path_model = path_model and getattr(estimator, "criterion", "practical") == "practical"

    def along_path(train, test, grid):
        prior = class_prior(labels[train])  # what a fit on ``train`` predicts at f = 0
        oracle = make_oracle(getattr(estimator, "oracle", "stumps")).fit(X[train], labels[train])
        options = {"eps": float(estimator.eps), "max_iter": estimator.max_iter}
        options |= {"eta": getattr(estimator, "eta", None), "method": getattr(estimator, "method", None)}
        if estimator._algorithm == "lpboost":
            del options["eta"]
        for point in iter_path(oracle, grid, model=estimator._algorithm, **options):
            yield validation_score(point.decision_function(X[test]), labels[test], None, prior)

    def independent(train, test, grid):
        prior = class_prior(labels[train], weights_of(train))
        fixed = {"checkpoint": None, "resume": False}
        fixed = {name: value for name, value in fixed.items() if name in estimator.get_params()}
        for nu in grid:
            model = clone(estimator).set_params(nu=float(nu), **fixed)
            weighted = {} if weights is None else {"sample_weight": weights_of(train)}
            model.fit(X[train], labels[train], **weighted)  # (DaskERLPBoostClassifier takes none)
            f = model.decision_function(X[test])
            yield validation_score(f, labels[test], weights_of(test), prior)

    return along_path if path_model else independent
