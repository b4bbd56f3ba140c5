"""Benchmark: the totally-corrective subproblem, hand-written dual path vs cvxpy.

For each instance (random or built from decision stumps on a9a), the ERLPBoost dual is solved to
the same certified relative gap (1e-6) by ``method="auglag"`` and by cvxpy with Clarabel, ECOS
and SCS, in the same run. Every reported gap is the model's own certificate, never a solver's
claim; a cvxpy solve whose certificate misses the tolerance is marked ``inaccurate`` and its time
is not used in the ratio. A warm-started re-solve after one new column is timed against a cold one,
twice: with the instance's last column appended (any column: on random instances the new column
can be arbitrary) and with the column of a pool of 50 candidates that has the largest edge on the
previous d appended, which is what a booster does (``warm-max``; its cold time is on the same
problem).

    python benchmarks/subproblem.py                 # the default grid (a few minutes)
    python benchmarks/subproblem.py --full          # the full grid (long: hours)
    python benchmarks/subproblem.py --sizes 1000 --columns 10 100 --solvers clarabel
    python benchmarks/subproblem.py --trajectory    # warm vs cold re-solves along boosting runs

The row ``auglag`` runs the library's defaults (as every other row): a cold solve starts with the
compiled Newton loop where it pays (``NewtonOptions(compiled="cold")``,
docs/solvers.md#options-the-compiled-re-solve). The row ``python`` is the cold solve again on the
Python path only (``NewtonOptions(compiled=False)``), its speed-up column the row ``auglag``'s over
it. The summary lines give the median speed-up over cvxpy + Clarabel at equal certified gap of both
(each line says which), and the median speed-up of a warm re-solve over a cold one. Every method is
warmed up once (the first solve of a process pays for imports), and a solve shorter than a second is
timed as the best of three runs, for every method alike.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dualboost.boosting.totally_corrective.drivers import PRACTICAL_TOL
from dualboost.instances import random_edge_matrix
from dualboost.problems import ERLPBoost, erlpboost_eta
from dualboost.solvers import AuglagOptions, NewtonOptions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import SHARED_DATA, make_parser  # noqa: E402

#: the a9a files: $DUALBOOST_DATA, else the data folder beside the repository
DATA = Path(os.environ.get("DUALBOOST_DATA") or SHARED_DATA)

TOL = 1e-6
#: the row "python": method="auglag" on the Python path only (NewtonOptions(compiled=False)),
#: not the library's default); the row "auglag" and the warm rows use the default options
PYTHON = AuglagOptions(newton=NewtonOptions(compiled=False))
#: candidate columns from which the booster's next (max-edge) column is taken
POOL = 50
#: cvxpy options: a time limit so that one slow solve cannot stall the run
LIMITS = {
    "clarabel": {"time_limit": 120.0},
    "ecos": {"max_iters": 200},
    "scs": {"time_limit_secs": 20.0},
}


def stump_matrix(n_samples: int, n_columns: int, seed: int) -> np.ndarray:
    """U from decision stumps on a9a: the stumps a boosting run would pick, approximated by the
    best stump for each of ``n_columns`` random distributions (distinct columns only)."""
    from dualboost.datasets import load_libsvm
    from dualboost.oracles import DecisionStumps

    parts = [
        load_libsvm(DATA / name, sparse=False, n_features=123)
        for name in ("a9a.train", "a9a.valid", "a9a.test")
    ]
    X = np.vstack([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    rng = np.random.default_rng(seed)
    rows = rng.choice(X.shape[0], size=n_samples, replace=False)
    oracle = DecisionStumps().fit(X[rows], y[rows])
    columns, seen = [], set()
    for _ in range(50 * n_columns):  # a9a's features are binary: few distinct stumps exist
        d = rng.exponential(size=n_samples) ** 3
        selection = oracle.best(d / d.sum())
        key = selection.column.tobytes()
        if key not in seen:
            seen.add(key)
            columns.append(selection.column)
            if len(columns) == n_columns:
                break
    return np.column_stack(columns)


#: a solve shorter than this is repeated (up to REPEAT runs in all) and its best time counts, the
#: same rule for every method: single runs of millisecond solves vary by 2-3x on a 2-core machine
SHORT = 1.0
REPEAT = 3


def timed(model, method, tol: float = TOL, **kwargs):
    """``(solution, seconds)``: the best of up to REPEAT runs while they take under SHORT seconds."""
    best = np.inf
    for _ in range(REPEAT):
        start = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sol = model.solve(method=method, side="dual", tol=tol, **kwargs)
        seconds = time.perf_counter() - start
        best = min(best, seconds)
        if seconds >= SHORT:
            break
    return sol, best


def warm_up(solvers: list[str]) -> None:
    """One small solve by each method before anything is timed: the first call of a process pays
    for imports and for finding the BLAS libraries (milliseconds, the size of a small solve)."""
    model = ERLPBoost(random_edge_matrix(50, 5, seed=0), nu=5.0, eta=10.0)
    for method in ["auglag", *solvers]:
        timed(model, method)
    timed(model, "auglag", options=PYTHON)


def max_edge_resolve(U: np.ndarray, pool: np.ndarray, nu: float, eta: float, previous):
    """The booster's re-solve: the candidate column of ``pool`` with the largest edge on the
    previous solution's d appended to ``U[:, :-1]``; returns (cold time, warm solution, warm time)."""
    best = int(np.argmax(pool.T @ previous.d))
    model = ERLPBoost(np.column_stack([U[:, :-1], pool[:, best]]), nu=nu, eta=eta)
    _, cold_time = timed(model, "auglag")
    warm, warm_time = timed(model, "auglag", warm_start=previous)
    return cold_time, warm, warm_time


