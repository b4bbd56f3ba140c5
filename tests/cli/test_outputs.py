"""No lost work: the outputs of the CLI, the checkpoints and the model files.

* every output path of the CLI (``boost --save/--history/--plot/--checkpoint``, ``verify --json``,
  ``predict --out``) is checked before the work starts: one error line naming the option and the
  path, nothing trained, no file left behind;
* after training the model is written first; an output that cannot be written (its directory
  removed during the run, or a full disk) is one line on stderr, the others are still written,
  exit 1;
* a full disk while writing a checkpoint or a model file (fault injection: the write raises
  ``OSError(ENOSPC)``) is an OSError naming the file, with no temporary file left, and one line
  from the CLI;
* a checkpoint is locked: a second run on the same path -- in this process or in another one --
  is refused at its start; a ``kill -9`` leaves no stale lock, and the temporary file a writer
  killed during a write left is removed by the next run, never a live writer's;
* files follow the umask (0o022 -> 0o644, 0o077 -> 0o600), and a symbolic link is written through.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import dump_svmlight_file, make_classification
from sklearn.exceptions import ConvergenceWarning

from dualboost import cli, cli_verify
from dualboost.boosting import boost
from dualboost.boosting.core.checkpoint import read_header
from dualboost.estimators import ERLPBoostClassifier, load
from dualboost.oracles import DecisionStumps
from tests.cli.test_boost import toy_file

ROOT = Path(__file__).resolve().parents[2]


def enospc() -> OSError:
    """The error of a write to a full disk (what the monkeypatched writes raise)."""
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def data():
    return make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)


def run(path, **options):
    X, y = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return boost("erlpboost", DecisionStumps().fit(X, y), nu=12.0, eps=0.05, checkpoint=path, **options)


def child_env() -> dict:
    return os.environ | {"PYTHONPATH": str(ROOT)}


# -- checked before training ---------------------------------------------------------------------


def _bad_paths(tmp_path):
    """(option value, expected message) for a missing directory, a directory, a read-only file."""
    (tmp_path / "adir").mkdir()
    (tmp_path / "ro").write_text("kept")
    (tmp_path / "ro").chmod(0o444)
    missing = tmp_path / "missing"
    return [
        (missing / "out", "directory not writable: " + re.escape(repr(str(missing)))),
        (tmp_path / "adir", "is a directory"),
        (tmp_path / "ro", r"the file exists and is not writable \(mode 0o444\)"),
    ]


@pytest.mark.parametrize("option", ["--save", "--history", "--plot", "--checkpoint"])
def test_boost_refuses_an_unwritable_output_before_training(option, tmp_path, capsys):
    """Today ``--history missing_dir/h.csv`` (or ``--plot`` somewhere unwritable) trained, then died
    with a traceback, and the model of ``--save`` was never written."""
    train = toy_file(tmp_path)
    for index, (bad, message) in enumerate(_bad_paths(tmp_path)):
        others = {"--save": tmp_path / f"m{index}.model", "--history": tmp_path / f"h{index}.csv"}
        argv = ["boost", str(train), "--quiet", option, str(bad)]
        for other, path in others.items():
            if other != option:
                argv += [other, str(path)]
        assert cli.main(argv) == 1
        out, err = capsys.readouterr()
        assert out == ""  # nothing trained, no summary
        assert err.count("\n") == 1 and "Traceback" not in err
        start = f"dualboost boost: error: {option} {re.escape(repr(str(bad)))}"
        assert re.search(f"^{start}.*{message}", err), err
        assert not any(path.exists() for path in others.values())
    assert (tmp_path / "ro").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adir", "ro", "toy.libsvm"]  # no probe left


def test_boost_refuses_outputs_that_collide_or_overwrite_an_input(tmp_path, capsys):
    train = toy_file(tmp_path)
    before = train.read_bytes()
    same = str(tmp_path / "same")
    for argv, message in [
        (["--history", same, "--plot", same], f"--history and --plot name the same file {same!r}"),
        (["--save", same, "--checkpoint", same], f"--save and --checkpoint name the same file {same!r}"),
        (["--history", str(train)], f"--history {str(train)!r} is the input file TRAIN"),
    ]:
        assert cli.main(["boost", str(train), "--quiet", *argv]) == 1
        out, err = capsys.readouterr()
        assert out == "" and message in err and "Traceback" not in err
    assert train.read_bytes() == before


def test_boost_refuses_a_named_data_set_file_as_output(tmp_path, monkeypatch, capsys):
    """A named data set (TRAIN ``diabetes``) is read from the data directory: no output may be one of
    its files (a copy here, writable, so that only this check can refuse it)."""
    directory = tmp_path / "data"
    directory.mkdir()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 8))
    dump_svmlight_file(X, np.where(X[:, 0] > 0, 1, -1), str(directory / "diabetes"))
    before = (directory / "diabetes").read_bytes()
    monkeypatch.setenv("DUALBOOST_DATA", str(directory))
    assert cli.main(["boost", "diabetes", "--quiet", "--save", str(directory / "diabetes")]) == 1
    err = capsys.readouterr().err
    assert f"--save {str(directory / 'diabetes')!r} is the input file" in err
    assert (directory / "diabetes").read_bytes() == before


def test_boost_refuses_a_plot_format_before_training(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--plot", str(tmp_path / "g.xyz")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "matplotlib does not write .xyz files" in err


def test_verify_and_predict_check_their_outputs_first(tmp_path, capsys):
    missing = tmp_path / "missing" / "rows.json"
    start = time.perf_counter()
    assert cli.main(["verify", "--json", str(missing)]) == 2  # verify's status of a usage error
    assert time.perf_counter() - start < 5  # refused before solving (the full run takes minutes)
    err = capsys.readouterr().err
    assert f"dualboost verify: error: --json {str(missing)!r}: directory not writable" in err
    model = tmp_path / "m.model"
    assert cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--save", str(model)]) == 0
    capsys.readouterr()
    out_missing = tmp_path / "missing" / "p.txt"
    argv = ["predict", str(model), str(toy_file(tmp_path)), "--out", str(out_missing)]
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert out == "" and f"--out {str(out_missing)!r}: directory not writable" in err
    argv = ["predict", str(model), str(toy_file(tmp_path)), "--out", str(model)]
    assert cli.main(argv) == 1
    assert "is the input file MODEL" in capsys.readouterr().err


# -- a failed output does not lose the others -----------------------------------------------------
# (Failures are injected by removing an output's directory during the run, after the checks, or by
# a write that raises ENOSPC: nothing here writes outside tmp_path, whatever the code under test.)


def vanishing(monkeypatch, module, name, directory):
    """Make ``module.name`` (a function) remove ``directory`` after it returns."""
    real = getattr(module, name)

    def then_remove(*args, **kwargs):
        value = real(*args, **kwargs)
        shutil.rmtree(directory)
        return value

    monkeypatch.setattr(module, name, then_remove)


@pytest.mark.parametrize("failing", ["--save", "--history", "--plot"])
def test_one_failed_output_loses_none_of_the_others(failing, tmp_path, monkeypatch, capsys):
    """The directory of one output is removed during training: that output is one error line, the
    others are written (the model first), and the status is 1. Today a --history or --plot that
    cannot be written ends in a traceback, and the model of --save is never written."""
    import dualboost.estimators.base as estimators_base  # (the classifier that `boost` fits runs its driver)

    pytest.importorskip("matplotlib")
    outputs = {"--save": tmp_path / "m.model", "--history": tmp_path / "h.csv", "--plot": tmp_path / "p.png"}
    gone = tmp_path / "gone"
    gone.mkdir()
    outputs[failing] = gone / "out"
    vanishing(monkeypatch, estimators_base, "boost", gone)
    argv = ["boost", str(toy_file(tmp_path)), "--quiet"]
    for option, path in outputs.items():
        argv += [option, str(path)]
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    path = str(outputs[failing])
    assert err == f"dualboost boost: error: {failing}: cannot write {path!r}: No such file or directory\n"
    assert "iterations:" in out
    check_written(outputs, failing, tmp_path, out)


def check_written(outputs, failing, tmp_path, out):
    """Every output but ``failing`` is written and reported."""
    from dualboost.datasets import load_libsvm

    if failing != "--save":
        X, _ = load_libsvm(toy_file(tmp_path))
        assert load(outputs["--save"]).predict(X).shape == (X.shape[0],)
        assert "  model:        " in out
    if failing != "--history":
        assert outputs["--history"].read_text().startswith("iteration,")
    if failing != "--plot":
        assert outputs["--plot"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_full_disk_while_saving_the_model_keeps_history_and_plot(tmp_path, monkeypatch, capsys):
    pytest.importorskip("matplotlib")

    def full(file, **arrays):
        file.write(b"PK\x03\x04 part of an archive")
        raise enospc()

    monkeypatch.setattr(np, "savez_compressed", full)
    outputs = {"--save": tmp_path / "m.model", "--history": tmp_path / "h.csv", "--plot": tmp_path / "p.png"}
    argv = ["boost", str(toy_file(tmp_path)), "--quiet"]
    for option, path in outputs.items():
        argv += [option, str(path)]
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    model = str(outputs["--save"])
    assert err == f"dualboost boost: error: --save: cannot write {model!r}: No space left on device\n"
    check_written(outputs, "--save", tmp_path, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv", "p.png", "toy.libsvm"]  # no temporary


def test_verify_and_predict_report_an_unwritable_output_in_one_line(tmp_path, monkeypatch, capsys):
    import dualboost.estimators.persistence as persistence

    gone = tmp_path / "gone"
    gone.mkdir()
    rows = gone / "rows.json"
    vanishing(monkeypatch, cli_verify, "run_verify", gone)
    argv = ["verify", "--models", "lpboost", "--methods", "highs", "--sides", "primal", "--json", str(rows)]
    assert cli.main(argv) == 1
    out, err = capsys.readouterr()
    assert "all 2 checks passed" in out  # the table is not lost
    assert err == f"dualboost verify: error: --json: cannot write {str(rows)!r}: No such file or directory\n"
    model = tmp_path / "m.model"
    assert cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--save", str(model)]) == 0
    capsys.readouterr()
    gone.mkdir()
    predictions = gone / "p.txt"
    vanishing(monkeypatch, persistence, "load", gone)
    assert cli.main(["predict", str(model), str(toy_file(tmp_path)), "--out", str(predictions)]) == 1
    assert capsys.readouterr().err == (
        f"dualboost predict: error: --out: cannot write {str(predictions)!r}: No such file or directory\n"
    )


# -- a full disk while writing: the library ------------------------------------------------------


def test_a_full_disk_during_a_checkpoint_names_the_file(tmp_path, monkeypatch):
    path = tmp_path / "run.ckpt"

    def full(file, **arrays):
        file.write(b"PK\x03\x04 part of an archive")
        raise enospc()

    monkeypatch.setattr(np, "savez", full)
    with pytest.raises(OSError) as caught:
        run(path, checkpoint_every=1)
    assert caught.value.errno == errno.ENOSPC
    assert str(caught.value) == f"cannot write {str(path)!r}: No space left on device"
    assert os.listdir(tmp_path) == []  # no checkpoint, no temporary file, no lock file


def test_a_full_disk_while_saving_a_model_names_the_file(tmp_path, monkeypatch):
    X, y = data()
    clf = ERLPBoostClassifier(nu=0.1, eps=0.1).fit(X, y)
    path = tmp_path / "m.model"
    clf.save(path)
    before = path.read_bytes()

    def full(file, **arrays):
        file.write(b"PK\x03\x04 part of an archive")
        raise enospc()

    monkeypatch.setattr(np, "savez_compressed", full)
    with pytest.raises(OSError, match=re.escape(f"cannot write {str(path)!r}: No space left on device")):
        clf.save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.model"]


def test_cli_reports_a_full_disk_during_a_checkpoint_in_one_line(tmp_path, monkeypatch, capsys):
    path = tmp_path / "run.ckpt"

    def full(file, **arrays):
        raise enospc()

    monkeypatch.setattr(np, "savez", full)
    argv = ["boost", str(toy_file(tmp_path)), "--quiet", "--checkpoint", str(path), "--checkpoint-every", "1"]
    assert cli.main(argv) == 1
    assert capsys.readouterr().err == (
        f"dualboost boost: error: --checkpoint: cannot write {str(path)!r}: No space left on device\n"
    )


# -- locking ----------------------------------------------------------------------------------------


def test_a_second_run_on_the_same_checkpoint_is_refused_at_its_start(tmp_path):
    """Today two runs with the same checkpoint path overwrite each other. Two locks in one process
    conflict (flock locks belong to an open file): the nested run, started from the first one's
    callback, is refused before its first iteration; the first one ends normally and releases."""
    path = tmp_path / "run.ckpt"
    refused, nested_rows = [], []

    def callback(row):
        if row.iteration == 2:
            with pytest.raises(ValueError) as caught:
                run(path, checkpoint_every=1, callback=nested_rows.append)
            refused.append(str(caught.value))

    first = run(path, checkpoint_every=1, callback=callback)
    assert nested_rows == []
    assert refused and refused[0].startswith(f"checkpoint {str(path)!r} is in use: another run (process")
    assert first.n_iter > 2 and read_header(path)["iteration"] >= 2
    assert sorted(os.listdir(tmp_path)) == ["run.ckpt"]  # the lock file is removed at the end
    run(path, checkpoint_every=1)  # and the path is free again


def test_a_run_that_raised_releases_the_lock_though_its_traceback_is_kept(tmp_path):
    """An interrupted run (Ctrl-C in a notebook keeps the traceback, and with it the driver's frame)
    must not hold the lock: the resumed run on the same path starts."""

    class Interrupt(Exception):
        pass

    def interrupt(row):
        if row.iteration == 3:
            raise Interrupt

    path = tmp_path / "run.ckpt"
    with pytest.raises(Interrupt) as kept:
        run(path, checkpoint_every=1, callback=interrupt)
    assert kept.value.__traceback__ is not None
    assert sorted(os.listdir(tmp_path)) == ["run.ckpt"]  # no lock file
    assert run(path, checkpoint_every=1, resume=True).n_iter > 3


HOLDER = """
import sys, time, warnings
from sklearn.datasets import make_classification
from dualboost.boosting import boost
from dualboost.oracles import DecisionStumps
warnings.simplefilter("ignore")
X, y = make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)
def slow(row):
    print(row.iteration, flush=True)
    time.sleep(60)
