"""``dualboost boost`` on the thesis's small data sets: summary, history CSV, plot, errors.

german.numer and diabetes come from ``../shared/data`` (DESIGN.md, "Data"); the tests that need
them are skipped, saying so, when that directory is absent.
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

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
needs_data = pytest.mark.skipif(
    not (DATA / "german.numer").is_file() or not (DATA / "diabetes").is_file(),
    reason=f"the shared data sets german.numer and diabetes are not in {DATA}",
)


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
        ("diabetes", "binary_erlpboost", "0"),
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
        (["--eps", "-1"], "eps must be > 0"),
        (["--method", "simplex"], "method must be one of"),
    ],
)
def test_boost_parameter_errors(options, message, tmp_path, capsys):
    rc = cli.main(["boost", str(toy_file(tmp_path)), "--quiet", *options])
    assert rc == 1
    assert message in capsys.readouterr().err


def test_boost_unknown_train(tmp_path, capsys):
    rc = cli.main(["boost", str(tmp_path / "missing.libsvm")])
    assert rc == 1
    assert "neither a file nor a named data set" in capsys.readouterr().err


def test_boost_lpboost_hard_margin_on_a_toy_file(tmp_path, capsys):
    rc = cli.main(["boost", str(toy_file(tmp_path)), "--algorithm", "lpboost", "--nu", "0", "--quiet"])
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
        "--plot",
        "--history",
        "--quiet",
        "corrective_binary_erlpboost",
        "adaboost",
    ):
        assert option in text


def test_plot_without_matplotlib_says_how_to_install(monkeypatch, tmp_path):
    from dualboost.boosting import History
    from dualboost.boosting.plot import plot_history

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
