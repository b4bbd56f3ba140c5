"""What the benchmark scripts share: the argument parser with the common flags, the header line of a
results file (command, UTC time, commit, cores, load) and the writer that prints each line and keeps
it for the results file.

The scripts are run by hand from the repository root (``python benchmarks/NAME.py``) or imported by
path from the tests; either way they import this module as ``_common`` after putting their own folder
on ``sys.path`` (``benchmarks/`` is not a package).
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

#: the folder of the results files, ``benchmarks/results``
RESULTS = Path(__file__).resolve().parent / "results"
#: the data folder beside the repository's folder, where ``$DUALBOOST_DATA`` is not set
SHARED_DATA = RESULTS.parents[2] / "shared" / "data"


def summary(doc: str | None) -> str:
    """The first paragraph of a script's docstring, on one line: its ``--help`` description.

    Parameters
    ----------
    doc : str or None
        The module docstring.

    Returns
    -------
    str
        The text before the first blank line, its line breaks folded to spaces.
    """
    return " ".join((doc or "").strip().split("\n\n")[0].split())


def make_parser(
    doc: str | None,
    out: Path | str | None = None,
    *,
    out_flag: str = "--out",
    out_help: str = "the results file",
    out_type: type = Path,
    data: bool = False,
) -> argparse.ArgumentParser:
    """The argument parser of a benchmark script, with its results-file flag.

    Parameters
    ----------
    doc : str or None
        The script's docstring; its first paragraph is the ``--help`` description.
    out : Path or str, optional
        The default results file; None adds no results-file flag (the script adds its own).
    out_flag : str, default "--out"
        The flag's name (``--output`` in a few scripts).
    out_help : str, default "the results file"
        The flag's help text; ``{default}`` in it is replaced by ``out``.
    out_type : type, default Path
        How the flag's value is parsed (``str`` where ``-`` means "print only").
    data : bool, default False
        Add ``--data FOLDER``, the folder of the LIBSVM files (see :func:`use_data`).

    Returns
    -------
    argparse.ArgumentParser
        The parser; the script adds its own flags.
    """
    parser = argparse.ArgumentParser(description=summary(doc))
    if out is not None:
        parser.add_argument(out_flag, type=out_type, default=out_type(out), help=out_help.format(default=out))
    if data:
        parser.add_argument(
            "--data", type=Path, default=None, help="data folder (default $DUALBOOST_DATA or ../shared/data)"
        )
    return parser


def use_data(folder: Path | None = None) -> None:
    """Point :func:`dualboost.datasets.load_dataset` at ``folder``, or where nothing is set yet at
    :data:`SHARED_DATA`.

    Parameters
    ----------
    folder : Path, optional
        The folder of the LIBSVM files (a script's ``--data``); it overrides ``$DUALBOOST_DATA``.
    """
    if folder is not None:
        os.environ["DUALBOOST_DATA"] = str(folder)
    else:
        os.environ.setdefault("DUALBOOST_DATA", str(SHARED_DATA))


def commit() -> str:
    """The short hash of the checkout's HEAD, or ``unknown`` outside a git checkout.

    Returns
    -------
    str
        ``git rev-parse --short HEAD`` run in the repository, or ``unknown``.
    """
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=RESULTS.parent,
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return done.stdout.strip()


def load_average() -> str:
    """The machine's load averages over 1, 5 and 15 minutes, as ``0.52, 0.61, 0.70``.

    Returns
    -------
    str
        The three figures to two decimals.
    """
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def provenance(script: str, argv: list[str] | None) -> str:
    """The first line of a results file: the command, then when, at which commit and where it ran.

    Parameters
    ----------
    script : str
        The script's ``__file__`` (its file name is what the command line names).
    argv : list of str or None
        The arguments ``main`` was called with; None: the command line's (``sys.argv[1:]``).

    Returns
    -------
    str
        ``# python benchmarks/NAME.py ARGS  (YYYY-MM-DD HH:MM UTC, commit C, python V, K cores,
        load L at start)``.
    """
    args = sys.argv[1:] if argv is None else argv
    command = f"# python benchmarks/{Path(script).name} {' '.join(map(str, args))}".rstrip()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return (
        f"{command}  ({when}, commit {commit()}, python {platform.python_version()}, "
        f"{platform.machine()} {os.cpu_count()} cores, load {load_average()} at start)"
    )


class Report:
    """The lines of a results file, each printed as it comes (``emit``) and written at the end.

    Parameters
    ----------
    out : Path or None
        The results file; None: print only.
    *head : str
        The first lines (printed at once), usually :func:`provenance` and a caption.
    """

    def __init__(self, out: Path | None, *head: str) -> None:
        self.out = out
        self.lines: list[str] = []
        if head:
            self.emit(*head)

    def emit(self, *lines: str) -> None:
        """Print each line at once and keep it for the results file; no line: an empty one.

        Parameters
        ----------
        *lines : str
            The lines (each may hold newlines of its own).
        """
        for line in lines or ("",):
            print(line, flush=True)
            self.lines.append(line)

    __call__ = emit

    @property
    def text(self) -> str:
        """The kept lines, each ended by a newline."""
        return "\n".join(self.lines) + "\n"

    def write(self) -> str:
        """Write the kept lines to the results file (its folder made if needed) and say where.

        Returns
        -------
        str
            The text written (or that would have been, where ``out`` is None).
        """
        text = self.text
        if self.out is not None:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self.out.write_text(text, encoding="utf-8")
            print(f"wrote {self.out}")
        return text
