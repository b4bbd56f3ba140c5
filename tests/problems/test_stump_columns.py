"""The implicit operator of decision-stump columns (``dualboost.problems.kernels.StumpColumns``)
against the explicit products with U it replaces, and ERLPBoost runs through it against the same
runs on the explicit U."""

import pickle

import numpy as np
import pytest

from dualboost.boosting import erlpboost
from dualboost.oracles import DecisionStumps
from dualboost.oracles.stumps import Constant, Stump
from dualboost.problems import ERLPBoost
from dualboost.problems.kernels import FACE_LIMIT, StumpColumns, StumpPasses, _added_features
from tests.problems.stump_operators import (
    assert_model_products_agree,
    counted_margins,
    explicit,
    grown_and_whole,
)


def test_the_compiled_passes_are_built():
    """CI runs the implicit products: the extension exists in an installed tree (no skip)."""
    from dualboost.problems import _stump_products as module

    assert callable(module.StumpPasses) and callable(module.stump_gram)


def always(monkeypatch):
    """The operator for any number of columns and rows (its thresholds set to 0)."""
    monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", 0)
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)


def random_stumps(rng, X, count):
    """Stumps with thresholds at data values (ties on both sides), between them, outside the range
    and repeated, and constants of both signs."""
    p = X.shape[1]
    hypotheses = [Constant(n_features=p, sign=1), Constant(n_features=p, sign=-1)]
    while len(hypotheses) < count:
        f = int(rng.integers(0, p))
        kind = rng.integers(0, 4)
        if kind == 0:
            threshold = float(rng.choice(X[:, f]))  # a data value: the tied rows are not above it
        elif kind == 1:
            threshold = float(rng.normal())
        elif kind == 2:
            threshold = float(X[:, f].max()) + 1.0 if rng.random() < 0.5 else float(X[:, f].min()) - 1.0
        else:
            threshold = hypotheses[-1].threshold if isinstance(hypotheses[-1], Stump) else 0.0
        hypotheses.append(Stump(n_features=p, feature=f, threshold=threshold, sign=int(rng.choice([-1, 1]))))
    return hypotheses


def data(rng, n):
    """Rounded features (many ties), a constant feature and one half zeros."""
    X = np.round(rng.normal(size=(n, 5)), 1)
    X[:, 2] = 0.5
    X[: n // 2, 3] = 0.0
    y = np.where(rng.random(n) < 0.4, -1.0, 1.0)
    return X, y


@pytest.mark.parametrize("n", [10, 10_000])
def test_products_equal_the_explicit_ones(monkeypatch, n):
    always(monkeypatch)  # made even for 15 columns
    rng = np.random.default_rng(n)
    X, y = data(rng, n)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 40)
    U = explicit(X, y, hypotheses)
    # built in two steps, as a run extends it (a new feature in the second part)
    first = StumpColumns.of(oracle, hypotheses[:15])
    operator = StumpColumns.of(oracle, hypotheses, first)
    assert operator.n_columns == U.shape[1]
    w, d, g = rng.normal(size=U.shape[1]), rng.normal(size=n), rng.random(n)  # signed w and d
    assert np.allclose(operator.margins(w), U @ w, rtol=0, atol=1e-12 * np.abs(w).sum())
    assert np.allclose(operator.edges(d), U.T @ d, rtol=0, atol=1e-12 * np.abs(d).sum())
    reference = U.T @ (g * (U @ w))
    assert np.allclose(operator.gram(w, g), reference, rtol=0, atol=1e-12 * np.abs(reference).max())
    columns = np.array([0, 3, 4, 17, 39])
    part = operator.restricted(columns)
    assert np.allclose(part.margins(w[columns]), U[:, columns] @ w[columns], rtol=0, atol=1e-12 * n)
    assert np.allclose(part.edges(d), U[:, columns].T @ d, rtol=0, atol=1e-12 * n)