boost("erlpboost", DecisionStumps().fit(X, y), nu=12.0, eps=0.05, checkpoint=sys.argv[1], callback=slow)
"""


def test_another_process_holding_the_checkpoint_refuses_this_run_until_it_is_killed(
    tmp_path, monkeypatch, capsys
):
    """The driver refuses before its first iteration; the CLI before it reads the data."""
    import dualboost.cli_boost as cli_boost

    path = tmp_path / "run.ckpt"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, env=child_env(), text=True
    )
    try:
        assert holder.stdout.readline().strip() == "1"  # in its first iteration, holding the lock
        rows = []
        held = rf"is in use: another run \(process {holder.pid}\) holds its lock"
        with pytest.raises(ValueError, match=held):
            run(path, callback=rows.append)
        assert rows == []  # refused at the start
        train = toy_file(tmp_path)
        monkeypatch.setattr(cli_boost, "_load", lambda args: pytest.fail("the data was read"))
        assert cli.main(["boost", str(train), "--quiet", "--checkpoint", str(path)]) == 1
        out, err = capsys.readouterr()
        assert out == "" and re.fullmatch(f"dualboost boost: error: checkpoint .*{held}.*\n", err), err
    finally:
        holder.kill()  # kill -9: the kernel releases the lock
        holder.wait()
    assert run(path).n_iter > 0


def test_without_fcntl_the_run_warns_that_it_is_not_locked(tmp_path, monkeypatch):
    from dualboost import _files

    monkeypatch.setattr(_files, "fcntl", None)
    unlocked = "is not locked against a second writer: this platform has no fcntl"
    with pytest.warns(RuntimeWarning, match=unlocked):
        run(tmp_path / "run.ckpt")


# -- a dead writer's temporary files ------------------------------------------------------------------


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_a_dead_writers_temporary_file_is_removed_and_no_live_one(tmp_path):
    path = tmp_path / "run.ckpt"
    stale = tmp_path / f".run.ckpt.{dead_pid()}.0a1b2c.tmp"
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = tmp_path / f".run.ckpt.{sleeper.pid}.0a1b2c.tmp"  # a process that runs: kept
        other = tmp_path / f".run.ckpt.old.{dead_pid()}.0a1b2c.tmp"  # another file's ("run.ckpt.old")
        foreign = tmp_path / ".run.ckpt.a8x2k1qz.tmp"  # not of our naming (e.g. an older dualboost)
        for leftover in (stale, live, other, foreign):
            leftover.write_bytes(b"PK\x03\x04 half")
        run(path, checkpoint_every=2)
        assert sorted(os.listdir(tmp_path)) == sorted(["run.ckpt", live.name, other.name, foreign.name])
    finally:
        sleeper.kill()
        sleeper.wait()


KILLED_WRITER = """
import sys, time, warnings
import numpy as np
from sklearn.datasets import make_classification
from dualboost.boosting import boost
from dualboost.oracles import DecisionStumps
warnings.simplefilter("ignore")
real = np.savez
def hang(file, **arrays):
    file.write(b"PK\\x03\\x04 half an archive")
    file.flush()
    print("writing", flush=True)
    time.sleep(60)
