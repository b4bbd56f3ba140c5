"""The main estimators on dask arrays, on a LocalCluster with two worker processes.

``ERLPBoostClassifier(oracle="stumps", method="auglag")`` fitted on dask X, y is compared with the same
estimator fitted on the numpy arrays (the in-memory driver, an independent code path): both are exact
up to rounding, so the weights and decision values agree far below 1e-8 and a wrong reduction or
parameter shows up as an O(1) difference or a different hypothesis list. Every other estimator must
refuse dask input with a ValueError naming X, without computing it (its X raises when computed).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
from distributed import get_task_stream  # noqa: E402

from dualboost import (  # noqa: E402
    AdaBoostOLClassifier,
    BinaryERLPBoostClassifier,
    CorrectiveBinaryERLPBoostClassifier,
    CorrectiveERLPBoostClassifier,
    ERLPBoostClassifier,
    GradientProjectionClassifier,
    GradientProjectionRegressor,
    LPBoostClassifier,
    MABoostClassifier,
    MadaBoostClassifier,
    OnlineBBMClassifier,
    SoftBoostClassifier,
    SparseBoostClassifier,
)
from dualboost.estimators.dask import DaskERLPBoostClassifier  # noqa: E402
from dualboost.oracles import DecisionStumps  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOL = 1e-8


@pytest.fixture(scope="module")
def client(dask_client):
    """Two worker processes; the Client is the default one, which the estimators use (client=None)."""
    return dask_client


@pytest.fixture(scope="module")
def data():
    """Rounded features (ties, as binned data has) and string labels; uneven row chunks."""
    rng = np.random.default_rng(2)
    X = np.round(rng.normal(size=(240, 6)), 1)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.4 * rng.normal(size=240) > 0, "spam", "ham")
    return X, y, da.from_array(X, chunks=((100, 140), (3, 3))), da.from_array(y, chunks=((100, 140),))


def _explode(block):
    raise RuntimeError("a dask input was computed")


def _untouchable(X):
    """A dask array that raises RuntimeError when any of it is computed."""
    return da.from_array(X, chunks=(60, X.shape[1])).map_blocks(_explode, dtype=np.float64)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter=4 below
@pytest.mark.parametrize(
    "params",
    [
        {"nu": 0.2, "eps": 0.3},
        # every parameter the Dask path takes from the estimator, away from its default
        {"nu": 0.05, "eps": 0.2, "eta": 40.0, "criterion": "simple", "max_iter": 4,
         "oracle": DecisionStumps()},
    ],
)
def test_erlpboost_on_dask_equals_numpy(client, data, params):
    X, y, Xd, yd = data
    want = ERLPBoostClassifier(**params).fit(X, y)
    with get_task_stream(client) as stream:
        got = ERLPBoostClassifier(**params).fit(Xd, yd)
    assert {task["worker"] for task in stream.data} == set(client.scheduler_info()["workers"])
    assert list(got.classes_) == ["ham", "spam"]
    assert got.n_iter_ == want.n_iter_ and got.converged_ == want.converged_
    assert got.hypotheses_ == want.hypotheses_
    np.testing.assert_allclose(got.estimator_weights_, want.estimator_weights_, atol=TOL)
    assert got.nu_ == want.nu_ and got.eta_ == want.eta_ and got.n_features_in_ == 6
    np.testing.assert_allclose(got.history_["primal"], want.history_["primal"], atol=want.eps / 8)
    f = got.decision_function(Xd)
    assert isinstance(f, da.Array) and f.chunks == ((100, 140),)
    np.testing.assert_allclose(f.compute(), want.decision_function(X), atol=TOL)
    pred = got.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), want.predict(X))
    np.testing.assert_array_equal(got.predict(X), want.predict(X))  # numpy in, numpy out
    for labels in (yd, y):  # dask or numpy labels beside a dask X
        margins = got.margins(Xd, labels)
        assert isinstance(margins, da.Array)
        np.testing.assert_allclose(margins.compute(), want.margins(X, y), atol=TOL)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter, for speed
def test_dask_y_with_numpy_X_and_bad_inputs(client, data):
    X, y, Xd, yd = data
    want = ERLPBoostClassifier(eps=0.3, max_iter=3).fit(X, y)
    got = ERLPBoostClassifier(eps=0.3, max_iter=3).fit(X, yd)  # y is computed (X is in memory already)
    assert got.hypotheses_ == want.hypotheses_
    np.testing.assert_allclose(got.estimator_weights_, want.estimator_weights_, atol=TOL)
    np.testing.assert_allclose(got.margins(X, yd), want.margins(X, y), atol=TOL)
    # row chunks of unknown size (boolean indexing) are measured first
    keep = X[:, 2] > -0.5
    mask = da.from_array(keep, chunks=((100, 140),))
    assert np.isnan(Xd[mask].chunks[0][0])
    # a fixed nu: nu="auto" holds out whole row blocks of a dask X, rows of an in-memory one
    want = ERLPBoostClassifier(nu=0.3, eps=0.3, max_iter=3).fit(X[keep], y[keep])
    got = ERLPBoostClassifier(nu=0.3, eps=0.3, max_iter=3).fit(Xd[mask], yd[mask])
    assert got.hypotheses_ == want.hypotheses_
    np.testing.assert_allclose(got.estimator_weights_, want.estimator_weights_, atol=TOL)
    margins = got.margins(Xd[mask], yd[mask]).compute()
    np.testing.assert_allclose(margins, want.margins(X[keep], y[keep]), atol=TOL)
    # parameters are checked before any of X is computed
    for params, name in (({"eps": -1.0}, "eps"), ({"nu": 1.5}, "nu"), ({"max_iter": 0}, "max_iter")):
        with pytest.raises(ValueError, match=name):
            ERLPBoostClassifier(**params).fit(_untouchable(X), yd)
    with pytest.raises(ValueError, match="two classes"):  # one class (K > 2: tests/dask/test_multiclass.py)
        ERLPBoostClassifier().fit(Xd, da.from_array(np.full(240, 3), chunks=80))
    with pytest.raises(ValueError, match="2-D"):
        ERLPBoostClassifier().fit(Xd[:, 0], yd)
    with pytest.raises(ValueError, match="X must have 6 features"):
        want.decision_function(Xd[:, :4])
    bad = yd.copy()
    bad[5] = "eggs"
    with pytest.raises(ValueError, match="classes_"):  # raised on the worker, when computed
        want.margins(Xd, bad).compute()


@pytest.mark.parametrize("cls", [LPBoostClassifier, SoftBoostClassifier, CorrectiveERLPBoostClassifier])
def test_in_memory_fits_predict_dask_blockwise(client, data, cls):
    X, y, Xd, _ = data
    clf = cls(nu=0.2, eps=0.2).fit(X, y)
    np.testing.assert_allclose(clf.decision_function(Xd).compute(), clf.decision_function(X), atol=TOL)
    np.testing.assert_array_equal(clf.predict(Xd).compute(), clf.predict(X))


UNSUPPORTED = [
    LPBoostClassifier(),
    SoftBoostClassifier(),
    BinaryERLPBoostClassifier(),
    CorrectiveERLPBoostClassifier(),
    CorrectiveBinaryERLPBoostClassifier(),
    ERLPBoostClassifier(oracle="raw"),
    ERLPBoostClassifier(method="clarabel"),
    ERLPBoostClassifier(checkpoint="run.ckpt"),
    MABoostClassifier(),
    SparseBoostClassifier(),
    MadaBoostClassifier(),
    OnlineBBMClassifier(),
    AdaBoostOLClassifier(),
    GradientProjectionClassifier(),
    GradientProjectionRegressor(),
]


@pytest.mark.parametrize("estimator", UNSUPPORTED, ids=lambda e: re.sub(r"\s+", "", repr(e)))
def test_unsupported_estimators_refuse_dask_input(data, estimator):
    """No cluster needed: the error comes before any task (the X here raises RuntimeError if computed)."""
    X, y, _, yd = data
    with pytest.raises(ValueError) as err:
        estimator.fit(_untouchable(X), y)
    message = str(err.value)
    assert "X is a dask array" in message and "X.compute()" in message
    assert "ERLPBoostClassifier(oracle='stumps', method='auglag')" in message
    with pytest.raises(ValueError, match="y is a dask array") as err:
        estimator.fit(X, yd)
    assert "X.compute()" in str(err.value)
    if hasattr(estimator, "partial_fit"):
        with pytest.raises(ValueError, match=r"X.blocks.*X is a dask array"):
            estimator.partial_fit(_untouchable(X), y)


def test_other_dask_collections_are_refused(data):
    X, y, _, _ = data
    with pytest.raises(ValueError, match="X is a Dask collection.*to_dask_array"):
        LPBoostClassifier().fit(dask.delayed(X), y)
    with pytest.raises(ValueError, match="X must be a dask array"):
        ERLPBoostClassifier().fit(dask.delayed(X), y)


@pytest.mark.filterwarnings("ignore:Class DaskERLPBoostClassifier is deprecated:FutureWarning")
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # max_iter, for speed
def test_dask_class_shares_the_fit(client, data):
    """DaskERLPBoostClassifier (same fit function) agrees with ERLPBoostClassifier on dask input."""
    _, _, Xd, yd = data
    a = DaskERLPBoostClassifier(nu=0.2, eps=0.3, max_iter=2).fit(Xd, yd)
    b = ERLPBoostClassifier(nu=0.2, eps=0.3, max_iter=2).fit(Xd, yd)
    assert a.hypotheses_ == b.hypotheses_ and a.n_iter_ == b.n_iter_
    np.testing.assert_allclose(a.estimator_weights_, b.estimator_weights_, atol=1e-14)


def test_docs_example_runs_on_the_cluster(client, capsys):
    """The example of docs/dask.md's section, run with the module's cluster as the default client."""
    text = (ROOT / "docs" / "dask.md").read_text()
    block = re.search(r"## The main estimators take dask arrays.*?```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    with get_task_stream(client) as stream:
        exec(compile(block, "docs/dask.md", "exec"), namespace)  # noqa: S102
    assert stream.data, "the example's fit ran on the cluster"
    clf, ref = namespace["clf"], namespace["ref"]
    assert clf.hypotheses_ == ref.hypotheses_ and clf.n_iter_ == ref.n_iter_
    np.testing.assert_allclose(clf.estimator_weights_, ref.estimator_weights_, atol=TOL)
    assert "LPBoostClassifier; X and y are dask arrays" in capsys.readouterr().out
    assert namespace["lp"].n_iter_ >= 1


def test_without_dask_installed():
    """dualboost's estimators import and fit without dask (dask and distributed made unimportable)."""
    code = (
        "import sys\n"
        "sys.modules['dask'] = sys.modules['distributed'] = None\n"
        "import numpy as np\n"
        "from dualboost import ERLPBoostClassifier, LPBoostClassifier, AdaBoostOLClassifier\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.normal(size=(80, 3)); y = (X[:, 0] > 0).astype(int)\n"
        "for cls in (ERLPBoostClassifier, LPBoostClassifier, AdaBoostOLClassifier):\n"
        "    clf = cls().fit(X, y)\n"
        "    assert (clf.predict(X) == y).mean() > 0.8\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['dask', 'distributed']"  # only the two blocked entries
