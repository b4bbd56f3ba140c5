"""benchmarks/vs_adaboost.py reports LightGBM with as many depth-1 trees beside AdaBoost.

With ``lightgbm`` installed (the ``[bench]`` extra) each row carries LightGBM's seconds, the ratio
ERLPBoost / LightGBM computed from the printed times, and the three training accuracies, which are
fractions of N (counts of right answers); without it (``sys.modules["lightgbm"] = None`` makes the
import fail) the script still writes its table, says why the LightGBM columns are missing and leaves
them out. Timing itself is not asserted.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest

from tests.environment import DATA_DIR, requires_data

ROOT = Path(__file__).resolve().parents[2]
pytestmark = requires_data("german.numer")
N_GERMAN_TRAIN = 600  # the training part of german's 60/20/20 split (1000 rows)


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA_DIR))
    spec = importlib.util.spec_from_file_location("vs_adaboost_lgbm", ROOT / "benchmarks" / "vs_adaboost.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(path: Path) -> list[list[str]]:
    rows = [line.split() for line in path.read_text().splitlines() if line.split()[:1] == ["german"]]
    return [row for row in rows if row[1] != "eps"]


def _is_count_fraction(value: str, n: int) -> bool:
    # printed to 3 decimals: some count k in 0..n has k/n within half a unit of the last digit
    return any(abs(float(value) - k / n) <= 5e-4 for k in range(n + 1))


def test_lightgbm_columns_beside_adaboost(bench, tmp_path):
    pytest.importorskip("lightgbm")
    out = tmp_path / "vs.txt"
    assert bench.main(["--datasets", "german", "--repeat", "1", "--out", str(out)]) == 0
    text = out.read_text()
    assert "LightGBM" in text and "not installed" not in text
    (row,) = _rows(out)
    assert len(row) == 16  # 11 columns as before, 2 accuracies, LightGBM's seconds, ratio, accuracy
    seconds, lgbm, ratio = float(row[3]), float(row[13]), float(row[14])
    assert lgbm > 0
    # the times printed to 0.01 and 0.001 s, the ratio to 0.1: the ratio of the unrounded times lies
    # within the bounds the rounded ones allow
    low, high = (seconds - 0.005) / (lgbm + 0.0005), (seconds + 0.005) / max(lgbm - 0.0005, 1e-9)
    assert low - 0.05 <= ratio <= high + 0.05
    for accuracy in (row[11], row[12], row[15]):
        assert 0.5 < float(accuracy) <= 1.0 and _is_count_fraction(accuracy, N_GERMAN_TRAIN)


def test_lightgbm_run_uses_as_many_depth_one_trees(bench):
    lightgbm = pytest.importorskip("lightgbm")
    fitted = []
    fit = lightgbm.LGBMClassifier.fit

    def spy(self, *args, **kwargs):
        fitted.append(self)
        return fit(self, *args, **kwargs)

    lightgbm.LGBMClassifier.fit = spy
    try:
        result = bench.lightgbm_run("german", 17)
    finally:
        lightgbm.LGBMClassifier.fit = fit
    (clf,) = fitted
    assert clf.n_estimators_ == 17
    trees = clf.booster_.dump_model()["tree_info"]
    assert len(trees) == 17 and all(tree["num_leaves"] <= 2 for tree in trees)
    assert math.isclose(result["train_accuracy"], clf.score(*bench.load("german")))


def test_without_lightgbm_the_table_is_written_without_its_columns(bench, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # `import lightgbm` raises ImportError
    out = tmp_path / "vs.txt"
    assert bench.main(["--datasets", "german", "--repeat", "1", "--out", str(out)]) == 0
    text = out.read_text()
    assert "lightgbm is not installed" in text
    (row,) = _rows(out)
    assert len(row) == 13  # no LightGBM columns
    assert "LightGBM s" not in text
