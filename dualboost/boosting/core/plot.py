"""The convergence plot of a run ([KG] Fig. 5.28): the certified duality gap and the stopping
quantity against iterations and against time.

matplotlib is an optional dependency (``pip install "dualboost[plot]"``), imported only here and
only when a plot is drawn; the figure is rendered with the Agg canvas, without pyplot, so no
global backend is changed.
"""

from __future__ import annotations

import os

import numpy as np

from dualboost.boosting.core.history import History

__all__ = ["plot_history"]


def _matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise ImportError(
            'plotting needs matplotlib, an optional dependency: pip install "dualboost[plot]"'
        ) from exc
    return Figure, FigureCanvasAgg


def plot_history(history: History, path: str | os.PathLike, *, title: str = "") -> None:
    """Save the gap and the stopping quantity of ``history`` against iterations and against time
    (two panels, logarithmic values; non-positive values are not drawn) to ``path`` (the format
    follows the extension, e.g. ``.png``, ``.pdf``, ``.svg``).

    Parameters
    ----------
    history : History
        The run's history.
    path : str or os.PathLike
        The image file written.
    title : str, default ""
        The figure's title.
    """
    Figure, FigureCanvasAgg = _matplotlib()
    figure = Figure(figsize=(10, 4), layout="constrained")
    FigureCanvasAgg(figure)
    iterations, seconds = history["iteration"], history["time"]
    curves = [
        ("gap", "certified duality gap of the subproblem", "-"),
        (
            "stopping",
            f"stopping quantity ({history.criterion})" if history.criterion else "stopping quantity",
            "-",
        ),
    ]
    for axis, x, label in zip(
        figure.subplots(1, 2), (iterations, seconds), ("iteration", "time (s)"), strict=True
    ):
        for key, name, style in curves:
            values = history[key].astype(float)
            shown = np.where(values > 0, values, np.nan)
            if np.any(np.isfinite(shown)):
                axis.plot(x, shown, style, label=name, linewidth=1.2)
        if np.isfinite(history.threshold) and history.threshold > 0:
            axis.axhline(history.threshold, color="gray", linestyle="--", linewidth=1, label="threshold")
        axis.set_yscale("log")
        axis.set_xlabel(label)
        axis.grid(True, which="major", alpha=0.3)
    figure.axes[0].set_ylabel("value")
    figure.axes[0].legend(loc="best", fontsize="small")
    if title:
        figure.suptitle(title)
    figure.savefig(path)
