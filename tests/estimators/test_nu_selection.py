"""The default ``nu="auto"`` (dualboost.estimators.nu_selection, docs/boosting.md#the-default-nuauto):
nu chosen by validation along a descending grid below ``AUTO_NU_SHARE * 2 min(N+, N-) / N``, for every capped
classifier, ``reweight``, the Dask fit and the CLI; a given nu fits as before."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

from dualboost import cli
from dualboost.boosting import boost
from dualboost.estimators import (
    BinaryERLPBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
    QRLPBoostClassifier,
    SoftBoostClassifier,
)
from dualboost.estimators.nu_selection import (
    FIRST_STEP_SPLIT,
    GRID_POINTS,
    NU_FLOOR,
    PATIENCE,
    SE_SHARE,
    nu_grid,
    search,
    validation_score,
    validation_split,
    within_standard_error,
)
from dualboost.estimators.params import AUTO_NU_SHARE, auto_nu, nu_count
from dualboost.estimators.reweight import reweight
from dualboost.oracles.registry import make_oracle

AUTO = [
    LPBoostClassifier,
    SoftBoostClassifier,
    ERLPBoostClassifier,
    BinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
    MLPBoostClassifier,
    QRLPBoostClassifier,
]


def _data(n: int = 150, minority: float = 0.3, seed: int = 0):
    X, y = make_classification(
        n_samples=n, n_features=5, n_informative=3, weights=[1 - minority], flip_y=0.0, random_state=seed
    )
    return X, y


def _diagonal(n: int = 240, seed: int = 0):
    """Clean labels on a diagonal boundary: stumps need many hypotheses (a tight capping)."""
    X = np.random.default_rng(seed).uniform(-1, 1, (n, 3))
    return X, (X[:, 0] + X[:, 1] > 0).astype(int)


def _noisy(n: int = 240, flip: float = 0.35, seed: int = 0):
    """One informative stump, 35 % of the labels flipped: a loose capping (the single stump) is best."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    y = (X[:, 0] > 0).astype(int)
    flipped = rng.random(n) < flip
    y[flipped] = 1 - y[flipped]
    return X, y


@pytest.mark.parametrize("cls", AUTO)
def test_every_capped_classifier_chooses_nu_by_validation_and_reports_it(cls):
    X, y = _data(n=120)
    clf = cls(max_iter=5)
    assert clf.get_params()["nu"] == "auto"
    clf.fit(X, y)
    selection = clf.nu_selection_
    assert selection.how == "validation"
    assert clf.nu_fraction_ == selection.fraction
    assert clf.nu_ == nu_count(selection.fraction, y.size)
    top = auto_nu(y)
    assert selection.grid[0] == pytest.approx(top)
    train, _ = validation_split(np.where(y == 1, 1.0, -1.0))
    assert selection.grid == tuple(nu_grid(top, train.size)[: len(selection.grid)])
    assert len(selection.scores) == len(selection.grid)
    assert selection.fraction in selection.grid


def test_clean_data_gets_a_small_nu_and_noisy_data_the_largest():
    """A diagonal boundary with clean labels needs many stumps: the validation goes down the grid;
    under 35 % label noise the single stump of the loosest capping validates best. 960 rows: with 240
    (60 held out, a row is 1.7 points) the choice is the holdout's luck for this rule and the former
    one alike (chosen / top on five seeds: 0.85 0.06 0.50 0.25 1.00, and 0.12 0.05 0.49 0.24 0.49);
    at 960 it is at most 0.13 on every seed for both."""
    X, y = _diagonal(n=960)
    clean = ERLPBoostClassifier(eps=0.05).fit(X, y)
    assert clean.nu_fraction_ < auto_nu(y) / 3
    X, y = _noisy()
    noisy = ERLPBoostClassifier(eps=0.05).fit(X, y)
    assert noisy.nu_fraction_ == pytest.approx(auto_nu(y))
    # stopped early: the fine first step searched, then PATIENCE points of the coarse grid without a gain
    assert len(noisy.nu_selection_.grid) == FIRST_STEP_SPLIT + PATIENCE


def _refit_scores(cls, X, labels, grid, weights=None, **params):
    """The validation accuracy of an independent fit at each fixed nu of the grid on the same split."""
    train, test = validation_split(labels)
    scores = []
    for nu in grid:
        w_train = None if weights is None else weights[train]
        model = cls(nu=float(nu), **params).fit(X[train], labels[train], sample_weight=w_train)
        predicted = np.where(model.predict(X[test]) == 1.0, 1.0, -1.0)
        w_test = None if weights is None else weights[test]
        scores.append(float(np.average(predicted == labels[test], weights=w_test)))
    return np.array(scores)


