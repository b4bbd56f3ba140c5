"""Nothing is printed unless asked: no solver writes to stdout or stderr.

HiGHS, Clarabel, ECOS, SCS and L-BFGS-B write from compiled code straight to the file descriptors,
so these tests capture the descriptors (``capfd``), not ``sys.stdout``. highspy 1.16 prints its
banner once per process, when the first ``Highs`` object is built; a test inside this pytest
process may come after that first object, so one test runs the whole tour in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dualboost
from dualboost import problems
from dualboost.problems.relaxation_report import GAP_TOL as RELAXATION_METHODS
from dualboost.problems.relaxation_report import builtin_relaxation
from dualboost.solvers import METHODS, SIDES
from dualboost.verify import applies

#: data on which every exported estimator meets its stopping rule (so no warning is due either);
#: the corrective ones with eps = 0.1 (their default max_iter would stop them first)
SETUP = """
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=(100, 4))
y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
"""


def _estimator(name: str):
    est = getattr(dualboost, name)()
    if name.startswith("Corrective") or name == "MLPBoostClassifier":
        est.set_params(eps=0.1, max_iter=None)
    return est


#: the exported estimators that fit from their defaults (``reweight`` and its ``ReweightedClassifier``
#: need a fitted ensemble: test_reweight_prints_nothing)
ESTIMATORS = [
    name for name in dualboost.__all__ if name not in ("__version__", "reweight", "ReweightedClassifier")
]


def _w_prev(U: np.ndarray) -> np.ndarray:
    """The corrective subproblems' previous weights: uniform over all columns but the last."""
    return np.full(U.shape[1] - 1, 1.0 / (U.shape[1] - 1))


#: one model of every family, on an N x t edge matrix U
MODELS = {
    "LPBoost": lambda U: problems.LPBoost(U, nu=3),
    "SoftBoost": lambda U: problems.SoftBoost(U, nu=3, gamma_hat=0.5, eps=0.01),
    "ERLPBoost": lambda U: problems.ERLPBoost(U, nu=3, eta=20),
    "BinaryERLPBoost": lambda U: problems.BinaryERLPBoost(U, nu=3, eta=20),
    "CorrectiveERLPBoost": lambda U: problems.CorrectiveERLPBoost(U, _w_prev(U), nu=3, eta=20),
    "CorrectiveBinaryERLPBoost": lambda U: problems.CorrectiveBinaryERLPBoost(U, _w_prev(U), nu=3, eta=20),
}


def test_a_fresh_process_prints_nothing():
    """The whole tour: import dualboost, fit every estimator, solve a model of every family with
    every method on every side it applies to, verify a relaxation; stdout and stderr stay empty."""
    script = SETUP + textwrap.dedent(
        """
        import dualboost
        from dualboost.problems.relaxation_report import builtin_relaxation
        from dualboost.solvers import METHODS, SIDES
        from dualboost.verify import applies
        from tests import test_quiet as t
        for name in t.ESTIMATORS:
            est = t._estimator(name)
            est.fit(X, X[:, 0] if name.endswith("Regressor") else y)
        for make in t.MODELS.values():
            model = make(rng.uniform(-1, 1, size=(30, 8)))
            for method in METHODS:
                for side in SIDES:
                    if applies(model, method, side):
                        assert model.solve(method=method, side=side).status == "optimal"
        assert builtin_relaxation("l2-ball+entropy").verify().passed
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=str(Path(__file__).resolve().parents[1]),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""


def test_verify_json_to_stdout_is_valid_json_in_a_fresh_process():
    """``dualboost verify --json -``: the first HiGHS object of the process must not put its banner
    into the JSON."""
    done = subprocess.run(
        [sys.executable, "-m", "dualboost.cli", "verify", "--models", "lpboost", "--json", "-", "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert {row["method"] for row in rows} >= {"highs", "clarabel"}
    assert "HiGHS" not in done.stderr


@pytest.mark.parametrize("name", ESTIMATORS)
def test_fit_prints_nothing(name, capfd):
    namespace: dict = {}
    exec(SETUP, namespace)
    X, y = namespace["X"], namespace["y"]
    est = _estimator(name)
    est.fit(X, X[:, 0] if name.endswith("Regressor") else y)
    est.predict(X)
    assert capfd.readouterr() == ("", "")


def test_reweight_prints_nothing(capfd):
    """``dualboost.reweight`` of a fitted forest (one certified solve) and its classifier's predict."""
    from sklearn.ensemble import RandomForestClassifier

    namespace: dict = {}
    exec(SETUP, namespace)
    X, y = namespace["X"], namespace["y"]
    forest = RandomForestClassifier(n_estimators=20, max_depth=2, random_state=0).fit(X, y)
    capfd.readouterr()
    for model in ("lpboost", "erlpboost"):
        dualboost.reweight(forest, X, y, model=model).predict(X)
    assert capfd.readouterr() == ("", "")


def _instance(family: str):
    return MODELS[family](np.random.default_rng(1).uniform(-1, 1, size=(30, 8)))


#: every (family, method, side) where the method applies (dualboost.verify.applies)
SOLVES = [
    (family, method, side)
    for family in MODELS
    for method in METHODS
    for side in SIDES
    if applies(_instance(family), method, side)
]


@pytest.mark.parametrize("family, method, side", SOLVES)
def test_solve_prints_nothing(family, method, side, capfd):
    model = _instance(family)
    sol = model.solve(method=method, side=side)
    assert sol.status == "optimal"
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize("method", RELAXATION_METHODS)
def test_relaxation_solve_prints_nothing(method, capfd):
    rel = builtin_relaxation("l2-ball+entropy")
    for side in SIDES:
        assert rel.solve(method=method, side=side).status == "optimal"
    assert capfd.readouterr() == ("", "")
