"""The ``dualboost`` command.

``dualboost verify`` solves every model family on built-in instances, on both sides, with each
cvxpy solver, maps each solution to the other side, certifies it and prints one table; it exits 1
when any row fails its tolerance and says which.

``dualboost boost`` trains a booster on a LIBSVM file and reports (:mod:`dualboost.cli_boost`);
``dualboost predict MODEL DATA`` predicts with a model that ``boost --save`` wrote.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

from dualboost import __version__
from dualboost.cli_boost import add_boost_parser, add_predict_parser
from dualboost.cli_outputs import check_outputs, write_text
from dualboost.problems.relaxation_report import (
    BUILTIN_RELAXATIONS,
    FAST_GAP_TOL,
    FAST_MAP_TOL,
    builtin_relaxation,
)
from dualboost.problems.relaxation_report import GAP_TOL as RELAXATION_GAP_TOL
from dualboost.solvers import METHODS, SIDES, accepts
from dualboost.verify import FAMILIES, GAP_TOL, MAP_TOL, VerifyRow, run_verify

__all__ = ["main"]

_COLUMNS = (
    ("model", "model", "{}"),
    ("instance", "instance", "{}"),
    ("method", "method", "{}"),
    ("side", "side", "{}"),
    ("primal_value", "primal", "{:.10f}"),
    ("dual_value", "dual", "{:.10f}"),
    ("gap", "rel. gap", "{:.1e}"),
    ("map_error", "map err", "{:.1e}"),
    ("time", "time s", "{:.3f}"),
    ("passed", "ok", "{}"),
)


def _csv(allowed: Sequence[str]):
    def parse(text: str) -> list[str]:
        items = [x.strip() for x in text.split(",") if x.strip()]
        bad = [x for x in items if x not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(f"choose from {', '.join(allowed)} (comma-separated)")
        return items

    return parse


def _format(row: VerifyRow) -> list[str]:
    cells = []
    for key, _, fmt in _COLUMNS:
        value = getattr(row, key)
        if key == "passed":
            cells.append("yes" if value else "NO")
        elif isinstance(value, float) and not math.isfinite(value):
            cells.append("-")
        else:
            cells.append(fmt.format(value))
    return cells


def _print_table(rows: list[VerifyRow], out) -> None:
    header = [title for _, title, _ in _COLUMNS]
    body = [_format(r) for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)), file=out)
    print("  ".join("-" * w for w in widths), file=out)
    for cells in body:
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)), file=out)


#: the methods that solve a Relaxation (its own tolerance table): the cvxpy solvers
RELAXATION_METHODS = tuple(RELAXATION_GAP_TOL)


def _verify_relaxations(args: argparse.Namespace) -> int:
    """``--relaxation NAMES``: print the verification report of each named built-in relaxation (form
    "abs", the cvxpy methods) and, where its dual is smooth and auglag is asked for, a second report
    on its simplex form (the same values, docs/math.md#signed-weights) with auglag's rows beside
    Clarabel's."""
    methods = [m for m in args.methods if m in RELAXATION_METHODS]
    fast = "auglag" in args.methods and "dual" in args.sides
    reports = []
    for name in args.relaxation:
        twin = builtin_relaxation(name, seed=args.seed, form="simplex") if fast else None
        if twin is not None and accepts(twin, "auglag", "dual") is not None:
            if args.methods != list(METHODS):
                print(f"note: auglag skipped for {name}: {accepts(twin, 'auglag', 'dual')}", file=sys.stderr)
            twin = None
        if not methods and twin is None:
            print(
                f"dualboost verify: error: --methods {','.join(args.methods)}: where its dual is not "
                f"smooth a relaxation is solved through cvxpy only ({', '.join(RELAXATION_METHODS)})",
                file=sys.stderr,
            )
            return 2
        reports.append((name, twin))
    skipped = [m for m in args.methods if m not in RELAXATION_METHODS and m != "auglag"]
    if skipped and args.methods != list(METHODS):
        print(
            f"note: {', '.join(skipped)} skipped: a relaxation is solved through cvxpy "
            f"({', '.join(RELAXATION_METHODS)}) and, where its dual is smooth, auglag",
            file=sys.stderr,
        )
    failed = 0
    for name, twin in reports:
        if methods:
            report = builtin_relaxation(name, seed=args.seed).verify(methods, args.sides, name=name)
            print(report, end="\n\n")
            failed += not report.passed
        if twin is not None:
            beside = [m for m in ("clarabel",) if m in methods]
            report = twin.verify([*beside, "auglag"], args.sides, name=f"{name}, form 'simplex'",
                                 gap_tol=FAST_GAP_TOL, map_tol=FAST_MAP_TOL)
            print(report, end="\n\n")
            failed += not report.passed
    return 1 if failed else 0


def _verify(args: argparse.Namespace) -> int:
    try:
        check_outputs({"--json": args.json}, {})
    except ValueError as exc:
        print(f"dualboost verify: error: {exc}", file=sys.stderr)
        return 2
    if args.relaxation:
        return _verify_relaxations(args)
    rows: list[VerifyRow] = []
    progress = sys.stderr.isatty() and not args.quiet
    for row in run_verify(args.models, args.methods, args.sides, seed=args.seed, extreme=args.extreme):
        rows.append(row)
        if progress:
            print(
                f"\r{len(rows)} solved: {row.model} {row.method} {row.side}".ljust(78),
                end="",
                file=sys.stderr,
            )
    if progress:
        print("\r" + " " * 78 + "\r", end="", file=sys.stderr)
    written = True
    if args.json:
        payload = json.dumps([r.as_dict() for r in rows], indent=2, allow_nan=True)
        if args.json == "-":
            print(payload)
        else:
            written = write_text("verify", "--json", args.json, payload + "\n")
    out = sys.stderr if args.json == "-" else sys.stdout
    _print_table(rows, out)
    failed = [r for r in rows if not r.passed]
    total_time = sum(r.time for r in rows)
    if failed:
        print(f"\n{len(failed)} of {len(rows)} checks FAILED:", file=out)
        for r in failed:
            print(f"  {r.model} [{r.instance}] {r.method}/{r.side}: {r.reason}", file=out)
        return 1
    print(f"\nall {len(rows)} checks passed in {total_time:.1f} s", file=out)
    return 0 if written else 1


def build_parser() -> argparse.ArgumentParser:
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
        type=_csv(tuple(BUILTIN_RELAXATIONS)),
        metavar="NAME",
        help=(
            "instead of the model table, print the verification report of the named built-in "
            "relaxations of [SS] Def. 6 (comma-separated) on a random 30 x 40 matrix: values, "
            "certified gaps, map errors, Fenchel-Young residuals and Theorem 7's conditions; "
            f"one of {', '.join(BUILTIN_RELAXATIONS)}"
        ),
    )
    verify.add_argument("--quiet", action="store_true", help="no progress line on a terminal")
    verify.set_defaults(func=_verify)
    add_boost_parser(sub)
    add_predict_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dualboost`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
