"""ERLPBoost with decision stumps against the 2009 C++ ERLPBoost code: the speed to reach eps.

The reference figures of the C++ code (L-BFGS-B on the t + N variables (w, psi)) run with
decision stumps on a machine like ours, as quoted when the target was set:

=========  ==========  ======  ============  ==========
data set   nu          eps     iterations    time (s)
=========  ==========  ======  ============  ==========
german     1           0.01    139           2.3
diabetes   1           0.01    312           18.8
a9a train  0.1 N       0.01    48            6.8
=========  ==========  ======  ============  ==========

and the target is to do the same runs at least 5x faster, reaching the same eps with a comparable
number of iterations. This script does those runs with ``dualboost.boosting.erlpboost`` (its
defaults: canonical eta = (2/eps) ln(N/nu) (docs/math.md#canonical-eta), the practical criterion
of docs/math.md#erlpboost-stopping,
``method="auglag"``) and prints iterations, time, the oracle/solver split and the ratio
``C++ time / our time`` (> 1: we are faster).

Quoted or measured C++ figures. Without ``--cpp`` the C++ columns (``C++ it``, ``C++ s``) are the
reference figures above, quoted, not measured (another machine, another time): the ratio is indicative
and the target is 5x (:data:`TARGET_RATIO`). With ``--cpp PATH`` the script runs the 2009
C++ code itself (public repository rodrigob/totally_corrective_boosting, its ``test_erlpboost``
application built with its CMake files; PATH is that binary) in the same command, on every training
set of the table, and the quoted figures are not used:

* :func:`write_cpp_inputs` writes the training set, exactly as our run gets it, as a LIBSVM file
  (1-based feature indices and labels -1/+1, as the C++ reader and stump oracle take them) and a
  config file of ``key = value`` lines: ``oracle_type = decisionstump`` with ``reflexive = true``
  (stumps in both directions, as ours), ``booster_type = ERLPBoost``, ``optimizer_type = lbfgsb``,
  ``binary = false``, the same ``nu`` (a count: 1 is the hard margin) and ``eps`` as our run (so the
  C++ code takes the same eta = 2 ln(N/nu)/eps), ``max_iter`` Thm 3.12's bound
  (:func:`~dualboost.boosting.core.stopping.erlpboost_max_iter`), the same file as ``test_file``;
* ``test_erlpboost CONFIG`` runs in a subprocess. ``C++ it`` is the T it reports (``Finished in T
  iterations``, T hypotheses, as our ``iter``), ``C++ s`` the wall-clock seconds around the
  subprocess: they include its reading of the LIBSVM text, its sort and its final error evaluation
  (its own CPU time of the boosting loop, ``Total CPU time expended``, is printed beside in the
  summary). The ratio uses these, and its target is :data:`CPP_TARGET_RATIO` (50x);
* a C++ run that fails (exit status, time-out, output without the iteration count) is reported on a
  line of its own, with the last line of its stderr, and the comparison goes on.

Which data the C++ runs used. The quoted figures do not say; the thesis ([KG] Ch. 5,
docs/math.md#thesis-experiments) runs every algorithm on the 60 % training part of a random 60/20/20
split, and the C++ code ships ``a9a.train``. Running both readings settles it (``--seeds 0 1 2 3 4``
adds the splits):

* a9a train: the file ``a9a.train`` shipped with the C++ code (29,305 examples, 123 binary
  features), the thesis's training part (Table 5.2); no preprocessing. We stop after 49 oracle
  calls with T = 48 hypotheses (the last answer is discarded, Alg. 3.2): the C++ figure counts T.
* german and diabetes: the WHOLE LIBSVM files ``german.numer`` (1,000 examples) and ``diabetes``
  (768), unscaled, as the C++ reader takes them: they give 139 and 323 iterations (C++: 139 and
  312), while the thesis's 600- and 460-example training parts give 160-176 and 229-246 over five
  split seeds (:func:`dualboost.datasets.thesis_split`). So the default runs the whole files.
* Decision stumps are invariant under any increasing rescaling of a feature (the same examples fall
  on each side of every threshold), so feature scaling (``german.numer`` vs ``german.numer_scale``)
  does not change U, d or the iterations: only which examples are used matters.

Times are wall-clock on this machine (2 cores, shared with other jobs: the load average is printed;
``cpu s`` is this process's CPU time, all threads, for the driver run, a guide to the wall time on
an idle machine). The lead re-runs this after the solver work.

    python benchmarks/cpp_erlpboost.py                 # the three runs (about 30 s on an idle machine)
    python benchmarks/cpp_erlpboost.py --seeds 0 1 2 3 4   # also the thesis's training splits
    python benchmarks/cpp_erlpboost.py --datasets german --out -   # print only
    python benchmarks/cpp_erlpboost.py --cpp path/to/test_erlpboost   # also run the C++ code
    python benchmarks/cpp_erlpboost.py --python-path   # also ours with the Python re-solves only

``--python-path`` runs each of our fits a second time with ``NewtonOptions(compiled=False)`` (the
Python Newton path, no compiled re-solve; docs/architecture.md#compiled-code) and prints its time
and the compiled path's speed-up on a line under the row. ``--repeat R`` (default 1): our fits are
the best of R runs, alternating with the Python path's (a change in a shared machine's load hits
both alike; single runs varied by 2x at load 2-3).

``--cpp-repeat K`` (default 1): the C++ figure is the best of K runs of the binary, done in rounds
with ours (round i: our fit i, then C++ run i), and the ratio is best against best. The machine's
speed drifts (a VM: the same german fit took 0.057 s and 0.094 s within a quarter of an hour, the
C++ run 2.9-3.9 s), so one C++ run beside the best of R of ours mixes two moments; with the runs
interleaved, both bests come from the same stretch of time. The summary lists every C++ time.
A 50 ms fit (german) varies more, relatively, than a 2.6 s C++ run (2.63-2.68 s idle): the
results' german figures take our best of 15 (the rounds after the fifth run ours alone).

    python benchmarks/cpp_erlpboost.py --cpp path/to/test_erlpboost --repeat 15 --cpp-repeat 5
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from sklearn.exceptions import ConvergenceWarning

from dualboost.boosting import erlpboost
from dualboost.boosting.core.stopping import erlpboost_max_iter
from dualboost.datasets import load_dataset
from dualboost.oracles import DecisionStumps
from dualboost.solvers import AuglagOptions, NewtonOptions, default_options

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, make_parser, provenance, use_data  # noqa: E402

#: the target against the quoted C++ figures: at least this many times faster
TARGET_RATIO = 5.0
#: the target against the C++ code run in the same command (``--cpp``)
CPP_TARGET_RATIO = 50.0
#: seconds after which a C++ run is stopped and reported as failed (``--cpp-timeout``)
CPP_TIMEOUT = 600.0
#: where the C++ figures come from, without and with ``--cpp``
QUOTED, MEASURED = "quoted, not measured", "measured here"
#: the training sets the C++ figures belong to (module docstring)
WHOLE, SHIPPED = "whole file", "train (shipped)"


@dataclass(frozen=True)
class Reference:
    """One quoted C++ run: the capping as a fraction of N (None: nu = 1), eps,
    iterations and seconds."""

    nu_fraction: float | None
    eps: float
    iterations: int
    seconds: float


REFERENCES: dict[str, Reference] = {
    "german": Reference(None, 0.01, 139, 2.3),
    "diabetes": Reference(None, 0.01, 312, 18.8),
    "a9a": Reference(0.1, 0.01, 48, 6.8),
}


def training_sets(name: str, seeds: list[int]):
    """``(label, X, y)`` for each training set the comparison runs on (see the module docstring):
    a9a's shipped train; the whole file of german / diabetes, then the training part of the
    thesis's split for each seed."""
    if name == "a9a":
        X, y = load_dataset("a9a", download=False).train  # the shipped split: seed-independent
        yield SHIPPED, X, y
        return
    parts = load_dataset(name, seed=0, download=False)
    stack = sp.vstack if sp.issparse(parts.train[0]) else np.vstack
    yield WHOLE, stack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    for seed in seeds:
        X, y = load_dataset(name, seed=seed, download=False).train
        yield f"train seed {seed}", X, y


