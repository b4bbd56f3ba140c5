"""Prototyped relaxations at the speed of the built-ins: the exact inner solve of
``f + I_S`` (docs/math.md#exact-restriction) and ``method="auglag"`` against cvxpy + Clarabel.

1. **Subproblems.** Every built-in relaxation whose dual is smooth (``entropy``, ``linf-ball+entropy``,
   ``l2-ball+entropy`` of :data:`dualboost.problems.relaxation_report.BUILTIN_RELAXATIONS`) and the
   prototype ``||d||_2 <= 2/sqrt(N)`` plus ``(1/200) KL(d, uniform)`` (``ball+entropy``), on a random
   +-1 matrix (N x t), form ``"edge"`` (the max-edge form of ERLPBoost, w on the simplex of the t
   columns) and, at the first size, form ``"simplex"`` (the [SS] l1-ball problem over [A, -A]).
   Each is solved to the certified relative gap 1e-6 by ``method="auglag"`` and by Clarabel
   (``--clarabel-limit`` seconds at most: a solve that hits it gives a lower bound on the ratio), and
   timed against ``ERLPBoost(A, nu=0.1 N, eta=200).solve(method="auglag")`` on the same A. Targets:
   Clarabel / auglag >= 30, auglag / ERLPBoost <= 5.
2. **Boosting.** A totally corrective run of the ball + entropy relaxation (form ``"edge"``, the
   decision stumps oracle, eps = 0.01: :func:`dualboost.boosting.totally_corrective_relaxation_boost`)
   on german and diabetes (the thesis's training split, ``$DUALBOOST_DATA``), against
   ``ERLPBoostClassifier(nu=0.1, eps=0.01)`` on the same data (target: within 3x), and the same
   relaxation run with cvxpy only (``methods=("clarabel", "ecos")``: what the run cost before).

Every time is wall seconds in this process (the best of ``--repeat`` for the fast methods); every
solution is certified by the model (the status column), never a solver's claim; nothing is asserted
on times. Output: ``benchmarks/results/relaxations.txt`` (``--out``).

    python benchmarks/relaxations.py                                  # the full grid (~15 min)
    python benchmarks/relaxations.py --sizes 2000x50 --datasets german --clarabel-limit 30
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, make_parser, provenance  # noqa: E402

TOL = 1e-6
SIZES = ("5000x100", "50000x200")
DATASETS = ("german", "diabetes")


def relaxation_f(name: str, n: int, seed: int):
    """f of the built-in ``name`` (or the prototype ``ball+entropy``) in dimension n."""
    from dualboost import conjugates as cj
    from dualboost.problems.relaxation_report import BUILTIN_RELAXATIONS

    if name == "ball+entropy":
        return cj.NormBall(p=2, radius=2.0 / np.sqrt(n)) + (1.0 / 200.0) * cj.RelativeEntropy()
    return BUILTIN_RELAXATIONS[name][1](n, seed)


def smooth_builtins() -> list[str]:
    """The built-in relaxations whose simplex form auglag solves, and the prototype."""
    from dualboost.problems.relaxation_report import BUILTIN_RELAXATIONS, builtin_relaxation
    from dualboost.solvers import accepts

    names = [n for n in BUILTIN_RELAXATIONS
             if accepts(builtin_relaxation(n, form="simplex"), "auglag", "dual") is None]
    return [*names, "ball+entropy"]


def timed(solve, repeat: int = 1):
    """(best seconds, solution) of ``repeat`` calls of ``solve()``."""
    best, solution = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        solution = solve()
        best = min(best, time.perf_counter() - start)
    return best, solution


def subproblem_rows(size: str, forms: tuple[str, ...], limit: float, repeat: int, seed: int) -> list[str]:
    """One line per (relaxation, form): auglag, Clarabel and ERLPBoost's auglag on the same A."""
    from dualboost.instances import random_edge_matrix
    from dualboost.problems import ERLPBoost, Relaxation

    n, t = (int(x) for x in size.split("x"))
    A = random_edge_matrix(n, t, seed, binary=True)
    erlpboost = ERLPBoost(A, nu=0.1 * n, eta=200.0)
    erlp_time, erlp = timed(lambda: erlpboost.solve(method="auglag", tol=TOL), repeat)
    rows = []
    for name in smooth_builtins():
        for form in forms:
            rel = Relaxation(A, relaxation_f(name, n, seed), form=form)
            fast_time, fast = timed(lambda rel=rel: rel.solve(method="auglag", tol=TOL), repeat)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                slow_time, slow = timed(lambda rel=rel: rel.solve(method="clarabel", tol=TOL,
                                                                  time_limit=limit))
            bound = ">=" if slow.status != "optimal" else ""
            agree = abs(fast.dual_value - slow.dual_value) if slow.w is not None else np.nan
            rows.append(
                f"{name:<18} {form:<7} {n:>6} {t:>4} {fast_time:>9.3f} {fast.status:<10} {slow_time:>9.2f} "
                f"{slow.status:<11} {bound + format(slow_time / fast_time, '.0f'):>9} {erlp_time:>8.3f} "
                f"{fast_time / erlp_time:>8.2f} {agree:>9.1e} {fast.extra['evaluations']:>5}"
            )
            print(rows[-1], flush=True)
    rows.append(f"{'(ERLPBoost nu=0.1N, eta=200, auglag: ' + erlp.status + ')':<40}")
    return rows


