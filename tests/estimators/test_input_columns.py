"""Non-numeric features: a ValueError naming each such column (by name in a pandas
DataFrame, by index otherwise) and the encoder to use, from every estimator family's validation
(:func:`dualboost.estimators.base.check_numeric_features`); on main scikit-learn's bare
"could not convert string to float: 'u'" named neither."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.compose import make_column_transformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from dualboost import (
    AdaBoostOLClassifier,
    ERLPBoostClassifier,
    GradientProjectionClassifier,
    LPBoostClassifier,
    MABoostClassifier,
)

ESTIMATORS = [
    ERLPBoostClassifier(nu=0.5, eps=0.1),
    LPBoostClassifier(nu=0.5),
    MABoostClassifier(max_iter=5),
    GradientProjectionClassifier(n_estimators=5),
    AdaBoostOLClassifier(),
]
ENCODER = "OneHotEncoder"
Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])


def _object_array() -> np.ndarray:
    """Column 0 numeric, column 2 strings: 'u' / 'v'."""
    X = np.empty((8, 3), dtype=object)
    X[:, 0] = np.arange(8.0)
    X[:, 1] = np.linspace(-1, 1, 8)
    X[:, 2] = ["u", "v"] * 4
    return X


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_an_object_array_names_the_column_index_and_the_encoder(estimator):
    with pytest.raises(ValueError, match=rf"column 2 \(dtype object: .*'u'\).*{ENCODER}") as info:
        estimator.fit(_object_array(), Y)
    assert "column 0" not in str(info.value) and "column 1" not in str(info.value)


def test_a_list_of_rows_with_strings_names_the_column_index():
    rows = [[float(i), "red" if i % 2 else "blue"] for i in range(8)]
    with pytest.raises(ValueError, match=rf"column 1 .*'blue'.*{ENCODER}"):
        ERLPBoostClassifier(nu=0.5).fit(rows, Y)


def test_an_object_array_of_numbers_is_still_accepted():
    X = _object_array()[:, :2]
    assert ERLPBoostClassifier(nu=0.5, eps=0.1).fit(X, Y).predict(X).shape == (8,)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_dataframe_categorical_and_string_columns_are_named(estimator):
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame(
        {
            "age": np.arange(8.0),
            "colour": pd.Categorical(["u", "v"] * 4),
            "size": pd.Categorical([1.0, 2.0] * 4),  # numbers: converts, as in scikit-learn
            "town": ["a", "b", "c", "d"] * 2,
        }
    )
    match = rf"column 'colour' \(dtype category.*column 'town'.*{ENCODER}"
    with pytest.raises(ValueError, match=match) as info:
        estimator.fit(X, Y)
    assert "'age'" not in str(info.value) and "'size'" not in str(info.value)


def test_predict_names_the_column_too_and_the_suggested_pipeline_works():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"age": np.arange(8.0), "colour": pd.Categorical(["u", "v", "v", "u"] * 2)})
    numeric = ERLPBoostClassifier(nu=0.5, eps=0.1).fit(X[["age"]].rename(columns={"age": "colour"}), Y)
    with pytest.raises(ValueError, match=rf"column 'colour'.*{ENCODER}"):
        numeric.predict(X[["colour"]])
    # what the message suggests: one-hot encode the categorical column before the classifier
    encode = make_column_transformer((OneHotEncoder(), ["colour"]), remainder="passthrough")
    pipeline = make_pipeline(encode, ERLPBoostClassifier(nu=0.5, eps=0.1)).fit(X, Y)
    assert set(pipeline.predict(X)) <= {0, 1}
