"""Where an ERLPBoost run's time goes: the profile behind the solver's per-iteration floors.

For each data set (and eps), in one process: ``ERLPBoostClassifier(nu, eps)`` with decision stumps
(the same fit as ``benchmarks/vs_adaboost.py``) is timed without a profiler, then run again under
``cProfile``; scikit-learn's AdaBoost with as many stumps is timed beside it. The profiled time is
split into the categories below, per boosting iteration:

* ``U passes: evaluations``: ``D(w)``, its gradient and d(w), ``U w`` and ``U^T d`` in float64
  (``Model.dual_value_and_grad``), the softmax excluded;
* ``U passes: H v products``: the conjugate-gradient Newton steps' Hessian-vector products and the
  trust radius's ``U x`` (``ColumnProducts``, ``dual_step_spread``; float32 where allowed);
* ``U passes: stump operator``: the same products (evaluations, H v, certificates' ``U w``, ``U^T d``)
  through the stumps' sort orders (``StumpColumns``, where it pays; docs/architecture.md#compiled-code);
* ``U passes: formed Hessians``: ``U_S^T diag(s) U_S`` and the new columns' blocks, O(N |S|^2), or
  through the stumps' sort orders (``StumpColumns.weighted_gram``, ``rank_one_hessian``,
  O(N F^2 + |S|^2), where it pays);
* ``softmax and entropy``: the capped softmax and the entropy (``dualboost.conjugates``);
* ``dense t x t algebra``: Cholesky factors, inverses, their borders, the projected preconditioner;
* ``compiled re-solve``: the one call per warm solve into ``dualboost/solvers/_capped_newton``
  (``dualboost.solvers.compiled.resolve``: evaluations, Hessians, factors and steps inside it, which
  cProfile cannot split; docs/architecture.md#compiled-code);
* ``LP limit (HiGHS)``, ``L-BFGS-B``: the large-eta paths of ``method="auglag"``;
* ``certificates``: the primal and dual objectives that certify every returned solution;
* ``weak learner``: the stump oracle;
* ``solver control``, ``driver``: the rest of ``dualboost.solvers`` and of the boosting loop,
  estimator and validation (Python-level steps).

Time spent in numpy, scipy and built-in functions counts for the dualboost function that called
them (split by what each caller spent there), so that a category holds its BLAS and LAPACK calls.
cProfile's own overhead inflates the Python-level categories (the profiled run takes 10-30 % longer
than the plain one, both printed): the shares are a guide, the plain time is the measurement.

Beside the profile: the solver's iterations per solve (Newton steps, plus L-BFGS-B iterations at
large eta; ``Solution.iterations``), the ms per iteration of AdaBoost's stumps, and the floor
argument: what one boosting iteration costs in each group of categories (the passes over U of
evaluations and products, at today's steps per solve; formed Hessians and dense algebra; the
Python-level steps; the weak learner), against AdaBoost's time per stump: a group that alone
exceeds it is a floor of the method as it stands.

    python benchmarks/profile_erlpboost.py                         # german diabetes gaussian, eps 1e-2
    python benchmarks/profile_erlpboost.py --datasets diabetes german --eps 1e-3 1e-4 --nu 0.05
    python benchmarks/profile_erlpboost.py --datasets german diabetes --nu 1e-6   # nu = 1 (max(1, nu N))

Output: ``benchmarks/results/profile_erlpboost.txt`` (``--out``; ``--out -`` prints only).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import sys
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, Report, make_parser, provenance, use_data  # noqa: E402
from vs_adaboost import adaboost_run, each_auglag_solution, load  # noqa: E402

CATEGORIES = (
    "U passes: evaluations",
    "U passes: H v products",
    "U passes: stump operator",
    "U passes: formed Hessians",
    "softmax and entropy",
    "dense t x t algebra",
    "compiled re-solve",
    "LP limit (HiGHS)",
    "L-BFGS-B",
    "certificates",
    "weak learner",
    "solver control",
    "driver",
)


def _named_functions() -> dict[tuple[str, int, str], str]:
    """The category of each dualboost function that a module path alone does not settle, keyed as
    cProfile keys functions: (file, first line, name)."""
    from dualboost.conjugates import traits
    from dualboost.problems import base, kernels, sparse_columns
    from dualboost.solvers import auglag, compiled, newton

    groups = {
        "U passes: evaluations": [base.Model.dual_value_and_grad],
        "U passes: H v products": [
            *vars(kernels.ColumnProducts).values(),
            kernels.single_product,
            base.Model.dual_hessian_operator,
            base.Model.dual_step_spread,
            traits.log_change,
        ],
        "U passes: stump operator": [
            *vars(kernels.StumpOperatorBase).values(),
            *vars(kernels.StumpColumns).values(),
            *vars(sparse_columns.SparseStumpColumns).values(),
            *vars(sparse_columns._Indicators).values(),
            sparse_columns.stump_operator,
            *vars(base._ImplicitProducts).values(),
            base.Model._margins,
            base.Model._edges,
        ],
        "U passes: formed Hessians": [
            kernels.gram_parts,
            kernels.cross_gram_parts,
            kernels.low_rank_hessian,
            kernels.centred_hessian,
            base.Model.dual_hessian,
            base.Model.dual_hessian_block,
            base.Model._curvature,
            base.Model.single_precision_U,
            kernels.single_extension,
            # (through the stump operator: its histograms, and the border's per-column products)
            kernels.StumpColumns.weighted_gram,
            kernels.StumpColumns.rank_one_hessian,
            sparse_columns.SparseStumpColumns.weighted_gram,
            kernels.StumpOperatorBase.rank_one_hessian,
            kernels.StumpOperatorBase.cross_gram,
            base._ImplicitProducts.weighted_gram,
            kernels.over_all_rows,
        ],
        "dense t x t algebra": [
            newton._cholesky,
            newton.definite_factor,
            newton.definite_inverse,
            newton._symmetrised,
            newton._bordered_inverse,
            newton.factored_step,
            newton._definite_solve,
            newton.pcg_step,
            newton._constraints,
            newton._scale,
            *vars(newton._Projection).values(),
            *vars(newton.Curvature).values(),
        ],
        "compiled re-solve": [
            compiled.resolve,
            compiled._operator_passes,
            kernels.StumpColumns.compiled_gram,
        ],
        "L-BFGS-B": [auglag._lbfgsb],
        "certificates": [newton.certified_point],
    }
    named = {}
    for category, functions in groups.items():
        for f in functions:
            f = getattr(f, "__func__", f)
            code = getattr(f, "__code__", None)
            if code is not None:
                named[(code.co_filename, code.co_firstlineno, code.co_name)] = category
                for const in code.co_consts:  # closures defined inside (the operator's product)
                    if hasattr(const, "co_name"):
                        named[(code.co_filename, const.co_firstlineno, const.co_name)] = category
    return named


def _by_module(filename: str) -> str | None:
    """The category of a dualboost function by its module; None outside dualboost."""
    path = filename.replace(os.sep, "/")
    if "/dualboost/" not in path:
        return None
    module = path.rsplit("/dualboost/", 1)[1]
    for prefix, category in (
        ("conjugates/", "softmax and entropy"),
        ("oracles/", "weak learner"),
        ("solvers/highs", "LP limit (HiGHS)"),
        ("problems/lpboost", "LP limit (HiGHS)"),  # PrimalLP: the HiGHS model the LP limit re-solves
        ("solvers/certify", "certificates"),
        ("problems/max_edge", "certificates"),
        ("solvers/", "solver control"),
    ):
        if module.startswith(prefix):
            return category
    return "driver"


def categorised(stats: pstats.Stats) -> dict[str, float]:
    """Seconds per category: a dualboost function's own time goes to its category; the time of
    any other function (numpy, scipy, built-ins) goes to its callers' categories, in proportion to
    what each caller spent in it (through chains of such functions)."""
    named = _named_functions()
    table = stats.stats  # func -> (primitive calls, calls, tottime, cumtime, callers)
    memo: dict = {}

    def owner(func, depth: int = 0) -> dict[str, float]:
        """The categories of ``func``'s time as fractions summing to 1."""
        if func in memo:
            return memo[func]
        category = named.get(func) or _by_module(func[0])
        if category is not None:
            share = {category: 1.0}
        else:
            callers = table.get(func, (0, 0, 0.0, 0.0, {}))[4]
            total = sum(entry[2] for entry in callers.values())
            share: dict[str, float] = Counter()
            if depth > 50 or not callers or total <= 0.0:
                share["driver"] += 1.0
            else:
                for caller, entry in callers.items():
                    for key, value in owner(caller, depth + 1).items():
                        share[key] += value * entry[2] / total
        memo[func] = share
        return share

    seconds: dict[str, float] = Counter()
    for func, (_, _, tottime, _, _) in table.items():
        for category, share in owner(func).items():
            seconds[category] += tottime * share
    return seconds


