"""Checkpoints: long runs that survive being killed.

A driver given ``checkpoint=PATH`` writes its state every ``checkpoint_every`` iterations, after the
iteration's update; ``resume=True`` restores the last such state and continues the loop, so that a
killed and resumed run ends with the same hypotheses, the same weights (to rounding) and the same
history rows (except the times) as an uninterrupted one.

The file (``numpy.savez``, loaded with ``allow_pickle=False``: no code is run when reading it):

* ``header``: UTF-8 JSON with the format name and :data:`VERSION`, the algorithm and its parameters,
  a fingerprint of the oracle and its training data (:func:`fingerprint`) and, apart, the data's
  shape and digest and the oracle's class and options (so that a resume says which differs; files
  without them are checked by the fingerprint alone), the iteration, the hypotheses
  (``Hypothesis.to_dict``, the class by name from :data:`HYPOTHESES`), a digest of each column of
  U, the clock, the scalar part of the driver's loop state and numpy's global random state
  (``np.random.get_state``, for oracles that draw from it);
* arrays: the history rows, the random state's key, and the driver's array state (d, w, the margins,
  the warm-start :class:`~dualboost.solvers.Solution`'s d and w, its ``extra`` and its solver's
  warm-start state, ``SolverState.to_dict``, ...). An entry that cannot be written (not a numeric
  array or a JSON scalar; a solver state that is not a ``SolverState``) raises ValueError.

The columns of U are not stored: they are regenerated from the hypotheses and the oracle's training
data (``y * h(X)``, as the oracle computed them) and checked against the digests.

The directory of PATH must be writable; that is checked when the run starts (:func:`check_path`),
not at its first checkpoint. Writes are atomic (:func:`dualboost._files.atomic_write`): the file is
written to a temporary file ``.NAME.PID.HEX.tmp`` in the same directory, flushed to disk
(``fsync``), then renamed over PATH (``os.replace``); a kill at any moment leaves either the
previous checkpoint or the new one. The file's mode follows the umask (``0o666 & ~umask``, as
``open`` creates files). A failed write (a full disk) is an OSError
(:class:`dualboost._files.OutputError`: "cannot write 'PATH': No space left on device") and leaves
no temporary file.

Locking: a run holds an exclusive lock on PATH (``fcntl.flock`` on ``.NAME.lock`` beside it, POSIX;
elsewhere a RuntimeWarning says that PATH is not locked) from its start to its end (the drivers are
run inside :func:`releasing_checkpoints`), so that a second run given the same PATH -- in another
process or in this one -- is refused at its start with a ValueError saying that the checkpoint is
in use, instead of the two overwriting each other's file. Holding the lock, a run removes the
temporary files that writers of PATH killed during a write left behind (those whose process is
gone; :func:`dualboost._files.remove_stale_temporaries`).

Reading a file that is not a complete
checkpoint of this run -- truncated, corrupt, of another format version, of other training data
(compared first: nu and eta depend on N), another oracle, another algorithm or other parameters --
raises ValueError saying which, in our words (numpy's advice on pickled data is no use here); a run
never silently starts over.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import astuple, fields
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from dualboost._archive import Archive, ArchiveError
from dualboost._files import FileLock, atomic_write, check_writable, remove_stale_temporaries
from dualboost.boosting.core.history import HISTORY_FIELDS, HistoryRow
from dualboost.oracles import Constant, Hypothesis, KernelColumn, MatrixColumn, RawFeature, Selection, Stump
from dualboost.oracles.multiclass import ClassConstant, ClassStump
from dualboost.solvers import Solution
from dualboost.solvers.state import SolverState, state_from_dict

if TYPE_CHECKING:
    from dualboost.boosting.core.run import Ensemble, Run

__all__ = [
    "Checkpoint",
    "FORMAT",
    "VERSION",
    "HYPOTHESES",
    "fingerprint",
    "check_path",
    "check_free",
    "read_header",
    "DEFAULT_EVERY",
    "releasing_checkpoints",
]

#: the ``format`` entry of every header
FORMAT = "dualboost-checkpoint"
#: incremented whenever the layout changes; other versions are refused
VERSION = 2
#: the hypothesis classes a checkpoint can hold, by the name written in the file (a registry, so that
#: reading a file never imports or constructs anything else); add a class with ``to_dict`` and
#: ``from_dict`` here to make it checkpointable
HYPOTHESES: dict[str, type[Hypothesis]] = {
    cls.__name__: cls
    for cls in (Stump, Constant, RawFeature, KernelColumn, MatrixColumn, ClassStump, ClassConstant)
}
#: the default of ``checkpoint_every``
DEFAULT_EVERY = 10

#: the checkpoints opened in the current driver call (:func:`releasing_checkpoints`)
_OPENED: ContextVar[list[Checkpoint] | None] = ContextVar("dualboost_checkpoints", default=None)

_SOLUTION_SCALARS = tuple(
    f.name for f in fields(Solution) if f.name not in ("d", "w", "extra", "solver_state")
)


def _digest_update(update: Callable[[bytes], None], array: np.ndarray) -> None:
    array = np.asarray(array)
    update(f"{array.dtype.str}{array.shape}".encode())
    if array.flags.c_contiguous:
        update(memoryview(array).cast("B"))
    elif array.flags.f_contiguous:
        update(b"F")
        update(memoryview(array.T).cast("B"))
    else:
        update(np.ascontiguousarray(array).tobytes())


def _oracle_description(oracle: object) -> dict[str, str]:
    """The oracle's class (module and name) and ``repr`` (its options), as a header records them."""
    return {"class": f"{type(oracle).__module__}.{type(oracle).__qualname__}", "repr": repr(oracle)}