def run_one(X, y, ref: Reference, compiled: bool | str = "auto") -> dict:
    """ERLPBoost with stumps at the reference's nu and eps; timing includes the oracle's fit.
    ``compiled``: ``NewtonOptions.compiled`` of the solves (False: the Python path only)."""
    with default_options(AuglagOptions(newton=NewtonOptions(compiled=compiled))):
        return _run_one(X, y, ref)


def _run_one(X, y, ref: Reference) -> dict:
    n = X.shape[0]
    nu = 1.0 if ref.nu_fraction is None else max(1.0, ref.nu_fraction * n)
    fit = time.perf_counter()
    oracle = DecisionStumps().fit(X, y)  # (its sort, as the C++ time includes the C++ code's)
    fit = time.perf_counter() - fit
    cpu = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        result = erlpboost(oracle, nu=nu, eps=ref.eps)
    cpu = time.process_time() - cpu
    return {
        "n": n,
        "nu": nu,
        "eta": result.params["eta"],
        "iterations": result.n_iter,
        "converged": result.converged,
        "stopping": float(result.history["stopping"][-1]),
        "time": fit + result.total_time,
        "cpu": cpu,
        "oracle": result.oracle_time,
        "solver": result.solver_time,
        "oracle_per_call_ms": 1e3 * result.oracle_time / max(1, result.n_iter),
    }


