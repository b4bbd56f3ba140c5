"""Model files: :func:`save` and :func:`load` a fitted classifier without pickle.

A model file is one ``numpy.savez_compressed`` archive (a zip of ``.npy`` arrays), read back with
``allow_pickle=False``, so that loading it runs no code of the file's:

* ``header``: UTF-8 JSON with the format name :data:`FORMAT`, the :data:`VERSION`, the dualboost version
  that wrote it, the estimator's class (by name, from :func:`model_classes`), its parameters and its
  fitted attributes. JSON holds the scalars, the string arrays (string ``classes_``,
  ``feature_names_in_``) and the hypotheses: a decision stump, a constant, a raw feature, a kernel
  column or a matrix column by its fields (``Hypothesis.to_dict``, the registry
  :data:`~dualboost.boosting.core.checkpoint.HYPOTHESES` of the checkpoints; floats round-trip exactly
  through JSON); the numbers of a fitted scikit-learn member (a hypothesis of the scikit-learn oracle,
  :class:`~dualboost.oracles.FittedEstimator`, or a member of a re-weighted ensemble,
  :class:`~dualboost.estimators.reweight.Member`) by its fields, the member itself through skops;
* numeric arrays: the weights ``estimator_weights_``, numeric ``classes_``, any other numeric fitted
  array, the history rows, and each scikit-learn member as the bytes of ``skops.io.dumps``.

skops (the ``models`` extra: ``pip install 'dualboost[models]'``) is imported only for a model with
scikit-learn members.

A model file may come from anyone (docs/boosting.md#7-choosing-nu-re-weighting-a-forest-model-files):
loading one runs no code of the file, allocates no more than its header declares, and checks every
value a prediction uses, before anything is constructed.

* Code: a scikit-learn member's skops data may name only the exact types of :data:`SKOPS_TRUSTED_TYPES`
  (classes, no function, no module prefix) and those given in ``trusted``, in the node kinds of
  :data:`~dualboost.estimators.skops_io.SKOPS_NODE_KINDS`; its trees must be trees
  (:mod:`dualboost.estimators.skops_io`).
* Memory: the header is read first (at most :data:`MAX_HEADER_BYTES`), then only the arrays it names,
  each checked from its ``.npy`` header (numbers only, the size the header implies: ``estimator_weights_``
  one weight per hypothesis, ...) before it is allocated, all of them within ``max_bytes`` (default
  :data:`MAX_MODEL_BYTES`; :func:`model_bytes` tells what a file needs, and :func:`save` warns when a
  model needs more than the default) (:class:`~dualboost._archive.Archive`); members it does not name
  are never decompressed.
* Values: only the parameters of the class and the fitted attributes of :func:`fitted_attributes`,
  each of its JSON type and range: ``n_features_in_`` a positive integer, ``classes_`` two distinct
  labels, the hypotheses' fields of their types (``Hypothesis.from_dict``: finite thresholds, signs in
  {-1, +1}, feature indices in ``[0, n_features_in_)``), ``estimator_weights_`` finite and in the
  simplex, ``link_slope_``, ``nu_``, ``eta_`` finite, the stages indexing the hypotheses, ...

What can be saved: every classifier of :mod:`dualboost.estimators` built on
:class:`~dualboost.estimators.base.BoostingClassifier` (the totally corrective, corrective and mirror
descent ones) with the hypotheses above, :class:`~dualboost.estimators.reweight.ReweightedClassifier`
(its kept members; the ``ensemble`` parameter, the whole pool, is not saved: None after loading), and
:class:`~dualboost.estimators.cv.ERLPBoostCV` / ``LPBoostCV`` as their ``best_estimator_`` (loading
gives that classifier). The gradient and online estimators raise ValueError (their state is not a
weighted vote of hypotheses). A fitted attribute that is not one of :func:`fitted_attributes`, or of
another type (a fitted object that is not an array, a scalar, a hypothesis list, a history or a
solution) is left out and listed in the header's ``skipped``; a loaded estimator predicts as the saved
one (``decision_function``, ``predict`` and what derives from the saved attributes, bit for bit).

A file that is not a model file -- not a zip, truncated, corrupt (the zip's CRC-32 of each member), of
another format or format version, naming an unknown class, hypothesis, parameter or attribute, a value
of another type or out of range, or missing an array -- raises ValueError saying which, and nothing is
constructed from it.
"""

from __future__ import annotations

import json
import math
import os
import warnings
import zipfile
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from dualboost import __version__
from dualboost._archive import Archive, ArchiveError
from dualboost._files import atomic_write
from dualboost.boosting.core.checkpoint import HYPOTHESES
from dualboost.boosting.core.history import HISTORY_FIELDS, History, HistoryRow
from dualboost.boosting.core.result import STOP_REASONS, Stages
from dualboost.estimators import skops_io
from dualboost.estimators.skops_io import SKOPS_TRUSTED_TYPES
from dualboost.oracles import FittedEstimator, Hypothesis
from dualboost.oracles.base import fields_of
from dualboost.oracles.multiclass import ClassHypothesis
from dualboost.oracles.registry import ORACLES
from dualboost.solvers import Solution