def boosting_rows(dataset: str, eps: float, cvxpy: bool) -> list[str]:
    """The ball + entropy relaxation boosted with stumps against ERLPBoostClassifier on ``dataset``."""
    from dualboost import ERLPBoostClassifier
    from dualboost.boosting import totally_corrective_relaxation_boost
    from dualboost.datasets import load_dataset
    from dualboost.oracles import DecisionStumps
    from dualboost.problems import Relaxation

    X, y = load_dataset(dataset, seed=0, sparse=False, download=False).train
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64)
    n = y.size

    def run(methods):
        oracle = DecisionStumps().fit(X, y)
        model = Relaxation(y[:, None] * np.ones((n, 1)), relaxation_f("ball+entropy", n, 0), form="edge")
        return totally_corrective_relaxation_boost(model, eps, oracle=lambda d: oracle.best(d).column,
                                                   methods=methods)

    fast_time, fast = timed(lambda: run(("auglag", "clarabel", "ecos")))
    statuses = sorted({str(r["status"]).split(" (")[-1].rstrip(")") for r in fast.history if r["status"]})
    erlp_time, erlp = timed(lambda: ERLPBoostClassifier(nu=0.1, eps=eps).fit(X, y))
    rows = [
        f"{dataset:<9} {n:>5} {eps:>5g} relaxation TC (auglag) {fast_time:>8.2f} s, "
        f"{fast.iterations:>4} rounds, "
        f"converged {fast.converged}, solved by {','.join(statuses)}",
        f"{dataset:<9} {n:>5} {eps:>5g} ERLPBoostClassifier    {erlp_time:>8.2f} s, "
        f"{erlp.n_iter_:>4} iterations, eta {erlp.eta_:.4g}; "
        f"ratio relaxation / ERLPBoost {fast_time / erlp_time:.2f}",
    ]
    if cvxpy:
        slow_time, slow = timed(lambda: run(("clarabel", "ecos")))
        rows.append(
            f"{dataset:<9} {n:>5} {eps:>5g} relaxation TC (cvxpy)  {slow_time:>8.2f} s, "
            f"{slow.iterations:>4} rounds; "
            f"cvxpy / auglag {slow_time / fast_time:.1f}"
        )
    for row in rows:
        print(row, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, RESULTS / "relaxations.txt")
    parser.add_argument("--sizes", nargs="*", default=list(SIZES), help="N x t of the random +-1 matrices")
    parser.add_argument("--datasets", nargs="*", default=list(DATASETS), help="boosting runs (stumps)")
    parser.add_argument("--eps", type=float, default=0.01)
    parser.add_argument("--clarabel-limit", type=float, default=300.0, help="seconds per Clarabel solve")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many fast solves")
    parser.add_argument("--no-cvxpy-boosting", action="store_true", help="skip the cvxpy-only boosting runs")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--append", action="store_true", help="append to --out instead of replacing it")
    args = parser.parse_args(argv)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    kept = args.out.read_text().splitlines() + [""] if args.append and args.out.exists() else []

    def write(lines: list[str]) -> None:  # after every section: a long run keeps what it measured
        args.out.write_text("\n".join(kept + lines) + "\n")

    lines = [
        provenance(__file__, argv),
        f"# certified relative gap {TOL:g} for every solve; wall seconds, one process "
        f"(fast: best of {args.repeat})",
        "",
        "subproblems: auglag (exact inner solve) against Clarabel and ERLPBoost's auglag on the same A",
        f"{'relaxation':<18} {'form':<7} {'N':>6} {'t':>4} {'auglag s':>9} {'status':<10} {'clarabel':>9} "
        f"{'status':<11} {'clar/aug':>9} {'ERLP s':>8} {'aug/ERLP':>8} {'|dD|':>9} {'evals':>5}",
    ]
    if not args.sizes:
        lines = lines[:3]
    for i, size in enumerate(args.sizes):
        forms = ("edge", "simplex") if i == 0 else ("edge",)
        lines += subproblem_rows(size, forms, args.clarabel_limit, args.repeat, args.seed)
        write(lines)
    if args.datasets:
        lines += ["", "boosting: totally corrective, ball + entropy relaxation (form 'edge'), stumps, "
                      f"eps = {args.eps:g}; ERLPBoostClassifier(nu=0.1, eps={args.eps:g})"]
        for dataset in args.datasets:
            lines += boosting_rows(dataset, args.eps, not args.no_cvxpy_boosting)
            write(lines)
    write(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
