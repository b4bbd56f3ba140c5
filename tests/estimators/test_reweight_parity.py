"""Re-weighting at parity with the classifiers: every model of dualboost that is one
fit over a fixed pool (:data:`dualboost.estimators.reweight.MODELS`), ``predict_proba`` and the staged
predictions.

Each model's certified solution is compared with an independent solve of the same model over an edge
matrix rebuilt here from the members' votes, by a second solver (Clarabel through cvxpy, on the other
side of the duality): both certificates bracket the optimal value, so their values must agree to the
sum of their certified gaps.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier

from dualboost.estimators import ReweightedClassifier, reweight
from dualboost.estimators.reweight import MODELS, NOT_MODELS
from dualboost.problems import BinaryERLPBoost, CGBoost, ERLPBoost, LPBoost, MDBoost, NMBoost, QRLPBoost

#: the model classes, built here with the fitted parameters (not through the estimator's own _model)
CLASSES = {
    "lpboost": LPBoost,
    "erlpboost": ERLPBoost,
    "binary_erlpboost": BinaryERLPBoost,
    "qrlpboost": QRLPBoost,
    "mdboost": MDBoost,
    "cgboost": CGBoost,
    "nmboost": NMBoost,
}
#: the re-weighting defaults that differ from the model class's own: NM-Boost's lam is 0.01 there (as
#: NMBoostClassifier's), 1 in :class:`~dualboost.problems.NMBoost`
DEFAULTS = {"nmboost": {"lam": 0.01}}
#: reweight certifies at a relative gap of 1e-7, Clarabel at its default 1e-6: the optimal value lies
#: in both certified brackets [dual, primal], so the two values differ by at most the sum of the gaps
#: (relative to max(1, |value|)), 1.1e-6; 2e-6 leaves room for the feasibility rounding of the points
VALUE_TOL = 2e-6


@pytest.fixture(scope="module")
def pool():
    """15 depth-2 trees, each on its own half of the training rows, and 80 re-weighting rows."""
    X, y = make_classification(n_samples=240, n_features=6, n_informative=3, flip_y=0.1, random_state=3)
    rng = np.random.default_rng(0)
    members = []
    for _ in range(15):
        rows = rng.choice(160, size=80, replace=False)
        members.append(DecisionTreeClassifier(max_depth=2, random_state=0).fit(X[rows], y[rows]))
    return members, X[160:], y[160:]


def _edge_matrix(members, X, y):
    """U[n, q] = y_n h_q(x_n) with the votes h = +1 for class 1, -1 for class 0 (output="predict")."""
    votes = np.column_stack([np.where(m.predict(X) == 1, 1.0, -1.0) for m in members])
    return np.where(y == 1, 1.0, -1.0)[:, None] * votes


def test_every_model_class_is_covered_and_the_others_are_refused():
    assert set(MODELS) == set(CLASSES)
    assert not set(MODELS) & set(NOT_MODELS)


@pytest.mark.parametrize("model", list(MODELS))
def test_each_model_is_certified_and_agrees_with_a_second_solver(model, pool):
    members, X, y = pool
    options = {"nu": 0.3} if model in ("lpboost", "erlpboost", "binary_erlpboost", "qrlpboost") else {}
    fitted = reweight(members, X, y, model=model, output="predict", **options)
    solution = fitted.solution_
    assert solution.status == "optimal" and solution.gap <= 1e-7
    parameters = {"nu": fitted.nu_} if "nu" in options else dict(DEFAULTS.get(model, {}))
    if hasattr(fitted, "eta_"):
        parameters["eta"] = fitted.eta_
    twin = CLASSES[model](_edge_matrix(members, X, y), **parameters)
    other = "dual" if solution.side == "primal" else "primal"
    check = twin.solve(method="clarabel", side=other)
    assert check.status == "optimal"
    scale = max(1.0, abs(check.primal_value))
    assert abs(solution.primal_value - check.primal_value) <= VALUE_TOL * scale
    assert abs(solution.dual_value - check.dual_value) <= VALUE_TOL * scale
    # the kept members carry the solution's weights, normalised
    w = solution.w[fitted.support_]
    np.testing.assert_allclose(fitted.estimator_weights_, w / w.sum(), rtol=1e-12)


@pytest.mark.parametrize("model", ["lpboost", "erlpboost", "mdboost", "nmboost"])
def test_predict_proba_sums_to_one_and_its_argmax_is_predict(model, pool):
    members, X, y = pool
    fitted = reweight(members, X, y, model=model)
    proba = fitted.predict_proba(X)
    assert proba.shape == (X.shape[0], 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_array_equal(fitted.classes_[proba.argmax(axis=1)], fitted.predict(X))
    # P(classes_[1]) increases with the decision function (the link of the classifiers)
    f = fitted.decision_function(X)
    order = np.argsort(f)
    assert np.all(np.diff(proba[order, 1]) >= -1e-15)
    np.testing.assert_allclose(np.log(proba), fitted.predict_log_proba(X), atol=1e-12)


def test_staged_predictions_add_the_members_by_decreasing_weight(pool):
    members, X, y = pool
    fitted = reweight(members, X, y, model="erlpboost", nu=0.3, output="predict")
    stages = list(fitted.staged_decision_function(X))
    kept = fitted.estimator_weights_.size
    assert kept > 1 and len(stages) == kept
    order = np.argsort(-fitted.estimator_weights_, kind="stable")
    votes = np.column_stack([h.predict(X) for h in fitted.hypotheses_])
    for k, f in enumerate(stages, start=1):  # stage k: the k heaviest members, renormalised
        w = fitted.estimator_weights_[order[:k]]
        np.testing.assert_allclose(f, votes[:, order[:k]] @ (w / w.sum()), atol=1e-12)
    np.testing.assert_allclose(stages[-1], fitted.decision_function(X), atol=1e-12)
    last = list(fitted.staged_predict(X))[-1]
    np.testing.assert_array_equal(last, fitted.predict(X))
    np.testing.assert_allclose(list(fitted.staged_predict_proba(X))[-1], fitted.predict_proba(X), atol=1e-12)
    assert list(fitted.staged_score(X, y))[-1] == pytest.approx(fitted.score(X, y))


def test_a_forest_with_the_default_nu_has_probabilities_and_stages():
    X, y = make_classification(n_samples=200, n_features=6, random_state=0)
    forest = RandomForestClassifier(n_estimators=20, max_depth=3, random_state=0).fit(X[:140], y[:140])
    for model in ("lpboost", "binary_erlpboost", "qrlpboost"):
        fitted = reweight(forest, X[140:], y[140:], model=model)  # nu="auto", the classifiers' default
        assert fitted.nu_selection_.how != "given"
        proba = fitted.predict_proba(X[:10])
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
        assert len(list(fitted.staged_predict(X[:10]))) == fitted.support_.size


@pytest.mark.parametrize("model", sorted(NOT_MODELS))
def test_a_model_that_is_no_fit_over_a_pool_is_refused_with_the_choices(model, pool):
    members, X, y = pool
    choices = "Choose one of lpboost, erlpboost, binary_erlpboost, qrlpboost, mdboost, cgboost, nmboost"
    with pytest.raises(ValueError, match=rf"model='{model}' cannot re-weight a fixed pool: .*{choices}"):
        reweight(members, X, y, model=model)


def test_unknown_models_and_options_of_other_models_are_refused(pool):
    members, X, y = pool
    with pytest.raises(ValueError, match="'model' parameter .* must be a str among"):
        reweight(members, X, y, model="adaboost")
    with pytest.raises(ValueError, match=r"nu=0.3 does not apply to model='mdboost' \(it applies to lpboost"):
        reweight(members, X, y, model="mdboost", nu=0.3)
    with pytest.raises(ValueError, match="C=2.0 does not apply to model='lpboost'"):
        reweight(members, X, y, model="lpboost", C=2.0)
    with pytest.raises(ValueError, match=r"nu must lie in \(0, 1\)"):
        reweight(members, X, y, model="binary_erlpboost", nu=1.0)


def test_the_formulations_options_reach_their_models(pool):
    members, X, y = pool
    U = _edge_matrix(members, X, y)
    cases = [("mdboost", "D", MDBoost), ("cgboost", "C", CGBoost), ("nmboost", "lam", NMBoost)]
    cases.append(("nmboost", "tau", NMBoost))
    for model, option, cls in cases:
        fitted = reweight(members, X, y, model=model, output="predict", **{option: 0.5})
        check = cls(U, **(DEFAULTS.get(model, {}) | {option: 0.5})).solve(method="clarabel", side="primal")
        value = check.primal_value
        assert abs(fitted.solution_.primal_value - value) <= VALUE_TOL * max(1, abs(value)), (model, option)


def test_predict_proba_survives_a_model_file(pool, tmp_path):
    from dualboost.estimators.persistence import load, save

    members, X, y = pool
    fitted = ReweightedClassifier(members, model="erlpboost", nu=0.3).fit(X, y)
    save(fitted, tmp_path / "m.model")
    loaded = load(tmp_path / "m.model")
    np.testing.assert_array_equal(loaded.predict_proba(X), fitted.predict_proba(X))
