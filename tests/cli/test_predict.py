"""``dualboost boost --save`` and ``dualboost predict MODEL DATA``.

The predictions the command prints are those of the model loaded in Python, label for label and
value for value (the decision function with 17 digits round-trips exactly); the saved model predicts
as the run's own result (the test error of the summary); bad models, data and options exit 1 with a
message.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification

from dualboost.cli import main
from dualboost.datasets import load_libsvm
from dualboost.estimators import load


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("libsvm")
    X, y = make_classification(n_samples=150, n_features=5, n_informative=3, flip_y=0.05, random_state=4)
    y = np.where(y == 1, 1, -1)
    dump_svmlight_file(X[:100], y[:100], str(folder / "train.libsvm"), zero_based=False)
    dump_svmlight_file(X[100:, :4], y[100:], str(folder / "narrow.libsvm"), zero_based=False)  # 4 features
    dump_svmlight_file(X[100:], y[100:], str(folder / "test.libsvm"), zero_based=False)
    wide = np.hstack([X[100:], np.ones((50, 2))])
    dump_svmlight_file(wide, y[100:], str(folder / "wide.libsvm"), zero_based=False)
    return folder


@pytest.mark.parametrize("algorithm", ["erlpboost", "lpboost", "corrective_erlpboost"])
def test_saved_model_predicts_as_the_run(files, tmp_path, capsys, algorithm):
    model = tmp_path / "m.model"
    test = files / "test.libsvm"
    argv = ["boost", str(files / "train.libsvm"), "--test", str(test), "--algorithm", algorithm]
    argv += ["--nu", "0.1"]
    assert main([*argv, "--eps", "0.05", "--max-iter", "60", "--quiet", "--save", str(model)]) == 0
    out = capsys.readouterr().out
    assert f"model:        {model}" in out
    test_error = float(out.split("test error:")[1].split("%")[0]) / 100
    assert main(["predict", str(model), str(test)]) == 0
    printed = capsys.readouterr().out.split()
    loaded = load(model)
    X, y = load_libsvm(test, n_features=loaded.n_features_in_)
    assert printed == [f"{int(v):+d}" for v in loaded.predict(X)]
    assert np.mean(np.array(printed, dtype=float) != y) == pytest.approx(test_error, abs=1e-4)
    assert main(["predict", str(model), str(test), "--decision-function", "--score"]) == 0
    captured = capsys.readouterr()
    values = np.array(captured.out.split(), dtype=float)
    np.testing.assert_array_equal(values, loaded.decision_function(X))
    assert f"accuracy {1 - test_error:.4f} on 50 examples" in captured.err
    assert loaded.nu_ == pytest.approx(10.0) and loaded.get_params()["nu"] == 0.1


def test_predict_options_and_narrow_data(files, tmp_path, capsys):
    model = tmp_path / "m.model"
    assert main(["boost", str(files / "train.libsvm"), "--quiet", "--save", str(model)]) == 0
    capsys.readouterr()
    out = tmp_path / "pred.txt"
    assert main(["predict", str(model), str(files / "narrow.libsvm"), "--out", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert len(out.read_text().split()) == 50  # 4 features read with the model's 5


def test_errors_exit_1(files, tmp_path, capsys):
    bad = tmp_path / "bad.model"
    bad.write_text("not a model")
    assert main(["predict", str(bad), str(files / "test.libsvm")]) == 1
    assert "not a dualboost model file" in capsys.readouterr().err
    model = tmp_path / "m.model"
    assert main(["boost", str(files / "train.libsvm"), "--quiet", "--save", str(model)]) == 0
    capsys.readouterr()
    assert main(["predict", str(model), str(files / "wide.libsvm")]) == 1
    assert "has 7 features" in capsys.readouterr().err
    assert main(["predict", str(model), str(tmp_path / "absent.libsvm")]) == 1
    assert "dualboost predict: error" in capsys.readouterr().err
    argv = ["boost", str(files / "train.libsvm"), "--algorithm", "adaboost", "--max-iter", "30"]
    assert main([*argv, "--quiet", "--save", str(tmp_path / "a")]) == 0  # (MaxEdgeAdaBoostClassifier)
    capsys.readouterr()
    assert main(["predict", str(tmp_path / "a"), str(files / "test.libsvm"), "--score"]) == 0
    assert "accuracy" in capsys.readouterr().err
    argv = ["boost", str(files / "train.libsvm"), "--save", str(tmp_path / "no" / "dir" / "m")]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "directory not writable" in err and "it does not exist" in err


def test_predict_help_reads_well(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["predict", "--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    for piece in ("MODEL", "DATA", "--decision-function", "--score", "--out", "boost --save"):
        assert piece in text


def test_multiclass_files_boost_and_predict(tmp_path, capsys):
    """A LIBSVM file of three classes (labels 1, 2, 3): `boost` fits over the (example, wrong class)
    pairs and says so, its train and test errors are the saved classifier's, and `predict` writes the
    file's labels, K votes per row with --decision-function (the model's, to the digit), and scores."""
    from sklearn.datasets import dump_svmlight_file, load_iris
    from sklearn.model_selection import train_test_split

    from dualboost.estimators.persistence import load

    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y + 1, test_size=0.3, stratify=y, random_state=0)
    train, test, model = tmp_path / "train.libsvm", tmp_path / "test.libsvm", tmp_path / "iris.model"
    dump_svmlight_file(X_train, y_train, str(train))
    dump_svmlight_file(X_test, y_test, str(test))
    argv = ["boost", str(train), "--test", str(test), "--nu", "0.1", "--quiet", "--save", str(model)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "(105 examples, 4 features, 3 classes)" in out
    assert "smallest of the 210 (example, wrong class) pairs)" in out
    clf = load(model)
    assert list(clf.classes_) == [1.0, 2.0, 3.0]
    train_error = float(out.split("train error:")[1].split("%")[0])
    test_error = float(out.split("test error:")[1].split("%")[0])
    assert train_error == pytest.approx(100 * np.mean(clf.predict(X_train) != y_train), abs=0.006)
    assert test_error == pytest.approx(100 * np.mean(clf.predict(X_test) != y_test), abs=0.006)
    assert main(["predict", str(model), str(test), "--score"]) == 0
    out, err = capsys.readouterr()
    assert out.split() == [f"{int(v):+d}" for v in clf.predict(X_test)]
    assert f"accuracy {np.mean(clf.predict(X_test) == y_test):.4f} on 45 examples" in err
    assert main(["predict", str(model), str(test), "--decision-function"]) == 0
    rows = [[float(v) for v in line.split()] for line in capsys.readouterr().out.splitlines()]
    assert np.array_equal(np.array(rows), clf.decision_function(X_test))
    other = tmp_path / "other.libsvm"
    dump_svmlight_file(X_test, np.where(y_test == 3, 7, y_test), str(other))
    assert main(["boost", str(train), "--test", str(other), "--nu", "0.1", "--quiet"]) == 1
    assert "TEST" in capsys.readouterr().err