__all__ = [
    "save",
    "load",
    "FORMAT",
    "VERSION",
    "model_classes",
    "fitted_attributes",
    "SKOPS_TRUSTED_TYPES",
    "BOOSTING_ATTRIBUTES",
    "MIRROR_ATTRIBUTES",
    "REWEIGHTED_ATTRIBUTES",
    "MAX_MODEL_BYTES",
    "model_bytes",
    "MAX_HEADER_BYTES",
]

#: the ``format`` of every header
FORMAT = "dualboost-model"
#: incremented whenever the layout changes; other versions are refused
VERSION = 1
#: the scalar fields of a Solution written to a model file (d and w go as arrays)
_SOLUTION_SCALARS = tuple(
    f.name for f in fields(Solution) if f.name not in ("d", "w", "extra", "solver_state")
)


def model_classes() -> dict[str, type]:
    """The estimator classes a model file may name, by class name (a registry: loading constructs
    nothing else)."""
    from dualboost.estimators import (
        corrective,
        formulations,
        maboost,
        miniboosts,
        tempered,
        totally_corrective,
    )
    from dualboost.estimators.base import BoostingClassifier
    from dualboost.estimators.reweight import ReweightedClassifier

    classes: dict[str, type] = {"ReweightedClassifier": ReweightedClassifier}
    for module in (totally_corrective, corrective, maboost, miniboosts, formulations, tempered):
        for name in module.__all__:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, BoostingClassifier):
                classes[name] = cls
    return classes


# --- writing -----------------------------------------------------------------------------------------
class _Writer:
    """Collects the header's JSON and the archive's arrays."""

    def __init__(self) -> None:
        self.arrays: dict[str, np.ndarray] = {}
        self.skipped: list[str] = []

    def array(self, value: np.ndarray) -> dict:
        key = f"a{len(self.arrays)}"
        self.arrays[key] = value
        return {"array": key}

    def blob(self, estimator: BaseEstimator) -> dict:
        data = skops_io.dumps(estimator)
        return {"skops": self.array(np.frombuffer(data, dtype=np.uint8))["array"]}

    def hypothesis(self, h: Hypothesis) -> dict:
        from dualboost.estimators.reweight import Member, MemberVote

        name = type(h).__name__
        if name in HYPOTHESES and type(h) is HYPOTHESES[name]:
            return {"class": name, "fields": h.to_dict()}
        if type(h) in (FittedEstimator, Member, MemberVote):
            plain = {f.name: _json_scalar(getattr(h, f.name)) for f in fields(h) if f.name != "estimator"}
            return {"class": name, "fields": plain, "estimator": self.blob(h.estimator)}
        raise ValueError(f"a {name} hypothesis cannot be written to a model file")

    def value(self, name: str, value: Any) -> dict | None:
        """The JSON of one attribute or parameter, or None when it is of a type not saved."""
        if _is_json_scalar(value):
            return {"json": _json_scalar(value)}
        if isinstance(value, np.ndarray):
            if value.dtype.kind in "biufc":
                return self.array(value)
            if value.dtype.kind in "UO" and all(isinstance(v, str) for v in value.ravel()):
                return {"strings": value.tolist(), "dtype": value.dtype.str}
            return None
        if isinstance(value, list) and value and all(isinstance(h, Hypothesis) for h in value):
            return {"hypotheses": [self.hypothesis(h) for h in value]}
        if isinstance(value, list) and all(
            isinstance(a, np.ndarray) and a.dtype.kind in "biuf" for a in value
        ):
            return {"arrays": [self.array(a)["array"] for a in value]}
        if isinstance(value, History):
            rows = np.array([[getattr(r, f) for f in HISTORY_FIELDS] for r in value.rows], dtype=np.float64)
            return {
                "history": self.array(rows.reshape(-1, len(HISTORY_FIELDS)))["array"],
                "criterion": value.criterion,
                "threshold": value.threshold,
            }
        if isinstance(value, Stages):
            return {"stages": {f.name: self.array(getattr(value, f.name))["array"] for f in fields(Stages)}}
        if isinstance(value, Solution):
            out = {"solution": {f: _json_scalar(getattr(value, f)) for f in _SOLUTION_SCALARS}}
            for part in ("d", "w"):
                if getattr(value, part) is not None:
                    out[part] = self.array(np.asarray(getattr(value, part), dtype=np.float64))["array"]
            return out
        if isinstance(value, BaseEstimator):
            return {"estimator": self.blob(value)}
        return None