def fit(
    name: str, eps: float, nu: float, profiler: cProfile.Profile | None = None
) -> tuple[float, int, list[int]]:
    """Fit ERLPBoost on ``name``: (seconds, iterations, solver iterations of every solve)."""
    from dualboost import ERLPBoostClassifier

    X, y = load(name)
    per_solve: list[int] = []
    with each_auglag_solution(lambda solution: per_solve.append(int(solution.iterations))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if profiler is not None:
                profiler.enable()
            start = time.perf_counter()
            clf = ERLPBoostClassifier(nu=nu, eps=eps).fit(X, y)
            seconds = time.perf_counter() - start
            if profiler is not None:
                profiler.disable()
    return seconds, int(clf.n_iter_), per_solve


def report(name: str, eps: float, nu: float) -> list[str]:
    """The profile table of one data set and eps."""
    fit(name, eps, nu)  # warm-up: imports, caches
    plain, T, per_solve = fit(name, eps, nu)
    profiler = cProfile.Profile()
    profiled, T_profiled, _ = fit(name, eps, nu, profiler)
    ada = adaboost_run(name, T)["seconds"]
    seconds = categorised(pstats.Stats(profiler))
    total = sum(seconds.values())
    steps = np.asarray(per_solve)
    lines = [
        f"{name}, eps = {eps:g}, nu = max(1, {nu:g} N): {T} iterations, {plain:.2f} s plain "
        f"({1e3 * plain / T:.2f} ms/it), "
        f"{profiled:.2f} s profiled; AdaBoost {ada:.2f} s with {T} stumps ({1e3 * ada / T:.2f} ms/stump), "
        f"ratio {plain / ada:.2f}",
        f"  solver iterations per solve: mean {steps.mean():.2f}, median {np.median(steps):g}, "
        f"<= 2 in {np.mean(steps <= 2):.0%} of {steps.size} solves, max {steps.max()}",
        f"  {'category':<28} {'share':>6} {'ms/it':>7}",
    ]
    for category in CATEGORIES:
        if seconds.get(category, 0.0) > 0.0:
            share = seconds[category] / total
            lines.append(f"  {category:<28} {share:>6.1%} {1e3 * share * plain / T:>7.2f}")

    def per_iteration(*names: str) -> float:
        return sum(seconds.get(c, 0.0) for c in names) / total * plain / T

    ada_it = ada / T
    lines.append(f"  against AdaBoost's {1e3 * ada_it:.2f} ms/stump, per iteration:")
    for label, names in (
        ("passes over U of evaluations and H v products", CATEGORIES[:3]),
        ("formed Hessians and dense t x t algebra", (CATEGORIES[3], CATEGORIES[5])),
        ("compiled re-solves (all of their work)", ("compiled re-solve",)),
        ("Python-level steps (solver control, driver)", ("solver control", "driver")),
        ("weak learner", ("weak learner",)),
    ):
        cost = per_iteration(*names)
        lines.append(f"    {label:<48} {1e3 * cost:>7.2f} ms (x{cost / ada_it:.2f})")
    if T_profiled != T:
        lines.append(f"  (the profiled run took {T_profiled} iterations)")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(
        __doc__,
        RESULTS / "profile_erlpboost.txt",
        out_help="a file, or - to print only",
        out_type=str,
        data=True,
    )
    parser.add_argument("--datasets", nargs="+", default=["german", "diabetes", "gaussian"])
    parser.add_argument("--eps", nargs="+", type=float, default=[1e-2])
    parser.add_argument("--nu", type=float, default=0.1, help="nu as a fraction of N (default 0.1)")
    args = parser.parse_args(argv)
    use_data(args.data)
    emit = Report(None if args.out == "-" else Path(args.out), provenance(__file__, argv))
    for name in args.datasets:
        for eps in args.eps:
            emit("", *report(name, eps, args.nu))
    emit.write()
    return 0


if __name__ == "__main__":
    sys.exit(main())
