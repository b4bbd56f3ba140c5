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
scikit-learn members; on loading, the types a member's skops data names must be scikit-learn's, numpy's
or scipy's, or given in ``trusted``.

What can be saved: every classifier of :mod:`dualboost.estimators` built on
:class:`~dualboost.estimators.base.BoostingClassifier` (the totally corrective, corrective and mirror
descent ones) with the hypotheses above, :class:`~dualboost.estimators.reweight.ReweightedClassifier`
(its kept members; the ``ensemble`` parameter, the whole pool, is not saved: None after loading), and
:class:`~dualboost.estimators.cv.ERLPBoostCV` / ``LPBoostCV`` as their ``best_estimator_`` (loading
gives that classifier). The gradient and online estimators raise ValueError (their state is not a
weighted vote of hypotheses). A fitted attribute of another type (a fitted object that is not an
array, a scalar, a hypothesis list, a history or a solution) is left out and listed in the header's
``skipped``; a loaded estimator predicts as the saved one (``decision_function``, ``predict`` and what
derives from the saved attributes, bit for bit).

A file that is not a model file -- not a zip, truncated, corrupt (the zip's CRC-32 of each member), of
another format or format version, naming an unknown class or hypothesis, or missing an array -- raises
ValueError saying which, and nothing is constructed from it.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

from dualboost import __version__
from dualboost._files import atomic_write
from dualboost.boosting.core.checkpoint import HYPOTHESES
from dualboost.boosting.core.history import HISTORY_FIELDS, History, HistoryRow
from dualboost.boosting.core.result import Stages
from dualboost.oracles import FittedEstimator, Hypothesis
from dualboost.oracles.registry import ORACLES
from dualboost.solvers import Solution

__all__ = ["save", "load", "save_result", "FORMAT", "VERSION", "model_classes", "SKOPS_TRUSTED_MODULES"]

#: the ``format`` of every header
FORMAT = "dualboost-model"
#: incremented whenever the layout changes; other versions are refused
VERSION = 1
#: the top-level modules whose types a member's skops data may name without ``trusted``
SKOPS_TRUSTED_MODULES = ("sklearn", "numpy", "scipy", "builtins")
_SKOPS_MISSING = (
    "this model file holds scikit-learn members, stored with skops, which could not be imported ({error}); "
    "install the 'models' extra: pip install 'dualboost[models]'"
)
_SKOPS_BROKEN = (
    "this model file holds scikit-learn members, stored with skops, which is installed but does not import "
    "with this scikit-learn ({error}); upgrade it: pip install -U skops (the 'models' extra of dualboost)"
)
#: the scalar fields of a Solution written to a model file (d and w go as arrays)
_SOLUTION_SCALARS = tuple(
    f.name for f in fields(Solution) if f.name not in ("d", "w", "extra", "solver_state")
)


def model_classes() -> dict[str, type]:
    """The estimator classes a model file may name, by class name (a registry: loading constructs
    nothing else)."""
    from dualboost.estimators import corrective, formulations, maboost, miniboosts, totally_corrective
    from dualboost.estimators.base import BoostingClassifier
    from dualboost.estimators.reweight import ReweightedClassifier

    classes: dict[str, type] = {"ReweightedClassifier": ReweightedClassifier}
    for module in (totally_corrective, corrective, maboost, miniboosts, formulations):
        for name in module.__all__:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, BoostingClassifier):
                classes[name] = cls
    return classes