def _is_json_scalar(value: object) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, np.integer, np.floating, np.bool_))


def _json_scalar(value: object) -> object:
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if not _is_json_scalar(value):
        raise ValueError(f"{type(value).__name__} is not a JSON scalar")
    return value


def _params(estimator: BaseEstimator, writer: _Writer) -> dict:
    """The constructor's parameters: JSON scalars as they are, a scikit-learn ``oracle`` through skops,
    another object (an Oracle instance, the re-weighted ``ensemble``) as None with its repr noted."""
    out = {}
    for name, value in estimator.get_params(deep=False).items():
        if _is_json_scalar(value):
            out[name] = {"json": _json_scalar(value)}
        elif name == "oracle" and isinstance(value, BaseEstimator):
            out[name] = {"estimator": writer.blob(value)}
        elif name == "oracle" and type(value) in ORACLES.values() and repr(value) == repr(type(value)()):
            out[name] = {"json": next(k for k, v in ORACLES.items() if v is type(value))}
        else:
            out[name] = {"json": None, "was": repr(value)[:200]}
    return out


def _attributes(estimator: BaseEstimator, writer: _Writer) -> dict:
    """The fitted attributes of :func:`fitted_attributes` (another one is listed in ``skipped``)."""
    out: dict[str, dict] = {}
    hypotheses = getattr(estimator, "hypotheses_", None)
    known = fitted_attributes(type(estimator))
    for name, value in vars(estimator).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        if name not in known:
            writer.skipped.append(name)
            continue
        if name != "hypotheses_" and value is hypotheses and hypotheses is not None:
            out[name] = {"same_as": "hypotheses_"}
            continue
        if (
            isinstance(value, list)
            and hypotheses
            and len(value) == len(hypotheses)
            and all(v is getattr(h, "estimator", None) for v, h in zip(value, hypotheses, strict=True))
        ):
            out[name] = {"estimators_of": "hypotheses_"}
            continue
        encoded = writer.value(name, value)
        if encoded is None:
            writer.skipped.append(name)
        else:
            out[name] = encoded
    return out