def _digests(oracle: object) -> tuple[str, str]:
    """``(fingerprint(oracle), data digest)`` in one pass over the data: the data digest covers
    what :func:`fingerprint` covers but the oracle's class and options (the shape, ``y_``, ``X_``,
    ``U``), so that a checkpoint can tell other data from another oracle."""
    whole, data = hashlib.blake2b(digest_size=16), hashlib.blake2b(digest_size=16)
    description = _oracle_description(oracle)
    whole.update(f"{description['class']}|{description['repr']}".encode())

    def update(chunk: bytes | memoryview) -> None:
        whole.update(chunk)
        data.update(chunk)

    update(f"|{getattr(oracle, 'n_samples_', None)}|{getattr(oracle, 'n_features_', None)}".encode())
    for name in ("y_", "X_", "U"):
        value = getattr(oracle, name, None)
        if value is None:
            continue
        update(name.encode())
        if sp.issparse(value):
            update(f"{value.format}{value.shape}".encode())
            for part in ("indptr", "indices", "data"):
                _digest_update(update, getattr(value, part))
        else:
            _digest_update(update, np.asarray(value))
    return whole.hexdigest(), data.hexdigest()


def fingerprint(oracle: object) -> str:
    """A digest of the oracle (its class and ``repr``, i.e. its options) and of the training data
    it holds: ``y_`` and ``X_`` (dense, or a sparse matrix's format, shape, indices and values) or a
    matrix oracle's ``U``. One pass over the data (blake2b, about 1 GB/s).

    Parameters
    ----------
    oracle : object
        A fitted oracle.

    Returns
    -------
    str
        The hexadecimal digest.
    """
    return _digests(oracle)[0]


def _shape(n_samples: object, n_features: object) -> str:
    """``"N examples x p features"`` (or ``"N examples"`` for an oracle without features)."""
    return f"{n_samples} examples" + ("" if n_features is None else f" x {n_features} features")


def check_path(path: str | os.PathLike) -> Path:
    """``path`` as a Path, once it is known that a checkpoint can be written there
    (:func:`dualboost._files.check_writable`: not a directory, a directory that takes a new file --
    tried, since permission bits do not stop root and a read-only file system shows only then).
    A ValueError saying "directory not writable" and naming the directory otherwise, so that a run
    fails before it starts, not at its first checkpoint.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint file.

    Returns
    -------
    Path
        The checked path.
    """
    return check_writable(path, "checkpoint")


