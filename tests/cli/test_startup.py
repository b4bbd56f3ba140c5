"""Start-up of the ``dualboost`` command.

``dualboost --help`` and ``dualboost <command> --help`` build only the parsers, which need names, not
the solvers: the checks here are structural (which modules a fresh process has imported after the
help is printed), not timings, which depend on the machine; benchmarks/startup.py measures the times.
The names the parsers show (:mod:`dualboost.cli_names`) must equal the registries they mirror.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.environment import ROOT

#: what the help does not need: cvxpy (0.7-1.5 s), scikit-learn (about 1 s), scipy.optimize
HEAVY = ("sklearn", "cvxpy", "scipy.optimize")

_PROBE = """
import contextlib, io, json, sys
argv = json.loads(sys.argv[1])
if argv is None:
    import dualboost
else:
    from dualboost.cli import main
    with contextlib.redirect_stdout(io.StringIO()) as out:
        try:
            main(argv)
        except SystemExit:
            pass
    assert "usage: dualboost" in out.getvalue(), out.getvalue()
print(json.dumps(sorted(name for name in sys.modules if name.split(".")[0] in ("sklearn", "cvxpy", "scipy"))))
"""


def _imported(argv: list[str] | None) -> list[str]:
    """The sklearn / cvxpy / scipy modules a fresh process holds after ``dualboost ARGV`` (None: after
    ``import dualboost``)."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "argv", [None, ["--help"], ["verify", "--help"], ["boost", "--help"], ["predict", "--help"]]
)
def test_help_imports_no_solver_and_no_scikit_learn(argv):
    """Before: ``import dualboost.cli`` imported all three (1.7-2.3 s for ``dualboost --help``)."""
    modules = _imported(argv)
    heavy = [name for name in modules if any(name == h or name.startswith(h + ".") for h in HEAVY)]
    assert heavy == [], heavy


def test_public_api_still_resolves_on_first_use():
    """``import dualboost`` stays light and its estimators are imported on attribute access."""
    import dualboost

    assert dualboost.ERLPBoostClassifier.__name__ == "ERLPBoostClassifier"
    assert callable(dualboost.reweight)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        dualboost.NoSuchThing  # noqa: B018


def test_the_names_of_the_parsers_equal_their_registries():
    """Every name list of :mod:`dualboost.cli_names` equals the registry its comment names."""
    from dualboost import cli_names, verify
    from dualboost.boosting import ALGORITHMS
    from dualboost.boosting.core.checkpoint import DEFAULT_EVERY
    from dualboost.boosting.corrective.frank_wolfe import STEPS
    from dualboost.datasets import DATASETS
    from dualboost.estimators.persistence import MAX_MODEL_BYTES
    from dualboost.oracles.registry import ORACLES
    from dualboost.problems.relaxation_report import BUILTIN_RELAXATIONS
    from dualboost.solvers import METHODS, SIDES
    from dualboost.solvers.cvxpy_backend import CVXPY_METHODS

    assert cli_names.FAMILIES == verify.FAMILIES
    assert cli_names.GAP_TOL == verify.GAP_TOL and cli_names.MAP_TOL == verify.MAP_TOL
    assert cli_names.METHODS == METHODS and cli_names.SIDES == SIDES
    assert cli_names.CVXPY_METHODS == tuple(CVXPY_METHODS)
    assert cli_names.RELAXATIONS == tuple(BUILTIN_RELAXATIONS)
    assert cli_names.ALGORITHMS == tuple(ALGORITHMS)
    assert cli_names.DATASETS == tuple(DATASETS)
    assert cli_names.ORACLES == tuple(ORACLES)
    assert cli_names.STEPS == STEPS
    assert cli_names.DEFAULT_EVERY == DEFAULT_EVERY
    assert cli_names.MAX_MODEL_BYTES == MAX_MODEL_BYTES


def test_benchmark_script_runs_and_reports_each_command(tmp_path):
    """benchmarks/startup.py times each help command against ``python -c pass`` (1 repeat here)."""
    out = tmp_path / "startup.txt"
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "startup.py"), "--repeat", "1", "--out", str(out)],
        env=env, check=True, capture_output=True, text=True,
    )
    text = out.read_text()
    for command in ("python -c pass", "dualboost --help", "dualboost verify --help"):
        assert command in text, text
