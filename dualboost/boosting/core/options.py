"""The options of a boosting run that are not parameters of its problem: :class:`RunOptions`.

Every driver takes ``(problem parameters, oracle, options)``: its own keyword arguments say which
problem it solves (nu, eps, eta, ...), and a :class:`RunOptions` says how the run is watched and kept
(a progress callback, the iterates and stages it records, checkpoints, a time limit). A user passes
the options either as keywords (``lpboost(oracle, callback=print, max_time=60)``) or as one object
(``lpboost(oracle, options=RunOptions(max_time=60))``); :func:`takes_run_options` turns the keywords
into the object, in this one place, for every driver (docs/boosting.md#run-options).
"""

from __future__ import annotations

import functools
import inspect
import math
import os
import re
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TypeVar

import numpy as np

from dualboost._validation import check_positive
from dualboost.boosting.core.checkpoint import DEFAULT_EVERY, Checkpoint, releasing_checkpoints
from dualboost.boosting.core.history import HistoryRow

__all__ = [
    "RunOptions",
    "OPTION_NAMES",
    "NO_ITERATES",
    "NO_CHECKPOINT",
    "ONLY_PROGRESS",
    "takes_run_options",
    "Callback",
    "Clock",
]

#: called with each history row as it is recorded (progress display)
Callback = Callable[[HistoryRow], None]
#: seconds since an arbitrary origin, increasing (``time.perf_counter``)
Clock = Callable[[], float]
_Driver = TypeVar("_Driver", bound=Callable)


