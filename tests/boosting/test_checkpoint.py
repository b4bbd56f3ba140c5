"""Checkpoints (:mod:`dualboost.boosting.core.checkpoint`).

* a run killed with SIGKILL in a subprocess, after its checkpoint file appeared, and resumed,
  ends exactly as an uninterrupted run: the same hypotheses, w to 1e-10, the same history rows
  except the times (the independent computation is the uninterrupted run in this process);
* every driver, the estimators and the CLI resume to the uninterrupted result (interrupted by an
  exception from the progress callback after a checkpoint);
* a corrupt, truncated or foreign checkpoint (other data, oracle, algorithm, parameters, format
  version) is a ValueError that says so, never a fresh start;
* atomicity: a failure between writing the temporary file and renaming it, or while writing it,
  leaves the previous checkpoint valid (and resumable) and no temporary file behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import warnings
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier

from dualboost import cli
from dualboost.boosting import boost
from dualboost.boosting.core.checkpoint import FORMAT, VERSION, fingerprint, read_header
from dualboost.estimators import CorrectiveERLPBoostClassifier, ERLPBoostClassifier
from dualboost.oracles import DecisionStumps, RawFeatures, SklearnOracle

#: history columns that must agree exactly (the times of a resumed run differ)
COMPARED = ("iteration", "edge", "primal", "dual", "gap", "stopping", "n_hypotheses")
#: the weights of a resumed run equal the uninterrupted ones to this (bit-identical in practice:
#: the same operations on the same floats; the bound allows a different BLAS blocking)
W_TOL = 1e-10

#: the data of the subprocess and of the in-process runs (the subprocess rebuilds it from this)
DATA_CODE = (
    "from sklearn.datasets import make_classification\n"
    "X, y = make_classification(n_samples=240, n_features=8, n_informative=4, flip_y=0.1, "
    "random_state=3)\n"
)


def data():
    scope: dict = {}
    exec(DATA_CODE, scope)  # noqa: S102 - the same data as the subprocess
    return scope["X"], scope["y"]


CASES = {
    "lpboost": {"nu": 24.0, "eps": 0.02, "max_iter": 30},
    "softboost": {"nu": 24.0, "eps": 0.05},
    "erlpboost": {"nu": 24.0, "eps": 0.02},
    "binary_erlpboost": {"nu": 24.0, "eps": 0.02},
    "corrective_erlpboost": {"nu": 24.0, "eps": 0.05, "max_iter": 150},
    "corrective_binary_erlpboost": {"nu": 24.0, "eps": 0.05, "max_iter": 150},
    "adaboost": {"max_iter": 40},
    "mdboost": {"D": 2.0, "eps": 0.001},
    "cgboost": {"C": 1.0, "eps": 0.01},
    "nmboost": {"lam": 0.01, "tau": 0.01, "eps": 0.01},
    "qrlpboost": {"nu": 24.0, "eps": 0.05},
}


class Interrupt(Exception):
    """Raised by the progress callback to stop a run (a kill without losing the process)."""


def interrupt_at(iteration: int):
    def callback(row):
        if row.iteration == iteration:
            raise Interrupt

    return callback


def run(algorithm, oracle, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return boost(algorithm, oracle, **params)


def assert_same_result(resumed, reference):
    assert resumed.hypotheses == reference.hypotheses
    assert resumed.weights.shape == reference.weights.shape
    np.testing.assert_allclose(resumed.weights, reference.weights, rtol=0, atol=W_TOL)
    np.testing.assert_allclose(resumed.d, reference.d, rtol=0, atol=W_TOL)
    assert len(resumed.history) == len(reference.history)
    for column in COMPARED:
        np.testing.assert_array_equal(resumed.history[column], reference.history[column])
    assert (resumed.converged, resumed.stop_reason) == (reference.converged, reference.stop_reason)
    np.testing.assert_array_equal(resumed.columns, reference.columns)


# -- kill -9 in a subprocess ------------------------------------------------------------------------

KILLED_RUN = (
    DATA_CODE
    + """
