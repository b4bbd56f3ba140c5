"""method="auto" (dualboost.solvers.auto, docs/solvers.md#auto): the first method of ORDER that applies
and certifies, the next one where it does not; checked against cvxpy + Clarabel's certified values."""

import numpy as np
import pytest

import dualboost.conjugates as cj
from dualboost.problems import (
    CGBoost,
    ERLPBoost,
    LPBoost,
    MDBoost,
    NMBoost,
    QRLPBoost,
    Relaxation,
    SoftBoost,
)
from dualboost.solvers import AUTO, METHODS, REGISTRY, Method, Solution, accepts, auto


def _edges(n=40, t=12, seed=0):
    return np.sign(np.random.default_rng(seed).normal(size=(n, t)))


#: (model, the method auto must choose on the dual side): the specialised method of each family
CASES = [
    (lambda U: LPBoost(U, nu=4), "highs"),
    (lambda U: NMBoost(U, lam=0.01, tau=0.1), "highs"),
    (lambda U: CGBoost(U, C=1.0), "highs"),
    (lambda U: ERLPBoost(U, nu=4, eta=20.0), "auglag"),
    (lambda U: ERLPBoost(U, nu=1, eta=1e6), "auglag"),  # the extremes of [KG]: nu = 1, large eta
    (lambda U: ERLPBoost(U, nu=U.shape[0], eta=5.0), "auglag"),  # nu = N: d uniform
    (lambda U: QRLPBoost(U, nu=4, eta=20.0), "auglag"),
    (lambda U: MDBoost(U, D=1.0), "auglag"),
    (lambda U: SoftBoost(U, nu=4, gamma_hat=0.3, eps=0.05), "auglag"),
    (lambda U: Relaxation(U, cj.RelativeEntropy() + 0.1 * cj.HalfSquaredNorm(p=2)), "auglag"),
]


@pytest.mark.parametrize("make, expected", CASES)
def test_auto_chooses_the_specialised_method_and_matches_clarabel(make, expected):
    """The chosen method is reported (Solution.method and extra["auto"]), the solution is certified by
    the model, and its value is Clarabel's to the certificate's tolerance (both are certified within
    tol = 1e-6 relative, so they agree within 2e-6 relative)."""
    model = make(_edges())
    found = model.solve(AUTO, side="dual")
    assert found.status == "optimal" and found.method == expected
    assert found.extra["auto"] == [f"{expected}: optimal (gap {found.gap:.3g})"]
    reference = model.solve("clarabel", side="dual")
    assert reference.status == "optimal"
    scale = max(1.0, abs(reference.primal_value))
    assert found.primal_value == pytest.approx(reference.primal_value, abs=2e-6 * scale)


def test_primal_side_of_a_smooth_model_is_solved_on_its_dual():
    """Asked for the primal side, auto still takes auglag (it solves the dual: the certified pair is
    the same pair) before any interior-point method; a model without a smooth dual gets HiGHS or
    Clarabel on the primal side."""
    U = _edges()
    found = ERLPBoost(U, nu=4, eta=20.0).solve(AUTO, side="primal")
    assert (found.method, found.side, found.status) == ("auglag", "dual", "optimal")
    found = CGBoost(U, C=1.0).solve(AUTO, side="primal")  # HiGHS's QP is on CGBoost's dual side only
    assert (found.method, found.side, found.status) == ("clarabel", "primal", "optimal")
    assert accepts(CGBoost(U, C=1.0), AUTO, "primal") is None


def _failing(name: str, error: type[Exception] | None) -> Method:
    """A method that applies to everything and fails: raises ``error``, or returns an uncertified point."""

    def run(model, side, tol, warm_start, options, **kwargs):
        if error is not None:
            raise error("numerical breakdown")
        good = REGISTRY["clarabel"].run(model, side, tol, None, None)
        return Solution(good.d, good.w, good.primal_value, good.dual_value, 1.0, "inaccurate", name, side)

    return Method(name, run, lambda model, side: None)


@pytest.mark.parametrize("error", [RuntimeError, ArithmeticError, None])
def test_a_failing_method_hands_over_to_the_next(error):
    """A registry whose HiGHS raises (or returns a point the model does not certify): auto goes on to
    the next method that applies and reports both attempts."""
    registry = dict(REGISTRY) | {"highs": _failing("highs", error)}
    model = LPBoost(_edges(), nu=4)
    found = auto.run(registry, model, "dual", 1e-6, None, None)
    assert found.status == "optimal" and found.method == "clarabel"
    assert found.extra["auto"][0].startswith("highs: ")
    assert found.extra["auto"][1].startswith("clarabel: optimal")


def test_nothing_certified_returns_the_best_uncertified_with_every_attempt():
    registry = {name: _failing(name, None if name == "ecos" else RuntimeError) for name in auto.ORDER}
    found = auto.run(registry, LPBoost(_edges(), nu=4), "dual", 1e-6, None, None)
    assert found.status == "inaccurate" and found.method == "ecos"
    assert "certified no solution" in found.message and len(found.extra["auto"]) == len(auto.ORDER)
    registry = {name: _failing(name, RuntimeError) for name in auto.ORDER}
    failed = auto.run(registry, LPBoost(_edges(), nu=4), "dual", 1e-6, None, None)
    assert failed.status == "failed" and failed.w is None and "highs: RuntimeError" in failed.message


def test_auglag_options_only_where_auglag_applies():
    from dualboost.solvers import AuglagOptions

    U = _edges()
    with pytest.raises(ValueError, match="max_iter steer method='auglag'"):
        LPBoost(U, nu=4).solve(AUTO, max_iter=10)
    found = ERLPBoost(U, nu=4, eta=20.0).solve(AUTO, options=AuglagOptions(), max_iter=500)
    assert found.status == "optimal" and found.method == "auglag"
    with pytest.raises(ValueError, match="method must be one of .*'auto'"):
        LPBoost(U, nu=4).solve("fastest")
    assert AUTO not in METHODS  # the methods auto chooses from (verify runs each of them)


def test_estimators_and_the_cli_take_auto(tmp_path, capsys):
    """method="auto" in a classifier fits what its default method fits (the defaults are the
    specialised methods), and `dualboost boost --method auto` runs."""
    from sklearn.datasets import dump_svmlight_file, make_classification

    from dualboost import ERLPBoostClassifier, LPBoostClassifier
    from dualboost.cli import main

    X, y = make_classification(n_samples=150, n_features=6, random_state=0)
    for cls in (ERLPBoostClassifier, LPBoostClassifier):
        chosen = cls(nu=0.1, method="auto").fit(X, y)
        default = cls(nu=0.1).fit(X, y)
        assert chosen.result_.params["method"] == "auto"
        assert np.array_equal(chosen.decision_function(X), default.decision_function(X))
    path = tmp_path / "d.libsvm"
    dump_svmlight_file(X, y, str(path))
    assert main(["boost", str(path), "--nu", "0.1", "--method", "auto", "--quiet"]) == 0
    assert "method = auto" in capsys.readouterr().out
