"""Smoke tests of the thesis benchmarks on tiny configurations of german.

Each script runs end to end in seconds; the checks are consistency checks that can fail:

* ``benchmarks/thesis.py``: the selected setting is a grid point and has the smallest validation
  error of its group; errors are fractions of the split's sizes; the selected ERLPBoost run's test
  error equals that of ``ERLPBoostClassifier`` fitted independently with the same parameters; the
  printed table carries the thesis's numbers (Table 5.4) beside ours.
* ``benchmarks/tc_vs_corrective.py``: the duality gap delta~ = min_q P^q(d^{q-1}) - Theta^{t-1}
  ([KG] Sec 3.2.2) decreases as the theory says: min P is a running minimum and Theta^t increases, for
  the totally corrective run up to the certified gap of each inexact re-solve (the exact optimum
  Theta*_t grows with t since S^{t-1} is a face of S^t) and for the corrective run exactly (the
  clipped step increases the dual, [SS] Lemma 12); the reach table is monotone in the threshold;
  the PNG is written.
* ``benchmarks/subproblem.py`` (a one-instance grid): the default and the compiled cold solve are
  both timed and certified, and the summary names the options of each ratio to Clarabel.
* ``benchmarks/subproblem.py --trajectory``: every re-solve along the run is certified cold and
  warm, and the two dual values agree within the tolerance.
* ``benchmarks/cpp_erlpboost.py``: the run converges (delta~ <= eps/2) within Thm 3.12's bound, the
  oracle and solver times add up to at most the total, and the printed ratio is C++ time / ours.
"""

from __future__ import annotations

import importlib.util
import io
import math
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from tests.environment import DATA_DIR, requires_data

ROOT = Path(__file__).resolve().parents[2]
DATA = DATA_DIR
pytestmark = requires_data("german.numer")


