"""The benchmarks' compiled-against-Python columns: ``benchmarks/vs_adaboost.py
--python-path`` and ``benchmarks/cpp_erlpboost.py --python-path`` run the same ERLPBoost fit with
``NewtonOptions(compiled=False)`` in the same command and print its time and the ratio. Checked:
the Python runs really take the Python path (no "compiled" stage), the compiled ones take the
compiled one, and the printed ratio is the ratio of the printed times (up to their rounding).
Timing itself is not asserted."""

from __future__ import annotations

import importlib.util
import io
import re
import sys
from pathlib import Path

import pytest

from tests.environment import DATA_DIR, requires_data

ROOT = Path(__file__).resolve().parents[2]
pytestmark = requires_data("german.numer")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_compiled", ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _data(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA_DIR))
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))


def test_best_pair_runs_the_compiled_and_the_python_path(monkeypatch):
    bench = _load("vs_adaboost")
    from dualboost.solvers import auglag

    stages = {"compiled": 0}
    start = auglag._compiled_start

    def counted(*args, **kwargs):
        stages["compiled"] += 1
        return start(*args, **kwargs)

    monkeypatch.setattr(auglag, "_compiled_start", counted)
    fast = bench.erlpboost_run("german", 0.05, 0.1)
    used = stages["compiled"]
    slow = bench.erlpboost_run("german", 0.05, 0.1, False)
    # most warm solves start compiled (51 of 53 here), none on the Python path
    assert used >= fast["iterations"] // 2 > 0 and stages["compiled"] == used
    assert abs(fast["iterations"] - slow["iterations"]) <= 2
    pair = bench.best_pair(1, "german", 0.05, 0.1)
    assert len(pair) == 2 and all(r["seconds"] > 0 for r in pair)


def test_vs_adaboost_python_path_column(tmp_path):
    bench = _load("vs_adaboost")
    out = tmp_path / "vs.txt"
    argv = ["--datasets", "german", "--eps", "0.05", "--repeat", "1", "--python-path", "--out", str(out)]
    assert bench.main(argv) == 0
    (row,) = [line.split() for line in out.read_text().splitlines() if line.split()[:1] == ["german"]]
    seconds, python, ratio = float(row[3]), float(row[-2]), float(row[-1])
    assert "Python s" in out.read_text()
    # printed to 0.01 s and 0.01: the ratio of the unrounded times lies within the rounded bounds
    low, high = (python - 0.005) / (seconds + 0.005), (python + 0.005) / max(seconds - 0.005, 1e-9)
    assert low - 0.005 <= ratio <= high + 0.005


def test_cpp_erlpboost_python_path_line():
    cpp = _load("cpp_erlpboost")
    out = io.StringIO()
    rows = cpp.run(["german"], [], out, python_path=True)
    text = out.getvalue()
    pattern = r"Python path: (\d+) iterations, ([\d.]+) s \(solver ([\d.]+) s\): compiled x([\d.]+)"
    match = re.search(pattern, text)
    assert match and len(rows) == 1
    ours = rows[0][2]["time"]
    python = float(match.group(2))
    assert abs(float(match.group(4)) - python / ours) <= 0.005 + 0.005 / ours * (1 + python / ours)
