"""Model files (dualboost.estimators.persistence).

A round trip gives bit-identical predictions (decision_function, predict, predict_proba, the staged
decisions, feature importances) for every family that can be saved: the totally corrective classifiers
(stumps, raw features, linear-kernel hypotheses, scikit-learn trees through skops), the corrective and
MABoost ones, string labels and DataFrame feature names, a re-weighted forest and a CV estimator (as
its best_estimator_). A corrupt file, a truncated one, one of another format or format version, or
one naming an unknown class raises ValueError; an estimator that cannot be saved raises ValueError;
without skops a model with scikit-learn members raises ImportError naming the extra, and one
without them needs no skops.
"""

from __future__ import annotations

import json
import sys
import zipfile

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier

from dualboost import (
    BinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    GradientProjectionClassifier,
    LPBoostClassifier,
    MABoostClassifier,
    SoftBoostClassifier,
)
from dualboost.estimators import (
    CGBoostClassifier,
    ERLPBoostCV,
    MDBoostClassifier,
    NMBoostClassifier,
    QRLPBoostClassifier,
    load,
    persistence,
    reweight,
    save,
)

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


@pytest.fixture(scope="module")
def data():
    X, y = make_classification(n_samples=160, n_features=6, n_informative=3, flip_y=0.05, random_state=2)
    return X[:120], y[:120], X[120:]


def _same_predictions(a, b, X):
    np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    if hasattr(a, "predict_proba"):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    if hasattr(a, "stages_") and a.stages_ is not None:
        for f, g in zip(a.staged_decision_function(X), b.staged_decision_function(X), strict=True):
            np.testing.assert_array_equal(f, g)
    if hasattr(a, "feature_importances_") and hasattr(a, "hypotheses_"):
        np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)


FAMILIES = {
    "erlpboost-stumps": lambda: ERLPBoostClassifier(eps=0.05),
    "lpboost-raw": lambda: LPBoostClassifier(oracle="raw", eps=0.05),
    "softboost-svm": lambda: SoftBoostClassifier(oracle="svm", eps=0.1),
    "binary-erlpboost": lambda: BinaryERLPBoostClassifier(eps=0.05),
    "corrective": lambda: CorrectiveERLPBoostClassifier(eps=0.1, max_iter=40),
    "maboost": lambda: MABoostClassifier(max_iter=30),
    "erlpboost-trees": lambda: ERLPBoostClassifier(oracle=DecisionTreeClassifier(max_depth=2), eps=0.05),
    "mdboost": lambda: MDBoostClassifier(eps=0.05),
    "cgboost": lambda: CGBoostClassifier(eps=0.05),
    "nmboost": lambda: NMBoostClassifier(eps=0.05),
    "qrlpboost": lambda: QRLPBoostClassifier(eps=0.05),
}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_round_trip_is_identical(tmp_path, data, family):
    X, y, X_new = data
    fitted = FAMILIES[family]().fit(X, y)
    path = save(fitted, tmp_path / "model.dbm")
    assert path == tmp_path / "model.dbm" and path.is_file()  # no suffix added
    loaded = load(path)
    assert type(loaded) is type(fitted)
    assert loaded.get_params() == fitted.get_params() or family == "erlpboost-trees"
    for name in ("nu_", "n_iter_", "converged_", "n_features_in_"):  # (no nu_ without a capping)
        assert getattr(loaded, name, None) == getattr(fitted, name, None)
    assert (
        hasattr(loaded, "nu_") == hasattr(fitted, "nu_") == (family not in ("mdboost", "cgboost", "nmboost"))
    )
    np.testing.assert_array_equal(loaded.classes_, fitted.classes_)
    np.testing.assert_array_equal(loaded.estimator_weights_, fitted.estimator_weights_)
    assert len(loaded.history_) == len(fitted.history_)
    _same_predictions(fitted, loaded, X_new)
    _same_predictions(fitted, loaded, X)


def test_string_labels_and_feature_names(tmp_path, data):
    X, y, X_new = data
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    labels = np.where(y == 1, "spam", "ham")
    fitted = ERLPBoostClassifier(eps=0.05).fit(frame, labels)
    loaded = load(save(fitted, tmp_path / "m"))
    np.testing.assert_array_equal(loaded.feature_names_in_, fitted.feature_names_in_)
    assert loaded.classes_.dtype == fitted.classes_.dtype
    new = pd.DataFrame(X_new, columns=frame.columns)
    _same_predictions(fitted, loaded, new)
    assert set(loaded.predict(new)) <= {"spam", "ham"}


def test_reweighted_forest_and_cv(tmp_path, data):
    X, y, X_new = data
    forest = RandomForestClassifier(n_estimators=20, random_state=0).fit(X, y)
    fitted = reweight(forest, X, y, nu=0.2)
    loaded = load(save(fitted, tmp_path / "r"))
    assert loaded.ensemble is None  # the pool is not saved, only the kept members
    np.testing.assert_array_equal(loaded.support_, fitted.support_)
    assert len(loaded.estimators_) == len(fitted.estimators_)
    assert loaded.solution_.dual_value == fitted.solution_.dual_value
    _same_predictions(fitted, loaded, X_new)
    cv = ERLPBoostCV(nus=(0.4, 0.1), cv=2, eps=0.05).fit(X, y)
    loaded = load(save(cv, tmp_path / "cv"))
    assert type(loaded) is ERLPBoostClassifier and loaded.nu_ == cv.nu_
    _same_predictions(cv.best_estimator_, loaded, X_new)


