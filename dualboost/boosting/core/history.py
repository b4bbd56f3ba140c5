"""The per-iteration history every driver records (docs/architecture.md#layers).

One row per iteration t (one oracle call each):

``iteration``     t
``edge``          u^t . d^{t-1}, the edge of the new hypothesis on the distribution it was chosen for
``primal``        the d-domain value after the iteration's update (P^t(d^t); LPBoost: P_LP^t)
``dual``          the w-domain value after the update (Theta^t(w^t); LPBoost: the soft margin)
``gap``           ``primal - dual``, certified: both values are recomputed from d and w
``stopping``      the quantity the stopping rule compares with ``History.threshold`` (ERLPBoost:
                  delta^t or delta~^t of [KG] Secs 3.2.1-3.2.2,
                  docs/math.md#erlpboost-stopping; LPBoost: ``min_q u^q.d^{q-1} - P_LP^t``, ...)
``oracle_time``   seconds in the oracle this iteration
``solve_time``    seconds in the solver (or the closed-form update) this iteration
``time``          seconds since the run started, at the end of the iteration
``n_hypotheses``  hypotheses with w > 0 after the iteration

Quantities an iteration does not compute are NaN (e.g. the values of the last iteration of ERLPBoost,
which stops before re-solving, [KG] Alg. 3.2 step 3(c)).
"""

from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import astuple, dataclass, fields

import numpy as np
from numpy.typing import NDArray

__all__ = ["History", "HistoryRow", "HISTORY_FIELDS"]


@dataclass(frozen=True)
class HistoryRow:
    """One iteration of a driver (the module docstring says what each field holds).

    Parameters
    ----------
    iteration : int
        t.
    edge, primal, dual, gap, stopping : float
        The edge of the new hypothesis, the values after the update, their certified gap and the
        stopping quantity (NaN where the iteration does not compute one).
    oracle_time, solve_time, time : float
        Seconds in the oracle, in the solver, and since the run started.
    n_hypotheses : int
        Hypotheses with w > 0 after the iteration.
    """

    iteration: int
    edge: float
    primal: float = math.nan
    dual: float = math.nan
    gap: float = math.nan
    stopping: float = math.nan
    oracle_time: float = 0.0
    solve_time: float = 0.0
    time: float = 0.0
    n_hypotheses: int = 0


#: the column names, in CSV order
HISTORY_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(HistoryRow))


def _cell(value: float | int) -> str:
    """A CSV cell: integers as such, floats round-trip exactly, NaN as an empty cell."""
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    return "" if math.isnan(value) else f"{value:.17g}"


class History:
    """The rows of a run, with the stopping rule they were compared against.

    ``history["gap"]`` gives a column as a numpy array.

    Parameters
    ----------
    criterion : str, default ""
        Names the stopping quantity (e.g. ``"practical: delta~ <= eps/2"``).
    threshold : float, default nan
        The threshold of the stopping quantity.
    """

    def __init__(self, criterion: str = "", threshold: float = math.nan) -> None:
        self.rows: list[HistoryRow] = []
        self.criterion = criterion
        self.threshold = float(threshold)

    def append(self, row: HistoryRow) -> None:
        self.rows.append(row)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        return iter(self.rows)

    def __getitem__(self, key: str | int) -> NDArray | HistoryRow:
        """A column by name (numpy array) or a row by position."""
        if isinstance(key, str):
            if key not in HISTORY_FIELDS:
                raise KeyError(f"no history column {key!r}; the columns are {', '.join(HISTORY_FIELDS)}")
            return np.array([getattr(row, key) for row in self.rows])
        return self.rows[key]

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """Write the rows as CSV (header = :data:`HISTORY_FIELDS`) to ``path``; return the text."""
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(HISTORY_FIELDS)
        for row in self.rows:
            writer.writerow([_cell(v) for v in astuple(row)])
        text = buffer.getvalue()
        if path is not None:
            with open(path, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        return text

    def __repr__(self) -> str:
        return f"History({len(self.rows)} rows, stopping: {self.criterion or '-'})"
