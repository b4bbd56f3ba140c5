"""Typed warm-start state: what a method keeps from one solve for the next (docs/solvers.md).

A method that warm-starts keeps its state in ``Solution.solver_state``, an object of a subclass of
:class:`SolverState`: ``method="auglag"`` its Newton curvature and its LP limit's HiGHS state
(:class:`~dualboost.solvers.auglag.AuglagState`), ``method="highs"`` its HiGHS model and basis
(:class:`~dualboost.solvers.highs.HighsState`). Solvers read the state of their warm start and
never change it. Checkpoints write a state by :meth:`SolverState.to_dict` (arrays and JSON
scalars) and read it back by :func:`state_from_dict`, under the state's ``kind``; what a state
holds that cannot be written (a live HiGHS model) it rebuilds from what can (the basis).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np

__all__ = ["SolverState", "state_from_dict", "STATE_KINDS"]

#: a state's entries as a checkpoint writes them: numeric arrays, or JSON scalars
StateDict = dict[str, "np.ndarray | float | int | str"]

#: the state classes by ``kind`` (filled as they are defined)
STATE_KINDS: dict[str, type[SolverState]] = {}


class SolverState(ABC):
    """What a method keeps for a warm start. Subclasses set ``kind`` (the name a checkpoint records)
    and write themselves as numeric arrays and JSON scalars."""

    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.kind in STATE_KINDS:
            raise TypeError(f"two solver states are named {cls.kind!r}")
        STATE_KINDS[cls.kind] = cls

    @abstractmethod
    def to_dict(self) -> StateDict:
        """The state as numeric arrays and JSON scalars (what a checkpoint writes)."""

    @classmethod
    @abstractmethod
    def from_dict(cls, data: StateDict) -> SolverState:
        """The state written by :meth:`to_dict`."""


def state_from_dict(kind: str, data: StateDict) -> SolverState:
    """The state of ``kind`` (a :attr:`SolverState.kind`) from its :meth:`~SolverState.to_dict`.

    Parameters
    ----------
    kind : str
        The state's kind (a key of ``STATE_KINDS``).
    data : dict
        The state's ``to_dict()``.

    Returns
    -------
    SolverState
        The state rebuilt.
    """
    cls = STATE_KINDS.get(kind)
    if cls is None:
        known = ", ".join(sorted(STATE_KINDS)) or "none"
        raise ValueError(f"unknown solver state {kind!r} (known: {known})")
    return cls.from_dict(data)