def check_free(path: str | os.PathLike) -> None:
    """A ValueError if another run holds the lock of the checkpoint ``path`` (module docstring,
    "Locking"): a probe, taken and released at once, for a caller that has work to do before the run
    starts (the CLI reads and fits the data); the run takes the lock itself.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint file.
    """
    lock = FileLock(path, "checkpoint")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the run itself says that it is not locked)
        lock.acquire()
    lock.release()


def _column_digest(column: np.ndarray) -> str:
    """The digest of one column of U, as float64 (so ``int8`` and float64 storage agree)."""
    h = hashlib.blake2b(digest_size=8)
    h.update(np.ascontiguousarray(column, dtype=np.float64).tobytes())
    return h.hexdigest()


def _json_value(value: object, name: str) -> object:
    """A scalar of the loop state as JSON (None, bool, int, float incl. inf/nan, str)."""
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"checkpoint: the state entry {name!r} has type {type(value).__name__}")


def _write_entries(entries: dict, prefix: str, arrays: dict[str, np.ndarray], where: str) -> dict:
    """Numeric arrays of ``entries`` into ``arrays`` (under ``prefix + key``); the JSON scalars
    returned; anything else refused with a ValueError naming it (nothing is dropped unsaid)."""
    scalars = {}
    for key, item in entries.items():
        if isinstance(item, np.ndarray) and item.dtype.kind in "biuf":
            arrays[prefix + key] = item
            continue
        try:
            scalars[key] = _json_value(item, key)
        except TypeError:
            raise ValueError(
                f"checkpoint: {where}[{key!r}] is a {type(item).__name__}; a checkpoint writes numeric "
                "arrays and None, bool, int, float or str"
            ) from None
    return scalars


def _write_solution(name: str, solution: Solution, arrays: dict[str, np.ndarray]) -> dict:
    """The scalars of a loop-state Solution (its d, w and array entries go into ``arrays``): its
    fields, ``extra`` and its solver's warm-start state (``SolverState.to_dict``, under its kind)."""
    scalars = {f: _json_value(getattr(solution, f), f) for f in _SOLUTION_SCALARS}
    scalars["extra"] = _write_entries(solution.extra, f"state.{name}.extra.", arrays, f"{name}.extra")
    for part in ("d", "w"):
        if getattr(solution, part) is not None:
            arrays[f"state.{name}.{part}"] = np.asarray(getattr(solution, part), dtype=np.float64)
    state = solution.solver_state
    if state is not None:
        if not isinstance(state, SolverState):
            raise ValueError(
                f"checkpoint: the solver state of {name!r} is a {type(state).__name__}, not a "
                "dualboost.solvers.state.SolverState: it cannot be written"
            )
        prefix = f"state.{name}.solver_state."
        entries = _write_entries(state.to_dict(), prefix, arrays, f"{name}.solver_state")
        scalars["solver_state"] = {"kind": state.kind, "scalars": entries}
    return scalars


def _read_entries(scalars: dict, prefix: str, arrays: dict[str, np.ndarray]) -> dict:
    """The entries written by :func:`_write_entries`."""
    return scalars | {key[len(prefix) :]: arr for key, arr in arrays.items() if key.startswith(prefix)}


