"""ERLPBoost against scikit-learn's AdaBoost with the same number of decision stumps.

For each data set, in one process: ``ERLPBoostClassifier(nu=0.1, eps=0.01)`` (decision stumps,
the practical stopping criterion, the default ``method="auglag"``) is fitted and timed, then
scikit-learn's ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=T)`` with T
the number of iterations ERLPBoost took. The ratio ERLPBoost / AdaBoost is the figure of merit
(target: <= 1 on every set). Beside AdaBoost, LightGBM with as many depth-1 trees
(``LGBMClassifier(n_estimators=T, num_leaves=2, max_depth=1, n_jobs=1)``, its default learning rate;
one thread like scikit-learn's trees: its OpenMP threads on a shared 2-core machine took 1.9 s
instead of 0.01 s on german),
what a user would pick instead of either: its seconds, the ratio ERLPBoost / LightGBM and its training
accuracy beside those of ERLPBoost and AdaBoost. Without ``lightgbm`` installed (the ``[bench]`` extra)
the script says so and leaves its columns out. With ``--eps 1e-3 1e-4`` the same ERLPBoost runs at
larger eta are compared with ``LPBoostClassifier`` (HiGHS) at the same nu and eps, and with ERLPBoost's own
eps = 1e-2 run (time per iteration).

Each ERLPBoost fit also reports what its subproblem solves cost: Hessians formed, Hessian-vector
products and dual evaluations (``Solution.extra`` of every iteration's certified solution), and the
seconds inside the solver.

``--baseline PATH`` runs the ERLPBoost fits again with the dualboost package found at PATH (an
older checkout, e.g. ``git worktree add /tmp/before <rev>``) in a subprocess, for a before/after
table measured by the same command. Every time is the best of ``--repeat`` runs (default 3: single
runs of the small sets vary by 20 % on a 2-core machine).

    python benchmarks/vs_adaboost.py                      # all five sets below
    python benchmarks/vs_adaboost.py --datasets german diabetes gaussian   # the small ones (~1 min)
    python benchmarks/vs_adaboost.py --eps 1e-2 1e-3 --datasets diabetes german
    python benchmarks/vs_adaboost.py --baseline /tmp/before
    python benchmarks/vs_adaboost.py --python-path --datasets german diabetes   # compiled vs Python

``--python-path`` adds ERLPBoost's time on the Python path (``NewtonOptions(compiled=False)``, no
compiled re-solve; docs/architecture.md#compiled-code), its runs alternating with the compiled
ones, and the compiled path's speed-up ``x``.

The data sets are the thesis's (the training part of its 60/20/20 split; a9a's shipped training
file, 29,305 x 123) from ``$DUALBOOST_DATA`` or ``../shared/data``; a Gaussian set:
N = 4000, 20 features, ``y = sign(x0 + 0.5 x1 + 0.3 e)``, seed 11; and the topic set of
``benchmarks/scale.py`` (:func:`topic_set`: 20,000 binary bag-of-words documents over a
1,355,191-word vocabulary, sparse; AdaBoost's trees take it as CSR). Output:
``benchmarks/results/vs_adaboost.txt`` (``--out``).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402

DATASETS = ("german", "diabetes", "gaussian", "a9a", "topic")


def load(name: str) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """The training data of ``name`` as a dense float64 array (the topic set: sparse CSR) and labels."""
    if name == "topic":  # benchmarks/scale.py's topic set, 20,000 x 1,355,191 binary
        spec = importlib.util.spec_from_file_location("scale", Path(__file__).with_name("scale.py"))
        scale = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(scale)
        return scale.topic_set()
    if name == "gaussian":
        rng = np.random.default_rng(11)
        X = rng.normal(size=(4000, 20))
        return X, np.sign(X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=4000))
    from dualboost.datasets import load_dataset

    X, y = load_dataset(name, seed=0, sparse=False, download=False).train
    return np.asarray(X, dtype=np.float64), y


@contextmanager
def each_auglag_solution(record: Callable, compiled: bool | str = "auto") -> Iterator[None]:
    """``record(solution)`` for every ``method="auglag"`` solve in the block: by the callback of
    ``AuglagOptions`` (docs/solvers.md#options), or, in a baseline checkout without it, by wrapping
    ``solvers.solve_auglag`` (what ``solvers.solve`` called there). ``compiled``: the solves'
    ``NewtonOptions.compiled`` (other than "auto" only in a checkout that has it)."""
    import dualboost.solvers as solvers

    if hasattr(solvers, "default_options"):
        def solved(stage) -> None:
            if stage.name == "solved":
                record(stage.solution)

        has_option = "compiled" in inspect.signature(solvers.NewtonOptions).parameters
        extra = {"newton": solvers.NewtonOptions(compiled=compiled)} if has_option else {}
        with solvers.default_options(solvers.AuglagOptions(callback=solved, **extra)):
            yield
        return
    solve = solvers.solve_auglag

    def counted(*args, **kwargs):
        solution = solve(*args, **kwargs)
        record(solution)
        return solution

    solvers.solve_auglag = counted
    try:
        yield
    finally:
        solvers.solve_auglag = solve


def erlpboost_run(name: str, eps: float, nu: float, compiled: bool | str = "auto") -> dict:
    """Fit ERLPBoost on ``name`` and return its time, iterations and solver counters (``compiled``:
    ``NewtonOptions.compiled`` of its solves, False for the Python path)."""
    from dualboost import ERLPBoostClassifier

    X, y = load(name)
    counters = {"solver_seconds": 0.0, "hessians": 0, "hessian_products": 0, "evaluations": 0}

    def counted(solution) -> None:
        counters["solver_seconds"] += solution.solve_time
        for key in ("hessians", "hessian_products", "evaluations"):
            counters[key] += int(solution.extra.get(key, 0))

    with each_auglag_solution(counted, compiled), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        clf = ERLPBoostClassifier(nu=nu, eps=eps).fit(X, y)
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "iterations": int(clf.n_iter_), "train_accuracy": clf.score(X, y), **counters}


def adaboost_run(name: str, n_estimators: int) -> dict:
    from sklearn.ensemble import AdaBoostClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = load(name)
    start = time.perf_counter()
    clf = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n_estimators).fit(X, y)
    return {"seconds": time.perf_counter() - start, "train_accuracy": clf.score(X, y)}


def lightgbm_available() -> bool:
    """Whether ``lightgbm`` can be imported (the ``[bench]`` extra of pyproject.toml)."""
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return False
    return True


def lightgbm_run(name: str, n_estimators: int) -> dict:
    """LightGBM with ``n_estimators`` depth-1 trees (two leaves each) on ``name``: seconds, accuracy."""
    from lightgbm import LGBMClassifier

    X, y = load(name)
    start = time.perf_counter()
    model = LGBMClassifier(n_estimators=n_estimators, num_leaves=2, max_depth=1, n_jobs=1, verbose=-1)
    clf = model.fit(X, y)
    return {"seconds": time.perf_counter() - start, "train_accuracy": clf.score(X, y)}


def lpboost_run(name: str, eps: float, nu: float) -> dict:
    from dualboost import LPBoostClassifier

    X, y = load(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        clf = LPBoostClassifier(nu=nu, eps=eps).fit(X, y)
    return {"seconds": time.perf_counter() - start, "iterations": int(clf.n_iter_)}


def baseline_run(path: Path, name: str, eps: float, nu: float) -> dict:
    """:func:`erlpboost_run` with the dualboost package at ``path``, in a fresh interpreter."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2]);"
        "import vs_adaboost as b;"
        "print(json.dumps(b.erlpboost_run(sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))))"
    )
    env = dict(os.environ, PYTHONPATH="")
    args = [sys.executable, "-c", code, str(path), str(Path(__file__).parent), name, str(eps), str(nu)]
    out = subprocess.run(args, capture_output=True, text=True, env=env, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def best_pair(repeat: int, name: str, eps: float, nu: float) -> tuple[dict, dict]:
    """The best of ``repeat`` ERLPBoost fits on the compiled and on the Python path, the two runs
    alternating (so that a change in the machine's load hits both alike)."""
    pairs = range(max(1, repeat))
    runs = [(erlpboost_run(name, eps, nu), erlpboost_run(name, eps, nu, False)) for _ in pairs]
    return tuple(min((r[i] for r in runs), key=lambda r: r["seconds"]) for i in (0, 1))


def best(run, repeat: int, *args) -> dict:
    """The result of ``run(*args)`` with the least ``seconds`` of ``repeat`` runs (the runs are
    deterministic: only their time varies)."""
    return min((run(*args) for _ in range(max(1, repeat))), key=lambda r: r["seconds"])


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, RESULTS / "vs_adaboost.txt", data=True)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), help=" ".join(DATASETS))
    parser.add_argument("--eps", nargs="+", type=float, default=[1e-2], help="ERLPBoost's eps (default 1e-2)")
    parser.add_argument("--nu", type=float, default=0.1, help="nu as a fraction of N (default 0.1)")
    parser.add_argument("--baseline", type=Path, help="a checkout of an older dualboost, for before/after")
    parser.add_argument(
        "--python-path",
        action="store_true",
        help="also ERLPBoost on the Python path (compiled=False), alternating with the compiled runs",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts (3)")
    args = parser.parse_args(argv)
    use_data(args.data)

    lightgbm = lightgbm_available()
    head = [
        provenance(__file__, argv),
        f"ERLPBoost (stumps, nu = {args.nu:g} N, practical criterion, auglag) against AdaBoost "
        f"{'and LightGBM ' if lightgbm else ''}with as many stumps; one process, wall seconds, "
        f"best of {args.repeat}",
    ]
    if not lightgbm:
        head.append(
            "lightgbm is not installed (pip install lightgbm, or the [bench] extra): no LightGBM columns"
        )
    header = (
        f"{'data':>9} {'eps':>6} {'T':>5} {'ERLPBoost s':>11} {'in solver':>9} {'ms/it':>6} {'Hess':>5} "
        f"{'Hv':>6} {'evals':>6} {'AdaBoost s':>10} {'ratio':>6} {'acc E':>6} {'acc A':>6}"
    )
    if lightgbm:
        header += f" {'LightGBM s':>10} {'ratio':>6} {'acc L':>6}"
    if args.baseline:
        header += f" {'before s':>8} {'speedup':>7}"
    if args.python_path:
        header += f" {'Python s':>8} {'x':>5}"
    emit = Report(args.out, *head, "", header)
    per_iteration: dict[str, float] = {}
    for name in args.datasets:
        for eps in args.eps:
            if args.python_path:
                run, python = best_pair(args.repeat, name, eps, args.nu)
            else:
                run = best(erlpboost_run, args.repeat, name, eps, args.nu)
            T = run["iterations"]
            ada = best(adaboost_run, args.repeat, name, T)
            row = (
                f"{name:>9} {eps:>6g} {T:>5} {run['seconds']:>11.2f} {run['solver_seconds']:>9.2f} "
                f"{1e3 * run['seconds'] / T:>6.1f} {run['hessians']:>5} {run['hessian_products']:>6} "
                f"{run['evaluations']:>6} {ada['seconds']:>10.2f} {run['seconds'] / ada['seconds']:>6.2f} "
                f"{run['train_accuracy']:>6.3f} {ada['train_accuracy']:>6.3f}"
            )
            if lightgbm:
                lgbm = best(lightgbm_run, args.repeat, name, T)
                row += (
                    f" {lgbm['seconds']:>10.3f} {run['seconds'] / lgbm['seconds']:>6.1f} "
                    f"{lgbm['train_accuracy']:>6.3f}"
                )
            if args.baseline:
                before = best(baseline_run, args.repeat, args.baseline, name, eps, args.nu)
                row += f" {before['seconds']:>8.2f} {before['seconds'] / run['seconds']:>7.2f}"
            if args.python_path:
                row += f" {python['seconds']:>8.2f} {python['seconds'] / run['seconds']:>5.2f}"
            if eps != min(args.eps) or len(args.eps) > 1:
                per_iteration[f"{name} {eps:g}"] = run["seconds"] / T
            if eps < 1e-2:
                lp = best(lpboost_run, args.repeat, name, eps, args.nu)
                ratio = run["seconds"] / lp["seconds"]
                row += f"  LPBoost {lp['seconds']:.2f} s ({lp['iterations']} it): x{ratio:.2f}"
            emit(row)
    if len(args.eps) > 1:
        emit()
        emit("time per iteration against the eps = 1e-2 run:")
        for name in args.datasets:
            base = per_iteration.get(f"{name} 0.01")
            for eps in args.eps:
                this = per_iteration.get(f"{name} {eps:g}")
                if base and this:
                    emit(f"  {name} eps {eps:g}: {1e3 * this:.1f} ms/it, x{this / base:.2f}")
    emit()
    emit(
        "ratio = ERLPBoost s / AdaBoost s (target <= 1)"
        + (", then ERLPBoost s / LightGBM s (depth-1 trees, as many)" if lightgbm else "")
        + "; acc E, A, L: training accuracy of ERLPBoost, AdaBoost, LightGBM; Hess, Hv, evals: summed over"
        " the iterations"
    )
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