def _rewrite(path, target, change):
    """Copy the model file ``path`` to ``target`` with its header changed by ``change(header)``."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {key: archive[key] for key in archive.files}
    header = json.loads(arrays.pop("header").tobytes())
    change(header, arrays)
    payload = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    with open(target, "wb") as handle:
        np.savez(handle, header=payload, **arrays)
    return target


def _first_hypothesis(header: dict) -> dict:
    return header["attributes"]["hypotheses_"]["hypotheses"][0]


@pytest.fixture()
def saved(tmp_path, data):
    X, y, _ = data
    return save(ERLPBoostClassifier(eps=0.05).fit(X, y), tmp_path / "good")


def test_corrupt_files_raise_value_error(tmp_path, saved):
    raw = saved.read_bytes()
    cases = {
        "text": b"not a model\n",
        "truncated": raw[: len(raw) // 2],
        "empty": b"",
    }
    flipped = bytearray(raw)
    flipped[len(raw) // 3] ^= 0xFF
    cases["flipped"] = bytes(flipped)
    for name, content in cases.items():
        bad = tmp_path / name
        bad.write_bytes(content)
        with pytest.raises(ValueError, match="model file"):
            load(bad)
    with zipfile.ZipFile(tmp_path / "other.zip", "w") as other:
        other.writestr("x.npy", b"nothing")
    with pytest.raises(ValueError, match="model file"):
        load(tmp_path / "other.zip")
    np.save(tmp_path / "array.npy", np.zeros(3))
    with pytest.raises(ValueError, match="model file"):
        load(tmp_path / "array.npy")
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "absent")


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda h, a: h.update(version=persistence.VERSION + 1), "format version 2"),
        (lambda h, a: h.update(format="dualboost-checkpoint"), "not a dualboost model file"),
        (lambda h, a: h.update({"class": "os.system"}), "unknown estimator class"),
        (lambda h, a: _first_hypothesis(h).update({"class": "Evil"}), "unknown hypothesis"),
        (lambda h, a: _first_hypothesis(h)["fields"].pop("n_features"), "wrong fields"),
        (lambda h, a: a.clear(), "missing"),
    ],
)
def test_other_versions_and_tampered_headers_raise(tmp_path, saved, change, match):
    target = _rewrite(saved, tmp_path / "changed", change)
    with pytest.raises(ValueError, match=match):
        load(target)


def test_what_cannot_be_saved(tmp_path, data):
    X, y, _ = data
    with pytest.raises(NotFittedError):
        save(ERLPBoostClassifier(), tmp_path / "m")
    with pytest.raises(ValueError, match="cannot be written to a model file"):
        save(GradientProjectionClassifier(n_estimators=5).fit(X, y), tmp_path / "m")
    with pytest.raises(ValueError, match="cannot be written to a model file"):
        save(DecisionTreeClassifier().fit(X, y), tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_skops_absent(tmp_path, data, monkeypatch):
    X, y, X_new = data
    trees = ERLPBoostClassifier(oracle=DecisionTreeClassifier(max_depth=1), eps=0.1).fit(X, y)
    trees_file = save(trees, tmp_path / "trees")
    stumps = ERLPBoostClassifier(eps=0.1).fit(X, y)
    monkeypatch.setitem(sys.modules, "skops.io", None)  # import skops.io raises ImportError
    monkeypatch.setitem(sys.modules, "skops", None)
    with pytest.raises(ImportError, match=r"dualboost\[models\]"):
        save(trees, tmp_path / "again")
    with pytest.raises(ImportError, match=r"dualboost\[models\]"):
        load(trees_file)
    _same_predictions(stumps, load(save(stumps, tmp_path / "stumps")), X_new)  # no skops needed


class _UserTree(DecisionTreeClassifier):
    """A member type of the user's own: never trusted by default, by skops or by dualboost."""


def test_untrusted_member_types_are_refused(tmp_path, data, monkeypatch):
    X, y, X_new = data
    fitted = ERLPBoostClassifier(oracle=_UserTree(max_depth=1), eps=0.1).fit(X, y)
    path = save(fitted, tmp_path / "trees")
    import skops.io as sio

    untrusted = sio.get_untrusted_types(data=sio.dumps(fitted.hypotheses_[0].estimator))
    assert any("_UserTree" in name for name in untrusted)
    with pytest.raises(ValueError, match="trusted"):
        load(path)
    _same_predictions(fitted, load(path, trusted=untrusted), X_new)


def test_save_and_load_methods_of_the_classifiers(tmp_path):
    """``clf.save(path)`` and ``Class.load(path)`` are the module's functions; loading a file of
    another class through a class's ``load`` is a ValueError naming both."""
    from dualboost.estimators import ERLPBoostClassifier, LPBoostClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 4))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=80) > 0, "yes", "no")
    clf = ERLPBoostClassifier(eps=0.1).fit(X, y)
    path = clf.save(tmp_path / "model.npz")
    again = ERLPBoostClassifier.load(path)
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    with pytest.raises(ValueError, match="holds a ERLPBoostClassifier, not a LPBoostClassifier"):
        LPBoostClassifier.load(path)
