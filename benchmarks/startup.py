"""Start-up time of the ``dualboost`` command: ``--help`` of the command and of each
subcommand, against ``python -c pass`` measured in the same run.

Each command runs ``--repeat`` times (default 5) in a fresh subprocess (``python -m dualboost.cli``,
what the ``dualboost`` script runs), interleaved so that a change of the machine's load falls on
every command alike; reported: the median wall time, its excess over ``python -c pass`` (the
interpreter's own start-up) and the slowest run. ``--root`` points at the checkout whose dualboost is
timed (default: this one); given more than once, the checkouts are timed in the same interleaved
runs, e.g. a branch against main in the same conditions.

    python benchmarks/startup.py
    python benchmarks/startup.py --root . --root ../main

Output: ``benchmarks/results/startup.txt`` (``--out``). No time is asserted (tests/cli/test_startup.py
checks structurally that the help imports neither the solvers nor scikit-learn).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, make_parser, provenance  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: label -> the arguments after the interpreter
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "dualboost --help": ["-m", "dualboost.cli", "--help"],
    "dualboost verify --help": ["-m", "dualboost.cli", "verify", "--help"],
    "dualboost boost --help": ["-m", "dualboost.cli", "boost", "--help"],
    "dualboost predict --help": ["-m", "dualboost.cli", "predict", "--help"],
}


def time_commands(roots: list[Path], repeat: int) -> dict[Path, dict[str, list[float]]]:
    """The wall times (seconds) of ``repeat`` runs of each command from each of ``roots``."""
    times = {root: {label: [] for label in COMMANDS} for root in roots}
    for _ in range(repeat):
        for root in roots:
            env = os.environ | {"PYTHONPATH": str(root)}
            for label, args in COMMANDS.items():
                start = time.perf_counter()
                subprocess.run([sys.executable, *args], cwd=root, env=env, check=True, capture_output=True)
                times[root][label].append(time.perf_counter() - start)
    return times


def report(times: dict[Path, dict[str, list[float]]], repeat: int, argv: list[str] | None = None) -> str:
    """One table per checkout: medians, excess over ``python -c pass`` and slowest runs, under the
    command line ``argv`` (None: this process's)."""
    lines = [
        provenance(__file__, argv),
        f"# dualboost start-up: median of {repeat} fresh processes each (load average "
        f"{os.getloadavg()[0]:.1f} at the end)",
    ]
    for root, table in times.items():
        base = statistics.median(table["python -c pass"])
        lines += ["", f"dualboost from {root}"]
        lines.append(f"{'command':<26} {'median s':>9} {'minus python s':>15} {'slowest s':>10}")
        for label, values in table.items():
            median = statistics.median(values)
            lines.append(f"{label:<26} {median:>9.3f} {median - base:>15.3f} {max(values):>10.3f}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(__doc__, RESULTS / "startup.txt", out_help="the report file")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each command (default 5)")
    parser.add_argument(
        "--root", type=Path, action="append", help="a checkout to time (repeatable; default: this one)"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be a positive integer; got {args.repeat}")
    roots = [root.resolve() for root in args.root or [ROOT]]
    text = report(time_commands(roots, args.repeat), args.repeat, argv)
    args.out.write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
