"""The options of ``dualboost boost`` and ``dualboost predict``: their parsers, without the runs.

:mod:`dualboost.cli` adds these subcommands to its parser and, when one runs, calls
:func:`dualboost.cli_boost.run_boost` or :func:`dualboost.cli_boost.run_predict`. This module
imports nothing beyond the standard library and :mod:`dualboost.cli_names`, so that ``--help``
starts in a fraction of a second (docs/architecture.md); the options are checked against the
algorithm and the data by the run (:func:`dualboost.cli_boost._check_options`).
"""

from __future__ import annotations

import argparse

from dualboost.cli_names import (
    ALGORITHMS,
    CVXPY_METHODS,
    DATASETS,
    DEFAULT_EVERY,
    MAX_MODEL_BYTES,
    ORACLES,
    STEPS,
)

__all__ = ["add_boost_parser", "add_predict_parser", "DEFAULT_NU", "DEFAULT_EPS"]

#: the defaults of --nu and --eps (None in the parser, to tell an explicit option from a default)
DEFAULT_NU, DEFAULT_EPS = "auto", 0.01


def add_boost_parser(sub) -> argparse.ArgumentParser:
    """Add the ``boost`` subcommand to the subparsers ``sub`` and return its parser (the caller sets
    its ``func``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subparsers of the ``dualboost`` parser.

    Returns
    -------
    argparse.ArgumentParser
        The ``boost`` parser.
    """
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
    _add_data_options(boost_parser)
    _add_run_options(boost_parser)
    _add_solver_options(boost_parser)
    _add_algorithm_options(boost_parser)
    _add_output_options(boost_parser)
    return boost_parser


def _add_data_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``boost``: TRAIN, TEST and how their files are read."""
    parser.add_argument("train", metavar="TRAIN", help="training set: a LIBSVM file or a named data set")
    parser.add_argument(
        "--test",
        metavar="TEST",
        help="test set, a LIBSVM file (default for a named data set: its test part); a LIBSVM file's "
        "feature count is its largest feature index, so a TEST with fewer features than TRAIN is read "
        "with TRAIN's (its last features are zero), and one with more is an error (files of other "
        "data?) unless --n-features is given",
    )
    parser.add_argument(
        "--n-features",
        type=_positive_int,
        metavar="P",
        help="the number of features of both LIBSVM files, TRAIN and TEST (as scikit-learn's "
        "load_svmlight_file takes it; default: TRAIN's largest feature index); a file with a larger "
        "index is an error",
    )


def _add_run_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``boost``: the booster, its capping, precision and regularisation, and its limits."""
    parser.add_argument(
        "--algorithm", choices=ALGORITHMS, default="erlpboost", help="the booster (default: erlpboost)"
    )
    parser.add_argument(
        "--nu",
        type=_nu_option,
        metavar="FRACTION",
        help="capping as a fraction of the training set, in (0, 1] as the classifiers of "
        "dualboost.estimators take it, or 'auto' (the default, as theirs: chosen on a 25 %% holdout along "
        "a grid from 0.65 * 2 min(N+, N-) / N down): "
        "d_n <= 1/max(1, nu N); any nu <= 1/N (e.g. 1e-9) is the hard margin (the thesis's nu = 1); "
        "the binary algorithms need nu < 1",
    )
    parser.add_argument("--eps", type=float, help=f"precision of the booster (default {DEFAULT_EPS})")
    parser.add_argument(
        "--eta",
        type=float,
        help="entropy regularisation (default: the theoretical "
        "(2/eps) ln(N/nu), + 1 inside for the binary algorithms)",
    )
    parser.add_argument(
        "--max-iter",
        type=int,
        metavar="N",
        help="cap on the iterations (default: the theorem's bound; 1000 for lpboost, adaboost and the "
        "corrective algorithms, whose bound of O(1/eps^2) iterations is 184,000 on 400 rows)",
    )
    parser.add_argument(
        "--max-time",
        type=float,
        metavar="SECONDS",
        help="time limit: stop at the first iteration after SECONDS with the certified result of that "
        "iteration (stop reason 'time limit'; a --resume'd run gets a fresh limit; default: none)",
    )


def _add_solver_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``boost``: the weak learner, the subproblem's solver and the corrective step rule."""
    parser.add_argument(
        "--oracle",
        choices=ORACLES,
        default="stumps",
        help="weak learner: decision stumps, raw features or linear-kernel (svm) "
        "hypotheses (default: stumps)",
    )
    parser.add_argument(
        "--method",
        help="subproblem solver (default: highs for lpboost, auglag for the "
        "other totally corrective ones; corrective: the clipped step when --method is not given, "
        "or a solver for the exact step); highs applies to lpboost only (a linear program), auglag "
        f"to all the other algorithms, the cvxpy methods ({', '.join(CVXPY_METHODS)}) to all; auto: the "
        "first of them that applies and certifies its solution",
    )
    parser.add_argument(
        "--step",
        choices=STEPS,
        help="the Frank-Wolfe step rule of the corrective algorithms and mlpboost (default: clipped; "
        "line: the exact line search, which --method solves by a solver)",
    )