def bench_instance(
    label: str, U: np.ndarray, pool: np.ndarray, nu: float, eta: float, solvers, tally: dict
) -> None:
    """Solve one instance with every method, print its rows and add to the tallies."""
    model = ERLPBoost(U, nu=nu, eta=eta)
    ours, ours_time = timed(model, "auglag")
    python, python_time = timed(model, "auglag", options=PYTHON)
    # warm start: the subproblem with t-1 columns, then one column appended: the instance's last
    # column (any column), and the max-edge column of a pool (what a booster appends)
    previous = ERLPBoost(U[:, :-1], nu=nu, eta=eta).solve(method="auglag", tol=TOL)
    warm, warm_time = timed(model, "auglag", warm_start=previous)
    tally["warm"].append(ours_time / warm_time)
    results = [("auglag", ours, ours_time), ("python", python, python_time), ("warm", warm, warm_time)]
    if pool.shape[1]:  # a9a's binary features give few distinct stumps: the pool can be empty
        cold_max, warm_max, warm_max_time = max_edge_resolve(U, pool, nu, eta, previous)
        tally["warm_max"].append(cold_max / warm_max_time)
        results.append(("warm-max", warm_max, warm_max_time))
    results += [(solver, *timed(model, solver, **LIMITS[solver])) for solver in solvers]
    for method, sol, seconds in results:
        speedup = ""
        if method == "python":
            speedup = f"{python_time / ours_time:8.1f}"
        elif method == "warm":
            speedup = f"{ours_time / warm_time:8.1f}"
        elif method == "warm-max":
            speedup = f"{cold_max / warm_max_time:8.1f}"
        elif method != "auglag":
            certified = sol.status == "optimal" and ours.status == "optimal"
            speedup = f"{seconds / ours_time:8.1f}" if certified else "     n/a"
            if certified and method == "clarabel":
                tally["clarabel"].append(seconds / ours_time)
                if python.status == "optimal":
                    tally["clarabel_python"].append(seconds / python_time)
        gap = f"{sol.relative_gap:9.1e}" if np.isfinite(sol.relative_gap) else "        -"
        iters = "-" if sol.iterations is None else str(sol.iterations)
        line = f"{label} {method:9s} {seconds:8.3f} {gap} {iters:>6s} {sol.status:10s} {speedup}"
        print(line, flush=True)
        if sol.status != "optimal":
            tally["missed"].append(f"{label} {method}: {sol.status}")


