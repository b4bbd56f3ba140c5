"""Smoke test of benchmarks/formulations.py on a small Gaussian configuration (no data files needed),
with consistency checks that can fail: every row's errors are multiples of 1/(test size), its
hypotheses with w > 0 are at most its iterations, MDBoost, NM-Boost and QRLP-Boost converge, and the
table's test error of each formulation equals that of its classifier fitted independently on the
same data (the estimator maps labels, the table calls the driver)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tests.environment import load_benchmark

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")


def _load():
    return load_benchmark("formulations")


def test_formulations_table_on_a_small_gaussian_set(tmp_path):
    bench = _load()
    algorithms = ["lpboost", "erlpboost", "mdboost", "cgboost", "nmboost", "qrlpboost"]
    out = tmp_path / "formulations.txt"
    text = bench.main(
        ["--datasets", "gaussian", "--n", "200", "--max-iter", "100", "--eps", "0.05", "--out", str(out),
         "--algorithms", *algorithms]
    )  # fmt: skip
    assert out.read_text() == text
    rows = {}
    for line in text.splitlines():
        match = re.match(r"\s+(\w+)\s+([\d.]+)%\s+([\d.]+)%\s+(\d+)(\*?)\s+(\d+)\s+([\d.]+)$", line)
        if match:
            rows[match.group(1)] = match.groups()[1:]
    assert set(rows) == set(algorithms)
    n_test = 4000
    X, y, Xt, yt = bench.load("gaussian", 0, 200)
    from dualboost.estimators import (
        CGBoostClassifier,
        MDBoostClassifier,
        NMBoostClassifier,
        QRLPBoostClassifier,
    )

    classifiers = {
        "mdboost": MDBoostClassifier(D=1.0, eps=0.05, max_iter=100),
        "cgboost": CGBoostClassifier(C=1.0, eps=0.05, max_iter=100),
        "nmboost": NMBoostClassifier(lam=0.01, tau=0.01, eps=0.05, max_iter=100),
        "qrlpboost": QRLPBoostClassifier(nu=0.1, eps=0.05, max_iter=100),
    }
    for name, (test_error, _train_error, iterations, capped, nonzero, _) in rows.items():
        errors = float(test_error) / 100 * n_test
        assert abs(errors - round(errors)) < 0.51  # printed to 0.01 %: 0.4 examples of 4000
        assert int(nonzero) <= int(iterations)
        if name in classifiers:
            # CGBoost's full optimum weighs every stump of positive edge: 100 iterations do not reach it
            assert capped == "" or name == "cgboost", f"{name} did not converge"
            clf = classifiers[name].fit(X, y)
            assert float(test_error) == pytest.approx(100 * np.mean(clf.predict(Xt) != yt), abs=0.006)
    assert "Akkerman" in text