@dataclass(frozen=True)
class CppRun:
    """One run of the C++ binary on a training set: the iterations T it reports (None when it
    failed), whether it stopped on its criterion before ``max_iter``, the wall-clock seconds around
    the subprocess, its own CPU seconds of the boosting loop, and why it failed (None: it did not)."""

    iterations: int | None
    converged: bool
    seconds: float
    loop_cpu: float | None
    error: str | None = None


def write_cpp_inputs(X, y, nu: float, eps: float, max_iter: int, folder: Path) -> Path:
    """Write ``(X, y)`` as ``folder/train.libsvm`` (1-based LIBSVM) and the C++ config file
    ``folder/config.ini`` for an ERLPBoost run with stumps at ``nu``, ``eps`` (module docstring);
    return the config's path."""
    y = np.asarray(y, dtype=np.float64)
    if not np.isin(y, (-1.0, 1.0)).all():
        raise ValueError("the C++ code needs labels -1/+1")
    folder = Path(folder).resolve()
    if "#" in str(folder):  # '#' starts a comment in the config file
        raise ValueError(f"the C++ config file cannot name a path with '#': {folder}")
    train = folder / "train.libsvm"
    dump_svmlight_file(X, y, str(train), zero_based=False)
    config = {
        "train_file": train,
        "test_file": train,
        "output_file": folder / "output.txt",
        "oracle_type": "decisionstump",
        "reflexive": "true",
        "max_iter": int(max_iter),
        "booster_type": "ERLPBoost",
        "optimizer_type": "lbfgsb",
        "nu": repr(float(nu)),
        "eps": repr(float(eps)),
        "binary": "false",
    }
    path = folder / "config.ini"
    path.write_text("".join(f"{key} = {value}\n" for key, value in config.items()), encoding="utf-8")
    return path


def parse_cpp_output(text: str, max_iter: int) -> tuple[int | None, bool, float | None]:
    """``(T, converged, loop CPU seconds)`` from the C++ code's stdout run with ``max_iter``:
    ``Finished in T iterations`` (converged) or ``Max iterations exceeded!`` (T = max_iter, not
    converged), and ``Total CPU time expended: s seconds``; None for what is not there."""
    finished = re.search(r"^Finished in (\d+) iterations", text, re.MULTILINE)
    cpu = re.search(r"^Total CPU time expended: (\S+) seconds", text, re.MULTILINE)
    if finished:
        iterations = int(finished.group(1))
    else:
        iterations = max_iter if re.search(r"^Max iterations exceeded!", text, re.MULTILINE) else None
    return iterations, finished is not None, float(cpu.group(1)) if cpu else None


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(empty)"


def run_cpp(binary: Path, X, y, nu: float, eps: float, max_iter: int, timeout: float = CPP_TIMEOUT) -> CppRun:
    """Run the C++ binary on ``(X, y)`` at ``nu``, ``eps`` in a temporary folder; the seconds are
    the wall clock around the subprocess only (not the writing of its input)."""
    binary = Path(binary).resolve()  # the subprocess runs in the temporary folder
    with tempfile.TemporaryDirectory(prefix="cpp_erlpboost_") as folder:
        config = write_cpp_inputs(X, y, nu, eps, max_iter, Path(folder))
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [str(binary), str(config)], cwd=folder, capture_output=True, text=True, timeout=timeout
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return CppRun(None, False, time.perf_counter() - start, None, str(error))
        seconds = time.perf_counter() - start
    iterations, converged, loop_cpu = parse_cpp_output(done.stdout, max_iter)
    error = None
    if done.returncode != 0:
        error = f"exit status {done.returncode}: {_last_line(done.stderr)}"
    elif iterations is None:
        error = f"no iteration count in its output: {_last_line(done.stdout)}"
    return CppRun(None if error else iterations, converged and not error, seconds, loop_cpu, error)


