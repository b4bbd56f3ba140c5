"""``dualboost boost``: train a booster on a LIBSVM file (or a named data set) and report.

Registered by :mod:`dualboost.cli`. The run: load TRAIN (and TEST), fit the oracle, call the
driver of :mod:`dualboost.boosting` with a progress line on stderr (only on a terminal), then print
a summary (iterations, train and test error, the time split into oracle and solver, hypotheses
with w > 0); ``--history`` writes the per-iteration CSV and ``--plot`` the convergence figure
([KG] Fig. 5.28); ``--checkpoint PATH`` saves the state every ``--checkpoint-every`` iterations and
``--resume`` continues a killed run from it (:mod:`dualboost.boosting.checkpoint`).
"""

from __future__ import annotations

import argparse
import inspect
import sys
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import ALGORITHMS, BoostResult, boost
from dualboost.boosting.checkpoint import DEFAULT_EVERY
from dualboost.boosting.progress import ProgressLine
from dualboost.datasets import DATASETS, DatasetNotFoundError, load_dataset, load_libsvm
from dualboost.estimators import ORACLES, capping, make_oracle

__all__ = ["add_boost_parser", "run_boost"]

#: algorithms whose regulariser is the binary relative entropy (they need nu < 1)
_BINARY = ("binary_erlpboost", "corrective_binary_erlpboost")
#: the defaults of --nu and --eps (None in the parser, to tell an explicit option from a default)
_DEFAULT_NU, _DEFAULT_EPS = 0.1, 0.01


def add_boost_parser(sub) -> None:
    """Add the ``boost`` subcommand to the subparsers ``sub``."""
    names = ", ".join(sorted(DATASETS))
    boost_parser = sub.add_parser(
        "boost",
        help="train a booster on a LIBSVM file and report its errors, time and convergence",
        description=(
            "Train one of the boosting algorithms of Glocer's thesis (or AdaBoost) with a max-edge "
            "weak learner on TRAIN, a LIBSVM/svmlight file or a named data set "
            f"({names}, alias german; found in $DUALBOOST_DATA or the cache, split 60/20/20 by "
            "--seed). Prints a progress line on a terminal (iteration, edge of the new hypothesis, "
            "certified gap of the subproblem, stopping quantity, hypotheses in use), then a summary: "
            "iterations, train and test error, time split into oracle and solver, hypotheses with "
            "w > 0."
        ),
    )
    boost_parser.add_argument(
        "train", metavar="TRAIN", help="training set: a LIBSVM file or a named data set"
    )
    boost_parser.add_argument(
        "--test", metavar="TEST", help="test set, a LIBSVM file (default for a named data set: its test part)"
    )
    boost_parser.add_argument(
        "--algorithm", choices=tuple(ALGORITHMS), default="erlpboost", help="the booster (default: erlpboost)"
    )
    boost_parser.add_argument(
        "--nu",
        type=float,
        metavar="FRACTION",
        help=f"capping as a fraction of the training set in [0, 1] (default {_DEFAULT_NU}): d_n <= "
        "1/max(1, nu N); 0 means the hard margin (the thesis's nu = 1); the binary algorithms need "
        "nu < 1",
    )
    boost_parser.add_argument("--eps", type=float, help=f"precision of the booster (default {_DEFAULT_EPS})")
    boost_parser.add_argument(
        "--eta",
        type=float,
        help="entropy regularisation (default: the theoretical "
        "(2/eps) ln(N/nu), + 1 inside for the binary algorithms)",
    )
    boost_parser.add_argument(
        "--max-iter",
        type=int,
        metavar="N",
        help="cap on the iterations (default: the theorem's bound; 1000 for lpboost and adaboost)",
    )
    boost_parser.add_argument(
        "--oracle",
        choices=tuple(ORACLES),
        default="stumps",
        help="weak learner: decision stumps, raw features or linear-kernel (svm) "
        "hypotheses (default: stumps)",
    )
    boost_parser.add_argument(
        "--method",
        help="subproblem solver (default: highs for lpboost, auglag for the "
        "other totally corrective ones; corrective: the clipped step, or a solver for "
        "the exact step)",
    )
    boost_parser.add_argument(
        "--criterion",
        choices=("practical", "simple"),
        help="ERLPBoost's stopping criterion (default: practical)",
    )
    boost_parser.add_argument(
        "--seed", type=int, default=0, help="seed of a named data set's split (default 0)"
    )
    boost_parser.add_argument(
        "--plot",
        metavar="FILE",
        help="save the gap and the stopping quantity against "
        "iterations and time (needs matplotlib: pip install 'dualboost[plot]')",
    )
    boost_parser.add_argument("--history", metavar="FILE", help="write the per-iteration history as CSV")
    boost_parser.add_argument(
        "--checkpoint",
        metavar="PATH",
        help="save the booster's state to PATH (atomically) every --checkpoint-every iterations, so that "
        "a killed run can be continued with --resume",
    )
    boost_parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=DEFAULT_EVERY,
        metavar="K",
        help=f"iterations between checkpoints (default {DEFAULT_EVERY})",
    )
    boost_parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run saved in --checkpoint PATH (same data and options) to the result an "
        "uninterrupted run gives; a checkpoint of another run is an error",
    )
    boost_parser.add_argument("--quiet", action="store_true", help="no progress line")
    boost_parser.set_defaults(func=run_boost)


