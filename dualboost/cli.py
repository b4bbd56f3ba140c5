"""The ``dualboost`` command.

``dualboost verify`` solves every model family on built-in instances, on both sides, with each
cvxpy solver, maps each solution to the other side, certifies it and prints one table; it exits 1
when any row fails its tolerance and says which (:mod:`dualboost.cli_verify`).

``dualboost boost`` trains a booster on a LIBSVM file and reports (:mod:`dualboost.cli_boost`);
``dualboost predict MODEL DATA`` predicts with a model that ``boost --save`` wrote.

This module builds the parsers and dispatches. The parsers need only names
(:mod:`dualboost.cli_names`, :mod:`dualboost.cli_options`); each command imports its run when it
runs (the solvers, the drivers, scikit-learn), so that ``dualboost --help`` and
``dualboost verify --help`` start in a fraction of a second (benchmarks/startup.py).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from dualboost import __version__
from dualboost.cli_names import FAMILIES, GAP_TOL, MAP_TOL, METHODS, RELAXATIONS, SIDES
from dualboost.cli_options import add_boost_parser, add_predict_parser

__all__ = ["main", "build_parser"]


def _csv(allowed: Sequence[str]):
    """An argparse type: a comma-separated list of names out of ``allowed``."""

    def parse(text: str) -> list[str]:
        items = [x.strip() for x in text.split(",") if x.strip()]
        bad = [x for x in items if x not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(allowed)} (comma-separated)")
        return items

    return parse


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``dualboost`` command; each subcommand's ``func`` imports its run when called."""
    parser = argparse.ArgumentParser(
        prog="dualboost",
        description="Primal (d-domain) and dual (w-domain) convex models of boosting, solved and certified.",
    )
    parser.add_argument("--version", action="version", version=f"dualboost {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    tol_text = ", ".join(f"{m} {GAP_TOL[m]:g}" for m in METHODS)
    map_text = ", ".join(f"{m} {MAP_TOL[m]:g}" for m in METHODS)
    verify = sub.add_parser(
        "verify",
        help="check primal/dual equivalence of every model on built-in instances",
        description=(
            "Solve every model family on built-in random instances, on both sides (primal in the "
            "d-domain, dual in the w-domain), with each method that applies (the cvxpy solvers "
            "Clarabel, ECOS and SCS on every model, the hand-written auglag path on the duals of the "
            "entropic models, HiGHS on LPBoost's LP); map each solution to the other "
            "side with the KKT map d_from_w(w); certify the pair by recomputing both objective "
            "values from d and w. Prints one row per solve. Exits 1 if any certified relative gap "
            f"exceeds its tolerance ({tol_text}) or any map error ||d_from_w(w) - d||_inf exceeds "
            f"its tolerance ({map_text}), and lists the failures."
        ),
    )
    verify.add_argument(
        "--models",
        type=_csv(FAMILIES),
        default=list(FAMILIES),
        metavar="LIST",
        help=f"comma-separated model families (default: all: {', '.join(FAMILIES)})",
    )
    verify.add_argument(
        "--methods",
        type=_csv(METHODS),
        default=list(METHODS),
        metavar="LIST",
        help=f"comma-separated methods (default: {','.join(METHODS)}; each runs where it applies)",
    )
    verify.add_argument(
        "--sides",
        type=_csv(SIDES),
        default=list(SIDES),
        metavar="LIST",
        help="which side to solve: primal, dual or both (default: primal,dual)",
    )
    verify.add_argument("--seed", type=int, default=0, help="seed of the random instances (default: 0)")
    verify.add_argument(
        "--json",
        metavar="FILE",
        help="also write the rows as JSON to FILE ('-' for standard output; the table then goes to stderr); "
        "a FILE that cannot be written is refused before solving (exit status 2)",
    )
    verify.add_argument(
        "--extreme",
        action="store_true",
        help=(
            "use harder instances at the papers' extremes (eta up to 1e6, nu near N, N = 2000) "
            "instead of the default ones; some conic solves are expected to fail there, and the "
            "table says which"
        ),
    )
    verify.add_argument(
        "--relaxation",
        type=_csv(RELAXATIONS),
        metavar="NAME",
        help=(
            "instead of the model table, print the verification report of the named built-in "
            "relaxations of [SS] Def. 6 (comma-separated) on a random 30 x 40 matrix: values, "
            "certified gaps, map errors, Fenchel-Young residuals and Theorem 7's conditions; "
            f"one of {', '.join(RELAXATIONS)}"
        ),
    )
    verify.add_argument("--quiet", action="store_true", help="no progress line on a terminal")
    verify.set_defaults(func=_run("dualboost.cli_verify", "run_verify_command"))
    add_boost_parser(sub).set_defaults(func=_run("dualboost.cli_boost", "run_boost"))
    add_predict_parser(sub).set_defaults(func=_run("dualboost.cli_boost", "run_predict"))
    return parser


def _run(module: str, name: str) -> Callable[[argparse.Namespace], int]:
    """The run ``module.name`` of a command, imported when the command runs."""

    def run(args: argparse.Namespace) -> int:
        return getattr(import_module(module), name)(args)

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dualboost`` command; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (None: ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