def _check_choice(selection, n_eff):
    """The choice is the largest nu within SE_SHARE binomial standard errors of the best score, and the
    search stopped either at the end of the grid or after PATIENCE scores below its best (the points
    of the fine first step do not count)."""
    scores = np.array(selection.scores)
    best = int(np.flatnonzero(scores == scores.max())[0])
    counted = np.arange(scores.size) >= FIRST_STEP_SPLIT
    assert np.sum((scores < scores[best]) & counted & (np.arange(scores.size) > best)) <= PATIENCE
    se = SE_SHARE * np.sqrt(scores[best] * (1 - scores[best]) / n_eff)
    within = [k for k, score in enumerate(scores) if score >= scores[best] - se - 1e-12]
    assert selection.fraction == selection.grid[within[0]]


def test_the_chosen_nu_is_the_best_of_its_path_by_independent_fits():
    """SoftBoost has no warm-started path: its scores must equal independent fits exactly."""
    X, y = _diagonal(n=160, seed=3)
    labels = np.where(y == 1, 1.0, -1.0)
    clf = SoftBoostClassifier(eps=0.1).fit(X, labels)
    selection = clf.nu_selection_
    np.testing.assert_array_equal(
        _refit_scores(SoftBoostClassifier, X, labels, selection.grid, eps=0.1), selection.scores
    )
    _check_choice(selection, n_eff=40)


def test_the_warm_started_path_scores_as_independent_fits():
    """ERLPBoost's scores come from the warm-started nu path; each point stops eps-optimal from
    another start than an independent fit, so a few validation predictions may differ: 3 of 60 rows."""
    X, y = _diagonal(seed=0)
    labels = np.where(y == 1, 1.0, -1.0)
    clf = ERLPBoostClassifier(eps=0.05).fit(X, labels)
    selection = clf.nu_selection_
    assert selection.how == "validation" and len(selection.grid) >= 4
    independent = _refit_scores(ERLPBoostClassifier, X, labels, selection.grid, eps=0.05)
    np.testing.assert_allclose(independent, selection.scores, atol=3 / 60 + 1e-12)
    _check_choice(selection, n_eff=60)


def test_sample_weights_are_validated_by_weighted_accuracy():
    X, y = _diagonal(n=160, seed=1)
    labels = np.where(y == 1, 1.0, -1.0)
    weights = 1.0 + (np.arange(y.size) % 3)
    clf = CorrectiveERLPBoostClassifier(eps=0.1, max_iter=60).fit(X, labels, sample_weight=weights)
    selection = clf.nu_selection_
    refit = _refit_scores(
        CorrectiveERLPBoostClassifier, X, labels, selection.grid, weights=weights, eps=0.1, max_iter=60
    )
    np.testing.assert_array_equal(refit, selection.scores)
    held = weights[validation_split(labels)[1]]
    _check_choice(selection, n_eff=held.sum() ** 2 / np.sum(held**2))


@pytest.mark.parametrize(
    "cls, algorithm, extra",
    [
        (ERLPBoostClassifier, "erlpboost", {"method": "auglag", "criterion": "practical", "eta": None}),
        (LPBoostClassifier, "lpboost", {"method": "highs"}),
        (CorrectiveERLPBoostClassifier, "corrective_erlpboost", {"eta": None, "step": None}),
    ],
)
def test_a_given_nu_fits_as_the_driver_at_that_nu(cls, algorithm, extra):
    """A fixed nu is no selection: the fit is the driver's at the count max(1, nu N), as before."""
    X, y = _data(n=120)
    labels = np.where(y == 1, 1.0, -1.0)
    clf = cls(nu=0.2, eps=0.05, max_iter=40).fit(X, y)
    assert clf.nu_selection_.how == "given" and clf.nu_fraction_ == 0.2
    oracle = make_oracle("stumps").fit(X, labels)
    result = boost(algorithm, oracle, nu=nu_count(0.2, y.size), eps=0.05, max_iter=40, **extra)
    assert clf.hypotheses_ == result.hypotheses
    np.testing.assert_array_equal(clf.estimator_weights_, result.weights)
    assert clf.nu_ == 24.0


