"""``max_time`` on the estimators (a scikit-learn parameter, checked by ``_parameter_constraints``) and on
``dualboost boost --max-time``: a fit stops at an iteration boundary with ``stop_reason_`` ``"time
limit"`` (docs/boosting.md#run-options)."""

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

import dualboost.estimators as estimators
from dualboost import cli

pytestmark = pytest.mark.filterwarnings(
    "ignore::dualboost.boosting.core.run.SoftMarginWarning", "ignore::sklearn.exceptions.ConvergenceWarning"
)

#: every estimator whose fit is one boosting run of a driver, with parameters that make it quick
#: (a fixed nu: "auto" would validate several)
ESTIMATORS = {
    "LPBoostClassifier": {"nu": 0.2},
    "SoftBoostClassifier": {"nu": 0.2},
    "ERLPBoostClassifier": {"nu": 0.2},
    "BinaryERLPBoostClassifier": {"nu": 0.2},
    "CorrectiveERLPBoostClassifier": {"nu": 0.2},
    "CorrectiveBinaryERLPBoostClassifier": {"nu": 0.2},
    "MDBoostClassifier": {},
    "CGBoostClassifier": {},
    "NMBoostClassifier": {},
    "QRLPBoostClassifier": {"nu": 0.2},
    "MLPBoostClassifier": {"nu": 0.2},
    "AdaBoostVClassifier": {},
    "SmoothBoostClassifier": {},
    "MABoostClassifier": {},
    "SparseBoostClassifier": {},
    "MadaBoostClassifier": {},
    "GradientProjectionClassifier": {},
    "GradientProjectionRegressor": {},
}


def _data(n: int = 120, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] - X[:, 1] + 0.8 * rng.normal(size=n) > 0, 1, -1)
    return X, y


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_estimator_takes_max_time(name):
    cls = getattr(estimators, name)
    X, y = _data()
    assert cls().get_params()["max_time"] is None
    for bad in (0.0, -1.0, "1 s"):
        with pytest.raises(ValueError, match="'max_time' parameter"):
            cls(max_time=bad, **ESTIMATORS[name]).fit(X, y)
    # any iteration takes longer than a nanosecond: the run stops after its first one
    model = cls(max_time=1e-9, **ESTIMATORS[name]).fit(X, y)
    assert model.stop_reason_ == "time limit"
    assert len(model.history_) == 1
    free = cls(**ESTIMATORS[name]).fit(X, y)
    assert free.stop_reason_ != "time limit" and len(free.history_) > 1


@pytest.mark.filterwarnings("ignore:Class DaskERLPBoostClassifier is deprecated:FutureWarning")
def test_the_dask_estimator_takes_max_time():
    pytest.importorskip("dask")
    from dualboost.estimators.dask import DaskERLPBoostClassifier

    X, y = _data()
    model = DaskERLPBoostClassifier(nu=0.2, max_time=1e-9, n_partitions=2).fit(X, y)
    assert model.stop_reason_ == "time limit" and model.n_iter_ == 1
    with pytest.raises(ValueError, match="'max_time' parameter"):
        DaskERLPBoostClassifier(max_time=0.0).fit(X, y)


def _toy_file(tmp_path):
    X, y = _data()
    path = tmp_path / "toy.libsvm"
    dump_svmlight_file(X, y, str(path))
    return path


def test_boost_max_time(tmp_path, capsys):
    rc = cli.main(["boost", str(_toy_file(tmp_path)), "--quiet", "--nu", "0.2", "--max-time", "1e-9"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "stopped:      time limit: max_time=1e-09 s (NOT converged)" in out
    assert cli.main(["boost", str(_toy_file(tmp_path)), "--quiet", "--max-time", "0"]) == 1
    assert "--max-time must be > 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["boost", "--help"])
    assert "--max-time SECONDS" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["ERLPBoostCV", "LPBoostCV"])
def test_the_cross_validated_estimators_take_max_time(name):
    """Every run of the path (each nu of each fold) and the refit stop after their first iteration."""
    cls = getattr(estimators, name)
    X, y = _data()
    with pytest.raises(ValueError, match="'max_time' parameter"):
        cls(max_time=0.0).fit(X, y)
    model = cls(nus=[0.3, 0.1], cv=2, max_time=1e-9).fit(X, y)
    assert model.best_estimator_.stop_reason_ == "time limit" and model.best_estimator_.n_iter_ == 1
    assert model.best_estimator_.max_time == 1e-9
    from dualboost.estimators.cv import path

    points = path(X, y, [0.3, 0.1], model=name[:-2].lower(), max_time=1e-9).points
    assert [p.result.stop_reason for p in points] == ["time limit", "time limit"]
    assert [p.result.n_iter for p in points] == [1, 1]