def _skops():
    try:
        import skops.io as sio
    except ModuleNotFoundError as exc:  # absent
        raise ImportError(_SKOPS_MISSING.format(error=exc)) from exc
    except ImportError as exc:  # installed, but it does not import with this scikit-learn
        raise ImportError(_SKOPS_BROKEN.format(error=exc)) from exc
    return sio


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
        data = _skops().dumps(estimator)
        return {"skops": self.array(np.frombuffer(data, dtype=np.uint8))["array"]}

    def hypothesis(self, h: Hypothesis) -> dict:
        from dualboost.estimators.reweight import Member

        name = type(h).__name__
        if name in HYPOTHESES and type(h) is HYPOTHESES[name]:
            return {"class": name, "fields": h.to_dict()}
        if type(h) in (FittedEstimator, Member):
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
    out: dict[str, dict] = {}
    hypotheses = getattr(estimator, "hypotheses_", None)
    for name, value in vars(estimator).items():
        if not name.endswith("_") or name.startswith("_"):
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
    saved; ImportError naming the ``models`` extra when scikit-learn members need skops and it is absent."""
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
    return _write(Path(path), header, writer.arrays)


def _write(path: Path, header: dict, arrays: dict[str, np.ndarray]) -> Path:
    payload = np.frombuffer(json.dumps(header, allow_nan=True).encode("utf-8"), dtype=np.uint8)
    with atomic_write(path) as handle:  # (temporary file, fsync, rename; mode 0o666 & ~umask)
        np.savez_compressed(handle, header=payload, **arrays)
    return path


# --- reading -----------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, path: Path, arrays: dict[str, np.ndarray], trusted: tuple[str, ...]) -> None:
        self.path, self.arrays, self.trusted = path, arrays, trusted

    def fail(self, what: str) -> ValueError:
        return ValueError(f"{self.path}: not a valid dualboost model file: {what}")

    def array(self, key: object) -> np.ndarray:
        if not isinstance(key, str) or key not in self.arrays:
            raise self.fail(f"the array {key!r} is missing")
        return self.arrays[key]

    def blob(self, ref: dict) -> BaseEstimator:
        sio = _skops()
        data = self.array(ref.get("skops") if isinstance(ref, dict) else None).tobytes()
        try:
            untrusted = sio.get_untrusted_types(data=data)
        except Exception as exc:  # skops reads a zip of its own: any failure is a corrupt member
            raise self.fail(f"a scikit-learn member could not be read ({exc})") from None
        refused = [
            t for t in untrusted if t.split(".")[0] not in SKOPS_TRUSTED_MODULES and t not in self.trusted
        ]
        if refused:
            raise ValueError(
                f"{self.path}: a scikit-learn member names the types {refused}, which are not "
                "scikit-learn's, numpy's or scipy's; pass them in trusted=[...] if you trust the file"
            )
        try:
            return sio.loads(data, trusted=list(untrusted))
        except Exception as exc:
            raise self.fail(f"a scikit-learn member could not be read ({exc})") from None

    def hypothesis(self, entry: object) -> Hypothesis:
        from dualboost.estimators.reweight import Member

        if not isinstance(entry, dict) or not isinstance(entry.get("fields"), dict):
            raise self.fail(f"a hypothesis entry is {entry!r}")
        name, data = entry.get("class"), dict(entry["fields"])
        try:
            if name in HYPOTHESES:
                return HYPOTHESES[name].from_dict(data)
            if name in ("FittedEstimator", "Member"):
                cls = FittedEstimator if name == "FittedEstimator" else Member
                return cls(**data, estimator=self.blob(entry.get("estimator")))
        except (TypeError, KeyError, ValueError) as exc:
            if isinstance(exc, ValueError) and str(exc).startswith(str(self.path)):
                raise
            raise self.fail(f"the {name} hypothesis has the wrong fields ({exc})") from None
        raise self.fail(f"unknown hypothesis class {name!r}")

    def value(self, entry: object, done: dict) -> Any:
        if not isinstance(entry, dict):
            raise self.fail(f"an attribute entry is {entry!r}")
        if "json" in entry:
            return entry["json"]
        if "array" in entry:
            return self.array(entry["array"])
        if "strings" in entry:
            return np.array(entry["strings"], dtype=np.dtype(entry.get("dtype", "O")))
        if "hypotheses" in entry:
            return [self.hypothesis(h) for h in entry["hypotheses"]]
        if "arrays" in entry:
            return [self.array(key) for key in entry["arrays"]]
        if "history" in entry:
            history = History(entry.get("criterion", ""), entry.get("threshold", float("nan")))
            for row in self.array(entry["history"]):
                values = dict(zip(HISTORY_FIELDS, row.tolist(), strict=True))
                values["iteration"], values["n_hypotheses"] = (
                    int(values["iteration"]),
                    int(values["n_hypotheses"]),
                )
                history.append(HistoryRow(**values))
            return history
        if "stages" in entry:
            return Stages(**{name: self.array(key) for name, key in entry["stages"].items()})
        if "solution" in entry:
            parts = {p: self.array(entry[p]) if p in entry else None for p in ("d", "w")}
            return Solution(**entry["solution"], **parts)
        if "estimator" in entry:
            return self.blob(entry["estimator"])
        if "same_as" in entry:
            return done[entry["same_as"]]
        if "estimators_of" in entry:
            return [h.estimator for h in done[entry["estimators_of"]]]
        raise self.fail(f"an attribute entry has no known kind: {sorted(entry)}")


def _open(path: Path) -> tuple[dict, dict[str, np.ndarray]]:
    """The header and the arrays of the archive at ``path`` (ValueError if it is not one)."""
    if path.is_file() and not zipfile.is_zipfile(path):  # numpy's advice on pickled data is no use here
        raise ValueError(f"{path}: not a dualboost model file (not a zip archive)")
    try:
        with np.load(path, allow_pickle=False) as archive:
            if not hasattr(archive, "files"):
                raise ValueError(f"{path}: not a dualboost model file (a single .npy array, not an archive)")
            arrays = {key: archive[key] for key in archive.files}
    except FileNotFoundError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError) as exc:
        if isinstance(exc, ValueError) and "not a dualboost" in str(exc):
            raise
        raise ValueError(
            f"{path}: not a dualboost model file, or a corrupt one ({type(exc).__name__}: {exc})"
        ) from None
    if "header" not in arrays:
        raise ValueError(f"{path}: not a dualboost model file (no header)")
    try:
        header = json.loads(arrays.pop("header").tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a dualboost model file (the header is not JSON: {exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        given = header.get("format") if isinstance(header, dict) else None
        raise ValueError(f"{path}: not a dualboost model file (format {given!r}, expected {FORMAT!r})")
    if header.get("version") != VERSION:
        raise ValueError(
            f"{path}: model file format version {header.get('version')!r} (written by dualboost "
            f"{header.get('dualboost')}); this dualboost {__version__} reads version {VERSION}"
        )
    return header, arrays


def load(path: str | os.PathLike, *, trusted: list[str] | tuple[str, ...] = ()) -> BaseEstimator:
    """The fitted estimator of the model file ``path`` (module docstring): its class constructed with
    the saved parameters, its fitted attributes restored. ``trusted``: further type names a
    scikit-learn member's skops data may hold (``skops.io.get_untrusted_types``). ValueError for a file
    that is not a valid model file of this format version."""
    path = Path(path)
    header, arrays = _open(path)
    reader = _Reader(path, arrays, tuple(trusted))
    classes = model_classes()
    name = header.get("class")
    if name not in classes:
        raise reader.fail(f"unknown estimator class {name!r}")
    params, attributes = header.get("params"), header.get("attributes")
    if not isinstance(params, dict) or not isinstance(attributes, dict):
        raise reader.fail("the header has no parameters or attributes")
    try:
        estimator = classes[name](**{k: reader.value(v, {}) for k, v in params.items()})
    except TypeError as exc:
        raise reader.fail(f"the parameters do not fit {name} ({exc})") from None
    done: dict[str, Any] = {}
    order = sorted(attributes, key=lambda k: "same_as" in attributes[k] or "estimators_of" in attributes[k])
    for key in order:
        done[key] = reader.value(attributes[key], done)
        setattr(estimator, key, done[key])
    if "estimator_weights_" in done and "hypotheses_" in done:
        if len(done["estimator_weights_"]) != len(done["hypotheses_"]):
            raise reader.fail("the weights and the hypotheses differ in number")
    return estimator


def save_result(
    result,
    path: str | os.PathLike,
    *,
    classes: np.ndarray,
    n_features: int,
    params: dict | None = None,
    labels: np.ndarray | None = None,
) -> Path:
    """Write a driver's :class:`~dualboost.boosting.BoostResult` (``dualboost boost --save``) as the model
    file of the classifier whose ``_algorithm`` is ``result.algorithm``, constructed with ``params``
    (its parameters; the others keep their defaults): ``classes_`` (``classes``, the labels of -1 and
    +1), ``n_features_in_``, ``hypotheses_``, ``estimator_weights_``, ``history_``, ``n_iter_``,
    ``converged_``, ``stop_reason_``, ``nu_``, ``eta_`` and ``stages_`` from the result, ``link_slope_``
    (the link of ``predict_proba``) fitted on its training margins as ``fit`` does, and, with the
    training ``labels`` (given as y in {-1, +1}), ``class_prior_`` (a tie f = 0 predicts the larger,
    :mod:`dualboost.estimators.ties`). ValueError for an algorithm without a classifier (AdaBoost)."""
    from dualboost.estimators.probability import fit_link_slope
    from dualboost.estimators.ties import class_prior

    matches = [c for c in model_classes().values() if getattr(c, "_algorithm", None) == result.algorithm]
    if not matches:
        raise ValueError(
            f"a {result.algorithm} result has no classifier of dualboost.estimators to be saved as"
        )
    cls = matches[0]
    taken = cls().get_params(deep=False)
    estimator = cls(**{k: v for k, v in (params or {}).items() if k in taken})
    estimator.classes_ = np.asarray(classes)
    estimator.n_features_in_ = int(n_features)
    estimator.hypotheses_ = list(result.hypotheses)
    estimator.estimator_weights_ = np.asarray(result.weights, dtype=np.float64)
    estimator.history_ = result.history
    estimator.n_iter_ = result.n_iter
    estimator.converged_ = result.converged
    estimator.stop_reason_ = result.stop_reason
    if labels is not None:
        estimator.class_prior_ = class_prior(labels)
    for name in ("nu", "eta"):
        if name in result.params:
            setattr(estimator, f"{name}_", result.params[name])
    estimator.stages_ = result.stages
    margins = np.asarray(result.margins, dtype=np.float64) if result.weights.size else np.zeros(0)
    estimator.link_slope_ = fit_link_slope(margins, None)  # as the classifier's fit, unweighted
    return save(estimator, path)