def test_an_operator_with_its_compiled_passes_copies_and_pickles(monkeypatch):
    """The compiled passes (made on first use) are not part of the operator's state: a copy, a deep
    copy and a pickled operator make their own and give the same products bit for bit; a wrong
    length is a ValueError."""
    import copy
    import pickle

    always(monkeypatch)
    rng = np.random.default_rng(3)
    X, y = data(rng, 200)
    operator = StumpColumns.of(DecisionStumps().fit(X, y), random_stumps(rng, X, 20))
    w, d = rng.normal(size=20), rng.normal(size=200)
    margins, edges = operator.margins(w), operator.edges(d)
    for other in (copy.copy(operator), copy.deepcopy(operator), pickle.loads(pickle.dumps(operator))):
        np.testing.assert_array_equal(other.margins(w), margins)
        np.testing.assert_array_equal(other.edges(d), edges)
    with pytest.raises(ValueError, match="w must have 20 entries; got 19"):
        operator.margins(w[:-1])
    with pytest.raises(ValueError, match="d must have 200 entries; got 3"):
        operator.edges(d[:3])


def test_other_hypotheses_have_no_operator():
    rng = np.random.default_rng(0)
    X, y = data(rng, 30)
    oracle = DecisionStumps().fit(X, y)

    class Other(Constant):
        pass

    assert StumpColumns.of(oracle, [Constant(n_features=5, sign=1), Other(n_features=5, sign=1)]) is None


def model_pair(monkeypatch, rng, n, nu, eta):
    """An ERLPBoost model on the explicit U of 60 random stumps and constants, the same model with
    their operator (made for any size: ``always``), and a random w on the simplex."""
    X, y = data(rng, n)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 60)
    U = explicit(X, y, hypotheses)
    plain = ERLPBoost(U, nu=nu, eta=eta)
    always(monkeypatch)  # (before StumpColumns.of, which returns None where it does not pay)
    implicit = plain.with_columns(U)
    implicit.stump_columns = StumpColumns.of(oracle, hypotheses)
    assert implicit.stump_columns is not None
    w = rng.random(60)
    return plain, implicit, w / w.sum()


def test_model_products_through_the_operator(monkeypatch):
    """The smooth dual's value, gradient, objectives and Hessian-vector products of an ERLPBoost
    model with the operator equal those on the explicit U."""
    rng = np.random.default_rng(3)
    plain, implicit, w = model_pair(monkeypatch, rng, 500, nu=50.0, eta=20.0)
    assert_model_products_agree(plain, implicit, w, np.array([1, 5, 6, 30, 31, 59]), rng)
    # with_columns drops the operator: it belonged to the old columns
    assert implicit.with_columns(plain.U[:, :10]).stump_columns is None