np.savez = hang
X, y = make_classification(n_samples=120, n_features=6, n_informative=3, random_state=0)
boost("erlpboost", DecisionStumps().fit(X, y), nu=12.0, eps=0.05, checkpoint=sys.argv[1], checkpoint_every=1)
"""


def test_kill_9_during_a_checkpoint_write_leaves_nothing_the_next_run_keeps(tmp_path):
    path = tmp_path / "run.ckpt"
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(path)], stdout=subprocess.PIPE, env=child_env(), text=True
    )
    try:
        assert writer.stdout.readline().strip() == "writing"
    finally:
        writer.kill()
        writer.wait()
    left = sorted(os.listdir(tmp_path))
    assert re.fullmatch(rf"\.run\.ckpt\.{writer.pid}\.[0-9a-f]+\.tmp", left[0]) and len(left) == 2  # + lock
    result = run(path, checkpoint_every=1)
    assert sorted(os.listdir(tmp_path)) == ["run.ckpt"]
    assert read_header(path)["iteration"] in (result.n_iter - 1, result.n_iter)


# -- permissions and links --------------------------------------------------------------------------


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_follow_the_umask(umask, mode, tmp_path, capsys):
    """Today mkstemp gave every model file and checkpoint mode 0600 whatever the umask."""
    previous = os.umask(umask)
    try:
        model, ckpt, history = tmp_path / "m.model", tmp_path / "r.ckpt", tmp_path / "h.csv"
        argv = ["boost", str(toy_file(tmp_path)), "--quiet", "--save", str(model), "--history", str(history)]
        assert cli.main([*argv, "--checkpoint", str(ckpt), "--checkpoint-every", "1"]) == 0
    finally:
        os.umask(previous)
    for path in (model, ckpt, history):
        assert path.stat().st_mode & 0o777 == mode, path


def test_the_plot_is_written_in_the_format_of_its_extension(tmp_path, capsys):
    """(The plot is rendered into the atomic writer's file, whose format matplotlib cannot infer.)"""
    pytest.importorskip("matplotlib")
    plot = tmp_path / "g.svg"
    assert cli.main(["boost", str(toy_file(tmp_path)), "--quiet", "--plot", str(plot)]) == 0
    assert plot.read_text().startswith("<?xml") and "<svg" in plot.read_text()


def test_a_symbolic_link_is_written_through(tmp_path):
    X, y = data()
    target, link = tmp_path / "v1.model", tmp_path / "latest.model"
    target.write_bytes(b"old")
    link.symlink_to(target.name)
    ERLPBoostClassifier(nu=0.1, eps=0.1).fit(X, y).save(link)
    assert link.is_symlink() and os.readlink(link) == "v1.model"
    assert load(target).n_features_in_ == X.shape[1]


def test_the_temporary_names_of_two_files_never_match_each_other():
    """``.NAME.PID.HEX.tmp``: the stale-file pattern of one name never matches another name's files."""
    from dualboost import _files

    names = ["a", "a.5", "a.5.6", "run.ckpt", "run.ckpt.old", "x.1.ff"]
    for name in names:
        pattern = _files._temporary_pattern(Path(name))
        for other in names:
            candidate = _files.temporary_path(Path(other)).name
            assert bool(pattern.fullmatch(candidate)) == (name == other), (name, other)

