"""Data: LIBSVM / CSV readers, the named data sets of [KG] Ch. 5 and the thesis's split
(docs/math.md#thesis-experiments).

* :func:`load_libsvm`, :func:`load_csv`: read a file into ``(X, y)`` with X dense or
  ``scipy.sparse`` (CSR) and y in {-1, +1} (two classes, the larger label is +1); a malformed
  LIBSVM file is a ValueError naming the file and the line (:func:`libsvm_error`).
* :func:`load_dataset`: a named data set (``a9a``, ``german.numer`` alias ``german``,
  ``diabetes``) as a :class:`DataSplit` (train, valid, test). Files are searched in the directory
  named by the environment variable ``DUALBOOST_DATA``, then in the user cache directory
  (``$XDG_CACHE_HOME/dualboost``, default ``~/.cache/dualboost``); if absent they are downloaded
  from the LIBSVM binary data site into the cache (``download=True``), and offline a
  :class:`DatasetNotFoundError` says which file to put where.
* :func:`thesis_split`: the thesis's random 60/20/20 split of the concatenated data (Table 5.2).

a9a: the files ``a9a.train``, ``a9a.valid``, ``a9a.test`` (29,305 / 9,768 / 9,769 examples, the
split of the 2009 C++ ERLPBoost code, i.e. the thesis's) are used as shipped when present.
Otherwise LIBSVM's ``a9a`` and ``a9a.t`` are concatenated and split by :func:`thesis_split` with the
given seed (same sizes, different examples). german and diabetes are always split by seed.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import os
import shutil
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from sklearn.datasets import load_svmlight_file

from dualboost._validation import Matrix, binary_labels, check_count

__all__ = [
    "DataSplit",
    "DatasetNotFoundError",
    "DATASETS",
    "LIBSVM_URL",
    "load_libsvm",
    "libsvm_error",
    "load_csv",
    "load_dataset",
    "data_dirs",
    "download_file",
    "thesis_split",
    "split_sizes",
]

LIBSVM_URL = "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/binary/"
#: Seconds to wait for the LIBSVM site before giving up.
DOWNLOAD_TIMEOUT = 10.0


class DataSplit(NamedTuple):
    """Train, validation and test sets, each an ``(X, y)`` pair with y in {-1, +1}."""

    train: tuple[Matrix, NDArray[np.float64]]
    valid: tuple[Matrix, NDArray[np.float64]]
    test: tuple[Matrix, NDArray[np.float64]]


class DatasetNotFoundError(FileNotFoundError):
    """A named data set is neither in the data directories nor downloadable."""


@dataclass(frozen=True)
class _Dataset:
    """A LIBSVM binary data set: ``files`` to concatenate, or the ``presplit`` train/valid/test."""

    files: tuple[str, ...]
    n_features: int
    sparse: bool
    presplit: tuple[str, str, str] | None = None


#: The named data sets of [KG] Table 5.1 that are small enough to ship or download here.
DATASETS: dict[str, _Dataset] = {
    "a9a": _Dataset(("a9a", "a9a.t"), 123, True, ("a9a.train", "a9a.valid", "a9a.test")),
    "german.numer": _Dataset(("german.numer",), 24, False),
    "diabetes": _Dataset(("diabetes",), 8, False),
}
_ALIASES = {"german": "german.numer", "adult9": "a9a"}


def load_libsvm(
    path: str | os.PathLike, *, sparse: bool = True, n_features: int | None = None, binary: bool = True
) -> tuple[Matrix, NDArray[np.float64]]:
    """Read a LIBSVM/svmlight file: X (CSR, or dense with ``sparse=False``) and y in {-1, +1}
    (``binary=False``: y the file's labels as they are, any number of classes, e.g. a multiclass file
    of the LIBSVM site).

    ``n_features`` fixes the width (a test file may not use the last features); without it the
    width is the largest feature index in the file. A malformed file is a ValueError naming the
    file, the (1-based) line and what is wrong with it (:func:`libsvm_error`).

    Parameters
    ----------
    path : str or os.PathLike
        The LIBSVM/svmlight file.
    sparse : bool, default True
        Return X as CSR (else dense).
    n_features : int, optional
        The width of X (None: the largest index in the file).
    binary : bool, default True
        Map the labels to {-1, +1} (else keep them).

    Returns
    -------
    X : scipy.sparse.csr_matrix or ndarray of shape (N, p)
        The features.
    y : ndarray of shape (N,)
        The labels.
    """
    check_count(n_features, "n_features", optional=True)
    try:
        X, y = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64)
    except (ValueError, OverflowError) as exc:
        raise libsvm_error(path, exc, n_features) from None
    if binary:
        y, _ = binary_labels(y, name=f"the labels of {os.fspath(path)}")
    elif not np.all(np.isfinite(y)):
        raise ValueError(f"the labels of {os.fspath(path)} must be finite (no NaN or inf)")
    return (X.tocsr() if sparse else X.toarray()), y


#: what a LIBSVM line looks like, for the error messages
_LIBSVM_LINE = "a line is 'LABEL INDEX:VALUE INDEX:VALUE ...' with increasing integer indices"


def _open_binary(path: str | os.PathLike):
    """``path`` opened for reading bytes, decompressed as ``load_svmlight_file`` does (.gz, .bz2)."""
    suffix = Path(path).suffix
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    return open(path, "rb")


def _shown(token: bytes) -> str:
    """A field of a LIBSVM line as text for a message (quoted, at most 40 characters)."""
    text = token.decode("utf-8", "replace")
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _line_problem(line: bytes) -> tuple[str | None, int, int]:
    """What is wrong with one LIBSVM line (None if nothing), its smallest and largest feature index
    (-1 without features). The grammar is ``load_svmlight_file``'s: ``#`` starts a comment, the
    label is a number, then an optional ``qid:N``, then ``INDEX:VALUE`` pairs with INDEX an integer
    >= 0, strictly increasing, and VALUE a number."""
    fields = line.split(b"#", 1)[0].split()
    if not fields:
        return None, -1, -1
    try:
        float(fields[0])
    except ValueError:
        return f"the label {_shown(fields[0])} is not a number", -1, -1
    features = fields[1:]
    if features and features[0].startswith(b"qid:"):
        features = features[1:]
    smallest, largest = -1, -1
    for feature in features:
        index_text, colon, value = feature.partition(b":")
        if not colon:
            return f"{_shown(feature)} is not INDEX:VALUE", smallest, largest
        try:
            index = int(index_text)
        except ValueError:
            return f"the feature index {_shown(index_text)} is not an integer", smallest, largest
        if index < 0 or index >= 2**63:
            return f"the feature index {index} is out of range", smallest, largest
        if index <= largest:
            return f"the feature indices are not increasing ({largest}, then {index})", smallest, largest
        try:
            float(value)
        except ValueError:
            return f"the value {_shown(value)} of feature {index} is not a number", smallest, largest
        smallest = index if smallest < 0 else smallest
        largest = index
    return None, smallest, largest


def libsvm_error(path: str | os.PathLike, error: Exception, n_features: int | None = None) -> ValueError:
    """The ValueError for a LIBSVM file that ``load_svmlight_file`` refused with ``error``.

    A scan of the file (on this error path only: the reading itself is sklearn's) names the file,
    the first bad line (1-based) and what is wrong with it; with ``n_features``, the first line
    whose feature index does not fit. Without such a line, ``error`` with the file's name.

    Parameters
    ----------
    path : str or os.PathLike
        The LIBSVM file.
    error : Exception
        What ``load_svmlight_file`` raised.
    n_features : int, optional
        The width asked for.

    Returns
    -------
    ValueError
        The error to raise.
    """
    name = os.fspath(path)
    zero_based = False
    too_wide: dict[bool, tuple[int, int]] = {}  # by zero_based: the first line whose index does not fit
    with _open_binary(path) as handle:
        for number, line in enumerate(handle, start=1):
            problem, smallest, largest = _line_problem(line)
            if problem is not None:
                return ValueError(f"{name}, line {number}: {problem} ({_LIBSVM_LINE})")
            zero_based |= smallest == 0
            if n_features is not None and largest >= 0:
                if largest >= n_features:
                    too_wide.setdefault(True, (number, largest))
                if largest > n_features:
                    too_wide.setdefault(False, (number, largest))
    if zero_based in too_wide:
        number, index = too_wide[zero_based]
        base = "0-based: indices 0 to n_features - 1" if zero_based else "1-based: indices 1 to n_features"
        return ValueError(
            f"{name}, line {number}: the feature index {index} does not fit n_features = {n_features} "
            f"(the file is {base})"
        )
    return ValueError(f"{name}: {error}")


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def load_csv(
    path: str | os.PathLike,
    label_column: int | str = -1,
    *,
    delimiter: str = ",",
    header: bool | None = None,
    sparse: bool = False,
) -> tuple[Matrix, NDArray[np.float64]]:
    """Read a delimited text file: every column but ``label_column`` is a numeric feature.

    ``label_column``: an index (negative counts from the end) or a column name (needs a header).
    ``header``: whether the first row holds names; ``None`` detects it (a non-numeric field).
    Labels may be any two values (strings too); the larger becomes +1.

    Parameters
    ----------
    path : str or os.PathLike
        The delimited text file.
    label_column : int or str, default -1
        The column of the labels.
    delimiter : str, default ","
        The field separator.
    header : bool, optional
        Whether the first row holds names (None: detected).
    sparse : bool, default False
        Return X as CSR (else dense).

    Returns
    -------
    X : scipy.sparse.csr_matrix or ndarray of shape (N, p)
        The features.
    y : ndarray of shape (N,)
        The labels in {-1, +1}.
    """
    with open(path, newline="") as handle:
        rows = [row for row in csv.reader(handle, delimiter=delimiter) if row]
    if not rows:
        raise ValueError(f"path {str(path)!r} holds no data")
    if header is None:
        header = not all(_is_number(field) for field in rows[0])
    names, rows = (rows[0], rows[1:]) if header else (None, rows)
    width = len(rows[0]) if rows else 0
    if not rows or any(len(row) != width for row in rows):
        raise ValueError(f"path {str(path)!r} must hold rows of equal length with at least one data row")
    if isinstance(label_column, str):
        if names is None or label_column not in names:
            raise ValueError(f"label_column {label_column!r} is not a column name of {str(path)!r}")
        label_column = names.index(label_column)
    if not -width <= label_column < width or width < 2:
        raise ValueError(f"label_column must index one of the {width} columns; got {label_column!r}")
    label_column %= width
    table = np.array(rows, dtype=object)
    try:
        X = np.delete(table, label_column, axis=1).astype(np.float64)
    except ValueError as exc:
        raise ValueError(f"the feature columns of {str(path)!r} must be numeric") from exc
    y, _ = binary_labels(np.char.strip(table[:, label_column].astype(str)), name="y")
    return (sp.csr_matrix(X) if sparse else X), y


def split_sizes(n_samples: int) -> tuple[int, int, int]:
    """The thesis's 60/20/20 sizes: train = floor(0.6 N), the rest halved (valid gets the floor).

    This reproduces all six rows of [KG] Table 5.2 from Table 5.1 (docs/math.md#thesis-experiments), e.g.
    48,842 -> 29,305 / 9,768 / 9,769, 72,309 -> 43,385 / 14,462 / 14,462 and 768 -> 460 / 154 / 154
    (valid = floor(0.2 N) would give 14,461 and 153 instead).

    Parameters
    ----------
    n_samples : int
        The number N of examples.

    Returns
    -------
    tuple of int
        ``(train, valid, test)`` sizes.
    """
    if n_samples < 3:
        raise ValueError(f"n_samples must be >= 3 to split into train, valid and test; got {n_samples}")
    train = 6 * n_samples // 10
    valid = (n_samples - train) // 2
    return train, valid, n_samples - train - valid


def thesis_split(X: Matrix, y: NDArray[np.float64], seed: int | None = 0) -> DataSplit:
    """A random 60/20/20 train/valid/test split of (X, y) ([KG] Ch. 5, docs/math.md#thesis-experiments).

    Concatenate the original train and test sets first (as the thesis does); sizes are
    :func:`split_sizes`, the permutation is ``numpy.random.default_rng(seed).permutation(N)``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (N, p)
        The features.
    y : ndarray of shape (N,)
        The labels.
    seed : int, optional
        The seed of the permutation (default 0).

    Returns
    -------
    DataSplit
        The train, valid and test parts.
    """
    X = X.tocsr() if sp.issparse(X) else np.asarray(X)
    n = X.shape[0]
    y = np.asarray(y)
    if y.shape != (n,):
        raise ValueError(f"y must have one label per row of X ({n}); got shape {y.shape}")
    train, valid, _ = split_sizes(n)
    order = np.random.default_rng(seed).permutation(n)
    parts = np.split(order, [train, train + valid])
    return DataSplit(*((X[idx], y[idx]) for idx in parts))


def data_dirs() -> list[Path]:
    """Where named data sets are searched, in order: ``$DUALBOOST_DATA``, then the user cache."""
    dirs = [Path(os.environ["DUALBOOST_DATA"]).expanduser()] if os.environ.get("DUALBOOST_DATA") else []
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return [*dirs, Path(cache).expanduser() / "dualboost"]


def _find(filename: str) -> Path | None:
    for directory in data_dirs():
        if (directory / filename).is_file():
            return directory / filename
    return None


def download_file(filename: str, directory: Path, timeout: float = DOWNLOAD_TIMEOUT) -> Path:
    """Fetch ``LIBSVM_URL + filename`` into ``directory`` (atomically); raises ``OSError`` on failure.

    Parameters
    ----------
    filename : str
        The file's name on the LIBSVM site.
    directory : Path
        The folder it is saved in.
    timeout : float, default DOWNLOAD_TIMEOUT
        The network timeout in seconds.

    Returns
    -------
    Path
        The file written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=directory, prefix=f".{filename}.", delete=False) as tmp:
        partial = Path(tmp.name)
        try:
            with urllib.request.urlopen(LIBSVM_URL + filename, timeout=timeout) as response:
                shutil.copyfileobj(response, tmp)
        except BaseException:
            tmp.close()
            partial.unlink(missing_ok=True)
            raise
    return partial.replace(directory / filename)


def _locate(filenames: tuple[str, ...], name: str, allow_download: bool) -> list[Path]:
    """Paths of ``filenames``, downloading the missing ones into the cache when allowed."""
    found = {f: _find(f) for f in filenames}
    missing = [f for f, path in found.items() if path is None]
    reason = "downloading is disabled (download=False)"
    if missing and allow_download:
        try:
            found.update({f: download_file(f, data_dirs()[-1]) for f in missing})
            missing = []
        except OSError as exc:
            reason = f"the download from {LIBSVM_URL} failed ({exc})"
    if not missing:
        return [found[f] for f in filenames]
    where = " or ".join(str(d) for d in data_dirs())
    env = os.environ.get("DUALBOOST_DATA")
    raise DatasetNotFoundError(
        f"data set {name!r} not found: put {', '.join(missing)} (from {LIBSVM_URL}) in {where}"
        f" (DUALBOOST_DATA is {'set to ' + repr(env) if env else 'unset'}); {reason}"
    )


def load_dataset(
    name: str, *, seed: int | None = 0, sparse: bool | None = None, download: bool = True
) -> DataSplit:
    """A named data set of [KG] Table 5.1 as its train/valid/test :class:`DataSplit`.

    ``name``: ``a9a`` (alias ``adult9``), ``german.numer`` (alias ``german``) or ``diabetes``.
    ``seed``: the seed of :func:`thesis_split` (unused for a9a when its shipped split is found).
    ``sparse``: CSR (True) or dense (False); ``None`` keeps each set's natural format (a9a sparse).

    Parameters
    ----------
    name : str
        The data set's name or alias.
    seed : int, optional
        The seed of the split (default 0).
    sparse : bool, optional
        CSR (True), dense (False) or the set's natural format (None).
    download : bool, default True
        Fetch a missing file from the LIBSVM site.

    Returns
    -------
    DataSplit
        The train, valid and test parts.
    """
    key = _ALIASES.get(name, name)
    if key not in DATASETS:
        raise ValueError(f"name must be one of {sorted([*DATASETS, *_ALIASES])}; got {name!r}")
    spec = DATASETS[key]
    as_sparse = spec.sparse if sparse is None else sparse
    if spec.presplit is not None and all(_find(f) for f in spec.presplit):
        parts = [load_libsvm(_find(f), sparse=as_sparse, n_features=spec.n_features) for f in spec.presplit]
        return DataSplit(*parts)
    parts = [
        load_libsvm(path, sparse=as_sparse, n_features=spec.n_features)
        for path in _locate(spec.files, key, download)
    ]
    stack = sp.vstack if as_sparse else np.vstack
    return thesis_split(stack([X for X, _ in parts]), np.concatenate([y for _, y in parts]), seed)