def save(estimator: BaseEstimator, path: str | os.PathLike) -> Path:
    """Write the fitted ``estimator`` to the model file ``path`` (module docstring; written to a
    temporary file in the same directory, then renamed over ``path``). A CV estimator is saved as its
    ``best_estimator_``. Returns the path. ValueError for an unfitted estimator or one that cannot be
    saved; ImportError naming the ``models`` extra when scikit-learn members need skops and it is absent.

    Parameters
    ----------
    estimator : BaseEstimator
        A fitted estimator of dualboost (a CV estimator is saved as its ``best_estimator_``).
    path : str or os.PathLike
        The model file.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    from sklearn.utils.validation import check_is_fitted

    from dualboost.estimators.cv import _PathCV

    if isinstance(estimator, _PathCV):
        check_is_fitted(estimator)
        estimator = estimator.best_estimator_
    name = type(estimator).__name__
    known = model_classes()
    if known.get(name) is not type(estimator):
        raise ValueError(
            f"estimator must be one of {', '.join(sorted(known))} (or ERLPBoostCV / LPBoostCV); a {name} "
            "cannot be written to a model file"
        )
    check_is_fitted(estimator)
    writer = _Writer()
    header = {
        "format": FORMAT,
        "version": VERSION,
        "dualboost": __version__,
        "class": name,
        "params": _params(estimator, writer),
        "attributes": _attributes(estimator, writer),
    }
    header["skipped"] = writer.skipped
    path = _write(Path(path), header, writer.arrays)
    needed = model_bytes(path)
    if needed > MAX_MODEL_BYTES:
        warnings.warn(
            f"{path}: the model needs {needed} bytes to load, more than load()'s default max_bytes "
            f"({MAX_MODEL_BYTES}); load it with load(path, max_bytes={needed}) (dualboost predict "
            f"--max-bytes {needed})",
            UserWarning,
            stacklevel=2,
        )
    return path


def model_bytes(path: str | os.PathLike) -> int:
    """The bytes that loading the model file ``path`` may read at most: the uncompressed sizes of its
    members as the zip's directory declares them (:func:`load` charges their data against
    ``max_bytes``: ``load(path, max_bytes=model_bytes(path))`` reads the file). ValueError for a file
    that is not a zip archive.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`save`.

    Returns
    -------
    int
        The sum of the uncompressed sizes its zip directory declares.
    """
    try:
        with zipfile.ZipFile(path) as archive:
            return int(sum(info.file_size for info in archive.infolist()))
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{path}: not a dualboost model file ({exc})") from None


def _write(path: Path, header: dict, arrays: dict[str, np.ndarray]) -> Path:
    payload = np.frombuffer(json.dumps(header, allow_nan=True).encode("utf-8"), dtype=np.uint8)
    with atomic_write(path) as handle:  # (temporary file, fsync, rename; mode 0o666 & ~umask)
        np.savez_compressed(handle, header=payload, **arrays)
    return path


# --- reading -----------------------------------------------------------------------------------------
#: the fitted attributes a model file may hold, by the classes they belong to (others are not written,
#: and a file naming one is refused: an attribute named ``__dict__`` or ``predict`` would replace the
#: estimator's own); each is read and checked by :meth:`_Reader.attribute`
BOOSTING_ATTRIBUTES = frozenset(
    {
        "n_features_in_",
        "feature_names_in_",
        "classes_",
        "hypotheses_",
        "estimator_weights_",
        "history_",
        "n_iter_",
        "converged_",
        "nu_",
        "eta_",
        "stages_",
        "link_slope_",
        "stop_reason_",
        "class_prior_",
        "nu_fraction_",
    }
)
#: the mirror-descent classifiers' further attributes (:mod:`dualboost.estimators.maboost`)
MIRROR_ATTRIBUTES = BOOSTING_ATTRIBUTES | {"training_error_", "bound_", "d_"}
#: a re-weighted ensemble's (:class:`~dualboost.estimators.reweight.ReweightedClassifier`)
REWEIGHTED_ATTRIBUTES = frozenset(
    {
        "n_features_in_",
        "feature_names_in_",
        "classes_",
        "hypotheses_",
        "estimators_",
        "estimator_weights_",
        "n_members_",
        "nu_",
        "eta_",
        "solution_",
        "support_",
        "class_prior_",
        "link_slope_",
    }
)
#: what every model's ``predict`` needs (a file without one of them is refused)
_REQUIRED = ("n_features_in_", "classes_", "hypotheses_", "estimator_weights_")
#: the order in which attributes are read: each one's checks need those before it
_ORDER = ("n_features_in_", "classes_", "hypotheses_", "n_members_")
#: the most bytes that the members of a model file may decompress to, together (header, arrays and
#: scikit-learn members, each charged as it is read); raise it to read a larger model
MAX_MODEL_BYTES = 1 << 28
#: the most bytes of a model file's header (its JSON)
MAX_HEADER_BYTES = 1 << 26
#: how far the output weights of a model may sum from 1 (they are normalised: rounding only)
_SIMPLEX_TOL = 1e-6


def fitted_attributes(cls: type) -> frozenset[str]:
    """The fitted attributes that a model file of the class ``cls`` may hold (:data:`BOOSTING_ATTRIBUTES`,
    :data:`MIRROR_ATTRIBUTES` or :data:`REWEIGHTED_ATTRIBUTES`)."""
    from dualboost.estimators.maboost import _MirrorBoostingClassifier
    from dualboost.estimators.reweight import ReweightedClassifier

    if issubclass(cls, ReweightedClassifier):
        return REWEIGHTED_ATTRIBUTES
    return MIRROR_ATTRIBUTES if issubclass(cls, _MirrorBoostingClassifier) else BOOSTING_ATTRIBUTES


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


class _Reader:
    """Reads the entries of a header (:func:`load`): each entry's JSON checked for its type and range
    before anything is built from it, each array read from the archive only when an entry names it, with
    the size the header implies (:class:`~dualboost._archive.Archive`)."""

    def __init__(self, path: Path, archive: Archive, trusted: tuple[str, ...]) -> None:
        self.path, self.archive, self.trusted = path, archive, trusted
        self.n_features = 0
        self.n_classes = 2
        self.multiclass = False  # whether the estimator class takes K > 2 classes
        self.n_hypotheses: int | None = None

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{self.path}: not a valid dualboost model file: {what}")

    # -- JSON values -------------------------------------------------------------------------------
    def entry(self, value: object, what: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
        """``value``, once it is known to be a dict with the ``keys`` and no others (but ``optional``)."""
        if not isinstance(value, dict):
            raise self.fail(f"{what} is a {_kind(value)}, not an object")
        missing, extra = set(keys) - set(value), set(value) - set(keys) - set(optional)
        if missing or extra:
            raise self.fail(f"{what} has the keys {sorted(map(str, value))}, not {sorted(keys)}")
        return value

    def integer(self, value: object, what: str, low: int = 0, high: int = 2**63 - 1) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(f"{what} must be an integer in [{low}, {high}]; got {value!r}")
        return value

    def number(self, value: object, what: str, low: float = -math.inf, finite: bool = True) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"{what} must be a number; got {_kind(value)} {value!r}")
        if (finite and not math.isfinite(value)) or value < low:  # (NaN passes where not finite)
            raise self.fail(f"{what} must be a finite number >= {low}; got {value!r}")
        return float(value)

    def text(self, value: object, what: str) -> str:
        if not isinstance(value, str):
            raise self.fail(f"{what} must be a string; got {_kind(value)} {value!r}")
        return value

    def flag(self, value: object, what: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(f"{what} must be true or false; got {value!r}")
        return value

    # -- arrays ------------------------------------------------------------------------------------
    def array(
        self, key: object, what: str, *, kinds: str = "biuf", ndim: int = 1, size: int | None = None
    ) -> np.ndarray:
        """The archive's array ``key`` for ``what``: of the ``kinds``, ``ndim`` dimensions and exactly
        ``size`` entries if given (checked before it is allocated, as the dtype)."""
        if not isinstance(key, str):
            raise self.fail(f"{what} names the array {key!r}")
        try:
            value = self.archive.array(key, kinds=kinds, max_size=size)
        except ArchiveError as exc:
            raise self.fail(f"{what}: {exc}") from None
        if value.ndim != ndim or (size is not None and value.size != size):
            raise self.fail(f"{what} has the shape {value.shape}, not {ndim}-D with {size} entries")
        return value

    def finite(self, key: object, what: str, size: int | None = None) -> np.ndarray:
        value = self.array(key, what, kinds="biuf", size=size)
        if not np.all(np.isfinite(value)):
            raise self.fail(f"{what} holds values that are not finite")
        return value.astype(np.float64) if value.dtype.kind != "f" else value

    def strings(self, entry: dict, what: str) -> np.ndarray:
        """A string array (``{"strings": [...], "dtype": ...}``): unicode of the strings' width, or object."""
        self.entry(entry, what, ("strings", "dtype"))
        items, dtype = entry["strings"], entry["dtype"]
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise self.fail(f"{what} must be a list of strings")
        if dtype in ("|O", "O"):
            return np.array(items, dtype=object)
        # a unicode array holds every string at the width of the longest: charged before it is built
        nbytes = 4 * len(items) * max(1, *map(len, items))
        if nbytes > self.archive.budget:
            raise self.fail(f"{what} would take {nbytes} bytes, more than the {self.archive.budget} left")
        self.archive.budget -= nbytes
        value = np.array(items, dtype=str)
        if not isinstance(dtype, str) or dtype[:1] not in "<>|=" or value.dtype.str[1:] != dtype[1:]:
            raise self.fail(f"{what} has the dtype {dtype!r}; its strings are {value.dtype.str}")
        return value

    # -- hypotheses and scikit-learn members -------------------------------------------------------
    def blob(self, ref: object, what: str) -> BaseEstimator:
        self.entry(ref, what, ("skops",))
        data = self.array(ref["skops"], what, kinds="u").tobytes()
        where, budget = str(self.path), self.archive.budget
        member, read = skops_io.read_member(data, self.trusted, self.n_features, budget, where)
        self.archive.budget -= read
        return member

    def hypothesis(self, entry: object, what: str) -> Hypothesis:
        from dualboost.estimators.reweight import Member, MemberVote

        entry = self.entry(entry, what, ("class", "fields"), optional=("estimator",))
        name, data = entry["class"], entry["fields"]
        if isinstance(name, str) and name in HYPOTHESES and "estimator" not in entry:
            try:
                hypothesis = HYPOTHESES[name].from_dict(data)
            except (TypeError, ValueError) as exc:
                raise self.fail(f"{what}: the {name} hypothesis has the wrong fields ({exc})") from None
        elif name in ("FittedEstimator", "Member", "MemberVote"):
            cls = {"FittedEstimator": FittedEstimator, "Member": Member, "MemberVote": MemberVote}[name]
            try:
                given = fields_of(cls, data, skip=("estimator",))
            except ValueError as exc:
                raise self.fail(f"{what}: the {name} hypothesis has the wrong fields ({exc})") from None
            values = self.member_fields(cls, given, what)
            estimator = self.blob(entry.get("estimator"), what)
            if values.get("output", values.get("kind")) == "proba":  # the column of predict_proba it reads
                column = values.get("column", 0)
                n_classes = len(getattr(estimator, "classes_", ()))
                n_classes = n_classes if hasattr(estimator, "predict_proba") else 0
                if not column < n_classes:
                    raise self.fail(f"{what} reads column {column} of predict_proba's {n_classes}")
            if cls is MemberVote and len(getattr(estimator, "classes_", ())) != values["n_classes"]:
                raise self.fail(f"{what} votes for {values['n_classes']} classes, its member has others")
            hypothesis = cls(**values, estimator=estimator)
        else:
            raise self.fail(f"{what}: unknown hypothesis class {name!r}")
        if hypothesis.n_features != self.n_features and name != "MatrixColumn":
            raise self.fail(f"{what} reads {hypothesis.n_features} features, the model {self.n_features}")
        # a vote per class for K > 2 classes (class-valued hypotheses), a sign for two
        votes = hypothesis.n_classes if isinstance(hypothesis, ClassHypothesis) else 2
        if votes != self.n_classes:
            raise self.fail(f"{what} predicts {votes} classes, the model has {self.n_classes}")
        return hypothesis

    def member_fields(self, cls: type, given: dict, what: str) -> dict:
        """The fields of a :class:`~dualboost.oracles.FittedEstimator` or a re-weighted ``Member`` but
        its estimator, checked: the values its ``predict`` uses."""
        out = {"n_features": self.integer(given["n_features"], f"{what} n_features", 1)}
        if cls.__name__ == "MemberVote":
            n_classes = self.integer(given["n_classes"], f"{what} n_classes", 3)
            return out | {"n_classes": n_classes, "index": self.integer(given["index"], f"{what} index")}
        if cls is FittedEstimator:
            if given["output"] not in ("predict", "proba") or isinstance(given["output"], bool):
                raise self.fail(f"{what} output must be 'predict' or 'proba'; got {given['output']!r}")
            if given["sign"] not in (-1, 1) or isinstance(given["sign"], bool):
                raise self.fail(f"{what} sign must be -1 or +1; got {given['sign']!r}")
            fingerprint = self.text(given["fingerprint"], f"{what} fingerprint")
            return out | {"output": given["output"], "sign": given["sign"], "fingerprint": fingerprint}
        if given["kind"] not in ("proba", "predict", "regression"):
            raise self.fail(f"{what} kind must be 'proba', 'predict' or 'regression'; got {given['kind']!r}")
        if not _is_json_scalar(given["positive"]):
            raise self.fail(f"{what} positive must be a label; got {_kind(given['positive'])}")
        scale = self.number(given["scale"], f"{what} scale")
        if scale == 0:
            raise self.fail(f"{what} scale must not be 0")
        return out | {
            "index": self.integer(given["index"], f"{what} index"),
            "kind": given["kind"],
            "column": self.integer(given["column"], f"{what} column"),
            "positive": given["positive"],
            "scale": scale,
        }

    # -- attributes --------------------------------------------------------------------------------
    def attribute(self, name: str, entry: object, done: dict) -> Any:
        """The fitted attribute ``name`` of the header's ``entry``, of the kind and range it has in a
        fitted model (``done``: the attributes read so far, by :data:`_ORDER`)."""
        what = f"the attribute {name}"
        if not isinstance(entry, dict) or len(entry) == 0:
            raise self.fail(f"{what} is {entry!r}")
        if name == "n_features_in_":
            self.n_features = self.integer(self.entry(entry, what, ("json",))["json"], what, 1)
            return self.n_features
        if name == "feature_names_in_":
            value = self.strings(entry, what)
            if value.shape != (self.n_features,):
                raise self.fail(f"{what} has {value.size} names for {self.n_features} features")
            return value
        if name == "classes_":
            if "strings" in entry:
                value = self.strings(entry, what)
            else:
                value = self.array(self.entry(entry, what, ("array",))["array"], what)
            finite = value.dtype.kind != "f" or np.all(np.isfinite(value))
            if value.ndim != 1 or value.size < 2 or not finite or not np.all(value[1:] > value[:-1]):
                raise self.fail(f"{what} must hold two or more distinct labels in increasing order")
            if value.size > 2 and not self.multiclass:
                raise self.fail(f"{what} holds {value.size} labels; the estimator takes two classes")
            self.n_classes = int(value.size)
            return value
        if name == "hypotheses_":
            items = self.entry(entry, what, ("hypotheses",))["hypotheses"]
            if not isinstance(items, list):
                raise self.fail(f"{what} must be a list; got {_kind(items)}")
            hypotheses = [self.hypothesis(h, f"hypothesis {q}") for q, h in enumerate(items)]
            self.n_hypotheses = len(hypotheses)
            return hypotheses
        if name == "estimators_":
            self.entry(entry, what, ("estimators_of",))
            if entry["estimators_of"] != "hypotheses_":
                raise self.fail(f"{what} must be the estimators of hypotheses_")
            return [h.estimator for h in done["hypotheses_"]]
        if name == "estimator_weights_":
            w = self.finite(self.entry(entry, what, ("array",))["array"], what, size=self.n_hypotheses)
            if np.any(w < 0) or (w.size and abs(float(w.sum()) - 1.0) > _SIMPLEX_TOL):
                raise self.fail(f"{what} must lie in the simplex (w >= 0, sum 1); sum {float(w.sum())!r}")
            return w
        if name == "stages_":  # None after a resumed run
            if entry == {"json": None}:
                return None
            return self.stages(self.entry(entry, what, ("stages",))["stages"], what)
        if name == "history_":
            return self.history(self.entry(entry, what, ("history", "criterion", "threshold")), what)
        if name == "solution_":
            return self.solution(self.entry(entry, what, ("solution",), optional=("d", "w")), what)
        if name == "support_":
            members = done.get("n_members_", 0)
            key = self.entry(entry, what, ("array",))["array"]
            value = self.array(key, what, kinds="iu", size=self.n_hypotheses)
            if np.any(value < 0) or np.any(value >= members) or np.any(np.diff(value) <= 0):
                raise self.fail(f"{what} must hold increasing member indices in [0, {members})")
            return value
        if name == "class_prior_":  # the tie rule of dualboost.estimators.ties
            p = self.finite(self.entry(entry, what, ("array",))["array"], what, size=self.n_classes)
            if np.any(p < 0) or abs(float(p.sum()) - 1.0) > _SIMPLEX_TOL:
                raise self.fail(f"{what} must be one fraction per class summing to 1; got {p.tolist()!r}")
            return p
        if name in ("training_error_", "bound_", "d_"):
            return self.array(self.entry(entry, what, ("array",))["array"], what, kinds="f")
        value = self.entry(entry, what, ("json",))["json"]
        if name in ("n_iter_", "n_members_"):
            return self.integer(value, what)
        if name == "converged_":
            return self.flag(value, what)
        if name == "nu_":
            return self.number(value, what, 1.0)
        if name == "eta_":
            return self.number(value, what, 0.0)
        if name == "link_slope_":
            return self.number(value, what, 0.0)
        if name == "nu_fraction_":
            fraction = self.number(value, what, 0.0)
            if not 0.0 < fraction <= 1.0:
                raise self.fail(f"{what} must lie in (0, 1]; got {fraction!r}")
            return fraction
        if self.text(value, what) not in STOP_REASONS:  # stop_reason_
            raise self.fail(f"{what} must be one of {sorted(STOP_REASONS)}; got {value!r}")
        return value

    def stages(self, entry: object, what: str) -> Stages:
        """``Stages`` (:class:`~dualboost.boosting.core.result.Stages`): S finite scales, S + 1 increasing
        offsets from 0 into the entries, finite values at hypothesis indices in [0, T)."""
        entry = self.entry(entry, what, tuple(f.name for f in fields(Stages)))
        scale = self.finite(entry["scale"], f"{what} scale")
        indptr = self.array(entry["indptr"], f"{what} indptr", kinds="iu", size=scale.size + 1)
        if indptr[0] != 0 or np.any(np.diff(indptr) < 0):
            raise self.fail(f"{what} indptr must rise from 0")
        indices = self.array(entry["indices"], f"{what} indices", kinds="iu", size=int(indptr[-1]))
        values = self.finite(entry["values"], f"{what} values", size=indices.size)
        if np.any(indices < 0) or np.any(indices >= self.n_hypotheses):
            raise self.fail(f"{what} does not index the {self.n_hypotheses} hypotheses")
        indptr, indices = indptr.astype(np.int64), indices.astype(np.int32)
        return Stages(scale=scale, indptr=indptr, indices=indices, values=values)

    def history(self, entry: dict, what: str) -> History:
        criterion = self.text(entry["criterion"], f"{what} criterion")
        threshold = self.number(entry["threshold"], f"{what} threshold", finite=False)
        table = self.array(entry["history"], what, kinds="f", ndim=2)
        if table.shape[1:] != (len(HISTORY_FIELDS),):
            raise self.fail(f"{what} has the shape {table.shape}, not (rows, {len(HISTORY_FIELDS)})")
        history = History(criterion, threshold)
        for row in table.tolist():
            values = dict(zip(HISTORY_FIELDS, row, strict=True))
            for count in ("iteration", "n_hypotheses"):
                if not math.isfinite(values[count]) or values[count] != int(values[count]):
                    raise self.fail(f"{what}: {count} must be an integer; got {values[count]!r}")
                values[count] = int(values[count])
            history.append(HistoryRow(**values))
        return history

    def solution(self, entry: dict, what: str) -> Solution:
        scalars = self.entry(entry["solution"], f"{what} solution", _SOLUTION_SCALARS)
        for key, value in scalars.items():
            if isinstance(value, (dict, list)):
                raise self.fail(f"{what} solution {key} must be a scalar; got {_kind(value)}")
        parts = {p: self.array(entry[p], f"{what} {p}", kinds="f") for p in ("d", "w") if p in entry}
        return Solution(**scalars, d=parts.get("d"), w=parts.get("w"))


