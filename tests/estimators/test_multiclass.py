"""K > 2 classes for the boosting classifiers (dualboost.estimators.multiclass, docs/boosting.md#multiclass):
the same models over the (example, wrong class) pairs with class-valued stumps."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting.core.run import SoftMarginWarning
from dualboost.estimators import (
    AdaBoostVClassifier,
    BinaryERLPBoostClassifier,
    CGBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    MDBoostClassifier,
    MLPBoostClassifier,
    NMBoostClassifier,
    QRLPBoostClassifier,
    ReweightedClassifier,
    SmoothBoostClassifier,
    SoftBoostClassifier,
    SparseBoostClassifier,
    load,
    save,
)
from dualboost.estimators.params import AUTO_NU_SHARE
from dualboost.oracles.multiclass import ClassStumps

#: every classifier that takes K classes natively, as a user would make it (a fixed nu where the
#: model has one, so that each test is one fit)
MULTICLASS = [
    lambda: LPBoostClassifier(nu=0.1),
    lambda: SoftBoostClassifier(nu=0.1),
    lambda: ERLPBoostClassifier(nu=0.1),
    lambda: BinaryERLPBoostClassifier(nu=0.1),
    lambda: CorrectiveERLPBoostClassifier(nu=0.1),
    lambda: CorrectiveBinaryERLPBoostClassifier(nu=0.1),
    lambda: MLPBoostClassifier(nu=0.1),
    lambda: AdaBoostVClassifier(),
    lambda: SmoothBoostClassifier(),
    lambda: MDBoostClassifier(),
    lambda: CGBoostClassifier(),
    lambda: NMBoostClassifier(),
    lambda: QRLPBoostClassifier(nu=0.1),
    lambda: MABoostClassifier(),
    lambda: MABoostClassifier(projection="capped", update="lazy", max_iter=200),
    lambda: SparseBoostClassifier(),
    lambda: MadaBoostClassifier(),
]


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return X, np.array(["setosa", "versicolor", "virginica"])[y]


def _fit(make, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, SoftMarginWarning))
        return make().fit(X, y, **kwargs)


@pytest.mark.parametrize("make", MULTICLASS)
def test_every_method_agrees_with_the_votes(make, iris):
    """decision_function is the vote F (N x K, sum_q w_q [h_q(x) = c] recomputed here from the
    hypotheses), predict its argmax, predict_proba a distribution with the same argmax, the last stage
    the model, and margins F_y - max_(k != y) F_k."""
    X, y = iris
    model = _fit(make, X, y)
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
    F = model.decision_function(X)
    votes = np.zeros((X.shape[0], 3))
    for w, h in zip(model.estimator_weights_, model.hypotheses_, strict=True):
        votes[np.arange(X.shape[0]), h.predict(X).astype(int)] += w
    assert F == pytest.approx(votes, abs=1e-12)
    predicted = model.predict(X)
    top = np.sort(F, axis=1)
    clear = top[:, -1] - top[:, -2] > 1e-9  # the rest are ties within TIE_TOL: the prior decides them
    assert np.array_equal(predicted[clear], model.classes_[np.argmax(F[clear], axis=1)])
    tied = F >= F.max(axis=1, keepdims=True) - 1e-9
    chosen = np.searchsorted(model.classes_, predicted)
    assert tied[np.arange(150), chosen].all()
    assert model.score(X, y) >= 0.9  # iris: stumps separate setosa, and nearly the other two
    proba = model.predict_proba(X)
    assert proba.shape == (150, 3) and np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(model.classes_[np.argmax(proba, axis=1)], predicted)  # ties included
    assert np.allclose(np.exp(model.predict_log_proba(X)), proba)
    stages = list(model.staged_decision_function(X))
    assert stages[-1] == pytest.approx(F, abs=1e-9)
    assert np.array_equal(list(model.staged_predict(X))[-1], predicted)
    own = F[np.arange(150), np.searchsorted(model.classes_, y)]
    others = np.where(model.classes_[None, :] == y[:, None], -np.inf, F).max(axis=1)
    assert model.margins(X, y) == pytest.approx(own - others, abs=1e-12)


def test_nu_is_a_fraction_of_the_pairs_and_auto_validates(iris):
    X, y = iris
    model = _fit(lambda: LPBoostClassifier(nu=0.1), X, y)
    assert model.nu_ == pytest.approx(0.1 * 150 * 2)  # N (K - 1) = 300 pairs
    auto = _fit(ERLPBoostClassifier, X, y)
    assert auto.nu_selection_.how == "validation"
    # the top of the grid: the share of K min_c N_c / N (balanced iris: 1)
    assert auto.nu_selection_.grid[0] == pytest.approx(AUTO_NU_SHARE * 3 * 50 / 150)
    assert auto.nu_ == pytest.approx(max(1.0, auto.nu_fraction_ * 300))


def test_lpboost_reaches_the_soft_margin_of_the_pairs(iris):
    """The fitted LPBoost's soft margin over the pairs (the mean of the nu_ smallest pair margins, the
    primal of [KG] (2.8) on the pairs) is within eps of the dual value its history certifies."""
    X, y = iris
    model = _fit(lambda: LPBoostClassifier(nu=0.1, eps=1e-3), X, y)
    oracle = ClassStumps().fit(X, y)
    margins = oracle.coding_.margins(model.decision_function(X))
    k = model.nu_
    smallest = np.sort(margins)
    soft = (smallest[: int(k)].sum() + (k - int(k)) * smallest[int(k)]) / k
    last = model.history_.rows[-1]
    assert model.converged_
    assert last.gap <= 1e-3 + 1e-9
    assert soft == pytest.approx(last.primal, abs=1e-6)


def test_sample_weights_zero_is_removed_and_equal_is_unweighted(iris):
    X, y = iris
    weights = np.ones(150)
    weights[::7] = 0.0
    kept = weights > 0
    make = lambda: ERLPBoostClassifier(nu=0.1)  # noqa: E731
    weighted = _fit(make, X, y, sample_weight=weights)
    removed = _fit(make, X[kept], y[kept])
    assert np.array_equal(weighted.decision_function(X), removed.decision_function(X))
    assert np.array_equal(
        _fit(make, X, y, sample_weight=np.full(150, 3.0)).decision_function(X),
        _fit(make, X, y).decision_function(X),
    )
    # unequal weights move the prior of each example's pairs: a heavier class wins more ties
    heavy = np.where(y == "virginica", 5.0, 1.0)
    model = _fit(make, X, y, sample_weight=heavy)
    assert model.class_prior_ == pytest.approx(np.array([50, 50, 250]) / 350)


def test_model_files_and_checkpoints(iris, tmp_path):
    X, y = iris
    model = _fit(lambda: ERLPBoostClassifier(nu=0.1, checkpoint=tmp_path / "run.ckpt"), X, y)
    model.save(tmp_path / "m.dbm")
    loaded = load(tmp_path / "m.dbm")
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    resumed = _fit(lambda: ERLPBoostClassifier(nu=0.1, checkpoint=tmp_path / "run.ckpt", resume=True), X, y)
    assert np.array_equal(resumed.decision_function(X), model.decision_function(X))


def test_what_is_refused(iris):
    X, y = iris
    with pytest.raises(ValueError, match="oracle='raw'.*3 classes.*oracle='stumps'"):
        ERLPBoostClassifier(nu=0.1, oracle="raw").fit(X, y)
    with pytest.raises(ValueError, match="non-empty list of fitted classifiers"):
        ReweightedClassifier([]).fit(X, y)
    from sklearn.ensemble import GradientBoostingClassifier

    boosted = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="3 regression trees per stage"):
        ReweightedClassifier(boosted).fit(X, y)
    model = _fit(lambda: ERLPBoostClassifier(nu=0.1), X, y)
    with pytest.raises(ValueError, match="not in classes_"):
        model.margins(X, np.full(150, "rose"))


def test_mirror_descent_over_the_pairs(iris):
    """MABoost over the pairs: d_ a distribution over the N(K-1) pairs within the caps, training_error_
    the fraction of pairs of margin <= 0 (recomputed here from the votes), the examples' error at most
    (K - 1) times it, and the pairs of a secondary example secondary (the caps bind on them only)."""
    X, y = iris
    model = _fit(lambda: MABoostClassifier(projection="capped", nu=0.2, max_iter=60), X, y)
    oracle = ClassStumps().fit(X, y)
    pair_margins = oracle.coding_.margins(model.decision_function(X))
    assert model.d_.shape == (300,) and model.d_.sum() == pytest.approx(1.0)
    assert model.d_.max() <= 1.0 / model.nu_ + 1e-12 and model.nu_ == pytest.approx(0.2 * 300)
    assert model.training_error_[-1] == pytest.approx(np.mean(pair_margins <= 0))
    assert np.mean(model.margins(X, y) <= 0) <= 2 * model.training_error_[-1] + 1e-12
    secondary = np.arange(150) < 50  # setosa's examples
    weights = np.ones(150)
    weights[::10] = 0.0  # removed rows are removed from the mask too
    mixed = _fit(
        lambda: MABoostClassifier(projection="mixed", nu=0.5, max_iter=30),
        X,
        y,
        secondary=secondary,
        sample_weight=weights,
    )
    on_secondary = np.repeat(secondary[weights > 0], 2)  # each example's two pairs, in order
    assert mixed.d_[on_secondary].max() <= 1.0 / mixed.nu_ + 1e-12
    assert mixed.d_.sum() == pytest.approx(1.0)


def test_wine_against_adaboost():
    """A second set: ERLPBoost's held-out accuracy on wine is at least scikit-learn's AdaBoost with as
    many stumps, less two points (benchmarks/multiclass.py measures five sets)."""
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_wine(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    ours = _fit(lambda: ERLPBoostClassifier(nu=0.05), X_train, y_train)
    theirs = AdaBoostClassifier(
        DecisionTreeClassifier(max_depth=1), n_estimators=len(ours.hypotheses_), random_state=0
    ).fit(X_train, y_train)
    assert ours.score(X_test, y_test) >= theirs.score(X_test, y_test) - 0.02


def test_reweighting_a_forest_over_the_pairs(iris, tmp_path):
    """ReweightedClassifier on K = 3 classes: the LP over the (example, wrong class) pair edges of the
    trees' out-of-bag votes (built here from each tree's predictions and its bootstrap rows) has the
    value the fitted solution certifies (Clarabel, an independent solver, on the same matrix); the
    votes, probabilities, stages and model file are those of the boosting classifiers."""
    from sklearn.ensemble import RandomForestClassifier

    from dualboost.problems import LPBoost

    X, y = iris
    forest = RandomForestClassifier(n_estimators=25, random_state=0).fit(X, y)
    model = ReweightedClassifier(forest, nu=0.1).fit(X, y)
    assert model.oob_ and model.nu_ == pytest.approx(0.1 * 300)
    labels = np.searchsorted(model.classes_, y)
    columns = []
    for tree, rows in zip(forest.estimators_, forest.estimators_samples_, strict=True):
        predicted = tree.predict(X).astype(int)  # the forest's encoded class indices
        in_bag = np.zeros(150, dtype=bool)
        in_bag[rows] = True
        pairs = [(n, k) for n in range(150) for k in range(3) if k != labels[n]]
        columns.append(
            [
                0.0 if in_bag[n] else float(predicted[n] == labels[n]) - float(predicted[n] == k)
                for n, k in pairs
            ]
        )
    U = np.array(columns).T
    reference = LPBoost(U, nu=model.nu_).solve("clarabel", side="primal")
    assert model.solution_.status == "optimal"
    assert model.solution_.primal_value == pytest.approx(reference.primal_value, abs=1e-6)
    F = model.decision_function(X)
    votes = np.zeros((150, 3))
    for w, tree in zip(model.estimator_weights_, model.estimators_, strict=True):
        votes[np.arange(150), tree.predict(X).astype(int)] += w
    assert F == pytest.approx(votes, abs=1e-12)
    proba = model.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(model.classes_[np.argmax(proba, axis=1)], model.predict(X))
    assert list(model.staged_decision_function(X))[-1] == pytest.approx(F, abs=1e-9)
    assert model.score(X, y) >= 0.9
    path = tmp_path / "reweighted.dbm"
    save(model, path)
    assert np.array_equal(load(path).predict_proba(X), proba)
    assert _fit(lambda: ReweightedClassifier(forest, model="erlpboost"), X, y).score(X, y) >= 0.9  # nu="auto"


def test_cv_along_the_pair_path(iris):
    """ERLPBoostCV on K = 3 classes: without warm starts the path at each nu is the ERLPBoost driver
    over the pairs, so each fold's score is the held-out accuracy of ERLPBoostClassifier fitted on the
    fold at that nu (computed here independently); the refit is the classifier at best_nu_."""
    from sklearn.model_selection import StratifiedKFold

    from dualboost import ERLPBoostCV

    X, y = iris
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    model = ERLPBoostCV(nus=(0.3, 0.05), cv=cv, warm_start=False).fit(X, y)
    for k, (train, test) in enumerate(cv.split(X, y)):
        for j, nu in enumerate(model.nus_):
            fold = _fit(lambda nu=nu: ERLPBoostClassifier(nu=float(nu)), X[train], y[train])
            assert model.scores_[k, j] == pytest.approx(fold.score(X[test], y[test]), abs=1e-12)
    refit = _fit(lambda: ERLPBoostClassifier(nu=model.best_nu_), X, y)
    assert np.array_equal(model.predict_proba(X), refit.predict_proba(X))
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
