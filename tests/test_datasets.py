"""dualboost.datasets: readers, the named sets, the thesis's split ([KG] Ch. 5).

The split sizes of [KG] Table 5.2 follow from Table 5.1 by the 60/20/20 rule, and the canonical
eta (dualboost.problems.erlpboost_eta) reproduces every eta of Tables 5.10-5.12 from the train size,
nu/N and epsilon. No test uses the network.
"""

from __future__ import annotations

import gzip
import re

import numpy as np
import pytest
import scipy.sparse as sp

from dualboost import datasets
from dualboost.datasets import (
    DatasetNotFoundError,
    load_csv,
    load_dataset,
    load_libsvm,
    split_sizes,
    thesis_split,
)
from dualboost.problems import erlpboost_eta
from tests.environment import DATA_DIR, requires_data

DATA = DATA_DIR
needs_data = requires_data("a9a.train", "a9a.valid", "a9a.test", "german.numer", "diabetes")

# [KG] Table 5.1 (train + test sizes before processing) and Table 5.2 (after the 60/20/20 split)
TABLE_5_1 = {
    "news20": 19_996,
    "real-sim": 72_309,
    "astro-ph": 62_369 + 32_487,
    "a9a": 32_561 + 16_281,
    "german": 1_000,
    "diabetes": 768,
}
TABLE_5_2 = {
    "news20": (11_997, 3_999, 4_000),
    "real-sim": (43_385, 14_462, 14_462),
    "astro-ph": (56_913, 18_971, 18_972),
    "a9a": (29_305, 9_768, 9_769),
    "german": (600, 200, 200),
    "diabetes": (460, 154, 154),
}
COLUMNS = ["astro-ph", "news20", "real-sim", "a9a", "german", "diabetes"]
# [KG] Tables 5.10-5.12, verbatim: "nu/N, eta" per algorithm and data set (* = epsilon 0.01)
TABLES_5_10_TO_5_12 = """
stumps erlp     | 0, 21899  | .2, 3219  | 0, 21356  | .3, 2408  | .5, 139 *  | 0, 12262
stumps bin      | .1, 6605  | 0, 20785  | 0, 23356  | .2, 5219  | .5, 3386   | 0, 14262
stumps corr     | 0, 21899  | 0, 18785  | 0, 21356  | 0, 20571  | .4, 1833   | 0, 12262
stumps corrbin  | 0, 23899  | 0, 20785  | 0, 23356  | .1, 6605  | .5, 339 *  | 0, 14262
raw erlp        | .1, 4605  | .1, 4605  | .1, 4605  | .2, 3219  | 0, 1279 *  | .6, 1022
raw bin         | .1, 6605  | .2, 5219  | .1, 6605  | .2, 5219  | .2, 5219   | .6, 3022
raw corr        | 0, 21899  | 0, 18785  | .1, 4605  | 0, 20571  | .3, 241 *  | .3, 241 *
raw corrbin     | 0, 23899  | 0, 20785  | 0, 23356  | .3, 4408  | .2, 5219   | .6, 3022
svm erlp        | .1, 4605  | .1, 4605  | 0, 21356  | 0, 20571  | 0, 1.27e6  | .4, 1833
svm bin         | .1, 6.6e5 | .2, 5.2e5 | .1, 6.6e5 | .3, 4408  | 0, 1.48e6  | 0, 1.4e6
svm corr        | 0, 21899  | 0, 18785  | 0, 21356  | 0, 2.06e6 | 0, 1.28e6  | .4, 1833
svm corrbin     | 0, 23899  | 0, 20785  | 0, 23356  | 0, 2.26e6 | 0, 1.48e6  | .5, 3386
"""


def table_entries():
    for line in TABLES_5_10_TO_5_12.strip().splitlines():
        label, *cells = (part.strip() for part in line.split("|"))
        for column, cell in zip(COLUMNS, cells, strict=True):
            ratio, eta_text = (part.strip() for part in cell.split(","))
            yield f"{label} {column}", column, float(ratio), eta_text, "bin" in label


@pytest.mark.parametrize("name", TABLE_5_1)
def test_e18_split_sizes_reproduce_table_5_2(name):
    assert split_sizes(TABLE_5_1[name]) == TABLE_5_2[name]