def _open(path: Path, archive: Archive) -> dict:
    """The header of the model file open in ``archive``, once it is known to be JSON of this format
    and version (ValueError otherwise); only its member is read, at most :data:`MAX_HEADER_BYTES`."""
    if "header" not in archive:
        raise ValueError(f"{path}: not a dualboost model file (no header)")
    try:
        text = archive.bytes("header", limit=MAX_HEADER_BYTES).decode("utf-8")
        header = json.loads(text)
    except ArchiveError as exc:
        raise ValueError(f"{path}: not a dualboost model file, or a corrupt one (header: {exc})") from None
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, nested too deeply, ...
        raise ValueError(f"{path}: not a dualboost model file (the header is not JSON: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        given = header.get("format") if isinstance(header, dict) else None
        raise ValueError(f"{path}: not a dualboost model file (format {given!r}, expected {FORMAT!r})")
    if header.get("version") != VERSION:
        raise ValueError(
            f"{path}: model file format version {header.get('version')!r} (written by dualboost "
            f"{header.get('dualboost')}); this dualboost {__version__} reads version {VERSION}"
        )
    return header


def load(
    path: str | os.PathLike, *, trusted: list[str] | tuple[str, ...] = (), max_bytes: int = MAX_MODEL_BYTES
) -> BaseEstimator:
    """The fitted estimator of the model file ``path`` (module docstring): its class constructed with
    the saved parameters, its fitted attributes restored, each checked first. ``trusted``: further exact
    type names (``module.Class``, as ``skops.io.get_untrusted_types`` reports them) that a scikit-learn
    member's skops data may hold besides :data:`SKOPS_TRUSTED_TYPES`. ``max_bytes``: the most bytes the
    file's members may decompress to, together (raise it for a model larger than the default
    :data:`MAX_MODEL_BYTES`; :func:`model_bytes` tells what a file needs). ValueError for a file that is
    not a valid model file of this format version, or larger than ``max_bytes``; nothing in the file is
    run.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    trusted : list or tuple of str, default ()
        Further exact type names that a scikit-learn member's skops data may hold.
    max_bytes : int, default MAX_MODEL_BYTES
        The most bytes the file's members may decompress to, together.

    Returns
    -------
    BaseEstimator
        The fitted estimator.
    """
    path = Path(path)
    if not isinstance(trusted, (list, tuple)) or not all(isinstance(t, str) for t in trusted):
        raise ValueError(f"trusted must be a list of type names (strings); got {trusted!r}")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) or max_bytes < 1:
        raise ValueError(f"max_bytes must be a positive integer (bytes); got {max_bytes!r}")
    if path.is_file() and not zipfile.is_zipfile(path):  # numpy's advice on pickled data is no use here
        raise ValueError(f"{path}: not a dualboost model file (not a zip archive)")
    try:
        archive = Archive(path, budget=int(max_bytes))
    except ArchiveError as exc:
        raise ValueError(f"{path}: not a dualboost model file ({exc})") from None
    with archive:
        return _load(path, _open(path, archive), _Reader(path, archive, tuple(trusted)))