def run(args: argparse.Namespace) -> int:
    tally = {"clarabel": [], "clarabel_python": [], "warm": [], "warm_max": [], "missed": []}
    header = (
        f"{'source':7s} {'N':>6s} {'t':>4s} {'nu/N':>6s} {'eps':>6s} {'eta':>8s} {'method':9s} "
        f"{'time s':>8s} {'rel.gap':>9s} {'iters':>6s} {'status':10s} {'speed-up':>8s}"
    )
    print(header)
    print("-" * len(header))
    warm_up(args.solvers)
    for source in args.sources:
        if source == "a9a" and not DATA.is_dir():
            print(f"(a9a instances skipped: {DATA} not found)")
            continue
        for n in args.sizes:
            for t in args.columns:
                # t columns and a pool of POOL candidates for the booster's next column
                if source == "random":
                    U_all = random_edge_matrix(n, t + POOL, seed=n + t)
                else:
                    U_all = stump_matrix(n, t + POOL, seed=t)
                U, pool = U_all[:, :t], U_all[:, t:]
                if U.shape[1] < t or pool.shape[1] == 0:
                    print(f"({source} N={n}: only {U.shape[1]} distinct stumps found for t={t})")
                for frac in args.nu_fractions:
                    nu = 1.0 if frac == "1/N" else max(1.0, float(frac) * n)
                    for eps in args.eps:
                        eta = erlpboost_eta(n, nu, eps)
                        label = f"{source:7s} {n:6d} {U.shape[1]:4d} {frac:>6s} {eps:6g} {eta:8.0f}"
                        bench_instance(label, U, pool, nu, eta, args.solvers, tally)
    print()
    if tally["missed"]:
        print(f"{len(tally['missed'])} solves missed the certified gap {TOL:g} (inaccurate or failed):")
        for line in tally["missed"]:
            print(f"  {line}")
    warm = tally["warm"]
    for key, what in (
        ("clarabel", "auglag (default options, the row 'auglag')"),
        ("clarabel_python", "auglag on the Python path, NewtonOptions(compiled=False) (the row 'python')"),
    ):
        ratios = tally[key]
        if ratios:
            print(
                f"median speed-up of {what} over cvxpy + Clarabel at certified gap {TOL:g}: "
                f"{statistics.median(ratios):.1f}x over {len(ratios)} instances "
                f"(min {min(ratios):.1f}x, max {max(ratios):.1f}x)"
            )
    if warm:
        print(
            "median speed-up of a warm re-solve after one new column over a cold solve: "
            f"{statistics.median(warm):.1f}x over {len(warm)} instances (the instance's last column); "
            + (
                f"{statistics.median(tally['warm_max']):.1f}x (the max-edge column of a pool of {POOL}, "
                "as a booster appends)"
                if tally["warm_max"]
                else "no pool column"
            )
        )
    return 0


def large(n_samples: int = 200_000, n_columns: int = 200) -> int:
    """The large case: ERLPBoost with N = 2e5, t = 200 (+-1 entries, as stumps give), eta at
    its theoretical value for eps = 0.01, auglag only (a conic solve at this size takes hours)."""
    U = random_edge_matrix(n_samples, n_columns, seed=7, binary=True)
    for frac in ("1/N", "0.1"):
        nu = 1.0 if frac == "1/N" else float(frac) * n_samples
        eta = erlpboost_eta(n_samples, nu, 0.01)
        sol, seconds = timed(ERLPBoost(U, nu=nu, eta=eta), "auglag")
        print(
            f"large N={n_samples} t={n_columns} nu/N={frac} eta={eta:.0f}: {sol.status}, relative gap "
            f"{sol.relative_gap:.1e}, {sol.iterations} iterations, {seconds:.2f} s",
            flush=True,
        )
    return 0


#: the boosting runs of --trajectory: (data set, nu/N) with decision stumps, eps = 0.01
TRAJECTORY_RUNS = (("german", "0.1"), ("diabetes", "0.1"), ("a9a", "0.1"), ("a9a", "1/N"))