import sys, time, warnings
from dualboost.boosting import boost
from dualboost.oracles import DecisionStumps
warnings.simplefilter("ignore")
algorithm, path, params = sys.argv[1], sys.argv[2], eval(sys.argv[3])
boost(algorithm, DecisionStumps().fit(X, y), checkpoint=path, checkpoint_every=3,
      callback=lambda row: time.sleep(0.05), **params)
print("finished")
"""
)


@pytest.mark.parametrize("algorithm", ["erlpboost", "corrective_binary_erlpboost"])
def test_sigkill_then_resume_equals_uninterrupted_run(algorithm, tmp_path):
    X, y = data()
    params = CASES[algorithm]
    reference = run(algorithm, DecisionStumps().fit(X, y), **params)
    assert reference.n_iter > 12  # long enough to be killed mid-way
    path = tmp_path / "run.ckpt"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED_RUN, algorithm, str(path), repr(params)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 40
        saved = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists():
                saved = read_header(path)["iteration"]
                if saved >= 6:
                    break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()  # killed, not finished
    assert 6 <= saved < reference.n_iter
    resumed = run(algorithm, DecisionStumps().fit(X, y), checkpoint=path, checkpoint_every=3, resume=True,
                  **params)  # fmt: skip
    assert_same_result(resumed, reference)
    assert read_header(path)["iteration"] >= saved  # the resumed run went on saving


# -- every driver, the estimators, the CLI ---------------------------------------------------------


@pytest.mark.parametrize("algorithm", list(CASES))
def test_every_driver_resumes_to_the_uninterrupted_result(algorithm, tmp_path):
    X, y = data()
    params = CASES[algorithm]
    reference = run(algorithm, DecisionStumps().fit(X, y), **params)
    path = tmp_path / f"{algorithm}.ckpt"
    stop = reference.n_iter // 2 + 2
    with pytest.raises(Interrupt):
        run(algorithm, DecisionStumps().fit(X, y), checkpoint=path, checkpoint_every=4,
            callback=interrupt_at(stop), **params)  # fmt: skip
    header = read_header(path)
    assert header["iteration"] == 4 * ((stop - 1) // 4)  # the last multiple of 4 completed
    resumed = run(algorithm, DecisionStumps().fit(X, y), checkpoint=path, checkpoint_every=4, resume=True,
                  **params)  # fmt: skip
    assert_same_result(resumed, reference)


def test_sparse_raw_features_resume(tmp_path):
    """Float64 columns (raw features of sparse data), ERLPBoost with warm starts."""
    rng = np.random.default_rng(5)
    X = sp.random(300, 400, density=0.05, format="csr", random_state=rng)
    y = np.where(X[:, :20] @ rng.standard_normal(20) + 0.05 * rng.standard_normal(300) > 0, 1, -1)
    params = {"nu": 30.0, "eps": 0.05}
    reference = run("erlpboost", RawFeatures().fit(X, y), **params)
    assert reference.columns.dtype == np.float64 and reference.n_iter > 6
    path = tmp_path / "raw.ckpt"
    with pytest.raises(Interrupt):
        run("erlpboost", RawFeatures().fit(X, y), checkpoint=path, checkpoint_every=2,
            callback=interrupt_at(reference.n_iter - 2), **params)  # fmt: skip
    resumed = run("erlpboost", RawFeatures().fit(X, y), checkpoint=path, checkpoint_every=2, resume=True,
                  **params)  # fmt: skip
    assert_same_result(resumed, reference)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("estimator", [ERLPBoostClassifier, CorrectiveERLPBoostClassifier])
def test_estimator_resumes(estimator, tmp_path):
    X, y = data()
    reference = estimator(nu=0.1, eps=0.05, max_iter=60).fit(X, y)
    path = tmp_path / "estimator.ckpt"
    killed = estimator(nu=0.1, eps=0.05, max_iter=60, checkpoint=str(path), checkpoint_every=5)
    killed.fit(X, y)  # runs to the end, leaving the checkpoint of the last multiple of 5
    assert 5 * ((reference.n_iter_ - 1) // 5) <= read_header(path)["iteration"] <= reference.n_iter_
    resumed = estimator(nu=0.1, eps=0.05, max_iter=60, checkpoint=str(path), checkpoint_every=5, resume=True)
    resumed.fit(X, y)
    assert resumed.hypotheses_ == reference.hypotheses_
    np.testing.assert_allclose(resumed.estimator_weights_, reference.estimator_weights_, atol=W_TOL, rtol=0)
    np.testing.assert_array_equal(resumed.history_["stopping"], reference.history_["stopping"])
    np.testing.assert_array_equal(resumed.predict(X), reference.predict(X))


def test_cli_checkpoint_and_resume(tmp_path, capsys):
    X, y = data()
    train = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(train))
    path, h1, h2 = tmp_path / "cli.ckpt", tmp_path / "h1.csv", tmp_path / "h2.csv"
    common = ["boost", str(train), "--algorithm", "erlpboost", "--nu", "0.1", "--eps", "0.05", "--quiet"]
    assert (
        cli.main(common + ["--checkpoint", str(path), "--checkpoint-every", "4", "--history", str(h1)]) == 0
    )
    first = capsys.readouterr().out
    assert path.exists() and read_header(path)["iteration"] % 4 == 0
    assert cli.main(common + ["--checkpoint", str(path), "--resume", "--history", str(h2)]) == 0
    second = capsys.readouterr().out
    for label in ("iterations", "hypotheses", "train error", "stopped"):
        line = [s for s in first.splitlines() if s.strip().startswith(label)]
        assert line and line[0] in second
    rows1 = [r.split(",")[:6] for r in h1.read_text().splitlines()]
    rows2 = [r.split(",")[:6] for r in h2.read_text().splitlines()]
    assert rows1 == rows2
    # errors: --resume without --checkpoint, and a foreign checkpoint
    assert cli.main(common + ["--resume"]) == 1
    assert "--resume needs --checkpoint" in capsys.readouterr().err
    other = common[:3] + ["corrective_erlpboost"] + common[4:]
    assert cli.main(other + ["--checkpoint", str(path), "--resume"]) == 1
    assert "written by 'erlpboost'" in capsys.readouterr().err


def test_cli_resume_on_other_data_says_so(tmp_path, capsys):
    """Resuming on other data was once reported as "other parameters (... eta 921.03 vs ...)"."""
    X, y = data()
    first, other = tmp_path / "first.svm", tmp_path / "other.svm"
    dump_svmlight_file(X, y, str(first))
    dump_svmlight_file(X[:200], y[:200], str(other))
    path = tmp_path / "cli.ckpt"
    options = ["--nu", "0.1", "--eps", "0.05", "--max-iter", "4", "--quiet", "--checkpoint", str(path)]
    assert cli.main(["boost", str(first), *options, "--checkpoint-every", "2"]) == 0
    assert cli.main(["boost", str(other), *options, "--resume"]) == 1
    err = capsys.readouterr().err
    assert (
        "written for other data (240 examples x 8 features in the file, 200 examples x 8 features now)" in err
    )
    assert "other parameters" not in err and "Traceback" not in err


# -- corrupt and foreign checkpoints ---------------------------------------------------------------


@pytest.fixture()
def saved(tmp_path):
    """A checkpoint of ERLPBoost after 4 iterations, and how to resume it."""
    X, y = data()
    path = tmp_path / "run.ckpt"
    params = {"nu": 24.0, "eps": 0.02}
    with pytest.raises(Interrupt):
        run("erlpboost", DecisionStumps().fit(X, y), checkpoint=path, checkpoint_every=4,
            callback=interrupt_at(6), **params)  # fmt: skip

    def resume(algorithm="erlpboost", oracle=None, **changes):
        oracle = DecisionStumps().fit(X, y) if oracle is None else oracle
        return run(algorithm, oracle, checkpoint=path, resume=True, **(params | changes))

    return path, resume, (X, y)


def test_valid_checkpoint_header(saved):
    path, _, (X, y) = saved
    header = read_header(path)
    assert (header["format"], header["version"], header["iteration"]) == (FORMAT, VERSION, 4)
    assert header["fingerprint"] == fingerprint(DecisionStumps().fit(X, y))
    assert len(header["hypotheses"]) == len(header["columns"]) >= 1


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda b: b[: len(b) // 2], "is corrupt or not a dualboost checkpoint: a truncated or damaged"),
        (lambda b: b[:200], "is corrupt or not a dualboost checkpoint: a truncated or damaged"),
        (lambda b: b"", r"is not a dualboost checkpoint \(an empty file\)"),
        (lambda b: b"not a checkpoint at all" * 10, r"is not a dualboost checkpoint \(not a zip archive"),
        (lambda b: b"garbage" * 10, r"is not a dualboost checkpoint \(not a zip archive"),
    ],
)
def test_truncated_or_garbage_file(saved, damage, message):
    """The message names the file and says what it is in our words: no advice of numpy's (once:
    garbage bytes were reported with numpy's "load it unsafely using allow_pickle")."""
    path, resume, _ = saved
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ValueError, match=message) as info:
        resume()
    assert repr(str(path)) in str(info.value)
    assert "pickle" not in str(info.value) and "unsafe" not in str(info.value)