def _load(path: Path, header: dict, reader: _Reader) -> BaseEstimator:
    """The estimator of a checked ``header`` (:func:`load`)."""
    classes = model_classes()
    name = header.get("class")
    if not isinstance(name, str) or name not in classes:
        raise reader.fail(f"unknown estimator class {name!r}")
    cls = classes[name]
    params, attributes = header.get("params"), header.get("attributes")
    if not isinstance(params, dict) or not isinstance(attributes, dict):
        raise reader.fail("the header has no parameters or attributes")
    known, allowed = cls().get_params(deep=False), fitted_attributes(cls)
    unknown = sorted(set(params) - set(known)) + sorted(set(attributes) - allowed)
    required = _REQUIRED + (("link_slope_",) if "link_slope_" in allowed else ())
    missing = [k for k in required if k not in attributes]
    if unknown:
        raise reader.fail(f"{name} has no parameters or fitted attributes {unknown}")
    if missing:
        raise reader.fail(f"the fitted attributes {missing} of {name} are missing")
    reader.multiclass = getattr(cls, "_multiclass", False)  # (BoostingClassifier's; the rest: two)
    done: dict[str, Any] = {}
    order = sorted(attributes, key=lambda k: (_ORDER.index(k) if k in _ORDER else len(_ORDER), k))
    for key in order:
        done[key] = reader.attribute(key, attributes[key], done)
    values = {}
    for key, entry in params.items():
        what = f"the parameter {key}"
        if key == "oracle" and isinstance(entry, dict) and "estimator" in entry:
            values[key] = reader.blob(reader.entry(entry, what, ("estimator",))["estimator"], what)
            continue
        value = reader.entry(entry, what, ("json",), optional=("was",))["json"]
        if not _is_json_scalar(value):
            raise reader.fail(f"{what} must be a JSON scalar; got {_kind(value)}")
        values[key] = value
    estimator = cls(**values)
    for key in order:
        setattr(estimator, key, done[key])
    return estimator