class Checkpoint:
    """Where and how often a run saves its state, and whether it resumes from it.

    ``path``: the checkpoint file; ``every``: write after every ``every``-th iteration (>= 1);
    ``resume``: continue from the file (which must exist and belong to this run) instead of
    starting afresh (a fresh run overwrites the file); ``algorithm`` and ``params``: the run's
    name and parameters, which the file must match on resume.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint file.
    every : int
        The period of the writes, in iterations (>= 1).
    resume : bool
        Continue from the file instead of starting afresh.
    algorithm : str
        The run's algorithm name.
    params : dict
        The run's parameters, which a resumed file must match.
    """

    def __init__(
        self, path: str | os.PathLike, every: int, resume: bool, algorithm: str, params: dict
    ) -> None:
        if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 1:
            raise ValueError(f"checkpoint_every must be a positive integer; got {every!r}")
        if not isinstance(resume, (bool, np.bool_)):
            raise ValueError(f"resume must be True or False; got {resume!r}")
        self.path = check_path(path)
        self.every = int(every)
        self.resume = bool(resume)
        self.algorithm = algorithm
        self.params = {name: _json_value(value, name) for name, value in params.items()}
        self._fingerprint: tuple[str, str] | None = None  # fingerprint(oracle) and its data digest
        self._digests: list[str] = []
        self._lock = FileLock(self.path, "checkpoint")
        if self._lock.acquire():  # the only writer now: a dead one's temporary files can go
            remove_stale_temporaries(self.path)
        opened = _OPENED.get()
        if opened is not None:
            opened.append(self)

    def close(self) -> None:
        """Release the file's lock (module docstring, "Locking"); a driver run inside
        :func:`releasing_checkpoints` does it when it returns or raises."""
        self._lock.release()

    @classmethod
    def create(
        cls,
        path: str | os.PathLike | None,
        every: int,
        resume: bool,
        algorithm: str,
        params: dict,
    ) -> Checkpoint | None:
        """The driver's ``checkpoint``, ``checkpoint_every`` and ``resume`` arguments as a
        :class:`Checkpoint`, or None without a path (then ``resume`` must be False)."""
        if path is None:
            if resume:
                raise ValueError("resume=True needs checkpoint=PATH (the file to resume from)")
            return None
        return cls(path, every, resume, algorithm, params)

    # -- writing ---------------------------------------------------------------------------------

    def _oracle_fingerprint(self, oracle: object) -> tuple[str, str]:
        """``fingerprint(oracle)`` and the digest of its data alone (:func:`_digests`), computed once."""
        if self._fingerprint is None:
            if not callable(getattr(oracle, "_select", None)):
                raise ValueError(
                    "checkpoint= needs a dualboost Oracle (dualboost.oracles.Oracle): the columns of U are "
                    f"regenerated from the hypotheses with its _select; got {type(oracle).__name__}"
                )
            self._fingerprint = _digests(oracle)
        return self._fingerprint

    def _column_digests(self, ensemble: Ensemble) -> list[str]:
        """Digests of the ensemble's columns (each column hashed once, when first saved)."""
        stored = ensemble.stored
        for q in range(len(self._digests), stored.shape[1]):
            self._digests.append(_column_digest(stored[:, q]))
        return self._digests[: stored.shape[1]]

    def save(self, iteration: int, run: Run, ensemble: Ensemble, state: dict) -> None:
        """Write the state after ``iteration`` atomically (module docstring)."""
        arrays: dict[str, np.ndarray] = {}
        scalars: dict[str, object] = {}
        kinds: dict[str, str] = {}
        for name, value in state.items():
            if isinstance(value, Solution):
                kinds[name] = "solution"
                scalars[name] = _write_solution(name, value, arrays)
            elif isinstance(value, np.ndarray):
                kinds[name] = "array"
                arrays[f"state.{name}"] = value
            else:
                kinds[name] = "scalar"
                scalars[name] = _json_value(value, name)
        rng = np.random.get_state()  # noqa: NPY002 - the global state is what an oracle may draw from
        header = {
            "format": FORMAT,
            "version": VERSION,
            "algorithm": self.algorithm,
            "params": self.params,
            "fingerprint": self._oracle_fingerprint(run.oracle)[0],
            "data": self._oracle_fingerprint(run.oracle)[1],
            "oracle": _oracle_description(run.oracle),
            "n_samples": int(getattr(run.oracle, "n_samples_", -1)),
            "n_features": _json_value(getattr(run.oracle, "n_features_", None), "n_features"),
            "iteration": int(iteration),
            "hypotheses": [
                {"class": type(h).__name__, "fields": _hypothesis_dict(h)} for h in ensemble.hypotheses
            ],
            "columns": self._column_digests(ensemble),
            "clock": {
                "elapsed": time.perf_counter() - run.start,
                "oracle_time": run.oracle_time,
                "solver_time": run.solver_time,
            },
            "history": {"criterion": run.history.criterion, "threshold": run.history.threshold},
            "kinds": kinds,
            "state": scalars,
            "random": {"name": rng[0], "pos": int(rng[2]), "has_gauss": int(rng[3]), "gauss": float(rng[4])},
        }
        arrays["random.key"] = np.asarray(rng[1])
        arrays["history"] = np.array(
            [[float(v) for v in astuple(row)] for row in run.history], dtype=np.float64
        ).reshape(len(run.history), len(HISTORY_FIELDS))
        text = json.dumps(header, allow_nan=True)
        arrays["header"] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        _write_atomic(self.path, arrays)

    # -- reading ---------------------------------------------------------------------------------

    def load(self, run: Run, ensemble: Ensemble, names: list[str]) -> tuple[int, dict]:
        """Restore a saved run into ``run`` (history, clock) and the empty ``ensemble``; return the
        saved iteration and the loop state ``names``. ValueError if the file is missing,
        unreadable, or of another run (module docstring)."""
        header, arrays = _read(self.path)
        self._check(header, run.oracle, names)
        try:
            return self._restore(header, arrays, run, ensemble, names)
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            where = f"checkpoint {str(self.path)!r}"
            raise ValueError(f"{where} is corrupt: {type(exc).__name__}: {exc}") from exc

    def _check(self, header: dict, oracle: object, names: list[str]) -> None:
        """Refuse a checkpoint of another run, saying how it differs: the data first (their shape,
        then, for the same oracle, their digest), then the oracle, the algorithm, the parameters."""
        where = f"checkpoint {str(self.path)!r}"
        whole, data = self._oracle_fingerprint(oracle)
        now = (
            int(getattr(oracle, "n_samples_", -1)),
            _json_value(getattr(oracle, "n_features_", None), "n_features"),
        )
        kept = (header.get("n_samples"), header.get("n_features", now[1]))  # older files: no n_features
        other_data = f"{where} was written for other data"
        start_afresh = "resume on the data it was written for, or start afresh without resume"
        if kept != now:
            raise ValueError(
                f"{other_data} ({_shape(*kept)} in the file, {_shape(*now)} now): {start_afresh}"
            )
        description, written = _oracle_description(oracle), header.get("oracle")
        if written is not None and written != description:
            written = written if isinstance(written, dict) else {}
            key = "repr" if written.get("repr") != description["repr"] else "class"
            raise ValueError(
                f"{where} was written for another oracle ({written.get(key)} in the file, "
                f"{description[key]} now): resume with the same oracle, or start afresh without resume"
            )
        if "data" in header and header["data"] != data:
            raise ValueError(
                f"{other_data} (the same shape, {_shape(*now)}, but other values or labels): " + start_afresh
            )
        if header.get("fingerprint") != whole:  # a file without the "data" entry: data or oracle
            raise ValueError(
                f"{where} was written for other training data or another oracle (fingerprints differ: "
                f"{header.get('fingerprint')} in the file, {whole} now)"
            )
        if header.get("algorithm") != self.algorithm:
            raise ValueError(
                f"{where} was written by {header.get('algorithm')!r}, not {self.algorithm!r}: "
                "resume with the same algorithm, or start afresh without resume"
            )
        saved = header.get("params")
        if saved != self.params:
            saved = saved if isinstance(saved, dict) else {}
            differ = sorted(k for k in set(saved) | set(self.params) if saved.get(k) != self.params.get(k))
            shown = ", ".join(f"{k} {saved.get(k)!r} in the file, {self.params.get(k)!r} now" for k in differ)
            raise ValueError(f"{where} was written with other parameters ({shown})")
        if sorted(header.get("kinds", {})) != sorted(names):
            kept = sorted(header.get("kinds", {}))
            raise ValueError(f"{where} holds the loop state {kept}, not {sorted(names)}")

    def _restore(self, header: dict, arrays: dict, run: Run, ensemble: Ensemble, names: list[str]):
        where = f"checkpoint {str(self.path)!r}"
        if len(ensemble):
            raise RuntimeError("Checkpoint.load needs an empty ensemble")  # pragma: no cover
        n = int(header["n_samples"])
        probe = np.full(n, 1.0 / n) if n > 0 else None
        training = getattr(run.oracle, "X_", None)
        for entry in header["hypotheses"]:
            cls = HYPOTHESES.get(entry["class"])
            if cls is None:
                raise ValueError(f"{where} holds a hypothesis of unknown class {entry['class']!r}")
            try:
                hypothesis = cls.from_dict(entry["fields"])
            except (TypeError, KeyError) as exc:
                raise ValueError(f"{where}: cannot rebuild a {entry['class']}: {exc}") from exc
            # the column as the oracle computed it: y * h(X_train) (oracles.base.Oracle._select)
            column = run.oracle._select(hypothesis, probe, training).column
            ensemble.add(Selection(hypothesis, math.nan, column))
        digests = [_column_digest(ensemble.stored[:, q]) for q in range(len(ensemble))]
        if digests != header["columns"]:
            raise ValueError(
                f"{where}: the hypotheses' columns on the training data differ from the saved ones "
                "(other training data, or a changed oracle)"
            )
        self._digests = digests
        table = arrays["history"]
        if table.ndim != 2 or table.shape[1] != len(HISTORY_FIELDS) or table.shape[0] != header["iteration"]:
            raise ValueError(f"{where}: the history has shape {table.shape}, not {header['iteration']} rows")
        for values in table:
            row = {f: v for f, v in zip(HISTORY_FIELDS, values.tolist(), strict=True)}
            row["iteration"], row["n_hypotheses"] = int(row["iteration"]), int(row["n_hypotheses"])
            run.history.append(HistoryRow(**row))
        clock = header["clock"]
        run.start = time.perf_counter() - float(clock["elapsed"])
        run.oracle_time, run.solver_time = float(clock["oracle_time"]), float(clock["solver_time"])
        rng = header["random"]
        np.random.set_state(  # noqa: NPY002
            (rng["name"], arrays["random.key"], int(rng["pos"]), int(rng["has_gauss"]), float(rng["gauss"]))
        )
        return int(header["iteration"]), {name: _read_state(name, header, arrays, where) for name in names}