def best_cpp_run(runs: list[CppRun]) -> CppRun:
    """The fastest of the C++ runs that did not fail; the first run when every one failed."""
    done = [run for run in runs if run.error is None]
    return min(done, key=lambda run: run.seconds) if done else runs[0]


def cpp_figures(r: dict, ref: Reference) -> tuple[int | None, float | None, bool]:
    """``(C++ iterations, C++ seconds, measured)`` to compare the run ``r`` with: those of the C++
    run in ``r["cpp"]`` (``--cpp``; None for a failed run), else the quoted ones."""
    measured: CppRun | None = r.get("cpp")
    if measured is None:
        return ref.iterations, ref.seconds, False
    return measured.iterations, None if measured.error else measured.seconds, True


HEADER = (
    f"{'data set':<9} {'training set':<16} {'N':>6} {'nu':>7} {'eta':>7} {'iter':>5} {'C++ it':>6} "
    f"{'time s':>8} {'cpu s':>7} {'oracle s':>8} {'solver s':>8} {'ms/call':>7} {'C++ s':>6} "
    f"{'ratio':>7} {'conv':>4}"
)


def row(name: str, label: str, r: dict, ref: Reference) -> str:
    """One line of the table: our run ``r`` beside the C++ figures of :func:`cpp_figures`."""
    cpp_iterations, cpp_seconds, measured = cpp_figures(r, ref)
    cpp_it = "-" if cpp_iterations is None else str(cpp_iterations)
    cpp_s, ratio = "-", "-"
    if cpp_seconds is not None:  # the quoted seconds have one decimal
        cpp_s, ratio = f"{cpp_seconds:.{2 if measured else 1}f}", f"{cpp_seconds / r['time']:.1f}x"
    return (
        f"{name:<9} {label:<16} {r['n']:>6d} {r['nu']:>7.1f} {r['eta']:>7.0f} {r['iterations']:>5d} "
        f"{cpp_it:>6} {r['time']:>8.2f} {r['cpu']:>7.2f} {r['oracle']:>8.3f} {r['solver']:>8.2f} "
        f"{r['oracle_per_call_ms']:>7.2f} {cpp_s:>6} {ratio:>7} {'yes' if r['converged'] else 'NO':>4}"
    )


def summary(name: str, label: str, r: dict, ref: Reference) -> str:
    """The verdict on one run against its C++ figures and the target that goes with them."""
    cpp_iterations, cpp_seconds, measured = cpp_figures(r, ref)
    solver = 100 * r["solver"] / r["time"]
    ours = f"{name} ({label}): {r['iterations']} iterations, {r['time']:.2f} s (solver {solver:.0f} %)"
    if cpp_seconds is None:
        return f"{ours}; the C++ run failed: no ratio\n"
    ratio = cpp_seconds / r["time"]
    target = CPP_TARGET_RATIO if measured else TARGET_RATIO
    verdict = "meets" if ratio >= target and r["converged"] else "misses"
    if measured:
        c = r["cpp"]
        stop = "" if c.converged else ", stopped at max_iter"
        cpu = "" if c.loop_cpu is None else f", boosting loop {c.loop_cpu:.2f} s CPU by its own timer"
        times = r.get("cpp_seconds", [cpp_seconds])
        best = "" if len(times) < 2 else f" (best of {len(times)}: {', '.join(f'{t:.2f}' for t in times)})"
        cpp = f"C++ {MEASURED}: {cpp_iterations} iterations{stop}, {cpp_seconds:.2f} s wall{best}{cpu}"
    else:
        cpp = f"C++ {QUOTED}: {cpp_iterations} iterations, {cpp_seconds} s"
    return f"{ours}; {cpp}: {ratio:.1f}x, {verdict} the {target:g}x target\n"