@pytest.mark.parametrize(("seed", "nu", "eps"), [(0, 30.0, 0.02), (1, 30.0, 0.02), (2, 1.0, 0.01)])
def test_erlpboost_runs_match_the_explicit_ones(monkeypatch, seed, nu, eps):
    """A whole run with the products through the operator (from the first column on) takes the same
    hypotheses, iterations and certified gaps as the run on the explicit U."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 6))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=300) > 0.4, 1.0, -1.0)
    runs, calls = {}, counted_margins(monkeypatch, StumpColumns)
    for name, least in (("explicit", 10**9), ("implicit", 0)):
        monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", least)
        monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)
        oracle = DecisionStumps().fit(X, y)
        runs[name] = erlpboost(oracle, nu=nu, eps=eps)
        if name == "explicit":
            assert not calls  # the reference run never went through the operator
    a, b = runs["implicit"], runs["explicit"]
    assert len(calls) > a.n_iter  # the implicit run did, from its first columns on
    assert a.n_iter == b.n_iter
    assert a.hypotheses == b.hypotheses
    assert np.allclose(a.weights, b.weights, atol=1e-8)
    assert np.allclose(a.history["gap"], b.history["gap"], rtol=1e-6, atol=1e-10, equal_nan=True)
    assert a.converged and b.converged


def test_products_do_not_depend_on_how_the_operator_grew(monkeypatch):
    """Built at once or column by column (a resumed run against the uninterrupted one), the
    operator sums in the same order: bit-identical products."""
    always(monkeypatch)
    rng = np.random.default_rng(7)
    X, y = data(rng, 200)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 30)
    grown, whole = grown_and_whole(StumpColumns, oracle, hypotheses)
    assert grown.features == whole.features
    # extended by each new column, its feature slots moved as features came, or found at once
    for name in ("order", "position", "cut", "sign", "stumps", "constants", "stump_cut"):
        assert np.array_equal(getattr(grown, name), getattr(whole, name)), name
        assert getattr(grown, name).dtype == getattr(whole, name).dtype, name
    w, d = rng.normal(size=30), rng.normal(size=200)
    assert np.array_equal(grown.margins(w), whole.margins(w))
    assert np.array_equal(grown.edges(d), whole.edges(d))
    g = rng.random(200)  # the formed Hessians of a resumed run too
    assert np.array_equal(grown.weighted_gram(g), whole.weighted_gram(g))


def test_no_operator_where_it_does_not_pay(monkeypatch):
    """Fewer than MIN_COLUMNS_PER_FEATURE columns per feature used: None, and no sort order made."""
    monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", 0)
    rng = np.random.default_rng(5)
    X, y = data(rng, 100)
    oracle = DecisionStumps().fit(X, y)
    few = [Stump(n_features=5, feature=f, threshold=0.0, sign=1) for f in (0, 1, 3)] * 3  # 9 < 4 * 3
    assert StumpColumns.of(oracle, few) is None
    assert oracle.__dict__.get("_orders") == {}
    many = few * 2  # 18 >= 4 * 3
    assert StumpColumns.of(oracle, many).n_columns == 18


def test_no_products_for_a_small_matrix_and_the_gram_where_it_pays():
    """Below MIN_ENTRIES entries of U (a dense U in cache) the explicit products run; the operator is
    made for its Gram alone where that costs at most GRAM_SHARE of the dense one (a compiled solver's
    Hessians), and not where it costs more."""
    rng = np.random.default_rng(6)
    X, y = data(rng, 100)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 40)  # 40 >= 4 * 5 columns per feature, 100 * 40 < 5e4 entries
    operator = StumpColumns.of(oracle, hypotheses)
    assert not operator.pays(40) and operator.gram_pays(40)
    assert operator.gram_work(40) <= StumpColumns.GRAM_SHARE * 100 * 40**2
    assert not operator.gram_pays(8)  # 100 * 15 + 64 > 100 * 64 / 16
    assert StumpColumns.of(oracle, hypotheses[:8]) is None


def test_operators_extended_in_place_keep_their_columns(monkeypatch):
    """A run's operators share index arrays with room to grow (``_GrowingColumns``): each one, the
    older ones after later columns were appended, an older one extended again (a branch, which copies
    its entries first) and a pickled one, equals the operator of its columns made at once (one or
    several columns added at a time)."""
    always(monkeypatch)
    rng = np.random.default_rng(9)
    X, y = data(rng, 150)
    oracle = DecisionStumps().fit(X, y)
    hypotheses = random_stumps(rng, X, 60)
    features = {h.feature for h in hypotheses[:20] if type(h) is Stump}
    same_features = [h for h in hypotheses[20:] if type(h) is Constant or h.feature in features]
    columns = hypotheses[:20] + same_features  # after the first 20, no new feature: extended
    chain = [StumpColumns.of(oracle, columns[:20])]
    sizes = list(range(21, len(columns) - 2)) + [len(columns)]  # one column at a time, then three
    for k in sizes:
        chain.append(StumpColumns.of(oracle, columns[:k], chain[-1]))
    assert chain[-1]._store is chain[-2]._store  # appended in place
    branch = StumpColumns.of(oracle, columns[:25] + columns[:3], chain[5])
    assert branch._store is not chain[-1]._store
    later = StumpColumns.of(oracle, columns[: sizes[-2]] + columns[:1], chain[-2])  # the store moved on
    pickled = pickle.loads(pickle.dumps(chain[-1]))
    assert "_store" not in pickled.__dict__
    made = [(chain[0], columns[:20])] + [(op, columns[:k]) for op, k in zip(chain[1:], sizes, strict=True)]
    made += [(branch, columns[:25] + columns[:3]), (later, columns[: sizes[-2]] + columns[:1])]
    made += [(pickled, columns)]
    for operator, its_columns in made:
        whole = StumpColumns.of(oracle, its_columns)
        for name in ("cut", "sign", "stumps", "constants", "stump_cut"):
            assert np.array_equal(getattr(operator, name), getattr(whole, name)), name
            assert getattr(operator, name).dtype == getattr(whole, name).dtype, name
        w = rng.normal(size=len(its_columns))
        assert np.array_equal(operator.margins(w), whole.margins(w))


@pytest.mark.parametrize("n", [100, 2_000])
def test_one_new_column_extends_as_the_operator_made_at_once(monkeypatch, n):
    """A boosting iteration's one new column (a stump on a feature slot so far, a constant, a stump on
    a new feature) added to an operator: the operator of all the columns made at once, or None where
    that is None (slots that do not pay, however many columns: the thresholds raised)."""
    rng = np.random.default_rng(11)
    X, y = data(rng, n)
    oracle = DecisionStumps().fit(X, y)
    on_two = [h for h in random_stumps(rng, X, 200) if type(h) is Constant or h.feature in (0, 3)][:60]
    previous = StumpColumns.of(oracle, on_two)
    assert previous is not None and previous.features == (0, 3)
    known = Stump(n_features=5, feature=3, threshold=0.25, sign=-1)
    other = Stump(n_features=5, feature=1, threshold=0.0, sign=1)
    for thresholds in ((StumpColumns.MIN_COLUMNS_PER_FEATURE, StumpColumns.GRAM_SHARE), (10**6, 0.0)):
        monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", thresholds[0])
        monkeypatch.setattr(StumpColumns, "GRAM_SHARE", thresholds[1])
        for h in (known, Constant(n_features=5, sign=-1), other):
            grown = StumpColumns.of(oracle, [*on_two, h], previous)
            whole = StumpColumns.of(oracle, [*on_two, h])
            assert (grown is None) == (whole is None) == (thresholds[0] > 60), h
            if whole is not None:
                for name in ("cut", "sign", "stumps", "constants", "stump_cut", "features"):
                    assert np.array_equal(getattr(grown, name), getattr(whole, name)), name


def test_the_features_added_are_read_up_to_the_first_one_too_many():
    """``_added_features`` (StumpColumns.of's feature slots) gives what the sets of all the columns'
    features give: the new features where the slots pay, None where they do not or where a
    hypothesis is not a stump or a constant (the slots' rule only pays less with more slots)."""
    rng = np.random.default_rng(10)

    class Other(Constant):
        pass

    for _ in range(300):
        new = []
        for _ in range(int(rng.integers(0, 12))):
            kind = rng.random()
            if kind < 0.8:
                new.append(Stump(n_features=9, feature=int(rng.integers(0, 9)), threshold=0.5, sign=1))
            else:
                new.append(Constant(n_features=9, sign=1) if kind < 0.97 else Other(n_features=9, sign=1))
        features = tuple(sorted(set(rng.choice(9, size=int(rng.integers(0, 4)), replace=False).tolist())))
        limit = int(rng.integers(0, 10))
        asked = []

        def pays(slots, limit=limit, asked=asked):
            asked.append(slots)
            return slots <= limit

        found = _added_features(new, features, pays)
        if not all(type(h) in (Stump, Constant) for h in new):
            expected = None
        else:
            added = {h.feature for h in new if type(h) is Stump}.difference(features)
            expected = added if len(features) + len(added) <= limit else None
        assert found == expected
        assert asked == sorted(asked)  # slots only grow: the first failure is final


@pytest.mark.parametrize("thresholds", [None, (0, 0), (10**9, 4e5), (3, 1e4, 0.0)])
def test_the_slots_pay_from_the_fewest_columns_as_the_rules_say(monkeypatch, thresholds):
    """``_slots_pay`` (the fewest paying columns, found once per N, slot count and thresholds) is the
    rules' ``_pays or _gram_pays`` for every N, slot count and t, none and beyond the search too."""
    if thresholds is not None:
        for name, value in zip(
            ("MIN_COLUMNS_PER_FEATURE", "MIN_ENTRIES", "GRAM_SHARE"), thresholds, strict=False
        ):
            monkeypatch.setattr(StumpColumns, name, value)
    for n in (1, 16, 100, 1_000, 12_345):
        for slots in range(0, 31, 3):
            for t in [*range(0, 130), 257, 4_099, FACE_LIMIT, FACE_LIMIT + 1]:
                expected = StumpColumns._pays(n, t, slots) or StumpColumns._gram_pays(n, t, slots)
                assert StumpColumns._slots_pay(n, t, slots) == expected, (n, slots, t)


@pytest.mark.parametrize("thresholds", [None, (0, 0), (10**9, 4e5)])
def test_the_fewest_gram_columns_are_those_a_search_of_every_face_finds(monkeypatch, thresholds):
    """``compiled_gram``'s fewest columns (found once per N and feature slots, then kept) are the
    smallest face size k <= t with ``gram_pays(k)`` (t + 1 where none pays), as the search over
    [1, t + 1] of every operator found them, for every N, slot count and t."""
    if thresholds is not None:
        monkeypatch.setattr(StumpColumns, "MIN_COLUMNS_PER_FEATURE", thresholds[0])
        monkeypatch.setattr(StumpColumns, "MIN_ENTRIES", thresholds[1])
    for n in (1, 3, 16, 17, 100, 1000, 30_000):
        for slots in (1, 2, 7, 24, 123):
            operator = object.__new__(StumpColumns)
            operator.n_samples, operator.features = n, tuple(range(slots))
            fewest = operator._fewest_gram_columns()
            if fewest <= FACE_LIMIT:
                assert fewest >= 1 and all(operator.gram_pays(k) for k in range(fewest, fewest + 50))
                assert fewest == 1 or not operator.gram_pays(fewest - 1)
            else:  # none up to the limit
                assert fewest == FACE_LIMIT + 1 and not operator.gram_pays(FACE_LIMIT)
            for t in (1, 5, 60, 400):
                expected = next((k for k in range(1, t + 1) if operator.gram_pays(k)), t + 1)
                assert min(fewest, t + 1) == expected


def test_the_passes_take_the_operators_cuts_as_their_column_cuts(monkeypatch):
    """``StumpColumns.passes`` gives the compiled passes its ``cut`` (-1 for the constants) as the
    columns' cuts, which the passes made from the stumps' cuts before: the same products (the compiled
    Gram's faces read them: tests/solvers/test_compiled.py compares it with the called-back one bit
    for bit); a column_cut of another length is refused."""
    always(monkeypatch)
    rng = np.random.default_rng(11)
    X, y = data(rng, 120)
    oracle = DecisionStumps().fit(X, y)
    operator = StumpColumns.of(oracle, random_stumps(rng, X, 40))
    arrays = (operator.y, operator.order, operator.position, operator.stump_cut, operator.sign)
    made = StumpPasses(*arrays, operator.stumps, operator.constants)
    w, d = rng.normal(size=40), rng.normal(size=120)
    assert np.array_equal(operator.passes().margins(w), made.margins(w))
    assert np.array_equal(operator.passes().edges(d), made.edges(d))
    assert np.array_equal(operator.cut[operator.stumps], operator.stump_cut)
    assert np.all(operator.cut[operator.constants] == -1)
    with pytest.raises(ValueError, match="one slot per column"):
        StumpPasses(*arrays, operator.stumps, operator.constants, operator.cut[:-1].copy())
