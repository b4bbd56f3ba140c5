"""``dualboost boost`` on the thesis's small data sets: summary, history CSV, plot, errors.

german.numer and diabetes come from the data folder (``tests/environment.py``); the tests that need
them are skipped, saying so, when that folder lacks them.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file

from dualboost import cli
from dualboost.datasets import load_libsvm
from tests.environment import DATA_DIR, requires_data

DATA = DATA_DIR
needs_data = requires_data("german.numer", "diabetes")


def summary_value(text: str, label: str) -> str:
    match = re.search(rf"^\s*{label}:\s+(.*)$", text, flags=re.M)
    assert match, f"no '{label}' line in:\n{text}"
    return match.group(1)


def error_percent(text: str, label: str) -> float:
    return float(summary_value(text, label).split("%")[0])


@needs_data
@pytest.mark.parametrize(
    "dataset, algorithm, nu",
    [
        ("german.numer", "erlpboost", "0.1"),
        ("diabetes", "corrective_erlpboost", "0.1"),
        ("diabetes", "binary_erlpboost", "1e-9"),  # the hard margin: max(1, nu N) = 1
    ],
)
def test_boost_writes_summary_history_and_plot(dataset, algorithm, nu, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="--plot needs the optional dependency matplotlib")
    history, plot = tmp_path / "history.csv", tmp_path / "gap.png"
    rc = cli.main(
        [
            "boost",
            str(DATA / dataset),
            "--algorithm",
            algorithm,
            "--nu",
            nu,
            "--eps",
            "0.05",
            "--history",
            str(history),
            "--plot",
            str(plot),
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0, out
    iterations = int(summary_value(out, "iterations"))
    assert "converged" in summary_value(out, "stopped") and "NOT" not in out
    hypotheses = summary_value(out, "hypotheses")
    assert re.fullmatch(r"\d+ \(\d+ with w > 0\)", hypotheses)
    assert re.fullmatch(
        r"[0-9.]+ s \(oracle [0-9.]+ s, solver [0-9.]+ s, other -?[0-9.]+ s\)", summary_value(out, "time")
    )
    assert 0 <= error_percent(out, "train error") < 35
    rows = list(csv.DictReader(history.open()))
    assert len(rows) == iterations and [int(r["iteration"]) for r in rows] == list(range(1, iterations + 1))
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@needs_data
def test_boost_with_a_test_file_reports_its_error(tmp_path, capsys):
    X, y = load_libsvm(DATA / "german.numer")
    train, test = tmp_path / "train.libsvm", tmp_path / "test.libsvm"
    dump_svmlight_file(X[:700], y[:700], str(train))
    dump_svmlight_file(X[700:], y[700:], str(test))
    rc = cli.main(
        [
            "boost",
            str(train),
            "--test",
            str(test),
            "--algorithm",
            "corrective_binary_erlpboost",
            "--nu",
            "0.2",
            "--eps",
            "0.05",
            "--quiet",
        ]
    )
    out = capsys.readouterr().out
    assert rc == 0
    assert "(300 examples)" in summary_value(out, "test error")
    assert 15 < error_percent(out, "test error") < 40


@needs_data
def test_boost_named_data_set(monkeypatch, capsys):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA))
    rc = cli.main(["boost", "german", "--algorithm", "adaboost", "--max-iter", "50", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.startswith("adaboost on german (600 examples, 24 features)")
    assert "(200 examples)" in summary_value(out, "test error")
    assert summary_value(out, "iterations") == "50"


def toy_file(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=60) > 0, 1, -1)
    path = tmp_path / "toy.libsvm"
    dump_svmlight_file(X, y, str(path))
    return path


@pytest.mark.parametrize(
    "options, message",
    [
        (["--algorithm", "lpboost", "--eta", "5"], "--eta does not apply to lpboost"),
        (["--algorithm", "adaboost", "--nu", "0.2"], "--nu does not apply to adaboost"),
        (["--algorithm", "binary_erlpboost", "--nu", "1"], "nu must lie in (0, 1)"),
        (["--nu", "1.5"], "nu must lie in (0, 1]"),
        (["--nu", "0"], "nu must lie in (0, 1] (a fraction of the training set); got 0.0"),
        (["--eps", "-1"], "--eps: The 'eps' parameter of ERLPBoostClassifier must be a float in the range"),
        (["--method", "simplex"], "--method: The 'method' parameter of ERLPBoostClassifier must be a str"),
        (
            ["--algorithm", "lpboost", "--method", "auglag"],
            "--method auglag does not apply to lpboost: method='auglag' needs a differentiable dual; the "
            "dual of lpboost is a linear program: use method='highs' or a cvxpy method",
        ),
        (
            ["--algorithm", "corrective_erlpboost", "--method", "highs"],
            "--method highs does not apply to corrective_erlpboost: method='highs' solves linear programs",
        ),
    ],
)
def test_boost_parameter_errors(options, message, tmp_path, capsys):
    rc = cli.main(["boost", str(toy_file(tmp_path)), "--quiet", *options])
    assert rc == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and "side=" not in err


def test_boost_nu_range_is_the_classifiers(tmp_path, capsys):
    """--nu 0 was accepted while the message said nu must lie in (0, 1]. The CLI refuses
    what the classifiers refuse, and its help gives the same range."""
    from dualboost.estimators import ERLPBoostClassifier

    X, y = load_libsvm(toy_file(tmp_path))
    for nu in ("0", "-0.5", "1.5"):
        assert cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--nu", nu]) == 1
        in_range = r"'nu' parameter of ERLPBoostClassifier must be a float in the range \(0.0, 1.0\]"
        with pytest.raises(ValueError, match=in_range):  # scikit-learn's message (_parameter_constraints)
            ERLPBoostClassifier(nu=float(nu)).fit(X, y)
        assert "nu must lie in (0, 1]" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["boost", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "in (0, 1]" in help_text and "[0, 1]" not in help_text and "0 means" not in help_text


def test_boost_method_check_covers_every_algorithm_with_a_method():
    """The up-front method check (dualboost boost's and the classifiers') knows the subproblem of every
    driver that takes a method, and a classifier refuses a method that does not apply before it reads
    the data, in the words of the solver registry."""
    import inspect

    from dualboost import LPBoostClassifier
    from dualboost.boosting import ALGORITHMS
    from dualboost.boosting.algorithms import SUBPROBLEMS

    with_method = {
        name for name, driver in ALGORITHMS.items() if "method" in inspect.signature(driver).parameters
    }
    assert with_method == set(SUBPROBLEMS)
    with pytest.raises(ValueError, match="method='auglag' needs a differentiable dual"):
        LPBoostClassifier(method="auglag").fit(np.full((3, 2), np.nan), [0, 1, 2])  # (data never read)


@pytest.mark.parametrize(
    "algorithm, method",
    [("lpboost", "highs"), ("lpboost", "clarabel"), ("erlpboost", "auglag"), ("softboost", "auglag")],
)
def test_boost_methods_that_apply_run(algorithm, method, tmp_path, capsys):
    rc = cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--algorithm", algorithm, "--method", method])
    assert rc == 0, capsys.readouterr().err


def test_boost_refuses_one_class_training_data(tmp_path, capsys):
    """One-class data trained to "train error 0.00 %"; the classifiers refuse it."""
    path = tmp_path / "one.libsvm"
    path.write_text("".join(f"+1 1:{i} 2:{i % 3}\n" for i in range(20)))
    assert cli.main(["boost", str(path), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert "holds one class only (all 20 labels are +1)" in captured.err and str(path) in captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def write_libsvm(path: Path, rows: int, width: int, seed: int = 0) -> Path:
    """A 1-based LIBSVM file whose largest feature index is ``width`` (every row uses feature 1 and
    the last one)."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(rows):
        label = "+1" if i % 2 else "-1"
        x = rng.normal(size=width) + (0.8 if i % 2 else -0.8)
        lines.append(" ".join([label, *(f"{j + 1}:{x[j]:.4f}" for j in range(width))]))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_boost_test_file_with_more_features_is_refused(tmp_path, capsys):
    """A test file of other data (24 vs 122 features) was padded and scored silently. A
    TEST whose largest feature index exceeds TRAIN's is refused unless --n-features is given; one
    with a smaller largest index (a sparse file need not use the last features) is read at TRAIN's
    width."""
    train = write_libsvm(tmp_path / "train.libsvm", 40, 3)
    wide = write_libsvm(tmp_path / "wide.libsvm", 20, 5, seed=1)
    narrow = write_libsvm(tmp_path / "narrow.libsvm", 20, 2, seed=2)
    common = ["boost", str(train), "--quiet", "--eps", "0.1"]
    assert cli.main([*common, "--test", str(wide)]) == 1
    err = capsys.readouterr().err
    assert f"TEST {str(wide)!r} has 5 features (from its largest feature index), TRAIN 3" in err
    assert "--n-features 5" in err and "Traceback" not in err
    assert cli.main([*common, "--test", str(wide), "--n-features", "5"]) == 0
    out = capsys.readouterr().out
    assert "(40 examples, 5 features)" in out and "(20 examples)" in summary_value(out, "test error")
    assert cli.main([*common, "--test", str(narrow)]) == 0
    out = capsys.readouterr().out
    assert "(40 examples, 3 features)" in out and "(20 examples)" in summary_value(out, "test error")
    assert cli.main([*common, "--test", str(wide), "--n-features", "4"]) == 1
    err = capsys.readouterr().err
    assert f"{wide}, line 1: the feature index 5 does not fit n_features = 4" in err


