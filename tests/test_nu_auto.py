"""The classifiers' default ``nu="auto"`` (docs/math.md#capping-nu): ``AUTO_NU_SHARE * 2 min(N+, N-) / N``
of the training labels, the reason for it (above ``2 min(N+, N-)`` every capped d gives the majority
more than half), and its plumbing (weights, the binary entropy, the CLI, Dask labels)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog
from sklearn.datasets import make_classification

from dualboost import cli
from dualboost.estimators import (
    BinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    LPBoostClassifier,
    MLPBoostClassifier,
    QRLPBoostClassifier,
    SoftBoostClassifier,
)
from dualboost.estimators.base import AUTO_NU_SHARE, auto_nu

AUTO = [
    LPBoostClassifier,
    SoftBoostClassifier,
    ERLPBoostClassifier,
    BinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    MLPBoostClassifier,
    QRLPBoostClassifier,
]


def _data(n: int = 150, minority: float = 0.3, seed: int = 0):
    X, y = make_classification(
        n_samples=n, n_features=5, n_informative=3, weights=[1 - minority], flip_y=0.0, random_state=seed
    )
    return X, y


@pytest.mark.parametrize("cls", AUTO)
def test_auto_is_the_default_and_its_count_is_the_closed_form(cls):
    X, y = _data()
    n_min = min(np.sum(y == 0), np.sum(y == 1))
    clf = cls(max_iter=5)
    assert clf.get_params()["nu"] == "auto"
    clf.fit(X, y)
    assert clf.nu_ == pytest.approx(AUTO_NU_SHARE * 2 * n_min, rel=1e-12)


@pytest.mark.parametrize("labels", [["a", "b", "b", "b"], [1, 1, 0, 0, 0, 0, 0, 0, 0, 0], [-1.0, 1.0]])
def test_auto_nu_of_any_two_labels(labels):
    values, counts = np.unique(labels, return_counts=True)
    assert auto_nu(np.array(labels)) == pytest.approx(AUTO_NU_SHARE * 2 * counts.min() / len(labels))


def test_auto_nu_refuses_other_than_two_classes():
    with pytest.raises(ValueError, match="exactly two classes"):
        auto_nu(np.array([0, 1, 2, 1]))
    with pytest.raises(ValueError, match="exactly two classes"):
        auto_nu(np.ones(5))


@pytest.mark.parametrize("n_min, n", [(30, 100), (7, 200), (45, 100)])
def test_above_twice_the_minority_every_capped_d_favours_the_majority(n_min, n):
    """min over the capped simplex of the majority's mass, by an LP (HiGHS), against the closed form
    ``max(1 - n_min / nu, ...)``: above 1/2 exactly when nu > 2 n_min; at nu="auto" (< 2 n_min) a d
    with equal class masses exists."""
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


def test_auto_keeps_the_minority_where_a_fixed_large_nu_loses_it():
    """On a set with 21 % positives, nu = 0.6 (above 2 * 0.21) predicts the majority class for all
    but one training example; nu="auto" (0.8 * 0.42 = 0.336) predicts positives at about their rate."""
    X, y = make_classification(
        n_samples=300, n_features=6, n_informative=3, weights=[0.8], flip_y=0.05, random_state=0
    )
    fixed = ERLPBoostClassifier(nu=0.6).fit(X, y)
    auto = ERLPBoostClassifier().fit(X, y)
    assert np.mean(fixed.predict(X) == 1) < 0.01
    assert abs(np.mean(auto.predict(X) == 1) - np.mean(y == 1)) < 0.05
    assert auto.score(X, y) > fixed.score(X, y) + 0.1


def test_auto_counts_the_kept_rows_of_sample_weight():
    """Rows of weight 0 are removed before the count (the caps are per example, whatever its weight)."""
    X, y = _data(minority=0.4)
    weights = np.where(np.arange(y.size) % 3 == 0, 0.0, 1.0 + (np.arange(y.size) % 2))
    kept = y[weights > 0]
    clf = ERLPBoostClassifier(max_iter=5).fit(X, y, sample_weight=weights)
    assert clf.nu_ == pytest.approx(AUTO_NU_SHARE * 2 * min(np.sum(kept == 0), np.sum(kept == 1)))


def test_auto_binary_entropy_lowers_the_count_below_a_heavy_prior():
    """The binary entropy needs d0_n < 1/nu_: with nu="auto" the count becomes 1 / (2 max d0) where the
    share would exceed it, while an explicit nu that violates it is refused."""
    X, y = _data(n=100, minority=0.4)
    weights = np.ones(y.size)
    weights[0] = 60.0  # d0_0 = 60 / 159
    clf = BinaryERLPBoostClassifier(max_iter=5).fit(X, y, sample_weight=weights)
    assert clf.nu_ == pytest.approx(max(1.0, 0.5 * weights.sum() / weights.max()))
    assert clf.nu_ < AUTO_NU_SHARE * 2 * min(np.sum(y == 0), np.sum(y == 1))
    with pytest.raises(ValueError, match="prior mass"):
        BinaryERLPBoostClassifier(nu=0.5, max_iter=5).fit(X, y, sample_weight=weights)


def test_cli_nu_auto_is_the_default_and_refuses_other_words(tmp_path, capsys):
    from sklearn.datasets import dump_svmlight_file

    X, y = _data(n=80, minority=0.25)
    path = tmp_path / "train.libsvm"
    dump_svmlight_file(X, 2 * y - 1, str(path), zero_based=False)
    n_min = min(np.sum(y == 0), np.sum(y == 1))
    expected = f"nu = {AUTO_NU_SHARE * 2 * n_min:g}"
    for extra in ([], ["--nu", "auto"]):
        assert cli.main(["boost", str(path), "--eps", "0.1", "--quiet", *extra]) == 0
        assert expected in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli.main(["boost", str(path), "--nu", "half"])
    assert "expected 'auto' or a fraction" in capsys.readouterr().err


def test_auto_on_dask_labels_is_the_in_memory_count():
    da = pytest.importorskip("dask.array")
    X, y = _data(n=120, minority=0.3)
    got = ERLPBoostClassifier(eps=0.1, method="auglag").fit(
        da.from_array(X, chunks=(40, -1)), da.from_array(y, chunks=40)
    )
    want = ERLPBoostClassifier(eps=0.1, method="auglag").fit(X, y)
    assert got.nu_ == want.nu_ == pytest.approx(AUTO_NU_SHARE * 2 * min(np.sum(y == 0), np.sum(y == 1)))
