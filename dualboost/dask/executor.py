"""Where the partition tasks run: a ``dask.distributed`` client, or this process.

Every N-sized array of the Dask path (a row block of X, y, U, theta = -U w, d) lives in the memory
of one worker as the result of a task; the driver holds only futures of them and gathers small
results (t-sized vectors and scalars). :class:`Executor` is the one interface the rest of
:mod:`dualboost.dask` uses for this: ``submit`` a function on futures and values, ``gather`` the
small results, ``scatter`` driver data to the workers. With ``client=None`` it looks for the
current default client (``distributed.default_client()``) and, without one, runs the same tasks
in this process (each ``submit`` computes at once): the code path and its arithmetic are the
same, only the place where the blocks live differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["Executor", "Done"]


class Done:
    """The result of a task run in this process (the stand-in for a distributed ``Future``).

    Parameters
    ----------
    value : object
        The task's result.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def result(self) -> Any:
        return self.value


def _resolve(arg: Any) -> Any:
    return arg.value if isinstance(arg, Done) else arg


class Executor:
    """Runs partition tasks on a ``distributed.Client`` or, when there is none, in this process.

    ``client``: a ``dask.distributed.Client``, or None for the default client if one exists, else
    in-process execution. ``workers``: the worker addresses the row blocks are spread over
    (round robin, in scheduler order); empty in-process.

    Parameters
    ----------
    client : distributed.Client, optional
        None: the default client if one exists, else in-process execution.
    """

    def __init__(self, client: Any = None) -> None:
        if client is None:
            client = _default_client()
        elif not (callable(getattr(client, "submit", None)) and callable(getattr(client, "gather", None))):
            raise ValueError(f"client must be a dask.distributed.Client or None; got {client!r}")
        self.client = client
        self.workers: list[str] = sorted(client.scheduler_info()["workers"]) if client is not None else []

    @property
    def distributed(self) -> bool:
        """Whether tasks run on a ``dask.distributed`` cluster."""
        return self.client is not None

    def worker_of(self, partition: int) -> str | None:
        """The worker that holds row block ``partition`` (None in-process)."""
        return self.workers[partition % len(self.workers)] if self.workers else None

    def submit(self, fn: Callable, *args: Any, partition: int | None = None) -> Any:
        """``fn(*args)`` where the futures among ``args`` are replaced by their values; runs on the
        worker of ``partition`` when given (a soft preference: data locality decides otherwise)."""
        if self.client is None:
            return Done(fn(*map(_resolve, args)))
        worker = None if partition is None else self.worker_of(partition)
        return self.client.submit(
            fn, *args, pure=False, workers=worker, allow_other_workers=worker is not None
        )

    def map(self, fn: Callable, blocks: Sequence[Sequence[Any]], *shared: Any) -> list:
        """``[fn(*blocks_p, *shared) for each partition p]``: ``blocks`` holds one tuple of per-partition
        futures for each partition; ``shared`` values (small: w, scalars) go to every task."""
        return [self.submit(fn, *blk, *shared, partition=p) for p, blk in enumerate(blocks)]

    def gather(self, futures: Sequence[Any]) -> list:
        """The values of ``futures`` on the driver (only small results are gathered)."""
        if self.client is None:
            return [_resolve(f) for f in futures]
        return self.client.gather(list(futures))

    def scatter(self, values: Sequence[Any]) -> list:
        """Send ``values[p]`` to the worker of partition p; futures of them."""
        if self.client is None:
            return [Done(v) for v in values]
        return [self.client.scatter(v, workers=[self.worker_of(p)], hash=False) for p, v in enumerate(values)]

    def broadcast(self, value: Any) -> Any:
        """A future of ``value`` held by every worker (shared read-only data, sent once)."""
        if self.client is None:
            return Done(value)
        return self.client.scatter([value], broadcast=True, hash=False)[0]

    def __repr__(self) -> str:
        where = f"{len(self.workers)} workers" if self.client is not None else "in-process"
        return f"Executor({where})"


def _default_client() -> Any:
    try:
        from distributed import default_client
    except ImportError:  # pragma: no cover - distributed is part of the dask extra
        return None
    try:
        return default_client()
    except ValueError:
        return None