def _read_state(name: str, header: dict, arrays: dict, where: str) -> object:
    """The loop-state entry ``name`` of a checkpoint (an array, a JSON scalar or a Solution)."""
    kind = header["kinds"][name]
    if kind == "array":
        return arrays[f"state.{name}"]
    if kind == "scalar":
        return header["state"][name]
    if kind != "solution":
        raise ValueError(f"{where}: unknown state kind {kind!r}")
    saved = dict(header["state"][name])
    extra = _read_entries(saved.pop("extra"), f"state.{name}.extra.", arrays)
    solver_state = saved.pop("solver_state", None)
    if solver_state is not None:
        entries = _read_entries(solver_state["scalars"], f"state.{name}.solver_state.", arrays)
        solver_state = state_from_dict(solver_state["kind"], entries)
    d, w = arrays.get(f"state.{name}.d"), arrays.get(f"state.{name}.w")
    return Solution(d=d, w=w, extra=extra, solver_state=solver_state, **saved)


@contextmanager
def releasing_checkpoints() -> Iterator[None]:
    """Around a driver's call (:func:`~dualboost.boosting.core.options.takes_run_options`): the lock of
    every checkpoint opened inside is released when the call returns or raises (a traceback kept by a
    caller, e.g. an interrupted run in a notebook, would otherwise hold the lock and refuse the resumed
    run)."""
    opened: list[Checkpoint] = []
    token = _OPENED.set(opened)
    try:
        yield
    finally:
        _OPENED.reset(token)
        for checkpoint in opened:
            checkpoint.close()


