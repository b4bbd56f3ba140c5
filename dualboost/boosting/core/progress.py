"""The progress line of long runs: one overwritten line on stderr, on a terminal only.

A :class:`ProgressLine` is a driver callback (it is called with each
:class:`~dualboost.boosting.core.history.HistoryRow`); it redraws at most ten times a second and stays
silent when disabled (``ProgressLine(sys.stderr.isatty())``: quiet when output is not a terminal).
``describe`` turns a row into the text: :func:`iteration_text` for the batch drivers (``dualboost
boost``), or any other function (the online estimators print examples, loss and throughput).
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable

from dualboost.boosting.core.history import HistoryRow

__all__ = ["ProgressLine", "iteration_text", "number_text"]

#: the width the line is padded to (and wiped with)
WIDTH = 78


def number_text(value: float) -> str:
    """``value`` to 3 significant digits, ``-`` when it is NaN or infinite.

    Parameters
    ----------
    value : float
        The number.

    Returns
    -------
    str
        Its text.
    """
    return "-" if not math.isfinite(value) else f"{value:.3g}"


def iteration_text(row: HistoryRow) -> str:
    """Iteration, edge of the new hypothesis, certified gap, stopping quantity, hypotheses in use.

    Parameters
    ----------
    row : HistoryRow
        One iteration of a history.

    Returns
    -------
    str
        The progress line.
    """
    return (
        f"iteration {row.iteration}  edge {row.edge:+.4f}  gap {number_text(row.gap)}  "
        f"stopping {number_text(row.stopping)}  hypotheses {row.n_hypotheses}"
    )


class ProgressLine:
    """One overwritten line on stderr per row (at most 10 per second) while ``enabled``.

    Parameters
    ----------
    enabled : bool
        Whether to draw (on a terminal).
    describe : callable, default iteration_text
        HistoryRow -> the text of the line.
    """

    def __init__(self, enabled: bool, describe: Callable[[HistoryRow], str] = iteration_text) -> None:
        self.enabled = bool(enabled)
        self.describe = describe
        self.last = 0.0

    def __call__(self, row: HistoryRow) -> None:
        now = time.perf_counter()
        if not self.enabled or now - self.last < 0.1:
            return
        self.last = now
        print("\r" + self.describe(row).ljust(WIDTH), end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        """Wipe the line (if anything was drawn)."""
        if self.enabled and self.last:
            print("\r" + " " * WIDTH + "\r", end="", file=sys.stderr, flush=True)
