"""The shortcuts of a totally corrective iteration outside the solve compute what the long way does, bit
for bit: the regulariser's value of the certificate taken again for the stopping rule's P^t(d^{t-1})
(``LastValue``); the +-1 columns checked and compacted in one pass (``Ensemble.add``), a decision-stump
oracle's stored unchecked (``Ensemble.add(selection, unit=True)``); the certified d given to the
decision-stump oracle without its checks (``Oracle.best(d, checked=True)``); the entropy models'
shallow copy made directly (``EntropyRegularised.__copy__``); and, to 1e-13 (the same sums in
another order), the stopping rule's P^t(d^{t-1}) from the last solve's primal value and the new
column (``EntropyRegularized._grown_primal``).

Independent computation: the same fit with the shortcut disabled (the long way, monkeypatched in),
compared entry for entry (weights, d, decision function, every history value but the times), and
the regulariser's own ``value`` at a fresh copy of d.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

import dualboost.boosting.core.run as run_module
import dualboost.oracles.base as oracle_base
from dualboost.boosting import binary_erlpboost, erlpboost
from dualboost.boosting.core.run import Ensemble, Run
from dualboost.boosting.totally_corrective.drivers import EntropyRegularized
from dualboost.oracles import Constant, DecisionStumps, RawFeature, Selection, Stump
from dualboost.problems import BinaryERLPBoost, ERLPBoost, MaxEdgeModel, TemperedERLPBoost
from dualboost.problems.max_edge import LastValue
from dualboost.solvers import AuglagOptions, NewtonOptions, default_options

HISTORY = ("edge", "primal", "dual", "gap", "stopping", "n_hypotheses")


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rows = np.random.default_rng(1).permutation(X.shape[0])[:240]
    return X[rows], np.where(y[rows] == 1, 1.0, -1.0)


def _fit(driver, X, y, nu, compiled):
    oracle = DecisionStumps().fit(X, y)
    with default_options(AuglagOptions(newton=NewtonOptions(compiled=compiled))), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return driver(oracle, nu=nu, eps=0.02)


def _same_bits(a, b, X) -> None:
    assert a.n_iter == b.n_iter and a.stop_reason == b.stop_reason
    assert a.weights.tobytes() == b.weights.tobytes()
    assert a.d.tobytes() == b.d.tobytes()
    assert a.decision_function(X).tobytes() == b.decision_function(X).tobytes()
    for name in HISTORY:
        assert a.history[name].tobytes() == b.history[name].tobytes(), name


def _long_way(self, regularizer, d):
    return regularizer.value(d)


@pytest.mark.parametrize("driver", [erlpboost, binary_erlpboost])
@pytest.mark.parametrize("nu", [1.0, 24.0, 120.0])
@pytest.mark.parametrize("compiled", ["auto", False])
def test_kept_regularizer_value_gives_the_same_fit(data, monkeypatch, driver, nu, compiled):
    X, y = data
    if driver is binary_erlpboost and nu == 1.0:
        nu = 2.0
    short = _fit(driver, X, y, nu, compiled)
    calls = []
    original = LastValue.value

    def counted(self, regularizer, d):
        entry = self.entry
        calls.append(entry is not None and entry[0] is regularizer and entry[1][2] == d.tobytes())
        return original(self, regularizer, d)

    monkeypatch.setattr(LastValue, "value", counted)
    _fit(driver, X, y, nu, compiled)
    assert sum(calls) >= short.n_iter - 1  # every stopping rule after the first took the certificate's
    monkeypatch.setattr(LastValue, "value", _long_way)
    _same_bits(short, _fit(driver, X, y, nu, compiled), X)


def test_last_value_is_the_regularizers_value_at_that_d():
    rng = np.random.default_rng(3)
    U = rng.choice([-1.0, 1.0], size=(50, 4))
    model = ERLPBoost(U, nu=5.0, eta=30.0)
    d = rng.dirichlet(np.ones(50)) * 0.5 + 0.01
    d /= d.sum()
    first = model.regularizer_value(d)
    assert first == model.regularizer.value(d.copy())
    assert model.regularizer_values.entry[1][2] == d.tobytes()  # a copy: d may change in place
    d_copy = d.copy()
    assert model.regularizer_value(d_copy) == first
    strided = np.repeat(d, 2)[::2]
    assert model.regularizer_value(strided) == first
    # changed in place: evaluated again
    d[0], d[1] = d[1], d[0]
    assert model.regularizer_value(d) == model.regularizer.value(d.copy())
    # other bits (a -0.0, another dtype), the same entries: evaluated again (the same value)
    evaluated = []
    regularizer_value = model.regularizer.value
    zero = np.r_[0.0, d[1:]] / np.r_[0.0, d[1:]].sum()
    model.regularizer_value(zero)
    for other in (np.r_[-0.0, zero[1:]], zero.astype(np.longdouble)):
        model.regularizer.value = lambda x, f=regularizer_value: evaluated.append(1) or f(x)
        assert model.regularizer_value(other) == regularizer_value(other)
        del model.regularizer.value
        model.regularizer_value(zero)
    assert len(evaluated) == 2
    # the copies of the model share the values; another eta is another regulariser
    other = model.with_eta(60.0)
    assert other.regularizer_values is model.regularizer_values
    assert other.regularizer_value(d) == pytest.approx(model.regularizer_value(d) / 2.0, rel=1e-12)
    assert model.with_columns(U[:, :2]).regularizer_value(d) == model.regularizer.value(d.copy())
    # outside the domain: inf, as the regulariser says
    bad = np.full(50, 0.5)
    assert model.regularizer_value(bad) == np.inf == model.regularizer.value(bad)


def test_last_value_never_returns_a_value_for_nan():
    model = ERLPBoost(np.ones((3, 1)), nu=1.0, eta=2.0)
    d = np.full(3, 1 / 3)
    model.regularizer_value(d)
    d[0] = np.nan
    with pytest.raises(ValueError):
        model.regularizer_value(d)


def test_unit_columns_are_stored_as_the_checks_store_them(monkeypatch):
    """+-1 columns (float64, N entries; contiguous or strided) take the one-pass check; every other
    column (a 0, a fraction, NaN, float32, another length, a list) the checks; both store the same int8
    (or float64) entries, and the bad ones are refused as before."""
    rng = np.random.default_rng(5)
    n = 64
    unit = rng.choice([-1.0, 1.0], size=n)
    columns = [
        unit,
        rng.choice([-1.0, 1.0], size=2 * n)[::2],  # strided
        np.where(unit > 0, 1.0, 0.0),  # a 0: int8 by the checks
        unit.astype(np.float32),
        list(unit),
        np.where(unit > 0, 1.0, -0.5),  # fractional: float64 store
    ]

    def stored(shortcut: bool) -> list:
        if not shortcut:
            monkeypatch.setattr(run_module, "_unit_column", lambda column, n_samples: None)
        ensemble = Ensemble(n)
        for j, column in enumerate(columns):
            ensemble.add(Selection(Stump(n_features=9, feature=j, threshold=0.5, sign=1), 0.0, column))
        monkeypatch.undo()
        return [ensemble.stored.dtype, ensemble.stored.tobytes(), np.asarray(ensemble.U).tobytes()]

    assert stored(True) == stored(False)
    assert run_module._unit_column(unit, n).dtype == np.int8
    assert run_module._unit_column(columns[1], n) is not None
    for other in columns[2:] + [unit[:-1]]:
        assert run_module._unit_column(other, n) is None
    bad = unit.copy()
    bad[3] = np.nan
    with pytest.raises(ValueError, match="finite"):
        Ensemble(n).add(Selection(Constant(n_features=9, sign=1), 0.0, bad))
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        Ensemble(n).add(Selection(RawFeature(n_features=9, feature=1, scale=1.0, sign=1), 0.0, 2 * unit))


@pytest.mark.parametrize("driver", [erlpboost, binary_erlpboost])
def test_a_stump_runs_columns_are_stored_unchecked(data, monkeypatch, driver):
    """The columns of a decision-stump oracle (all -1 or +1, made by the library) go into the ensemble
    without the checks (``Ensemble.add(selection, unit=True)``); stored as the checks store them
    (contiguous and strided +-1 columns alike), and the fit is the one whose every column was checked."""
    n = 64
    unit = np.random.default_rng(8).choice([-1.0, 1.0], size=2 * n)
    for column in (unit[:n], unit[::2]):
        kept, checked = Ensemble(n), Ensemble(n)
        selection = Selection(Constant(n_features=9, sign=1), 0.0, column)
        assert kept.add(selection, unit=True) == checked.add(selection) == (0, True)
        assert kept.stored.dtype == checked.stored.dtype == np.int8
        assert kept.stored.tobytes() == checked.stored.tobytes()
        assert np.asarray(kept.U).tobytes() == np.asarray(checked.U).tobytes()
    X, y = data
    checks = []
    for name in ("_unit_column", "_checked_column"):
        check = getattr(run_module, name)
        monkeypatch.setattr(run_module, name, lambda *a, check=check: checks.append(1) or check(*a))
    short = _fit(driver, X, y, 24.0, "auto")
    assert not checks and short.n_iter > 5
    add = Ensemble.add
    monkeypatch.setattr(Ensemble, "add", lambda self, selection, unit=False: add(self, selection))
    long = _fit(driver, X, y, 24.0, "auto")
    assert len(checks) >= long.n_iter - 1  # every new column checked
    _same_bits(short, long, X)


@pytest.mark.parametrize("driver", [erlpboost, binary_erlpboost])
def test_the_oracle_checks_only_the_first_d_of_an_entropy_run(data, monkeypatch, driver):
    """The entropy family's pricing after the first iteration is the certified re-solve's d: the
    decision-stump oracle takes it unchecked, and the fit is the one whose every d was checked."""
    X, y = data
    checks = []
    check = oracle_base.check_weights
    monkeypatch.setattr(oracle_base, "check_weights", lambda *a, **k: checks.append(1) or check(*a, **k))
    short = _fit(driver, X, y, 24.0, "auto")
    assert len(checks) == 1 and short.n_iter > 5  # d^0 only
    ask = Run.ask
    monkeypatch.setattr(Run, "ask", lambda self, d, signed=False, checked=False: ask(self, d, signed))
    checks.clear()
    long = _fit(driver, X, y, 24.0, "auto")
    assert len(checks) == long.n_iter
    _same_bits(short, long, X)


@pytest.mark.parametrize("driver", [erlpboost, binary_erlpboost])
@pytest.mark.parametrize("nu", [1.0, 24.0])
def test_the_stopping_rule_grows_the_last_solves_primal(data, monkeypatch, driver, nu):
    """The stopping rule's ``P^t(d^{t-1})`` from the last certified solve's primal value and the new
    column alone (``EntropyRegularized._grown_primal``), taken at every iteration after the first
    (only d^0's ``primal_objective`` is evaluated), against ``primal_objective`` over all t columns
    (the shortcut turned off): the same fit bit for bit (weights, d, iterations), and every recorded
    stopping value within 1e-13 (the same sums in another order: ~N ulps of values of size 1,
    N = 240); the other history fields bit for bit."""
    X, y = data
    grown, before = EntropyRegularized._grown_primal, EntropyRegularized.before
    taken, rule, full = [], [], []

    def counted(self, *args):
        value = grown(self, *args)
        taken.append(value is not None)
        return value

    def in_rule(self, *args):
        rule.append(True)
        try:
            return before(self, *args)
        finally:
            rule.pop()

    def edges(self, d):  # the stopping rule's passes over all t columns
        full.extend(rule)
        return edges_of(self, d)

    edges_of = MaxEdgeModel._edges
    monkeypatch.setattr(EntropyRegularized, "before", in_rule)
    monkeypatch.setattr(MaxEdgeModel, "_edges", edges)
    monkeypatch.setattr(EntropyRegularized, "_grown_primal", counted)
    short = _fit(driver, X, y, nu, "auto")
    assert len(taken) == short.n_iter > 5 and not taken[0] and all(taken[1:]) and len(full) == 1
    monkeypatch.setattr(EntropyRegularized, "_grown_primal", lambda self, *args: None)
    long = _fit(driver, X, y, nu, "auto")
    assert len(full) == 1 + long.n_iter
    assert short.n_iter == long.n_iter and short.weights.tobytes() == long.weights.tobytes()
    assert short.d.tobytes() == long.d.tobytes()
    np.testing.assert_allclose(short.history["stopping"], long.history["stopping"], rtol=0, atol=1e-13)
    for name in set(HISTORY) - {"stopping"}:
        assert short.history[name].tobytes() == long.history[name].tobytes(), name


def test_a_users_d_is_always_checked(data):
    """``best(d)`` refuses bad weights as before; ``checked=True`` gives the same answer for good ones."""
    X, y = data
    oracle = DecisionStumps().fit(X, y)
    n = X.shape[0]
    for bad in (np.full(n, np.nan), -np.ones(n) / n, np.zeros(n), np.ones(n + 1) / n):
        with pytest.raises(ValueError):
            oracle.best(bad)
    d = np.random.default_rng(6).dirichlet(np.ones(n))
    mine, checked = oracle.best(d), oracle.best(d, checked=True)
    assert mine.hypothesis == checked.hypothesis and mine.edge == checked.edge
    assert mine.column.tobytes() == checked.column.tobytes()


@pytest.mark.parametrize(
    "make", [ERLPBoost, BinaryERLPBoost, lambda U, **k: TemperedERLPBoost(U, t=0.5, **k)]
)
def test_the_models_shallow_copy_is_the_one_copy_makes_by_reduce(make):
    """``copy.copy`` of an entropy model (``__copy__``) equals the copy through ``__reduce_ex__`` (what
    copy.copy made before): the same type and the same attributes, shared, in a new instance."""
    U = np.random.default_rng(7).choice([-1.0, 1.0], size=(20, 3))
    model = make(U, nu=2.0, eta=4.0).with_columns(U[:, :2])
    model.regularizer_value(np.full(20, 0.05))
    mine = copy.copy(model)
    reference = copy._reconstruct(model, None, *model.__reduce_ex__(4))
    assert type(mine) is type(reference) is type(model) and mine is not model
    assert list(mine.__dict__) == list(reference.__dict__) == list(model.__dict__)
    assert all(mine.__dict__[k] is reference.__dict__[k] is v for k, v in model.__dict__.items())
    mine.eta = 9.0
    assert model.eta == 4.0