def run(
    datasets: list[str],
    seeds: list[int],
    out,
    cpp: Path | None = None,
    cpp_timeout: float = CPP_TIMEOUT,
    python_path: bool = False,
    repeat: int = 1,
    cpp_repeat: int = 1,
) -> list[tuple[str, str, dict]]:
    """Run the comparison, write the table to ``out`` (flushed line by line); return the rows.
    With ``cpp`` (the C++ binary) each training set is also run by it ``cpp_repeat`` times, in rounds
    alternating with our ``repeat`` fits (ours, then the C++ code's), the fastest :class:`CppRun`
    that did not fail going to the row's ``"cpp"`` (:func:`best_cpp_run`) and the seconds of every
    run that did not fail to ``"cpp_seconds"``; without, the C++ figures are the quoted ones."""
    if repeat < 1 or cpp_repeat < 1:
        raise ValueError(f"repeat and cpp_repeat must be at least 1; got {repeat} and {cpp_repeat}")
    source = f"{MEASURED}: the iterations it reports, the wall clock of its process" if cpp else QUOTED
    out.write(f"C++ it, C++ s: {source}\n" + HEADER + "\n" + "-" * len(HEADER) + "\n")
    out.flush()
    rows = []
    for name in datasets:
        ref = REFERENCES[name]
        for label, X, y in training_sets(name, seeds):
            runs, pythons, cpps = [], [], []
            for i in range(max(repeat, cpp_repeat if cpp else 0)):  # rounds: ours, then the C++ code
                if i < repeat:
                    runs.append(run_one(X, y, ref))
                    if python_path:
                        pythons.append(run_one(X, y, ref, compiled=False))
                if cpp and i < cpp_repeat:
                    max_iter = erlpboost_max_iter(runs[0]["eta"], ref.eps)
                    cpps.append(run_cpp(cpp, X, y, runs[0]["nu"], ref.eps, max_iter, cpp_timeout))
            r = min(runs, key=lambda run: run["time"])
            if cpp:
                r["cpp"] = best_cpp_run(cpps)
                r["cpp_seconds"] = [c.seconds for c in cpps if c.error is None]
            rows.append((name, label, r))
            out.write(row(name, label, r, ref) + "\n")
            if python_path:
                py = min(pythons, key=lambda run: run["time"])
                out.write(
                    f"{'':<9} Python path: {py['iterations']} iterations, {py['time']:.2f} s (solver "
                    f"{py['solver']:.2f} s): compiled x{py['time'] / r['time']:.2f} overall, solver "
                    f"x{py['solver'] / r['solver']:.2f}\n"
                )
            if cpp and r["cpp"].error:
                out.write(f"C++ run on {name} ({label}) failed: {r['cpp'].error}\n")
            out.flush()
    out.write("\n")
    for name, label, r in rows:
        if cpp or label in (WHOLE, SHIPPED):  # the quoted figures belong to these training sets only
            out.write(summary(name, label, r, REFERENCES[name]))
    out.flush()
    return rows


class _Tee(io.TextIOBase):
    """Write to several text streams at once."""

    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def main(argv: list[str] | None = None) -> int:
    parser = make_parser(
        __doc__,
        RESULTS / "cpp_erlpboost.txt",
        out_help="output file ('-': print only)",
        out_type=str,
        data=True,
    )
    parser.add_argument("--datasets", nargs="+", default=list(REFERENCES), choices=list(REFERENCES))
    parser.add_argument(
        "--seeds", type=int, nargs="*", default=[], help="also the thesis's training split for these seeds"
    )
    parser.add_argument(
        "--cpp",
        type=Path,
        default=None,
        metavar="PATH",
        help="the 2009 C++ test_erlpboost binary: run it on the same data and compare with measured figures",
    )
    parser.add_argument(
        "--python-path", action="store_true", help="also run ours on the Python path (compiled=False)"
    )
    parser.add_argument("--repeat", type=int, default=1, help="our fits: the best of this many runs (1)")
    parser.add_argument(
        "--cpp-repeat",
        type=int,
        default=1,
        help="with --cpp: the C++ figure is the best of this many runs, alternating with ours (1)",
    )
    parser.add_argument(
        "--cpp-timeout", type=float, default=CPP_TIMEOUT, help="seconds before a C++ run counts as failed"
    )
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.cpp_repeat < 1:
        parser.error("--repeat and --cpp-repeat take a count of at least 1")
    if args.cpp is not None and not args.cpp.is_file():
        parser.error(f"--cpp: no file {args.cpp}")
    use_data(args.data)
    command = provenance(__file__, argv)
    if args.out == "-":
        sys.stdout.write(f"{command}\n")
        run(
            args.datasets,
            args.seeds,
            sys.stdout,
            args.cpp,
            args.cpp_timeout,
            args.python_path,
            args.repeat,
            args.cpp_repeat,
        )
        return 0
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        tee = _Tee(sys.stdout, handle)
        tee.write(f"{command}\n")
        load = os.getloadavg()[0]
        run(
            args.datasets,
            args.seeds,
            tee,
            args.cpp,
            args.cpp_timeout,
            args.python_path,
            args.repeat,
            args.cpp_repeat,
        )
        cpp = MEASURED if args.cpp else QUOTED
        tee.write(
            f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end "
            f"({os.cpu_count()} cores): times are wall-clock, the C++ figures {cpp}\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