@dataclass(frozen=True)
class RunOptions:
    """How a run is watched and kept (every field is checked when the object is built, with a
    ValueError naming the field).

    Parameters
    ----------
    callback : callable or None
        Called with each :class:`~dualboost.boosting.core.history.HistoryRow` as it is recorded.
    keep_iterates : bool
        Keep every ``(d^t, w^t)`` in ``result.iterates`` (not with ``checkpoint``: iterates are not
        saved).
    checkpoint : path or None
        A file to which the run's state is written atomically every ``checkpoint_every``
        iterations (:mod:`dualboost.boosting.core.checkpoint`).
    checkpoint_every : int
        Iterations between two checkpoints (>= 1).
    resume : bool
        Continue from ``checkpoint`` (which must exist and belong to this run) to the result an
        uninterrupted run gives.
    keep_stages : bool
        Keep the output weights of every iteration in ``result.stages``
        (:class:`~dualboost.boosting.core.result.Stages`).
    max_time : float or None
        A time limit in seconds (> 0): the run stops at the first iteration boundary after it, with
        the certified result of its last iteration and ``stop_reason`` ``"time limit"``. The budget
        counts from the start of this call: a run resumed from a checkpoint gets a fresh one.
    clock : callable
        The clock of ``max_time`` (default ``time.perf_counter``; a test passes a fake one).
    """

    callback: Callback | None = None
    keep_iterates: bool = False
    checkpoint: str | os.PathLike | None = None
    checkpoint_every: int = DEFAULT_EVERY
    resume: bool = False
    keep_stages: bool = False
    max_time: float | None = None
    clock: Clock = time.perf_counter

    def __post_init__(self) -> None:
        if self.callback is not None and not callable(self.callback):
            raise ValueError(f"callback must be callable or None; got {self.callback!r}")
        for name in ("keep_iterates", "resume", "keep_stages"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ValueError(f"{name} must be True or False; got {getattr(self, name)!r}")
            object.__setattr__(self, name, bool(getattr(self, name)))
        every = self.checkpoint_every
        if isinstance(every, (bool, np.bool_)) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ValueError(f"checkpoint_every must be a positive integer; got {every!r}")
        object.__setattr__(self, "checkpoint_every", int(every))
        if self.checkpoint is not None and not isinstance(self.checkpoint, (str, os.PathLike)):
            raise ValueError(f"checkpoint must be a path or None; got {self.checkpoint!r}")
        if self.resume and self.checkpoint is None:
            raise ValueError("resume=True needs checkpoint=PATH (the file to resume from)")
        if self.checkpoint is not None and self.keep_iterates:
            raise ValueError("keep_iterates=True cannot be combined with checkpoint=: iterates are not saved")
        if self.max_time is not None:
            object.__setattr__(self, "max_time", check_positive(self.max_time, "max_time"))
        if not callable(self.clock):
            raise ValueError(f"clock must be callable; got {self.clock!r}")

    def open_checkpoint(self, algorithm: str, params: dict) -> Checkpoint | None:
        """The run's :class:`~dualboost.boosting.core.checkpoint.Checkpoint` for ``algorithm`` and its
        ``params`` (which a resumed file must match), or None without ``checkpoint``."""
        return Checkpoint.create(self.checkpoint, self.checkpoint_every, self.resume, algorithm, params)

    def deadline(self) -> float:
        """The clock reading at which the run is out of time (``inf`` without ``max_time``)."""
        return math.inf if self.max_time is None else self.clock() + self.max_time


#: the fields of :class:`RunOptions` a driver takes as keywords (``clock`` only inside ``options``)
OPTION_NAMES = tuple(f.name for f in fields(RunOptions) if f.name != "clock")
_DEFAULTS = RunOptions()
#: ``without=`` of a driver that records no iterates ``(d^t, w^t)`` (the corrective ones)
NO_ITERATES = ("keep_iterates",)
#: ``without=`` of a driver that writes no checkpoints (the mirror-descent family)
NO_CHECKPOINT = ("checkpoint", "checkpoint_every", "resume")
#: ``without=`` of a driver that only reports progress and keeps time (gradient boosting, Dask)
ONLY_PROGRESS = (*NO_ITERATES, *NO_CHECKPOINT, "keep_stages")


#: what each option does, for the Parameters entry :func:`takes_run_options` writes
_OPTION_DOCS = {
    "callback": "``callback`` is called with each history row as it is recorded",
    "keep_iterates": "``keep_iterates`` keeps every ``(d^t, w^t)`` in ``result.iterates``",
    "checkpoint": "``checkpoint`` is a file the run's state is written to every ``checkpoint_every`` "
    "iterations (:mod:`dualboost.boosting.core.checkpoint`)",
    "resume": "``resume`` continues a killed run from it",
    "keep_stages": "``keep_stages`` keeps the output weights of every iteration in ``result.stages``",
    "max_time": '``max_time`` is a time limit in seconds (stop reason ``"time limit"``)',
}
#: the entry a driver's numpydoc Parameters section writes for its run options, with an optional remark
_OPTIONS_ENTRY = re.compile(r"^options : RunOptions\n((?:    .*\n?)*)", re.MULTILINE)


def _document_options(doc: str | None, taken: tuple[str, ...]) -> str | None:
    """``doc`` with its ``options : RunOptions`` entry (and the remark below it) written out as the
    options the driver takes, so that the Parameters section names every keyword of the signature."""
    if not doc:
        return doc
    doc = inspect.cleandoc(doc)
    found = _OPTIONS_ENTRY.search(doc)
    if found is None:
        return doc
    said = "; ".join(_OPTION_DOCS[key] for key in taken if key in _OPTION_DOCS)
    remark = "".join(" " + line.strip() for line in found.group(1).splitlines())
    text = (
        "The run options (docs/boosting.md#run-options), as keywords or as one ``options=`` "
        f":class:`~dualboost.boosting.core.options.RunOptions` (not both): {said}.{remark}"
    )
    body = textwrap.fill(text, width=104, initial_indent="    ", subsequent_indent="    ")
    return f"{doc[: found.start()]}{', '.join(taken)}, options : optional\n{body}\n{doc[found.end() :]}"


def takes_run_options(driver: _Driver | None = None, *, without: tuple[str, ...] = ()):
    """Decorate a driver whose last keyword is ``options: RunOptions``: the decorated function also
    takes every field of :data:`OPTION_NAMES` as a keyword (its signature shows them) and builds the
    :class:`RunOptions` from them, or takes ``options=`` itself (not both). ``without``: the options
    this driver cannot honour (a ValueError when one is given). The driver's docstring names
    ``options : RunOptions`` in its Parameters section (with a remark below it, if any); the decorated
    function's docstring lists there the options it takes and what each does. The checkpoint the
    driver opens is released when it returns or raises
    (:func:`~dualboost.boosting.core.checkpoint.releasing_checkpoints`).

    Parameters
    ----------
    driver : callable, optional
        The driver (None when used as ``@takes_run_options(without=...)``).
    without : tuple of str, default ()
        The options the driver cannot honour.

    Returns
    -------
    callable
        The decorated driver, or the decorator when ``driver`` is None.
    """

    def decorate(function: _Driver) -> _Driver:
        name = function.__name__

        @functools.wraps(function)
        def wrapper(*args, options: RunOptions | None = None, **kwargs):
            given = {key: kwargs.pop(key) for key in OPTION_NAMES if key in kwargs}
            if options is None:
                options = RunOptions(**given)
            elif not isinstance(options, RunOptions):
                raise ValueError(f"options must be a RunOptions; got {options!r}")
            elif given:
                raise ValueError(f"pass {sorted(given)} inside options=, not beside it")
            for key in without:
                if getattr(options, key) != getattr(_DEFAULTS, key):
                    raise ValueError(f"{name} does not take {key}= (it has no use for it)")
            with releasing_checkpoints():
                return function(*args, options=options, **kwargs)

        signature = inspect.signature(function)
        params = [p for p in signature.parameters.values() if p.name != "options"]
        keywords = [
            inspect.Parameter(key, inspect.Parameter.KEYWORD_ONLY, default=getattr(_DEFAULTS, key))
            for key in OPTION_NAMES
            if key not in without
        ]
        options_param = inspect.Parameter("options", inspect.Parameter.KEYWORD_ONLY, default=None)
        wrapper.__signature__ = signature.replace(parameters=[*params, *keywords, options_param])
        wrapper.__doc__ = _document_options(function.__doc__, tuple(key.name for key in keywords))
        return wrapper  # type: ignore[return-value]

    return decorate if driver is None else decorate(driver)