def trajectory(eps: float = 0.01, points: int = 6, runs=TRAJECTORY_RUNS) -> int:
    """Warm against cold re-solves along real boosting runs: ERLPBoost with decision stumps on the
    thesis's data (training split), then, at ``points`` values of t spread over the run, the
    subproblem over the run's first t columns solved cold and warm-started from the solution over
    its first t - 1 columns (what a booster's next iteration does), at the benchmark's certified gap
    (1e-6) and at the driver's own tolerance (``PRACTICAL_TOL`` eps). A row whose solves are not
    both certified ends with their statuses; one whose dual values differ by more than the tolerance, with
    ``disagree``."""
    from dualboost.boosting import erlpboost
    from dualboost.datasets import load_dataset
    from dualboost.oracles import DecisionStumps

    ratios: dict[str, list[float]] = {"1e-6": [], "driver": []}
    header = f"{'data':9s} {'nu/N':>5s} {'N':>6s} {'t':>4s} {'eta':>6s} {'tol':>8s} "
    header += f"{'cold s':>8s} {'warm s':>8s} {'iters c/w':>10s} {'ratio':>6s}"
    print(header)
    print("-" * len(header))
    for name, frac in runs:
        X, y = load_dataset(name, download=False).train
        n = y.size
        nu = 1.0 if frac == "1/N" else float(frac) * n
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run = erlpboost(DecisionStumps().fit(X, y), nu=nu, eps=eps)
        U = np.asarray(run.columns, dtype=np.float64)
        eta = erlpboost_eta(n, nu, eps)
        for t in np.unique(np.linspace(2, U.shape[1], points).astype(int)):
            for label, tol in (("1e-6", TOL), ("driver", PRACTICAL_TOL * eps)):
                previous = ERLPBoost(U[:, : t - 1], nu=nu, eta=eta).solve(method="auglag", tol=tol)
                model = ERLPBoost(U[:, :t], nu=nu, eta=eta)
                cold, cold_time = timed(model, "auglag", tol=tol)
                warm, warm_time = timed(model, "auglag", tol=tol, warm_start=previous)
                ratios[label].append(cold_time / warm_time)
                print(
                    f"{name:9s} {frac:>5s} {n:6d} {t:4d} {eta:6.0f} {tol:8.2g} "
                    f"{cold_time:8.3f} {warm_time:8.3f} {cold.iterations:>4d}/{warm.iterations:<5d} "
                    f"{cold_time / warm_time:6.1f}"
                    + ("" if warm.status == cold.status == "optimal" else f"  {cold.status}/{warm.status}")
                    + (
                        ""
                        if abs(warm.dual_value - cold.dual_value) <= tol * max(1.0, abs(cold.primal_value))
                        else "  disagree"
                    ),
                    flush=True,
                )
    for label, values in ratios.items():
        print(
            f"median speed-up of a warm re-solve along the runs ({label} tolerance): "
            f"{statistics.median(values):.1f}x over {len(values)} re-solves (min {min(values):.1f}x, "
            f"max {max(values):.1f}x)"
        )
    return 0


def main(argv=None) -> int:
    parser = make_parser(__doc__)
    parser.add_argument("--full", action="store_true", help="the full grid (N up to 3e4, t up to 300)")
    parser.add_argument("--sizes", type=int, nargs="+", default=None, help="N values (default 1000 10000)")
    parser.add_argument("--columns", type=int, nargs="+", default=None, help="t values (default 10 100)")
    parser.add_argument("--nu-fractions", nargs="+", default=["1/N", "0.1", "0.5"], help="nu/N values")
    parser.add_argument(
        "--eps", type=float, nargs="+", default=[0.01, 0.001], help="eps (eta is theoretical)"
    )
    parser.add_argument("--solvers", nargs="+", default=["clarabel", "ecos", "scs"], help="cvxpy solvers")
    parser.add_argument("--large", action="store_true", help="only the N = 2e5, t = 200 auglag timing")
    parser.add_argument(
        "--trajectory", action="store_true", help="only warm against cold re-solves along boosting runs"
    )
    parser.add_argument("--sources", nargs="+", default=["random", "a9a"], choices=["random", "a9a"])
    args = parser.parse_args(argv)
    if args.large:
        return large()
    if args.trajectory:
        return trajectory()
    if args.sizes is None:
        args.sizes = [1000, 10000, 30000] if args.full else [1000, 10000]
    if args.columns is None:
        args.columns = [10, 100, 300] if args.full else [10, 100]
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