def _hypothesis_dict(hypothesis: Hypothesis) -> dict:
    name = type(hypothesis).__name__
    if HYPOTHESES.get(name) is not type(hypothesis):
        raise ValueError(
            f"checkpoint: hypotheses of class {name} cannot be saved (the checkpointable classes are "
            f"{', '.join(HYPOTHESES)}; register a class with to_dict/from_dict in "
            "dualboost.boosting.core.checkpoint.HYPOTHESES)"
        )
    return hypothesis.to_dict()


def read_header(path: str | os.PathLike) -> dict:
    """The JSON header of the checkpoint at ``path`` (ValueError if it is not a readable checkpoint).

    Parameters
    ----------
    path : str or os.PathLike
        A checkpoint file.

    Returns
    -------
    dict
        Its header.
    """
    return _read(Path(path))[0]


#: the first bytes of every checkpoint: ``numpy.savez`` writes a zip archive
_ZIP_MAGIC = b"PK\x03\x04"


def _unreadable(exc: Exception) -> str:
    """Why a checkpoint that starts as a zip archive could not be read, in our words (numpy's and
    zipfile's messages speak of their own API, e.g. of loading pickled data "unsafely")."""
    if isinstance(exc, ArchiveError) and "Python objects" in str(exc):
        return "it holds Python objects, which a checkpoint never does (they were not loaded)"
    if isinstance(exc, ArchiveError):
        if exc.cause is None:  # a member too large or of another dtype
            return str(exc)
        exc = exc.cause
    if isinstance(exc, zipfile.BadZipFile) and "CRC" in str(exc):
        return f"damaged data ({exc})"
    if isinstance(exc, (zipfile.BadZipFile, EOFError, zlib.error)):
        return "a truncated or damaged archive"
    if isinstance(exc, KeyError):
        return "no header"
    if isinstance(exc, (UnicodeDecodeError, json.JSONDecodeError, RecursionError)):
        return "its header is not JSON"
    return f"unreadable ({type(exc).__name__})"