def test_auto_binary_entropy_keeps_the_cap_above_a_heavy_prior():
    """The binary entropy needs d0_n < 1/nu_: ``auto`` searches at most 1 / (4 N max p) of the rows,
    while an explicit nu that violates it is refused."""
    X, y = _data(n=100, minority=0.4)
    weights = np.ones(y.size)
    weights[0] = 60.0  # d0_0 = 60 / 159
    clf = BinaryERLPBoostClassifier(max_iter=5).fit(X, y, sample_weight=weights)
    assert clf.nu_selection_.grid[0] == pytest.approx(0.25 * weights.sum() / weights.max() / y.size)
    assert clf.nu_ * weights.max() / weights.sum() < 1.0
    with pytest.raises(ValueError, match="prior mass"):
        BinaryERLPBoostClassifier(nu=0.5, max_iter=5).fit(X, y, sample_weight=weights)


@pytest.mark.parametrize("top, n_train", [(0.65, 400), (0.5, 60), (0.3, 10_000)])
def test_the_grid_is_geometric_with_a_finer_first_step(top, n_train):
    """Closed form: the coarse ratio r = (floor / top)^(1 / (GRID_POINTS - 1)); the first
    FIRST_STEP_SPLIT steps have ratio r^(1 / FIRST_STEP_SPLIT), the rest r."""
    grid = nu_grid(top, n_train)
    floor = max(NU_FLOOR, 1 / n_train)
    r = (floor / top) ** (1 / (GRID_POINTS - 1))
    ratios = grid[1:] / grid[:-1]
    assert grid.size == GRID_POINTS + FIRST_STEP_SPLIT - 1
    assert grid[0] == top and grid[-1] == pytest.approx(floor, rel=1e-12)
    np.testing.assert_allclose(ratios[:FIRST_STEP_SPLIT], r ** (1 / FIRST_STEP_SPLIT), rtol=1e-12)
    np.testing.assert_allclose(ratios[FIRST_STEP_SPLIT:], r, rtol=1e-12)
    assert nu_grid(floor / 2, n_train).tolist() == [floor / 2]  # at or below the floor: top alone


def test_too_few_examples_take_the_class_balance():
    X, y = _data(n=30, minority=0.2)
    clf = ERLPBoostClassifier(max_iter=5).fit(X, y)
    assert clf.nu_selection_.how == "class balance"
    assert clf.nu_fraction_ == pytest.approx(auto_nu(y))


def test_search_stops_after_patience_and_the_choice_is_within_a_standard_error():
    consumed = []

    def scores():
        for value in (0.7, 0.7, 0.9, 0.9, 0.8, 0.95, 0.99):
            consumed.append(value)
            yield value

    seen = search(scores(), patience=2)
    assert seen == [0.7, 0.7, 0.9, 0.9, 0.8, 0.95, 0.99] and consumed == seen  # ties do not count
    assert search(iter([0.9, 0.8, 0.9, 0.7, 0.99]), patience=2) == [0.9, 0.8, 0.9, 0.7]
    assert within_standard_error([0.7, 0.9, 0.9, 0.8], n_eff=1e9) == 1  # ties: the larger nu
    # se = sqrt(.88 .12 / 100) = 0.0325
    assert within_standard_error([0.80, 0.86, 0.88], n_eff=100, share=1.0) == 1
    assert within_standard_error([0.85, 0.87, 0.88], n_eff=100, share=1.0) == 0
    assert within_standard_error([0.85, 0.87, 0.88], n_eff=100, share=0.5) == 1
    f, labels = np.array([0.5, -0.1, 0.0]), np.array([1.0, 1.0, -1.0])
    assert validation_score(f, labels, np.array([1.0, 2.0, 3.0])) == 4 / 6  # f = 0 predicts -1
    prior = np.array([0.4, 0.6])  # the training rows' majority is +1
    assert validation_score(f, labels, np.array([1.0, 2.0, 3.0]), prior) == 1 / 6
    # within TIE_TOL of 0 is a tie, as in combined_decision
    near = f + [0.0, 0.0, 1e-12]
    assert validation_score(near, labels, None, prior) == validation_score(f, labels, None, prior)
    # the first `free` scores (the fine first step) never stop the search
    path = [0.9, 0.8, 0.8, 0.7, 0.85, 0.95]
    assert search(iter(path), patience=2, free=4) == path
    assert search(iter(path), patience=2, free=0) == path[:3]


@pytest.mark.parametrize("labels", [["a", "b", "b", "b"], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [-1.0, 1.0]])
def test_auto_nu_of_any_two_labels(labels):
    values, counts = np.unique(labels, return_counts=True)
    assert auto_nu(np.array(labels)) == pytest.approx(AUTO_NU_SHARE * 2 * counts.min() / len(labels))


