"""``dualboost boost --save`` and ``dualboost predict MODEL DATA`` (issue 17 item 7).

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
    argv = ["boost", str(files / "train.libsvm"), "--algorithm", "adaboost", "--save", str(tmp_path / "a")]
    assert main(argv) == 1
    assert "adaboost" in capsys.readouterr().err and not (tmp_path / "a").exists()
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
