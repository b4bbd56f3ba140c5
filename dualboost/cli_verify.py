"""``dualboost verify``: the run (its options: :func:`dualboost.cli.build_parser`).

Solves every model family on built-in instances (:func:`dualboost.verify.run_verify`), or with
``--relaxation`` reports on the built-in relaxations (:mod:`dualboost.problems.relaxation_report`),
and prints one table; the exit status is 1 when a row fails its tolerance. :mod:`dualboost.cli`
imports this module only when the command runs (it imports the models and the solvers, which
``--help`` does not need).
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from dualboost.cli_outputs import check_outputs, write_text
from dualboost.problems.relaxation_report import (
    FAST_GAP_TOL,
    FAST_MAP_TOL,
    builtin_relaxation,
)
from dualboost.problems.relaxation_report import GAP_TOL as RELAXATION_GAP_TOL
from dualboost.solvers import METHODS, accepts
from dualboost.verify import VerifyRow, run_verify

__all__ = ["run_verify_command"]

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
            report = twin.verify(
                [*beside, "auglag"],
                args.sides,
                name=f"{name}, form 'simplex'",
                gap_tol=FAST_GAP_TOL,
                map_tol=FAST_MAP_TOL,
            )
            print(report, end="\n\n")
            failed += not report.passed
    return 1 if failed else 0


def run_verify_command(args: argparse.Namespace) -> int:
    """The ``verify`` subcommand (its options: :func:`dualboost.cli.build_parser`); returns the exit
    status.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``verify``.

    Returns
    -------
    int
        The exit status.
    """
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
