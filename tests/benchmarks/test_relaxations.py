"""Smoke test of ``benchmarks/relaxations.py`` at tiny sizes (the style of test_smoke.py):
the table has one certified row per smooth relaxation and form, and the boosting lines say which
method solved the rounds. Nothing is asserted on times."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests.environment import DATA_DIR, requires_data

ROOT = Path(__file__).resolve().parents[2]


def _load():
    name = "relaxations_benchmark"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "relaxations.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_subproblem_table_has_a_certified_row_per_relaxation_and_form(tmp_path):
    bench = _load()
    out = tmp_path / "relaxations.txt"
    assert bench.main(["--sizes", "300x10", "--datasets", "--repeat", "1", "--clarabel-limit", "30",
                       "--out", str(out)]) == 0
    names = bench.smooth_builtins()
    assert {"entropy", "linf-ball+entropy", "l2-ball+entropy", "ball+entropy"} <= set(names)
    rows = [line.split() for line in out.read_text().splitlines()]
    rows = [row for row in rows if row[:1] and row[0] in names]
    expected = sorted((n, f) for n in names for f in ("edge", "simplex"))
    assert sorted((row[0], row[1]) for row in rows) == expected
    for row in rows:
        assert row[2:4] == ["300", "10"] and row[5] == "optimal" and row[7] == "optimal"
        assert float(row[11]) <= 1e-5  # auglag's and Clarabel's certified dual values agree


@requires_data("german.numer")
def test_boosting_lines_name_the_solver(tmp_path, monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA_DIR))
    bench = _load()
    out = tmp_path / "relaxations.txt"
    assert bench.main(["--sizes", "--datasets", "german", "--eps", "0.1", "--no-cvxpy-boosting",
                       "--out", str(out)]) == 0
    text = out.read_text()
    assert "relaxation TC (auglag)" in text and "solved by auglag/dual" in text
    assert "ratio relaxation / ERLPBoost" in text and "converged True" in text


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