def test_pickled_data_is_not_a_checkpoint(tmp_path):
    """A .npy of Python objects, and an .npz archive holding one: refused unread, in our words."""
    X, y = data()
    oracle = DecisionStumps().fit(X, y)
    npy, npz = tmp_path / "pickled.ckpt", tmp_path / "objects.ckpt"
    with open(npy, "wb") as handle:
        np.save(handle, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with open(npz, "wb") as handle:
        np.savez(handle, header=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ValueError, match=r"'.*pickled.ckpt' is not a dualboost checkpoint") as info:
        run("erlpboost", oracle, checkpoint=npy, resume=True)
    assert "allow_pickle" not in str(info.value)
    with pytest.raises(ValueError, match="not a dualboost checkpoint: it holds Python objects") as info:
        run("erlpboost", oracle, checkpoint=npz, resume=True)
    assert "allow_pickle" not in str(info.value) and "unsafe" not in str(info.value)


def test_flipped_byte_is_detected(saved):
    """A flipped byte in a stored array fails the zip CRC check."""
    path, resume, _ = saved
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("state.d.npy")
    raw = bytearray(path.read_bytes())
    position = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200  # inside the data
    raw[position] ^= 0xFF
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="corrupt"):
        resume()


def _rewrite(path, change):
    """Rewrite the header of a checkpoint through ``change(header)`` (a foreign or future file)."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    header = json.loads(arrays["header"].tobytes())
    change(header)
    arrays["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda h: h.update(version=VERSION + 1), "format version"),
        (lambda h: h.update(format="something-else"), "not a dualboost checkpoint"),
        (lambda h: h["columns"].__setitem__(0, "0" * 16), "columns on the training data differ"),
        (lambda h: h["hypotheses"][0].update({"class": "Evil"}), "unknown class 'Evil'"),
        (lambda h: h.pop("state"), "corrupt"),
    ],
)
def test_foreign_or_damaged_header(saved, change, message):
    path, resume, _ = saved
    _rewrite(path, change)
    with pytest.raises(ValueError, match=message):
        resume()


def test_other_data_oracle_algorithm_or_parameters(saved):
    path, resume, (X, y) = saved
    same_shape = r"written for other data \(the same shape, 240 examples x 8 features, but other values"
    with pytest.raises(ValueError, match=same_shape):
        resume(oracle=DecisionStumps().fit(X, -y))
    with pytest.raises(ValueError, match=same_shape):
        resume(oracle=DecisionStumps().fit(X[:, ::-1], y))
    with pytest.raises(ValueError, match=r"another oracle \(DecisionStumps\(\) in the file, RawFeatures"):
        resume(oracle=RawFeatures().fit(X, y))
    with pytest.raises(ValueError, match="written by 'erlpboost', not 'binary_erlpboost'"):
        resume("binary_erlpboost")
    with pytest.raises(ValueError, match=r"other parameters \(eps 0.02 in the file, 0.03 now"):
        resume(eps=0.03)
    with pytest.raises(ValueError, match="other parameters"):
        resume(max_iter=500)
    assert read_header(path)["iteration"] == 4  # the refused resumes did not touch the file


def test_other_data_is_reported_before_the_parameters(saved):
    """Resuming on other data was once reported as "other parameters (... eta ...)", because nu
    and eta are derived from N. The data are compared first, and said to differ."""
    _, resume, (X, y) = saved
    message = (
        r"written for other data \(240 examples x 8 features in the file, 200 examples x 8 features now\)"
    )
    with pytest.raises(ValueError, match=message):
        resume(oracle=DecisionStumps().fit(X[:200], y[:200]), nu=20.0)
    with pytest.raises(
        ValueError, match=r"other data \(240 examples x 8 features in the file, 240 examples x 5"
    ):
        resume("binary_erlpboost", oracle=RawFeatures().fit(X[:, :5], y), eps=0.5)


def test_a_header_without_the_data_digest_is_still_checked(saved):
    """A checkpoint written before the header recorded the data and the oracle apart: the combined
    fingerprint still refuses other data or another oracle."""
    path, resume, (X, y) = saved
    _rewrite(path, lambda h: [h.pop(key) for key in ("data", "oracle", "n_features")])
    with pytest.raises(ValueError, match="other training data or another oracle"):
        resume(oracle=DecisionStumps().fit(X, -y))
    with pytest.raises(ValueError, match="other training data or another oracle"):
        resume(oracle=RawFeatures().fit(X, y))
    reference = run("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02)
    assert_same_result(resume(), reference)


def test_unwritable_directory_is_refused_before_fitting(tmp_path, capsys):
    """A checkpoint in a directory that cannot be written failed at the first checkpoint,
    naming a temporary file. It is refused before the first iteration, naming the directory, by the
    drivers, the classifiers and the CLI. (Tests run as root, where permission bits do not stop a
    write: the directories here are a regular file and a missing one.)"""
    X, y = data()
    regular = tmp_path / "file"
    regular.write_text("")
    rows = []
    for directory, reason in (
        (regular, "a part of it is not a directory"),
        (tmp_path / "no", "does not exist"),
    ):
        path = directory / "run.ckpt"
        message = rf"directory not writable: {re.escape(repr(str(directory)))} \(.*{reason}"
        with pytest.raises(ValueError, match=message):
            run("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02, checkpoint=path,
                checkpoint_every=1, callback=rows.append)  # fmt: skip
        assert rows == []  # not one iteration ran
        clf = ERLPBoostClassifier(nu=0.1, eps=0.05, checkpoint=str(path), checkpoint_every=1)
        with pytest.raises(ValueError, match=message):
            clf.fit(X, y)
        assert not hasattr(clf, "n_iter_")
    train = tmp_path / "train.svm"
    dump_svmlight_file(X, y, str(train))
    argv = ["boost", str(train), "--eps", "0.05", "--quiet", "--checkpoint", str(regular / "run.ckpt")]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert f"directory not writable: {str(regular)!r}" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "train.svm"]  # no probe file left


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes in any directory")
def test_read_only_directory_is_refused(tmp_path):
    X, y = data()
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(ValueError, match=rf"directory not writable: {re.escape(repr(str(locked)))}"):
            run("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02, checkpoint=locked / "r.ckpt")
    finally:
        locked.chmod(0o700)


def test_missing_file_and_bad_arguments(tmp_path):
    X, y = data()
    oracle = DecisionStumps().fit(X, y)
    with pytest.raises(ValueError, match="does not exist: nothing to resume"):
        run("erlpboost", oracle, checkpoint=tmp_path / "none.ckpt", resume=True)
    with pytest.raises(ValueError, match="resume=True needs checkpoint=PATH"):
        run("erlpboost", oracle, resume=True)
    with pytest.raises(ValueError, match="checkpoint_every must be a positive integer"):
        run("erlpboost", oracle, checkpoint=tmp_path / "x.ckpt", checkpoint_every=0)
    with pytest.raises(ValueError, match="is a directory"):
        run("erlpboost", oracle, checkpoint=tmp_path)
    with pytest.raises(ValueError, match="keep_iterates=True cannot be combined"):
        run("erlpboost", oracle, checkpoint=tmp_path / "x.ckpt", keep_iterates=True)
    np.save(tmp_path / "pickled.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    os.replace(tmp_path / "pickled.npy", tmp_path / "pickled.ckpt")
    with pytest.raises(ValueError, match="not a dualboost checkpoint"):
        run("erlpboost", oracle, checkpoint=tmp_path / "pickled.ckpt", resume=True)


def test_unsupported_hypotheses_say_so(tmp_path):
    X, y = data()
    oracle = SklearnOracle(DecisionTreeClassifier(max_depth=1, random_state=0)).fit(X, y)
    with pytest.raises(ValueError, match="FittedEstimator cannot be saved"):
        run("adaboost", oracle, max_iter=5, checkpoint=tmp_path / "t.ckpt", checkpoint_every=1)


# -- atomicity -------------------------------------------------------------------------------------


def test_failure_before_rename_keeps_previous_checkpoint(saved, monkeypatch):
    """Simulates a kill between the temporary file's fsync and the rename."""
    path, resume, (X, y) = saved
    before = path.read_bytes()
    real_replace = os.replace

    def failing_replace(src, dst):
        if os.fspath(dst) == os.fspath(path):
            raise OSError("simulated kill before the rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="simulated kill"):
        run("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02, checkpoint=path, checkpoint_every=4)
    monkeypatch.undo()
    assert path.read_bytes() == before  # the previous checkpoint, untouched and valid
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no temporary file left
    reference = run("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02)
    assert_same_result(resume(), reference)


def test_failure_while_writing_keeps_previous_checkpoint(saved, monkeypatch):
    """A write that dies half-way (disk full, kill) never reaches the checkpoint's name."""
    path, resume, (X, y) = saved
    before = path.read_bytes()
    real_savez = np.savez

    def dying_savez(file, **arrays):
        real_savez(file, **arrays)
        file.truncate(file.tell() // 2)
        raise OSError("simulated crash while writing")

    monkeypatch.setattr(np, "savez", dying_savez)
    with pytest.raises(OSError, match="simulated crash"):
        run("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02, checkpoint=path, checkpoint_every=4)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]
    assert read_header(path)["iteration"] == 4


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda sol: sol.extra.update(bad=object()), r"sol\.extra\['bad'\] is a object"),
        (lambda sol: setattr(sol, "solver_state", ("lp", None)), "not a dualboost.solvers.state.SolverState"),
    ],
)
def test_a_state_that_cannot_be_written_is_refused(change, message, tmp_path):
    """What a checkpoint cannot write (an ``extra`` entry that is neither a numeric array nor a JSON
    scalar, a solver state that is not a SolverState) is a ValueError naming it, not dropped (each
    solve's Solution is changed by the callback of ``AuglagOptions``, which sees it last)."""
    from dualboost.solvers import AuglagOptions, default_options

    def changed(stage):
        if stage.name == "solved":
            change(stage.solution)

    X, y = data()
    with pytest.raises(ValueError, match=message), default_options(AuglagOptions(callback=changed)):
        boost("erlpboost", DecisionStumps().fit(X, y), nu=24.0, eps=0.02, checkpoint=tmp_path / "run.ckpt")


def test_the_solver_states_are_written_and_read_back(tmp_path):
    """Each warm-start state round-trips through a checkpoint: auglag's curvature and HiGHS's basis
    come back as the same typed objects with equal arrays (the live HiGHS model is not written)."""
    from dualboost.boosting.core.checkpoint import _write_solution
    from dualboost.instances import random_edge_matrix
    from dualboost.problems import ERLPBoost, LPBoost
    from dualboost.solvers.auglag import AuglagState
    from dualboost.solvers.highs import HighsState
    from dualboost.solvers.state import state_from_dict

    U = random_edge_matrix(60, 8, seed=2)
    for model, method, side, cls in (
        (ERLPBoost(U, nu=6.0, eta=20.0), "auglag", "dual", AuglagState),
        (LPBoost(U, nu=6.0), "highs", "primal", HighsState),
    ):
        sol = model.solve(method=method, side=side)
        assert isinstance(sol.solver_state, cls)
        arrays: dict = {}
        scalars = json.loads(json.dumps(_write_solution("sol", sol, arrays)))  # as the header holds it
        entries = scalars["solver_state"]["scalars"] | {
            key.removeprefix("state.sol.solver_state."): value
            for key, value in arrays.items()
            if key.startswith("state.sol.solver_state.")
        }
        back = state_from_dict(scalars["solver_state"]["kind"], entries)
        assert type(back) is cls
        for key, value in sol.solver_state.to_dict().items():
            np.testing.assert_array_equal(back.to_dict()[key], value)