def _read_pair(train: str, test: str | None) -> tuple:
    """(X, y) of two LIBSVM files with a common number of features."""
    X, y = load_libsvm(train)
    if test is None:
        return (X, y), None
    Xt, yt = load_libsvm(test)
    width = max(X.shape[1], Xt.shape[1])
    if X.shape[1] < width:
        X, y = load_libsvm(train, n_features=width)
    if Xt.shape[1] < width:
        Xt, yt = load_libsvm(test, n_features=width)
    return (X, y), (Xt, yt)


def _load(args: argparse.Namespace) -> tuple[str, tuple, tuple | None]:
    """The name, the training pair and the test pair (or None) the arguments point to."""
    if Path(args.train).is_file():
        train, test = _read_pair(args.train, args.test)
        return Path(args.train).name, train, test
    try:
        split = load_dataset(args.train, seed=args.seed)
    except ValueError as exc:
        raise ValueError(f"TRAIN {args.train!r} is neither a file nor a named data set ({exc})") from None
    test = _read_pair(args.test, None)[0] if args.test else split.test
    return args.train, split.train, test


def _driver_params(args: argparse.Namespace, n_samples: int) -> dict:
    """The driver's keyword arguments; an option the algorithm does not take is an error."""
    taken = inspect.signature(ALGORITHMS[args.algorithm]).parameters
    given = {
        "nu": args.nu,
        "eps": args.eps,
        "eta": args.eta,
        "max_iter": args.max_iter,
        "method": args.method,
        "criterion": args.criterion,
    }
    unused = [name for name, value in given.items() if value is not None and name not in taken]
    if unused:
        options = ", ".join("--" + name.replace("_", "-") for name in unused)
        raise ValueError(f"{options} does not apply to {args.algorithm}")
    params = {name: value for name, value in given.items() if value is not None}
    if args.resume and not args.checkpoint:
        raise ValueError("--resume needs --checkpoint PATH (the file to resume from)")
    if args.checkpoint:
        params["checkpoint"], params["resume"] = args.checkpoint, args.resume
        params["checkpoint_every"] = args.checkpoint_every
    if "nu" in taken:
        nu = _DEFAULT_NU if args.nu is None else args.nu
        if nu == 0:
            nu = 1.0 / n_samples  # the hard margin: max(1, nu N) = 1
        params["nu"] = capping(nu, n_samples, below_one=args.algorithm in _BINARY)
    if "eps" in taken:
        params["eps"] = _DEFAULT_EPS if args.eps is None else args.eps
    return params


def _error(result: BoostResult, X, y) -> float:
    """The fraction of examples whose predicted label (+1 where f > 0, else -1) differs from y."""
    return float(np.mean(np.where(result.decision_function(X) > 0, 1.0, -1.0) != y))


def _summary(name: str, args: argparse.Namespace, result: BoostResult, train, test) -> str:
    X, y = train
    params = ", ".join(
        f"{k} = {v:.6g}" if isinstance(v, float) else f"{k} = {v}" for k, v in result.params.items()
    )
    other = result.total_time - result.oracle_time - result.solver_time
    lines = [
        f"{args.algorithm} on {name} ({X.shape[0]} examples, {X.shape[1]} features), {args.oracle} oracle",
        f"  parameters:   {params}",
        f"  stopped:      {result.stop_reason} ({'converged' if result.converged else 'NOT converged'})",
        f"  iterations:   {result.n_iter}",
        f"  hypotheses:   {result.n_hypotheses} ({result.n_nonzero} with w > 0)",
        f"  train error:  {100 * _error(result, X, y):.2f}%",
    ]
    if test is not None:
        lines.append(f"  test error:   {100 * _error(result, *test):.2f}% ({test[0].shape[0]} examples)")
    lines.append(
        f"  time:         {result.total_time:.3f} s (oracle {result.oracle_time:.3f} s, "
        f"solver {result.solver_time:.3f} s, other {other:.3f} s)"
    )
    return "\n".join(lines)


def run_boost(args: argparse.Namespace) -> int:
    """The ``boost`` subcommand; returns the exit status (1 on a data or parameter error)."""
    try:
        name, train, test = _load(args)
        params = _driver_params(args, train[0].shape[0])
        oracle = make_oracle(args.oracle).fit(*train)
    except (ValueError, OSError, DatasetNotFoundError) as exc:
        print(f"dualboost boost: error: {exc}", file=sys.stderr)
        return 1
    progress = ProgressLine(sys.stderr.isatty() and not args.quiet)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)  # the summary says "NOT converged"
            result = boost(args.algorithm, oracle, callback=progress, **params)
    except ValueError as exc:
        print(f"dualboost boost: error: {exc}", file=sys.stderr)
        return 1
    finally:
        progress.close()
    print(_summary(name, args, result, train, test))
    if args.history:
        result.history.to_csv(args.history)
        print(f"  history:      {args.history} ({len(result.history)} rows)")
    if args.plot:
        from dualboost.boosting.plot import plot_history

        try:
            plot_history(result.history, args.plot, title=f"{args.algorithm} on {name}")
        except ImportError as exc:
            print(f"dualboost boost: error: {exc}", file=sys.stderr)
            return 1
        print(f"  plot:         {args.plot}")
    return 0