#: np.savez stores a checkpoint's members uncompressed, so what they hold is at most the file's size; a
#: compressed member (a file of another writer) may decompress to this many times more, no further (a
#: member that would inflate beyond it is refused before it is decompressed)
_MAX_INFLATION = 16


def _read(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and the arrays of a checkpoint file; ValueError for anything else. The header is read
    and checked first; each array's .npy header is checked (numbers only, its bytes present) before it
    is allocated, and all of them together within :data:`_MAX_INFLATION` times the file's size
    (:class:`~dualboost._archive.Archive`)."""
    where = f"checkpoint {str(path)!r}"
    if not path.exists():
        raise ValueError(f"{where} does not exist: nothing to resume (run without resume to start)")
    with open(path, "rb") as handle:
        start = handle.read(len(_ZIP_MAGIC))
    if start != _ZIP_MAGIC:
        what = "an empty file" if not start else "not a zip archive as numpy.savez writes"
        raise ValueError(f"{where} is not a dualboost checkpoint ({what})")
    budget = _MAX_INFLATION * path.stat().st_size + (1 << 20)

    def corrupt(exc: Exception) -> ValueError:  # truncated zip, bad CRC, pickled data, no header, ...
        return ValueError(f"{where} is corrupt or not a dualboost checkpoint: {_unreadable(exc)}")

    try:
        archive = Archive(path, budget=budget)
    except ArchiveError as exc:
        raise corrupt(exc) from None
    with archive:
        try:
            header = json.loads(archive.bytes("header", limit=budget).decode("utf-8"))
        except Exception as exc:
            raise corrupt(exc) from None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError(f"{where} is not a dualboost checkpoint (no {FORMAT!r} header)")
        if header.get("version") != VERSION:
            given = header.get("version")
            raise ValueError(f"{where} has format version {given!r}; this dualboost reads version {VERSION}")
        try:
            arrays = {name: archive.array(name) for name in archive.names() if name != "header"}
        except Exception as exc:
            raise corrupt(exc) from None
    return header, arrays


def _write_atomic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """``np.savez`` to ``path`` through :func:`dualboost._files.atomic_write` (a temporary file, fsync,
    ``os.replace``; an OutputError naming ``path`` on failure, and no temporary file left)."""
    with atomic_write(path) as handle:
        np.savez(handle, **arrays)