def _load(name: str):
    """Import ``benchmarks/<name>.py`` (the folder is not a package)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _data_dir(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA))


# ---------------------------------------------------------------- thesis.py


def test_thesis_selection_is_consistent_and_matches_the_estimator(tmp_path):
    thesis = _load("thesis")
    from dualboost import ERLPBoostClassifier
    from dualboost.datasets import load_dataset

    argv = ["--nu", "0", "0.5", "--eps", "0.1", "--max-iter", "25"]
    grid = thesis.grid_from_args(thesis.build_parser().parse_args(argv))
    algorithms = ["erlpboost", "corrective_erlpboost", "adaboost", "sklearn_adaboost"]
    runs = thesis.run_grid(grid, ["german"], algorithms, ["stumps"], [0])
    assert len(runs) == 2 + 2 + 1 + 1  # two nu/N values for the entropic ones, one AdaBoost run each
    split = load_dataset("german", seed=0, download=False)
    n_valid, n_test = split.valid[1].size, split.test[1].size
    for run in runs:
        assert run.config in grid.configs(run.algorithm)
        for err, n in ((run.valid_error, n_valid), (run.test_error, n_test)):
            assert 0.0 <= err <= 1.0
            assert math.isclose(err * n, round(err * n), abs_tol=1e-9)  # a count of mistakes
        assert 1 <= run.iterations <= 25 and 0 <= run.hypotheses <= run.iterations
        no_rule = run.algorithm in thesis.ADABOOSTS  # AdaBoost runs its rounds: never "capped"
        assert run.capped == (not no_rule and not run.converged and run.iterations == 25)
    selections = thesis.select(runs)
    assert {s.algorithm for s in selections} == set(algorithms)
    for sel in selections:
        group = [r for r in runs if r.algorithm == sel.algorithm]
        (chosen,) = sel.selected
        assert chosen.valid_error == min(r.valid_error for r in group)
        assert chosen is next(r for r in group if r.valid_error == chosen.valid_error)  # ties: first
        assert sel.best_test == [min(r.test_error for r in group)]

    # independent path: the estimator with the selected parameters predicts the same test labels
    (erlp,) = [s.selected[0] for s in selections if s.algorithm == "erlpboost"]
    nu = erlp.config.nu_fraction or 1.0 / split.train[1].size  # nu/N = 0 stands for nu = 1
    clf = ERLPBoostClassifier(nu=nu, eps=0.1, max_iter=25).fit(*split.train)
    assert clf.n_iter_ == erlp.iterations
    assert np.mean(clf.predict(split.test[0]) != split.test[1]) == pytest.approx(erlp.test_error, abs=0)

    text = thesis.format_tables(selections, grid)
    row = next(line for line in text.splitlines() if line.startswith("erlpboost "))
    assert "28.50" in row  # Table 5.4, erlp on german
    assert f"{100 * erlp.test_error:.2f}" in row


def test_thesis_main_writes_table_and_runs_csv(tmp_path):
    thesis = _load("thesis")
    out = tmp_path / "thesis.txt"
    argv = ["--datasets", "german", "--algorithms", "binary_erlpboost", "corrective_binary_erlpboost"]
    argv += ["--oracles", "raw", "--nu", "0.3", "--eps", "0.2", "--max-iter", "15", "--out", str(out)]
    assert thesis.main(argv) == 0
    text = out.read_text()
    assert "raw on german" in text and "Table 5.5" in text
    assert re.search(r"^binary_erlpboost .* 26\.50 ", text, re.M)  # Table 5.5, bin on german
    csv_lines = (tmp_path / "thesis-runs.csv").read_text().splitlines()
    assert len(csv_lines) == 1 + 2 and csv_lines[0].startswith("oracle,dataset,seed,algorithm")
    with pytest.raises(SystemExit):
        thesis.main(["--nu", "1.5", "--out", "-"])


# ---------------------------------------------------------------- tc_vs_corrective.py


def test_gap_traces_decrease_as_the_theory_says():
    tc = _load("tc_vs_corrective")
    from dualboost.datasets import load_dataset
    from dualboost.oracles import DecisionStumps

    X, y = load_dataset("german", seed=0, download=False).train
    oracle = DecisionStumps().fit(X, y)
    eps = 0.02
    for algorithm in ("erlpboost", "corrective_erlpboost"):
        trace = tc.run_capped(algorithm, oracle, nu=1.0, eps=eps, max_iter=80, time_cap=30.0)
        gap, dual, certified = trace.column("stopping"), trace.column("dual"), trace.column("gap")
        assert np.all(np.isfinite(gap)) and gap[0] > eps / 2
        if algorithm == "erlpboost":
            slack = np.r_[0.0, np.nan_to_num(certified[:-1])]  # gap of the solve behind Theta^{t-1}
        else:
            slack = np.zeros(gap.size)
            theta = dual[np.isfinite(dual)]
            assert np.all(np.diff(theta) >= -1e-12)  # the clipped step never lowers the dual
        assert np.all(np.diff(gap) <= slack[1:] + 1e-12)
        if trace.stop == "converged":
            assert gap[-1] <= eps / 2 < gap[-2]
        hits = [trace.reach(t) for t in tc.THRESHOLDS]
        reached = [h for h in hits if h is not None]
        assert hits == reached + [None] * (len(hits) - len(reached))  # smaller thresholds later
        assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(reached, reached[1:], strict=False))
        for threshold, hit in zip(tc.THRESHOLDS, hits, strict=True):
            if hit is not None:
                assert gap[hit[0] - 1] <= threshold and np.all(gap[: hit[0] - 1] > threshold)


def test_tc_vs_corrective_main_writes_table_and_png(tmp_path):
    tc = _load("tc_vs_corrective")
    out = tmp_path / "tc.txt"
    argv = ["--datasets", "german", "--eps", "0.05", "--max-iter", "40", "--time-cap", "20"]
    assert tc.main(argv + ["--pairs", "erlpboost", "--out", str(out)]) == 0
    text = out.read_text()
    assert "german, stumps, eps = 0.05" in text and "Fig. 5.29" in text
    rows = [line.split() for line in text.splitlines() if line.startswith(("erlpboost ", "corrective_"))]
    assert [r[0] for r in rows] == ["erlpboost", "corrective_erlpboost"]
    png = tmp_path / "tc-german-stumps.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- cpp_erlpboost.py


def test_cpp_comparison_run_converges_within_the_bound(tmp_path):
    cpp = _load("cpp_erlpboost")
    from dualboost.boosting.core.stopping import erlpboost_max_iter

    ref = cpp.REFERENCES["german"]
    (label, X, y), *_ = cpp.training_sets("german", [])
    assert label == cpp.WHOLE and X.shape[0] == 1000  # the whole german.numer file
    r = cpp.run_one(X, y, ref)
    assert r["converged"] and r["stopping"] <= ref.eps / 2
    assert r["iterations"] <= erlpboost_max_iter(r["eta"], ref.eps)
    assert r["eta"] == pytest.approx(2.0 / ref.eps * math.log(1000.0))  # canonical eta, nu = 1
    assert r["oracle"] + r["solver"] <= r["time"] + 1e-9
    line = cpp.row("german", label, r, ref)
    assert f"{ref.seconds / r['time']:.1f}x" in line and f" {r['iterations']} " in line


# ---------------------------------------------------------------- subproblem.py (the grid)


def test_subproblem_grid_times_the_default_and_the_python_cold_solve(capsys):
    """One tiny random instance: the rows of both cold solves (the defaults, and the Python path
    only), certified, and one summary line per set of options, naming it."""
    subproblem = _load("subproblem")
    argv = ["--sizes", "300", "--columns", "6", "--nu-fractions", "1/N", "--eps", "0.01"]
    assert subproblem.main([*argv, "--solvers", "clarabel", "--sources", "random"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[6]: line.split() for line in out.splitlines() if line.startswith("random")}
    assert {"auglag", "python", "warm", "clarabel"} <= set(rows)
    for method in ("auglag", "python"):
        assert rows[method][10] == "optimal" and float(rows[method][8]) <= subproblem.TOL
    assert float(rows["python"][11]) > 0.0  # (python / auglag: the printed times are rounded)
    assert "auglag (default options, the row 'auglag') over cvxpy + Clarabel" in out
    assert "auglag on the Python path, NewtonOptions(compiled=False) (the row 'python') over cvxpy" in out


# ---------------------------------------------------------------- subproblem.py --trajectory


def test_trajectory_resolves_are_certified_and_agree(capsys):
    subproblem = _load("subproblem")
    assert subproblem.trajectory(eps=0.1, points=3, runs=(("german", "0.1"),)) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("german")]
    assert len(rows) == 6  # 3 values of t, 2 tolerances
    for row in rows:
        assert re.search(r"\d+/\d+\s+[\d.]+$", row), row  # no status or disagreement after the ratio
    assert "median speed-up of a warm re-solve along the runs (1e-6 tolerance)" in out


# ---------------------------------------------------------------- vs_adaboost.py and the topic set


def test_vs_adaboost_main_writes_the_table(tmp_path):
    bench = _load("vs_adaboost")
    out = tmp_path / "vs_adaboost.txt"
    argv = ["--datasets", "german", "--eps", "0.01", "0.001", "--repeat", "1", "--out", str(out)]
    assert bench.main(argv) == 0
    rows = [line.split() for line in out.read_text().splitlines() if line.split()[:1] == ["german"]]
    rows = [row for row in rows if row[1] != "eps"]  # not the per-iteration lines
    assert [row[1] for row in rows] == ["0.01", "0.001"]
    for row in rows:  # T, the ERLPBoost seconds and the AdaBoost ratio are the measured ones
        T, seconds, ada, ratio = int(row[2]), float(row[3]), float(row[9]), float(row[10])
        assert T > 1 and seconds > 0 and ada > 0
        # (each printed to 0.01: the ratio of the unrounded times lies within the rounded bounds)
        assert (seconds - 0.005) / (ada + 0.005) - 0.005 <= ratio <= (seconds + 0.005) / (ada - 0.005) + 0.005
    assert "LPBoost" in " ".join(rows[1]) and "time per iteration" in out.read_text()


def test_topic_set_is_the_documented_one():
    scale = _load("scale")
    X, y = scale.topic_set(n=2_000, vocabulary=50_000, words=120, topic_size=500, seed=3)
    assert X.shape == (2_000, 50_000) and set(np.unique(X.data)) == {1.0}
    per_document = X.getnnz(axis=1)
    assert per_document.max() <= 120 and per_document.min() > 60  # 120 draws, repeats collapse
    assert set(np.unique(y)) == {-1.0, 1.0} and abs(y.mean()) < 0.1
    # Zipf(1): word 0 is drawn with probability 0.9 / H_50000 ~ 0.08 per draw, in nearly every document
    assert X[:, 0].mean() > 0.95
    # the topics separate the classes (up to the 5 % flipped labels): 12 topic draws per document
    # over 500 words put a topic word in ~2.4 % of its class's documents, ~0.1 % of the other's
    # (a Zipf word is in both classes' documents at one rate, up to noise)
    low, high = np.sort([np.asarray(X[y == c].mean(axis=0)).ravel() for c in (-1.0, 1.0)], axis=0)
    frequent = low + high > 0.02
    assert np.sum(frequent & (high > 5 * low)) >= 500  # most of the 2 x 500 topic words
    assert np.sum(frequent & (high > 5 * low) & (np.arange(X.shape[1]) < 100)) == 0  # no Zipf head word


def test_scale_case_reports_the_solver_time_per_iteration_as_t_grows(monkeypatch):
    scale = _load("scale")
    dense_set = scale.dense_set
    monkeypatch.setattr(scale, "dense_set", lambda n, p=100, seed=0: dense_set(2_000, p, seed))
    result = scale.one_case("dense/stumps", full=False, max_iter=120)
    assert result["iterations"] == 120 and result["shape"] == [2_000, 100]  # (not converged by then)
    assert result["solve_ms_t100"] > 0 and result["solve_ms_last"] > 0
    assert result["solver_s"] * 1e3 >= 20 * min(result["solve_ms_t100"], result["solve_ms_last"])


# ---------------------------------------------------------------- cpp_erlpboost.py --cpp


def test_cpp_inputs_are_the_training_set_and_the_documented_config(tmp_path):
    from sklearn.datasets import load_svmlight_file

    cpp = _load("cpp_erlpboost")
    (_, X, y), *_ = cpp.training_sets("german", [])
    for data in (X, sp.csr_matrix(X)):
        config = cpp.write_cpp_inputs(data, y, nu=1.0, eps=0.01, max_iter=1234, folder=tmp_path)
        lines = config.read_text().splitlines()
        entries = dict(line.split(" = ", 1) for line in lines)
        assert len(entries) == len(lines)
        folder = tmp_path.resolve()
        assert entries == {
            "train_file": str(folder / "train.libsvm"),
            "test_file": str(folder / "train.libsvm"),
            "output_file": str(folder / "output.txt"),
            "oracle_type": "decisionstump",
            "reflexive": "true",
            "max_iter": "1234",
            "booster_type": "ERLPBoost",
            "optimizer_type": "lbfgsb",
            "nu": "1.0",
            "eps": "0.01",
            "binary": "false",
        }
        # 1-based indices: an index 0 would be -1 here and refused
        back, labels = load_svmlight_file(entries["train_file"], n_features=X.shape[1], zero_based=False)
        np.testing.assert_array_equal(back.toarray(), X)
        np.testing.assert_array_equal(labels, y)
    with pytest.raises(ValueError, match="-1/\\+1"):
        cpp.write_cpp_inputs(X, (y + 1) / 2, nu=1.0, eps=0.01, max_iter=10, folder=tmp_path)


def test_cpp_output_is_parsed_and_a_failed_run_is_reported(tmp_path):
    cpp = _load("cpp_erlpboost")
    finished = "epsilon gap: 0.0048\n\nFinished in 139 iterations \nTotal CPU time expended: 2.78 seconds\n"
    assert cpp.parse_cpp_output(finished, 5000) == (139, True, 2.78)
    exceeded = "Max iterations exceeded!\nTotal CPU time expended: 0.5 seconds\n"
    assert cpp.parse_cpp_output(exceeded, 20) == (20, False, 0.5)
    assert cpp.parse_cpp_output("Running Erlpboost\n", 20) == (None, False, None)

    failing = tmp_path / "failing_peer"
    failing.write_text("#!/bin/sh\necho 'reading' >&2\necho 'what():  Cannot open data file' >&2\nexit 3\n")
    failing.chmod(0o755)
    (_, X, y), *_ = cpp.training_sets("german", [])
    failed = cpp.run_cpp(failing, X, y, 1.0, 0.01, 100)
    assert failed.iterations is None and not failed.converged
    assert failed.error == "exit status 3: what():  Cannot open data file"
    out = io.StringIO()
    (_, _, r), *_ = cpp.run(["german"], [], out, cpp=failing)
    text = out.getvalue()
    assert f"C++ run on german (whole file) failed: {failed.error}" in text
    assert cpp.row("german", cpp.WHOLE, r, cpp.REFERENCES["german"]).split()[-3:] == ["-", "-", "yes"]
    assert "the C++ run failed: no ratio" in text and "quoted" not in text


def test_cpp_runs_alternate_with_ours_and_the_best_of_each_is_compared(tmp_path, monkeypatch):
    """``--cpp-repeat``: the C++ runs alternate with ours (ours, C++, ours, C++, ...), the C++ figure
    is the fastest run that did not fail, every such run's seconds are listed, and the ratio is best
    against best."""
    cpp = _load("cpp_erlpboost")
    order = tmp_path / "order.txt"
    peer = tmp_path / "peer"  # runs 1 and 3 take ~0.3 s and ~0.05 s, run 2 fails
    peer.write_text(
        "#!/bin/sh\n"
        f"echo cpp >> '{order}'\n"
        f"n=$(grep -c cpp '{order}')\n"
        'if [ "$n" = 2 ]; then echo broken >&2; exit 3; fi\n'
        'if [ "$n" = 1 ]; then sleep 0.3; else sleep 0.05; fi\n'
        "echo 'Finished in 7 iterations'\n"
        "echo 'Total CPU time expended: 0.01 seconds'\n"
    )
    peer.chmod(0o755)
    ours = iter([0.02, 0.01, 0.03])

    def run_one(X, y, ref, compiled="auto"):
        with open(order, "a") as log:
            log.write("ours\n")
        fields = ("n", "nu", "eta", "iterations", "stopping", "cpu", "oracle", "solver", "oracle_per_call_ms")
        return dict.fromkeys(fields, 1) | {"converged": True, "time": next(ours), "eta": 100.0}

    monkeypatch.setattr(cpp, "run_one", run_one)
    out = io.StringIO()
    ((_, _, r),) = cpp.run(["german"], [], out, cpp=peer, repeat=3, cpp_repeat=3)
    assert order.read_text().split() == ["ours", "cpp"] * 3
    assert r["time"] == 0.01 and r["cpp"].error is None and r["cpp"].iterations == 7
    assert len(r["cpp_seconds"]) == 2 and r["cpp"].seconds == min(r["cpp_seconds"]) < 0.3
    listed = ", ".join(f"{t:.2f}" for t in r["cpp_seconds"])
    assert f"(best of 2: {listed})" in out.getvalue()
    assert f"{r['cpp'].seconds / 0.01:.1f}x" in out.getvalue()
    broken = [cpp.CppRun(None, False, 0.1, None, "exit status 3: broken")] * 2
    assert cpp.best_cpp_run(broken) is broken[0]
    with pytest.raises(ValueError, match="cpp_repeat"):
        cpp.run(["german"], [], out, cpp=peer, cpp_repeat=0)


def _cpp_peer() -> Path:
    """The C++ binary named by $DUALBOOST_CPP_PEER; skip the test when there is none (CI)."""
    peer = os.environ.get("DUALBOOST_CPP_PEER", "")
    if not peer:
        pytest.skip("$DUALBOOST_CPP_PEER (path to the 2009 C++ test_erlpboost binary) is not set")
    if not Path(peer).is_file():
        pytest.skip(f"$DUALBOOST_CPP_PEER={peer} is not a file")
    return Path(peer)


def test_cpp_peer_is_measured_on_german():
    cpp = _load("cpp_erlpboost")
    peer = _cpp_peer()
    out = io.StringIO()
    ((name, label, r),) = cpp.run(["german"], [], out, cpp=peer)
    measured = r["cpp"]
    assert measured.error is None and measured.converged
    assert measured.iterations > 0 and measured.seconds > 0
    ratio = f"{measured.seconds / r['time']:.1f}x"  # C++ seconds / ours, both measured here
    line = cpp.row(name, label, r, cpp.REFERENCES[name])
    fields = line.split()  # ... C++ it, time s, cpu s, oracle s, solver s, ms/call, C++ s, ratio, conv
    assert int(fields[-9]) == measured.iterations and fields[-3] == f"{measured.seconds:.2f}"
    assert fields[-2] == ratio and line in out.getvalue()
    verdict = "meets" if measured.seconds / r["time"] >= cpp.CPP_TARGET_RATIO else "misses"
    assert f"{measured.iterations} iterations, {measured.seconds:.2f} s wall" in out.getvalue()
    assert f"{ratio}, {verdict} the 50x target" in out.getvalue()
    assert "quoted" not in out.getvalue()


# ---------------------------------------------------------------- ensemble_memory.py


def test_ensemble_memory_reports_the_arrays_held_one_row_per_size(tmp_path):
    bench = _load("ensemble_memory")
    out = tmp_path / "ensemble_memory.txt"
    # 3,000 x 40 (capacity 64) holds 9 x 3,000 x 64 = 1,728,000 bytes > 0.0005 GB: skipped
    argv = ["--sizes", "500", "3000", "--hypotheses", "10", "40", "--repeat", "2", "--max-gb", "0.0005"]
    assert bench.main(argv + ["--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# python benchmarks/ensemble_memory.py --sizes 500 3000") and bench.HEADER in text
    rows = [line.split() for line in text.splitlines() if re.match(r"\s+[\d,]+\s+\d+\s", line)]
    assert [" ".join(row[:2]) for row in rows] == ["500 10", "500 40", "3,000 10", "3,000 40"]
    assert " ".join(rows[3][2:]) == "skipped: 1,728,000 bytes > --max-gb 0.0005"
    for row in rows[:3]:
        n, t = int(row[0].replace(",", "")), int(row[1])
        ensemble = bench.build(n, t)
        U = ensemble.U  # the mirror a totally-corrective driver keeps
        int8, mirror = ensemble.stored.base, U.base  # the arrays held, at the buffer's capacity
        assert int8.dtype == np.int8 and mirror.dtype == np.float64 and int8.shape == mirror.shape
        assert int(row[2]) == int8.shape[1] >= t
        assert int(row[3].replace(",", "")) == int8.nbytes == n * int8.shape[1]
        assert int(row[4].replace(",", "")) == mirror.nbytes == 8 * int8.nbytes
        assert row[5] == "9.0"  # bytes per entry, int8 store + float64 mirror
        f64_edges, int8_edges, f64_margins, int8_margins = (float(row[i]) for i in (6, 7, 9, 10))
        assert min(f64_edges, int8_edges, f64_margins, int8_margins) >= 0.0
        assert float(row[12]) <= 1e-12  # the compact products agree with the GEMVs
        measured = bench.measure(ensemble, repeat=1)
        assert (measured.int8_bytes, measured.float64_bytes) == (int8.nbytes, mirror.nbytes)