def _add_algorithm_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``boost``: the parameters of single algorithms, and ERLPBoost's stopping criterion."""
    parser.add_argument(
        "--tolerance",
        type=float,
        help="adaboostv: the precision of the hard margin, in (0, 1] (the nu of Raetsch and Warmuth; "
        "default 0.1)",
    )
    parser.add_argument(
        "--kappa", type=float, help="smoothboost: the target training error, in (0, 1) (default 0.1)"
    )
    parser.add_argument(
        "--gamma",
        type=float,
        help="smoothboost: the advantage assumed of the weak learner (edges >= 2 gamma), in (0, 1/2) "
        "(default 0.05)",
    )
    parser.add_argument(
        "--D", type=float, dest="D", help="mdboost: the total weight D of the ensemble, > 0 (default 1)"
    )
    parser.add_argument(
        "--C", type=float, dest="C", help="cgboost: the weight C of the hinge, > 0 (default 1)"
    )
    parser.add_argument(
        "--lam", type=float, help="nmboost: the weight of the summed margins, > 0 (default 0.01)"
    )
    parser.add_argument(
        "--tau", type=float, help="nmboost: the margin below which a shortfall counts, > 0 (default 0.01)"
    )
    parser.add_argument(
        "--criterion",
        choices=("practical", "simple"),
        help="ERLPBoost's stopping criterion (default: practical)",
    )


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``boost``: the split's seed, reports, checkpoints, the model file, what is shown."""
    parser.add_argument("--seed", type=int, default=0, help="seed of a named data set's split (default 0)")
    parser.add_argument(
        "--plot",
        metavar="FILE",
        help="save the gap and the stopping quantity against "
        "iterations and time (needs matplotlib: pip install 'dualboost[plot]')",
    )
    parser.add_argument("--history", metavar="FILE", help="write the per-iteration history as CSV")
    parser.add_argument(
        "--checkpoint",
        metavar="PATH",
        help="save the booster's state to PATH (atomically) every --checkpoint-every iterations, so that "
        "a killed run can be continued with --resume",
    )
    parser.add_argument(
        "--checkpoint-every",
        type=int,
        default=DEFAULT_EVERY,
        metavar="K",
        help=f"iterations between checkpoints (default {DEFAULT_EVERY})",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run saved in --checkpoint PATH (same data and options) to the result an "
        "uninterrupted run gives; a checkpoint of another run is an error",
    )
    parser.add_argument(
        "--save",
        metavar="PATH",
        help="write the trained model to the model file PATH (portable: JSON and numpy arrays, no pickle), "
        "for 'dualboost predict PATH DATA' or dualboost.estimators.persistence.load (in Python: the "
        "classifier of the algorithm, e.g. ERLPBoostClassifier); not for adaboost",
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--quiet", action="store_true", help="no progress line")
    shown.add_argument(
        "--verbose",
        action="store_true",
        help="one line per iteration on stderr (iteration, edge, certified gap, stopping quantity, "
        "hypotheses in use), also when stderr is not a terminal; the solvers themselves print nothing",
    )


def _positive_int(text: str) -> int:
    """An argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer; got {text!r}")
    return value


def _nu_option(text: str) -> float | str:
    """``--nu``: ``auto`` (:func:`dualboost.estimators.params.auto_nu`) or a number (checked later, with
    the algorithm: :func:`dualboost.cli_boost._check_options`)."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a fraction in (0, 1]; got {text!r}") from None


def add_predict_parser(sub) -> argparse.ArgumentParser:
    """Add the ``predict`` subcommand to the subparsers ``sub`` and return its parser (the caller sets
    its ``func``).

    Parameters
    ----------
    sub : argparse._SubParsersAction
        As in :func:`add_boost_parser`.

    Returns
    -------
    argparse.ArgumentParser
        The parser of ``dualboost predict``.
    """
    parser = sub.add_parser(
        "predict",
        help="predict the labels of a LIBSVM file with a saved model",
        description=(
            "Load MODEL, a model file written by 'dualboost boost --save' or by "
            "dualboost.estimators.persistence.save, and predict each example of DATA, a LIBSVM/svmlight "
            "file (its labels are not used for the predictions; with --score they give the accuracy). "
            "Writes one line per example to standard output, or to --out: the predicted label, or with "
            "--decision-function the value f(x) = sum_q w_q h_q(x) in [-1, 1] (positive: the larger label)."
        ),
        epilog="example: dualboost boost german --save german.model && "
        "dualboost predict german.model test.libsvm --score",
    )
    parser.add_argument("model", metavar="MODEL", help="the model file")
    parser.add_argument(
        "data",
        metavar="DATA",
        help="a LIBSVM file of the model's features (a file whose largest feature index is smaller is "
        "read with the model's feature count; a larger one is an error)",
    )
    parser.add_argument(
        "--out", metavar="FILE", help="write the predictions to FILE instead of standard output"
    )
    parser.add_argument(
        "--decision-function",
        action="store_true",
        help="write the decision function f(x) (17 significant digits) instead of the label",
    )
    parser.add_argument(
        "--score",
        action="store_true",
        help="print the accuracy against DATA's labels on standard error",
    )
    parser.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="TYPE",
        help="the exact name (module.Class, as skops reports it) of a further type that a scikit-learn "
        "member of MODEL may hold, e.g. sklearn.svm._classes.SVC; repeat for more. Only the types of "
        "dualboost.estimators.persistence.SKOPS_TRUSTED_TYPES are trusted without it",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=MAX_MODEL_BYTES,
        metavar="N",
        help=f"read a MODEL whose members decompress to up to N bytes in all (default {MAX_MODEL_BYTES}; "
        "saving a larger model warns with the N it needs)",
    )
    return parser