@pytest.mark.parametrize("entry", list(table_entries()), ids=lambda e: e[0])
def test_e18_canonical_eta_reproduces_tables_5_10_to_5_12(entry):
    _, column, ratio, eta_text, binary = entry
    n_train = split_sizes(TABLE_5_1[column])[0]
    nu = 1.0 if ratio == 0 else ratio * n_train  # nu/N = 0 means nu = 1
    mantissa = eta_text.removesuffix("*").strip()
    printed = float(mantissa)
    if eta_text.endswith("*"):
        eps = 0.01
    elif printed >= 1e5:
        eps = 1e-5  # the 1e5-1e6 entries of Table 5.12 (docs/math.md#erratum-kg-17)
    else:
        eps = 1e-3
    eta = erlpboost_eta(n_train, nu, eps, binary=binary)
    if "e" in mantissa:  # 2-3 significant digits, rounded or truncated: within one unit of the last
        digits = mantissa.split("e")[0].replace(".", "").lstrip("0")
        unit = 10.0 ** (int(mantissa.split("e")[1]) - (len(digits) - 1))
        assert abs(eta - printed) < unit, (eta, printed)
    else:  # rounded to an integer
        assert abs(eta - printed) <= 0.5 + 1e-9, (eta, printed)


def test_thesis_split_is_a_seeded_partition():
    X = np.arange(40.0).reshape(20, 2)
    y = np.where(np.arange(20) % 3 == 0, 1.0, -1.0)
    a, b, c = thesis_split(X, y, seed=1)
    assert [len(part[1]) for part in (a, b, c)] == [12, 4, 4]
    rows = np.concatenate([a[0][:, 0], b[0][:, 0], c[0][:, 0]]) // 2
    assert sorted(rows) == list(range(20))
    for X_part, y_part in (a, b, c):
        np.testing.assert_array_equal(y_part, y[(X_part[:, 0] // 2).astype(int)])
    again = thesis_split(sp.csr_matrix(X), y, seed=1)
    np.testing.assert_array_equal(again.train[0].toarray(), a[0])
    assert not np.array_equal(thesis_split(X, y, seed=2).train[0], a[0])
    with pytest.raises(ValueError, match="y"):
        thesis_split(X, y[:5])
    with pytest.raises(ValueError, match="n_samples"):
        split_sizes(2)


def test_load_libsvm_dense_sparse_and_labels(tmp_path):
    path = tmp_path / "toy.libsvm"
    path.write_text("2 1:0.5 3:-1\n1 2:2\n2 1:1.5\n")
    X, y = load_libsvm(path)
    assert sp.issparse(X) and X.shape == (3, 3)
    np.testing.assert_array_equal(y, [1.0, -1.0, 1.0])  # labels 1 < 2: 2 is +1
    Xd, _ = load_libsvm(path, sparse=False, n_features=5)
    np.testing.assert_array_equal(Xd, [[0.5, 0, -1, 0, 0], [0, 2, 0, 0, 0], [1.5, 0, 0, 0, 0]])
    path.write_text("1 1:1\n2 1:2\n3 1:3\n")
    with pytest.raises(ValueError, match=r"the labels of .*toy\.libsvm must have exactly two classes"):
        load_libsvm(path)


@pytest.mark.parametrize(
    "text, line, problem",
    [
        ("1 1:0.5 2:1\n-1 1:0.2\ngarbage\n", 3, "the label 'garbage' is not a number"),
        ("# a comment\n\n1 1:0.5\n-1 2:abc\n", 4, "the value 'abc' of feature 2 is not a number"),
        ("1 1:1\n-1 a:1\n", 2, "the feature index 'a' is not an integer"),
        ("1 1:1\n-1 1.5:1\n", 2, "the feature index '1.5' is not an integer"),
        ("1 3:1 2:1\n", 1, r"the feature indices are not increasing \(3, then 2\)"),
        ("1 2:1 2:1\n", 1, r"the feature indices are not increasing \(2, then 2\)"),
        ("1 1:1\n-1 2\n", 2, "'2' is not INDEX:VALUE"),
        ("1 1:1\n-1 -1:2\n", 2, "the feature index -1 is out of range"),
        ("1 1:1\n-1 99999999999999999999:2\n", 2, "the feature index 99999999999999999999 is out of range"),
        ("1 qid:2 1:1\n-1 qid:2 1:\n", 2, "the value '' of feature 1 is not a number"),
    ],
)
def test_malformed_libsvm_line_names_file_and_line(tmp_path, text, line, problem):
    """A garbage line gave "could not convert string to float: b'garbage'" with no file
    and no line. The message names both (the line 1-based) and what is wrong."""
    path = tmp_path / "bad.libsvm"
    path.write_text(text)
    with pytest.raises(ValueError, match=rf"^{re.escape(str(path))}, line {line}: {problem} \(a line is"):
        load_libsvm(path)


def test_malformed_compressed_libsvm_and_n_features(tmp_path):
    """A .gz file is scanned as sklearn reads it; a feature index beyond n_features names its line."""
    gz = tmp_path / "bad.libsvm.gz"
    with gzip.open(gz, "wb") as handle:
        handle.write(b"1 1:1\n-1 2:1\n1 x:1\n")
    with pytest.raises(ValueError, match=rf"{re.escape(str(gz))}, line 3: the feature index 'x'"):
        load_libsvm(gz)
    wide = tmp_path / "wide.libsvm"
    wide.write_text("1 1:1\n-1 2:1 7:1\n1 9:2\n")
    message = r"wide\.libsvm, line 2: the feature index 7 does not fit n_features = 5 \(the file is 1-based"
    with pytest.raises(ValueError, match=message):
        load_libsvm(wide, n_features=5)
    assert load_libsvm(wide, n_features=9)[0].shape == (3, 9)
    zero = tmp_path / "zero.libsvm"
    zero.write_text("1 0:1 4:1\n-1 5:1\n")
    with pytest.raises(
        ValueError, match=r"line 2: the feature index 5 does not fit n_features = 5 \(the file is 0-based"
    ):
        load_libsvm(zero, n_features=5)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_features must be a positive integer or None"):
            load_libsvm(wide, n_features=bad)


def test_libsvm_error_keeps_sklearn_message_without_a_bad_line(tmp_path):
    path = tmp_path / "fine.libsvm"
    path.write_text("1 1:1\n-1 2:1\n")
    error = datasets.libsvm_error(path, ValueError("something else"))
    assert str(error) == f"{path}: something else"


def test_load_csv_with_header_names_and_string_labels(tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("a,label,b\n1.0,no,2\n3,yes,4\n-1,no,0\n")
    X, y = load_csv(path, label_column="label")
    np.testing.assert_array_equal(X, [[1, 2], [3, 4], [-1, 0]])
    np.testing.assert_array_equal(y, [-1, 1, -1])
    X2, y2 = load_csv(path, label_column=1, sparse=True)
    assert sp.issparse(X2) and np.array_equal(X2.toarray(), X) and np.array_equal(y2, y)
    headless = tmp_path / "plain.csv"
    headless.write_text("1;2;-1\n3;4;1\n")
    X3, y3 = load_csv(headless, delimiter=";")
    np.testing.assert_array_equal(X3, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(y3, [-1, 1])
    with pytest.raises(ValueError, match="label_column"):
        load_csv(path, label_column="nope")
    with pytest.raises(ValueError, match="label_column"):
        load_csv(path, label_column=3)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,x,1\n2,y,-1\n")
    with pytest.raises(ValueError, match="numeric"):
        load_csv(bad)


def test_offline_message_names_the_file_and_the_directories(tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("DUALBOOST_DATA", str(empty))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    calls = []

    def offline(filename, directory, timeout=0):
        calls.append(filename)
        raise OSError("network is unreachable")

    monkeypatch.setattr(datasets, "download_file", offline)
    with pytest.raises(DatasetNotFoundError) as info:
        load_dataset("german")
    message = str(info.value)
    assert "german.numer" in message and str(empty) in message
    assert str(tmp_path / "cache" / "dualboost") in message and "network is unreachable" in message
    assert calls == ["german.numer"]
    with pytest.raises(DatasetNotFoundError, match="a9a, a9a.t"):
        load_dataset("a9a", download=False)
    assert calls == ["german.numer"]  # download=False never calls it
    with pytest.raises(ValueError, match="name"):
        load_dataset("mnist")


def test_downloaded_files_go_to_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("DUALBOOST_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def fake_download(filename, directory, timeout=0):
        directory.mkdir(parents=True, exist_ok=True)
        rows = "\n".join(f"{'+1' if i % 2 else '-1'} 1:{i} 8:{i % 3}" for i in range(10))
        (directory / filename).write_text(rows + "\n")
        return directory / filename

    monkeypatch.setattr(datasets, "download_file", fake_download)
    split = load_dataset("diabetes", seed=3)
    assert [len(y) for _, y in split] == [6, 2, 2]
    assert isinstance(split.train[0], np.ndarray) and split.train[0].shape[1] == 8
    assert (tmp_path / "dualboost" / "diabetes").is_file()


@needs_data
def test_named_sets_from_the_shared_folder(monkeypatch):
    monkeypatch.setenv("DUALBOOST_DATA", str(DATA))
    monkeypatch.setattr(datasets, "download_file", lambda *a, **k: pytest.fail("no download expected"))
    a9a = load_dataset("a9a")
    assert [X.shape for X, _ in a9a] == [(29_305, 123), (9_768, 123), (9_769, 123)]
    assert all(sp.issparse(X) for X, _ in a9a) and set(np.unique(a9a.train[1])) == {-1.0, 1.0}
    german = load_dataset("german", seed=0)
    assert [X.shape for X, _ in german] == [(600, 24), (200, 24), (200, 24)]
    diabetes = load_dataset("diabetes", seed=0, sparse=True)
    assert [X.shape[0] for X, _ in diabetes] == [460, 154, 154] and sp.issparse(diabetes.test[0])
    np.testing.assert_array_equal(load_dataset("diabetes", seed=0).valid[1], diabetes.valid[1])
