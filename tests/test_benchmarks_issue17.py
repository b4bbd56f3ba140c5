"""Smoke tests of the issue-17 benchmarks (benchmarks/cv.py, reweight.py, defaults.py) on german, with
consistency checks that can fail: the warm and independent paths' dual values agree within eps/2 and
their totals add up; every re-weighted vote keeps at most the forest's trees; the defaults table's
losses are those of its accuracy rows."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
from environment import DATA_DIR, requires_data

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [
    requires_data("german.numer"),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]


def _load(name: str):
    """Import ``benchmarks/<name>.py`` under a private name (the folder is not a package)."""
    key = f"_bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


@pytest.fixture(autouse=True)
def _data_dir(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA_DIR))


def _floats(line: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.?\d*(?:e[-+]\d+)?", line)]


def test_cv_benchmark(tmp_path):
    out = tmp_path / "cv.txt"
    assert _load("cv").main(["--datasets", "german", "--skip-accuracy", "--out", str(out)]) == 0
    lines = out.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("nu  it warm"))
    rows = [_floats(line) for line in lines[start + 1 : start + 8]]
    assert [row[0] for row in rows] == [0.5, 0.4, 0.3, 0.2, 0.1, 0.05, 0.01]
    for *_, dual_warm, dual_cold, diff, _gap_warm, _gap_cold in rows:
        assert abs(dual_warm - dual_cold) <= 0.01 / 2 + 1e-6
        assert diff == pytest.approx(abs(dual_warm - dual_cold), rel=0.01, abs=2e-6)
    assert sum(row[1] for row in rows) < sum(row[2] for row in rows)
    total = next(line for line in lines if line.startswith("path: warm"))
    warm, cold, ratio = _floats(total)
    assert ratio == pytest.approx(warm / cold, abs=0.01)
    accuracy = next(line for line in lines if line.strip().startswith("acc "))
    assert all(0.5 <= a <= 1.0 for a in _floats(accuracy))


def test_reweight_benchmark(tmp_path):
    out = tmp_path / "reweight.txt"
    assert _load("reweight").main(["--datasets", "german", "--trees", "25", "--out", str(out)]) == 0
    text = out.read_text()
    rows = [line.split() for line in text.splitlines() if line.strip().startswith(("lpboost", "erlpboost"))]
    assert len(rows) == 4
    forest = float(re.search(r"test accuracy (\d\.\d+)", text).group(1))
    for *_, kept, acc, delta, gap, _seconds in rows:
        assert 1 <= int(kept) <= 25 and float(gap) <= 1e-6
        assert float(delta) == pytest.approx(float(acc) - forest, abs=2e-4)


def test_defaults_benchmark(tmp_path):
    out = tmp_path / "defaults.txt"
    argv = ["--datasets", "german", "diabetes", "--learners", "stumps", "--out", str(out)]
    assert _load("defaults").main(argv) == 0
    text = out.read_text().splitlines()
    accuracy = {}
    for name in ("german", "diabetes"):
        header = next(i for i, line in enumerate(text) if line.startswith(f"== {name}"))
        accuracy[name] = _floats(text[header + 2])[:-1]  # the stumps row, without the seconds
    losses = _floats(text[next(i for i, line in enumerate(text) if line.startswith("largest loss")) + 2])
    for j, loss in enumerate(losses):
        expected = max(100 * (max(accuracy[n]) - accuracy[n][j]) for n in accuracy)
        assert loss == pytest.approx(expected, abs=0.011)
