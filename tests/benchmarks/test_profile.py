"""Tests of benchmarks/profile_erlpboost.py: its categories account for every second of a profile
(numpy's and BLAS's time goes to the dualboost function that called it), a formed Hessian's time
lands in its own category, and the report on german adds up (shares to 100 %, the per-iteration
figures to the plain run's time per iteration)."""

from __future__ import annotations

import cProfile
import pstats
import re

import numpy as np
import pytest

from tests.environment import DATA_DIR, load_benchmark, requires_data


def _load():
    return load_benchmark("profile_erlpboost")


def _profiled(call) -> pstats.Stats:
    profiler = cProfile.Profile()
    profiler.enable()
    call()
    profiler.disable()
    return pstats.Stats(profiler)


def test_every_second_is_categorised_and_blas_time_goes_to_its_caller():
    from dualboost.problems.erlpboost import ERLPBoost

    bench = _load()
    rng = np.random.default_rng(0)
    model = ERLPBoost(rng.choice([-1.0, 1.0], size=(3000, 200)), nu=300.0, eta=50.0)
    w = np.full(200, 1.0 / 200)
    d = model.d_from_w(w)
    columns = np.arange(200)
    stats = _profiled(lambda: [model.dual_hessian(w, columns, d) for _ in range(5)])
    seconds = bench.categorised(stats)
    assert set(seconds) <= set(bench.CATEGORIES)
    assert sum(seconds.values()) == pytest.approx(stats.total_tt, rel=1e-9)
    # the O(N t^2) product C^T C is a numpy call inside gram_parts: counted as a formed Hessian
    assert seconds["U passes: formed Hessians"] > 0.8 * stats.total_tt


@requires_data("german.numer")
def test_report_on_german_adds_up(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA_DIR))
    lines = _load().report("german", 0.01, 0.1)
    head = lines[0]
    T = int(re.search(r"(\d+) iterations", head).group(1))
    plain = float(re.search(r"([\d.]+) s plain", head).group(1))
    ms_per_it = float(re.search(r"\(([\d.]+) ms/it\)", head).group(1))
    assert ms_per_it == pytest.approx(1e3 * plain / T, abs=5.0 / T + 0.005)  # (plain printed to 0.01 s)
    rows = [line for line in lines if re.match(r"\s+[A-Za-z].*%\s+[\d.]+$", line)]
    shares = [float(re.search(r"([\d.]+)%", row).group(1)) for row in rows]
    costs = [float(row.split()[-1]) for row in rows]
    assert sum(shares) == pytest.approx(100.0, abs=0.1 * len(rows))
    assert sum(costs) == pytest.approx(ms_per_it, abs=0.01 * len(rows))
    assert any("weak learner" in row for row in rows) and any("U passes: evaluations" in row for row in rows)
    steps = re.search(r"mean ([\d.]+), median ([\d.]+)", lines[1])
    assert float(steps.group(1)) >= 1.0 and float(steps.group(2)) >= 1.0


def test_time_outside_dualboost_is_split_by_what_each_caller_spent():
    from dualboost.problems import base

    bench = _load()
    code = base.gram_parts.__code__
    gram = (code.co_filename, code.co_firstlineno, code.co_name)
    loop = ("/x/dualboost/boosting/totally_corrective/drivers.py", 1, "entropy_loop")
    oracle = ("/x/dualboost/oracles/stumps.py", 1, "__call__")
    helper = ("/x/numpy/_core/numeric.py", 1, "outer")  # numpy: its callers own it
    builtin = ("~", 0, "<method 'reduce' of 'numpy.ufunc' objects>")  # called by the helper and the oracle

    class Table:  # pstats.Stats's table: func -> (primitive calls, calls, tottime, cumtime, callers)
        stats = {
            loop: (1, 1, 0.5, 10.0, {}),
            gram: (1, 1, 4.0, 8.0, {loop: (1, 1, 4.0, 8.0)}),
            oracle: (1, 1, 1.0, 1.5, {loop: (1, 1, 1.0, 1.5)}),
            helper: (3, 3, 3.0, 4.0, {gram: (2, 2, 2.0, 2.5), loop: (1, 1, 1.0, 1.5)}),
            builtin: (2, 2, 1.0, 1.0, {helper: (1, 1, 0.5, 0.5), oracle: (1, 1, 0.5, 0.5)}),
        }

    seconds = bench.categorised(Table())
    assert sum(seconds.values()) == pytest.approx(9.5)
    # gram 4 + 2/3 of the helper's 3 + 2/3 of the builtin's share through the helper (0.5)
    assert seconds["U passes: formed Hessians"] == pytest.approx(4.0 + 2.0 + 0.5 * 2 / 3)
    assert seconds["driver"] == pytest.approx(0.5 + 1.0 + 0.5 / 3)
    assert seconds["weak learner"] == pytest.approx(1.0 + 0.5)