def test_auto_nu_of_k_classes_and_of_one():
    """K classes: the share of K min_c N_c / N (the largest capping of the pairs under which every
    class can carry the same mass, docs/math.md#multiclass); one class is refused."""
    assert auto_nu(np.array([0, 1, 2, 1, 2, 2])) == pytest.approx(AUTO_NU_SHARE * 3 * 1 / 6)
    with pytest.raises(ValueError, match="at least two classes"):
        auto_nu(np.ones(5))


@pytest.mark.parametrize("n_min, n", [(30, 100), (7, 200), (45, 100)])
def test_above_twice_the_minority_every_capped_d_favours_the_majority(n_min, n):
    """The top of the grid: min over the capped simplex of the majority's mass, by an LP (HiGHS),
    against the closed form ``1 - n_min / nu``: above 1/2 exactly when nu > 2 n_min; at the top of the
    grid (< 2 n_min) a d with equal class masses exists."""
    majority = np.r_[np.zeros(n_min), np.ones(n - n_min)]

    def least_majority_mass(nu: float) -> float:
        res = linprog(
            majority, A_eq=np.ones((1, n)), b_eq=[1.0], bounds=[(0.0, 1.0 / nu)] * n, method="highs"
        )
        assert res.status == 0
        return float(res.fun)

    for nu in (2 * n_min * 1.05, 2 * n_min * 1.5, min(n, 2 * n_min * 3)):
        if 2 * n_min < nu <= n:  # (balanced classes: no capping lies above 2 n_min = N)
            assert least_majority_mass(nu) == pytest.approx(1 - n_min / nu, abs=1e-9)
            assert least_majority_mass(nu) > 0.5
    assert least_majority_mass(AUTO_NU_SHARE * 2 * n_min) <= 0.5


def test_reweighting_a_forest_on_its_training_rows_uses_out_of_bag_edges():
    """On its own training rows every fully grown tree has margin 1, so the soft margin keeps one tree;
    the out-of-bag edges keep many, and nu="auto" is accepted."""
    X, y = load_breast_cancer(return_X_y=True)
    X, _, y, _ = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    forest = RandomForestClassifier(n_estimators=200, random_state=0).fit(X, y)  # a reported case
    in_bag = reweight(forest, X, y, nu=0.1, oob=False)
    assert in_bag.support_.size == 1 and not in_bag.oob_
    out_of_bag = reweight(forest, X, y)
    assert out_of_bag.oob_ and out_of_bag.nu_selection_.how == "validation"
    assert out_of_bag.support_.size > 5
    with pytest.raises(ValueError, match="oob=True"):
        reweight(forest, X[:100], y[:100], oob=True)


def test_cli_nu_auto_is_the_classifiers_choice(tmp_path, capsys):
    from sklearn.datasets import dump_svmlight_file

    X, y = _data(n=120, minority=0.3)
    path = tmp_path / "train.libsvm"
    dump_svmlight_file(X, 2 * y - 1, str(path), zero_based=False)
    expected = ERLPBoostClassifier(eps=0.1).fit(X, 2 * y - 1).nu_
    for extra in ([], ["--nu", "auto"]):
        assert cli.main(["boost", str(path), "--eps", "0.1", "--quiet", *extra]) == 0
        assert f"nu = {expected:g}" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["boost", str(path), "--nu", "half"])
    assert "expected 'auto' or a fraction" in capsys.readouterr().err


@pytest.mark.filterwarnings("ignore:Class DaskERLPBoostClassifier is deprecated:FutureWarning")
def test_auto_on_dask_holds_out_whole_row_blocks():
    da = pytest.importorskip("dask.array")
    from dualboost.estimators.dask import DaskERLPBoostClassifier, block_split

    X, y = _data(n=160, minority=0.4)
    X_dask = da.from_array(X, chunks=(40, -1))
    train, test = block_split(X_dask)
    assert test.size == 40 and test[-1] - test[0] == 39  # one whole block of the four
    got = ERLPBoostClassifier(eps=0.1).fit(X_dask, da.from_array(y, chunks=40))
    assert got.nu_selection_.how == "validation"
    assert got.nu_ == nu_count(got.nu_fraction_, y.size)
    in_memory = DaskERLPBoostClassifier(eps=0.1, n_partitions=2).fit(X, y)
    assert in_memory.nu_selection_ == ERLPBoostClassifier(eps=0.1).fit(X, y).nu_selection_