@pytest.mark.skipif(
    not all((DATA / name).is_file() for name in ("german.numer", "a9a.train", "a9a.test")),
    reason=f"the shared data sets german.numer, a9a.train and a9a.test are not in {DATA}",
)
def test_boost_shared_files_feature_counts(capsys):
    """The reported case, german.numer (24 features) with a9a's test file (122), is refused; a9a's own
    train and test files (122 features each) need no --n-features."""
    assert cli.main(["boost", str(DATA / "german.numer"), "--test", str(DATA / "a9a.test"), "--quiet"]) == 1
    assert "has 122 features (from its largest feature index), TRAIN 24" in capsys.readouterr().err
    rc = cli.main(
        ["boost", str(DATA / "a9a.train"), "--test", str(DATA / "a9a.test"), "--algorithm", "adaboost",
         "--max-iter", "2", "--quiet"]
    )  # fmt: skip
    assert rc == 0 and "(9769 examples)" in summary_value(capsys.readouterr().out, "test error")


def test_boost_garbage_libsvm_line_names_file_and_line(tmp_path, capsys):
    """A garbage line gave "could not convert string to float: b'garbage'", with no file and no line."""
    path = write_libsvm(tmp_path / "bad.libsvm", 6, 2)
    path.write_text(path.read_text() + "garbage\n")
    assert cli.main(["boost", str(path), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"{path}, line 7: the label 'garbage' is not a number" in err and "Traceback" not in err


def test_boost_n_features_with_a_named_data_set_is_refused(tmp_path, monkeypatch, capsys):
    directory = tmp_path / "data"
    directory.mkdir()
    write_libsvm(directory / "diabetes", 20, 8)
    monkeypatch.setenv("DUALBOOST_DATA", str(directory))
    assert cli.main(["boost", "diabetes", "--n-features", "9", "--quiet"]) == 1
    assert "--n-features applies to LIBSVM files; the data set 'diabetes' has its own 8 features" in (
        capsys.readouterr().err
    )


def test_boost_unknown_train(tmp_path, capsys):
    rc = cli.main(["boost", str(tmp_path / "missing.libsvm")])
    assert rc == 1
    assert "neither a file nor a named data set" in capsys.readouterr().err


def test_boost_lpboost_hard_margin_on_a_toy_file(tmp_path, capsys):
    rc = cli.main(["boost", str(toy_file(tmp_path)), "--algorithm", "lpboost", "--nu", "1e-9", "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0 and "nu = 1," in summary_value(out, "parameters")


def test_boost_help_lists_the_options(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["boost", "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for option in (
        "--test",
        "--algorithm",
        "--nu",
        "--eps",
        "--eta",
        "--max-iter",
        "--oracle",
        "--method",
        "--n-features",
        "--plot",
        "--history",
        "--quiet",
        "corrective_binary_erlpboost",
        "adaboost",
    ):
        assert option in text


def test_plot_without_matplotlib_says_how_to_install(monkeypatch, tmp_path):
    from dualboost.boosting import History
    from dualboost.boosting.core.plot import plot_history

    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install \"dualboost\[plot\]\""):
        plot_history(History(), tmp_path / "x.png")


def test_progress_line_only_on_a_terminal(tmp_path, monkeypatch, capsys):
    path = str(toy_file(tmp_path))
    assert cli.main(["boost", path, "--eps", "0.1"]) == 0
    assert capsys.readouterr().err == ""  # not a terminal: no progress line
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli.main(["boost", path, "--eps", "0.1"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"\riteration 1  edge [+-][0-9.]+  gap \S+  stopping \S+  hypotheses 1", err)
    assert err.endswith("\r")  # the line is cleared before the summary
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli.main(["boost", path, "--eps", "0.1", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


@requires_data("german.numer")
def test_boost_lpboost_on_german_warns_of_its_zero_soft_margin(monkeypatch, capsys):
    """The reproduction: LPBoost at nu = 0.1 on german reaches the degenerate LP optimum
    (soft margin 0). The run says so on stderr, the summary shows the soft margin, and the error is
    that of deterministic ties (classes_[0] = -1, german's majority class), not of rounding noise."""
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA))
    rc = cli.main(["boost", "german", "--algorithm", "lpboost", "--nu", "0.1", "--quiet"])
    captured = capsys.readouterr()
    assert rc == 0
    assert "dualboost boost: warning: lpboost: the soft margin of the output" in captured.err
    assert "raise nu" in captured.err
    assert abs(float(summary_value(captured.out, "soft margin").split()[0])) < 1e-9
    X, y = load_libsvm(DATA / "german.numer")[:2]
    assert np.mean(y == -1) > 0.5  # -1 is the majority: ties predicted -1 cost at most the minority
    assert error_percent(captured.out, "train error") < 35


def test_boost_corrective_default_max_iter_is_the_classifiers(tmp_path, capsys):
    argv = ["boost", str(toy_file(tmp_path)), "--algorithm", "corrective_erlpboost", "--nu", "0.1"]
    rc = cli.main([*argv, "--quiet"])
    out = capsys.readouterr().out
    assert rc == 0
    assert summary_value(out, "iterations") == "1000"
    assert "max_iter: max_iter=1000 (NOT converged)" in out


def test_boost_verbose_logs_every_iteration_and_quiet_excludes_it(tmp_path, capsys):
    toy = str(toy_file(tmp_path))
    rc = cli.main(["boost", toy, "--algorithm", "erlpboost", "--verbose"])
    captured = capsys.readouterr()
    assert rc == 0
    lines = [line for line in captured.err.splitlines() if line.startswith("iteration ")]
    assert len(lines) == int(summary_value(captured.out, "iterations"))
    assert lines[0].startswith("iteration 1  edge")
    with pytest.raises(SystemExit) as exc:
        cli.main(["boost", toy, "--verbose", "--quiet"])
    assert exc.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err
    # without --verbose, stderr is empty when it is not a terminal (no progress line, no solver output)
    assert cli.main(["boost", toy, "--algorithm", "lpboost", "--nu", "0.5"]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "options, name",
    [
        (["--algorithm", "mlpboost", "--eps", "0.1", "--max-iter", "200", "--step", "line"], "mlpboost"),
        (["--algorithm", "adaboostv", "--tolerance", "0.1"], "adaboostv"),
        (["--algorithm", "smoothboost", "--kappa", "0.2", "--gamma", "0.05"], "smoothboost"),
        (
            ["--algorithm", "corrective_erlpboost", "--eps", "0.1", "--step", "pairwise"],
            "corrective_erlpboost",
        ),
    ],
)
def test_boost_runs_the_miniboosts_algorithms(options, name, tmp_path, capsys):
    """One run of each algorithm of miniboosts (and a Frank-Wolfe rule) on the toy file, saved and
    predicted back: the summary's train error is the saved model's."""
    model = tmp_path / "model"
    rc = cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--save", str(model), *options])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.startswith(f"{name} on toy.libsvm") and "(converged)" in summary_value(out, "stopped")
    assert error_percent(out, "train error") < 20
    X, y = load_libsvm(toy_file(tmp_path))[:2]
    from dualboost.estimators.persistence import load

    clf = load(model)
    assert np.mean(clf.predict(X) != y) * 100 == pytest.approx(error_percent(out, "train error"), abs=0.01)


@pytest.mark.parametrize(
    "options, message",
    [
        (["--algorithm", "adaboostv", "--kappa", "0.2"], "--kappa does not apply to adaboostv"),
        (["--algorithm", "smoothboost", "--nu", "0.2"], "--nu does not apply to smoothboost"),
        (["--algorithm", "lpboost", "--step", "line"], "--step does not apply to lpboost"),
        (["--algorithm", "corrective_erlpboost", "--step", "short", "--method", "auglag"], "step='short'"),
        (["--algorithm", "adaboostv", "--tolerance", "2"], "--tolerance: The 'tolerance' parameter of "
         "AdaBoostVClassifier must be a float in the range (0.0, 1.0]. Got 2.0 instead."),
        (["--algorithm", "smoothboost", "--gamma", "0.5"], "--gamma: The 'gamma' parameter of "
         "SmoothBoostClassifier must be a float in the range (0.0, 0.5). Got 0.5 instead."),
    ],
)
def test_boost_miniboosts_parameter_errors(options, message, tmp_path, capsys):
    assert cli.main(["boost", str(toy_file(tmp_path)), "--quiet", *options]) == 1
    assert message in capsys.readouterr().err


def test_every_algorithm_has_the_classifier_that_boost_fits():
    """`dualboost boost --algorithm A` fits the classifier whose _algorithm is A: there is exactly one
    for every driver of ALGORITHMS (t_adaboost had none and the command failed unpacking)."""
    from dualboost.boosting import ALGORITHMS
    from dualboost.estimators.persistence import model_classes

    for algorithm in ALGORITHMS:
        found = [c for c in model_classes().values() if getattr(c, "_algorithm", None) == algorithm]
        assert len(found) == 1, (algorithm, found)
